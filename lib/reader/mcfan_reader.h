/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The mcfan authors
 */

#ifndef MCFAN_READER_H
#define MCFAN_READER_H

/**
 * @file
 * libmcfan-reader: receive a group's frames from a running mcfan (worker engine
 * `readers`) in an ordinary process: no DPDK, no hugepages, no root. Link with
 * `pkg-config --cflags --libs mcfan-reader`.
 *
 * mcfan keeps one broadcast ring per group in POSIX shared memory (mcfan_reader_ring.h,
 * docs/readers.md); each reader has its own cursor in its own memory, so any number of
 * readers read the same frames and none slows the writer or another reader. A reader that
 * falls more than a ring behind is lapped: it goes on from the oldest frame still in the
 * ring and is told exactly how many frames it lost. It may block in mcfan_reader_wait(),
 * which sleeps on a futex without spinning.
 *
 * Every function returns 0 or a count on success and a negative errno on failure. A
 * struct mcfan_reader belongs to one thread at a time (open one per thread); different
 * readers may be used from different threads or processes at once.
 *
 * @code
 *	struct mcfan_reader *r;
 *	struct mcfan_reader_frame f;
 *	char buf[2048];
 *
 *	if (mcfan_reader_open("rte", "239.9.9.1:3999", 0, &r) < 0)
 *		return 1;
 *	for (;;) {
 *		int n = mcfan_reader_read(r, buf, sizeof(buf), &f);
 *		if (n == 0)
 *			n = mcfan_reader_wait_ms(r, 1000);
 *		else if (n > 0)
 *			handle(buf, f.len, f.lost);
 *		if (n < 0)
 *			break;
 *	}
 *	mcfan_reader_close(r);
 * @endcode
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Major version of the library's ABI (the .so's soversion). */
#define MCFAN_READER_ABI 1

/** mcfan_reader_open() flag: start at the oldest frame still in the ring, not the newest. */
#define MCFAN_READER_OLDEST 1u

/** An opened ring; opaque. */
struct mcfan_reader;

/** One frame, as mcfan_reader_next() or mcfan_reader_read() return it. */
struct mcfan_reader_frame {
	/** mcfan_reader_next(): the frame's bytes in the ring (valid until the next call on
	 * this reader, and only while mcfan_reader_frame_valid() says so); mcfan_reader_read():
	 * the caller's buffer. */
	const uint8_t *data;
	/** Bytes of the frame: the whole Ethernet frame as mcfan received it. */
	uint32_t len;
	uint32_t pad;
	/** The frame's number in the group's ring: 0 for the first frame mcfan wrote, then
	 * consecutive. */
	uint64_t seq;
	/** Frames this reader lost just before this one (lapped), 0 normally. */
	uint64_t lost;
	/** When mcfan received the frame: CLOCK_REALTIME, ns since the epoch (from the TSC of
	 * the RX burst; microseconds accurate). */
	uint64_t rx_ns;
};

/** A reader's counters (mcfan shows the same in `show readers`). */
struct mcfan_reader_stats {
	uint64_t frames;   /**< Frames read (returned by next/read). */
	/** Frames lost by being lapped: those the reader stepped over, and those the writer
	 * has overwritten that it has not reached yet (lost now, before its next read). */
	uint64_t lost;
	/** Times the writer lapped this reader (a lap whose frames it has not stepped over yet
	 * counts at once, as they do in lost). */
	uint64_t laps;
	uint64_t head;     /**< Frames the writer has published so far. */
	/** Frames published that the reader can still read: head - cursor, at most n_slots
	 * (the rest are in lost). frames + lost + lag = head - the frame it started at: the
	 * frames published since it opened, or with MCFAN_READER_OLDEST also those the ring
	 * held at the open. */
	uint64_t lag;
	uint32_t n_slots;  /**< Frames the ring holds. */
	uint32_t data_max; /**< Longest frame a slot holds, bytes. */
	int closed;        /**< 1 once the writer (mcfan) has stopped writing. */
	int reader_slot;   /**< This reader's row in the ring's reader table. */
};

