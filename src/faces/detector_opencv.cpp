// SPDX-License-Identifier: MIT
/*
 * The face detection module (cisp-faces-opencv.so, loaded by detector.c):
 * OpenCV's cascade classifier (objdetect) with a cascade of Debian's
 * opencv-data (docs/faces.md says which, and why). Exceptions stop here:
 * every entry point returns 0 or a count, or a negative errno with a
 * message.
 */
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <unistd.h>

#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>

#include "detector.h"

// The raw window hits a face needs: fewer gives more false faces.
static const int MIN_HITS = 3;
// The detection pyramid's scale step: 10% between levels.
static const double SCALE_STEP = 1.1;

#define EXPORT extern "C" __attribute__((visibility("default")))

EXPORT int cisp_faces_module_create(void **impl, const char *cascade, char *msg, size_t len)
{
	const char *path = cascade ? cascade : CISP_FACE_CASCADE;

	*impl = nullptr;
	// Checked first: OpenCV would also print its own complaint on stderr.
	if (access(path, R_OK)) {
		int e = errno;
		snprintf(msg, len, "cannot read the cascade %s: %s (is opencv-data installed?)", path, strerror(e));
		return -e;
	}
	try {
		// Owned until it loads: load() may throw.
		std::unique_ptr<cv::CascadeClassifier> c(new cv::CascadeClassifier);
		if (!c->load(path)) {
			snprintf(msg, len, "%s is not a cascade OpenCV can load", path);
			return -EINVAL;
		}
		*impl = c.release();
		return 0;
	} catch (const std::bad_alloc &) {
		snprintf(msg, len, "out of memory loading %s", path);
		return -ENOMEM;
	} catch (const cv::Exception &e) {
		snprintf(msg, len, "%s is not a cascade: %.120s", path, e.what());
		return -EINVAL;
	}
}

EXPORT void cisp_faces_module_destroy(void *impl)
{
	delete static_cast<cv::CascadeClassifier *>(impl);
}

EXPORT int cisp_faces_module_find(void *impl, const uint8_t *luma, unsigned width, unsigned height, size_t stride,
				  unsigned min_size, struct face_box *boxes, unsigned max, char *msg, size_t len)
{
	try {
		// A view of the caller's rows: OpenCV reads them, never writes.
		cv::Mat image((int)height, (int)width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
		std::vector<cv::Rect> found;
		std::vector<int> hits;
		static_cast<cv::CascadeClassifier *>(impl)->detectMultiScale(image, found, hits, SCALE_STEP, MIN_HITS, 0,
									       cv::Size((int)min_size, (int)min_size));
		std::vector<size_t> order(found.size());
		for (size_t i = 0; i < order.size(); i++)
			order[i] = i;
		std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return found[a].area() > found[b].area(); });
		unsigned n = 0;
		for (size_t i : order) {
			if (n == max)
				break;
			const cv::Rect &r = found[i];
			int h = i < hits.size() ? hits[i] : MIN_HITS;
			boxes[n++] = face_box{ r.x, r.y, r.width, r.height, 1.0 - std::exp2(-(double)h / MIN_HITS) };
		}
		return (int)n;
	} catch (const std::bad_alloc &) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	} catch (const cv::Exception &e) {
		snprintf(msg, len, "failed: %.160s", e.what());
		return -EIO;
	}
}
