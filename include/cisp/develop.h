/* SPDX-License-Identifier: MIT */
/**
 * @file develop.h
 * @brief Developing raw files: what `cisp develop` does, for any program.
 *
 * Read a raw input (a camera raw file through LibRaw, a headerless dump or a
 * grey PGM/PNG mosaic) into a raw frame, then run the canonical pipeline on
 * it with develop's defaults: black level and colour from the file's
 * metadata, defect correction and sharpening on, clipped highlights to
 * white, the file's default crop, white balance from the file (or grey
 * world), automatic exposure and the standard tone curve (docs/raw.md), a
 * params buffer on top.
 *
 *	struct cisp_develop_source src;
 *	struct cisp_develop_options opt = { .demosaic = CISP_DEMOSAIC_QUALITY };
 *	struct cisp_raw_frame frame;
 *	struct cisp_image rgb;
 *
 *	cisp_develop_source_init(&src);
 *	if (cisp_develop_read("photo.dng", &src, &frame) ||
 *	    cisp_develop(&frame, &opt, &rgb, NULL))
 *		fprintf(stderr, "%s\n", cisp_last_error());
 *
 * Programs that need the ISP instance itself (to run it several times, or
 * to read its parameter state) use cisp_develop_config() and
 * cisp_develop_prepare(), the two halves of cisp_develop().
 */
