/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * mcfan's own options: `mcfan [EAL options] -- [mcfan options]`.
 * Parsed before rte_eal_init, so a bad option starts nothing. Every option can
 * also be set in an INI file (--config FILE, section [mcfan], key = the long
 * option name without dashes); the command line wins over the file.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "bits.h"
#include "mcfan_parse.h"
#include "mcfan_sct.h"
#include "outfile.h"
#include "datapath/engine.h"

#define ERR_MAX 256
#define CORELIST_TEXT_MAX 256   /* longest corelist option value, with NUL */
#define CFG_SECTION "mcfan"
#define UTF8_BOM "\xef\xbb\xbf" /* a byte order mark some editors write first */
#define CFG_LINE_MAX 1024         /* longest config file line, with newline and NUL */
#define CFG_KEYS_MAX 64           /* keys remembered per section for the duplicate check */
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
};

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

static int
set_worker_lcores(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return parse_corelist(v, cfg->worker_lcores, &cfg->n_worker_lcores, err, len,
			      "worker-lcores");
}

static int
set_groups(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	char msg[ERR_MAX];
	int n = mcfan_group_parse_list(v, cfg->groups, MCFAN_MAX_GROUPS, msg, sizeof(msg));

	if (n < 0) {
		snprintf(err, len, "--groups: %s (e.g. 239.9.9.1-10:3999 or [ff3e::1]:5000)", msg);
		return n;
	}
	cfg->n_groups = (unsigned int)n;
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
			 "decimal (0 = no periodic summary)", v, STATS_PERIOD_MIN_S, SECONDS_MAX);
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

static int
set_worker_engine(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return set_engine(cfg->worker_engine, sizeof(cfg->worker_engine), MCFAN_ENGINE_WORKER, v,
			  "worker-engine", err, len);
}

/* ---- placement (placement.c, docs/topology.md "Placement") ---- */

