/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * mcfan's own options: `mcfan [EAL options] -- [mcfan options]`.
 * Parsed before rte_eal_init, so a bad option starts nothing. Every option can
 * also be set in an INI file (--config FILE, section [mcfan], key = the long
 * option name without dashes); the command line wins over the file.
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "bits.h"
#include "mcfan_igmp_host.h"
#include "mcfan_igmp_ssm.h"
#include "mcfan_feed.h"
#include "mcfan_parse.h"
#include "mcfan_reader_writer.h"
#include "mcfan_sct.h"
#include "config_file.h"
#include "outfile.h"
#include "datapath/engine.h"

#define ERR_MAX 256
#define CORELIST_TEXT_MAX 256   /* longest corelist option value, with NUL */
#define RING_SIZE_MAX (1u << 24)  /* 16 Mi slots: far above any sane queue */
#define MBUFS_MIN 1023            /* smallest pool that holds a default RX ring */
#define MBUFS_MAX (1u << 26)
#define SECONDS_MAX 1e7           /* about 115 days */
#define STATS_PERIOD_MIN_S 0.1    /* the control loop ticks every 10 ms; a summary is ~40 lines */

enum opt_kind { OPT_VALUE, OPT_FLAG };

struct opt_def {
	const char *name;
	enum opt_kind kind;
	const char *arg;     /* placeholder in --help */
	const char *help;
	const char *def;     /* default shown in --help */
	int (*set)(struct mcfan_config *cfg, const char *val, char *err, size_t err_len);
	bool file_ok;        /* may be set in the config file */
	char short_name;     /* one-letter form (-i), 0 = none */
	bool repeat;         /* may be given more than once: each adds to a list */
};

/* Occurrences of repeatable options on one command line (--seq, --seq-pair). */
#define REPEAT_MAX (2 * MCFAN_SEQ_RULES_MAX + MCFAN_GROUP_ENGINE_RULES_MAX)

static int
parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	uint64_t v = 0;
	int ret = mcfan_parse_u64(s, min, max, &v);

	*out = (unsigned long)v; /* 0 on error: callers test ret */
	return ret;
}

/* Decimal seconds: digits, optionally a dot and more digits. */
static int
parse_seconds(const char *s, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p != '\0')
		return -EINVAL;
	v = strtod(s, &end);
	if (v > SECONDS_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

/* Lcores of a corelist in list order, each once. */
struct corelist_out {
	uint16_t *ids;
	unsigned int n;
	uint64_t seen[MCFAN_BITS_WORDS(RTE_MAX_LCORE)];
	uint64_t twice; /* the lcore listed twice, on -EEXIST */
};

static int
corelist_add(uint64_t first, uint64_t last, void *arg)
{
	struct corelist_out *o = arg;
	uint64_t i;

	for (i = first; i <= last; i++) {
		if (mcfan_bits_test(o->seen, (unsigned int)i)) {
			o->twice = i;
			return -EEXIST;
		}
		mcfan_bits_set(o->seen, (unsigned int)i);
		o->ids[o->n++] = (uint16_t)i;
	}
	return 0;
}

/* DPDK corelist syntax: "1,3-5". Lcore ids below RTE_MAX_LCORE, no duplicates. */
static int
parse_corelist(const char *s, uint16_t *out, unsigned int *n_out, char *err, size_t err_len,
	       const char *opt)
{
	struct corelist_out o = { .ids = out };
	struct mcfan_corelist_err e;

	if (strlen(s) >= CORELIST_TEXT_MAX || s[0] == '\0')
		return mcfan_err_set(err, err_len, -EINVAL,
				     "--%s: '%s' is not a corelist (e.g. 1,3-5)", opt, s);
	if (mcfan_corelist_parse(s, strlen(s), RTE_MAX_LCORE - 1, corelist_add, &o, &e) == 0) {
		*n_out = o.n;
		return 0;
	}
	switch (e.kind) {
	case MCFAN_CORELIST_EMPTY_ITEM:
		return mcfan_err_set(err, err_len, -EINVAL, "--%s: '%s' has an empty item", opt, s);
	case MCFAN_CORELIST_DECREASING:
		return mcfan_err_set(err, err_len, -EINVAL, "--%s: range %" PRIu64 "-%" PRIu64
				     " in '%s' is decreasing", opt, e.first, e.last, s);
	case MCFAN_CORELIST_VISIT:
		return mcfan_err_set(err, err_len, -EINVAL,
				     "--%s: lcore %" PRIu64 " is listed twice in '%s'", opt,
				     o.twice, s);
	default:
		return mcfan_err_set(err, err_len, -EINVAL,
				     "--%s: '%s' is not a corelist of lcore ids 0..%d (e.g. 1,3-5)",
				     opt, s, RTE_MAX_LCORE - 1);
	}
}

static int
set_rx_lcores(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return parse_corelist(v, cfg->rx_lcores, &cfg->n_rx_lcores, err, len, "rx-lcores");
}

/* Ports of --rx-ports in a bitmap; a port listed twice stops the parse (-EEXIST). */
struct portlist_out {
	uint64_t *bits;
	uint64_t twice;
};

static int
portlist_add(uint64_t first, uint64_t last, void *arg)
{
	struct portlist_out *o = arg;
	uint64_t i;

	for (i = first; i <= last; i++) {
		if (mcfan_bits_test(o->bits, (unsigned int)i)) {
			o->twice = i;
			return -EEXIST;
		}
		mcfan_bits_set(o->bits, (unsigned int)i);
	}
	return 0;
}

/* --rx-ports LIST: port ids in corelist syntax ("0", "0,2-3"), below RTE_MAX_ETHPORTS, each
 * once; whether each was probed is checked after EAL (mcfan_ports_roles()). */
static int
set_rx_ports(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	struct portlist_out o = { .bits = cfg->rx_ports };
	struct mcfan_corelist_err e;

	memset(cfg->rx_ports, 0, sizeof(cfg->rx_ports));
	cfg->rx_ports_set = false;
	if (strlen(v) >= CORELIST_TEXT_MAX || v[0] == '\0')
		return mcfan_err_set(err, len, -EINVAL, "--rx-ports: '%s' is not a list of port "
				     "ids (e.g. 0 or 0,2-3)", v);
	if (mcfan_corelist_parse(v, strlen(v), RTE_MAX_ETHPORTS - 1, portlist_add, &o, &e) == 0) {
		cfg->rx_ports_set = true;
		return 0;
	}
	memset(cfg->rx_ports, 0, sizeof(cfg->rx_ports));
	switch (e.kind) {
	case MCFAN_CORELIST_EMPTY_ITEM:
		return mcfan_err_set(err, len, -EINVAL, "--rx-ports: '%s' has an empty item", v);
	case MCFAN_CORELIST_DECREASING:
		return mcfan_err_set(err, len, -EINVAL, "--rx-ports: range %" PRIu64 "-%" PRIu64
				     " in '%s' is decreasing", e.first, e.last, v);
	case MCFAN_CORELIST_VISIT:
		return mcfan_err_set(err, len, -EINVAL, "--rx-ports: port %" PRIu64 " is listed "
				     "twice in '%s'", o.twice, v);
	default:
		return mcfan_err_set(err, len, -EINVAL, "--rx-ports: '%s' is not a list of port "
				     "ids 0..%d (e.g. 0 or 0,2-3)", v, RTE_MAX_ETHPORTS - 1);
	}
}

static int
set_worker_lcores(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return parse_corelist(v, cfg->worker_lcores, &cfg->n_worker_lcores, err, len,
			      "worker-lcores");
}

static int
set_groups(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char msg[ERR_MAX], *text;
	int n;

	/* GROUP@SOURCE items (lib/igmp/mcfan_igmp_ssm.h): the sources apart, the groups as ever */
	text = malloc(strlen(v) + 1);
	if (text == NULL) {
		snprintf(err, len, "--groups: out of memory");
		return -ENOMEM;
	}
	n = mcfan_igmp_ssm_split(v, text, strlen(v) + 1, cfg->ssm, MCFAN_IGMP_SSM_MAX,
				 &cfg->n_ssm, msg, sizeof(msg));
	if (n == 0)
		n = mcfan_group_parse_list(text, cfg->groups, MCFAN_MAX_GROUPS, msg, sizeof(msg));
	free(text);
	if (n < 0) {
		/* the source-specific messages and the bracket hint carry their own example */
		snprintf(err, len, "--groups: %s%s", msg, strstr(msg, "e.g.") != NULL ? "" :
			 " (e.g. 239.9.9.1-10:3999 or [ff15::1]:5000)");
		return n;
	}
	cfg->n_groups = (unsigned int)n;
	return 0;
}

/* A group that an earlier --seq rule gives another kind: the error names both rules. */
static int
seq_conflict(const struct mcfan_config *cfg, const struct mcfan_flow_key *keys, unsigned int n,
	     const struct mcfan_feed_spec *spec, const char *item, char *err, size_t len)
{
	char buf[MCFAN_SEQ_RULE_LEN], g[MCFAN_GROUP_STR_MAX], a[MCFAN_FEED_SPEC_STR_MAX + 1];
	char b[MCFAN_FEED_SPEC_STR_MAX + 1], *eq;
	struct mcfan_flow_key *old;
	struct mcfan_feed_spec os;
	unsigned int r, i, j;
	int m;

	old = calloc(MCFAN_MAX_GROUPS, sizeof(*old));
	if (old == NULL)
		return mcfan_err_set(err, len, -ENOMEM, "--seq: out of memory");
	mcfan_feed_spec_format(spec, b, sizeof(b));
	for (r = 0; r < cfg->n_seq_rules; r++) {
		snprintf(buf, sizeof(buf), "%s", cfg->seq_rules[r]);
		eq = strrchr(buf, '=');
		*eq = '\0'; /* checked when it was added */
		m = mcfan_group_parse_list(buf, old, MCFAN_MAX_GROUPS, NULL, 0);
		if (m < 0 || mcfan_feed_spec_parse(eq + 1, &os, NULL, 0) < 0)
			continue;
		mcfan_feed_spec_format(&os, a, sizeof(a));
		if (strcmp(a, b) == 0)
			continue; /* the same kind again: no conflict */
		for (i = 0; i < n; i++) {
			for (j = 0; j < (unsigned int)m; j++) {
				if (!mcfan_flow_key_equal(&keys[i], &old[j]))
					continue;
				mcfan_group_format(&keys[i], g, sizeof(g));
				free(old);
				return mcfan_err_set(err, len, -EINVAL, "--seq: group %s is given two "
						     "kinds: %s by '%s' and %s by '%.64s' (one kind a "
						     "group)", g, a, cfg->seq_rules[r], b, item);
			}
		}
	}
	free(old);
	return 0;
}

/* --seq GROUPS=KIND, repeatable (and several in one value, separated by blanks, on the
 * command line and in the file): checked here, applied by control/feed.c once the groups are
 * joined. A group that two rules give different kinds is refused. */
static int
set_seq(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char buf[MCFAN_SEQ_RULE_LEN * 4], msg[ERR_MAX], *item, *save = NULL, *eq;
	struct mcfan_flow_key *keys;
	struct mcfan_feed_spec spec;
	unsigned int rules = 0;
	int n;

	if (strlen(v) >= sizeof(buf)) {
		snprintf(err, len, "--seq: the value is longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	if (keys == NULL) {
		snprintf(err, len, "--seq: out of memory");
		return -ENOMEM;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (item = strtok_r(buf, " \t", &save); item != NULL; item = strtok_r(NULL, " \t", &save)) {
		eq = strrchr(item, '=');
		if (eq == NULL || eq == item || strlen(item) >= MCFAN_SEQ_RULE_LEN) {
			snprintf(err, len, "--seq: '%.64s' is not GROUPS=KIND of at most %d characters "
				 "(e.g. 239.9.9.1-10:3999=iperf2)", item, MCFAN_SEQ_RULE_LEN - 1);
			goto bad;
		}
		/* rules run together with a comma, as --groups lists them (A=iperf2,B=rtp), or
		 * A==iperf2: the group parser would blame 'A=iperf2' as a bad port */
		if (strchr(item, '=') != eq) {
			snprintf(err, len, "--seq: '%.64s' holds more than one '=': a rule is "
				 "GROUPS=KIND with one '='; give several rules separated by blanks, "
				 "or as several --seq (e.g. --seq 239.9.9.1:3999=iperf2 --seq "
				 "239.9.9.2:3999=rtp)", item);
			goto bad;
		}
		*eq = '\0';
		n = mcfan_group_parse_list(item, keys, MCFAN_MAX_GROUPS, msg, sizeof(msg));
		if (n < 0) {
			snprintf(err, len, "--seq: %s", msg);
			goto bad;
		}
		if (mcfan_feed_spec_parse(eq + 1, &spec, msg, sizeof(msg)) < 0) {
			snprintf(err, len, "--seq: %s", msg);
			goto bad;
		}
		*eq = '=';
		if (seq_conflict(cfg, keys, (unsigned int)n, &spec, item, err, len) < 0)
			goto bad;
		if (cfg->n_seq_rules == MCFAN_SEQ_RULES_MAX) {
			snprintf(err, len, "--seq: more than %d rules", MCFAN_SEQ_RULES_MAX);
			goto bad;
		}
		snprintf(cfg->seq_rules[cfg->n_seq_rules++], MCFAN_SEQ_RULE_LEN, "%s", item);
		rules++;
	}
	if (rules == 0) {
		/* an unset shell variable: say so, as --groups '' does */
		snprintf(err, len, "--seq: no rule in '%.64s': give GROUPS=KIND (e.g. "
			 "239.9.9.1-10:3999=iperf2)", v);
		goto bad;
	}
	free(keys);
	return 0;
bad:
	free(keys);
	return -EINVAL;
}

/* --seq-pair A,B, repeatable (and several in one value, separated by blanks). */
static int
set_seq_pair(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char buf[MCFAN_SEQ_RULE_LEN * 4], msg[ERR_MAX], *item, *save = NULL;
	struct mcfan_flow_key keys[3];
	unsigned int pairs = 0;
	int n;

	if (strlen(v) >= sizeof(buf)) {
		snprintf(err, len, "--seq-pair: the value is longer than %zu characters",
			 sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (item = strtok_r(buf, " \t", &save); item != NULL; item = strtok_r(NULL, " \t", &save)) {
		n = strlen(item) < MCFAN_SEQ_RULE_LEN ?
			mcfan_group_parse_list(item, keys, RTE_DIM(keys), msg, sizeof(msg)) : -E2BIG;
		if (n != 2 || mcfan_flow_key_equal(&keys[0], &keys[1])) {
			snprintf(err, len, "--seq-pair: '%.64s' is not two groups A,B (e.g. "
				 "239.9.9.1:3999,239.9.9.2:3999)", item);
			return -EINVAL;
		}
		if (cfg->n_seq_pairs == MCFAN_SEQ_RULES_MAX) {
			snprintf(err, len, "--seq-pair: more than %d pairs", MCFAN_SEQ_RULES_MAX);
			return -EINVAL;
		}
		snprintf(cfg->seq_pairs[cfg->n_seq_pairs++], MCFAN_SEQ_RULE_LEN, "%s", item);
		pairs++;
	}
	if (pairs == 0) {
		snprintf(err, len, "--seq-pair: no pair in '%.64s': give two groups A,B (e.g. "
			 "239.9.9.1:3999,239.9.9.2:3999)", v);
		return -EINVAL;
	}
	return 0;
}

static int
set_seq_window(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 1, MCFAN_FEED_WINDOW_PKTS_MAX, &n) < 0) {
		snprintf(err, len, "--seq-window: '%s' is not a number of 1..%d sequence numbers", v,
			 MCFAN_FEED_WINDOW_PKTS_MAX);
		return -EINVAL;
	}
	cfg->seq_window_pkts = (unsigned int)n;
	return 0;
}

static int
set_seq_window_ms(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 1, MCFAN_FEED_WINDOW_NS_MAX / 1000000, &n) < 0) {
		snprintf(err, len, "--seq-window-ms: '%s' is not 1..%" PRIu64 " milliseconds", v,
			 (uint64_t)(MCFAN_FEED_WINDOW_NS_MAX / 1000000));
		return -EINVAL;
	}
	cfg->seq_window_ns = (uint64_t)n * 1000000;
	return 0;
}

static int
set_fanout(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	int f = mcfan_fanout_parse(v);

	if (f < 0) {
		snprintf(err, len, "--fanout: '%s' is not a mode: partition or replicate", v);
		return -EINVAL;
	}
	cfg->fanout = (enum mcfan_fanout)f;
	return 0;
}

static int
set_ring_size(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 1, RING_SIZE_MAX, &n) < 0 || !rte_is_power_of_2((uint32_t)n)) {
		snprintf(err, len, "--ring-size: '%s' is not allowed: a power of two 1..%u, "
			 "at least --burst", v, RING_SIZE_MAX);
		return -EINVAL;
	}
	cfg->ring_size = (unsigned int)n;
	cfg->ring_size_set = true;
	return 0;
}

