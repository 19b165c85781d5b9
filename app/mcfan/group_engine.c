/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The worker engine instance table and the groups' instances, before EAL (group_engine.h).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcfan.h"
#include "config_file.h"
#include "control/readers.h"
#include "datapath/engine.h"
#include "group_engine.h"

/* The instance of NAME[:ARGS] text spec, added if new; -ENOSPC when the table is full. */
static int
inst_of(struct mcfan_config *cfg, const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon != NULL ? (size_t)(colon - spec) : strlen(spec);
	const char *args = colon != NULL ? colon + 1 : "";
	unsigned int k;

	for (k = 0; k < cfg->n_engine_inst; k++)
		if (strlen(cfg->engine_inst[k].name) == n &&
		    strncmp(cfg->engine_inst[k].name, spec, n) == 0 &&
		    strcmp(cfg->engine_inst[k].args, args) == 0)
			return (int)k;
	if (cfg->n_engine_inst == MCFAN_ENGINE_INST_MAX)
		return -ENOSPC;
	k = cfg->n_engine_inst++;
	snprintf(cfg->engine_inst[k].name, sizeof(cfg->engine_inst[k].name), "%.*s", (int)n,
		 spec);
	snprintf(cfg->engine_inst[k].args, sizeof(cfg->engine_inst[k].args), "%s", args);
	return (int)k;
}

/* Where rule r came from (config_file.h, mcfan_config_origin()). */
static const char *
rule_origin(const struct mcfan_config *cfg, unsigned int r, char *buf, size_t len)
{
	const char *rule = cfg->group_engine_rules[r];

	return mcfan_config_origin(cfg->config_file, cfg->group_engine_from[r].line,
				   cfg->group_engine_from[r].section ? "group-engine" : NULL, rule,
				   (int)strcspn(rule, "="), "group-engine", buf, len);
}

/* Two instances of one engine that would write into one place (its args_collide hook: two
 * pcap outputs in one directory) are refused, both named. */
static int
check_collisions(const struct mcfan_config *cfg)
{
	const struct mcfan_engine *e;
	char place[PATH_MAX + 32];
	unsigned int k, j;

	for (k = 0; k < cfg->n_engine_inst; k++) {
		e = mcfan_engine_find(MCFAN_ENGINE_WORKER, cfg->engine_inst[k].name);
		if (e == NULL || e->args_collide == NULL)
			continue;
		for (j = k + 1; j < cfg->n_engine_inst; j++) {
			if (strcmp(cfg->engine_inst[j].name, cfg->engine_inst[k].name) != 0 ||
			    !e->args_collide(cfg->engine_inst[k].args, cfg->engine_inst[j].args,
					     place, sizeof(place)))
				continue;
			fprintf(stderr, "mcfan: --group-engine: outputs '%s:%s'%s and '%s:%s' both "
				"write into %s: their files would have the same names; give each "
				"%s output a place of its own\n", cfg->engine_inst[k].name,
				cfg->engine_inst[k].args, k == 0 ? " (--worker-engine)" : "",
				cfg->engine_inst[j].name, cfg->engine_inst[j].args, place,
				cfg->engine_inst[k].name);
			return -EINVAL;
		}
	}
	return 0;
}

/* A group on an instance that can hand on none of its copies (the engine's args_group_check:
 * tx dst-ip and an IPv6 group) is refused, the rule that put it there (or --worker-engine)
 * named. rule_of: per --groups entry the rule that named it, -1 none; NULL: no rule. */
static int
check_groups(const struct mcfan_config *cfg, const int16_t *rule_of)
{
	char err[512], from[PATH_MAX + MCFAN_GROUP_ENGINE_RULE_LEN + 64];
	const struct mcfan_engine *e;
	unsigned int i, k;

	for (i = 0; i < cfg->n_groups; i++) {
		k = cfg->group_inst[i];
		e = mcfan_engine_find(MCFAN_ENGINE_WORKER, cfg->engine_inst[k].name);
		if (e == NULL || e->args_group_check == NULL ||
		    e->args_group_check(cfg->engine_inst[k].args, &cfg->groups[i], err,
					sizeof(err)) == 0)
			continue;
		if (rule_of != NULL && rule_of[i] >= 0)
			fprintf(stderr, "mcfan: %s: '%s': %s: %s\n",
				rule_origin(cfg, (unsigned int)rule_of[i], from, sizeof(from)),
				cfg->group_engine_rules[rule_of[i]], e->name, err);
		else
			fprintf(stderr, "mcfan: --worker-engine: %s: %s\n", e->name, err);
		return -EINVAL;
	}
	return 0;
}

