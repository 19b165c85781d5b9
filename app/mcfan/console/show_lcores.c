/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console commands that show the lcores (docs/console.md "Looking"): show lcores, show msacc,
 * show msacc types, show config, show idle (show topology: console/topology.c). The numbers
 * come from the read side (control/stats.h, control/idle.h) shared with the report and
 * telemetry.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "mcfan.h"
#include "control/idle.h"
#include "control/overrun.h"
#include "control/placement.h"
#include "control/readers.h"
#include "control/stats.h"
#include "console/console.h"
#include "console/show.h"

#ifdef MCFAN_MSACC_FORMAT_SIZE
#define MSACC_TEXT_SIZE(rows) MCFAN_MSACC_FORMAT_SIZE(rows)
#else
#define MSACC_TEXT_SIZE(rows) ((3 * (size_t)(rows) + 16) * 256)
#endif

static int
cmd_show_lcores(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_msacc_row *rows;
	const struct mcfan_lcore *lc;
	char ports[64], host[16], cpus[64];
	unsigned int i, p;
	size_t off;
	int n;

	RTE_SET_USED(a);
	rows = mcfan_console_calloc(con, "show lcores", RTE_MAX_LCORE, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	n = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	printf("  %5s %4s %6s  %-10s %-11s %-8s %-9s %s\n", "lcore", "cpu", "socket", "role",
	       "state", "rx", "hosted_by", "ports");
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		lc = &app->lcores[rows[i].lcore_id];
		ports[0] = '\0';
		for (p = 0, off = 0; p < lc->n_ports && off < sizeof(ports); p++)
			off += (size_t)snprintf(ports + off, sizeof(ports) - off, "%s%u",
						p == 0 ? "" : ",", lc->ports[p]);
		/* a hosted worker's step runs in its host's thread (docs/idle.md) */
		if (lc->host_id < RTE_MAX_LCORE)
			snprintf(host, sizeof(host), "%u", lc->host_id);
		else
			snprintf(host, sizeof(host), "-");
		/* every CPU it may run on (--bind u, --lcores 1@(0-1)), not only the lowest */
		mcfan_lcore_cpus(rows[i].lcore_id, cpus, sizeof(cpus));
		printf("  %5u %4s %6u  %-10s %-11s %-8s %-9s %s\n", rows[i].lcore_id,
		       cpus, rte_lcore_to_socket_id(rows[i].lcore_id),
		       mcfan_role_name(lc->role), mcfan_ms_state_name(rows[i].snap.state),
		       (lc->role & MCFAN_ROLE_RX) ? mcfan_console_rx_state(app) : "-", host,
		       lc->n_ports > 0 ? ports : "-");
	}
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		lc = &app->lcores[rows[i].lcore_id];
		if (lc->host_id < RTE_MAX_LCORE)
			printf("lcore %u: hosted by lcore %u: its worker step runs in lcore %u's "
			       "thread, which writes its state; its own thread only waits "
			       "(docs/idle.md \"Hosted workers\")\n", rows[i].lcore_id,
			       lc->host_id, lc->host_id);
	}
	free(rows);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_lcores, 100, "show lcores", cmd_show_lcores,
		      "every lcore: CPU, socket, role, microstate now, RX running or stopped, "
		      "the host of a hosted worker, ports polled",
		      "show lcores");

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

