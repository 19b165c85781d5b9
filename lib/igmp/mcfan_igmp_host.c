/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mcfan_igmp_host.h"

#define RNG_SEED_DEFAULT 0x9e3779b97f4a7c15ull
#define MAX_GROUPS_LIMIT 65536u
#define MS_PER_S 1000u

int
mcfan_igmp_mode_parse(uint8_t proto, const char *text)
{
	if (strcmp(text, "auto") == 0)
		return MCFAN_IGMP_MODE_AUTO;
	if (strcmp(text, "off") == 0)
		return MCFAN_IGMP_MODE_OFF;
	if (strcmp(text, "v2") == 0)
		return MCFAN_IGMP_MODE_V2;
	if (proto == MCFAN_IGMP_PROTO_IGMP && strcmp(text, "v3") == 0)
		return MCFAN_IGMP_MODE_V3;
	if (proto == MCFAN_IGMP_PROTO_MLD && strcmp(text, "v1") == 0)
		return MCFAN_IGMP_MODE_V1;
	return -EINVAL;
}

const char *
mcfan_igmp_mode_name(enum mcfan_igmp_mode mode)
{
	switch (mode) {
	case MCFAN_IGMP_MODE_OFF: return "off";
	case MCFAN_IGMP_MODE_V1: return "v1";
	case MCFAN_IGMP_MODE_V2: return "v2";
	case MCFAN_IGMP_MODE_V3: return "v3";
	case MCFAN_IGMP_MODE_AUTO: return "auto";
	}
	return "invalid";
}

const char *
mcfan_igmp_why_name(enum mcfan_igmp_why why)
{
	switch (why) {
	case MCFAN_IGMP_WHY_JOIN: return "join";
	case MCFAN_IGMP_WHY_LEAVE: return "leave";
	case MCFAN_IGMP_WHY_GENERAL: return "general_query";
	case MCFAN_IGMP_WHY_GROUP: return "group_query";
	case MCFAN_IGMP_WHY_SOURCE: return "source_query";
	}
	return "invalid";
}

const char *
mcfan_igmp_group_state(const struct mcfan_igmp_group *g)
{
	if (g->leaving)
		return "leaving";
	if (g->change_left > 0)
		return "joining";
	if (g->query_why != 0)
		return "delaying";
	return "idle";
}

static unsigned int
addr_len(const struct mcfan_igmp_host *h)
{
	return h->proto == MCFAN_IGMP_PROTO_MLD ? 16 : 4;
}

/* xorshift64 (Marsaglia 2003): a uniform enough random delay, not for security. */
static uint64_t
rng_next(struct mcfan_igmp_host *h)
{
	uint64_t x = h->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	h->rng = x;
	return x;
}

/* A random delay in [lo, hi] ms. */
static uint64_t
rand_ms(struct mcfan_igmp_host *h, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + rng_next(h) % (hi - lo + 1);
}

int
mcfan_igmp_host_init(struct mcfan_igmp_host *h, uint8_t proto, uint8_t mode,
		     unsigned int max_groups, uint64_t seed)
{
	if (proto != MCFAN_IGMP_PROTO_IGMP && proto != MCFAN_IGMP_PROTO_MLD)
		return -EINVAL;
	if (mode > MCFAN_IGMP_MODE_AUTO || (proto == MCFAN_IGMP_PROTO_IGMP &&
	    mode == MCFAN_IGMP_MODE_V1) || (proto == MCFAN_IGMP_PROTO_MLD &&
	    mode == MCFAN_IGMP_MODE_V3))
		return -EINVAL;
	if (max_groups == 0 || max_groups > MAX_GROUPS_LIMIT)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->groups = calloc(max_groups, sizeof(h->groups[0]));
	if (h->groups == NULL)
		return -ENOMEM;
	h->proto = proto;
	h->mode = mode;
	h->max_groups = max_groups;
	h->robustness = MCFAN_IGMP_ROBUSTNESS;
	h->qi_ms = MCFAN_IGMP_QUERY_INTERVAL_MS;
	h->rng = seed != 0 ? seed : RNG_SEED_DEFAULT;
	return 0;
}

