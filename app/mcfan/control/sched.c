/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Scheduler counters of the data lcores (control/sched.h). Each data lcore stores its
 * thread id (rte_sys_gettid()) in lcores[].tid before its loop; the control side reads
 * /proc/self/task/TID/schedstat ("run-time-ns run-delay-ns timeslices"). Each growth of
 * run-delay (converted to TSC cycles) happened while the lcore's msacc charged some states:
 * it is shared over the cycles the states were charged since the previous read, in
 * proportion (any part beyond them waits for the next read), and handed to msacc as
 * per-state cumulative amounts (mcfan_msacc_set_wait()), which never decrease, so every
 * window's states stay non-negative and wait_cpu is the run-delay of the window. While
 * msacc is off the growth is dropped, so a window never holds wait from a time it did
 * not measure. The file stays open between reads (pread from offset 0 makes the kernel
 * write it anew): opening it every 10 ms tick for every lcore was most of the control
 * lcore's CPU on an idle host (the path walk of /proc, docs/performance.md "Worker timers").
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_spinlock.h>

#include "mcfan.h"
#include "control/sched.h"

/* One lcore: the last run-delay read and the wait added up since the start. */
struct sched_lcore {
	int fd;               /* its schedstat file + 1 (0 = not open: calloc'd state) */
	bool seen;            /* last_ns and prev[] hold values */
	uint64_t last_ns;     /* schedstat run-delay at the last read */
	uint64_t wait_ns;     /* run-delay growth while msacc was on */
	uint64_t init_tsc;    /* the msacc epoch prev[] and adj[] belong to */
	uint64_t carry;       /* wait cycles not yet shared (more than the states had) */
	uint64_t prev[MCFAN_MS_MAX]; /* msacc's charged cycles at the last read */
	uint64_t adj[MCFAN_MS_MAX];  /* per state, its cycles that were waiting (cumulative) */
};

struct mcfan_sched {
	struct sched_lcore lcores[RTE_MAX_LCORE];
};

/* The second field of /proc/self/task/TID/schedstat (ns), through the lcore's open file;
 * false if unreadable (the file is closed then, and opened again at the next read). */
static bool
run_delay(struct sched_lcore *s, int tid, uint64_t *ns)
{
	char path[64], buf[96];
	uint64_t run;
	ssize_t n;

	if (s->fd <= 0) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
		s->fd = open(path, O_RDONLY | O_CLOEXEC) + 1;
		if (s->fd <= 0)
			return false;
	}
	n = pread(s->fd - 1, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		close(s->fd - 1);
		s->fd = 0;
		return false;
	}
	buf[n] = '\0';
	return sscanf(buf, "%" SCNu64 " %" SCNu64, &run, ns) == 2;
}

/* Share wait cycles w over the states' growth since the last read (lock held). */
static void
share_wait(struct sched_lcore *s, const struct mcfan_msacc_snap *snap, uint64_t w)
{
	uint64_t real[MCFAN_MS_MAX], g[MCFAN_MS_MAX], total = 0, take, given = 0, part;
	unsigned int i, big = 0;

	for (i = 0; i < MCFAN_MS_MAX; i++)
		real[i] = snap->cycles[i] - (i == snap->state ? snap->pending : 0);
	if (snap->init_tsc != s->init_tsc) { /* a new epoch: start over */
		memset(s->adj, 0, sizeof(s->adj));
		memcpy(s->prev, real, sizeof(real));
		s->init_tsc = snap->init_tsc;
		s->carry = 0;
		return;
	}
	for (i = 0; i < MCFAN_MS_MAX; i++) {
		g[i] = i == MCFAN_MS_WAIT_CPU || real[i] < s->prev[i] ? 0 : real[i] - s->prev[i];
		total += g[i];
		if (g[i] > g[big])
			big = i;
	}
	s->carry += w;
	take = RTE_MIN(s->carry, total);
	for (i = 0; take > 0 && i < MCFAN_MS_MAX; i++) {
		part = (uint64_t)((unsigned __int128)g[i] * take / total);
		s->adj[i] += part;
		given += part;
	}
	/* the rounding remainder (fewer than MCFAN_MS_MAX cycles) to the state that grew most */
	s->adj[big] += take - given;
	s->carry -= take;
	memcpy(s->prev, real, sizeof(real));
}

static int
lcore_tid(const struct mcfan_lcore *lc)
{
	return __atomic_load_n(&lc->tid, __ATOMIC_RELAXED);
}

void
mcfan_sched_update(struct mcfan_app *app)
{
	bool ms_on = mcfan_live_msacc(&app->live);
	struct mcfan_msacc_snap snap;
	struct sched_lcore *s;
	struct mcfan_lcore *lc;
	uint64_t ns, dw;
	unsigned int id;
	int tid;

	mcfan_ctl_state_lock(app); /* the main lcore and the telemetry thread may both get here first */
	if (app->sched == NULL)
		app->sched = calloc(1, sizeof(*app->sched));
	for (id = 0; app->sched != NULL && id < RTE_MAX_LCORE; id++) {
		lc = &app->lcores[id];
		if (id == app->main_lcore || lc->role == MCFAN_ROLE_NONE)
			continue;
		tid = lcore_tid(lc);
		s = &app->sched->lcores[id];
		if (tid <= 0 || !run_delay(s, tid, &ns))
			continue;
		mcfan_msacc_snapshot(&lc->ms, rte_rdtsc(), &snap);
		dw = 0;
		if (s->seen && ms_on && !snap.paused && ns > s->last_ns) {
			s->wait_ns += ns - s->last_ns;
			dw = (uint64_t)((unsigned __int128)(ns - s->last_ns) * app->tsc_hz /
					NS_PER_S);
		}
		if (!s->seen)
			s->init_tsc = snap.init_tsc - 1; /* share_wait() takes the first baseline */
		s->last_ns = ns;
		s->seen = true;
		share_wait(s, &snap, dw);
		mcfan_msacc_set_wait(&lc->ms, s->adj);
	}
	mcfan_ctl_state_unlock(app);
}

/* "NAME:\tVALUE" of /proc/self/task/TID/status. */
static void
status_field(const char *line, const char *name, uint64_t *v)
{
	size_t n = strlen(name);

	if (strncmp(line, name, n) == 0 && line[n] == ':')
		sscanf(line + n + 1, "%" SCNu64, v);
}

int
mcfan_sched_read(struct mcfan_app *app, unsigned int lcore_id, struct mcfan_sched_view *out)
{
	char path[64], line[256];
	FILE *f;

	memset(out, 0, sizeof(*out));
	if (lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	out->tid = lcore_tid(&app->lcores[lcore_id]);
	if (out->tid <= 0)
		return -ENOENT;
	mcfan_ctl_state_lock(app);
	if (app->sched != NULL)
		out->wait_ns = app->sched->lcores[lcore_id].wait_ns;
	mcfan_ctl_state_unlock(app);
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", out->tid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		status_field(line, "voluntary_ctxt_switches", &out->ctx_voluntary);
		status_field(line, "nonvoluntary_ctxt_switches", &out->ctx_involuntary);
	}
	fclose(f);
	return 0;
}

void
mcfan_sched_free(struct mcfan_app *app)
{
	unsigned int id;

	for (id = 0; app->sched != NULL && id < RTE_MAX_LCORE; id++)
		if (app->sched->lcores[id].fd > 0)
			close(app->sched->lcores[id].fd - 1);
	free(app->sched);
	app->sched = NULL;
}
