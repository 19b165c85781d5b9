/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

/*
 * Fuzz target: the frame classifier on one frame.
 *
 * Input: three control bytes, then the frame. Byte 0 bit 0 is the VLAN-stripped flag;
 * bytes 1 and 2 choose where the frame is cut into up to three mbuf segments (each in a
 * heap buffer of exactly its size, so a sanitizer build catches any read past a segment).
 * Checks: the answer is a reason mcfan_classify() may give; a delivered frame has a clean
 * key; the mbuf chain gets the same answer and key as the contiguous bytes (the
 * segmentation never changes the answer); the MAC check reads only what it is given.
 */

#include <stdbool.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mcfan_classify.h"
#include "fuzz.h"

#define CTL_LEN 3
#define MAX_SEGS 3

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf segs[MAX_SEGS];
	uint8_t *bufs[MAX_SEGS] = { NULL };
	struct mcfan_flow_key key, mkey;
	enum mcfan_drop r, mr;
	const uint8_t *frame;
	uint32_t len, cut[MAX_SEGS + 1];
	unsigned int i, n;
	bool stripped;

	if (size < CTL_LEN || size - CTL_LEN > UINT16_MAX)
		return 0;
	stripped = (data[0] & 1) != 0;
	frame = data + CTL_LEN;
	len = (uint32_t)(size - CTL_LEN);

	memset(&key, 0xa5, sizeof(key));
	r = mcfan_classify(frame, len, stripped, &key);
	FUZZ_CHECK(r < MCFAN_DROP_MAX && r != MCFAN_DROP_UNKNOWN_GROUP &&
		   r != MCFAN_DROP_RING_FULL, "reason %d", (int)r);
	FUZZ_CHECK(strcmp(mcfan_drop_name(r), "invalid") != 0, "reason %d has no name", (int)r);
	if (r == MCFAN_DROP_NONE) {
		FUZZ_CHECK(key.family == MCFAN_FAMILY_IPV4 || key.family == MCFAN_FAMILY_IPV6,
			   "family %u", key.family);
		FUZZ_CHECK(key.pad == 0, "pad %u", key.pad);
		if (key.family == MCFAN_FAMILY_IPV4)
			FUZZ_CHECK((key.addr[0] & 0xf0) == 0xe0, "not an IPv4 group");
		else
			FUZZ_CHECK(key.addr[0] == 0xff, "not an IPv6 group");
		(void)mcfan_classify_mac_mismatch(frame, len, &key);
	}

	/* The same bytes as a chain of segments cut at data[1] / 256 and data[2] / 256. */
	cut[0] = 0;
	cut[1] = (uint32_t)((uint64_t)len * data[1] / 256);
	cut[2] = cut[1] + (uint32_t)((uint64_t)(len - cut[1]) * data[2] / 256);
	cut[3] = len;
	memset(segs, 0, sizeof(segs));
	n = 0;
	for (i = 0; i < MAX_SEGS; i++) {
		uint32_t seg_len = cut[i + 1] - cut[i];

		/* an empty segment only at the head (len 0), as a PMD never builds others */
		if (seg_len == 0 && !(i == 0 && len == 0))
			continue;
		bufs[n] = malloc(seg_len > 0 ? seg_len : 1);
		FUZZ_CHECK(bufs[n] != NULL, "out of memory");
		memcpy(bufs[n], frame + cut[i], seg_len);
		segs[n].buf_addr = bufs[n];
		segs[n].buf_len = (uint16_t)seg_len;
		segs[n].data_off = 0;
		segs[n].data_len = (uint16_t)seg_len;
		segs[n].refcnt = 1;
		if (n > 0)
			segs[n - 1].next = &segs[n];
		n++;
	}
	segs[0].nb_segs = (uint16_t)n;
	segs[0].pkt_len = len;
	if (stripped)
		segs[0].ol_flags = RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_VLAN;
	memset(&mkey, 0x5a, sizeof(mkey));
	mr = mcfan_classify_mbuf(&segs[0], &mkey);
	FUZZ_CHECK(mr == r, "%u segments (cuts %u, %u of %u): %s, contiguous %s", n, cut[1],
		   cut[2], len, mcfan_drop_name(mr), mcfan_drop_name(r));
	if (r == MCFAN_DROP_NONE)
		FUZZ_CHECK(memcmp(&key, &mkey, sizeof(key)) == 0, "%u segments: key differs", n);
	for (i = 0; i < n; i++)
		free(bufs[i]);
	return 0;
}
