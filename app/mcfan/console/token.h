/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONSOLE_TOKEN_H
#define MCFAN_APP_CONSOLE_TOKEN_H

/*
 * The console's tokens (private to console/): the cmdline library tokens a command spec word
 * becomes, and the argument kinds behind the names of struct mcfan_console_args. Used by the
 * line framework (console.c) only; calls nothing of it back.
 */

#include <stdbool.h>
#include <stddef.h>

#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

/** Words of the longest command spec. */
#define CONSOLE_SPEC_WORDS_MAX 8

/** The library's result buffer of every command: word i of the spec lands in tok[i],
 * `<...>...` in rest. */
struct console_res {
	cmdline_fixed_string_t tok[CONSOLE_SPEC_WORDS_MAX];
	cmdline_multi_string_t rest;
};

/** What an argument word may hold. */
enum console_arg_kind {
	CONSOLE_ARG_UINT,   /**< decimal digits */
	CONSOLE_ARG_GROUPS, /**< group list characters: hex digits . : [ ] - , */
	CONSOLE_ARG_LIST,   /**< lcore list: digits - , */
	CONSOLE_ARG_WORD,   /**< a name such as an idle policy: lower-case letters, digits _ : */
	CONSOLE_ARG_KIND,   /**< a sequence kind: any printable word (the handler's parser says
			     *   what is wrong with it) */
	CONSOLE_ARG_REST,   /**< the rest of the line (`<name>...`) */
};

/**
 * Where a spec word's text goes in struct mcfan_console_args.
 *
 * @param word
 *   A spec word: "<lcore>", "<command>...", "a|b" or a literal.
 * @param offset
 *   The field's offset in struct mcfan_console_args; (size_t)-1 for a literal word.
 * @return
 *   0, or -EINVAL (an argument of no known name, or a malformed word).
 */
int console_word_field(const char *word, size_t *offset);

/**
 * A new library token for a spec word (checked by console_word_field() first).
 *
 * @param word
 *   The spec word.
 * @param pos
 *   Its position in the spec, 0..CONSOLE_SPEC_WORDS_MAX-1: where it lands in struct
 *   console_res.
 * @return
 *   The token (free it with console_token_free()), or NULL when out of memory.
 */
cmdline_parse_token_hdr_t *console_token_new(const char *word, unsigned int pos);

/** Free a token of console_token_new(); NULL is fine. */
void console_token_free(cmdline_parse_token_hdr_t *tk);

/**
 * Is tk an argument token ("<lcore>")?
 *
 * @return
 *   true if tk is an argument token.
 */
bool console_token_is_arg(const cmdline_parse_token_hdr_t *tk);

/**
 * Is tk the library's "rest of the line" string token (TOKEN_STRING_MULTI)?
 *
 * @return
 *   true if tk is the rest-of-line token.
 */
bool console_token_is_rest(const cmdline_parse_token_hdr_t *tk);

/**
 * What an argument token wants, for messages: "<lcore> (a decimal number)".
 *
 * @param kind
 *   Its kind, out.
 */
void console_token_describe(const cmdline_parse_token_hdr_t *tk, char *buf, size_t len,
			    enum console_arg_kind *kind);

#endif /* MCFAN_APP_CONSOLE_TOKEN_H */
