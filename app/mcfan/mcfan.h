/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_H
#define MCFAN_APP_H

/*
 * The application's shared state.
 *
 * One instance (mcfan_app in main.c). Writer/reader protocol:
 *  - cfg (the parsed configuration) is written by params.c and placement
 *    before the data lcores are launched and never changes afterwards;
 *    lcores[], ports[], rings and pools are written by the main lcore before
 *    the data lcores are launched and only read afterwards;
 *  - live (struct mcfan_live below) holds everything that changes at run time:
 *    quit, phase, burst, RX paused, msacc on/off, the fan-out of later joins,
 *    the idle policies shown by show config and the published group table;
 *    each field says who writes and who reads it, and each is a C11 atomic that
 *    only the mcfan_live_*() helpers below touch, with an explicit memory order;
 *  - the published group table (live.groups) is replaced by the control
 *    thread only (control/groups.c), with an atomic exchange, and freed after an
 *    RCU (QSBR) grace period; RX lcores load it with acquire and report
 *    quiescent states;
 *  - group_entries, n_group_entries and stats_base belong to the control
 *    side and are guarded by ctl_lock, a spinlock that only control threads
 *    (main lcore, telemetry thread) take, never a data lcore. The one writer
 *    at a time (control/groups.c's actions, serialised among themselves) builds a new
 *    entries array, publishes the matching table (RCU above), then swaps
 *    group_entries/n_group_entries under ctl_lock and frees the old array.
 *    Readers (stats.c) copy what they need under ctl_lock and never keep a
 *    pointer into group_entries past the unlock; n_group_entries read without
 *    the lock is only a hint for sizing (pass it as the max of a read);
 *  - each data lcore is the single writer of its own stats (seqlocks, see
 *    lib/fanout/mcfan_fanout.h and lib/msacc/mcfan_msacc.h);
 *  - lcores[].idle (its policy too: `set idle` writes it) and idle_sleepers: the idle
 *    policies' protocol (lib/idle/mcfan_idle.h, datapath/idle.c); rx_done_count: the stop
 *    order of the data lcores. Every one of these words that another thread changes at
 *    run time is a wrapped C11 atomic (lib/util/mcfan_atomic.h), its protocol at its field;
 *  - lcores[].rx_engine/worker_engine: set by the main lcore before launch
 *    (control/setup.c), read-only afterwards (datapath/engine.h).
 */

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "bits.h"
#include "mcfan_atomic.h"
#include "mcfan_classify.h"
#include "mcfan_fanout.h"
#include "mcfan_group.h"
#include "mcfan_msacc.h"
#include "mcfan_msacc_window.h"
#include "mcfan_msacc_writer.h"
#include "mcfan_idle.h"
#include "mcfan_listen.h"
#include "mcfan_igmp_ssm.h"
#include "mcfan_overrun.h"
#include "outfile.h"

/* Exit status for bad usage (options, config file), as sysexits' EX_USAGE-like tools use 2. */
#define MCFAN_EXIT_USAGE 2

#define MCFAN_DEFAULT_RING_SIZE 1024
#define MCFAN_DEFAULT_BURST 32
#define MCFAN_MIN_MBUFS 8191     /* the smallest pool mcfan creates by default */
/* --mbuf-size: the data room of an mbuf of the RX pool after its RTE_PKTMBUF_HEADROOM,
 * bytes: DPDK's default up to what rte_pktmbuf_pool_create()'s uint16_t data room takes */
#define MCFAN_MBUF_SIZE_DEFAULT RTE_MBUF_DEFAULT_DATAROOM
#define MCFAN_MBUF_SIZE_MIN RTE_MBUF_DEFAULT_DATAROOM
#define MCFAN_MBUF_SIZE_MAX (UINT16_MAX - RTE_PKTMBUF_HEADROOM)
#define MCFAN_MBUF_CACHE 256     /* per-lcore mempool cache, frames */
#define MCFAN_RX_DESC 1024       /* RX descriptors asked for per queue (the PMD may adjust) */
#define MCFAN_TX_DESC 512

/** Most (port, RX queue) pairs one RX lcore polls (lcores[].ports[], the idle rate windows). */
#define MCFAN_MAX_RX_PAIRS RTE_MAX_ETHPORTS

/** Longest engine name (datapath/engine.h), bytes without the NUL. */
#define MCFAN_ENGINE_NAME_MAX 31
/** Longest engine ARGS (--worker-engine NAME:ARGS), bytes without the NUL. */
#define MCFAN_ENGINE_ARGS_MAX 255

/** Per-group series of the metrics endpoint by default (--metrics-max-groups, docs/metrics.md). */
#define MCFAN_METRICS_MAX_GROUPS_DEFAULT 64
/** Most --seq rules and --seq-pair pairs (each). */
#define MCFAN_SEQ_RULES_MAX 16
/** Longest --seq rule or --seq-pair value, bytes with the NUL. */
#define MCFAN_SEQ_RULE_LEN 192
/** Most worker engine instances ("outputs": --worker-engine is instance 0, each distinct
 * --group-engine NAME[:ARGS] one more, and count when it is needed; docs/delivery.md). */
#define MCFAN_ENGINE_INST_MAX 16
/** Most --group-engine rules. */
#define MCFAN_GROUP_ENGINE_RULES_MAX 16
/** Longest --group-engine rule GROUPS=NAME[:ARGS], bytes with the NUL. */
#define MCFAN_GROUP_ENGINE_RULE_LEN 512

/** Data lcore roles beyond the lib's enum mcfan_role: none. */
#define MCFAN_ROLE_NONE 0

/** Most ports --port-ip names. */
#define MCFAN_MAX_PORT_IP 32

/** One port of --port-ip: the source addresses of its IGMP and MLD reports. */
struct mcfan_port_ip {
	uint16_t port;
	bool has4;                         /* ip4 given (else 0.0.0.0) */
	bool has6;                         /* ip6 given (else link-local from the MAC) */
	uint8_t ip4[16];                   /* IPv4 in bytes 0..3 */
	uint8_t ip6[16];                   /* IPv6 link-local (RFC 3810 5.2.13) */
};

/* Where a rule of the configuration came from, for the checks that run after parsing
 * (group_engine.c, seq_check.c) to name it as the config file's own refusals do
 * (config_file.h, mcfan_config_origin()): line 0 the command line, else that line of
 * config_file, a row of one of its sections (section true) or a key of [mcfan]. */
