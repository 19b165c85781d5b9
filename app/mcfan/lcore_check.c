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

#include "mcfan_hosttopo.h"
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

/* --lcores 'LCORES[@CPUS],...': the CPUs its lcores run on (CPUS, or the lcores' own ids
 * where there is no @, as EAL reads them). */
static int
parse_lcores_cpus(const char *s, struct lcore_set *cpus)
{
	struct lcore_set *own = calloc(1, sizeof(*own));
	const char *p = s;
	unsigned int i;
	int ret = 0;

	if (own == NULL)
		return -ENOMEM;
	while (*p != '\0' && ret == 0) {
		memset(own, 0, sizeof(*own));
		if (lcores_item(&p, own) < 0) {
			ret = -EINVAL;
			break;
		}
		if (*p == '@') {
			p++;
			if (lcores_item(&p, cpus) < 0)
				ret = -EINVAL;
		} else {
			for (i = 0; i < RTE_MAX_LCORE; i++)
				cpus->on[i] |= own->on[i];
		}
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			ret = -EINVAL;
	}
	free(own);
	return ret;
}

/* The CPUs of a set, as a list ("0-1,4") in buf. */
static void
cpus_text(const struct lcore_set *set, char *buf, size_t len)
{
	struct mcfan_cpuset cs;
	unsigned int i;

	mcfan_cpuset_zero(&cs);
	for (i = 0; i < RTE_MAX_LCORE && i < MCFAN_SCT_MAX_CPUS; i++)
		if (set->on[i])
			mcfan_cpuset_add(&cs, i);
	if (mcfan_cpuset_format(&cs, buf, len) < 0)
		snprintf(buf, len, "?");
}

/* The hint after "CPU N is not online" for -l or -c: the same lcores, as --lcores, each
 * online one on its own CPU, each other on an online CPU the process may run on that none
 * of them uses, then (several lcores a CPU) on the highest ones, down, leaving the first
 * (main) lcore's CPU alone when there is another: -l 0-2 on CPUs 0-1 gives
 * "--lcores '0@0,1@1,2@1'", -l 1-2 "--lcores '1@1,2@0'". "" when it does not fit. */
static void
lcores_example(const struct lcore_set *lcores, const struct mcfan_cpuset *online,
	       const struct mcfan_cpuset *allowed, char *buf, size_t len)
{
	unsigned int i, cpu, next_free = 0, next_shared = 0, n_cpus = 0, main_cpu = UINT_MAX;
	unsigned int cpus[MCFAN_SCT_MAX_CPUS];
	struct mcfan_cpuset used;
	size_t at;
	int n;

	buf[0] = '\0';
	mcfan_cpuset_zero(&used);
	for (cpu = 0; cpu < MCFAN_SCT_MAX_CPUS; cpu++) {
		if (!mcfan_cpuset_has(online, cpu))
			continue;
		if (cpu < RTE_MAX_LCORE && lcores->on[cpu])
			mcfan_cpuset_add(&used, cpu);
		/* the CPUs to share, highest first; the ones the process may run on, if any */
		if (mcfan_cpuset_has(allowed, cpu) || mcfan_cpuset_count(allowed) == 0)
			cpus[n_cpus++] = cpu;
	}
	if (n_cpus == 0)
		return;
	n = snprintf(buf, len, "--lcores '");
	at = n < 0 ? len : (size_t)n;
	for (i = 0; i < RTE_MAX_LCORE && at < len; i++) {
		if (!lcores->on[i])
			continue;
		if (i < MCFAN_SCT_MAX_CPUS && mcfan_cpuset_has(online, i)) {
			cpu = i;
		} else {
			while (next_free < n_cpus && mcfan_cpuset_has(&used, cpus[next_free]))
				next_free++;
			if (next_free < n_cpus) {
				cpu = cpus[next_free];
				mcfan_cpuset_add(&used, cpu);
			} else {
				do
					cpu = cpus[n_cpus - 1 - next_shared++ % n_cpus];
				while (cpu == main_cpu && n_cpus > 1);
			}
		}
		if (main_cpu == UINT_MAX)
			main_cpu = cpu;
		n = snprintf(buf + at, len - at, "%s%u@%u", at > 10 ? "," : "", i, cpu);
		at += n < 0 ? len : (size_t)n;
	}
	if (at + 1 >= len)
		buf[0] = '\0';
	else
		snprintf(buf + at, len - at, "'");
}

