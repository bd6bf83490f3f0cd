/* SPDX-License-Identifier: MIT */
/* Raw files in and out: DNG round trips, metadata to colour, bad files, output files. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <lcms2.h>
#include <libraw/libraw.h>
#include <png.h>
#include <tiffio.h>

#include <cisp/dng.h>
#include <cisp/error.h>
#include <cisp/image_file.h>
#include <cisp/isp.h>
#include <cisp/log.h>
#include <cisp/orient.h>
#include <cisp/params_state.h>
#include <cisp/raw_file.h>
#include <cisp/raw_frame.h>

#include "test.h"

/* Canon EOS 5D Mark III, XYZ (D65) to camera, as Adobe publishes it. */
static const float canon_5d3[9] = { 0.6722f, -0.0635f, -0.0963f, -0.4287f, 1.2460f,
				    0.2028f, -0.0909f, 0.2162f, 0.5668f };
static const double srgb_to_xyz[9] = { 0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522,
				       0.0721750, 0.0193339, 0.1191920, 0.9503041 };

static const char *tmp_path(const char *name)
{
	static char path[8][512];
	static int next;
	char *p = path[next++ % 8];

	snprintf(p, 512, "%s/rawio-%s", test_tmp_dir(), name);
	return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fwrite(data, 1, n, f), n);
		fclose(f);
	}
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	*n = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(size > 0 ? (size_t)size : 1);
	if (data && fread(data, 1, (size_t)size, f) == (size_t)size)
		*n = (size_t)size;
	fclose(f);
	return data;
}

/* Samples of every Bayer layout, written and read here independently of the library. */
static void set_sample(struct cisp_image *img, uint32_t x, uint32_t y, unsigned v)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

	if (f->packed && f->bits == 10) {
		uint8_t *g = row + (x / 4) * 5;
		g[x % 4] = (uint8_t)(v >> 2);
		g[4] = (uint8_t)((g[4] & ~(3u << (2 * (x % 4)))) | (v & 3) << (2 * (x % 4)));
	} else if (f->packed) {
		uint8_t *g = row + (x / 2) * 3;
		g[x % 2] = (uint8_t)(v >> 4);
		g[2] = (uint8_t)((g[2] & ~(15u << (4 * (x % 2)))) | (v & 15) << (4 * (x % 2)));
	} else if (f->bits == 8) {
		row[x] = (uint8_t)v;
	} else {
		row[2 * x] = (uint8_t)v;
		row[2 * x + 1] = (uint8_t)(v >> 8);
	}
}

static unsigned get_sample(const struct cisp_image *img, uint32_t x, uint32_t y)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	const uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

	if (f->packed && f->bits == 10)
		return (unsigned)row[(x / 4) * 5 + x % 4] << 2 | (row[(x / 4) * 5 + 4] >> (2 * (x % 4)) & 3);
	if (f->packed)
		return (unsigned)row[(x / 2) * 3 + x % 2] << 4 | (row[(x / 2) * 3 + 2] >> (4 * (x % 2)) & 15);
	if (f->bits == 8)
		return row[x];
	return (unsigned)(row[2 * x] | row[2 * x + 1] << 8);
}

/* A frame of random samples with every kind of metadata set. */
static void random_frame(struct cisp_raw_frame *f, uint32_t format, uint32_t w, uint32_t h)
{
	const struct cisp_format_info *info = cisp_format_info(format);
	unsigned max = (1u << info->bits) - 1;

	memset(f, 0, sizeof(*f));
	CHECK_EQ(cisp_image_alloc(&f->image, format, w, h), 0);
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++)
			set_sample(&f->image, x, y, (unsigned)(test_rand() % (max + 1)));
	for (int c = 0; c < 4; c++)
		f->black[c] = (uint16_t)(max / 16 + (unsigned)c);
	f->white = (uint16_t)(max - max / 64);
	f->has_wb = true;
	f->wb_gains[0] = 2.0f;
	f->wb_gains[1] = 1.0f;
	f->wb_gains[2] = 1.5f;
	f->has_matrix = true;
	memcpy(f->xyz_to_cam, canon_5d3, sizeof(canon_5d3));
	f->orientation = 8;
	snprintf(f->make, sizeof(f->make), "Test");
	snprintf(f->model, sizeof(f->model), "Sensor %s", info->name);
	f->exposure_s = 1.0f / 250;
	f->iso = 400;
	f->fnumber = 4.0f;
	f->focal_mm = 35.0f;
	snprintf(f->datetime, sizeof(f->datetime), "2024:02:29 23:59:58");
	f->crop.x = 2;
	f->crop.y = 4;
	f->crop.width = w - 6;
	f->crop.height = h - 8;
}

