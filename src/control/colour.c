/* SPDX-License-Identifier: MIT */
/*
 * The ISP parameters that follow the colour temperature and the gain: the
 * colour matrix and the lens shading tables interpolated by colour
 * temperature (linear in mired between the two nearest entries, clamped at
 * the ends of the table), the noise profile and the denoise and sharpening
 * strengths interpolated by gain, the white-balance gains, black level and
 * tone curve. Values are written in the ABI's fixed point (params.h).
 * The statistics block belongs to the loop and is never touched here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colour.h"

/* Entry pair and fraction for @x in a sorted table of @n keys (read by @key). */
struct bracket {
	unsigned i0, i1;
	double f;
};

static struct bracket find_bracket(const double *keys, size_t stride, unsigned n, double x, bool mired)
{
	struct bracket b = { 0, 0, 0 };
#define KEY(i) (*(const double *)((const char *)keys + (i) * stride))
	if (n <= 1 || x <= KEY(0))
		return b;
	if (x >= KEY(n - 1)) {
		b.i0 = b.i1 = n - 1;
		return b;
	}
	for (b.i1 = 1; b.i1 < n - 1 && KEY(b.i1) < x; b.i1++)
		;
	b.i0 = b.i1 - 1;
	if (mired)
		b.f = (1 / KEY(b.i0) - 1 / x) / (1 / KEY(b.i0) - 1 / KEY(b.i1));
	else
		b.f = (x - KEY(b.i0)) / (KEY(b.i1) - KEY(b.i0));
#undef KEY
	return b;
}

static double lerp(double a, double b, double f)
{
	return a + f * (b - a);
}

static uint16_t q_u16(double v, double one)
{
	double q = round(v * one);

	return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q);
}

/* Copy @src over @dst and report whether anything changed. */
static bool update(void *dst, const void *src, size_t size)
{
	if (!memcmp(dst, src, size))
		return false;
	memcpy(dst, src, size);
	return true;
}

static void set_enabled(struct cisp_param_state *ps, unsigned type, bool on, uint32_t *changed)
{
	uint32_t bit = CISP_BLOCK_BIT(type), was = ps->enabled & bit;

	ps->enabled = on ? ps->enabled | bit : ps->enabled & ~bit;
	if (was != (ps->enabled & bit))
		*changed |= bit;
}

/* The CCM at @ct, Q3.12, every row summing to exactly 4096 so that greys stay grey. */
static void make_ccm(const struct cisp_tuning *t, double ct, struct cisp_ccm_params *p)
{
	struct bracket b = find_bracket(&t->ccm[0].ct, sizeof(t->ccm[0]), t->ccm_count, ct, true);

	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_CCM;
	p->header.size = sizeof(*p);
	for (int i = 0; i < 3; i++) {
		long q[3], sum = 0, mag = 0;

		for (int j = 0; j < 3; j++) {
			q[j] = lround(4096 * lerp(t->ccm[b.i0].m[i][j], t->ccm[b.i1].m[i][j], b.f));
			sum += q[j];
		}
		q[i] += 4096 - sum;
		for (int j = 0; j < 3; j++)
			mag += labs(q[j]);
		/* The parser keeps rows within range; this only guards the ABI limit. */
		for (int j = 0; j < 3; j++) {
			if (mag > 32767)
				q[j] = q[j] * 32767 / mag;
			p->coeff[3 * i + j] = (int16_t)(q[j] < -32768 ? -32768 : q[j] > 32767 ? 32767 : q[j]);
		}
	}
}

/* Bilinear sample of one channel of a table at grid coordinates (@u, @v). */
static double table_at(const float *g, double u, double v)
{
	const int n = TUNING_LSC_GRID;
	int i, j;
	double fu, fv;

	u = u < 0 ? 0 : u > n - 1 ? n - 1 : u;
	v = v < 0 ? 0 : v > n - 1 ? n - 1 : v;
	i = (int)u < n - 1 ? (int)u : n - 2;
	j = (int)v < n - 1 ? (int)v : n - 2;
	fu = u - i;
	fv = v - j;
	return (1 - fv) * ((1 - fu) * g[j * n + i] + fu * g[j * n + i + 1]) +
	       fv * ((1 - fu) * g[(j + 1) * n + i] + fu * g[(j + 1) * n + i + 1]);
}

/*
 * The shading gains at @ct on a TUNING_LSC_GRID grid over the mode's frame:
 * the tuning's tables span the pixel array, the mode reads a window of it
 * (possibly binned), so each node is placed at its array position.
 */
