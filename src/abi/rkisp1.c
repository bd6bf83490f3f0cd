/* SPDX-License-Identifier: MIT */
/*
 * cisp's parameter state on the RkISP1 (rkisp1.h, docs/rkisp1.md).
 *
 * Where both sides are one-dimensional functions of a pixel value (black
 * level with white-balance gains, the tone curve), the translation runs
 * every input code the sensor can produce through the arithmetic of each
 * side, as each side's uAPI documents it, and reports the largest
 * difference. The lens shading surfaces are compared where their
 * difference is largest: at the corners of the cells of both grids laid
 * over each other (between them both surfaces are bilinear). The colour
 * matrix is bounded from its coefficients. Values are compared in 16-bit
 * units, a 12-bit sample v of the RkISP1 being 16 v as cisp unpacks it.
 * The RkISP1 holds 12-bit samples (10 bits after its gamma, gains of 10
 * fractional bits for lens shading): a difference of less than one of its
 * steps is the best any translation can do, and counts as exact.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "abi/rkisp1.h"
#include "core/error_internal.h"

/*
 * One step of the RkISP1's precision in 16-bit units: of its 12-bit samples; of its 10-bit gamma
 * output and of Q2.10 lens shading gains at full scale.
 */
#define STEP_12_BITS 16
#define STEP_10_BITS 64

const char *rkisp1_fit_name(unsigned fit)
{
	static const char *const names[] = { "off", "exact", "approximate", "outside params", "not expressible" };

	return fit < sizeof(names) / sizeof(names[0]) ? names[fit] : "?";
}

struct translation {
	const struct cisp_param_state *s;
	uint32_t width, height;
	unsigned bits;
	enum rkisp1_revision revision;
	struct rkisp1_params_cfg *out;
	struct rkisp1_report *report;
};

static bool enabled(const struct translation *t, unsigned type)
{
	return t->s->enabled & CISP_BLOCK_BIT(type);
}

static void report(struct translation *t, unsigned type, unsigned fit, uint32_t error, const char *how)
{
	t->report->block[type] = (struct rkisp1_block_report){ (uint8_t)fit, error, how };
}

/* Exact under one step of the hardware's precision, approximate up to the limit, beyond it not expressible. */
static unsigned classify(uint32_t error, uint32_t step)
{
	if (error < step)
		return RKISP1_EXACT;
	return error <= RKISP1_APPROXIMATE_LIMIT ? RKISP1_APPROXIMATE : RKISP1_NOT_EXPRESSIBLE;
}

/* Turn module @bit on (writing its configuration) or off. */
static void module(struct rkisp1_params_cfg *out, uint32_t bit, bool on)
{
	out->module_en_update |= bit;
	if (on) {
		out->module_ens |= bit;
		out->module_cfg_update |= bit;
	} else {
		out->module_ens &= ~bit;
	}
}

static uint32_t absdiff(int64_t a, int64_t b)
{
	return (uint32_t)(a > b ? a - b : b - a);
}

/* ---- black level and white-balance gains ---------------------------------- */

/* cisp: black level correction then the gain, for a 16-bit input (params.h). */
static int64_t cisp_black_gain(const struct translation *t, unsigned ch, int64_t in)
{
	int64_t v = in;

	if (enabled(t, CISP_BLOCK_BLC)) {
		int64_t black = t->s->blc.black[ch], white = t->s->blc.white, range = white - black;
		int64_t gain = (65535 * 16384 + range / 2) / range;

		if (in >= white)
			v = 65535;
		else if (in <= black)
			v = 0;
		else
			v = ((in - black) * gain + 8192) >> 14;
		v = v > 65535 ? 65535 : v;
	}
	if (enabled(t, CISP_BLOCK_WB)) {
		v = (v * t->s->wb.gain[ch] + 2048) >> 12;
		v = v > 65535 ? 65535 : v;
	}
	return v;
}

/*
 * BLS subtracts a fixed black in 12-bit units and has no rescale to the
 * white level: that rides on the AWB gains (Q2.8, 10 bits), which multiply
 * it with the white-balance gain. Both blocks are judged together.
 */
