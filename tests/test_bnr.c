/* SPDX-License-Identifier: MIT */
/*
 * The quality Bayer denoise (CISP_BNR_QUALITY, docs/stages/bnr.md): its
 * arithmetic against a plain per-pixel implementation of the document's
 * formulas, independence of the rows asked for, noise reduction on a flat
 * field, a step edge kept, strength 0, and the mode field's validation.
 * The banded executor's equality with the reference is in test_fastpath.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/params_state.h>
#include <cisp/tuning.h>

#include "control/algorithm.h"
#include "control/tuning.h"
#include "isp/bnr.h"
#include "test.h"

static const struct cisp_noise_params noise = {
	.a = { 4 << 16, 3 << 16, 5 << 16, 6 << 16 },
	.b = { 64, 100, 30, 200 },
};

static struct plane16 plane_new(int w, int h)
{
	struct plane16 p = { calloc((size_t)w * h, sizeof(uint16_t)), w, 0, w, h };

	return p;
}

/* The frame extended by reflection. */
static int at(const struct plane16 *p, int x, int y)
{
	return plane_row(p, mirror(y, p->height))[mirror(x, p->width)];
}

/* ---- the formulas of docs/stages/bnr.md, one output sample at a time ---- */

static int guide(const struct plane16 *p, int x, int y)
{
	int s = 0;

	for (int j = -1; j <= 1; j++)
		for (int i = -1; i <= 1; i++)
			s += (2 - abs(i)) * (2 - abs(j)) * at(p, x + i, y + j);
	return (s + 8) >> 4;
}

static int patch_filter(const struct plane16 *p, enum cisp_cfa cfa, uint32_t s2, int x, int y)
{
	enum cisp_channel ch = cisp_cfa_channel(cfa, (unsigned)x & 1, (unsigned)y & 1);
	const int green = ch == CISP_CH_GR || ch == CISP_CH_GB, r = green ? 3 : 2;
	const int64_t v0 = at(p, x, y);
	uint64_t sum = 0, var, q, sw = 0, swv = 0;

	for (int j = -2; j <= 2; j += 2)
		for (int i = -2; i <= 2; i += 2)
			sum += (uint64_t)at(p, x + i, y + j);
	var = (((uint64_t)noise.a[ch] * ((sum + 4) / 9) + 32768) >> 16) + noise.b[ch];
	q = 36 * ((var * s2) >> 16);
	if (q == 0)
		return (int)v0;
	for (int j = -r; j <= r; j++)
		for (int i = -r; i <= r; i++) {
			uint64_t e, t, wt;
			int64_t dv = at(p, x + i, y + j) - v0;

			/* Green: the 8 nearest and (-3, -1), (1, -3), (-1, 3), (3, 1); red, blue: the 5x5 window. */
			const int near = abs(i) + abs(j) <= 2, turn = abs(i * j) == 3 && (abs(i) == 3) == (i * j > 0);

			if (((i + j) & 1) || (green ? !near && !turn : (i & 1) || (j & 1)))
				continue;
			e = (uint64_t)(dv * dv);
			for (int b = -1; b <= 1; b++)
				for (int a = -1; a <= 1; a++) {
					int64_t d = guide(p, x + i + a, y + j + b) - guide(p, x + a, y + b);

					e += (uint64_t)(d * d);
				}
			if (e >= q)
				continue;
			t = 65536 - ((e * (((uint64_t)1 << 48) / q)) >> 32);
			wt = (t * t) >> 20;
			sw += wt;
			swv += wt * (uint64_t)(v0 + dv);
		}
	return (int)((swv + sw / 2) / sw);
}

static int hadamard(int k, int n)
{
	return __builtin_popcount((unsigned)(k & n)) & 1 ? -1 : 1;
}

