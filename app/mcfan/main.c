/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * mcfan: lifecycle. Parse mcfan's options (before EAL, so a bad option starts
 * nothing), initialise EAL, set up lcores, rings, pool, groups and ports, launch
 * the data lcores, run the control loop on the main lcore, then stop in order:
 * RX, rings drained, workers, ports; report; clean up.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "mcfan.h"
#include "mcfan_parse.h"
#include "control/control.h"
#include "control/groups.h"
#include "control/igmp.h"
#include "log.h"
#include "control/idle.h"
#include "control/capture.h"
#include "control/pcap.h"
#include "datapath/engine_pcap.h"
#include "control/placement.h"
#include "placement_cli.h"
#include "lcore_check.h"
#include "vdev_check.h"
#include "eal_env.h"
#include "seq_check.h"
#include "group_engine.h"
#include "control/stats.h"
#include "control/quitdrain.h"
#include "metrics/metrics.h"
#include "telemetry/socket.h"

RTE_LOG_REGISTER_DEFAULT(mcfan_logtype, INFO);


struct mcfan_app mcfan_app;

/* One (TSC, CLOCK_MONOTONIC_RAW ns) pair read together: the TSC read on each side of the
 * clock, the pair kept whose two reads are closest (of 8), its TSC their midpoint. */
static void
tsc_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX, a, b;
	struct timespec ts;
	unsigned int i;

	for (i = 0; i < 8; i++) {
		a = rte_rdtsc_precise();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		b = rte_rdtsc_precise();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		}
	}
}

/*
 * The TSC rate, Hz, measured against CLOCK_MONOTONIC_RAW over TSC_MEASURE_MS of busy-wait
 * (a few ppm). EAL's rte_get_tsc_hz() is rounded to 10 MHz where EAL calibrates it (no rate
 * from the CPU: an AMD host, a VM): 2,450,000,000 for a 2,445,421,965 Hz TSC, 0.19% off,
 * which every ns figure (the feed's jitter and gap times, latency, the report's seconds)
 * would carry. Falls back to eal_hz when the measure is more than 5% from it (the thread
 * was preempted, the clock stepped).
 */
#define TSC_MEASURE_MS 20u
static uint64_t
tsc_hz_measure(uint64_t eal_hz)
{
	uint64_t t0, n0, t1, n1, hz;

	tsc_clock_pair(&t0, &n0);
	do
		tsc_clock_pair(&t1, &n1);
	while (n1 - n0 < TSC_MEASURE_MS * 1000000u);
	hz = (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / (n1 - n0));
	if (hz < eal_hz - eal_hz / 20 || hz > eal_hz + eal_hz / 20)
		return eal_hz;
	return hz;
}

/* SIGUSR1 seen: the control loop prints the report (as --stats-period does) at its next
 * tick. A signal handler may only set it. */
static volatile sig_atomic_t report_asked;

/* Seconds standard output may stay blocked after the stop (a stop signal, the end of
 * --duration, the run's end) before mcfan stops writing to it (on_output_timeout()): a
 * reader that does not read must not keep mcfan from stopping. */
#define STOP_OUTPUT_GRACE_S 5

/* What armed the grace (0: nothing yet): a stop signal, or the run's end (the end of
 * --duration, console quit, an error). */
enum { GRACE_NONE, GRACE_SIGNAL, GRACE_END };
static volatile sig_atomic_t grace_armed;
static volatile sig_atomic_t output_dropped;
/* EAL keeps no hugepage files, or was told to keep them (--huge-unlink=never): exit leaves them */
static bool keep_hugepage_files;
/* The EAL option that caps the hugepage memory, for the pool's failure: "--socket-limit N",
 * "--legacy-mem" (all taken at start), or "" (the heap grows while hugepages are free). */
static char eal_mem_cap[96];


/* The stop: STOP_OUTPUT_GRACE_S from now, a standard output that takes nothing is dropped.
 * Once; async-signal-safe. */
static void
arm_output_grace(int why)
{
	if (grace_armed == GRACE_NONE) {
		grace_armed = why;
		alarm(STOP_OUTPUT_GRACE_S);
	}
}

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	mcfan_atomic_flag_store(&mcfan_app.live.quit, true, memory_order_release);
	arm_output_grace(GRACE_SIGNAL);
}

/*
 * SIGALRM, STOP_OUTPUT_GRACE_S after the stop (then every as long; with --duration also
 * that long after its end, when a blocked write keeps the control loop from seeing it,
 * armed by control_loop()): standard output
 * that cannot take a byte now (a full pipe whose reader does not read, a terminal stopped
 * with Ctrl-S) would block the report's writes, and mcfan would never stop. Standard output,
 * and standard error when it is the same file, then point to /dev/null, where the blocked
 * write goes on (SA_RESTART), so the stop goes on: the JSON report is written, EAL cleaned up.
 * Output that moves is left alone. Async-signal-safe calls only.
 */
static void
on_output_timeout(int sig)
{
	struct pollfd pfd = {.fd = STDOUT_FILENO, .events = POLLOUT};
	struct stat so, se;
	bool same;
	int fd;

	RTE_SET_USED(sig);
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT) != 0) {
		alarm(STOP_OUTPUT_GRACE_S);
		return;
	}
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	same = fstat(STDOUT_FILENO, &so) == 0 && fstat(STDERR_FILENO, &se) == 0 &&
	       so.st_dev == se.st_dev && so.st_ino == se.st_ino;
	dup2(fd, STDOUT_FILENO);
	if (same)
		dup2(fd, STDERR_FILENO);
	close(fd);
	output_dropped = 1;
}

