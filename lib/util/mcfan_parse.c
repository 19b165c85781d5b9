/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "mcfan_parse.h"

#define DECIMAL_BASE 10
#define CORELIST_ITEM_SEP ','
#define CORELIST_RANGE_SEP '-'

/* Decimal digits in [p, end), at most max; 0, -EINVAL (no digits, not a digit), -ERANGE. */
static int
parse_digits(const char *p, const char *end, uint64_t max, uint64_t *out)
{
	uint64_t v = 0, digit;
	const char *q;

	if (p == end)
		return -EINVAL;
	for (q = p; q < end; q++)
		if (*q < '0' || *q > '9')
			return -EINVAL;
	for (q = p; q < end; q++) {
		digit = (uint64_t)(*q - '0');
		if (v > (UINT64_MAX - digit) / DECIMAL_BASE)
			return -ERANGE;
		v = v * DECIMAL_BASE + digit;
		if (v > max)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

int
mcfan_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int ret;

	if (text == NULL)
		return -EINVAL;
	ret = parse_digits(text, text + strlen(text), max, &v);
	if (ret < 0)
		return ret;
	if (v < min)
		return -ERANGE;
	*out = v;
	return 0;
}

int
mcfan_err_vset(char *err, size_t len, int ret, const char *fmt, va_list ap)
{
	if (err != NULL && len > 0)
		vsnprintf(err, len, fmt, ap);
	return ret;
}

int
mcfan_err_set(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mcfan_err_vset(err, len, ret, fmt, ap);
	va_end(ap);
	return ret;
}

static int
corelist_stop(struct mcfan_corelist_err *err, enum mcfan_corelist_err_kind kind, uint64_t first,
	      uint64_t last, int ret)
{
	if (err != NULL) {
		err->kind = kind;
		err->first = first;
		err->last = last;
	}
	return ret;
}

int
mcfan_corelist_parse(const char *text, size_t len, uint64_t max_id,
		     mcfan_corelist_visit_t visit, void *arg, struct mcfan_corelist_err *err)
{
	const char *end = text + len, *item, *item_end, *dash;
	uint64_t a, b;
	size_t i;
	int ret;

	corelist_stop(err, MCFAN_CORELIST_OK, 0, 0, 0);
	if (len == 0)
		return corelist_stop(err, MCFAN_CORELIST_EMPTY, 0, 0, -EINVAL);
	/* empty items first, so a list with one is refused whatever else it holds */
	if (text[0] == CORELIST_ITEM_SEP || text[len - 1] == CORELIST_ITEM_SEP)
		return corelist_stop(err, MCFAN_CORELIST_EMPTY_ITEM, 0, 0, -EINVAL);
	for (i = 1; i < len; i++)
		if (text[i] == CORELIST_ITEM_SEP && text[i - 1] == CORELIST_ITEM_SEP)
			return corelist_stop(err, MCFAN_CORELIST_EMPTY_ITEM, 0, 0, -EINVAL);
	for (item = text;; item = item_end + 1) {
		item_end = memchr(item, CORELIST_ITEM_SEP, (size_t)(end - item));
		if (item_end == NULL)
			item_end = end;
		dash = memchr(item, CORELIST_RANGE_SEP, (size_t)(item_end - item));
		if (parse_digits(item, dash != NULL ? dash : item_end, max_id, &a) < 0 ||
		    (dash != NULL && parse_digits(dash + 1, item_end, max_id, &b) < 0))
			return corelist_stop(err, MCFAN_CORELIST_SYNTAX, 0, 0, -EINVAL);
		if (dash == NULL)
			b = a;
		if (b < a)
			return corelist_stop(err, MCFAN_CORELIST_DECREASING, a, b, -EINVAL);
		ret = visit(a, b, arg);
		if (ret < 0)
			return corelist_stop(err, MCFAN_CORELIST_VISIT, a, b, ret);
		if (item_end == end)
			return 0;
	}
}

/* DPDK 22.11 EAL's options with a value (getopt required_argument): mcfan_parse.h. */
static const char *const eal_value_opts[] = {
	"-a", "-b", "-c", "-d", "-l", "-m", "-n", "-r", "-s", "-S",
	"--allow", "--base-virtaddr", "--block", "--file-prefix", "--force-max-simd-bitwidth",
	"--huge-dir", "--iova-mode", "--lcores", "--log-level", "--main-lcore",
	"--mbuf-pool-ops-name", "--proc-type", "--socket-limit", "--socket-mem", "--syslog",
	"--trace", "--trace-bufsz", "--trace-dir", "--trace-mode", "--vdev", "--vfio-intr",
	"--vfio-vf-token",
};

/* DPDK 22.11 EAL's short options (eal_short_options): those without a value, and those
 * with one. getopt reads "-vl0-1" as -v, then -l "0-1"; "-vm 512" as -v, then -m "512". */
#define EAL_SHORT_FLAGS "hv"
#define EAL_SHORT_VALUE_OPTS "abcdlmnrsS"

/* In a short-option argument ("-l", "-l0-1", "-vl0-1", "-hvm512"), the letter of the
 * option that takes a value, after the flags bundled before it; NULL if there is none (a
 * long option, "-v", "-hv", or a letter EAL does not know). */
static const char *
bundled_value_opt(const char *a)
{
	const char *p;

	if (a[0] != '-' || a[1] == '-' || a[1] == '\0')
		return NULL;
	for (p = a + 1; *p != '\0' && strchr(EAL_SHORT_FLAGS, *p) != NULL; p++)
		;
	return *p != '\0' && strchr(EAL_SHORT_VALUE_OPTS, *p) != NULL ? p : NULL;
}

/* Does argument a take the next argument as its value? */
static bool
takes_next(const char *a)
{
	const char *p = bundled_value_opt(a);
	size_t k;

	if (p != NULL)
		return p[1] == '\0'; /* "-l" or "-vl": the value is the next argument */
	for (k = 0; k < RTE_DIM(eal_value_opts); k++)
		if (strcmp(a, eal_value_opts[k]) == 0)
			return true;
	return false;
}

bool
mcfan_eal_arg_is_value(int argc, char **argv, int i)
{
	int j = 1;

	/* from the start: whether argv[j] is an option or a value depends on those before */
	while (j < i && j < argc) {
		if (takes_next(argv[j])) {
			if (j + 1 == i)
				return true;
			j += 2;
		} else {
			j++;
		}
	}
	return false;
}

bool
mcfan_eal_has_flag(int argc, char **argv, const char *flag)
{
	const char *p;
	int i;

	for (i = 1; i < argc; i++) {
		if (mcfan_eal_arg_is_value(argc, argv, i))
			continue;
		if (strcmp(argv[i], flag) == 0)
			return true;
		if (flag[0] != '-' || flag[1] == '-' || flag[1] == '\0' || flag[2] != '\0' ||
		    argv[i][0] != '-' || argv[i][1] == '-')
			continue;
		/* a short flag bundled with others: "-vh", "-hl0-1" (not inside a value) */
		for (p = argv[i] + 1; *p != '\0' && strchr(EAL_SHORT_FLAGS, *p) != NULL; p++)
			if (*p == flag[1])
				return true;
	}
	return false;
}

const char *
mcfan_opt_value(int argc, char **argv, int *i, const char *opt)
{
	const char *a = argv[*i], *p;
	size_t n = strlen(opt);

	if (mcfan_eal_arg_is_value(argc, argv, *i))
		return NULL;
	if (opt[1] != '-') {
		/* a short option, also attached (-l0-1) or after bundled flags (-vl0-1) */
		p = bundled_value_opt(a);
		if (p == NULL || *p != opt[1])
			return NULL;
		if (p[1] == '\0')
			return *i + 1 < argc ? argv[++*i] : NULL;
		return p + 1;
	}
	if (strncmp(a, opt, n) != 0)
		return NULL;
	if (a[n] == '\0')
		return *i + 1 < argc ? argv[++*i] : NULL;
	return a[n] == '=' ? a + n + 1 : NULL;
}
