/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/* The control actions' lock, message, number and group parsing (control/action.h). */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "mcfan_group.h"
#include "mcfan_parse.h"
#include "control/action.h"

/* Serialises the actions (groups.c, live.c) and the control tick among themselves. */
static pthread_mutex_t action_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The control lcore's wake-up: an eventfd written when an action releases the lock, so that
 * the tick that follows an action (a leave's slot drain, a timed window, IGMP reports) comes
 * at once, not after the quiet wait (mcfan_control_wait_ms()). -1 until opened. */
static int wake_fd = -1;
static bool acted; /* action_mutex: taken by an action (not by the tick's trylock) */

void
mcfan_ctl_lock(void)
{
	pthread_mutex_lock(&action_mutex);
	acted = true;
}

bool
mcfan_ctl_trylock(void)
{
	return pthread_mutex_trylock(&action_mutex) == 0;
}

void
mcfan_ctl_unlock(void)
{
	if (acted) {
		acted = false;
		if (wake_fd >= 0)
			(void)eventfd_write(wake_fd, 1); /* cannot block: the count only grows */
	}
	pthread_mutex_unlock(&action_mutex);
}

int
mcfan_ctl_wake_open(void)
{
	if (wake_fd >= 0)
		return wake_fd;
	wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return wake_fd >= 0 ? wake_fd : -errno;
}

void
mcfan_ctl_wake_take(void)
{
	eventfd_t v;

	if (wake_fd >= 0)
		(void)eventfd_read(wake_fd, &v);
}

void
mcfan_ctl_wake_close(void)
{
	pthread_mutex_lock(&action_mutex);
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	pthread_mutex_unlock(&action_mutex);
}

int
mcfan_ctl_parse_u64(const char *text, uint64_t *out)
{
	return mcfan_parse_u64(text, 0, UINT64_MAX, out);
}

int
mcfan_ctl_parse_one_group(const char *what, const char *group, struct mcfan_flow_key *key,
			  char *msg, size_t len)
{
	struct mcfan_flow_key k[2];
	char err[CTL_ERR_MAX];
	int n;

	if (group == NULL || group[0] == '\0')
		return mcfan_err_set(msg, len, -EINVAL, "%s: no group given (one group, e.g. "
				     "239.9.9.1:3999)", what);
	n = mcfan_group_parse_list(group, k, RTE_DIM(k), err, sizeof(err));
	/* the parser's own reason; a list or range of more than one: how many */
	if (n < 0 && n != -E2BIG)
		return mcfan_err_set(msg, len, -EINVAL, "%s: %s", what, err);
	if (n != 1)
		return mcfan_err_set(msg, len, -EINVAL, "%s: '%.*s' names more than one group: "
				     "give one (e.g. 239.9.9.1:3999)", what, CTL_LIST_MAX, group);
	*key = k[0];
	return 0;
}