static void
on_report_signal(int sig)
{
	RTE_SET_USED(sig);
	report_asked = 1;
}

/*
 * mcfan's signal handlers: SIGALRM (the stop's grace for a blocked standard output), SIGINT,
 * SIGTERM and SIGHUP (stop), SIGPIPE ignored, SIGUSR1 (the report now). Installed first
 * thing in main() with stop_flags SA_RESTART, so that a signal while the options and the
 * config file are read (a slow disk, a service manager's early signal) is taken as
 * documented, not by the default action that killed mcfan, and the read goes on (a stop is
 * then seen once the run starts, a report asked for printed when the control loop starts);
 * then again with stop_flags 0 before EAL.
 */
static void
signals_install(int stop_flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* a stop signal's grace for a blocked standard output (on_output_timeout()), set
	 * before the stop signals that arm it; restarted, a blocked write(1) goes on into
	 * /dev/null and any other call as if nothing came */
	sa.sa_handler = on_output_timeout;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_flags = stop_flags;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal stops the run the same way, with its report */
	sigaction(SIGHUP, &sa, NULL);
	/* a closed standard output (mcfan ... | head) is seen as EPIPE where mcfan prints, and
	 * stops the run cleanly (stdout_lost()), instead of killing it without a report */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* kill -USR1: print the report now and go on (as dd prints its statistics), instead
	 * of the default action, which killed mcfan with no report and no clean-up */
	sa.sa_flags = stop_flags;
	sa.sa_handler = on_report_signal;
	sigaction(SIGUSR1, &sa, NULL);
}

/* Split argv at the first "--": EAL before, mcfan after. */
static int
split_args(int argc, char **argv, int *eal_argc)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	*eal_argc = i;
	return i;
}

/*
 * DPDK 22.11's EAL refuses --in-memory together with --no-huge (it treats --no-huge as
 * legacy memory). Without hugepages, --in-memory only adds "no shared runtime files", which
 * is --no-shconf, so mcfan passes that instead and says so.
 */
static void
rewrite_in_memory(int argc, char **argv)
{
	bool no_huge = false;
	int i, in_mem = -1;

	for (i = 1; i < argc; i++) {
		if (mcfan_eal_arg_is_value(argc, argv, i))
			continue; /* "--huge-dir --in-memory": a directory's name */
		if (strcmp(argv[i], "--no-huge") == 0)
			no_huge = true;
		else if (strcmp(argv[i], "--in-memory") == 0)
			in_mem = i;
	}
	if (no_huge && in_mem > 0) {
		argv[in_mem] = (char *)(uintptr_t)"--no-shconf";
		fprintf(stderr, "mcfan: --no-huge with --in-memory: passing --no-shconf to EAL "
			"instead of --in-memory (DPDK 22.11 refuses the pair; the effect is the same "
			"without hugepages)\n");
	}
}

static unsigned int
pool_size_needed(const struct mcfan_app *app, uint64_t *held)
{
	unsigned int lcores = rte_lcore_count(), w, k, rxq, id;
	bool hosting = false;
	uint64_t need;

	/* RX descriptors of every queue (and net_pcap infinite_rx's captures) + every worker
	 * thread's rings full + in flight */
	need = mcfan_ports_mbufs(app, held, &rxq) + MCFAN_MAX_BURST;
	for (w = 0; w < app->n_workers; w++) {
		id = app->worker_lcore_ids[w];
		/* the rings of hosted workers and their host's own are emptied in the RX pass that
		 * filled them (datapath/lcore.c): together they hold one pass, counted below */
		if (app->lcores[id].host_id != RTE_MAX_LCORE || app->lcores[id].n_hosted > 0) {
			hosting = true;
			/* a hosted lcore's thread only waits: its host frees into its own cache */
			if (app->lcores[id].host_id != RTE_MAX_LCORE)
				lcores--;
			continue;
		}
		need += (uint64_t)app->n_rx * app->cfg.ring_size;
	}
	/* a burst and a cache per lcore whose thread takes or returns mbufs */
	need += (uint64_t)lcores * (app->cfg.burst + MCFAN_MBUF_CACHE);
	/* one RX pass: every (port, queue) pair polled once, at the largest burst `set burst`
	 * allows; replicated copies are references to the same mbufs */
	if (hosting)
		need += (uint64_t)RTE_MAX(rxq, 1u) * MCFAN_MAX_BURST;
	/* the pcap engine's rings hold copies until its writer has written them */
	for (w = 0; w < app->n_workers; w++)
		for (k = 0; k < app->n_inst; k++)
			if (mcfan_pcap_of(app, &app->lcores[app->worker_lcore_ids[w]], k) != NULL)
				need += MCFAN_PCAP_RING_SIZE;
	return (unsigned int)RTE_MIN(need, (uint64_t)UINT32_MAX);
}

/* The pool could not be made: how much it needs, how much the heap has, and the remedy that
 * fits this run (hugepages or not). */
