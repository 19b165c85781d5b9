/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Idle policies (lib/idle): parsing every kind and threshold, formatting, the role checks and
 * the sleep cap at its edges. Pure functions: no EAL.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mcfan_idle.h"
#include "mcfan_msacc.h"
#include "unit.h"

UNIT_DEFINE_COUNTERS;

#define ERR_LEN 256
#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define POLICY_UNTOUCHED UINT32_C(0xdeadbeef)

static const char *const kinds[MCFAN_IDLE_KIND_MAX] = {
	"poll", "backoff", "wake", "interrupt",
};

static const char *const thresholds[MCFAN_IDLE_THR_MAX] = {
	"none", "very_short", "short", "medium", "long", "very_long",
};

static const char *const bad_kind_msg = "' is not one of poll, backoff[:THRESHOLD], "
	"wake[:THRESHOLD], interrupt[:THRESHOLD]";

/* A policy without a threshold gets its kind's default. */
static void
test_parse_defaults(void)
{
	static const enum mcfan_idle_threshold want[MCFAN_IDLE_KIND_MAX] = {
		MCFAN_IDLE_THR_NONE, MCFAN_IDLE_THR_SHORT, MCFAN_IDLE_THR_VERY_SHORT,
		MCFAN_IDLE_THR_VERY_SHORT,
	};
	char err[ERR_LEN] = "";
	unsigned int k;
	uint32_t p;

	for (k = 0; k < MCFAN_IDLE_KIND_MAX; k++) {
		p = POLICY_UNTOUCHED;
		CHECK_EQ_INT(mcfan_idle_parse(kinds[k], &p, err, sizeof(err)), 0);
		CHECK_EQ_INT(p, MCFAN_IDLE_POLICY(k, want[k]));
		CHECK_EQ_INT(MCFAN_IDLE_KIND_OF(p), k);
		CHECK_EQ_INT(MCFAN_IDLE_THR_OF(p), want[k]);
	}
	CHECK_EQ_STR(err, "");
}

/* Every kind that takes a threshold with every threshold; poll takes none. */
static void
test_parse_thresholds(void)
{
	char text[64], err[ERR_LEN], want[ERR_LEN];
	unsigned int k, t;
	uint32_t p;

	for (k = 0; k < MCFAN_IDLE_KIND_MAX; k++) {
		for (t = 0; t < MCFAN_IDLE_THR_MAX; t++) {
			snprintf(text, sizeof(text), "%s:%s", kinds[k], thresholds[t]);
			p = POLICY_UNTOUCHED;
			err[0] = '\0';
			if (k == MCFAN_IDLE_POLL) {
				CHECK_EQ_INT(mcfan_idle_parse(text, &p, err, sizeof(err)), -EINVAL);
				CHECK_EQ_INT(p, POLICY_UNTOUCHED);
				snprintf(want, sizeof(want),
					 "idle policy '%s': poll takes no threshold", text);
				CHECK_EQ_STR(err, want);
				continue;
			}
			CHECK_EQ_INT(mcfan_idle_parse(text, &p, err, sizeof(err)), 0);
			CHECK_EQ_INT(p, MCFAN_IDLE_POLICY(k, t));
			CHECK_EQ_STR(err, "");
		}
	}
}

static void
check_bad(const char *text, const char *want_msg)
{
	char err[ERR_LEN] = "";
	uint32_t p = POLICY_UNTOUCHED;

	CHECK_EQ_INT(mcfan_idle_parse(text, &p, err, sizeof(err)), -EINVAL);
	CHECK_EQ_INT(p, POLICY_UNTOUCHED);
	CHECK_EQ_STR(err, want_msg);
}