/* A DNG written by cisp and decoded by LibRaw gives back the frame: every sample and every field. */
TEST(rawio_dng_round_trip)
{
	static const uint32_t formats[] = { CISP_FMT_SRGGB8, CISP_FMT_SGRBG10, CISP_FMT_SGBRG10P, CISP_FMT_SBGGR12,
					    CISP_FMT_SRGGB12P, CISP_FMT_SGRBG14, CISP_FMT_SBGGR16 };

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const struct cisp_format_info *info = cisp_format_info(formats[i]);
		struct cisp_raw_frame a, b, m;
		const char *path = tmp_path("round.dng");
		uint8_t *bytes;
		size_t n;
		int diff = 0;

		random_frame(&a, formats[i], 64, 48);
		CHECK_EQ(cisp_dng_write(path, &a), 0);
		CHECK_EQ(cisp_raw_read_file(path, &b), 0);
		if (!b.image.plane[0].data) {
			test_fail(__FILE__, __LINE__, "%s: %s", info->name, cisp_last_error());
			cisp_raw_frame_free(&a);
			continue;
		}
		/* Same CFA and depth (the reader picks the depth from the white level); samples unpacked. */
		CHECK_EQ(cisp_format_info(b.image.format)->cfa, info->cfa);
		CHECK_EQ(cisp_format_info(b.image.format)->bits, info->bits);
		CHECK_EQ(b.image.width, 64);
		CHECK_EQ(b.image.height, 48);
		for (uint32_t y = 0; y < 48; y++)
			for (uint32_t x = 0; x < 64; x++)
				diff += get_sample(&a.image, x, y) != get_sample(&b.image, x, y);
		CHECK_EQ(diff, 0);
		for (int c = 0; c < 4; c++)
			CHECK_EQ(b.black[c], a.black[c]);
		CHECK_EQ(b.white, a.white);
		CHECK(b.has_wb);
		CHECK_NEAR(b.wb_gains[0], 2.0, 1e-4);
		CHECK_NEAR(b.wb_gains[1], 1.0, 1e-6);
		CHECK_NEAR(b.wb_gains[2], 1.5, 1e-4);
		CHECK(b.has_matrix);
		for (int k = 0; k < 9; k++)
			CHECK_NEAR(b.xyz_to_cam[k], canon_5d3[k], 2e-4);
		CHECK_EQ(b.orientation, 8);
		CHECK(!strcmp(b.make, "Test"));
		CHECK(!strcmp(b.model, a.model));
		CHECK_NEAR(b.exposure_s, 1.0 / 250, 1e-7);
		CHECK_NEAR(b.iso, 400, 0);
		CHECK_NEAR(b.fnumber, 4.0, 1e-6);
		CHECK_NEAR(b.focal_mm, 35.0, 1e-5);
		CHECK(!strcmp(b.datetime, "2024:02:29 23:59:58"));
		CHECK_EQ(b.crop.x, 2);
		CHECK_EQ(b.crop.y, 4);
		CHECK_EQ(b.crop.width, 58);
		CHECK_EQ(b.crop.height, 40);
		CHECK_EQ(b.defaults, 0);

		/* The memory front end decodes the same bytes to the same frame. */
		bytes = read_bytes(path, &n);
		CHECK_EQ(cisp_raw_read_memory(bytes, n, "mem.dng", &m), 0);
		if (m.image.plane[0].data) {
			for (uint32_t y = 0; y < 48; y++)
				CHECK(!memcmp(m.image.plane[0].data + y * m.image.plane[0].stride,
					      b.image.plane[0].data + y * b.image.plane[0].stride, 64u * (info->bits > 8 ? 2 : 1)));
			CHECK_EQ(m.white, b.white);
		}
		free(bytes);
		cisp_raw_frame_free(&m);
		cisp_raw_frame_free(&a);
		cisp_raw_frame_free(&b);
	}
}

/* Warnings a reader logs, caught for the checks. */
static char warnings[2048];

static void catch_log(enum cisp_log_level level, const char *message, void *opaque)
{
	(void)opaque;
	if (level <= CISP_LOG_WARN && strlen(warnings) + strlen(message) + 2 < sizeof(warnings)) {
		strcat(warnings, message);
		strcat(warnings, "\n");
	}
}

/* A minimal DNG (no levels, colour matrix or white balance) reads with the stated defaults and warnings. */
TEST(rawio_missing_metadata_defaults)
{
	struct cisp_raw_frame a, b;
	struct cisp_param_state state;
	const char *path = tmp_path("minimal.dng");

	random_frame(&a, CISP_FMT_SRGGB12, 32, 32);
	a.has_matrix = false;
	a.has_wb = false;
	a.defaults = CISP_RAW_DEFAULT_BLACK | CISP_RAW_DEFAULT_WHITE; /* the writer leaves out what is defaulted */
	CHECK_EQ(cisp_dng_write(path, &a), 0);
	warnings[0] = '\0';
	cisp_log_set_sink(catch_log, NULL);
	CHECK_EQ(cisp_raw_read_file(path, &b), 0);
	cisp_log_set_sink(NULL, NULL);
	CHECK_EQ(b.defaults, CISP_RAW_DEFAULT_BLACK | CISP_RAW_DEFAULT_WHITE | CISP_RAW_DEFAULT_MATRIX |
				     CISP_RAW_DEFAULT_WB);
	for (int c = 0; c < 4; c++)
		CHECK_EQ(b.black[c], 0);
	/* The DNG default white level: 2^BitsPerSample - 1 of the 16-bit samples written. */
	CHECK_EQ(b.white, 65535);
	CHECK(!b.has_matrix);
	CHECK(!b.has_wb);
	CHECK(strstr(warnings, "no BlackLevel; using 0") != NULL);
	CHECK(strstr(warnings, "no WhiteLevel; using 65535") != NULL);
	CHECK(strstr(warnings, "no colour matrix") != NULL);
	CHECK(strstr(warnings, "no as-shot white balance") != NULL);
	CHECK(strstr(warnings, path) != NULL);
	/* The parameters still come out: BLC from the defaults, identity CCM, no WB block change. */
	cisp_param_state_init(&state);
	CHECK_EQ(cisp_raw_frame_params(&b, &state), 0);
	CHECK_EQ(state.blc.white, 65535);
	CHECK_EQ(state.ccm.coeff[0], 4096);
	CHECK_EQ(state.ccm.coeff[1], 0);
	CHECK_EQ(state.wb.gain[0], 4096);
	cisp_raw_frame_free(&a);
	cisp_raw_frame_free(&b);
}

/* Linear RGB48 of a frame through the canonical ISP with the frame's own parameters. */
static int develop_linear(const struct cisp_raw_frame *frame, struct cisp_image *out)
{
	struct cisp_isp_config cfg = { .input_format = frame->image.format,
				       .width = frame->image.width,
				       .height = frame->image.height,
				       .output = { { CISP_FMT_RGB48, frame->image.width, frame->image.height } } };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { out, NULL };
	struct cisp_param_state state;
	struct cisp_isp *isp = NULL;
	uint8_t *buf = NULL;
	size_t size = 0;
	int ret;

	cisp_param_state_init(&state);
	if ((ret = cisp_raw_frame_params(frame, &state)))
		return ret;
	state.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN));
	ret = cisp_isp_create(&isp, &cfg);
	if (!ret)
		ret = cisp_image_alloc(out, CISP_FMT_RGB48, cfg.width, cfg.height);
	if (!ret)
		ret = cisp_params_encode(&state, ~0u, NULL, 0, &size);
	if (!ret && !(buf = malloc(size)))
		ret = -ENOMEM;
	if (!ret)
		ret = cisp_params_encode(&state, ~0u, buf, size, &size);
	if (!ret)
		ret = cisp_isp_set_params(isp, buf, size);
	if (!ret)
		ret = cisp_isp_process(isp, &frame->image, outputs, NULL, NULL);
	free(buf);
	cisp_isp_destroy(isp);
	return ret;
}

