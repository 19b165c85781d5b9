/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_IGMP_SSM_H
#define MCFAN_IGMP_SSM_H

/**
 * @file
 * Source-specific joins in a group list (docs/igmp.md): an item `GROUP[:PORT]@SOURCE`,
 * several sources joined by `+` (`232.1.1.1:5000@198.18.0.1+198.18.0.3`), an IPv6 source
 * in brackets (`[ff3e::1]:5000@[fe80::1]`). The group part is any item of the group syntax
 * (mcfan_group.h, ranges too); the host joins such a group in INCLUDE mode with these
 * sources (IGMPv3 RFC 3376, MLDv2 RFC 3810); a group without `@` is joined from any source.
 * The data path does not filter by source: the switch does.
 */

#include <stddef.h>
#include <stdint.h>

#include "mcfan_classify.h"

/** Most (group, source) pairs one list holds. */
#define MCFAN_IGMP_SSM_MAX 256

/** One source of one group. */
struct mcfan_igmp_ssm {
	struct mcfan_flow_key key; /**< The group (address and port) as joined. */
	uint8_t source[16];        /**< A source address of the group's family (IPv4 in 0..3). */
};

/**
 * Split the sources out of a group list.
 *
 * @param text
 *   The list, NUL-terminated. Must not be NULL.
 * @param groups_out
 *   Receives the list without the `@...` parts, for mcfan_group_parse_list().
 * @param out_len
 *   Size of groups_out, bytes (strlen(text) + 1 always suffices).
 * @param ssm
 *   Receives the (group, source) pairs, every group of a range with every source.
 * @param max
 *   Room in ssm.
 * @param n_ssm
 *   Receives the number of pairs (0 for a list without `@`).
 * @param err
 *   Buffer for a message that quotes the bad part; may be NULL.
 * @param err_len
 *   Size of err, bytes.
 * @return
 *   0; -EINVAL for an empty source, a source that is not a unicast address of the group's
 *   family, a source named twice for one group ("duplicate source S in group G"), a group
 *   given sources in two items ("G@S1,G@S2": its sources go in one item, joined by '+'), a
 *   bad group part; -E2BIG for more than max pairs; -ENOSPC if groups_out is too small.
 */
int mcfan_igmp_ssm_split(const char *text, char *groups_out, size_t out_len,
			 struct mcfan_igmp_ssm *ssm, unsigned int max, unsigned int *n_ssm,
			 char *err, size_t err_len);

/**
 * The sources of one group among (group, source) pairs, written as a group list names them:
 * `+` between them, an IPv6 source in brackets ("198.18.0.1+198.18.0.3", "[fe80::1]").
 *
 * @param ssm
 *   The pairs; may be NULL when n is 0.
 * @param n
 *   Entries of ssm.
 * @param key
 *   The group (address and UDP port, as joined).
 * @param buf
 *   Receives the text, "" when no pair names key (a group joined from any source). Must
 *   not be NULL.
 * @param len
 *   Size of buf, bytes, at least 1; a longer text is cut.
 * @return
 *   The number of sources of key.
 */
unsigned int mcfan_igmp_ssm_format(const struct mcfan_igmp_ssm *ssm, unsigned int n,
				   const struct mcfan_flow_key *key, char *buf, size_t len);

/**
 * Check the (group, source) pairs of the groups joined together (all of a run: the start's
 * and every later join's): at most MCFAN_IGMP_MAX_SOURCES distinct sources per group
 * address (over all its UDP ports; the host joins their union), and a mode that can send
 * sources: IGMPv3 for an IPv4 group (--igmp auto or v3, not v2 or off), MLDv2 for an IPv6
 * one (--mld auto or v2, not v1 or off).
 *
 * @param ssm
 *   The pairs; may be NULL when n is 0.
 * @param n
 *   Entries of ssm.
 * @param igmp_mode
 *   enum mcfan_igmp_mode of IGMP (mcfan_igmp_host.h).
 * @param mld_mode
 *   enum mcfan_igmp_mode of MLD.
 * @param err
 *   Buffer for a message that names the group and the limit or the mode; may be NULL.
 * @param err_len
 *   Size of err, bytes.
 * @return
 *   0; -E2BIG for a group with more than MCFAN_IGMP_MAX_SOURCES sources; -ENOTSUP for a
 *   source-specific group whose protocol is off or pinned to a version without sources.
 */
int mcfan_igmp_ssm_check(const struct mcfan_igmp_ssm *ssm, unsigned int n, int igmp_mode,
			 int mld_mode, char *err, size_t err_len);

#endif /* MCFAN_IGMP_SSM_H */
