/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The feed-quality rules checked before EAL (seq_check.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan.h"
#include "mcfan_feed.h"
#include "mcfan_group.h"
#include "config_file.h"
#include "seq_check.h"

/* The --seq rules, parsed again (params.c checked them). */
struct seq_rules {
	struct mcfan_flow_key *keys[MCFAN_SEQ_RULES_MAX];
	unsigned int n_keys[MCFAN_SEQ_RULES_MAX];
	struct mcfan_feed_spec spec[MCFAN_SEQ_RULES_MAX];
	unsigned int n;
};

static void
rules_free(struct seq_rules *r)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		free(r->keys[i]);
	r->n = 0;
}

static int
rules_load(const struct mcfan_config *cfg, struct seq_rules *r)
{
	char buf[MCFAN_SEQ_RULE_LEN], *eq;
	unsigned int i;
	int n;

	for (i = 0; i < cfg->n_seq_rules; i++) {
		snprintf(buf, sizeof(buf), "%s", cfg->seq_rules[i]);
		eq = strrchr(buf, '=');
		if (eq == NULL)
			return -EINVAL;
		*eq = '\0';
		r->keys[r->n] = calloc(MCFAN_MAX_GROUPS, sizeof(struct mcfan_flow_key));
		if (r->keys[r->n] == NULL)
			return -ENOMEM;
		n = mcfan_group_parse_list(buf, r->keys[r->n], MCFAN_MAX_GROUPS, NULL, 0);
		if (n < 0 || mcfan_feed_spec_parse(eq + 1, &r->spec[r->n], NULL, 0) < 0) {
			free(r->keys[r->n]);
			return -EINVAL;
		}
		r->n_keys[r->n++] = (unsigned int)n;
	}
	return 0;
}

/* The kind a rule gives group k (the last rule that names it, as control/feed.c takes it);
 * NULL: none. */
static const struct mcfan_feed_spec *
rules_kind(const struct seq_rules *r, const struct mcfan_flow_key *k)
{
	unsigned int i, j;

	for (i = r->n; i > 0; i--)
		for (j = 0; j < r->n_keys[i - 1]; j++)
			if (mcfan_flow_key_equal(&r->keys[i - 1][j], k))
				return &r->spec[i - 1];
	return NULL;
}

static bool
in_groups(const struct mcfan_config *cfg, const struct mcfan_flow_key *k)
{
	unsigned int i;

	for (i = 0; i < cfg->n_groups; i++)
		if (mcfan_flow_key_equal(&cfg->groups[i], k))
			return true;
	return false;
}

/* Is k's address in --groups with another port than k's (a port, or none: every port)? */
static bool
addr_in_groups(const struct mcfan_config *cfg, const struct mcfan_flow_key *k)
{
	struct mcfan_flow_key a = *k, b;
	unsigned int i;

	/* the address alone, as mcfan_group_not_joined() compares it */
	a.udp_port = 0;
	for (i = 0; i < cfg->n_groups; i++) {
		b = cfg->groups[i];
		b.udp_port = 0;
		if (mcfan_flow_key_equal(&a, &b))
			return true;
	}
	return false;
}

/* A group of rule i whose address --groups joins at start with another port (a port left
 * out or mistyped: --groups 239.9.9.1:3999 --seq 239.9.9.1=iperf2) is a mistake the rule
 * can never be right about: refused, naming the first such group and the joined group of
 * its address. A group whose address is not joined at start at all is a rule for a later
 * console join: control/feed.c says so at start. 0, or -EINVAL (printed), -ENOMEM. */
static int
check_rule(const struct mcfan_config *cfg, const struct seq_rules *r, unsigned int i)
{
	struct mcfan_group_entry *e;
	const char *rule = cfg->seq_rules[i];
	char o_buf[PATH_MAX + 64], what[PATH_MAX + 64 + MCFAN_SEQ_RULE_LEN];
	char msg[sizeof(what) + 2 * MCFAN_GROUP_STR_MAX + 64], more[64] = "";
	unsigned int j, n = 0, first = 0;

	for (j = 0; j < r->n_keys[i]; j++) {
		if (in_groups(cfg, &r->keys[i][j]) || !addr_in_groups(cfg, &r->keys[i][j]))
			continue;
		if (n++ == 0)
			first = j;
	}
	if (n == 0)
		return 0;
	e = calloc(RTE_MAX(cfg->n_groups, 1u), sizeof(*e));
	if (e == NULL) {
		fprintf(stderr, "mcfan: --seq: out of memory\n");
		return -ENOMEM;
	}
	for (j = 0; j < cfg->n_groups; j++)
		e[j].key = cfg->groups[j];
	snprintf(what, sizeof(what), "%s %s",
		 mcfan_config_origin(cfg->config_file, cfg->seq_rule_from[i].line,
				     cfg->seq_rule_from[i].section ? "seq" : NULL, rule,
				     (int)strcspn(rule, "="), "seq", o_buf, sizeof(o_buf)), rule);
	/* "WHAT: group G is not joined (G:PORT is)", as set seq and leave say it */
	mcfan_group_not_joined(e, cfg->n_groups, what, &r->keys[i][first], msg, sizeof(msg));
	free(e);
	if (n > 1)
		snprintf(more, sizeof(more), "; %u more of its groups %s joined on another port "
			 "too", n - 1, n == 2 ? "is" : "are");
	fprintf(stderr, "mcfan: %s%s: a --seq rule names a group as --groups writes it (with the "
		"port; a group without one is every port)\n", msg, more);
	return -EINVAL;
}