#ifndef CISP_DEVELOP_H
#define CISP_DEVELOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/params.h>
#include <cisp/pool.h>
#include <cisp/raw_frame.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_develop_source - how cisp_develop_read() reads an input.
 * @dump_format: a Bayer CISP_FMT_* when the file is a headerless dump (with
 *               @width and @height); 0 otherwise.
 * @width: pixels of a dump.
 * @height: rows of a dump.
 * @cfa: enum cisp_cfa of a PGM/PNG mosaic (-1 for RGGB), or one replacing
 *       a raw file's or dump's own order (-1 keeps it; a warning says when
 *       a file's order is replaced).
 * @black: black level in the input's units replacing the file's, or -1 (a
 *         warning says when a file's own level is replaced).
 * @white: white level in the input's units replacing the file's, or -1
 *         (dumps: the format's largest value; mosaics: the largest sample).
 */
struct cisp_develop_source {
	uint32_t dump_format;
	uint32_t width;
	uint32_t height;
	int cfa;
	int32_t black;
	int32_t white;
};

/**
 * cisp_develop_source_init() - a source that takes everything from the file.
 * @src: receives no dump format, no CFA and no level overrides (-1).
 */
CISP_API void cisp_develop_source_init(struct cisp_develop_source *src);

/**
 * cisp_develop_is_mosaic() - whether cisp_develop_read() reads @path as a
 * PGM/PNG mosaic, from its first bytes (PNG, binary PGM or PPM).
 * @path: the file.
 *
 * Return: true for a mosaic; false for anything else, and for a file that
 * cannot be opened (the reader then says why).
 */
CISP_API bool cisp_develop_is_mosaic(const char *path);

/**
 * cisp_develop_read() - read a raw input: a dump when @src gives a dump
 * format, a PGM/PNG mosaic when the file starts like one, otherwise a camera
 * raw file (DNG, CR2, NEF, ARW, ...) through LibRaw; then apply @src's
 * level overrides.
 * @path: the file.
 * @src: how to read it (cisp_develop_source_init() for the file's own).
 * @frame: receives the frame; free with cisp_raw_frame_free().
 *
 * Return: 0, or a negative errno with a message naming the file (-EINVAL
 * also for a dump without its size, or levels given that leave the black
 * level at or above the white).
 */
CISP_API int cisp_develop_read(const char *path, const struct cisp_develop_source *src, struct cisp_raw_frame *frame);

/** White balance of cisp_develop(). */
enum cisp_develop_awb {
	/** The file's as-shot balance (or daylight from its colour matrix); a
	 *  params buffer's gains when it sets them; grey world when neither. */
	CISP_DEVELOP_AWB_AUTO = 0,
	/** The file's as-shot balance or daylight from its matrix, else grey world. */
	CISP_DEVELOP_AWB_CAMERA = 1,
	/** Grey world on the statistics of a first pass. */
	CISP_DEVELOP_AWB_GREY = 2,
	/** No automatic balance: the file's or the params buffer's gains. */
	CISP_DEVELOP_AWB_NONE = 3,
	/** Daylight (D65) through the file's colour matrix (camera RGB taken as
	 *  linear sRGB without one). */
	CISP_DEVELOP_AWB_DAYLIGHT = 4,
	/** The white of a colour temperature and tint (wb_kelvin, wb_tint)
	 *  through the file's colour matrix (docs/raw.md). */
	CISP_DEVELOP_AWB_TEMPERATURE = 5,
	/** The multipliers wb_gains, divided by the green one. */
	CISP_DEVELOP_AWB_GAINS = 6,
	/** The neutral of the rectangle wb_box of the picture. */
	CISP_DEVELOP_AWB_BOX = 7,
};

/** Tone curve of cisp_develop() (docs/raw.md gives the formulas). */
enum cisp_develop_tone {
	CISP_DEVELOP_TONE_STANDARD = 0, /**< mid-tones lifted, a highlight shoulder into white */
	CISP_DEVELOP_TONE_FILMIC = 1,   /**< a longer shoulder and a toe: more contrast in the mid-tones */
	CISP_DEVELOP_TONE_LINEAR = 2,   /**< no curve: the transfer function only */
};

/**
 * struct cisp_develop_area - a rectangle of a frame, in pixels.
 * @x: left column.
 * @y: top row.
 * @width: columns.
 * @height: rows.
 */
struct cisp_develop_area {
	uint32_t x;
	uint32_t y;
	uint32_t width;
	uint32_t height;
};

/** Clipped highlights of cisp_develop() (docs/stages/highlights.md); 0..2 as enum cisp_highlights_mode. */
enum cisp_develop_highlights {
	CISP_DEVELOP_HIGHLIGHTS_CLIP = 0,        /**< towards white */
	CISP_DEVELOP_HIGHLIGHTS_BLEND = 1,       /**< towards the neutral of the same brightness */
	CISP_DEVELOP_HIGHLIGHTS_RECONSTRUCT = 2, /**< towards the colour of the unclipped pixels around */
	CISP_DEVELOP_HIGHLIGHTS_NONE = 3,        /**< left as clipped: the stage is off */
};

/**
 * struct cisp_develop_options - how cisp_develop() develops a frame; all
 * zero is develop's default.
 * @demosaic: enum cisp_demosaic_algorithm (0: fast).
 * @awb: enum cisp_develop_awb.
 * @ev: exposure compensation in stops, -4..4, added to the automatic exposure
 *      (or to the file's BaselineExposure with @manual_exposure): scales the
 *      white-balance gains.
 * @linear: output for measurement: 16-bit linear light in the output colour
 *          space, without defect correction, tone curve, 3D LUT or sharpening.
 * @full_frame: develop the whole image area, ignoring the file's default crop.
 * @highlights: enum cisp_develop_highlights (0: clip).
 * @output_format: CISP_FMT_RGB888, CISP_FMT_RGB48, CISP_FMT_NV12 or
 *                 CISP_FMT_I420; 0 takes RGB888 (RGB48 with @linear).
 * @output_width: width of the written picture (upright); 0 takes the
 *                developed area's. With @output_height, the picture is
 *                scaled to fit inside both, keeping its aspect ratio,
 *                unless @output_stretch.
 * @output_height: height of the written picture; 0 takes the developed area's.
 * @params: a params buffer (params.h) applied over develop's defaults and
 *          the file's metadata, or NULL.
 * @params_size: its size in bytes.
 * @params_name: what messages call the params buffer (its file's name), or
 *               NULL for "params buffer".
 * @vendor: vendor stages to run (vendor.h), or NULL; it must outlive the ISP.
 * @tone: enum cisp_develop_tone (0: standard).
 * @manual_exposure: no automatic exposure: the exposure is the file's
 *                   BaselineExposure plus @ev (with @linear: @ev only).
 * @output_stretch: scale to exactly @output_width x @output_height.
 * @wb_kelvin: colour temperature of CISP_DEVELOP_AWB_TEMPERATURE, 2000..25000 K.
 * @wb_tint: its tint, -100..100: positive is magenta, the white point moved
 *           by tint / 3000 in CIE 1960 uv across the Planckian locus.
 * @wb_gains: multipliers R, G, B of CISP_DEVELOP_AWB_GAINS, each 0.01..100.
 * @wb_box: the rectangle of CISP_DEVELOP_AWB_BOX, in the picture as written
 *          without @crop (upright, after the default crop).
 * @crop: the part of the picture to develop, in the same coordinates
 *        (moved inwards to even rows and columns of the mosaic); width 0
 *        for the whole picture.
 */
struct cisp_develop_options {
	uint32_t demosaic;
	uint32_t awb;
	double ev;
	bool linear;
	bool full_frame;
	uint16_t highlights;
	uint32_t output_format;
	uint32_t output_width;
	uint32_t output_height;
	const void *params;
	size_t params_size;
	const char *params_name;
	struct cisp_vendor_host *vendor;
	uint16_t tone;
	bool manual_exposure;
	bool output_stretch;
	double wb_kelvin;
	double wb_tint;
	double wb_gains[3];
	struct cisp_develop_area wb_box;
	struct cisp_develop_area crop;
};

/**
 * cisp_develop_area() - the part of a frame cisp_develop() develops.
 * @frame: the raw frame.
 * @opt: the options, or NULL for the defaults.
 *
 * Return: the frame's default crop with its edges moved inwards to even
 * coordinates (so that it starts on the CFA's first colour), or the whole
 * image with @opt's full_frame or when the frame has no usable crop; then
 * @opt's crop within it, its edges moved inwards to even coordinates too.
 * A crop that does not lie inside the picture leaves the area empty (width 0).
 */
CISP_API struct cisp_develop_area cisp_develop_area(const struct cisp_raw_frame *frame,
						    const struct cisp_develop_options *opt);

/**
 * cisp_develop_config() - the ISP configuration cisp_develop() uses.
 * @frame: the raw frame.
 * @opt: the options, or NULL for the defaults.
 * @config: receives the input format and size, the output format and size
 *          (the default crop's, or @opt's size) and the vendor host.
 *
 * Return: 0, or -EINVAL with a message for options out of range.
 */
CISP_API int cisp_develop_config(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
				 struct cisp_isp_config *config);

/**
 * cisp_develop_prepare() - set an ISP instance's parameters as cisp_develop()
 * does: develop's defaults, the frame's metadata (cisp_raw_frame_params()),
 * the crop and the tone curve, @opt's params buffer, then white balance and
 * exposure (automatic, or by hand: scaling the white-balance gains).
 * @isp: an instance made with cisp_develop_config()'s configuration.
 * @frame: the raw frame.
 * @opt: the options, or NULL for the defaults.
 * @output: the instance's output images: grey world runs the pipeline once
 *          into them for its statistics.
 * @pool: worker pool, or NULL.
 *
 * Return: 0, or a negative errno with a message (options out of range, a
 * params buffer the ISP refuses, levels the black-level block cannot hold,
 * a white-balance box with no unclipped sample of a colour).
 */
CISP_API int cisp_develop_prepare(struct cisp_isp *isp, const struct cisp_raw_frame *frame,
				  const struct cisp_develop_options *opt, struct cisp_image *const output[CISP_MAX_OUTPUTS],
				  struct cisp_pool *pool);

/**
 * cisp_develop() - develop a raw frame into a new image.
 * @frame: the raw frame.
 * @opt: the options, or NULL for the defaults.
 * @out: receives the image, allocated with cisp_image_alloc(); free it with
 *       cisp_image_free().
 * @pool: worker pool, or NULL for the calling thread only.
 *
 * Return: 0, or a negative errno with a message.
 */
CISP_API int cisp_develop(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
			  struct cisp_image *out, struct cisp_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* CISP_DEVELOP_H */
