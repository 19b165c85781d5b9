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

/** Room for an action's message, bytes (one line; longer text is cut). */
#define MCFAN_CTL_MSG_MAX 512

/** Room for an error text from a parser (lib/), bytes. */
#define CTL_ERR_MAX 256
/** Longest group or lcore list quoted in a message, bytes. */
#define CTL_LIST_MAX 160

/** Take the action lock (a mutex; control threads only). */
void mcfan_ctl_lock(void);

/** Take the action lock if it is free; true if taken. */
bool mcfan_ctl_trylock(void);

/** Release the action lock. */
void mcfan_ctl_unlock(void);

/* An action's one-line message: mcfan_err_set() (lib/util/mcfan_parse.h), which returns
 * its ret, so that an action can end with `return mcfan_err_set(msg, len, -EINVAL, ...)`. */

/**
 * Parse a decimal number ("08" is 8; no sign, no hex, no octal).
 *
 * @return
 *   0; -EINVAL if text is not only decimal digits; -ERANGE above UINT64_MAX.
 */
int mcfan_ctl_parse_u64(const char *text, uint64_t *out);

#endif /* MCFAN_CONTROL_ACTION_H */
