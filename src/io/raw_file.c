/* SPDX-License-Identifier: MIT */
/* Camera raw files through LibRaw's C API: decode, check it is Bayer, map the metadata. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libraw/libraw.h>

#include <cisp/input_file.h>
#include <cisp/log.h>
#include <cisp/raw_file.h>

#include "core/error_internal.h"
#include "core/matrix3.h"
#include "io/dng_opcodes.h"
#include "io/dng_tags.h"
#include "io/raw_samples.h"

/* Largest raw file read (LibRaw's own allocation limit is about the same). */
#define MAX_FILE_SIZE ((size_t)2 << 30)

/* What LibRaw's callbacks report while decoding. */
struct decode_report {
	int data_errors;
	int first_offset;
	int memory_errors;
};

static void on_data_error(void *data, const char *file, const int offset)
{
	struct decode_report *r = data;

	(void)file;
	if (!r->data_errors++)
		r->first_offset = offset;
}

static void on_memory_error(void *data, const char *file, const char *where)
{
	struct decode_report *r = data;

	(void)file;
	(void)where;
	r->memory_errors++;
}

static int errno_of(int libraw_err)
{
	switch (libraw_err) {
	case LIBRAW_FILE_UNSUPPORTED:
		return -ENOTSUP;
	case LIBRAW_IO_ERROR:
		return -EIO;
	case LIBRAW_TOO_BIG:
		return -EFBIG;
	case LIBRAW_UNSUFFICIENT_MEMORY:
		return -ENOMEM;
	default:
		return -EINVAL;
	}
}

static bool is_green(int colour)
{
	return colour == 1 || colour == 3;
}

/*
 * Refuse what is not a 2x2 Bayer mosaic of R, G, B, saying what the file
 * holds. Called after identification, before any pixel is decoded.
 */
static int check_bayer(libraw_data_t *lr, const char *name)
{
	const libraw_iparams_t *id = &lr->idata;
	int n[4] = { 0, 0, 0, 0 };

	if (id->is_foveon)
		return cisp_error(-ENOTSUP,
				  "%s: a Foveon X3 file (%s %s): every pixel holds three colour samples, and cisp's "
				  "ISP starts from a Bayer mosaic",
				  name, id->make, id->model);
	if (id->filters == 9)
		return cisp_error(-ENOTSUP,
				  "%s: an X-Trans sensor (%s %s, 6x6 colour filter pattern): cisp's ISP handles 2x2 "
				  "Bayer patterns only",
				  name, id->make, id->model);
	if (id->filters == 0) {
		if (id->colors == 1)
			return cisp_error(-ENOTSUP,
					  "%s: a monochrome raw (%s %s, no colour filter array): cisp's ISP starts "
					  "from a Bayer mosaic",
					  name, id->make, id->model);
		if (id->dng_version)
			return cisp_error(-ENOTSUP,
					  "%s: a linear DNG (already demosaiced, %d colour samples per pixel): cisp's "
					  "ISP starts from a Bayer mosaic",
					  name, id->colors);
		return cisp_error(-ENOTSUP,
				  "%s: %s %s raw data with several colour samples per pixel (a YCbCr sRAW/mRAW or "
				  "demosaiced raw), not a Bayer mosaic",
				  name, id->make, id->model);
	}
	if (id->filters < 1000 || id->colors != 3)
		return cisp_error(-ENOTSUP,
				  "%s: %s %s has a colour filter array that is not a 2x2 R, G, B Bayer pattern "
				  "(%d colours '%.4s')",
				  name, id->make, id->model, id->colors, id->cdesc);
	/* dcraw-style filters describe 8x2 cells: check the pattern really repeats every 2x2. */
	for (int r = 0; r < 16; r++)
		for (int c = 0; c < 16; c++)
			if (libraw_COLOR(lr, r, c) != libraw_COLOR(lr, r & 1, c & 1))
				return cisp_error(-ENOTSUP, "%s: the colour filter pattern does not repeat every 2x2 pixels",
						  name);
	for (int i = 0; i < 4; i++) {
		int colour = libraw_COLOR(lr, i >> 1, i & 1);
		n[colour < 0 || colour > 3 ? 0 : is_green(colour) ? 1 : colour]++;
	}
	if (n[0] != 1 || n[1] != 2 || n[2] != 1)
		return cisp_error(-ENOTSUP, "%s: the 2x2 colour filter pattern is not one red, two green, one blue", name);
	return 0;
}

