/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The operator console's line framework (docs/console.md), on DPDK's cmdline library as in
 * testpmd, run by the main lcore between its ticks; data lcores never wait for it.
 *
 * Input: --cmdline-file FILE first, then standard input with -i: on a terminal through the
 * library's line editor (prompt, Tab completion, `?`, history), otherwise one command a line
 * (pipes, scripts, tests; console/source.c); end of input stops mcfan. mcfan reads every byte
 * itself and hands whole lines to cmdline_parse(), because the 22.11 library cuts lines at
 * its 512-character buffer and would run what is left; such a line is refused whole here, as
 * are tokens of 127 characters or more, non-ASCII bytes and control characters. When the
 * library finds no command, mcfan names what was wrong itself (unknown command, missing or
 * bad argument, extra argument).
 *
 * Commands: each family file (show_lcores.c, show_stats.c, groups.c, live.c) registers its
 * commands with mcfan_console_register() from constructors (console/console.h); this file
 * holds only help and wait. At mcfan_console_init() the library's instances and tokens
 * (console/token.c) are built from the registered specs, in their order keys' order.
 *
 * State: the registry, written by the constructors before main() and read-only after; one
 * console, owned by the main lcore (struct mcfan_console below).
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <cmdline_rdline.h>
#include <cmdline_vt100.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "mcfan.h"
#include "control/control.h"
#include "console/check.h"
#include "console/console.h"
#include "console/source.h"
#include "console/token.h"

#define PROMPT "mcfan> "
#define LINE_MAX_CHARS CONSOLE_LINE_MAX_CHARS
/* The library's string tokens hold 127 bytes with the NUL (STR_TOKEN_SIZE 128). */
#define TOKEN_MAX_CHARS (STR_TOKEN_SIZE - 2)
#define SPEC_WORD_SIZE 32          /* a spec word with its NUL */
#define SPEC_SIZE 128              /* a spec with its NUL */
#define MAX_LINE_WORDS (LINE_MAX_CHARS / 2 + 1)
#define LINES_PER_POLL 64          /* lines run per call, so the main lcore keeps ticking */
#define ECHO_MAX 100               /* characters of a refused line echoed back */
#define WAIT_MS_MAX 600000u        /* `wait` at most 10 minutes */
#define ASCII_DEL 0x7f
#define ASCII_ESC 0x1b
#define ASCII_CTRL_C 0x03
#define ASCII_CTRL_U 0x15          /* readline's unix-line-discard: not a key of the editor */
#define ESC_SEQ_MAX 16             /* bytes of an escape sequence kept; longer ones are
				    * dropped whole */
#define NO_FIELD SIZE_MAX          /* a literal spec word: it goes to no argument */

/* ------------------------------------------------------------------------------------------
 * The registry: every command, sorted by order key. Written by mcfan_console_register()
 * from constructors before main() (one thread), read-only afterwards.
 */

static const struct mcfan_console_cmd *registry[MCFAN_CONSOLE_CMDS_MAX];
static unsigned int n_registered;
static int registry_error; /* the first registration's failure, 0 = none */

/* Split a spec into its words; -EINVAL if it has too many or too long ones. */
static int
spec_words(const char *spec, char words[][SPEC_WORD_SIZE], unsigned int *n_words)
{
	char buf[SPEC_SIZE], *w, *save = NULL;
	unsigned int n = 0;

	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		if (n >= CONSOLE_SPEC_WORDS_MAX || strlen(w) >= SPEC_WORD_SIZE)
			return -EINVAL;
		snprintf(words[n++], SPEC_WORD_SIZE, "%s", w);
	}
	*n_words = n;
	return n > 0 ? 0 : -EINVAL;
}

/* Is a spec well formed: known words, one choice at most, the rest of the line last? */
static int
spec_check(const char *spec)
{
	char words[CONSOLE_SPEC_WORDS_MAX][SPEC_WORD_SIZE];
	unsigned int n, i, choices = 0;
	size_t field;

	if (spec_words(spec, words, &n) < 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (console_word_field(words[i], &field) < 0)
			return -EINVAL;
		if (field == offsetof(struct mcfan_console_args, choice))
			choices++;
		if (field == offsetof(struct mcfan_console_args, command) && i != n - 1)
			return -EINVAL;
	}
	return choices > 1 ? -EINVAL : 0;
}

int
mcfan_console_register(const struct mcfan_console_cmd *cmd)
{
	unsigned int i;
	int ret = 0;

	if (cmd == NULL || cmd->spec == NULL || cmd->fn == NULL || cmd->help == NULL ||
	    cmd->example == NULL || spec_check(cmd->spec) < 0)
		ret = -EINVAL;
	for (i = 0; ret == 0 && i < n_registered; i++)
		if (registry[i]->order == cmd->order || strcmp(registry[i]->spec, cmd->spec) == 0)
			ret = -EEXIST;
	if (ret == 0 && n_registered >= MCFAN_CONSOLE_CMDS_MAX)
		ret = -ENOSPC;
	if (ret < 0) {
		fprintf(stderr, "mcfan: console command '%s' (order %u) not added: %s\n",
			cmd != NULL && cmd->spec != NULL ? cmd->spec : "?",
			cmd != NULL ? cmd->order : 0, strerror(-ret));
		if (registry_error == 0)
			registry_error = ret;
		return ret;
	}
	/* keep it sorted: help and the parser list the commands in order-key order */
	for (i = n_registered; i > 0 && registry[i - 1]->order > cmd->order; i--)
		registry[i] = registry[i - 1];
	registry[i] = cmd;
	n_registered++;
	return 0;
}

