/* SPDX-License-Identifier: MIT */
/* Demosaic dispatch and the fast demosaic; the `cisp demosaic` command. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/pool.h>
#include <cisp/raster.h>

#include "isp/demosaic.h"
#include "test.h"
#include "test_demosaic.h"

void frame_init(struct frame *f, int w, int h)
{
	size_t n = (size_t)w * h;

	f->w = w;
	f->h = h;
	f->mem = calloc(n * 4, sizeof(uint16_t));
	f->bayer = (struct plane16){ f->mem, w, 0, w, h };
	for (int c = 0; c < 3; c++)
		f->rgb.c[c] = (struct plane16){ f->mem + (c + 1) * n, w, 0, w, h };
}

void mosaic(struct frame *f, enum cisp_cfa cfa, const uint16_t *scene)
{
	size_t n = (size_t)f->w * f->h;

	for (int y = 0; y < f->h; y++)
		for (int x = 0; x < f->w; x++)
			*px(&f->bayer, x, y) = scene[site_rgb(cfa, x, y) * n + (size_t)y * f->w + x];
}

void fill_random(struct frame *f)
{
	for (int y = 0; y < f->h; y++)
		for (int x = 0; x < f->w; x++)
			*px(&f->bayer, x, y) = (uint16_t)test_rand();
}

/* Run the whole frame through cisp_demosaic_run() with the fast algorithm. */
static void run_fast(struct frame *f, enum cisp_cfa cfa, struct cisp_pool *pool)
{
	const struct cisp_demosaic_params p = { .algorithm = CISP_DEMOSAIC_FAST, .false_colour = 256 };
	struct cisp_demosaic *dm;

	CHECK_EQ(cisp_demosaic_create(&dm, CISP_DEMOSAIC_FAST, f->w, f->h), 0);
	cisp_demosaic_run(dm, &f->bayer, cfa, &p, &f->rgb, pool);
	cisp_demosaic_destroy(dm);
}

int max_error(const struct frame *f, const uint16_t *scene)
{
	size_t n = (size_t)f->w * f->h;
	int worst = 0;

	for (int c = 0; c < 3; c++)
		for (int y = 0; y < f->h; y++)
			for (int x = 0; x < f->w; x++) {
				int d = abs(*px(&f->rgb.c[c], x, y) - scene[c * n + (size_t)y * f->w + x]);

				worst = d > worst ? d : worst;
			}
	return worst;
}

int same_rgb(const struct frame *a, const struct frame *b)
{
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < a->h; y++)
			if (memcmp(px(&a->rgb.c[c], 0, y), px(&b->rgb.c[c], 0, y), (size_t)a->w * 2))
				return 0;
	return 1;
}

TEST(demosaic_fast_flat_field_every_cfa)
{
	static const uint16_t colours[][3] = {
		{ 1000, 30000, 65000 }, { 65535, 0, 65535 }, { 0, 65535, 0 }, { 12345, 12345, 12345 }, { 7, 40000, 3 },
	};
	const int w = 22, h = 16;
	uint16_t *scene = malloc((size_t)w * h * 3 * sizeof(uint16_t));
	struct frame f;

	frame_init(&f, w, h);
	for (enum cisp_cfa cfa = CISP_CFA_RGGB; cfa <= CISP_CFA_BGGR; cfa++)
		for (size_t k = 0; k < sizeof(colours) / sizeof(colours[0]); k++) {
			for (int i = 0; i < w * h * 3; i++)
				scene[i] = colours[k][i / (w * h)];
			mosaic(&f, cfa, scene);
			run_fast(&f, cfa, NULL);
			CHECK_EQ(max_error(&f, scene), 0);
		}
	free(scene);
	free(f.mem);
}

/*
 * A grey scene (R = G = B) split by a vertical or horizontal step at either
 * parity: every pixel, at the edge and at the frame border, comes out exact
 * (a zipper would show as alternating errors along the edge).
 */
