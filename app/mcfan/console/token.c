/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The console's tokens: a cmdline token type that takes one word of a character class and
 * names itself in help and errors, and the names a spec's arguments may have
 * (struct mcfan_console_args).
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

#include <rte_common.h>

#include "console/console.h"
#include "console/token.h"

/* Longest argument name with its <> ("<command>"), plus the NUL. */
#define ARG_NAME_SIZE 24

/* The argument names of specs: where their words go and what they may hold. */
static const struct arg_name {
	const char *name;
	enum console_arg_kind kind;
	size_t offset;
} arg_names[] = {
	{"command", CONSOLE_ARG_REST, offsetof(struct mcfan_console_args, command)},
	/* NAME[:ARGS] of set engine and join ... engine: help shows <engine>..., not
	 * <command>... (a command was asked for); the same words as command */
	{"engine", CONSOLE_ARG_REST, offsetof(struct mcfan_console_args, command)},
	{"groups", CONSOLE_ARG_GROUPS, offsetof(struct mcfan_console_args, groups)},
	{"list", CONSOLE_ARG_LIST, offsetof(struct mcfan_console_args, list)},
	{"policy", CONSOLE_ARG_WORD, offsetof(struct mcfan_console_args, policy)},
	{"kind", CONSOLE_ARG_KIND, offsetof(struct mcfan_console_args, kind)},
	{"lcore", CONSOLE_ARG_UINT, offsetof(struct mcfan_console_args, lcore)},
	{"port", CONSOLE_ARG_UINT, offsetof(struct mcfan_console_args, port)},
	{"ms", CONSOLE_ARG_UINT, offsetof(struct mcfan_console_args, ms)},
	{"n", CONSOLE_ARG_UINT, offsetof(struct mcfan_console_args, n)},
};

struct arg_token {
	struct cmdline_token_hdr hdr; /* first: the library casts to it */
	enum console_arg_kind kind;
	char name[ARG_NAME_SIZE];     /* "lcore", as in the spec's <lcore> */
};

/* The name of an argument word, "<lcore>" or "<command>...", or NULL for another word. */
static const struct arg_name *
arg_lookup(const char *word)
{
	size_t n = strlen(word), len;
	bool rest;
	unsigned int i;

	if (n < 3 || word[0] != '<')
		return NULL;
	rest = n > 5 && strcmp(word + n - 4, ">...") == 0;
	len = rest ? n - 5 : n - 2;
	if (!rest && word[n - 1] != '>')
		return NULL;
	for (i = 0; i < RTE_DIM(arg_names); i++)
		if (strlen(arg_names[i].name) == len && strncmp(word + 1, arg_names[i].name,
								 len) == 0 &&
		    (arg_names[i].kind == CONSOLE_ARG_REST) == rest)
			return &arg_names[i];
	return NULL;
}

int
console_word_field(const char *word, size_t *offset)
{
	const struct arg_name *an;

	if (word[0] == '<') {
		an = arg_lookup(word);
		if (an == NULL)
			return -EINVAL;
		*offset = an->offset;
		return 0;
	}
	if (word[0] == '\0' || strchr(word, '<') != NULL || strchr(word, '>') != NULL)
		return -EINVAL;
	if (strchr(word, '|') != NULL) {
		if (word[0] == '|' || word[strlen(word) - 1] == '|' || strstr(word, "||") != NULL)
			return -EINVAL;
		*offset = offsetof(struct mcfan_console_args, choice);
		return 0;
	}
	*offset = SIZE_MAX;
	return 0;
}

static const char *
arg_kind_text(enum console_arg_kind k)
{
	switch (k) {
	case CONSOLE_ARG_UINT:
		return "a decimal number";
	case CONSOLE_ARG_GROUPS:
		return "groups, e.g. 239.9.9.1-10:3999";
	case CONSOLE_ARG_WORD:
		return "a name, e.g. backoff:short";
	case CONSOLE_ARG_KIND:
		/* no '|': describe_next() takes it for alternatives */
		return "a sequence kind: iperf2, rtp[:HZ], mpegts, moldudp64, OFFSET:WIDTH:be, "
		       "OFFSET:WIDTH:le or off";
	default:
		return "lcores, e.g. 2,4-5";
	}
}

