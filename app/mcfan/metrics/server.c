/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The metrics endpoint's HTTP side (metrics.h): libmicrohttpd with its own polling thread
 * (MHD_USE_INTERNAL_POLLING_THREAD: one thread, event driven, so a slow client holds only
 * its own connection), a timeout that cuts idle or slow connections, a total and a per-IP
 * connection limit, and a memory limit per connection. libmicrohttpd parses HTTP/1.x
 * (RFC 9112) and answers malformed requests itself (400, 413, 414, 431); this file
 * answers GET and HEAD of /metrics (RFC 9110: 404 for another path, 405 with Allow for
 * another method) and picks the format by the Accept header.
 *
 * libmicrohttpd's timeout counts silence only, so a client that drips a byte every second
 * would keep its connection for ever (slowloris). A watchdog thread of ours (a DPDK control
 * thread) gives every exchange a deadline instead: from the moment a connection waits for a
 * request (accepted, or its last response sent) until that request's response is sent,
 * REQUEST_DEADLINE_S at most; past it the watchdog shuts the socket down (shutdown(2) on a
 * dup of it, so the descriptor can never be one libmicrohttpd has closed and the system
 * reused) and libmicrohttpd closes the connection as it would any hung-up client.
 *
 * State: server (the daemon) and watch_tid are written by the main lcore only, in
 * mcfan_metrics_start() before the data lcores are launched and in mcfan_metrics_stop() at
 * the end; the request handler runs in libmicrohttpd's thread between the two and reads
 * only app and what the read side hands it. conns[], watch_stop and conns_cut are guarded
 * by conns_lock (libmicrohttpd's thread: a connection's start, end and completed
 * exchanges; the watchdog: the deadlines; the request handler: the count).
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "log.h"
#include "metrics/metrics.h"

/* Cut a connection idle (or sending its request slower) than this, seconds. Prometheus's
 * default scrape timeout is 10 s; a page is built in milliseconds. */
#define CONN_TIMEOUT_S 5u
/* Longest exchange: from waiting for a request to its response sent, seconds (a scrape
 * takes milliseconds; Prometheus's keep-alive connection waits one scrape interval). */
#define REQUEST_DEADLINE_S 7u
/* How often the watchdog looks at the deadlines, ms. */
#define WATCH_PERIOD_MS 200u
/* Connections at once, in all, and from one IP address: one address takes at most an
 * eighth of the whole, so filling the server takes clients on eight addresses. */
#define CONN_LIMIT 64u
#define CONN_PER_IP_LIMIT 8u
/* Memory for one connection's request (headers included), bytes: a scrape needs < 1 KiB. */
#define CONN_MEMORY 16384u
#define LISTEN_BACKLOG 16
#define METRICS_PATH "/metrics"
#define ALLOW "GET, HEAD"
#define OPENMETRICS_TYPE "application/openmetrics-text"

static struct MHD_Daemon *server;
/* Written by libmicrohttpd's one polling thread only (the request handler), read by it. */
static struct mcfan_metrics_stats server_stats;

/* One connection the watchdog watches (conns_lock). */
struct conn_watch {
	int fd;             /* a dup of the connection's socket; -1: the slot is free */
	bool cut;           /* the watchdog shut it down */
	uint64_t since_ms;  /* CLOCK_MONOTONIC when it began waiting for its request */
};

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static struct conn_watch conns[CONN_LIMIT];
static uint64_t conns_cut;  /* connections cut at their deadline */
static bool watch_stop;
static bool watch_running;
static pthread_t watch_tid;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A connection begins (watch a dup of its socket) or ends (close the dup). libmicrohttpd's
 * thread. A connection with no slot (none free, or dup() failed) is only under the idle
 * timeout; with CONN_LIMIT slots that does not happen. */