/**
 * Open a group's ring for reading.
 *
 * @param prefix
 *   mcfan's EAL --file-prefix; NULL or "" for DPDK's default "rte". At most 186 characters
 *   (MCFAN_RD_PREFIX_MAX, mcfan's own limit for the rings' names), no '/' or '%', not "." or
 *   "..".
 * @param group
 *   "239.9.9.1:3999", "239.9.9.1" (the ring of a group joined without a port, or else the
 *   only ring of that address), "[ff3e::1]:5000", "ff3e::1".
 * @param flags
 *   0 (read only frames written from now on) or MCFAN_READER_OLDEST.
 * @param out
 *   Receives the reader; not NULL.
 * @return
 *   0; -EINVAL (a prefix with '/' or '%', "." or "..", a group that is not an address with
 *   an optional port 1..65535, bad flags, NULL), -ENAMETOOLONG (a prefix longer than 186
 *   characters), -EADDRNOTAVAIL (the group's address is not multicast: IPv4 224.0.0.0/4,
 *   IPv6 ff00::/8), -ENOENT (no such ring: mcfan not running with the readers engine, or the
 *   group not joined; mcfan_reader_explain() names the rings mcfan serves for the address
 *   under the prefix, e.g. the group without its port), -ENOTUNIQ (an address without a
 *   port that has rings for several ports), -EPROTO (not a ring of this format or
 *   version), -ENOSPC (every reader slot is held by a live reader), -EXDEV (the ring
 *   exists but mcfan's readers engine does not write it: mcfan hands the group's frames to
 *   another engine (count, pcap, tx: by --group-engine, the config file, `set engine`), or
 *   has left the group; mcfan_reader_explain(-EXDEV) names the group, the engine and what
 *   to do), -EACCES or -EPERM (this process may not read and write the ring's object in
 *   /dev/shm: mcfan_reader_explain() names its owner, group and mode, this process's user
 *   and what to do), -ENOMEM, or the negative errno of shm_open(3) or mmap(2).
 */
int mcfan_reader_open(const char *prefix, const char *group, unsigned int flags,
		      struct mcfan_reader **out);

/**
 * Take the next frame without copying it.
 *
 * @param f
 *   Receives the frame; f->data points into the ring and stays valid until the next call
 *   on r, as long as the writer has not lapped the reader meanwhile: check with
 *   mcfan_reader_frame_valid() after using the bytes.
 * @return
 *   1 (a frame), 0 (none yet: see mcfan_reader_wait()), -EPIPE (mcfan has closed the ring
 *   and every frame was read), -EINVAL (NULL argument).
 */
int mcfan_reader_next(struct mcfan_reader *r, struct mcfan_reader_frame *f);

/**
 * Was the frame mcfan_reader_next() returned still intact? If not (the writer lapped the
 * reader while the caller looked at it), the frame is moved from the reader's frames to
 * its lost count, once, so the counts stay exact.
 *
 * @return
 *   1 (intact), 0 (overwritten: do not trust what was read), -EINVAL.
 */
int mcfan_reader_frame_valid(struct mcfan_reader *r, const struct mcfan_reader_frame *f);

/**
 * Copy the next frame into buf: a consistent copy, or none (a frame overwritten while it
 * was copied counts as lost and the next one is tried).
 *
 * @param buf
 *   Destination; len bytes.
 * @param len
 *   Size of buf, bytes. A frame longer than len is not consumed.
 * @param f
 *   Receives the frame's fields, f->data = buf.
 * @return
 *   1 (a frame), 0 (none yet), -EMSGSIZE (the next frame is longer than len: f->len says
 *   how long), -EPIPE (closed and drained), -EINVAL.
 */
int mcfan_reader_read(struct mcfan_reader *r, void *buf, size_t len,
		      struct mcfan_reader_frame *f);

/**
 * Sleep until a frame is there, without spinning (a futex on the ring's head word; mcfan
 * wakes sleepers at most once per burst, and only when someone sleeps).
 *
 * @param timeout_ns
 *   Longest wait, ns; 0 = do not wait, < 0 = no limit. With 0 it only looks: 1, 0 or
 *   -EPIPE, never -EXDEV or -EOWNERDEAD (a poll gives no verdict on the writer: a ring
 *   nobody writes, or whose writer died, answers 0 there); give at least 1 ns to be told.
 * @return
 *   1 (a frame can be read), 0 (timed out), -EPIPE (mcfan closed the ring and every frame
 *   was read: a clean stop), -EOWNERDEAD (no frame is left and the writer process is
 *   gone without closing the ring, seen when the timeout runs out or at a recheck, at
 *   least once a second, of a longer wait or one without a limit: the ring header's
 *   writer_pid does not exist, or belongs to a process that started at another time
 *   than the header's writer_start (the pid was reused); mcfan was killed or crashed; no
 *   frame comes any more), -EXDEV (no frame is left and mcfan no longer writes the ring: the group's
 *   frames went to another engine (`set engine`) or mcfan left it, while the reader was
 *   open; mcfan wakes sleepers when that happens, and a sleeper looks again at least once a
 *   second; mcfan_reader_explain(-EXDEV) says why), -EINTR (a signal arrived), -EINVAL.
 */
int mcfan_reader_wait(struct mcfan_reader *r, int64_t timeout_ns);

/** mcfan_reader_wait() with the timeout in milliseconds (< 0 = no limit). */
int mcfan_reader_wait_ms(struct mcfan_reader *r, int timeout_ms);

/**
 * The reader's counters and the ring's state.
 *
 * @return
 *   0, -EINVAL (NULL).
 */
int mcfan_reader_stats(const struct mcfan_reader *r, struct mcfan_reader_stats *st);

