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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "mcfan_sct.h"
#include "datapath/engine.h"

#define ERR_MAX 256
#define CFG_SECTION "mcfan"
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

/* DPDK corelist syntax: "1,3-5". Lcore ids below RTE_MAX_LCORE, no duplicates. */
static int
parse_corelist(const char *s, uint16_t *out, unsigned int *n_out, char *err, size_t err_len,
	       const char *opt)
{
	bool seen[RTE_MAX_LCORE] = {false};
	char buf[256];
	char *tok, *save = NULL, *dash;
	unsigned long a, b, i;
	unsigned int n = 0;

	if (strlen(s) >= sizeof(buf) || s[0] == '\0') {
		snprintf(err, err_len, "--%s: '%s' is not a corelist (e.g. 1,3-5)", opt, s);
		return -EINVAL;
	}
	strcpy(buf, s);
	if (buf[strlen(buf) - 1] == ',' || strstr(buf, ",,") != NULL) {
		snprintf(err, err_len, "--%s: '%s' has an empty item", opt, s);
		return -EINVAL;
	}
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash != NULL)
			*dash = '\0';
		if (parse_uint(tok, 0, RTE_MAX_LCORE - 1, &a) < 0 ||
		    (dash != NULL && parse_uint(dash + 1, 0, RTE_MAX_LCORE - 1, &b) < 0)) {
			snprintf(err, err_len,
				 "--%s: '%s' is not a corelist of lcore ids 0..%d (e.g. 1,3-5)",
				 opt, s, RTE_MAX_LCORE - 1);
			return -EINVAL;
		}
		if (dash == NULL)
			b = a;
		if (b < a) {
			snprintf(err, err_len, "--%s: range %lu-%lu in '%s' is decreasing", opt,
				 a, b, s);
			return -EINVAL;
		}
		for (i = a; i <= b; i++) {
			if (seen[i]) {
				snprintf(err, err_len, "--%s: lcore %lu is listed twice in '%s'",
					 opt, i, s);
				return -EINVAL;
			}
			seen[i] = true;
			out[n++] = (uint16_t)i;
		}
	}
	*n_out = n;
	return 0;
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
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	if (set_path(cfg->report_json, v, "report-json", err, len) < 0)
		return -EINVAL;
	/* find out now, not after the run, that the report cannot be written */
	if (stat(v, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "--report-json: '%s' is a directory; give a file name", v);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "%s", v);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, len, "--report-json: cannot write in directory '%s': %s", dir,
			 strerror(errno));
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
	return set_idle(&cfg->idle_rx, v, MCFAN_ROLE_RX, "idle-rx", err, len);
}

static int
set_idle_worker(struct mcfan_config *cfg, const char *v, char *err, size_t len)
{
	return set_idle(&cfg->idle_worker, v, MCFAN_ROLE_WORKER, "idle-worker", err, len);
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
	 "backoff[:THRESHOLD], interrupt[:THRESHOLD] (docs/idle.md)", "poll", set_idle_rx, true},
	{"idle-worker", OPT_VALUE, "POLICY", "what worker-only lcores do when idle: poll, "
	 "backoff[:THRESHOLD], wake[:THRESHOLD]", "poll", set_idle_worker, true},
	{"idle-max-sleep-us", OPT_VALUE, "N", "longest backoff or wake sleep, microseconds; "
	 "every sleep is also bounded by the time half an input ring takes to fill",
	 RTE_STR(MCFAN_IDLE_MAX_SLEEP_US_DEFAULT),
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

/* Line number (1-based) of `key` in `[section]` of a file, or of the section header if key
 * is NULL; 0 if not found. rte_cfgfile keeps no line numbers, so look them up in the text. */
static unsigned int
cfg_find_line(const char *path, const char *section, const char *key)
{
	char line[1024], want[128];
	unsigned int no = 0;
	bool in_section = false;
	FILE *f = fopen(path, "r");
	char *p, *q;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		no++;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '[') {
			q = strchr(p, ']');
			if (q == NULL)
				continue;
			snprintf(want, sizeof(want), "%.*s", (int)(q - p - 1), p + 1);
			in_section = strcmp(want, section) == 0;
			if (in_section && key == NULL)
				break;
			continue;
		}
		if (in_section && key != NULL && strncmp(p, key, strlen(key)) == 0) {
			q = p + strlen(key);
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=')
				break;
		}
	}
	if (feof(f))
		no = 0;
	fclose(f);
	return no;
}

/*
 * rte_cfgfile (22.11) silently drops a line without '=' and gives no line number for a key
 * outside any section, so check the text first: every line must be blank, a comment (';' or
 * '#'), "[section]" or "key = value", no key before the first section, no key twice in a
 * section.
 */
