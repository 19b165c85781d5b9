/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_TELEMETRY_SOCKET_H
#define MCFAN_TELEMETRY_SOCKET_H

/*
 * Which telemetry socket is this process's. DPDK 22.11's telemetry binds
 * RUNTIME_DIR/dpdk_telemetry.v2, or dpdk_telemetry.v2:N when another process with the same
 * --file-prefix holds that name, and offers no call that says which. mcfan finds its own by
 * matching the inodes of the sockets bound under the runtime directory (/proc/net/unix) with
 * the socket descriptors this process holds (/proc/self/fd), so that it prints the right
 * path at start and, at exit, removes only its own socket, never another instance's.
 */

#include <stddef.h>

/** Name of DPDK 22.11's telemetry socket in the runtime directory (lib/telemetry). */
#define MCFAN_TELEMETRY_SOCKET_NAME "dpdk_telemetry.v2"

/**
 * Find the path of the telemetry socket this process listens on.
 *
 * @param runtime_dir
 *   EAL's runtime directory (rte_eal_get_runtime_dir()).
 * @param buf
 *   Receives the socket's path.
 * @param len
 *   Size of buf, bytes.
 * @return
 *   0; -ENOENT if this process holds no telemetry socket under runtime_dir (telemetry off,
 *   or --no-telemetry); -ENAMETOOLONG; the negative errno of reading /proc.
 */
int mcfan_telemetry_socket_path(const char *runtime_dir, char *buf, size_t len);

#endif /* MCFAN_TELEMETRY_SOCKET_H */
