/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Telemetry /mcfan/igmp and the report's IGMP/MLD section: what control/igmp.c reads out
 * (docs/igmp.md).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "mcfan.h"
#include "log.h"
#include "control/igmp.h"
#include "telemetry/igmp.h"
#include "telemetry/telemetry.h"

/* Groups listed per port and protocol in /mcfan/igmp (the reply stays under 16 KiB). */
#define TEL_GROUPS_MAX 64

static const char *const proto_key[2] = {"igmp", "mld"};

static uint8_t
proto_of(unsigned int k)
{
	return k == 0 ? MCFAN_IGMP_PROTO_IGMP : MCFAN_IGMP_PROTO_MLD;
}

/* The counters of one protocol as "name_vN" keys. */
static void
tel_proto(struct rte_tel_data *d, const struct mcfan_igmp_proto_view *pv, unsigned int k)
{
	char a[MCFAN_IGMP_ADDR_STR], key[48];
	unsigned int v, r, vmax = k == 0 ? 3 : 2;

	rte_tel_data_add_dict_string(d, "mode", mcfan_igmp_mode_name(pv->mode));
	rte_tel_data_add_dict_int(d, "version", pv->version);
	rte_tel_data_add_dict_string(d, "source", mcfan_igmp_addr_format(proto_of(k), pv->src, a));
	rte_tel_data_add_dict_string(d, "querier", pv->have_querier ?
				     mcfan_igmp_addr_format(proto_of(k), pv->querier, a) : "none");
	rte_tel_data_add_dict_int(d, "querier_version", pv->querier_version);
	rte_tel_data_add_dict_u64(d, "querier_age_ms", pv->querier_age_ms);
	rte_tel_data_add_dict_int(d, "groups", (int)pv->n_groups);
	rte_tel_data_add_dict_u64(d, "taken", pv->taken);
	for (v = 1; v <= vmax; v++) {
		snprintf(key, sizeof(key), "queries_general_v%u", v);
		rte_tel_data_add_dict_u64(d, key, pv->c.queries_general[v]);
		snprintf(key, sizeof(key), "queries_group_v%u", v);
		rte_tel_data_add_dict_u64(d, key, pv->c.queries_group[v]);
		snprintf(key, sizeof(key), "queries_source_v%u", v);
		rte_tel_data_add_dict_u64(d, key, pv->c.queries_source[v]);
		snprintf(key, sizeof(key), "reports_sent_v%u", v);
		rte_tel_data_add_dict_u64(d, key, pv->c.reports_sent[v]);
		snprintf(key, sizeof(key), "leaves_sent_v%u", v);
		rte_tel_data_add_dict_u64(d, key, pv->c.leaves_sent[v]);
		snprintf(key, sizeof(key), "reports_suppressed_v%u", v);
		rte_tel_data_add_dict_u64(d, key, pv->c.reports_suppressed[v]);
	}
	for (r = 1; r < MCFAN_IGMP_INVALID_MAX; r++) {
		snprintf(key, sizeof(key), "invalid_%s", mcfan_igmp_invalid_name(r));
		rte_tel_data_add_dict_u64(d, key, pv->c.invalid[r]);
	}
}

/* Groups of one port and protocol: ["GROUP STATE LAST_REPORT_AGE_MS N_SOURCES", ...]. A list
 * of strings, not a dict keyed by group: DPDK 22.11's telemetry drops, without an error,
 * dict entries whose key is not a name to it, such as "239.9.9.1" or "ff3e::9". */
static void
tel_groups(const struct mcfan_app *app, struct rte_tel_data *d, uint16_t port, unsigned int k,
	   struct mcfan_igmp_group_view *gv)
{
	char a[MCFAN_IGMP_ADDR_STR], val[MCFAN_IGMP_ADDR_STR + 64];
	int n, i;

