/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_APP_EAL_ENV_H
#define MCFAN_APP_EAL_ENV_H

/*
 * EAL's environment (eal_env.c): the causes of EAL's failures mcfan can name, the hugepages,
 * and this run's hugepage files at exit. For main.c; control threads only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * The value of an EAL option in argv[1..argc): "--file-prefix X" or "--file-prefix=X"; of
 * the last one when it is given more than once, the one EAL's getopt leaves in force.
 *
 * @param argc
 *   Argument count (argv[0] included).
 * @param argv
 *   The EAL arguments; not changed.
 * @param opt
 *   The long option, with its dashes ("--file-prefix").
 * @return
 *   The value (a pointer into argv), or NULL when the option is not given.
 */
const char *mcfan_eal_opt_value(int argc, char **argv, const char *opt);

/**
 * rte_eal_init() failed: print one line on standard error with the cause where mcfan can
 * tell it (another primary process holds the file prefix's lock; no hugetlbfs mounted; no
 * hugepage reserved or none free) and the remedy, else EAL's rte_errno and where to look.
 *
 * @param argc
 *   Argument count of the EAL options (argv[0] included).
 * @param argv
 *   The EAL options as given (a copy from before rte_eal_init()); not changed.
 */
void mcfan_eal_failure(int argc, char **argv);

/**
 * No port was probed after EAL: print one line naming the --vdev devices given (their
 * driver refused them: a key it does not know, one it needs, a file or interface that is
 * not there), or, when none was given, how to give one.
 */
void mcfan_eal_no_port_probed(void);

/**
 * The kernel's hugepages of every size (/sys/kernel/mm/hugepages/hugepages-SIZE).
 *
 * @param reserved
 *   Receives the reserved pages (nr_hugepages) of every size, summed.
 * @param text
 *   Receives "2048 kB: 256 reserved, 0 free; ..." (cut to len), for a message.
 * @param len
 *   Size of text, bytes (> 0).
 * @return
 *   The free pages of every size, summed (at most LONG_MAX), or -1 when the directory
 *   cannot be read (then *reserved is 0 and text empty).
 */
long mcfan_hugepages_free(uint64_t *reserved, char *text, size_t len);

/**
 * At exit, before rte_eal_cleanup(): remove this primary's hugepage files (PREFIXmap_* in
 * its hugetlbfs mount, found from each memory segment's fd). EAL 22.11 leaves them, and
 * their pages stay taken after the process ended; nothing can use them after mcfan (a
 * secondary attaches to a running primary only and keeps its mappings; the next primary of
 * the prefix clears them itself). Nothing without hugepage files (--no-huge; --in-memory's
 * are memfds) or in a secondary.
 *
 * @param keep
 *   true: keep them (--huge-unlink=never, --in-memory, a run refused as a secondary).
 * @return
 *   The files removed (a --single-file-segments file counts once).
 */
unsigned int mcfan_eal_hugepage_files_remove(bool keep);

#endif /* MCFAN_APP_EAL_ENV_H */
