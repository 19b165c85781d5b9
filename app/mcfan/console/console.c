/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The operator console (docs/console.md), on DPDK's cmdline library as in
 * testpmd, run by the main lcore between its ticks; data lcores never wait
 * for it.
 *
 * Input: --cmdline-file FILE first, then standard input with -i: on a
 * terminal through the library's line editor (prompt, Tab completion, `?`,
 * history), otherwise one command a line (pipes, scripts, tests); end of
 * input stops mcfan. mcfan reads every byte itself and hands whole lines to
 * cmdline_parse(), because the 22.11 library cuts lines at its 512-character
 * buffer and would run what is left; such a line is refused whole here, as
 * are tokens of 127 characters or more, non-ASCII bytes and control
 * characters. When the library finds no command, mcfan names what was wrong
 * itself (unknown command, missing or bad argument, extra argument).
 *
 * Commands only parse text; the work is in control.c (actions) and stats.c
 * (the numbers telemetry shows too). Command specs sit in the table at the
 * bottom, beside their handlers; the library's token lists are built from it.
 *
 * State: one console, owned by the main lcore (struct console below).
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_rdline.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "control/control.h"
#include "log.h"
#include "control/idle.h"
#include "control/placement.h"
#include "control/stats.h"

#define PROMPT "mcfan> "
/* The cmdline library's line buffer (RDLINE_BUF_SIZE, private in 22.11): longest line. */
#define LINE_MAX_CHARS 512
/* The library's string tokens hold 127 bytes with the NUL (STR_TOKEN_SIZE 128). */
#define TOKEN_MAX_CHARS (STR_TOKEN_SIZE - 2)
#define READ_CHUNK 4096
#define MAX_SPEC_WORDS 8           /* words of the longest command spec */
#define MAX_LINE_WORDS (LINE_MAX_CHARS / 2 + 1)
#define LINES_PER_POLL 64          /* lines run per call, so the main lcore keeps ticking */
#define ECHO_MAX 100               /* characters of a refused line echoed back */
#define WAIT_MS_MAX 600000u        /* `wait` at most 10 minutes */
#ifdef MCFAN_MSACC_FORMAT_SIZE
#define MSACC_TEXT_SIZE(rows) MCFAN_MSACC_FORMAT_SIZE(rows)
#else
#define MSACC_TEXT_SIZE(rows) ((3 * (size_t)(rows) + 16) * 256)
#endif
#define ASCII_DEL 0x7f
#define ASCII_ESC 0x1b
#define ASCII_CTRL_C 0x03

/* ------------------------------------------------------------------------------------------
 * Argument tokens: a cmdline token type that takes one word of a character class and names
 * itself in help and errors.
 */

enum arg_kind {
	ARG_UINT,   /* decimal digits */
	ARG_GROUPS, /* group list characters: hex digits . : [ ] - , */
	ARG_LIST,   /* lcore list: digits - , */
	ARG_WORD,   /* a name such as an idle policy: lower-case letters, digits _ : */
};

struct arg_token {
	struct cmdline_token_hdr hdr; /* first: the library casts to it */
	enum arg_kind kind;
	char name[24];                /* "lcore", as in the spec's <lcore> */
};

static const char *
arg_kind_text(enum arg_kind k)
{
	switch (k) {
	case ARG_UINT:
		return "a decimal number";
	case ARG_GROUPS:
		return "groups, e.g. 239.9.9.1-10:3999";
	case ARG_WORD:
		return "a name, e.g. backoff:short";
	default:
		return "lcores, e.g. 2,4-5";
	}
}

static bool
arg_char_ok(enum arg_kind k, char c)
{
	if (c >= '0' && c <= '9')
		return true;
	switch (k) {
	case ARG_GROUPS:
		return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':' ||
		       c == '[' || c == ']' || c == '-' || c == ',';
	case ARG_LIST:
		return c == '-' || c == ',';
	case ARG_WORD:
		return (c >= 'a' && c <= 'z') || c == '_' || c == ':';
	default:
		return false;
	}
}

static int
arg_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res, unsigned int ressize)
{
	const struct arg_token *t = (const struct arg_token *)tk;
	unsigned int n = 0;

	if (res != NULL && ressize < STR_TOKEN_SIZE)
		return -1;
	if (buf == NULL || cmdline_isendoftoken(*buf))
		return -1;
	while (!cmdline_isendoftoken(buf[n])) {
		if (!arg_char_ok(t->kind, buf[n]) || n + 1 >= STR_TOKEN_SIZE - 1)
			return -1;
		n++;
	}
	if (res != NULL) {
		memcpy(res, buf, n);
		((char *)res)[n] = '\0';
	}
	return (int)n;
}

static int
arg_help(cmdline_parse_token_hdr_t *tk, char *dst, unsigned int size)
{
	const struct arg_token *t = (const struct arg_token *)tk;

	snprintf(dst, size, "<%s>", t->name);
	return 0;
}

static struct cmdline_token_ops arg_ops = {
	.parse = arg_parse,
	.complete_get_nb = NULL,
	.complete_get_elt = NULL,
	.get_help = arg_help,
};

/* ------------------------------------------------------------------------------------------
 * Commands.
 */

/* Parsed words of a command: word i of the spec lands in tok[i]; `<...>...` in rest. */
struct cmd_res {
	cmdline_fixed_string_t tok[MAX_SPEC_WORDS];
	cmdline_multi_string_t rest;
};

struct console;
struct cmd_inst;

struct cmd_def {
	const char *spec;    /* "show port stats <port>"; a|b: choices; <x>...: rest of line */
	int (*fn)(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r);
	const char *help;    /* one line */
	const char *example; /* one line */
};

/* One instance built from a spec. */
struct cmd_inst {
	const struct cmd_def *def;
	unsigned int n_words;
	char words[MAX_SPEC_WORDS][32];  /* spec words, "<lcore>" kept as written */
	cmdline_parse_inst_t *inst;
};

enum con_mode {
	CON_NONE = 0,
	CON_LINES, /* standard input, one command a line */
	CON_TTY,   /* standard input is a terminal: line editor */
};

/* A source of lines read with read(2): the command file or standard input. */
struct line_src {
	int fd;                          /* -1: closed */
	char name[PATH_MAX];
	unsigned int line_no;
	char buf[READ_CHUNK];
	size_t len, off;                 /* bytes read and not yet split: buf[off..len) */
	char line[LINE_MAX_CHARS + 2];   /* the line so far; one byte more shows "too long" */
	size_t line_len;                 /* its length; counts on past what line holds */
	bool eof;
};

struct console {
	struct mcfan_app *app;
	struct cmdline *cl;              /* the library's parser state (context of commands) */
	cmdline_parse_ctx_t *ctx;        /* NULL-terminated instance list */
	struct cmd_inst *insts;
	unsigned int n_insts;
	enum con_mode mode;
	struct line_src file;            /* --cmdline-file */
	struct line_src in;              /* standard input (lines mode) */
	uint64_t wait_until;             /* TSC: `wait` holds input until then; 0 = none */
	bool from_file;                  /* the line being run comes from the file */
	unsigned int errors;
	/* terminal mode */
	struct rdline *rdl;
	struct termios saved_term;
	bool term_saved;
	bool prompt_due;                 /* print the prompt when input may be read again */
	char tty_buf[READ_CHUNK];        /* bytes read but held back by `wait` */
	size_t tty_len, tty_off;
	int esc;                         /* escape sequence state: 0 none, 1 ESC, 2 ESC [ */
	unsigned char tty_bad;           /* first non-ASCII byte typed on this line, 0 = none */
	unsigned int tty_bad_col;
	bool tty_long;                   /* a character was typed into a full line */
	bool tty_refused;                /* the line just entered was refused: keep it out of
					  * the history (the editor holds a different text) */
	bool started;
};

static struct console con_state;