/* Mean of channel @c over a square of @img (RGB48) in 0..1. */
static double mean_rgb48(const struct cisp_image *img, uint32_t x0, uint32_t y0, uint32_t n, int c)
{
	double sum = 0;

	for (uint32_t y = y0; y < y0 + n; y++)
		for (uint32_t x = x0; x < x0 + n; x++) {
			const uint8_t *p = img->plane[0].data + y * img->plane[0].stride + (x * 3 + (uint32_t)c) * 2;
			sum += p[0] | p[1] << 8;
		}
	return sum / ((double)n * n * 65535.0);
}

/* Camera RGB (white-balanced to nothing: the sensor's own response) of linear sRGB @rgb under D65. */
static void camera_response(const float m[9], const double rgb[3], double cam[3])
{
	double xyz[3];

	for (int i = 0; i < 3; i++)
		xyz[i] = srgb_to_xyz[3 * i] * rgb[0] + srgb_to_xyz[3 * i + 1] * rgb[1] + srgb_to_xyz[3 * i + 2] * rgb[2];
	for (int i = 0; i < 3; i++)
		cam[i] = m[3 * i] * xyz[0] + m[3 * i + 1] * xyz[1] + m[3 * i + 2] * xyz[2];
}

/*
 * A flat 12-bit frame of what the camera records for colour @rgb (linear
 * sRGB under D65), scaled so that white reaches @level of the range in the
 * strongest channel; @neutral receives the camera's response to white
 * divided by its green (AsShotNeutral).
 */
static void flat_frame(struct cisp_raw_frame *f, enum cisp_cfa cfa, const float m[9], const double rgb[3],
		       double level, double neutral[3])
{
	const double white_rgb[3] = { 1, 1, 1 };
	double cam[3], white_cam[3], peak = 0;

	camera_response(m, rgb, cam);
	camera_response(m, white_rgb, white_cam);
	for (int c = 0; c < 3; c++) {
		peak = white_cam[c] > peak ? white_cam[c] : peak;
		neutral[c] = white_cam[c] / white_cam[1];
	}
	memset(f, 0, sizeof(*f));
	CHECK_EQ(cisp_image_alloc(&f->image, cisp_bayer_format(cfa, 12, false), 64, 64), 0);
	for (int c = 0; c < 4; c++)
		f->black[c] = 256;
	f->white = 4000;
	for (uint32_t y = 0; y < 64; y++)
		for (uint32_t x = 0; x < 64; x++) {
			enum cisp_channel ch = cisp_cfa_channel(cfa, x, y);
			int c = ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
			set_sample(&f->image, x, y, (unsigned)lround(256 + cam[c] / peak * level * (4000 - 256)));
		}
	f->has_matrix = true;
	memcpy(f->xyz_to_cam, m, 9 * sizeof(float));
	f->has_wb = true;
	for (int c = 0; c < 3; c++)
		f->wb_gains[c] = (float)(1.0 / neutral[c]);
	f->orientation = 1;
}

/*
 * Metadata mapping: a DNG the project writes with a known colour matrix and
 * white balance develops grey to neutral grey (within 1%), and colours to
 * the linear sRGB they were rendered from.
 */
TEST(rawio_metadata_develops_to_known_colour)
{
	/* A second matrix with strong cross-talk (rows not summing alike) next to a real camera's. */
	static const float crosstalk[9] = { 0.90f, 0.20f, -0.25f, -0.50f, 1.40f, 0.15f, 0.05f, -0.30f, 1.10f };
	static const double colours[4][3] = { { 0.18, 0.18, 0.18 }, { 0.5, 0.5, 0.5 }, { 0.40, 0.20, 0.10 },
					      { 0.10, 0.25, 0.45 } };
	const float *matrices[2] = { canon_5d3, crosstalk };

	for (int mi = 0; mi < 2; mi++) {
		for (int k = 0; k < 4; k++) {
			enum cisp_cfa cfa = (enum cisp_cfa)((mi * 4 + k) % 4);
			struct cisp_raw_frame a, b;
			struct cisp_image out = { 0 };
			double neutral[3], level = 0.8;
			const char *path = tmp_path("colour.dng");

			flat_frame(&a, cfa, matrices[mi], colours[k], level, neutral);
			CHECK_EQ(cisp_dng_write(path, &a), 0);
			CHECK_EQ(cisp_raw_read_file(path, &b), 0);
			CHECK_EQ(develop_linear(&b, &out), 0);
			if (out.plane[0].data) {
				double rgb[3];
				for (int c = 0; c < 3; c++)
					rgb[c] = mean_rgb48(&out, 16, 16, 32, c);
				if (colours[k][0] == colours[k][1]) {
					/* Neutral: R, G and B within 1% of each other. */
					CHECK_NEAR(rgb[0] / rgb[1], 1.0, 0.01);
					CHECK_NEAR(rgb[2] / rgb[1], 1.0, 0.01);
				}
				/* White balanced to G: white lands on level * (green's share of the peak). */
				double white_cam[3], one[3] = { 1, 1, 1 }, peak = 0;
				camera_response(matrices[mi], one, white_cam);
				for (int c = 0; c < 3; c++)
					peak = white_cam[c] > peak ? white_cam[c] : peak;
				for (int c = 0; c < 3; c++)
					CHECK_NEAR(rgb[c], colours[k][c] * level * white_cam[1] / peak,
						   0.01 * colours[k][c] * level + 2.0 / 65535);
			}
			cisp_image_free(&out);
			cisp_raw_frame_free(&a);
			cisp_raw_frame_free(&b);
		}
	}
}

/*
 * Colour agrees with LibRaw's own linear rendering (dcraw_emu -4 -w -o 1
 * through the C API) on flat patches of a DNG written by cisp: the patch
 * means agree within 0.5%.
 */