int
mcfan_lcore_cpus_check(int argc, char **argv)
{
	struct lcore_set *cpus, *off, *out;
	struct mcfan_cpuset online, allowed;
	char have[256], bad[256], example[512];
	const char *opt = NULL, *v, *val = NULL, *opt1 = NULL, *val1 = NULL;
	unsigned int i, n_opts = 0, n_off = 0, n_out = 0;
	int a, ret = 0;

	cpus = calloc(3, sizeof(*cpus));
	if (cpus == NULL)
		return 0; /* EAL answers */
	off = &cpus[1];
	out = &cpus[2];
	for (a = 1; a < argc && ret == 0; a++) {
		if ((v = mcfan_opt_value(argc, argv, &a, "--lcores")) != NULL) {
			opt = "--lcores";
			ret = parse_lcores_cpus(v, cpus);
		} else if ((v = mcfan_opt_value(argc, argv, &a, "-l")) != NULL) {
			opt = "-l";
			ret = parse_l(v, cpus);
		} else if ((v = mcfan_opt_value(argc, argv, &a, "-c")) != NULL) {
			opt = "-c";
			ret = parse_c(v, cpus);
		} else {
			continue;
		}
		val = v;
		if (++n_opts == 1) {
			opt1 = opt;
			val1 = v;
		} else {
			/* EAL 22.11 refuses a second -l, -c or --lcores ("Option -l is ignored,
			 * because (-l) is set!", though it is refused) with its whole usage; a
			 * second -l naming an offline CPU gets "lcore N unavailable" first */
			fprintf(stderr, "mcfan: %s %s and %s %s: EAL takes its lcores from one "
				"option, once: give one of -l, -c or --lcores\n", opt1, val1, opt,
				v);
			ret = -EINVAL;
			goto done;
		}
	}
	/* none: EAL makes one lcore of each CPU the process may run on; with one CPU (taskset
	 * -c 1, a cpuset) that is the main lcore alone, which the start refuses after EAL */
	if (ret == 0 && n_opts == 0 && mcfan_hosttopo_allowed(&allowed) == 0 &&
	    mcfan_cpuset_count(&allowed) == 1) {
		if (mcfan_cpuset_format(&allowed, have, sizeof(have)) < 0)
			snprintf(have, sizeof(have), "?");
		fprintf(stderr, "mcfan: this process may run on one CPU only (%s: taskset or a "
			"cpuset), so EAL's default lcores (one a CPU) are the main lcore alone: "
			"no data lcore; give a placement option for mcfan to place its lcores there "
			"(e.g. --rx 1), or EAL's --lcores (e.g. --lcores '0@%s,1@%s')\n", have,
			have, have);
		ret = -EINVAL;
		goto done;
	}
	/* none, or one EAL refuses: EAL answers; a host mcfan cannot read: EAL too (not
	 * the parse error as the status: mcfan would exit 2 without a word) */
	if (ret < 0 || n_opts != 1 || mcfan_hosttopo_online(NULL, &online) < 0 ||
	    mcfan_hosttopo_allowed(&allowed) < 0) {
		ret = 0;
		goto done;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		if (!cpus->on[i])
			continue;
		if (i >= MCFAN_SCT_MAX_CPUS || !mcfan_cpuset_has(&online, i)) {
			off->on[i] = true;
			n_off++;
		} else if (!mcfan_cpuset_has(&allowed, i)) {
			out->on[i] = true;
			n_out++;
		}
	}
	if (n_off > 0) {
		/* EAL: "lcore N unavailable", "invalid core list", then its whole usage */
		cpus_text(off, bad, sizeof(bad));
		if (mcfan_cpuset_format(&online, have, sizeof(have)) < 0)
			snprintf(have, sizeof(have), "?");
		example[0] = '\0';
		if (strcmp(opt, "--lcores") != 0)
			lcores_example(cpus, &online, &allowed, example, sizeof(example));
		if (strcmp(opt, "--lcores") == 0)
			fprintf(stderr, "mcfan: %s %s: CPU%s %s %s not online on this host (its "
				"CPUs: %s): name an online CPU after each '@' (several lcores may "
				"share one: (1-3)@1)\n", opt, val, n_off > 1 ? "s" : "", bad,
				n_off > 1 ? "are" : "is", have);
		else
			fprintf(stderr, "mcfan: %s %s: CPU%s %s %s not online on this host (its "
				"CPUs: %s): name online CPUs, or place more lcores than CPUs with "
				"--lcores%s%s%s\n", opt, val, n_off > 1 ? "s" : "", bad,
				n_off > 1 ? "are" : "is", have, example[0] != '\0' ? " (e.g. " : "",
				example, example[0] != '\0' ? ")" : "");
		ret = -EINVAL;
	} else if (n_out > 0) {
		/* EAL pins its lcores wherever the option says, outside taskset's set too */
		cpus_text(out, bad, sizeof(bad));
		if (mcfan_cpuset_format(&allowed, have, sizeof(have)) < 0)
			snprintf(have, sizeof(have), "?");
		fprintf(stderr, "mcfan: warning: %s %s: CPU%s %s %s outside the CPUs this process "
			"may run on (%s: taskset or a cpuset); EAL pins lcores there all the same\n",
			opt, val, n_out > 1 ? "s" : "", bad, n_out > 1 ? "are" : "is", have);
	}
done:
	free(cpus);
	return ret;
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

	set = calloc(1, sizeof(*set));
	if (set == NULL)
		return 0; /* the check after EAL answers */
	ret = eal_data_lcores(argc, argv, set, data, &n_data, &main_lcore);
	if (ret != 0)
		goto unknown;
	/* -l 1, -c 1, --lcores 0: EAL would start only for mcfan to refuse it (setup.c) */
	if (n_data == 0) {
		free(set);
		fprintf(stderr, "mcfan: no data lcore: EAL gave only the main lcore %u; give at "
			"least two lcores, e.g. -l 0-1\n", main_lcore);
		return -EINVAL;
	}
	if (!cfg->idle_worker_set && !counts_on_user)
		goto unknown;
	/* --rx/--workers on the user's lcores: roles counted after EAL (control/placement.c);
	 * only too few lcores for the counts is known now */
	if (counts_on_user) {
		free(set);
		return counts_check(cfg, n_data);
	}
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
