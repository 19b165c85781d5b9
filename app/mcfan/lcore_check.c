/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Lcore options checked before EAL (lcore_check.h). Without this, -l 0-1 -- --idle-worker
 * poll started EAL (its lines, a runtime directory) only to be refused by the same rule
 * after rte_eal_init, though -l already said there would be one data lcore, RX and worker.
 * Here EAL's lcore options are read as EAL will read them (DPDK 22.11 eal_common_options.c:
 * -l corelist, -c hex mask, --lcores lcore sets with optional @cpus, --main-lcore); anything
 * unusual is left to EAL and to the check after it.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan_parse.h"
#include "lcore_check.h"

/* The lcores EAL will enable, by id. */
struct lcore_set {
	bool on[RTE_MAX_LCORE];
};

static int
set_add(uint64_t first, uint64_t last, void *arg)
{
	struct lcore_set *set = arg;
	uint64_t i;

	for (i = first; i <= last; i++)
		set->on[i] = true;
	return 0;
}

/* -l LIST: DPDK's corelist. */
static int
parse_l(const char *s, struct lcore_set *set)
{
	return mcfan_corelist_parse(s, strlen(s), RTE_MAX_LCORE - 1, set_add, set, NULL);
}

/* -c MASK: hexadecimal, 0x optional; bit N is lcore N. */
static int
parse_c(const char *s, struct lcore_set *set)
{
	size_t n, i;
	int d, bit;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		char c = s[n - 1 - i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		for (bit = 0; bit < 4; bit++) {
			if (!(d & (1 << bit)))
				continue;
			if (i * 4 + (size_t)bit >= RTE_MAX_LCORE)
				return -EINVAL;
			set->on[i * 4 + (size_t)bit] = true;
		}
	}
	return 0;
}

/* One lcore set or cpu set of --lcores at *p: "(LIST)" or "N" or "N-M"; *p moves past it. */
static int
lcores_item(const char **p, struct lcore_set *set)
{
	const char *s = *p, *e;

	if (*s == '(') {
		e = strchr(s, ')');
		if (e == NULL)
			return -EINVAL;
		*p = e + 1;
		return set == NULL ? 0 : mcfan_corelist_parse(s + 1, (size_t)(e - s - 1),
							      RTE_MAX_LCORE - 1, set_add, set,
							      NULL);
	}
	e = s + strcspn(s, "@,");
	*p = e;
	return set == NULL ? 0 : mcfan_corelist_parse(s, (size_t)(e - s), RTE_MAX_LCORE - 1,
						      set_add, set, NULL);
}

/* --lcores 'LCORES[@CPUS],...': the lcore sets; the CPU sets are skipped. */
static int
parse_lcores(const char *s, struct lcore_set *set)
{
	const char *p = s;

	while (*p != '\0') {
		if (lcores_item(&p, set) < 0)
			return -EINVAL;
		if (*p == '@') {
			p++;
			if (lcores_item(&p, NULL) < 0)
				return -EINVAL;
		}
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			return -EINVAL;
	}
	return 0;
}

/*
 * The data lcores EAL's -l, -c or --lcores (and --main-lcore) will enable, in id order, and
 * the lcore set. 0: known; 1: not known before EAL (no such option, two, one EAL refuses,
 * a --main-lcore that is not one of the lcores); -ENOMEM.
 */
static int
eal_data_lcores(int argc, char **argv, struct lcore_set *set, unsigned int *data,
		unsigned int *n_data, unsigned int *main_out)
{
	unsigned int main_lcore = RTE_MAX_LCORE, id, n_opts = 0;
	const char *v, *main_arg = NULL;
	int a, ret = 0;
	char *end;

	for (a = 1; a < argc && ret == 0; a++) {
		if ((v = mcfan_opt_value(argc, argv, &a, "--main-lcore")) != NULL) {
			main_arg = v;
			continue;
		}
		if ((v = mcfan_opt_value(argc, argv, &a, "--lcores")) != NULL)
			ret = parse_lcores(v, set);
		else if ((v = mcfan_opt_value(argc, argv, &a, "-l")) != NULL)
			ret = parse_l(v, set);
		else if ((v = mcfan_opt_value(argc, argv, &a, "-c")) != NULL)
			ret = parse_c(v, set);
		else
			continue;
		n_opts++;
	}
	if (ret < 0 || n_opts != 1)
		return 1; /* none, two, or one EAL refuses: EAL and the later check answer */
	if (main_arg != NULL) {
		errno = 0;
		main_lcore = (unsigned int)strtoul(main_arg, &end, 10);
		if (errno != 0 || *end != '\0' || end == main_arg || main_lcore >= RTE_MAX_LCORE ||
		    !set->on[main_lcore])
			return 1;
	}
	*n_data = 0;
	for (id = 0; id < RTE_MAX_LCORE; id++) {
		if (!set->on[id])
			continue;
		if (main_lcore == RTE_MAX_LCORE)
			main_lcore = id; /* EAL's default: the first lcore */
		else if (id != main_lcore)
			data[(*n_data)++] = id;
	}
	*main_out = main_lcore;
	return 0;
}

/*
 * --rx N / --workers M counted on the user's lcores: too few data lcores for them, said
 * before EAL in the words of mcfan_placement_roles(), which answers after EAL otherwise.
 */
static int
counts_check(const struct mcfan_config *cfg, unsigned int n_data)
{
	unsigned int n_workers;
	char err[256];

	if (mcfan_role_counts(cfg->rx_count > 0 ? (unsigned int)cfg->rx_count : 1,
			      cfg->workers_count, n_data, "-l/-c/--lcores give", &n_workers, err,
			      sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "mcfan: %s\n", err);
	return -EINVAL;
}

int
mcfan_lcore_check(const struct mcfan_config *cfg, int argc, char **argv)
{
	unsigned int data[RTE_MAX_LCORE], n_data = 0, main_lcore = RTE_MAX_LCORE, i;
	bool is_rx[RTE_MAX_LCORE] = {false}, is_worker[RTE_MAX_LCORE] = {false};
	bool counts_on_user = (cfg->rx_count > 0 || cfg->workers_count >= 0) &&
			      cfg->n_rx_lcores == 0 && cfg->n_worker_lcores == 0;
	struct lcore_set *set;
	int ret;

	if (!cfg->idle_worker_set && !counts_on_user)
		return 0;
	set = calloc(1, sizeof(*set));
	if (set == NULL)
		return 0; /* the check after EAL answers */
	ret = eal_data_lcores(argc, argv, set, data, &n_data, &main_lcore);
	if (ret != 0)
		goto unknown;
	/* --rx/--workers on the user's lcores: roles counted after EAL (control/placement.c);
	 * only too few lcores for the counts is known now */
	if (counts_on_user) {
		free(set);
		return counts_check(cfg, n_data);
	}
	if (n_data == 0)
		goto unknown; /* "no data lcore", after EAL */
	/* --rx-lcores/--worker-lcores naming an lcore that is not a data lcore: after EAL */
	for (i = 0; i < cfg->n_rx_lcores; i++)
		if (cfg->rx_lcores[i] == main_lcore || !set->on[cfg->rx_lcores[i]])
			goto unknown;
	for (i = 0; i < cfg->n_worker_lcores; i++)
		if (cfg->worker_lcores[i] == main_lcore || !set->on[cfg->worker_lcores[i]])
			goto unknown;
	free(set);
	mcfan_lcore_roles(cfg, data, n_data, is_rx, is_worker);
	return mcfan_idle_worker_check(cfg, data, n_data, is_rx, is_worker);
unknown:
	free(set);
	return 0;
}