/* CFA order of the visible area's top-left 2x2 (cisp lists (0,0), (1,0), (0,1), (1,1) as x, y). */
static enum cisp_cfa cfa_of(libraw_data_t *lr)
{
	int c00 = libraw_COLOR(lr, 0, 0), c01 = libraw_COLOR(lr, 0, 1);

	if (c00 == 0)
		return CISP_CFA_RGGB;
	if (c00 == 2)
		return CISP_CFA_BGGR;
	return c01 == 0 ? CISP_CFA_GRBG : CISP_CFA_GBRG;
}

/*
 * Black level per CISP channel. LibRaw keeps a common level, a level per
 * colour (cblack[0..3]) and a repeating pattern (cblack[4] rows by cblack[5]
 * columns from cblack[6], anchored at the visible area's corner). Fold them
 * into one level per 2x2 position: the mean of the pattern entries that fall
 * on that position over a tile of both periods (one entry when the pattern
 * repeats every 2x2); a pattern that differs within a position is reported.
 */
static void black_levels(libraw_data_t *lr, const char *name, enum cisp_cfa cfa, uint16_t black[4])
{
	const libraw_colordata_t *col = &lr->color;
	unsigned ph = col->cblack[4], pw = col->cblack[5];
	bool pattern = ph && pw && ph <= 64 && pw <= 64 && ph * pw <= LIBRAW_CBLACK_SIZE - 6;
	bool varies = false;

	for (unsigned y = 0; y < 2; y++) {
		for (unsigned x = 0; x < 2; x++) {
			double level = (double)col->black + col->cblack[libraw_COLOR(lr, (int)y, (int)x) & 3];
			if (pattern) {
				unsigned th = ph % 2 ? 2 * ph : ph, tw = pw % 2 ? 2 * pw : pw;
				unsigned first = col->cblack[6 + (y % ph) * pw + x % pw];
				double sum = 0;
				int count = 0;
				for (unsigned r = y; r < th; r += 2)
					for (unsigned c = x; c < tw; c += 2, count++) {
						unsigned v = col->cblack[6 + (r % ph) * pw + c % pw];
						varies |= v != first;
						sum += v;
					}
				level += sum / count;
			}
			black[cisp_cfa_channel(cfa, x, y)] = (uint16_t)(level > 65535 ? 65535 : lround(level));
		}
	}
	if (varies)
		cisp_log(CISP_LOG_WARN, "%s: the black level varies over a %ux%u pattern; using its mean per channel",
			 name, ph, pw);
}

/* dcraw's flip code to the EXIF orientation it stands for. */
static int orientation_of(int flip)
{
	static const int exif[8] = { 1, 2, 4, 3, 5, 8, 6, 7 };

	return flip >= 0 && flip < 8 ? exif[flip] : 1;
}

/*
 * The XYZ-to-camera matrix LibRaw actually uses. LibRaw picks one of a
 * DNG's matrices (by illuminant) or its own table for other files, folds
 * in CameraCalibration and AnalogBalance, and keeps only the results:
 * rgb_cam = inverse of the row-normalised (xyz_to_cam * srgb_to_xyz), and
 * pre_mul = the reciprocals of the row sums (the daylight multipliers).
 * Undoing that gives xyz_to_cam = diag(1 / pre_mul) * inverse(rgb_cam) *
 * xyz_to_srgb, which makes cisp's CCM and daylight white balance the same
 * as LibRaw's.
 */
