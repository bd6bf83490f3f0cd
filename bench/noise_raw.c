/* SPDX-License-Identifier: MIT */
/*
 * noise_raw: the quality Bayer denoise on real raw mosaics, a check of the
 * Kodak figures (noise_kodak) on another sensor and other scenes.
 *
 *   noise_raw [--bnr S] [--bnr-mode fast|quality] FILE:W:H:BLACK:WHITE:CFA ...
 *
 * Each FILE is a headerless little-endian 16-bit raw mosaic (W x H, CFA one
 * of rggb, grbg, gbrg, bggr), such as those of /work/shared/data/raw. The
 * clean reference is the mosaic binned 2x2 by colour: each sample of the
 * half-size mosaic is the mean of four same-colour samples of a 4x4 block
 * (the sensor's own noise halved), black-subtracted and scaled to 16 bits.
 * Noise of the profile of each level of docs/stages/cnr.md (variance gain * s
 * + (read * gain)^2, the same as noise_kodak's) is added as a seeded
 * Gaussian of that variance; then BNR alone runs on the mosaic with that
 * profile. Prints the PSNR of the noisy and the denoised mosaic against the
 * clean one (8-bit scale, 8-sample border) and the gain, per file and level,
 * and the mean gain per level.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/params_state.h>

#include "isp/bnr.h"

static const struct {
	const char *name;
	double gain, read; /* 16-bit units per electron, read noise in electrons */
} levels[] = { { "low", 16.0, 3.0 }, { "mid", 128.0, 2.0 }, { "high", 512.0, 1.5 } };
#define NLEVELS 3
#define BORDER 8