__rte_format_printf(2, 3)
static void
con_error(struct console *con, const char *fmt, ...)
{
	va_list ap;

	con->errors++;
	fputs("error: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (con->from_file)
		fprintf(stdout, " (%s line %u)", con->file.name, con->file.line_no);
	fputc('\n', stdout);
}

/* Print an action's result: its message, as an error if it failed. */
static int
con_result(struct console *con, int ret, const char *msg)
{
	if (ret < 0)
		con_error(con, "%s", msg);
	else
		printf("%s\n", msg);
	return ret;
}

static const char *
arg(const struct cmd_inst *ci, const struct cmd_res *r, const char *name)
{
	unsigned int i;
	size_t n = strlen(name);

	for (i = 0; i < ci->n_words; i++) {
		if (ci->words[i][0] == '<' && strncmp(&ci->words[i][1], name, n) == 0 &&
		    ci->words[i][n + 1] == '>') {
			if (strstr(ci->words[i], "...") != NULL)
				return r->rest;
			return r->tok[i];
		}
	}
	return NULL;
}

/* A decimal argument in [min, max]; prints the error naming it. */
static int
arg_u64(struct console *con, const char *cmd, const char *what, const char *text, uint64_t min,
	uint64_t max, uint64_t *out)
{
	int ret = mcfan_ctl_parse_u64(text, out);

	if (ret == -EINVAL) {
		con_error(con, "%s: %s '%s' is not a decimal number", cmd, what, text);
		return ret;
	}
	if (ret == -ERANGE) {
		con_error(con, "%s: %s %s is too large", cmd, what, text);
		return ret;
	}
	if (*out < min || *out > max) {
		con_error(con, "%s: %s %s is out of range %" PRIu64 "..%" PRIu64, cmd, what, text,
			  min, max);
		return -ERANGE;
	}
	return 0;
}

/* ---- show ---- */

static const char *
rx_state(const struct mcfan_app *app)
{
	return mcfan_live_rx_paused(&app->live) ? "stopped" : "running";
}

static int
cmd_show_lcores(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	struct mcfan_msacc_row *rows;
	const struct mcfan_lcore *lc;
	char ports[64];
	unsigned int i, p;
	size_t off;
	int n;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	if (rows == NULL) {
		con_error(con, "show lcores: out of memory");
		return -ENOMEM;
	}
	n = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	printf("  %5s %4s %6s  %-10s %-11s %-8s %s\n", "lcore", "cpu", "socket", "role", "state",
	       "rx", "ports");
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		lc = &app->lcores[rows[i].lcore_id];
		ports[0] = '\0';
		for (p = 0, off = 0; p < lc->n_ports && off < sizeof(ports); p++)
			off += (size_t)snprintf(ports + off, sizeof(ports) - off, "%s%u",
						p == 0 ? "" : ",", lc->ports[p]);
		printf("  %5u %4d %6u  %-10s %-11s %-8s %s\n", rows[i].lcore_id,
		       mcfan_lcore_cpu(rows[i].lcore_id), rte_lcore_to_socket_id(rows[i].lcore_id),
		       mcfan_role_name(lc->role), mcfan_ms_state_name(rows[i].snap.state),
		       (lc->role & MCFAN_ROLE_RX) ? rx_state(app) : "-",
		       lc->n_ports > 0 ? ports : "-");
	}
	free(rows);
	return 0;
}

static void
print_window(struct mcfan_app *app)
{
	struct mcfan_msacc_window_info wi;
	uint64_t hz = app->tsc_hz;

	if (mcfan_msacc_window_info(app->window, rte_rdtsc(), &wi) < 0)
		return;
	printf("window: %s", mcfan_msacc_window_mode_name(wi.mode));
	if (wi.mode == MCFAN_MSACC_WIN_TIMED && wi.frozen)
		printf(", frozen (msacc reset or start begins a new one)");
	else if (wi.mode == MCFAN_MSACC_WIN_TIMED)
		printf(", %" PRIu64 " ms left", wi.remaining * 1000 / hz);
	printf("; accounting of the data lcores %s\n",
	       mcfan_live_msacc(&app->live) ? "on" : "off");
}