static void
pool_failure(const struct mcfan_app *app, unsigned int n)
{
	int socket = (int)rte_lcore_to_socket_id(app->rx_lcore_ids[0]);
	struct rte_malloc_socket_stats st;
	struct rte_mempool_objsz sz;
	uint64_t need, free_b = 0, largest = 0, pg;
	int err = rte_errno;
	char rings[256] = "", remedy[512], pages[256];
	uint64_t reserved;

	rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM +
				  app->cfg.mbuf_size, 0, &sz);
	/* without hugepages an mbuf may not cross a 4 KiB page (it must be IOVA-contiguous):
	 * one 2.3 KiB mbuf a page, 1.7 times the objects' size */
	pg = rte_eal_has_hugepages() ? 0 : (uint64_t)sysconf(_SC_PAGESIZE);
	if (pg != 0 && sz.total_size <= pg)
		need = ((uint64_t)n + pg / sz.total_size - 1) / (pg / sz.total_size) * pg;
	else
		need = (uint64_t)n * sz.total_size;
	if (app->cfg.mbufs == 0) /* the pool was sized for the rings: name them */
		snprintf(rings, sizeof(rings), " or --ring-size (the pool holds the ring of every "
			 "worker that is not hosted full: %u slots, %s)", app->cfg.ring_size,
			 app->ring_size_why);
	if (rte_malloc_get_socket_stats(socket, &st) == 0) {
		free_b = st.heap_freesz_bytes;
		largest = st.greatest_free_size;
	}
	/* with hugepages the heap grows while pages are free, unless an EAL option caps it:
	 * then that option is the remedy, not more pages (a trial finding) */
	if (!rte_eal_has_hugepages())
		snprintf(remedy, sizeof(remedy), "raise -m (--no-huge)");
	else if (strncmp(eal_mem_cap, "--socket-limit", 14) == 0)
		snprintf(remedy, sizeof(remedy), "raise %s (it caps the heap; hugepages: %s)",
			 eal_mem_cap, mcfan_hugepages_free(&reserved, pages, sizeof(pages)) < 0 ?
			 "unknown" : pages);
	else if (eal_mem_cap[0] != '\0')
		snprintf(remedy, sizeof(remedy), "raise -m or --socket-mem (with %s EAL takes "
			 "all its memory at start and never grows the heap; hugepages: %s)",
			 eal_mem_cap, mcfan_hugepages_free(&reserved, pages, sizeof(pages)) < 0 ?
			 "unknown" : pages);
	else
		snprintf(remedy, sizeof(remedy), "reserve more hugepages (dpdk-hugepages.py, "
			 "/sys/kernel/mm/hugepages; %s) or raise --socket-mem",
			 mcfan_hugepages_free(&reserved, pages, sizeof(pages)) < 0 ? "unknown" : pages);
	MCFAN_LOG(ERR, "cannot create a pool of %u mbufs on socket %d: %s; it needs about "
		  "%" PRIu64 " MiB, the heap has %" PRIu64 " MiB free (largest block %" PRIu64
		  " MiB): %s, or lower --mbufs%s%s\n", n, socket, rte_strerror(err),
		  need >> 20, free_b >> 20, largest >> 20, remedy, rings,
		  app->cfg.mbuf_size > MCFAN_MBUF_SIZE_DEFAULT ? " or --mbuf-size" : "");
	rte_errno = err;
}

static int
create_pool(struct mcfan_app *app)
{
	uint64_t held;
	unsigned int need = pool_size_needed(app, &held);
	unsigned int n = app->cfg.mbufs;
	int ret;

	if (n != 0 && held > 0 && n < need) {
		/* the PMD would fail its queue setup half-way (and warn about its own ring) */
		fprintf(stderr, "mcfan: --mbufs %u: net_pcap with infinite_rx=1 keeps its whole "
			"capture in mbufs (%" PRIu64 " of them): the pool needs at least %u mbufs; "
			"give --mbufs %u or more, or leave --mbufs out (mcfan sizes the pool)\n",
			n, held, need, need);
		return -EINVAL;
	}
	if (n == 0)
		n = RTE_MAX(need, (unsigned int)MCFAN_MIN_MBUFS);
	else if (n < need)
		MCFAN_LOG(WARNING, "--mbufs %u is below the %u mbufs that all RX queues and rings "
			  "can hold: expect rx_nombuf under load\n", n, need);
	/* on the node of the lcores that fill it: the (first) RX lcore's (docs/topology.md) */
	app->pool_ops = mcfan_placement_pool_ops(app, app->pool_ops_why,
						 sizeof(app->pool_ops_why));
	ret = mcfan_ports_pool_ops_check(&app->pool_ops, rte_eal_mbuf_user_pool_ops() != NULL,
					 app->pool_ops_why, sizeof(app->pool_ops_why));
	if (ret < 0)
		return ret;
	for (;;) {
		/* --mbuf-size: the frame bytes after the headroom (at most UINT16_MAX in all) */
		app->pool = rte_pktmbuf_pool_create_by_ops("mcfan_pool", n, MCFAN_MBUF_CACHE, 0,
			(uint16_t)(RTE_PKTMBUF_HEADROOM + app->cfg.mbuf_size),
			(int)rte_lcore_to_socket_id(app->rx_lcore_ids[0]), app->pool_ops);
		/* rings larger than the default only by placement: halve them (and the pool)
		 * rather than refuse a run the old default would have fitted (-m 256) */
		if (app->pool != NULL || rte_errno != ENOMEM || app->cfg.ring_size_set ||
		    app->cfg.mbufs != 0 || app->cfg.ring_size <= MCFAN_DEFAULT_RING_SIZE)
			break;
		MCFAN_LOG(WARNING, "the mbuf pool for %u-slot worker rings (%u mbufs) did not fit "
			  "in memory: %u slots instead (--ring-size chooses; -m or hugepages give "
			  "more memory)\n", app->cfg.ring_size, n, app->cfg.ring_size / 2);
		app->cfg.ring_size /= 2;
		n = RTE_MAX(pool_size_needed(app, &held), (unsigned int)MCFAN_MIN_MBUFS);
		if (!app->ring_size_lowered) {
			size_t k = strlen(app->ring_size_why);

			snprintf(app->ring_size_why + k, sizeof(app->ring_size_why) - k,
				 ", lowered: a pool for more did not fit in memory");
		}
		app->ring_size_lowered = true;
	}
	if (app->pool == NULL) {
		pool_failure(app, n);
		return -rte_errno;
	}
	app->pool_size = n;
	MCFAN_LOG(INFO, "mbuf pool: %u mbufs of %u data bytes, handler %s: %s\n", n,
		  app->cfg.mbuf_size, app->pool_ops, app->pool_ops_why);
	return 0;
}