TEST(demosaic_fast_step_edges_no_zipper)
{
	const int w = 32, h = 24;
	uint16_t *scene = malloc((size_t)w * h * 3 * sizeof(uint16_t));
	struct frame f;

	frame_init(&f, w, h);
	for (enum cisp_cfa cfa = CISP_CFA_RGGB; cfa <= CISP_CFA_BGGR; cfa++)
		for (int vertical = 0; vertical < 2; vertical++)
			for (int at = 11; at <= 12; at++) {
				for (int c = 0; c < 3; c++)
					for (int y = 0; y < h; y++)
						for (int x = 0; x < w; x++)
							scene[(c * h + y) * w + x] = (vertical ? x : y) < at ? 5000 : 50000;
				mosaic(&f, cfa, scene);
				run_fast(&f, cfa, NULL);
				if (max_error(&f, scene))
					test_fail(__FILE__, __LINE__, "cfa %d, %s edge at %d: max error %d", cfa,
						  vertical ? "vertical" : "horizontal", at, max_error(&f, scene));
			}
	free(scene);
	free(f.mem);
}

/*
 * The arithmetic of docs/stages/demosaic_fast.md written out directly, every
 * coordinate reflected, floor division instead of shifts.
 */
static int64_t floordiv(int64_t a, int64_t b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int64_t round_clip_spec(int64_t v, int s)
{
	int64_t r = floordiv(v + (1 << (s - 1)), (int64_t)1 << s);

	return r < 0 ? 0 : r > 65535 ? 65535 : r;
}

static void spec_demosaic(const struct frame *f, enum cisp_cfa cfa, uint16_t *out /* [3][h][w] */)
{
	const int w = f->w, h = f->h;
	size_t n = (size_t)w * h;
	int64_t *g = malloc(n * sizeof(int64_t));
#define M(dx, dy) ((int64_t)*px(&f->bayer, mirror(x + (dx), w), mirror(y + (dy), h)))
#define G(dx, dy) (g[(size_t)mirror(y + (dy), h) * w + mirror(x + (dx), w)])
#define D(dx, dy) (M(dx, dy) - G(dx, dy))

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int64_t lh, lv, gh, gv, dh, dv, level = 0;
			static const int k[4] = { 16, 31, 43, 56 };

			if (site_rgb(cfa, x, y) == 1) {
				g[(size_t)y * w + x] = M(0, 0);
				continue;
			}
			lh = 2 * M(0, 0) - M(-2, 0) - M(2, 0);
			lv = 2 * M(0, 0) - M(0, -2) - M(0, 2);
			gh = 2 * (M(-1, 0) + M(1, 0)) + lh;
			gv = 2 * (M(0, -1) + M(0, 1)) + lv;
			dh = 4 * llabs(M(-1, 0) - M(1, 0)) + 4 * llabs(lh) +
			     2 * (llabs(M(-1, -1) - M(1, -1)) + llabs(M(-1, 1) - M(1, 1))) + llabs(M(-2, -1) - M(0, -1)) +
			     llabs(M(0, -1) - M(2, -1)) + llabs(M(-2, 1) - M(0, 1)) + llabs(M(0, 1) - M(2, 1));
			dv = 4 * llabs(M(0, -1) - M(0, 1)) + 4 * llabs(lv) +
			     2 * (llabs(M(-1, -1) - M(-1, 1)) + llabs(M(1, -1) - M(1, 1))) + llabs(M(-1, -2) - M(-1, 0)) +
			     llabs(M(-1, 0) - M(-1, 2)) + llabs(M(1, -2) - M(1, 0)) + llabs(M(1, 0) - M(1, 2));
			for (int i = 0; i < 4; i++)
				level += (64 * dv >= k[i] * dh) + (64 * dh < k[i] * dv);
			g[(size_t)y * w + x] = round_clip_spec(gh * level + gv * (8 - level), 5);
		}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			size_t i = (size_t)y * w + x;
			int c = site_rgb(cfa, x, y);

			out[n + i] = (uint16_t)G(0, 0);
			if (c == 1) {
				/* The colour of the left/right neighbours, then of the ones above/below. */
				int ch = site_rgb(cfa, mirror(x + 1, w), y), cv = 2 - ch;

				out[ch * n + i] = (uint16_t)round_clip_spec(2 * G(0, 0) + D(-1, 0) + D(1, 0), 1);
				out[cv * n + i] = (uint16_t)round_clip_spec(2 * G(0, 0) + D(0, -1) + D(0, 1), 1);
			} else {
				out[c * n + i] = (uint16_t)M(0, 0);
				out[(2 - c) * n + i] = (uint16_t)round_clip_spec(
					4 * G(0, 0) + D(-1, -1) + D(1, -1) + D(-1, 1) + D(1, 1), 2);
			}
		}
