/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * The INI configuration reader of --config (config_file.h): the file's syntax, checked
 * line by line with mcfan's own limits, kept in an rte_cfgfile, then handed key by key to
 * the option table (params.c).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "config_file.h"

#define CFG_SECTION "mcfan"
#define CFG_SECTIONS_MAX 8        /* sections a file may hold: [mcfan] and the caller's */
#define UTF8_BOM "\xef\xbb\xbf" /* a byte order mark some editors write first */
#define CFG_LINE_MAX 1024         /* longest config file line, with newline and NUL */
#define CFG_KEYS_MAX 64           /* keys remembered per section for the duplicate check */
#define ERR_MAX 256

/* Strip blanks (and a line end) from both ends of [p, end); returns the new start. */
static char *
cfg_trim(char *p, char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' ||
			   end[-1] == '\t'))
		end--;
	*end = '\0';
	return p;
}

/* The section named name (without brackets): CFG_SECTION or one of keys->sections; NULL if
 * none is. */
static const char *
cfg_section_known(const struct mcfan_cfg_keys *keys, const char *name)
{
	unsigned int i;

	if (strcmp(name, CFG_SECTION) == 0)
		return CFG_SECTION;
	for (i = 0; keys->sections != NULL && keys->sections[i] != NULL; i++)
		if (strcmp(name, keys->sections[i]) == 0)
			return keys->sections[i];
	return NULL;
}

/* Cut the comment off a key line: a ';' or '#' after a blank (or first) starts one, as in
 * "ring-size = 64 ; 64 slots"; one inside a value ("pcap:/cap#1") is the value's. */