static int
set_cpu_topology(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	struct mcfan_sct_map *map = NULL;
	char msg[ERR_MAX];

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

static const struct opt_def opts[] = {
	{"rx-lcores", OPT_VALUE, "LIST", "lcores that poll RX (corelist, e.g. 1 or 1-2)",
	 "the first lcore after the main lcore", set_rx_lcores, true},
	{"worker-lcores", OPT_VALUE, "LIST", "worker lcores (corelist); may overlap --rx-lcores "
	 "(run-to-completion)", "the other data lcores, or the RX lcores if none is left",
	 set_worker_lcores, true},
	{"groups", OPT_VALUE, "LIST", "groups to receive: 239.9.9.1, 239.9.9.1-10:3999, "
	 "[ff3e::1]:5000, comma-separated; no port = every UDP port", "none", set_groups, true},
	{"fanout", OPT_VALUE, "MODE", "partition (one worker per group) or replicate (every "
	 "worker gets every frame, by reference)", "partition", set_fanout, true},
	{"ring-size", OPT_VALUE, "N", "slots of each RX-to-worker ring, a power of two >= burst",
	 "1024", set_ring_size, true},
	{"burst", OPT_VALUE, "N", "frames per rx_burst and per ring dequeue, 1..512", "32",
	 set_burst, true},
	{"mbufs", OPT_VALUE, "N", "mbufs in the pool", "enough for all rings and RX queues, "
	 "at least 8191", set_mbufs, true},
	{"duration", OPT_VALUE, "SEC", "run SEC seconds, then stop cleanly", "0 (until "
	 "SIGINT/SIGTERM)", set_duration, true},
	{"stats-period", OPT_VALUE, "SEC", "print a summary every SEC seconds", "0 (off)",
	 set_stats_period, true},
	{"report-json", OPT_VALUE, "FILE", "write the final report as JSON to FILE", "none",
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
	 "another data lcore", "placement", set_idle_rx, true},
	{"idle-worker", OPT_VALUE, "POLICY", "what worker-only lcores do when idle: poll, "
	 "backoff[:THRESHOLD], wake[:THRESHOLD]; default by placement: poll alone on its CPU, "
	 "wake:none sharing one", "placement", set_idle_worker, true},
	{"idle-max-sleep-us", OPT_VALUE, "N", "longest backoff or wake sleep, microseconds; "
	 "every sleep is also bounded by the time half an input ring takes to fill; default "
	 RTE_STR(MCFAN_IDLE_SHARED_MAX_SLEEP_US) " for lcores whose policy is the shared-CPU "
	 "default", RTE_STR(MCFAN_IDLE_MAX_SLEEP_US_DEFAULT),
	 set_idle_max_sleep, true},
	{"rx-engine", OPT_VALUE, "NAME", "what lcores with the RX role do with their frames "
	 "(the RX engines are listed below)", MCFAN_RX_ENGINE_DEFAULT, set_rx_engine, true},
	{"worker-engine", OPT_VALUE, "NAME", "what worker lcores do with their copies (the "
	 "worker engines are listed below)", MCFAN_WORKER_ENGINE_DEFAULT, set_worker_engine,
	 true},
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
	{"print-topology", OPT_FLAG, NULL, "print the host's map (+sct and a tree) and exit",
	 NULL, set_print_topology, false},
	{"print-placement", OPT_FLAG, NULL, "print the placement table and the EAL --lcores "
	 "argument, then exit (plans only: any map)", NULL, set_print_placement, false},
	{"json", OPT_FLAG, NULL, "with --print-placement: print JSON", NULL, set_json, false},
	{"help", OPT_FLAG, NULL, "print this help and exit", NULL, NULL, false},
};

#define N_OPTS RTE_DIM(opts)

void
mcfan_params_usage(const char *prog)
{
	const struct mcfan_engine *e;
	enum mcfan_engine_side side;
	unsigned int i;
	char lhs[64];

	printf("Usage: %s [EAL options] -- [mcfan options]\n\n"
	       "mcfan receives IP multicast UDP frames on every probed port (queue 0), fans\n"
	       "them out to worker lcores through rings and reports where every frame went and\n"
	       "where every lcore's time went.\n\nmcfan options:\n", prog);
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
	printf("\nExample:\n  %s -l 0-2 --vdev net_af_packet0,iface=veth0 -- "
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

/* Strip blanks (and a line end) from both ends of [p, end); returns the new start. */
static char *
cfg_trim(char *p, char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' ||
			   end[-1] == '\t'))
		end--;
	*end = '\0';
	return p;
}

/*
 * Read a config file into an rte_cfgfile made empty by the caller, one line at a time, so
 * that every error names its line and no limit of rte_cfgfile_load() (22.11: lines of at
 * most CFG_NAME_LEN + CFG_VALUE_LEN + 3 characters, ';' comments only, values cut at
 * CFG_VALUE_LEN - 1 characters without a word) can change what a line means. Every line
 * must be blank, a comment (starting with ';' or '#'; a ';' or '#' later in a line starts a
 * comment too), "[mcfan]" or "key = value"; no key before the section, no key twice.
 * lines[i] receives the line of the i-th key.
 */
static int
cfg_read(const char *path, FILE *f, struct rte_cfgfile *file, unsigned int *lines,
	 unsigned int max_keys)
{
	char line[CFG_LINE_MAX], names[CFG_KEYS_MAX][CFG_NAME_LEN];
	unsigned int no = 0, n_keys = 0, i;
	bool in_section = false;
	char *p, *end, *eq, *key, *value;
	long pos = ftell(f), next;

	while (fgets(line, sizeof(line), f) != NULL) {
		no++;
		next = ftell(f);
		if (pos >= 0 && next >= 0 && (long)strlen(line) != next - pos) {
			fprintf(stderr, "mcfan: config file '%s' line %u: contains a NUL byte (not a "
				"text file?)\n", path, no);
			return -EINVAL;
		}
		pos = next;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fprintf(stderr, "mcfan: config file '%s' line %u: longer than %d characters\n",
				path, no, CFG_LINE_MAX - 2);
			return -EINVAL;
		}
		p = cfg_trim(line, line + strlen(line));
		if (no == 1 && strncmp(p, UTF8_BOM, strlen(UTF8_BOM)) == 0)
			p = cfg_trim(p + strlen(UTF8_BOM), p + strlen(p)); /* editors' BOM */
		if (*p == '\0' || *p == ';' || *p == '#')
			continue;
		if (*p == '[') {
			end = p + strlen(p);
			if (end[-1] != ']' || end - p < 3) {
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not a "
					"[section] header\n", path, no, p);
				return -EINVAL;
			}
			if (in_section) {
				fprintf(stderr, "mcfan: config file '%s' line %u: a second section '%s': "
					"put every key under one [%s]\n", path, no, p, CFG_SECTION);
				return -EINVAL;
			}
			if (strlen(p) - 2 != strlen(CFG_SECTION) ||
			    strncmp(p + 1, CFG_SECTION, strlen(CFG_SECTION)) != 0) {
				fprintf(stderr, "mcfan: config file '%s' line %u: unknown section '%s': "
					"the only section is [%s]\n", path, no, p, CFG_SECTION);
				return -EINVAL;
			}
			if (rte_cfgfile_add_section(file, CFG_SECTION) < 0)
				return -ENOMEM;
			in_section = true;
			continue;
		}
		p[strcspn(p, ";#")] = '\0';
		eq = strchr(p, '=');
		if (eq == NULL) {
			const struct opt_def *flag = find_opt(cfg_trim(p, p + strlen(p)));

			if (flag != NULL && flag->kind != OPT_VALUE && flag->file_ok)
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not 'key = "
					"value' (a flag in a file takes a value: %s = yes)\n", path, no,
					p, p);
			else
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not 'key = "
					"value'\n", path, no, p);
			return -EINVAL;
		}
		key = cfg_trim(p, eq);
		value = cfg_trim(eq + 1, eq + 1 + strlen(eq + 1));
		if (key[0] == '\0' || strlen(key) >= CFG_NAME_LEN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: a key of 1..%d characters "
				"is needed before '='\n", path, no, CFG_NAME_LEN - 1);
			return -EINVAL;
		}
		if (value[0] == '\0') {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' has no value\n",
				path, no, key);
			return -EINVAL;
		}
		if (strlen(value) >= CFG_VALUE_LEN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: the value of key '%s' has "
				"%zu characters; at most %d are allowed (give long lists on the command "
				"line)\n", path, no, key, strlen(value), CFG_VALUE_LEN - 1);
			return -EINVAL;
		}
		if (!in_section) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' before any "
				"section: put it under [%s]\n", path, no, key, CFG_SECTION);
			return -EINVAL;
		}
		for (i = 0; i < n_keys; i++) {
			if (strcmp(names[i], key) == 0) {
				fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' is given "
					"twice (first on line %u)\n", path, no, key, lines[i]);
				return -EINVAL;
			}
		}
		if (n_keys == max_keys || n_keys == CFG_KEYS_MAX) {
			fprintf(stderr, "mcfan: config file '%s' line %u: more than %u keys\n", path,
				no, max_keys);
			return -EINVAL;
		}
		if (rte_cfgfile_add_entry(file, CFG_SECTION, key, value) < 0)
			return -ENOMEM;
		snprintf(names[n_keys], sizeof(names[n_keys]), "%s", key);
		lines[n_keys++] = no;
	}
	return 0;
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
	ret = o->set(scratch, value, err, len);
	if (scratch->cpu_topology != cfg->cpu_topology)
		free(scratch->cpu_topology);
	free(scratch);
	return ret;
}