static int libraw_matrix(const libraw_colordata_t *col, float xyz_to_cam[9])
{
	static const double xyz_to_srgb[9] = { 3.2404542, -1.5371385, -0.4985314, -0.9692660, 1.8760108,
					       0.0415560, 0.0556434, -0.2040259, 1.0572252 };
	double rgb_cam[3][3], a[3][3];

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			rgb_cam[i][j] = col->rgb_cam[i][j];
	if (!(fabs(matrix3_invert(rgb_cam, a)) > 1e-12))
		return -1;
	for (int i = 0; i < 3; i++) {
		double scale = col->pre_mul[i] > 0 && isfinite(col->pre_mul[i]) ? 1.0 / col->pre_mul[i] : 1.0;
		for (int j = 0; j < 3; j++) {
			double v = 0;
			for (int k = 0; k < 3; k++)
				v += scale * a[i][k] * xyz_to_srgb[3 * k + j];
			if (!isfinite(v))
				return -1;
			xyz_to_cam[3 * i + j] = (float)v;
		}
	}
	return 0;
}

static bool has_libraw_matrix(const libraw_colordata_t *col)
{
	double cam_xyz = 0, off_identity = 0;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			cam_xyz += fabs(col->cam_xyz[i][j]);
			off_identity += fabs(col->rgb_cam[i][j] - (i == j));
		}
	return cam_xyz > 1e-6 || off_identity > 1e-6;
}

/* Everything but the pixels and the levels: colour, orientation, crop, camera and exposure. */
static void map_metadata(libraw_data_t *lr, const char *name, const struct dng_tags *tags,
			 struct cisp_raw_frame *frame)
{
	const libraw_colordata_t *col = &lr->color;

	frame->has_matrix = (tags->has_matrix || has_libraw_matrix(col)) && !libraw_matrix(col, frame->xyz_to_cam);
	if (!frame->has_matrix) {
		memset(frame->xyz_to_cam, 0, sizeof(frame->xyz_to_cam));
		frame->defaults |= CISP_RAW_DEFAULT_MATRIX;
		cisp_log(CISP_LOG_WARN, "%s: no colour matrix; taking camera RGB as linear sRGB", name);
	}
	if (tags->has_neutral && col->cam_mul[0] > 0 && col->cam_mul[1] > 0 && col->cam_mul[2] > 0 &&
	    isfinite(col->cam_mul[0]) && isfinite(col->cam_mul[1]) && isfinite(col->cam_mul[2])) {
		frame->has_wb = true;
		frame->wb_gains[0] = col->cam_mul[0] / col->cam_mul[1];
		frame->wb_gains[1] = 1.0f;
		frame->wb_gains[2] = col->cam_mul[2] / col->cam_mul[1];
	} else {
		frame->defaults |= CISP_RAW_DEFAULT_WB;
		cisp_log(CISP_LOG_WARN, "%s: no as-shot white balance; %s", name,
			 frame->has_matrix ? "using daylight (D65) white balance from the colour matrix"
					   : "white balance is left to automatic white balance");
	}
	frame->orientation = orientation_of(lr->sizes.flip);
	snprintf(frame->make, sizeof(frame->make), "%s", lr->idata.make);
	snprintf(frame->model, sizeof(frame->model), "%s", lr->idata.model);
	frame->exposure_s = lr->other.shutter > 0 && isfinite(lr->other.shutter) ? lr->other.shutter : 0;
	frame->iso = lr->other.iso_speed > 0 && isfinite(lr->other.iso_speed) ? lr->other.iso_speed : 0;
	frame->fnumber = lr->other.aperture > 0 && isfinite(lr->other.aperture) ? lr->other.aperture : 0;
	frame->focal_mm = lr->other.focal_len > 0 && isfinite(lr->other.focal_len) ? lr->other.focal_len : 0;
	if (lr->other.timestamp > 0) {
		struct tm tm;
		time_t t = lr->other.timestamp;
		if (localtime_r(&t, &tm) && tm.tm_year >= 0 && tm.tm_year < 8100)
			strftime(frame->datetime, sizeof(frame->datetime), "%Y:%m:%d %H:%M:%S", &tm);
	}
	/* A DNG's default crop is relative to the active area, which is the frame (before the cut to even). */
	if (tags->has_crop) {
		double x = ceil(tags->crop[0]), y = ceil(tags->crop[1]);
		double w = floor(tags->crop[0] + tags->crop[2]) - x, h = floor(tags->crop[1] + tags->crop[3]) - y;
		if (x >= 0 && y >= 0 && w >= 1 && h >= 1 && x + w <= frame->image.width && y + h <= frame->image.height) {
			frame->crop.x = (uint32_t)x;
			frame->crop.y = (uint32_t)y;
			frame->crop.width = (uint32_t)w;
			frame->crop.height = (uint32_t)h;
		} else {
			cisp_log(CISP_LOG_WARN, "%s: the default crop %gx%g at (%g, %g) is outside the %ux%u image; ignored",
				 name, tags->crop[2], tags->crop[3], tags->crop[0], tags->crop[1], frame->image.width,
				 frame->image.height);
		}
	}
	if (lr->sizes.pixel_aspect > 0 && fabs(lr->sizes.pixel_aspect - 1.0) > 1e-3)
		cisp_log(CISP_LOG_WARN, "%s: pixels are not square (aspect %.3f); the image is not resampled", name,
			 lr->sizes.pixel_aspect);
}

