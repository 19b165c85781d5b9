/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * /mcfan/readers (docs/readers.md, docs/telemetry.md): the reader rings of the readers
 * engine and their reader processes, from control/readers.h.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "log.h"
#include "control/readers.h"
#include "telemetry/readers.h"
#include "telemetry/telemetry.h"

/** Most reader rows in one reply (the telemetry socket's reply is 16 KiB at most). */
#define TEL_READERS_ROWS 128
/** Most ring rows in one reply. */
#define TEL_RINGS_ROWS 64
#define NS_PER_MS 1000000u
/** Most worker lcores the report lists. */
#define REPORT_WORKERS_MAX 128

/* JSON bytes of one ring row of /mcfan/readers: each value, its comma, a string's quotes. */
static size_t
ring_row_bytes(const struct mcfan_readers_view *v, const char *served)
{
	return mcfan_tel_str_bytes(v->group) + mcfan_tel_u64_bytes(v->owner_lcore) +
	       mcfan_tel_u64_bytes(v->written) + mcfan_tel_u64_bytes(v->too_big) +
	       mcfan_tel_u64_bytes(v->n_readers) + mcfan_tel_u64_bytes(v->waiters) +
	       mcfan_tel_str_bytes(served);
}

/* JSON bytes of one reader row of /mcfan/readers (a pid is not negative). */
static size_t
reader_row_bytes(const char *group, const struct mcfan_rw_reader_info *r)
{
	return mcfan_tel_str_bytes(group) +
	       mcfan_tel_u64_bytes((uint64_t)(r->pid > 0 ? r->pid : 0)) +
	       mcfan_tel_u64_bytes(r->frames) + mcfan_tel_u64_bytes(r->lost) +
	       mcfan_tel_u64_bytes(r->laps) + mcfan_tel_u64_bytes(r->lag) +
	       mcfan_tel_u64_bytes(r->idle_ns / NS_PER_MS) + 2 + 2;
}