/* ------------------------------------------------------------------------------------------
 * The console.
 */

/* A command built for the library: its instance and tokens. */
struct cmd_inst {
	const struct mcfan_console_cmd *def;
	unsigned int n_words;
	char words[CONSOLE_SPEC_WORDS_MAX][SPEC_WORD_SIZE]; /* spec words, "<lcore>" as written */
	size_t field[CONSOLE_SPEC_WORDS_MAX];  /* where word i goes in struct mcfan_console_args,
						* NO_FIELD for a literal */
	cmdline_parse_inst_t *inst;
};

enum con_mode {
	CON_NONE = 0,
	CON_LINES, /* standard input, one command a line */
	CON_TTY,   /* standard input is a terminal: line editor */
};

struct mcfan_console {
	struct mcfan_app *app;
	struct cmdline *cl;              /* the library's parser state (context of commands) */
	cmdline_parse_ctx_t *ctx;        /* NULL-terminated instance list */
	struct cmd_inst *insts;
	unsigned int n_insts;
	enum con_mode mode;
	struct console_src file;         /* --cmdline-file */
	struct console_src in;           /* standard input (lines mode) */
	uint64_t wait_until;             /* TSC: `wait` holds input until then; 0 = none */
	bool from_file;                  /* the line being run comes from the file */
	unsigned int errors;
	/* terminal mode */
	struct rdline *rdl;
	struct termios saved_term;
	bool term_saved;
	bool prompt_due;                 /* print the prompt when input may be read again */
	char tty_buf[CONSOLE_READ_CHUNK]; /* bytes read but held back by `wait` */
	size_t tty_len, tty_off;
	char esc_seq[ESC_SEQ_MAX];       /* the escape sequence being typed (a key: arrows,
					  * F1, Alt+b), held back from the editor until whole */
	size_t esc_len;                  /* its bytes so far, 0 = none */
	bool tty_has_bad;                /* a byte the editor would drop silently was typed
					  * on this line: non-ASCII, or a control character
					  * that is no key of the editor (NUL, Ctrl-U) */
	unsigned char tty_bad;           /* the first such byte */
	unsigned int tty_bad_col;
	bool tty_long;                   /* a character was typed into a full line */
	size_t tty_over;                 /* characters typed into the full line (the editor
					  * dropped them), for the line's length */
	bool tty_refused;                /* the line just entered was refused: keep it out of
					  * the history (the editor holds a different text) */
	bool started;
	/* check mode (console/check.h): family commands go to check_fn, not their handler */
	mcfan_console_check_fn check_fn;
	void *check_arg;
};

static struct mcfan_console con_state;

struct mcfan_app *
mcfan_console_app(const struct mcfan_console *con)
{
	return con->app;
}

void
mcfan_console_error(struct mcfan_console *con, const char *fmt, ...)
{
	va_list ap;

	con->errors++;
	fputs("error: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (con->from_file)
		fprintf(stdout, " (%s line %u)", con->file.name, con->file.line_no);
	fputc('\n', stdout);
}

void *
mcfan_console_calloc(struct mcfan_console *con, const char *cmd, size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p == NULL)
		mcfan_console_error(con, "%s: out of memory", cmd);
	return p;
}

int
mcfan_console_result(struct mcfan_console *con, int ret, const char *msg)
{
	if (ret < 0)
		mcfan_console_error(con, "%s", msg);
	else
		printf("%s\n", msg);
	return ret;
}

int
mcfan_console_u64(struct mcfan_console *con, const char *cmd, const char *what,
		  const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	int ret = mcfan_ctl_parse_u64(text, out);

	if (ret == -EINVAL) {
		mcfan_console_error(con, "%s: %s '%s' is not a decimal number", cmd, what, text);
		return ret;
	}
	if (ret == -ERANGE) {
		mcfan_console_error(con, "%s: %s %s is too large", cmd, what, text);
		return ret;
	}
	if (*out < min || *out > max) {
		mcfan_console_error(con, "%s: %s %s is out of range %" PRIu64 "..%" PRIu64, cmd,
				    what, text, min, max);
		return -ERANGE;
	}
	return 0;
}

/* End mcfan as `quit` does (end of input, Ctrl-D). */
static void
con_quit(struct mcfan_console *con)
{
	char msg[MCFAN_CTL_MSG_MAX];

	mcfan_console_result(con, mcfan_ctl_quit(con->app, msg, sizeof(msg)), msg);
}

/* ------------------------------------------------------------------------------------------
 * The framework's own commands: help, wait.
 */

static void
print_usage(const struct mcfan_console_cmd *d, bool long_form)
{
	if (!long_form) {
		printf("  %-40s %s\n", d->spec, d->help);
		return;
	}
	printf("%s\n    %s\n    example: %s\n", d->spec, d->help, d->example);
}

/* Does a spec start with the words typed ("set fanout"; "<x>" and "a|b" take any part)? */
static bool
spec_starts_with(const char *spec_text, const char *words)
{
	char want[LINE_MAX_CHARS + 1], spec[SPEC_SIZE];
	char *ws = NULL, *ss = NULL, *w, *s;

	snprintf(want, sizeof(want), "%s", words);
	snprintf(spec, sizeof(spec), "%s", spec_text);
	w = strtok_r(want, " \t", &ws);
	s = strtok_r(spec, " ", &ss);
	for (; w != NULL; w = strtok_r(NULL, " \t", &ws), s = strtok_r(NULL, " ", &ss)) {
		if (s == NULL || (s[0] != '<' && strcmp(w, s) != 0 &&
				  (strchr(s, '|') == NULL || strstr(s, w) == NULL)))
			return false;
	}
	return true;
}