/* A standard normal from a 64-bit xorshift state (Box-Muller, one value a call). */
static double normal(uint64_t *s)
{
	double u[2];

	for (int k = 0; k < 2; k++) {
		*s ^= *s << 13;
		*s ^= *s >> 7;
		*s ^= *s << 17;
		u[k] = ((double)(*s >> 11) + 0.5) * 0x1.0p-53;
	}
	return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

static double psnr(const uint16_t *a, const uint16_t *b, int w, int h)
{
	double se = 0;
	long n = 0;

	for (int y = BORDER; y < h - BORDER; y++)
		for (int x = BORDER; x < w - BORDER; x++, n++) {
			double d = (a[(size_t)y * w + x] - b[(size_t)y * w + x]) * (255.0 / 65535);

			se += d * d;
		}
	return 10 * log10(255.0 * 255 * n / (se > 0 ? se : 1e-9));
}

/* The clean half-size mosaic of @file; its width and height through @cw, @ch. NULL on error. */
static uint16_t *load_binned(const char *file, int w, int h, int black, int white, int *cw, int *ch)
{
	FILE *f = fopen(file, "rb");
	uint8_t *raw = malloc((size_t)w * h * 2);
	uint16_t *out = malloc((size_t)(w / 4) * (h / 4) * 4 * sizeof(uint16_t));
	int ok = f && raw && out && fread(raw, 2, (size_t)w * h, f) == (size_t)w * h;

	if (f)
		fclose(f);
	*cw = w / 4 * 2;
	*ch = h / 4 * 2;
	for (int y = 0; ok && y < *ch; y++)
		for (int x = 0; x < *cw; x++) {
			/* The four samples of the same colour in the 4x4 block of cell (x / 2, y / 2). */
			const int bx = (x >> 1) * 4 + (x & 1), by = (y >> 1) * 4 + (y & 1);
			double s = 0;

			for (int j = 0; j < 4; j += 2)
				for (int i = 0; i < 4; i += 2) {
					const size_t o = ((size_t)(by + j) * w + bx + i) * 2;

					s += raw[o] | raw[o + 1] << 8;
				}
			s = (s / 4 - black) * 65535 / (white - black);
			out[(size_t)y * *cw + x] = (uint16_t)(s < 0 ? 0 : s > 65535 ? 65535 : lrint(s));
		}
	free(raw);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

static int cfa_of(const char *s, enum cisp_cfa *cfa)
{
	static const char *const names[4] = { "rggb", "grbg", "gbrg", "bggr" };
	static const enum cisp_cfa cfas[4] = { CISP_CFA_RGGB, CISP_CFA_GRBG, CISP_CFA_GBRG, CISP_CFA_BGGR };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*cfa = cfas[i];
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	struct cisp_param_state s;
	double sum[NLEVELS] = { 0 };
	int files = 0, i;

	cisp_param_state_init(&s);
	s.bnr.mode = CISP_BNR_QUALITY;
	s.bnr.strength = 256;
	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--bnr"))
			s.bnr.strength = (uint16_t)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--bnr-mode"))
			s.bnr.mode = strcmp(argv[i + 1], "fast") ? CISP_BNR_QUALITY : CISP_BNR_FAST;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: noise_raw [--bnr S] [--bnr-mode fast|quality] FILE:W:H:BLACK:WHITE:CFA ...\n");
		return 2;
	}
	printf("%-34s %6s %8s %8s %7s\n", "file", "level", "noisy", "+bnr", "gain");
	for (; i < argc; i++, files++) {
		char file[512], cfa_name[8];
		int w, h, black, white, cw, ch;
		enum cisp_cfa cfa;
		uint16_t *clean, *noisy, *den;

		if (sscanf(argv[i], "%511[^:]:%d:%d:%d:%d:%7s", file, &w, &h, &black, &white, cfa_name) != 6 ||
		    w < 16 || h < 16 || w > 1 << 15 || h > 1 << 15 || white <= black || cfa_of(cfa_name, &cfa)) {
			fprintf(stderr, "noise_raw: bad argument %s\n", argv[i]);
			return 2;
		}
		clean = load_binned(file, w, h, black, white, &cw, &ch);
		noisy = malloc((size_t)cw * ch * sizeof(uint16_t));
		den = malloc((size_t)cw * ch * sizeof(uint16_t));
		if (!clean || !noisy || !den) {
			fprintf(stderr, "noise_raw: cannot read %s\n", file);
			return 1;
		}
		for (int lv = 0; lv < NLEVELS; lv++) {
			struct plane16 pin = { .base = noisy, .stride = cw, .width = cw, .height = ch };
			struct plane16 pout = { .base = den, .stride = cw, .width = cw, .height = ch };
			struct cisp_bnr_coeffs *bnr = NULL;
			uint64_t seed = 0x5EED0000ull + (uint64_t)lv * 1000 + (uint64_t)files * 7 + 1;
			double p0, p1;

			for (int c = 0; c < 4; c++) {
				s.noise.a[c] = (uint32_t)lrint(levels[lv].gain * 65536);
				s.noise.b[c] = (uint32_t)lrint(pow(levels[lv].read * levels[lv].gain, 2));
			}
			for (size_t k = 0; k < (size_t)cw * ch; k++) {
				double v = clean[k] + sqrt(levels[lv].gain * clean[k] +
							   pow(levels[lv].read * levels[lv].gain, 2)) * normal(&seed);

				noisy[k] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : lrint(v));
			}
			if (cisp_bnr_prepare(&bnr, &s.bnr, &s.noise, cfa)) {
				fprintf(stderr, "noise_raw: out of memory\n");
				return 1;
			}
			cisp_bnr_rows(bnr, &pin, &pout, 0, ch);
			cisp_bnr_free(bnr);
			p0 = psnr(clean, noisy, cw, ch);
			p1 = psnr(clean, den, cw, ch);
			sum[lv] += p1 - p0;
			printf("%-34s %6s %8.3f %8.3f %+7.3f\n", strrchr(file, '/') ? strrchr(file, '/') + 1 : file,
			       levels[lv].name, p0, p1, p1 - p0);
		}
		free(clean);
		free(noisy);
		free(den);
	}
	for (int lv = 0; lv < NLEVELS; lv++)
		printf("mean gain %-6s %+7.3f\n", levels[lv].name, sum[lv] / files);
	return 0;
}