static void black_and_gains(struct translation *t)
{
	struct rkisp1_cif_isp_bls_config *bls = &t->out->others.bls_config;
	struct rkisp1_cif_isp_awb_gain_config *awb = &t->out->others.awb_gain_config;
	const unsigned step = 1u << (12 - t->bits);
	int16_t *fixed[4] = { &bls->fixed_val.r, &bls->fixed_val.gr, &bls->fixed_val.gb, &bls->fixed_val.b };
	uint16_t *gains[4] = { &awb->gain_red, &awb->gain_green_r, &awb->gain_green_b, &awb->gain_blue };
	bool any_black = false, any_gain = false;
	uint32_t error = 0;
	unsigned fit;

	memset(bls, 0, sizeof(*bls));
	for (unsigned ch = 0; ch < 4; ch++) {
		bool blc = enabled(t, CISP_BLOCK_BLC);
		int64_t black = blc ? t->s->blc.black[ch] : 0, white = blc ? t->s->blc.white : 65535;
		int64_t wb = enabled(t, CISP_BLOCK_WB) ? t->s->wb.gain[ch] : 4096;
		int64_t fix = (black + 8) >> 4, num = wb * 65535, den = 16 * (white - black);
		int64_t gain = (num + den / 2) / den;

		gain = gain > 1023 ? 1023 : gain;
		*fixed[ch] = (int16_t)fix;
		*gains[ch] = (uint16_t)gain;
		any_black |= fix != 0;
		any_gain |= gain != 256;
		for (unsigned v = 0; v < 4096; v += step) {
			int64_t b = (int64_t)v - fix, rk;
			uint32_t d;

			b = b < 0 ? 0 : b;
			rk = (gain * b + 128) >> 8;
			rk = rk > 4095 ? 4095 : rk;
			d = absdiff(16 * rk, cisp_black_gain(t, ch, (int64_t)v << 4));
			error = d > error ? d : error;
		}
	}
	module(t->out, RKISP1_CIF_ISP_MODULE_BLS, any_black);
	module(t->out, RKISP1_CIF_ISP_MODULE_AWB_GAIN, any_gain);
	fit = classify(error, STEP_12_BITS);
	report(t, CISP_BLOCK_BLC, enabled(t, CISP_BLOCK_BLC) ? fit : RKISP1_OFF, error,
	       "BLS fixed subtraction in 12-bit units; the rescale to the white level rides on the AWB gains");
	report(t, CISP_BLOCK_WB, enabled(t, CISP_BLOCK_WB) ? fit : RKISP1_OFF, error,
	       "AWB gains, Q2.8 (at most 3.996), times the black level's rescale");
}

/* ---- lens shading ------------------------------------------------------------ */

#define RK_NODES RKISP1_CIF_ISP_LSC_SAMPLES_MAX /* 17 */

/* The canonical gain of channel @ch at pixel (@x, @y): bilinear between nodes (params.h), linear past the last. */
static double cisp_lsc_gain(const struct cisp_lsc_params *p, unsigned ch, double x, double y, uint32_t w, uint32_t h)
{
	double gx = x * (p->grid_w - 1) / (w - 1), gy = y * (p->grid_h - 1) / (h - 1);
	int i = (int)gx, j = (int)gy;
	const uint16_t *g = p->gain + ch * p->grid_w * p->grid_h;

	i = i > p->grid_w - 2 ? p->grid_w - 2 : i;
	j = j > p->grid_h - 2 ? p->grid_h - 2 : j;
	gx -= i;
	gy -= j;
	return ((g[j * p->grid_w + i] * (1 - gx) + g[j * p->grid_w + i + 1] * gx) * (1 - gy) +
		(g[(j + 1) * p->grid_w + i] * (1 - gx) + g[(j + 1) * p->grid_w + i + 1] * gx) * gy) /
	       4096.0;
}

