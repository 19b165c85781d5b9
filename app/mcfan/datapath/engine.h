/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_DATAPATH_ENGINE_H
#define MCFAN_DATAPATH_ENGINE_H

/*
 * Engines: what a data lcore does with its frames, the way testpmd's forwarding modes
 * (struct fwd_engine, iofwd.c) do it. A data lcore runs an RX-side engine if it has the RX
 * role (it polls its ports and hands the frames on), a worker-side engine if it has the
 * worker role (it takes the copies from its rings), both on a run-to-completion lcore. The
 * lcore loop (datapath/lcore.c) calls them and knows nothing of what they do.
 *
 * Adding an engine is one new file in datapath/ that defines a struct mcfan_engine and
 * registers it at its bottom with MCFAN_ENGINE_REGISTER(), plus the file's line in
 * app/mcfan/meson.build; it is then chosen with --rx-engine NAME or --worker-engine NAME
 * (params.c looks names up here, --help lists them). Per-lcore state of an RX engine goes in
 * the lcore's rx_engine_priv: its start sets it, its stop frees it. A worker engine runs as
 * instances (NAME + ARGS: --worker-engine is instance 0, --group-engine adds more): its
 * configure gives each (lcore, instance) its own state, handed back to deliver, counters
 * and release.
 *
 * Writer/reader protocol: the registry is written only by the constructors (before main())
 * and read afterwards; an engine struct is constant; the engine an lcore runs
 * (mcfan_lcore rx_engine/worker_engine) is set by the main lcore before launch and only read
 * afterwards.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "mcfan.h"

/* MCFAN_ENGINE_NAME_MAX (longest name) is in mcfan.h: the configuration holds names. */
/** Engines a side can register. */
#define MCFAN_ENGINES_MAX 16

/**
 * A worker lcore's worker_engine_sel word (mcfan.h) at or above this value: every copy of
 * the lcore goes to engine instance (value - MCFAN_ENGINE_SEL_INST) (`set engine LCORE` to
 * an instance with set-up, control/engine.c). Below it: 0 = each copy to its group's
 * instance, else 1 + the registry index of an engine that needs no set-up.
 */
#define MCFAN_ENGINE_SEL_INST 0x10000u

/** The default engines: today's behaviour. */
#define MCFAN_RX_ENGINE_DEFAULT "fanout"
#define MCFAN_WORKER_ENGINE_DEFAULT "count"

/** Most counters an engine reports per lcore (struct mcfan_engine counters hook). */
#define MCFAN_ENGINE_COUNTERS_MAX 16

/**
 * One counter of an engine on one lcore. Copies a worker engine takes in (the worker's
 * frames) end as exactly one of its counters whose drop is false (delivered: sent, written)
 * or true (dropped, under that name: tx_full, pcap_full ...), so that
 * worker frames = sum(delivered) + sum(drops), exactly.
 */
struct mcfan_engine_counter {
	const char *name;  /**< [a-z0-9_], e.g. "tx_sent". */
	uint64_t value;    /**< Frames (or files, errors: see the engine's doc). */
	/** 1: a drop reason of copies; 0: copies delivered; 2: not a copy count (files,
	 * errors, bytes), outside the conservation. */
	uint8_t kind;
};

/** enum of struct mcfan_engine_counter kind. */
#define MCFAN_ENGINE_CTR_DELIVERED 0
#define MCFAN_ENGINE_CTR_DROP 1
#define MCFAN_ENGINE_CTR_INFO 2

/** Which half of a data lcore's work an engine does. */
enum mcfan_engine_side {
	MCFAN_ENGINE_RX = 0,   /**< Lcores with the RX role: poll ports, hand frames on. */
	MCFAN_ENGINE_WORKER,   /**< Lcores with the worker role: take copies from the rings. */
	MCFAN_ENGINE_SIDES     /**< Number of sides; not a side. */
};

/**
 * One engine. start, burst, deliver and stop run on the data lcore itself; an RX engine needs
 * burst, a worker engine deliver; start, stop and the optional ARGS hooks at the end (which
 * run on control threads) may be NULL. A worker engine's start and stop run once per lcore
 * whatever its number of instances.
 */