/* --reader-ring-frames: frames each reader ring holds (engine readers, docs/readers.md) */
static int
set_reader_ring_frames(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, MCFAN_RD_SLOTS_MIN, MCFAN_RD_SLOTS_MAX, &n) < 0 ||
	    !rte_is_power_of_2((uint32_t)n)) {
		snprintf(err, len, "--reader-ring-frames: '%s' is not allowed: a power of two "
			 "%u..%u", v, MCFAN_RD_SLOTS_MIN, MCFAN_RD_SLOTS_MAX);
		return -EINVAL;
	}
	cfg->reader_ring_frames = (unsigned int)n;
	if (cfg->reader_opt_given == NULL)
		cfg->reader_opt_given = "--reader-ring-frames";
	return 0;
}

/* --reader-wake-frames: frames before sleeping readers are woken (coalesced wakes) */
static int
set_reader_wake_frames(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 1, MCFAN_RW_WAKE_FRAMES_MAX, &n) < 0) {
		snprintf(err, len, "--reader-wake-frames: '%s' is not allowed: frames 1..%u "
			 "(1: wake sleeping readers after every burst)", v,
			 MCFAN_RW_WAKE_FRAMES_MAX);
		return -EINVAL;
	}
	cfg->reader_wake_frames = (unsigned int)n;
	if (cfg->reader_opt_given == NULL)
		cfg->reader_opt_given = "--reader-wake-frames";
	return 0;
}

/* --reader-wake-us: latency budget of a deferred reader wake, microseconds */
static int
set_reader_wake_us(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 0, MCFAN_RW_WAKE_US_MAX, &n) < 0) {
		snprintf(err, len, "--reader-wake-us: '%s' is not allowed: microseconds 0..%u "
			 "(0: wake sleeping readers after every burst)", v, MCFAN_RW_WAKE_US_MAX);
		return -EINVAL;
	}
	cfg->reader_wake_us = (unsigned int)n;
	if (cfg->reader_opt_given == NULL)
		cfg->reader_opt_given = "--reader-wake-us";
	return 0;
}

static int
set_burst(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 1, MCFAN_MAX_BURST, &n) < 0) {
		snprintf(err, len, "--burst: '%s' is not allowed: an integer 1..%d", v,
			 MCFAN_MAX_BURST);
		return -EINVAL;
	}
	cfg->burst = (unsigned int)n;
	return 0;
}

static int
set_mbufs(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, MBUFS_MIN, MBUFS_MAX, &n) < 0) {
		snprintf(err, len, "--mbufs: '%s' is not allowed: an integer %u..%u", v,
			 MBUFS_MIN, MBUFS_MAX);
		return -EINVAL;
	}
	cfg->mbufs = (unsigned int)n;
	return 0;
}

/* --mbuf-size: frame bytes an mbuf of the RX pool holds after its headroom */
static int
set_mbuf_size(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, MCFAN_MBUF_SIZE_MIN, MCFAN_MBUF_SIZE_MAX, &n) < 0) {
		snprintf(err, len, "--mbuf-size: '%s' is not allowed: bytes of frame data an mbuf "
			 "holds after its %u-byte headroom, an integer %u..%u", v,
			 (unsigned int)RTE_PKTMBUF_HEADROOM, (unsigned int)MCFAN_MBUF_SIZE_MIN,
			 (unsigned int)MCFAN_MBUF_SIZE_MAX);
		return -EINVAL;
	}
	cfg->mbuf_size = (unsigned int)n;
	return 0;
}