TEST(rawio_colour_matches_libraw)
{
	static const double patches[4][3] = { { 0.18, 0.18, 0.18 }, { 0.40, 0.20, 0.10 }, { 0.10, 0.25, 0.45 },
					      { 0.30, 0.45, 0.15 } };
	struct cisp_raw_frame a, b;
	struct cisp_image out = { 0 };
	double neutral[3], lr_mean[4][3] = { { 0 } };
	const char *path = tmp_path("patches.dng");
	libraw_processed_image_t *img = NULL;
	libraw_data_t *lr;
	int err = 0;

	/* Four flat 32x32 patches in one 64x64 frame. */
	flat_frame(&a, CISP_CFA_GBRG, canon_5d3, patches[0], 0.8, neutral);
	for (int p = 1; p < 4; p++) {
		struct cisp_raw_frame q;
		double unused[3];
		flat_frame(&q, CISP_CFA_GBRG, canon_5d3, patches[p], 0.8, unused);
		for (uint32_t y = (uint32_t)(p / 2) * 32; y < (uint32_t)(p / 2) * 32 + 32; y++)
			for (uint32_t x = (uint32_t)(p % 2) * 32; x < (uint32_t)(p % 2) * 32 + 32; x++)
				set_sample(&a.image, x, y, get_sample(&q.image, x, y));
		cisp_raw_frame_free(&q);
	}
	CHECK_EQ(cisp_dng_write(path, &a), 0);
	CHECK_EQ(cisp_raw_read_file(path, &b), 0);
	CHECK_EQ(develop_linear(&b, &out), 0);

	lr = libraw_init(0);
	CHECK(lr != NULL);
	if (lr) {
		lr->params.output_bps = 16;
		lr->params.gamm[0] = lr->params.gamm[1] = 1.0;
		lr->params.no_auto_bright = 1;
		lr->params.use_camera_wb = 1;
		lr->params.output_color = 1;
		lr->params.adjust_maximum_thr = 0;
		err = libraw_open_file(lr, path);
		if (!err)
			err = libraw_unpack(lr);
		if (!err)
			err = libraw_dcraw_process(lr);
		if (!err)
			img = libraw_dcraw_make_mem_image(lr, &err);
		CHECK_EQ(err, 0);
	}
	if (img && out.plane[0].data) {
		CHECK_EQ(img->width, 64);
		CHECK_EQ(img->height, 64);
		CHECK_EQ(img->bits, 16);
		for (int p = 0; p < 4; p++) {
			/* The 16x16 centre of each patch, away from the patch edges. */
			uint32_t x0 = (p % 2) * 32 + 8, y0 = (p / 2) * 32 + 8;
			for (uint32_t y = y0; y < y0 + 16; y++)
				for (uint32_t x = x0; x < x0 + 16; x++)
					for (int c = 0; c < 3; c++) {
						const uint16_t *px = (const uint16_t *)img->data + ((size_t)y * 64 + x) * 3;
						lr_mean[p][c] += px[c] / (256.0 * 65535.0);
					}
			for (int c = 0; c < 3; c++)
				CHECK_NEAR(mean_rgb48(&out, x0, y0, 16, c) / lr_mean[p][c], 1.0, 0.005);
		}
	}
	if (img)
		libraw_dcraw_clear_mem(img);
	if (lr)
		libraw_close(lr);
	cisp_image_free(&out);
	cisp_raw_frame_free(&a);
	cisp_raw_frame_free(&b);
}

/* Per-channel black levels from a DNG's 2x2 BlackLevel pattern land on the right CISP channels. */
TEST(rawio_black_level_per_channel)
{
	for (int cfa = 0; cfa < 4; cfa++) {
		struct cisp_raw_frame a, b;
		const char *path = tmp_path("black.dng");

		random_frame(&a, cisp_bayer_format((enum cisp_cfa)cfa, 14, false), 32, 32);
		a.black[CISP_CH_R] = 1000;
		a.black[CISP_CH_GR] = 1010;
		a.black[CISP_CH_GB] = 1020;
		a.black[CISP_CH_B] = 1030;
		CHECK_EQ(cisp_dng_write(path, &a), 0);
		CHECK_EQ(cisp_raw_read_file(path, &b), 0);
		CHECK_EQ(b.black[CISP_CH_R], 1000);
		CHECK_EQ(b.black[CISP_CH_GR], 1010);
		CHECK_EQ(b.black[CISP_CH_GB], 1020);
		CHECK_EQ(b.black[CISP_CH_B], 1030);
		cisp_raw_frame_free(&a);
		cisp_raw_frame_free(&b);
	}
}

/* ---- hand-made TIFF/DNG files for what cisp itself never writes ---- */

enum kind { KIND_XTRANS, KIND_LINEAR, KIND_MONO, KIND_BLACK_4X4 };

static void write_special_dng(const char *path, enum kind kind, uint32_t w, uint32_t h)
{
	static const uint8_t version[4] = { 1, 4, 0, 0 };
	static const uint8_t xtrans[36] = { 1, 1, 0, 1, 1, 2, 1, 1, 2, 1, 1, 0, 2, 0, 1, 0, 2, 1,
					    1, 1, 2, 1, 1, 0, 1, 1, 0, 1, 1, 2, 0, 2, 1, 2, 0, 1 };
	bool rgb = kind == KIND_LINEAR;
	TIFF *tif = TIFFOpen(path, "w");
	uint16_t *row = calloc((size_t)w * 3, sizeof(uint16_t));

	CHECK(tif != NULL && row != NULL);
	if (!tif || !row) {
		free(row);
		return;
	}
	TIFFSetField(tif, TIFFTAG_SUBFILETYPE, 0);
	TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
	TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
	TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 16);
	TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, rgb ? 3 : 1);
	TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
	TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
	TIFFSetField(tif, TIFFTAG_MAKE, "Test");
	TIFFSetField(tif, TIFFTAG_MODEL, "Special");
	TIFFSetField(tif, TIFFTAG_DNGVERSION, version);
	TIFFSetField(tif, TIFFTAG_UNIQUECAMERAMODEL, "Test Special");
	if (kind == KIND_XTRANS || kind == KIND_BLACK_4X4) {
		uint16_t dim6[2] = { 6, 6 }, dim2[2] = { 2, 2 };
		static const uint8_t rggb[4] = { 0, 1, 1, 2 };
		TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_CFA);
		TIFFSetField(tif, TIFFTAG_CFAREPEATPATTERNDIM, kind == KIND_XTRANS ? dim6 : dim2);
		TIFFSetField(tif, TIFFTAG_CFAPATTERN, kind == KIND_XTRANS ? 36 : 4, kind == KIND_XTRANS ? xtrans : rggb);
	} else {
		TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, 34892); /* LinearRaw */
	}
	if (kind == KIND_BLACK_4X4) {
		/* A 4x4 black pattern: rows 0,1 at 100.., rows 2,3 at 120..: per 2x2 position the mean. */
		uint16_t dim[2] = { 4, 4 };
		float black[16];
		for (int i = 0; i < 16; i++)
			black[i] = (float)(100 + (i / 8) * 20 + (i % 4 % 2) + 2 * (i / 4 % 2));
		TIFFSetField(tif, TIFFTAG_BLACKLEVELREPEATDIM, dim);
		TIFFSetField(tif, TIFFTAG_BLACKLEVEL, 16, black);
	}
	for (uint32_t y = 0; y < h; y++)
		TIFFWriteScanline(tif, row, y, 0);
	TIFFClose(tif);
	free(row);
}

