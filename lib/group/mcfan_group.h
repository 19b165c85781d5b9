/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_GROUP_H
#define MCFAN_GROUP_H

/**
 * @file
 * Multicast groups: the text syntax operators use to name them, and the
 * immutable lookup table that RX lcores read. A table is never edited once
 * published; the control plane builds a new one and publishes it with RCU.
 *
 * Group syntax: IPv4 dotted quad (RFC 791) in 224.0.0.0/4 (RFC 5771), a range
 * of the last octet `239.9.9.1-10` or of whole addresses
 * `239.9.9.1-239.9.9.10`, an IPv6 address in ff00::/8 (RFC 4291) of scope 2
 * (link-local) or wider in brackets `[ff3e::1]` (RFC 3986 section 3.2.2 style;
 * scope 0, reserved, and 1, interface-local, reach no port: refused), each with an optional UDP
 * destination port `:3999` (1..65535, decimal). A group without a port matches
 * every UDP port; a group with a port is preferred over the same group
 * without one.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "bits.h"
#include "mcfan_classify.h"

/** Most groups one table holds (also the number of per-group counter slots). */
#define MCFAN_MAX_GROUPS 1024

/** Most worker lcores (one bit each in a group's worker set). */
#define MCFAN_MAX_WORKERS RTE_MAX_LCORE

/** Words of a bitmap of worker indexes (bits.h): bit w is worker index w. */
#define MCFAN_WORKER_WORDS MCFAN_BITS_WORDS(MCFAN_MAX_WORKERS)

/** Longest text form of one group: "[" IPv6 "]:" port, with NUL. */
#define MCFAN_GROUP_STR_MAX 56

/** How a group's frames are spread over workers. */
enum mcfan_fanout {
	MCFAN_FANOUT_PARTITION = 0, /**< One worker per group, by a stable hash of the group. */
	MCFAN_FANOUT_REPLICATE,     /**< Every eligible worker gets a reference to every frame. */
};

/** One group of a table. */
struct mcfan_group_entry {
	struct mcfan_flow_key key; /**< Address and port (0 = any port). */
	uint16_t id;               /**< Counter slot, 0..MCFAN_MAX_GROUPS-1, stable while joined. */
	uint8_t fanout;            /**< enum mcfan_fanout. */
	/** Worker engine instance of the group's copies (the application's instance table,
	 * docs/delivery.md), stamped by the RX side into each copy's metadata; 0 by default. */
	uint8_t inst;
	uint16_t n_targets;        /**< Workers that receive each frame: 1 for partition. */
	/** The membership's number: 1, 2, ... in the order of joins (a rejoin gets a new one),
	 * kept while joined; stamped by the RX side into each copy's metadata. 0 = not set. */
	uint32_t join_seq;
	uint16_t targets[MCFAN_MAX_WORKERS]; /**< Worker indexes (0..n_workers-1). */
};

struct mcfan_group_table;

/**
 * Return the name of a fan-out mode.
 *
 * @param fanout
 *   An enum mcfan_fanout value.
 * @return
 *   "partition", "replicate" or "invalid".
 */
const char *mcfan_fanout_name(enum mcfan_fanout fanout);

/**
 * Parse a fan-out mode name.
 *
 * @param text
 *   "partition" or "replicate". Must not be NULL.
 * @return
 *   The enum mcfan_fanout value (>= 0), or -EINVAL for any other text.
 */
int mcfan_fanout_parse(const char *text);

/**
 * Parse one group or a range of groups, e.g. "239.9.9.1-10:3999" or "[ff3e::1]:5000".
 *
 * @param text
 *   The item, NUL-terminated, no surrounding spaces. Must not be NULL.
 * @param out
 *   Array receiving the keys, in increasing address order. Must not be NULL.
 * @param max
 *   Room in out, in keys.
 * @param err
 *   Buffer for a message that quotes the bad part; may be NULL.
 * @param err_len
 *   Size of err in bytes.
 * @return
 *   Number of keys written (>= 1), -EINVAL for bad syntax, a non-multicast
 *   address, an IPv6 group of scope 0 or 1 (RFC 4291 2.7), a port outside 1..65535, a decreasing range or a source-specific item
 *   (GROUP@SOURCE: split off first, mcfan_igmp_ssm_split()), -E2BIG if the
 *   item names more groups than max.
 */