/* Node positions of the RkISP1 grid along a side of @n pixels: 8 sectors a half, the right half mirrored. */
static void rk_nodes(uint32_t n, uint16_t sizes[8], double pos[RK_NODES])
{
	uint32_t at = 0;

	for (unsigned i = 0; i < 8; i++) {
		uint32_t next = (n / 2) * (i + 1) / 8;

		sizes[i] = (uint16_t)(next - at);
		at = next;
	}
	pos[0] = 0;
	for (unsigned i = 0; i < 8; i++) {
		pos[i + 1] = pos[i] + sizes[i];
		pos[RK_NODES - 2 - i] = n - pos[i + 1];
	}
	pos[RK_NODES - 1] = n;
}

static double rk_lsc_gain(const uint16_t table[RK_NODES][RK_NODES], const double *xs, const double *ys, double x,
			  double y)
{
	int i = 0, j = 0;
	double fx, fy;

	while (i < RK_NODES - 2 && x >= xs[i + 1])
		i++;
	while (j < RK_NODES - 2 && y >= ys[j + 1])
		j++;
	fx = (x - xs[i]) / (xs[i + 1] - xs[i]);
	fy = (y - ys[j]) / (ys[j + 1] - ys[j]);
	return ((table[j][i] * (1 - fx) + table[j][i + 1] * fx) * (1 - fy) +
		(table[j + 1][i] * (1 - fx) + table[j + 1][i + 1] * fx) * fy) /
	       1024.0;
}

/* Positions where either grid has a node line along a side of @n pixels, sorted (at most 64 + 17 + 2). */
static unsigned overlay(unsigned cisp_nodes, uint32_t n, const double *rk, double *pos)
{
	unsigned count = 0;

	for (unsigned i = 0; i < cisp_nodes; i++)
		pos[count++] = (double)i * (n - 1) / (cisp_nodes - 1);
	for (unsigned i = 0; i < RK_NODES; i++)
		if (rk[i] <= n - 1)
			pos[count++] = rk[i];
	for (unsigned a = 1; a < count; a++)
		for (unsigned b = a; b > 0 && pos[b - 1] > pos[b]; b--) {
			double x = pos[b];

			pos[b] = pos[b - 1];
			pos[b - 1] = x;
		}
	return count;
}

static void lens_shading(struct translation *t)
{
	struct rkisp1_cif_isp_lsc_config *lsc = &t->out->others.lsc_config;
	const struct cisp_lsc_params *p = &t->s->lsc;
	uint16_t(*tables[4])[RK_NODES] = { lsc->r_data_tbl, lsc->gr_data_tbl, lsc->gb_data_tbl, lsc->b_data_tbl };
	double xs[RK_NODES], ys[RK_NODES], ox[CISP_LSC_MAX_GRID + RK_NODES], oy[CISP_LSC_MAX_GRID + RK_NODES];
	unsigned nx, ny;
	double worst = 0;

	if (!enabled(t, CISP_BLOCK_LSC)) {
		module(t->out, RKISP1_CIF_ISP_MODULE_LSC, false);
		report(t, CISP_BLOCK_LSC, RKISP1_OFF, 0, "LSC off");
		return;
	}
	memset(lsc, 0, sizeof(*lsc));
	rk_nodes(t->width, lsc->x_size_tbl, xs);
	rk_nodes(t->height, lsc->y_size_tbl, ys);
	for (unsigned i = 0; i < 8; i++) {
		lsc->x_grad_tbl[i] = (uint16_t)((32768 + lsc->x_size_tbl[i] / 2) / lsc->x_size_tbl[i]);
		lsc->y_grad_tbl[i] = (uint16_t)((32768 + lsc->y_size_tbl[i] / 2) / lsc->y_size_tbl[i]);
	}
	lsc->config_width = (uint16_t)t->width;
	lsc->config_height = (uint16_t)t->height;
	for (unsigned ch = 0; ch < 4; ch++)
		for (unsigned j = 0; j < RK_NODES; j++)
			for (unsigned i = 0; i < RK_NODES; i++) {
				/* The last nodes lie one pixel past the canonical grid's: its edge cells extended. */
				long v = lround(cisp_lsc_gain(p, ch, xs[i], ys[j], t->width, t->height) * 1024);

				tables[ch][j][i] = (uint16_t)(v > 4095 ? 4095 : v);
			}
	nx = overlay(p->grid_w, t->width, xs, ox);
	ny = overlay(p->grid_h, t->height, ys, oy);
	for (unsigned ch = 0; ch < 4; ch++)
		for (unsigned j = 0; j < ny; j++)
			for (unsigned i = 0; i < nx; i++) {
				double d = fabs(
					cisp_lsc_gain(p, ch, ox[i], oy[j], t->width, t->height) -
					rk_lsc_gain((const uint16_t(*)[RK_NODES])tables[ch], xs, ys, ox[i], oy[j]));

				worst = d > worst ? d : worst;
			}
	module(t->out, RKISP1_CIF_ISP_MODULE_LSC, true);
	report(t, CISP_BLOCK_LSC, classify((uint32_t)lround(worst * 65535), STEP_10_BITS),
	       (uint32_t)lround(worst * 65535),
	       "17x17 nodes on 8 sectors a half, gains Q2.10 (below 4.0): the canonical surface resampled");
}