struct mcfan_cfg_origin {
	unsigned int line;
	bool section;
};

/** Options params.c's table may hold (a compile-time check there). */
#define MCFAN_OPTS_MAX 96

/** What the operator asked for (options and config file). */
struct mcfan_config {
	uint16_t rx_lcores[RTE_MAX_LCORE];
	unsigned int n_rx_lcores;          /* 0 = default */
	uint16_t worker_lcores[RTE_MAX_LCORE];
	unsigned int n_worker_lcores;      /* 0 = default */
	struct mcfan_flow_key groups[MCFAN_MAX_GROUPS];
	unsigned int n_groups;
	enum mcfan_fanout fanout;          /* fan-out at start (live.fanout later) */
	unsigned int ring_size;            /* slots of each worker ring, frames (placement.h) */
	bool ring_size_set;                /* --ring-size given (else the placement default) */
	unsigned int burst;                /* frames per burst at start, 1..MCFAN_MAX_BURST */
	unsigned int mbufs;                /* mbufs in the pool; 0 = computed */
	unsigned int mbuf_size;            /* --mbuf-size: frame bytes an RX pool mbuf holds,
					    * headroom excluded (MCFAN_MBUF_SIZE_*) */
	double duration_s;                 /* 0 = until a signal */
	double stats_period_s;             /* 0 = no periodic summary */
	char report_json[PATH_MAX];        /* "" = none */
	enum mcfan_outfile_mode report_json_mode; /* how it is written (outfile.h) */
	char config_file[PATH_MAX];        /* "" = none */
	bool msacc;                        /* microstate accounting on at start (then live) */
	bool interactive;                  /* -i: console on standard input */
	char cmdline_file[PATH_MAX];       /* "" = none: console commands run at start */
	uint32_t idle_rx;                  /* start idle policy of lcores with the RX role */
	uint32_t idle_worker;              /* start idle policy of worker-only lcores */
	unsigned int idle_max_sleep_us;    /* longest backoff/wake sleep, microseconds */
	bool idle_rx_set;                  /* --idle-rx given (else the placement default) */
	bool idle_worker_set;              /* --idle-worker given (else the placement default) */
	bool idle_max_sleep_set;           /* --idle-max-sleep-us given */
	bool host_workers;                 /* --host-workers auto (default) or off */
	int rx_nice;                       /* --rx-nice: nice of lcores with the RX role */
	bool rx_nice_set;                  /* --rx-nice given (else by placement, idle.h) */
	/* placement (placement.c, docs/topology.md "Placement") */
	char *cpu_topology;                /* --cpu-topology MAP (malloc'd); NULL = the host */
	int bind;                          /* --bind: enum mcfan_sct_bind; -1 = not given */
	unsigned int rx_count;             /* --rx N; 0 = not given */
	int workers_count;                 /* --workers M; -1 = not given */
	int control_cpu;                   /* --control-cpu N; -1 = first CPU of the order */
	bool print_topology;               /* --print-topology */
	bool print_placement;              /* --print-placement */
	bool json;                         /* --json (with --print-placement) */
	char rx_engine[MCFAN_ENGINE_NAME_MAX + 1];     /* --rx-engine (datapath/engine.h) */
	char worker_engine[MCFAN_ENGINE_NAME_MAX + 1]; /* --worker-engine */
	unsigned int reader_ring_frames;   /* --reader-ring-frames: slots of each reader ring */
	unsigned int reader_wake_frames;   /* --reader-wake-frames: coalesced reader wakes */
	unsigned int reader_wake_us;       /* --reader-wake-us: their latency budget, us */
	const char *reader_opt_given;      /* the first --reader-* option given, or NULL */
	char worker_engine_args[MCFAN_ENGINE_ARGS_MAX + 1]; /* its ARGS after ':', "" = none */
	/* the metrics endpoint (metrics/, docs/metrics.md) */
	bool metrics_on;                   /* --metrics-listen given: serve /metrics */
	struct mcfan_listen metrics_listen; /* --metrics-listen ADDR:PORT */
	unsigned int metrics_max_groups;   /* --metrics-max-groups: own series, the rest _other */
	bool metrics_max_groups_given;     /* --metrics-max-groups given (command line or file) */
	/* IGMP / MLD host side (control/igmp.c, docs/igmp.md) */
	int igmp_mode;                     /* --igmp: enum mcfan_igmp_mode (lib/igmp) */
	int mld_mode;                      /* --mld */
	struct mcfan_port_ip port_ip[MCFAN_MAX_PORT_IP]; /* --port-ip */
	/* --rx-ports: the ports that receive (polled, groups joined), in port id order; the
	 * others are output-only. Not given (rx_ports_set false): every probed port that no tx
	 * output named at start uses is RX (mcfan_ports_roles(), control/ports.c) */
	bool rx_ports_set;
	uint64_t rx_ports[MCFAN_BITS_WORDS(RTE_MAX_ETHPORTS)];
	unsigned int n_port_ip;
	struct mcfan_igmp_ssm ssm[MCFAN_IGMP_SSM_MAX]; /* sources of --groups' GROUP@SOURCE */
	unsigned int n_ssm;
	/* feed quality (control/feed.c, docs/feed.md): --seq GROUPS=KIND rules, in order, and
	 * --seq-pair A,B pairs, as text checked by params.c; the reorder window */
	char seq_rules[MCFAN_SEQ_RULES_MAX][MCFAN_SEQ_RULE_LEN];
	unsigned int n_seq_rules;
	char seq_pairs[MCFAN_SEQ_RULES_MAX][MCFAN_SEQ_RULE_LEN];
	unsigned int n_seq_pairs;
	struct mcfan_cfg_origin seq_pair_from[MCFAN_SEQ_RULES_MAX]; /* for seq_check.c */
	struct mcfan_cfg_origin seq_rule_from[MCFAN_SEQ_RULES_MAX]; /* for seq_check.c */
	unsigned int seq_window_pkts;      /* --seq-window, sequence numbers */
	uint64_t seq_window_ns;            /* --seq-window-ms, ns */
	/* per-group engines (group_engine.c, docs/delivery.md): the --group-engine rules
	 * GROUPS=NAME[:ARGS] as text checked by params.c, then resolved before EAL into the
	 * instance table (instance 0: --worker-engine) and each --groups entry's instance */
	char group_engine_rules[MCFAN_GROUP_ENGINE_RULES_MAX][MCFAN_GROUP_ENGINE_RULE_LEN];
	unsigned int n_group_engine_rules;
	/* where each rule came from, for the messages of group_engine.c */
	struct mcfan_cfg_origin group_engine_from[MCFAN_GROUP_ENGINE_RULES_MAX];
	struct {
		char name[MCFAN_ENGINE_NAME_MAX + 1];
		char args[MCFAN_ENGINE_ARGS_MAX + 1]; /* "" = none */
	} engine_inst[MCFAN_ENGINE_INST_MAX];
	unsigned int n_engine_inst;        /* 1.. once resolved */
	uint8_t group_inst[MCFAN_MAX_GROUPS]; /* instance of groups[i] */
	/* per option of params.c's table: the config file line that set it, 0 = not the file
	 * (mcfan_params_origin()) */
	unsigned int opt_line[MCFAN_OPTS_MAX];
};