int mcfan_group_parse(const char *text, struct mcfan_flow_key *out, unsigned int max,
		      char *err, size_t err_len);

/**
 * Parse a comma-separated list of groups (each as for mcfan_group_parse()).
 *
 * @param text
 *   The list, NUL-terminated. Must not be NULL.
 * @param out
 *   Array receiving the keys, in list order. Must not be NULL.
 * @param max
 *   Room in out, in keys (at most MCFAN_MAX_GROUPS is sensible).
 * @param err
 *   Buffer for a message that quotes the bad item; may be NULL.
 * @param err_len
 *   Size of err in bytes.
 * @return
 *   Number of keys (>= 1); -EINVAL for an empty list, an empty item or a bad
 *   item; -EEXIST if a group (address and port) appears twice; -E2BIG if the
 *   list names more than max groups.
 */
int mcfan_group_parse_list(const char *text, struct mcfan_flow_key *out, unsigned int max,
			   char *err, size_t err_len);

/**
 * Write a group's text form: "239.9.9.1:3999", "239.9.9.1" (any port) or
 * "[ff3e::1]:5000".
 *
 * @param key
 *   The group. Must not be NULL.
 * @param buf
 *   Destination; MCFAN_GROUP_STR_MAX bytes always suffice.
 * @param len
 *   Size of buf in bytes.
 * @return
 *   Characters written, not counting the NUL, or -ENOSPC if buf is too small,
 *   -EINVAL for a key of unknown family.
 */
int mcfan_group_format(const struct mcfan_flow_key *key, char *buf, size_t len);

/**
 * Write a parsed group list's text for messages: "239.9.9.1:3999" for one group, or
 * "239.9.9.1:3999 .. 239.9.9.10:3999 (10 groups)" (the first and the last, and the count).
 *
 * @param keys
 *   The groups, in list order. Must not be NULL.
 * @param n
 *   Number of keys, >= 1.
 * @param buf
 *   Output buffer, always NUL-terminated (cut to fit).
 * @param len
 *   Size of buf in bytes, > 0.
 */
void mcfan_group_format_list(const struct mcfan_flow_key *keys, unsigned int n, char *buf,
			     size_t len);

/**
 * Compare two keys for equality (address, family and port).
 *
 * @return
 *   Non-zero if equal.
 */
