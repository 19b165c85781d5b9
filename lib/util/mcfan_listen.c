/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Listen addresses (mcfan_listen.h). */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mcfan_listen.h"
#include "mcfan_parse.h"

#define PORT_MAX 65535
#define ADDR_TEXT_MAX INET6_ADDRSTRLEN /* longest numeric address, with NUL */

static int
port_parse(const char *whole, const char *p, uint16_t *port, char *err, size_t len)
{
	uint64_t v = 0;
	int ret = mcfan_parse_u64(p, 1, PORT_MAX, &v);

	if (ret == -ERANGE)
		return mcfan_err_set(err, len, -ERANGE, "'%s': port '%s' is out of range: "
				     "1..%d", whole, p, PORT_MAX);
	if (ret < 0)
		return mcfan_err_set(err, len, -EINVAL, "'%s': port '%s' is not a decimal "
				     "number 1..%d", whole, p, PORT_MAX);
	*port = (uint16_t)v;
	return 0;
}

/* Is every character of s a decimal digit or a dot (an attempt at a dotted quad)? */
static bool
digits_and_dots(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!(*s == '.' || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

int
mcfan_listen_parse(const char *text, struct mcfan_listen *out, char *err, size_t len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)&out->addr;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&out->addr;
	char host[ADDR_TEXT_MAX];
	const char *colon, *port_text;
	size_t n;
	int ret;

	memset(out, 0, sizeof(*out));
	n = strlen(text);
	if (n == 0 || n > MCFAN_LISTEN_TEXT_MAX)
		return mcfan_err_set(err, len, -EINVAL, "'%.*s%s' is not a listen address "
				     "(PORT, ADDR:PORT or [ADDR6]:PORT)", MCFAN_LISTEN_TEXT_MAX,
				     text, n > MCFAN_LISTEN_TEXT_MAX ? "..." : "");
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (close == NULL || close[1] != ':')
			return mcfan_err_set(err, len, -EINVAL, "'%s': an IPv6 address is "
					     "written [ADDR6]:PORT", text);
		n = (size_t)(close - text - 1);
		if (n == 0 || n >= sizeof(host))
			return mcfan_err_set(err, len, -EINVAL, "'%s': '%.*s' is not an IPv6 "
					     "address", text, (int)n, text + 1);
		memcpy(host, text + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, &v6->sin6_addr) != 1) {
			memset(out, 0, sizeof(*out));
			return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is not a numeric IPv6 "
					     "address", text, host);
		}
		/* RFC 4291 2.7 (ff00::/8) and 2.5.6 (fe80::/10): nothing to listen on, or not
		 * without an interface scope, which mcfan does not take */
		if (IN6_IS_ADDR_MULTICAST(&v6->sin6_addr)) {
			memset(out, 0, sizeof(*out));
			return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is a multicast "
					     "address: give a unicast address of this host", text,
					     host);
		}
		if (IN6_IS_ADDR_LINKLOCAL(&v6->sin6_addr)) {
			memset(out, 0, sizeof(*out));
			return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is a link-local "
					     "address (it needs an interface scope, not taken): "
					     "give another address, or [::]", text, host);
		}
		/* RFC 4291 2.5.5.2 (::ffff:0:0/96): the listener is IPv6 only (IPV6_V6ONLY),
		 * where bind() refuses a mapped IPv4 address (EINVAL) */
		if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
			char v4text[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], v4text, sizeof(v4text));
			memset(out, 0, sizeof(*out));
			return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is an IPv4-mapped "
					     "address (the IPv6 listener takes no IPv4): write "
					     "%s:%s", text, host, v4text, close + 2);
		}
		ret = port_parse(text, close + 2, &out->port, err, len);
		if (ret < 0) {
			memset(out, 0, sizeof(*out));
			return ret;
		}
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(out->port);
		out->addr_len = sizeof(*v6);
		snprintf(out->text, sizeof(out->text), "[%s]:%u", host, out->port);
		return 0;
	}
	colon = strrchr(text, ':');
	if (colon == NULL) {
		port_text = text;
		snprintf(host, sizeof(host), "127.0.0.1");
	} else {
		port_text = colon + 1;
		n = (size_t)(colon - text);
		if (n >= sizeof(host) || memchr(text, ':', n) != NULL)
			return mcfan_err_set(err, len, -EINVAL, "'%s': write an IPv6 address in "
					     "brackets, [ADDR6]:PORT", text);
		if (n == 0) {
			snprintf(host, sizeof(host), "127.0.0.1");
		} else {
			memcpy(host, text, n);
			host[n] = '\0';
		}
	}
	if (inet_pton(AF_INET, host, &v4->sin_addr) != 1) {
		memset(out, 0, sizeof(*out));
		if (digits_and_dots(host))
			return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is not a numeric "
					     "IPv4 address: four decimal numbers 0..255, no leading "
					     "zeros (A.B.C.D)", text, host);
		return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is not a numeric IPv4 address "
				     "(no host names)", text, host);
	}
	/* RFC 5771 (224.0.0.0/4) and RFC 919 (255.255.255.255): not an address to listen on */
	if (IN_MULTICAST(ntohl(v4->sin_addr.s_addr)) ||
	    v4->sin_addr.s_addr == htonl(INADDR_BROADCAST)) {
		bool mc = IN_MULTICAST(ntohl(v4->sin_addr.s_addr));

		memset(out, 0, sizeof(*out));
		return mcfan_err_set(err, len, -EINVAL, "'%s': '%s' is a %s address: give a "
				     "unicast address of this host (or 0.0.0.0)", text, host,
				     mc ? "multicast" : "broadcast");
	}
	ret = port_parse(text, port_text, &out->port, err, len);
	if (ret < 0) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	v4->sin_family = AF_INET;
	v4->sin_port = htons(out->port);
	out->addr_len = sizeof(*v4);
	snprintf(out->text, sizeof(out->text), "%s:%u", host, out->port);
	return 0;
}