static void
msacc_init_all(struct mcfan_app *app)
{
	uint64_t now = rte_rdtsc();
	unsigned int id;

	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (app->lcores[id].role == MCFAN_ROLE_NONE)
			continue;
		mcfan_msacc_init(&app->lcores[id].ms, app->lcores[id].role, now);
		/* --no-msacc: data lcores measure nothing (the control lcore still does) until
		 * `msacc on`; the lcores are not launched yet, so this thread may pause them */
		if (!app->cfg.msacc && id != app->main_lcore)
			mcfan_msacc_pause(&app->lcores[id].ms, now);
	}
}

/* The first error that writing to standard output met (errno), 0 = none, and whether it was
 * said on stderr: main lcore only. */
static int stdout_err;
static bool stdout_said;

/* Flush standard output; returns 0 or the first error it ever met (remembered). */
static int
stdout_check(void)
{
	if ((fflush(stdout) != 0 || ferror(stdout)) && stdout_err == 0)
		stdout_err = errno != 0 ? errno : EIO;
	return stdout_err;
}

/* Standard output failed (a closed pipe: EPIPE, or a full disk): say so once on stderr and
 * stop the run as a signal would; true if so. Main lcore only. */
static bool
stdout_lost(void)
{
	if (stdout_check() == 0)
		return false;
	if (output_dropped) /* stopping already; stdout_status() says why */
		return true;
	fprintf(stderr, "mcfan: cannot write to standard output (%s): stopping; the JSON "
		"report, if asked for, is still written\n", strerror(stdout_err));
	stdout_said = true;
	mcfan_atomic_flag_store(&mcfan_app.live.quit, true, memory_order_release);
	return true;
}

/* Where the text reports go (the final one, --stats-period's, kill -USR1's): standard output,
 * or standard error when the JSON report goes to standard output (--report-json -), which
 * then holds the JSON alone. */
static FILE *
text_report_out(const struct mcfan_app *app)
{
	return app->cfg.report_json[0] != '\0' &&
	       app->cfg.report_json_mode == MCFAN_OUTFILE_STDOUT ? stderr : stdout;
}

/* Milliseconds from now to deadline (TSC), rounded up; 0 if it has passed. */
static int
ms_until(uint64_t deadline, uint64_t now, uint64_t hz)
{
	if (now >= deadline)
		return 0;
	return (int)RTE_MIN((deadline - now) * 1000 / hz + 1, (uint64_t)INT32_MAX);
}

/* The main lcore's loop: periodic summary, duration, stop requests, control housekeeping and
 * the console. Between two ticks it waits in poll() for the console's input, an action's
 * wake-up (control/action.h) or the next deadline: its own (--duration, --stats-period) or
 * the tick's (mcfan_control_wait_ms(): 10 ms while the tick has work, else up to 100 ms). */