void
mcfan_igmp_host_free(struct mcfan_igmp_host *h)
{
	if (h == NULL)
		return;
	free(h->groups);
	h->groups = NULL;
	h->n_groups = 0;
}

unsigned int
mcfan_igmp_host_version(const struct mcfan_igmp_host *h, uint64_t now_ms)
{
	bool v1 = h->older1_until_ms > now_ms, v2 = h->older2_until_ms > now_ms;

	if (h->proto == MCFAN_IGMP_PROTO_MLD) {
		switch (h->mode) {
		case MCFAN_IGMP_MODE_OFF: return 0;
		case MCFAN_IGMP_MODE_V1: return 1;
		case MCFAN_IGMP_MODE_V2: return 2;
		default: return v1 ? 1 : 2;
		}
	}
	switch (h->mode) {
	case MCFAN_IGMP_MODE_OFF: return 0;
	case MCFAN_IGMP_MODE_V2: return v1 ? 1 : 2;
	case MCFAN_IGMP_MODE_V3: return 3;
	default: return v1 ? 1 : v2 ? 2 : 3;
	}
}

static bool
newest(const struct mcfan_igmp_host *h, unsigned int ver)
{
	return ver == (h->proto == MCFAN_IGMP_PROTO_MLD ? 2u : 3u);
}

static int
find_index(const struct mcfan_igmp_host *h, const uint8_t *group)
{
	unsigned int i;

	for (i = 0; i < h->n_groups; i++)
		if (memcmp(h->groups[i].addr, group, addr_len(h)) == 0)
			return (int)i;
	return -1;
}

const struct mcfan_igmp_group *
mcfan_igmp_host_find(const struct mcfan_igmp_host *h, const uint8_t *group)
{
	int i = find_index(h, group);

	return i < 0 ? NULL : &h->groups[i];
}

int
mcfan_igmp_host_join(struct mcfan_igmp_host *h, const uint8_t *group,
		     const uint8_t (*sources)[16], unsigned int n_src, uint64_t now_ms)
{
	struct mcfan_igmp_group *g;
	int i;

	if (n_src > MCFAN_IGMP_MAX_SOURCES || (n_src > 0 && sources == NULL))
		return -EINVAL;
	i = find_index(h, group);
	if (i >= 0 && !h->groups[i].leaving)
		return -EEXIST;
	if (i < 0) {
		if (h->n_groups == h->max_groups)
			return -ENOSPC;
		i = (int)h->n_groups++;
	}
	g = &h->groups[i];
	memset(g, 0, sizeof(*g));
	memcpy(g->addr, group, 16);
	g->n_src = (uint8_t)n_src;
	if (n_src > 0)
		memcpy(g->sources, sources, n_src * sizeof(g->sources[0]));
	g->change_left = h->robustness;
	g->change_due_ms = now_ms;
	return 0;
}

/* Whether src (16 bytes) is among the n sources of set. */
static bool
src_in(const struct mcfan_igmp_host *h, const uint8_t (*set)[16], unsigned int n,
       const uint8_t *src)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (memcmp(set[i], src, addr_len(h)) == 0)
			return true;
	return false;
}

/* Sources of a that are not in b, as a record of the given type; 1 if there are any. */
static int
src_diff(const struct mcfan_igmp_host *h, const uint8_t *group, const uint8_t (*a)[16],
	 unsigned int na, const uint8_t (*b)[16], unsigned int nb, uint8_t type,
	 struct mcfan_igmp_record *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	memcpy(r->group, group, 16);
	r->type = type;
	for (i = 0; i < na; i++)
		if (!src_in(h, b, nb, a[i]) && !src_in(h, (const uint8_t (*)[16])r->sources,
						     r->n_src, a[i]))
			memcpy(r->sources[r->n_src++], a[i], 16);
	return r->n_src > 0;
}

