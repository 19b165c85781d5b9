/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "mcfan_group.h"
#include "mcfan_parse.h"

#define UDP_PORT_MAX 65535
#define IPV4_MCAST_MASK 0xf0000000u /* RFC 5771: 224.0.0.0/4 */
#define IPV4_MCAST_NET 0xe0000000u
#define IPV6_MCAST_PREFIX 0xff      /* RFC 4291: ff00::/8 */
#define IPV6_SCOPE_MASK 0x0f        /* RFC 4291 2.7: scop, the low nibble of byte 1 */
#define IPV6_SCOPE_LINK 2           /* link-local: the narrowest scope a port receives */
#define ITEM_TEXT_MAX 128           /* longest single item of a group list */
#define HASH_SEED 0x6d636661u       /* fixed, so partitioning is stable across runs */

/*
 * The lookup index: an open-addressed table with linear probing, built once and never
 * changed. A slot holds the entry's position + 1 (0 = empty) and 16 bits of the key's hash
 * (a tag that rejects most other keys without touching the entry). There are at least
 * SLOTS_PER_GROUP slots a group, so the table is at most a quarter full and a probe sequence
 * is short; the longest one any entry needs (max_probe) is recorded at build time and bounds
 * every lookup, hit or miss: a lookup costs O(1), never O(groups). It replaces an rte_hash,
 * whose bulk lookup (signatures, buckets, a memcmp of the 20-byte key, the key copied to an
 * aligned buffer for the CRC) cost about 15 % of the RX lcore's samples (docs/performance.md).
 */
#define SLOTS_PER_GROUP 4
#define SLOTS_MIN 16

struct group_slot {
	uint16_t tag;  /* the 16 hash bits below the home slot's */
	uint16_t pos1; /* entry position + 1; 0 = empty slot */
};

struct mcfan_group_table {
	unsigned int n;
	uint32_t mask;            /* slots - 1 (slots is a power of two) */
	uint32_t shift;           /* 64 - log2(slots): the home slot is hash >> shift */
	uint32_t max_probe;       /* slots any entry sits past its home slot, at most */
	uint32_t n_any_port;      /* entries with udp_port 0 (any port) */
	struct group_slot *slots; /* mask + 1 slots */
	struct mcfan_group_entry entries[];
};

const char *
mcfan_fanout_name(enum mcfan_fanout fanout)
{
	switch (fanout) {
	case MCFAN_FANOUT_PARTITION:
		return "partition";
	case MCFAN_FANOUT_REPLICATE:
		return "replicate";
	}
	return "invalid";
}

int
mcfan_fanout_parse(const char *text)
{
	if (strcmp(text, "partition") == 0)
		return MCFAN_FANOUT_PARTITION;
	if (strcmp(text, "replicate") == 0)
		return MCFAN_FANOUT_REPLICATE;
	return -EINVAL;
}

/* Parse a decimal number 0..max (digits only; leading zeros are decimal). */
static int
parse_decimal(const char *s, unsigned long max, unsigned long *out)
{
	uint64_t v = 0;
	int ret = mcfan_parse_u64(s, 0, max, &v);

	*out = (unsigned long)v; /* 0 on error: callers test ret */
	return ret;
}

static int
parse_port(const char *s, uint16_t *port, const char *item, char *err, size_t err_len)
{
	unsigned long v;

	if (parse_decimal(s, UDP_PORT_MAX, &v) < 0 || v == 0) {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': UDP port must be a decimal number 1..65535",
				     item);
	}
	*port = (uint16_t)v;
	return 0;
}