/* Levels: black per channel, white, with the stated defaults for a DNG that lacks them. */
static int map_levels(libraw_data_t *lr, const char *name, const struct dng_tags *tags, enum cisp_cfa cfa,
		      struct cisp_raw_frame *frame)
{
	unsigned white = lr->color.maximum;

	black_levels(lr, name, cfa, frame->black);
	if (!tags->has_black) {
		frame->defaults |= CISP_RAW_DEFAULT_BLACK;
		cisp_log(CISP_LOG_WARN, "%s: no BlackLevel; using %u", name, frame->black[0]);
	}
	/* The tag as written: LibRaw replaces a WhiteLevel of 0 with its default and keeps one beyond 16 bits. */
	if (tags->is_dng && tags->has_white && tags->white == 0)
		return cisp_error(-EINVAL, "%s: WhiteLevel 0 leaves no signal range", name);
	if (tags->is_dng && tags->has_white && tags->white > 65535)
		return cisp_error(-EINVAL, "%s: WhiteLevel %u is beyond the largest 16-bit sample, 65535", name,
				  tags->white);
	if (!tags->has_white || white == 0 || white > 65535) {
		/* LibRaw already fills in 2^BitsPerSample - 1 for a DNG without WhiteLevel. */
		if (white == 0 || white > 65535)
			white = 65535;
		frame->defaults |= CISP_RAW_DEFAULT_WHITE;
		cisp_log(CISP_LOG_WARN, "%s: %s; using %u", name,
			 tags->has_white ? "LibRaw reports no usable white level" : "no WhiteLevel", white);
	}
	/* The tag as written too: LibRaw drops a BlackLevel it cannot hold. */
	if (tags->is_dng && tags->has_black && tags->black_max >= white)
		return cisp_error(-EINVAL, "%s: BlackLevel %.0f is not below the white level %u", name, tags->black_max,
				  white);
	for (int c = 0; c < 4; c++)
		if (frame->black[c] >= white)
			return cisp_error(-EINVAL, "%s: black level %u is not below the white level %u", name,
					  frame->black[c], white);
	frame->white = (uint16_t)white;
	return 0;
}

static int decode(libraw_data_t *lr, const void *data, size_t size, const char *name,
		  struct decode_report *report, struct cisp_raw_frame *frame)
{
	const libraw_image_sizes_t *s = &lr->sizes;
	struct dng_tags tags;
	uint32_t width, height, format;
	unsigned bits;
	enum cisp_cfa cfa;
	char why[160];
	int ret;