static int
cmd_help(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	unsigned int i, found = 0;

	if (a->command == NULL) {
		printf("Commands (on a terminal: Tab completes, ? lists what may come next, "
		       "Up/Down browse the history; Ctrl-D or quit exits; # starts a comment):\n");
		for (i = 0; i < con->n_insts; i++)
			print_usage(con->insts[i].def, false);
		printf("Numbers are decimal. Lines hold at most %d characters, words at most %d.\n",
		       LINE_MAX_CHARS, TOKEN_MAX_CHARS);
		return 0;
	}
	for (i = 0; i < con->n_insts; i++) {
		if (spec_starts_with(con->insts[i].def->spec, a->command)) {
			print_usage(con->insts[i].def, true);
			found++;
		}
	}
	if (found == 0) {
		mcfan_console_error(con, "help: no command starts with '%s' (help lists them)",
				    a->command);
		return -ENOENT;
	}
	return 0;
}

MCFAN_CONSOLE_COMMAND(help, 10, "help", cmd_help, "list the commands", "help");

MCFAN_CONSOLE_COMMAND(help_command, 20, "help <command>...", cmd_help,
		      "usage, meaning and an example of the commands that start with these words",
		      "help set fanout");

static int
cmd_wait(struct mcfan_console *con, const struct mcfan_console_args *a)
{
	uint64_t ms;

	if (mcfan_console_u64(con, "wait", "ms", a->ms, 0, WAIT_MS_MAX, &ms) < 0)
		return -EINVAL;
	/* typed on a terminal it would hold every key, Ctrl-C and quit too, for up to 10 minutes */
	if (con->mode == CON_TTY && !con->from_file) {
		mcfan_console_error(con, "wait is for command files (--cmdline-file) and pipes, "
				    "not typed at a terminal: it would hold every key, quit too, "
				    "until it ends");
		return -EINVAL;
	}
	con->wait_until = rte_rdtsc() + ms * (con->app->tsc_hz / 1000);
	return 0;
}

MCFAN_CONSOLE_COMMAND(wait, 600, "wait <ms>", cmd_wait,
		      "read the next command only after <ms> milliseconds (for command files and "
		      "pipes; refused on a terminal)",
		      "wait 500");

/* ------------------------------------------------------------------------------------------
 * Building the library's instances from the registry.
 */

/* The library calls this for a parsed line: name the words, run the handler. */
static void
cmd_dispatch(void *res, struct cmdline *cl, void *data)
{
	const struct cmd_inst *ci = data;
	const struct console_res *r = res;
	struct mcfan_console_args a;
	const char *word;
	unsigned int i;

	RTE_SET_USED(cl);
	memset(&a, 0, sizeof(a));
	for (i = 0; i < ci->n_words; i++) {
		if (ci->field[i] == NO_FIELD)
			continue;
		word = ci->field[i] == offsetof(struct mcfan_console_args, command) ? r->rest :
		       r->tok[i];
		/* every field of struct mcfan_console_args is a const char * */
		*(const char **)((char *)&a + ci->field[i]) = word;
	}
	if (con_state.check_fn != NULL && ci->def->fn != cmd_help && ci->def->fn != cmd_wait) {
		con_state.check_fn(ci->def, &a, con_state.check_arg);
		return;
	}
	ci->def->fn(&con_state, &a);
}

static void
free_commands(struct mcfan_console *con)
{
	unsigned int i, t;

	for (i = 0; con->insts != NULL && i < con->n_insts; i++) {
		if (con->insts[i].inst == NULL)
			continue;
		for (t = 0; con->insts[i].inst->tokens[t] != NULL; t++)
			console_token_free(con->insts[i].inst->tokens[t]);
		free(con->insts[i].inst);
	}
	free(con->insts);
	free(con->ctx);
	con->insts = NULL;
	con->ctx = NULL;
}

static int
build_commands(struct mcfan_console *con)
{
	unsigned int i, t;
	struct cmd_inst *ci;
	int ret;

	con->n_insts = n_registered;
	con->insts = calloc(RTE_MAX(con->n_insts, 1u), sizeof(*con->insts));
	con->ctx = calloc(con->n_insts + 1, sizeof(*con->ctx));
	if (con->insts == NULL || con->ctx == NULL)
		return -ENOMEM;
	for (i = 0; i < con->n_insts; i++) {
		ci = &con->insts[i];
		ci->def = registry[i];
		ci->inst = calloc(1, sizeof(*ci->inst) +
				  (CONSOLE_SPEC_WORDS_MAX + 1) * sizeof(ci->inst->tokens[0]));
		if (ci->inst == NULL)
			return -ENOMEM;
		ci->inst->f = cmd_dispatch;
		ci->inst->data = ci;
		ci->inst->help_str = ci->def->help;
		ret = spec_words(ci->def->spec, ci->words, &ci->n_words);
		if (ret < 0)
			return ret;
		for (t = 0; t < ci->n_words; t++) {
			ret = console_word_field(ci->words[t], &ci->field[t]);
			if (ret < 0)
				return ret;
			ci->inst->tokens[t] = console_token_new(ci->words[t], t);
			if (ci->inst->tokens[t] == NULL)
				return -ENOMEM;
		}
		con->ctx[i] = ci->inst;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------
 * Running a line: checks, the library's parser, and mcfan's own diagnosis on failure.
 */

struct word {
	const char *p;
	size_t len;
};

/* Split at blanks up to a comment. */
static unsigned int
split_words(const char *line, struct word *w, unsigned int max)
{
	unsigned int n = 0;
	const char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#' || *p == '\n' || *p == '\r' || n == max)
			return n;
		w[n].p = p;
		while (!cmdline_isendoftoken(*p))
			p++;
		w[n].len = (size_t)(p - w[n].p);
		n++;
	}
}

/* How far an instance matches the words: the count of leading words its tokens take. */
static unsigned int
match_words(const cmdline_parse_inst_t *inst, const struct word *w, unsigned int n_words)
{
	cmdline_parse_token_hdr_t *tk;
	unsigned int t;
	int ret;

	for (t = 0; t < n_words; t++) {
		tk = inst->tokens[t];
		if (tk == NULL)
			return t;
		if (console_token_is_rest(tk))
			return n_words;
		ret = tk->ops->parse(tk, w[t].p, NULL, 0);
		if (ret < 0 || (size_t)ret < w[t].len)
			return t;
	}
	return t;
}

/* The words a "(help ...)" hint gives for instance ci, matched by the typed words w[0..n-1]:
 * the command's fixed words before its first argument or choice ("set burst 32 extra":
 * "set burst"; "set idle rx backoff x": "set idle"; "join 239.9.9.5 engine": "join"), which
 * `help` takes. */
/* Words w[0..n-1] into buf, one blank between two: messages quote a line's command words as
 * the command is spelled (help's, examples'), not with the blanks and tabs typed. */
static void
join_words(const struct word *w, unsigned int n, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < n && off < len; k++)
		off += (size_t)snprintf(buf + off, len - off, "%s%.*s", k == 0 ? "" : " ",
					(int)w[k].len, w[k].p);
}

