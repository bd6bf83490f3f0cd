/* SPDX-License-Identifier: MIT */
/*
 * The V4L2 sensor backend's inside: the Bayer format table (V4L2 pixel
 * formats and media bus codes), row conversion between a device buffer and
 * a caller image, the media-controller graph (discovery of the sensor that
 * feeds a raw capture node, pipeline set-up, explaining EPIPE), and the
 * messages of the errors users meet.
 */
#ifndef CISP_SENSOR_V4L2_H
#define CISP_SENSOR_V4L2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/format.h>
#include <cisp/image.h>

/* One raw Bayer format as the kernel names it. */
struct v4l2_bayer {
	enum cisp_cfa cfa;
	unsigned bits;      /* significant bits per sample */
	bool packed;        /* MIPI CSI-2 packed (10 and 12 bits) */
	uint32_t fourcc;    /* V4L2 pixel format (cisp uses the same codes) */
	uint32_t mbus;      /* media bus code of the sensor's pad */
};

/* The table entry of a V4L2 pixel format, or NULL when it is not a raw Bayer format cisp reads. */
const struct v4l2_bayer *v4l2_bayer_by_fourcc(uint32_t fourcc);
/* The unpacked table entry of a media bus code, or NULL. */
const struct v4l2_bayer *v4l2_bayer_by_mbus(uint32_t mbus);
/* The packed variant of a format (same CFA and bits), or NULL when it has none. */
const struct v4l2_bayer *v4l2_bayer_packed(const struct v4l2_bayer *b);
/* "SGRBG10_1X10"-style name of a media bus code (hex for codes not in the table). */
const char *v4l2_mbus_name(uint32_t mbus, char buf[24]);
/* "GRBG"-style printable fourcc. */
const char *v4l2_fourcc_str(uint32_t fourcc, char buf[8]);

/* Bytes one row of @width samples of @b needs. */
size_t v4l2_bayer_row_bytes(const struct v4l2_bayer *b, uint32_t width);

/*
 * Check that @bytes of a device buffer with rows @stride bytes apart hold a
 * @width x @height frame of @b (overflow-safe: the driver's numbers are not
 * trusted). Returns 0 or -EINVAL.
 */
int v4l2_check_payload(const struct v4l2_bayer *b, size_t stride, size_t bytes, uint32_t width, uint32_t height);
/*
 * Copy a frame from a device buffer (@src, rows @stride bytes apart, format
 * @b) into @dst, which has the same size and CFA and is in @b's format, its
 * packed or unpacked variant, or the 16-bit format (samples shifted up by
 * 16 - bits). Returns 0, or -EINVAL when @dst's format is none of those or
 * @bytes is too small for the frame.
 */
int v4l2_copy_frame(const struct v4l2_bayer *b, const uint8_t *src, size_t stride, size_t bytes,
		    struct cisp_image *dst);

/*
 * The payload of a dequeued buffer whose mapping has @len bytes: @bytesused
 * (0: the whole buffer) clamped to @len, so that a driver reporting more
 * than it mapped cannot make cisp read past the mapping, less @data_offset
 * (multi-planar; ignored unless inside the payload). Sets *@offset to where
 * the payload starts and returns its size.
 */
size_t v4l2_payload(size_t len, uint32_t bytesused, uint32_t data_offset, size_t *offset);

/*
 * Frame sizes offered as modes when a device gives a continuous or stepwise
 * range: these common sizes that fit in [min, max] and on the step, then
 * the largest size. Writes up to @max entries to @w/@h and returns how many.
 */
unsigned v4l2_range_sizes(uint32_t min_w, uint32_t max_w, uint32_t step_w, uint32_t min_h, uint32_t max_h,
			  uint32_t step_h, uint32_t *w, uint32_t *h, unsigned max);

/* The message for a failed open() of @path with @err (errno): permission, busy, missing. Returns -err. */
int v4l2_open_error(const char *path, int err);

struct cisp_sensor;
/* Did the driver export the open V4L2 camera's buffers as dmabufs at the last start? */
bool v4l2_dmabuf_exported(const struct cisp_sensor *s);

/* ---- media controller ---- */

struct media_graph;

/* A pad on the way from the sensor to the capture node. */
struct media_hop {
	uint32_t entity;       /* entity id */
	char name[64];         /* entity name */
	char devnode[64];      /* /dev/v4l-subdevN, or "" for the video node */
	uint32_t sink_pad;     /* pad index where the stream enters (unused for the sensor) */
	uint32_t source_pad;   /* pad index where it leaves (unused for the video node) */
	uint32_t link_source;  /* pad ids of the link that feeds this hop (0 for the sensor) */
	uint32_t link_sink;
	uint32_t link_flags;
};

#define MEDIA_MAX_HOPS 8

/* The chain from a sensor to a capture node: hops[0] is the sensor, the last the video node. */
struct media_chain {
	struct media_hop hops[MEDIA_MAX_HOPS];
	unsigned num_hops;
	char lens_devnode[64]; /* the sensor's focus lens subdev (ancillary link), or "" */
	char media_devnode[64];
	char driver[32];       /* media device driver ("vimc") */
	char model[64];        /* media device model */
};

/* What media_find_chain() found. */
enum media_chain_kind {
	MEDIA_CHAIN_NONE = 0,      /* the node is in the graph but nothing feeds it (a standalone node) */
	MEDIA_CHAIN_SENSOR = 1,    /* a sensor feeds it over receivers and bridges: a raw capture node */
	MEDIA_CHAIN_PROCESSED = 2, /* a processing entity is on the way: not raw sensor data */
};

/*
 * Find the sensor feeding the video node (char device @maj:@min) through
 * the media device at @media_path: walk sink pads upstream over data links
 * (enabled first) through bridges and receivers up to an entity of function
 * CAM_SENSOR. Returns an enum media_chain_kind (@chain is filled for
 * MEDIA_CHAIN_SENSOR), -ENOENT when the node is not in that graph, or
 * another negative errno.
 */
int media_find_chain(const char *media_path, uint32_t maj, uint32_t min, struct media_chain *chain);

/*
 * Configure the pipeline of @chain for @mbus @width x @height: enable its
 * links, disable the other mutable enabled links of the graph part it is in
 * (they would join the pipeline the kernel validates at stream start), set
 * the format on the sensor's source pad and on both pads of every hop, and
 * on every other sink pad an enabled link from the chain feeds.
 */
int media_configure(const struct media_chain *chain, uint32_t mbus, uint32_t width, uint32_t height);

/*
 * After STREAMON failed with EPIPE: compare the formats along @chain with
 * the video node's (@mbus at @width x @height) and return -EPIPE with a
 * message naming the first link whose two ends disagree.
 */
int media_explain_epipe(const struct media_chain *chain, const char *video, uint32_t mbus, uint32_t width,
			uint32_t height);

/*
 * The message of a pipeline mismatch: pad formats (@src_* on @src:@spad,
 * @dst_* on @dst:@dpad). Returns -EPIPE. Split out so its wording is tested.
 */
int media_mismatch_error(const char *video, const char *src, unsigned spad, uint32_t src_code, uint32_t src_w,
			 uint32_t src_h, const char *dst, unsigned dpad, uint32_t dst_code, uint32_t dst_w,
			 uint32_t dst_h);

#endif
