/* SPDX-License-Identifier: MIT */
/* End-to-end tests of the ISP pipeline (include/cisp/isp.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>
#include <cisp/raw_frame.h>

#include "test.h"

static void fill16(struct cisp_image *img, uint16_t (*fn)(uint32_t x, uint32_t y))
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint16_t *row = (uint16_t *)(img->plane[0].data + y * img->plane[0].stride);
		for (uint32_t x = 0; x < img->width; x++)
			row[x] = fn(x, y);
	}
}

static uint16_t flat512(uint32_t x, uint32_t y)
{
	(void)x;
	(void)y;
	return 512;
}

TEST(pipeline_rejects_bad_configs)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_RGB888, 64, 48 } } };
	struct cisp_isp *isp = NULL;

	c.input_format = CISP_FMT_NV12;
	CHECK_ERR(cisp_isp_create(&isp, &c), -EINVAL, "not a Bayer format");
	c.input_format = CISP_FMT_SRGGB10;
	c.width = 63;
	CHECK_ERR(cisp_isp_create(&isp, &c), -EINVAL, "must be even");
	c.width = 64;
	c.output[0].format = 0;
	CHECK_ERR(cisp_isp_create(&isp, &c), -EINVAL, "output 0 (main) must be configured");
	c.output[0].format = CISP_FMT_SRGGB8;
	CHECK_ERR(cisp_isp_create(&isp, &c), -EINVAL, "not an ISP output");
	c.output[0].format = CISP_FMT_NV12;
	c.output[0].width = 63;
	CHECK_ERR(cisp_isp_create(&isp, &c), -EINVAL, "must be even");
	c.output[0].width = 64;
	c.input_format = CISP_FMT_SRGGB10P;
	c.width = 66;
	c.output[0].width = 66;
	CHECK_ERR(cisp_isp_check_config(&c), -EINVAL, "input width 66 of SRGGB10P must be a multiple of 4");
	CHECK_ERR(cisp_isp_create(&isp, &c), -EINVAL, "input width 66 of SRGGB10P must be a multiple of 4");
	c.input_format = CISP_FMT_SRGGB10;
	CHECK_EQ(cisp_isp_check_config(&c), 0);
	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	cisp_isp_destroy(isp);
}

TEST(pipeline_flat_grey_known_answer)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_RGB888, 64, 48 } } };
	struct cisp_param_state s;
	struct cisp_image in, out;
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_isp *isp;
	bool all = true;

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_EQ(cisp_image_alloc(&in, c.input_format, 64, 48), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, 64, 48), 0);
	fill16(&in, flat512);
	cisp_param_state_init(&s);
	for (int i = 0; i < 4; i++)
		s.blc.black[i] = 64 << 6;
	s.blc.white = 1023 << 6;
	CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
	CHECK_EQ(cisp_isp_process(isp, &in, outs, NULL, NULL), 0);
	/*
	 * BLC: gain = (65535*16384 + 61376/2) / 61376 = 17494;
	 * ((32768 - 4096) * 17494 + 8192) >> 14 = 30615 = 0.46716 linear;
	 * sRGB: 1.055 * 0.46716^(1/2.4) - 0.055 = 0.71329 -> 181.9 in 8 bits.
	 */
	for (uint32_t y = 0; y < 48; y++)
		for (uint32_t x = 0; x < 64 * 3; x++)
			all &= abs(out.plane[0].data[y * out.plane[0].stride + x] - 182) <= 1;
	CHECK(all);
	cisp_image_free(&in);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
}