/* Plane k of cell (cx, cy): the Hadamard mix of its four samples. */
static int64_t mixed(const struct plane16 *p, int k, int cx, int cy)
{
	int64_t s = 0;

	for (int n = 0; n < 4; n++)
		s += hadamard(k, n) * at(p, 2 * cx + (n & 1), 2 * cy + (n >> 1));
	return s;
}

static int transform_filter(const struct plane16 *p, enum cisp_cfa cfa, uint32_t s2, int x, int y)
{
	const int cx = x >> 1, cy = y >> 1, pos = (y & 1) * 2 + (x & 1);
	uint64_t sa = 0, sb = 0;
	int64_t acc[4] = { 0 }, ws[4] = { 0 }, v = 0;

	for (int c = 0; c < 4; c++) {
		sa += noise.a[c];
		sb += noise.b[c];
	}
	(void)cfa; /* the mean over the four channels is the same for every CFA order */
	for (int by = cy - 3; by <= cy; by++)
		for (int bx = cx - 3; bx <= cx; bx++) {
			uint64_t sum = 0, var, thr;

			if ((bx + by) & 1) /* not a block of the quincunx */
				continue;
			for (int j = 0; j < 4; j++)
				for (int i = 0; i < 4; i++)
					sum += (uint64_t)mixed(p, 0, bx + i, by + j);
			var = ((sa * ((sum + 32) >> 6) + (1u << 17)) >> 18) + ((sb + 2) >> 2);
			thr = (((var * s2) >> 16) * 94372) >> 8;
			for (int k = 0; k < 4; k++) {
				int64_t u[4][4], rec = 0;
				int nz = 0;

				for (int l = 0; l < 4; l++)
					for (int m = 0; m < 4; m++) {
						u[l][m] = 0;
						for (int j = 0; j < 4; j++)
							for (int i = 0; i < 4; i++)
								u[l][m] += hadamard(l, j) * hadamard(m, i) *
									   mixed(p, k, bx + i, by + j);
						if ((l | m) && (uint64_t)(u[l][m] * u[l][m]) < thr)
							u[l][m] = 0;
						else
							nz++;
						rec += hadamard(l, cy - by) * hadamard(m, cx - bx) * u[l][m];
					}
				acc[k] += (4096 + nz / 2) / nz * rec;
				ws[k] += (4096 + nz / 2) / nz;
			}
		}
	for (int k = 0; k < 4; k++) {
		int64_t n = acc[k] * 64, q = n >= 0 ? (n + ws[k] / 2) / ws[k] : -((-n + ws[k] / 2) / ws[k]);

		v += hadamard(k, pos) * q;
	}
	v = v <= 0 ? 0 : (v + 2048) >> 12;
	return (int)(v > 65535 ? 65535 : v);
}

/* ---- helpers ---- */

static struct cisp_bnr_coeffs *quality(uint16_t strength, enum cisp_cfa cfa)
{
	struct cisp_bnr_params bp = { .strength = strength, .mode = CISP_BNR_QUALITY };
	struct cisp_bnr_coeffs *c = NULL;

	CHECK_EQ(cisp_bnr_prepare(&c, &bp, &noise, cfa), 0);
	return c;
}

