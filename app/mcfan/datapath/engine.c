/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The engine registry (datapath/engine.h): one list per side, filled by the engines'
 * constructors before main() and only read afterwards.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "mcfan.h"
#include "datapath/engine.h"

static const struct mcfan_engine *registry[MCFAN_ENGINE_SIDES][MCFAN_ENGINES_MAX];
static unsigned int n_registered[MCFAN_ENGINE_SIDES];

static bool
name_ok(const char *name)
{
	size_t i, n;

	if (name == NULL)
		return false;
	n = strlen(name);
	if (n == 0 || n > MCFAN_ENGINE_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_' || name[i] == '-'))
			return false;
	return true;
}

int
mcfan_engine_register(const struct mcfan_engine *e)
{
	unsigned int s;

	if (e == NULL || (unsigned int)e->side >= MCFAN_ENGINE_SIDES || !name_ok(e->name) ||
	    (e->side == MCFAN_ENGINE_RX && e->burst == NULL) ||
	    (e->side == MCFAN_ENGINE_WORKER && e->deliver == NULL))
		return -EINVAL;
	s = (unsigned int)e->side;
	if (mcfan_engine_find(e->side, e->name) != NULL)
		return -EEXIST;
	if (n_registered[s] == MCFAN_ENGINES_MAX)
		return -ENOSPC;
	registry[s][n_registered[s]++] = e;
	return 0;
}

const struct mcfan_engine *
mcfan_engine_find(enum mcfan_engine_side side, const char *name)
{
	unsigned int i, s = (unsigned int)side;

	if (s >= MCFAN_ENGINE_SIDES || name == NULL)
		return NULL;
	for (i = 0; i < n_registered[s]; i++)
		if (strcmp(registry[s][i]->name, name) == 0)
			return registry[s][i];
	return NULL;
}

int
mcfan_engine_inst_groups_check(const struct mcfan_app *app, unsigned int inst,
			       const struct mcfan_flow_key *keys, unsigned int n,
			       const char *what, char *msg, size_t len)
{
	const struct mcfan_engine *e;
	char err[512];
	unsigned int i;
	int ret;

	if (inst >= app->n_inst)
		return 0;
	e = app->inst_engine[inst];
	for (i = 0; e != NULL && e->args_group_check != NULL && i < n; i++) {
		ret = e->args_group_check(app->cfg.engine_inst[inst].args, &keys[i], err,
					  sizeof(err));
		if (ret < 0) {
			snprintf(msg, len, "%s: %s: %s", what, e->name, err);
			return ret;
		}
	}
	return 0;
}

const char *
mcfan_engine_names(enum mcfan_engine_side side, char *buf, size_t len)
{
	unsigned int i, s = (unsigned int)side;
	size_t off = 0;
	int k;

	buf[0] = '\0';
	if (s >= MCFAN_ENGINE_SIDES)
		return buf;
	for (i = 0; i < n_registered[s] && off < len; i++) {
		k = snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : ", ",
			     registry[s][i]->name);
		if (k < 0)
			break;
		off += (size_t)k;
	}
	return buf;
}

const struct mcfan_engine *
mcfan_engine_at(enum mcfan_engine_side side, unsigned int i)
{
	unsigned int s = (unsigned int)side;

	if (s >= MCFAN_ENGINE_SIDES || i >= n_registered[s])
		return NULL;
	return registry[s][i];
}

const struct mcfan_engine *
mcfan_engine_of_sel(const struct mcfan_app *app, uint32_t sel, int *inst)
{
	*inst = -1;
	if (sel == 0)
		return NULL;
	if (sel >= MCFAN_ENGINE_SEL_INST) {
		if (sel - MCFAN_ENGINE_SEL_INST >= app->n_inst)
			return NULL;
		*inst = (int)(sel - MCFAN_ENGINE_SEL_INST);
		return app->inst_engine[*inst];
	}
	return mcfan_engine_at(MCFAN_ENGINE_WORKER, sel - 1);
}

const char *
mcfan_engine_side_name(enum mcfan_engine_side side)
{
	return side == MCFAN_ENGINE_RX ? "rx" : side == MCFAN_ENGINE_WORKER ? "worker" : "?";
}

/* The KEY of argument t: its length up to '=' (or all of it). */
static size_t
arg_key_len(const char *t)
{
	const char *eq = strchr(t, '=');

	return eq != NULL ? (size_t)(eq - t) : strlen(t);
}

int
mcfan_engine_args_split(char *buf, char **tok, unsigned int max, char *err, size_t err_len)
{
	char *c = buf, *comma;
	unsigned int n = 0, i;
	size_t kl;

	if (max == 0 || max > MCFAN_ENGINE_ARGS_TOKENS) {
		snprintf(err, err_len, "internal: %u argument slots", max);
		return -EINVAL;
	}
	for (;;) {
		comma = strchr(c, ',');
		if (comma != NULL)
			*comma = '\0';
		if (*c == '\0') {
			snprintf(err, err_len, "empty argument (argument %u): ',,', a leading or a "
				 "trailing comma", n + 1);
			return -EINVAL;
		}
		if (n == max) {
			snprintf(err, err_len, "more than %u arguments", max);
			return -EINVAL;
		}
		kl = arg_key_len(c);
		for (i = 1; n > 0 && i < n; i++) {
			if (arg_key_len(tok[i]) == kl && strncmp(tok[i], c, kl) == 0) {
				snprintf(err, err_len, "'%.*s' is given twice", (int)kl, c);
				return -EINVAL;
			}
		}
		tok[n++] = c;
		if (comma == NULL)
			break;
		c = comma + 1;
	}
	return (int)n;
}