static int
parse_ipv6_item(char *s, const char *item, struct mcfan_flow_key *out, unsigned int max,
		char *err, size_t err_len)
{
	char *close = strchr(s, ']');
	struct in6_addr a;

	if (max < 1) {
		return mcfan_err_set(err, err_len, -E2BIG, "group '%s': names more groups than "
				     "allowed (at most %u in all)", item, MCFAN_MAX_GROUPS);
	}
	memset(out, 0, sizeof(*out));
	if (close == NULL) {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': IPv6 address needs a closing ']'", item);
	}
	*close = '\0';
	if (inet_pton(AF_INET6, s + 1, &a) != 1 && strchr(s + 1, '-') != NULL) {
		return mcfan_err_set(err, err_len, -EINVAL, "group '%s': an IPv6 group is one "
				     "address (ranges are IPv4 only): give each, comma-separated, "
				     "e.g. [ff15::1]:5000,[ff15::2]:5000", item);
	}
	if (inet_pton(AF_INET6, s + 1, &a) != 1) {
		return mcfan_err_set(err, err_len, -EINVAL, "group '%s': not a valid IPv6 address",
				     item);
	}
	if (a.s6_addr[0] != IPV6_MCAST_PREFIX) {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': not an IPv6 multicast address (ff00::/8)", item);
	}
	if ((a.s6_addr[1] & IPV6_SCOPE_MASK) < IPV6_SCOPE_LINK) {
		/* RFC 4291 2.7: scope 0 is reserved (a node drops what it receives), scope 1
		 * (interface-local) is loopback only: no such frame reaches a port */
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': IPv6 multicast scope %u (%s) does not reach a "
				     "port: mcfan receives groups of link-local scope (2) and wider "
				     "(RFC 4291 2.7), e.g. [ff02::9], [ff15::1]", item,
				     a.s6_addr[1] & IPV6_SCOPE_MASK,
				     (a.s6_addr[1] & IPV6_SCOPE_MASK) == 0 ? "reserved" :
				     "interface-local");
	}
	if (close[1] == ':') {
		if (parse_port(close + 2, &out->udp_port, item, err, err_len) < 0)
			return -EINVAL;
	} else if (close[1] != '\0') {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': expected ':PORT' after ']'", item);
	}
	out->family = MCFAN_FAMILY_IPV6;
	memcpy(out->addr, a.s6_addr, sizeof(a.s6_addr));
	return 1;
}

static int
parse_ipv4_addr(const char *s, uint32_t *host_order)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*host_order = ntohl(a.s_addr);
	return 0;
}

static int
parse_ipv4_item(char *s, const char *item, struct mcfan_flow_key *out, unsigned int max,
		char *err, size_t err_len)
{
	char *colon = strchr(s, ':');
	char *dash;
	uint32_t first, last, a;
	uint16_t port = 0;
	unsigned long v;
	unsigned int i, n;

	if (colon != NULL && strchr(colon + 1, ':') != NULL &&
	    memchr(s, '.', (size_t)(colon - s)) != NULL) {
		/* 239.9.9.1:3999:4000: an IPv4 group with two ports, not IPv6 */
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': one ':PORT' after an IPv4 group (one UDP port "
				     "a group, e.g. 239.9.9.1-10:3999)", item);
	}
	if (colon != NULL && strchr(colon + 1, ':') != NULL) {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': an IPv6 group goes in brackets, e.g. "
				     "[ff15::1]:5000", item);
	}
	if (colon != NULL) {
		*colon = '\0';
		if (parse_port(colon + 1, &port, item, err, err_len) < 0)
			return -EINVAL;
	}
	dash = strchr(s, '-');
	if (dash != NULL)
		*dash = '\0';
	if (parse_ipv4_addr(s, &first) < 0) {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': not a valid IPv4 address (dotted decimal, "
				     "octets 0..255 without leading zeros)", item);
	}
	last = first;
	if (dash != NULL) {
		if (strchr(dash + 1, '.') != NULL) {
			if (parse_ipv4_addr(dash + 1, &last) < 0) {
				return mcfan_err_set(err, err_len, -EINVAL,
					"group '%s': range end is not a valid IPv4 address", item);
			}
		} else {
			if (parse_decimal(dash + 1, UINT8_MAX, &v) < 0) {
				return mcfan_err_set(err, err_len, -EINVAL,
						     "group '%s': range end must be a last octet 0..255 or an address",
						     item);
			}
			last = (first & 0xffffff00u) | (uint32_t)v;
		}
		if (last < first) {
			return mcfan_err_set(err, err_len, -EINVAL,
					     "group '%s': range end is below its start", item);
		}
	}
	if ((first & IPV4_MCAST_MASK) != IPV4_MCAST_NET ||
	    (last & IPV4_MCAST_MASK) != IPV4_MCAST_NET) {
		return mcfan_err_set(err, err_len, -EINVAL,
				     "group '%s': not an IPv4 multicast address (224.0.0.0/4)",
				     item);
	}
	if ((uint64_t)last - first + 1 > max && max == 1) {
		return mcfan_err_set(err, err_len, -E2BIG, "group '%s' names %" PRIu64 " groups: "
				     "give one group here", item, (uint64_t)last - first + 1);
	}
	if ((uint64_t)last - first + 1 > max) {
		return mcfan_err_set(err, err_len, -E2BIG,
				     "group '%s': names more groups than allowed (at most "
				     "%u in all)", item, MCFAN_MAX_GROUPS);
	}
	n = last - first + 1;
	for (i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].family = MCFAN_FAMILY_IPV4;
		out[i].udp_port = port;
		a = htonl(first + i);
		memcpy(out[i].addr, &a, sizeof(a));
	}
	return (int)n;
}