struct mcfan_engine {
	/** Name for --rx-engine/--worker-engine, the report and telemetry; [a-z0-9_-]. */
	const char *name;
	/** The side it serves. */
	enum mcfan_engine_side side;
	/** One line for --help. */
	const char *help;
	/**
	 * Before the lcore's loop (may be NULL). May log; must not block for long.
	 *
	 * @return
	 *   0, or a negative errno: the lcore then runs without this engine and asks the
	 *   application to stop.
	 */
	int (*start)(struct mcfan_app *app, struct mcfan_lcore *lc);
	/**
	 * RX side: one pass over the lcore's ports, at most one burst of at most burst frames
	 * from each (port, queue). The fast path: never blocks, allocates, prints or locks.
	 * Charges its own msacc states when ms_on (the input helpers below do the polling
	 * part). Worker side: NULL (the worker step, datapath/deliver.h, polls the rings and
	 * calls deliver).
	 *
	 * @param burst
	 *   Frames per input, 1..MCFAN_MAX_BURST.
	 * @param ms_on
	 *   Microstate accounting is on for this loop iteration.
	 * @return
	 *   Frames taken in; 0 = the pass found no work.
	 */
	unsigned int (*burst)(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int burst,
			      bool ms_on);
	/**
	 * Worker side (required there, NULL on the RX side): hand on a run of copies of one
	 * instance of this engine, on the worker lcore itself, after the worker step counted
	 * them per group (mcfan_worker_account()) and fed them to feed quality. Takes
	 * ownership of every copy: each ends under exactly one of the instance's counters
	 * (delivered, or a drop reason) or, for an engine without counters (count), is simply
	 * freed; every mbuf reference is given up (to a PMD, a ring, or freed). The fast path:
	 * never blocks, allocates, prints or locks.
	 *
	 * @param priv
	 *   The instance's state on this lcore (what its configure stored; NULL without
	 *   configure, e.g. count, or under `set engine LCORE`).
	 * @param pkts
	 *   The copies, in the order they were dequeued.
	 * @param n
	 *   1..MCFAN_MAX_BURST.
	 */
	void (*deliver)(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv,
			struct rte_mbuf **pkts, uint16_t n);
	/**
	 * Worker side: true if deliver only reads the copies and keeps none (count, readers): it then
	 * neither frees them nor hands them on, and the worker step gives them up after it
	 * returns, local copies with their shared reference's cheap release
	 * (lib/fanout/mcfan_fanout.h "Local references"). False (the default): deliver takes
	 * ownership as said above, and local copies are made references of their own first.
	 */
	bool borrows;
	/**
	 * Worker side, optional (NULL: none): once per pass of the worker step, on the worker
	 * lcore, after the rings were polled, whether the pass found copies or not, for every
	 * instance of this engine on the lcore (also while `set engine LCORE` runs another
	 * engine): work an engine deferred (readers: coalesced reader wakes) is done here. The
	 * fast path: never blocks, allocates, prints or locks.
	 *
	 * @param priv
	 *   The instance's state on this lcore, as for deliver.
	 */
	void (*pass)(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv);
	/** After the lcore's loop (may be NULL): every input of this side is done. */
	void (*stop)(struct mcfan_app *app, struct mcfan_lcore *lc);
	/* ---- optional hooks for engines with ARGS (--worker-engine NAME:ARGS); an engine
	 * without them (count) takes no ARGS and keeps every hook below NULL ---- */
	/**
	 * Check ARGS before rte_eal_init() (params.c): syntax and ranges only, nothing
	 * allocated, nothing kept. NULL: the engine takes no ARGS (any ARGS is refused).
	 *
	 * @param args
	 *   The text after "NAME:", "" when none was given; at most MCFAN_ENGINE_ARGS_MAX bytes.
	 * @param err
	 *   Receives one line naming the offending token (no "--worker-engine: " prefix).
	 * @return
	 *   0, or -EINVAL (err filled).
	 */
	int (*args_check)(const char *args, char *err, size_t err_len);
	/**
	 * Set one instance of the engine up for one lcore: on the main lcore after
	 * rte_eal_init() and the lcore roles, before the ports are configured and before
	 * launch (control/setup.c), once per (worker lcore, instance of this engine). May
	 * allocate (mempools, rings: names must include inst) and write the app's
	 * ports[].nb_txq_workers (TX queues asked of a port). NULL: nothing to do.
	 *
	 * @param inst
	 *   The instance index, 0..MCFAN_ENGINE_INST_MAX-1 (app->inst_engine[inst] is this engine).
	 * @param args
	 *   The ARGS that args_check accepted ("" for none).
	 * @param priv
	 *   Receives the instance's state on this lcore (given to deliver, release, counters).
	 * @return
	 *   0, or a negative errno after printing one line on stderr that names the token
	 *   (-EINVAL: bad input, exit 2; others: the start fails).
	 */
	int (*configure)(struct mcfan_app *app, struct mcfan_lcore *lc, unsigned int inst,
			 const char *args, void **priv);
	/**
	 * Free what configure allocated: on the main lcore after the data lcores returned and
	 * the ports were closed (control/setup.c's free). NULL: nothing to free.
	 *
	 * @param priv
	 *   What configure stored (may be NULL: configure failed or never ran).
	 */
	void (*release)(struct mcfan_app *app, struct mcfan_lcore *lc, void *priv);
	/**
	 * The counters of one instance of the engine on this lcore, for the report, console
	 * and telemetry: any control thread, while the lcore runs or after (each a value the
	 * lcore stored; the engine reads them consistently, rte_seqcount). NULL: none.
	 *
	 * @param priv
	 *   What configure stored for the instance on lc (NULL: return 0).
	 * @param out
	 *   Receives at most max counters, names constant for the life of the process.
	 * @return
	 *   Counters written to out.
	 */
	unsigned int (*counters)(const struct mcfan_app *app, const struct mcfan_lcore *lc,
				 const void *priv, struct mcfan_engine_counter *out,
				 unsigned int max);
	/**
	 * Whether two instances of the engine with ARGS a and b (different texts, both
	 * accepted by args_check) would write into the same place and collide there (pcap:
	 * one directory, the same file names): before rte_eal_init() (group_engine.c), which
	 * then refuses the run (exit 2). Nothing allocated, nothing kept. NULL: two instances
	 * never collide (tx: each output has its own TX queue on each worker lcore).
	 *
	 * @param place
	 *   Receives the place both would write, for the message (when true is returned).
	 * @return
	 *   true if they collide.
	 */
	bool (*args_collide)(const char *a, const char *b, char *place, size_t place_len);
	/**
	 * Check ARGS (accepted by args_check) against the ports EAL probed, as configure would
	 * refuse them at start, without setting anything up: on the control side after
	 * rte_eal_init() (control/engine.c: set engine and join ... engine name no start that
	 * would be refused). Nothing allocated, nothing kept. NULL: nothing to check beyond
	 * args_check.
	 *
	 * @param app
	 *   The application; its options (cfg: --rx-ports) are read, nothing written.
	 * @param args
	 *   ARGS that args_check accepted.
	 * @param err
	 *   Receives one line naming the offending token (no "--worker-engine: " prefix).
	 * @return
	 *   0, or -ENODEV (no such probed port) or -EINVAL (err filled).
	 */
	int (*args_check_probed)(const struct mcfan_app *app, const char *args, char *err,
				 size_t err_len);
	/**
	 * Whether ARGS a and b (different texts, both accepted by args_check and
	 * args_check_probed) name the same output once the ports are probed (tx: one port,
	 * given by id or by name, with the same rewrites and udp-csum): on the control side
	 * after rte_eal_init() (control/engine.c: set engine and join ... engine name the
	 * instance a text spelled otherwise means). Nothing allocated, nothing kept. NULL: only
	 * the same text is the same output.
	 *
	 * @param what
	 *   Receives where both send, for the message (when true is returned).
	 * @return
	 *   true if they are the same output.
	 */
	bool (*args_same_probed)(const char *a, const char *b, char *what, size_t what_len);
	/**
	 * Whether an instance with ARGS (accepted by args_check) can hand on any copy of group
	 * key: before rte_eal_init() for the groups of --groups (group_engine.c: each on its
	 * instance) and on the control side for the groups set engine GROUPS moves there or a
	 * join puts there (mcfan_engine_inst_groups_check()). Nothing allocated, nothing kept.
	 * NULL: every group can be handed on.
	 *
	 * @param err
	 *   Receives one line naming the ARGS and the group (no "--worker-engine: " prefix).
	 * @return
	 *   0, or -EAFNOSUPPORT (err filled: every copy of the group would be dropped).
	 */
	int (*args_group_check)(const char *args, const struct mcfan_flow_key *key, char *err,
				size_t err_len);
};