static inline int
mcfan_flow_key_equal(const struct mcfan_flow_key *a, const struct mcfan_flow_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/**
 * Does a joined group match a group as the operator names it (console `show groups`,
 * telemetry `/mcfan/groups,GROUP`)? A name with a port matches that group only; a name
 * without a port (udp_port 0) matches every group of its address, the one joined without a
 * port included.
 *
 * @param want
 *   The group as named. Must not be NULL.
 * @param key
 *   A joined group's key. Must not be NULL.
 * @return
 *   Non-zero if key matches want.
 */
static inline int
mcfan_flow_key_matches(const struct mcfan_flow_key *want, const struct mcfan_flow_key *key)
{
	struct mcfan_flow_key a = *key;

	if (want->udp_port != 0)
		return mcfan_flow_key_equal(want, key);
	a.udp_port = 0;
	return mcfan_flow_key_equal(want, &a);
}

/**
 * Stable hash of a group, used to partition groups over workers.
 *
 * The value depends only on the key's bytes (CRC32-C, as rte_hash_crc), so a
 * group goes to the same worker on every run with the same worker count.
 *
 * @param key
 *   The group. Must not be NULL.
 * @return
 *   A 32-bit hash.
 */
uint32_t mcfan_group_hash(const struct mcfan_flow_key *key);

/**
 * Fill in an entry's targets for a fan-out mode.
 *
 * @param e
 *   The entry; key must be set. Its fanout, n_targets and targets are written.
 * @param fanout
 *   Partition: one target, eligible[mcfan_group_hash(key) % n_eligible].
 *   Replicate: every eligible worker.
 * @param eligible
 *   Worker indexes allowed for this group. Must not be NULL.
 * @param n_eligible
 *   1..MCFAN_MAX_WORKERS.
 * @return
 *   0, or -EINVAL if n_eligible is out of range, a worker index is listed
 *   twice or is not below MCFAN_MAX_WORKERS, or fanout is unknown.
 */
int mcfan_group_assign(struct mcfan_group_entry *e, enum mcfan_fanout fanout,
		       const uint16_t *eligible, unsigned int n_eligible);

/**
 * Build an immutable lookup table: the entries plus an open-addressed index (linear
 * probing, at most a quarter full, the longest probe bounded at build time), so that a
 * lookup costs O(1) whatever the number of groups. Needs EAL (rte_malloc).
 *
 * @param entries
 *   Entries to copy; ids and targets must be set. Must not be NULL if n > 0.
 * @param n
 *   0..MCFAN_MAX_GROUPS.
 * @param socket_id
 *   NUMA socket for the memory, or SOCKET_ID_ANY.
 * @return
 *   The table, or NULL with rte_errno set: EINVAL (n too large, a duplicate
 *   key, an id out of range, no target, a target repeated or out of range),
 *   ENOMEM.
 */
struct mcfan_group_table *mcfan_group_table_create(const struct mcfan_group_entry *entries,
						   unsigned int n, int socket_id);

/**
 * Free a table. Only call once no RX lcore can still read it (after an RCU
 * grace period).
 *
 * @param t
 *   The table, or NULL (no-op).
 */
void mcfan_group_table_free(struct mcfan_group_table *t);

/**
 * Number of groups in a table.
 *
 * @param t
 *   The table. Must not be NULL.
 * @return
 *   0..MCFAN_MAX_GROUPS.
 */
unsigned int mcfan_group_table_count(const struct mcfan_group_table *t);

/**
 * Entry at a position of a table.
 *
 * @param t
 *   The table. Must not be NULL.
 * @param pos
 *   0..mcfan_group_table_count(t) - 1.
 * @return
 *   The entry, or NULL if pos is out of range.
 */
const struct mcfan_group_entry *mcfan_group_table_entry(const struct mcfan_group_table *t,
							 unsigned int pos);

/**
 * Find the entry for a key: first the exact address and port, then the
 * address with any port.
 *
 * @param t
 *   The table. Must not be NULL.
 * @param key
 *   The key as returned by the classifier (udp_port set). Must not be NULL.
 * @return
 *   The entry, or NULL if the group is not in the table.
 */
const struct mcfan_group_entry *mcfan_group_table_lookup(const struct mcfan_group_table *t,
							  const struct mcfan_flow_key *key);

/**
 * Look up a burst of keys (as mcfan_group_table_lookup(), in bulk).
 *
 * @param t
 *   The table. Must not be NULL.
 * @param keys
 *   Array of n key pointers. Must not be NULL.
 * @param n
 *   Keys, 0 or more (callers pass up to 64 at a time, RTE_HASH_LOOKUP_BULK_MAX).
 * @param out
 *   Receives n entry pointers, NULL where the group is unknown.
 */
void mcfan_group_table_lookup_bulk(const struct mcfan_group_table *t,
				   const struct mcfan_flow_key **keys, unsigned int n,
				   const struct mcfan_group_entry **out);

/**
 * The entry of a group: its exact key (address and port; port 0 = every port) among
 * entries[0..n-1]. Linear; control side (a join, a leave, a console answer).
 *
 * @param entries
 *   The group entries, e.g. the application's joined groups.
 * @param n
 *   Their number.
 * @param key
 *   The group looked for.
 * @return
 *   Its index (0..n-1), or -1 when it is not there.
 */
int mcfan_group_entry_find(const struct mcfan_group_entry *entries, unsigned int n,
			   const struct mcfan_flow_key *key);

/**
 * The message for a group that is not joined, naming a joined group of the same address
 * when there is one (e.g. the operator left out or mistyped the port): "WHAT: group G is
 * not joined (G:PORT is)", else "WHAT: group G is not joined".
 *
 * @param entries, n
 *   The joined groups (the caller keeps them from changing while this reads them).
 * @param what
 *   The command, for the message's start.
 * @param key
 *   The group asked for. Must not be NULL.
 * @param msg, len
 *   Receives the message.
 * @return
 *   -ENOENT.
 */
int mcfan_group_not_joined(const struct mcfan_group_entry *entries, unsigned int n,
			   const char *what, const struct mcfan_flow_key *key, char *msg,
			   size_t len);

#endif /* MCFAN_GROUP_H */
