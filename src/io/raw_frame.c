/* SPDX-License-Identifier: MIT */
/* Raw frames from headerless dumps and grey mosaics, and their ISP parameters. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/input_file.h>
#include <cisp/raw_frame.h>

#include "abi/fixed_point.h"
#include "core/error_internal.h"
#include "core/matrix3.h"
#include "raw_samples.h"

static void default_levels(struct cisp_raw_frame *frame, unsigned bits)
{
	frame->white = (uint16_t)((1u << bits) - 1);
	frame->orientation = 1;
}

int cisp_raw_read_dump(const char *path, uint32_t format, uint32_t width, uint32_t height,
		       struct cisp_raw_frame *frame)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	struct cisp_image *img = &frame->image;
	size_t need, row_bytes, rows;
	uint64_t size;
	FILE *file;
	int ret;

	memset(frame, 0, sizeof(*frame));
	if (!f || f->kind != CISP_KIND_BAYER)
		return cisp_error(-EINVAL, "%s: raw format %s is not a Bayer format", path, cisp_format_name(format));
	need = cisp_image_packed_size(format, width, height);
	if (!need)
		return cisp_error_prefix(-EINVAL, "%s", path);
	if ((ret = cisp_input_file_open(path, &file, &size)))
		return ret;
	if (size != need) {
		fclose(file);
		return cisp_error(-EMSGSIZE, "%s holds %llu bytes, but a %ux%u %s frame is %zu bytes", path,
				  (unsigned long long)size, width, height, f->name, need);
	}
	ret = cisp_image_alloc(img, format, width, height);
	if (ret) {
		fclose(file);
		return ret;
	}
	cisp_image_plane_size(format, width, height, 0, &row_bytes, &rows);
	for (size_t y = 0; y < rows; y++) {
		if (fread(img->plane[0].data + y * img->plane[0].stride, 1, row_bytes, file) != row_bytes) {
			fclose(file);
			cisp_image_free(img);
			return cisp_error(-EIO, "%s: short read at row %zu", path, y);
		}
	}
	fclose(file);
	default_levels(frame, f->bits);
	return 0;
}

unsigned raw_depth_for(unsigned white)
{
	static const unsigned depths[] = { 8, 10, 12, 14, 16 };

	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++)
		if ((1u << depths[i]) - 1 >= white)
			return depths[i];
	return 16;
}

void raw_store_row(uint8_t *dst, const uint16_t *src, uint32_t width, unsigned bits)
{
	const unsigned limit = (1u << bits) - 1;

	for (uint32_t x = 0; x < width; x++) {
		unsigned v = src[x] > limit ? limit : src[x];

		if (bits == 8) {
			dst[x] = (uint8_t)v;
		} else {
			dst[2 * x] = (uint8_t)v;
			dst[2 * x + 1] = (uint8_t)(v >> 8);
		}
	}
}

int cisp_raw_from_raster(const struct cisp_raster *raster, enum cisp_cfa cfa, unsigned black, unsigned white,
			 struct cisp_raw_frame *frame)
{
	size_t n = (size_t)raster->width * raster->height;
	unsigned bits;
	uint32_t format;
	int ret;

	memset(frame, 0, sizeof(*frame));
	if (raster->channels != 1)
		return cisp_error(-EINVAL, "a Bayer mosaic must be a grey image, not RGB");
	if (raster->width % 2 || raster->height % 2)
		return cisp_error(-EINVAL, "a Bayer mosaic must have an even size, not %ux%u", raster->width,
				  raster->height);
	if (white == 0)
		for (size_t i = 0; i < n; i++)
			white = raster->data[i] > white ? raster->data[i] : white;
	if (white > 65535 || black >= white)
		return cisp_error(-EINVAL, "black level %u must be below the white level %u", black, white);
	bits = raw_depth_for(white);
	format = cisp_bayer_format(cfa, bits, false);
	ret = cisp_image_alloc(&frame->image, format, raster->width, raster->height);
	if (ret)
		return ret;
	for (uint32_t y = 0; y < raster->height; y++)
		raw_store_row(frame->image.plane[0].data + y * frame->image.plane[0].stride,
			      raster->data + (size_t)y * raster->width, raster->width, bits);
	default_levels(frame, bits);
	frame->white = (uint16_t)white;
	for (int c = 0; c < 4; c++)
		frame->black[c] = (uint16_t)black;
	return 0;
}

/*
 * Camera to linear sRGB from an XYZ-to-camera matrix: A = xyz_to_cam *
 * srgb_to_xyz maps sRGB to camera RGB; scaling its rows to sum to 1 makes
 * sRGB white land on camera (1, 1, 1), i.e. on white-balanced camera RGB;
 * its inverse is the CCM. The row sums themselves are the camera's response
 * to D65 white, whose reciprocals are the daylight white-balance gains.
 */
