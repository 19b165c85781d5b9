/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_ATOMIC_H
#define MCFAN_ATOMIC_H

/**
 * @file
 * Shared words that change at run time: each a C11 atomic wrapped in a struct
 * of its own, so that a plain read or write (x = w, w = 8, w++) does not
 * compile. They are read and written only with the helpers below, each with
 * an explicit memory order; nothing outside this file touches .val. Every
 * helper is one C11 atomic operation on the word (a relaxed load stays one
 * plain load on x86), so the data path may use them in its fast path. The
 * writer/reader protocol of each word is stated where the word is defined
 * (struct mcfan_live and struct mcfan_app in app/mcfan/mcfan.h, struct
 * mcfan_idle in lib/idle/mcfan_idle.h).
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/** A shared 32-bit number. Zero-initialised storage holds 0. */
struct mcfan_atomic_u32 {
	_Atomic uint32_t val; /**< Never touched directly: use mcfan_atomic_u32_*(). */
};

/** A shared 64-bit number (a counter that never wraps). Zero-initialised storage holds 0. */
struct mcfan_atomic_u64 {
	_Atomic uint64_t val; /**< Never touched directly: use mcfan_atomic_u64_*(). */
};

/** A shared yes/no. Zero-initialised storage holds false. */
struct mcfan_atomic_flag {
	_Atomic bool val; /**< Never touched directly: use mcfan_atomic_flag_*(). */
};

/**
 * Load a shared number.
 *
 * @param w
 *   The word; not NULL.
 * @param mo
 *   C11 memory order of the load (relaxed, acquire or seq_cst).
 * @return
 *   Its value.
 */
static inline uint32_t
mcfan_atomic_u32_load(const struct mcfan_atomic_u32 *w, memory_order mo)
{
	return atomic_load_explicit(&w->val, mo);
}

/**
 * Store into a shared number.
 *
 * @param w
 *   The word; not NULL.
 * @param v
 *   The new value.
 * @param mo
 *   C11 memory order of the store (relaxed, release or seq_cst).
 */
static inline void
mcfan_atomic_u32_store(struct mcfan_atomic_u32 *w, uint32_t v, memory_order mo)
{
	atomic_store_explicit(&w->val, v, mo);
}

/**
 * Store into a shared number and return what it held, in one atomic step.
 *
 * @param w
 *   The word; not NULL.
 * @param v
 *   The new value.
 * @param mo
 *   C11 memory order of the exchange.
 * @return
 *   The value it replaced.
 */
static inline uint32_t
mcfan_atomic_u32_exchange(struct mcfan_atomic_u32 *w, uint32_t v, memory_order mo)
{
	return atomic_exchange_explicit(&w->val, v, mo);
}

/**
 * Add to a shared number (wrapping modulo 2^32).
 *
 * @param w
 *   The word; not NULL.
 * @param v
 *   What to add.
 * @param mo
 *   C11 memory order of the read-modify-write.
 * @return
 *   The value before the addition.
 */
static inline uint32_t
mcfan_atomic_u32_add(struct mcfan_atomic_u32 *w, uint32_t v, memory_order mo)
{
	return atomic_fetch_add_explicit(&w->val, v, mo);
}

/**
 * Subtract from a shared number (wrapping modulo 2^32).
 *
 * @param w
 *   The word; not NULL.
 * @param v
 *   What to subtract.
 * @param mo
 *   C11 memory order of the read-modify-write.
 * @return
 *   The value before the subtraction.
 */
static inline uint32_t
mcfan_atomic_u32_sub(struct mcfan_atomic_u32 *w, uint32_t v, memory_order mo)
{
	return atomic_fetch_sub_explicit(&w->val, v, mo);
}

/**
 * Load a shared 64-bit number: as mcfan_atomic_u32_load(), for struct mcfan_atomic_u64
 * (one plain load on x86-64 when relaxed).
 *
 * @return
 *   Its value.
 */
static inline uint64_t
mcfan_atomic_u64_load(const struct mcfan_atomic_u64 *w, memory_order mo)
{
	return atomic_load_explicit(&w->val, mo);
}

/** Store v into a shared 64-bit number: as mcfan_atomic_u32_store(), for 64 bits. */
static inline void
mcfan_atomic_u64_store(struct mcfan_atomic_u64 *w, uint64_t v, memory_order mo)
{
	atomic_store_explicit(&w->val, v, mo);
}

/**
 * Add v to a shared 64-bit number: as mcfan_atomic_u32_add(), for 64 bits.
 *
 * @return
 *   The value before the addition.
 */
static inline uint64_t
mcfan_atomic_u64_add(struct mcfan_atomic_u64 *w, uint64_t v, memory_order mo)
{
	return atomic_fetch_add_explicit(&w->val, v, mo);
}

/**
 * Load a shared flag: as mcfan_atomic_u32_load(), for struct mcfan_atomic_flag.
 *
 * @return
 *   Its value.
 */
static inline bool
mcfan_atomic_flag_load(const struct mcfan_atomic_flag *w, memory_order mo)
{
	return atomic_load_explicit(&w->val, mo);
}

/**
 * Store v into a shared flag: as mcfan_atomic_u32_store(), for struct mcfan_atomic_flag.
 * Lock-free, so async-signal-safe (a signal handler may call it).
 */
static inline void
mcfan_atomic_flag_store(struct mcfan_atomic_flag *w, bool v, memory_order mo)
{
	atomic_store_explicit(&w->val, v, mo);
}

#endif /* MCFAN_ATOMIC_H */