int
mcfan_igmp_host_set_sources(struct mcfan_igmp_host *h, const uint8_t *group,
			    const uint8_t (*sources)[16], unsigned int n_src, uint64_t now_ms)
{
	const uint8_t (*old)[16];
	struct mcfan_igmp_group *g;
	unsigned int i, n_old;
	bool same;
	int gi;

	if (n_src > MCFAN_IGMP_MAX_SOURCES || (n_src > 0 && sources == NULL))
		return -EINVAL;
	gi = find_index(h, group);
	if (gi < 0 || h->groups[gi].leaving)
		return -ENOENT;
	g = &h->groups[gi];
	old = (const uint8_t (*)[16])g->sources;
	n_old = g->n_src;
	same = (n_old == 0) == (n_src == 0);
	for (i = 0; i < n_src && same; i++)
		same = src_in(h, old, n_old, sources[i]);
	for (i = 0; i < n_old && same; i++)
		same = src_in(h, sources, n_src, old[i]);
	if (same)
		return 0;
	/* RFC 3376 section 5.1 (RFC 3810 section 6.1): the state-change records */
	g->n_chg = 0;
	if (n_old == 0 || n_src == 0) {
		struct mcfan_igmp_record *r = &g->chg[g->n_chg++];

		memset(r, 0, sizeof(*r));
		memcpy(r->group, g->addr, 16);
		r->type = n_src == 0 ? MCFAN_IGMP_REC_TO_EX : MCFAN_IGMP_REC_TO_IN;
		r->n_src = (uint8_t)n_src;
		if (n_src > 0)
			memcpy(r->sources, sources, n_src * sizeof(r->sources[0]));
	} else {
		if (src_diff(h, g->addr, sources, n_src, old, n_old, MCFAN_IGMP_REC_ALLOW,
			     &g->chg[g->n_chg]) == 1)
			g->n_chg++;
		if (src_diff(h, g->addr, old, n_old, sources, n_src, MCFAN_IGMP_REC_BLOCK,
			     &g->chg[g->n_chg]) == 1)
			g->n_chg++;
	}
	g->n_src = (uint8_t)n_src;
	memset(g->sources, 0, sizeof(g->sources));
	if (n_src > 0)
		memcpy(g->sources, sources, n_src * sizeof(g->sources[0]));
	g->change_left = h->robustness;
	g->change_due_ms = now_ms;
	return 1;
}

int
mcfan_igmp_host_leave(struct mcfan_igmp_host *h, const uint8_t *group, uint64_t now_ms)
{
	struct mcfan_igmp_group *g;
	int i = find_index(h, group);

	if (i < 0 || h->groups[i].leaving)
		return -ENOENT;
	g = &h->groups[i];
	g->leaving = true;
	g->n_chg = 0;
	g->query_why = 0;
	g->n_qsrc = 0;
	g->change_left = h->robustness;
	g->change_due_ms = now_ms;
	return 0;
}

unsigned int
mcfan_igmp_host_leave_all(struct mcfan_igmp_host *h, uint64_t now_ms)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->n_groups; i++)
		if (mcfan_igmp_host_leave(h, h->groups[i].addr, now_ms) == 0)
			n++;
	return n;
}

unsigned int
mcfan_igmp_host_hurry(struct mcfan_igmp_host *h, uint64_t now_ms)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->n_groups; i++) {
		if (h->groups[i].change_left == 0)
			continue;
		h->groups[i].change_due_ms = now_ms;
		n++;
	}
	return n;
}

