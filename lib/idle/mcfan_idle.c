/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* Idle policies as text and the sleep cap (mcfan_idle.h, docs/idle.md): pure, no EAL. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan_idle.h"
#include "mcfan_msacc.h"
#include "mcfan_parse.h"

#define NS_PER_MS UINT64_C(1000000)

static const char *const kind_names[MCFAN_IDLE_KIND_MAX] = {
	[MCFAN_IDLE_POLL] = "poll",
	[MCFAN_IDLE_BACKOFF] = "backoff",
	[MCFAN_IDLE_WAKE] = "wake",
	[MCFAN_IDLE_INTERRUPT] = "interrupt",
};

static const char *const thr_names[MCFAN_IDLE_THR_MAX] = {
	[MCFAN_IDLE_THR_NONE] = "none",
	[MCFAN_IDLE_THR_VERY_SHORT] = "very_short",
	[MCFAN_IDLE_THR_SHORT] = "short",
	[MCFAN_IDLE_THR_MEDIUM] = "medium",
	[MCFAN_IDLE_THR_LONG] = "long",
	[MCFAN_IDLE_THR_VERY_LONG] = "very_long",
};

/* Empty iterations per threshold: roughly x8 a step; an empty af_packet or ring poll takes
 * 0.1-0.5 us, so short spins some 10-60 us before it pauses (docs/idle.md). */
static const uint32_t thr_polls[MCFAN_IDLE_THR_MAX] = {
	[MCFAN_IDLE_THR_NONE] = 0,
	[MCFAN_IDLE_THR_VERY_SHORT] = 16,
	[MCFAN_IDLE_THR_SHORT] = 128,
	[MCFAN_IDLE_THR_MEDIUM] = 1024,
	[MCFAN_IDLE_THR_LONG] = 8192,
	[MCFAN_IDLE_THR_VERY_LONG] = 65536,
};

/* Threshold of a policy given without one. */
static const enum mcfan_idle_threshold default_thr[MCFAN_IDLE_KIND_MAX] = {
	[MCFAN_IDLE_POLL] = MCFAN_IDLE_THR_NONE,
	[MCFAN_IDLE_BACKOFF] = MCFAN_IDLE_THR_SHORT,
	[MCFAN_IDLE_WAKE] = MCFAN_IDLE_THR_VERY_SHORT,
	[MCFAN_IDLE_INTERRUPT] = MCFAN_IDLE_THR_VERY_SHORT,
};

const char *
mcfan_idle_kind_name(enum mcfan_idle_kind kind)
{
	return (unsigned int)kind < MCFAN_IDLE_KIND_MAX ? kind_names[kind] : "unknown";
}

uint32_t
mcfan_idle_threshold_polls(enum mcfan_idle_threshold thr)
{
	return (unsigned int)thr < MCFAN_IDLE_THR_MAX ? thr_polls[thr] : 0;
}

int
mcfan_idle_parse(const char *text, uint32_t *policy, char *err, size_t len)
{
	char kind_text[MCFAN_IDLE_POLICY_TEXT_MAX + 1];
	const char *colon;
	size_t n;
	unsigned int k, t;

	if (text == NULL || text[0] == '\0')
		goto bad;
	colon = strchr(text, ':');
	n = colon != NULL ? (size_t)(colon - text) : strlen(text);
	/* a text too long for any policy still names its kind: a known kind with a long
	 * threshold is told its threshold is wrong, as a short bad one is */
	if (n > MCFAN_IDLE_POLICY_TEXT_MAX)
		goto bad;
	snprintf(kind_text, sizeof(kind_text), "%.*s", (int)n, text);
	for (k = 0; k < MCFAN_IDLE_KIND_MAX; k++)
		if (strcmp(kind_text, kind_names[k]) == 0)
			break;
	if (k == MCFAN_IDLE_KIND_MAX)
		goto bad;
	if (colon == NULL) {
		*policy = MCFAN_IDLE_POLICY(k, default_thr[k]);
		return 0;
	}
	if (k == MCFAN_IDLE_POLL) {
		return mcfan_err_set(err, len, -EINVAL, "idle policy '%s': poll takes no threshold",
				     text);
	}
	for (t = 0; t < MCFAN_IDLE_THR_MAX; t++)
		if (strcmp(colon + 1, thr_names[t]) == 0)
			break;
	if (t == MCFAN_IDLE_THR_MAX) {
		return mcfan_err_set(err, len, -EINVAL, "idle policy '%s': threshold '%s' is not one "
				     "of none, very_short, short, medium, long, very_long", text,
				     colon + 1);
	}
	*policy = MCFAN_IDLE_POLICY(k, t);
	return 0;
bad:
	return mcfan_err_set(err, len, -EINVAL, "idle policy '%.*s' is not one of poll, "
			     "backoff[:THRESHOLD], wake[:THRESHOLD], interrupt[:THRESHOLD]",
			     MCFAN_IDLE_POLICY_TEXT_MAX * 2, text != NULL ? text : "");
}

