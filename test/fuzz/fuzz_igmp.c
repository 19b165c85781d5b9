/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the IGMP/MLD frame parser (mcfan_igmp_parse(), lib/igmp) on one frame, and
 * a valid query fed to a host state machine (mcfan_igmp_host.h).
 *
 * Checks: the answer is one of the named reasons; nothing past the frame is read (the frame
 * is a heap copy of exactly its size, for the sanitizers); a valid query's fields are in
 * range; every message the host then sends builds to a frame that parses back as a report
 * or leave of "another host" (not_for_us) with correct checksums.
 */

#include <stdlib.h>
#include <string.h>

#include "mcfan_igmp.h"
#include "mcfan_igmp_host.h"
#include "fuzz.h"

#define FRAME_MAX 4096
#define POLLS_MAX 64

static void
answer(const struct mcfan_igmp_msg *q)
{
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 };
	static const uint8_t src4[16] = { 198, 18, 0, 2 };
	static const uint8_t src6[16] = { 0xfe, 0x80, [15] = 2 };
	uint8_t frame[MCFAN_IGMP_FRAME_MAX];
	struct mcfan_igmp_host h;
	struct mcfan_igmp_send s;
	struct mcfan_igmp_msg back;
	uint8_t group[16];
	unsigned int i;
	uint64_t t;
	int len;

	if (mcfan_igmp_host_init(&h, q->proto, MCFAN_IGMP_MODE_AUTO, 4, 1) != 0)
		return;
	/* a member of the queried group (or of a fixed one for a general query) */
	memcpy(group, q->group, 16);
	if (group[0] == 0) {
		memset(group, 0, sizeof(group));
		group[0] = q->proto == MCFAN_IGMP_PROTO_MLD ? 0xff : 239;
		group[1] = q->proto == MCFAN_IGMP_PROTO_MLD ? 0x3e : 1;
		group[15] = 1;
		group[3] = 1;
	}
	FUZZ_CHECK(mcfan_igmp_host_join(&h, group, NULL, 0, 0) == 0, "join");
	mcfan_igmp_host_query(&h, q, 0);
	for (i = 0, t = 0; i < POLLS_MAX && t <= (uint64_t)q->max_resp_ms + 20000; t += 500) {
		while (i < POLLS_MAX && mcfan_igmp_host_poll(&h, t, &s) == 1) {
			i++;
			len = mcfan_igmp_build(&s, mac, q->proto == MCFAN_IGMP_PROTO_MLD ? src6 : src4,
					       frame, sizeof(frame), NULL);
			FUZZ_CHECK(len > 0, "build %s: %d", mcfan_igmp_send_name(s.kind), len);
			FUZZ_CHECK(mcfan_igmp_parse(frame, (uint32_t)len, &back) ==
				   MCFAN_IGMP_NOT_FOR_US, "%s does not parse back",
				   mcfan_igmp_send_name(s.kind));
		}
	}
	mcfan_igmp_host_free(&h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcfan_igmp_msg m;
	enum mcfan_igmp_invalid r;
	uint8_t *copy;

	if (size > FRAME_MAX)
		return 0;
	copy = malloc(size > 0 ? size : 1);
	if (copy == NULL)
		return 0;
	if (size > 0)
		memcpy(copy, data, size);
	r = mcfan_igmp_parse(copy, (uint32_t)size, &m);
	FUZZ_CHECK((unsigned int)r < MCFAN_IGMP_INVALID_MAX, "reason %d", r);
	FUZZ_CHECK(m.proto == MCFAN_IGMP_PROTO_IGMP || m.proto == MCFAN_IGMP_PROTO_MLD,
		   "proto %u", m.proto);
	if (r == MCFAN_IGMP_VALID) {
		FUZZ_CHECK(m.type == MCFAN_IGMP_MSG_QUERY, "valid but type %u", m.type);
		FUZZ_CHECK(m.version >= 1 && m.version <= 3 && m.qrv <= 7 &&
			   m.n_src_kept <= MCFAN_IGMP_MAX_SOURCES && m.n_src_kept <= m.n_src,
			   "fields: version %u qrv %u kept %u of %u", m.version, m.qrv,
			   m.n_src_kept, m.n_src);
		answer(&m);
	}
	free(copy);
	return 0;
}
