// SPDX-License-Identifier: MIT
//
// The yardstick of the ISP benchmarks (bench/peer.c): OpenCV's edge-aware
// demosaic of a 16-bit Bayer mosaic, timed on request so that a benchmark
// can interleave it with its own runs in the same run of the machine.
//
//   cisp-bench-peer-opencv FILE WIDTH HEIGHT CFA
//
// FILE holds WIDTH x HEIGHT native-endian 16-bit samples, CFA is RGGB, GRBG,
// GBRG or BGGR. The program prints one line naming itself, then reads
// commands from stdin, one a line: "run THREADS" demosaics the frame once
// with THREADS threads and prints "time WALL CPU" (seconds: wall clock of
// the call, and the process's CPU time during it). It ends at end of input.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

static double clock_seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// OpenCV names a Bayer pattern by the colours of pixels (1,1) and (2,1).
static int edge_aware_code(const char *cfa)
{
	if (!strcmp(cfa, "RGGB"))
		return cv::COLOR_BayerBG2RGB_EA;
	if (!strcmp(cfa, "GRBG"))
		return cv::COLOR_BayerGB2RGB_EA;
	if (!strcmp(cfa, "GBRG"))
		return cv::COLOR_BayerGR2RGB_EA;
	if (!strcmp(cfa, "BGGR"))
		return cv::COLOR_BayerRG2RGB_EA;
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: cisp-bench-peer-opencv FILE WIDTH HEIGHT RGGB|GRBG|GBRG|BGGR\n");
		return 2;
	}
	const int w = atoi(argv[2]), h = atoi(argv[3]), code = edge_aware_code(argv[4]);
	if (w < 2 || h < 2 || w > 65536 || h > 65536 || code < 0) {
		fprintf(stderr, "cisp-bench-peer-opencv: bad size %sx%s or CFA %s\n", argv[2], argv[3], argv[4]);
		return 2;
	}
	cv::Mat mosaic(h, w, CV_16UC1), rgb;
	FILE *f = fopen(argv[1], "rb");
	const size_t n = (size_t)w * (size_t)h;
	const bool read = f && fread(mosaic.ptr<uint16_t>(0), sizeof(uint16_t), n, f) == n;

	if (f)
		fclose(f);
	if (!read) {
		fprintf(stderr, "cisp-bench-peer-opencv: %s: cannot read %zu samples\n", argv[1], n);
		return 1;
	}
	printf("peer opencv-%s edge-aware 16-bit\n", CV_VERSION);
	fflush(stdout);

	char line[64];
	while (fgets(line, sizeof(line), stdin)) {
		int threads;

		if (sscanf(line, "run %d", &threads) != 1 || threads < 1) {
			fprintf(stderr, "cisp-bench-peer-opencv: unknown command %s", line);
			return 2;
		}
		cv::setNumThreads(threads);
		const double c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_seconds(CLOCK_MONOTONIC);
		cv::demosaicing(mosaic, rgb, code);
		const double t1 = clock_seconds(CLOCK_MONOTONIC), c1 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
		printf("time %.9f %.9f\n", t1 - t0, c1 - c0);
		fflush(stdout);
	}
	return 0;
}