/* Add the queried sources to a pending group-and-source answer (a union, RFC 3376 5.2). */
static void
qsrc_add(struct mcfan_igmp_host *h, struct mcfan_igmp_group *g, const struct mcfan_igmp_msg *m)
{
	unsigned int i, j, al = addr_len(h);

	for (i = 0; i < m->n_src_kept; i++) {
		for (j = 0; j < g->n_qsrc; j++)
			if (memcmp(g->qsrc[j], m->sources[i], al) == 0)
				break;
		if (j == g->n_qsrc && g->n_qsrc < MCFAN_IGMP_MAX_SOURCES)
			memcpy(g->qsrc[g->n_qsrc++], m->sources[i], 16);
	}
}

/* Schedule a group's answer at due, as RFC 3376 section 5.2 orders it. */
static void
schedule_group(struct mcfan_igmp_host *h, struct mcfan_igmp_group *g,
	       const struct mcfan_igmp_msg *m, uint64_t due, bool v3)
{
	bool with_src = v3 && m->n_src > 0;

	if (g->leaving)
		return;
	if (!v3 || g->query_why == 0) {
		if (g->query_why == 0 || due < g->query_due_ms)
			g->query_due_ms = due;
		if (g->query_why == 0 || !v3)
			g->query_why = with_src ? MCFAN_IGMP_WHY_SOURCE : MCFAN_IGMP_WHY_GROUP;
		g->n_qsrc = 0;
		if (with_src)
			qsrc_add(h, g, m);
		return;
	}
	/* a pending answer: the earlier time; a group answer absorbs a source answer */
	if (due < g->query_due_ms)
		g->query_due_ms = due;
	if (!with_src || g->query_why == MCFAN_IGMP_WHY_GROUP) {
		g->query_why = MCFAN_IGMP_WHY_GROUP;
		g->n_qsrc = 0;
	} else {
		qsrc_add(h, g, m);
	}
}

void
mcfan_igmp_host_query(struct mcfan_igmp_host *h, const struct mcfan_igmp_msg *m, uint64_t now_ms)
{
	bool general = true, v3;
	uint64_t timeout, due;
	unsigned int i, ver;
	int gi;

	if (m->proto != h->proto || m->type != MCFAN_IGMP_MSG_QUERY || m->version == 0 ||
	    m->version > 3)
		return;
	for (i = 0; i < addr_len(h); i++)
		if (m->group[i] != 0)
			general = false;
	if (general)
		h->c.queries_general[m->version]++;
	else if (m->n_src > 0)
		h->c.queries_source[m->version]++;
	else
		h->c.queries_group[m->version]++;
	h->have_querier = true;
	h->querier_version = m->version;
	memcpy(h->querier, m->src, 16);
	h->querier_seen_ms = now_ms;
	if (newest(h, m->version)) {
		/* RFC 3376 4.1.6, 4.1.7: QRV 0 and QQIC 0 leave the values as they were */
		if (m->qrv != 0)
			h->robustness = m->qrv;
		if (m->qqi_s != 0)
			h->qi_ms = m->qqi_s * MS_PER_S;
	}
	/* RFC 3376 8.12, RFC 3810 9.12: Older Version Querier Present Timeout */
	timeout = (uint64_t)h->robustness * h->qi_ms + MCFAN_IGMP_QRI_MS;
	if (m->version == 1)
		h->older1_until_ms = now_ms + timeout;
	else if (m->version == 2 && h->proto == MCFAN_IGMP_PROTO_IGMP)
		h->older2_until_ms = now_ms + timeout;
	ver = mcfan_igmp_host_version(h, now_ms);
	if (ver == 0)
		return;
	v3 = newest(h, ver);
	if (!v3)
		h->general_pending = false; /* RFC 3376 7.2.1: no v3 answer to an older querier */
	due = now_ms + rand_ms(h, 0, m->max_resp_ms);
	if (general) {
		if (v3) {
			if (!h->general_pending || due < h->general_due_ms) {
				h->general_due_ms = due;
				if (!h->general_pending)
					h->general_cursor = 0;
			}
			h->general_pending = true;
			return;
		}
		for (i = 0; i < h->n_groups; i++) {
			struct mcfan_igmp_group *g = &h->groups[i];

			if (g->leaving)
				continue;
			due = now_ms + rand_ms(h, 0, m->max_resp_ms);
			if (g->query_why == 0 || due < g->query_due_ms)
				g->query_due_ms = due;
			g->query_why = MCFAN_IGMP_WHY_GENERAL;
		}
		return;
	}
	gi = find_index(h, m->group);
	if (gi < 0)
		return;
	/* RFC 3376 5.2: a general answer due sooner covers this one */
	if (v3 && h->general_pending && h->general_due_ms <= due)
		return;
	schedule_group(h, &h->groups[gi], m, due, v3);
}