/* Non-Bayer data gets an error that says what the file holds. */
TEST(rawio_non_bayer_refused)
{
	struct cisp_raw_frame f;

	write_special_dng(tmp_path("xtrans.dng"), KIND_XTRANS, 48, 48);
	CHECK_ERR(cisp_raw_read_file(tmp_path("xtrans.dng"), &f), -ENOTSUP, "X-Trans");
	CHECK(strstr(cisp_last_error(), "rawio-xtrans.dng") != NULL);
	write_special_dng(tmp_path("linear.dng"), KIND_LINEAR, 32, 32);
	CHECK_ERR(cisp_raw_read_file(tmp_path("linear.dng"), &f), -ENOTSUP, "linear DNG (already demosaiced, 3 colour");
	write_special_dng(tmp_path("mono.dng"), KIND_MONO, 32, 32);
	CHECK_ERR(cisp_raw_read_file(tmp_path("mono.dng"), &f), -ENOTSUP, "monochrome");
	CHECK(f.image.plane[0].data == NULL);
}

/* A black pattern larger than 2x2 is averaged per CFA position, with a warning. */
TEST(rawio_black_pattern_averaged)
{
	struct cisp_raw_frame f;

	write_special_dng(tmp_path("black4.dng"), KIND_BLACK_4X4, 32, 32);
	warnings[0] = '\0';
	cisp_log_set_sink(catch_log, NULL);
	CHECK_EQ(cisp_raw_read_file(tmp_path("black4.dng"), &f), 0);
	cisp_log_set_sink(NULL, NULL);
	/* Position (x, y) mean of rows y and y + 2: 100 + x + 2y + 10. */
	CHECK_EQ(f.black[CISP_CH_R], 110);
	CHECK_EQ(f.black[CISP_CH_GR], 111);
	CHECK_EQ(f.black[CISP_CH_GB], 112);
	CHECK_EQ(f.black[CISP_CH_B], 113);
	CHECK(strstr(warnings, "black level varies over a 4x4 pattern") != NULL);
	cisp_raw_frame_free(&f);
}