/** Lifecycle phases, in order; only ever advanced. */
enum mcfan_phase {
	MCFAN_PHASE_INIT = 0,
	MCFAN_PHASE_RUN,
	MCFAN_PHASE_STOP_RX,  /* RX lcores finish their burst and go offline */
	MCFAN_PHASE_DONE,
};

/*
 * Live values: each a C11 atomic wrapped in a struct of its own (lib/util/mcfan_atomic.h for
 * numbers and flags, struct mcfan_live_table below for the group table), so that a plain read
 * or write (app->live.burst = 8, x = app->live.burst) does not compile; read and write them
 * only with their helpers, each with an explicit memory order. Never touch .val.
 */

/** A live pointer to the published group table. */
struct mcfan_live_table {
	_Atomic(struct mcfan_group_table *) val;
};

/**
 * Load the published group table with memory order mo (NULL before the first publish).
 *
 * @return
 *   The table (owned by the control side: an RX lcore may use it until its next RCU
 *   quiescent state, a control thread while it holds the action lock), or NULL.
 */
static inline const struct mcfan_group_table *
mcfan_live_table_load(const struct mcfan_live_table *f, memory_order mo)
{
	return atomic_load_explicit(&f->val, mo);
}

/** Publish table t with memory order mo; returns the table it replaced (the caller frees it
 * after an RCU grace period).
 *
 * @return
 *   The table it replaced (the caller frees it after an RCU grace period), or NULL.
 */
static inline struct mcfan_group_table *
mcfan_live_table_exchange(struct mcfan_live_table *f, struct mcfan_group_table *t,
			  memory_order mo)
{
	return atomic_exchange_explicit(&f->val, t, mo);
}

/**
 * What changes at run time, apart from the configuration (which does not). Per field:
 * W = who writes it (and how), R = who reads it.
 */
struct mcfan_live {
	/** A stop was requested. W: the signal handlers (main.c), the quit action
	 * (control/live.c), a data lcore whose engine refused to start; release.
	 * R: the main lcore's loop, the console, port set-up; acquire. */
	struct mcfan_atomic_flag quit;
	/** enum mcfan_phase, only ever advanced. W: the main lcore's lifecycle (main.c);
	 * release. R: the data lcores, every loop iteration; acquire. */
	struct mcfan_atomic_u32 phase;
	/** Frames per rx_burst and per dequeue, 1..min(MCFAN_MAX_BURST, ring size).
	 * W: set burst (control/live.c); relaxed. R: the data lcores every loop iteration,
	 * console, telemetry; relaxed. */
	struct mcfan_atomic_u32 burst;
	/** RX polling stopped by `stop`. W: stop/start (control/live.c); release.
	 * R: RX lcores every loop iteration, the console; acquire. */
	struct mcfan_atomic_flag rx_paused;
	/** Microstate accounting of the data lcores on. W: msacc on/off (control/live.c);
	 * relaxed. R: the data lcores every loop iteration, the console; relaxed. */
	struct mcfan_atomic_flag msacc;
	/** enum mcfan_fanout of later joins. W: set fanout for every group
	 * (control/groups.c); relaxed. R: join (control/groups.c), console, telemetry,
	 * report; relaxed. */
	struct mcfan_atomic_u32 fanout;
	/** Idle policy words (lib/idle/mcfan_idle.h) shown by show config as idle-rx and
	 * idle-worker (each lcore's own policy is lcores[].idle.policy). W: set idle rx/worker
	 * (control/live.c); relaxed. R: the console; relaxed. */
	struct mcfan_atomic_u32 idle_rx;
	struct mcfan_atomic_u32 idle_worker;
	/** A `set idle rx` / `set idle worker` came since the start: show config then shows
	 * idle_rx / idle_worker as set, not as the placement default of an option not given.
	 * W: set idle rx/worker (control/live.c); relaxed. R: the console; relaxed. */
	struct mcfan_atomic_flag idle_rx_set;
	struct mcfan_atomic_flag idle_worker_set;
	/** The published group table. W: control/groups.c (exchange, acq_rel; the old table
	 * is freed after an RCU grace period). R: RX engines once a burst; acquire. */
	struct mcfan_live_table groups;
};

/* Readers of the fields most read, each with the order the protocol above gives it. */

/**
 * Has a stop been requested (live.quit)? Acquire.
 *
 * @return
 *   true once a stop was requested.
 */
static inline bool
mcfan_live_quitting(const struct mcfan_live *live)
{
	return mcfan_atomic_flag_load(&live->quit, memory_order_acquire);
}

/**
 * Is RX polling stopped (live.rx_paused)? Acquire.
 *
 * @return
 *   true while the console's `stop` holds.
 */
static inline bool
mcfan_live_rx_paused(const struct mcfan_live *live)
{
	return mcfan_atomic_flag_load(&live->rx_paused, memory_order_acquire);
}

/**
 * Live burst size (live.burst), relaxed.
 *
 * @return
 *   Frames a burst, 1..MCFAN_MAX_BURST.
 */
static inline unsigned int
mcfan_live_burst(const struct mcfan_live *live)
{
	return mcfan_atomic_u32_load(&live->burst, memory_order_relaxed);
}

/**
 * Is microstate accounting of the data lcores on (live.msacc)? Relaxed.
 *
 * @return
 *   true while accounting is on.
 */
static inline bool
mcfan_live_msacc(const struct mcfan_live *live)
{
	return mcfan_atomic_flag_load(&live->msacc, memory_order_relaxed);
}

/**
 * The fan-out of later joins (live.fanout), relaxed.
 *
 * @return
 *   The fan-out a join without one gets.
 */
