/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_LCORE_CHECK_H
#define MCFAN_APP_LCORE_CHECK_H

/*
 * Lcore options checked before rte_eal_init (lcore_check.c): when EAL's -l, -c or --lcores
 * already says which lcores there will be, an mcfan option that cannot work with them
 * (--idle-worker without a worker-only lcore, --rx/--workers counting more, only the main
 * lcore and no data lcore) is refused
 * before EAL starts (no EAL line, no runtime directory), with the words of the
 * check that runs after EAL. Where the lcores cannot be known before EAL (none of these
 * options, two of them, a list EAL itself will refuse), nothing is refused here and the check after EAL answers.
 * Main lcore only, before EAL.
 */

#include "mcfan.h"

/**
 * Check the lcores EAL's -l, -c or --lcores (and --main-lcore) will enable: at least one
 * data lcore besides the main lcore; --idle-worker against them: the roles they get (mcfan_lcore_roles()) must leave a worker-only lcore
 * (mcfan_idle_worker_check()). With --rx/--workers counted on those lcores, check only that
 * there are enough data lcores for the counts (the roles are picked after EAL). Prints one
 * line on standard error when refused.
 *
 * @param cfg
 *   The options, after placement (mcfan_placement_cli_pre_eal(): a generated --lcores and
 *   its roles are in argv and cfg).
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0: good, or not known before EAL; -EINVAL: refused (bad input, exit 2).
 */
int mcfan_lcore_check(const struct mcfan_config *cfg, int argc, char **argv);

/**
 * Check the CPUs of EAL's -l, -c or --lcores (the @CPUS of --lcores, else the lcore ids)
 * against this host before EAL. A CPU that is not online is refused with one line naming it
 * and the online CPUs (EAL would refuse the list too, after its own lines and its whole
 * usage). A CPU outside the calling thread's affinity (sched_getaffinity(2): taskset, a
 * cpuset) gets one warning line on standard error: EAL pins lcores there all the same.
 * Without any of them (EAL's default: one lcore a CPU the process may run on), a process
 * that may run on one CPU only is refused: EAL would give the main lcore alone.
 * Two of these options (-l twice, -l and --lcores ...) are refused with one line naming both:
 * EAL would refuse the second with its whole usage.
 * Where the CPUs cannot be known before EAL (none of these options, a list EAL refuses,
 * sysfs unreadable), nothing is said here and EAL answers.
 *
 * @param argc
 *   EAL's argument count (argv[0] included).
 * @param argv
 *   EAL's arguments; not changed.
 * @return
 *   0: good, warned, or not known before EAL; -EINVAL: a CPU that is not online, two lcore
 *   options, or one allowed CPU and EAL's default lcores (bad input, exit 2).
 */
int mcfan_lcore_cpus_check(int argc, char **argv);

#endif /* MCFAN_APP_LCORE_CHECK_H */