/* Set the count and value field of a tag of IFD0 of a little-endian TIFF in memory. */
static void patch_entry(uint8_t *d, size_t n, uint16_t tag, uint32_t count, uint32_t value)
{
	uint32_t ifd = (uint32_t)(d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
	unsigned entries = ifd + 2 <= n ? (unsigned)(d[ifd] | d[ifd + 1] << 8) : 0;

	for (unsigned i = 0; i < entries && ifd + 2 + 12 * (i + 1) <= n; i++) {
		uint8_t *e = d + ifd + 2 + 12 * i;
		if ((e[0] | e[1] << 8) == tag) {
			for (int k = 0; k < 4; k++) {
				e[4 + k] = (uint8_t)(count >> (8 * k));
				e[8 + k] = (uint8_t)(value >> (8 * k));
			}
			return;
		}
	}
	test_fail(__FILE__, __LINE__, "tag %u not found", tag);
}

/* Set a SHORT or LONG tag of IFD0 of a little-endian TIFF in memory. */
static void patch_tag(uint8_t *d, size_t n, uint16_t tag, uint32_t value)
{
	uint32_t ifd = (uint32_t)(d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
	unsigned count;

	CHECK(ifd + 2 <= n);
	if (ifd + 2 > n)
		return;
	count = d[ifd] | d[ifd + 1] << 8;
	for (unsigned i = 0; i < count && ifd + 2 + 12 * (i + 1) <= n; i++) {
		uint8_t *e = d + ifd + 2 + 12 * i;
		if ((e[0] | e[1] << 8) == tag) {
			e[2] = 4; /* LONG */
			e[3] = 0;
			e[8] = (uint8_t)value;
			e[9] = (uint8_t)(value >> 8);
			e[10] = (uint8_t)(value >> 16);
			e[11] = (uint8_t)(value >> 24);
			return;
		}
	}
	test_fail(__FILE__, __LINE__, "tag %u not found", tag);
}

/*
 * A minimal DNG as small capture tools write it: the directory first, then
 * one strip of 16-bit RGGB samples; no levels, colour matrix or white
 * balance. @keep cuts the file to that many bytes (0: whole).
 */
static size_t write_minimal_dng(const char *path, uint32_t w, uint32_t h, size_t keep)
{
	enum { ENTRIES = 13 };
	size_t ifd_size = 2 + 12 * ENTRIES + 4, data = 8 + ifd_size, n = data + (size_t)w * h * 2;
	uint8_t *d = calloc(1, n);
	uint8_t *e;
	int i = 0;

	if (!d)
		return 0;
	memcpy(d, "II*\0\x08\0\0\0", 8);
	d[8] = ENTRIES;
#define ENTRY(tag, type, count, value)                                                              \
	do {                                                                                        \
		e = d + 10 + 12 * i++;                                                              \
		e[0] = (uint8_t)(tag), e[1] = (uint8_t)((tag) >> 8), e[2] = (type), e[4] = (count); \
		e[8] = (uint8_t)(value), e[9] = (uint8_t)((value) >> 8);                            \
		e[10] = (uint8_t)((uint32_t)(value) >> 16), e[11] = (uint8_t)((uint32_t)(value) >> 24); \
	} while (0)
	ENTRY(254, 4, 1, 0);               /* NewSubFileType */
	ENTRY(256, 4, 1, w);               /* ImageWidth */
	ENTRY(257, 4, 1, h);               /* ImageLength */
	ENTRY(258, 3, 1, 16);              /* BitsPerSample */
	ENTRY(259, 3, 1, 1);               /* Compression: none */
	ENTRY(262, 3, 1, 32803);           /* PhotometricInterpretation: CFA */
	ENTRY(273, 4, 1, data);            /* StripOffsets */
	ENTRY(277, 3, 1, 1);               /* SamplesPerPixel */
	ENTRY(278, 4, 1, h);               /* RowsPerStrip */
	ENTRY(279, 4, 1, (size_t)w * h * 2); /* StripByteCounts */
	ENTRY(33421, 3, 2, 2 | 2 << 16);   /* CFARepeatPatternDim 2x2 */
	ENTRY(33422, 1, 4, 0x02010100);    /* CFAPattern R G G B */
	ENTRY(50706, 1, 4, 0x00000401);    /* DNGVersion 1.4.0.0 */
#undef ENTRY
	for (size_t k = 0; k < (size_t)w * h; k++) {
		unsigned v = 1000 + (unsigned)(k % 7) * 100;
		d[data + 2 * k] = (uint8_t)v;
		d[data + 2 * k + 1] = (uint8_t)(v >> 8);
	}
	write_bytes(path, d, keep && keep < n ? keep : n);
	free(d);
	return n;
}

/* Bad files give clear errors naming the file, never a crash. */
TEST(rawio_bad_files)
{
	struct cisp_raw_frame a, f;
	const char *good = tmp_path("good.dng");
	static const char text[] = "This is a text file, not a raw image.\n";
	uint8_t *bytes;
	size_t n;

	random_frame(&a, CISP_FMT_SRGGB12, 64, 64);
	CHECK_EQ(cisp_dng_write(good, &a), 0);
	cisp_raw_frame_free(&a);
	bytes = read_bytes(good, &n);
	CHECK(bytes != NULL && n > 8192);
	if (!bytes)
		return;

	CHECK_ERR(cisp_raw_read_file(tmp_path("missing.dng"), &f), -ENOENT, "rawio-missing.dng");
	write_bytes(tmp_path("empty.dng"), "", 0);
	CHECK_ERR(cisp_raw_read_file(tmp_path("empty.dng"), &f), -EINVAL, "rawio-empty.dng: the file is empty");
	write_bytes(tmp_path("text.dng"), text, sizeof(text) - 1);
	CHECK(cisp_raw_read_file(tmp_path("text.dng"), &f) < 0);
	CHECK(strstr(cisp_last_error(), "rawio-text.dng: LibRaw cannot open it: ") != NULL);
	/* Cut in the pixel data (the directory is at the end, so it goes too): not a DNG any more. */
	write_bytes(tmp_path("truncated.dng"), bytes, n / 2);
	CHECK(cisp_raw_read_file(tmp_path("truncated.dng"), &f) < 0);
	CHECK(strstr(cisp_last_error(), "rawio-truncated.dng: LibRaw cannot open it: ") != NULL);
	/* Cut in the header. */
	write_bytes(tmp_path("header.dng"), bytes, 12);
	CHECK(cisp_raw_read_file(tmp_path("header.dng"), &f) < 0);
	CHECK(strstr(cisp_last_error(), "rawio-header.dng: LibRaw") != NULL);
	/* A directory entry whose values lie outside the file (LibRaw 0.20 can crash on such): refused first. */
	{
		uint8_t *broken = malloc(n);
		if (broken) {
			memcpy(broken, bytes, n);
			patch_entry(broken, n, 33422, 36, (uint32_t)n + 100);
			write_bytes(tmp_path("broken.dng"), broken, n);
			CHECK_ERR(cisp_raw_read_file(tmp_path("broken.dng"), &f), -EINVAL,
				  "rawio-broken.dng: a malformed DNG: tag 33422's 36 values lie outside the file");
			memcpy(broken, bytes, n);
			patch_entry(broken, n, 33422, 3, 0x00020100);
			CHECK_ERR(cisp_raw_read_memory(broken, n, "short-cfa.dng", &f), -EINVAL,
				  "short-cfa.dng: a malformed DNG: CFAPattern has 3 entries for a 4-cell repeat pattern");
			free(broken);
		}
	}
	/* A header that claims 60000 x 60000 pixels. */
	patch_tag(bytes, n, 256, 60000);
	patch_tag(bytes, n, 257, 60000);
	write_bytes(tmp_path("huge.dng"), bytes, n);
	CHECK(cisp_raw_read_file(tmp_path("huge.dng"), &f) < 0);
	CHECK(strstr(cisp_last_error(), "rawio-huge.dng") != NULL);
	CHECK(f.image.plane[0].data == NULL);
	free(bytes);
}

/* The memory front end on every prefix length class of a DNG and on flipped bytes: errors or frames, no crash. */
TEST(rawio_memory_front_end_survives_damage)
{
	struct cisp_raw_frame a, f;
	const char *good = tmp_path("fuzz.dng");
	uint8_t *bytes, *copy;
	size_t n;
	int ok = 0, failed = 0;

	random_frame(&a, CISP_FMT_SGBRG10, 32, 32);
	CHECK_EQ(cisp_dng_write(good, &a), 0);
	cisp_raw_frame_free(&a);
	bytes = read_bytes(good, &n);
	copy = malloc(n);
	CHECK(bytes && copy);
	if (!bytes || !copy) {
		free(bytes);
		free(copy);
		return;
	}
	cisp_log_set_sink(catch_log, NULL);
	for (size_t cut = 0; cut < n; cut += n / 40 + 1) {
		int ret = cisp_raw_read_memory(bytes, cut, "cut.dng", &f);
		if (ret) {
			failed++;
			CHECK(strstr(cisp_last_error(), "cut.dng") != NULL);
		} else {
			ok++;
		}
		cisp_raw_frame_free(&f);
	}
	for (int i = 0; i < 300; i++) {
		memcpy(copy, bytes, n);
		/* Damage mostly the directory area (the end of the file, where libtiff put the IFD). */
		for (int k = 0; k < 4; k++) {
			size_t at = i % 3 ? n - 1 - test_rand() % (n < 600 ? n : 600) : test_rand() % n;
			copy[at] ^= (uint8_t)(1u << (test_rand() % 8));
		}
		if (cisp_raw_read_memory(copy, n, "flipped.dng", &f) == 0)
			ok++;
		cisp_raw_frame_free(&f);
	}
	cisp_log_set_sink(NULL, NULL);
	CHECK(failed >= 20);
	CHECK_EQ(cisp_raw_read_memory(bytes, n, "whole.dng", &f), 0);
	cisp_raw_frame_free(&f);
	free(bytes);
	free(copy);
	(void)ok;
}

/* EXIF orientation: each of the 8 turns a 3x2 image as the EXIF definition says. */
TEST(rawio_orientation)
{
	struct cisp_image src, dst;

	CHECK_EQ(cisp_image_alloc(&src, CISP_FMT_RGB888, 3, 2), 0);
	/* Pixel (x, y) holds 10 * y + x in all three channels. */
	for (uint32_t y = 0; y < 2; y++)
		for (uint32_t x = 0; x < 3; x++)
			memset(src.plane[0].data + y * src.plane[0].stride + 3 * x, (int)(10 * y + x), 3);
	/* The upright image, row by row, for each orientation (the stored image is how the camera saw it). */
	static const uint8_t want[9][6] = {
		{ 0 },
		{ 0, 1, 2, 10, 11, 12 },        /* 1: as stored */
		{ 2, 1, 0, 12, 11, 10 },        /* 2: mirrored left-right */
		{ 12, 11, 10, 2, 1, 0 },        /* 3: turned 180 */
		{ 10, 11, 12, 0, 1, 2 },        /* 4: mirrored top-bottom */
		{ 0, 10, 1, 11, 2, 12 },        /* 5: stored row 0 is the left column, column 0 the top row */
		{ 10, 0, 11, 1, 12, 2 },        /* 6: stored row 0 is the right column, column 0 the top row */
		{ 12, 2, 11, 1, 10, 0 },        /* 7: stored row 0 is the right column, column 0 the bottom row */
		{ 2, 12, 1, 11, 0, 10 },        /* 8: stored row 0 is the left column, column 0 the bottom row */
	};
	for (int o = 1; o <= 8; o++) {
		CHECK_EQ(cisp_image_orient(&src, o, &dst), 0);
		CHECK_EQ(dst.width, o >= 5 ? 2 : 3);
		CHECK_EQ(dst.height, o >= 5 ? 3 : 2);
		for (int i = 0; i < 6; i++) {
			uint32_t x = (uint32_t)i % dst.width, y = (uint32_t)i / dst.width;
			if (dst.plane[0].data[y * dst.plane[0].stride + 3 * x] != want[o][i])
				test_fail(__FILE__, __LINE__, "orientation %d pixel (%u, %u): %u, want %u", o, x, y,
					  dst.plane[0].data[y * dst.plane[0].stride + 3 * x], want[o][i]);
		}
		cisp_image_free(&dst);
	}
	CHECK_ERR(cisp_image_orient(&src, 9, &dst), -EINVAL, "orientation 9");
	cisp_image_free(&src);
}

/* The red curve of an ICC profile in memory at code 0.5: 0.5 if linear, 0.214 for sRGB. */
static double icc_half(const void *data, size_t size)
{
	cmsHPROFILE p = cmsOpenProfileFromMem(data, (cmsUInt32Number)size);
	double v = -1;

	if (p) {
		const cmsToneCurve *curve = cmsReadTag(p, cmsSigRedTRCTag);
		if (curve && cmsGetColorSpace(p) == cmsSigRgbData)
			v = cmsEvalToneCurveFloat(curve, 0.5f);
		cmsCloseProfile(p);
	}
	return v;
}

/* The value of an EXIF SHORT or RATIONAL tag in a little-endian TIFF block (IFD0 and the EXIF IFD). */
static double exif_value(const uint8_t *t, size_t n, uint16_t want)
{
	uint32_t ifds[2] = { (uint32_t)(t[4] | t[5] << 8), 0 };

	for (int k = 0; k < 2 && ifds[k] && ifds[k] + 2 <= n; k++) {
		unsigned count = t[ifds[k]] | t[ifds[k] + 1] << 8;
		for (unsigned i = 0; i < count && ifds[k] + 14 + 12 * i <= n; i++) {
			const uint8_t *e = t + ifds[k] + 2 + 12 * i;
			unsigned tag = e[0] | e[1] << 8, type = e[2] | e[3] << 8;
			uint32_t v = (uint32_t)(e[8] | e[9] << 8 | e[10] << 16 | (uint32_t)e[11] << 24);
			if (tag == 0x8769)
				ifds[1] = v;
			if (tag == want && type == 3)
				return e[8] | e[9] << 8;
			if (tag == want && type == 5 && v + 8 <= n)
				return (double)(t[v] | t[v + 1] << 8 | t[v + 2] << 16 | (uint32_t)t[v + 3] << 24) /
				       (double)(t[v + 4] | t[v + 5] << 8 | t[v + 6] << 16 | (uint32_t)t[v + 7] << 24);
		}
	}
	return -1;
}

/* JPEG, PNG and TIFF outputs carry the ICC profile (sRGB, or linear with --linear) and EXIF. */
TEST(rawio_output_files_carry_icc_and_exif)
{
	struct cisp_raw_frame meta;
	struct cisp_image rgb8, rgb16;
	struct cisp_file_options fo = { .quality = 90, .orientation = 6 };

	random_frame(&meta, CISP_FMT_SRGGB10, 16, 16);
	fo.meta = &meta;
	CHECK_EQ(cisp_image_alloc(&rgb8, CISP_FMT_RGB888, 40, 30), 0);
	CHECK_EQ(cisp_image_alloc(&rgb16, CISP_FMT_RGB48, 40, 30), 0);
	for (uint32_t y = 0; y < 30; y++) {
		memset(rgb8.plane[0].data + y * rgb8.plane[0].stride, (int)(y * 8), 120);
		memset(rgb16.plane[0].data + y * rgb16.plane[0].stride, (int)(y * 8), 240);
	}

	/* JPEG: upright (30x40), ICC with the sRGB curve, EXIF with the camera's ISO and exposure. */
	CHECK_EQ(cisp_image_write_file_opts(tmp_path("out.jpg"), &rgb8, &fo), 0);
	{
		struct jpeg_decompress_struct d;
		struct jpeg_error_mgr jerr;
		FILE *f = fopen(tmp_path("out.jpg"), "rb");
		JOCTET *icc = NULL;
		unsigned icc_len = 0;
		bool exif_found = false;

		CHECK(f != NULL);
		if (f) {
			d.err = jpeg_std_error(&jerr);
			jpeg_create_decompress(&d);
			jpeg_stdio_src(&d, f);
			jpeg_save_markers(&d, JPEG_APP0 + 1, 0xffff);
			jpeg_save_markers(&d, JPEG_APP0 + 2, 0xffff);
			jpeg_read_header(&d, TRUE);
			CHECK_EQ(d.image_width, 30);
			CHECK_EQ(d.image_height, 40);
			for (jpeg_saved_marker_ptr m = d.marker_list; m; m = m->next) {
				if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && !memcmp(m->data, "Exif\0\0", 6)) {
					exif_found = true;
					CHECK_NEAR(exif_value(m->data + 6, m->data_length - 6, 0x8827), 400, 0);
					CHECK_NEAR(exif_value(m->data + 6, m->data_length - 6, 0x829a), 1.0 / 250, 1e-9);
					CHECK_NEAR(exif_value(m->data + 6, m->data_length - 6, 0x829d), 4.0, 1e-9);
					CHECK_NEAR(exif_value(m->data + 6, m->data_length - 6, 0x0112), 1, 0);
				}
			}
			CHECK(exif_found);
			CHECK(jpeg_read_icc_profile(&d, &icc, &icc_len));
			CHECK_NEAR(icc_half(icc, icc_len), 0.2140, 0.001);
			free(icc);
			jpeg_destroy_decompress(&d);
			fclose(f);
		}
	}

	/* PNG 16-bit linear: iCCP with a linear curve, eXIf. */
	fo.linear = true;
	CHECK_EQ(cisp_image_write_file_opts(tmp_path("out.png"), &rgb16, &fo), 0);
	{
		FILE *f = fopen(tmp_path("out.png"), "rb");
		png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
		png_infop info = png ? png_create_info_struct(png) : NULL;
		png_charp name;
		png_bytep profile, exif;
		png_uint_32 len, exif_len;
		int compression;

		CHECK(f && info);
		if (f && info && !setjmp(png_jmpbuf(png))) {
			png_init_io(png, f);
			png_read_info(png, info);
			CHECK_EQ(png_get_bit_depth(png, info), 16);
			CHECK_EQ(png_get_image_width(png, info), 30);
			CHECK(png_get_iCCP(png, info, &name, &compression, &profile, &len) == PNG_INFO_iCCP);
			CHECK_NEAR(icc_half(profile, len), 0.5, 0.001);
			CHECK(png_get_eXIf_1(png, info, &exif_len, &exif) == PNG_INFO_eXIf);
			CHECK_NEAR(exif_value(exif, exif_len, 0x8827), 400, 0);
		}
		png_destroy_read_struct(&png, &info, NULL);
		if (f)
			fclose(f);
	}

	/* TIFF 16-bit: ICC, make and model. */
	CHECK_EQ(cisp_image_write_file_opts(tmp_path("out.tif"), &rgb16, &fo), 0);
	{
		TIFF *tif = TIFFOpen(tmp_path("out.tif"), "r");
		uint32_t w = 0, len = 0;
		uint16_t bps = 0;
		void *profile = NULL;
		char *make = NULL;

		CHECK(tif != NULL);
		if (tif) {
			TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
			TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &bps);
			CHECK_EQ(w, 30);
			CHECK_EQ(bps, 16);
			CHECK(TIFFGetField(tif, TIFFTAG_ICCPROFILE, &len, &profile) == 1);
			CHECK_NEAR(icc_half(profile, len), 0.5, 0.001);
			CHECK(TIFFGetField(tif, TIFFTAG_MAKE, &make) == 1 && make && !strcmp(make, "Test"));
			TIFFClose(tif);
		}
	}

	/* JPEG cannot hold 16 bits; quality outside 1..100 is refused. */
	CHECK_EQ(cisp_output_format_for_path("x.jpg", true), 0);
	CHECK(strstr(cisp_last_error(), "JPEG holds 8 bits") != NULL);
	CHECK_EQ(cisp_output_format_for_path("x.tif", true), CISP_FMT_RGB48);
	CHECK_EQ(cisp_output_format_for_path("x.JPEG", false), CISP_FMT_RGB888);
	CHECK_ERR(cisp_image_write_file_opts(tmp_path("bad.jpg"), &rgb16, &fo), -EINVAL, "JPEG holds 8-bit RGB");
	cisp_image_free(&rgb8);
	cisp_image_free(&rgb16);
	cisp_raw_frame_free(&meta);
}

