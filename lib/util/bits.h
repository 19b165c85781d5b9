/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_BITS_H
#define MCFAN_BITS_H

/**
 * @file
 * Bitmaps over arrays of uint64_t words: bit i lives in word i / 64 at
 * position i % 64. Used for sets of worker indexes (MCFAN_WORKER_WORDS words,
 * see mcfan_group.h), of lcores and of CPUs. The caller owns the array and
 * sizes it with MCFAN_BITS_WORDS(); no function checks an index against the
 * array's size, so every index must be below 64 times its number of words.
 * Not atomic: one writer, or a copy taken by a reader protocol of its own.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

/** Bits in one word of a bitmap. */
#define MCFAN_BITS_PER_WORD 64

/** Words needed for a bitmap of n bits. */
#define MCFAN_BITS_WORDS(n) (((n) + MCFAN_BITS_PER_WORD - 1) / MCFAN_BITS_PER_WORD)

/**
 * Set bit i.
 *
 * @param bits
 *   The bitmap. Must not be NULL.
 * @param i
 *   Bit index, below 64 times the bitmap's words.
 */
static inline void
mcfan_bits_set(uint64_t *bits, unsigned int i)
{
	bits[i / MCFAN_BITS_PER_WORD] |= UINT64_C(1) << (i % MCFAN_BITS_PER_WORD);
}

/**
 * Clear bit i.
 *
 * @param bits
 *   The bitmap. Must not be NULL.
 * @param i
 *   Bit index, below 64 times the bitmap's words.
 */
static inline void
mcfan_bits_clear(uint64_t *bits, unsigned int i)
{
	bits[i / MCFAN_BITS_PER_WORD] &= ~(UINT64_C(1) << (i % MCFAN_BITS_PER_WORD));
}

/**
 * Test bit i.
 *
 * @param bits
 *   The bitmap. Must not be NULL.
 * @param i
 *   Bit index, below 64 times the bitmap's words.
 * @return
 *   true if bit i is set.
 */
static inline bool
mcfan_bits_test(const uint64_t *bits, unsigned int i)
{
	return (bits[i / MCFAN_BITS_PER_WORD] >> (i % MCFAN_BITS_PER_WORD)) & 1;
}

/**
 * Count the set bits among the first n_bits bits.
 *
 * @param bits
 *   The bitmap. Must not be NULL.
 * @param n_bits
 *   How many bits to look at, from bit 0; bits from n_bits on are not counted.
 * @return
 *   0..n_bits.
 */
static inline unsigned int
mcfan_bits_count(const uint64_t *bits, unsigned int n_bits)
{
	unsigned int i, n = 0, full = n_bits / MCFAN_BITS_PER_WORD;
	unsigned int rest = n_bits % MCFAN_BITS_PER_WORD;

	for (i = 0; i < full; i++)
		n += (unsigned int)__builtin_popcountll(bits[i]);
	if (rest != 0)
		n += (unsigned int)__builtin_popcountll(bits[full] &
						       ((UINT64_C(1) << rest) - 1));
	return n;
}

/**
 * Find the first set bit at or after a position.
 *
 * @param bits
 *   The bitmap. Must not be NULL.
 * @param n_bits
 *   Bits in the bitmap that count; the search stops there.
 * @param from
 *   First index to look at (may be n_bits or more: nothing is found).
 * @return
 *   The index of the first set bit in from..n_bits-1, or n_bits if there is none.
 */
static inline unsigned int
mcfan_bits_next(const uint64_t *bits, unsigned int n_bits, unsigned int from)
{
	unsigned int i = from;
	uint64_t w;

	while (i < n_bits) {
		w = bits[i / MCFAN_BITS_PER_WORD] >> (i % MCFAN_BITS_PER_WORD);
		if (w != 0) {
			i += (unsigned int)__builtin_ctzll(w);
			return RTE_MIN(i, n_bits);
		}
		i = (i / MCFAN_BITS_PER_WORD + 1) * MCFAN_BITS_PER_WORD;
	}
	return n_bits;
}

/**
 * Loop over the set bits of a bitmap, in increasing order.
 *
 * @param i
 *   An unsigned int variable; holds each set bit's index in turn.
 * @param bits
 *   The bitmap (const uint64_t *).
 * @param n_bits
 *   Bits that count: indexes n_bits and above are never visited.
 */
#define MCFAN_BITS_FOREACH(i, bits, n_bits) \
	for ((i) = mcfan_bits_next((bits), (n_bits), 0); (i) < (n_bits); \
	     (i) = mcfan_bits_next((bits), (n_bits), (i) + 1))

#endif /* MCFAN_BITS_H */
