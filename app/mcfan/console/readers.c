/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Console command of the reader rings (docs/readers.md, docs/console.md): show readers
 * [GROUP]. It only reads control/readers.h and prints.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>

#include "mcfan.h"
#include "control/action.h"
#include "control/readers.h"
#include "console/console.h"

#define NS_PER_MS 1000000u
#define READERS_WORKERS_SHOWN 64

/* show readers, show readers GROUP (the rings of that group only, and their readers) */
static int
cmd_show_readers(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	struct mcfan_readers_worker_view wv[READERS_WORKERS_SHOWN];
	struct mcfan_readers_view *v = NULL;
	unsigned int i, j, nw = 0, n_readers = 0, dead = 0, other = 0, shown = 0;
	char served[MCFAN_READERS_SERVED_MAX], msg[CTL_ERR_MAX], text[MCFAN_GROUP_STR_MAX];
	struct mcfan_flow_key key;
	uint64_t ret_waiting, ret_freed, recreated;
	bool some = a->groups != NULL;
	int n;

	if (some) {
		n = mcfan_readers_group_parse(mcfan_console_app(con), "show readers", a->groups,
					      &key, msg, sizeof(msg));
		if (n < 0)
			return mcfan_console_result(con, n, msg);
	}
	n = mcfan_readers_read(mcfan_console_app(con), &v, wv, RTE_DIM(wv), &nw);
	if (n == -ENODEV) {
		printf("no reader rings: no worker runs the readers engine (--worker-engine "
		       "readers)\n");
		return 0;
	}
	if (n < 0) {
		printf("show readers: %s\n", strerror(-n));
		return n;
	}
	printf("  %-22s %5s %10s %12s %10s %8s %7s  %-16s %s\n", "group", "lcore", "readers",
	       "written", "too_big", "waiters", "slots", "written_by", "ring");
	for (i = 0; i < (unsigned int)n; i++) {
		if (some && !mcfan_flow_key_equal(&v[i].key, &key))
			continue;
		/* a moved ring's name was taken by its group's newer ring (made under a
		 * temporary name and renamed over it): the old object has no name now */
		/* a name removed from /dev/shm: the tick makes the group a new ring (the log) */
		printf("  %-22s %5u %10u %12" PRIu64 " %10" PRIu64 " %8u %7u  %-16s %s/dev/shm%s%s\n",
		       v[i].group, v[i].owner_lcore, v[i].n_readers, v[i].written, v[i].too_big,
		       v[i].waiters, v[i].n_slots,
		       mcfan_readers_served_text(&v[i], served, sizeof(served)),
		       v[i].serve == MCFAN_RD_SERVE_MOVED ? "(no name: " :
		       v[i].name_gone ? "(removed: " : "", v[i].name,
		       v[i].serve == MCFAN_RD_SERVE_MOVED ? " is the newer ring's)" :
		       v[i].name_gone ? " is gone; mcfan makes a new ring within a second, "
		       "see the log)" : "");
		other += v[i].serve != MCFAN_RD_SERVE_READERS;
		shown++;
	}
	printf("  %-22s %8s %5s %12s %10s %8s %8s %10s %6s\n", "group", "pid", "row", "frames",
	       "lost", "lapped", "lag", "last_ms", "alive");
	for (i = 0; i < (unsigned int)n; i++) {
		if (some && !mcfan_flow_key_equal(&v[i].key, &key))
			continue;
		for (j = 0; j < v[i].n_readers; j++) {
			const struct mcfan_rw_reader_info *r = &v[i].readers[j];

			printf("  %-22s %8d %5u %12" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64
			       " %10" PRIu64 " %6s%s\n", v[i].group, (int)r->pid, r->slot, r->frames,
			       r->lost, r->laps, r->lag, r->idle_ns / NS_PER_MS,
			       !r->alive ? "dead" : r->stopped ? "stopped" : "yes",
			       r->stopped ? " (SIGSTOP: it reads nothing until continued)" :
			       r->waiting ? " (waiting)" : "");
			n_readers++;
			dead += !r->alive;
		}
	}
	/* per worker, not per group: only in the whole listing */
	for (i = 0; i < nw && !some; i++)
		if (wv[i].not_owner != 0 || wv[i].no_ring != 0)
			printf("lcore %u: copies of groups another worker writes %" PRIu64
			       ", without a ring %" PRIu64 "\n", wv[i].lcore, wv[i].not_owner,
			       wv[i].no_ring);
	if (some)
		printf("%s: %u of %d ring%s, %u reader%s (%u dead)",
		       mcfan_group_format(&key, text, sizeof(text)) < 0 ? a->groups : text, shown, n,
		       n == 1 ? "" : "s", n_readers, n_readers == 1 ? "" : "s", dead);
	else
		printf("%d ring%s, %u reader%s (%u dead)", n, n == 1 ? "" : "s", n_readers,
		       n_readers == 1 ? "" : "s", dead);
	if (other > 0)
		printf(", %u ring%s not written by the readers engine (written_by: its group goes "
		       "to another engine, or was left; its readers get -EXDEV)", other,
		       other == 1 ? "" : "s");
	/* rings of left or replaced groups: freed after a worker grace period */
	mcfan_readers_retired(mcfan_console_app(con), &ret_waiting, &ret_freed);
	if (!some && (ret_waiting != 0 || ret_freed != 0))
		printf("; retired rings: %" PRIu64 " waiting to be freed (retired_waiting), %" PRIu64
		       " freed (retired_freed)", ret_waiting, ret_freed);
	/* rings whose name was removed from /dev/shm, made again */
	recreated = mcfan_readers_recreated(mcfan_console_app(con));
	if (!some && recreated != 0)
		printf("; %" PRIu64 " ring%s made again after %s name was removed from /dev/shm "
		       "(rings_recreated)", recreated, recreated == 1 ? "" : "s",
		       recreated == 1 ? "its" : "their");
	printf(" (docs/readers.md)\n");
	mcfan_readers_view_free(v, (unsigned int)n);
	return 0;
}

MCFAN_CONSOLE_COMMAND(show_readers, 297, "show readers", cmd_show_readers,
		      "reader rings of the readers engine per group, and their reader processes: "
		      "pid, frames, lost, lapped, lag, last seen, alive",
		      "show readers");

MCFAN_CONSOLE_COMMAND(show_readers_group, 298, "show readers <groups>", cmd_show_readers,
		      "the same for one group's rings (a group joined again on other workers: "
		      "its old ring too) and their readers",
		      "show readers 239.9.9.1:3999");