/* ---- colour correction matrix ------------------------------------------------ */

static void colour_matrix(struct translation *t)
{
	struct rkisp1_cif_isp_ctk_config *ctk = &t->out->others.ctk_config;
	const struct cisp_ccm_params *p = &t->s->ccm;
	uint32_t bound = 0;

	if (!enabled(t, CISP_BLOCK_CCM)) {
		module(t->out, RKISP1_CIF_ISP_MODULE_CTK, false);
		report(t, CISP_BLOCK_CCM, RKISP1_OFF, 0, "CTK off");
		return;
	}
	for (unsigned i = 0; i < 3; i++) {
		double row = 0;
		long o = lround(p->offset[i] / 16.0);

		for (unsigned j = 0; j < 3; j++) {
			long c = lround(p->coeff[3 * i + j] / 32.0);

			c = c > 1023 ? 1023 : c < -1024 ? -1024 : c;
			ctk->coeff[i][j] = (uint16_t)(c & 0x7ff);
			row += fabs(p->coeff[3 * i + j] / 4096.0 - c / 128.0) * 65535;
		}
		o = o > 2047 ? 2047 : o < -2048 ? -2048 : o;
		ctk->ct_offset[i] = (uint16_t)(o & 0xfff);
		/* Each side rounds its sum once: half a 12-bit step. */
		row += fabs(p->offset[i] - 16.0 * o) + STEP_12_BITS / 2;
		bound = (uint32_t)ceil(row) > bound ? (uint32_t)ceil(row) : bound;
	}
	module(t->out, RKISP1_CIF_ISP_MODULE_CTK, true);
	report(t, CISP_BLOCK_CCM, classify(bound, STEP_12_BITS), bound,
	       "CTK: coefficients Q4.7 (-8..7.99), offsets in 12-bit units; error bounded from the coefficients");
}

/* ---- tone curve and transfer function ------------------------------------------ */

/* The canonical curve and transfer at 16-bit input @v (0..65536), as docs/stages/tone.md defines them. */
static double cisp_tone(const struct cisp_tone_params *p, uint32_t v)
{
	uint32_t i = v >> 8, f = v & 255;
	double lin = i >= 256 ? p->curve[256] : (p->curve[i] * (256.0 - f) + p->curve[i + 1] * (double)f + 255) / 256;
	double l = floor(lin) / 65535, e;

	switch (p->transfer) {
	case CISP_TRANSFER_SRGB:
		e = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055;
		break;
	case CISP_TRANSFER_BT709:
		e = l < 0.018 ? 4.5 * l : 1.099 * pow(l, 0.45) - 0.099;
		break;
	default:
		e = l;
		break;
	}
	return 65535 * e;
}