/* Bad kinds, bad thresholds, lengths: each error and its message. */
static void
test_parse_errors(void)
{
	char want[ERR_LEN], long_text[MCFAN_IDLE_POLICY_TEXT_MAX + 2];

	snprintf(want, sizeof(want), "idle policy '%s%s", "spin", bad_kind_msg);
	check_bad("spin", want);
	snprintf(want, sizeof(want), "idle policy '%s%s", "Poll", bad_kind_msg);
	check_bad("Poll", want);
	snprintf(want, sizeof(want), "idle policy '%s%s", ":short", bad_kind_msg);
	check_bad(":short", want);
	snprintf(want, sizeof(want), "idle policy '%s%s", "backoffs", bad_kind_msg);
	check_bad("backoffs", want);
	snprintf(want, sizeof(want), "idle policy '%s%s", "", bad_kind_msg);
	check_bad("", want);
	check_bad(NULL, want);

	check_bad("backoff:", "idle policy 'backoff:': threshold '' is not one of none, "
		  "very_short, short, medium, long, very_long");
	check_bad("wake:tiny", "idle policy 'wake:tiny': threshold 'tiny' is not one of none, "
		  "very_short, short, medium, long, very_long");
	check_bad("interrupt:short:x", "idle policy 'interrupt:short:x': threshold 'short:x' is "
		  "not one of none, very_short, short, medium, long, very_long");
	check_bad("poll:", "idle policy 'poll:': poll takes no threshold");

	/* "interrupt:very_short" is the longest policy; one character more is too long */
	CHECK_EQ_INT(strlen("interrupt:very_short"), 20);
	memset(long_text, 'x', sizeof(long_text) - 1);
	long_text[sizeof(long_text) - 1] = '\0';
	snprintf(want, sizeof(want), "idle policy '%s%s", long_text, bad_kind_msg);
	check_bad(long_text, want);
	memcpy(long_text, "backoff:", strlen("backoff:"));
	long_text[MCFAN_IDLE_POLICY_TEXT_MAX] = '\0'; /* the longest text looked at */
	snprintf(want, sizeof(want), "idle policy '%s': threshold '%s' is not one of none, "
		 "very_short, short, medium, long, very_long", long_text,
		 long_text + strlen("backoff:"));
	check_bad(long_text, want);
	/* a known kind with a threshold longer than that is a bad threshold, not a bad kind */
	check_bad("backoff:99999999999999999999", "idle policy 'backoff:99999999999999999999': "
		  "threshold '99999999999999999999' is not one of none, very_short, short, "
		  "medium, long, very_long");
	check_bad("wake:very_short_and_some_more", "idle policy 'wake:very_short_and_some_more'"
		  ": threshold 'very_short_and_some_more' is not one of none, very_short, short, "
		  "medium, long, very_long");
}