/**
 * Add an engine to the registry; from a constructor (MCFAN_ENGINE_REGISTER()).
 *
 * @param e
 *   The engine; must stay valid for the life of the process (a static const).
 * @return
 *   0; -EINVAL (NULL, no burst (RX) or deliver (worker), bad side or name), -EEXIST (the
 *   side has an engine of that name), -ENOSPC (MCFAN_ENGINES_MAX engines on that side).
 */
int mcfan_engine_register(const struct mcfan_engine *e);

/**
 * Refuse groups that engine instance inst cannot hand on a copy of (its args_group_check:
 * tx with dst-ip and an IPv6 group): set engine GROUPS, join. Control side.
 *
 * @param app
 *   The application, with its engine instances resolved (app->inst_engine). Not NULL.
 * @param inst
 *   The instance, below app->n_inst.
 * @param keys
 *   The groups; n of them.
 * @param what
 *   The message's first word ("set engine", "join"). Not NULL.
 * @param msg
 *   Receives "WHAT: NAME: why" of the first group refused. Not NULL.
 * @return
 *   0, or the hook's negative errno (msg filled).
 */
int mcfan_engine_inst_groups_check(const struct mcfan_app *app, unsigned int inst,
				   const struct mcfan_flow_key *keys, unsigned int n,
				   const char *what, char *msg, size_t len);

