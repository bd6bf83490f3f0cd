/* SPDX-License-Identifier: MIT */
/* Raw files in and out: DNG round trips, metadata to colour, bad files, output files. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <jpeglib.h>
#include <lcms2.h>
#include <libraw/libraw.h>
#include <png.h>
#include <tiffio.h>

#include <cisp/develop.h>
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
	f->baseline_ev = -0.75f;
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
		CHECK(b.baseline_ev == -0.75f); /* BaselineExposure, an SRATIONAL that holds it exactly */

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

/* Set the type (unless 0), count and value field of a tag of IFD0 of a little-endian TIFF in memory. */
static void set_entry(uint8_t *d, size_t n, uint16_t tag, uint16_t type, uint32_t count, uint32_t value)
{
	uint32_t ifd = (uint32_t)(d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
	unsigned entries = ifd + 2 <= n ? (unsigned)(d[ifd] | d[ifd + 1] << 8) : 0;

	for (unsigned i = 0; i < entries && ifd + 2 + 12 * (i + 1) <= n; i++) {
		uint8_t *e = d + ifd + 2 + 12 * i;
		if ((e[0] | e[1] << 8) == tag) {
			if (type) {
				e[2] = (uint8_t)type;
				e[3] = 0;
			}
			for (int k = 0; k < 4; k++) {
				e[4 + k] = (uint8_t)(count >> (8 * k));
				e[8 + k] = (uint8_t)(value >> (8 * k));
			}
			return;
		}
	}
	test_fail(__FILE__, __LINE__, "tag %u not found", tag);
}

/* Set the count and value field of a tag of IFD0 of a little-endian TIFF in memory. */
static void patch_entry(uint8_t *d, size_t n, uint16_t tag, uint32_t count, uint32_t value)
{
	set_entry(d, n, tag, 0, count, value);
}

/* Make a tag of IFD0 one LONG of @value. */
static void patch_tag(uint8_t *d, size_t n, uint16_t tag, uint32_t value)
{
	set_entry(d, n, tag, 4, 1, value);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(v >> (8 * k));
}

/* How minimal_dng() lays a file out. */
struct dng_layout {
	uint32_t rows_per_strip;         /* strips of this many rows (0: one strip) ... */
	uint32_t tile_width, tile_length; /* ... or, when set, tiles of this size */
	bool has_black, has_white;       /* BlackLevel and WhiteLevel tags with these values */
	uint32_t black, white;
	bool has_baseline;               /* BaselineExposure of @baseline_hundredths / 100 stops */
	int32_t baseline_hundredths;
	const uint8_t *opcodes;          /* OpcodeList2 of @opcodes_size bytes, or NULL */
	uint32_t opcodes_size;
	bool opcodes_list3;              /* @opcodes as OpcodeList3 (after demosaic: R, G, B planes) */
	const uint16_t *samples;         /* the w x h samples in row order, or NULL for minimal_sample() */
};

/* Sample k (in row order) of every minimal_dng(). */
static unsigned minimal_sample(size_t k)
{
	return 1000 + (unsigned)(k % 7) * 100;
}

/*
 * A minimal DNG as small capture tools write it: the directory, the strip
 * or tile offsets and byte counts, then uncompressed 16-bit RGGB samples
 * (minimal_sample()) in strips or tiles one after another; no levels,
 * colour matrix or white balance unless @layout asks. Returns the bytes
 * (free them) and their count in *@n.
 */
static uint8_t *minimal_dng(uint32_t w, uint32_t h, const struct dng_layout *layout, size_t *n)
{
	enum { MAX_ENTRIES = 18 };
	bool tiled = layout->tile_width > 0;
	uint32_t cw = tiled ? layout->tile_width : w; /* a chunk (strip or tile): columns, rows */
	uint32_t ch = tiled ? layout->tile_length : layout->rows_per_strip ? layout->rows_per_strip : h;
	uint32_t across = (w + cw - 1) / cw, chunks = across * ((h + ch - 1) / ch);
	size_t arrays = 8 + 2 + 12 * MAX_ENTRIES + 4, data = arrays + 8 * (size_t)chunks, chunk = (size_t)cw * ch * 2;
	uint8_t *d, *e;
	int i = 0;

	size_t extra = data + chunks * chunk; /* BaselineExposure's SRATIONAL, then the opcode list */

	*n = extra + (layout->has_baseline || layout->opcodes ? 8 + layout->opcodes_size : 0);
	d = calloc(1, *n);
	if (!d)
		return NULL;
	memcpy(d, "II*\0\x08\0\0\0", 8);
#define ENTRY(tag, type, count, value)                                                              \
	do {                                                                                        \
		e = d + 10 + 12 * i++;                                                              \
		e[0] = (uint8_t)(tag), e[1] = (uint8_t)((tag) >> 8), e[2] = (type), e[4] = (uint8_t)(count), e[5] = (uint8_t)((count) >> 8); \
		e[8] = (uint8_t)(value), e[9] = (uint8_t)((value) >> 8);                            \
		e[10] = (uint8_t)((uint32_t)(value) >> 16), e[11] = (uint8_t)((uint32_t)(value) >> 24); \
	} while (0)
	ENTRY(254, 4, 1, 0);               /* NewSubFileType */
	ENTRY(256, 4, 1, w);               /* ImageWidth */
	ENTRY(257, 4, 1, h);               /* ImageLength */
	ENTRY(258, 3, 1, 16);              /* BitsPerSample */
	ENTRY(259, 3, 1, 1);               /* Compression: none */
	ENTRY(262, 3, 1, 32803);           /* PhotometricInterpretation: CFA */
	if (!tiled)
		ENTRY(273, 4, chunks, chunks > 1 ? arrays : data); /* StripOffsets */
	ENTRY(277, 3, 1, 1);                                       /* SamplesPerPixel */
	if (!tiled) {
		ENTRY(278, 4, 1, ch);                                            /* RowsPerStrip */
		ENTRY(279, 4, chunks, chunks > 1 ? arrays + 4 * chunks : chunk); /* StripByteCounts */
	} else {
		ENTRY(322, 4, 1, cw);                                            /* TileWidth */
		ENTRY(323, 4, 1, ch);                                            /* TileLength */
		ENTRY(324, 4, chunks, chunks > 1 ? arrays : data);               /* TileOffsets */
		ENTRY(325, 4, chunks, chunks > 1 ? arrays + 4 * chunks : chunk); /* TileByteCounts */
	}
	ENTRY(33421, 3, 2, 2 | 2 << 16);   /* CFARepeatPatternDim 2x2 */
	ENTRY(33422, 1, 4, 0x02010100);    /* CFAPattern R G G B */
	ENTRY(50706, 1, 4, 0x00000401);    /* DNGVersion 1.4.0.0 */
	if (layout->has_black)
		ENTRY(50714, 4, 1, layout->black); /* BlackLevel */
	if (layout->has_white)
		ENTRY(50717, 4, 1, layout->white); /* WhiteLevel */
	if (layout->has_baseline)
		ENTRY(50730, 10, 1, extra); /* BaselineExposure */
	if (layout->opcodes)
		ENTRY(layout->opcodes_list3 ? 51022 : 51009, 7, layout->opcodes_size, extra + 8); /* OpcodeList2/3 */
#undef ENTRY
	if (*n > extra) {
		put32(d + extra, (uint32_t)layout->baseline_hundredths);
		put32(d + extra + 4, 100);
	}
	if (layout->opcodes)
		memcpy(d + extra + 8, layout->opcodes, layout->opcodes_size);
	d[8] = (uint8_t)i;
	for (uint32_t c = 0; c < chunks && chunks > 1; c++) {
		put32(d + arrays + 4 * c, (uint32_t)(data + c * chunk));
		put32(d + arrays + 4 * (chunks + c), (uint32_t)chunk);
	}
	/* Chunk by chunk in rows of chunks, each chunk's rows cw samples wide (a strip: the image's rows). */
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++) {
			size_t at = data + ((y / ch) * across + x / cw) * chunk + ((y % ch) * cw + x % cw) * 2;
			unsigned v = layout->samples ? layout->samples[(size_t)y * w + x]
						     : minimal_sample((size_t)y * w + x);
			d[at] = (uint8_t)v;
			d[at + 1] = (uint8_t)(v >> 8);
		}
	}
	return d;
}