static inline enum mcfan_fanout
mcfan_live_fanout(const struct mcfan_live *live)
{
	return (enum mcfan_fanout)mcfan_atomic_u32_load(&live->fanout, memory_order_relaxed);
}

/**
 * Give the live settings their start values from the configuration: burst, msacc, fan-out,
 * idle policies; RX running; no group table. Before launch. quit and phase are left alone
 * (zero, MCFAN_PHASE_INIT, from the application's zeroed memory): a signal may already
 * have asked for a stop.
 */
static inline void
mcfan_live_init(struct mcfan_live *live, const struct mcfan_config *cfg)
{
	mcfan_atomic_u32_store(&live->burst, cfg->burst, memory_order_relaxed);
	mcfan_atomic_flag_store(&live->rx_paused, false, memory_order_relaxed);
	mcfan_atomic_flag_store(&live->msacc, cfg->msacc, memory_order_relaxed);
	mcfan_atomic_u32_store(&live->fanout, (uint32_t)cfg->fanout, memory_order_relaxed);
	mcfan_atomic_u32_store(&live->idle_rx, cfg->idle_rx, memory_order_relaxed);
	mcfan_atomic_u32_store(&live->idle_worker, cfg->idle_worker, memory_order_relaxed);
	mcfan_atomic_flag_store(&live->idle_rx_set, false, memory_order_relaxed);
	mcfan_atomic_flag_store(&live->idle_worker_set, false, memory_order_relaxed);
	atomic_init(&live->groups.val, NULL);
}

/** Per lcore state. Indexed by lcore id. */
struct mcfan_lcore {
	uint32_t role;                    /* MCFAN_ROLE_* bits, 0 = unused */
	unsigned int lcore_id;
	unsigned int rx_index;            /* index among RX lcores (RCU thread id) */
	unsigned int worker_index;        /* index among workers */
	/* RX side */
	struct mcfan_rx_ctx rx;
	/* the (port, queue) pairs the lcore polls: ports[i], queues[i], i < n_ports (a port
	 * with several RX queues appears once per queue; control/ports.c) */
	uint16_t ports[MCFAN_MAX_RX_PAIRS];
	uint16_t queues[MCFAN_MAX_RX_PAIRS];
	unsigned int n_ports;
	/* worker side */
	struct rte_ring **in_rings;       /* one per RX lcore */
	/* in_local[r] 1: RX lcore r runs this worker's step in its thread (the same lcore, or
	 * its host), so copies from in_rings[r] may be local copies (lib/fanout/mcfan_fanout.h
	 * "Local references") */
	uint8_t *in_local;
	struct mcfan_worker_stats *ws;
	/* Copies the worker step dequeued (its rings, every RX lcore's) and handed to their
	 * engines: advanced once a step, after every engine's deliver() of the step returned,
	 * so after the pcap engine's enqueue of the copies into its writer's ring too (ws->frames
	 * counts them before deliver()). W: the thread that runs the step (the lcore's own or
	 * its host's), release store. R: the slot drain (control/groups.c), acquire: once it has
	 * reached a target, every copy dequeued before is in its engine (docs/delivery.md, pcap
	 * file lifetime). */
	struct mcfan_atomic_u64 handed;
	/* accounting */
	struct mcfan_msacc ms;
	/* idle policy (lib/idle/mcfan_idle.h) */
	struct mcfan_idle idle;
	/* drops caused by sleeping (lib/overrun/mcfan_overrun.h has the protocol) */
	struct mcfan_overrun ovr;
	/* engines (datapath/engine.h), NULL for a role the lcore lacks */
	const struct mcfan_engine *rx_engine;
	const struct mcfan_engine *worker_engine;
	void *rx_engine_priv;             /* the RX engine's own state: its start/stop, lcore only */
	void *worker_engine_priv;         /* the worker engine's own state, likewise */
	/* the worker engine that runs now (`set engine`, control/engine.c): 0 = each copy to
	 * its group's instance (the start state), 1 + the registry index of an engine that
	 * needs no set-up (count), or MCFAN_ENGINE_SEL_INST + k: every copy to instance k
	 * (datapath/engine.h). W: the set engine action, release. R: the lcore every loop
	 * iteration, acquire; the switch takes effect between two bursts. */
	struct mcfan_atomic_u32 worker_engine_sel;
	/* per engine instance (app->inst_engine[]): its state on this lcore, set by its
	 * configure (main lcore, before launch), freed by its release; and the copies the
	 * lcore handed to it (single writer: the lcore, relaxed stores; read by any control
	 * thread). sel_frames: copies handed to a `set engine LCORE` engine instead. */
	void *inst_priv[MCFAN_ENGINE_INST_MAX];
	struct mcfan_atomic_u64 inst_frames[MCFAN_ENGINE_INST_MAX];
	struct mcfan_atomic_u64 sel_frames;
	/* the lcore's thread id: stored by the lcore before its loop, read by the control
	 * side (control/sched.c); relaxed atomics; 0 until then */
	int tid;
	/* hosting (mcfan_placement_hosts(), docs/idle.md "Hosted workers"): a worker-only lcore
	 * on the one CPU of the only RX lcore has its worker step run by that RX lcore's
	 * thread, one pass after each RX pass, with no wake-up and no context switch; its own
	 * thread waits for the end. host_id: the lcore that runs its step, RTE_MAX_LCORE if
	 * none (itself). hosted[]: the lcores this one hosts. Main lcore before launch, then
	 * constant. */
	unsigned int host_id;
	uint16_t hosted[RTE_MAX_LCORE];
	unsigned int n_hosted;
	/* the worker step's private state, kept by the thread that runs it (the lcore's own or
	 * its host's): the `set engine` selection seen last (worker_engine_sel) and what it
	 * means, and whether msacc was on at its last pass */
	uint32_t run_sel;
	const struct mcfan_engine *run_engine; /* NULL: each copy to its group's instance */
	int run_inst;                          /* -1, or every copy to instance run_inst */
	bool run_ms_on;
	/* a hosted lcore's end: W: its host after the loop and the engines' stop hooks,
	 * release; R: the hosted lcore's own thread, acquire, then it returns */
	struct mcfan_atomic_u32 hosted_done;
} __rte_cache_aligned;

/** Per port state. */
/** What mcfan does with a probed port (docs/delivery.md "Port roles"); set at start only. */
enum mcfan_port_role {
	MCFAN_PORT_RX = 0,  /**< Polled by the RX lcores; groups joined (IGMP/MLD, MAC filter). */
	MCFAN_PORT_OUTPUT,  /**< Output-only: not polled, no join, no IGMP/MLD, filter untouched. */
};