static int
cfg_check_syntax(const char *path, FILE *f)
{
	char line[CFG_LINE_MAX], keys[CFG_KEYS_MAX][CFG_NAME_LEN];
	unsigned int no = 0, n_keys = 0, n_sections = 0, i;
	bool in_section = false;
	char *p, *end, *eq;
	size_t klen;
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
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		for (end = p + strlen(p); end > p && (end[-1] == '\n' || end[-1] == '\r' ||
			end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		if (*p == '\0' || *p == ';' || *p == '#')
			continue;
		if (*p == '[') {
			if (end[-1] != ']' || end - p < 3) {
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not a "
					"[section] header\n", path, no, p);
				return -EINVAL;
			}
			if (++n_sections > 1) {
				fprintf(stderr, "mcfan: config file '%s' line %u: a second section '%s': "
					"put every key under one [%s]\n", path, no, p, CFG_SECTION);
				return -EINVAL;
			}
			in_section = true;
			n_keys = 0;
			continue;
		}
		eq = strchr(p, '=');
		if (eq == NULL) {
			fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not 'key = value'\n",
				path, no, p);
			return -EINVAL;
		}
		for (end = eq; end > p && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		klen = (size_t)(end - p);
		for (end = eq + 1; *end == ' ' || *end == '\t'; end++)
			;
		if (*end == '\0' && klen > 0) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%.*s' has no value\n",
				path, no, (int)klen, p);
			return -EINVAL;
		}
		if (klen == 0 || klen >= CFG_NAME_LEN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: a key of 1..%d characters "
				"is needed before '='\n", path, no, CFG_NAME_LEN - 1);
			return -EINVAL;
		}
		if (!in_section) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%.*s' before any "
				"section: put it under [%s]\n", path, no, (int)klen, p, CFG_SECTION);
			return -EINVAL;
		}
		for (i = 0; i < n_keys; i++) {
			if (strlen(keys[i]) == klen && strncmp(keys[i], p, klen) == 0) {
				fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' is given "
					"twice\n", path, no, keys[i]);
				return -EINVAL;
			}
		}
		if (n_keys < CFG_KEYS_MAX) {
			memcpy(keys[n_keys], p, klen);
			keys[n_keys++][klen] = '\0';
		}
	}
	return 0;
}

static int
load_config(struct mcfan_config *cfg, bool from_cli[])
{
	const char *path = cfg->config_file;
	char err[ERR_MAX];
	struct rte_cfgfile *file;
	struct rte_cfgfile_entry *entries = NULL;
	char (*sections)[CFG_NAME_LEN] = NULL;
	char **section_ptrs = NULL;
	int n_sec, n_ent, i, ret = -EINVAL;
	const struct opt_def *o;
	FILE *probe;

	probe = fopen(path, "r");
	if (probe == NULL) {
		fprintf(stderr, "mcfan: --config: cannot open '%s': %s\n", path, strerror(errno));
		return -ENOENT;
	}
	ret = cfg_check_syntax(path, probe);
	fclose(probe);
	if (ret < 0)
		return ret;
	ret = -EINVAL;
	file = rte_cfgfile_load(path, 0);
	if (file == NULL) {
		fprintf(stderr, "mcfan: config file '%s': syntax error (see the line named above; "
			"expected '[section]' and 'key = value' lines, ';' comments)\n", path);
		return -EINVAL;
	}
	n_sec = rte_cfgfile_num_sections(file, NULL, 0);
	/* rte_cfgfile_sections() copies each name into caller buffers given as an array of
	 * pointers */
	sections = calloc(RTE_MAX(n_sec, 1), sizeof(*sections));
	section_ptrs = calloc(RTE_MAX(n_sec, 1), sizeof(*section_ptrs));
	if (sections == NULL || section_ptrs == NULL)
		goto free_sections;
	for (i = 0; i < n_sec; i++)
		section_ptrs[i] = sections[i];
	rte_cfgfile_sections(file, section_ptrs, n_sec);
	for (i = 0; i < n_sec; i++) {
		if (strcmp(sections[i], CFG_SECTION) != 0) {
			fprintf(stderr, "mcfan: config file '%s' line %u: unknown section '[%s]': "
				"the only section is [%s]\n", path,
				cfg_find_line(path, sections[i], NULL), sections[i], CFG_SECTION);
			goto free_sections;
		}
	}
	n_ent = rte_cfgfile_section_num_entries(file, CFG_SECTION);
	if (n_ent <= 0) {
		ret = 0;
		goto free_sections;
	}
	entries = calloc((size_t)n_ent, sizeof(*entries));
	if (entries == NULL)
		goto free_sections;
	rte_cfgfile_section_entries(file, CFG_SECTION, entries, n_ent);
	for (i = 0; i < n_ent; i++) {
		unsigned int line = cfg_find_line(path, CFG_SECTION, entries[i].name);

		o = find_opt(entries[i].name);
		if (o == NULL || !o->file_ok) {
			fprintf(stderr, "mcfan: config file '%s' line %u: unknown key '%s' in [%s] "
				"(keys are the long option names, see --help)\n", path, line,
				entries[i].name, CFG_SECTION);
			goto free_entries;
		}
		if (from_cli[o - opts])
			continue;
		if (o->set(cfg, entries[i].value, err, sizeof(err)) < 0) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s': %s\n", path,
				line, entries[i].name, err);
			goto free_entries;
		}
	}
	ret = 0;
free_entries:
	free(entries);
free_sections:
	free(section_ptrs);
	free(sections);
	rte_cfgfile_close(file);
	return ret;
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
	int c, idx;

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
		c = getopt_long(argc, argv, shorts, lopts, &idx);
		if (c == -1)
			break;
		if (c == '?') {
			const char *arg = argv[optind - 1], *eqp = strchr(arg, '=');
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
		fprintf(stderr, "mcfan: unexpected argument '%s' (mcfan options start with --)\n",
			argv[optind]);
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