static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
	      enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci;
	struct conn_watch *w = *socket_context;
	unsigned int i;
	int fd;

	RTE_SET_USED(cls);
	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (w == NULL)
			return;
		pthread_mutex_lock(&conns_lock);
		close(w->fd);
		w->fd = -1;
		pthread_mutex_unlock(&conns_lock);
		*socket_context = NULL;
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci == NULL)
		return;
	fd = fcntl(ci->connect_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return;
	pthread_mutex_lock(&conns_lock);
	for (i = 0; i < RTE_DIM(conns); i++) {
		if (conns[i].fd < 0) {
			conns[i] = (struct conn_watch){.fd = fd, .since_ms = now_ms()};
			*socket_context = &conns[i];
			break;
		}
	}
	pthread_mutex_unlock(&conns_lock);
	if (*socket_context == NULL)
		close(fd);
}

/* A response is sent (or the request failed): the next exchange's deadline starts now. */
static void
on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
	     enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct conn_watch *w;

	RTE_SET_USED(cls);
	RTE_SET_USED(con_cls);
	RTE_SET_USED(toe);
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci == NULL || ci->socket_context == NULL)
		return;
	w = ci->socket_context;
	pthread_mutex_lock(&conns_lock);
	w->since_ms = now_ms();
	pthread_mutex_unlock(&conns_lock);
}

/* The watchdog: every WATCH_PERIOD_MS, shut down the connections past their deadline. */
static void *
watch_main(void *arg)
{
	struct timespec until;
	unsigned int i;
	uint64_t now;

	RTE_SET_USED(arg);
	pthread_mutex_lock(&conns_lock);
	while (!watch_stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)WATCH_PERIOD_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&watch_cond, &conns_lock, &until);
		now = now_ms();
		for (i = 0; i < RTE_DIM(conns); i++) {
			if (conns[i].fd < 0 || conns[i].cut ||
			    now - conns[i].since_ms < REQUEST_DEADLINE_S * 1000u)
				continue;
			/* libmicrohttpd sees the end of the stream and closes the connection */
			shutdown(conns[i].fd, SHUT_RDWR);
			conns[i].cut = true;
			conns_cut++;
		}
	}
	pthread_mutex_unlock(&conns_lock);
	return NULL;
}

/* libmicrohttpd's messages (a client that hung up, a request it refused): debug only, so a
 * hostile client cannot fill the log. */
static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];

	RTE_SET_USED(cls);
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	MCFAN_LOG(DEBUG, "metrics: %s\n", line);
}

static enum MHD_Result
reply_text(struct MHD_Connection *c, unsigned int status, const char *text, const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)text,
					    MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Optional white space (RFC 9110 5.6.3). */
static const char *
ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A qvalue (RFC 9110 12.4.2: "0" ["." 0*3DIGIT] / "1" ["." 0*3"0"]) of n bytes at p, in
 * thousandths; -1 if it is not one. */