static int
show_msacc(struct console *con, const char *which, uint32_t flags)
{
	struct mcfan_app *app = con->app;
	struct mcfan_msacc_row *rows;
	char *text = NULL;
	uint64_t lcore = 0;
	unsigned int i, k;
	size_t size;
	int n, ret = 0;

	if (which != NULL && arg_u64(con, "show msacc", "lcore", which, 0, RTE_MAX_LCORE - 1,
				     &lcore) < 0)
		return -EINVAL;
	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	if (rows == NULL) {
		con_error(con, "show msacc: out of memory");
		return -ENOMEM;
	}
	n = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	if (n < 0) {
		con_error(con, "show msacc: %s", strerror(-n));
		ret = n;
		goto out;
	}
	if (which != NULL) {
		for (i = 0, k = 0; i < (unsigned int)n; i++)
			if (rows[i].lcore_id == lcore)
				rows[k++] = rows[i];
		if (k == 0) {
			con_error(con, "show msacc: lcore %" PRIu64 " is not used by mcfan (show "
				  "lcores lists them)", lcore);
			ret = -ENOENT;
			goto out;
		}
		n = (int)k;
	}
	size = MSACC_TEXT_SIZE((unsigned int)n);
	text = malloc(size);
	if (text == NULL) {
		con_error(con, "show msacc: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	print_window(app);
	if (mcfan_msacc_format_table(text, size, rows, (unsigned int)n, app->tsc_hz, flags) < 0)
		con_error(con, "show msacc: the table does not fit");
	else
		fputs(text, stdout);
out:
	free(text);
	free(rows);
	return ret;
}

static int
cmd_show_msacc(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	return show_msacc(con, arg(ci, r, "lcore"), 0);
}

static int
cmd_show_msacc_types(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	unsigned int s;
	int ret;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	ret = show_msacc(con, NULL, MCFAN_MSACC_FMT_ROLES);
	if (ret == 0) {
		printf("States:\n");
		for (s = 0; s < MCFAN_MS_MAX; s++)
			printf("  %-*s %s\n", MCFAN_MS_STATE_NAME_MAX,
			       mcfan_ms_state_name((enum mcfan_ms_state)s),
			       mcfan_ms_state_desc((enum mcfan_ms_state)s));
	}
	return ret;
}

static void
print_targets(const struct mcfan_app *app, const struct mcfan_group_entry *e)
{
	unsigned int t;

	for (t = 0; t < e->n_targets && t < app->n_workers; t++)
		printf("%s%u", t == 0 ? "" : ",", app->worker_lcore_ids[e->targets[t]]);
	printf("\n");
}

/* Does entry key e match a key given by the operator (no port: every port)? */
static bool
key_matches(const struct mcfan_flow_key *want, const struct mcfan_flow_key *e)
{
	struct mcfan_flow_key a = *e;

	if (want->udp_port != 0)
		return mcfan_flow_key_equal(want, e);
	a.udp_port = 0;
	return mcfan_flow_key_equal(want, &a);
}

static int
cmd_show_groups(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	const char *which = arg(ci, r, "groups");
	struct mcfan_flow_key *keys = NULL;
	struct mcfan_group_view *gv;
	char text[MCFAN_GROUP_STR_MAX], err[256];
	bool *show = NULL;
	unsigned int i, k, n_keys = 0, shown = 0;
	int n, ret = 0;

	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	show = calloc(MCFAN_MAX_GROUPS, sizeof(*show));
	if (gv == NULL || keys == NULL || show == NULL) {
		con_error(con, "show groups: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (which != NULL) {
		n = mcfan_group_parse_list(which, keys, MCFAN_MAX_GROUPS, err, sizeof(err));
		if (n < 0) {
			con_error(con, "show groups: %s", err);
			ret = n;
			goto out;
		}
		n_keys = (unsigned int)n;
	}
	n = mcfan_groups_read(app, gv, MCFAN_MAX_GROUPS);
	if (n < 0) {
		con_error(con, "show groups: %s", strerror(-n));
		ret = n;
		goto out;
	}
	for (i = 0; i < (unsigned int)n; i++)
		show[i] = which == NULL;
	for (k = 0; k < n_keys; k++) {
		bool found = false;

		for (i = 0; i < (unsigned int)n; i++) {
			if (key_matches(&keys[k], &gv[i].entry->key)) {
				show[i] = true;
				found = true;
			}
		}
		if (!found) {
			mcfan_group_format(&keys[k], text, sizeof(text));
			con_error(con, "show groups: group %s is not joined", text);
			ret = -ENOENT;
			goto out;
		}
	}
	printf("  %-46s %-9s %4s %14s %16s  %s\n", "group", "fan-out", "slot", "frames", "bytes",
	       "workers");
	for (i = 0; i < (unsigned int)n; i++) {
		if (!show[i])
			continue;
		mcfan_group_format(&gv[i].entry->key, text, sizeof(text));
		printf("  %-46s %-9s %4u %14" PRIu64 " %16" PRIu64 "  ", text,
		       mcfan_fanout_name((enum mcfan_fanout)gv[i].entry->fanout), gv[i].entry->id,
		       gv[i].frames, gv[i].bytes);
		print_targets(app, gv[i].entry);
		shown++;
	}
	printf("%u of %d groups; fan-out of later joins: %s\n", shown, n,
	       mcfan_fanout_name(mcfan_live_fanout(&app->live)));
out:
	free(gv);
	free(keys);
	free(show);
	return ret;
}

static int
cmd_show_rings(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	struct mcfan_worker_view *wv;
	unsigned int w;
	int n;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	wv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*wv));
	if (wv == NULL) {
		con_error(con, "show rings: out of memory");
		return -ENOMEM;
	}
	n = mcfan_workers_read(app, wv);
	printf("  %5s %5s %9s %9s %10s %14s %12s %14s\n", "lcore", "rings", "size", "count",
	       "high_water", "enqueued", "ring_drops", "processed");
	for (w = 0; n > 0 && w < (unsigned int)n; w++)
		printf("  %5u %5u %9u %9" PRIu64 " %10" PRIu64 " %14" PRIu64 " %12" PRIu64 " %14"
		       PRIu64 "\n", wv[w].lcore_id, app->n_rx, wv[w].ring_size, wv[w].ring_count,
		       wv[w].ring_high_water, wv[w].enqueued, wv[w].ring_drops, wv[w].frames);
	printf("one ring per RX lcore and worker; size and high_water per ring, the rest summed "
	       "over a worker's rings\n");
	free(wv);
	return 0;
}

static int
cmd_show_counters(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	struct mcfan_totals t;
	unsigned int k;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	mcfan_totals_read(app, &t);
	printf("frames: rx %" PRIu64 " = delivered %" PRIu64 " + drops %" PRIu64 "%s\n",
	       t.rx_frames, t.delivered_frames, t.drops_total,
	       t.rx_frames == t.delivered_frames + t.drops_total ? "" : "  (MISMATCH)");
	printf("copies: offered %" PRIu64 " = delivered %" PRIu64 " + ring drops %" PRIu64 "\n",
	       t.copies_offered, t.delivered_copies, t.copies_offered - t.delivered_copies);
	printf("drops:");
	for (k = 1; k < MCFAN_DROP_MAX; k++)
		printf(" %s %" PRIu64, mcfan_drop_name(k), t.drops[k]);
	printf("\nrx: %s; bytes %" PRIu64 "\n", rx_state(app), t.rx_bytes);
	return 0;
}

static int
print_port_stats(struct console *con, uint16_t port, bool header)
{
	struct mcfan_app *app = con->app;
	struct rte_eth_stats ps;
	int ret;

	ret = mcfan_port_stats_read(app, port, &ps);
	if (ret < 0) {
		con_error(con, "show port stats: port %u: %s", port, rte_strerror(-ret));
		return ret;
	}
	if (header)
		printf("  %4s %-22s %-12s %14s %12s %10s %10s %16s\n", "port", "name", "filter",
		       "ipackets", "imissed", "ierrors", "rx_nombuf", "ibytes");
	printf("  %4u %-22.22s %-12s %14" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
	       " %16" PRIu64 "\n", port, app->ports[port].name, app->ports[port].filter_mode,
	       ps.ipackets, ps.imissed, ps.ierrors, ps.rx_nombuf, ps.ibytes);
	return 0;
}

static void
port_list(const struct mcfan_app *app, char *buf, size_t len)
{
	uint16_t p;
	size_t off = 0;

	buf[0] = '\0';
	for (p = 0; p < RTE_MAX_ETHPORTS && off < len; p++)
		if (app->ports[p].used)
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off == 0 ? "" : ",",
						p);
}

static int
port_arg(struct console *con, const char *cmd, const char *text, uint16_t *port)
{
	char list[128];
	uint64_t v;

	if (arg_u64(con, cmd, "port", text, 0, RTE_MAX_ETHPORTS - 1, &v) < 0)
		return -EINVAL;
	if (!con->app->ports[v].used) {
		port_list(con->app, list, sizeof(list));
		con_error(con, "%s: port %" PRIu64 " is not used by mcfan (ports: %s)", cmd, v,
			  list[0] != '\0' ? list : "none");
		return -ENODEV;
	}
	*port = (uint16_t)v;
	return 0;
}

static int
cmd_show_port_stats(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	const char *which = arg(ci, r, "port");
	bool header = true;
	uint16_t port;

	if (which != NULL) {
		if (port_arg(con, "show port stats", which, &port) < 0)
			return -EINVAL;
		return print_port_stats(con, port, true);
	}
	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if (!con->app->ports[port].used)
			continue;
		if (print_port_stats(con, port, header) < 0)
			return -EIO;
		header = false;
	}
	return 0;
}