static void tone(struct translation *t)
{
	/* V10's logarithmic x spacing: 16 segments over the 12-bit input (as libcamera's RkISP1 IPA uses it). */
	static const uint16_t segment[16] = {
		64, 64, 64, 64, 128, 128, 128, 128, 256, 256, 256, 512, 512, 512, 512, 512
	};
	struct rkisp1_cif_isp_goc_config *goc = &t->out->others.goc_config;
	const unsigned step = 1u << (12 - t->bits);
	uint32_t x[17], error = 0;

	if (!enabled(t, CISP_BLOCK_TONE)) {
		module(t->out, RKISP1_CIF_ISP_MODULE_GOC, false);
		report(t, CISP_BLOCK_TONE, RKISP1_OFF, 0, "GOC off");
		return;
	}
	if (t->revision != RKISP1_REV_V10) {
		report(t, CISP_BLOCK_TONE, RKISP1_NOT_EXPRESSIBLE, 0,
		       "the x spacing of V12's 34 gamma samples is not documented in the uAPI");
		return;
	}
	memset(goc, 0, sizeof(*goc));
	goc->mode = RKISP1_CIF_ISP_GOC_MODE_LOGARITHMIC;
	x[0] = 0;
	for (unsigned k = 0; k < 16; k++)
		x[k + 1] = x[k] + segment[k];
	for (unsigned k = 0; k < 17; k++)
		goc->gamma_y[k] = (uint16_t)lround(cisp_tone(&t->s->tone, x[k] << 4) * 1023 / 65535);
	for (unsigned v = 0, k = 0; v < 4096; v += step) {
		uint32_t d;
		double rk;

		while (v >= x[k + 1])
			k++;
		rk = goc->gamma_y[k] + (double)(goc->gamma_y[k + 1] - goc->gamma_y[k]) * (v - x[k]) / segment[k];
		rk = floor(rk + 0.5) * 65535 / 1023;
		d = absdiff(lround(rk), lround(cisp_tone(&t->s->tone, v << 4)));
		error = d > error ? d : error;
	}
	module(t->out, RKISP1_CIF_ISP_MODULE_GOC, true);
	report(t, CISP_BLOCK_TONE, classify(error, STEP_10_BITS), error,
	       "GOC: 17 knots on the logarithmic spacing, 10-bit output: curve and transfer sampled");
}

/* ---- statistics ---------------------------------------------------------------- */

static void window(struct rkisp1_cif_isp_window *w, uint32_t x, uint32_t y, uint32_t width, uint32_t height)
{
	*w = (struct rkisp1_cif_isp_window){ (uint16_t)x, (uint16_t)y, (uint16_t)width, (uint16_t)height };
}

/*
 * The RkISP1 measures other things: a 5x5 (V10) or 9x9 (V12) grid of luma
 * means, one AWB window, a 16- or 32-bin histogram, 3 AF windows. Its
 * measurements are set over the whole frame (and the first 3 AF windows),
 * so that a 3A loop gets the nearest it can.
 */
static void statistics(struct translation *t)
{
	struct rkisp1_cif_isp_isp_meas_cfg *m = &t->out->meas;
	const struct cisp_stats_params *p = &t->s->stats;
	const uint32_t bits = RKISP1_CIF_ISP_MODULE_AEC | RKISP1_CIF_ISP_MODULE_AWB | RKISP1_CIF_ISP_MODULE_HST |
			      RKISP1_CIF_ISP_MODULE_AFC;

	if (!enabled(t, CISP_BLOCK_STATS)) {
		module(t->out, bits, false);
		report(t, CISP_BLOCK_STATS, RKISP1_OFF, 0, "measurements off");
		return;
	}
	memset(m, 0, sizeof(*m));
	m->aec_config.mode = RKISP1_CIF_ISP_EXP_MEASURING_MODE_1;
	window(&m->aec_config.meas_window, 0, 0, t->width, t->height);
	m->awb_meas_config.awb_mode = RKISP1_CIF_ISP_AWB_MODE_RGB;
	window(&m->awb_meas_config.awb_wnd, 0, 0, t->width, t->height);
	m->awb_meas_config.max_y = (uint8_t)(p->saturation >> 8);
	m->hst_config.mode = RKISP1_CIF_ISP_HISTOGRAM_MODE_Y_HISTOGRAM;
	m->hst_config.histogram_predivider = 3;
	window(&m->hst_config.meas_window, 0, 0, t->width, t->height);
	memset(m->hst_config.hist_weight, 1, sizeof(m->hst_config.hist_weight));
	m->afc_config.num_afm_win =
		(uint8_t)(p->af_count < RKISP1_CIF_ISP_AFM_MAX_WINDOWS ? p->af_count : RKISP1_CIF_ISP_AFM_MAX_WINDOWS);
	for (unsigned i = 0; i < m->afc_config.num_afm_win; i++)
		window(&m->afc_config.afm_win[i], p->af[i].x, p->af[i].y, p->af[i].width, p->af[i].height);
	module(t->out, bits, true);
	report(t, CISP_BLOCK_STATS, RKISP1_NOT_EXPRESSIBLE, 0,
	       "different measurements: luma grid, one AWB window, 16/32-bin histogram, 3 AF windows, no row means");
}