static void
cfg_uncomment(char *p)
{
	char *c;

	for (c = p; *c != '\0'; c++) {
		if ((*c == ';' || *c == '#') && (c == p || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			return;
		}
	}
}

/*
 * Read a config file into an rte_cfgfile made empty by the caller, one line at a time, so
 * that every error names its line and no limit of rte_cfgfile_load() (22.11: lines of at
 * most CFG_NAME_LEN + CFG_VALUE_LEN + 3 characters, ';' comments only, values cut at
 * CFG_VALUE_LEN - 1 characters without a word) can change what a line means. Every line
 * must be blank, a comment (starting with ';' or '#'; a ';' or '#' after a blank later in a
 * line starts a comment too, one inside a value is the value's), "[mcfan]" or another known section's header (a comment may follow it likewise), or "key = value"; no key
 * before a section, no key twice in a section but those of keys->repeatable. lines[i],
 * names[i], values[i] and sects[i] receive the line, the name, the value and the section of
 * the i-th key; *n_out the number of keys.
 */
/* Is key of section one that keys->repeatable lets come on several lines? */
static bool
cfg_repeatable(const struct mcfan_cfg_keys *keys, const char *section, const char *key)
{
	size_t sl = strlen(section);
	unsigned int i;

	for (i = 0; keys->repeatable != NULL && keys->repeatable[i] != NULL; i++) {
		if (strncmp(keys->repeatable[i], section, sl) == 0 &&
		    keys->repeatable[i][sl] == '/' && strcmp(keys->repeatable[i] + sl + 1, key) == 0)
			return true;
	}
	return false;
}

/* A row of section cur (not [mcfan]) without '= VALUE': refused with the section's example
 * row. Returns false for a line of [mcfan] (or before any section), left to the caller. */
static bool
cfg_row_without_value(const struct mcfan_cfg_keys *keys, const char *cur, const char *path,
		      unsigned int no, const char *p)
{
	unsigned int i;

	if (cur == NULL || strcmp(cur, CFG_SECTION) == 0)
		return false;
	fprintf(stderr, "mcfan: config file '%s' line %u: '%s' in [%s] has no value: a row of "
		"[%s] is 'KEY = VALUE'", path, no, p, cur, cur);
	for (i = 0; keys->sections[i] != NULL; i++)
		if (keys->sections[i] == cur && keys->section_rows != NULL &&
		    keys->section_rows[i] != NULL)
			fprintf(stderr, " (e.g. %s)", keys->section_rows[i]);
	fprintf(stderr, "\n");
	return true;
}

static int
cfg_read(const char *path, FILE *f, struct rte_cfgfile *file, unsigned int *lines,
	 char (*names)[CFG_NAME_LEN], char (*values)[CFG_VALUE_LEN], const char **sects,
	 unsigned int *n_out,
	 unsigned int max_keys, const struct mcfan_cfg_keys *keys)
{
	char line[CFG_LINE_MAX];
	const char *seen[CFG_SECTIONS_MAX], *cur = NULL, *known;
	unsigned int no = 0, n_keys = 0, n_seen = 0, i;
	char *p, *end, *eq, *key, *value;
	long pos = ftell(f), next;

	while (fgets(line, sizeof(line), f) != NULL) {
		no++;
		next = ftell(f);
		if (pos >= 0 && next >= 0 && (long)strlen(line) != next - pos) {
			fprintf(stderr, "mcfan: config file '%s' line %u: contains a NUL byte (not a "
				"text file?)\n", path, no);
			return -EINVAL;
		}
		pos = next;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			fprintf(stderr, "mcfan: config file '%s' line %u: longer than %d characters\n",
				path, no, CFG_LINE_MAX - 2);
			return -EINVAL;
		}
		p = cfg_trim(line, line + strlen(line));
		if (no == 1 && strncmp(p, UTF8_BOM, strlen(UTF8_BOM)) == 0)
			p = cfg_trim(p + strlen(UTF8_BOM), p + strlen(p)); /* editors' BOM */
		if (*p == '\0' || *p == ';' || *p == '#')
			continue;
		/* an escape sequence or another control byte would reach the terminal in the
		 * error that quotes the key or value ("fanout = ESC[2J" cleared the screen) */
		for (end = p; *end != '\0'; end++) {
			if (((unsigned char)*end >= 0x20 && *end != 0x7f) || *end == '\t')
				continue;
			fprintf(stderr, "mcfan: config file '%s' line %u: control character 0x%02x "
				"at column %u (not a text file?)\n", path, no, (unsigned char)*end,
				(unsigned int)(end - line) + 1);
			return -EINVAL;
		}
		if (*p == '[') {
			/* "[mcfan] ; comment": a header may end in a comment, as a value may */
			cfg_uncomment(p);
			p = cfg_trim(p, p + strlen(p));
		}
		if (*p == '[' && strchr(p, '=') == NULL) {
			end = p + strlen(p);
			/* "[ff3e::1]:5000" in [seq]: an IPv6 group (a ':' inside the brackets,
			 * which no section name has), not a header such as "[seq]#x" */
			if (end[-1] != ']' && strchr(p, ']') != NULL &&
			    memchr(p, ':', (size_t)(strchr(p, ']') - p)) != NULL &&
			    cfg_row_without_value(keys, cur, path, no, p))
				return -EINVAL;
			if (end[-1] != ']' || end - p < 3) {
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not a "
					"[section] header\n", path, no, p);
				return -EINVAL;
			}
			end[-1] = '\0';
			known = cfg_section_known(keys, p + 1);
			end[-1] = ']';
			if (known == NULL) {
				fprintf(stderr, "mcfan: config file '%s' line %u: unknown section '%s': "
					"the sections are [%s]", path, no, p, CFG_SECTION);
				for (i = 0; keys->sections != NULL && keys->sections[i] != NULL; i++)
					fprintf(stderr, " [%s]", keys->sections[i]);
				fprintf(stderr, "\n");
				return -EINVAL;
			}
			for (i = 0; i < n_seen; i++) {
				if (seen[i] == known) {
					fprintf(stderr, "mcfan: config file '%s' line %u: a second section "
						"'%s': put every key of it under one [%s]\n", path, no,
						p, known);
					return -EINVAL;
				}
			}
			if (n_seen == CFG_SECTIONS_MAX || rte_cfgfile_add_section(file, known) < 0)
				return -ENOMEM;
			seen[n_seen++] = known;
			cur = known;
			continue;
		}
		cfg_uncomment(p);
		eq = strchr(p, '=');
		if (eq == NULL) {
			if (cfg_row_without_value(keys, cur, path, no, p))
				return -EINVAL;
			if (keys->kind(cfg_trim(p, p + strlen(p))) == MCFAN_CFG_KEY_FLAG)
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not 'key = "
					"value' (a flag in a file takes a value: %s = yes)\n", path, no,
					p, p);
			else
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not 'key = "
					"value'\n", path, no, p);
			return -EINVAL;
		}
		key = cfg_trim(p, eq);
		value = cfg_trim(eq + 1, eq + 1 + strlen(eq + 1));
		if (key[0] == '\0' || strlen(key) >= CFG_NAME_LEN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: a key of 1..%d characters "
				"is needed before '='\n", path, no, CFG_NAME_LEN - 1);
			return -EINVAL;
		}
		if (value[0] == '\0') {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' has no value\n",
				path, no, key);
			return -EINVAL;
		}
		if (strlen(value) >= CFG_VALUE_LEN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: the value of key '%s' has "
				"%zu characters; at most %d are allowed (give long lists on the command "
				"line)\n", path, no, key, strlen(value), CFG_VALUE_LEN - 1);
			return -EINVAL;
		}
		if (cur == NULL) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' before any "
				"section: put it under [%s]\n", path, no, key, CFG_SECTION);
			return -EINVAL;
		}
		for (i = 0; i < n_keys && !cfg_repeatable(keys, cur, key); i++) {
			if (sects[i] != cur || strcmp(names[i], key) != 0)
				continue;
			/* a repeatable option with a section of its rows (seq, group-engine):
			 * say where several go, as --help calls the option repeatable */
			known = strcmp(cur, CFG_SECTION) == 0 ? cfg_section_known(keys, key) : NULL;
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' is given twice "
				"(first on line %u)%s%s%s\n", path, no, key, lines[i],
				known != NULL ? "; give several rules as rows of a [" : "",
				known != NULL ? known : "",
				known != NULL ? "] section, one rule a row" : "");
			return -EINVAL;
		}
		if (n_keys == max_keys || n_keys == CFG_KEYS_MAX) {
			fprintf(stderr, "mcfan: config file '%s' line %u: more than %u keys\n", path,
				no, max_keys);
			return -EINVAL;
		}
		/* values[] has every line's; the rte_cfgfile keeps a repeatable key once */
		if (!rte_cfgfile_has_entry(file, cur, key) &&
		    rte_cfgfile_add_entry(file, cur, key, value) < 0)
			return -ENOMEM;
		snprintf(names[n_keys], CFG_NAME_LEN, "%s", key);
		snprintf(values[n_keys], CFG_VALUE_LEN, "%s", value);
		sects[n_keys] = cur;
		lines[n_keys++] = no;
	}
	if (n_seen == 0) {
		/* empty, or blank lines and comments only (a key before any section is refused
		 * above): the file would set nothing, likely not the file meant */
		fprintf(stderr, "mcfan: config file '%s' has no [%s] section", path, CFG_SECTION);
		for (i = 0; keys->sections != NULL && keys->sections[i] != NULL; i++)
			fprintf(stderr, "%s[%s]", i == 0 ? " (nor " : " or ", keys->sections[i]);
		fprintf(stderr, "%s: it sets nothing; options go under [%s] (a line '[%s', "
			"then e.g. 'groups = 239.9.9.1-10:3999')\n", i > 0 ? ")" : "", CFG_SECTION,
			CFG_SECTION "]");
		return -EINVAL;
	}
	*n_out = n_keys;
	return 0;
}