int
mcfan_group_parse(const char *text, struct mcfan_flow_key *out, unsigned int max, char *err,
		  size_t err_len)
{
	char buf[ITEM_TEXT_MAX];

	if (text[0] == '\0') {
		return mcfan_err_set(err, err_len, -EINVAL, "empty group");
	}
	if (strlen(text) >= sizeof(buf)) {
		return mcfan_err_set(err, err_len, -EINVAL, "group '%.40s...': too long", text);
	}
	if (strchr(text, '@') != NULL) {
		/* source-specific groups (GROUP@SOURCE) are split off before this parser by
		 * --groups and join only; elsewhere the group alone is meant */
		return mcfan_err_set(err, err_len, -EINVAL, "group '%s': a source (@SOURCE) is "
				     "not taken here: give the group without it (%.*s)", text,
				     (int)strcspn(text, "@"), text);
	}
	strcpy(buf, text);
	if (buf[0] == '[')
		return parse_ipv6_item(buf, text, out, max, err, err_len);
	return parse_ipv4_item(buf, text, out, max, err, err_len);
}

int
mcfan_group_parse_list(const char *text, struct mcfan_flow_key *out, unsigned int max,
		       char *err, size_t err_len)
{
	char item[ITEM_TEXT_MAX];
	char dup[MCFAN_GROUP_STR_MAX];
	const char *p = text, *comma;
	unsigned int n = 0, i, j;
	size_t len;
	int ret;

	if (text[0] == '\0') {
		return mcfan_err_set(err, err_len, -EINVAL, "empty group list");
	}
	for (;;) {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			return mcfan_err_set(err, err_len, -EINVAL, "group list '%s': empty item",
					     text);
		}
		if (len >= sizeof(item)) {
			return mcfan_err_set(err, err_len, -EINVAL,
					     "group list: item '%.40s...' too long", p);
		}
		memcpy(item, p, len);
		item[len] = '\0';
		ret = mcfan_group_parse(item, out + n, max - n, err, err_len);
		if (ret < 0)
			return ret;
		n += (unsigned int)ret;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (mcfan_flow_key_equal(&out[i], &out[j])) {
				mcfan_group_format(&out[i], dup, sizeof(dup));
				return mcfan_err_set(err, err_len, -EEXIST,
						     "group %s is listed twice", dup);
			}
		}
	}
	return (int)n;
}