/* XBGR32 carries RGB888's pixels in B, G, R order with a fourth byte of 255. */
TEST(pipeline_xbgr32_is_rgb888_reordered)
{
	struct cisp_isp_config c = { CISP_FMT_SGBRG12, 38, 20, { { CISP_FMT_RGB888, 38, 20 }, { CISP_FMT_XBGR32, 38, 20 } } };
	struct cisp_param_state s;
	struct cisp_image in, rgb, xbgr;
	struct cisp_image *outs[3] = { &rgb, &xbgr, NULL };
	struct cisp_isp *isp;
	bool same = true;

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_EQ(cisp_image_alloc(&in, c.input_format, c.width, c.height), 0);
	CHECK_EQ(cisp_image_alloc(&rgb, CISP_FMT_RGB888, c.width, c.height), 0);
	CHECK_EQ(cisp_image_alloc(&xbgr, CISP_FMT_XBGR32, c.width, c.height), 0);
	CHECK(xbgr.plane[0].stride >= 4 * c.width);
	srand(7);
	for (uint32_t y = 0; y < c.height; y++)
		for (uint32_t x = 0; x < c.width; x++)
			((uint16_t *)(in.plane[0].data + y * in.plane[0].stride))[x] = (uint16_t)(rand() % 4096);
	cisp_param_state_init(&s);
	CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
	CHECK_EQ(cisp_isp_process(isp, &in, outs, NULL, NULL), 0);
	for (uint32_t y = 0; y < c.height; y++) {
		const uint8_t *a = rgb.plane[0].data + y * rgb.plane[0].stride;
		const uint8_t *b = xbgr.plane[0].data + y * xbgr.plane[0].stride;

		for (uint32_t x = 0; x < c.width; x++)
			same &= b[4 * x] == a[3 * x + 2] && b[4 * x + 1] == a[3 * x + 1] && b[4 * x + 2] == a[3 * x] &&
				b[4 * x + 3] == 255;
	}
	CHECK(same);
	cisp_image_free(&in);
	cisp_image_free(&rgb);
	cisp_image_free(&xbgr);
	cisp_isp_destroy(isp);
}

TEST(pipeline_rejects_mismatched_images)
{
	struct cisp_isp_config c = { CISP_FMT_SGRBG12, 32, 32, { { CISP_FMT_NV12, 32, 32 } } };
	struct cisp_image in, out, small;
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_isp *isp;

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_SGRBG12, 32, 32), 0);
	CHECK_EQ(cisp_image_alloc(&small, CISP_FMT_SGRBG12, 32, 16), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_NV12, 32, 32), 0);
	CHECK_ERR(cisp_isp_process(isp, &small, outs, NULL, NULL), -EINVAL, "input is 32x16 SGRBG12");
	CHECK_ERR(cisp_isp_process(isp, &out, outs, NULL, NULL), -EINVAL, "input is 32x32 NV12");
	outs[0] = &in;
	CHECK_ERR(cisp_isp_process(isp, &in, outs, NULL, NULL), -EINVAL, "output 0 is 32x32 SGRBG12");
	outs[0] = NULL;
	CHECK_ERR(cisp_isp_process(isp, &in, outs, NULL, NULL), -EINVAL, "output 0: no image");
	cisp_image_free(&in);
	cisp_image_free(&small);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
}

/* Every stage on, two outputs (one scaled and cropped): random data must give
 * the same bytes and statistics for 1, 2 and 3 threads. */