/**
 * Find an engine by name. Any thread, any time (also before rte_eal_init()).
 *
 * @return
 *   The engine, or NULL if the side has none of that name (or side/name is bad).
 */
const struct mcfan_engine *mcfan_engine_find(enum mcfan_engine_side side, const char *name);

/**
 * The names of a side's engines, ", "-separated, in registration order, for messages.
 *
 * @return
 *   buf (cut to len - 1 characters if too small; len must be >= 1).
 */
const char *mcfan_engine_names(enum mcfan_engine_side side, char *buf, size_t len);

/**
 * The i-th engine of a side, in registration order (for --help).
 *
 * @return
 *   The engine, or NULL when i is past the last one.
 */
const struct mcfan_engine *mcfan_engine_at(enum mcfan_engine_side side, unsigned int i);

/**
 * The engine a worker lcore's worker_engine_sel word names (mcfan.h; `set engine LCORE`).
 *
 * @param sel
 *   0 (each copy to its group's instance), 1 + a registered worker engine's index, or
 *   MCFAN_ENGINE_SEL_INST + an instance of this run.
 * @param inst
 *   Receives the instance of an MCFAN_ENGINE_SEL_INST word, else -1.
 * @return
 *   The engine; NULL for 0 or a word that names nothing.
 */
const struct mcfan_engine *mcfan_engine_of_sel(const struct mcfan_app *app, uint32_t sel,
					       int *inst);

/**
 * "rx" or "worker".
 *
 * @return
 *   A constant string: "rx", "worker" ("?" for a value that is no side).
 */
const char *mcfan_engine_side_name(enum mcfan_engine_side side);

/** The option that gave worker engine instance inst, for the messages of configure:
 * instance 0 is --worker-engine, the others come from --group-engine (datapath/engine.h's
 * instance table, app/mcfan/group_engine.c). */
#define MCFAN_ENGINE_OPTION(inst) ((inst) == 0 ? "--worker-engine" : "--group-engine")

/** Most comma-separated arguments one engine ARGS may hold (mcfan_engine_args_split()). */
#define MCFAN_ENGINE_ARGS_TOKENS 16