static void
control_loop(struct mcfan_app *app)
{
	struct mcfan_msacc *ms = &app->lcores[app->main_lcore].ms;
	uint64_t hz = app->tsc_hz, now, end = 0, next_stats = 0, period = 0;
	struct pollfd pfd[2];
	bool console;
	int timeout, n;

	if (app->cfg.duration_s > 0) {
		end = app->start_tsc + (uint64_t)(app->cfg.duration_s * (double)hz);
		/* a periodic report blocked in write(1) at --duration's end would keep this
		 * loop from seeing it: the grace runs from the end (on_output_timeout()) */
		if (app->cfg.duration_s < (double)(UINT_MAX - STOP_OUTPUT_GRACE_S - 1))
			alarm((unsigned int)app->cfg.duration_s + 1 + STOP_OUTPUT_GRACE_S);
	}
	if (app->cfg.stats_period_s > 0) {
		period = (uint64_t)(app->cfg.stats_period_s * (double)hz);
		next_stats = app->start_tsc + period;
	}
	pfd[1].fd = mcfan_ctl_wake_open();
	if (pfd[1].fd < 0)
		MCFAN_LOG(WARNING, "control lcore: no wake-up for actions (%s): it ticks every "
			  "%d ms\n", strerror(-pfd[1].fd), MCFAN_CONTROL_TICK_MS);
	pfd[1].events = POLLIN;
	for (;;) {
		now = rte_rdtsc();
		mcfan_msacc_add(ms, MCFAN_MS_OTHER, now);
		if (mcfan_live_quitting(&app->live))
			break;
		if (end != 0 && now >= end)
			break;
		if (period != 0 && now >= next_stats) {
			mcfan_report_print(app, text_report_out(app), false);
			if (stdout_lost())
				break;
			next_stats += period;
			if (next_stats < now)
				next_stats = now + period;
			mcfan_msacc_add(ms, MCFAN_MS_TELEMETRY, rte_rdtsc());
		}
		if (report_asked) { /* kill -USR1: the report now, the run goes on */
			report_asked = 0;
			mcfan_report_print(app, text_report_out(app), false);
			if (stdout_lost())
				break;
			mcfan_msacc_add(ms, MCFAN_MS_TELEMETRY, rte_rdtsc());
		}
		mcfan_control_tick(app);
		now = rte_rdtsc();
		/* up to 100 ms of sleep follow: a snapshot meanwhile guesses them so */
		mcfan_msacc_add_then(ms, MCFAN_MS_OTHER, MCFAN_MS_SLEEP, now);
		timeout = pfd[1].fd >= 0 ? (int)mcfan_control_wait_ms(app) : MCFAN_CONTROL_TICK_MS;
		if (end != 0)
			timeout = RTE_MIN(timeout, ms_until(end, now, hz));
		if (period != 0)
			timeout = RTE_MIN(timeout, ms_until(next_stats, now, hz));
		console = mcfan_console_pollfd(&pfd[0], &timeout);
		if (!console)
			pfd[0].fd = -1; /* poll() skips it */
		n = poll(pfd, 2, timeout);
		mcfan_msacc_add(ms, MCFAN_MS_SLEEP, rte_rdtsc());
		if (n > 0 && pfd[1].fd >= 0 && (pfd[1].revents & POLLIN))
			mcfan_ctl_wake_take();
		if (console && mcfan_console_handle(app, n > 0 ? pfd[0].revents : 0) > 0)
			mcfan_msacc_add(ms, MCFAN_MS_CONSOLE, rte_rdtsc());
	}
	mcfan_ctl_wake_close();
}

/* A host empties its hosted workers' rings of each RX pass (datapath/lcore.c), so a ring
 * smaller than one pass (its pairs x the burst) overflows at every full pass: say so at
 * start, with the size that keeps every frame. */
static void
hosted_ring_check(const struct mcfan_app *app)
{
	const struct mcfan_lcore *lc;
	unsigned int r, pass;

	for (r = 0; r < app->n_rx; r++) {
		lc = &app->lcores[app->rx_lcore_ids[r]];
		pass = lc->n_ports * app->cfg.burst;
		if (lc->n_hosted == 0 || app->cfg.ring_size >= pass)
			continue;
		MCFAN_LOG(WARNING, "hosted workers: a worker ring of %u slots holds less than one "
			  "RX pass of lcore %u (%u (port, queue) pairs x burst %u = %u frames): "
			  "expect ring_full whenever the ports are busy; --ring-size %u or more "
			  "keeps every frame\n", app->cfg.ring_size, lc->lcore_id, lc->n_ports,
			  app->cfg.burst, pass, rte_align32pow2(pass));
	}
}

/* Wait for every data lcore to return; 0, or the first lcore's error (an engine's start). */
static int
wait_data_lcores(void)
{
	unsigned int id;
	int ret, first = 0;

	RTE_LCORE_FOREACH_WORKER(id) {
		ret = rte_eal_wait_lcore(id);
		if (ret != 0 && first == 0)
			first = ret;
	}
	return first;
}

static void
close_ports(struct mcfan_app *app)
{
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (!app->ports[port].used)
			continue;
		if (rte_eth_stats_get(port, &app->ports[port].final_stats) == 0)
			app->ports[port].have_final = true;
		rte_eth_dev_close(port);
	}
}

/* Remove this process's telemetry socket (found at start: telemetry/socket.h) and EAL's
 * runtime directory if nothing else is left in it. */
static void
remove_runtime_dir(const char *dir, const char *socket_path)
{
	if (socket_path[0] != '\0')
		unlink(socket_path);
	if (dir[0] != '\0')
		rmdir(dir);
}

/* The start's telemetry line: the socket, and the commands that query it, a first user's
 * next question (a trial's finding). The socket is RUNTIME_DIR/dpdk_telemetry.v2[:N]: the
 * file prefix is the runtime directory's last part, N the instance of a prefix's second and
 * later processes (--in-memory runs beside each other), which the tools take as -i N. */