#undef D
#undef G
#undef M
	free(g);
}

TEST(demosaic_fast_matches_document)
{
	const int w = 38, h = 22;
	uint16_t *want = malloc((size_t)w * h * 3 * sizeof(uint16_t));
	struct frame f;

	frame_init(&f, w, h);
	for (enum cisp_cfa cfa = CISP_CFA_RGGB; cfa <= CISP_CFA_BGGR; cfa++)
		for (int pattern = 0; pattern < 2; pattern++) {
			if (pattern == 0) {
				fill_random(&f);
			} else {
				/* Smooth ramps with edges and a few extremes: levels between 0 and 8. */
				for (int y = 0; y < h; y++)
					for (int x = 0; x < w; x++)
						*px(&f.bayer, x, y) = (uint16_t)((x * 1500 + y * y * 90 + (x > 20) * 20000 +
										   ((x * 7 + y * 3) % 11 == 0) * 30000) %
										  65536);
			}
			spec_demosaic(&f, cfa, want);
			run_fast(&f, cfa, NULL);
			for (int c = 0; c < 3; c++)
				for (int y = 0; y < h; y++)
					for (int x = 0; x < w; x++)
						if (*px(&f.rgb.c[c], x, y) != want[(c * h + y) * w + x]) {
							test_fail(__FILE__, __LINE__, "cfa %d pattern %d: (%d,%d) channel %d is %d, want %d",
								  cfa, pattern, x, y, c, *px(&f.rgb.c[c], x, y),
								  want[(c * h + y) * w + x]);
							goto next;
						}
next:;
		}
	free(want);
	free(f.mem);
}

TEST(demosaic_fast_bands_independent)
{
	static const int bands[] = { 7, 13, 1, 9, 18 }; /* 48 rows */
	const int w = 40, h = 48;
	uint16_t *halo = malloc(2 * w * sizeof(uint16_t));
	struct frame whole, split;

	frame_init(&whole, w, h);
	frame_init(&split, w, h);
	fill_random(&whole);
	memcpy(split.mem, whole.mem, (size_t)w * h * sizeof(uint16_t));
	for (enum cisp_cfa cfa = CISP_CFA_RGGB; cfa <= CISP_CFA_BGGR; cfa++) {
		int y = 0;

		cisp_demosaic_fast_rows(&whole.bayer, cfa, &whole.rgb, 0, h, halo);
		for (size_t i = 0; i < sizeof(bands) / sizeof(bands[0]); y += bands[i++])
			cisp_demosaic_fast_rows(&split.bayer, cfa, &split.rgb, y, y + bands[i], halo);
		CHECK_EQ(y, h);
		CHECK(same_rgb(&whole, &split));
	}
	/* A band may also hold only its own rows and the 3 above and below. */
	{
		struct frame part;
		const int y0 = 20, y1 = 31;

		frame_init(&part, w, h);
		part.bayer = (struct plane16){ whole.bayer.base + (y0 - 3) * w, w, y0 - 3, w, h };
		for (int c = 0; c < 3; c++)
			part.rgb.c[c] = (struct plane16){ part.rgb.c[c].base, w, y0, w, h };
		cisp_demosaic_fast_rows(&part.bayer, CISP_CFA_BGGR, &part.rgb, y0, y1, halo);
		for (int c = 0; c < 3; c++)
			CHECK(!memcmp(px(&part.rgb.c[c], 0, y0), px(&whole.rgb.c[c], 0, y0),
				      (size_t)(y1 - y0) * w * sizeof(uint16_t)));
		free(part.mem);
	}
	free(halo);
	free(whole.mem);
	free(split.mem);
}