static int
tel_readers(struct mcfan_app *app, const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const struct mcfan_tel_col ring_cols[] = {
		{"ring_group", RTE_TEL_STRING_VAL}, {"ring_lcore", RTE_TEL_INT_VAL},
		{"ring_written", RTE_TEL_U64_VAL}, {"ring_too_big", RTE_TEL_U64_VAL},
		{"ring_readers", RTE_TEL_INT_VAL}, {"ring_waiters", RTE_TEL_INT_VAL},
		{"ring_written_by", RTE_TEL_STRING_VAL},
	};
	static const struct mcfan_tel_col cols[] = {
		{"group", RTE_TEL_STRING_VAL}, {"pid", RTE_TEL_INT_VAL},
		{"frames", RTE_TEL_U64_VAL}, {"lost", RTE_TEL_U64_VAL},
		{"lapped", RTE_TEL_U64_VAL}, {"lag", RTE_TEL_U64_VAL},
		{"last_ms", RTE_TEL_U64_VAL}, {"alive", RTE_TEL_INT_VAL},
		{"stopped", RTE_TEL_INT_VAL},
	};
	struct rte_tel_data *rc[RTE_DIM(ring_cols)], *c[RTE_DIM(cols)];
	struct mcfan_readers_view *v = NULL;
	unsigned int i, j, rows = 0, total = 0, rings = 0, skip = 0;
	char served[MCFAN_READERS_SERVED_MAX], msg[256];
	bool full = false, some = params != NULL && params[0] != '\0';
	struct mcfan_flow_key key;
	uint64_t ret_waiting, ret_freed;
	size_t used = 0;
	int n, ret;

	/* ,GROUP: that group's rings and their readers (show readers GROUP's words) */
	if (some) {
		n = mcfan_readers_group_parse(app, cmd, params, &key, msg, sizeof(msg));
		if (n < 0) {
			MCFAN_LOG(WARNING, "telemetry %s\n", msg); /* msg starts with cmd */
			return n;
		}
	}
	n = mcfan_readers_read(app, &v, NULL, 0, NULL);
	if (n == -ENODEV) {
		rte_tel_data_add_dict_string(d, "engine", "the readers engine is not in use");
		rte_tel_data_add_dict_u64(d, "rings", 0);
		return 0;
	}
	if (n < 0)
		return n;
	ret = mcfan_tel_cols_alloc(rc, ring_cols, RTE_DIM(ring_cols));
	if (ret < 0)
		goto out;
	ret = mcfan_tel_cols_alloc(c, cols, RTE_DIM(cols));
	if (ret < 0) {
		for (i = 0; i < RTE_DIM(rc); i++)
			rte_tel_data_free(rc[i]);
		goto out;
	}
	/* the first rings, then the first readers, as many as fit the reply: a row that does
	 * not fit ends the listing (else DPDK would drop whole columns, silently) */
	for (i = 0; i < (unsigned int)n && rings < TEL_RINGS_ROWS; i++) {
		if (some && !mcfan_flow_key_equal(&v[i].key, &key)) {
			skip++;
			continue;
		}
		mcfan_readers_served_text(&v[i], served, sizeof(served));
		if (used + ring_row_bytes(&v[i], served) >
		    MCFAN_TEL_REPLY_BYTES - MCFAN_TEL_REPLY_RESERVE)
			break;
		used += ring_row_bytes(&v[i], served);
		rte_tel_data_add_array_string(rc[0], v[i].group);
		rte_tel_data_add_array_int(rc[1], (int)v[i].owner_lcore);
		rte_tel_data_add_array_u64(rc[2], v[i].written);
		rte_tel_data_add_array_u64(rc[3], v[i].too_big);
		rte_tel_data_add_array_int(rc[4], (int)v[i].n_readers);
		rte_tel_data_add_array_int(rc[5], (int)v[i].waiters);
		rte_tel_data_add_array_string(rc[6], served);
		rings++;
	}
	for (i = 0; i < (unsigned int)n; i++) {
		if (some && !mcfan_flow_key_equal(&v[i].key, &key))
			continue;
		for (j = 0; j < v[i].n_readers; j++, total++) {
			const struct mcfan_rw_reader_info *r = &v[i].readers[j];

			if (full || rows == TEL_READERS_ROWS ||
			    used + reader_row_bytes(v[i].group, r) >
			    MCFAN_TEL_REPLY_BYTES - MCFAN_TEL_REPLY_RESERVE) {
				full = true;
				continue;
			}
			used += reader_row_bytes(v[i].group, r);
			rte_tel_data_add_array_string(c[0], v[i].group);
			rte_tel_data_add_array_int(c[1], (int)r->pid);
			rte_tel_data_add_array_u64(c[2], r->frames);
			rte_tel_data_add_array_u64(c[3], r->lost);
			rte_tel_data_add_array_u64(c[4], r->laps);
			rte_tel_data_add_array_u64(c[5], r->lag);
			rte_tel_data_add_array_u64(c[6], r->idle_ns / NS_PER_MS);
			rte_tel_data_add_array_int(c[7], r->alive ? 1 : 0);
			rte_tel_data_add_array_int(c[8], r->stopped ? 1 : 0);
			rows++;
		}
	}
	/* with ,GROUP: the rings of that group */
	if (some)
		for (; i < (unsigned int)n; i++)
			skip += !mcfan_flow_key_equal(&v[i].key, &key);
	rte_tel_data_add_dict_u64(d, "rings", (uint64_t)n - skip);
	/* the ring columns hold the first rings that fit: say how many, as shown for readers */
	rte_tel_data_add_dict_u64(d, "rings_shown", rings);
	/* rings nobody serves any more: waiting to be freed now, freed since the start */
	mcfan_readers_retired(app, &ret_waiting, &ret_freed);
	rte_tel_data_add_dict_u64(d, "retired_waiting", ret_waiting);
	rte_tel_data_add_dict_u64(d, "retired_freed", ret_freed);
	/* rings made again after their name was removed from /dev/shm */
	rte_tel_data_add_dict_u64(d, "rings_recreated", mcfan_readers_recreated(app));
	rte_tel_data_add_dict_u64(d, "readers", total);
	rte_tel_data_add_dict_u64(d, "shown", rows);
	ret = mcfan_tel_cols_attach(d, rc, ring_cols, RTE_DIM(ring_cols));
	if (ret == 0)
		ret = mcfan_tel_cols_attach(d, c, cols, RTE_DIM(cols));
	else
		for (i = 0; i < RTE_DIM(c); i++)
			rte_tel_data_free(c[i]);
out:
	mcfan_readers_view_free(v, (unsigned int)n);
	return ret;
}
MCFAN_TEL_COMMAND(tel_readers, "/mcfan/readers",
		  "Reader rings (engine readers), their readers: pid, frames, lost, lapped, lag, "
		  "last_ms, alive, stopped. Parameter: none or GROUP")