static int
qvalue(const char *p, size_t n)
{
	int q, scale = 100;
	size_t i;

	if (n == 0 || (p[0] != '0' && p[0] != '1'))
		return -1;
	q = (p[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (p[1] != '.' || n > 5)
		return -1;
	for (i = 2; i < n; i++, scale /= 10) {
		if (p[i] < '0' || p[i] > '9' || (q == 1000 && p[i] != '0'))
			return -1;
		q += (p[i] - '0') * scale;
	}
	return q;
}

/* End of one element of a list (RFC 9110 5.6.1): the next comma outside a quoted string. */
static const char *
element_end(const char *p)
{
	bool quoted = false;

	for (; *p != '\0'; p++) {
		if (quoted && *p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			break;
	}
	return p;
}

/* The path of a request target: origin-form as it is, absolute-form
 * ("http://127.0.0.1:9100/metrics", which RFC 9112 section 3.2.2 says a server must accept)
 * without its scheme and authority ("/" when it has no path). */
static const char *
url_path(const char *url)
{
	const char *p;

	if (strncasecmp(url, "http://", 7) != 0)
		return url;
	p = strchr(url + 7, '/');
	return p != NULL ? p : "/";
}

/*
 * Does the Accept header (RFC 9110 12.5.1: #( media-range [ weight ] )) name exactly the
 * media type application/openmetrics-text (type and subtype case-insensitive, any
 * parameters) with a weight above 0? A longer subtype ("openmetrics-textx"), a malformed
 * weight or q=0 does not count; the best weight of several such ranges wins.
 */
static bool
wants_openmetrics(const char *accept)
{
	const size_t tlen = strlen(OPENMETRICS_TYPE);
	const char *p, *end, *par, *pend;
	int best = 0, q;
	size_t n;

	if (accept == NULL)
		return false;
	for (p = accept; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		end = element_end(p);
		p = ows(p);
		/* the media range: up to the first ';' of the element, without trailing OWS */
		for (par = p; par < end && *par != ';'; par++)
			;
		for (n = (size_t)(par - p); n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'); n--)
			;
		if (n != tlen || strncasecmp(p, OPENMETRICS_TYPE, tlen) != 0)
			continue;
		q = 1000;
		while (par < end && q >= 0) {
			par = ows(par + 1); /* past the ';' */
			for (pend = par; pend < end && *pend != ';'; pend++)
				;
			if (pend - par >= 2 && (par[0] == 'q' || par[0] == 'Q') && par[1] == '=') {
				for (n = (size_t)(pend - par - 2);
				     n > 0 && (par[2 + n - 1] == ' ' || par[2 + n - 1] == '\t'); n--)
					;
				q = qvalue(par + 2, n);
			}
			par = pend;
		}
		if (q > best)
			best = q;
	}
	return best > 0;
}

/* A request's first call was seen (its *con_cls); only the address counts. */
static char request_seen;

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
	   const char *version, const char *upload_data, size_t *upload_data_size,
	   void **con_cls)
{
	struct mcfan_app *app = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *page;
	size_t len;
	bool om;

	RTE_SET_USED(version);
	RTE_SET_USED(upload_data);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		server_stats.refused++;
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "405 only GET and HEAD of /metrics\n", ALLOW);
	}
	if (strcmp(url_path(url), METRICS_PATH) != 0) {
		server_stats.refused++;
		return reply_text(c, MHD_HTTP_NOT_FOUND, "404 not found: try /metrics\n", NULL);
	}
	/* 404 and 405 go at the first call, with the headers, and close the connection; the
	 * page waits for the request's last call (no upload data left): a response queued at
	 * the first call is an "early" one to libmicrohttpd, which then reads no further
	 * request on the connection and closes it after the answer (Connection: close), so a
	 * scraper's keep-alive connection would be closed after every page */
	if (*con_cls == NULL) {
		*con_cls = &request_seen;
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0; /* a body with a GET: ignored */
		return MHD_YES;
	}
	om = wants_openmetrics(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							   MHD_HTTP_HEADER_ACCEPT));
	pthread_mutex_lock(&conns_lock);
	server_stats.cut = conns_cut;
	pthread_mutex_unlock(&conns_lock);
	if (mcfan_metrics_format(app, om, &server_stats, &page, &len) < 0)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "500 out of memory\n", NULL);
	if (om)
		server_stats.pages_openmetrics++;
	else
		server_stats.pages_text++;
	r = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(page);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				om ? MCFAN_METRICS_TYPE_OPENMETRICS : MCFAN_METRICS_TYPE_TEXT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* Bind and listen on the address; the socket, or -errno with one line on stderr. */