int
mcfan_igmp_host_report_heard(struct mcfan_igmp_host *h, const struct mcfan_igmp_msg *m,
			     uint64_t now_ms)
{
	unsigned int ver = mcfan_igmp_host_version(h, now_ms);
	struct mcfan_igmp_group *g;
	int gi;

	/* RFC 2236 section 3, RFC 2710 section 4: only v1/v2 (MLDv1) reports suppress, and only
	 * a host that speaks such a version; RFC 3376 section 5.2: v3 has no suppression */
	if (m->proto != h->proto || m->type != MCFAN_IGMP_MSG_REPORT || m->version == 0 ||
	    newest(h, m->version) || ver == 0 || newest(h, ver))
		return 0;
	gi = find_index(h, m->group);
	if (gi < 0)
		return 0;
	g = &h->groups[gi];
	if (g->leaving || g->query_why == 0)
		return 0;
	g->query_why = 0;
	g->n_qsrc = 0;
	h->c.reports_suppressed[m->version]++;
	return 1;
}

static void
remove_group(struct mcfan_igmp_host *h, unsigned int i)
{
	if (h->general_pending && i < h->general_cursor)
		h->general_cursor--;
	h->n_groups--;
	if (i != h->n_groups)
		h->groups[i] = h->groups[h->n_groups];
}

static uint8_t
old_report_kind(const struct mcfan_igmp_host *h, unsigned int ver)
{
	if (h->proto == MCFAN_IGMP_PROTO_MLD)
		return MCFAN_IGMP_SEND_MLD1_REPORT;
	return ver == 1 ? MCFAN_IGMP_SEND_V1_REPORT : MCFAN_IGMP_SEND_V2_REPORT;
}

static uint8_t
new_report_kind(const struct mcfan_igmp_host *h)
{
	return h->proto == MCFAN_IGMP_PROTO_MLD ? MCFAN_IGMP_SEND_MLD2_REPORT :
		MCFAN_IGMP_SEND_V3_REPORT;
}

/* The current-state record of a group (IS_EX {} or IS_IN {S}). */
static void
state_record(const struct mcfan_igmp_group *g, struct mcfan_igmp_record *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->group, g->addr, 16);
	r->type = g->n_src == 0 ? MCFAN_IGMP_REC_IS_EX : MCFAN_IGMP_REC_IS_IN;
	r->n_src = g->n_src;
	memcpy(r->sources, g->sources, g->n_src * sizeof(r->sources[0]));
}

static void
sent_report(struct mcfan_igmp_group *g, uint64_t now_ms)
{
	g->reported = true;
	g->last_report_ms = now_ms;
}

/* A join or leave message of group i that is due; 1 if out was filled. */
static int
poll_change(struct mcfan_igmp_host *h, unsigned int i, unsigned int ver, uint64_t now_ms,
	    struct mcfan_igmp_send *out)
{
	struct mcfan_igmp_group *g = &h->groups[i];
	struct mcfan_igmp_record *r = &out->recs[0];
	uint64_t uri = newest(h, ver) ? MCFAN_IGMP_URI_V3_MS : MCFAN_IGMP_URI_V2_MS;