/* ---- the report's pieces (telemetry/readers.h) ---- */

static json_t *
ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *
mcfan_readers_report_json(const struct mcfan_app *app)
{
	struct mcfan_readers_worker_view wv[REPORT_WORKERS_MAX];
	struct mcfan_readers_view *v = NULL;
	uint64_t not_owner = 0, no_ring = 0, ret_waiting, ret_freed;
	json_t *root, *rings, *o, *rl, *r;
	char served[MCFAN_READERS_SERVED_MAX];
	unsigned int i, j, nw = 0;
	int n;

	n = mcfan_readers_read(app, &v, wv, RTE_DIM(wv), &nw);
	if (n < 0)
		return NULL;
	root = json_object();
	rings = json_array();
	for (i = 0; i < (unsigned int)n; i++) {
		o = json_object();
		json_object_set_new(o, "group", json_string(v[i].group));
		json_object_set_new(o, "name", json_string(v[i].name));
		json_object_set_new(o, "lcore", json_integer(v[i].owner_lcore));
		json_object_set_new(o, "slots", json_integer(v[i].n_slots));
		json_object_set_new(o, "written", ju64(v[i].written));
		json_object_set_new(o, "bytes", ju64(v[i].bytes));
		json_object_set_new(o, "reader_too_big", ju64(v[i].too_big));
		json_object_set_new(o, "wakes", ju64(v[i].wakes));
		json_object_set_new(o, "written_by", json_string(mcfan_readers_served_text(&v[i],
				    served, sizeof(served))));
		rl = json_array();
		for (j = 0; j < v[i].n_readers; j++) {
			const struct mcfan_rw_reader_info *x = &v[i].readers[j];

			r = json_object();
			json_object_set_new(r, "pid", json_integer(x->pid));
			json_object_set_new(r, "frames", ju64(x->frames));
			json_object_set_new(r, "lost", ju64(x->lost));
			json_object_set_new(r, "lapped", ju64(x->laps));
			json_object_set_new(r, "lag", ju64(x->lag));
			json_object_set_new(r, "alive", json_boolean(x->alive));
			json_object_set_new(r, "stopped", json_boolean(x->stopped));
			json_array_append_new(rl, r);
		}
		json_object_set_new(o, "readers", rl);
		json_array_append_new(rings, o);
	}
	for (i = 0; i < nw; i++) {
		not_owner += wv[i].not_owner;
		no_ring += wv[i].no_ring;
	}
	json_object_set_new(root, "rings", rings);
	json_object_set_new(root, "not_owner", ju64(not_owner));
	json_object_set_new(root, "no_ring", ju64(no_ring));
	mcfan_readers_retired(app, &ret_waiting, &ret_freed);
	json_object_set_new(root, "retired_waiting", ju64(ret_waiting));
	json_object_set_new(root, "retired_freed", ju64(ret_freed));
	json_object_set_new(root, "rings_recreated", ju64(mcfan_readers_recreated(app)));
	mcfan_readers_view_free(v, (unsigned int)n);
	return root;
}

void
mcfan_readers_report_print(const struct mcfan_app *app, FILE *f)
{
	struct mcfan_readers_view *v = NULL;
	uint64_t written = 0, too_big = 0, ret_waiting, ret_freed;
	unsigned int i, j, alive = 0, dead = 0;
	int n;

	n = mcfan_readers_read(app, &v, NULL, 0, NULL);
	if (n < 0)
		return;
	for (i = 0; i < (unsigned int)n; i++) {
		written += v[i].written;
		too_big += v[i].too_big;
		/* alive as show readers and /mcfan/readers say it: the process exists */
		for (j = 0; j < v[i].n_readers; j++) {
			alive += v[i].readers[j].alive;
			dead += !v[i].readers[j].alive;
		}
	}
	mcfan_readers_retired(app, &ret_waiting, &ret_freed);
	fprintf(f, "reader rings (docs/readers.md): %d, frames written %" PRIu64
		", reader_too_big %" PRIu64 ", retired_waiting %" PRIu64 ", retired_freed %" PRIu64
		", rings_recreated %" PRIu64 ", readers now %u alive, %u dead\n", n, written,
		too_big, ret_waiting, ret_freed, mcfan_readers_recreated(app), alive, dead);
	mcfan_readers_view_free(v, (unsigned int)n);
}
