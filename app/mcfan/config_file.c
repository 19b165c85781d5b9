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

/*
 * Read a config file into an rte_cfgfile made empty by the caller, one line at a time, so
 * that every error names its line and no limit of rte_cfgfile_load() (22.11: lines of at
 * most CFG_NAME_LEN + CFG_VALUE_LEN + 3 characters, ';' comments only, values cut at
 * CFG_VALUE_LEN - 1 characters without a word) can change what a line means. Every line
 * must be blank, a comment (starting with ';' or '#'; a ';' or '#' later in a line starts a
 * comment too), "[mcfan]" or "key = value"; no key before the section, no key twice.
 * lines[i] receives the line of the i-th key.
 */
static int
cfg_read(const char *path, FILE *f, struct rte_cfgfile *file, unsigned int *lines,
	 unsigned int max_keys, const struct mcfan_cfg_keys *keys)
{
	char line[CFG_LINE_MAX], names[CFG_KEYS_MAX][CFG_NAME_LEN];
	unsigned int no = 0, n_keys = 0, i;
	bool in_section = false;
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
		if (*p == '[') {
			end = p + strlen(p);
			if (end[-1] != ']' || end - p < 3) {
				fprintf(stderr, "mcfan: config file '%s' line %u: '%s' is not a "
					"[section] header\n", path, no, p);
				return -EINVAL;
			}
			if (in_section) {
				fprintf(stderr, "mcfan: config file '%s' line %u: a second section '%s': "
					"put every key under one [%s]\n", path, no, p, CFG_SECTION);
				return -EINVAL;
			}
			if (strlen(p) - 2 != strlen(CFG_SECTION) ||
			    strncmp(p + 1, CFG_SECTION, strlen(CFG_SECTION)) != 0) {
				fprintf(stderr, "mcfan: config file '%s' line %u: unknown section '%s': "
					"the only section is [%s]\n", path, no, p, CFG_SECTION);
				return -EINVAL;
			}
			if (rte_cfgfile_add_section(file, CFG_SECTION) < 0)
				return -ENOMEM;
			in_section = true;
			continue;
		}
		p[strcspn(p, ";#")] = '\0';
		eq = strchr(p, '=');
		if (eq == NULL) {
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
		if (!in_section) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' before any "
				"section: put it under [%s]\n", path, no, key, CFG_SECTION);
			return -EINVAL;
		}
		for (i = 0; i < n_keys; i++) {
			if (strcmp(names[i], key) == 0) {
				fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' is given "
					"twice (first on line %u)\n", path, no, key, lines[i]);
				return -EINVAL;
			}
		}
		if (n_keys == max_keys || n_keys == CFG_KEYS_MAX) {
			fprintf(stderr, "mcfan: config file '%s' line %u: more than %u keys\n", path,
				no, max_keys);
			return -EINVAL;
		}
		if (rte_cfgfile_add_entry(file, CFG_SECTION, key, value) < 0)
			return -ENOMEM;
		snprintf(names[n_keys], sizeof(names[n_keys]), "%s", key);
		lines[n_keys++] = no;
	}
	return 0;
}

int
mcfan_config_file_read(const char *path, FILE *f, const struct mcfan_cfg_keys *keys)
{
	unsigned int lines[CFG_KEYS_MAX];
	static struct rte_cfgfile_entry ents[CFG_KEYS_MAX]; /* 20 KiB: main thread, once */
	enum mcfan_cfg_key_kind kind;
	struct rte_cfgfile *file;
	char err[ERR_MAX];
	int n_ent, i, ret;

	file = rte_cfgfile_create(0);
	if (file == NULL) {
		fprintf(stderr, "mcfan: config file '%s': out of memory\n", path);
		return -ENOMEM;
	}
	ret = cfg_read(path, f, file, lines, CFG_KEYS_MAX, keys);
	if (ret == -ENOMEM)
		fprintf(stderr, "mcfan: config file '%s': out of memory\n", path);
	if (ret < 0)
		goto close;
	n_ent = rte_cfgfile_has_section(file, CFG_SECTION) ?
		rte_cfgfile_section_num_entries(file, CFG_SECTION) : 0;
	if (n_ent > 0 && rte_cfgfile_section_entries(file, CFG_SECTION, ents, n_ent) != n_ent) {
		ret = -EINVAL;
		goto close;
	}
	for (i = 0; i < n_ent; i++) {
		kind = keys->kind(ents[i].name);
		if (kind == MCFAN_CFG_KEY_CLI_ONLY) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s' cannot be set in "
				"a config file (--%s is for the command line only)\n", path,
				lines[i], ents[i].name, ents[i].name);
			ret = -EINVAL;
			goto close;
		}
		if (kind == MCFAN_CFG_KEY_UNKNOWN) {
			fprintf(stderr, "mcfan: config file '%s' line %u: unknown key '%s' in [%s] "
				"(keys are the long option names, see --help)\n", path, lines[i],
				ents[i].name, CFG_SECTION);
			ret = -EINVAL;
			goto close;
		}
		ret = keys->apply(keys->arg, ents[i].name, ents[i].value, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "mcfan: config file '%s' line %u: key '%s': %s\n", path,
				lines[i], ents[i].name, err);
			goto close;
		}
	}
	ret = 0;
close:
	rte_cfgfile_close(file);
	return ret;
}
