/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the console's line layer on one command line (console/check.h): the line
 * checks, DPDK's cmdline parser on the real command table (every MCFAN_CONSOLE_COMMAND of
 * the console family files), mcfan's diagnosis of a line that matches nothing, and the framework's own
 * commands help and wait. A family command stops at the action boundary: its handler would
 * call a control action, which needs a set-up data plane; the target checks the words the
 * handler would get instead.
 *
 * Checks: at most one error line, and then nothing else is printed or matched; every byte printed is
 * printable ASCII or a newline, and every printed error line starts with "error: " (one per
 * error the console counts); a blank or comment line prints nothing; a line that runs without
 * an error and matches no family command is help or wait; a matched command's words are
 * those its spec allows (literal words, one of the alternatives, argument characters), a
 * number word reads as a decimal (mcfan_ctl_parse_u64(): a number or too large), and the
 * command written back from its spec and words matches the same command with the same words.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan.h"
#include "control/action.h"
#include "console/check.h"
#include "console/console.h"
#include "console/source.h"
#include "fuzz.h"

#define LINE_MAX_IN 2048 /* longer lines are refused by length alone; 4x the console's */
#define WORD_MAX 128
#define FIELDS 10        /* the fields of struct mcfan_console_args */
#define FAKE_TSC_HZ 1000000000ull

static const char *const field_names[FIELDS] = {
	"command", "groups", "list", "policy", "lcore", "port", "ms", "n", "choice", "kind",
};

/* One match, copied out of the callback. */
struct match {
	unsigned int count;
	const struct mcfan_console_cmd *cmd;
	bool set[FIELDS];
	char val[FIELDS][WORD_MAX * 4];
};

static struct match *cur;

static const char *
field_at(const struct mcfan_console_args *a, unsigned int i)
{
	const char *const f[FIELDS] = {
		a->command, a->groups, a->list, a->policy, a->lcore, a->port, a->ms, a->n,
		a->choice, a->kind,
	};

	return f[i];
}

static void
on_match(const struct mcfan_console_cmd *cmd, const struct mcfan_console_args *a, void *arg)
{
	unsigned int i;
	const char *v;

	RTE_SET_USED(arg);
	cur->count++;
	cur->cmd = cmd;
	for (i = 0; i < FIELDS; i++) {
		v = field_at(a, i);
		cur->set[i] = v != NULL;
		if (v != NULL)
			snprintf(cur->val[i], sizeof(cur->val[i]), "%s", v);
	}
}

static bool
chars_ok(const char *s, const char *extra, bool hex)
{
	const char *p;

	if (s[0] == '\0' || strlen(s) > WORD_MAX - 2)
		return false;
	for (p = s; *p != '\0'; p++) {
		if ((*p >= '0' && *p <= '9') || (extra != NULL && strchr(extra, *p) != NULL) ||
		    (hex && ((*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))))
			continue;
		return false;
	}
	return true;
}

static int
field_index(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < FIELDS; i++)
		if (strlen(field_names[i]) == len && strncmp(field_names[i], name, len) == 0)
			return (int)i;
	/* <engine>... of set engine and join ... engine: the command field (console/token.c) */
	if (len == 6 && strncmp(name, "engine", len) == 0)
		return 0;
	return -1;
}