static int
load_config(struct mcfan_config *cfg, bool from_cli[])
{
	const char *path = cfg->config_file;
	unsigned int lines[CFG_KEYS_MAX];
	static struct rte_cfgfile_entry ents[CFG_KEYS_MAX]; /* 20 KiB: main thread, once */
	const struct opt_def *o;
	struct rte_cfgfile *file;
	char err[ERR_MAX];
	int n_ent, i, ret;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "mcfan: --config: cannot open '%s': %s\n", path, strerror(errno));
		return -ENOENT;
	}
	file = rte_cfgfile_create(0);
	if (file == NULL) {
		fclose(f);
		fprintf(stderr, "mcfan: config file '%s': out of memory\n", path);
		return -ENOMEM;
	}
	ret = cfg_read(path, f, file, lines, CFG_KEYS_MAX);
	fclose(f);
	if (ret == -ENOMEM)
		fprintf(stderr, "mcfan: config file '%s': out of memory\n", path);
	if (ret < 0)
		goto close;
	n_ent = rte_cfgfile_has_section(file, CFG_SECTION) ?
		rte_cfgfile_section_num_entries(file, CFG_SECTION) : 0;
	if (n_ent > 0 && rte_cfgfile_section_entries(file, CFG_SECTION, ents, n_ent) != n_ent) {
		ret = -EINVAL;
		goto close;
	}
	for (i = 0; i < n_ent; i++) {
		o = find_opt(ents[i].name);
		if (o != NULL && !o->file_ok) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' cannot be set in "
				"a config file (--%s is for the command line only)\n", path,
				lines[i], ents[i].name, ents[i].name);
			ret = -EINVAL;
			goto close;
		}
		if (o == NULL) {
			fprintf(stderr, "mcfan: config file '%s' line %u: unknown key '%s' in [%s] "
				"(keys are the long option names, see --help)\n", path, lines[i],
				ents[i].name, CFG_SECTION);
			ret = -EINVAL;
			goto close;
		}
		if (from_cli[o - opts])
			ret = cfg_validate_only(cfg, o, ents[i].value, err, sizeof(err));
		else
			ret = o->set(cfg, ents[i].value, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s': %s\n", path,
				lines[i], ents[i].name, err);
			goto close;
		}
	}
	ret = 0;