static void
help_words(const struct cmd_inst *ci, const struct word *w, unsigned int n, char *buf,
	   size_t len)
{
	unsigned int k;

	for (k = 0; k < n && k < ci->n_words && ci->words[k][0] != '<' &&
	     strchr(ci->words[k], '|') == NULL; k++)
		;
	if (k == 0) /* every command starts with a word; keep the hint whole anyway */
		k = 1;
	join_words(w, k, buf, len);
}

/* What may come at a position, for messages: "lcores, msacc, <lcore> (a decimal number)".
 * Returns the number of different items. */
static unsigned int
describe_next(const struct mcfan_console *con, const unsigned int *score, unsigned int best,
	      const struct word *w, char *buf, size_t len, enum console_arg_kind *kind,
	      unsigned int *n_args)
{
	const cmdline_parse_token_hdr_t *tk;
	char seen[1024] = ";", item[160], key[170], hint[LINE_MAX_CHARS + 1], *p, *save = NULL;
	size_t off = 0;
	unsigned int i, n = 0;

	*n_args = 0;
	buf[0] = '\0';
	for (i = 0; i < con->n_insts; i++) {
		if (score[i] != best || best >= con->insts[i].n_words)
			continue;
		tk = con->insts[i].inst->tokens[best];
		if (console_token_is_arg(tk)) {
			console_token_describe(tk, item, sizeof(item), kind);
			(*n_args)++;
		} else if (console_token_is_rest(tk)) {
			/* which words: the command's help and examples say */
			help_words(&con->insts[i], w, best, hint, sizeof(hint));
			snprintf(item, sizeof(item), "words (help %.140s)", hint);
		} else {
			snprintf(item, sizeof(item), "%s", con->insts[i].words[best]);
		}
		/* "a|b" choices are items of their own; one mention of each */
		for (p = strtok_r(item, "|", &save); p != NULL; p = strtok_r(NULL, "|", &save)) {
			snprintf(key, sizeof(key), ";%s;", p);
			if (strstr(seen, key) != NULL)
				continue;
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s;", p);
			if (off < len)
				off += (size_t)snprintf(buf + off, len - off, "%s%s",
							n == 0 ? "" : ", ", p);
			n++;
		}
	}
	return n;
}

static void
diagnose(struct mcfan_console *con, const char *line)
{
	struct word w[MAX_LINE_WORDS];
	unsigned int score[MCFAN_CONSOLE_CMDS_MAX];
	unsigned int n, i, best = 0, n_args, n_next;
	char prefix[LINE_MAX_CHARS + 1], hint[LINE_MAX_CHARS + 1], next[512], err[256];
	struct mcfan_flow_key key;
	enum console_arg_kind kind = CONSOLE_ARG_UINT;

	n = split_words(line, w, MAX_LINE_WORDS);
	for (i = 0; i < con->n_insts; i++) {
		score[i] = match_words(con->insts[i].inst, w, n);
		best = RTE_MAX(best, score[i]);
	}
	if (best == 0) {
		mcfan_console_error(con, "unknown command '%.*s' (help lists the commands)",
				    (int)w[0].len, w[0].p);
		return;
	}
	join_words(w, best, prefix, sizeof(prefix));
	n_next = describe_next(con, score, best, w, next, sizeof(next), &kind, &n_args);
	if (best >= n) {
		mcfan_console_error(con, "%s: missing %s%s", prefix, n_next > 1 ? "one of: " : "",
			  next[0] != '\0' ? next : "argument");
		return;
	}
	if (next[0] == '\0') {
		/* a command that ended: help with its words, not with its arguments */
		for (i = 0; i < con->n_insts && score[i] != best; i++)
			;
		help_words(&con->insts[i < con->n_insts ? i : 0], w, best, hint, sizeof(hint));
		mcfan_console_error(con, "%s: unexpected '%.*s' after the command (help %s)",
				    prefix, (int)w[best].len, w[best].p, hint);
		return;
	}
	for (i = 0; i < con->n_insts; i++)
		if (score[i] == best && con->insts[i].n_words == best)
			break;
	if (i < con->n_insts && n_args == 0) {
		/* a command that may end here or go on with a word ("join G workers 1 extra"):
		 * both said (an argument that does not parse keeps "is not" below) */
		help_words(&con->insts[i], w, best, hint, sizeof(hint));
		mcfan_console_error(con, "%s: unexpected '%.*s': the command ends here or goes "
				    "on with %s%s%s (help %s)", prefix, (int)w[best].len, w[best].p,
				    n_next > 1 ? "one of: " : "'", next, n_next > 1 ? "" : "'", hint);
		return;
	}
	if (n_args == 1 && n_next == 1 && kind == CONSOLE_ARG_GROUPS) {
		char word[STR_TOKEN_SIZE];

		/* say what is wrong with the group, as --groups would */
		snprintf(word, sizeof(word), "%.*s", (int)w[best].len, w[best].p);
		if (mcfan_group_parse(word, &key, 1, err, sizeof(err)) < 0 && err[0] != '\0') {
			mcfan_console_error(con, "%s: %s", prefix, err);
			return;
		}
	}
	if (n_next == 1 && next[0] != '<') {
		/* one fixed word: quoted, so it does not read as a description ("is not gaps") */
		mcfan_console_error(con, "%s: '%.*s' is not '%s', the only word that may come "
				    "next", prefix, (int)w[best].len, w[best].p, next);
		return;
	}
	mcfan_console_error(con, "%s: '%.*s' is not %s%s", prefix, (int)w[best].len, w[best].p,
		  n_next > 1 ? "one of: " : "", next);
}