/**
 * Split engine ARGS ("FIRST[,KEY=VALUE]...") at its commas, for an engine's args_check and
 * configure: any thread, before or after rte_eal_init(); allocates nothing.
 *
 * Refused: an empty argument (",,", a leading or a trailing comma), a KEY (the text before
 * '=', or the whole argument when it has none) given twice after the first argument, more
 * than max arguments.
 *
 * @param buf
 *   A writable copy of ARGS, not empty; its commas become NULs and tok points into it.
 * @param tok
 *   Receives the arguments in order, tok[0] the first (PORT, DIR).
 * @param max
 *   Room of tok, 1..MCFAN_ENGINE_ARGS_TOKENS.
 * @param err
 *   Receives one line naming the offending argument (no "--worker-engine: NAME: " prefix).
 * @return
 *   The number of arguments (1..max), or -EINVAL (err filled).
 */
int mcfan_engine_args_split(char *buf, char **tok, unsigned int max, char *err, size_t err_len);

/** Register engine e (a struct mcfan_engine variable) before main(): one line at the bottom
 * of the engine's file. */
#define MCFAN_ENGINE_REGISTER(e) \
	RTE_INIT(mcfan_engine_register_ ## e) \
	{ \
		(void)mcfan_engine_register(&(e)); \
	}

/* ---- helpers every engine shares, so that the inputs are accounted the same way ---- */

/** Charge msacc state s up to now; reads the TSC only when accounting is on. */
static inline void
mcfan_engine_charge(struct mcfan_msacc *ms, bool ms_on, enum mcfan_ms_state s)
{
	if (ms_on)
		mcfan_msacc_add(ms, s, rte_rdtsc());
}

/**
 * Poll the lcore's (port, RX queue) pair i (lc->ports[i], lc->queues[i]) for at most burst
 * frames: counts them for the idle rate window and charges the poll (rx or poll_empty) when
 * ms_on. The frames' mbufs are the caller's.
 *
 * @param now
 *   Receives the TSC right after the poll.
 * @return
 *   Frames received into pkts.
 */
static inline uint16_t
mcfan_engine_rx_poll(struct mcfan_lcore *lc, unsigned int i, struct rte_mbuf **pkts,
		     unsigned int burst, bool ms_on, uint64_t *now)
{
	uint16_t n = rte_eth_rx_burst(lc->ports[i], lc->queues[i], pkts, (uint16_t)burst);

	*now = rte_rdtsc();
	lc->idle.rx[i].frames += n;
	/* one msacc write section per poll: the poll counted and its time charged */
	if (ms_on)
		mcfan_msacc_add_poll(&lc->ms, n == 0 ? MCFAN_MS_POLL_EMPTY : MCFAN_MS_RX, *now, n);
	return n;
}

/**
 * Dequeue at most burst copies from input ring r (from RX lcore r) of a worker lcore:
 * counts them for the idle rate window and charges the poll (dequeue or poll_empty) when
 * ms_on.
 *
 * @param avail
 *   Receives the copies left in the ring.
 * @param now
 *   Receives the TSC after a dequeue that found copies (unset otherwise).
 * @return
 *   Copies dequeued into pkts.
 */
static inline uint16_t
mcfan_engine_ring_poll(struct mcfan_lcore *lc, unsigned int r, struct rte_mbuf **pkts,
		       unsigned int burst, bool ms_on, unsigned int *avail, uint64_t *now)
{
	uint16_t n = (uint16_t)rte_ring_sc_dequeue_burst(lc->in_rings[r], (void **)pkts, burst,
							 avail);

	if (n == 0) {
		if (ms_on)
			mcfan_msacc_add_poll(&lc->ms, MCFAN_MS_POLL_EMPTY, rte_rdtsc(), 0);
		return 0;
	}
	*now = rte_rdtsc(); /* needed anyway: RX-to-dequeue latency */
	if (ms_on)
		mcfan_msacc_add_poll(&lc->ms, MCFAN_MS_DEQUEUE, *now, n);
	lc->idle.wk.frames += n;
	return n;
}

#endif /* MCFAN_DATAPATH_ENGINE_H */