struct mcfan_port {
	bool used;
	bool started;
	enum mcfan_port_role role;        /* set once by mcfan_ports_roles(), before any start */
	const char *role_why;             /* why: "default", "tx output", "--rx-ports" */
	char filter_mode[32];             /* "mc_addr_list", "allmulticast", "none" */
	char driver[RTE_DEV_NAME_MAX_LEN];
	char name[RTE_ETH_NAME_MAX_LEN];
	int socket_id;
	uint16_t nb_rxd;                  /* RX descriptors of queue 0, as the PMD took them */
	uint16_t nb_rxq;                  /* RX queues configured (polled if role is RX) */
	bool rx_intr;                     /* configured with Rx queue interrupts (intr_conf.rxq) */
	/* TX queues worker engines asked for (engine configure, before the port is set up):
	 * queues 1..nb_txq_workers, one per worker lcore; queue 0 is the control lcore's */
	uint16_t nb_txq_workers;
	bool have_final;
	struct rte_eth_stats final_stats; /* read just before close, for the final report */
	/* net_af_packet only (control/ports.c, at set-up): the ring frame and block sizes
	 * (devargs framesz, blocksz, bytes) and the interface's MTU; afp_mtu 0 = unknown */
	unsigned int afp_framesz;
	unsigned int afp_blocksz;
	unsigned int afp_mtu;
};

struct mcfan_stats_base; /* control/stats.c */
struct mcfan_control;    /* control/groups.c */
struct mcfan_kernel;     /* control/kernel.c */
struct mcfan_sched;      /* control/sched.c */
struct mcfan_overrun_ctl; /* control/overrun.c */
struct mcfan_engine;     /* datapath/engine.h */
struct mcfan_igmp;       /* control/igmp.c */
struct mcfan_feed_table; /* lib/feed/mcfan_feed.h */
struct mcfan_rw_table;   /* lib/reader/mcfan_reader_writer.h */

/** Memberships of one counter slot struct mcfan_slot_history keeps, newest first. */
#define MCFAN_SLOT_HISTORY 8

/** A counter slot's last memberships (struct mcfan_app slot_history), newest at [0]. */
struct mcfan_slot_history {
	uint32_t join_seq[MCFAN_SLOT_HISTORY];       /**< 0 = no membership recorded. */
	struct mcfan_flow_key key[MCFAN_SLOT_HISTORY]; /**< The group of join_seq[i]. */
};

struct mcfan_app {
	struct mcfan_config cfg;          /* parsed configuration: constant once launched */
	struct mcfan_live live;           /* what changes at run time (struct mcfan_live) */
	/* RX lcores that have finished polling (phase >= STOP_RX, or an RX engine that did not
	 * start). W: each RX lcore once, release add (datapath/lcore.c). R: the workers, acquire
	 * load: at n_rx no RX lcore enqueues any more, so empty rings stay empty. */
	struct mcfan_atomic_u32 rx_done_count;
	unsigned int main_lcore;
	unsigned int rx_lcore_ids[RTE_MAX_LCORE];
	unsigned int n_rx;
	unsigned int worker_lcore_ids[RTE_MAX_LCORE];
	unsigned int n_workers;
	struct mcfan_lcore lcores[RTE_MAX_LCORE];
	struct mcfan_port ports[RTE_MAX_ETHPORTS];
	struct rte_mempool *pool;
	unsigned int pool_size;
	const char *pool_ops;            /* the pool's handler (control/placement.h), set once */
	char pool_ops_why[128];           /* why that handler, for the start line and telemetry */
	char hosts_why[96];               /* hosted workers or why none (control/placement.h) */
	char ring_size_why[160];          /* why cfg.ring_size (control/placement.h), set once */
	bool ring_size_lowered;           /* the pool did not fit: placement's size halved */
	struct rte_ring **rings;          /* n_rx x n_workers, [rx * n_workers + w] */
	/* RCU of the RX lcores (thread id: rx_index): the group table (control/groups.c) */
	struct rte_rcu_qsbr *qsbr;
	/* RCU of the threads that run worker steps (thread id: their lcore id; a hosted worker's
	 * step reports as its host's thread, mcfan_lcore_steps_workers()): what the worker step
	 * reads, the feed bindings and states (control/feed.c). A thread reports a quiescent
	 * state once a loop pass and is offline while it sleeps or before and after its loop,
	 * so the control side's non-blocking checks never wait for a sleeping lcore. */
	struct rte_rcu_qsbr *wqsbr;
	struct mcfan_group_entry *group_entries; /* control's copy of the table's entries */
	unsigned int n_group_entries;
	uint32_t group_entries_gen;       /* +1 at each new group_entries (the action lock) */
	/* the last join_seq handed out (mcfan_group_entry join_seq): the join actions, under
	 * the action lock */
	uint32_t join_seq_last;
	/* the start's groups by counter slot: the one worker (index) a group may use, as "join
	 * G workers W" gives, or -1 for every worker; set by mcfan_groups_start() (a --seq-pair's
	 * line B on line A's worker, control/groups.c), read once at the start of the control
	 * side and of the reader rings */
	int16_t start_worker[MCFAN_MAX_GROUPS];
	/* each counter slot's last memberships, for a consumer that lags behind the slot drain
	 * (the pcap writer names a copy's group by its join_seq after the slot was reused):
	 * written by the join actions (control/groups.c) under ctl_lock, read under ctl_lock */
	struct mcfan_slot_history slot_history[MCFAN_MAX_GROUPS];
	rte_spinlock_t ctl_lock;          /* control side only: see the protocol above */
	struct mcfan_stats_base *stats_base; /* baselines of clear stats (stats.c), ctl_lock */
	struct mcfan_control *control;    /* control/groups.c's state (counter slots) */
	struct mcfan_kernel *kernel;      /* control/kernel.c: kernel-side port counters, ctl_lock */
	struct mcfan_sched *sched;        /* control/sched.c: schedstat of the lcores, ctl_lock */
	struct mcfan_igmp *igmp;          /* control/igmp.c: IGMP/MLD host side, its own lock */
	/* feed bindings per counter slot (lib/feed/mcfan_feed.h gives the protocol): set by
	 * control/feed.c before launch, freed after the data lcores stopped; NULL = none */
	struct mcfan_feed_table *feed;
	struct mcfan_overrun_ctl *overrun; /* control/overrun.c: sleep overrun, ctl_lock */
	/* reader rings by counter slot (lib/reader/mcfan_reader_writer.h has the protocol): set
	 * by control/readers.c before launch when a worker runs the readers engine, freed after
	 * the data lcores stopped; NULL = none */
	struct mcfan_rw_table *readers;
	/* the worker engine instances (control/setup.c from cfg.engine_inst, before launch;
	 * read-only afterwards): engine of each, n_inst of them (1..MCFAN_ENGINE_INST_MAX) */
	const struct mcfan_engine *inst_engine[MCFAN_ENGINE_INST_MAX];
	unsigned int n_inst;
	int meta_offset;
	struct mcfan_msacc_window *window; /* control side only: the msacc window */
	uint64_t sched_next_tsc;          /* when wait_cpu is next read (control.c) */
	bool tick_busy;                   /* the last tick left work for the next (control.c) */
	int64_t mbufs_outside;            /* pool size - available, after ports closed */
	uint64_t mbufs_kept_max;          /* of those, the most the ports keep after close */
	uint64_t start_tsc;
	uint64_t stop_tsc;
	/* The wall clock (CLOCK_REALTIME, seconds since the epoch) when main() began: the
	 * process start, /metrics' process_start_time_seconds. W: main() first; R: metrics. */
	double start_time_s;
	uint64_t tsc_hz;
	/* Workers announced asleep in the wake protocol (datapath/idle.c). W: a worker, seq_cst
	 * add before it sleeps, release sub when it wakes. R: every RX lcore after each burst,
	 * one relaxed load after a seq_cst fence (datapath/engine_fanout.c); not 0: look at the
	 * workers' sleeping flags (lib/idle/mcfan_idle.h). */
	struct mcfan_atomic_u32 idle_sleepers __rte_cache_aligned;
};