static void make_lsc(const struct cisp_tuning *t, const struct cisp_sensor_mode *mode, double ct,
		     struct cisp_lsc_params *p)
{
	const int n = TUNING_LSC_GRID;
	struct bracket b = find_bracket(&t->lsc[0].ct, sizeof(t->lsc[0]), t->lsc_count, ct, true);
	bool array = t->lsc_array_width && t->lsc_array_height && mode && mode->width > 1 && mode->height > 1;

	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_LSC;
	p->header.size = sizeof(*p);
	p->grid_w = p->grid_h = (uint16_t)n;
	for (int c = 0; c < 4; c++) {
		const float *g0 = t->lsc[b.i0].gain[c], *g1 = t->lsc[b.i1].gain[c];

		for (int j = 0; j < n; j++) {
			for (int i = 0; i < n; i++) {
				double u = i, v = j, gain;

				if (array) {
					unsigned bin = mode->binning ? mode->binning : 1;
					double x = (double)i * (mode->width - 1) / (n - 1);
					double y = (double)j * (mode->height - 1) / (n - 1);
					/* Centre of the output pixel in array pixels. */
					double ax = mode->crop_x + (x + 0.5) * bin - 0.5;
					double ay = mode->crop_y + (y + 0.5) * bin - 0.5;

					u = ax * (n - 1) / (t->lsc_array_width - 1.0);
					v = ay * (n - 1) / (t->lsc_array_height - 1.0);
				}
				gain = lerp(table_at(g0, u, v), table_at(g1, u, v), b.f);
				p->gain[c * n * n + j * n + i] = q_u16(gain, 4096);
			}
		}
	}
}

/* The noise profile at sensor gain @gain: between entries linear; above the last, shot noise
 * grows with the gain and read noise with its square. */
static void make_noise(const struct cisp_tuning *t, double gain, struct cisp_noise_params *p)
{
	struct bracket b = find_bracket(&t->noise[0].gain, sizeof(t->noise[0]), t->noise_count, gain, false);
	const struct tuning_noise *n0 = &t->noise[b.i0], *n1 = &t->noise[b.i1];
	double ka = 1, kb = 1;

	if (b.i0 == t->noise_count - 1 && gain > n0->gain) {
		ka = gain / n0->gain;
		kb = ka * ka;
	}
	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_NOISE;
	p->header.size = sizeof(*p);
	for (int c = 0; c < 4; c++) {
		double a = ka * lerp(n0->a[c], n1->a[c], b.f) * 65536, v = kb * lerp(n0->b[c], n1->b[c], b.f);

		p->a[c] = (uint32_t)fmin(fmax(round(a), 0), 4294967295.0);
		p->b[c] = (uint32_t)fmin(fmax(round(v), 0), 4294967295.0);
	}
}

static void make_tone(const struct cisp_tuning *t, struct cisp_tone_params *p)
{
	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_TONE;
	p->header.size = sizeof(*p);
	p->transfer = t->gamma > 0 ? CISP_TRANSFER_LINEAR : CISP_TRANSFER_SRGB;
	for (int i = 0; i < CISP_TONE_POINTS; i++) {
		double x = i / 256.0;

		if (t->gamma > 0)
			x = pow(x, 1.0 / t->gamma);
		p->curve[i] = q_u16(x > 1 ? 1 : x, 65535);
	}
}