static int matrix_to_ccm(const float xyz_to_cam[9], double ccm[3][3], double daylight_gains[3])
{
	static const double srgb_to_xyz[9] = { 0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522,
					       0.0721750, 0.0193339, 0.1191920, 0.9503041 };
	double a[3][3];

	for (int i = 0; i < 3; i++) {
		double sum = 0;
		for (int j = 0; j < 3; j++) {
			a[i][j] = 0;
			for (int k = 0; k < 3; k++)
				a[i][j] += xyz_to_cam[3 * i + k] * srgb_to_xyz[3 * k + j];
			sum += a[i][j];
		}
		if (sum <= 1e-9)
			return -1;
		for (int j = 0; j < 3; j++)
			a[i][j] /= sum;
		daylight_gains[i] = 1.0 / sum;
	}
	for (int i = 0; i < 3; i += 2) /* green last: each divided by the same green */
		daylight_gains[i] /= daylight_gains[1];
	daylight_gains[1] = 1;
	return fabs(matrix3_invert(a, ccm)) >= 1e-12 ? 0 : -1;
}

int cisp_raw_frame_params(const struct cisp_raw_frame *frame, struct cisp_param_state *state)
{
	const struct cisp_format_info *f = cisp_format_info(frame->image.format);
	unsigned shift = f ? 16 - f->bits : 0;
	double ccm[3][3], daylight[3], wb[3] = { 1, 1, 1 };
	bool set_wb = frame->has_wb;
	uint32_t white16;

	if (!f || f->kind != CISP_KIND_BAYER)
		return cisp_error(-EINVAL, "the frame is not a Bayer image");
	white16 = (uint32_t)frame->white << shift;
	if (white16 > 65535)
		white16 = 65535;
	for (int c = 0; c < 4; c++) {
		uint32_t black16 = (uint32_t)frame->black[c] << shift;
		if (black16 + 16384 > white16)
			return cisp_error(-EINVAL,
					  "black level %u and white level %u leave too small a signal range (white "
					  "- black must be at least a quarter of the %u-bit range)",
					  frame->black[c], frame->white, f->bits);
		state->blc.black[c] = (uint16_t)black16;
	}
	state->blc.white = (uint16_t)white16;
	state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC);

	if (frame->has_matrix && matrix_to_ccm(frame->xyz_to_cam, ccm, daylight) == 0) {
		long q[3][3];
		bool fits = true;

		/* A matrix whose rows do not fit Q3.12 is left out; each row keeps white exactly white. */
		for (int i = 0; i < 3; i++)
			fits = abi_fixed_ccm_row(ccm[i], i, true, q[i]) == 0 && fits;
		if (fits) {
			for (int i = 0; i < 3; i++) {
				for (int j = 0; j < 3; j++)
					state->ccm.coeff[3 * i + j] = (int16_t)q[i][j];
				state->ccm.offset[i] = 0;
			}
			state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CCM);
		}
		if (!frame->has_wb) {
			memcpy(wb, daylight, sizeof(wb));
			set_wb = true;
		}
	}
	if (frame->has_wb)
		for (int i = 0; i < 3; i++)
			wb[i] = frame->wb_gains[i];
	if (set_wb) {
		state->wb.gain[CISP_CH_R] = abi_fixed_u16(wb[0], 4096);
		state->wb.gain[CISP_CH_GR] = abi_fixed_u16(wb[1], 4096);
		state->wb.gain[CISP_CH_GB] = abi_fixed_u16(wb[1], 4096);
		state->wb.gain[CISP_CH_B] = abi_fixed_u16(wb[2], 4096);
		state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	}
	return 0;
}

void cisp_raw_frame_free(struct cisp_raw_frame *frame)
{
	if (frame)
		cisp_image_free(&frame->image);
}