static int
cmd_show_port_xstats(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	uint16_t port;
	int n, m, i, ret = 0;

	if (port_arg(con, "show port xstats", arg(ci, r, "port"), &port) < 0)
		return -EINVAL;
	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n < 0) {
		con_error(con, "show port xstats: port %u: %s", port, rte_strerror(-n));
		return n;
	}
	names = calloc((size_t)RTE_MAX(n, 1), sizeof(*names));
	vals = calloc((size_t)RTE_MAX(n, 1), sizeof(*vals));
	if (names == NULL || vals == NULL) {
		con_error(con, "show port xstats: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	m = rte_eth_xstats_get_names(port, names, (unsigned int)n);
	i = rte_eth_xstats_get(port, vals, (unsigned int)n);
	if (m != n || i != n) {
		con_error(con, "show port xstats: port %u: the statistics changed while read; "
			  "try again", port);
		ret = -EAGAIN;
		goto out;
	}
	printf("port %u (%s), extended statistics of the driver since the port started:\n",
	       port, con->app->ports[port].driver);
	for (i = 0; i < n; i++)
		printf("  %-40s %20" PRIu64 "\n", names[vals[i].id < (uint64_t)n ? vals[i].id :
		       (uint64_t)i].name, vals[i].value);
out:
	free(names);
	free(vals);
	return ret;
}

static int
cmd_show_topology(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	if (mcfan_placement_print(con->app, stdout) < 0) {
		con_error(con, "show topology: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Nanoseconds as microseconds with one decimal; "-" for none. */
static const char *
us_text(uint64_t ns, char *buf, size_t len)
{
	if (ns == 0 || ns == UINT64_MAX)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%" PRIu64 ".%" PRIu64, ns / 1000, ns % 1000 / 100);
	return buf;
}

static int
cmd_show_idle(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	struct mcfan_idle_view *iv;
	struct mcfan_msacc_row *rows;
	struct mcfan_msacc_stats st;
	char bound[24], cap[24];
	int n, nr, i, k;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	if (iv == NULL || rows == NULL) {
		free(iv);
		free(rows);
		con_error(con, "show idle: out of memory");
		return -ENOMEM;
	}
	n = mcfan_idle_read(app, iv, RTE_MAX_LCORE);
	nr = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	printf("max sleep %u us (--idle-max-sleep-us); ring bound: time half the smallest input "
	       "ring takes to fill at the highest recent rate\n", app->cfg.idle_max_sleep_us);
	printf("  %5s %-10s %-22s %12s %12s %10s %10s %10s %10s %7s\n", "lcore", "role", "policy",
	       "ring_bound", "sleep_cap", "rx_max_pps", "wk_max_pps", "sleeps", "wakeups",
	       "sleep%");
	for (i = 0; i < n; i++) {
		memset(&st, 0, sizeof(st));
		for (k = 0; k < nr; k++)
			if (rows[k].lcore_id == iv[i].lcore_id)
				mcfan_msacc_stats(&rows[k].snap, &st);
		printf("  %5u %-10s %-22s %10sus %10sus %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %10" PRIu64 " %7.2f\n", iv[i].lcore_id, mcfan_role_name(iv[i].role),
		       iv[i].policy_text, us_text(iv[i].ring_bound_ns, bound, sizeof(bound)),
		       us_text(iv[i].sleep_cap_ns, cap, sizeof(cap)), iv[i].rx_max_pps,
		       iv[i].wk_max_pps, st.sleeps, st.wakeups, st.pct[MCFAN_MS_SLEEP]);
	}
	free(iv);
	free(rows);
	return 0;
}

static int
cmd_show_latency(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	struct mcfan_latency_view *lv;
	char p50[24], p99[24], mx[24];
	unsigned int w;
	int n;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	lv = calloc(RTE_MAX(app->n_workers, 1u), sizeof(*lv));
	if (lv == NULL) {
		con_error(con, "show latency: out of memory");
		return -ENOMEM;
	}
	n = mcfan_latency_read(app, lv);
	printf("RX-to-dequeue time per worker (log2 ns buckets, quantiles interpolated)\n");
	printf("  %5s %14s %12s %12s %12s\n", "lcore", "copies", "p50", "p99", "max");
	for (w = 0; n > 0 && w < (unsigned int)n; w++)
		printf("  %5u %14" PRIu64 " %10sus %10sus %10sus\n", lv[w].lcore_id, lv[w].copies,
		       us_text(lv[w].p50_ns, p50, sizeof(p50)), us_text(lv[w].p99_ns, p99,
		       sizeof(p99)), us_text(lv[w].max_ns, mx, sizeof(mx)));
	free(lv);
	return 0;
}

static int
cmd_show_config(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	struct mcfan_app *app = con->app;
	const struct mcfan_config *cfg = &app->cfg;
	char text[MCFAN_IDLE_POLICY_TEXT_MAX + 1];
	unsigned int i;

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	printf("main lcore:    %u\nrx lcores:    ", app->main_lcore);
	for (i = 0; i < app->n_rx; i++)
		printf(" %u", app->rx_lcore_ids[i]);
	printf(" (%s)\nworker lcores:", rx_state(app));
	for (i = 0; i < app->n_workers; i++)
		printf(" %u", app->worker_lcore_ids[i]);
	printf("\ngroups:        %u joined (at most %d)\n",
	       __atomic_load_n(&app->n_group_entries, __ATOMIC_ACQUIRE), MCFAN_MAX_GROUPS);
	printf("fanout:        %s (for later joins)\n",
	       mcfan_fanout_name(mcfan_live_fanout(&app->live)));
	printf("burst:         %u (at start %u, at most %d)\n",
	       mcfan_live_burst(&app->live), cfg->burst, MCFAN_MAX_BURST);
	printf("ring-size:     %u\nmbufs:         %u\n", cfg->ring_size, app->pool_size);
	printf("msacc:         %s\n", mcfan_live_msacc(&app->live) ? "on" :
	       "off");
	printf("duration:      %.3f s%s\n", cfg->duration_s, cfg->duration_s > 0 ? "" :
	       " (until quit or a signal)");
	printf("stats-period:  %.3f s\n", cfg->stats_period_s);
	printf("report-json:   %s\n", cfg->report_json[0] != '\0' ? cfg->report_json : "none");
	printf("config:        %s\n", cfg->config_file[0] != '\0' ? cfg->config_file : "none");
	printf("cmdline-file:  %s\n", cfg->cmdline_file[0] != '\0' ? cfg->cmdline_file : "none");
	printf("interactive:   %s\n", cfg->interactive ? "yes" : "no");
	printf("idle-rx:       %s\n", mcfan_idle_format(mcfan_live_u32_load(&app->live.idle_rx,
	       memory_order_relaxed), text, sizeof(text)));
	printf("idle-worker:   %s\n", mcfan_idle_format(mcfan_live_u32_load(&app->live.idle_worker,
	       memory_order_relaxed), text, sizeof(text)));
	printf("idle-max-sleep-us: %u\n", cfg->idle_max_sleep_us);
	return 0;
}

/* ---- actions ---- */

static int
cmd_msacc(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];
	const char *ms_text = arg(ci, r, "ms");
	uint64_t ms;
	int ret;

	if (ms_text != NULL) {
		if (arg_u64(con, "msacc start", "ms", ms_text, 1, MCFAN_CTL_MSACC_MS_MAX, &ms) < 0)
			return -EINVAL;
		ret = mcfan_ctl_msacc_start(con->app, ms, msg, sizeof(msg));
	} else if (strcmp(r->tok[1], "reset") == 0) {
		ret = mcfan_ctl_msacc_reset(con->app, msg, sizeof(msg));
	} else {
		ret = mcfan_ctl_msacc_enable(con->app, strcmp(r->tok[1], "on") == 0, msg,
					     sizeof(msg));
	}
	return con_result(con, ret, msg);
}

static int
cmd_clear_stats(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	return con_result(con, mcfan_ctl_clear_stats(con->app, msg, sizeof(msg)), msg);
}

static int
cmd_start(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	return con_result(con, mcfan_ctl_rx_start(con->app, msg, sizeof(msg)), msg);
}

static int
cmd_stop(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	return con_result(con, mcfan_ctl_rx_stop(con->app, msg, sizeof(msg)), msg);
}

static int
cmd_join(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return con_result(con, mcfan_ctl_join(con->app, arg(ci, r, "groups"), arg(ci, r, "list"),
					      msg, sizeof(msg)), msg);
}

static int
cmd_leave(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	return con_result(con, mcfan_ctl_leave(con->app, arg(ci, r, "groups"), msg, sizeof(msg)),
			  msg);
}

static int
cmd_set_fanout(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	/* "set fanout all|<groups> MODE": the mode is the fourth word either way */
	return con_result(con, mcfan_ctl_set_fanout(con->app, arg(ci, r, "groups"), r->tok[3],
						    msg, sizeof(msg)), msg);
}

static int
cmd_set_burst(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];
	uint64_t n;

	if (arg_u64(con, "set burst", "burst", arg(ci, r, "n"), 0, UINT64_MAX, &n) < 0)
		return -EINVAL;
	return con_result(con, mcfan_ctl_set_burst(con->app, n, msg, sizeof(msg)), msg);
}

static int
cmd_set_idle(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];
	const char *who = arg(ci, r, "lcore");

	/* "set idle rx|worker|<lcore> <policy>": the target is the third word either way */
	return con_result(con, mcfan_ctl_set_idle(con->app, who != NULL ? who : r->tok[2],
						  arg(ci, r, "policy"), msg, sizeof(msg)), msg);
}

static int
cmd_wait(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	uint64_t ms;

	if (arg_u64(con, "wait", "ms", arg(ci, r, "ms"), 0, WAIT_MS_MAX, &ms) < 0)
		return -EINVAL;
	con->wait_until = rte_rdtsc() + ms * (con->app->tsc_hz / 1000);
	return 0;
}

static int
cmd_quit(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	char msg[MCFAN_CTL_MSG_MAX];

	RTE_SET_USED(ci);
	RTE_SET_USED(r);
	return con_result(con, mcfan_ctl_quit(con->app, msg, sizeof(msg)), msg);
}

static int cmd_help(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r);

/* Every command: spec, handler, help, example. `help` lists them in this order. */
static const struct cmd_def cmd_defs[] = {
	{"help", cmd_help, "list the commands",
	 "help"},
	{"help <command>...", cmd_help, "usage, meaning and an example of the commands that "
	 "start with these words", "help set fanout"},
	{"show lcores", cmd_show_lcores, "every lcore: CPU, socket, role, microstate now, RX "
	 "running or stopped, ports polled", "show lcores"},
	{"show msacc", cmd_show_msacc, "microstate accounting of every lcore over the current "
	 "window: % of wall time per state, counters", "show msacc"},
	{"show msacc <lcore>", cmd_show_msacc, "microstate accounting of one lcore",
	 "show msacc 1"},
	{"show msacc types", cmd_show_msacc_types, "microstate accounting per role (stats per "
	 "type), and what each state means", "show msacc types"},
	{"show groups", cmd_show_groups, "every joined group: fan-out, counter slot, frames and "
	 "bytes counted by workers, target workers", "show groups"},
	{"show groups <groups>", cmd_show_groups, "the same for some groups (no port: every "
	 "port of the address)", "show groups 239.9.9.1-3"},
	{"show rings", cmd_show_rings, "per worker: ring size, frames waiting, high-water mark, "
	 "enqueued, ring drops, processed", "show rings"},
	{"show counters", cmd_show_counters, "the conservation line: rx = delivered + drops, "
	 "copies, every drop reason", "show counters"},
	{"show port stats", cmd_show_port_stats, "ipackets, imissed, ierrors, rx_nombuf of every "
	 "port", "show port stats"},
	{"show port stats all", cmd_show_port_stats, "the same as show port stats",
	 "show port stats all"},
	{"show port stats <port>", cmd_show_port_stats, "the port statistics of one port",
	 "show port stats 0"},
	{"show port xstats <port>", cmd_show_port_xstats, "the driver's extended statistics of "
	 "one port", "show port xstats 0"},
	{"show config", cmd_show_config, "the configuration in effect, live values included",
	 "show config"},
	{"show idle", cmd_show_idle, "per data lcore: idle policy, sleep bound and cap, highest "
	 "recent rates, sleeps, wake-ups, % asleep", "show idle"},
	{"show latency", cmd_show_latency, "per worker: RX-to-dequeue time p50, p99, max",
	 "show latency"},
	{"show topology", cmd_show_topology, "CPU map, bind type, lcore placement (CPU, core, "
	 "processor, node), nodes of mempool, rings and ports", "show topology"},
	{"msacc start <ms>", cmd_msacc, "start a timed accounting window of <ms> milliseconds; "
	 "show msacc then freezes at its end", "msacc start 1000"},
	{"msacc reset|on|off", cmd_msacc, "reset: the window runs from now; on/off: switch the "
	 "data lcores' accounting", "msacc reset"},
	{"clear stats", cmd_clear_stats, "count frames, drops, workers, groups and port stats "
	 "from zero (msacc has msacc reset)", "clear stats"},
	{"start", cmd_start, "start RX polling again after stop", "start"},
	{"stop", cmd_stop, "stop RX polling without exiting; frames wait in the port or count "
	 "as its imissed", "stop"},
	{"join <groups>", cmd_join, "join groups (as --groups: ranges, ports, comma-separated) "
	 "with the current fan-out, every worker", "join 239.9.9.11-20:3999"},
	{"join <groups> workers <list>", cmd_join, "join groups, giving their frames only to "
	 "these worker lcores", "join [ff3e::1]:5000 workers 2"},
	{"leave <groups>", cmd_leave, "leave groups: their frames count as unknown_group from "
	 "the next burst on", "leave 239.9.9.11-20:3999"},
	{"set fanout all partition|replicate", cmd_set_fanout, "fan-out of every group and of "
	 "later joins", "set fanout all replicate"},
	{"set fanout <groups> partition|replicate", cmd_set_fanout, "fan-out of some groups",
	 "set fanout 239.9.9.1:3999 replicate"},
	{"set burst <n>", cmd_set_burst, "frames per rx_burst and per ring dequeue, 1..512 and "
	 "at most the ring size", "set burst 64"},
	{"set idle rx|worker <policy>", cmd_set_idle, "idle policy of every RX lcore or every "
	 "worker-only lcore: poll, backoff[:THRESHOLD], wake[:T], interrupt[:T]",
	 "set idle worker wake"},
	{"set idle <lcore> <policy>", cmd_set_idle, "idle policy of one data lcore",
	 "set idle 2 backoff:very_short"},
	{"wait <ms>", cmd_wait, "read the next command only after <ms> milliseconds (for "
	 "command files and pipes)", "wait 500"},
	{"quit", cmd_quit, "stop mcfan as SIGINT does: final report, exit (Ctrl-D too)", "quit"},
};

static void
print_usage(const struct cmd_def *d, bool long_form)
{
	if (!long_form) {
		printf("  %-40s %s\n", d->spec, d->help);
		return;
	}
	printf("%s\n    %s\n    example: %s\n", d->spec, d->help, d->example);
}

static int
cmd_help(struct console *con, const struct cmd_inst *ci, const struct cmd_res *r)
{
	const char *words = arg(ci, r, "command");
	char want[LINE_MAX_CHARS + 1], spec[128];
	char *ws = NULL, *ss = NULL, *w, *s;
	unsigned int i, found = 0;
	bool match;

	if (words == NULL) {
		printf("Commands (Tab completes, ? lists what may come next, Up/Down browse the "
		       "history, Ctrl-D or quit exits; # starts a comment):\n");
		for (i = 0; i < RTE_DIM(cmd_defs); i++)
			print_usage(&cmd_defs[i], false);
		printf("Numbers are decimal. Lines hold at most %d characters, words at most %d.\n",
		       LINE_MAX_CHARS, TOKEN_MAX_CHARS);
		return 0;
	}
	for (i = 0; i < RTE_DIM(cmd_defs); i++) {
		snprintf(want, sizeof(want), "%s", words);
		snprintf(spec, sizeof(spec), "%s", cmd_defs[i].spec);
		match = true;
		w = strtok_r(want, " \t", &ws);
		s = strtok_r(spec, " ", &ss);
		for (; w != NULL && match; w = strtok_r(NULL, " \t", &ws),
		     s = strtok_r(NULL, " ", &ss)) {
			if (s == NULL || (s[0] != '<' && strcmp(w, s) != 0 &&
					  (strchr(s, '|') == NULL || strstr(s, w) == NULL)))
				match = false;
		}
		if (match) {
			print_usage(&cmd_defs[i], true);
			found++;
		}
	}
	if (found == 0) {
		con_error(con, "help: no command starts with '%s' (help lists them)", words);
		return -ENOENT;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------
 * Building the library's instances from the table.
 */

static void
cmd_dispatch(void *res, struct cmdline *cl, void *data)
{
	const struct cmd_inst *ci = data;

	RTE_SET_USED(cl);
	ci->def->fn(&con_state, ci, res);
}

static cmdline_parse_token_hdr_t *
make_token(const char *word, unsigned int pos)
{
	struct cmdline_token_string *st;
	struct arg_token *at;
	size_t n = strlen(word);
	char *choices;

	if (word[0] == '<' && n > 5 && strcmp(word + n - 4, ">...") == 0) {
		st = calloc(1, sizeof(*st));
		if (st == NULL)
			return NULL;
		st->hdr.ops = &cmdline_token_string_ops;
		st->hdr.offset = offsetof(struct cmd_res, rest);
		st->string_data.str = TOKEN_STRING_MULTI;
		return &st->hdr;
	}
	if (word[0] == '<') {
		at = calloc(1, sizeof(*at));
		if (at == NULL)
			return NULL;
		at->hdr.ops = &arg_ops;
		at->hdr.offset = (unsigned int)offsetof(struct cmd_res, tok[pos]);
		snprintf(at->name, sizeof(at->name), "%.*s", (int)(n - 2), word + 1);
		if (strcmp(at->name, "groups") == 0)
			at->kind = ARG_GROUPS;
		else if (strcmp(at->name, "list") == 0)
			at->kind = ARG_LIST;
		else if (strcmp(at->name, "policy") == 0)
			at->kind = ARG_WORD;
		else
			at->kind = ARG_UINT;
		return &at->hdr;
	}
	st = calloc(1, sizeof(*st));
	choices = strdup(word);
	if (st == NULL || choices == NULL) {
		free(st);
		free(choices);
		return NULL;
	}
	/* the library separates choices with '#' */
	for (n = 0; choices[n] != '\0'; n++)
		if (choices[n] == '|')
			choices[n] = '#';
	st->hdr.ops = &cmdline_token_string_ops;
	st->hdr.offset = (unsigned int)offsetof(struct cmd_res, tok[pos]);
	st->string_data.str = choices;
	return &st->hdr;
}

static bool
token_is_arg(const cmdline_parse_token_hdr_t *tk)
{
	return tk->ops == &arg_ops;
}

/* The library's "rest of the line" string token (TOKEN_STRING_MULTI). */
static bool
token_is_rest(const cmdline_parse_token_hdr_t *tk)
{
	const struct cmdline_token_string *st = (const struct cmdline_token_string *)tk;

	return tk->ops == &cmdline_token_string_ops && st->string_data.str != NULL &&
	       strcmp(st->string_data.str, TOKEN_STRING_MULTI) == 0;
}

static void
free_token(cmdline_parse_token_hdr_t *tk)
{
	struct cmdline_token_string *st;

	if (tk == NULL)
		return;
	if (tk->ops == &cmdline_token_string_ops) {
		st = (struct cmdline_token_string *)tk;
		if (strcmp(st->string_data.str, TOKEN_STRING_MULTI) != 0)
			free((char *)(uintptr_t)st->string_data.str);
	}
	free(tk);
}

static void
free_commands(struct console *con)
{
	unsigned int i, t;

	for (i = 0; con->insts != NULL && i < con->n_insts; i++) {
		if (con->insts[i].inst == NULL)
			continue;
		for (t = 0; con->insts[i].inst->tokens[t] != NULL; t++)
			free_token(con->insts[i].inst->tokens[t]);
		free(con->insts[i].inst);
	}
	free(con->insts);
	free(con->ctx);
	con->insts = NULL;
	con->ctx = NULL;
}

static int
build_commands(struct console *con)
{
	unsigned int i, t;
	char spec[128], *w, *save;
	struct cmd_inst *ci;

	con->n_insts = RTE_DIM(cmd_defs);
	con->insts = calloc(con->n_insts, sizeof(*con->insts));
	con->ctx = calloc(con->n_insts + 1, sizeof(*con->ctx));
	if (con->insts == NULL || con->ctx == NULL)
		return -ENOMEM;
	for (i = 0; i < con->n_insts; i++) {
		ci = &con->insts[i];
		ci->def = &cmd_defs[i];
		ci->inst = calloc(1, sizeof(*ci->inst) +
				  (MAX_SPEC_WORDS + 1) * sizeof(ci->inst->tokens[0]));
		if (ci->inst == NULL)
			return -ENOMEM;
		ci->inst->f = cmd_dispatch;
		ci->inst->data = ci;
		ci->inst->help_str = cmd_defs[i].help;
		snprintf(spec, sizeof(spec), "%s", cmd_defs[i].spec);
		save = NULL;
		for (w = strtok_r(spec, " ", &save), t = 0; w != NULL;
		     w = strtok_r(NULL, " ", &save), t++) {
			if (t >= MAX_SPEC_WORDS)
				return -E2BIG;
			snprintf(ci->words[t], sizeof(ci->words[t]), "%s", w);
			ci->inst->tokens[t] = make_token(w, t);
			if (ci->inst->tokens[t] == NULL)
				return -ENOMEM;
		}
		ci->n_words = t;
		con->ctx[i] = ci->inst;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------
 * Running a line: checks, the library's parser, and mcfan's own diagnosis on failure.
 */

struct word {
	const char *p;
	size_t len;
};

/* Split at blanks up to a comment. */
static unsigned int
split_words(const char *line, struct word *w, unsigned int max)
{
	unsigned int n = 0;
	const char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#' || *p == '\n' || *p == '\r' || n == max)
			return n;
		w[n].p = p;
		while (!cmdline_isendoftoken(*p))
			p++;
		w[n].len = (size_t)(p - w[n].p);
		n++;
	}
}

/* How far an instance matches the words: the count of leading words its tokens take. */
static unsigned int
match_words(const cmdline_parse_inst_t *inst, const struct word *w, unsigned int n_words)
{
	cmdline_parse_token_hdr_t *tk;
	unsigned int t;
	int ret;

	for (t = 0; t < n_words; t++) {
		tk = inst->tokens[t];
		if (tk == NULL)
			return t;
		if (token_is_rest(tk))
			return n_words;
		ret = tk->ops->parse(tk, w[t].p, NULL, 0);
		if (ret < 0 || (size_t)ret < w[t].len)
			return t;
	}
	return t;
}

/* What may come at a position, for messages: "lcores, msacc, <lcore> (a decimal number)".
 * Returns the number of different items. */
static unsigned int
describe_next(const struct console *con, const unsigned int *score, unsigned int best,
	      char *buf, size_t len, enum arg_kind *kind, unsigned int *n_args)
{
	const cmdline_parse_token_hdr_t *tk;
	const struct arg_token *at;
	char seen[1024] = ";", item[160], key[170], *p, *save = NULL;
	size_t off = 0;
	unsigned int i, n = 0;

	*n_args = 0;
	buf[0] = '\0';
	for (i = 0; i < con->n_insts; i++) {
		if (score[i] != best || best >= con->insts[i].n_words)
			continue;
		tk = con->insts[i].inst->tokens[best];
		if (token_is_arg(tk)) {
			at = (const struct arg_token *)tk;
			snprintf(item, sizeof(item), "<%s> (%s)", at->name, arg_kind_text(at->kind));
		} else if (token_is_rest(tk)) {
			snprintf(item, sizeof(item), "words");
		} else {
			snprintf(item, sizeof(item), "%s", con->insts[i].words[best]);
		}
		if (token_is_arg(tk)) {
			*kind = ((const struct arg_token *)tk)->kind;
			(*n_args)++;
		}
		/* "a|b" choices are items of their own; one mention of each */
		for (p = strtok_r(item, "|", &save); p != NULL; p = strtok_r(NULL, "|", &save)) {
			snprintf(key, sizeof(key), ";%s;", p);
			if (strstr(seen, key) != NULL)
				continue;
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s;", p);
			if (off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%s",
							n == 0 ? "" : ", ", p);
			n++;
		}
	}
	return n;
}

static void
diagnose(struct console *con, const char *line)
{
	struct word w[MAX_LINE_WORDS];
	unsigned int score[RTE_DIM(cmd_defs)];
	unsigned int n, i, best = 0, n_args, n_next;
	char prefix[LINE_MAX_CHARS + 1], next[512], err[256];
	struct mcfan_flow_key key;
	enum arg_kind kind = ARG_UINT;
	size_t plen;

	n = split_words(line, w, MAX_LINE_WORDS);
	for (i = 0; i < con->n_insts; i++) {
		score[i] = match_words(con->insts[i].inst, w, n);
		best = RTE_MAX(best, score[i]);
	}
	if (best == 0) {
		con_error(con, "unknown command '%.*s' (help lists the commands)", (int)w[0].len,
			  w[0].p);
		return;
	}
	plen = (size_t)(w[best - 1].p + w[best - 1].len - w[0].p);
	snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, w[0].p);
	n_next = describe_next(con, score, best, next, sizeof(next), &kind, &n_args);
	if (best >= n) {
		con_error(con, "%s: missing %s%s", prefix, n_next > 1 ? "one of: " : "",
			  next[0] != '\0' ? next : "argument");
		return;
	}
	if (next[0] == '\0') {
		con_error(con, "%s: unexpected '%.*s' after the command (help %s)", prefix,
			  (int)w[best].len, w[best].p, prefix);
		return;
	}
	if (n_args == 1 && n_next == 1 && kind == ARG_GROUPS) {
		char word[STR_TOKEN_SIZE];

		/* say what is wrong with the group, as --groups would */
		snprintf(word, sizeof(word), "%.*s", (int)w[best].len, w[best].p);
		if (mcfan_group_parse(word, &key, 1, err, sizeof(err)) < 0 && err[0] != '\0') {
			con_error(con, "%s: %s", prefix, err);
			return;
		}
	}
	con_error(con, "%s: '%.*s' is not %s%s", prefix, (int)w[best].len, w[best].p,
		  n_next > 1 ? "one of: " : "", next);
}

/* Printable copy of a line for echo and messages: other bytes shown as '?'. */
static void
sanitize(const char *line, size_t len, char *out, size_t size)
{
	size_t i, n = RTE_MIN(len, size - 1);

	for (i = 0; i < n; i++)
		out[i] = (line[i] >= ' ' && line[i] < ASCII_DEL) || line[i] == '\t' ? line[i] : '?';
	out[n] = '\0';
}

/*
 * Run one line: refuse it whole if it is too long, holds bytes other than printable ASCII
 * and tabs, or a word too long for the library; otherwise parse and run it.
 */
static void
run_line(struct console *con, const char *line, size_t len, bool echo)
{
	char buf[LINE_MAX_CHARS + 2], shown[ECHO_MAX + 1];
	struct word w[MAX_LINE_WORDS];
	unsigned int n, i;
	size_t k;
	int ret;

	if (echo) {
		sanitize(line, len, shown, sizeof(shown));
		k = strspn(shown, " \t");
		if (shown[k] != '\0' && shown[k] != '#')
			printf("%s%s%s\n", PROMPT, shown, len > ECHO_MAX ? "..." : "");
	}
	if (len > LINE_MAX_CHARS) {
		con_error(con, "line too long: %zu characters, at most %d; nothing was run (give "
			  "long group lists as ranges, e.g. 239.1.1.1-200, or in several commands)",
			  len, LINE_MAX_CHARS);
		return;
	}
	for (k = 0; k < len; k++) {
		unsigned char c = (unsigned char)line[k];

		if (c >= 0x80) {
			con_error(con, "non-ASCII byte 0x%02x at column %zu; commands are plain "
				  "ASCII (a pasted dash or quote?); nothing was run", c, k + 1);
			return;
		}
		if ((c < ' ' && c != '\t') || c == ASCII_DEL) {
			con_error(con, "control character 0x%02x at column %zu; nothing was run",
				  c, k + 1);
			return;
		}
	}
	memcpy(buf, line, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	n = split_words(buf, w, MAX_LINE_WORDS);
	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		if (w[i].len > TOKEN_MAX_CHARS) {
			con_error(con, "word %u is %zu characters long, at most %d: '%.20s...'; "
				  "nothing was run", i + 1, w[i].len, TOKEN_MAX_CHARS, w[i].p);
			return;
		}
	}
	ret = cmdline_parse(con->cl, buf);
	if (ret == CMDLINE_PARSE_AMBIGUOUS)
		con_error(con, "ambiguous command '%.*s'", (int)len, line);
	else if (ret == CMDLINE_PARSE_NOMATCH || ret == CMDLINE_PARSE_BAD_ARGS)
		diagnose(con, buf);
	else if (ret < 0)
		con_error(con, "cannot parse the line (%d)", ret);
	fflush(stdout);
}

/* ------------------------------------------------------------------------------------------
 * Line sources (command file, standard input that is not a terminal).
 */

static int
src_open(struct line_src *s, const char *path, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	snprintf(s->name, sizeof(s->name), "%s", path);
	if (fd < 0) {
		s->fd = open(path, O_RDONLY);
		if (s->fd < 0)
			return -errno;
	}
	return 0;
}

static void
src_close(struct line_src *s)
{
	if (s->fd > STDERR_FILENO)
		close(s->fd);
	s->fd = -1;
}

/*
 * Next whole line of a source, from what was read already, reading once more if allowed.
 * Returns 1 with the line, 0 if none is complete yet, -1 at the end.
 */
static int
src_next(struct line_src *s, bool may_read, const char **line, size_t *len)
{
	ssize_t got;
	char c;

	for (;;) {
		while (s->off < s->len) {
			c = s->buf[s->off++];
			if (c == '\n')
				goto complete;
			if (s->line_len < sizeof(s->line) - 1)
				s->line[s->line_len] = c;
			s->line_len++;
		}
		if (s->eof || !may_read)
			break;
		got = read(s->fd, s->buf, sizeof(s->buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			return 0;
		s->off = 0;
		s->len = got > 0 ? (size_t)got : 0;
		if (got <= 0)
			s->eof = true;
		may_read = false; /* one read a call: never block on a pipe */
	}
	if (!s->eof)
		return 0;
	if (s->line_len == 0)
		return -1;
complete:
	s->line_no++;
	if (s->line_len > 0 && s->line_len < sizeof(s->line) && s->line[s->line_len - 1] == '\r')
		s->line_len--; /* CRLF files */
	*line = s->line;
	*len = s->line_len;
	s->line_len = 0;
	return 1;
}

/* ------------------------------------------------------------------------------------------
 * Terminal mode: the library's line editor with mcfan's own checks around it.
 */

static int
tty_write_char(struct rdline *rdl, char c)
{
	RTE_SET_USED(rdl);
	return fputc(c, stdout) == EOF ? -1 : 1;
}

static void
tty_validate(struct rdline *rdl, const char *buf, unsigned int size)
{
	struct console *con = rdline_get_opaque(rdl);
	size_t len = strnlen(buf, size);

	RTE_SET_USED(size);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	con->tty_refused = con->tty_long || con->tty_bad != 0;
	if (con->tty_long)
		con_error(con, "line too long: more than %d characters; nothing was run (give "
			  "long group lists as ranges, e.g. 239.1.1.1-200, or in several commands)",
			  LINE_MAX_CHARS);
	else if (con->tty_bad != 0)
		con_error(con, "non-ASCII byte 0x%02x at column %u; commands are plain ASCII (a "
			  "pasted dash or quote?); nothing was run", con->tty_bad, con->tty_bad_col);
	else
		run_line(con, buf, len, false);
	con->tty_long = false;
	con->tty_bad = 0;
}

static int
tty_complete(struct rdline *rdl, const char *buf, char *dst, unsigned int size, int *state)
{
	struct console *con = rdline_get_opaque(rdl);

	return cmdline_complete(con->cl, buf, state, dst, size);
}

static size_t
tty_line_len(struct console *con)
{
	const char *b = rdline_get_buffer(con->rdl);
	size_t n = b != NULL ? strlen(b) : 0;

	return n > 0 ? n - 1 : 0; /* without the '\n' it appends */
}

static void
tty_newline(struct console *con)
{
	rdline_newline(con->rdl, PROMPT);
	con->prompt_due = false;
}

static void
tty_history(struct console *con)
{
	const char *b = rdline_get_buffer(con->rdl);
	const char *h = rdline_get_history_item(con->rdl, 0);
	size_t hl = h != NULL ? strlen(h) : 0;

	if (con->tty_refused || strspn(b, " \t\n") == strlen(b))
		return;
	if (h != NULL && strncmp(b, h, hl) == 0 && b[hl] == '\n')
		return; /* same as the last one */
	rdline_add_history(con->rdl, b);
}

/* Feed typed bytes to the line editor; stops early while a `wait` holds input. Returns the
 * bytes taken. */
static unsigned int
tty_feed(struct console *con)
{
	unsigned int taken = 0;
	unsigned char c;
	int ret;

	while (con->tty_off < con->tty_len) {
		if (con->wait_until != 0 || mcfan_live_quitting(&con->app->live))
			return taken;
		taken++;
		c = (unsigned char)con->tty_buf[con->tty_off++];
		if (c >= 0x80) {
			/* the editor would drop it silently: remember it for the error */
			if (con->tty_bad == 0) {
				con->tty_bad = c;
				con->tty_bad_col = (unsigned int)tty_line_len(con) + 1;
			}
			continue;
		}
		if (con->esc == 0 && c >= ' ' && c < ASCII_DEL && c != '?' &&
		    tty_line_len(con) >= LINE_MAX_CHARS)
			con->tty_long = true;
		if (c == ASCII_CTRL_C) {
			con->tty_long = false;
			con->tty_bad = 0;
		}
		/* escape sequences (arrows, Alt+key) are editing keys, not text */
		if (c == ASCII_ESC)
			con->esc = 1;
		else if (con->esc == 1)
			con->esc = c == '[' ? 2 : 0;
		else if (con->esc == 2 && c >= '@' && c <= '~')
			con->esc = 0;
		ret = rdline_char_in(con->rdl, (char)c);
		if (ret == RDLINE_RES_VALIDATED) {
			tty_history(con);
			if (con->wait_until == 0 && !mcfan_live_quitting(&con->app->live))
				tty_newline(con);
			else
				con->prompt_due = true;
		} else if (ret == RDLINE_RES_EOF) {
			printf("quit\n");
			con->prompt_due = false;
			cmd_quit(con, NULL, NULL);
			return taken;
		}
	}
	return taken;
}

static bool
tty_read(struct console *con)
{
	ssize_t got;

	if (con->tty_off < con->tty_len)
		return false;
	got = read(STDIN_FILENO, con->tty_buf, sizeof(con->tty_buf));
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return false;
	if (got <= 0) {
		printf("\nend of input: stopping\n");
		con->mode = CON_NONE;
		cmd_quit(con, NULL, NULL);
		return true;
	}
	con->tty_off = 0;
	con->tty_len = (size_t)got;
	return true;
}

static int
tty_open(struct console *con)
{
	struct termios t;

	con->rdl = rdline_new(tty_write_char, tty_validate, tty_complete, con);
	if (con->rdl == NULL)
		return -ENOMEM;
	if (tcgetattr(STDIN_FILENO, &con->saved_term) == 0) {
		/* as the library's own terminal mode: no line buffering, no echo, no signals
		 * from keys (Ctrl-C clears the line; Ctrl-D or quit ends) */
		t = con->saved_term;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
			con->term_saved = true;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------
 * The main lcore's side.
 */

int
mcfan_console_init(struct mcfan_app *app)
{
	struct console *con = &con_state;
	int ret;

	memset(con, 0, sizeof(*con));
	con->app = app;
	con->file.fd = -1;
	con->in.fd = -1;
	if (!app->cfg.interactive && app->cfg.cmdline_file[0] == '\0')
		return 0;
	ret = build_commands(con);
	if (ret < 0)
		goto fail;
	con->cl = cmdline_new(con->ctx, "", -1, -1);
	if (con->cl == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	if (app->cfg.cmdline_file[0] != '\0') {
		ret = src_open(&con->file, app->cfg.cmdline_file, -1);
		if (ret < 0) {
			fprintf(stderr, "mcfan: --cmdline-file: cannot open '%s': %s\n",
				app->cfg.cmdline_file, strerror(-ret));
			goto fail;
		}
	}
	if (app->cfg.interactive) {
		if (isatty(STDIN_FILENO)) {
			con->mode = CON_TTY;
			ret = tty_open(con);
			if (ret < 0)
				goto fail;
		} else {
			con->mode = CON_LINES;
			src_open(&con->in, "stdin", STDIN_FILENO);
		}
	}
	return 0;
fail:
	mcfan_console_close(app);
	return ret < 0 ? ret : -EINVAL;
}

bool
mcfan_console_pollfd(struct pollfd *pfd, int *timeout_ms)
{
	struct console *con = &con_state;
	uint64_t now, left_ms;

	pfd->fd = -1;
	pfd->events = POLLIN;
	pfd->revents = 0;
	if (con->cl == NULL)
		return false;
	if (con->wait_until != 0) {
		now = rte_rdtsc();
		left_ms = now >= con->wait_until ? 0 :
			(con->wait_until - now) * 1000 / con->app->tsc_hz + 1;
		*timeout_ms = (int)RTE_MIN((uint64_t)*timeout_ms, left_ms);
		return true;
	}
	if (!con->started || con->file.fd >= 0 || con->tty_off < con->tty_len || con->prompt_due) {
		*timeout_ms = 0; /* work to do now */
		return true;
	}
	if (con->mode == CON_LINES && con->in.off < con->in.len)
		*timeout_ms = 0;
	if (con->mode != CON_NONE)
		pfd->fd = STDIN_FILENO;
	return true;
}

int
mcfan_console_handle(struct mcfan_app *app, short revents)
{
	struct console *con = &con_state;
	const char *line;
	unsigned int done = 0;
	size_t len;
	int ret;

	if (con->cl == NULL)
		return 0;
	if (!con->started) {
		con->started = true;
		if (con->mode == CON_TTY) {
			printf("mcfan console: help lists the commands, Tab completes, Ctrl-D or quit "
			       "exits\n");
			if (con->file.fd < 0)
				con->prompt_due = true;
		}
	}
	if (con->wait_until != 0) {
		if (rte_rdtsc() < con->wait_until)
			return 0;
		con->wait_until = 0;
	}
	/* the command file first */
	while (con->file.fd >= 0 && done < LINES_PER_POLL && con->wait_until == 0 &&
	       !mcfan_live_quitting(&app->live)) {
		ret = src_next(&con->file, true, &line, &len);
		if (ret < 0) {
			src_close(&con->file);
			if (con->mode == CON_TTY)
				con->prompt_due = true;
			break;
		}
		con->from_file = true;
		run_line(con, line, len, true);
		con->from_file = false;
		done++;
	}
	if (con->file.fd >= 0 || con->wait_until != 0 ||
	    mcfan_live_quitting(&app->live))
		goto out;
	if (con->mode == CON_TTY) {
		if (con->prompt_due)
			tty_newline(con);
		if ((revents & (POLLIN | POLLHUP | POLLERR)) && tty_read(con))
			done++;
		if (con->mode == CON_TTY && tty_feed(con) > 0)
			done++;
	} else if (con->mode == CON_LINES) {
		bool may_read = (revents & (POLLIN | POLLHUP | POLLERR)) != 0;

		while (done < LINES_PER_POLL && con->wait_until == 0 &&
		       !mcfan_live_quitting(&app->live)) {
			ret = src_next(&con->in, may_read, &line, &len);
			may_read = false;
			if (ret == 0)
				break;
			if (ret < 0) {
				printf("end of input: stopping\n");
				con->mode = CON_NONE;
				cmd_quit(con, NULL, NULL);
				break;
			}
			run_line(con, line, len, true);
			done++;
		}
	}
out:
	fflush(stdout);
	return (int)done;
}

void
mcfan_console_close(struct mcfan_app *app)
{
	struct console *con = &con_state;

	RTE_SET_USED(app);
	if (con->term_saved) {
		tcsetattr(STDIN_FILENO, TCSANOW, &con->saved_term);
		con->term_saved = false;
		if (con->mode == CON_TTY)
			printf("\n");
	}
	rdline_free(con->rdl);
	con->rdl = NULL;
	src_close(&con->file);
	con->in.fd = -1;
	if (con->cl != NULL)
		cmdline_free(con->cl);
	con->cl = NULL;
	free_commands(con);
	con->mode = CON_NONE;
	fflush(stdout);
}
