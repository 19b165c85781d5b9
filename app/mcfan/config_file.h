/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_CONFIG_FILE_H
#define MCFAN_APP_CONFIG_FILE_H

/*
 * The INI configuration reader of --config (docs/guide.md): the section [mcfan] and the
 * other sections the caller names (struct mcfan_cfg_keys.sections: [seq]), lines of
 * "key = value", ';' and '#' comments. It knows the file's syntax and limits; what the keys
 * are and what their values may be is the option table's (params.c), asked through struct
 * mcfan_cfg_keys. Every refusal is one line on stderr naming the file and the line.
 * Kept apart from params.c so that a fuzz target (test/fuzz/fuzz_config.c) links the
 * reader without main().
 */

#include <stddef.h>
#include <stdio.h>

/** What a key of the file names (struct mcfan_cfg_keys.kind). */
enum mcfan_cfg_key_kind {
	MCFAN_CFG_KEY_UNKNOWN = 0, /**< no option of that name */
	MCFAN_CFG_KEY_VALUE,       /**< an option with a value, allowed in the file */
	MCFAN_CFG_KEY_FLAG,        /**< a flag allowed in the file (takes yes/no there) */
	MCFAN_CFG_KEY_CLI_ONLY,    /**< an option for the command line only */
	MCFAN_CFG_KEY_EAL,         /**< an option of DPDK's EAL (before "--" only) */
};

/** The keys a file may hold, from the caller's option table. */
struct mcfan_cfg_keys {
	/**
	 * What key names.
	 *
	 * @param key
	 *   A key as written (trimmed), 1..CFG_NAME_LEN-1 characters.
	 * @return
	 *   Its kind.
	 */
	enum mcfan_cfg_key_kind (*kind)(const char *key);
	/**
	 * Take (or only check) a value of a key of kind VALUE or FLAG.
	 *
	 * @param arg
	 *   The struct's arg.
	 * @param key, value
	 *   As written in the file (trimmed, without comment); value has 1..CFG_VALUE_LEN-1
	 *   characters.
	 * @param line
	 *   The key's line in the file (1-based), for a caller that keeps where a value came
	 *   from.
	 * @param err, len
	 *   Receives the one-line reason on failure (without the file and line).
	 * @return
	 *   0, or a negative errno with err set.
	 */
	int (*apply)(void *arg, const char *key, const char *value, unsigned int line, char *err,
		     size_t len);
	void *arg; /**< Passed to apply and apply_section. */
	/** Sections besides [mcfan] that the file may hold, names without brackets, ending in
	 * NULL; NULL: none. Their keys are not option names: any key goes to apply_section. */
	const char *const *sections;
	/** For each of sections (the same order), an example row ("239.9.9.1-10:3999 = iperf2")
	 * for the refusal of a row without '= VALUE'; NULL: none. */
	const char *const *section_rows;
	/**
	 * Take a key of one of sections (NULL when sections is NULL).
	 *
	 * @param section
	 *   One of sections.
	 * @param key, value, line, err, len
	 *   As for apply.
	 * @return
	 *   0, or a negative errno with err set.
	 */
	int (*apply_section)(void *arg, const char *section, const char *key, const char *value,
			     unsigned int line, char *err, size_t len);
	/** Keys of sections that may be given on several lines of their section, each line
	 * handed to apply_section in turn (a list, such as pair of [seq]), as "SECTION/KEY",
	 * ending in NULL; NULL: none. Every other key is refused the second time. */
	const char *const *repeatable;
};

/**
 * Read a whole configuration file from f and hand every key to keys->apply, in the file's order
 * (keys of the other sections to keys->apply_section), but only once every line has been read and
 * found well formed: a syntax error anywhere changes nothing. Refused (each with one line on
 * stderr naming path and the line number): a NUL byte; a line over 1,022 characters; a header that
 * is neither [mcfan] nor one of keys->sections, or one of them a second time; a line that is not
 * "key = value" (with a hint for a flag; in one of keys->sections, a row without its value,
 * with keys->section_rows' example, though it start with '[', as an IPv6 group does); an empty key or one of CFG_NAME_LEN characters or more;
 * an empty value or one of CFG_VALUE_LEN characters or more; a key before any section; a key given
 * twice in one section (but one of keys->repeatable); more than 64 keys; an unknown key; a command-line-only key in [mcfan]; a
 * value keys->apply or keys->apply_section refuses. A line that starts with '[' but holds '=' is a
 * key (an IPv6 group, "[ff3e::1]:5000 = rtp"). Keys are handed over in the file's order. A UTF-8
 * byte order mark first is skipped.
 *
 * @param path
 *   The file's name, for messages.
 * @param f
 *   The file, open for reading at its start; not closed.
 * @param keys
 *   The keys and what to do with their values.
 * @return
 *   0; -EINVAL (the file refused, the reason printed), -ENOMEM (out of memory, printed).
 */
int mcfan_config_file_read(const char *path, FILE *f, const struct mcfan_cfg_keys *keys);

/**
 * Where a rule came from, worded as mcfan_config_file_read()'s own refusals, for a check
 * that runs after the file was read: "--OPTION" for the command line (line 0);
 * "config file 'PATH' line N: key 'KEY' in [SECTION]: --OPTION" for a row of a section;
 * "config file 'PATH' line N: key 'OPTION': --OPTION" for a key of [mcfan].
 *
 * @param path
 *   The config file's name (ignored for line 0).
 * @param line
 *   The rule's line in the file, 1-based; 0: the command line.
 * @param section
 *   The section the row is in, without brackets; NULL: the key OPTION in [mcfan].
 * @param key, key_len
 *   The row's key (its first key_len characters); used with section only.
 * @param option
 *   The command-line option the rule is of, without the dashes (e.g. "seq-pair").
 * @param buf, len
 *   Receives the text (truncated to len - 1 characters).
 * @return
 *   buf.
 */
const char *mcfan_config_origin(const char *path, unsigned int line, const char *section,
				const char *key, int key_len, const char *option, char *buf,
				size_t len);

#endif /* MCFAN_APP_CONFIG_FILE_H */