static int
listen_socket(const struct mcfan_listen *l)
{
	int fd, one = 1, err;

	fd = socket(l->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		fprintf(stderr, "mcfan: --metrics-listen %s: cannot open a socket: %s\n", l->text,
			strerror(err));
		return -err;
	}
	/* a restart may bind while old connections linger in TIME_WAIT; two listeners on one
	 * port are still refused (Linux needs SO_REUSEPORT for that) */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l->addr.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&l->addr, l->addr_len) != 0) {
		err = errno;
		if (err == EADDRINUSE)
			fprintf(stderr, "mcfan: --metrics-listen %s: port %u is in use (another "
				"process listens on it): give another port\n", l->text, l->port);
		else if (err == EADDRNOTAVAIL)
			fprintf(stderr, "mcfan: --metrics-listen %s: the address is not one "
				"of this host's\n", l->text);
		else if (err == EACCES)
			fprintf(stderr, "mcfan: --metrics-listen %s: port %u is privileged (below "
				"net.ipv4.ip_unprivileged_port_start, 1024 by default): run mcfan "
				"as root or with CAP_NET_BIND_SERVICE, or give a port from 1024\n",
				l->text, l->port);
		else
			fprintf(stderr, "mcfan: --metrics-listen %s: cannot bind: %s\n", l->text,
				strerror(err));
		close(fd);
		return -err;
	}
	if (listen(fd, LISTEN_BACKLOG) != 0) {
		err = errno;
		fprintf(stderr, "mcfan: --metrics-listen %s: cannot listen: %s\n", l->text,
			strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

int
mcfan_metrics_start(struct mcfan_app *app)
{
	const struct mcfan_listen *l = &app->cfg.metrics_listen;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
			     MHD_USE_ITC;
	unsigned int i;
	int fd, ret;

	if (!app->cfg.metrics_on || server != NULL)
		return 0;
	for (i = 0; i < RTE_DIM(conns); i++)
		conns[i].fd = -1;
	watch_stop = false;
	/* a DPDK control thread: on the control CPUs, never a data lcore's */
	ret = rte_ctrl_thread_create(&watch_tid, "mcfan-metrics", NULL, watch_main, NULL);
	if (ret != 0) {
		fprintf(stderr, "mcfan: --metrics-listen %s: cannot start the watchdog thread: "
			"%s\n", l->text, strerror(ret));
		return -ret;
	}
	watch_running = true;
	fd = listen_socket(l);
	if (fd < 0) {
		mcfan_metrics_stop();
		return fd;
	}
	if (l->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* the listening socket is libmicrohttpd's from here: MHD_stop_daemon() closes it */
	server = MHD_start_daemon(flags, 0, NULL, NULL, on_request, app,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_TIMEOUT, CONN_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_LIMIT, CONN_LIMIT,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, CONN_PER_IP_LIMIT,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				  /* RFC 9112 3.2: an HTTP/1.1 request without Host gets a 400 */
				  MHD_OPTION_STRICT_FOR_CLIENT, 1,
				  MHD_OPTION_END);
	if (server == NULL) {
		fprintf(stderr, "mcfan: --metrics-listen %s: libmicrohttpd did not start\n",
			l->text);
		close(fd);
		mcfan_metrics_stop();
		return -EIO;
	}
	MCFAN_LOG(INFO, "metrics on http://%s%s (timeout %u s, exchange deadline %u s, at most "
		  "%u connections, %u per IP)\n", l->text, METRICS_PATH, CONN_TIMEOUT_S,
		  REQUEST_DEADLINE_S, CONN_LIMIT, CONN_PER_IP_LIMIT);
	return 0;
}

void
mcfan_metrics_stop(void)
{
	unsigned int i;

	if (server != NULL) {
		MHD_stop_daemon(server); /* every connection closed: on_connection() for each */
		server = NULL;
	}
	if (!watch_running)
		return;
	pthread_mutex_lock(&conns_lock);
	watch_stop = true;
	pthread_cond_signal(&watch_cond);
	pthread_mutex_unlock(&conns_lock);
	pthread_join(watch_tid, NULL);
	watch_running = false;
	for (i = 0; i < RTE_DIM(conns); i++) {
		if (conns[i].fd >= 0)
			close(conns[i].fd);
		conns[i].fd = -1;
	}
}
