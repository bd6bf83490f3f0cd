// SPDX-License-Identifier: MIT
//
// The peer of bench-ltm speed: OpenCV's tone-mapping operators (photo
// module: Reinhard, Mantiuk, Drago) on a W x H linear RGB float image of
// the same kind of content, milliseconds per frame, best of FRAMES, on one
// thread. bench/ltm_peer.sh runs both and prints the ratios; a fourth argument (reinhard,
// mantiuk, drago) runs one operator.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/photo.hpp>

static double now_ms()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: bench-ltm-opencv WIDTH HEIGHT [FRAMES [OPERATOR]]\n");
		return 2;
	}
	const int w = std::atoi(argv[1]), h = std::atoi(argv[2]), frames = argc > 3 ? std::atoi(argv[3]) : 5;
	cv::Mat in(h, w, CV_32FC3), out;
	cv::RNG rng(1);
	const std::pair<const char *, cv::Ptr<cv::Tonemap>> ops[] = {
		{ "opencv-reinhard", cv::createTonemapReinhard() },
		{ "opencv-mantiuk", cv::createTonemapMantiuk() },
		{ "opencv-drago", cv::createTonemapDrago() },
	};

	cv::setNumThreads(1);
	// Linear light over 12 stops, as bench-ltm's input.
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int k = 0; k < 3; k++)
				in.at<cv::Vec3f>(y, x)[k] = (float)std::exp2(-12 * rng.uniform(0.0, 1.0));
	for (const auto &op : ops) {
		double best = 1e30;

		// One operator only (its name without "opencv-"), for instruction counts under callgrind.
		if (argc > 4 && std::string("opencv-") + argv[4] != op.first)
			continue;
		for (int f = 0; f < frames; f++) {
			double t0 = now_ms();

			op.second->process(in, out);
			best = std::fmin(best, now_ms() - t0);
		}
		std::printf("%s %dx%d %.2f ms\n", op.first, w, h, best);
	}
	return 0;
}