/* minimal_dng() with one 16-bit strip written to @path, cut to @keep bytes (0: whole); returns its full size. */
static size_t write_minimal_dng(const char *path, uint32_t w, uint32_t h, size_t keep)
{
	const struct dng_layout layout = { 0 };
	size_t n;
	uint8_t *d = minimal_dng(w, h, &layout, &n);

	CHECK(d != NULL);
	if (!d)
		return 0;
	write_bytes(path, d, keep && keep < n ? keep : n);
	free(d);
	return n;
}

/* Where the values of IFD0's LONG tag @tag lie: in its entry for one, out of line for more; or 0. */
static size_t tag_values_at(const uint8_t *d, size_t n, uint16_t tag)
{
	uint32_t ifd = (uint32_t)(d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
	unsigned entries = ifd + 2 <= n ? (unsigned)(d[ifd] | d[ifd + 1] << 8) : 0;

	for (unsigned i = 0; i < entries && ifd + 2 + 12 * (i + 1) <= n; i++) {
		const uint8_t *e = d + ifd + 2 + 12 * i;
		uint32_t count = (uint32_t)(e[4] | e[5] << 8 | e[6] << 16 | (uint32_t)e[7] << 24);
		if ((e[0] | e[1] << 8) == tag)
			return count * 4 > 4 ? (size_t)(e[8] | e[9] << 8 | e[10] << 16 | (uint32_t)e[11] << 24)
					     : (size_t)(e - d + 8);
	}
	test_fail(__FILE__, __LINE__, "tag %u not found", tag);
	return 0;
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
				  "short-cfa.dng: a malformed DNG: CFAPattern has 3 entries for a 2x2 repeat pattern");
			free(broken);
		}
	}
	/* A buffer over 2 GiB (mapped, never touched): refused before it is read, as a file that large is. */
	{
		size_t big_size = ((size_t)2 << 30) + 1;
		void *big = mmap(NULL, big_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		CHECK(big != MAP_FAILED);
		if (big != MAP_FAILED) {
			CHECK_ERR(cisp_raw_read_memory(big, big_size, "big.dng", &f), -EFBIG,
				  "big.dng: 2147483649 bytes is larger than the 2048 MiB a raw file may have");
			munmap(big, big_size);
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

/* Read @d (@n bytes) as "NAME.dng" and expect @err with @needle in the message. */
static void expect_refused(const uint8_t *d, size_t n, const char *name, int err, const char *needle)
{
	struct cisp_raw_frame f;
	int ret = cisp_raw_read_memory(d, n, name, &f);

	if (ret != err || !strstr(cisp_last_error(), needle) || !strstr(cisp_last_error(), name))
		test_fail(__FILE__, __LINE__, "%s: returned %d (%s), expected %d and '%s'", name, ret,
			  cisp_last_error(), err, needle);
	CHECK(f.image.plane[0].data == NULL);
	if (!ret)
		cisp_raw_frame_free(&f);
}

/* @d (@n bytes) reads with every sample where minimal_dng() put it. */
static void check_minimal(const uint8_t *d, size_t n, const char *name, uint32_t w, uint32_t h)
{
	struct cisp_raw_frame f;
	int ret;

	cisp_log_set_sink(catch_log, NULL);
	ret = cisp_raw_read_memory(d, n, name, &f);
	cisp_log_set_sink(NULL, NULL);
	if (ret) {
		test_fail(__FILE__, __LINE__, "%s: %s", name, cisp_last_error());
		return;
	}
	CHECK_EQ(f.image.width, w);
	CHECK_EQ(f.image.height, h);
	for (uint32_t y = 0, bad = 0; y < h && bad < 4; y++)
		for (uint32_t x = 0; x < w && bad < 4; x++)
			if (get_sample(&f.image, x, y) != minimal_sample((size_t)y * w + x) && ++bad)
				test_fail(__FILE__, __LINE__, "%s: sample (%u, %u) is %u, written %u", name, x, y,
					  get_sample(&f.image, x, y), minimal_sample((size_t)y * w + x));
	cisp_raw_frame_free(&f);
}

/*
 * Strip and tile offsets, byte counts and geometry from a hostile file: the
 * image data must lie inside the file, be as large as the directory says
 * and be laid out as LibRaw reads it, or the file is refused before LibRaw
 * reads a pixel (LibRaw itself took StripOffsets 0xfffffff0 and 0x80000000
 * and decoded the TIFF header as pixels).
 */
TEST(rawio_hostile_dng_image_data)
{
	const struct dng_layout one = { 0 }, strips = { .rows_per_strip = 16 },
				one_tile = { .tile_width = 48, .tile_length = 32 },
				tiles = { .tile_width = 16, .tile_length = 16 };
	uint8_t *d, *s, *t, *u;
	size_t n, sn, tn, un, at;

	d = minimal_dng(64, 48, &one, &n);
	s = minimal_dng(64, 48, &strips, &sn);
	t = minimal_dng(48, 32, &tiles, &tn);
	u = minimal_dng(48, 32, &one_tile, &un);
	CHECK(d && s && t && u);
	if (!d || !s || !t || !u)
		goto out;
	/* Every layout LibRaw reads right reads as written. */
	check_minimal(d, n, "one-strip.dng", 64, 48);
	check_minimal(s, sn, "three-strips.dng", 64, 48);
	check_minimal(u, un, "one-tile.dng", 48, 32);
	/* LibRaw 0.20 reads uncompressed tiles as one run of rows (the offsets as pixels): refused there. */
	if (libraw_versionNumber() >= LIBRAW_MAKE_VERSION(0, 21, 0))
		check_minimal(t, tn, "six-tiles.dng", 48, 32);
	else
		expect_refused(t, tn, "six-tiles.dng", -ENOTSUP, "uncompressed image data in tiles");

	/* Offsets beyond the file, or running past its end. */
	at = tag_values_at(d, n, 273); /* StripOffsets */
	put32(d + at, 0xfffffff0);
	expect_refused(d, n, "strip-fffffff0.dng", -EIO, "strip 0 is 6144 bytes at byte 4294967280");
	put32(d + at, 0x80000000);
	expect_refused(d, n, "strip-80000000.dng", -EIO, "strip 0 is 6144 bytes at byte 2147483648");
	put32(d + at, (uint32_t)n - 100);
	expect_refused(d, n, "strip-late.dng", -EIO, "the raw data runs past the end of the file");
	put32(d + at, (uint32_t)(n - 64 * 48 * 2));
	at = tag_values_at(t, tn, 324); /* TileOffsets */
	put32(t + at + 4, 0xfffffff0);
	expect_refused(t, tn, "tile-fffffff0.dng", -EIO, "tile 1 is 512 bytes at byte 4294967280");
	put32(t + at + 4, (uint32_t)tn - 512 * 5);

	/* Byte counts: one whose end wraps 32 bits, one too small for the rows. */
	at = tag_values_at(d, n, 279); /* StripByteCounts */
	put32(d + at, 0xffffffff);
	expect_refused(d, n, "count-ffffffff.dng", -EIO, "strip 0 is 4294967295 bytes");
	put32(d + at, 100);
	expect_refused(d, n, "count-100.dng", -EINVAL,
		       "the strips hold 100 bytes, but 48 rows of 64 16-bit samples need 6144");
	put32(d + at, 64 * 48 * 2);
	check_minimal(d, n, "restored.dng", 64, 48);

	/* Strip counts: one the geometry does not give, and more than any image cisp reads has. */
	patch_entry(d, n, 273, 2, (uint32_t)(n - 64 * 48 * 2));
	expect_refused(d, n, "strips-2.dng", -EINVAL,
		       "StripOffsets has 2 entries for the 1 strips of 48 rows in a 64x48 image");
	{
		uint32_t many = (1u << 20) + 1;
		size_t bn = n + 8 * (size_t)many;
		uint8_t *b = calloc(1, bn);
		CHECK(b != NULL);
		if (b) {
			memcpy(b, d, n);
			patch_entry(b, bn, 273, many, (uint32_t)n);
			patch_entry(b, bn, 279, many, (uint32_t)n + 4 * many);
			expect_refused(b, bn, "strips-many.dng", -EINVAL,
				       "StripOffsets has 1048577 entries, more than the 1048576");
			free(b);
		}
	}
	patch_entry(d, n, 273, 1, (uint32_t)(n - 64 * 48 * 2));

	/* The last two strips stored the other way round: right by their offsets, garbage as one run (LibRaw). */
	at = tag_values_at(s, sn, 273) + 4;
	{
		uint32_t second = s[at] | s[at + 1] << 8 | s[at + 2] << 16 | (uint32_t)s[at + 3] << 24;
		uint8_t strip[64 * 16 * 2];
		memcpy(strip, s + second, sizeof(strip));
		memmove(s + second, s + second + sizeof(strip), sizeof(strip));
		memcpy(s + second + sizeof(strip), strip, sizeof(strip));
		put32(s + at, second + (uint32_t)sizeof(strip));
		put32(s + at + 4, second);
		expect_refused(s, sn, "strips-swapped.dng", -ENOTSUP, "uncompressed image data in strips");
	}

	/* Geometry: BitsPerSample out of range, a tile grid the offsets do not match, empty tiles. */
	patch_tag(d, n, 258, 0);
	expect_refused(d, n, "bits-0.dng", -EINVAL, "BitsPerSample 0 is not 1..32");
	patch_tag(d, n, 258, 0xffff);
	expect_refused(d, n, "bits-65535.dng", -EINVAL, "BitsPerSample 65535 is not 1..32");
	patch_tag(d, n, 258, 16);
	patch_tag(d, n, 277, 0);
	expect_refused(d, n, "samples-0.dng", -EINVAL, "SamplesPerPixel 0");
	patch_tag(d, n, 277, 1);
	at = tag_values_at(t, tn, 324);
	patch_entry(t, tn, 324, 5, (uint32_t)at);
	expect_refused(t, tn, "tile-count.dng", -EINVAL,
		       "TileOffsets has 5 entries for the 6 tiles of 16x16 in a 48x32 image");
	patch_entry(t, tn, 324, 6, (uint32_t)at);
	patch_tag(t, tn, 322, 0);
	expect_refused(t, tn, "tile-width-0.dng", -EINVAL, "tiles of 0x16");
	patch_tag(t, tn, 322, 0xffffffff);
	expect_refused(t, tn, "tile-width-huge.dng", -EINVAL,
		       "TileOffsets has 6 entries for the 2 tiles of 4294967295x16");
	patch_tag(t, tn, 322, 16);
	if (libraw_versionNumber() >= LIBRAW_MAKE_VERSION(0, 21, 0))
		check_minimal(t, tn, "tiles-restored.dng", 48, 32);
	else
		expect_refused(t, tn, "tiles-restored.dng", -ENOTSUP, "uncompressed image data in tiles");
out:
	free(d);
	free(s);
	free(t);
	free(u);
}

/*
 * A WhiteLevel of 0 or one beyond 16 bits is refused, never replaced
 * silently (LibRaw's 0 or 2^32 - 1 became 65535 with a warning that
 * claimed the tag was missing); CFARepeatPatternDim values whose product
 * does not fit 32 bits are compared exactly.
 */
TEST(rawio_hostile_dng_levels)
{
	struct dng_layout layout = { .has_white = true };
	struct cisp_raw_frame f;
	uint8_t *d;
	size_t n;

	d = minimal_dng(32, 32, &layout, &n);
	CHECK(d != NULL);
	if (!d)
		return;
	expect_refused(d, n, "white-0.dng", -EINVAL, "WhiteLevel 0 leaves no signal range");
	patch_tag(d, n, 50717, 0xffffffff);
	expect_refused(d, n, "white-ffffffff.dng", -EINVAL,
		       "WhiteLevel 4294967295 is beyond the largest 16-bit sample, 65535");
	patch_tag(d, n, 50717, 65536);
	expect_refused(d, n, "white-65536.dng", -EINVAL, "WhiteLevel 65536 is beyond");
	/* A real white level: taken as is, no warning, the smallest depth that holds it. */
	patch_tag(d, n, 50717, 4000);
	warnings[0] = '\0';
	cisp_log_set_sink(catch_log, NULL);
	CHECK_EQ(cisp_raw_read_memory(d, n, "white-4000.dng", &f), 0);
	cisp_log_set_sink(NULL, NULL);
	CHECK_EQ(f.white, 4000);
	CHECK_EQ(f.image.format, CISP_FMT_SRGGB12);
	CHECK(!(f.defaults & CISP_RAW_DEFAULT_WHITE));
	CHECK(strstr(warnings, "WhiteLevel") == NULL);
	cisp_raw_frame_free(&f);
	free(d);

	/* A black level at or above it: refused, however large. */
	layout.white = 4000;
	layout.has_black = true;
	layout.black = 5000;
	d = minimal_dng(64, 48, &layout, &n);
	if (!d)
		return;
	expect_refused(d, n, "black-5000.dng", -EINVAL, "BlackLevel 5000 is not below the white level 4000");
	patch_tag(d, n, 50714, 0xffffffff);
	expect_refused(d, n, "black-ffffffff.dng", -EINVAL, "BlackLevel 4294967295 is not below the white level 4000");
	set_entry(d, n, 50714, 1, 4097, 0); /* 4097 BYTEs from the start of the file */
	expect_refused(d, n, "black-4097.dng", -EINVAL,
		       "BlackLevel has 4097 values, more than the 4096 of any repeat pattern");
	free(d);

	/* CFARepeatPatternDim as two LONGs of 2^32 - 1 (out of line, over the last samples). */
	d = minimal_dng(32, 32, &(struct dng_layout){ 0 }, &n);
	if (!d)
		return;
	put32(d + n - 8, 0xffffffff);
	put32(d + n - 4, 0xffffffff);
	set_entry(d, n, 33421, 4, 2, (uint32_t)n - 8);
	expect_refused(d, n, "cfa-dims.dng", -EINVAL,
		       "CFAPattern has 4 entries for a 4294967295x4294967295 repeat pattern");
	free(d);
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
	CHECK_ERR(cisp_raw_read_file(tmp_path("cut.dng"), &f), -EIO,
		  "rawio-cut.dng: the raw data runs past the end of the file (cut short, or a bad offset): strip 0 is "
		  "6144 bytes at byte");
}

/* ---- opcode lists and BaselineExposure ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(v >> (24 - 8 * k));
}

static void put_be_double(uint8_t *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/*
 * A GainMap opcode at @p (76 + 4 * points_h bytes): the whole 64x48 image,
 * one plane, pitch 1, a map of 1 x @points_h points spaced 1 / (points_h - 1)
 * across, with @gains; returns its size.
 */
static size_t gain_map_opcode(uint8_t *p, uint32_t points_h, const float *gains)
{
	const uint32_t fixed[10] = { 0, 0, 48, 64, 0, 1, 1, 1, 1, points_h };
	uint32_t bytes = 76 + 4 * points_h;

	put_be32(p, 9);          /* GainMap */
	put_be32(p + 4, 0x01030000); /* DNG 1.3 */
	put_be32(p + 8, 0);      /* flags */
	put_be32(p + 12, bytes);
	for (int i = 0; i < 10; i++)
		put_be32(p + 16 + 4 * i, fixed[i]);
	put_be_double(p + 56, 1);                                        /* MapSpacingV */
	put_be_double(p + 64, points_h > 1 ? 1.0 / (points_h - 1) : 1); /* MapSpacingH */
	put_be_double(p + 72, 0);                                        /* MapOriginV */
	put_be_double(p + 80, 0);                                        /* MapOriginH */
	put_be32(p + 88, 1);                                             /* MapPlanes */
	for (uint32_t i = 0; i < points_h; i++) {
		uint32_t v;
		memcpy(&v, &gains[i], 4);
		put_be32(p + 92 + 4 * i, v);
	}
	return 16 + bytes;
}

/* A 64x48 minimal DNG (black 0) with OpcodeList2 @list and BaselineExposure +1.5. */
static uint8_t *opcode_dng(const uint8_t *list, size_t list_size, size_t *n)
{
	struct dng_layout layout = { .has_baseline = true, .baseline_hundredths = 150, .opcodes = list,
				     .opcodes_size = (uint32_t)list_size };

	return minimal_dng(64, 48, &layout, n);
}

TEST(rawio_dng_gain_map_and_baseline_exposure)
{
	uint8_t list[1024];
	const float twice[2] = { 2, 2 }, ramp[2] = { 1, 3 }, nan_gain[2] = { 1, NAN };
	struct cisp_raw_frame f;
	size_t size, n;
	uint8_t *d;

	/* Gain 2 everywhere: every sample doubles (black 0); BaselineExposure read as +1.5 stops. */
	put_be32(list, 1);
	size = 4 + gain_map_opcode(list + 4, 2, twice);
	d = opcode_dng(list, size, &n);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(cisp_raw_read_memory(d, n, "gain2.dng", &f), 0);
	CHECK(f.baseline_ev == 1.5f);
	for (uint32_t y = 0; y < 48; y += 7)
		for (uint32_t x = 0; x < 64; x += 5)
			CHECK_EQ(get_sample(&f.image, x, y), 2 * minimal_sample((size_t)y * 64 + x));
	cisp_raw_frame_free(&f);
	write_bytes(tmp_path("gainmap.dng"), d, n); /* the fuzz corpus's raw_file/gainmap_64x48.dng */
	free(d);

	/* A ramp from 1 at the left edge to 3 at the right: column 32 (half way) gets 2. */
	size = 4 + gain_map_opcode(list + 4, 2, ramp);
	d = opcode_dng(list, size, &n);
	if (!d)
		return;
	CHECK_EQ(cisp_raw_read_memory(d, n, "ramp.dng", &f), 0);
	CHECK_EQ(get_sample(&f.image, 0, 3), minimal_sample(3 * 64));
	CHECK_EQ(get_sample(&f.image, 32, 3), 2 * minimal_sample(3 * 64 + 32));
	cisp_raw_frame_free(&f);
	free(d);

	/* Another opcode: named in a warning, the rest applied. */
	put_be32(list, 2);
	put_be32(list + 4, 4); /* FixBadPixelsConstant, 8 bytes of parameters nobody reads */
	put_be32(list + 8, 0x01030000);
	put_be32(list + 12, 1);
	put_be32(list + 16, 8);
	memset(list + 20, 0, 8);
	size = 28 + gain_map_opcode(list + 28, 2, twice);
	d = opcode_dng(list, size, &n);
	if (!d)
		return;
	warnings[0] = '\0';
	cisp_log_set_sink(catch_log, NULL);
	CHECK_EQ(cisp_raw_read_memory(d, n, "other.dng", &f), 0);
	cisp_log_set_sink(NULL, NULL);
	CHECK(strstr(warnings, "other.dng: OpcodeList2: not applied: FixBadPixelsConstant (optional)") != NULL);
	CHECK_EQ(get_sample(&f.image, 5, 5), 2 * minimal_sample(5 * 64 + 5));
	cisp_raw_frame_free(&f);
	free(d);

	/*
	 * OpcodeList3 on planes 0..2 with a map of two planes (gains 2, then 3):
	 * red takes the first, green and blue the map's last plane (DNG), and
	 * nothing reads past the map.
	 */
	{
		const float two_planes[4] = { 2, 3, 2, 3 }; /* 1 x 2 points, 2 planes each */
		struct dng_layout layout = { .opcodes = list, .opcodes_list3 = true };

		put_be32(list, 1);
		size = 4 + gain_map_opcode(list + 4, 2, two_planes);
		put_be32(list + 4 + 12, 76 + 16);     /* four floats of gains */
		put_be32(list + 20 + 20, 3);          /* Planes */
		put_be32(list + 20 + 72, 2);          /* MapPlanes */
		size += 8;
		for (int i = 0; i < 4; i++) {
			uint32_t v;
			memcpy(&v, &two_planes[i], 4);
			put_be32(list + 20 + 76 + 4 * i, v);
		}
		layout.opcodes_size = (uint32_t)size;
		d = minimal_dng(64, 48, &layout, &n);
		if (!d)
			return;
		CHECK_EQ(cisp_raw_read_memory(d, n, "planes.dng", &f), 0);
		CHECK_EQ(get_sample(&f.image, 4, 6), 2 * minimal_sample(6 * 64 + 4)); /* R of RGGB */
		CHECK_EQ(get_sample(&f.image, 5, 6), 3 * minimal_sample(6 * 64 + 5)); /* G */
		CHECK_EQ(get_sample(&f.image, 5, 7), 3 * minimal_sample(7 * 64 + 5)); /* B */
		cisp_raw_frame_free(&f);
		free(d);
	}

	/* Malformed lists: refused with the reason, nothing decoded. */
	put_be32(list, 1);
	size = 4 + gain_map_opcode(list + 4, 2, nan_gain);
	d = opcode_dng(list, size, &n);
	expect_refused(d, n, "nan.dng", -EINVAL, "OpcodeList2's opcode 1: a GainMap gain of nan, not a number in 0..16");
	free(d);
	put_be32(list, 1000000); /* more opcodes than bytes */
	size = 4 + gain_map_opcode(list + 4, 2, twice);
	d = opcode_dng(list, size, &n);
	expect_refused(d, n, "count.dng", -EINVAL, "OpcodeList2 says 1000000 opcodes, but opcode 2 starts past");
	free(d);
	put_be32(list, 1);
	put_be32(list + 20 + 32, 4096); /* MapPointsV and H 4096 with the bytes of two points */
	put_be32(list + 20 + 36, 4096);
	d = opcode_dng(list, size, &n);
	expect_refused(d, n, "points.dng", -EINVAL, "a GainMap of 4096x4096 points in 1 planes needs 67108940 bytes");
	free(d);
	size = 4 + gain_map_opcode(list + 4, 2, twice);
	put_be32(list + 4 + 12, 0xfffffff0); /* parameters past the list */
	d = opcode_dng(list, size, &n);
	expect_refused(d, n, "bytes.dng", -EINVAL, "opcode 1 has 4294967280 bytes of parameters, past the list's end");
	free(d);
	size = 4 + gain_map_opcode(list + 4, 2, twice);
	put_be_double(list + 20 + 48, -1); /* MapSpacingH */
	d = opcode_dng(list, size, &n);
	expect_refused(d, n, "spacing.dng", -EINVAL, "spacing must be positive");
	free(d);
	d = opcode_dng(list, 3, &n);
	expect_refused(d, n, "short.dng", -EINVAL, "OpcodeList2 of 3 bytes has no count");
	free(d);
}

/* ---- lens corrections: WarpRectilinear, WarpFisheye, WarpRectilinear2, FixVignetteRadial ---- */

/* Opcode @id's 16-byte header at @p for @bytes of parameters (flags: optional); returns where they go. */
static uint8_t *opcode_header(uint8_t *p, uint32_t id, uint32_t bytes)
{
	put_be32(p, id);
	put_be32(p + 4, 0x01030000); /* DNG 1.3 */
	put_be32(p + 8, 1);
	put_be32(p + 12, bytes);
	return p + 16;
}

/* Coefficients per plane of warp @id: 6 for 1 (rectilinear), 4 for 2 (fisheye), 19 for 14 (rectilinear 2). */
static uint32_t warp_per_plane(uint32_t id)
{
	return id == 1 ? 6 : id == 2 ? 4 : 19;
}

/*
 * A list at @list of one warp @id for @planes planes, each with
 * warp_per_plane(@id) coefficients from @k, centred at @cx, @cy (then for
 * 14 the reciprocal flag 0); returns the list's size.
 */
static size_t warp_list(uint8_t *list, uint32_t id, uint32_t planes, const double *k, double cx, double cy)
{
	uint32_t per_plane = warp_per_plane(id), tail = id == 14 ? 20 : 16, bytes = 4 + 8 * per_plane * planes + tail;
	uint8_t *p;

	put_be32(list, 1);
	p = opcode_header(list + 4, id, bytes);
	put_be32(p, planes);
	for (uint32_t i = 0; i < per_plane * planes; i++)
		put_be_double(p + 4 + 8 * i, k[i]);
	put_be_double(p + bytes - tail, cx);
	put_be_double(p + bytes - tail + 8, cy);
	if (id == 14)
		put_be32(p + bytes - 4, 0);
	return 20 + bytes;
}

/* A list of one FixVignetteRadial with @k0..k4 about the image's centre. */
static size_t vignette_list(uint8_t *list, const double k[5])
{
	uint8_t *p;

	put_be32(list, 1);
	p = opcode_header(list + 4, 3, 56);
	for (int i = 0; i < 5; i++)
		put_be_double(p + 8 * i, k[i]);
	put_be_double(p + 40, 0.5);
	put_be_double(p + 48, 0.5);
	return 20 + 56;
}

/* Reads @w x @h @samples with @list (OpcodeList3 if @list3) into @f; 0 or the reader's error. */
static int read_with_list(uint32_t w, uint32_t h, const uint16_t *samples, const uint8_t *list, size_t size,
			  bool list3, const char *name, struct cisp_raw_frame *f)
{
	struct dng_layout layout = { .opcodes = list, .opcodes_size = (uint32_t)size, .opcodes_list3 = list3,
				     .samples = samples, .has_white = true, .white = 65535 };
	size_t n;
	uint8_t *d = minimal_dng(w, h, &layout, &n);
	int ret;

	memset(f, 0, sizeof(*f));
	if (!d)
		return -ENOMEM;
	ret = cisp_raw_read_memory(d, n, name, f);
	/*
	 * warp_lateral, warp_identity, warp_fisheye_flat, warp2_lateral and
	 * vignette are the fuzz corpus's raw_file/NAME_64x48.dng
	 */
	write_bytes(tmp_path(name), d, n);
	free(d);
	return ret;
}

/* Samples of @a and @b that differ, for those of the CFA site @site (0 R, 1 Gr, 2 Gb, 3 B of RGGB; -1 all). */
static unsigned count_changed(const struct cisp_image *a, const struct cisp_image *b, int site)
{
	unsigned changed = 0;

	for (uint32_t y = 0; y < a->height; y++)
		for (uint32_t x = 0; x < a->width; x++)
			if ((site < 0 || (int)((y & 1) * 2 + (x & 1)) == site) &&
			    get_sample(a, x, y) != get_sample(b, x, y))
				changed++;
	return changed;
}

/* Identity coefficients leave every sample as it was; three planes take their own coefficients. */
TEST(rawio_dng_warp_identity)
{
	static const double rect_identity[6] = { 1, 0, 0, 0, 0, 0 }, vignette_none[5] = { 0, 0, 0, 0, 0 };
	/* Lateral chromatic aberration: red 1 % larger, green and blue as they are. */
	static const double lateral[18] = { 1.01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 };
	uint8_t list[512];
	struct cisp_raw_frame plain, f;
	size_t size;

	CHECK_EQ(read_with_list(64, 48, NULL, NULL, 0, false, "plain.dng", &plain), 0);
	if (!plain.image.plane[0].data)
		return;
	size = warp_list(list, 1, 1, rect_identity, 0.5, 0.5);
	CHECK_EQ(read_with_list(64, 48, NULL, list, size, false, "warp_identity.dng", &f), 0);
	CHECK_EQ(count_changed(&plain.image, &f.image, -1), 0);
	cisp_raw_frame_free(&f);
	/* Off centre too: the source of every sample is the sample itself. */
	size = warp_list(list, 1, 1, rect_identity, 0.2, 0.9);
	CHECK_EQ(read_with_list(64, 48, NULL, list, size, true, "warp_identity_list3.dng", &f), 0);
	CHECK_EQ(count_changed(&plain.image, &f.image, -1), 0);
	cisp_raw_frame_free(&f);
	/* WarpRectilinear2 with kr0 = 1, over a narrower radius range: the same. */
	{
		static const double identity2[19] = { 1, [17] = 0.1, [18] = 0.9 };

		size = warp_list(list, 14, 1, identity2, 0.3, 0.6);
		CHECK_EQ(read_with_list(64, 48, NULL, list, size, true, "warp2_identity.dng", &f), 0);
		CHECK_EQ(count_changed(&plain.image, &f.image, -1), 0);
		cisp_raw_frame_free(&f);
	}
	size = vignette_list(list, vignette_none);
	CHECK_EQ(read_with_list(64, 48, NULL, list, size, true, "vignette_identity.dng", &f), 0);
	CHECK_EQ(count_changed(&plain.image, &f.image, -1), 0);
	cisp_raw_frame_free(&f);

	/* A flat field stays flat through any warp: every source position interpolates the same value. */
	{
		static const double fisheye[12] = { 1, 0, 0, 0, 1.1, 0, 0, 0, 0.9, 0.1, 0, 0 };
		uint16_t flat[64 * 48];
		unsigned other = 0;

		for (size_t i = 0; i < 64 * 48; i++)
			flat[i] = 1234;
		size = warp_list(list, 2, 3, fisheye, 0.4, 0.6);
		CHECK_EQ(read_with_list(64, 48, flat, list, size, true, "warp_fisheye_flat.dng", &f), 0);
		for (uint32_t y = 0; y < f.image.height; y++)
			for (uint32_t x = 0; x < f.image.width; x++)
				other += get_sample(&f.image, x, y) != 1234;
		CHECK_EQ(other, 0);
		cisp_raw_frame_free(&f);
	}

	size = warp_list(list, 1, 3, lateral, 0.5, 0.5);
	CHECK_EQ(read_with_list(64, 48, NULL, list, size, true, "warp_lateral.dng", &f), 0);
	CHECK(count_changed(&plain.image, &f.image, 0) > 64 * 48 / 8); /* red moved */
	CHECK_EQ(count_changed(&plain.image, &f.image, 1), 0);
	CHECK_EQ(count_changed(&plain.image, &f.image, 2), 0);
	CHECK_EQ(count_changed(&plain.image, &f.image, 3), 0);
	cisp_raw_frame_free(&f);
	/* The same in WarpRectilinear2, blue 1 % smaller this time. */
	{
		static const double lateral2[57] = { 1, [18] = 1, [19] = 1, [37] = 1, [38] = 0.99, [56] = 1 };

		size = warp_list(list, 14, 3, lateral2, 0.5, 0.5);
		CHECK_EQ(read_with_list(64, 48, NULL, list, size, true, "warp2_lateral.dng", &f), 0);
		CHECK_EQ(count_changed(&plain.image, &f.image, 0), 0);
		CHECK_EQ(count_changed(&plain.image, &f.image, 1), 0);
		CHECK_EQ(count_changed(&plain.image, &f.image, 2), 0);
		CHECK(count_changed(&plain.image, &f.image, 3) > 64 * 48 / 8); /* blue moved */
		cisp_raw_frame_free(&f);
	}
	cisp_raw_frame_free(&plain);
}

/* FixVignetteRadial: gain 1 + k0 r^2 with r 1 at the corners; the centre as it was. */
TEST(rawio_dng_vignette_radial)
{
	static const double k[5] = { 1, 0, 0, 0, 0 };
	uint16_t samples[64 * 48];
	uint8_t list[128];
	struct cisp_raw_frame f;

	for (size_t i = 0; i < 64 * 48; i++)
		samples[i] = 1000;
	CHECK_EQ(read_with_list(64, 48, samples, list, vignette_list(list, k), false, "vignette.dng", &f), 0);
	if (!f.image.plane[0].data)
		return;
	/* Centre (31.5, 23.5), the corners at 31.5^2 + 23.5^2 = 1544.5 squared pixels: r = 1 there (gain 2). */
	CHECK_EQ(get_sample(&f.image, 0, 0), 2000);
	CHECK_EQ(get_sample(&f.image, 63, 47), 2000);
	CHECK_EQ(get_sample(&f.image, 31, 23), 1000);
	CHECK_EQ(get_sample(&f.image, 0, 23), 1000 + (unsigned)lround(1000 * (31.5 * 31.5 + 0.25) / 1544.5));
	cisp_raw_frame_free(&f);
}

/*
 * Where the warp @id with one plane's coefficients @k takes destination
 * offset @dx, @dy from (DNG 1.4; WarpRectilinear2, 14, of DNG 1.6: the ratio
 * is the sum of kr_i r^i for r clamped to k[17]..k[18], or its reciprocal
 * when @reciprocal).
 */
static void warp_source(int id, const double *k, bool reciprocal, double dx, double dy, double *sx, double *sy)
{
	double r2 = dx * dx + dy * dy, r = sqrt(r2);

	if (id == 14) {
		double rc = fmin(fmax(r, k[17]), k[18]), f = 0;

		for (int i = 0; i < 15; i++)
			f += k[i] * pow(rc, i);
		f = reciprocal ? 1 / f : f;
		*sx = f * dx + k[15] * 2 * dx * dy + k[16] * (r2 + 2 * dx * dx);
		*sy = f * dy + k[16] * 2 * dx * dy + k[15] * (r2 + 2 * dy * dy);
	} else if (id == 1) {
		double f = k[0] + k[1] * r2 + k[2] * r2 * r2 + k[3] * r2 * r2 * r2;
		*sx = f * dx + k[4] * 2 * dx * dy + k[5] * (r2 + 2 * dx * dx);
		*sy = f * dy + k[5] * 2 * dx * dy + k[4] * (r2 + 2 * dy * dy);
	} else {
		double t = atan(r), rd = k[0] * t + k[1] * pow(t, 3) + k[2] * pow(t, 5) + k[3] * pow(t, 7);
		*sx = r > 0 ? rd / r * dx : k[0] * dx;
		*sy = r > 0 ? rd / r * dy : k[0] * dy;
	}
}

/* A scene of dark vertical lines, Gaussian across (sigma 2.5 px), 32 px apart from x = 16: its value at @x. */
static double lines_scene(double x)
{
	double dark = 0;

	for (int j = 0; j < 6; j++)
		dark += exp(-(x - (16 + 32 * j)) * (x - (16 + 32 * j)) / (2 * 2.5 * 2.5));
	return 3000 - 2000 * dark;
}

/*
 * The largest distance, over the rows of the middle 80 % and the lines of
 * lines_scene(), between where a line lies in @img (the centroid of its
 * darkness 8 px either side) and where the scene has it.
 */
static double worst_line_error(const struct cisp_image *img)
{
	double worst = 0;

	for (uint32_t y = img->height / 10; y < img->height - img->height / 10; y++) {
		for (int j = 0; j < 6; j++) {
			double at = 16 + 32 * j, sum = 0, moment = 0;

			for (int x = (int)at - 8; x <= (int)at + 8; x++) {
				double dark = 3000.0 - get_sample(img, (uint32_t)x, y);
				sum += dark;
				moment += dark * x;
			}
			worst = fmax(worst, fabs(moment / sum - at));
		}
	}
	return worst;
}

/*
 * A lens bends the lines of lines_scene(): the file holds the scene seen
 * through the inverse of its warp (found by fixed-point iteration), and the
 * warp opcode straightens them again to within 0.1 px, where they were
 * more than a pixel off.
 */
static void check_straightened(int id, const double *k, bool reciprocal, bool list3, const char *name)
{
	enum { W = 192, H = 128 };
	const double cx = 0.5 * (W - 1), cy = 0.5 * (H - 1), m = hypot(cx, cy);
	uint16_t *samples = malloc(sizeof(uint16_t) * W * H);
	uint8_t list[256];
	struct cisp_raw_frame bent, f;
	size_t size;

	if (!samples)
		return;
	for (uint32_t y = 0; y < H; y++) {
		for (uint32_t x = 0; x < W; x++) {
			/* The destination offset q whose source is this pixel p: q += p - warp(q). */
			double px = (x - cx) / m, py = (y - cy) / m, qx = px, qy = py, sx, sy;

			for (int it = 0; it < 100; it++) {
				warp_source(id, k, reciprocal, qx, qy, &sx, &sy);
				qx += px - sx;
				qy += py - sy;
			}
			samples[y * W + x] = (uint16_t)lround(lines_scene(cx + m * qx));
		}
	}
	CHECK_EQ(read_with_list(W, H, samples, NULL, 0, false, "bent.dng", &bent), 0);
	size = warp_list(list, (uint32_t)id, 1, k, 0.5, 0.5);
	if (reciprocal)
		put_be32(list + size - 4, 1);
	CHECK_EQ(read_with_list(W, H, samples, list, size, list3, name, &f), 0);
	if (bent.image.plane[0].data && f.image.plane[0].data) {
		double before = worst_line_error(&bent.image), after = worst_line_error(&f.image);

		printf("  %s: lines at most %.3f px off before the warp, %.3f after\n", name, before, after);
		if (!(before > 1 && after < 0.1))
			test_fail(__FILE__, __LINE__, "%s: lines %.3f px off before the warp, %.3f after", name, before,
				  after);
	}
	cisp_raw_frame_free(&bent);
	cisp_raw_frame_free(&f);
	free(samples);
}

TEST(rawio_dng_warp_straightens_lines)
{
	/* Barrel distortion (the corners 8 % in), then with a tangential part; and a fisheye lens. */
	static const double barrel[6] = { 1, -0.08, 0, 0, 0, 0 }, tangential[6] = { 1, -0.05, 0.01, 0, 0.004, -0.003 };
	static const double fisheye[4] = { 1, 0, 0, 0 };

	/*
	 * WarpRectilinear2: odd powers of r and a tangential part; the
	 * reciprocal model (a ratio 1 / (1 + 0.09 r^2), barrel); a polynomial
	 * held at its value for r 0.75 beyond that radius.
	 */
	static const double odd[19] = { 1, 0.02, -0.03, -0.06, [15] = 0.003, [16] = -0.002, [17] = 0, [18] = 1 };
	static const double recip[19] = { 1, 0, 0.09, [17] = 0, [18] = 1 };
	static const double ranged[19] = { 1, 0, -0.12, [17] = 0, [18] = 0.75 };

	check_straightened(1, barrel, false, true, "warp_barrel.dng");
	check_straightened(1, tangential, false, false, "warp_tangential.dng");
	check_straightened(2, fisheye, false, true, "warp_fisheye.dng");
	check_straightened(14, odd, false, false, "warp2_odd.dng");
	check_straightened(14, recip, true, true, "warp2_reciprocal.dng");
	check_straightened(14, ranged, false, false, "warp2_range.dng");
}

/* Malformed lens opcodes: refused with the reason, nothing decoded. */
TEST(rawio_dng_warp_malformed)
{
	static const double k[18] = { 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 };
	static const double nan_k[6] = { 1, NAN, 0, 0, 0, 0 }, huge_k[4] = { 1, 0, 1e300, 0 };
	static const double inf_vignette[5] = { 0, INFINITY, 0, 0, 0 };
	struct dng_layout layout = { 0 };
	uint8_t list[512];
	size_t size, n;
	uint8_t *d;

#define REFUSED(list3, name, needle)                                                          \
	do {                                                                                  \
		layout.opcodes = list, layout.opcodes_size = (uint32_t)size, layout.opcodes_list3 = list3; \
		d = minimal_dng(64, 48, &layout, &n);                                         \
		expect_refused(d, n, name, -EINVAL, needle);                                  \
		free(d);                                                                      \
	} while (0)
	size = warp_list(list, 1, 1, nan_k, 0.5, 0.5);
	REFUSED(true, "nan_warp.dng", "OpcodeList3's opcode 1: a WarpRectilinear coefficient of nan, not a number");
	size = warp_list(list, 2, 1, huge_k, 0.5, 0.5);
	REFUSED(true, "huge_warp.dng", "a WarpFisheye coefficient of 1e+300, not a number in -1000..1000");
	size = warp_list(list, 1, 1, k, 1.5, 0.5);
	REFUSED(false, "centre.dng", "a WarpRectilinear with its optical centre at (1.5, 0.5), outside 0..1");
	size = warp_list(list, 1, 3, k, 0.5, 0.5);
	REFUSED(false, "planes3.dng", "a WarpRectilinear for 3 planes in OpcodeList2 (1 plane)");
	size = warp_list(list, 1, 3, k, 0.5, 0.5);
	put_be32(list + 20, 2); /* two planes with the bytes of three */
	REFUSED(true, "planes2.dng", "a WarpRectilinear for 2 planes in OpcodeList3 (1 plane, or 3)");
	put_be32(list + 20, 0xffffffff);
	REFUSED(true, "planes_huge.dng", "for 4294967295 planes");
	put_be32(list + 20, 1); /* one plane with the bytes of three */
	REFUSED(true, "size.dng", "a WarpRectilinear for 1 planes needs 68 bytes, not 164");
	size = warp_list(list, 2, 1, k, 0.5, 0.5);
	put_be32(list + 16, 2); /* two bytes: no plane count */
	size = 4 + 16 + 2;
	REFUSED(true, "short_warp.dng", "a WarpFisheye of 2 bytes has no plane count");
	{
		/* WarpRectilinear2: a bad radius range, a coefficient, the size; a reciprocal through 0. */
		double k2[19] = { 1, [17] = 0.5, [18] = 0.5 };
		static const double k2x3[57] = { 1, [18] = 1, [19] = 1, [37] = 1, [38] = 1, [56] = 1 };

		size = warp_list(list, 14, 1, k2, 0.5, 0.5);
		REFUSED(true, "range2.dng", "a WarpRectilinear2 with the radius range 0.5..0.5, not within 0..1");
		k2[17] = -0.1;
		size = warp_list(list, 14, 1, k2, 0.5, 0.5);
		REFUSED(false, "range2_negative.dng", "a WarpRectilinear2 with the radius range -0.1..0.5, not within");
		k2[17] = 0, k2[18] = NAN;
		size = warp_list(list, 14, 1, k2, 0.5, 0.5);
		REFUSED(false, "range2_nan.dng", "the radius range 0..nan, not within 0..1");
		k2[18] = 1, k2[9] = INFINITY;
		size = warp_list(list, 14, 1, k2, 0.5, 0.5);
		REFUSED(true, "inf2.dng", "OpcodeList3's opcode 1: a WarpRectilinear2 coefficient of inf, not a number");
		k2[9] = 0;
		size = warp_list(list, 14, 1, k2, 0.5, 0.5);
		put_be32(list + 16, 172); /* WarpRectilinear's tail of 16 bytes: no reciprocal flag */
		size -= 4;
		REFUSED(true, "size2.dng", "a WarpRectilinear2 for 1 planes needs 176 bytes, not 172");
		k2[2] = -2; /* 1 - 2 r^2 is 0 at r = 0.707 */
		size = warp_list(list, 14, 1, k2, 0.5, 0.5);
		put_be32(list + size - 4, 1);
		REFUSED(true, "reciprocal2.dng", "a reciprocal WarpRectilinear2 whose polynomial nears 0 at radius 0.70");
		size = warp_list(list, 14, 1, k2, 0.5, 1.25);
		REFUSED(true, "centre2.dng", "a WarpRectilinear2 with its optical centre at (0.5, 1.25), outside 0..1");
		size = warp_list(list, 14, 3, k2x3, 0.5, 0.5);
		REFUSED(false, "planes2_list2.dng", "a WarpRectilinear2 for 3 planes in OpcodeList2 (1 plane)");
	}
	size = vignette_list(list, inf_vignette);
	REFUSED(false, "inf_vignette.dng", "a FixVignetteRadial coefficient of inf");
	put_be32(list + 16, 48);
	size -= 8;
	REFUSED(false, "short_vignette.dng", "a FixVignetteRadial of 48 bytes, not 56");
	/* A good opcode before a bad one: the list is refused whole. */
	{
		static const double none[5] = { 0, 0, 0, 0, 0 };
		uint8_t second[128];
		size_t first = vignette_list(list, none), more = warp_list(second, 1, 1, nan_k, 0.5, 0.5) - 4;

		memcpy(list + first, second + 4, more); /* the warp without its list's count */
		size = first + more;
		put_be32(list, 2);
		REFUSED(true, "second.dng", "OpcodeList3's opcode 2: a WarpRectilinear coefficient of nan");
	}
#undef REFUSED
}

/*
 * What develop reads survives a DNG: levels, as-shot white balance, the
 * colour matrix, the default crop and BaselineExposure (with manual
 * exposure, the file's baseline is added) give the same picture from the
 * frame and from its DNG, to within one code of the matrix's rounding.
 */
TEST(rawio_dng_keeps_what_develop_reads)
{
	struct cisp_develop_options opt = { .manual_exposure = true };
	const char *path = tmp_path("develop.dng");
	struct cisp_raw_frame a, b;
	struct cisp_image pa, pb, pz;
	unsigned worst = 0;

	random_frame(&a, CISP_FMT_SGRBG12, 64, 48);
	a.baseline_ev = 1.5f;
	CHECK_EQ(cisp_dng_write(path, &a), 0);
	CHECK_EQ(cisp_raw_read_file(path, &b), 0);
	CHECK_EQ(cisp_develop(&a, &opt, &pa, NULL), 0);
	CHECK_EQ(cisp_develop(&b, &opt, &pb, NULL), 0);
	if (pa.plane[0].data && pb.plane[0].data) {
		CHECK_EQ(pb.width, pa.width);
		CHECK_EQ(pb.height, pa.height);
		CHECK_EQ(pa.width, 58); /* the default crop */
		for (uint32_t y = 0; y < pa.height && pb.width == pa.width && pb.height == pa.height; y++)
			for (uint32_t x = 0; x < 3 * pa.width; x++) {
				int d = pa.plane[0].data[y * pa.plane[0].stride + x] -
					pb.plane[0].data[y * pb.plane[0].stride + x];
				worst = (unsigned)abs(d) > worst ? (unsigned)abs(d) : worst;
			}
		printf("  largest difference: %u\n", worst);
		CHECK(worst <= 1);
		/* The baseline matters: without it the picture is darker. */
		b.baseline_ev = 0;
		CHECK_EQ(cisp_develop(&b, &opt, &pz, NULL), 0);
		if (pz.plane[0].data) {
			uint64_t with = 0, without = 0;

			for (uint32_t y = 0; y < pb.height; y++)
				for (uint32_t x = 0; x < 3 * pb.width; x++) {
					with += pb.plane[0].data[y * pb.plane[0].stride + x];
					without += pz.plane[0].data[y * pz.plane[0].stride + x];
				}
			CHECK(without < with * 0.9);
		}
		cisp_image_free(&pz);
	}
	cisp_image_free(&pa);
	cisp_image_free(&pb);
	cisp_raw_frame_free(&a);
	cisp_raw_frame_free(&b);
}