static double gauss(void)
{
	double u = ((test_rand() >> 11) + 0.5) / 9007199254740992.0;
	double v = ((test_rand() >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A level plus Poisson-Gaussian-like noise of the profile, clamped. */
static uint16_t noisy(double level, int ch)
{
	double sd = sqrt(noise.a[ch] / 65536.0 * level + noise.b[ch]), v = level + sd * gauss();

	return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : lround(v));
}

static double rms_error(const struct plane16 *p, const struct plane16 *ref, int x0, int x1, int y0, int y1)
{
	double s = 0;

	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++) {
			double d = (double)plane_row(p, y)[x] - plane_row(ref, y)[x];

			s += d * d;
		}
	return sqrt(s / ((double)(x1 - x0) * (y1 - y0)));
}

/* ---- tests ---- */

TEST(bnr_quality_matches_formulas)
{
	static const enum cisp_cfa cfas[] = { CISP_CFA_RGGB, CISP_CFA_GRBG, CISP_CFA_GBRG, CISP_CFA_BGGR };
	/* Sizes: the smallest frame, a partial last tile in both directions (tiles are 64 x 16). */
	static const int sizes[][2] = { { 16, 16 }, { 134, 22 } };

	for (unsigned s = 0; s < 2; s++) {
		const int w = sizes[s][0], h = sizes[s][1];
		struct plane16 in = plane_new(w, h), out = plane_new(w, h);
		struct cisp_bnr_coeffs *c = quality(s ? 300 : 256, cfas[s * 2 + 1]);
		const uint32_t s2 = s ? 300u * 300 : 256u * 256;
		int bad = 0, checked = 0;

		/* Noisy texture with an edge, a bright clipped patch and a black one. */
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				double level = (x * 37 + y * 91) % 3000 + (x > w / 2 ? 30000 : 6000);

				plane_row(&in, y)[x] = (x / 5 + y / 3) % 11 == 0 ? 65535 : (x / 7 + y) % 13 == 0 ? 0 : noisy(level, (x & 1) + (y & 1) * 2);
			}
		cisp_bnr_rows(c, &in, &out, 0, h);
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				/* Every sample of the small frame, a sample in 7 of the larger one. */
				if (s && (x * 3 + y) % 7)
					continue;
				int pf = patch_filter(&in, cfas[s * 2 + 1], s2, x, y);
				int tf = transform_filter(&in, cfas[s * 2 + 1], s2, x, y);
				int want = (pf + tf + 1) >> 1, got = plane_row(&out, y)[x];

				checked++;
				if (got != want && bad++ < 5)
					printf("    %dx%d (%d, %d): %d, the formulas give %d (patch %d, transform %d)\n", w, h,
					       x, y, got, want, pf, tf);
			}
		CHECK_EQ(bad, 0);
		CHECK(checked > 200);
		cisp_bnr_free(c);
		free(in.base);
		free(out.base);
	}
}

TEST(bnr_quality_rows_independent)
{
	const int w = 150, h = 40;
	struct plane16 in = plane_new(w, h), a = plane_new(w, h), b = plane_new(w, h);
	struct cisp_bnr_coeffs *c = quality(256, CISP_CFA_BGGR);

	for (size_t i = 0; i < (size_t)w * h; i++)
		in.base[i] = noisy(5000 + (double)(i % 977) * 20, (int)(i & 1));
	cisp_bnr_rows(c, &in, &a, 0, h);
	/* Any split into row ranges, odd starts included, gives the same bytes. */
	for (int step = 1; step < 20; step += 6) {
		memset(b.base, 0, (size_t)w * h * sizeof(uint16_t));
		for (int y = 0; y < h; y += step)
			cisp_bnr_rows(c, &in, &b, y, y + step < h ? y + step : h);
		CHECK_EQ(memcmp(a.base, b.base, (size_t)w * h * sizeof(uint16_t)), 0);
	}
	cisp_bnr_free(c);
	free(in.base);
	free(a.base);
	free(b.base);
}