TEST(pipeline_bit_exact_across_threads)
{
	struct cisp_isp_config c = { CISP_FMT_SBGGR12, 200, 120,
				     { { CISP_FMT_NV12, 200, 120 }, { CISP_FMT_RGB48, 90, 50 } } };
	struct cisp_param_state s;
	struct cisp_image in, out[3][2];
	struct cisp_stats *stats = calloc(3, sizeof(*stats));
	struct cisp_isp *isp;

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_EQ(cisp_image_alloc(&in, c.input_format, c.width, c.height), 0);
	for (uint32_t y = 0; y < c.height; y++) {
		uint16_t *row = (uint16_t *)(in.plane[0].data + y * in.plane[0].stride);
		for (uint32_t x = 0; x < c.width; x++)
			row[x] = (uint16_t)((x * 13 + y * 7) % 3000 + test_rand() % 1000);
	}
	cisp_param_state_init(&s);
	s.enabled = ~0u;
	s.crop_enabled = 2;
	s.crop[1].output = 1;
	s.crop[1].x = 10;
	s.crop[1].y = 4;
	s.crop[1].width = 170;
	s.crop[1].height = 100;
	s.dpc.threshold = 2000;
	s.dpc.count = 2;
	s.dpc.pixels[0].x = 3;
	s.dpc.pixels[0].y = 5;
	s.dpc.pixels[1].x = 199;
	s.dpc.pixels[1].y = 119;
	s.lsc.grid_w = 5;
	s.lsc.grid_h = 4;
	for (int i = 0; i < 4 * 5 * 4; i++)
		s.lsc.gain[i] = (uint16_t)(4096 + (i * 97) % 2000);
	s.wb.gain[0] = 7000;
	s.wb.gain[3] = 6000;
	s.lut3d.size = 3;
	for (int i = 0; i < 27; i++)
		for (int k = 0; k < 3; k++)
			s.lut3d.table[i][k] = (uint16_t)(((i >> (k == 0 ? 0 : 0)) * 2400 + k * 5000) % 65536);
	s.ccm.coeff[1] = -500;
	s.ccm.coeff[0] = 4596;
	s.sharpen.strength = 512;
	s.stats.af_count = 1;
	s.stats.af[0].x = 20;
	s.stats.af[0].y = 20;
	s.stats.af[0].width = 100;
	s.stats.af[0].height = 60;
	CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
	for (int t = 0; t < 3; t++) {
		struct cisp_pool *pool;
		struct cisp_image *outs[2] = { &out[t][0], &out[t][1] };

		CHECK_EQ(cisp_image_alloc(&out[t][0], CISP_FMT_NV12, 200, 120), 0);
		CHECK_EQ(cisp_image_alloc(&out[t][1], CISP_FMT_RGB48, 90, 50), 0);
		CHECK_EQ(cisp_pool_create(&pool, (unsigned)t + 1), 0);
		CHECK_EQ(cisp_isp_process(isp, &in, outs, &stats[t], pool), 0);
		cisp_pool_destroy(pool);
	}
	for (int t = 1; t < 3; t++) {
		size_t n0 = out[0][0].plane[0].stride * 120 * 3 / 2, n1 = out[0][1].plane[0].stride * 50;
		CHECK(!memcmp(out[0][0].plane[0].data, out[t][0].plane[0].data, n0));
		CHECK(!memcmp(out[0][1].plane[0].data, out[t][1].plane[0].data, n1));
		CHECK(!memcmp(&stats[0], &stats[t], sizeof(stats[0])));
	}
	CHECK_EQ(stats[0].valid & (CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_AF | CISP_STATS_ROWS),
		 CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_AF | CISP_STATS_ROWS);
	for (int t = 0; t < 3; t++) {
		cisp_image_free(&out[t][0]);
		cisp_image_free(&out[t][1]);
	}
	free(stats);
	cisp_image_free(&in);
	cisp_isp_destroy(isp);
}

TEST(pipeline_bad_params_leave_state)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB8, 64, 64, { { CISP_FMT_RGB888, 32, 32 } } };
	struct cisp_param_state s, before;
	struct cisp_isp *isp;

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	before = *cisp_isp_params(isp);
	cisp_param_state_init(&s);
	s.wb.gain[0] = 8000;
	s.crop_enabled = 1;
	s.crop[0].width = 64;
	s.crop[0].height = 64;
	s.crop[0].x = 2; /* runs past the right edge */
	CHECK(cisp_isp_set_state(isp, &s, ~0u) < 0);
	CHECK(strstr(cisp_last_error(), "crop") != NULL);
	CHECK(!memcmp(&before, cisp_isp_params(isp), sizeof(before)));
	cisp_isp_destroy(isp);
}

static const char *n900_path(void)
{
	return CISP_SOURCE_DIR "/data/raw/nokia_n900_fcam_bayer_small.png";
}