static int
set_duration(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (parse_seconds(v, &cfg->duration_s) < 0) {
		snprintf(err, len, "--duration: '%s' is not allowed: seconds, 0..%.0f, decimal "
			 "(e.g. 10 or 0.5; 0 = until SIGINT/SIGTERM)", v, SECONDS_MAX);
		return -EINVAL;
	}
	return 0;
}

static int
set_stats_period(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (parse_seconds(v, &cfg->stats_period_s) < 0 ||
	    (cfg->stats_period_s > 0 && cfg->stats_period_s < STATS_PERIOD_MIN_S)) {
		snprintf(err, len, "--stats-period: '%s' is not allowed: seconds, 0 or %.1f..%.0f, "
			 "decimal (0 = no periodic report)", v, STATS_PERIOD_MIN_S, SECONDS_MAX);
		return -EINVAL;
	}
	return 0;
}

static int
set_path(char *dst, const char *v, const char *opt, char *err, size_t len)
{
	if (v[0] == '\0' || strlen(v) >= PATH_MAX) {
		snprintf(err, len, "--%s: a file path of 1..%d characters is needed", opt,
			 PATH_MAX - 1);
		return -EINVAL;
	}
	strcpy(dst, v);
	return 0;
}

/* A regular file that this process can read; 0 or -EINVAL with a message. */
static int
check_readable_file(const char *path, const char *opt, char *err, size_t len)
{
	struct stat st;

	if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
		snprintf(err, len, "--%s: cannot read '%s': %s", opt, path, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, len, "--%s: '%s' is not a regular file", opt, path);
		return -EINVAL;
	}
	return 0;
}

static int
set_report_json(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (set_path(cfg->report_json, v, "report-json", err, len) < 0)
		return -EINVAL;
	/* find out now, not after the run, that the report cannot be written (outfile.h) */
	if (mcfan_outfile_check(v, "report-json", &cfg->report_json_mode, err, len) < 0) {
		cfg->report_json[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

/*
 * --report-json naming the file of --config or --cmdline-file (the same file by device and
 * inode: the same path, another spelling of it, a hard or symbolic link to it): the exit
 * would replace the operator's input with the report. 0, or -EINVAL after one message.
 */
static int
check_report_not_input(const struct mcfan_config *cfg)
{
	const char *in[2] = {cfg->config_file, cfg->cmdline_file};
	const char *opt[2] = {"--config", "--cmdline-file"};
	struct stat rst, ist;
	unsigned int i;

	if (cfg->report_json[0] == '\0' || cfg->report_json_mode == MCFAN_OUTFILE_STDOUT ||
	    stat(cfg->report_json, &rst) != 0 || !S_ISREG(rst.st_mode))
		return 0;
	for (i = 0; i < RTE_DIM(in); i++) {
		if (in[i][0] == '\0' || stat(in[i], &ist) != 0 || ist.st_dev != rst.st_dev ||
		    ist.st_ino != rst.st_ino)
			continue;
		fprintf(stderr, "mcfan: --report-json: '%s' is the %s file '%s': the report "
			"would replace it at exit; give the report a file of its own\n",
			cfg->report_json, opt[i], in[i]);
		return -EINVAL;
	}
	return 0;
}

static int
set_config(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (set_path(cfg->config_file, v, "config", err, len) < 0)
		return -EINVAL;
	return check_readable_file(v, "config", err, len);
}

static int
set_no_msacc(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	RTE_SET_USED(err);
	RTE_SET_USED(len);
	/* In a file the value says whether accounting is off: yes/no, true/false, 1/0. */
	if (v == NULL || strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0) {
		cfg->msacc = false;
		return 0;
	}
	if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "false") == 0) {
		cfg->msacc = true;
		return 0;
	}
	snprintf(err, len, "no-msacc: '%s' is not allowed: yes or no", v);
	return -EINVAL;
}

static int
set_interactive(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	/* In a file the value says whether the console is on: yes/no, true/false, 1/0. */
	if (v == NULL || strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0) {
		cfg->interactive = true;
		return 0;
	}
	if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "false") == 0) {
		cfg->interactive = false;
		return 0;
	}
	snprintf(err, len, "interactive: '%s' is not allowed: yes or no", v);
	return -EINVAL;
}

static int
set_cmdline_file(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (set_path(cfg->cmdline_file, v, "cmdline-file", err, len) < 0)
		return -EINVAL;
	/* refuse an unreadable file (or a directory) now, before anything starts */
	return check_readable_file(v, "cmdline-file", err, len);
}

/* --idle-rx / --idle-worker: a policy (lib/idle/mcfan_idle.h) that suits the role. */
static int
set_idle(uint32_t *dst, const char *v, uint32_t role, const char *opt, char *err, size_t len)
{
	char msg[ERR_MAX];
	uint32_t policy;

	if (mcfan_idle_parse(v, &policy, msg, sizeof(msg)) < 0 ||
	    mcfan_idle_role_ok(policy, role, msg, sizeof(msg)) < 0) {
		snprintf(err, len, "--%s: %s", opt, msg);
		return -EINVAL;
	}
	*dst = policy;
	return 0;
}

static int
set_idle_rx(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (set_idle(&cfg->idle_rx, v, MCFAN_ROLE_RX, "idle-rx", err, len) < 0)
		return -EINVAL;
	cfg->idle_rx_set = true;
	return 0;
}

static int
set_idle_worker(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (set_idle(&cfg->idle_worker, v, MCFAN_ROLE_WORKER, "idle-worker", err, len) < 0)
		return -EINVAL;
	cfg->idle_worker_set = true;
	return 0;
}

static int
set_host_workers(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	if (strcmp(v, "auto") == 0)
		cfg->host_workers = true;
	else if (strcmp(v, "off") == 0)
		cfg->host_workers = false;
	else {
		snprintf(err, len, "--host-workers: '%s' is not auto or off", v);
		return -EINVAL;
	}
	return 0;
}

static int
set_rx_nice(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	/* as the other numbers: digits, a '-' in front at most (no blanks, no '+') */
	if ((v[0] != '-' && !isdigit((unsigned char)v[0])) || errno != 0 || end == v ||
	    *end != '\0' || n < MCFAN_NICE_MIN || n > MCFAN_NICE_MAX) {
		snprintf(err, len, "--rx-nice: '%s' is not a nice value, %d..%d", v, MCFAN_NICE_MIN,
			 MCFAN_NICE_MAX);
		return -EINVAL;
	}
	cfg->rx_nice = (int)n;
	cfg->rx_nice_set = true;
	return 0;
}

static int
set_idle_max_sleep(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, MCFAN_IDLE_MAX_SLEEP_US_MIN, MCFAN_IDLE_MAX_SLEEP_US_MAX, &n) < 0) {
		snprintf(err, len, "--idle-max-sleep-us: '%s' is not allowed: microseconds, %d..%d",
			 v, MCFAN_IDLE_MAX_SLEEP_US_MIN, MCFAN_IDLE_MAX_SLEEP_US_MAX);
		return -EINVAL;
	}
	cfg->idle_max_sleep_us = (unsigned int)n;
	cfg->idle_max_sleep_set = true;
	return 0;
}

/* --rx-engine / --worker-engine: a registered engine of that side (datapath/engine.h). */
static int
set_engine(char *dst, size_t dst_len, enum mcfan_engine_side side, const char *v,
	   const char *opt, char *err, size_t len)
{
	char names[ERR_MAX];

	if (mcfan_engine_find(side, v) == NULL || strlen(v) >= dst_len) {
		snprintf(err, len, "--%s: '%s' is not %s engine: %s", opt, v,
			 side == MCFAN_ENGINE_RX ? "an RX" : "a worker",
			 mcfan_engine_names(side, names, sizeof(names)));
		return -EINVAL;
	}
	snprintf(dst, dst_len, "%s", v);
	return 0;
}

static int
set_rx_engine(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return set_engine(cfg->rx_engine, sizeof(cfg->rx_engine), MCFAN_ENGINE_RX, v,
			  "rx-engine", err, len);
}

/* --worker-engine NAME[:ARGS]: the engine checks its ARGS (datapath/engine.h args_check). */
static int
set_worker_engine(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	const char *colon = strchr(v, ':');
	const struct mcfan_engine *e;
	char name[MCFAN_ENGINE_NAME_MAX + 1], msg[ERR_MAX];
	size_t n = colon != NULL ? (size_t)(colon - v) : strlen(v);

	if (colon == NULL) {
		if (set_engine(cfg->worker_engine, sizeof(cfg->worker_engine),
			       MCFAN_ENGINE_WORKER, v, "worker-engine", err, len) < 0)
			return -EINVAL;
		e = mcfan_engine_find(MCFAN_ENGINE_WORKER, v);
		msg[0] = '\0';
		if (e->args_check != NULL && e->args_check("", msg, sizeof(msg)) < 0) {
			snprintf(err, len, "--worker-engine: %s: %s", v, msg);
			return -EINVAL;
		}
		cfg->worker_engine_args[0] = '\0';
		return 0;
	}
	if (n >= sizeof(name)) {
		snprintf(err, len, "--worker-engine: '%.*s' is not a worker engine: names have at "
			 "most %d characters", (int)n, v, MCFAN_ENGINE_NAME_MAX);
		return -EINVAL;
	}
	memcpy(name, v, n);
	name[n] = '\0';
	if (set_engine(cfg->worker_engine, sizeof(cfg->worker_engine), MCFAN_ENGINE_WORKER,
		       name, "worker-engine", err, len) < 0)
		return -EINVAL;
	e = mcfan_engine_find(MCFAN_ENGINE_WORKER, name);
	if (e->args_check == NULL) {
		snprintf(err, len, "--worker-engine: '%s': engine %s takes no arguments", v, name);
		return -EINVAL;
	}
	if (strlen(colon + 1) > MCFAN_ENGINE_ARGS_MAX) {
		snprintf(err, len, "--worker-engine: arguments of %s are longer than %d characters",
			 name, MCFAN_ENGINE_ARGS_MAX);
		return -EINVAL;
	}
	msg[0] = '\0';
	if (e->args_check(colon + 1, msg, sizeof(msg)) < 0) {
		snprintf(err, len, "--worker-engine: %s: %s", name, msg);
		return -EINVAL;
	}
	snprintf(cfg->worker_engine_args, sizeof(cfg->worker_engine_args), "%s", colon + 1);
	return 0;
}

