/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_CONTROL_ACTION_H
#define MCFAN_CONTROL_ACTION_H

/*
 * What every control action shares (control/groups.c, control/live.c): the lock that
 * serialises them, the one-line message they write, and number parsing. Control side only;
 * no data lcore takes the lock or waits for it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

struct mcfan_flow_key;

/** Room for an action's message, bytes (one line; longer text is cut). */
#define MCFAN_CTL_MSG_MAX 512

/** Room for an error text from a parser (lib/), bytes. */
#define CTL_ERR_MAX 256
/** Longest group or lcore list quoted in a message, bytes. */
#define CTL_LIST_MAX 160

/** Take the action lock (a mutex; control threads only). */
void mcfan_ctl_lock(void);

/**
 * Take the action lock if it is free; true if taken.
 *
 * @return
 *   true if taken (release it with mcfan_ctl_unlock()), false if another thread holds it.
 */
bool mcfan_ctl_trylock(void);

/** Release the action lock; after an action (mcfan_ctl_lock()), wake the control lcore
 * (mcfan_ctl_wake_open()). */
void mcfan_ctl_unlock(void);

/**
 * Open the control lcore's wake-up: an eventfd that becomes readable when an action has
 * released the action lock, so that the control lcore, which sleeps up to its quiet wait
 * when nothing needs its tick, ticks at once after a join, leave, window or clear. Main
 * lcore, before the control loop; idempotent.
 *
 * @return
 *   The descriptor (>= 0) to poll for POLLIN, or -errno of eventfd().
 */
int mcfan_ctl_wake_open(void);

/** Reset the wake-up once poll() found it readable. Main lcore. */
void mcfan_ctl_wake_take(void);

/** Close the wake-up (after the control loop); actions after it wake nothing. */
void mcfan_ctl_wake_close(void);

/* An action's one-line message: mcfan_err_set() (lib/util/mcfan_parse.h), which returns
 * its ret, so that an action can end with `return mcfan_err_set(msg, len, -EINVAL, ...)`. */

/**
 * Parse a decimal number ("08" is 8; no sign, no hex, no octal).
 *
 * @return
 *   0; -EINVAL if text is not only decimal digits; -ERANGE above UINT64_MAX.
 */
int mcfan_ctl_parse_u64(const char *text, uint64_t *out);

/**
 * Parse the one group a command names (`show feed gaps GROUP`, `show readers GROUP`, their
 * telemetry forms): the group parser's syntax (docs/guide.md, lib/group/mcfan_group.h). The
 * messages begin with what.
 *
 * @param what
 *   The command, for the message ("show feed gaps").
 * @param group
 *   The text; NULL or "" is refused.
 * @param key
 *   Receives the group.
 * @param msg, len
 *   The message of a refusal.
 * @return
 *   0; -EINVAL with msg written: no group given, the parser's reason, or a list or range
 *   that names more than one group.
 */
int mcfan_ctl_parse_one_group(const char *what, const char *group, struct mcfan_flow_key *key,
			      char *msg, size_t len);

#endif /* MCFAN_CONTROL_ACTION_H */