/**
 * The process id of the ring's writer (mcfan), from the ring header.
 *
 * @return
 *   The pid (> 0), -EINVAL (NULL).
 */
int32_t mcfan_reader_writer_pid(const struct mcfan_reader *r);

/**
 * The group of the ring, as mcfan names it in the ring's header ("239.9.9.1:3999",
 * "[ff3e::1]:5000"; at most MCFAN_RD_GROUP_MAX - 1 characters), copied into the reader at
 * mcfan_reader_open(): the same whatever the writer does later.
 *
 * @param r
 *   A reader of mcfan_reader_open(), or NULL.
 * @return
 *   A NUL-terminated string owned by the reader: valid until mcfan_reader_close(r) (do
 *   not free it; copy it to keep it longer); NULL for NULL.
 */
const char *mcfan_reader_group(const struct mcfan_reader *r);

/**
 * Find the UDP payload in a frame of the ring (Ethernet, up to two VLAN tags, IPv4 with
 * options (RFC 791) or IPv6 (RFC 8200, no extension headers), UDP (RFC 768)).
 *
 * @param frame
 *   The frame's bytes.
 * @param len
 *   Its length, bytes.
 * @param payload
 *   Receives a pointer to the payload inside frame.
 * @param plen
 *   Receives the payload's length, bytes (from the UDP length, cut to the frame).
 * @return
 *   0, -EPROTO (not a UDP datagram this parser knows), -EINVAL (NULL).
 */
int mcfan_reader_udp_payload(const uint8_t *frame, uint32_t len, const uint8_t **payload,
			     uint32_t *plen);

/**
 * A sentence for an error this library returned, in the words mcfan-read uses: what went
 * wrong and what to do (for bindings and programs that print it; tools/mcfan_reader.py
 * does).
 *
 * @param err
 *   A return value of this library: a negative errno (a positive one is taken the same).
 * @return
 *   A constant string, never NULL: the library's own text for -ENOENT (no such ring),
 *   -EADDRNOTAVAIL (not a multicast address),
 *   -ENOSPC (every reader row taken), -ENOTUNIQ (an address with rings for several ports),
 *   -EOWNERDEAD (writer dead), -EPIPE (closed and drained), -EPROTO (not a ring of this
 *   format or version), -EMSGSIZE (frame longer than the buffer), -EINVAL (bad argument),
 *   -ENAMETOOLONG (file prefix too long) and -EXDEV (the readers engine does not write the
 *   ring: mcfan_reader_explain() says why); strerror(3)'s text for any other errno
 *   (-EACCES ...) and for any other int (INT_MIN too), "no error" for 0.
 */
const char *mcfan_reader_strerror(int err);

/**
 * The fullest sentence for an error this thread got from this library: for the last
 * -EXDEV of mcfan_reader_open() or mcfan_reader_wait() in this thread, the group, why its
 * ring is not written and what to do, e.g. "group 239.9.9.1:3999: mcfan serves it with the
 * count engine, not readers (route the group to readers: give mcfan's console set engine
 * 239.9.9.1:3999 readers, or start mcfan with --group-engine 239.9.9.1:3999=readers and no
 * other --group-engine or [group-engine] row for it)"; for the last error of
 * mcfan_reader_open() the bad input and what is allowed: the file prefix ("file prefix 'a/b':
 * has a '/' ..."; too long: its length and the limit), the group ("group 10.0.0.1: 10.0.0.1 is
 * not a multicast address (IPv4 224.0.0.0/4, IPv6 ff00::/8)", a port not 1..65535, not an
 * address), or for -ENOENT the rings mcfan does serve for the address ("group
 * 239.9.9.2:3999 of file prefix lab: no such reader ring; mcfan serves 239.9.9.2 (any port):
 * use --group 239.9.9.2"); for -EACCES or -EPERM the ring's path, owner, group and mode,
 * this process's user and group, and what to do ("group 239.9.9.1:3999 of file prefix lab:
 * /dev/shm/mcfan.lab.239.9.9.1.3999 is owner root (uid 0), group root (gid 0), mode 0600,
 * and this process, user nobody (uid 65534) group nogroup (gid 65534), may not read and
 * write it (...): run the reader as a user that may (the owner), or give the ring back the
 * mode 0666 mcfan makes it with: chmod 0666 PATH ..."); for any other error mcfan_reader_strerror()'s text.
 *
 * @param err
 *   A return value of this library: a negative errno (a positive one is taken the same).
 * @return
 *   A string, never NULL, valid in this thread until its next call into this library.
 */
const char *mcfan_reader_explain(int err);

/**
 * Release the reader: its row in the reader table is freed, the mapping closed. NULL ok. In
 * a process that did not open it (a fork(2) child's copy) only the mapping is closed: the row
 * stays the opener's. A fork child must not read through its copy; it opens its own reader.
 */
void mcfan_reader_close(struct mcfan_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* MCFAN_READER_H */