/* --group-engine GROUPS=NAME[:ARGS], repeatable: GROUPS as --groups, NAME[:ARGS] as
 * --worker-engine (checked by the engine's args_check). Kept as text; group_engine.c makes
 * the instance table and checks the groups against --groups once every option is in. */
static int
set_group_engine(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char buf[MCFAN_GROUP_ENGINE_RULE_LEN], msg[ERR_MAX], name[MCFAN_ENGINE_NAME_MAX + 1];
	char names[ERR_MAX], *eq, *spec, *colon;
	struct mcfan_flow_key *keys;
	const struct mcfan_engine *e;
	int n;

	if (strlen(v) >= sizeof(buf) || (eq = strchr(v, '=')) == NULL || eq == v ||
	    eq[1] == '\0') {
		snprintf(err, len, "--group-engine: '%.64s' is not GROUPS=NAME[:ARGS] of at most "
			 "%d characters (e.g. 239.9.9.1-5:3999=tx:net_tap0,dst-ip=239.1.1.1)", v,
			 MCFAN_GROUP_ENGINE_RULE_LEN - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	eq = buf + (eq - v);
	*eq = '\0';
	spec = eq + 1;
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	if (keys == NULL) {
		snprintf(err, len, "--group-engine: out of memory");
		return -ENOMEM;
	}
	n = mcfan_group_parse_list(buf, keys, MCFAN_MAX_GROUPS, msg, sizeof(msg));
	free(keys);
	if (n < 0) {
		snprintf(err, len, "--group-engine: %s", msg);
		return -EINVAL;
	}
	colon = strchr(spec, ':');
	if (colon != NULL)
		*colon = '\0';
	if (strlen(spec) >= sizeof(name) ||
	    (e = mcfan_engine_find(MCFAN_ENGINE_WORKER, spec)) == NULL) {
		snprintf(err, len, "--group-engine: '%.64s' is not a worker engine: %s", spec,
			 mcfan_engine_names(MCFAN_ENGINE_WORKER, names, sizeof(names)));
		return -EINVAL;
	}
	if (colon != NULL && e->args_check == NULL) {
		snprintf(err, len, "--group-engine: '%s': engine %s takes no arguments", v, spec);
		return -EINVAL;
	}
	if (colon != NULL && strlen(colon + 1) > MCFAN_ENGINE_ARGS_MAX) {
		snprintf(err, len, "--group-engine: arguments of %s are longer than %d characters",
			 spec, MCFAN_ENGINE_ARGS_MAX);
		return -EINVAL;
	}
	msg[0] = '\0';
	if (e->args_check != NULL &&
	    e->args_check(colon != NULL ? colon + 1 : "", msg, sizeof(msg)) < 0) {
		snprintf(err, len, "--group-engine: %s: %s", spec, msg);
		return -EINVAL;
	}
	if (cfg->n_group_engine_rules == MCFAN_GROUP_ENGINE_RULES_MAX) {
		snprintf(err, len, "--group-engine: more than %d rules ('%.64s')",
			 MCFAN_GROUP_ENGINE_RULES_MAX, v);
		return -EINVAL;
	}
	snprintf(cfg->group_engine_rules[cfg->n_group_engine_rules++],
		 MCFAN_GROUP_ENGINE_RULE_LEN, "%s", v);
	return 0;
}

/* ---- the metrics endpoint (metrics/, docs/metrics.md) ---- */

static int
set_metrics_listen(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char msg[ERR_MAX];

	if (mcfan_listen_parse(v, &cfg->metrics_listen, msg, sizeof(msg)) < 0) {
		snprintf(err, len, "--metrics-listen: %s", msg);
		return -EINVAL;
	}
	cfg->metrics_on = true;
	return 0;
}

static int
set_metrics_max_groups(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 0, MCFAN_MAX_GROUPS, &n) < 0) {
		snprintf(err, len, "--metrics-max-groups: '%s' is not allowed: a count of groups "
			 "0..%d (the others are summed under group=\"_other\")", v,
			 MCFAN_MAX_GROUPS);
		return -EINVAL;
	}
	cfg->metrics_max_groups = (unsigned int)n;
	cfg->metrics_max_groups_given = true;
	return 0;
}

/* ---- placement (placement.c, docs/topology.md "Placement") ---- */

static int
set_cpu_topology(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	struct mcfan_sct_map *map = NULL;
	char msg[ERR_MAX];

	/* a line of --print-topology copied whole: "+sct" is erl's flag, not the map */
	if (strncmp(v, "+sct", 4) == 0) {
		snprintf(err, len, "--cpu-topology: '%.40s%s' starts with +sct, erl's flag: give "
			 "the map alone, as after '+sct ' in --print-topology's lines (e.g. "
			 "L0-3T0C0-3P0N0)", v, strlen(v) > 40 ? "..." : "");
		return -EINVAL;
	}
	if (mcfan_sct_parse(v, &map, NULL, msg, sizeof(msg)) < 0) {
		snprintf(err, len, "--cpu-topology: %s (Erlang +sct syntax, e.g. "
			 "L0-3T0C0-3P0N0; see docs/topology.md)", msg);
		return -EINVAL;
	}
	mcfan_sct_free(map);
	free(cfg->cpu_topology);
	cfg->cpu_topology = strdup(v);
	if (cfg->cpu_topology == NULL) {
		snprintf(err, len, "--cpu-topology: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int
set_bind(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	enum mcfan_sct_bind b;

	if (mcfan_sct_bind_parse(v, &b) < 0) {
		snprintf(err, len, "--bind: '%s' is not a bind type: u ns ts ps s nnts nnps tnnps "
			 "db, or Erlang's long names (unbound, no_spread, ..., default_bind)", v);
		return -EINVAL;
	}
	cfg->bind = (int)b;
	return 0;
}

static int
set_rx_count(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 1, RTE_MAX_LCORE - 2, &n) < 0) {
		snprintf(err, len, "--rx: '%s' is not allowed: a count of RX lcores, 1..%d", v,
			 RTE_MAX_LCORE - 2);
		return -EINVAL;
	}
	cfg->rx_count = (unsigned int)n;
	return 0;
}

static int
set_workers_count(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 0, RTE_MAX_LCORE - 2, &n) < 0) {
		snprintf(err, len, "--workers: '%s' is not allowed: a count of worker lcores, "
			 "0..%d (0: the RX lcores are the workers)", v, RTE_MAX_LCORE - 2);
		return -EINVAL;
	}
	cfg->workers_count = (int)n;
	return 0;
}

static int
set_control_cpu(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	unsigned long n;

	if (parse_uint(v, 0, MCFAN_SCT_MAX_ID, &n) < 0) {
		snprintf(err, len, "--control-cpu: '%s' is not allowed: a logical CPU id, 0..%d",
			 v, MCFAN_SCT_MAX_ID);
		return -EINVAL;
	}
	cfg->control_cpu = (int)n;
	return 0;
}

static int
set_print_topology(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	RTE_SET_USED(v);
	RTE_SET_USED(err);
	RTE_SET_USED(len);
	cfg->print_topology = true;
	return 0;
}

static int
set_print_placement(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	RTE_SET_USED(v);
	RTE_SET_USED(err);
	RTE_SET_USED(len);
	cfg->print_placement = true;
	return 0;
}

static int
set_json(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	RTE_SET_USED(v);
	RTE_SET_USED(err);
	RTE_SET_USED(len);
	cfg->json = true;
	return 0;
}

static int
set_igmp_mode(int *mode, uint8_t proto, const char *opt, const char *v, char *err, size_t len)
{
	int m = mcfan_igmp_mode_parse(proto, v);

	if (m < 0) {
		snprintf(err, len, "--%s: '%s' is not a mode: %s", opt, v,
			 proto == MCFAN_IGMP_PROTO_MLD ? "auto, v1, v2 or off" : "auto, v2, v3 or off");
		return -EINVAL;
	}
	*mode = m;
	return 0;
}

static int
set_igmp(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return set_igmp_mode(&cfg->igmp_mode, MCFAN_IGMP_PROTO_IGMP, "igmp", v, err, len);
}

static int
set_mld(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return set_igmp_mode(&cfg->mld_mode, MCFAN_IGMP_PROTO_MLD, "mld", v, err, len);
}

/* One PORT=ADDR[,ADDR6] of --port-ip (n bytes at s). */
static int
port_ip_item(struct mcfan_config *cfg, const char *s, size_t n, char *err, size_t len)
{
	struct mcfan_port_ip *pi;
	char item[128], *eq, *comma, *a4, *a6;
	unsigned long port;
	unsigned int i;

	if (n == 0 || n >= sizeof(item)) {
		snprintf(err, len, "--port-ip: '%.*s' is not PORT=ADDR[,ADDR6] (e.g. "
			 "0=198.18.0.2,fe80::2)", (int)RTE_MIN(n, (size_t)64), s);
		return -EINVAL;
	}
	memcpy(item, s, n);
	item[n] = '\0';
	eq = strchr(item, '=');
	if (eq == NULL) {
		snprintf(err, len, "--port-ip: '%s' is not PORT=ADDR[,ADDR6] (e.g. "
			 "0=198.18.0.2,fe80::2)", item);
		return -EINVAL;
	}
	*eq = '\0';
	if (parse_uint(item, 0, RTE_MAX_ETHPORTS - 1, &port) < 0) {
		snprintf(err, len, "--port-ip: '%s' is not a port number 0..%d", item,
			 RTE_MAX_ETHPORTS - 1);
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_port_ip; i++) {
		if (cfg->port_ip[i].port == port) {
			snprintf(err, len, "--port-ip: port %u is given twice", (unsigned int)port);
			return -EINVAL;
		}
	}
	if (cfg->n_port_ip == MCFAN_MAX_PORT_IP) {
		snprintf(err, len, "--port-ip: more than %d ports", MCFAN_MAX_PORT_IP);
		return -E2BIG;
	}
	pi = &cfg->port_ip[cfg->n_port_ip];
	memset(pi, 0, sizeof(*pi));
	pi->port = (uint16_t)port;
	a4 = eq + 1;
	comma = strchr(a4, ',');
	a6 = NULL;
	if (comma != NULL) {
		*comma = '\0';
		a6 = comma + 1;
	}
	/* one address without a comma may be either family */
	if (a6 == NULL && strchr(a4, ':') != NULL) {
		a6 = a4;
		a4 = NULL;
	}
	if (a4 != NULL) {
		if (inet_pton(AF_INET, a4, pi->ip4) != 1 || pi->ip4[0] >= 224) {
			snprintf(err, len, "--port-ip: '%s' is not a unicast IPv4 address", a4);
			return -EINVAL;
		}
		/* RFC 1122 3.2.1.3, RFC 5735: 0/8 (this host) and 127/8 (loopback) never leave
		 * a host; a report from them would be dropped by the querier */
		if (pi->ip4[0] == 0 || pi->ip4[0] == 127) {
			snprintf(err, len, "--port-ip: '%s' is not a unicast IPv4 address of a "
				 "network (%s)", a4, pi->ip4[0] == 0 ? "0.0.0.0/8 is this host; "
				 "without --port-ip for the port its reports come from 0.0.0.0" :
				 "127.0.0.0/8 is loopback");
			return -EINVAL;
		}
		pi->has4 = true;
	}
	if (a6 != NULL) {
		/* RFC 3810 section 5.2.13: MLDv2 reports come from a link-local address */
		if (inet_pton(AF_INET6, a6, pi->ip6) != 1 || pi->ip6[0] != 0xfe ||
		    (pi->ip6[1] & 0xc0) != 0x80) {
			snprintf(err, len, "--port-ip: '%s' is not an IPv6 link-local address "
				 "(fe80::/10, as MLD wants: RFC 3810 section 5.2.13)", a6);
			return -EINVAL;
		}
		pi->has6 = true;
	}
	cfg->n_port_ip++;
	return 0;
}

