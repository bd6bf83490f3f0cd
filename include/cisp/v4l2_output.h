/* SPDX-License-Identifier: MIT */
/**
 * @file v4l2_output.h
 * @brief Feeding a V4L2 video output device, such as a v4l2loopback webcam
 * that applications open as a camera (docs/webcam.md).
 *
 * The writer sets the device's output format (YUYV or NV12 at a size) and
 * frame interval once, then writes one whole frame per call with write(),
 * the read/write I/O that v4l2loopback offers. Frames come in as NV12 (the
 * ISP's main stream) and are packed into the device's layout.
 */
#ifndef CISP_V4L2_OUTPUT_H
#define CISP_V4L2_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The V4L2 code of YUYV (4:2:2, Y0 Cb Y1 Cr), the format every webcam application reads. */
#define CISP_V4L2_OUTPUT_YUYV 0x56595559u
/** The V4L2 code of NV12 (4:2:0, a Y plane then interleaved CbCr), as cisp's CISP_FMT_NV12. */
#define CISP_V4L2_OUTPUT_NV12 0x3231564eu

/** An open output device; opaque. */
struct cisp_v4l2_output;

/**
 * struct cisp_v4l2_output_config - what the device is to carry.
 * @pixelformat: CISP_V4L2_OUTPUT_YUYV or CISP_V4L2_OUTPUT_NV12.
 * @width: frame width, even, 2..8192.
 * @height: frame height, even, 2..8192.
 * @fps_num: frame rate numerator (the frame interval is @fps_den / @fps_num s).
 * @fps_den: frame rate denominator.
 */
struct cisp_v4l2_output_config {
	uint32_t pixelformat;
	uint32_t width;
	uint32_t height;
	unsigned fps_num;
	unsigned fps_den;
};

/**
 * cisp_v4l2_output_frame_size() - bytes of one frame in the device's layout.
 * @config: the format.
 *
 * Return: the size, or 0 for a format or size the writer does not take
 * (cisp_v4l2_output_open() says why).
 */
CISP_API size_t cisp_v4l2_output_frame_size(const struct cisp_v4l2_output_config *config);

/**
 * cisp_v4l2_output_pack() - an NV12 frame in the layout of @config.
 * @config: the format.
 * @frame: an NV12 image of @config's size (rows may be padded).
 * @dst: receives cisp_v4l2_output_frame_size() bytes, rows unpadded.
 * @size: room in @dst.
 *
 * YUYV repeats each chroma row of NV12 on the two rows it covers; NV12 is
 * copied. Luma and chroma are not changed.
 *
 * Return: 0, or -EINVAL with a message for a frame of another format or
 * size, or too little room.
 */
CISP_API int cisp_v4l2_output_pack(const struct cisp_v4l2_output_config *config, const struct cisp_image *frame,
				   uint8_t *dst, size_t size);

/**
 * cisp_v4l2_output_find() - the first V4L2 output device of v4l2loopback.
 * @path: receives "/dev/videoN".
 * @size: room in @path.
 *
 * Return: 0, or -ENOENT with a message saying how to create one.
 */
CISP_API int cisp_v4l2_output_find(char *path, size_t size);

/**
 * cisp_v4l2_output_open() - open an output device and set its format and
 * frame interval.
 * @out: receives the writer.
 * @path: the device ("/dev/videoN").
 * @config: the format and frame rate.
 *
 * The device keeps its format while a reader streams: a format other than
 * the one it carries then fails with -EBUSY, naming the format it has. A
 * v4l2loopback device loaded with exclusive_caps=1 offers no output while
 * another writer feeds it: -EBUSY too.
 *
 * Nothing is written to a file that is not a V4L2 video output (a symbolic
 * link is judged by what it names: /dev/v4l/by-path/ names are links).
 *
 * Return: 0, or a negative errno with a message: -EINVAL for a bad
 * @config; the error of open(); -ENOTTY for a file that is not a character
 * device, or a device without video output and write() I/O; -EBUSY; -ENOMEM.
 */
CISP_API int cisp_v4l2_output_open(struct cisp_v4l2_output **out, const char *path,
				   const struct cisp_v4l2_output_config *config);

/**
 * cisp_v4l2_output_write() - pack and write one frame.
 * @out: the writer.
 * @frame: an NV12 image of the writer's size.
 *
 * Blocks while the device is full (v4l2loopback never is: a new frame
 * replaces the oldest one nobody has read).
 *
 * Return: 0, -EINVAL for a wrong frame, or -EIO (-errno) with a message
 * when the device refuses the frame.
 */
CISP_API int cisp_v4l2_output_write(struct cisp_v4l2_output *out, const struct cisp_image *frame);

/**
 * cisp_v4l2_output_close() - close the device and free the writer.
 * @out: the writer (may be NULL).
 */
CISP_API void cisp_v4l2_output_close(struct cisp_v4l2_output *out);

#ifdef __cplusplus
}
#endif

#endif /* CISP_V4L2_OUTPUT_H */