TEST(demosaic_threads_identical)
{
	const int w = 300, h = 262; /* 5 bands, the last one short */
	struct cisp_pool *pool;
	struct frame one, three;

	CHECK_EQ(cisp_pool_create(&pool, 3), 0);
	frame_init(&one, w, h);
	frame_init(&three, w, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			*px(&one.bayer, x, y) = (uint16_t)(32768 + 30000 * sin(x * 0.07 + y * y * 0.001) +
							   (int)(test_rand() % 2000));
	memcpy(three.mem, one.mem, (size_t)w * h * sizeof(uint16_t));
	run_fast(&one, CISP_CFA_GRBG, NULL);
	run_fast(&three, CISP_CFA_GRBG, pool);
	CHECK(same_rgb(&one, &three));
	cisp_pool_destroy(pool);
	free(one.mem);
	free(three.mem);
}

TEST(demosaic_create_errors)
{
	struct cisp_demosaic *dm = (struct cisp_demosaic *)&dm;

	CHECK_ERR(cisp_demosaic_create(&dm, CISP_DEMOSAIC_FAST, 15, 16), -EINVAL, "15x16");
	CHECK(dm == NULL);
	CHECK_ERR(cisp_demosaic_create(&dm, CISP_DEMOSAIC_FAST, 16, 14), -EINVAL, "at least 16");
	CHECK_ERR(cisp_demosaic_create(&dm, (enum cisp_demosaic_algorithm)7, 16, 16), -EINVAL, "algorithm 7");
	CHECK(cisp_demosaic_algorithms() & (1u << CISP_DEMOSAIC_FAST));
#ifdef HAVE_DEMOSAIC_QUALITY
	CHECK_EQ(cisp_demosaic_algorithms(), 3);
#else
	CHECK_EQ(cisp_demosaic_algorithms(), 1);
	CHECK_ERR(cisp_demosaic_create(&dm, CISP_DEMOSAIC_QUALITY, 16, 16), -ENOTSUP, "quality demosaic is not part");
#endif
	CHECK_EQ(cisp_demosaic_band_count(16), 1);
	CHECK_EQ(cisp_demosaic_band_count(CISP_DEMOSAIC_BAND_ROWS), 1);
	CHECK_EQ(cisp_demosaic_band_count(CISP_DEMOSAIC_BAND_ROWS + 2), 2);
}

/* CPSNR of the demosaic of an 8-bit RGB image (RGGB, v * 257), 10-pixel border. */
static double kodak_cpsnr(const struct cisp_raster *img)
{
	const int w = (int)img->width, h = (int)img->height;
	size_t n = (size_t)w * h;
	uint16_t *scene = malloc(n * 3 * sizeof(uint16_t));
	struct frame f;
	double se = 0;

	frame_init(&f, w, h);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			scene[c * n + i] = (uint16_t)(img->data[i * 3 + c] * 257);
	mosaic(&f, CISP_CFA_RGGB, scene);
	run_fast(&f, CISP_CFA_RGGB, NULL);
	for (int c = 0; c < 3; c++)
		for (int y = 10; y < h - 10; y++)
			for (int x = 10; x < w - 10; x++) {
				double d = img->data[((size_t)y * w + x) * 3 + c] - *px(&f.rgb.c[c], x, y) / 257.0;

				se += d * d;
			}
	free(scene);
	free(f.mem);
	return 10 * log10(255.0 * 255.0 / (se / (3.0 * (w - 20) * (h - 20))));
}

/* The quality figure of docs/stages/demosaic_fast.md, on the 24 Kodak images. */
TEST(demosaic_fast_kodak_cpsnr)
{
	const char *dir = test_data_dir();
	double sum = 0, cp13 = 0;

	if (!dir) {
		test_skip("../shared/data is absent: Kodak demosaic quality not measured");
		return;
	}
	for (int k = 1; k <= 24; k++) {
		struct cisp_raster img;
		char path[1024];
		double cp;

		snprintf(path, sizeof(path), "%s/kodak/kodim%02d.png", dir, k);
		if (cisp_raster_read(path, &img)) {
			test_fail(__FILE__, __LINE__, "%s", cisp_last_error());
			return;
		}
		CHECK(img.channels == 3 && img.maxval == 255);
		cp = kodak_cpsnr(&img);
		cp13 = k == 13 ? cp : cp13;
		sum += cp;
		cisp_raster_free(&img);
	}
	/* Measured: mean 38.4754, kodim13 31.6201 (Malvar-He-Cutler: 35.79, 29.57). */
	CHECK_NEAR(sum / 24, 38.4754, 0.0005);
	CHECK_NEAR(cp13, 31.6201, 0.0005);
}

/* ------------------------------------------------------------------------ */
/* The cisp demosaic command. */

/* Run `cisp demosaic ARGS`; stdout and stderr together into @out. Returns the exit status. */
static int cisp_demosaic(const char *args, char *out, size_t size)
{
	char cmd[3200];

	snprintf(cmd, sizeof(cmd), "demosaic %s", args);
	return test_run_cisp(cmd, out, size);
}

/* A flat mosaic of (r, g, b) at @maxval in @cfa, written to @name in the scratch folder. */
static void write_flat_mosaic(const char *path, enum cisp_cfa cfa, unsigned maxval, const unsigned rgb[3])
{
	struct cisp_raster r;

	CHECK_EQ(cisp_raster_alloc(&r, 20, 16, 1, maxval), 0);
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 20; x++)
			r.data[y * 20 + x] = (uint16_t)rgb[site_rgb(cfa, x, y)];
	CHECK_EQ(cisp_raster_write(path, &r), 0);
	cisp_raster_free(&r);
}