/* The refusal of a line of len characters, more than a line holds: the same words from a
 * pipe, a file and a terminal. */
static void
line_too_long(struct mcfan_console *con, size_t len)
{
	mcfan_console_error(con, "line too long: %zu characters, at most %d; nothing was run "
			    "(give long group lists as ranges, e.g. 239.1.1.1-200, or in several "
			    "commands)", len, LINE_MAX_CHARS);
}

/* The refusal of a line for a byte other than printable ASCII and tabs at column col: the
 * same words from a pipe, a file and a terminal; a control character typed on a terminal
 * (one the line editor has no key for) is also named as the key that types it. */
static void
bad_byte(struct mcfan_console *con, unsigned char c, size_t col, bool typed)
{
	if (c >= 0x80)
		mcfan_console_error(con, "non-ASCII byte 0x%02x at column %zu; commands are plain "
				    "ASCII (a pasted dash or quote?); nothing was run", c, col);
	else if (typed && c < ' ')
		mcfan_console_error(con, "control character 0x%02x at column %zu (Ctrl-%c, not a "
				    "key of the line editor; Ctrl-C clears a line); nothing was "
				    "run", c, col, c ^ 0x40);
	else
		mcfan_console_error(con, "control character 0x%02x at column %zu; nothing was run",
				    c, col);
}

/* Printable copy of a line for echo and messages: other bytes shown as '?'. */
static void
sanitize(const char *line, size_t len, char *out, size_t size)
{
	size_t i, n = RTE_MIN(len, size - 1);

	for (i = 0; i < n; i++)
		out[i] = (line[i] >= ' ' && line[i] < ASCII_DEL) || line[i] == '\t' ? line[i] : '?';
	out[n] = '\0';
}

/*
 * Run one line: refuse it whole if it is too long, holds bytes other than printable ASCII
 * and tabs, or a word too long for the library; otherwise parse and run it.
 */