	/* LibRaw 0.20 can crash on some malformed DNG directories, and decodes garbage from others: check them first. */
	ret = dng_inspect(data, size, &tags, why, sizeof(why));
	if (ret == -EIO)
		return cisp_error(ret, "%s: the raw data runs past the end of the file (cut short, or a bad offset): %s",
				  name, why);
	if (ret)
		return cisp_error(ret, "%s: a malformed DNG: %s", name, why);
	/* LibRaw reads uncompressed DNG data as one run of rows; from 0.21 on it reads tiles one by one. */
	if (tags.raw_scattered && (!tags.raw_tiled || libraw_versionNumber() < LIBRAW_MAKE_VERSION(0, 21, 0)))
		return cisp_error(-ENOTSUP,
				  "%s: uncompressed image data in %s that do not follow one another row by row: LibRaw "
				  "%s reads it as one run and would decode garbage",
				  name, tags.raw_tiled ? "tiles" : "strips", libraw_version());
	/* LibRaw's buffer stream only reads from the buffer. */
	ret = libraw_open_buffer(lr, (void *)(uintptr_t)data, size);
	if (ret == LIBRAW_IO_ERROR)
		return cisp_error(-EIO, "%s: LibRaw cannot open it: %s (the file ends inside its header: cut short, or "
				  "not a raw file)", name, libraw_strerror(ret));
	if (ret != LIBRAW_SUCCESS)
		return cisp_error(errno_of(ret), "%s: LibRaw cannot open it: %s", name, libraw_strerror(ret));
	if ((ret = check_bayer(lr, name)))
		return ret;
	/* The visible area, cut to the even size the ISP needs; checked before anything is allocated. */
	width = s->width & ~1u;
	height = s->height & ~1u;
	if (s->width > CISP_MAX_DIMENSION || s->height > CISP_MAX_DIMENSION)
		return cisp_error(-EFBIG, "%s: the image is %ux%u, larger than cisp's limit of %d in either direction",
				  name, s->width, s->height, CISP_MAX_DIMENSION);
	if (width < 16 || height < 16)
		return cisp_error(-EINVAL, "%s: the image is %ux%u, smaller than the 16x16 minimum", name, s->width,
				  s->height);
	/* A DNG says itself what it carries; for other files LibRaw knows the camera. */
	if (!tags.has_raw_ifd || !lr->idata.dng_version) {
		memset(&tags, 0, sizeof(tags));
		tags.has_black = tags.has_white = tags.has_neutral = true; /* the matrix: has_libraw_matrix() */
	}

	ret = libraw_unpack(lr);
	if (ret == LIBRAW_IO_ERROR)
		return cisp_error(-EIO, "%s: the raw data is truncated or unreadable (LibRaw: %s)", name,
				  libraw_strerror(ret));
	if (ret != LIBRAW_SUCCESS)
		return cisp_error(errno_of(ret), "%s: LibRaw cannot decode the raw data: %s", name, libraw_strerror(ret));
	if (report->memory_errors)
		return cisp_error(-ENOMEM, "%s: LibRaw ran out of memory decoding it", name);
	if (report->data_errors)
		return cisp_error(-EIO, "%s: the raw data is truncated or corrupt (LibRaw read error at byte %d)", name,
				  report->first_offset);
	if (!lr->rawdata.raw_image)
		return cisp_error(-ENOTSUP, "%s: LibRaw decoded %s %s as full-colour pixels, not a Bayer mosaic", name,
				  lr->idata.make, lr->idata.model);
	if (lr->rawdata.ioparams.fuji_width)
		return cisp_error(-ENOTSUP,
				  "%s: a Fuji SuperCCD sensor (rotated 45 degrees): not a rectangular Bayer mosaic", name);
	if ((size_t)s->top_margin + height > s->raw_height || (size_t)s->left_margin + width > s->raw_width ||
	    s->raw_pitch < 2u * s->raw_width)
		return cisp_error(-EINVAL, "%s: the visible area lies outside the decoded raw data", name);

