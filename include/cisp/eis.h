/* SPDX-License-Identifier: MIT */
/**
 * @file eis.h
 * @brief Electronic image stabilisation: the camera's stage after the ISP
 * that moves a crop window against the hand's motion (docs/eis.md).
 *
 * With EIS on, the ISP renders the processed streams (main and preview)
 * with a margin on every side (at the asked scale when the sensor frame
 * has the pixels, else at the sensor's own scale, the stage then
 * enlarging), and the stage cuts the asked size out of them where the
 * smoothed camera path says: the camera path comes from the sensor's
 * gyroscope (gyro.h), integrated and turned into pixels through the focal
 * length, smoothed by a causal low-pass filter; the window follows the
 * difference between the path and its smoothed form, clamped to the
 * margin. A rolling shutter reads rows at different times: the frame is cut
 * in bands of rows, each moved by the path at its own readout time.
 *
 * The warp is integer arithmetic: bilinear interpolation at 1/256 pixel
 * (cisp_eis_warp()).
 */
#ifndef CISP_EIS_H
#define CISP_EIS_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/camera.h>
#include <cisp/gyro.h>
#include <cisp/image.h>
#include <cisp/pool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most bands of rows a frame is cut into. */
#define CISP_EIS_MAX_BANDS 64

/**
 * struct cisp_eis_config - how a camera stabilises its processed streams.
 * @enable: stabilise (true) or not.
 * @margin: the margin on each side, as a share of a stream's width and
 *          height: 0.02..0.25, 0 for the default 0.1.
 * @smoothing_s: time constant of each of the two first-order low-pass
 *               stages that smooth the camera path, seconds: 0.02..5, 0 for
 *               the default 0.25.
 * @bands: bands of rows for the rolling-shutter correction: 1 (one offset
 *         per frame) .. CISP_EIS_MAX_BANDS, 0 for the default 16.
 */
struct cisp_eis_config {
	bool enable;
	double margin;
	double smoothing_s;
	unsigned bands;
};

/**
 * struct cisp_eis_band - where one band of output rows is cut from.
 * @first_row: the band's first output row; it ends where the next band
 *             starts (the last at the image's bottom).
 * @x_q8: the input column that the band's output column 0 reads, in 1/256
 *        pixels.
 * @y_q8: the input row that output row 0 would read with this band's
 *        position, in 1/256 pixels.
 */
struct cisp_eis_band {
	uint32_t first_row;
	uint32_t x_q8;
	uint32_t y_q8;
};

/**
 * cisp_eis_warp() - cut @out out of @in, band by band, with bilinear
 * interpolation: output pixel (x, y) of a band reads input position
 * (X, Y) = (x_q8 * 256 + x * @step_x_q16, y_q8 * 256 + y * @step_y_q16) in
 * 1/65536 pixels; the fractions' top 8 bits weigh the four neighbours and
 * the sum of the products is rounded (halves up) to 8 bits. Subsampled
 * chroma planes use half the band positions (x_q8 / 2, y_q8 / 2, rounded
 * down) and the same steps. With steps of 65536 a whole-pixel position
 * copies the input exactly.
 * @in: the larger image (NV12, I420, RGB888 or XBGR32).
 * @out: the output: same format, at most @in's size.
 * @step_x_q16: input columns per output column, 1/65536 (1..65536: the
 *              warp enlarges or keeps the scale).
 * @step_y_q16: input rows per output row, likewise.
 * @bands: @num_bands bands, the first at row 0, in increasing rows; every
 *         output pixel of every band must read inside @in.
 * @num_bands: 1..CISP_EIS_MAX_BANDS.
 * @pool: threads to share the rows among, or NULL for the caller's.
 * Return: 0, or -EINVAL with a message for mismatched images, an
 * unsupported format, a step or a band out of range (nothing is written
 * then).
 */
CISP_API int cisp_eis_warp(const struct cisp_image *in, struct cisp_image *out, uint32_t step_x_q16,
			   uint32_t step_y_q16, const struct cisp_eis_band *bands, unsigned num_bands,
			   struct cisp_pool *pool);

/**
 * struct cisp_eis_frame - what the stage did to one frame.
 * @sequence: the frame's sequence (struct cisp_camera_metadata.sequence).
 * @num_bands: bands used.
 * @band: each band's rows and position in the ISP's image with margins
 *        (cisp_eis_warp()).
 * @step_x_q16: the warp's steps (65536: the ISP rendered at the stream's
 *              scale; less: the warp enlarges).
 * @step_y_q16: likewise, vertically.
 * @centre_x_q8: the position of a still camera, 1/256 pixels: the middle
 *              of the range the window moves in.
 * @centre_y_q8: likewise, vertically.
 * @scale_x: the ISP image's columns per sensor mode column.
 * @scale_y: its rows per sensor mode row.
 * @clamped: whether the path left the margin in this frame (the window
 *           stopped at its edge).
 * @warp_ns: wall-clock time the warps of the frame's streams took.
 */
struct cisp_eis_frame {
	uint64_t sequence;
	unsigned num_bands;
	struct cisp_eis_band band[CISP_EIS_MAX_BANDS];
	uint32_t step_x_q16;
	uint32_t step_y_q16;
	uint32_t centre_x_q8;
	uint32_t centre_y_q8;
	double scale_x;
	double scale_y;
	bool clamped;
	uint64_t warp_ns;
};

/**
 * cisp_camera_set_eis() - switch stabilisation of the main and preview
 * streams on or off. A configured camera is configured again with its
 * configuration (the ISP's processed outputs get their margins).
 * @cam: the camera, stopped.
 * @config: the settings (NULL: off).
 * Return: 0; -EBUSY while started; -EINVAL naming a value out of range, or
 * a processed stream in RGB48; -ENOTSUP, with a message, for a camera whose
 * sensor has no gyroscope (V4L2 sensors): EIS stays off; or the error of
 * configuring again (EIS is then off).
 */
CISP_API int cisp_camera_set_eis(struct cisp_camera *cam, const struct cisp_eis_config *config);

/**
 * cisp_camera_eis_frame() - what the stage did to a completed request's
 * main stream (the preview's bands are the same, in its own pixels); kept
 * for the last 16 frames.
 * @cam: the camera.
 * @req: a request completed with status 0.
 * @frame: receives it.
 * Return: 0; -ENOENT when EIS is off or the frame is no longer kept.
 */
CISP_API int cisp_camera_eis_frame(struct cisp_camera *cam, const struct cisp_camera_request *req,
				   struct cisp_eis_frame *frame);

/**
 * cisp_camera_request_gyro() - the gyroscope samples over a completed
 * request's frame: from the start of its first row's exposure to the end of
 * its last row's readout (samples ending in that interval), oldest first.
 * @cam: the camera.
 * @req: a request completed with a frame (its metadata filled).
 * @samples: receives up to @max samples.
 * @max: room in @samples.
 * Return: the number of samples (may exceed @max), or -ENOTSUP for a
 * sensor without a gyroscope.
 */
CISP_API int cisp_camera_request_gyro(struct cisp_camera *cam, const struct cisp_camera_request *req,
				      struct cisp_gyro_sample *samples, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* CISP_EIS_H */