int
mcfan_config_file_read(const char *path, FILE *f, const struct mcfan_cfg_keys *keys)
{
	unsigned int lines[CFG_KEYS_MAX], n_keys = 0, i;
	static char names[CFG_KEYS_MAX][CFG_NAME_LEN]; /* main thread, once */
	static char values[CFG_KEYS_MAX][CFG_VALUE_LEN]; /* a repeatable key's lines apart */
	const char *sects[CFG_KEYS_MAX], *value, *bare;
	size_t vlen;
	enum mcfan_cfg_key_kind kind;
	struct rte_cfgfile *file;
	char err[ERR_MAX];
	int ret;

	file = rte_cfgfile_create(0);
	if (file == NULL) {
		fprintf(stderr, "mcfan: config file '%s': out of memory\n", path);
		return -ENOMEM;
	}
	ret = cfg_read(path, f, file, lines, names, values, sects, &n_keys, CFG_KEYS_MAX, keys);
	if (ret == -ENOMEM)
		fprintf(stderr, "mcfan: config file '%s': out of memory\n", path);
	if (ret < 0)
		goto close;
	for (i = 0; i < n_keys; i++) {
		value = values[i]; /* not by name: a repeatable key has one a line */
		vlen = strlen(value);
		if (vlen >= 2 && (value[0] == '"' || value[0] == '\'') &&
		    value[vlen - 1] == value[0]) {
			/* the file has no quoting: they would be part of the value */
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s': the value %s "
				"is in quotes, which would be part of it: write it without them, "
				"as the shell passes it on the command line (%s = %.*s)\n", path,
				lines[i], names[i], value, names[i], (int)(vlen - 2), value + 1);
			ret = -EINVAL;
			goto close;
		}
		if (strcmp(sects[i], CFG_SECTION) != 0) {
			ret = keys->apply_section(keys->arg, sects[i], names[i], value,
						  lines[i], err, sizeof(err));
			if (ret < 0) {
				fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' in [%s]: "
					"%s\n", path, lines[i], names[i], sects[i], err);
				goto close;
			}
			continue;
		}
		kind = keys->kind(names[i]);
		if (kind == MCFAN_CFG_KEY_CLI_ONLY) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' cannot be set in "
				"a config file (--%s is for the command line only)\n", path,
				lines[i], names[i], names[i]);
			ret = -EINVAL;
			goto close;
		}
		bare = names[i] + strspn(names[i], "-");
		if (kind == MCFAN_CFG_KEY_EAL || (kind == MCFAN_CFG_KEY_UNKNOWN &&
		    bare != names[i] && *bare != '\0' && keys->kind(bare) == MCFAN_CFG_KEY_EAL)) {
			/* "vdev = net_af_packet0,iface=veth0": the file is mcfan's, after "--" */
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' is an EAL "
				"option: EAL reads its options from the command line only; give "
				"--%s there, before '--' (mcfan [EAL options] -- --config %s)\n",
				path, lines[i], names[i], bare, path);
			ret = -EINVAL;
			goto close;
		}
		if (kind == MCFAN_CFG_KEY_UNKNOWN && bare != names[i] && *bare != '\0' &&
		    keys->kind(bare) != MCFAN_CFG_KEY_UNKNOWN &&
		    keys->kind(bare) != MCFAN_CFG_KEY_CLI_ONLY) {
			/* "--groups = ...", as the option is written on the command line */
			fprintf(stderr, "mcfan: config file '%s' line %u: unknown key '%s' in [%s]: "
				"a key is the long option's name without its dashes: write '%s'\n",
				path, lines[i], names[i], CFG_SECTION, bare);
			ret = -EINVAL;
			goto close;
		}
		if (kind == MCFAN_CFG_KEY_UNKNOWN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: unknown key '%s' in [%s] "
				"(keys are the long option names, see --help)\n", path, lines[i],
				names[i], CFG_SECTION);
			ret = -EINVAL;
			goto close;
		}
		ret = keys->apply(keys->arg, names[i], value, lines[i], err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s': %s\n", path,
				lines[i], names[i], err);
			goto close;
		}
	}
	ret = 0;
close:
	rte_cfgfile_close(file);
	return ret;
}

const char *
mcfan_config_origin(const char *path, unsigned int line, const char *section, const char *key,
		    int key_len, const char *option, char *buf, size_t len)
{
	if (line == 0)
		snprintf(buf, len, "--%s", option);
	else if (section != NULL)
		snprintf(buf, len, "config file '%s' line %u: key '%.*s' in [%s]: --%s", path, line,
			 key_len, key, section, option);
	else
		snprintf(buf, len, "config file '%s' line %u: key '%s': --%s", path, line, option,
			 option);
	return buf;
}