/* ---- the rest ---------------------------------------------------------------------- */

/* A canonical stage the RkISP1 has no equivalent of (or a different algorithm for), when it changes anything. */
static void missing(struct translation *t, unsigned type, bool effect, const char *how)
{
	report(t, type,
	       effect && (enabled(t, type) || type == CISP_BLOCK_DEMOSAIC) ? RKISP1_NOT_EXPRESSIBLE : RKISP1_OFF, 0,
	       how);
}

int rkisp1_translate(const struct cisp_param_state *state, uint32_t width, uint32_t height, unsigned bits,
		     enum rkisp1_revision revision, struct rkisp1_params_cfg *out, struct rkisp1_report *r)
{
	struct translation t = { state, width, height, bits, revision, out, r };
	const struct cisp_param_state *s = state;

	if (bits < 8 || bits > 12)
		return cisp_error(-EINVAL, "rkisp1: %u-bit samples; the RkISP1 takes 8 to 12 bits", bits);
	if (width < 32 || height < 32 || width > 4032 || height > 3024 || width % 16 || height % 16)
		return cisp_error(-EINVAL, "rkisp1: %ux%u: the translation takes 32x32..4032x3024 in multiples of 16",
				  width, height);
	if (revision != RKISP1_REV_V10 && revision != RKISP1_REV_V12)
		return cisp_error(-EINVAL, "rkisp1: revision %d is not V10 or V12", revision);
	memset(r, 0, sizeof(*r));
	black_and_gains(&t);
	lens_shading(&t);
	colour_matrix(&t);
	tone(&t);
	statistics(&t);
	missing(&t, CISP_BLOCK_DPC, s->dpc.count || s->dpc.threshold,
		"DPCC detects by rank and gradient rules, not a threshold, and the uAPI has no defect table");
	missing(&t, CISP_BLOCK_BNR, s->bnr.strength, "DPF is another filter (spatial and noise-level weights)");
	missing(&t, CISP_BLOCK_DEMOSAIC, true, "BDM is the hardware's own demosaic, with one threshold");
	missing(&t, CISP_BLOCK_LUT3D, true, "no 3D LUT");
	missing(&t, CISP_BLOCK_SHARPEN, s->sharpen.strength, "FLT sharpens by gradient levels, another filter");
	missing(&t, CISP_BLOCK_CNR, s->cnr.strength, "no chroma denoise in the uAPI");
	report(&t, CISP_BLOCK_NOISE, RKISP1_OFF, 0, "a profile, not a stage");
	if (s->csc.matrix == CISP_CSC_BT601)
		report(&t, CISP_BLOCK_CSC, RKISP1_OUTSIDE_PARAMS, 0,
		       "BT.601, full or limited range: the quantization of the ISP's source pad format");
	else
		report(&t, CISP_BLOCK_CSC, RKISP1_NOT_EXPRESSIBLE, 0, "Linux 6.1's RkISP1 converts with BT.601 only");
	report(&t, CISP_BLOCK_CROP, s->crop_enabled ? RKISP1_OUTSIDE_PARAMS : RKISP1_OFF, 0,
	       "the ISP's crop and each resizer's selection rectangles");
	return 0;
}