	n = mcfan_igmp_read_groups(app, port, k, gv, TEL_GROUPS_MAX);
	for (i = 0; i < n; i++) {
		mcfan_igmp_addr_format(proto_of(k), gv[i].addr, a);
		if (gv[i].reported)
			snprintf(val, sizeof(val), "%s %s %" PRIu64 " %u", a, gv[i].state,
				 gv[i].last_report_age_ms, gv[i].n_src);
		else
			snprintf(val, sizeof(val), "%s %s - %u", a, gv[i].state, gv[i].n_src);
		rte_tel_data_add_array_string(d, val);
	}
}

static int
tel_igmp(struct mcfan_app *app, const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct mcfan_igmp_port_view *views;
	struct mcfan_igmp_group_view *gv;
	struct mcfan_igmp_totals tot;
	struct rte_tel_data *c;
	uint64_t want = 0;
	unsigned int n = 0, i, k;
	char key[16], list[72] = "";
	size_t used;
	int ret = -ENOENT;

	if (params != NULL && params[0] != '\0' &&
	    mcfan_tel_param_uint(params, RTE_MAX_ETHPORTS - 1, &want) < 0) {
		MCFAN_LOG(WARNING, "telemetry %s: parameter must be a port id 0..%d, got '%.64s'\n",
			  cmd, RTE_MAX_ETHPORTS - 1, params);
		return -EINVAL;
	}
	views = calloc(RTE_MAX_ETHPORTS, sizeof(*views));
	gv = calloc(TEL_GROUPS_MAX, sizeof(*gv));
	if (views == NULL || gv == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	n = mcfan_igmp_read(app, views, RTE_MAX_ETHPORTS, &tot);
	for (i = 0; i < n; i++) {
		if (views[i].port != want)
			continue;
		rte_tel_data_add_dict_int(d, "port", views[i].port);
		rte_tel_data_add_dict_string(d, "filter_mode", app->ports[want].filter_mode);
		rte_tel_data_add_dict_u64(d, "dequeued", tot.dequeued);
		rte_tel_data_add_dict_u64(d, "ctl_ring_full", tot.ctl_ring_full);
		rte_tel_data_add_dict_u64(d, "unknown_port", tot.unknown_port);
		rte_tel_data_add_dict_u64(d, "tx_frames", views[i].tx_frames);
		rte_tel_data_add_dict_u64(d, "tx_failed", views[i].tx_failed);
		for (k = 0; k < 2; k++) {
			c = rte_tel_data_alloc();
			if (c == NULL) {
				ret = -ENOMEM;
				goto out;
			}
			rte_tel_data_start_dict(c);
			tel_proto(c, &views[i].proto[k], k);
			rte_tel_data_add_dict_container(d, proto_key[k], c, 0);
			c = rte_tel_data_alloc();
			if (c == NULL) {
				ret = -ENOMEM;
				goto out;
			}
			rte_tel_data_start_array(c, RTE_TEL_STRING_VAL);
			tel_groups(app, c, views[i].port, k, gv);
			snprintf(key, sizeof(key), "%s_groups", proto_key[k]);
			rte_tel_data_add_dict_container(d, key, c, 0);
		}
		ret = 0;
	}
	if (ret == -ENOENT) {
		/* name the ports that are: "0", "0, 1, 3" (cut after about 60 characters) */
		for (i = 0, used = 0; i < n && used < sizeof(list) - 8; i++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u",
						 i == 0 ? "" : ", ", views[i].port);
		MCFAN_LOG(WARNING, "telemetry %s: port %" PRIu64 " is not in use (mcfan's ports: "
			  "%s%s)\n", cmd, want, n == 0 ? "none" : list, i < n ? ", ..." : "");
	}
out:
	free(views);
	free(gv);
	return ret;
}
MCFAN_TEL_COMMAND(tel_igmp, "/mcfan/igmp",
		  "IGMP and MLD host side of a port: modes, querier, counters, groups. "
		  "Parameter: port (default 0)")

static const char *
querier_text(const struct mcfan_igmp_proto_view *pv, unsigned int k, char *buf, size_t len)
{
	char a[MCFAN_IGMP_ADDR_STR];

	if (!pv->have_querier)
		snprintf(buf, len, "none seen");
	else
		snprintf(buf, len, "%s v%u, %" PRIu64 " ms ago",
			 mcfan_igmp_addr_format(proto_of(k), pv->querier, a), pv->querier_version,
			 pv->querier_age_ms);
	return buf;
}

void
mcfan_igmp_report_print(const struct mcfan_app *app, FILE *f)
{
	struct mcfan_igmp_port_view *views;
	struct mcfan_igmp_group_view *gv;
	struct mcfan_igmp_totals tot;
	char a[MCFAN_IGMP_ADDR_STR], q[96];
	unsigned int n, i, k, v, r, vmax;
	int ng, j;

	views = calloc(RTE_MAX_ETHPORTS, sizeof(*views));
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (views == NULL || gv == NULL)
		goto out;
	n = mcfan_igmp_read(app, views, RTE_MAX_ETHPORTS, &tot);
	fprintf(f, "\nigmp/mld: control frames dequeued %" PRIu64 ", ctl_ring_full %" PRIu64
		", unknown_port %" PRIu64 "\n", tot.dequeued, tot.ctl_ring_full, tot.unknown_port);
	for (i = 0; i < n; i++) {
		const struct mcfan_igmp_port_view *pv = &views[i];

		fprintf(f, "  port %u: filter %s, sent %" PRIu64 ", tx_failed %" PRIu64 "\n",
			pv->port, app->ports[pv->port].filter_mode, pv->tx_frames, pv->tx_failed);
		for (k = 0; k < 2; k++) {
			const struct mcfan_igmp_proto_view *p = &pv->proto[k];

			vmax = k == 0 ? 3 : 2;
			fprintf(f, "    %s: mode %s, speaks v%u, source %s, querier %s, taken %"
				PRIu64 "\n", k == 0 ? "IGMP" : "MLD", mcfan_igmp_mode_name(p->mode),
				p->version, mcfan_igmp_addr_format(proto_of(k), p->src, a),
				querier_text(p, k, q, sizeof(q)), p->taken);
			for (v = 1; v <= vmax; v++)
				fprintf(f, "      v%u: queries general %" PRIu64 " group %" PRIu64
					" source %" PRIu64 ", reports sent %" PRIu64 ", leaves sent %"
					PRIu64 ", suppressed %" PRIu64 "\n", v, p->c.queries_general[v],
					p->c.queries_group[v], p->c.queries_source[v],
					p->c.reports_sent[v], p->c.leaves_sent[v],
					p->c.reports_suppressed[v]);
			fprintf(f, "      invalid:");
			for (r = 1; r < MCFAN_IGMP_INVALID_MAX; r++)
				fprintf(f, " %s %" PRIu64, mcfan_igmp_invalid_name(r), p->c.invalid[r]);
			fprintf(f, "\n");
			ng = mcfan_igmp_read_groups(app, pv->port, k, gv, MCFAN_MAX_GROUPS);
			for (j = 0; j < ng; j++) {
				fprintf(f, "      group %s: %s, %u source(s)",
					mcfan_igmp_addr_format(proto_of(k), gv[j].addr, a), gv[j].state,
					gv[j].n_src);
				if (gv[j].reported)
					fprintf(f, ", last report %" PRIu64 " ms ago\n",
						gv[j].last_report_age_ms);
				else
					fprintf(f, ", no report yet\n");
			}
		}
	}
out:
	free(views);
	free(gv);
}

static json_t *
json_u64v(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *
proto_json(const struct mcfan_app *app, uint16_t port, unsigned int k,
	   const struct mcfan_igmp_proto_view *p, struct mcfan_igmp_group_view *gv)
{
	char a[MCFAN_IGMP_ADDR_STR], key[8];
	static const char *const names[] = {"queries_general", "queries_group", "queries_source",
					    "reports_sent", "leaves_sent", "reports_suppressed"};
	const uint64_t *arrs[] = {p->c.queries_general, p->c.queries_group, p->c.queries_source,
				  p->c.reports_sent, p->c.leaves_sent, p->c.reports_suppressed};
	unsigned int v, r, x, s, vmax = k == 0 ? 3 : 2;
	json_t *o, *c, *arr, *g, *srcs;
	int ng, j;

	o = json_object();
	if (o == NULL)
		return NULL;
	json_object_set_new(o, "mode", json_string(mcfan_igmp_mode_name(p->mode)));
	json_object_set_new(o, "version", json_integer(p->version));
	json_object_set_new(o, "source", json_string(mcfan_igmp_addr_format(proto_of(k), p->src,
										a)));
	json_object_set_new(o, "querier", p->have_querier ?
			    json_string(mcfan_igmp_addr_format(proto_of(k), p->querier, a)) :
			    json_null());
	json_object_set_new(o, "querier_version", p->have_querier ?
			    json_integer(p->querier_version) : json_null());
	json_object_set_new(o, "taken", json_u64v(p->taken));
	for (x = 0; x < RTE_DIM(names); x++) {
		c = json_object();
		for (v = 1; v <= vmax; v++) {
			snprintf(key, sizeof(key), "v%u", v);
			json_object_set_new(c, key, json_u64v(arrs[x][v]));
		}
		json_object_set_new(o, names[x], c);
	}
	c = json_object();
	for (r = 1; r < MCFAN_IGMP_INVALID_MAX; r++)
		json_object_set_new(c, mcfan_igmp_invalid_name(r), json_u64v(p->c.invalid[r]));
	json_object_set_new(o, "invalid", c);
	arr = json_array();
	ng = mcfan_igmp_read_groups(app, port, k, gv, MCFAN_MAX_GROUPS);
	for (j = 0; j < ng; j++) {
		g = json_object();
		json_object_set_new(g, "group", json_string(mcfan_igmp_addr_format(proto_of(k),
										   gv[j].addr, a)));
		json_object_set_new(g, "state", json_string(gv[j].state));
		srcs = json_array();
		for (s = 0; s < gv[j].n_src; s++)
			json_array_append_new(srcs, json_string(mcfan_igmp_addr_format(proto_of(k),
								gv[j].sources[s], a)));
		json_object_set_new(g, "sources", srcs);
		json_object_set_new(g, "last_report_age_ms", gv[j].reported ?
				    json_u64v(gv[j].last_report_age_ms) : json_null());
		json_array_append_new(arr, g);
	}
	json_object_set_new(o, "groups", arr);
	return o;
}

json_t *
mcfan_igmp_report_json(const struct mcfan_app *app)
{
	struct mcfan_igmp_port_view *views;
	struct mcfan_igmp_group_view *gv;
	struct mcfan_igmp_totals tot;
	json_t *root = NULL, *arr, *o;
	unsigned int n, i, k;

	views = calloc(RTE_MAX_ETHPORTS, sizeof(*views));
	gv = calloc(MCFAN_MAX_GROUPS, sizeof(*gv));
	if (views == NULL || gv == NULL)
		goto out;
	root = json_object();
	if (root == NULL)
		goto out;
	n = mcfan_igmp_read(app, views, RTE_MAX_ETHPORTS, &tot);
	json_object_set_new(root, "dequeued", json_u64v(tot.dequeued));
	json_object_set_new(root, "ctl_ring_full", json_u64v(tot.ctl_ring_full));
	json_object_set_new(root, "unknown_port", json_u64v(tot.unknown_port));
	arr = json_array();
	for (i = 0; i < n; i++) {
		o = json_object();
		json_object_set_new(o, "port", json_integer(views[i].port));
		json_object_set_new(o, "filter_mode",
				    json_string(app->ports[views[i].port].filter_mode));
		json_object_set_new(o, "tx_frames", json_u64v(views[i].tx_frames));
		json_object_set_new(o, "tx_failed", json_u64v(views[i].tx_failed));
		for (k = 0; k < 2; k++)
			json_object_set_new(o, proto_key[k], proto_json(app, views[i].port, k,
									&views[i].proto[k], gv));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "ports", arr);
out:
	free(views);
	free(gv);
	return root;
}