/* A minimal DNG from a small capture tool develops with the stated defaults; cut short, it is an error. */
TEST(rawio_minimal_and_truncated_dng)
{
	struct cisp_raw_frame f;
	size_t n = write_minimal_dng(tmp_path("tool.dng"), 64, 48, 0);

	warnings[0] = '\0';
	cisp_log_set_sink(catch_log, NULL);
	CHECK_EQ(cisp_raw_read_file(tmp_path("tool.dng"), &f), 0);
	cisp_log_set_sink(NULL, NULL);
	CHECK_EQ(f.defaults, CISP_RAW_DEFAULT_BLACK | CISP_RAW_DEFAULT_WHITE | CISP_RAW_DEFAULT_MATRIX |
				     CISP_RAW_DEFAULT_WB);
	CHECK_EQ(f.white, 65535);
	CHECK_EQ(f.black[0], 0);
	CHECK_EQ(f.image.format, CISP_FMT_SRGGB16);
	CHECK_EQ(get_sample(&f.image, 3, 0), 1300);
	CHECK(strstr(warnings, "no WhiteLevel; using 65535") != NULL);
	cisp_raw_frame_free(&f);

	write_minimal_dng(tmp_path("cut.dng"), 64, 48, n * 6 / 10);
	CHECK_ERR(cisp_raw_read_file(tmp_path("cut.dng"), &f), -EIO, "rawio-cut.dng: the raw data is truncated");
	CHECK(strstr(cisp_last_error(), "(LibRaw: Input/output error)") != NULL);
}