extern struct mcfan_app mcfan_app;

/**
 * Take ctl_lock (control threads only, never a data lcore: see the protocol at the top).
 * Readers hold a const app: the lock is the one part of the shared state a reader changes.
 */
static inline void
mcfan_ctl_state_lock(const struct mcfan_app *app)
{
	rte_spinlock_lock((rte_spinlock_t *)(uintptr_t)&app->ctl_lock);
}

/** Release ctl_lock. */
static inline void
mcfan_ctl_state_unlock(const struct mcfan_app *app)
{
	rte_spinlock_unlock((rte_spinlock_t *)(uintptr_t)&app->ctl_lock);
}

/**
 * The worker index of an lcore (its place in worker_lcore_ids[], set once before launch).
 *
 * @param lcore_id
 *   Any value (a console or telemetry parameter too).
 * @return
 *   0..n_workers-1, or -1 if lcore_id is not a worker lcore (out of range included).
 */
static inline int
mcfan_worker_index(const struct mcfan_app *app, uint64_t lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE || (app->lcores[lcore_id].role & MCFAN_ROLE_WORKER) == 0)
		return -1;
	return (int)app->lcores[lcore_id].worker_index;
}

/**
 * A ring's producer (prod true) or consumer tail: the running index of rte_ring_core.h,
 * which starts at 0 and only grows (modulo 2^32). Any thread; an acquire load, so that what
 * was written before the tail moved is seen. The slot drain (control/groups.c) and the pcap
 * writer's close of a left group's file (control/pcap.c) compare them.
 *
 * @return
 *   The tail, a free-running 32-bit count of the ring's entries.
 */
static inline uint32_t
mcfan_ring_tail(const struct rte_ring *r, bool prod)
{
	return __atomic_load_n(prod ? &r->prod.tail : &r->cons.tail, __ATOMIC_ACQUIRE);
}

/**
 * Does lc's own thread run worker steps (its own, as a worker lcore that is not hosted, or
 * those of the lcores it hosts)? Those threads take part in app->wqsbr, with their lcore id
 * as thread id.
 *
 * @return
 *   true for a worker lcore with its own thread (not hosted) and for a host; false for a
 *   hosted worker (its host's thread runs its step) and for an RX-only or idle lcore.
 */
static inline bool
mcfan_lcore_steps_workers(const struct mcfan_lcore *lc)
{
	return ((lc->role & MCFAN_ROLE_WORKER) != 0 && lc->host_id == RTE_MAX_LCORE) ||
	       lc->n_hosted > 0;
}

/**
 * Is port a device of the given driver (rte_eth_dev_info.driver_name, e.g. "net_af_xdp")?
 * Any control thread, once EAL probed the ports (before they are configured too).
 *
 * @param port
 *   Any port id; one EAL did not probe is no driver's.
 * @param driver
 *   The driver's name.
 * @return
 *   true if port is probed and its driver is driver.
 */
static inline bool
mcfan_port_driver_is(uint16_t port, const char *driver)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port, &info) == 0 && strcmp(info.driver_name, driver) == 0;
}

/* params.c */
/**
 * Parse mcfan's own options (the arguments after EAL's "--") and the --config file they
 * name into cfg, defaults first; before rte_eal_init(). Prints one line on stderr for a
 * refusal, or the usage for --help.
 *
 * @param argc
 *   Arguments in argv, argv[0] the program's name.
 * @param cfg
 *   Receives the configuration; the caller's storage.
 * @return
 *   0 (cfg filled), 1 (--help was given: usage printed, nothing to run), or -EINVAL (bad
 *   input, the message printed; exit 2).
 */
int mcfan_params_parse(int argc, char **argv, struct mcfan_config *cfg);
/**
 * Print --help (every option of params.c's table, the engines by side) on stdout.
 *
 * @param prog
 *   The program's name for the usage line (argv[0]).
 */
void mcfan_params_usage(const char *prog);
/**
 * Check EAL's side of the command line (the arguments before "--", or all of them when
 * there is no "--") for mcfan's own long options (--groups, --duration=10 ...), which EAL
 * would refuse with its whole usage text, and for abbreviated EAL long options
 * (--file-pref for --file-prefix), which EAL's getopt_long would take but mcfan's checks
 * before EAL would not see. Prints one line on standard error naming the first and where
 * it goes or what it abbreviates. EAL's own options of the same name (--help) are EAL's.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0, or -EINVAL (an mcfan option before "--", or an abbreviated EAL option). Bad input
 *   (exit 2).
 */