/* The real N900 frame (GRBG, black 25, white 1023) develops to a plausible image. */
TEST(pipeline_develops_real_raw)
{
	struct cisp_raster r;
	struct cisp_raw_frame frame;
	struct cisp_isp_config c = { 0 };
	struct cisp_param_state s;
	struct cisp_image out;
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_stats *stats = calloc(1, sizeof(*stats));
	struct cisp_isp *isp;
	double sum[3] = { 0, 0, 0 }, sum2 = 0, zr = 0, zg = 0, zb = 0;
	size_t n;

	CHECK_EQ(cisp_raster_read(n900_path(), &r), 0);
	CHECK_EQ(cisp_raw_from_raster(&r, CISP_CFA_GRBG, 25, 1023, &frame), 0);
	CHECK_EQ(frame.image.format, CISP_FMT_SGRBG10);
	c.input_format = frame.image.format;
	c.width = frame.image.width;
	c.height = frame.image.height;
	c.output[0].format = CISP_FMT_RGB888;
	c.output[0].width = c.width;
	c.output[0].height = c.height;
	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	cisp_param_state_init(&s);
	CHECK_EQ(cisp_raw_frame_params(&frame, &s), 0);
	CHECK_EQ(s.blc.black[0], 25 << 6);
	CHECK_EQ(s.blc.white, 1023 << 6);
	CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, c.width, c.height), 0);
	CHECK_EQ(cisp_isp_process(isp, &frame.image, outs, stats, NULL), 0);
	/* Grey-world white balance from the ISP's own zone statistics. */
	for (int i = 0; i < stats->zones_x * stats->zones_y; i++) {
		zr += (double)stats->zone[i].r * stats->zone[i].count;
		zg += (double)stats->zone[i].g * stats->zone[i].count;
		zb += (double)stats->zone[i].b * stats->zone[i].count;
	}
	CHECK(zr > 0 && zg > 0 && zb > 0);
	s.wb.gain[0] = (uint16_t)lround(4096 * zg / zr);
	s.wb.gain[3] = (uint16_t)lround(4096 * zg / zb);
	CHECK_EQ(cisp_isp_set_state(isp, &s, ~0u), 0);
	CHECK_EQ(cisp_isp_process(isp, &frame.image, outs, NULL, NULL), 0);
	n = (size_t)c.width * c.height;
	for (uint32_t y = 0; y < c.height; y++) {
		const uint8_t *row = out.plane[0].data + y * out.plane[0].stride;
		for (uint32_t x = 0; x < c.width; x++) {
			double luma = 0;
			for (int k = 0; k < 3; k++) {
				sum[k] += row[3 * x + k];
				luma += row[3 * x + k] / 3.0;
			}
			sum2 += luma * luma;
		}
	}
	for (int k = 0; k < 3; k++)
		sum[k] /= (double)n;
	{
		double mean = (sum[0] + sum[1] + sum[2]) / 3, sd = sqrt(sum2 / (double)n - mean * mean);
		printf("    N900: mean RGB %.1f %.1f %.1f, luma sd %.1f\n", sum[0], sum[1], sum[2], sd);
		CHECK(mean > 40 && mean < 215); /* neither black nor blown out */
		CHECK(sd > 15);                 /* a picture, not a flat field */
		for (int k = 0; k < 3; k++)     /* grey world holds after the tone curve */
			CHECK(fabs(sum[k] - mean) < 0.12 * mean);
	}
	{
		struct cisp_raster png;
		char path[512];
		CHECK_EQ(cisp_raster_alloc(&png, c.width, c.height, 3, 255), 0);
		for (uint32_t y = 0; y < c.height; y++)
			for (uint32_t x = 0; x < c.width * 3; x++)
				png.data[(size_t)y * c.width * 3 + x] = out.plane[0].data[y * out.plane[0].stride + x];
		snprintf(path, sizeof(path), "%s/n900.png", test_tmp_dir());
		CHECK_EQ(cisp_raster_write(path, &png), 0);
		cisp_raster_free(&png);
	}
	free(stats);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	cisp_raw_frame_free(&frame);
	cisp_raster_free(&r);
}

/*
 * The benchmark runs on a small frame: a figure line for each pipeline and
 * thread count, and one for each stage the canonical pipeline (with the
 * chroma denoise) runs, from the stage list, timed by both executors. The
 * figures themselves are not checked: they are speed.
 */