/* One pair (index p): 0, or -EINVAL with the line printed. */
static int
check_pair(const struct mcfan_config *cfg, const struct seq_rules *r, unsigned int p)
{
	const struct mcfan_feed_spec *spec[2];
	struct mcfan_flow_key k[3], o[3];
	char g[2][MCFAN_GROUP_STR_MAX], kind[2][MCFAN_FEED_SPEC_STR_MAX + 1];
	const char *pair = cfg->seq_pairs[p];
	char o_buf[PATH_MAX + 64];
	const char *origin = mcfan_config_origin(cfg->config_file, cfg->seq_pair_from[p].line,
						 cfg->seq_pair_from[p].section ? "seq" : NULL,
						 "pair", 4, "seq-pair", o_buf, sizeof(o_buf));
	unsigned int l, q, m;

	if (mcfan_group_parse_list(pair, k, RTE_DIM(k), NULL, 0) != 2)
		return -EINVAL; /* params.c refused it already */
	for (l = 0; l < 2; l++) {
		mcfan_group_format(&k[l], g[l], sizeof(g[l]));
		if (!in_groups(cfg, &k[l])) {
			fprintf(stderr, "mcfan: %s %s: group %s is not in --groups (both lines "
				"of a pair are joined at start)\n", origin, pair, g[l]);
			return -EINVAL;
		}
		spec[l] = rules_kind(r, &k[l]);
		if (spec[l] == NULL || spec[l]->kind == MCFAN_FEED_OFF) {
			fprintf(stderr, "mcfan: %s %s: group %s has no sequence extractor "
				"(give it a kind: --seq %s=iperf2, or a [seq] line)\n", origin, pair, g[l], g[l]);
			return -EINVAL;
		}
		mcfan_feed_spec_format(spec[l], kind[l], sizeof(kind[l]));
	}
	if (strcmp(kind[0], kind[1]) != 0) {
		fprintf(stderr, "mcfan: %s %s: line A %s is %s and line B %s is %s: both "
			"lines of a pair carry one kind\n", origin, pair, g[0], kind[0], g[1], kind[1]);
		return -EINVAL;
	}
	if (spec[0]->kind == MCFAN_FEED_MPEGTS) {
		fprintf(stderr, "mcfan: %s %s: mpegts has no sequence space across PIDs to "
			"arbitrate\n", origin, pair);
		return -EINVAL;
	}
	for (q = 0; q < p; q++) {
		if (mcfan_group_parse_list(cfg->seq_pairs[q], o, RTE_DIM(o), NULL, 0) != 2)
			continue;
		for (l = 0; l < 2; l++) {
			for (m = 0; m < 2; m++) {
				if (!mcfan_flow_key_equal(&k[l], &o[m]))
					continue;
				fprintf(stderr, "mcfan: %s %s: group %s is a line of the pair "
					"%s already (a group is in one pair)\n", origin, pair, g[l],
					cfg->seq_pairs[q]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int
mcfan_seq_check(const struct mcfan_config *cfg)
{
	struct seq_rules r = { .n = 0 };
	unsigned int p;
	int ret;

	if (cfg->n_seq_pairs == 0 && cfg->n_seq_rules == 0)
		return 0;
	ret = rules_load(cfg, &r);
	if (ret == -ENOMEM)
		fprintf(stderr, "mcfan: --seq: out of memory\n");
	for (p = 0; ret == 0 && p < r.n; p++)
		ret = check_rule(cfg, &r, p);
	for (p = 0; ret == 0 && p < cfg->n_seq_pairs; p++)
		ret = check_pair(cfg, &r, p);
	rules_free(&r);
	return ret;
}