static int
set_port_ip(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	const char *p = v, *e;

	cfg->n_port_ip = 0;
	for (;;) {
		e = p + strcspn(p, "/");
		if (port_ip_item(cfg, p, (size_t)(e - p), err, len) < 0)
			return -EINVAL;
		if (*e == '\0')
			return 0;
		p = e + 1;
	}
}

/*
 * --port-ip naming an address of a protocol that is off: an ADDR with --igmp off or an
 * ADDR6 with --mld off would source reports that are never sent. 0, or -EINVAL after one
 * message naming the port, the address kind and the mode.
 */
static int
check_port_ip_used(const struct mcfan_config *cfg)
{
	const struct mcfan_port_ip *pi;
	unsigned int i;

	for (i = 0; i < cfg->n_port_ip; i++) {
		pi = &cfg->port_ip[i];
		if (pi->has4 && cfg->igmp_mode == MCFAN_IGMP_MODE_OFF) {
			fprintf(stderr, "mcfan: --port-ip: port %u's IPv4 address is the source of "
				"IGMP reports, and --igmp is off: nothing is sent from it; give "
				"--igmp auto, v2 or v3, or leave the IPv4 address out\n", pi->port);
			return -EINVAL;
		}
		if (pi->has6 && cfg->mld_mode == MCFAN_IGMP_MODE_OFF) {
			fprintf(stderr, "mcfan: --port-ip: port %u's IPv6 address is the source of "
				"MLD reports, and --mld is off: nothing is sent from it; give --mld "
				"auto, v1 or v2, or leave the IPv6 address out\n", pi->port);
			return -EINVAL;
		}
	}
	return 0;
}

static const struct opt_def opts[] = {
	{"rx-lcores", OPT_VALUE, "LIST", "lcores that poll RX (corelist, e.g. 1 or 1-2)",
	 "the first lcore after the main lcore", set_rx_lcores, true},
	{"worker-lcores", OPT_VALUE, "LIST", "worker lcores (corelist); may overlap --rx-lcores "
	 "(run-to-completion)", "the other data lcores, or the RX lcores if none is left",
	 set_worker_lcores, true},
	{"rx-ports", OPT_VALUE, "LIST", "ports that receive: polled, groups joined (IGMP/MLD "
	 "reports, multicast filter); the other ports are output-only, sent on by tx only "
	 "(port ids, e.g. 0 or 0,2-3; docs/delivery.md)", "every port but the outputs of the "
	 "tx engines named at start", set_rx_ports, true},
	{"groups", OPT_VALUE, "LIST", "groups to receive: 239.9.9.1, 239.9.9.1-10:3999, "
	 "[ff15::1]:5000, comma-separated; no port = every UDP port; GROUP@SOURCE[+SOURCE] "
	 "asks the network for these sources only (IGMPv3/MLDv2 INCLUDE reports: the switch "
	 "filters; mcfan's data path does not filter by source, docs/igmp.md); a group in "
	 "the SSM ranges 232.0.0.0/8 and ff3x::/96 needs @SOURCE for a router to forward "
	 "it", "none",
	 set_groups, true},
	{"seq", OPT_VALUE, "GROUPS=KIND", "track feed quality of groups (as --groups writes them, "
	 "with the port): KIND iperf2, rtp[:HZ], "
	 "mpegts, moldudp64, OFFSET:WIDTH:be|le (docs/feed.md); repeatable, one kind a group",
	 "none", set_seq, true, 0, true},
	{"seq-pair", OPT_VALUE, "A,B", "arbitrate two groups with one --seq kind as feed lines "
	 "A and B; repeatable", "none", set_seq_pair, true, 0, true},
	{"seq-window", OPT_VALUE, "N", "reorder window: a missing number is lost once N later "
	 "ones came", RTE_STR(MCFAN_FEED_WINDOW_PKTS_DEFAULT), set_seq_window, true},
	{"seq-window-ms", OPT_VALUE, "MS", "reorder window in time: ... or MS milliseconds after "
	 "its gap was seen", "100", set_seq_window_ms, true},
	{"fanout", OPT_VALUE, "MODE", "partition (one worker per group) or replicate (every "
	 "worker gets every frame, by reference)", "partition", set_fanout, true},
	{"ring-size", OPT_VALUE, "N", "slots of each RX-to-worker ring, a power of two >= burst",
	 "1024; up to 8192 when a worker that is not hosted shares a CPU", set_ring_size, true},
	{"burst", OPT_VALUE, "N", "frames per rx_burst and per ring dequeue, 1..512", "32",
	 set_burst, true},
	{"mbufs", OPT_VALUE, "N", "mbufs in the pool", "enough for all rings and RX queues, "
	 "at least 8191", set_mbufs, true},
	{"mbuf-size", OPT_VALUE, "BYTES", "frame bytes each mbuf of the RX pool holds, after "
	 "its " RTE_STR(RTE_PKTMBUF_HEADROOM) "-byte headroom (" RTE_STR(MCFAN_MBUF_SIZE_MIN)
	 "..65407); net_af_packet's RX needs framesz-32 or more: raise both for frames "
	 "longer than 1982 bytes (an MTU above 1968; docs/guide.md \"af_packet and the MTU\")", RTE_STR(MCFAN_MBUF_SIZE_DEFAULT),
	 set_mbuf_size, true},
	{"duration", OPT_VALUE, "SEC", "run SEC seconds, then stop cleanly", "0 (until "
	 "SIGINT/SIGTERM)", set_duration, true},
	{"stats-period", OPT_VALUE, "SEC", "print the whole text report every SEC seconds, "
	 "headed '==== mcfan stats' (the final one at exit: 'report')", "0 (off)",
	 set_stats_period, true},
	{"report-json", OPT_VALUE, "FILE", "write the final report as JSON to FILE; - writes it "
	 "to standard output, and the text reports then go to standard error (not with -i or "
	 "--cmdline-file, whose output is on standard output; ./- is a file named -)", "none",
	 set_report_json, true},
	{"config", OPT_VALUE, "FILE", "read options from an INI file (section [mcfan]); the "
	 "command line wins", "none", set_config, false},
	{"no-msacc", OPT_FLAG, NULL, "switch microstate accounting off", "on", set_no_msacc,
	 true},
	{"interactive", OPT_FLAG, NULL, "console on standard input (docs/console.md): prompt "
	 "'mcfan> ' on a terminal, else one command a line; quit, Ctrl-D or end of input stops",
	 "off", set_interactive, true, 'i'},
	{"cmdline-file", OPT_VALUE, "FILE", "run the console commands in FILE at start, then "
	 "the console if -i", "none", set_cmdline_file, true},
	{"idle-rx", OPT_VALUE, "POLICY", "what lcores that poll a port do when idle: poll, "
	 "backoff[:THRESHOLD], interrupt[:THRESHOLD] (docs/idle.md); default by placement: "
	 "poll for an lcore alone on its CPU, backoff:none for one that shares a CPU with "
	 "another data lcore, and for every one when the readers engine runs (its reader "
	 "processes share mcfan's CPUs)", "placement", set_idle_rx, true},
	{"idle-worker", OPT_VALUE, "POLICY", "what worker-only lcores do when idle: poll, "
	 "backoff[:THRESHOLD], wake[:THRESHOLD]; default by placement: poll alone on its CPU, "
	 "wake:none sharing one, and for every one when the readers engine runs (its reader "
	 "processes share mcfan's CPUs); refused (exit 2) when no lcore is only a worker",
	 "placement", set_idle_worker, true},
	{"idle-max-sleep-us", OPT_VALUE, "N", "longest backoff or wake sleep, microseconds; "
	 "every sleep is also bounded by the time half an input ring takes to fill; with the "
	 "shared-CPU default " RTE_STR(MCFAN_IDLE_SHARED_MAX_SLEEP_US) " for lcores with the RX "
	 "role, " RTE_STR(MCFAN_IDLE_SHARED_WORKER_MAX_SLEEP_US) " for worker-only lcores",
	 RTE_STR(MCFAN_IDLE_MAX_SLEEP_US_DEFAULT),
	 set_idle_max_sleep, true},
	{"host-workers", OPT_VALUE, "auto|off", "auto: the worker-only lcores on the one CPU of "
	 "the only RX lcore have their worker step run by that lcore's thread, one pass after "
	 "each RX pass (no wake-up, no context switch; docs/idle.md \"Hosted workers\"); not "
	 "when --idle-worker is given. off: every worker lcore runs in its own thread", "auto",
	 set_host_workers, true},
	{"rx-nice", OPT_VALUE, "N", "nice value (-20..19, setpriority(2); below 0 needs "
	 "CAP_SYS_NICE) of the lcores with the RX role; by default " RTE_STR(MCFAN_RX_NICE_READERS)
	 " when the readers engine runs: reader processes share its CPUs, and a late RX lcore "
	 "loses frames in the port's ring where a late reader only lags (docs/idle.md)",
	 "-10 with the readers engine, else the process's", set_rx_nice, true},
	{"rx-engine", OPT_VALUE, "NAME", "what lcores with the RX role do with their frames "
	 "(the RX engines are listed below)", MCFAN_RX_ENGINE_DEFAULT, set_rx_engine, true},
	{"worker-engine", OPT_VALUE, "NAME[:ARGS]", "what worker lcores do with their copies "
	 "(the worker engines and their ARGS are listed below; docs/delivery.md)",
	 MCFAN_WORKER_ENGINE_DEFAULT, set_worker_engine, true},
	{"group-engine", OPT_VALUE, "GROUPS=NAME[:ARGS]", "the worker engine of some groups "
	 "(GROUPS as --groups, each in --groups; NAME[:ARGS] as --worker-engine); repeatable, "
	 "one engine a group, at most " RTE_STR(MCFAN_ENGINE_INST_MAX) " instances in all",
	 "--worker-engine", set_group_engine, true, 0, true},
	{"reader-ring-frames", OPT_VALUE, "N", "frames each group's reader ring holds (worker "
	 "engine readers, docs/readers.md), a power of two; a reader further behind is lapped "
	 "(this and --reader-wake-*: only with the readers engine)",
	 RTE_STR(MCFAN_RW_SLOTS_DEFAULT), set_reader_ring_frames, true},
	{"reader-wake-frames", OPT_VALUE, "N", "wake a ring's sleeping readers once N frames "
	 "wait for them (or --reader-wake-us passed); 1: after every burst (docs/readers.md)",
	 RTE_STR(MCFAN_RW_WAKE_FRAMES_DEFAULT), set_reader_wake_frames, true},
	{"reader-wake-us", OPT_VALUE, "US", "latency budget of a deferred reader wake: sleeping "
	 "readers are woken once the oldest frame waited US microseconds; 0: at once",
	 RTE_STR(MCFAN_RW_WAKE_US_DEFAULT), set_reader_wake_us, true},
	{"metrics-listen", OPT_VALUE, "ADDR:PORT", "serve Prometheus/OpenMetrics GET /metrics "
	 "on ADDR:PORT (PORT or :PORT: 127.0.0.1; [::1]:PORT for IPv6; docs/metrics.md)", "off",
	 set_metrics_listen, true},
	{"metrics-max-groups", OPT_VALUE, "N", "groups with series of their own in /metrics; "
	 "the others are summed under group=\"_other\" (only with --metrics-listen)",
	 RTE_STR(MCFAN_METRICS_MAX_GROUPS_DEFAULT),
	 set_metrics_max_groups, true},
	{"igmp", OPT_VALUE, "MODE", "IGMP host side on every RX port (docs/igmp.md): auto (the "
	 "querier's version, v3 without one), v2, v3 (pinned) or off", "auto", set_igmp, true},
	{"mld", OPT_VALUE, "MODE", "MLD host side on every RX port: auto (the querier's version, "
	 "v2 without one), v1, v2 or off", "auto", set_mld, true},
	{"port-ip", OPT_VALUE, "PORT=ADDR[,ADDR6]", "source addresses of a port's IGMP "
	 "reports (IPv4) and MLD reports (IPv6 link-local); several ports separated by /",
	 "0.0.0.0 and the link-local address of the port's MAC", set_port_ip, true},
	{"cpu-topology", OPT_VALUE, "MAP", "CPU topology map in Erlang's +sct syntax "
	 "(docs/topology.md)", "read from the host (--print-topology)", set_cpu_topology, true},
	{"bind", OPT_VALUE, "TYPE", "bind type (Erlang's +sbt): u ns ts ps s nnts nnps tnnps db",
	 "db", set_bind, true},
	{"rx", OPT_VALUE, "N", "RX lcores for mcfan to place on the map (builds EAL --lcores "
	 "unless -l/-c/--lcores is given)", "1 (with a placement option)", set_rx_count, true},
	{"workers", OPT_VALUE, "M", "worker lcores for mcfan to place; 0: the RX lcores work",
	 "one per CPU left (with a placement option)", set_workers_count, true},
	{"control-cpu", OPT_VALUE, "N", "CPU of the control (main) lcore",
	 "the first CPU of the bind order", set_control_cpu, true},
	{"print-topology", OPT_FLAG, NULL, "print the map (--cpu-topology's, else the host's) "
	 "as +sct and a tree, and exit", NULL, set_print_topology, false},
	{"print-placement", OPT_FLAG, NULL, "print the placement table and the EAL --lcores "
	 "argument, then exit (plans only: any map)", NULL, set_print_placement, false},
	{"json", OPT_FLAG, NULL, "with --print-placement: print JSON", NULL, set_json, false},
	{"help", OPT_FLAG, NULL, "print this help and exit", NULL, NULL, false},
};

