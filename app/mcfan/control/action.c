/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* The control actions' lock, message and number parsing (control/action.h). */

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "mcfan_parse.h"
#include "control/action.h"

/* Serialises the actions (groups.c, live.c) and the control tick among themselves. */
static pthread_mutex_t action_mutex = PTHREAD_MUTEX_INITIALIZER;

void
mcfan_ctl_lock(void)
{
	pthread_mutex_lock(&action_mutex);
}

bool
mcfan_ctl_trylock(void)
{
	return pthread_mutex_trylock(&action_mutex) == 0;
}

void
mcfan_ctl_unlock(void)
{
	pthread_mutex_unlock(&action_mutex);
}

int
mcfan_ctl_parse_u64(const char *text, uint64_t *out)
{
	return mcfan_parse_u64(text, 0, UINT64_MAX, out);
}
