// SPDX-License-Identifier: MIT
//
// The peer of bench-hdr-bracket: OpenCV's exposure fusion (Mertens) and its
// radiance merge (Debevec, response calibrated from the frames) tone-mapped
// by Reinhard's operator, on the developed frames bench-hdr-bracket wrote
// (TIMES lists "path exposure_seconds" a line), the moving bracket's and the
// still one's, with one response calibrated on the still bracket. Writes
// OUT/mertens[-still].ppm and OUT/debevec[-still].ppm and prints each method's
// best time of 5 on the moving bracket (merge only; the calibration is not
// timed), one thread.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/photo.hpp>

static double now_ms()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// The P6 files bench-hdr-bracket writes (8-bit RGB, no comments), as RGB.
static cv::Mat read_ppm(const std::string &path)
{
	FILE *f = std::fopen(path.c_str(), "rb");
	int w, h, max;
	cv::Mat img;

	if (f && std::fscanf(f, "P6 %d %d %d", &w, &h, &max) == 3 && max == 255 && std::fgetc(f) != EOF && w > 0 &&
	    h > 0 && w <= 16384 && h <= 16384) {
		img.create(h, w, CV_8UC3);
		if (std::fread(img.data, 3, (size_t)w * h, f) != (size_t)w * h)
			img.release();
	}
	if (f)
		std::fclose(f);
	return img;
}

// A float image of 0..1 as an 8-bit P6 file.
static void write_ppm(const std::string &path, const cv::Mat &f)
{
	cv::Mat out;
	FILE *o = std::fopen(path.c_str(), "wb");

	f.convertTo(out, CV_8UC3, 255.0);
	if (!o)
		return;
	std::fprintf(o, "P6\n%d %d\n255\n", out.cols, out.rows);
	for (int y = 0; y < out.rows; y++)
		std::fwrite(out.ptr(y), 3, (size_t)out.cols, o);
	std::fclose(o);
}

static bool read_list(const char *list_path, std::vector<cv::Mat> &frames, std::vector<float> &times)
{
	std::ifstream list(list_path);
	std::string path;
	float t;

	while (list >> path >> t) {
		cv::Mat img = read_ppm(path);

		if (img.empty()) {
			std::fprintf(stderr, "bench-hdr-opencv: cannot read %s\n", path.c_str());
			return false;
		}
		frames.push_back(img);
		times.push_back(t);
	}
	if (frames.size() < 2)
		std::fprintf(stderr, "bench-hdr-opencv: %s lists fewer than 2 frames\n", list_path);
	return frames.size() >= 2;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		std::fprintf(stderr, "usage: bench-hdr-opencv TIMES TIMES_STILL OUT\n");
		return 2;
	}
	std::vector<cv::Mat> frames[2];
	std::vector<float> times[2];
	const char *suffix[2] = { "", "-still" };

	if (!read_list(argv[1], frames[0], times[0]) || !read_list(argv[2], frames[1], times[1]))
		return 1;
	cv::setNumThreads(1);
	// One camera response for both brackets, from the still one: a ghost is then what differs.
	cv::Mat response;
	cv::createCalibrateDebevec()->process(frames[1], response, times[1]);
	for (int b = 0; b < 2; b++) {
		cv::Mat fused, radiance, mapped;
		double best_m = 1e30, best_d = 1e30;

		for (int i = 0; i < 5; i++) {
			double t0 = now_ms();

			cv::createMergeMertens()->process(frames[b], fused);
			double t1 = now_ms();
			cv::createMergeDebevec()->process(frames[b], radiance, times[b], response);
			cv::createTonemapReinhard(2.2f)->process(radiance, mapped);
			double t2 = now_ms();
			best_m = std::min(best_m, t1 - t0);
			best_d = std::min(best_d, t2 - t1);
		}
		write_ppm(std::string(argv[3]) + "/mertens" + suffix[b] + ".ppm", fused);
		write_ppm(std::string(argv[3]) + "/debevec" + suffix[b] + ".ppm", mapped);
		if (b == 0)
			std::printf("opencv-mertens %.3f ms\nopencv-debevec+reinhard %.3f ms\n", best_m, best_d);
	}
	return 0;
}