int
mcfan_group_engine_resolve(struct mcfan_config *cfg)
{
	char buf[MCFAN_GROUP_ENGINE_RULE_LEN], g[MCFAN_GROUP_STR_MAX];
	char from[PATH_MAX + MCFAN_GROUP_ENGINE_RULE_LEN + 64];
	struct mcfan_flow_key *keys;
	int16_t *rule_of; /* per --groups entry: the rule that named it, -1 none */
	unsigned int r, i, j;
	char *eq;
	int n, k, ret = -EINVAL;

	memset(cfg->group_inst, 0, sizeof(cfg->group_inst));
	cfg->n_engine_inst = 0;
	snprintf(buf, sizeof(buf), "%s%s%s", cfg->worker_engine,
		 cfg->worker_engine_args[0] != '\0' ? ":" : "", cfg->worker_engine_args);
	(void)inst_of(cfg, buf);
	if (cfg->n_group_engine_rules == 0) {
		if (check_groups(cfg, NULL) < 0)
			return -EINVAL;
		goto count;
	}
	keys = calloc(MCFAN_MAX_GROUPS, sizeof(*keys));
	rule_of = malloc(MCFAN_MAX_GROUPS * sizeof(*rule_of));
	if (keys == NULL || rule_of == NULL) {
		fprintf(stderr, "mcfan: --group-engine: out of memory\n");
		free(keys);
		free(rule_of);
		return -ENOMEM;
	}
	for (i = 0; i < MCFAN_MAX_GROUPS; i++)
		rule_of[i] = -1;
	for (r = 0; r < cfg->n_group_engine_rules; r++) {
		snprintf(buf, sizeof(buf), "%s", cfg->group_engine_rules[r]);
		eq = strchr(buf, '=');
		*eq = '\0'; /* params.c checked the rule */
		n = mcfan_group_parse_list(buf, keys, MCFAN_MAX_GROUPS, NULL, 0);
		k = inst_of(cfg, eq + 1);
		if (n < 0)
			goto out;
		if (k < 0) {
			fprintf(stderr, "mcfan: %s: '%s': more than %d engine instances (each "
				"distinct NAME[:ARGS], --worker-engine's included)\n",
				rule_origin(cfg, r, from, sizeof(from)), cfg->group_engine_rules[r],
				MCFAN_ENGINE_INST_MAX);
			goto out;
		}
		for (j = 0; j < (unsigned int)n; j++) {
			for (i = 0; i < cfg->n_groups; i++)
				if (mcfan_flow_key_equal(&keys[j], &cfg->groups[i]))
					break;
			mcfan_group_format(&keys[j], g, sizeof(g));
			if (i == cfg->n_groups) {
				/* the same address joined with another port (or none): say so, a
				 * group without a port is every port, not any of them */
				for (i = 0; i < cfg->n_groups; i++)
					if (cfg->groups[i].family == keys[j].family &&
					    memcmp(cfg->groups[i].addr, keys[j].addr,
						   sizeof(keys[j].addr)) == 0)
						break;
				if (i < cfg->n_groups) {
					char have[64];

					mcfan_group_format(&cfg->groups[i], have, sizeof(have));
					fprintf(stderr, "mcfan: %s: group %s of '%s' is not in "
						"--groups: --groups has %s, and a group without a "
						"port means every port (write the port as --groups "
						"does)\n", rule_origin(cfg, r, from, sizeof(from)), g,
						cfg->group_engine_rules[r], have);
					goto out;
				}
				fprintf(stderr, "mcfan: %s: group %s of '%s' is not in --groups "
					"(join it there too)\n", rule_origin(cfg, r, from, sizeof(from)),
					g, cfg->group_engine_rules[r]);
				goto out;
			}
			if (rule_of[i] >= 0 && cfg->group_inst[i] != (uint8_t)k) {
				fprintf(stderr, "mcfan: %s: group %s is given two engines: '%s' and "
					"'%s' (one engine a group)\n",
					rule_origin(cfg, r, from, sizeof(from)), g,
					cfg->group_engine_rules[rule_of[i]],
					cfg->group_engine_rules[r]);
				goto out;
			}
			rule_of[i] = (int16_t)r;
			cfg->group_inst[i] = (uint8_t)k;
		}
	}
	ret = check_collisions(cfg);
	if (ret == 0)
		ret = check_groups(cfg, rule_of);
out:
	free(keys);
	free(rule_of);
	if (ret < 0)
		return ret;
count:
	/* the --reader-* options shape the readers engine's rings: without it they do nothing */
	if (cfg->reader_opt_given != NULL) {
		for (i = 0; i < cfg->n_engine_inst; i++)
			if (strcmp(cfg->engine_inst[i].name, MCFAN_READERS_ENGINE) == 0)
				break;
		if (i == cfg->n_engine_inst) {
			fprintf(stderr, "mcfan: %s: no group goes to the readers engine "
				"(--worker-engine %s), so there is no reader ring it shapes%s: give "
				"--worker-engine %s or a --group-engine GROUPS=%s too, or leave %s "
				"out\n", cfg->reader_opt_given, cfg->worker_engine,
				cfg->config_file[0] != '\0' ? " (command line and config file)" : "",
				MCFAN_READERS_ENGINE, MCFAN_READERS_ENGINE, cfg->reader_opt_given);
			return -EINVAL;
		}
	}
	for (i = 0; i < cfg->n_engine_inst; i++)
		if (strcmp(cfg->engine_inst[i].name, "count") == 0 &&
		    cfg->engine_inst[i].args[0] == '\0')
			return 0;
	if (inst_of(cfg, "count") < 0) {
		fprintf(stderr, "mcfan: --group-engine: more than %d engine instances (count, "
			"where `set engine GROUPS count` moves groups, needs one too)\n",
			MCFAN_ENGINE_INST_MAX - 1);
		return -EINVAL;
	}
	return 0;
}