TEST(bnr_quality_flat_field_and_edge)
{
	const int w = 128, h = 64;
	struct plane16 in = plane_new(w, h), ref = plane_new(w, h), out = plane_new(w, h), fast = plane_new(w, h);
	struct cisp_bnr_coeffs *c = quality(256, CISP_CFA_RGGB), *f = NULL;
	struct cisp_bnr_params fp = { .strength = 256, .mode = CISP_BNR_FAST };
	double before, after, after_fast;

	CHECK_EQ(cisp_bnr_prepare(&f, &fp, &noise, CISP_CFA_RGGB), 0);
	/* Left half flat at 8000, right half a step to 40000 at x = 96. */
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double level = x < 96 ? 8000 : 40000;

			plane_row(&ref, y)[x] = (uint16_t)level;
			plane_row(&in, y)[x] = noisy(level, (x & 1) + (y & 1) * 2);
		}
	cisp_bnr_rows(c, &in, &out, 0, h);
	cisp_bnr_rows(f, &in, &fast, 0, h);
	/* Flat field: the noise falls to under a third, and below the fast filter's. */
	before = rms_error(&in, &ref, 8, 80, 8, h - 8);
	after = rms_error(&out, &ref, 8, 80, 8, h - 8);
	after_fast = rms_error(&fast, &ref, 8, 80, 8, h - 8);
	printf("    flat field rms: %.1f noisy, %.1f fast, %.1f quality\n", before, after_fast, after);
	CHECK(after < before / 3);
	CHECK(after < after_fast);
	/* The edge: the columns on either side keep their level (no smearing across). */
	for (int x = 92; x < 100; x++) {
		double s = 0;

		for (int y = 8; y < h - 8; y++)
			s += plane_row(&out, y)[x];
		s /= h - 16;
		CHECK(fabs(s - (x < 96 ? 8000 : 40000)) < 400);
	}
	/* The mean level of the flat area is kept. */
	{
		double s = 0;

		for (int y = 8; y < h - 8; y++)
			for (int x = 8; x < 80; x++)
				s += plane_row(&out, y)[x];
		CHECK_NEAR(s / ((h - 16) * 72.0), 8000, 40);
	}
	cisp_bnr_free(c);
	cisp_bnr_free(f);
	free(in.base);
	free(ref.base);
	free(out.base);
	free(fast.base);
}

TEST(bnr_quality_strength_zero_is_identity)
{
	const int w = 40, h = 20;
	struct plane16 in = plane_new(w, h), out = plane_new(w, h);
	struct cisp_bnr_coeffs *c = quality(0, CISP_CFA_GRBG);

	for (size_t i = 0; i < (size_t)w * h; i++)
		in.base[i] = (uint16_t)test_rand();
	cisp_bnr_rows(c, &in, &out, 0, h);
	CHECK_EQ(memcmp(in.base, out.base, (size_t)w * h * sizeof(uint16_t)), 0);
	CHECK_EQ(cisp_bnr_radius(c), 7);
	CHECK_EQ(cisp_bnr_mode(c), CISP_BNR_QUALITY);
	cisp_bnr_free(c);
	free(in.base);
	free(out.base);
}

TEST(bnr_mode_validation)
{
	struct cisp_param_state s;
	uint8_t buf[4096];
	size_t size;
	void *yb = NULL;
	const char *text = "bnr:\n  enable: true\n  strength: 1.0\n  mode: quality\n";
	char *back = NULL;

	cisp_param_state_init(&s);
	CHECK_EQ(s.bnr.mode, CISP_BNR_FAST);
	s.bnr.mode = 2;
	CHECK_ERR(cisp_params_encode(&s, CISP_BLOCK_BIT(CISP_BLOCK_BNR), buf, sizeof(buf), &size), -EINVAL,
		  "mode = 2 is not a known value (0..1)");
	s.bnr.mode = CISP_BNR_QUALITY;
	CHECK_EQ(cisp_params_encode(&s, CISP_BLOCK_BIT(CISP_BLOCK_BNR), buf, sizeof(buf), &size), 0);
	/* YAML names the mode. */
	CHECK_EQ(cisp_params_from_yaml(text, strlen(text), &yb, &size), 0);
	cisp_param_state_init(&s);
	CHECK_EQ(cisp_param_state_apply(&s, yb, size, NULL), 0);
	CHECK_EQ(s.bnr.mode, CISP_BNR_QUALITY);
	CHECK_EQ(s.bnr.strength, 256);
	CHECK_EQ(cisp_params_to_yaml(yb, size, &back), 0);
	CHECK(back && strstr(back, "mode: quality"));
	free(back);
	free(yb);
	text = "bnr:\n  strength: 1.0\n  mode: best\n";
	CHECK_ERR(cisp_params_from_yaml(text, strlen(text), &yb, &size), -EINVAL, "bnr.mode");
}