/* A word of printable ASCII without blanks, 1..WORD_MAX - 2 characters. */
static bool
printable_word(const char *s)
{
	const char *p;

	if (s[0] == '\0' || strlen(s) > WORD_MAX - 2)
		return false;
	for (p = s; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return false;
	return true;
}

/* Check a match against its spec; write the command back from spec and words into out. */
static void
check_match(const struct match *m, char *out, size_t out_len)
{
	char spec[128], *w, *save = NULL, alt[64], *ap, *asave = NULL;
	bool used[FIELDS] = {false};
	size_t off = 0;
	const char *v;
	uint64_t num;
	int f, ret;
	bool found;

	snprintf(spec, sizeof(spec), "%s", m->cmd->spec);
	out[0] = '\0';
	for (w = strtok_r(spec, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		if (w[0] == '<') {
			f = field_index(w + 1, strcspn(w + 1, ">"));
			FUZZ_CHECK(f >= 0 && m->set[f], "spec '%s': word %s has no value",
				   m->cmd->spec, w);
			v = m->val[f];
			used[f] = true;
			if (f == 1)
				FUZZ_CHECK(chars_ok(v, ".:[]-,@+", true), "groups word '%s'", v);
			else if (f == 2)
				FUZZ_CHECK(chars_ok(v, "-,", false), "list word '%s'", v);
			else if (f == 3)
				FUZZ_CHECK(chars_ok(v, "abcdefghijklmnopqrstuvwxyz_:", false),
					   "policy word '%s'", v);
			else if (f == 9) /* <kind>: any printable word (console/token.c) */
				FUZZ_CHECK(printable_word(v), "kind word '%s'", v);
			else if (f >= 4 && f <= 7) {
				FUZZ_CHECK(chars_ok(v, NULL, false), "number word '%s'", v);
				ret = mcfan_ctl_parse_u64(v, &num);
				FUZZ_CHECK(ret == 0 || ret == -ERANGE, "'%s' parses to %d", v, ret);
			}
		} else if (strchr(w, '|') != NULL) {
			FUZZ_CHECK(m->set[8], "spec '%s': no choice", m->cmd->spec);
			v = m->val[8];
			used[8] = true;
			snprintf(alt, sizeof(alt), "%s", w);
			found = false;
			for (ap = strtok_r(alt, "|", &asave); ap != NULL;
			     ap = strtok_r(NULL, "|", &asave))
				found = found || strcmp(ap, v) == 0;
			FUZZ_CHECK(found, "spec '%s': choice '%s'", m->cmd->spec, v);
		} else {
			v = w;
		}
		off += (size_t)snprintf(out + off, out_len - off, "%s%s", off > 0 ? " " : "", v);
		FUZZ_CHECK(off < out_len, "command written back is too long");
	}
	for (f = 0; f < FIELDS; f++)
		FUZZ_CHECK(used[f] == m->set[f], "spec '%s': field %s set %d used %d",
			   m->cmd->spec, field_names[f], m->set[f], used[f]);
}

/* Run a line with stdout captured; returns the errors it printed (counted by the console). */
static unsigned int
run(const char *line, size_t len, struct match *m, char **outp, size_t *out_len)
{
	static unsigned int errors;
	unsigned int now, n;
	FILE *saved = stdout, *mem;

	memset(m, 0, sizeof(*m));
	cur = m;
	mem = open_memstream(outp, out_len);
	FUZZ_CHECK(mem != NULL, "open_memstream");
	stdout = mem;
	now = mcfan_console_check_line(line, len);
	fflush(mem);
	stdout = saved;
	fclose(mem);
	n = now - errors;
	errors = now;
	return n;
}

static void
check_output(const char *out, size_t len, unsigned int errs, const char *what)
{
	unsigned int lines = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		FUZZ_CHECK(out[i] == '\n' || (out[i] >= ' ' && out[i] < 0x7f) || out[i] == '\t',
			   "%s: byte 0x%02x printed at %zu", what, (unsigned char)out[i], i);
		if ((i == 0 || out[i - 1] == '\n') && strncmp(out + i, "error: ", 7) == 0)
			lines++;
	}
	FUZZ_CHECK(len == 0 || out[len - 1] == '\n', "%s: output does not end a line", what);
	FUZZ_CHECK(lines == errs, "%s: %u error lines, %u errors counted", what, lines, errs);
}

static bool
blank_or_comment(const char *line, size_t len)
{
	size_t k = 0;

	while (k < len && (line[k] == ' ' || line[k] == '\t'))
		k++;
	return k == len || line[k] == '#';
}

static bool
printable(const char *line, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++)
		if (((unsigned char)line[k] < ' ' && line[k] != '\t') ||
		    (unsigned char)line[k] >= 0x7f)
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static struct match m, back;
	char again[1024], first[8];
	char *out = NULL;
	unsigned int errs;
	size_t out_len = 0, k;
	int ret;

	if (!ready) {
		mcfan_app.tsc_hz = FAKE_TSC_HZ;
		ret = mcfan_console_check_open(&mcfan_app, on_match, NULL);
		FUZZ_CHECK(ret == 0, "mcfan_console_check_open: %d", ret);
		ready = true;
	}
	if (size > LINE_MAX_IN)
		return 0;

	errs = run((const char *)data, size, &m, &out, &out_len);
	check_output(out, out_len, errs, "line");
	FUZZ_CHECK(errs <= 1, "%u errors for one line", errs);
	if (errs == 1)
		FUZZ_CHECK(memchr(out, '\n', out_len) == out + out_len - 1,
			   "a refused line printed more than its error line: %.*s", (int)out_len,
			   out);
	FUZZ_CHECK(m.count <= 1, "%u commands matched", m.count);
	if (m.count == 1)
		FUZZ_CHECK(errs == 0 && out_len == 0, "a matched command printed %zu bytes",
			   out_len);
	if (size <= CONSOLE_LINE_MAX_CHARS && printable((const char *)data, size) &&
	    blank_or_comment((const char *)data, size))
		FUZZ_CHECK(errs == 0 && m.count == 0 && out_len == 0,
			   "a blank or comment line did something");
	if (errs == 0 && m.count == 0 &&
	    !blank_or_comment((const char *)data, size)) {
		k = strspn((const char *)data, " \t");
		snprintf(first, sizeof(first), "%.*s", (int)RTE_MIN(size - k, 5u),
			 (const char *)data + k);
		FUZZ_CHECK(strncmp(first, "help", 4) == 0 || strncmp(first, "wait", 4) == 0,
			   "a line ran without error and matched nothing: '%s'", first);
	}
	free(out);
	if (m.count == 1) {
		check_match(&m, again, sizeof(again));
		out = NULL;
		errs = run(again, strlen(again), &back, &out, &out_len);
		FUZZ_CHECK(errs == 0 && back.count == 1 && back.cmd == m.cmd &&
			   memcmp(back.set, m.set, sizeof(m.set)) == 0 &&
			   memcmp(back.val, m.val, sizeof(m.val)) == 0,
			   "'%s' (spec '%s') written back does not match it again", again,
			   m.cmd->spec);
		free(out);
	}
	return 0;
}