/* Every pixel of the RGB file is (r, g, b) and its maxval is @maxval. */
static void check_flat_rgb(const char *path, unsigned maxval, const unsigned rgb[3])
{
	struct cisp_raster r;
	int bad = 0;

	if (cisp_raster_read(path, &r)) {
		test_fail(__FILE__, __LINE__, "%s", cisp_last_error());
		return;
	}
	CHECK_EQ(r.channels, 3);
	CHECK_EQ(r.maxval, maxval);
	CHECK(r.width == 20 && r.height == 16);
	for (size_t i = 0; i < (size_t)r.width * r.height * r.channels; i++)
		bad += r.data[i] != rgb[i % 3];
	CHECK_EQ(bad, 0);
	cisp_raster_free(&r);
}

TEST(cli_demosaic_keeps_the_input_scale)
{
	static const struct {
		enum cisp_cfa cfa;
		const char *name, *ext;
		unsigned maxval, rgb[3];
	} cases[] = {
		{ CISP_CFA_RGGB, "RGGB", "pgm", 255, { 10, 200, 77 } },
		{ CISP_CFA_GRBG, "grbg", "png", 255, { 255, 0, 128 } },
		{ CISP_CFA_BGGR, "BGGR", "pgm", 4095, { 4095, 1, 2048 } },
		{ CISP_CFA_GBRG, "GBRG", "png", 65535, { 65535, 12345, 0 } },
	};
	char in[1024], outp[1024], args[3072], text[4096];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(in, sizeof(in), "%s/dm_flat%zu.%s", test_tmp_dir(), i, cases[i].ext);
		snprintf(outp, sizeof(outp), "%s/dm_flat%zu_out.%s", test_tmp_dir(), i,
			 cases[i].ext[1] == 'g' ? "ppm" : "png");
		write_flat_mosaic(in, cases[i].cfa, cases[i].maxval, cases[i].rgb);
		snprintf(args, sizeof(args), "--cfa %s --threads 2 %s %s", cases[i].name, in, outp);
		CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 0);
		check_flat_rgb(outp, cases[i].maxval, cases[i].rgb);
	}
}