#define N_OPTS RTE_DIM(opts)
static_assert(N_OPTS <= MCFAN_OPTS_MAX, "struct mcfan_config opt_line[] holds every option");

void
mcfan_params_usage(const char *prog)
{
	const struct mcfan_engine *e;
	enum mcfan_engine_side side;
	unsigned int i;
	char lhs[64];

	printf("Usage: %s [EAL options] -- [mcfan options]\n\n"
	       "mcfan receives IP multicast UDP frames on every RX queue of every RX port (every\n"
	       "probed port but the output-only ones a tx engine sends on, or those of\n"
	       "--rx-ports), fans them out to worker lcores through rings and reports where\n"
	       "every frame went and where every lcore's time went.\n\nmcfan options:\n", prog);
	for (i = 0; i < N_OPTS; i++) {
		if (opts[i].short_name != 0)
			snprintf(lhs, sizeof(lhs), "-%c, --%s%s%s", opts[i].short_name,
				 opts[i].name, opts[i].arg != NULL ? " " : "",
				 opts[i].arg != NULL ? opts[i].arg : "");
		else
			snprintf(lhs, sizeof(lhs), "--%s%s%s", opts[i].name,
				 opts[i].arg != NULL ? " " : "",
				 opts[i].arg != NULL ? opts[i].arg : "");
		printf("  %-24s %s\n", lhs, opts[i].help);
		if (opts[i].def != NULL)
			printf("  %-24s default: %s\n", "", opts[i].def);
	}
	for (side = MCFAN_ENGINE_RX; side < MCFAN_ENGINE_SIDES; side++) {
		printf("\n%s engines (--%s-engine):\n", side == MCFAN_ENGINE_RX ? "RX" : "Worker",
		       mcfan_engine_side_name(side));
		for (i = 0; (e = mcfan_engine_at(side, i)) != NULL; i++)
			printf("  %-24s %s\n", e->name, e->help != NULL ? e->help : "");
	}
	/* README's example: two lcores run on a 2-CPU host (-l 0-2 needs 3 CPUs), --no-pci
	 * keeps EAL off the host's own NICs */
	printf("\nExample:\n  %s -l 0-1 --no-pci --vdev net_af_packet0,iface=veth0 -- "
	       "--groups 239.9.9.1-10:3999 --duration 10\n", prog);
}

static const struct opt_def *
find_opt(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_OPTS; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	return NULL;
}

/* Check a file value of an option that the command line also gives (the command line wins,
 * but a bad value in the file is still an error): set it on a scratch copy. */
static int
cfg_validate_only(const struct mcfan_config *cfg, const struct opt_def *o, const char *value,
		  char *err, size_t len)
{
	struct mcfan_config *scratch = malloc(sizeof(*scratch));
	int ret;

	if (scratch == NULL) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	memcpy(scratch, cfg, sizeof(*scratch));
	if (o->repeat) {
		/* a list the command line set wins whole: the file's list is checked alone */
		scratch->n_seq_rules = 0;
		scratch->n_seq_pairs = 0;
		scratch->n_group_engine_rules = 0;
	}
	ret = o->set(scratch, value, err, len);
	if (scratch->cpu_topology != cfg->cpu_topology)
		free(scratch->cpu_topology);
	free(scratch);
	return ret;
}

/* The option table's answers to the config file reader (config_file.h). */
struct cfg_apply_ctx {
	struct mcfan_config *cfg;
	const bool *from_cli;
};

static bool is_eal_opt(const char *arg);

static enum mcfan_cfg_key_kind
cfg_key_kind(const char *key)
{
	const struct opt_def *o = find_opt(key);
	char eal[80];

	if (o == NULL) {
		/* --vdev, --file-prefix ...: EAL reads its options from the command line only */
		snprintf(eal, sizeof(eal), "--%s", key);
		if (strlen(key) + 2 < sizeof(eal) && strchr(key, '=') == NULL &&
		    key[0] != '-' && key[0] != '\0' && is_eal_opt(eal))
			return MCFAN_CFG_KEY_EAL;
		return MCFAN_CFG_KEY_UNKNOWN;
	}
	if (!o->file_ok)
		return MCFAN_CFG_KEY_CLI_ONLY;
	return o->kind == OPT_VALUE ? MCFAN_CFG_KEY_VALUE : MCFAN_CFG_KEY_FLAG;
}

/* Set o from the file's line; the --group-engine rule, or the --seq rules or pairs it added keep
 * that line and whether it is a row of a section, so that group_engine.c's and seq_check.c's
 * checks name them. */
static int
cfg_set_from_line(const struct cfg_apply_ctx *ctx, const struct opt_def *o, const char *value,
		  unsigned int line, bool section, char *err, size_t len)
{
	struct mcfan_config *cfg = ctx->cfg;
	const struct mcfan_cfg_origin from = { .line = line, .section = section };
	unsigned int i, pairs = cfg->n_seq_pairs, rules = cfg->n_seq_rules;
	int ret;

	if (ctx->from_cli[o - opts])
		return cfg_validate_only(cfg, o, value, err, len);
	ret = o->set(cfg, value, err, len);
	if (ret == 0 && !section)
		cfg->opt_line[o - opts] = line;
	if (ret == 0 && o->set == set_group_engine)
		cfg->group_engine_from[cfg->n_group_engine_rules - 1] = from;
	for (i = pairs; ret == 0 && i < cfg->n_seq_pairs; i++)
		cfg->seq_pair_from[i] = from;
	for (i = rules; ret == 0 && i < cfg->n_seq_rules; i++)
		cfg->seq_rule_from[i] = from;
	return ret;
}