	memset(out, 0, sizeof(*out));
	out->why = g->leaving ? MCFAN_IGMP_WHY_LEAVE : MCFAN_IGMP_WHY_JOIN;
	memcpy(out->group, g->addr, 16);
	g->change_left--;
	g->change_due_ms = now_ms + rand_ms(h, 1, uri);
	if (newest(h, ver) && !g->leaving && g->n_chg > 0) {
		/* a change of sources: its state-change records */
		out->kind = new_report_kind(h);
		out->n_recs = g->n_chg;
		memcpy(out->recs, g->chg, g->n_chg * sizeof(out->recs[0]));
	} else if (newest(h, ver)) {
		out->kind = new_report_kind(h);
		out->n_recs = 1;
		memcpy(r->group, g->addr, 16);
		r->n_src = g->n_src;
		memcpy(r->sources, g->sources, g->n_src * sizeof(r->sources[0]));
		if (g->leaving)
			r->type = g->n_src == 0 ? MCFAN_IGMP_REC_TO_IN : MCFAN_IGMP_REC_BLOCK;
		else
			r->type = g->n_src == 0 ? MCFAN_IGMP_REC_TO_EX : MCFAN_IGMP_REC_ALLOW;
	} else if (g->leaving) {
		/* RFC 2236 section 3 / RFC 2710 section 4: one Leave / Done; v1 has none */
		g->change_left = 0;
		if (ver == 1 && h->proto == MCFAN_IGMP_PROTO_IGMP) {
			remove_group(h, i);
			return 0;
		}
		out->kind = h->proto == MCFAN_IGMP_PROTO_MLD ? MCFAN_IGMP_SEND_MLD1_DONE :
			MCFAN_IGMP_SEND_V2_LEAVE;
	} else {
		out->kind = old_report_kind(h, ver);
	}
	if (g->leaving) {
		h->c.leaves_sent[ver]++;
		if (g->change_left == 0)
			remove_group(h, i);
	} else {
		h->c.reports_sent[ver]++;
		sent_report(g, now_ms);
		if (g->change_left == 0)
			g->n_chg = 0;
	}
	return 1;
}

/* The next frame of a v3 / MLDv2 general answer; 1 if out was filled. */
static int
poll_general(struct mcfan_igmp_host *h, unsigned int ver, uint64_t now_ms,
	     struct mcfan_igmp_send *out)
{
	struct mcfan_igmp_group *g;

	memset(out, 0, sizeof(*out));
	out->kind = new_report_kind(h);
	out->why = MCFAN_IGMP_WHY_GENERAL;
	while (h->general_cursor < h->n_groups && out->n_recs < MCFAN_IGMP_SEND_RECS) {
		g = &h->groups[h->general_cursor++];
		if (g->leaving)
			continue;
		state_record(g, &out->recs[out->n_recs++]);
		sent_report(g, now_ms);
	}
	if (h->general_cursor >= h->n_groups)
		h->general_pending = false;
	if (out->n_recs == 0)
		return 0;
	h->c.reports_sent[ver]++;
	return 1;
}

/* The answer to a group's query; 1 if out was filled. */
static int
poll_query(struct mcfan_igmp_host *h, struct mcfan_igmp_group *g, unsigned int ver,
	   uint64_t now_ms, struct mcfan_igmp_send *out)
{
	struct mcfan_igmp_record *r = &out->recs[0];
	unsigned int i, j, al = addr_len(h);
	uint8_t why = g->query_why;

	memset(out, 0, sizeof(*out));
	g->query_why = 0;
	out->why = why;
	memcpy(out->group, g->addr, 16);
	if (!newest(h, ver)) {
		out->kind = old_report_kind(h, ver);
	} else if (why != MCFAN_IGMP_WHY_SOURCE) {
		out->kind = new_report_kind(h);
		out->n_recs = 1;
		state_record(g, r);
	} else {
		/* RFC 3376 5.2 / RFC 3810 6.3: IS_IN of the queried sources the host wants */
		out->kind = new_report_kind(h);
		out->n_recs = 1;
		memset(r, 0, sizeof(*r));
		memcpy(r->group, g->addr, 16);
		r->type = MCFAN_IGMP_REC_IS_IN;
		for (i = 0; i < g->n_qsrc; i++) {
			bool want = g->n_src == 0;

			for (j = 0; j < g->n_src && !want; j++)
				want = memcmp(g->sources[j], g->qsrc[i], al) == 0;
			if (want)
				memcpy(r->sources[r->n_src++], g->qsrc[i], 16);
		}
		g->n_qsrc = 0;
		if (r->n_src == 0)
			return 0;
	}
	h->c.reports_sent[ver]++;
	sent_report(g, now_ms);
	return 1;
}