/* A message is cut to the caller's buffer, and no buffer at all is fine. */
static void
test_parse_err_buffer(void)
{
	char small[8];
	uint32_t p = POLICY_UNTOUCHED;

	CHECK_EQ_INT(mcfan_idle_parse("spin", &p, small, sizeof(small)), -EINVAL);
	CHECK_EQ_STR(small, "idle po");
	CHECK_EQ_INT(mcfan_idle_parse("spin", &p, NULL, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_idle_parse("poll:x", &p, NULL, 0), -EINVAL);
	CHECK_EQ_INT(mcfan_idle_parse("wake:x", &p, NULL, 0), -EINVAL);
	CHECK_EQ_INT(p, POLICY_UNTOUCHED);
}

/* Formatting gives back what parsing took; odd words stay readable. */
static void
test_format(void)
{
	char text[64], buf[MCFAN_IDLE_POLICY_TEXT_MAX + 1], small[5];
	unsigned int k, t;
	uint32_t p;

	for (k = 0; k < MCFAN_IDLE_KIND_MAX; k++) {
		for (t = 0; t < MCFAN_IDLE_THR_MAX; t++) {
			if (k == MCFAN_IDLE_POLL)
				snprintf(text, sizeof(text), "%s", kinds[k]);
			else
				snprintf(text, sizeof(text), "%s:%s", kinds[k], thresholds[t]);
			CHECK(mcfan_idle_format(MCFAN_IDLE_POLICY(k, t), buf, sizeof(buf)) == buf,
			      "format returns its buffer");
			CHECK_EQ_STR(buf, text);
			CHECK_EQ_INT(mcfan_idle_parse(buf, &p, NULL, 0), 0);
			CHECK_EQ_INT(p, MCFAN_IDLE_POLICY(k, k == MCFAN_IDLE_POLL ?
							      MCFAN_IDLE_THR_NONE : t));
		}
	}
	CHECK_EQ_STR(mcfan_idle_format(MCFAN_IDLE_POLICY(MCFAN_IDLE_BACKOFF, MCFAN_IDLE_THR_MAX),
				       buf, sizeof(buf)), "backoff");
	CHECK_EQ_STR(mcfan_idle_format(MCFAN_IDLE_POLICY(MCFAN_IDLE_KIND_MAX, 0), buf,
				       sizeof(buf)), "unknown:none");
	CHECK_EQ_STR(mcfan_idle_format(MCFAN_IDLE_POLICY(MCFAN_IDLE_WAKE, MCFAN_IDLE_THR_LONG),
				       small, sizeof(small)), "wake");
	CHECK_EQ_STR(mcfan_idle_format(MCFAN_IDLE_POLICY(MCFAN_IDLE_INTERRUPT,
							 MCFAN_IDLE_THR_LONG), small,
				       sizeof(small)), "inte");
}

static void
test_names(void)
{
	static const uint32_t polls[MCFAN_IDLE_THR_MAX] = { 0, 16, 128, 1024, 8192, 65536 };
	unsigned int k, t;

	for (k = 0; k < MCFAN_IDLE_KIND_MAX; k++)
		CHECK_EQ_STR(mcfan_idle_kind_name(k), kinds[k]);
	CHECK_EQ_STR(mcfan_idle_kind_name(MCFAN_IDLE_KIND_MAX), "unknown");
	CHECK_EQ_STR(mcfan_idle_kind_name((enum mcfan_idle_kind)-1), "unknown");
	for (t = 0; t < MCFAN_IDLE_THR_MAX; t++)
		CHECK_EQ_INT(mcfan_idle_threshold_polls(t), polls[t]);
	CHECK_EQ_INT(mcfan_idle_threshold_polls(MCFAN_IDLE_THR_MAX), 0);
	CHECK_EQ_INT(mcfan_idle_threshold_polls((enum mcfan_idle_threshold)-1), 0);
}

/* wake is for worker-only lcores, interrupt for lcores that poll a port. */
static void
test_role_ok(void)
{
	static const uint32_t roles[] = {
		MCFAN_ROLE_RX, MCFAN_ROLE_WORKER, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER,
		MCFAN_ROLE_CONTROL,
	};
	static const char *const wake_msg = "wake is for worker-only lcores: an lcore that "
		"polls a port is woken by no one (use backoff or interrupt)";
	static const char *const intr_msg = "interrupt is for lcores that poll a port (use wake "
		"or backoff for workers)";
	char err[ERR_LEN];
	unsigned int r, t;
	uint32_t role;
	bool rx;

	for (r = 0; r < RTE_DIM(roles); r++) {
		role = roles[r];
		rx = (role & MCFAN_ROLE_RX) != 0;
		for (t = 0; t < MCFAN_IDLE_THR_MAX; t++) {
			err[0] = '\0';
			CHECK_EQ_INT(mcfan_idle_role_ok(MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, t), role,
							err, sizeof(err)), 0);
			CHECK_EQ_INT(mcfan_idle_role_ok(MCFAN_IDLE_POLICY(MCFAN_IDLE_BACKOFF, t),
							role, err, sizeof(err)), 0);
			CHECK_EQ_STR(err, "");
			CHECK_EQ_INT(mcfan_idle_role_ok(MCFAN_IDLE_POLICY(MCFAN_IDLE_WAKE, t), role,
							err, sizeof(err)), rx ? -EINVAL : 0);
			CHECK_EQ_STR(err, rx ? wake_msg : "");
			err[0] = '\0';
			CHECK_EQ_INT(mcfan_idle_role_ok(MCFAN_IDLE_POLICY(MCFAN_IDLE_INTERRUPT, t),
							role, err, sizeof(err)), rx ? 0 : -EINVAL);
			CHECK_EQ_STR(err, rx ? "" : intr_msg);
		}
	}
	CHECK_EQ_INT(mcfan_idle_role_ok(MCFAN_IDLE_POLICY(MCFAN_IDLE_WAKE, 0), MCFAN_ROLE_RX,
					NULL, 0), -EINVAL);
}

/* Placement defaults: poll alone on a CPU; on a shared CPU a sleeping policy that suits the
 * role (backoff:none with the RX role, wake:none for worker-only lcores), never poll. */