int mcfan_params_eal_side_check(int argc, char **argv);
/**
 * Where the option a message is about was set, for a check that runs after parsing and
 * whose message begins with the option ("--control-cpu 1: ..."): the config file's line, as
 * the file's own refusals name it.
 *
 * @param cfg
 *   The parsed configuration (mcfan_params_parse() returned 0).
 * @param msg
 *   The message; its first word, up to a blank, '=' or ':', names the option ("--NAME").
 * @param buf, len
 *   Receives "config file 'PATH' line N: " when the option came from the config file, ""
 *   otherwise (truncated to len - 1 characters).
 * @return
 *   buf.
 */
const char *mcfan_params_origin(const struct mcfan_config *cfg, const char *msg, char *buf,
				size_t len);

/* control/ports.c */
/**
 * mbufs the ports take at rest, for the pool's size (main.c), before the ports are set up.
 *
 * @param held
 *   Receives the frames net_pcap with infinite_rx=1 keeps in mbufs for the whole run (its
 *   captures), mbufs.
 * @param rx_queues
 *   Receives the RX queues of all ports (the (port, queue) pairs to poll).
 * @return
 *   The RX descriptors of every RX queue, mbufs (not counting *held).
 */
uint64_t mcfan_ports_mbufs(const struct mcfan_app *app, uint64_t *held,
			   unsigned int *rx_queues);
/**
 * Check the mbuf pool's handler against the ports' drivers: DPDK 22.11's net_af_xdp (its
 * umem is the pool's memory) receives nothing from a pool with the LIFO "stack" or
 * "lf_stack" handler, every frame counting as the port's imissed. Main lcore, after EAL
 * probed the ports, before the pool is made.
 *
 * @param ops
 *   In: the handler chosen (mcfan_placement_pool_ops()); out: DPDK's best handler instead
 *   when mcfan chose a stack handler and a port is net_af_xdp.
 * @param user
 *   Whether the operator chose it (EAL --mbuf-pool-ops-name): then it is refused, not
 *   replaced.
 * @param why
 *   The handler's reason (len bytes of storage): a replacement writes its own,
 *   "default-af_xdp (...)", cut to len - 1 characters.
 * @return
 *   0 (*ops usable, maybe replaced), or -EINVAL when the operator's handler cannot serve a
 *   port (one line on stderr says which port and what to give instead).
 */
int mcfan_ports_pool_ops_check(const char **ops, bool user, char *why, size_t len);
/**
 * The most mbufs the ports may keep after they are closed: DPDK 22.11's net_af_xdp does
 * not return the mbufs of its fill queue (2048 an RX queue) and of its TX completion
 * queue (up to its TX descriptors) to the pool at close, so they stay outside the pool
 * without any frame being lost. Main lcore, before the ports are closed.
 *
 * @return
 *   0 when no port keeps mbufs (every other driver returns them), else the bound, mbufs.
 */
uint64_t mcfan_ports_kept_mbufs_max(void);
/**
 * Give every probed port its role (struct mcfan_port role, role_why; docs/delivery.md "Port
 * roles"): with --rx-ports, the ports listed are RX and the others output-only; without, a
 * port that a tx output named at start sends on (ports[].nb_txq_workers > 0) is output-only
 * and every other port RX. Main lcore, right after EAL probed the ports and the engines were
 * configured (mcfan_setup_lcores()), before any port is set up.
 *
 * @return
 *   0, or -EINVAL after one line on stderr: --rx-ports names a port that was not probed
 *   (the port and the probed ids named), no port is left RX (every port named), or
 *   --port-ip gives addresses to an output-only port (which sends no report).
 */
int mcfan_ports_roles(struct mcfan_app *app);
/**
 * Name of a port role for the report, the console and telemetry: "rx" or "output".
 *
 * @return
 *   A static string.
 */
const char *mcfan_port_role_name(enum mcfan_port_role role);
/**
 * Why a net_af_packet port's frames were truncated and what to give instead, for the report
 * at exit: its ring frames (devarg framesz) hold fewer bytes than the frames that came, the
 * interface's MTU ones or IPv4 datagrams the kernel reassembled from fragments before the
 * socket (PACKET_FANOUT_FLAG_DEFRAG; mcfan does not reassemble). Names the framesz, blocksz
 * and --mbuf-size that hold frames of the MTU, or the rule for longer datagrams. From what
 * the port's set-up read (also after the port is closed). Main lcore.
 *
 * @param app
 *   The application (its --mbuf-size).
 * @param port
 *   The port id.
 * @param truncated
 *   Frames of the port counted as truncated, frames.
 * @param buf
 *   Receives the text, cut to len - 1 characters; "" when nothing is said.
 * @param len
 *   Bytes of buf.
 * @return
 *   The text's length as snprintf() gives it, or 0 when truncated is 0, the port is no
 *   net_af_packet port or its interface's MTU could not be read at set-up.
 */
int mcfan_ports_truncated_hint(const struct mcfan_app *app, uint16_t port, uint64_t truncated,
			       char *buf, size_t len);
/**
 * Configure and start every probed port (marked used) and assign the RX queues of the RX
 * ports to the RX lcores (an output-only port's queues are set up, as its driver may need
 * them, and never polled); main lcore, after the engines are configured and
 * mcfan_ports_roles(), before launch. Logs a warning for an RX lcore left without a port.
 *
 * @return
 *   0; -EINTR when a stop was asked meanwhile (SIGINT); or the negative errno of the port's
 *   set-up (rte_eth_dev_configure(), queue set-up, start), logged.
 */
int mcfan_ports_init(struct mcfan_app *app);
/**
 * Stop the started ports (rte_eth_dev_stop(), a failure logged), after the data lcores
 * returned: first the kernel's last counts, the control frames the RX lcores left (counted
 * and freed), IGMP/MLD leaves sent, the last sleep overrun tick. Main lcore.
 */
void mcfan_ports_stop(struct mcfan_app *app);

/* datapath/lcore.c */
/**
 * A data lcore's loop (rte_eal_remote_launch()): its engines' start, the loop until the
 * stop order says it is done (docs/architecture.md "The path of a frame"), its engines'
 * stop. The fast path: never blocks, allocates, prints or locks in the loop
 * (test/unit/fastpath_callees_check.py).
 *
 * @param arg
 *   The application (struct mcfan_app *).
 * @return
 *   0, or the negative errno of an engine's start that refused (the app was asked to stop).
 */
int mcfan_lcore_main(void *arg);

/* control/setup.c: lcore roles and engines, rings, RCU; free (the group table too) */