static void
telemetry_socket_log(const char *socket_path)
{
	const char *name = strrchr(socket_path, '/'), *inst;
	char prefix[PATH_MAX], dash_i[32] = "";
	const char *p;
	size_t n;

	if (name == NULL || name == socket_path) {
		MCFAN_LOG(INFO, "telemetry socket %s\n", socket_path);
		return;
	}
	for (p = name - 1; p > socket_path && *p != '/'; p--)
		;
	n = (size_t)(name - p - 1);
	snprintf(prefix, sizeof(prefix), "%.*s", (int)n, p + 1);
	inst = strchr(name, ':');
	if (inst != NULL && inst[1] != '\0')
		snprintf(dash_i, sizeof(dash_i), " -i %s", inst + 1);
	MCFAN_LOG(INFO, "telemetry socket %s (query it: dpdk-telemetry.py -f %s%s; watch: "
		  "mcfan-top -f %s%s)\n", socket_path, prefix, dash_i, prefix, dash_i);
}

/* EAL's --help (mcfan --help, without "--"): after EAL's own options, mcfan's */
static void
eal_help_hook(const char *prog)
{
	printf("\nmcfan's own options go after '--' (mcfan [EAL options] -- [mcfan options]); "
	       "mcfan -- --help prints them alone:\n\n");
	mcfan_params_usage(prog);
}

/*
 * Standard input, output and error must be open before anything else opens a file: EAL's
 * first open would otherwise take the free descriptor 0, 1 or 2, and the report (or EAL's own
 * log, or the console's reading) would go into EAL's shared runtime files. A closed one is
 * pointed at /dev/null. 0, or -errno if /dev/null cannot be opened.
 */
static int
stdio_open(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* open() returns the lowest free descriptor: this one */
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			return -errno;
	}
	return 0;
}

/*
 * At exit: what mcfan printed to standard output must have arrived. A reader that went away
 * (EPIPE: mcfan ... | head) is not an error; any other failure (a full disk: ENOSPC) is named
 * on stderr and turns a successful status into EXIT_FAILURE.
 */
static int
stdout_status(int status)
{
	bool json_out;

	alarm(0); /* written: no grace left to watch */
	if (output_dropped) {
		json_out = mcfan_app.cfg.report_json[0] != '\0' &&
			   mcfan_app.cfg.report_json_mode == MCFAN_OUTFILE_STDOUT;
		fprintf(stderr, "mcfan: standard output took nothing for %d s after the %s "
			"(a reader that does not read): the rest of the %s report was "
			"dropped, so that mcfan could stop%s\n", STOP_OUTPUT_GRACE_S,
			grace_armed == GRACE_SIGNAL ? "stop signal" : "run's end",
			json_out ? "JSON" : "text", json_out ? "" :
			"; the JSON report, if asked for, is written");
		/* --report-json -: the report asked for is lost */
		return json_out && status == EXIT_SUCCESS ? EXIT_FAILURE : status;
	}
	if (stdout_check() == 0 || stdout_err == EPIPE)
		return status;
	if (!stdout_said)
		fprintf(stderr, "mcfan: cannot write to standard output: %s\n",
			strerror(stdout_err));
	return status == EXIT_SUCCESS ? EXIT_FAILURE : status;
}