	cfa = cfa_of(lr);
	if ((ret = map_levels(lr, name, &tags, cfa, frame)))
		return ret;
	bits = raw_depth_for(frame->white);
	format = cisp_bayer_format(cfa, bits, false);
	if ((ret = cisp_image_alloc(&frame->image, format, width, height)))
		return cisp_error_prefix(ret, "%s", name);
	for (uint32_t y = 0; y < height; y++)
		raw_store_row(frame->image.plane[0].data + y * frame->image.plane[0].stride,
			      lr->rawdata.raw_image + (size_t)(y + s->top_margin) * (s->raw_pitch / 2) + s->left_margin,
			      width, bits);
	map_metadata(lr, name, &tags, frame);
	if (tags.has_baseline_exposure) {
		if (fabs(tags.baseline_exposure) <= 10)
			frame->baseline_ev = (float)tags.baseline_exposure;
		else
			cisp_log(CISP_LOG_WARN, "%s: BaselineExposure %g stops is outside -10..10; ignored", name,
				 tags.baseline_exposure);
	}
	for (int k = 0; k < 3; k++)
		if (tags.opcodes[k].size &&
		    (ret = dng_opcodes_apply((const uint8_t *)data + tags.opcodes[k].offset, tags.opcodes[k].size, k + 1,
					     s->width, s->height, frame, name)))
			return ret;
	return 0;
}

int cisp_raw_read_memory(const void *data, size_t size, const char *name, struct cisp_raw_frame *frame)
{
	struct decode_report report = { 0, 0, 0 };
	libraw_data_t *lr;
	int ret;

	memset(frame, 0, sizeof(*frame));
	frame->orientation = 1;
	if (!name)
		name = "<memory>";
	if (!size)
		return cisp_error(-EINVAL, "%s: the file is empty", name);
	/* Also keeps every offset inside the file below 2^31, where LibRaw's int offsets hold it. */
	if (size > MAX_FILE_SIZE)
		return cisp_error(-EFBIG, "%s: %zu bytes is larger than the %zu MiB a raw file may have", name, size,
				  MAX_FILE_SIZE >> 20);
	lr = libraw_init(0);
	if (!lr)
		return cisp_error(-ENOMEM, "%s: cannot start LibRaw", name);
	libraw_set_dataerror_handler(lr, on_data_error, &report);
	libraw_set_memerror_handler(lr, on_memory_error, &report);
	ret = decode(lr, data, size, name, &report, frame);
	libraw_close(lr);
	if (ret)
		cisp_raw_frame_free(frame);
	return ret;
}

int cisp_raw_read_file(const char *path, struct cisp_raw_frame *frame)
{
	uint64_t file_size;
	uint8_t *data;
	size_t size;
	FILE *f;
	int ret;

	memset(frame, 0, sizeof(*frame));
	frame->orientation = 1;
	if ((ret = cisp_input_file_open(path, &f, &file_size)))
		return ret;
	if (file_size == 0) {
		fclose(f);
		return cisp_error(-EINVAL, "%s: the file is empty", path);
	}
	if (file_size > MAX_FILE_SIZE) {
		fclose(f);
		return cisp_error(-EFBIG, "%s: %llu bytes is larger than the %zu MiB a raw file may have", path,
				  (unsigned long long)file_size, MAX_FILE_SIZE >> 20);
	}
	size = (size_t)file_size;
	data = malloc(size);
	if (!data) {
		fclose(f);
		return cisp_error(-ENOMEM, "%s: no memory for %zu bytes", path, size);
	}
	if (fread(data, 1, size, f) != size) {
		ret = cisp_error(-EIO, "%s: read failed", path);
	} else {
		ret = cisp_raw_read_memory(data, size, path, frame);
	}
	free(data);
	fclose(f);
	return ret;
}