static int
cfg_key_apply(void *arg, const char *key, const char *value, unsigned int line, char *err,
	      size_t len)
{
	return cfg_set_from_line(arg, find_opt(key), value, line, false, err, len);
}

/* The file's [seq] section (docs/feed.md): "GROUPS = KIND" is the rule GROUPS=KIND of --seq,
 * "pair = A,B [C,D ...]" pairs of --seq-pair; checked and kept by the same setters. */
static int
cfg_section_apply(void *arg, const char *section, const char *key, const char *value,
		  unsigned int line, char *err, size_t len)
{
	const struct cfg_apply_ctx *ctx = arg;
	const struct opt_def *o;
	char rule[MCFAN_SEQ_RULE_LEN], grule[MCFAN_GROUP_ENGINE_RULE_LEN];
	const char *v = rule;

	if (strcmp(section, "group-engine") == 0) {
		/* [group-engine]: "GROUPS = NAME[:ARGS]" is the rule of --group-engine */
		if (snprintf(grule, sizeof(grule), "%s=%s", key, value) >= (int)sizeof(grule))
			return mcfan_err_set(err, len, -EINVAL, "the rule is longer than %d "
					     "characters", MCFAN_GROUP_ENGINE_RULE_LEN - 1);
		o = find_opt("group-engine");
		v = grule;
	} else if (strcmp(key, "pair") == 0) {
		o = find_opt("seq-pair");
		v = value;
	} else {
		/* GROUPS start with a digit or '[': a word is a key that belongs elsewhere
		 * (seq-window, seq in [mcfan]) or a misspelt pair */
		if (!(key[0] >= '0' && key[0] <= '9') && key[0] != '[')
			return mcfan_err_set(err, len, -EINVAL, "'%s' is neither GROUPS nor pair (in "
					     "[seq]: GROUPS = KIND, e.g. 239.9.9.1-10:3999 = iperf2; "
					     "pair = A,B; the keys seq, seq-pair, seq-window and "
					     "seq-window-ms go in [mcfan])", key);
		if (strpbrk(value, " \t") != NULL)
			return mcfan_err_set(err, len, -EINVAL, "'%s' is not one sequence kind (in "
					     "[seq]: GROUPS = KIND, e.g. 239.9.9.1-10:3999 = iperf2; "
					     "pair = A,B)", value);
		if (snprintf(rule, sizeof(rule), "%s=%s", key, value) >= (int)sizeof(rule))
			return mcfan_err_set(err, len, -EINVAL, "the rule is longer than %d "
					     "characters", MCFAN_SEQ_RULE_LEN - 1);
		o = find_opt("seq");
	}
	return cfg_set_from_line(ctx, o, v, line, true, err, len);
}

static int
load_config(struct mcfan_config *cfg, bool from_cli[])
{
	static const char *const sections[] = { "seq", "group-engine", NULL };
	static const char *const repeatable[] = { "seq/pair", NULL }; /* a pair a line */
	static const char *const rows[] = { "239.9.9.1-10:3999 = iperf2",
					    "239.9.9.6-10:3999 = pcap:/var/cap", NULL };
	const char *path = cfg->config_file;
	struct cfg_apply_ctx ctx = { .cfg = cfg, .from_cli = from_cli };
	const struct mcfan_cfg_keys keys = {
		.kind = cfg_key_kind, .apply = cfg_key_apply, .arg = &ctx,
		.sections = sections, .section_rows = rows, .apply_section = cfg_section_apply,
		.repeatable = repeatable,
	};
	FILE *f;
	int ret;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "mcfan: --config: cannot open '%s': %s\n", path, strerror(errno));
		return -ENOENT;
	}
	ret = mcfan_config_file_read(path, f, &keys);
	fclose(f);
	return ret < 0 ? -EINVAL : 0;
}

const char *
mcfan_params_origin(const struct mcfan_config *cfg, const char *msg, char *buf, size_t len)
{
	const struct opt_def *o;
	char name[64];

	if (len > 0)
		buf[0] = '\0';
	if (strncmp(msg, "--", 2) != 0 || cfg->config_file[0] == '\0')
		return buf;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(msg + 2, " =:/"), msg + 2);
	o = find_opt(name);
	if (o != NULL && cfg->opt_line[o - opts] != 0)
		snprintf(buf, len, "config file '%s' line %u: ", cfg->config_file,
			 cfg->opt_line[o - opts]);
	return buf;
}

/*
 * A control byte but a tab in an option or value ("--fanout $'\e]0;x\a'", a CR kept from a
 * CRLF file read with $(cat F)): every error quotes the value, and the byte would reach the
 * terminal raw. Refused naming where it is, quoting only the text before it.
 */