static bool
arg_char_ok(enum console_arg_kind k, char c)
{
	if (c >= '0' && c <= '9')
		return true;
	switch (k) {
	case CONSOLE_ARG_GROUPS:
		return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':' ||
		       c == '[' || c == ']' || c == '-' || c == ',' || c == '@' || c == '+';
	case CONSOLE_ARG_LIST:
		return c == '-' || c == ',';
	case CONSOLE_ARG_WORD:
		return (c >= 'a' && c <= 'z') || c == '_' || c == ':';
	case CONSOLE_ARG_KIND:
		return c > ' ' && c < 0x7f;
	default:
		return false;
	}
}

static int
arg_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res, unsigned int ressize)
{
	const struct arg_token *t = (const struct arg_token *)tk;
	unsigned int n = 0;

	if (res != NULL && ressize < STR_TOKEN_SIZE)
		return -1;
	if (buf == NULL || cmdline_isendoftoken(*buf))
		return -1;
	while (!cmdline_isendoftoken(buf[n])) {
		if (!arg_char_ok(t->kind, buf[n]) || n + 1 >= STR_TOKEN_SIZE - 1)
			return -1;
		n++;
	}
	if (res != NULL) {
		memcpy(res, buf, n);
		((char *)res)[n] = '\0';
	}
	return (int)n;
}

static int
arg_help(cmdline_parse_token_hdr_t *tk, char *dst, unsigned int size)
{
	const struct arg_token *t = (const struct arg_token *)tk;

	snprintf(dst, size, "<%s>", t->name);
	return 0;
}

static struct cmdline_token_ops arg_ops = {
	.parse = arg_parse,
	.complete_get_nb = NULL,
	.complete_get_elt = NULL,
	.get_help = arg_help,
};

cmdline_parse_token_hdr_t *
console_token_new(const char *word, unsigned int pos)
{
	const struct arg_name *an = arg_lookup(word);
	struct cmdline_token_string *st;
	struct arg_token *at;
	char *choices;
	size_t n;

	if (an != NULL && an->kind == CONSOLE_ARG_REST) {
		st = calloc(1, sizeof(*st));
		if (st == NULL)
			return NULL;
		st->hdr.ops = &cmdline_token_string_ops;
		st->hdr.offset = offsetof(struct console_res, rest);
		st->string_data.str = TOKEN_STRING_MULTI;
		return &st->hdr;
	}
	if (an != NULL) {
		at = calloc(1, sizeof(*at));
		if (at == NULL)
			return NULL;
		at->hdr.ops = &arg_ops;
		at->hdr.offset = (unsigned int)offsetof(struct console_res, tok[pos]);
		at->kind = an->kind;
		snprintf(at->name, sizeof(at->name), "%s", an->name);
		return &at->hdr;
	}
	st = calloc(1, sizeof(*st));
	choices = strdup(word);
	if (st == NULL || choices == NULL) {
		free(st);
		free(choices);
		return NULL;
	}
	/* the library separates choices with '#' */
	for (n = 0; choices[n] != '\0'; n++)
		if (choices[n] == '|')
			choices[n] = '#';
	st->hdr.ops = &cmdline_token_string_ops;
	st->hdr.offset = (unsigned int)offsetof(struct console_res, tok[pos]);
	st->string_data.str = choices;
	return &st->hdr;
}

bool
console_token_is_arg(const cmdline_parse_token_hdr_t *tk)
{
	return tk->ops == &arg_ops;
}

bool
console_token_is_rest(const cmdline_parse_token_hdr_t *tk)
{
	const struct cmdline_token_string *st = (const struct cmdline_token_string *)tk;

	return tk->ops == &cmdline_token_string_ops && st->string_data.str != NULL &&
	       strcmp(st->string_data.str, TOKEN_STRING_MULTI) == 0;
}

void
console_token_describe(const cmdline_parse_token_hdr_t *tk, char *buf, size_t len,
		       enum console_arg_kind *kind)
{
	const struct arg_token *at = (const struct arg_token *)tk;

	snprintf(buf, len, "<%s> (%s)", at->name, arg_kind_text(at->kind));
	*kind = at->kind;
}

void
console_token_free(cmdline_parse_token_hdr_t *tk)
{
	struct cmdline_token_string *st;

	if (tk == NULL)
		return;
	if (tk->ops == &cmdline_token_string_ops) {
		st = (struct cmdline_token_string *)tk;
		if (strcmp(st->string_data.str, TOKEN_STRING_MULTI) != 0)
			free((char *)(uintptr_t)st->string_data.str);
	}
	free(tk);
}