static void
run_line(struct mcfan_console *con, const char *line, size_t len, bool echo)
{
	char buf[LINE_MAX_CHARS + 2], shown[ECHO_MAX + 1];
	struct word w[MAX_LINE_WORDS];
	unsigned int n, i;
	size_t k;
	int ret;

	if (echo) {
		sanitize(line, len, shown, sizeof(shown));
		k = strspn(shown, " \t");
		if (shown[k] != '\0' && shown[k] != '#')
			printf("%s%s%s\n", PROMPT, shown, len > ECHO_MAX ? "..." : "");
	}
	if (len > LINE_MAX_CHARS) {
		line_too_long(con, len);
		return;
	}
	for (k = 0; k < len; k++) {
		unsigned char c = (unsigned char)line[k];

		if (c >= 0x80 || (c < ' ' && c != '\t') || c == ASCII_DEL) {
			bad_byte(con, c, k + 1, false);
			return;
		}
	}
	memcpy(buf, line, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	n = split_words(buf, w, MAX_LINE_WORDS);
	if (n == 0)
		return;
	if (w[n - 1].p[w[n - 1].len] == '#') {
		/* the library ends a word at '#' and drops the rest: a word cut in two */
		mcfan_console_error(con, "word %u '%.*s#...' holds '#', which starts a comment only "
				    "after a blank; a word cannot hold '#'; nothing was run", n,
				    (int)RTE_MIN(w[n - 1].len, (size_t)TOKEN_MAX_CHARS), w[n - 1].p);
		return;
	}
	for (i = 0; i < n; i++) {
		if (w[i].len > TOKEN_MAX_CHARS) {
			mcfan_console_error(con, "word %u is %zu characters long, at most %d: "
					    "'%.20s...'; nothing was run", i + 1, w[i].len,
					    TOKEN_MAX_CHARS, w[i].p);
			return;
		}
	}
	ret = cmdline_parse(con->cl, buf);
	if (ret == CMDLINE_PARSE_AMBIGUOUS)
		mcfan_console_error(con, "ambiguous command '%.*s'", (int)len, line);
	else if (ret == CMDLINE_PARSE_NOMATCH || ret == CMDLINE_PARSE_BAD_ARGS)
		diagnose(con, buf);
	else if (ret < 0)
		mcfan_console_error(con, "cannot parse the line (%d)", ret);
	fflush(stdout);
}

/* ------------------------------------------------------------------------------------------
 * Terminal mode: the library's line editor with mcfan's own checks around it.
 */

/* A new line: nothing refused on it yet. */
static void
tty_line_clean(struct mcfan_console *con)
{
	con->tty_long = false;
	con->tty_over = 0;
	con->tty_has_bad = false;
	con->tty_bad = 0;
}

static int
tty_write_char(struct rdline *rdl, char c)
{
	RTE_SET_USED(rdl);
	return fputc(c, stdout) == EOF ? -1 : 1;
}

static void
tty_validate(struct rdline *rdl, const char *buf, unsigned int size)
{
	struct mcfan_console *con = rdline_get_opaque(rdl);
	size_t len = strnlen(buf, size);

	RTE_SET_USED(size);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	con->tty_refused = con->tty_long || con->tty_has_bad;
	if (con->tty_long)
		line_too_long(con, len + con->tty_over); /* the editor holds len of them */
	else if (con->tty_has_bad)
		bad_byte(con, con->tty_bad, con->tty_bad_col, true);
	else
		run_line(con, buf, len, false);
	tty_line_clean(con);
}

static int
tty_complete(struct rdline *rdl, const char *buf, char *dst, unsigned int size, int *state)
{
	struct mcfan_console *con = rdline_get_opaque(rdl);

	return cmdline_complete(con->cl, buf, state, dst, size);
}

static size_t
tty_line_len(struct mcfan_console *con)
{
	const char *b = rdline_get_buffer(con->rdl);
	size_t n = b != NULL ? strlen(b) : 0;

	return n > 0 ? n - 1 : 0; /* without the '\n' it appends */
}

static void
tty_newline(struct mcfan_console *con)
{
	rdline_newline(con->rdl, PROMPT);
	con->prompt_due = false;
}

static void
tty_history(struct mcfan_console *con)
{
	const char *b = rdline_get_buffer(con->rdl);
	const char *h = rdline_get_history_item(con->rdl, 0);
	size_t hl = h != NULL ? strlen(h) : 0;

	if (con->tty_refused || strspn(b, " \t\n") == strlen(b))
		return;
	if (h != NULL && strncmp(b, h, hl) == 0 && b[hl] == '\n')
		return; /* same as the last one */
	rdline_add_history(con->rdl, b);
}

/* Does the library's line editor take these bytes as one key (its own vt100 parser: Enter,
 * Tab, Ctrl-A, arrows, Delete, Alt+b ...)? Asked of a fresh parser; the editor's is untouched. */
static bool
editor_key(const char *seq, size_t len)
{
	struct cmdline_vt100 vt;
	int key = -1;
	size_t i;

	memset(&vt, 0, sizeof(vt));
	vt100_init(&vt);
	for (i = 0; i < len; i++) {
		key = vt100_parser(&vt, seq[i]);
		if (i + 1 < len && key != -2)
			return false; /* it ends before the last byte: not one key */
	}
	return key >= 0;
}

/* Keys the editor knows under another sequence: arrows in the terminal's application mode
 * (SS3, ESC O A), Home and End as Ctrl-A and Ctrl-E. */
struct key_alias {
	const char *seq;
	const char *as;
};

static const struct key_alias key_aliases[] = {
	{ "\033OA", vt100_up_arr }, { "\033OB", vt100_down_arr },
	{ "\033OC", vt100_right_arr }, { "\033OD", vt100_left_arr },
	{ "\033[H", "\001" }, { "\033OH", "\001" }, { "\033[1~", "\001" }, { "\033[7~", "\001" },
	{ "\033[F", "\005" }, { "\033OF", "\005" }, { "\033[4~", "\005" }, { "\033[8~", "\005" },
};

/* Where byte c leaves the escape sequence seq of len bytes typed so far. */
enum esc_step {
	ESC_MORE, /* c is part of it */
	ESC_END,  /* c ends it */
	ESC_NOT,  /* c is not part of it: the sequence is cut short, c is read anew */
};

static enum esc_step
esc_step(const char *seq, size_t len, unsigned char c)
{
	/* ECMA-48: after ESC [ (CSI) and ESC O (SS3) come parameter and intermediate bytes
	 * 0x20..0x3f, then a final byte 0x40..0x7e; after ESC alone intermediate bytes
	 * 0x20..0x2f, then one byte 0x30..0x7e (Alt+key), or DEL (Alt+Backspace) */
	if (len >= 2 && (seq[1] == '[' || seq[1] == 'O')) {
		if (c >= 0x20 && c <= 0x3f)
			return ESC_MORE;
		return c >= 0x40 && c <= 0x7e ? ESC_END : ESC_NOT;
	}
	if ((len == 1 && (c == '[' || c == 'O')) || (c >= 0x20 && c <= 0x2f))
		return ESC_MORE;
	if (c >= 0x30 && c <= 0x7e)
		return ESC_END;
	return len == 1 && c == ASCII_DEL ? ESC_END : ESC_NOT;
}

/* Hand one key (its bytes) to the line editor and act on what it says. Returns true when
 * mcfan stops (Ctrl-D on an empty line): read no more. */
static bool
tty_key(struct mcfan_console *con, const char *bytes, size_t n)
{
	int ret = RDLINE_RES_SUCCESS;
	size_t i;

	for (i = 0; i < n; i++)
		ret = rdline_char_in(con->rdl, bytes[i]);
	if (ret == RDLINE_RES_VALIDATED) {
		tty_history(con);
		if (con->wait_until == 0 && !mcfan_live_quitting(&con->app->live))
			tty_newline(con);
		else
			con->prompt_due = true;
	} else if (ret == RDLINE_RES_EOF) {
		printf("quit\n");
		con->prompt_due = false;
		con_quit(con);
		return true;
	}
	return false;
}

/* A whole escape sequence was typed: a key the editor knows goes to it, an alias as its
 * key; any other (F1 ESC O P, F12 ESC [ 2 4 ~, Alt+x) is ignored: the 22.11 editor would
 * end it early and type its last bytes into the line ("OP~"). Returns tty_key()'s answer. */
static bool
tty_esc_key(struct mcfan_console *con, const char *seq, size_t len)
{
	unsigned int i;

	if (editor_key(seq, len))
		return tty_key(con, seq, len);
	for (i = 0; i < RTE_DIM(key_aliases); i++)
		if (strlen(key_aliases[i].seq) == len && memcmp(key_aliases[i].seq, seq, len) == 0)
			return tty_key(con, key_aliases[i].as, strlen(key_aliases[i].as));
	return false;
}

/* Remember the first byte of the line the editor would drop silently, for the refusal. */
static void
tty_note_bad(struct mcfan_console *con, unsigned char c)
{
	if (con->tty_has_bad)
		return;
	con->tty_has_bad = true;
	con->tty_bad = c;
	con->tty_bad_col = (unsigned int)tty_line_len(con) + 1;
}

/* Feed typed bytes to the line editor, escape sequences whole; stops early while a `wait`
 * holds input. Returns the bytes taken. */
static unsigned int
tty_feed(struct mcfan_console *con)
{
	unsigned int taken = 0;
	enum esc_step step;
	unsigned char c;
	size_t len;

	while (con->tty_off < con->tty_len) {
		if (con->wait_until != 0 || mcfan_live_quitting(&con->app->live))
			return taken;
		c = (unsigned char)con->tty_buf[con->tty_off];
		if (con->esc_len > 0) {
			step = esc_step(con->esc_seq, con->esc_len, c);
			if (step == ESC_NOT) {
				con->esc_len = 0; /* dropped; c is read anew */
				continue;
			}
			taken++;
			con->tty_off++;
			if (con->esc_len < ESC_SEQ_MAX)
				con->esc_seq[con->esc_len] = (char)c;
			con->esc_len++;
			if (step == ESC_END) {
				len = con->esc_len;
				con->esc_len = 0;
				if (len <= ESC_SEQ_MAX && tty_esc_key(con, con->esc_seq, len))
					return taken;
			}
			continue;
		}
		taken++;
		con->tty_off++;
		if (c == ASCII_ESC) {
			con->esc_seq[0] = (char)c;
			con->esc_len = 1;
			continue;
		}
		/* Ctrl-U: the line goes, as in readline and a shell (the editor has no such key;
		 * Ctrl-A then Ctrl-K is it, the whole line wherever the cursor is) */
		if (c == ASCII_CTRL_U) {
			tty_line_clean(con);
			if (tty_key(con, "\001\013", 2))
				return taken;
			continue;
		}
		/* non-ASCII, or a control character that is no key of the editor (NUL,
		 * Ctrl-Z): the editor would drop it silently and run the rest */
		if (c >= 0x80 || ((c < ' ' || c == ASCII_DEL) && !editor_key((char *)&c, 1))) {
			tty_note_bad(con, c);
			continue;
		}
		if (c >= ' ' && c < ASCII_DEL && c != '?' && tty_line_len(con) >= LINE_MAX_CHARS) {
			con->tty_long = true;
			con->tty_over++;
		}
		if (c == ASCII_CTRL_C)
			tty_line_clean(con);
		if (tty_key(con, (const char *)&c, 1))
			return taken;
	}
	return taken;
}

static bool
tty_read(struct mcfan_console *con)
{
	ssize_t got;

	if (con->tty_off < con->tty_len)
		return false;
	got = read(STDIN_FILENO, con->tty_buf, sizeof(con->tty_buf));
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return false;
	if (got <= 0) {
		printf("\nend of input: stopping\n");
		con->mode = CON_NONE;
		con_quit(con);
		return true;
	}
	con->tty_off = 0;
	con->tty_len = (size_t)got;
	return true;
}

static int
tty_open(struct mcfan_console *con)
{
	struct termios t;

	con->rdl = rdline_new(tty_write_char, tty_validate, tty_complete, con);
	if (con->rdl == NULL)
		return -ENOMEM;
	if (tcgetattr(STDIN_FILENO, &con->saved_term) == 0) {
		/* as the library's own terminal mode: no line buffering, no echo, no signals
		 * from keys (Ctrl-C clears the line; Ctrl-D or quit ends) */
		t = con->saved_term;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
			con->term_saved = true;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------
 * The main lcore's side.
 */

int
mcfan_console_init(struct mcfan_app *app)
{
	struct mcfan_console *con = &con_state;
	int ret;

	memset(con, 0, sizeof(*con));
	con->app = app;
	con->file.fd = -1;
	con->in.fd = -1;
	if (registry_error < 0) {
		/* a programming mistake in a family file, named on stderr before main() */
		fprintf(stderr, "mcfan: console: a command could not be registered: %s\n",
			strerror(-registry_error));
		return registry_error;
	}
	if (!app->cfg.interactive && app->cfg.cmdline_file[0] == '\0')
		return 0;
	ret = build_commands(con);
	if (ret < 0)
		goto fail;
	con->cl = cmdline_new(con->ctx, "", -1, -1);
	if (con->cl == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	if (app->cfg.cmdline_file[0] != '\0') {
		ret = console_src_open(&con->file, app->cfg.cmdline_file, -1);
		if (ret < 0) {
			fprintf(stderr, "mcfan: --cmdline-file: cannot open '%s': %s\n",
				app->cfg.cmdline_file, strerror(-ret));
			goto fail;
		}
	}
	if (app->cfg.interactive) {
		if (isatty(STDIN_FILENO)) {
			con->mode = CON_TTY;
			ret = tty_open(con);
			if (ret < 0)
				goto fail;
		} else {
			con->mode = CON_LINES;
			console_src_open(&con->in, "stdin", STDIN_FILENO);
		}
	}
	return 0;
fail:
	mcfan_console_close(app);
	return ret < 0 ? ret : -EINVAL;
}

int
mcfan_console_check_open(struct mcfan_app *app, mcfan_console_check_fn fn, void *arg)
{
	struct mcfan_console *con = &con_state;
	int ret;

	memset(con, 0, sizeof(*con));
	con->app = app;
	con->file.fd = -1;
	con->in.fd = -1;
	con->check_fn = fn;
	con->check_arg = arg;
	if (registry_error < 0)
		return registry_error;
	ret = build_commands(con);
	if (ret < 0)
		goto fail;
	con->cl = cmdline_new(con->ctx, "", -1, -1);
	if (con->cl == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	return 0;
fail:
	mcfan_console_close(app);
	return ret;
}

unsigned int
mcfan_console_check_line(const char *line, size_t len)
{
	run_line(&con_state, line, len, false);
	return con_state.errors;
}

bool
mcfan_console_pollfd(struct pollfd *pfd, int *timeout_ms)
{
	struct mcfan_console *con = &con_state;
	uint64_t now, left_ms;

	pfd->fd = -1;
	pfd->events = POLLIN;
	pfd->revents = 0;
	if (con->cl == NULL)
		return false;
	if (con->wait_until != 0) {
		now = rte_rdtsc();
		left_ms = now >= con->wait_until ? 0 :
			(con->wait_until - now) * 1000 / con->app->tsc_hz + 1;
		*timeout_ms = (int)RTE_MIN((uint64_t)*timeout_ms, left_ms);
		return true;
	}
	if (!con->started || con->file.fd >= 0 || con->tty_off < con->tty_len || con->prompt_due) {
		*timeout_ms = 0; /* work to do now */
		return true;
	}
	if (con->mode == CON_LINES && con->in.off < con->in.len)
		*timeout_ms = 0;
	if (con->mode != CON_NONE)
		pfd->fd = STDIN_FILENO;
	return true;
}

int
mcfan_console_handle(struct mcfan_app *app, short revents)
{
	struct mcfan_console *con = &con_state;
	const char *line;
	unsigned int done = 0;
	size_t len;
	int ret;

	if (con->cl == NULL)
		return 0;
	if (!con->started) {
		con->started = true;
		if (con->mode == CON_TTY) {
			printf("mcfan console: help lists the commands, Tab completes, Ctrl-D or "
			       "quit exits\n");
			if (con->file.fd < 0)
				con->prompt_due = true;
		}
	}
	if (con->wait_until != 0) {
		if (rte_rdtsc() < con->wait_until)
			return 0;
		con->wait_until = 0;
	}
	/* the command file first */
	while (con->file.fd >= 0 && done < LINES_PER_POLL && con->wait_until == 0 &&
	       !mcfan_live_quitting(&app->live)) {
		ret = console_src_next(&con->file, true, &line, &len);
		if (ret < 0) {
			console_src_close(&con->file);
			if (con->mode == CON_TTY)
				con->prompt_due = true;
			break;
		}
		con->from_file = true;
		run_line(con, line, len, true);
		con->from_file = false;
		done++;
	}
	if (con->file.fd >= 0 || con->wait_until != 0 ||
	    mcfan_live_quitting(&app->live))
		goto out;
	if (con->mode == CON_TTY) {
		if (con->prompt_due)
			tty_newline(con);
		if ((revents & (POLLIN | POLLHUP | POLLERR)) && tty_read(con))
			done++;
		if (con->mode == CON_TTY && tty_feed(con) > 0)
			done++;
	} else if (con->mode == CON_LINES) {
		bool may_read = (revents & (POLLIN | POLLHUP | POLLERR)) != 0;

		while (done < LINES_PER_POLL && con->wait_until == 0 &&
		       !mcfan_live_quitting(&app->live)) {
			ret = console_src_next(&con->in, may_read, &line, &len);
			may_read = false;
			if (ret == 0)
				break;
			if (ret < 0) {
				printf("end of input: stopping\n");
				con->mode = CON_NONE;
				con_quit(con);
				break;
			}
			run_line(con, line, len, true);
			done++;
		}
	}
out:
	fflush(stdout);
	return (int)done;
}

void
mcfan_console_close(struct mcfan_app *app)
{
	struct mcfan_console *con = &con_state;

	RTE_SET_USED(app);
	if (con->term_saved) {
		tcsetattr(STDIN_FILENO, TCSANOW, &con->saved_term);
		con->term_saved = false;
		if (con->mode == CON_TTY)
			printf("\n");
	}
	rdline_free(con->rdl);
	con->rdl = NULL;
	console_src_close(&con->file);
	con->in.fd = -1;
	if (con->cl != NULL)
		cmdline_free(con->cl);
	con->cl = NULL;
	free_commands(con);
	con->mode = CON_NONE;
	fflush(stdout);
}