/* The msacc table of every lcore, or of one (which: its number as typed). */
static int
show_msacc(struct mcfan_console *con, const char *which, uint32_t flags)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_msacc_row *rows;
	char *text = NULL;
	uint64_t lcore = 0;
	unsigned int i, k;
	size_t size;
	int n, ret = 0;

	if (which != NULL && mcfan_console_u64(con, "show msacc", "lcore", which, 0,
					       RTE_MAX_LCORE - 1, &lcore) < 0)
		return -EINVAL;
	rows = mcfan_console_calloc(con, "show msacc", RTE_MAX_LCORE, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	n = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	if (n < 0) {
		mcfan_console_error(con, "show msacc: %s", strerror(-n));
		ret = n;
		goto out;
	}
	if (which != NULL) {
		for (i = 0, k = 0; i < (unsigned int)n; i++)
			if (rows[i].lcore_id == lcore)
				rows[k++] = rows[i];
		if (k == 0 && app->lcores[lcore].role != MCFAN_ROLE_NONE) {
			/* an mcfan lcore whose accounting never ran (--no-msacc since start) */
			mcfan_console_error(con, "show msacc: lcore %" PRIu64 " has no "
					    "accounting: it has been off since the start "
					    "(--no-msacc); msacc on starts it", lcore);
			ret = -ENOENT;
			goto out;
		}
		if (k == 0) {
			mcfan_console_error(con, "show msacc: lcore %" PRIu64 " is not used by "
					    "mcfan (show lcores lists them)", lcore);
			ret = -ENOENT;
			goto out;
		}
		n = (int)k;
	}
	size = MSACC_TEXT_SIZE((unsigned int)n);
	text = mcfan_console_calloc(con, "show msacc", size, 1);
	if (text == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	print_window(app);
	if (mcfan_msacc_format_table(text, size, rows, (unsigned int)n, app->tsc_hz, flags) < 0)
		mcfan_console_error(con, "show msacc: the table does not fit");
	else
		fputs(text, stdout);
out:
	free(text);
	free(rows);
	return ret;
}

static int
cmd_show_msacc(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	return show_msacc(con, a->lcore, 0);
}

MCFAN_CONSOLE_COMMAND(show_msacc_all, 110, "show msacc", cmd_show_msacc,
		      "microstate accounting of every lcore over the current window: % of wall "
		      "time per state, counters",
		      "show msacc");

MCFAN_CONSOLE_COMMAND(show_msacc_lcore, 120, "show msacc <lcore>", cmd_show_msacc,
		      "microstate accounting of one lcore", "show msacc 1");

static int
cmd_show_msacc_types(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	unsigned int s;
	int ret;

	RTE_SET_USED(a);
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

MCFAN_CONSOLE_COMMAND(show_msacc_types, 130, "show msacc types", cmd_show_msacc_types,
		      "microstate accounting per role (stats per type), and what each state "
		      "means",
		      "show msacc types");

/* an lcore of show config's idle-rx (rx) or idle-worker line; hosted workers have none */
static bool
idle_config_lcore(const struct mcfan_lcore *lc, bool rx)
{
	if (rx)
		return (lc->role & MCFAN_ROLE_RX) != 0;
	return lc->role == MCFAN_ROLE_WORKER && lc->host_id >= RTE_MAX_LCORE;
}

/*
 * show config's idle-rx (rx) or idle-worker line: the policy of every lcore with the RX role,
 * or of every worker-only lcore. Not given (no option, no set idle rx|worker since): the
 * placement default, with the readers engine the shared-CPU one; without it, the default
 * the role's lcores run (poll alone on a CPU, backoff:none / wake:none sharing one), or
 * "by placement" when they differ. Then the lcores of the role that set idle LCORE gave
 * another policy (every one while the line shows no policy), so the line never hides what an
 * lcore runs.
 */
static void
print_idle_config(const struct mcfan_app *app, bool rx, uint32_t pol, bool given, bool readers)
{
	char text[MCFAN_IDLE_POLICY_TEXT_MAX + 1];
	const struct mcfan_lcore *lc;
	bool mixed = false, seen = false, hosted = false, all_hosted;
	unsigned int id, n = 0;
	uint32_t shown = pol, p;

	if (!given && readers)
		shown = mcfan_idle_default_policy(rx ? MCFAN_ROLE_RX : MCFAN_ROLE_WORKER, true);
	for (id = 0; !given && !readers && id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		hosted |= !rx && lc->role == MCFAN_ROLE_WORKER && lc->host_id < RTE_MAX_LCORE;
		if (!idle_config_lcore(lc, rx) ||
		    mcfan_atomic_u32_load(&lc->idle.origin, memory_order_relaxed) ==
		    MCFAN_IDLE_FROM_SET)
			continue;
		p = mcfan_atomic_u32_load(&lc->idle.policy, memory_order_relaxed);
		mixed |= seen && p != shown;
		shown = p;
		seen = true;
	}
	/* every worker-only lcore not set since is hosted: none waits by a default of its own */
	all_hosted = !seen && hosted;
	mixed |= all_hosted;
	if (all_hosted)
		printf("idle-worker:   hosted (not given: by placement each worker-only lcore's "
		       "step runs in its RX lcore's thread, see show idle)");
	else
		printf("%s%s", rx ? "idle-rx:       " : "idle-worker:   ",
		       mixed ? "by placement" : mcfan_idle_format(shown, text, sizeof(text)));
	if (!all_hosted && !given && readers)
		printf(" (not given: the default with the readers engine, whose reader processes "
		       "share mcfan's CPUs, so no %s polls; see show idle)", rx ?
		       "lcore with the RX role" : "worker-only lcore");
	else if (!all_hosted && !given)
		printf(" (not given: each %s runs its placement default, see show idle)", rx ?
		       "lcore with the RX role" : "worker-only lcore");
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		if (!idle_config_lcore(lc, rx))
			continue;
		p = mcfan_atomic_u32_load(&lc->idle.policy, memory_order_relaxed);
		if (mcfan_atomic_u32_load(&lc->idle.origin, memory_order_relaxed) !=
		    MCFAN_IDLE_FROM_SET || (!mixed && p == shown))
			continue;
		printf("%s lcore %u %s", n++ == 0 ? "; by set idle LCORE:" : ",", id,
		       mcfan_idle_format(p, text, sizeof(text)));
	}
	printf("\n");
}

static int
cmd_show_config(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	const struct mcfan_config *cfg = &app->cfg;
	uint32_t rx_pol, wk_pol;
	bool readers;
	unsigned int i;

	RTE_SET_USED(a);
	printf("main lcore:    %u\nrx lcores:    ", app->main_lcore);
	for (i = 0; i < app->n_rx; i++)
		printf(" %u", app->rx_lcore_ids[i]);
	printf(" (%s)\nworker lcores:", mcfan_console_rx_state(app));
	for (i = 0; i < app->n_workers; i++)
		printf(" %u", app->worker_lcore_ids[i]);
	printf("\ngroups:        %u joined (at most %d)\n",
	       __atomic_load_n(&app->n_group_entries, __ATOMIC_ACQUIRE), MCFAN_MAX_GROUPS);
	printf("fanout:        %s (for later joins)\n",
	       mcfan_fanout_name(mcfan_live_fanout(&app->live)));
	printf("burst:         %u (at start %u, at most %u: a burst fits in a ring)\n",
	       mcfan_live_burst(&app->live), cfg->burst,
	       RTE_MIN((unsigned int)MCFAN_MAX_BURST, cfg->ring_size));
	printf("ring-size:     %u (%s)\nmbufs:         %u\n", cfg->ring_size, app->ring_size_why,
	       app->pool_size);
	printf("msacc:         %s\n", mcfan_live_msacc(&app->live) ? "on" :
	       "off");
	printf("duration:      %.3f s%s\n", cfg->duration_s, cfg->duration_s > 0 ? "" :
	       " (until quit or a signal)");
	printf("stats-period:  %.3f s\n", cfg->stats_period_s);
	printf("report-json:   %s\n", cfg->report_json[0] != '\0' ? cfg->report_json : "none");
	printf("config:        %s\n", cfg->config_file[0] != '\0' ? cfg->config_file : "none");
	printf("cmdline-file:  %s\n", cfg->cmdline_file[0] != '\0' ? cfg->cmdline_file : "none");
	printf("interactive:   %s\n", cfg->interactive ? "yes" : "no");
	rx_pol = mcfan_atomic_u32_load(&app->live.idle_rx, memory_order_relaxed);
	wk_pol = mcfan_atomic_u32_load(&app->live.idle_worker, memory_order_relaxed);
	readers = mcfan_readers_wanted(app);
	print_idle_config(app, true, rx_pol, cfg->idle_rx_set ||
			  mcfan_atomic_flag_load(&app->live.idle_rx_set, memory_order_relaxed),
			  readers);
	print_idle_config(app, false, wk_pol, cfg->idle_worker_set ||
			  mcfan_atomic_flag_load(&app->live.idle_worker_set, memory_order_relaxed),
			  readers);
	printf("idle-max-sleep-us: %u", cfg->idle_max_sleep_us);
	if (!cfg->idle_max_sleep_set)
		printf(" (not given: with the shared-CPU default lcores with the RX role sleep up "
		       "to %u us, worker-only lcores %u us, see show idle)",
		       MCFAN_IDLE_SHARED_MAX_SLEEP_US, MCFAN_IDLE_SHARED_WORKER_MAX_SLEEP_US);
	printf("\n");
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_config, 220, "show config", cmd_show_config,
		      "the configuration in effect, live values included", "show config");

/* show idle, second table: drops caused by sleeping (docs/idle.md), per data lcore. */
static void
print_overrun(const struct mcfan_app *app, const struct mcfan_idle_view *iv, int n)
{
	struct mcfan_overrun_view ov;
	int i;

	mcfan_overrun_total(app, &ov);
	printf("sleep overrun (drops caused by sleeping): %" PRIu64 " (ring %" PRIu64
	       " copies, port %" PRIu64 " frames)\n  %5s %14s %14s %14s\n", ov.total, ov.ring,
	       ov.port, "lcore", "sleep_overrun", "ring", "port");
	for (i = 0; i < n; i++) {
		if (mcfan_overrun_read(app, iv[i].lcore_id, &ov) != 0)
			continue;
		printf("  %5u %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", ov.lcore_id, ov.total,
		       ov.ring, ov.port);
	}
}

static int
cmd_show_idle(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_app *app = mcfan_console_app(con);
	struct mcfan_idle_view *iv;
	struct mcfan_msacc_row *rows;
	struct mcfan_msacc_stats st;
	char bound[24], cap[24], sleeps[24], wakeups[24], asleep[16];
	bool counted;
	int n, nr, i, k;

	RTE_SET_USED(a);
	iv = calloc(RTE_MAX_LCORE, sizeof(*iv));
	rows = calloc(RTE_MAX_LCORE, sizeof(*rows));
	if (iv == NULL || rows == NULL) {
		free(iv);
		free(rows);
		mcfan_console_error(con, "show idle: out of memory");
		return -ENOMEM;
	}
	n = mcfan_idle_read(app, iv, RTE_MAX_LCORE);
	nr = mcfan_lcore_rows(app, rows, RTE_MAX_LCORE);
	printf("max sleep %u us (--idle-max-sleep-us; lcores on a shared CPU by default %u us, "
	       "worker-only ones %u us); ring bound: time half the smallest input "
	       "ring takes to fill at the highest recent rate\n", app->cfg.idle_max_sleep_us,
	       MCFAN_IDLE_SHARED_MAX_SLEEP_US, MCFAN_IDLE_SHARED_WORKER_MAX_SLEEP_US);
	printf("hosted workers: %s\n", app->hosts_why);
	printf("  %5s %-10s %-22s %12s %12s %10s %10s %10s %10s %7s %-6s %4s  %s\n", "lcore",
	       "role", "policy", "ring_bound", "sleep_cap", "rx_max_pps", "wk_max_pps", "sleeps",
	       "wakeups", "sleep%", "sched", "nice", "why");
	for (i = 0; i < n; i++) {
		memset(&st, 0, sizeof(st));
		counted = false;
		for (k = 0; k < nr; k++)
			if (rows[k].lcore_id == iv[i].lcore_id)
				counted = mcfan_msacc_stats(&rows[k].snap, &st) == 0;
		/* sleeps, wake-ups and % asleep are msacc's: "-" for an lcore that has no
		 * accounting (--no-msacc since the start), not 0 while it sleeps */
		snprintf(sleeps, sizeof(sleeps), "%" PRIu64, st.sleeps);
		snprintf(wakeups, sizeof(wakeups), "%" PRIu64, st.wakeups);
		snprintf(asleep, sizeof(asleep), "%.2f", st.pct[MCFAN_MS_SLEEP]);
		if (!counted) {
			snprintf(sleeps, sizeof(sleeps), "-");
			snprintf(wakeups, sizeof(wakeups), "-");
			snprintf(asleep, sizeof(asleep), "-");
		}
		printf("  %5u %-10s %-22s %12s %12s %10" PRIu64 " %10" PRIu64 " %10s %10s %7s "
		       "%-6s %4d  %s\n", iv[i].lcore_id, mcfan_role_name(iv[i].role),
		       iv[i].policy_text,
		       mcfan_console_us_text(iv[i].ring_bound_ns, bound, sizeof(bound)),
		       mcfan_console_us_text(iv[i].sleep_cap_ns, cap, sizeof(cap)),
		       iv[i].rx_max_pps, iv[i].wk_max_pps, sleeps, wakeups, asleep, iv[i].sched,
		       iv[i].nice, iv[i].why);
	}
	print_overrun(app, iv, n);
	free(iv);
	free(rows);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_idle, 230, "show idle", cmd_show_idle,
		      "per data lcore: idle policy, sleep bound and cap, highest recent rates, "
		      "sleeps, wake-ups, % asleep; drops caused by sleeping (sleep overrun)",
		      "show idle");