/* CLOCK_REALTIME in seconds since the epoch (0 if the clock cannot be read). */
static double
wall_clock_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct mcfan_app *app = &mcfan_app;
	int eal_argc, app_first, ret, status = EXIT_SUCCESS;
	char **app_argv;
	char runtime_dir[PATH_MAX], socket_path[PATH_MAX] = "";
	unsigned int n_huge;
	bool launched = false, hosts_shared = false;
	char **eal_given;

	memset(app, 0, sizeof(*app));
	/* before anything that may block or take long (reading the config file): a signal
	 * then is taken as documented, never by its default action */
	signals_install(SA_RESTART);
	app->start_time_s = wall_clock_s();
	if (stdio_open() < 0)
		return EXIT_FAILURE;
	split_args(argc, argv, &eal_argc);
	/* --groups before "--" (or no "--"): EAL would print its whole usage */
	if (mcfan_params_eal_side_check(eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	app_first = eal_argc < argc ? eal_argc : argc - 1;
	/* mcfan's own argv: argv[0] followed by everything after "--" */
	app_argv = calloc((size_t)(argc - app_first + 1), sizeof(char *));
	if (app_argv == NULL)
		return EXIT_FAILURE;
	app_argv[0] = argv[0];
	memcpy(&app_argv[1], &argv[app_first + 1], (size_t)(argc - app_first - 1) *
	       sizeof(char *));
	ret = mcfan_params_parse(argc - app_first, app_argv, &app->cfg);
	free(app_argv);
	if (ret != 0)
		return stdout_status(ret > 0 ? EXIT_SUCCESS : MCFAN_EXIT_USAGE);
	/* A/B pairs that cannot be made: refused before EAL, like a bad option */
	if (mcfan_seq_check(&app->cfg) < 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* --group-engine: the engine instances and the groups' (docs/delivery.md) */
	if (mcfan_group_engine_resolve(&app->cfg) < 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* --print-topology/--print-placement, and EAL's --lcores when mcfan places lcores */
	if (mcfan_placement_cli_pre_eal(&app->cfg, &eal_argc, &argv, &ret) != 0)
		return stdout_status(ret);

	mcfan_live_init(&app->live, &app->cfg);

	/* from here on a blocking call that a stop or SIGUSR1 interrupts (a blocked write(1),
	 * the console's read) ends with EINTR, where the control loop sees it at once */
	signals_install(0);

	/* --vdev arguments a PMD would fail on in several lines: one line, exit 2 */
	if (mcfan_vdev_check(eal_argc, argv, app->cfg.mbuf_size) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* --report-json naming a net_pcap capture: the exit would replace it */
	if (mcfan_vdev_report_check(eal_argc, argv,
				    app->cfg.report_json_mode == MCFAN_OUTFILE_STDOUT ? NULL :
				    app->cfg.report_json) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* a --file-prefix EAL could not use (it would fall back to "rte"): exit 2 */
	if (mcfan_prefix_check(eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* an -m EAL would read as another size (atoi: "1G" is 1 MB): exit 2 */
	if (mcfan_mem_check(eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* a --log-level EAL would ignore after a warning ("debugg"): exit 2 */
	if (mcfan_log_level_check(eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* --proc-type secondary or auto: mcfan is the primary that owns its ports */
	if (mcfan_proc_type_check(eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* a CPU of -l, -c or --lcores that is not online: exit 2 (outside taskset's: warned) */
	if (mcfan_lcore_cpus_check(eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* an option the lcores of -l, -c or --lcores cannot serve (--idle-worker): exit 2 */
	if (mcfan_lcore_check(&app->cfg, eal_argc, argv) != 0)
		return stdout_status(MCFAN_EXIT_USAGE);
	/* EAL prints its usage for its --help and exits: with mcfan's after it */
	if (mcfan_eal_has_flag(eal_argc, argv, "--help") || mcfan_eal_has_flag(eal_argc, argv, "-h"))
		rte_set_application_usage_hook(eal_help_hook);
	rewrite_in_memory(eal_argc, argv);
	/* rte_eal_init rewrites argv (getopt's permutation, and its program name over the last
	 * option it parsed: a --file-prefix or --in-memory given last before "--"): what mcfan
	 * reads of the EAL options afterwards comes from this copy of the pointers */
	eal_given = calloc((size_t)eal_argc + 1, sizeof(*eal_given));
	if (eal_given == NULL)
		return EXIT_FAILURE;
	memcpy(eal_given, argv, (size_t)eal_argc * sizeof(*argv));
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		mcfan_eal_failure(eal_argc, eal_given);
		free(eal_given);
		return rte_errno == EINVAL ? MCFAN_EXIT_USAGE : EXIT_FAILURE;
	}
	/* EAL made this run its primary: every --proc-type but primary is refused above
	 * (mcfan_proc_type_check()), and EAL's default is primary */
	mcfan_capture_init(eal_argc, eal_given); /* dpdk-dumpcap, dpdk-pdump (docs/capture.md) */
	keep_hugepage_files = mcfan_eal_has_flag(eal_argc, eal_given, "--in-memory") ||
			      mcfan_eal_has_flag(eal_argc, eal_given, "--huge-unlink=never");
	if (mcfan_eal_opt_value(eal_argc, eal_given, "--socket-limit") != NULL)
		snprintf(eal_mem_cap, sizeof(eal_mem_cap), "--socket-limit %s",
			 mcfan_eal_opt_value(eal_argc, eal_given, "--socket-limit"));
	else if (mcfan_eal_has_flag(eal_argc, eal_given, "--legacy-mem"))
		snprintf(eal_mem_cap, sizeof(eal_mem_cap), "--legacy-mem");
	free(eal_given);
	if (mcfan_telemetry_socket_path(rte_eal_get_runtime_dir(), socket_path,
					sizeof(socket_path)) == 0)
		telemetry_socket_log(socket_path);
	app->tsc_hz = tsc_hz_measure(rte_get_tsc_hz());
	app->window = rte_zmalloc("mcfan_msacc_window", sizeof(*app->window), 0);
	if (app->window == NULL) {
		status = EXIT_FAILURE;
		goto cleanup;
	}
	mcfan_msacc_window_init(app->window);

	if (mcfan_placement_cli_roles(app) < 0 || mcfan_setup_lcores(app) < 0 ||
	    mcfan_igmp_check(app) < 0) {
		status = MCFAN_EXIT_USAGE;
		goto cleanup;
	}
	if (rte_eth_dev_count_avail() == 0) {
		mcfan_eal_no_port_probed();
		status = MCFAN_EXIT_USAGE;
		goto cleanup;
	}
	/* RX or output-only: --rx-ports, else a tx output named at start is output-only */
	if (mcfan_ports_roles(app) < 0) {
		status = MCFAN_EXIT_USAGE;
		goto cleanup;
	}
	if (mcfan_placement_hosts(app, app->hosts_why, sizeof(app->hosts_why), &hosts_shared) > 0 ||
	    hosts_shared)
		MCFAN_LOG(INFO, "hosted workers: %s\n", app->hosts_why);
	app->cfg.ring_size = mcfan_placement_ring_size(app, app->ring_size_why,
						       sizeof(app->ring_size_why));
	/* the pool first: it may lower a ring size that placement chose */
	ret = create_pool(app);
	if (ret == 0)
		MCFAN_LOG(INFO, "worker rings: %u slots: %s\n", app->cfg.ring_size,
			  app->ring_size_why);
	if (ret == 0 && mcfan_setup_rings(app) < 0) {
		status = EXIT_FAILURE;
		goto cleanup;
	}
	if (ret < 0 || mcfan_groups_start(app) < 0) {
		status = ret == -EINVAL ? MCFAN_EXIT_USAGE : EXIT_FAILURE;
		goto cleanup;
	}
	ret = mcfan_ports_init(app);
	if (ret == -EINTR)
		goto stop;
	if (ret < 0) {
		/* -E2BIG: RX queues no RX lcore can take (named): bad input */
		status = ret == -E2BIG ? MCFAN_EXIT_USAGE : EXIT_FAILURE;
		goto stop;
	}
	if (mcfan_live_quitting(&app->live))
		goto stop;
	mcfan_placement_cli_report(app);
	hosted_ring_check(app);
	ret = mcfan_idle_setup(app);
	if (ret < 0) {
		status = ret == -ENOTSUP ? MCFAN_EXIT_USAGE : EXIT_FAILURE;
		goto stop;
	}
	if (mcfan_control_init(app) < 0 || mcfan_pcap_start(app) < 0) {
		status = EXIT_FAILURE;
		goto stop;
	}
	if (mcfan_console_init(app) < 0) {
		status = MCFAN_EXIT_USAGE;
		goto stop;
	}

	msacc_init_all(app);
	app->start_tsc = rte_rdtsc();
	if (mcfan_telemetry_init(app) < 0)
		MCFAN_LOG(WARNING, "telemetry commands unavailable\n");
	/* --metrics-listen: a port in use (or any bind error) refuses the start, exit 2 */
	if (mcfan_metrics_start(app) < 0) {
		status = MCFAN_EXIT_USAGE;
		goto stop;
	}
	mcfan_atomic_u32_store(&app->live.phase, MCFAN_PHASE_RUN, memory_order_release);
	ret = rte_eal_mp_remote_launch(mcfan_lcore_main, app, SKIP_MAIN);
	if (ret != 0) {
		MCFAN_LOG(ERR, "cannot launch the data lcores: %s\n", rte_strerror(-ret));
		status = EXIT_FAILURE;
	} else {
		launched = true;
		MCFAN_LOG(INFO, "running: RX lcores %u, workers %u, groups %u, fan-out %s\n",
			  app->n_rx, app->n_workers, app->n_group_entries,
			  mcfan_fanout_name(app->cfg.fanout));
		control_loop(app);
	}

stop:
	/* the end of the run (--duration, quit, an error): the report's writes get the grace */
	arm_output_grace(GRACE_END);
	mcfan_console_close(app); /* the terminal back to normal before the report */
	/* no scrape while the ports are stopped and closed (rte_eth_stats_get on a closing
	 * port); Prometheus keeps the last scrape, the report has the final values */
	mcfan_metrics_stop();
	mcfan_atomic_u32_store(&app->live.phase, MCFAN_PHASE_STOP_RX, memory_order_release);
	/* sleeping workers see the phase now, not at their timer: the RX queues wait unpolled
	 * until the join and the quit drain */
	mcfan_idle_wake_all(app);
	if (launched && wait_data_lcores() != 0 && status == EXIT_SUCCESS)
		status = EXIT_FAILURE; /* an engine refused to start (logged by its lcore) */
	mcfan_pcap_stop(app); /* the workers are done: the writer drains their rings */
	mcfan_idle_free(app);
	mcfan_atomic_u32_store(&app->live.phase, MCFAN_PHASE_DONE, memory_order_release);
	app->stop_tsc = rte_rdtsc();
	/* frames still in the RX queues: counted (quit_drained), and before the ports stop so
	 * the kernel-side counters read there are final */
	if (launched)
		mcfan_quit_drain(app);
	mcfan_ports_stop(app);
	app->mbufs_kept_max = mcfan_ports_kept_mbufs_max(); /* while the ports are there */
	close_ports(app);
	app->mbufs_outside = app->pool == NULL ? 0 :
		(int64_t)app->pool_size - (int64_t)rte_mempool_avail_count(app->pool);
	/* a refused or failed start reports nothing (its one line said why); a stop asked for
	 * before the start still reports */
	if (launched || status == EXIT_SUCCESS) {
		mcfan_report_print(app, text_report_out(app), true);
		stdout_check(); /* now, while errno still says why */
		if (app->cfg.report_json[0] != '\0' &&
		    mcfan_report_json(app, app->cfg.report_json) < 0)
			status = EXIT_FAILURE;
	}
cleanup:
	mcfan_metrics_stop(); /* (again: idempotent) before anything it reads is freed */
	mcfan_telemetry_stop();
	mcfan_control_free(app);
	mcfan_setup_free(app);
	rte_mempool_free(app->pool);
	app->pool = NULL;
	rte_free(app->window);
	/*
	 * EAL leaves its runtime directory behind, and telemetry removes its socket only in an
	 * exit handler; the process is past serving queries here, so remove both now (rmdir
	 * only succeeds if nothing else is left in the directory).
	 */
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	mcfan_capture_uninit();
	n_huge = mcfan_eal_hugepage_files_remove(keep_hugepage_files);
	if (n_huge > 0)
		MCFAN_LOG(INFO, "removed the %u hugepage file%s of this run from the hugetlbfs "
			  "mount: its pages are free again (docs/capture.md)\n", n_huge,
			  n_huge == 1 ? "" : "s");
	rte_eal_cleanup();
	remove_runtime_dir(runtime_dir, socket_path);
	mcfan_placement_free(); /* after EAL: its argv may hold the generated --lcores */
	return stdout_status(status);
}