static int
check_no_control(int argc, char **argv)
{
	const unsigned char *c;
	int a;

	for (a = 1; a < argc; a++) {
		for (c = (const unsigned char *)argv[a]; *c != '\0'; c++) {
			/* a tab separates --seq and --seq-pair rules, as a blank does */
			if ((*c >= 0x20 && *c != 0x7f) || *c == '\t')
				continue;
			fprintf(stderr, "mcfan: the argument after '%s' holds control character 0x%02x "
				"at column %u%s%.*s%s: mcfan's options and values are text (a CR from a "
				"CRLF file read with $(cat FILE)?)\n", a > 1 ? argv[a - 1] : "--", *c,
				(unsigned int)((const char *)c - argv[a]) + 1,
				c > (const unsigned char *)argv[a] ? ", after '" : "",
				(int)((const char *)c - argv[a]), argv[a],
				c > (const unsigned char *)argv[a] ? "'" : "");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * getopt_long takes any unique prefix of a long option (--grou for --groups); mcfan does not,
 * so that a typo never silently means another option, and the config file agrees.
 */
static int
check_no_abbreviation(int argc, char **argv)
{
	const struct opt_def *o;
	char name[64];
	const char *arg, *eq;
	unsigned int i;
	int a;

	for (a = 1; a < argc; a++) {
		arg = argv[a];
		if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
			continue;
		eq = strchr(arg, '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq != NULL ? eq - arg - 2 :
			 (long)strlen(arg + 2)), arg + 2);
		o = find_opt(name);
		if (o != NULL) {
			if (o->kind == OPT_VALUE && eq == NULL)
				a++; /* its value, whatever it looks like */
			continue;
		}
		if (name[0] == '\0') {
			fprintf(stderr, "mcfan: unknown option '%s': no option name before '='\n", arg);
			return -EINVAL;
		}
		for (i = 0; i < N_OPTS; i++) {
			if (strncmp(opts[i].name, name, strlen(name)) == 0) {
				fprintf(stderr, "mcfan: unknown option '--%s': options are not "
					"abbreviated (did you mean --%s?)\n", name, opts[i].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* DPDK 22.11 EAL's long options (lib/eal/common/eal_options.h), each written whole */
static const char *const eal_long[] = {
	"allow", "base-virtaddr", "block", "create-uio-dev", "file-prefix",
	"force-max-simd-bitwidth", "help", "huge-dir", "huge-unlink", "huge-worker-stack",
	"in-memory", "iova-mode", "lcores", "legacy-mem", "log-level", "main-lcore",
	"match-allocations", "mbuf-pool-ops-name", "no-hpet", "no-huge", "no-pci", "no-shconf",
	"no-telemetry", "proc-type", "single-file-segments", "socket-limit", "socket-mem",
	"syslog", "telemetry", "trace", "trace-bufsz", "trace-dir", "trace-mode", "vdev",
	"vfio-intr", "vfio-vf-token", "vmware-tsc-map",
};

/* An option of DPDK 22.11's EAL (its usage's), with its value attached or not: "-l0-1",
 * "--file-prefix=x"; given after "--" it reaches mcfan's parser */
static bool
is_eal_opt(const char *arg)
{
	size_t n, i;

	if (arg[0] == '-' && arg[1] != '-' && arg[1] != '\0')
		return strchr("lcasbdmnrSv", arg[1]) != NULL; /* -l -c -a -s -b -d -m -n -r -S -v */
	if (strncmp(arg, "--", 2) != 0)
		return false;
	arg += 2;
	n = strcspn(arg, "=");
	for (i = 0; i < RTE_DIM(eal_long); i++)
		if (strlen(eal_long[i]) == n && strncmp(eal_long[i], arg, n) == 0)
			return true;
	return false;
}

/*
 * EAL's getopt_long takes any unique prefix of its long options (--file-pref for
 * --file-prefix), but mcfan's checks before EAL (--file-prefix, -m, --log-level, --vdev,
 * --in-memory with --no-huge) know them by their full names only: an abbreviation would
 * pass them unchecked ("--file-pref ../x" made /var/run/x the runtime directory). Refused,
 * as mcfan's own abbreviations are. name: the option without its dashes and value.
 */
static int
check_eal_abbreviation(const char *arg, const char *name)
{
	char means[256] = "";
	size_t n = strlen(name), len = 0;
	unsigned int i;

	if (n == 0)
		return 0;
	for (i = 0; i < RTE_DIM(eal_long) && len < sizeof(means); i++) {
		if (strncmp(eal_long[i], name, n) != 0)
			continue;
		len += (size_t)snprintf(means + len, sizeof(means) - len, "%s--%s",
					len > 0 ? " or " : "", eal_long[i]);
	}
	if (len == 0)
		return 0;
	fprintf(stderr, "mcfan: EAL option '%s': EAL options are not abbreviated either (did you "
		"mean %s?): mcfan checks EAL's options by their full names before EAL starts\n",
		arg, means);
	return -EINVAL;
}

int
mcfan_params_eal_side_check(int argc, char **argv)
{
	char name[64];
	int a;

	for (a = 1; a < argc; a++) {
		if (strncmp(argv[a], "--", 2) != 0 || is_eal_opt(argv[a]) ||
		    mcfan_eal_arg_is_value(argc, argv, a))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(argv[a] + 2, "="), argv[a] + 2);
		if (find_opt(name) == NULL) {
			if (check_eal_abbreviation(argv[a], name) < 0)
				return -EINVAL;
			continue;
		}
		fprintf(stderr, "mcfan: '%s' is an mcfan option: give it after '--' (mcfan [EAL "
			"options] -- [mcfan options], e.g. mcfan -l 0-1 --no-pci --vdev ... -- "
			"--groups 239.9.9.1-10:3999)\n", argv[a]);
		return -EINVAL;
	}
	return 0;
}

static void
config_defaults(struct mcfan_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fanout = MCFAN_FANOUT_PARTITION;
	cfg->ring_size = MCFAN_DEFAULT_RING_SIZE;
	cfg->reader_ring_frames = MCFAN_RW_SLOTS_DEFAULT;
	cfg->reader_wake_frames = MCFAN_RW_WAKE_FRAMES_DEFAULT;
	cfg->reader_wake_us = MCFAN_RW_WAKE_US_DEFAULT;
	cfg->burst = MCFAN_DEFAULT_BURST;
	cfg->mbuf_size = MCFAN_MBUF_SIZE_DEFAULT;
	cfg->msacc = true;
	cfg->host_workers = true;
	cfg->idle_rx = MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, MCFAN_IDLE_THR_NONE);
	cfg->idle_worker = MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, MCFAN_IDLE_THR_NONE);
	cfg->idle_max_sleep_us = MCFAN_IDLE_MAX_SLEEP_US_DEFAULT;
	cfg->bind = -1;
	cfg->workers_count = -1;
	cfg->control_cpu = -1;
	cfg->metrics_max_groups = MCFAN_METRICS_MAX_GROUPS_DEFAULT;
	cfg->igmp_mode = MCFAN_IGMP_MODE_AUTO;
	cfg->mld_mode = MCFAN_IGMP_MODE_AUTO;
	snprintf(cfg->rx_engine, sizeof(cfg->rx_engine), "%s", MCFAN_RX_ENGINE_DEFAULT);
	snprintf(cfg->worker_engine, sizeof(cfg->worker_engine), "%s",
		 MCFAN_WORKER_ENGINE_DEFAULT);
}

int
mcfan_params_parse(int argc, char **argv, struct mcfan_config *cfg)
{
	struct option lopts[N_OPTS + 1];
	const char *values[N_OPTS] = {NULL}, *rep_val[REPEAT_MAX];
	unsigned int rep_opt[REPEAT_MAX], n_rep = 0, r;
	bool given[N_OPTS] = {false};
	char err[ERR_MAX], shorts[2 * N_OPTS + 2] = ":";
	unsigned int i, k = 1;
	int c, idx, cur;

	config_defaults(cfg);
	memset(lopts, 0, sizeof(lopts));
	for (i = 0; i < N_OPTS; i++) {
		lopts[i].name = opts[i].name;
		lopts[i].has_arg = opts[i].kind == OPT_VALUE ? required_argument : no_argument;
		lopts[i].val = (int)i + 1;
		if (opts[i].short_name != 0) {
			shorts[k++] = opts[i].short_name;
			if (opts[i].kind == OPT_VALUE)
				shorts[k++] = ':';
		}
	}
	shorts[k] = '\0';
	if (check_no_control(argc, argv) < 0 || check_no_abbreviation(argc, argv) < 0)
		return -EINVAL;
	optind = 1;
	opterr = 0;
	for (;;) {
		idx = -1;
		cur = optind < argc ? optind : argc - 1;
		c = getopt_long(argc, argv, shorts, lopts, &idx);
		if (c == '?' && optind > cur && optind - 1 < argc && argv[optind - 1][0] == '-')
			cur = optind - 1;
		if (c == -1)
			break;
		if (c == '?') {
			/* getopt has moved past the word unless it stopped inside "-xyz" */
			const char *arg = argv[cur], *eqp = strchr(arg, '=');
			char name[64];

			/* getopt_long also answers '?' for a flag given a value (--no-msacc=yes) */
			if (strncmp(arg, "--", 2) == 0 && eqp != NULL) {
				snprintf(name, sizeof(name), "%.*s", (int)(eqp - arg - 2), arg + 2);
				if (find_opt(name) != NULL) {
					fprintf(stderr, "mcfan: option --%s takes no value (got '%s')\n",
						name, arg);
					return -EINVAL;
				}
			}
			if (arg[0] == '-' && arg[1] != '-' && arg[1] != '\0' && arg[2] != '\0' &&
			    find_opt(arg + 1) != NULL) {
				fprintf(stderr, "mcfan: unknown option '%s': long options start with "
					"two dashes (did you mean -%s?)\n", arg, arg);
				return -EINVAL;
			}
			if (is_eal_opt(arg)) {
				fprintf(stderr, "mcfan: '%s' is an EAL option: give it before '--' "
					"(mcfan [EAL options] -- [mcfan options])\n", arg);
				return -EINVAL;
			}
			if (arg[0] == '-' && arg[1] != '-' && optopt != 0 && strlen(arg) > 2)
				fprintf(stderr, "mcfan: unknown option '-%c' in '%s' (see '-- --help')\n",
					optopt, arg);
			else
				fprintf(stderr, "mcfan: unknown option '%s' (see '-- --help')\n", arg);
			return -EINVAL;
		}
		if (c == ':') {
			fprintf(stderr, "mcfan: option '%s' needs a value (see '-- --help')\n",
				argv[optind - 1]);
			return -EINVAL;
		}
		for (i = 0; i < N_OPTS; i++)
			if (opts[i].short_name != 0 && opts[i].short_name == c)
				break;
		if (i == N_OPTS)
			i = (unsigned int)c - 1;
		if (given[i] && !opts[i].repeat) {
			fprintf(stderr, "mcfan: option --%s is given twice\n", opts[i].name);
			return -EINVAL;
		}
		if (opts[i].repeat) {
			if (n_rep == REPEAT_MAX) {
				fprintf(stderr, "mcfan: option --%s: more than %d times --seq and "
					"--seq-pair in all\n", opts[i].name, REPEAT_MAX);
				return -EINVAL;
			}
			rep_val[n_rep] = optarg;
			rep_opt[n_rep++] = i;
		}
		given[i] = true;
		values[i] = optarg;
	}
	if (optind < argc) {
		if (optind > 1 && strcmp(argv[optind - 1], "--") == 0)
			fprintf(stderr, "mcfan: a second '--' before '%s': EAL options go before the "
				"first '--', mcfan options after it, with no other '--'\n",
				argv[optind]);
		else if (given[find_opt("groups") - opts] &&
			 (isdigit((unsigned char)argv[optind][0]) || argv[optind][0] == '['))
			/* --groups 239.9.9.1 239.9.9.2: a list with blanks, as a shell splits it */
			fprintf(stderr, "mcfan: unexpected argument '%s' (mcfan options start with "
				"--): --groups takes one comma-separated list, without blanks (e.g. "
				"--groups 239.9.9.1,%s)\n", argv[optind], argv[optind]);
		else
			fprintf(stderr, "mcfan: unexpected argument '%s' (mcfan options start with "
				"--)\n", argv[optind]);
		return -EINVAL;
	}
	if (given[N_OPTS - 1]) {
		mcfan_params_usage(argv[0]);
		return 1;
	}
	for (i = 0; i < N_OPTS; i++) {
		if (!given[i] || opts[i].set == NULL)
			continue;
		for (r = 0; r < (opts[i].repeat ? n_rep : 1); r++) {
			if (opts[i].repeat && rep_opt[r] != i)
				continue;
			if (opts[i].set(cfg, opts[i].repeat ? rep_val[r] : values[i], err,
					sizeof(err)) < 0) {
				fprintf(stderr, "mcfan: %s\n", err);
				return -EINVAL;
			}
		}
	}
	if (cfg->config_file[0] != '\0') {
		/* Apply the file for what the command line did not set, then the command line
		 * again on top (it already holds; load_config skips options given there). */
		if (load_config(cfg, given) < 0)
			return -EINVAL;
	}
	/* GROUP@SOURCE needs IGMPv3 / MLDv2, at most 8 sources a group (lib/igmp) */
	if (mcfan_igmp_ssm_check(cfg->ssm, cfg->n_ssm, cfg->igmp_mode, cfg->mld_mode, err,
				 sizeof(err)) < 0) {
		fprintf(stderr, "mcfan: --groups: %s\n", err);
		return -EINVAL;
	}
	/* a --port-ip address is the source of IGMP (ADDR) or MLD (ADDR6) reports: with the
	 * protocol off nothing is ever sent from it */
	if (check_port_ip_used(cfg) < 0)
		return -EINVAL;
	/* --metrics-max-groups caps the groups of /metrics: without the endpoint it does nothing */
	if (cfg->metrics_max_groups_given && !cfg->metrics_on) {
		fprintf(stderr, "mcfan: --metrics-max-groups %u: no --metrics-listen, so there is "
			"no /metrics whose groups it caps%s: give --metrics-listen ADDR:PORT too, or "
			"leave --metrics-max-groups out\n", cfg->metrics_max_groups,
			cfg->config_file[0] != '\0' ? " (command line and config file)" : "");
		return -EINVAL;
	}
	/* the report must not replace a file mcfan reads: the config file, the command file */
	if (check_report_not_input(cfg) < 0)
		return -EINVAL;
	/* --report-json -: standard output holds the JSON alone; the console writes there */
	if (cfg->report_json_mode == MCFAN_OUTFILE_STDOUT && cfg->report_json[0] != '\0' &&
	    (cfg->interactive || cfg->cmdline_file[0] != '\0')) {
		fprintf(stderr, "mcfan: --report-json -: the JSON report would go to standard "
			"output, where the console (%s) writes too: give the report a file "
			"(e.g. --report-json report.json), or leave %s out\n",
			cfg->interactive ? "-i" : "--cmdline-file",
			cfg->interactive ? "-i" : "--cmdline-file");
		return -EINVAL;
	}
	if (cfg->ring_size < cfg->burst) {
		fprintf(stderr, "mcfan: --ring-size %u is below --burst %u%s%s%s: a ring must hold "
			"at least one burst, or every burst overflows it\n", cfg->ring_size,
			cfg->burst, cfg->config_file[0] != '\0' ? " (command line and config file '"
			: "", cfg->config_file, cfg->config_file[0] != '\0' ? "')" : "");
		return -EINVAL;
	}
	return 0;
}