uint32_t colour_params(const struct cisp_tuning *t, const struct cisp_sensor_mode *mode, const struct awb_result *awb,
		       double total_gain, double isp_digital_gain, struct cisp_param_state *ps)
{
	uint32_t changed = 0;
	double ct = awb->colour_temperature > 0 ? awb->colour_temperature : t->awb.default_ct;
	double dgain = isp_digital_gain > 0 ? isp_digital_gain : 1.0;
	double overall = (total_gain > 0 ? total_gain : 1.0) * dgain;
	struct bracket b;
	union {
		struct cisp_blc_params blc;
		struct cisp_wb_params wb;
		struct cisp_ccm_params ccm;
		struct cisp_lsc_params lsc;
		struct cisp_noise_params noise;
		struct cisp_bnr_params bnr;
		struct cisp_cnr_params cnr;
		struct cisp_sharpen_params sharpen;
		struct cisp_tone_params tone;
	} u;

	/* Black level: codes of the mode's depth shifted to 16 bits; white is the mode's top code. */
	if (mode && mode->bits >= 8 && mode->bits <= 16) {
		unsigned shift = 16 - mode->bits;

		u.blc = ps->blc;
		for (int c = 0; c < 4; c++) {
			double black = t->black_level[c] >= 0 ? t->black_level[c] : mode->black_level;

			u.blc.black[c] = q_u16(black, (double)(1u << shift));
		}
		u.blc.white = q_u16(mode->white_level, (double)(1u << shift));
		/* The ABI wants 16384 units of range; a tuning black level cannot take that away. */
		for (int c = 0; c < 4; c++)
			if (u.blc.white < 16384 || u.blc.black[c] > u.blc.white - 16384)
				u.blc.black[c] = u.blc.white >= 16384 ? (uint16_t)(u.blc.white - 16384) : 0;
		if (update(&ps->blc, &u.blc, sizeof(u.blc)))
			changed |= CISP_BLOCK_BIT(CISP_BLOCK_BLC);
		set_enabled(ps, CISP_BLOCK_BLC, true, &changed);
	}

	/* White balance, with the ISP's share of the digital gain. */
	memset(&u.wb, 0, sizeof(u.wb));
	u.wb.header = ps->wb.header;
	u.wb.gain[CISP_CH_R] = q_u16(awb->gains[0] * dgain, 4096);
	u.wb.gain[CISP_CH_GR] = u.wb.gain[CISP_CH_GB] = q_u16(awb->gains[1] * dgain, 4096);
	u.wb.gain[CISP_CH_B] = q_u16(awb->gains[2] * dgain, 4096);
	if (update(&ps->wb, &u.wb, sizeof(u.wb)))
		changed |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	set_enabled(ps, CISP_BLOCK_WB, true, &changed);

	make_ccm(t, ct, &u.ccm);
	if (update(&ps->ccm, &u.ccm, sizeof(u.ccm)))
		changed |= CISP_BLOCK_BIT(CISP_BLOCK_CCM);
	set_enabled(ps, CISP_BLOCK_CCM, true, &changed);

	if (t->lsc_count) {
		make_lsc(t, mode, ct, &u.lsc);
		if (update(&ps->lsc, &u.lsc, sizeof(u.lsc)))
			changed |= CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	}
	set_enabled(ps, CISP_BLOCK_LSC, t->lsc_count > 0, &changed);

	/* The noise profile describes the raw data: the sensor's gain only. */
	make_noise(t, total_gain > 0 ? total_gain : 1.0, &u.noise);
	if (update(&ps->noise, &u.noise, sizeof(u.noise)))
		changed |= CISP_BLOCK_BIT(CISP_BLOCK_NOISE);

	/* Strengths follow the overall amplification, sensor and ISP. */
	b = find_bracket(&t->denoise[0].gain, sizeof(t->denoise[0]), t->denoise_count, overall, false);
	{
		const struct tuning_denoise *d0 = &t->denoise[b.i0], *d1 = &t->denoise[b.i1];
		double bnr = lerp(d0->bnr_strength, d1->bnr_strength, b.f);
		double cnr = lerp(d0->cnr_strength, d1->cnr_strength, b.f);
		double sharp = lerp(d0->sharpen_strength, d1->sharpen_strength, b.f);
		double coring = lerp(d0->sharpen_coring, d1->sharpen_coring, b.f);

		u.bnr = ps->bnr;
		u.bnr.strength = q_u16(fmin(bnr, 4.0), 256);
		/* A filter is not interpolated: the entry at or below the gain chooses it. */
		u.bnr.mode = (uint16_t)(b.f >= 1 ? d1 : d0)->bnr_mode;
		if (update(&ps->bnr, &u.bnr, sizeof(u.bnr)))
			changed |= CISP_BLOCK_BIT(CISP_BLOCK_BNR);
		set_enabled(ps, CISP_BLOCK_BNR, ps->bnr.strength > 0, &changed);

		u.cnr = ps->cnr;
		u.cnr.strength = q_u16(fmin(cnr, 16.0), 256);
		if (update(&ps->cnr, &u.cnr, sizeof(u.cnr)))
			changed |= CISP_BLOCK_BIT(CISP_BLOCK_CNR);
		set_enabled(ps, CISP_BLOCK_CNR, ps->cnr.strength > 0, &changed);

		u.sharpen = ps->sharpen;
		u.sharpen.strength = q_u16(fmin(sharp, 8.0), 256);
		u.sharpen.coring = q_u16(coring, 1);
		if (update(&ps->sharpen, &u.sharpen, sizeof(u.sharpen)))
			changed |= CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
		set_enabled(ps, CISP_BLOCK_SHARPEN, ps->sharpen.strength > 0, &changed);
	}

	/* Dynamic defect correction: hot and dead pixels every sensor has, found per frame. */
	if (ps->dpc.threshold != q_u16(t->defect_threshold, 1)) {
		ps->dpc.threshold = q_u16(t->defect_threshold, 1);
		changed |= CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	}
	set_enabled(ps, CISP_BLOCK_DPC, t->defect_threshold > 0, &changed);

	make_tone(t, &u.tone);
	if (update(&ps->tone, &u.tone, sizeof(u.tone)))
		changed |= CISP_BLOCK_BIT(CISP_BLOCK_TONE);
	set_enabled(ps, CISP_BLOCK_TONE, true, &changed);
	return changed;
}
