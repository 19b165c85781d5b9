/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_LISTEN_H
#define MCFAN_LISTEN_H

/**
 * @file
 * A TCP listen address as an operator writes it: "PORT", ":PORT", "ADDR:PORT" (IPv4 dotted
 * quad, RFC 791) or "[ADDR6]:PORT" (IPv6 in brackets, RFC 3986 section 3.2.2 and RFC 4291
 * text form). No host names: nothing is resolved. Without an address it is loopback
 * (127.0.0.1). Used by --metrics-listen (docs/metrics.md).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/** Longest listen address text, bytes without the NUL ("[v6 address]:65535"). */
#define MCFAN_LISTEN_TEXT_MAX 63

/** A parsed listen address. */
struct mcfan_listen {
	struct sockaddr_storage addr; /**< AF_INET or AF_INET6, port in network order. */
	socklen_t addr_len;           /**< sizeof(struct sockaddr_in) or _in6. */
	uint16_t port;                /**< TCP port, 1..65535, host order. */
	/** The address as mcfan shows it: "127.0.0.1:9100", "[::1]:9100". */
	char text[MCFAN_LISTEN_TEXT_MAX + 1];
};

/**
 * Parse a listen address.
 *
 * @param text
 *   "PORT", ":PORT", "A.B.C.D:PORT" or "[IPV6]:PORT"; PORT is decimal 1..65535. Must not be
 *   NULL.
 * @param out
 *   Receives the address on success; zeroed on error. Must not be NULL.
 * @param err
 *   Receives a one-line message naming the offending token on error; may be NULL.
 * @param err_len
 *   Size of err, bytes.
 * @return
 *   0; -EINVAL for an empty or malformed text, an address that is not a numeric IPv4
 *   (inet_pton(): four decimal numbers, no leading zeros) or bracketed IPv6 address, a
 *   multicast address (224.0.0.0/4, ff00::/8), the IPv4 broadcast address
 *   255.255.255.255, an IPv6 link-local address (fe80::/10: it needs a scope), an
 *   IPv4-mapped IPv6 address (::ffff:0:0/96: the IPv6 listener is IPv6 only), or a port
 *   that is not a decimal number; -ERANGE for a port 0 or above 65535.
 */
int mcfan_listen_parse(const char *text, struct mcfan_listen *out, char *err, size_t err_len);

#endif /* MCFAN_LISTEN_H */