int
mcfan_group_format(const struct mcfan_flow_key *key, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	int ret;

	if (key->family == MCFAN_FAMILY_IPV4)
		inet_ntop(AF_INET, key->addr, addr, sizeof(addr));
	else if (key->family == MCFAN_FAMILY_IPV6)
		inet_ntop(AF_INET6, key->addr, addr, sizeof(addr));
	else
		return -EINVAL;

	if (key->family == MCFAN_FAMILY_IPV6 && key->udp_port != 0)
		ret = snprintf(buf, len, "[%s]:%u", addr, key->udp_port);
	else if (key->family == MCFAN_FAMILY_IPV6)
		ret = snprintf(buf, len, "[%s]", addr);
	else if (key->udp_port != 0)
		ret = snprintf(buf, len, "%s:%u", addr, key->udp_port);
	else
		ret = snprintf(buf, len, "%s", addr);
	if (ret < 0 || (size_t)ret >= len)
		return -ENOSPC;
	return ret;
}

/*
 * A key as rte_hash_crc() may read it: rte_hash_crc() loads 8 bytes at a time, and a
 * struct mcfan_flow_key has 2-byte alignment (inside struct mcfan_group_entry, at 20-byte
 * steps in a burst's key array), so hashing it in place would be an unaligned 64-bit load.
 */
union aligned_key {
	struct mcfan_flow_key key;
	uint64_t words[(sizeof(struct mcfan_flow_key) + sizeof(uint64_t) - 1) / sizeof(uint64_t)];
};

/* CRC32-C of the key bytes copied to an aligned buffer, so the value is that of
 * rte_hash_crc() on the same bytes (the hash that places groups on workers). */
static uint32_t
flow_key_crc(const void *key, uint32_t key_len, uint32_t init_val)
{
	union aligned_key k;

	RTE_ASSERT(key_len == sizeof(k.key));
	memcpy(&k.key, key, sizeof(k.key));
	return rte_hash_crc(&k, RTE_MIN(key_len, (uint32_t)sizeof(k.key)), init_val);
}

uint32_t
mcfan_group_hash(const struct mcfan_flow_key *key)
{
	return flow_key_crc(key, sizeof(*key), HASH_SEED);
}

static bool
target_seen_before(const uint16_t *list, unsigned int pos)
{
	unsigned int i;

	for (i = 0; i < pos; i++)
		if (list[i] == list[pos])
			return true;
	return false;
}

int
mcfan_group_assign(struct mcfan_group_entry *e, enum mcfan_fanout fanout,
		   const uint16_t *eligible, unsigned int n_eligible)
{
	unsigned int i;

	if (n_eligible == 0 || n_eligible > MCFAN_MAX_WORKERS)
		return -EINVAL;
	/* each worker at most once: a repeated target would overrun its staging slots */
	for (i = 0; i < n_eligible; i++)
		if (eligible[i] >= MCFAN_MAX_WORKERS || target_seen_before(eligible, i))
			return -EINVAL;
	switch (fanout) {
	case MCFAN_FANOUT_PARTITION:
		e->n_targets = 1;
		e->targets[0] = eligible[mcfan_group_hash(&e->key) % n_eligible];
		break;
	case MCFAN_FANOUT_REPLICATE:
		e->n_targets = (uint16_t)n_eligible;
		for (i = 0; i < n_eligible; i++)
			e->targets[i] = eligible[i];
		break;
	default:
		return -EINVAL;
	}
	e->fanout = (uint8_t)fanout;
	return 0;
}

static bool
targets_valid(const struct mcfan_group_entry *e)
{
	unsigned int i;

	for (i = 0; i < e->n_targets; i++)
		if (e->targets[i] >= MCFAN_MAX_WORKERS || target_seen_before(e->targets, i))
			return false;
	return true;
}

/* The 20 bytes of a key as three words (a key is only 2-byte aligned: memcpy loads). */
struct key_words {
	uint64_t a; /* family, pad, udp_port, addr[0..3] */
	uint64_t b; /* addr[4..11] */
	uint32_t c; /* addr[12..15] */
};