const char *
mcfan_idle_format(uint32_t policy, char *buf, size_t len)
{
	enum mcfan_idle_kind k = MCFAN_IDLE_KIND_OF(policy);
	enum mcfan_idle_threshold t = MCFAN_IDLE_THR_OF(policy);

	if (k == MCFAN_IDLE_POLL || (unsigned int)t >= MCFAN_IDLE_THR_MAX)
		snprintf(buf, len, "%s", mcfan_idle_kind_name(k));
	else
		snprintf(buf, len, "%s:%s", mcfan_idle_kind_name(k), thr_names[t]);
	return buf;
}

int
mcfan_idle_role_ok(uint32_t policy, uint32_t role, char *err, size_t len)
{
	enum mcfan_idle_kind k = MCFAN_IDLE_KIND_OF(policy);

	if (k == MCFAN_IDLE_WAKE && (role & MCFAN_ROLE_RX))
		return mcfan_err_set(err, len, -EINVAL, "wake is for worker-only lcores: an lcore "
				     "that polls a port is woken by no one (use backoff or "
				     "interrupt)");
	if (k == MCFAN_IDLE_INTERRUPT && !(role & MCFAN_ROLE_RX))
		return mcfan_err_set(err, len, -EINVAL, "interrupt is for lcores that poll a port "
				     "(use wake or backoff for workers)");
	return 0;
}

uint64_t
mcfan_idle_sleep_cap_ns(uint32_t policy, uint64_t ring_bound_ns, uint64_t max_sleep_ns)
{
	uint64_t bound = ring_bound_ns == 0 ? UINT64_MAX : ring_bound_ns;
	uint64_t intr;

	switch (MCFAN_IDLE_KIND_OF(policy)) {
	case MCFAN_IDLE_BACKOFF:
	case MCFAN_IDLE_WAKE:
		return RTE_MIN(bound, max_sleep_ns);
	case MCFAN_IDLE_INTERRUPT:
		intr = RTE_MIN(bound, MCFAN_IDLE_INTR_WAIT_MAX_MS * NS_PER_MS);
		if (intr >= NS_PER_MS)
			return intr - intr % NS_PER_MS;
		return RTE_MIN(bound, max_sleep_ns);
	default:
		return 0;
	}
}

uint32_t
mcfan_idle_default_policy(uint32_t role, bool shared)
{
	if (!shared)
		return MCFAN_IDLE_POLICY(MCFAN_IDLE_POLL, MCFAN_IDLE_THR_NONE);
	return (role & MCFAN_ROLE_RX) ? MCFAN_IDLE_SHARED_RX : MCFAN_IDLE_SHARED_WORKER;
}

const char *
mcfan_idle_origin_name(enum mcfan_idle_origin origin)
{
	static const char *const names[MCFAN_IDLE_FROM_MAX] = {
		[MCFAN_IDLE_FROM_OPTION] = "option",
		[MCFAN_IDLE_FROM_ALONE] = "default-alone",
		[MCFAN_IDLE_FROM_SHARED] = "default-shared",
		[MCFAN_IDLE_FROM_SET] = "set",
		[MCFAN_IDLE_FROM_READERS] = "default-readers",
	};

	return (unsigned int)origin < MCFAN_IDLE_FROM_MAX ? names[origin] : "unknown";
}