/**
 * The roles the data lcores get (docs/guide.md "Lcores and ports"): --rx-lcores and
 * --worker-lcores as given; without --rx-lcores the first data lcore that is not a given
 * worker (else the first); without --worker-lcores every data lcore that is not RX, or the
 * RX lcores when none is left. Pure: also used before EAL (lcore_check.c).
 *
 * @param cfg
 *   The options; every lcore of its rx_lcores and worker_lcores is one of data.
 * @param data
 *   The data lcores (every enabled lcore but the main one), ascending; n_data >= 1.
 * @param n_data
 *   How many.
 * @param is_rx
 *   RTE_MAX_LCORE entries, false on entry: set true for each RX lcore.
 * @param is_worker
 *   RTE_MAX_LCORE entries, false on entry: set true for each worker lcore.
 */
void mcfan_lcore_roles(const struct mcfan_config *cfg, const unsigned int *data,
		       unsigned int n_data, bool *is_rx, bool *is_worker);

/**
 * Refuse --idle-worker (or the config file's idle-worker) when no data lcore is only a
 * worker: every worker also polls ports and waits by --idle-rx's policy, so the policy
 * would be used nowhere. Prints the one line of the refusal on standard error.
 *
 * @param cfg
 *   The options (idle_worker_set, idle_worker).
 * @param data
 *   The data lcores, ascending.
 * @param n_data
 *   How many.
 * @param is_rx
 *   The RX lcores (mcfan_lcore_roles()), indexed by lcore id.
 * @param is_worker
 *   The worker lcores, indexed by lcore id.
 * @return
 *   0 (not given, or a worker-only lcore exists); -EINVAL: refused (bad input, exit 2).
 */
int mcfan_idle_worker_check(const struct mcfan_config *cfg, const unsigned int *data,
			    unsigned int n_data, const bool *is_rx, const bool *is_worker);

/**
 * --rx N / --workers M counted on the data lcores the user's -l/-c/--lcores enable: how many
 * workers that gives, or the refusal when they are too few. Pure; the check before EAL
 * (lcore_check.c, from the options) and the one after it (control/placement.c, from EAL's
 * lcores) share its rule and its words.
 *
 * @param n_rx
 *   RX lcores asked for (--rx; 1 when not given), >= 1.
 * @param workers
 *   Workers asked for (--workers), or -1: every data lcore after the RX ones.
 * @param n_data
 *   Data lcores there are.
 * @param given_by
 *   Who gives them, for the message: "-l/-c/--lcores give", "EAL gave".
 * @param n_workers
 *   Receives the workers, on success.
 * @return
 *   0; -EINVAL with err ("--rx 1 --workers 1 need 2 data lcores, ..."; with workers < 0,
 *   not given, "--rx 2 needs 2 data lcores, ... (--workers not given: its default ...)"):
 *   too few.
 */
int mcfan_role_counts(unsigned int n_rx, int workers, unsigned int n_data,
		      const char *given_by, unsigned int *n_workers, char *err, size_t len);

/**
 * Give the data lcores their roles (RX, worker, both) and engines, and configure each
 * worker engine instance (struct mcfan_engine configure); main lcore, after rte_eal_init().
 *
 * @return
 *   0, or -EINVAL (no data lcore, an --rx-lcores/--worker-lcores lcore EAL did not give,
 *   too few lcores for the roles: one line on stderr) or an engine's configure error.
 */
int mcfan_setup_lcores(struct mcfan_app *app);
/**
 * Register the mbuf metadata field, create the RX-to-worker rings, the control rings, the
 * workers' stats and the RCU (QSBR) variable; main lcore, after mcfan_setup_lcores().
 * What it made belongs to app until mcfan_setup_free().
 *
 * @return
 *   0, or a negative errno (-ENOMEM, rte_errno of a ring or of the QSBR variable, the
 *   metadata field's registration).
 */
int mcfan_setup_rings(struct mcfan_app *app);
/**
 * Free what mcfan_setup_lcores() and mcfan_setup_rings() made, the published group table
 * too; main lcore, after the data lcores returned and the ports were closed. Safe on a
 * partial set-up.
 */
void mcfan_setup_free(struct mcfan_app *app);

/* telemetry.c */
/**
 * Register the /mcfan/ telemetry commands; they reach the application once this is called.
 * Main lcore.
 *
 * @return
 *   0, or rte_telemetry_register_cmd()'s negative errno (logged).
 */
int mcfan_telemetry_init(struct mcfan_app *app);
/** The /mcfan/ commands stop reaching the application (a running one is waited for);
 * main lcore, before the free. */
void mcfan_telemetry_stop(void);

/* console.c: the operator console (docs/console.md), main lcore only */
struct pollfd;
/**
 * Open what -i / --cmdline-file ask for (nothing otherwise).
 *
 * @return
 *   0, or a negative errno (the message printed).
 */
int mcfan_console_init(struct mcfan_app *app);
/**
 * With a console: fill pfd (fd -1 when no input is wanted now) and lower timeout_ms to when
 * the console next has work.
 *
 * @param timeout_ms
 *   In: the caller's poll() timeout, ms; out: lowered to the console's next work.
 * @return
 *   true with a console (pfd filled), false without one.
 */
bool mcfan_console_pollfd(struct pollfd *pfd, int *timeout_ms);
/**
 * Read what poll() reported and run the commands that are due.
 *
 * @param revents
 *   poll()'s revents for the console's descriptor (0 when only its timer is due).
 * @return
 *   How much was done: 0 nothing, more than 0 lines read or commands run.
 */
int mcfan_console_handle(struct mcfan_app *app, short revents);
/** Restore the terminal and free the console; safe to call more than once. */
void mcfan_console_close(struct mcfan_app *app);

/* report.c */
/**
 * Write the text report (counters since the last clear, the conservation line, drops,
 * workers, engines, ports) to f. Main lcore, or a control thread while the lcores run.
 *
 * @param final
 *   true at exit (after the stop: the mbufs outside the pool are checked then).
 */
void mcfan_report_print(struct mcfan_app *app, FILE *f, bool final);
/**
 * Write the JSON report (--report-json) to path: a regular file through a temporary file
 * and rename, a FIFO or a device in place (outfile.h). Main lcore, at exit.
 *
 * @return
 *   0, -ENOMEM (building the report), or the write's negative errno (logged).
 */
int mcfan_report_json(struct mcfan_app *app, const char *path);

#endif /* MCFAN_APP_H */