static inline void
key_load(const struct mcfan_flow_key *key, struct key_words *w)
{
	RTE_BUILD_BUG_ON(sizeof(*key) != 2 * sizeof(uint64_t) + sizeof(uint32_t));
	memcpy(&w->a, key, sizeof(w->a));
	memcpy(&w->b, (const uint8_t *)key + 8, sizeof(w->b));
	memcpy(&w->c, (const uint8_t *)key + 16, sizeof(w->c));
}

/* Index hash of a key (not mcfan_group_hash(), which places groups on workers and must not
 * change): Fibonacci hashing (Knuth, TAOCP 6.4) of the words folded into one, so the top bits
 * of the product depend on every bit of the key; the slot is the top bits, the tag the 16
 * bits below them. */
static inline uint64_t
key_index_hash(const struct key_words *w)
{
	return (w->a ^ w->b * UINT64_C(0xc2b2ae3d27d4eb4f) ^
		(uint64_t)w->c * UINT64_C(0x165667b19e3779f9)) * UINT64_C(0x9e3779b97f4a7c15);
}

static inline bool
key_words_equal(const struct key_words *w, const struct mcfan_flow_key *key)
{
	struct key_words e;

	key_load(key, &e);
	return ((w->a ^ e.a) | (w->b ^ e.b) | (uint64_t)(w->c ^ e.c)) == 0;
}

/* The entry for exactly this key (address, family and port), or NULL. */
static inline const struct mcfan_group_entry *
table_find(const struct mcfan_group_table *t, const struct key_words *w)
{
	uint64_t h = key_index_hash(w);
	uint32_t i = (uint32_t)(h >> t->shift), probe;
	uint16_t tag = (uint16_t)(h >> (t->shift - 16));
	const struct group_slot *s;

	for (probe = 0; probe <= t->max_probe; probe++, i = (i + 1) & t->mask) {
		s = &t->slots[i];
		if (s->pos1 == 0)
			return NULL;
		if (s->tag == tag && key_words_equal(w, &t->entries[s->pos1 - 1].key))
			return &t->entries[s->pos1 - 1];
	}
	return NULL;
}

/* As mcfan_group_table_lookup(): the exact key first, then the address with any port. */
static inline const struct mcfan_group_entry *
table_lookup(const struct mcfan_group_table *t, const struct mcfan_flow_key *key)
{
	const struct mcfan_group_entry *e;
	struct key_words w;

	struct mcfan_flow_key any;

	key_load(key, &w);
	e = table_find(t, &w);
	if (e != NULL || key->udp_port == 0 || t->n_any_port == 0)
		return e;
	any = *key;
	any.udp_port = 0;
	key_load(&any, &w);
	return table_find(t, &w);
}

/* Put entry pos into the index; -EINVAL if its key is already there. */
static int
table_insert(struct mcfan_group_table *t, unsigned int pos)
{
	struct key_words w;
	uint32_t i, probe;
	uint64_t h;

	key_load(&t->entries[pos].key, &w);
	if (table_find(t, &w) != NULL)
		return -EINVAL;
	h = key_index_hash(&w);
	i = (uint32_t)(h >> t->shift);
	for (probe = 0; t->slots[i].pos1 != 0; probe++)
		i = (i + 1) & t->mask; /* ends: the table is never more than a quarter full */
	t->slots[i].tag = (uint16_t)(h >> (t->shift - 16));
	t->slots[i].pos1 = (uint16_t)(pos + 1);
	if (probe > t->max_probe)
		t->max_probe = probe;
	return 0;
}