static void
test_default_policy(void)
{
	static const uint32_t roles[] = {
		MCFAN_ROLE_RX, MCFAN_ROLE_WORKER, MCFAN_ROLE_RX | MCFAN_ROLE_WORKER,
	};
	char text[MCFAN_IDLE_POLICY_TEXT_MAX + 1];
	unsigned int r;
	uint32_t p;

	for (r = 0; r < RTE_DIM(roles); r++) {
		p = mcfan_idle_default_policy(roles[r], false);
		CHECK_EQ_STR(mcfan_idle_format(p, text, sizeof(text)), "poll");
		p = mcfan_idle_default_policy(roles[r], true);
		CHECK(MCFAN_IDLE_KIND_OF(p) != MCFAN_IDLE_POLL, "role %u shared: %s", roles[r],
		      mcfan_idle_format(p, text, sizeof(text)));
		CHECK_EQ_INT(mcfan_idle_role_ok(p, roles[r], NULL, 0), 0);
		CHECK_EQ_STR(mcfan_idle_format(p, text, sizeof(text)),
			     (roles[r] & MCFAN_ROLE_RX) ? "backoff:none" : "wake:none");
	}
	CHECK_EQ_STR(mcfan_idle_origin_name(MCFAN_IDLE_FROM_OPTION), "option");
	CHECK_EQ_STR(mcfan_idle_origin_name(MCFAN_IDLE_FROM_ALONE), "default-alone");
	CHECK_EQ_STR(mcfan_idle_origin_name(MCFAN_IDLE_FROM_READERS), "default-readers");
	CHECK_EQ_STR(mcfan_idle_origin_name(MCFAN_IDLE_FROM_SHARED), "default-shared");
	CHECK_EQ_STR(mcfan_idle_origin_name(MCFAN_IDLE_FROM_SET), "set");
	CHECK_EQ_STR(mcfan_idle_origin_name(MCFAN_IDLE_FROM_MAX), "unknown");
}

/* The sleep cap: none for poll, the ring bound or --idle-max-sleep-us for backoff and wake,
 * whole milliseconds up to MCFAN_IDLE_INTR_WAIT_MAX_MS for interrupt. */
static void
test_sleep_cap(void)
{
	const uint64_t max = MCFAN_IDLE_MAX_SLEEP_US_DEFAULT * NS_PER_US;
	const uint64_t intr_max = MCFAN_IDLE_INTR_WAIT_MAX_MS * NS_PER_MS;
	uint32_t poll = MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, MCFAN_IDLE_THR_NONE);
	uint32_t intr = MCFAN_IDLE_POLICY(MCFAN_IDLE_INTERRUPT, MCFAN_IDLE_THR_VERY_SHORT);
	uint32_t sleepers[] = {
		MCFAN_IDLE_POLICY(MCFAN_IDLE_BACKOFF, MCFAN_IDLE_THR_SHORT),
		MCFAN_IDLE_POLICY(MCFAN_IDLE_WAKE, MCFAN_IDLE_THR_LONG),
	};
	unsigned int i;

	/* poll never sleeps, bound or not */
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(poll, 0, max), 0);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(poll, 5 * NS_PER_MS, max), 0);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(MCFAN_IDLE_POLICY(MCFAN_IDLE_KIND_MAX, 0), 0, max), 0);

	for (i = 0; i < RTE_DIM(sleepers); i++) {
		/* no bound (no recent traffic): the configured cap */
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], 0, max), max);
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], 0,
						     MCFAN_IDLE_MAX_SLEEP_US_MAX * NS_PER_US),
			     MCFAN_IDLE_MAX_SLEEP_US_MAX * NS_PER_US);
		/* a bound below the cap wins, down to 1 ns; one above it does not */
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], 1, max), 1);
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], max - 1, max), max - 1);
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], max, max), max);
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], max + 1, max), max);
		CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(sleepers[i], UINT64_MAX, max), max);
	}

	/* interrupt: no bound waits the longest epoll time */
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, 0, max), intr_max);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, UINT64_MAX, max), intr_max);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, intr_max + 1, max), intr_max);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, intr_max, max), intr_max);
	/* a bound of 1 ms or more is rounded down to whole milliseconds */
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, intr_max - 1, max), intr_max - NS_PER_MS);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, 5 * NS_PER_MS + NS_PER_MS / 2, max),
		     5 * NS_PER_MS);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, 2 * NS_PER_MS - 1, max), NS_PER_MS);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, NS_PER_MS, max), NS_PER_MS);
	/* below 1 ms: sleeps like backoff, the smaller of the bound and the cap */
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, NS_PER_MS - 1, max), max);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, NS_PER_MS - 1, NS_PER_MS), NS_PER_MS - 1);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, max / 2, max), max / 2);
	CHECK_EQ_INT(mcfan_idle_sleep_cap_ns(intr, 1, max), 1);
}

int
main(void)
{
	test_parse_defaults();
	test_parse_thresholds();
	test_parse_errors();
	test_parse_err_buffer();
	test_format();
	test_names();
	test_role_ok();
	test_sleep_cap();
	test_default_policy();
	return unit_summary("idle");
}
