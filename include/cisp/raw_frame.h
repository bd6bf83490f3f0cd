/* SPDX-License-Identifier: MIT */
/**
 * @file raw_frame.h
 * @brief A raw Bayer frame with what is known about it, and the readers that
 * make one from a file: headerless dumps and grey PGM/PNG mosaics.
 *
 * Levels are in the frame's own units (a 10-bit frame's white is at most
 * 1023). cisp_raw_frame_params() turns what is known into ISP parameters.
 */
#ifndef CISP_RAW_FRAME_H
#define CISP_RAW_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/params_state.h>
#include <cisp/raster.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_raw_frame - a raw frame and its metadata.
 * @image: the mosaic, in a Bayer format (owned: cisp_image_alloc()).
 * @black: black level per channel (R, Gr, Gb, B), in the frame's units.
 * @white: white (saturation) level, in the frame's units.
 * @has_wb: @wb_gains holds white-balance gains for the scene's light.
 * @wb_gains: per-channel gains (R, G, B) that make a neutral grey; G is 1.
 * @has_matrix: @xyz_to_cam holds the camera's colour matrix.
 * @xyz_to_cam: 3x3 row-major matrix from CIE XYZ to the camera's raw RGB
 *              (the convention of DNG's ColorMatrix), for a D65 scene.
 * @orientation: EXIF orientation 1..8 (1 = as stored).
 * @make: camera maker, or empty.
 * @model: camera model, or empty.
 * @exposure_s: exposure time in seconds, 0 if unknown.
 * @iso: ISO speed, 0 if unknown.
 * @fnumber: lens aperture (f-number), 0 if unknown.
 * @focal_mm: focal length in millimetres, 0 if unknown.
 * @datetime: capture time as EXIF writes it ("YYYY:MM:DD HH:MM:SS"), or empty.
 * @crop: the part of the image meant to be shown (a DNG's default crop), in
 *        the image's pixel coordinates; width 0 means the whole image.
 * @defaults: CISP_RAW_DEFAULT_* bits of the values that the file did not
 *            carry and a stated default replaced (a warning was logged).
 * @baseline_ev: exposure the file asks to add, in stops (a DNG's
 *               BaselineExposure), 0 if none.
 */
struct cisp_raw_frame {
	struct cisp_image image;
	uint16_t black[4];
	uint16_t white;
	bool has_wb;
	float wb_gains[3];
	bool has_matrix;
	float xyz_to_cam[9];
	int orientation;
	char make[64];
	char model[64];
	float exposure_s;
	float iso;
	float fnumber;
	float focal_mm;
	char datetime[20];
	struct {
		uint32_t x, y, width, height;
	} crop;
	unsigned defaults;
	float baseline_ev;
};

/** The file had no black level; 0 was used. */
#define CISP_RAW_DEFAULT_BLACK (1u << 0)
/** The file had no white level; the largest value of its bit depth was used. */
#define CISP_RAW_DEFAULT_WHITE (1u << 1)
/** The file had no colour matrix; camera RGB is taken as linear sRGB. */
#define CISP_RAW_DEFAULT_MATRIX (1u << 2)
/** The file had no as-shot white balance. */
#define CISP_RAW_DEFAULT_WB (1u << 3)

/**
 * cisp_raw_read_dump() - read a headerless raw frame (a V4L2 capture dump):
 * the file must hold exactly the bytes of a tightly packed image.
 * @path: the file.
 * @format: a Bayer CISP_FMT_*.
 * @width: pixels.
 * @height: rows.
 * @frame: receives the frame; black 0 and white 2^bits - 1 until told
 *         otherwise. Free with cisp_raw_frame_free().
 *
 * Return: 0, or a negative errno with a message (-EMSGSIZE when the file's
 * size does not match, giving both sizes and the size the format implies).
 */
CISP_API int cisp_raw_read_dump(const char *path, uint32_t format, uint32_t width, uint32_t height,
				struct cisp_raw_frame *frame);

/**
 * cisp_raw_from_raster() - make a raw frame from a grey raster holding a
 * Bayer mosaic (a 16-bit PGM or PNG).
 * @raster: the mosaic (1 channel).
 * @cfa: its CFA order.
 * @black: black level in the raster's units.
 * @white: white level in the raster's units; 0 takes the largest sample.
 * @frame: receives the frame, stored in the smallest Bayer format of 8, 10,
 *         12, 14 or 16 bits that holds @white (samples above it are clipped).
 *
 * Return: 0, or -EINVAL (not grey, odd size, black not below white...).
 */
CISP_API int cisp_raw_from_raster(const struct cisp_raster *raster, enum cisp_cfa cfa, unsigned black, unsigned white,
				  struct cisp_raw_frame *frame);

/**
 * cisp_raw_frame_params() - set the blocks of a parameter state that the
 * frame's metadata determines: BLC from the levels; WB and CCM when the
 * frame carries white balance and a colour matrix.
 * @frame: the frame.
 * @state: the state to update (other blocks are left as they are).
 *
 * Return: 0, or -EINVAL when the levels are unusable (white - black too
 * small for the BLC block).
 */
CISP_API int cisp_raw_frame_params(const struct cisp_raw_frame *frame, struct cisp_param_state *state);

/**
 * cisp_raw_frame_free() - free the frame's image.
 * @frame: the frame (may be NULL).
 */
CISP_API void cisp_raw_frame_free(struct cisp_raw_frame *frame);

#ifdef __cplusplus
}
#endif

#endif /* CISP_RAW_FRAME_H */
