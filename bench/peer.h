/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' yardstick: a peer implementation timed in the same run as
 * the ISP, interleaved with it, so that a figure comes with its ratio to the
 * peer on the same machine at the same moment (absolute figures do not
 * travel between machines; ratios do). The peer is OpenCV's edge-aware
 * demosaic, a separate program (bench/peer_opencv.cpp, built when OpenCV is
 * found) that runs on request. Also the machine's description that goes
 * with the figures: CPU model and load.
 */
#ifndef CISP_BENCH_PEER_H
#define CISP_BENCH_PEER_H

#include <stddef.h>

#include <cisp/image.h>

struct bench_peer;

/*
 * Start the peer on the mosaic of @bayer (a Bayer frame of any format,
 * unpacked to 16 bits for it). The program is $CISP_BENCH_PEER when set
 * (empty: none), else the one this build made. *@peer is NULL when there is
 * none or it fails to start: the reason is then printed on stderr, loudly,
 * and the return is still 0 (figures go without a ratio); a negative errno
 * only for a failure of this process (memory).
 */
int bench_peer_start(struct bench_peer **peer, const struct cisp_image *bayer);

/*
 * Run the peer once at @threads threads: *@seconds is the wall-clock time of
 * its call, *@cpu_seconds (may be NULL) its CPU time. 0, or a negative
 * errno after a message (the peer is then stopped and further calls fail).
 */
int bench_peer_time(struct bench_peer *peer, int threads, double *seconds, double *cpu_seconds);

/* The peer's own description ("opencv-4.6.0 edge-aware 16-bit"). */
const char *bench_peer_name(const struct bench_peer *peer);

/* Stop the peer and free it; NULL is allowed. */
void bench_peer_stop(struct bench_peer *peer);

/* The CPU model from /proc/cpuinfo with its family, model and stepping where it has them ("unknown" where it has none) into @buf. */
void bench_cpu_model(char *buf, size_t size);

/* The three load averages of /proc/loadavg ("unknown" where absent) into @buf. */
void bench_loadavg(char *buf, size_t size);

#endif