struct mcfan_group_table *
mcfan_group_table_create(const struct mcfan_group_entry *entries, unsigned int n, int socket_id)
{
	struct mcfan_group_table *t;
	unsigned int i;
	uint32_t slots;
	int ret;

	RTE_BUILD_BUG_ON(MCFAN_MAX_GROUPS >= UINT16_MAX); /* pos1 is 16 bits */
	if (n > MCFAN_MAX_GROUPS) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("mcfan_groups", sizeof(*t) + n * sizeof(t->entries[0]),
			       RTE_CACHE_LINE_SIZE, socket_id);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	slots = rte_align32pow2(RTE_MAX(n * SLOTS_PER_GROUP, (unsigned int)SLOTS_MIN));
	t->slots = rte_zmalloc_socket("mcfan_group_slots", slots * sizeof(t->slots[0]),
				      RTE_CACHE_LINE_SIZE, socket_id);
	if (t->slots == NULL) {
		ret = ENOMEM;
		goto free_table;
	}
	t->mask = slots - 1;
	t->shift = 64 - rte_log2_u32(slots);
	t->n = n;
	for (i = 0; i < n; i++) {
		t->entries[i] = entries[i];
		if (entries[i].id >= MCFAN_MAX_GROUPS || entries[i].n_targets == 0 ||
		    entries[i].n_targets > MCFAN_MAX_WORKERS || !targets_valid(&entries[i]) ||
		    table_insert(t, i) < 0) {
			ret = EINVAL;
			goto free_slots;
		}
		if (entries[i].key.udp_port == 0)
			t->n_any_port++;
	}
	return t;

free_slots:
	rte_free(t->slots);
free_table:
	rte_free(t);
	rte_errno = ret;
	return NULL;
}

void
mcfan_group_table_free(struct mcfan_group_table *t)
{
	if (t == NULL)
		return;
	rte_free(t->slots);
	rte_free(t);
}

unsigned int
mcfan_group_table_count(const struct mcfan_group_table *t)
{
	return t->n;
}

const struct mcfan_group_entry *
mcfan_group_table_entry(const struct mcfan_group_table *t, unsigned int pos)
{
	if (pos >= t->n)
		return NULL;
	return &t->entries[pos];
}

const struct mcfan_group_entry *
mcfan_group_table_lookup(const struct mcfan_group_table *t, const struct mcfan_flow_key *key)
{
	return table_lookup(t, key);
}

void
mcfan_group_table_lookup_bulk(const struct mcfan_group_table *t,
			      const struct mcfan_flow_key **keys, unsigned int n,
			      const struct mcfan_group_entry **out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		out[i] = table_lookup(t, keys[i]);
}

void
mcfan_group_format_list(const struct mcfan_flow_key *keys, unsigned int n, char *buf,
			size_t len)
{
	char a[MCFAN_GROUP_STR_MAX], b[MCFAN_GROUP_STR_MAX];

	if (mcfan_group_format(&keys[0], a, sizeof(a)) < 0)
		snprintf(a, sizeof(a), "invalid");
	if (n == 1) {
		snprintf(buf, len, "%s", a);
		return;
	}
	if (mcfan_group_format(&keys[n - 1], b, sizeof(b)) < 0)
		snprintf(b, sizeof(b), "invalid");
	snprintf(buf, len, "%s .. %s (%u groups)", a, b, n);
}

int
mcfan_group_entry_find(const struct mcfan_group_entry *entries, unsigned int n,
		       const struct mcfan_flow_key *key)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (mcfan_flow_key_equal(&entries[i].key, key))
			return (int)i;
	return -1;
}

int
mcfan_group_not_joined(const struct mcfan_group_entry *entries, unsigned int n,
		       const char *what, const struct mcfan_flow_key *key, char *msg, size_t len)
{
	char text[MCFAN_GROUP_STR_MAX], other[MCFAN_GROUP_STR_MAX];
	struct mcfan_flow_key a = *key, b;
	unsigned int i;

	mcfan_group_format(key, text, sizeof(text));
	a.udp_port = 0;
	for (i = 0; i < n; i++) {
		b = entries[i].key;
		b.udp_port = 0;
		if (mcfan_flow_key_equal(&a, &b)) {
			mcfan_group_format(&entries[i].key, other, sizeof(other));
			return mcfan_err_set(msg, len, -ENOENT, "%s: group %s is not joined (%s is)",
					     what, text, other);
		}
	}
	return mcfan_err_set(msg, len, -ENOENT, "%s: group %s is not joined", what, text);
}