TEST(cli_demosaic_bench_and_errors)
{
	static const unsigned grey[3] = { 100, 100, 100 };
	char in[1024], rgb[1024], args[3072], text[4096];
	const char *last;

	snprintf(in, sizeof(in), "%s/dm_bench.pgm", test_tmp_dir());
	write_flat_mosaic(in, CISP_CFA_RGGB, 255, grey);

	snprintf(args, sizeof(args), "--bench 3 --threads 1 %s %s/dm_bench.ppm", in, test_tmp_dir());
	CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 0);
	last = strstr(text, "MPix/s ");
	CHECK(last && strchr(last, '\n') == text + strlen(text) - 1 && atof(last + 7) > 0);

	CHECK_EQ(cisp_demosaic("--help", text, sizeof(text)), 0);
	CHECK(strstr(text, "--algo fast|quality"));
	CHECK_EQ(cisp_demosaic("--algo slow a.pgm b.ppm", text, sizeof(text)), 2);
	CHECK(strstr(text, "--algo 'slow'"));
	CHECK_EQ(cisp_demosaic("--cfa RGBG a.pgm b.ppm", text, sizeof(text)), 2);
	CHECK(strstr(text, "RGBG"));
	CHECK_EQ(cisp_demosaic("--threads 0 a.pgm b.ppm", text, sizeof(text)), 2);
	CHECK(strstr(text, "--threads: '0'"));
	CHECK_EQ(cisp_demosaic("--bench x a.pgm b.ppm", text, sizeof(text)), 2);
	CHECK(strstr(text, "--bench: 'x'"));
	CHECK_EQ(cisp_demosaic("--frobnicate a.pgm b.ppm", text, sizeof(text)), 2);
	CHECK(strstr(text, "--frobnicate"));
	CHECK_EQ(cisp_demosaic("only-one.pgm", text, sizeof(text)), 2);
	CHECK(strstr(text, "got 1 file name"));

	snprintf(args, sizeof(args), "%s/no-such-mosaic.pgm %s/x.ppm", test_tmp_dir(), test_tmp_dir());
	CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 1);
	CHECK(strstr(text, "no-such-mosaic.pgm"));

	/* An RGB image is not a mosaic. */
	{
		struct cisp_raster r;

		snprintf(rgb, sizeof(rgb), "%s/dm_rgb.ppm", test_tmp_dir());
		CHECK_EQ(cisp_raster_alloc(&r, 16, 16, 3, 255), 0);
		CHECK_EQ(cisp_raster_write(rgb, &r), 0);
		cisp_raster_free(&r);
		snprintf(args, sizeof(args), "%s %s/x.ppm", rgb, test_tmp_dir());
		CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 1);
		CHECK(strstr(text, "is an RGB image"));
	}
	/* Odd sizes cannot hold a Bayer pattern. */
	{
		struct cisp_raster r;

		snprintf(rgb, sizeof(rgb), "%s/dm_odd.pgm", test_tmp_dir());
		CHECK_EQ(cisp_raster_alloc(&r, 17, 16, 1, 255), 0);
		CHECK_EQ(cisp_raster_write(rgb, &r), 0);
		cisp_raster_free(&r);
		snprintf(args, sizeof(args), "%s %s/x.ppm", rgb, test_tmp_dir());
		CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 1);
		CHECK(strstr(text, "17x16"));
	}
	/* The output's extension picks the file type; an unknown one is an error. */
	snprintf(args, sizeof(args), "%s %s/x.tiff", in, test_tmp_dir());
	CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 1);
	CHECK(strstr(text, "x.tiff"));
#ifndef HAVE_DEMOSAIC_QUALITY
	snprintf(args, sizeof(args), "--algo quality %s %s/x.ppm", in, test_tmp_dir());
	CHECK_EQ(cisp_demosaic(args, text, sizeof(text)), 1);
	CHECK(strstr(text, "quality demosaic is not part of this build"));
#endif
}