TEST(pipeline_bench_runs_every_stage)
{
	static const char *const stages[] = { "unpack", "blc", "dpc", "bnr", "lsc", "statistics", "wb", "demosaic",
					      "ccm", "tone", "sharpen", "csc", "cnr", "pack_nv12" };
	char *out = malloc(65536), line[96];

	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1,2 --band 4", out, 65536), 0);
	for (int t = 1; t <= 2; t++) {
		for (int q = 0; q < 2; q++) {
			snprintf(line, sizeof(line), "bench pipeline=%s exec=optimized cpu=", q ? "quality" : "canonical");
			CHECK(strstr(out, line));
			snprintf(line, sizeof(line), "bench pipeline=%s exec=reference threads=%d mpix_s=",
				 q ? "quality" : "canonical", t);
			CHECK(strstr(out, line));
		}
		for (size_t k = 0; k < sizeof(stages) / sizeof(stages[0]); k++) {
			snprintf(line, sizeof(line), "bench stage=%s threads=%d reference_mpix_s=", stages[k], t);
			if (!strstr(out, line))
				test_fail(__FILE__, __LINE__, "no figure for stage %s at %d threads", stages[k], t);
		}
	}
	CHECK(strstr(out, "bench memory pipeline=canonical"));
	CHECK(!strstr(out, "optimized=none")); /* every stage it runs has a banded form */
	/* Bad options: usage errors. */
	CHECK_EQ(test_run_cisp("bench --cpu pentium", out, 65536), 2);
	CHECK(strstr(out, "--cpu pentium"));
	CHECK_EQ(test_run_cisp("bench --band 3", out, 65536), 2);
	CHECK(strstr(out, "an even number of rows"));
	free(out);
}

/* Whether every figure line of `cisp bench` output @out has its ratio to a peer that took @peer_mpix_s. */
static bool every_figure_has_ratio(const char *out, const char *peer_mpix_s)
{
	int figures = 0;

	for (const char *l = out; (l = strstr(l, "bench ")); l++) {
		const char *end = strchr(l, '\n'), *r = strstr(l, peer_mpix_s);

		if (strncmp(l, "bench pipeline=", 15) && strncmp(l, "bench stage=", 12))
			continue;
		figures++;
		if (!r || (end && r > end) || !strstr(r, " ratio="))
			return false;
	}
	return figures > 0;
}

/*
 * The benchmark's yardstick (bench/peer.h): a peer program that answers every
 * run in 1 ms gives each figure its ratio to 64x48 / 1 ms = 3.1 MPix/s; a
 * peer that is absent, or stops answering, leaves the figures without a
 * ratio and says so, and the benchmark still runs; the OpenCV peer, where
 * the build made it, gives every figure a ratio too.
 */