uint64_t
mcfan_igmp_host_querier_silent_ms(const struct mcfan_igmp_host *h, uint64_t since_ms,
				  uint64_t now_ms)
{
	uint64_t from = since_ms, oqpi;
	unsigned int i;
	bool joined = false;

	if (h->mode == MCFAN_IGMP_MODE_OFF)
		return 0;
	for (i = 0; i < h->n_groups && !joined; i++)
		joined = !h->groups[i].leaving;
	if (!joined)
		return 0;
	if (h->have_querier && h->querier_seen_ms > from)
		from = h->querier_seen_ms;
	oqpi = (uint64_t)h->robustness * h->qi_ms + MCFAN_IGMP_QRI_MS / 2;
	return now_ms >= from && now_ms - from >= oqpi ? now_ms - from : 0;
}

uint64_t
mcfan_igmp_host_next_due(const struct mcfan_igmp_host *h)
{
	const struct mcfan_igmp_group *g;
	uint64_t due = UINT64_MAX;
	unsigned int i;

	/* the conditions mcfan_igmp_host_poll() acts on, at their times; off sends nothing
	 * and only removes the left groups */
	for (i = 0; i < h->n_groups; i++) {
		g = &h->groups[i];
		if (h->mode == MCFAN_IGMP_MODE_OFF) {
			if (g->leaving)
				return 0;
			continue;
		}
		if (g->change_left > 0)
			due = g->change_due_ms < due ? g->change_due_ms : due;
		else if (g->leaving)
			return 0;
		if (g->query_why != 0 && !g->leaving)
			due = g->query_due_ms < due ? g->query_due_ms : due;
	}
	if (h->general_pending && h->mode != MCFAN_IGMP_MODE_OFF)
		due = h->general_due_ms < due ? h->general_due_ms : due;
	return due;
}

int
mcfan_igmp_host_poll(struct mcfan_igmp_host *h, uint64_t now_ms, struct mcfan_igmp_send *out)
{
	unsigned int ver = mcfan_igmp_host_version(h, now_ms), i;
	struct mcfan_igmp_group *g;

	if (ver == 0) {
		/* off: left groups go at once, nothing is sent */
		for (i = h->n_groups; i-- > 0;)
			if (h->groups[i].leaving)
				remove_group(h, i);
		return 0;
	}
	for (i = 0; i < h->n_groups; i++) {
		g = &h->groups[i];
		if (g->change_left > 0 && g->change_due_ms <= now_ms) {
			if (poll_change(h, i, ver, now_ms, out) == 1)
				return 1;
			i--; /* an IGMPv1 leave removed the group: look at what moved there */
		} else if (g->leaving && g->change_left == 0) {
			remove_group(h, i--);
		}
	}
	if (h->general_pending && h->general_due_ms <= now_ms) {
		if (!newest(h, ver))
			h->general_pending = false;
		else if (poll_general(h, ver, now_ms, out) == 1)
			return 1;
	}
	for (i = 0; i < h->n_groups; i++) {
		g = &h->groups[i];
		if (g->query_why != 0 && g->query_due_ms <= now_ms && !g->leaving)
			if (poll_query(h, g, ver, now_ms, out) == 1)
				return 1;
	}
	return 0;
}