/* A tuning file's denoise table chooses the filter per gain; the 3A loop writes it with the strength. */
TEST(bnr_mode_from_tuning)
{
	static const char *const bad = "  - {gain: 1, bnr: 0.75, cnr: 2.5, sharpen: 1.0, coring: 256, bnr_mode: best}\n";
	struct cisp_tuning *t = NULL;
	struct cisp_param_state *ps = calloc(1, sizeof(*ps));
	struct cisp_sensor_mode m = { .width = 320, .height = 240, .bits = 10, .crop_width = 320, .crop_height = 240,
				      .binning = 1, .black_level = 64, .white_level = 1023 };
	const double gains[2] = { 1, 1 };
	char path[512], *text = NULL, *at;
	FILE *f;
	long n;

	CHECK_EQ(cisp_tuning_uncalibrated(&t), 0);
	if (!t || !ps)
		goto out;
	cisp_param_state_init(ps);
	CHECK_EQ(t->denoise[0].bnr_mode, CISP_BNR_FAST);
	t->denoise_count = 2;
	t->denoise[0] = (struct tuning_denoise){ 1, 0.75, 2.0, 1.0, 100, CISP_BNR_FAST };
	t->denoise[1] = (struct tuning_denoise){ 8, 1.0, 4.0, 0.5, 900, CISP_BNR_QUALITY };
	control_prepare_params(t, &m, gains, 5000, 2, 1, ps);
	CHECK_EQ(ps->bnr.mode, CISP_BNR_FAST);
	CHECK(control_prepare_params(t, &m, gains, 5000, 8, 1, ps) & CISP_BLOCK_BIT(CISP_BLOCK_BNR));
	CHECK_EQ(ps->bnr.mode, CISP_BNR_QUALITY);
	CHECK_EQ(ps->bnr.strength, 256);
	control_prepare_params(t, &m, gains, 5000, 20, 1, ps);
	CHECK_EQ(ps->bnr.mode, CISP_BNR_QUALITY);

	/* The key in a file: optional, fast or quality. */
	snprintf(path, sizeof(path), "%s/data/tuning/cisp-test.yaml", CISP_SOURCE_DIR);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		goto out;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)n + 128);
	CHECK_EQ(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	tuning_defaults(t);
	CHECK_EQ(tuning_parse_into(t, text, strlen(text), "cisp-test.yaml"), 0);
	CHECK_EQ(t->denoise[3].bnr_mode, CISP_BNR_FAST);
	at = strstr(text, "coring: 1536}");
	CHECK(at != NULL);
	if (!at)
		goto out;
	/* Insert ", bnr_mode: quality" before the entry's closing brace, keeping what follows. */
	at += strlen("coring: 1536");
	memmove(at + 19, at, strlen(at) + 1);
	memcpy(at, ", bnr_mode: quality", 19);
	tuning_defaults(t);
	CHECK_EQ(tuning_parse_into(t, text, strlen(text), "cisp-test.yaml"), 0);
	CHECK_EQ(t->denoise[3].bnr_mode, CISP_BNR_QUALITY);
	CHECK_EQ(t->denoise[2].bnr_mode, CISP_BNR_FAST);
	/* A bad name (the table cut to one entry, the file's end with it). */
	at = strstr(text, "denoise:\n");
	snprintf(at, strlen(bad) + 16, "denoise:\n%s", bad);
	tuning_defaults(t);
	CHECK_ERR(tuning_parse_into(t, text, strlen(text), "cisp-test.yaml"), -EINVAL,
		  "'best' is not one of fast, quality");
out:
	free(text);
	free(ps);
	cisp_tuning_free(t);
}