TEST(pipeline_bench_ratios_to_its_peer)
{
	char *out = malloc(65536), peer[600], opencv[600], cmd[1400];
	FILE *f;

	snprintf(peer, sizeof(peer), "%s/fake-peer.sh", test_tmp_dir());
	CHECK((f = fopen(peer, "w")) != NULL);
	fputs("#!/bin/sh\necho 'peer fake one-millisecond'\nwhile read cmd threads; do\n"
	      "  [ \"$cmd\" = run ] && [ \"$threads\" -ge 1 ] || exit 1\n  echo 'time 0.001 0.001'\ndone\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "chmod +x '%s'", peer);
	CHECK_EQ(system(cmd), 0);
	setenv("CISP_BENCH_PEER", peer, 1);
	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 2 --threads 1,2 --band 4", out, 65536), 0);
	CHECK(strstr(out, "bench peer=\"fake one-millisecond\""));
	CHECK(strstr(out, "bench machine cpu_model=\""));
	CHECK(strstr(out, "loadavg_before=\""));
	CHECK(strstr(out, "bench machine loadavg_after=\""));
	CHECK(strstr(out, "bench pipeline=quality_bnr exec=optimized"));
	CHECK(every_figure_has_ratio(out, "peer_mpix_s=3.1 "));
	CHECK(!strstr(out, "NO PEER"));
	/* develop --bench: the same peer, its figure and the ratio last. */
	{
		struct cisp_raster m;
		char in[600], args[1400];
		double mpix = 0, ratio = 0;
		const char *last;

		snprintf(in, sizeof(in), "%s/bench-mosaic.pgm", test_tmp_dir());
		CHECK_EQ(cisp_raster_alloc(&m, 64, 48, 1, 1023), 0);
		for (int i = 0; i < 64 * 48; i++)
			m.data[i] = (uint16_t)((i * 37) % 1024);
		CHECK_EQ(cisp_raster_write(in, &m), 0);
		cisp_raster_free(&m);
		snprintf(args, sizeof(args), "develop '%s' --bench 3 --force -o '%s/bench-out.ppm'", in, test_tmp_dir());
		CHECK_EQ(test_run_cisp(args, out, 65536), 0);
		CHECK(strstr(out, "cpu model: "));
		CHECK(strstr(out, "load after: "));
		CHECK(strstr(out, "peer: fake one-millisecond, MPix/s 3.1\n"));
		CHECK((last = strstr(out, "\nMPix/s ")) != NULL);
		CHECK_EQ(sscanf(last, "\nMPix/s %lf ratio %lf", &mpix, &ratio), 2);
		/* The figure is printed to 0.05 MPix/s. */
		CHECK(fabs(ratio - mpix / 3.072) < 0.02 + 0.002 * ratio);
	}

	/* A peer that answers once, then ends: the rest without a ratio, loudly. */
	CHECK((f = fopen(peer, "w")) != NULL);
	fputs("#!/bin/sh\necho 'peer fake once'\nread cmd threads\necho 'time 0.001 0.001'\n", f);
	fclose(f);
	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1 --no-stages", out, 65536), 0);
	CHECK(strstr(out, "*** NO PEER from here on"));
	CHECK(strstr(out, "bench pipeline=quality exec=optimized"));

	/* A peer that answers once, then hangs: given up on after five seconds, killed, the rest without a ratio. */
	CHECK((f = fopen(peer, "w")) != NULL);
	fputs("#!/bin/sh\necho 'peer fake hangs'\nread cmd threads\necho 'time 0.001 0.001'\nread cmd threads\n"
	      "exec sleep 600\n", f);
	fclose(f);
	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1 --no-stages --no-quality", out, 65536), 0);
	CHECK(strstr(out, "*** NO PEER from here on: the peer (fake hangs) gave no answer within 5 s"));
	CHECK(strstr(out, "bench pipeline=canonical exec=optimized"));

	/* No peer at all. */
	setenv("CISP_BENCH_PEER", "/nonexistent/peer", 1);
	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1 --no-stages --no-quality", out, 65536), 0);
	CHECK(strstr(out, "*** NO PEER: /nonexistent/peer does not start"));
	CHECK(strstr(out, "bench peer=none"));
	CHECK(strstr(out, "bench pipeline=canonical exec=optimized"));
	CHECK(!strstr(out, "ratio="));
	setenv("CISP_BENCH_PEER", "", 1);
	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1 --no-stages --no-quality", out, 65536), 0);
	CHECK(strstr(out, "*** NO PEER: CISP_BENCH_PEER is empty"));
	CHECK(!strstr(out, "ratio="));
	unsetenv("CISP_BENCH_PEER");
	CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1 --no-stages --no-quality --no-peer", out, 65536), 0);
	CHECK(!strstr(out, "NO PEER") && !strstr(out, "ratio="));

	/* OpenCV's demosaic, where this build has it; a bad size or CFA is refused. */
	snprintf(opencv, sizeof(opencv), "%s/bench/cisp-bench-peer-opencv", CISP_BUILD_DIR);
	if (access(opencv, X_OK) == 0) {
		CHECK_EQ(test_run_cisp("bench --size 64x48 --reps 1 --threads 1,2 --no-quality", out, 65536), 0);
		CHECK(strstr(out, "bench peer=\"opencv-"));
		CHECK(every_figure_has_ratio(out, "peer_mpix_s="));
		snprintf(cmd, sizeof(cmd), "'%s' /dev/null 0 48 RGGB 2>/dev/null </dev/null", opencv);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 2);
		snprintf(cmd, sizeof(cmd), "'%s' /dev/null 64 48 RGBG 2>/dev/null </dev/null", opencv);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 2);
		snprintf(cmd, sizeof(cmd), "'%s' /dev/null 64 48 RGGB 2>/dev/null </dev/null", opencv);
		CHECK_EQ(WEXITSTATUS(system(cmd)), 1); /* too short */
	}
	free(out);
}