close:
	rte_cfgfile_close(file);
	return ret < 0 ? -EINVAL : 0;
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

static void
config_defaults(struct mcfan_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fanout = MCFAN_FANOUT_PARTITION;
	cfg->ring_size = MCFAN_DEFAULT_RING_SIZE;
	cfg->burst = MCFAN_DEFAULT_BURST;
	cfg->msacc = true;
	cfg->idle_rx = MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, MCFAN_IDLE_THR_NONE);
	cfg->idle_worker = MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, MCFAN_IDLE_THR_NONE);
	cfg->idle_max_sleep_us = MCFAN_IDLE_MAX_SLEEP_US_DEFAULT;
	cfg->bind = -1;
	cfg->workers_count = -1;
	cfg->control_cpu = -1;
	snprintf(cfg->rx_engine, sizeof(cfg->rx_engine), "%s", MCFAN_RX_ENGINE_DEFAULT);
	snprintf(cfg->worker_engine, sizeof(cfg->worker_engine), "%s",
		 MCFAN_WORKER_ENGINE_DEFAULT);
}

int
mcfan_params_parse(int argc, char **argv, struct mcfan_config *cfg)
{
	struct option lopts[N_OPTS + 1];
	const char *values[N_OPTS] = {NULL};
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
	if (check_no_abbreviation(argc, argv) < 0)
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
		if (given[i]) {
			fprintf(stderr, "mcfan: option --%s is given twice\n", opts[i].name);
			return -EINVAL;
		}
		given[i] = true;
		values[i] = optarg;
	}
	if (optind < argc) {
		if (optind > 1 && strcmp(argv[optind - 1], "--") == 0)
			fprintf(stderr, "mcfan: a second '--' before '%s': EAL options go before the "
				"first '--', mcfan options after it, with no other '--'\n",
				argv[optind]);
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
		if (opts[i].set(cfg, values[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "mcfan: %s\n", err);
			return -EINVAL;
		}
	}
	if (cfg->config_file[0] != '\0') {
		/* Apply the file for what the command line did not set, then the command line
		 * again on top (it already holds; load_config skips options given there). */
		if (load_config(cfg, given) < 0)
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
