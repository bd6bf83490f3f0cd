// SPDX-License-Identifier: MIT
/*
 * The face detector: OpenCV's cascade classifier (objdetect) with a
 * cascade of Debian's opencv-data (docs/faces.md says which, and why).
 * Exceptions stop here: every call returns 0 or a negative errno with a
 * message, as the rest of the library does.
 */
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include <unistd.h>

#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>

#include "core/error_internal.h"
#include "detector.h"

// The raw window hits a face needs: fewer gives more false faces.
static const int MIN_HITS = 3;
// The detection pyramid's scale step: 10% between levels.
static const double SCALE_STEP = 1.1;

struct face_detector {
	cv::CascadeClassifier cascade;
};

int face_detector_create(struct face_detector **d, const char *cascade)
{
	const char *path = cascade ? cascade : CISP_FACE_CASCADE;

	*d = nullptr;
	// Checked first: OpenCV would also print its own complaint on stderr.
	if (access(path, R_OK))
		return cisp_error(-errno, "face detection: cannot read the cascade %s: %s (is opencv-data installed?)",
				  path, strerror(errno));
	try {
		// Owned until it loads: load() may throw.
		std::unique_ptr<face_detector> fd(new face_detector);
		if (!fd->cascade.load(path))
			return cisp_error(-EINVAL, "face detection: %s is not a cascade OpenCV can load", path);
		*d = fd.release();
		return 0;
	} catch (const std::bad_alloc &) {
		return cisp_error(-ENOMEM, "face detection: out of memory loading %s", path);
	} catch (const cv::Exception &e) {
		return cisp_error(-EINVAL, "face detection: %s is not a cascade: %.120s", path, e.what());
	}
}

void face_detector_destroy(struct face_detector *d)
{
	delete d;
}

int face_detector_find(struct face_detector *d, const uint8_t *luma, unsigned width, unsigned height, size_t stride,
		       unsigned min_size, struct face_box *boxes, unsigned max)
{
	if (!d || !luma || width < 1 || height < 1 || width > 65535 || height > 65535 || stride < width)
		return cisp_error(-EINVAL, "face detection: no detector or a bad %ux%u image", width, height);
	try {
		// A view of the caller's rows: OpenCV reads them, never writes.
		cv::Mat image((int)height, (int)width, CV_8UC1, const_cast<uint8_t *>(luma), stride);
		std::vector<cv::Rect> found;
		std::vector<int> hits;
		d->cascade.detectMultiScale(image, found, hits, SCALE_STEP, MIN_HITS, 0,
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
		return cisp_error(-ENOMEM, "face detection: out of memory");
	} catch (const cv::Exception &e) {
		return cisp_error(-EIO, "face detection failed: %.160s", e.what());
	}
}
