/* SPDX-License-Identifier: MIT */
/*
 * The banded executor: the frame is cut into parts of whole rows, one per
 * worker; a worker walks down its part in bands of band_rows output rows
 * and, for each band, runs every stage on just the rows the next stages
 * need, into small per-worker row buffers that stay in cache. Rows a buffer
 * still holds from the previous band are kept (slid to the buffer's start),
 * so a stage computes each row once per part; only the first band of a part
 * computes the rows above it that the stages' vertical support reaches.
 * A worker that finishes its part early takes the lower half of the part
 * with the most rows left, so the workers finish together on a busy machine
 * without cutting the frame into many parts (each costs those rows above).
 *
 * Each stage computes its rows with the same arithmetic as the reference
 * (through the dsp.h row functions, or the stage's own reference rows), and
 * reflections at the frame edges read real frame rows inside the ranges
 * computed here, so the output is the same for any band size, task split or
 * thread count. Statistics are integer sums per worker, merged at the end.
 *
 * Work over the whole frame splits the frame into chains that hand over
 * through frame-sized planes (enum from, enum to): a whole-frame demosaic,
 * vendor stages at their taps, outputs that crop or scale. Otherwise there
 * is no frame-sized memory: the band buffers are made on the first frame
 * (and again only when a parameter change makes a stage's support taller).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "isp/bnr.h"
#include "isp/bnr_quality.h"
#include "isp/ccm.h"
#include "isp/cnr.h"
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/lsc.h"
#include "isp/lut3d.h"
#include "isp/merge.h"
#include "isp/pack.h"
#include "isp/pipeline_internal.h"
#include "isp/sharpen.h"
#include "isp/statistics.h"
#include "isp/tone.h"
#include "isp/unpack.h"
#include "vendor/vendor_internal.h"

/*
 * Row buffers, each written by one stage. B_SHARP has no memory of its own:
 * the sharpening changes B_RGB's rows in place (rows_of()), once their luma
 * and the luma below them are made, and counts them in its own window's done.
 */
enum buf { B_RAW, B_DPC, B_GUIDE, B_LSC, B_WB, B_GREEN, B_RGB, B_LUMA, B_SHARP, B_YCC, B_CNRH, B_CNR, B_COUNT };
static const int buf_planes[B_COUNT] = { 1, 1, 1, 1, 1, 1, 3, 1, 3, 3, 3, 3 };

enum stage {
	S_RAW, S_FROMBAYER, S_DPC, S_BAYERFRAME, S_GUIDE, S_LSC, S_STATS, S_WB, S_TOFRAME, S_GREEN, S_RGB, S_RGBFRAME,
	S_LUMA, S_SHARP, S_YCC, S_CNRH, S_CNR, S_OUT, S_COUNT
};

/*
 * Where a chain's rows come from and where they go. A frame runs as one
 * chain (input to outputs), or as several with whole-frame work between
 * them, each handing over through frame-sized planes: a vendor stage at the
 * Bayer tap (bayer[1], after DPC), the quality demosaic (bayer[0] to rgb[0])
 * and a vendor stage at the RGB tap (rgb[0], after CCM, tone and 3D LUT).
 */
enum from { FROM_INPUT, FROM_BAYER_FRAME, FROM_DEMOSAIC_FRAME, FROM_RGB_FRAME };
enum to { TO_BAYER_FRAME, TO_DEMOSAIC_FRAME, TO_RGB_FRAME, TO_OUTPUTS };

/* Rows of room in a buffer past its largest window, in bands: fewer moves of the rows it keeps. */
#define SLACK_BANDS 1

struct input {
	int buf, radius;
};

/* One stage of this frame's chain: it writes buffer @out (-1: the outputs or the statistics). */
struct node {
	enum stage stage;
	int out;
	int n_in;
	struct input in[2];
};

struct chain {
	struct node node[S_COUNT];
	int count;
	enum from from;
	enum to to;
	int rgb_src, yuv_src; /* buffers the outputs pack from (-1: none) */
	bool sharp_ycc;       /* the sharpening converts its rows to YCbCr in place (no RGB output needs them) */
};

/* A buffer's window: rows [lo, done) are held, from row lo at the start of the memory. */
struct window {
	uint16_t *mem[3];
	int capacity; /* rows */
	int lo, done;
};

struct worker {
	struct window win[B_COUNT];
	int32_t *tmp;       /* sharpening scratch */
	uint16_t *bracket;  /* a bracket's next frame, one row */
	uint16_t *mem;
};

/* Rows [next, end) of a worker's part of the frame, not yet taken. */
struct part {
	int next, end;
};

struct cisp_fused {
	int workers;
	int width;
	int capacity[B_COUNT]; /* rows per buffer the memory was made for */
	size_t bytes;
	struct part *part; /* one per worker, after w[] */
	struct worker w[];
};

struct job {
	struct cisp_isp *isp;
	const struct chain *chain;
	const struct cisp_image *const *input; /* one frame, or a bracket in order[] (longest exposure first) */
	unsigned count;
	unsigned order[CISP_BRACKET_MAX_FRAMES];
	struct cisp_merge_coeffs merge[CISP_BRACKET_MAX_FRAMES]; /* the step into frame k, k >= 1 */
	struct cisp_image *const *output;
	int band;
	bool stats;
	pthread_mutex_t lock; /* guards part[] */
	struct part *part;
	int parts; /* one per worker */
	/* Frame-sized planes that keep the final RGB / YCbCr rows for the outputs made from them (or NULL). */
	const struct rgb16 *rgb_frame, *yuv_frame;
	bool via_frame[CISP_MAX_OUTPUTS]; /* output i is made from them after the bands */
};

/* ---- the chain of this frame ---- */

static void add(struct chain *c, enum stage st, int out, int b0, int r0, int b1, int r1)
{
	struct node *n = &c->node[c->count++];

	n->stage = st;
	n->out = out;
	n->n_in = 0;
	if (b0 >= 0)
		n->in[n->n_in++] = (struct input){ b0, r0 };
	if (b1 >= 0)
		n->in[n->n_in++] = (struct input){ b1, r1 };
}

static bool block_on(const struct cisp_isp *isp, unsigned block)
{
	return isp->state.enabled & CISP_BLOCK_BIT(block);
}

/* The stages of one chain, from @from to @to; statistics where lens shading is, when @stats. */
static void build_chain(const struct cisp_isp *isp, bool stats, enum from from, enum to to, struct chain *c)
{
	bool any_yuv = false, any_rgb = false;
	int cur, rgb;

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		if (isp->out[i].used) {
			any_yuv |= isp->out[i].yuv;
			any_rgb |= !isp->out[i].yuv;
		}
	}
	c->count = 0;
	c->from = from;
	c->to = to;
	if (from == FROM_INPUT || from == FROM_BAYER_FRAME) {
		if (from == FROM_INPUT) {
			add(c, S_RAW, B_RAW, -1, 0, -1, 0);
			cur = B_RAW;
			if (block_on(isp, CISP_BLOCK_DPC)) {
				add(c, S_DPC, B_DPC, cur, 2, -1, 0);
				cur = B_DPC;
			}
			if (to == TO_BAYER_FRAME) {
				add(c, S_BAYERFRAME, -1, cur, 0, -1, 0);
				return;
			}
		} else {
			add(c, S_FROMBAYER, B_DPC, -1, 0, -1, 0);
			cur = B_DPC;
		}
		/* Bayer denoise (its guide a stage of its own) or a copy, and lens shading, in one stage. */
		if (block_on(isp, CISP_BLOCK_BNR) && cisp_bnr_mode(isp->bnr) == CISP_BNR_QUALITY) {
			/* The quality filter reads its input rows directly. */
			add(c, S_LSC, B_LSC, cur, cisp_bnr_radius(isp->bnr), -1, 0);
		} else if (block_on(isp, CISP_BLOCK_BNR)) {
			add(c, S_GUIDE, B_GUIDE, cur, 1, -1, 0);
			add(c, S_LSC, B_LSC, cur, 2, B_GUIDE, 2);
		} else {
			add(c, S_LSC, B_LSC, cur, 0, -1, 0);
		}
		if (stats)
			add(c, S_STATS, -1, B_LSC, 2, -1, 0);
		if (to == TO_DEMOSAIC_FRAME) {
			/* White balance straight into the frame-sized plane. */
			add(c, S_TOFRAME, -1, B_LSC, 0, -1, 0);
			return;
		}
		add(c, S_WB, B_WB, B_LSC, 0, -1, 0);
		add(c, S_GREEN, B_GREEN, B_WB, 2, -1, 0);
		/* Red and blue, then CCM, tone and 3D LUT on the row. */
		add(c, S_RGB, B_RGB, B_WB, 1, B_GREEN, 1);
	} else {
		add(c, S_RGB, B_RGB, -1, 0, -1, 0);
	}
	if (to == TO_RGB_FRAME) {
		add(c, S_RGBFRAME, -1, B_RGB, 0, -1, 0);
		return;
	}
	rgb = B_RGB;
	if (block_on(isp, CISP_BLOCK_SHARPEN)) {
		add(c, S_LUMA, B_LUMA, B_RGB, 0, -1, 0);
		add(c, S_SHARP, B_SHARP, B_LUMA, CISP_SHARPEN_RADIUS, B_RGB, 0);
		rgb = B_SHARP;
	}
	c->rgb_src = any_rgb ? rgb : -1;
	c->yuv_src = -1;
	c->sharp_ycc = false;
	if (any_yuv) {
		int ycc = B_YCC;

		/* YCbCr while the sharpened row is in cache, unless an RGB output packs from it. */
		if (rgb == B_SHARP && !any_rgb) {
			c->sharp_ycc = true;
			ycc = B_SHARP;
		} else {
			add(c, S_YCC, B_YCC, rgb, 0, -1, 0);
		}
		c->yuv_src = ycc;
		if (block_on(isp, CISP_BLOCK_CNR)) {
			/* Separable: the horizontal pass per row, the vertical one over its rows. */
			add(c, S_CNRH, B_CNRH, ycc, 0, -1, 0);
			add(c, S_CNR, B_CNR, B_CNRH, cisp_cnr_radius(isp->cnr), -1, 0);
			c->yuv_src = B_CNR;
		}
	}
	add(c, S_OUT, -1, c->rgb_src, 0, c->yuv_src, 0);
}

/*
 * The rows each buffer must hold for output rows [y0, y1): every reader's
 * rows widened by its radius, within the frame (reflections read inside).
 */
static void needs(const struct chain *c, int y0, int y1, int h, int lo[B_COUNT], int hi[B_COUNT])
{
	for (int b = 0; b < B_COUNT; b++)
		lo[b] = hi[b] = 0;
	for (int k = c->count - 1; k >= 0; k--) {
		const struct node *n = &c->node[k];
		int a = n->out < 0 ? y0 : lo[n->out], e = n->out < 0 ? y1 : hi[n->out];

		if (a >= e)
			continue;
		for (int i = 0; i < n->n_in; i++) {
			const struct input *in = &n->in[i];
			int l = a - in->radius < 0 ? 0 : a - in->radius, r = e + in->radius > h ? h : e + in->radius;

			if (lo[in->buf] >= hi[in->buf]) {
				lo[in->buf] = l;
				hi[in->buf] = r;
			} else {
				lo[in->buf] = l < lo[in->buf] ? l : lo[in->buf];
				hi[in->buf] = r > hi[in->buf] ? r : hi[in->buf];
			}
		}
	}
}

/* ---- buffers ---- */

static struct plane16 plane_of(const struct window *w, int c, int width, int height)
{
	struct plane16 p = { w->mem[c], width, w->lo, width, height };

	return p;
}

static struct rgb16 rgb_of(const struct window *w, int width, int height)
{
	struct rgb16 r;

	for (int c = 0; c < 3; c++)
		r.c[c] = plane_of(w, c, width, height);
	return r;
}

/* The window that holds buffer @b's rows: B_RGB's for B_SHARP. */
static const struct window *rows_of(const struct worker *wk, int b)
{
	return &wk->win[b == B_SHARP ? B_RGB : b];
}

/*
 * Make room for rows [lo, hi): keep the window while they fit, else move the
 * rows it holds from @lo on to the start (the memory has room for a few bands
 * more than a window, so this happens every few bands).
 */
static void slide(struct window *w, int planes, int width, int lo, int hi)
{
	if (w->done <= lo || w->done <= w->lo) {
		w->lo = w->done = lo;
		return;
	}
	if (hi - w->lo > w->capacity) {
		for (int c = 0; c < planes; c++)
			memmove(w->mem[c], w->mem[c] + (size_t)(lo - w->lo) * width,
				(size_t)(w->done - lo) * width * sizeof(uint16_t));
		w->lo = lo;
	}
}

void cisp_isp_fused_free(struct cisp_isp *isp)
{
	if (isp->fx) {
		for (int i = 0; i < isp->fx->workers; i++)
			free(isp->fx->w[i].mem);
		free(isp->fx);
		isp->fx = NULL;
	}
	cisp_isp_fused_stats_changed(isp);
}

void cisp_isp_fused_stats_changed(struct cisp_isp *isp)
{
	for (unsigned i = 0; i < isp->acc_count; i++)
		cisp_stats_acc_free(isp->acc[i]);
	free(isp->acc);
	isp->acc = NULL;
	isp->acc_count = 0;
}

/* Buffers for @workers workers and rows @rows per buffer; kept while they are large enough. */
static int ensure_buffers(struct cisp_isp *isp, int workers, const int rows[B_COUNT])
{
	struct cisp_fused *fx = isp->fx;
	const int width = (int)isp->config.width;
	size_t per = 0;
	bool fits = fx && fx->workers >= workers;

	for (int b = 0; fits && b < B_COUNT; b++)
		fits = rows[b] <= fx->capacity[b];
	if (fits)
		return 0;
	cisp_isp_fused_free(isp);
	fx = calloc(1, sizeof(*fx) + (size_t)workers * (sizeof(struct worker) + sizeof(struct part)));
	if (!fx)
		return cisp_error(-ENOMEM, "out of memory for the band buffers");
	fx->part = (struct part *)(void *)&fx->w[workers];
	fx->workers = workers;
	fx->width = width;
	for (int b = 0; b < B_COUNT; b++) {
		fx->capacity[b] = rows[b];
		per += (size_t)rows[b] * buf_planes[b] * width;
	}
	/* The sharpening scratch (width + 4 int32 = 2 width + 8), a bracket row. */
	per += 3 * (size_t)width + 8;
	fx->bytes = sizeof(*fx) + workers * (sizeof(struct worker) + sizeof(struct part) + per * sizeof(uint16_t));
	isp->fx = fx;
	for (int i = 0; i < workers; i++) {
		struct worker *w = &fx->w[i];
		uint16_t *p = malloc(per * sizeof(uint16_t));

		if (!p) {
			cisp_isp_fused_free(isp);
			return cisp_error(-ENOMEM, "out of memory for the band buffers");
		}
		w->mem = p;
		for (int b = 0; b < B_COUNT; b++) {
			w->win[b].capacity = rows[b];
			for (int c = 0; c < buf_planes[b]; c++) {
				w->win[b].mem[c] = p;
				p += (size_t)rows[b] * width;
			}
		}
		w->tmp = (int32_t *)(void *)p;
		w->bracket = p + 2 * (size_t)width + 8;
	}
	return 0;
}

/* ---- stages ---- */

/* Rows [y0, y1) of the stage's buffer. */
/* An output that shows a crop of the frame or another size: made from frame-sized planes after the bands. */
static bool via_frame(const struct cisp_isp *isp, const struct output_state *o)
{
	return o->scaler || o->crop_x || o->crop_y || o->crop_w != (int)isp->config.width ||
	       o->crop_h != (int)isp->config.height;
}

/* Rows [y0, y1) of three planes into three others (between band buffers and frame-sized planes). */
static void copy_rows(const struct rgb16 *dst, const struct rgb16 *src, int w, int y0, int y1)
{
	for (int c = 0; c < 3; c++)
		for (int y = y0; y < y1; y++)
			memcpy(plane_row(&dst->c[c], y), plane_row(&src->c[c], y), (size_t)w * sizeof(uint16_t));
}

/* Row @y of a raw frame in the input format @f, unpacked to 16 bits and black-level corrected. */
static void raw_row(const struct cisp_isp *isp, const struct cisp_format_info *f, const struct cisp_image *img, int y,
		    uint16_t *row)
{
	const struct cisp_dsp *d = isp->dsp;
	const int w = (int)isp->config.width;
	const uint8_t *src = img->plane[0].data + (size_t)y * img->plane[0].stride;

	if (!f->packed && f->bits > 8) {
		d->unpack16_row(src, row, w, (int)f->bits);
	} else if (!f->packed && f->bits == 8 && f->kind == CISP_KIND_BAYER) {
		d->unpack8_row(src, row, w);
	} else {
		struct plane16 one = { row, w, y, w, (int)isp->config.height };

		cisp_unpack_rows(img, &one, y, y + 1);
	}
	if (block_on(isp, CISP_BLOCK_BLC))
		d->blc_row(row, row, w, &isp->blc.black[(y & 1) * 2], &isp->blc.gain[(y & 1) * 2], isp->blc.white);
}

static void run_stage(const struct job *j, const struct node *n, struct worker *wk, unsigned worker, int y0, int y1)
{
	struct cisp_isp *isp = j->isp;
	const struct cisp_param_state *s = &isp->state;
	const struct cisp_dsp *d = isp->dsp;
	const int w = (int)isp->config.width, h = (int)isp->config.height;
	struct plane16 in = n->n_in ? plane_of(rows_of(wk, n->in[0].buf), 0, w, h) : (struct plane16){ 0 };
	struct plane16 out = n->out >= 0 ? plane_of(rows_of(wk, n->out), 0, w, h) : (struct plane16){ 0 };

	switch (n->stage) {
	case S_RAW: {
		/* Every frame of a bracket has the configured input format (checked before). */
		const struct cisp_format_info *f = cisp_format_info(isp->config.input_format);

		for (int y = y0; y < y1; y++) {
			raw_row(isp, f, j->input[j->order[0]], y, plane_row(&out, y));
			/* A bracket: each shorter exposure merged in turn, as the reference does over whole frames. */
			for (unsigned k = 1; k < j->count; k++) {
				struct plane16 acc = { plane_row(&out, y), w, y, w, h }, next = { wk->bracket, w, y, w, h };

				raw_row(isp, f, j->input[j->order[k]], y, wk->bracket);
				cisp_merge_rows(&j->merge[k], &acc, &next, &acc, y, y + 1);
			}
		}
		break;
	}
	case S_DPC: {
		unsigned k = cisp_dpc_first_static(&isp->dpc, y0);

		for (int y = y0; y < y1; y++) {
			const uint16_t *up = plane_row(&in, cisp_dpc_mirror(y - 2, h)), *mid = plane_row(&in, y);
			const uint16_t *dn = plane_row(&in, cisp_dpc_mirror(y + 2, h));
			uint16_t *o = plane_row(&out, y);

			if (isp->dpc.threshold)
				d->dpc_row(up, mid, dn, o, w, isp->dpc.threshold);
			else
				memcpy(o, mid, (size_t)w * sizeof(*o));
			cisp_dpc_static_row(&isp->dpc, &k, y, up, mid, dn, o, w);
		}
		break;
	}
	case S_FROMBAYER:
		for (int y = y0; y < y1; y++)
			memcpy(plane_row(&out, y), plane_row(&isp->bayer[1], y), (size_t)w * sizeof(uint16_t));
		break;
	case S_BAYERFRAME:
		for (int y = y0; y < y1; y++)
			memcpy(plane_row(&isp->bayer[1], y), plane_row(&in, y), (size_t)w * sizeof(uint16_t));
		break;
	case S_RGBFRAME: {
		struct rgb16 rgb = rgb_of(&wk->win[B_RGB], w, h);

		copy_rows(&isp->rgb[0], &rgb, w, y0, y1);
		break;
	}
	case S_GUIDE:
		for (int y = y0; y < y1; y++)
			d->bnr_guide_row(plane_row(&in, mirror(y - 1, h)), plane_row(&in, y), plane_row(&in, mirror(y + 1, h)),
					 plane_row(&out, y), w);
		break;
	case S_LSC:
		if (block_on(isp, CISP_BLOCK_BNR) && cisp_bnr_mode(isp->bnr) == CISP_BNR_QUALITY) {
			const struct cisp_bnr_quality *bq = cisp_bnr_quality_params(isp->bnr);

			if (bq)
				cisp_bnr_quality_rows_dsp(d, bq, &in, &out, y0, y1);
			else
				cisp_bnr_rows(isp->bnr, &in, &out, y0, y1);
		} else if (block_on(isp, CISP_BLOCK_BNR)) {
			struct plane16 guide = plane_of(&wk->win[B_GUIDE], 0, w, h);

			for (int y = y0; y < y1; y++) {
				const uint16_t *r[5], *g[5];
				struct cisp_bnr_row_tables tb;

				for (int k = 0; k < 5; k++) {
					r[k] = plane_row(&in, mirror(y + k - 2, h));
					g[k] = plane_row(&guide, mirror(y + k - 2, h));
				}
				cisp_bnr_tables(isp->bnr, y, &tb);
				d->bnr_row(r, g, plane_row(&out, y), w, &tb);
			}
		} else
			for (int y = y0; y < y1; y++)
				memcpy(plane_row(&out, y), plane_row(&in, y), (size_t)w * sizeof(uint16_t));
		if (block_on(isp, CISP_BLOCK_LSC)) {
			for (int y = y0; y < y1; y++) {
				uint16_t *row = plane_row(&out, y);
				struct cisp_lsc_row gains;

				cisp_lsc_row_gains(isp->lsc, y, &gains);
				d->lsc_row(row, row, w, &gains);
			}
		}
		break;
	case S_STATS:
		cisp_stats_acc_rows_with(isp->acc[worker], &in, y0, y1, d->stats_cells, d->stats_run_sums);
		break;
	case S_WB:
		for (int y = y0; y < y1; y++) {
			if (block_on(isp, CISP_BLOCK_WB))
				d->wb_row(plane_row(&in, y), plane_row(&out, y), w, &isp->wb.gain[(y & 1) * 2]);
			else
				memcpy(plane_row(&out, y), plane_row(&in, y), (size_t)w * sizeof(uint16_t));
		}
		break;
	case S_TOFRAME:
		for (int y = y0; y < y1; y++) {
			uint16_t *f = plane_row(&isp->bayer[0], y);

			if (block_on(isp, CISP_BLOCK_WB))
				d->wb_row(plane_row(&in, y), f, w, &isp->wb.gain[(y & 1) * 2]);
			else
				memcpy(f, plane_row(&in, y), (size_t)w * sizeof(uint16_t));
		}
		break;
	case S_GREEN:
		for (int y = y0; y < y1; y++) {
			const uint16_t *r[5];

			for (int k = 0; k < 5; k++)
				r[k] = plane_row(&in, mirror(y + k - 2, h));
			d->green_row(r, plane_row(&out, y), w, cisp_demosaic_first_colour(isp->cfa, y));
		}
		break;
	case S_RGB: {
		struct plane16 green = plane_of(&wk->win[B_GREEN], 0, w, h);
		struct rgb16 rgb = rgb_of(&wk->win[B_RGB], w, h);

		if (j->chain->from == FROM_RGB_FRAME) {
			/* Rows after the RGB tap's vendor stages: colour, tone and 3D LUT are done. */
			copy_rows(&rgb, &isp->rgb[0], w, y0, y1);
			break;
		}
		for (int y = y0; y < y1; y++) {
			const uint16_t *b[3], *g[3];
			uint16_t *o[3] = { plane_row(&rgb.c[0], y), plane_row(&rgb.c[1], y), plane_row(&rgb.c[2], y) };
			int c = cisp_demosaic_red_first(isp->cfa, y) ? 0 : 2;

			if (j->chain->from == FROM_DEMOSAIC_FRAME) {
				const uint16_t *const f[3] = { plane_row(&isp->rgb[0].c[0], y), plane_row(&isp->rgb[0].c[1], y),
							       plane_row(&isp->rgb[0].c[2], y) };

				/* The colour matrix reads the frame's rows: no copy first. */
				if (block_on(isp, CISP_BLOCK_CCM))
					d->ccm_row(s->ccm.coeff, s->ccm.offset, f, o, w);
				else
					for (int k = 0; k < 3; k++)
						memcpy(o[k], f[k], (size_t)w * sizeof(uint16_t));
			} else {
				for (int k = 0; k < 3; k++) {
					b[k] = plane_row(&in, mirror(y + k - 1, h));
					g[k] = plane_row(&green, mirror(y + k - 1, h));
				}
				const uint16_t *ci[3] = { o[0], g[1], o[2] };

				d->rb_row(b, g, o[c], o[2 - c], w, cisp_demosaic_first_colour(isp->cfa, y));
				/* The colour matrix reads green from its own row: no copy first. */
				if (block_on(isp, CISP_BLOCK_CCM))
					d->ccm_row(s->ccm.coeff, s->ccm.offset, ci, o, w);
				else
					memcpy(o[1], g[1], (size_t)w * sizeof(uint16_t));
			}
			if (block_on(isp, CISP_BLOCK_TONE))
				for (int k = 0; k < 3; k++)
					d->tone_row(isp->tone, o[k], o[k], w);
		}
		if (block_on(isp, CISP_BLOCK_LUT3D))
			cisp_lut3d_rows(&s->lut3d, &rgb, &rgb, y0, y1);
		break;
	}
	case S_LUMA: {
		struct rgb16 rgb = rgb_of(&wk->win[B_RGB], w, h);

		for (int y = y0; y < y1; y++) {
			const uint16_t *i[3] = { plane_row(&rgb.c[0], y), plane_row(&rgb.c[1], y), plane_row(&rgb.c[2], y) };

			d->luma_row(i, plane_row(&out, y), w);
		}
		break;
	}
	case S_SHARP: {
		struct rgb16 rgb = rgb_of(rows_of(wk, B_SHARP), w, h);
		int32_t yz;
		const int32_t *cm = cisp_csc_matrix(&s->csc, &yz);

		for (int y = y0; y < y1; y++) {
			const uint16_t *l[5];
			uint16_t *o[3] = { plane_row(&rgb.c[0], y), plane_row(&rgb.c[1], y), plane_row(&rgb.c[2], y) };

			for (int k = 0; k < 5; k++)
				l[k] = plane_row(&in, mirror(y + k - 2, h));
			/* In place: B_RGB's row. */
			d->sharpen_row(l, (const uint16_t *const *)o, o, w, s->sharpen.coring, s->sharpen.strength,
				       s->sharpen.limit, wk->tmp);
			if (j->chain->sharp_ycc)
				d->csc_row(cm, yz, (const uint16_t *const *)o, o, w);
		}
		break;
	}
	case S_YCC: {
		struct rgb16 src = rgb_of(rows_of(wk, n->in[0].buf), w, h), ycc = rgb_of(&wk->win[B_YCC], w, h);
		int32_t yz;
		const int32_t *m = cisp_csc_matrix(&s->csc, &yz);

		for (int y = y0; y < y1; y++) {
			const uint16_t *i[3] = { plane_row(&src.c[0], y), plane_row(&src.c[1], y), plane_row(&src.c[2], y) };
			uint16_t *o[3] = { plane_row(&ycc.c[0], y), plane_row(&ycc.c[1], y), plane_row(&ycc.c[2], y) };

			d->csc_row(m, yz, i, o, w);
		}
		break;
	}
	case S_CNRH: {
		struct rgb16 ycc = rgb_of(rows_of(wk, n->in[0].buf), w, h), o = rgb_of(&wk->win[B_CNRH], w, h);
		struct cisp_cnr_row_tables tb;

		cisp_cnr_tables(isp->cnr, &tb);
		for (int y = y0; y < y1; y++) {
			memcpy(plane_row(&o.c[0], y), plane_row(&ycc.c[0], y), (size_t)w * sizeof(uint16_t));
			d->cnr_h_row(plane_row(&ycc.c[0], y), plane_row(&ycc.c[1], y), plane_row(&ycc.c[2], y),
				     plane_row(&o.c[1], y), plane_row(&o.c[2], y), w, &tb);
		}
		break;
	}
	case S_CNR: {
		struct rgb16 hp = rgb_of(&wk->win[B_CNRH], w, h), o = rgb_of(&wk->win[B_CNR], w, h);
		struct cisp_cnr_row_tables tb;

		cisp_cnr_tables(isp->cnr, &tb);
		for (int y = y0; y < y1; y++) {
			const uint16_t *ys[2 * CISP_CNR_MAX_RADIUS + 1], *cbs[2 * CISP_CNR_MAX_RADIUS + 1],
				*crs[2 * CISP_CNR_MAX_RADIUS + 1];

			for (int k = 0; k <= 2 * tb.radius; k++) {
				int yy = mirror(y + k - tb.radius, h);

				ys[k] = plane_row(&hp.c[0], yy);
				cbs[k] = plane_row(&hp.c[1], yy);
				crs[k] = plane_row(&hp.c[2], yy);
			}
			memcpy(plane_row(&o.c[0], y), ys[tb.radius], (size_t)w * sizeof(uint16_t));
			d->cnr_v_row(ys, cbs, crs, plane_row(&o.c[1], y), plane_row(&o.c[2], y), w, &tb);
		}
		break;
	}
	case S_OUT:
		if (j->rgb_frame) {
			struct rgb16 src = rgb_of(rows_of(wk, j->chain->rgb_src), w, h);

			copy_rows(j->rgb_frame, &src, w, y0, y1);
		}
		if (j->yuv_frame) {
			struct rgb16 src = rgb_of(rows_of(wk, j->chain->yuv_src), w, h);

			copy_rows(j->yuv_frame, &src, w, y0, y1);
		}
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
			const struct output_state *os = &isp->out[i];
			struct cisp_image *img = j->output[i];

			if (!os->used || j->via_frame[i])
				continue;
			if (os->yuv) {
				struct rgb16 src = rgb_of(rows_of(wk, j->chain->yuv_src), w, h);
				bool nv12 = img->format == CISP_FMT_NV12;

				for (int y = y0; y < y1; y++)
					d->to8_row(plane_row(&src.c[0], y), img->plane[0].data + (size_t)y * img->plane[0].stride,
						   w);
				for (int y = y0; y < y1; y += 2) {
					uint8_t *cb = img->plane[1].data + (size_t)(y / 2) * img->plane[1].stride;
					uint8_t *cr = nv12 ? cb + 1 : img->plane[2].data + (size_t)(y / 2) * img->plane[2].stride;

					d->chroma420_row(plane_row(&src.c[1], y), plane_row(&src.c[1], y + 1),
							 plane_row(&src.c[2], y), plane_row(&src.c[2], y + 1), cb, cr,
							 nv12 ? 2 : 1, w);
				}
			} else {
				struct rgb16 src = rgb_of(rows_of(wk, j->chain->rgb_src), w, h);
				void (*rgb8_row)(const uint16_t *, const uint16_t *, const uint16_t *, uint8_t *, int) =
					img->format == CISP_FMT_XBGR32 ? d->xbgr32_row : d->rgb888_row;

				/* 8-bit RGB in either byte order has row functions; RGB48 packs as the reference does. */
				if (img->format == CISP_FMT_RGB888 || img->format == CISP_FMT_XBGR32)
					for (int y = y0; y < y1; y++)
						rgb8_row(plane_row(&src.c[0], y), plane_row(&src.c[1], y), plane_row(&src.c[2], y),
							 img->plane[0].data + (size_t)y * img->plane[0].stride, w);
				else
					cisp_pack_rows(&src, img, y0, y1);
			}
		}
		break;
	case S_COUNT:
		break;
	}
}

/* Rows [s0, s1) of the chain's output: every stage on the rows the ones after it need. */
static void run_band(const struct job *j, struct worker *wk, unsigned worker, int s0, int s1)
{
	const struct chain *c = j->chain;
	const int w = (int)j->isp->config.width, h = (int)j->isp->config.height;
	int lo[B_COUNT], hi[B_COUNT];

	needs(c, s0, s1, h, lo, hi);
	for (int k = 0; k < c->count; k++) {
		const struct node *n = &c->node[k];

		if (n->out < 0) {
			run_stage(j, n, wk, worker, s0, s1);
		} else if (lo[n->out] < hi[n->out]) {
			struct window *win = &wk->win[n->out];
			int from;

			/* B_SHARP's rows are B_RGB's: that window holds and moves them. */
			if (n->out != B_SHARP)
				slide(win, buf_planes[n->out], w, lo[n->out], hi[n->out]);
			from = win->done > lo[n->out] ? win->done : lo[n->out];
			if (from < hi[n->out])
				run_stage(j, n, wk, worker, from, hi[n->out]);
			win->done = hi[n->out];
		}
	}
}

/* The next band of part @k into [*s0, *s1); false when the part is done. */
static bool take_band(struct job *j, int k, int *s0, int *s1)
{
	struct part *p = &j->part[k];
	bool more;

	pthread_mutex_lock(&j->lock);
	more = p->next < p->end;
	if (more) {
		*s0 = p->next;
		*s1 = p->next + j->band < p->end ? p->next + j->band : p->end;
		p->next = *s1;
	}
	pthread_mutex_unlock(&j->lock);
	return more;
}

/*
 * Part @k is done: make it the lower half (even rows) of the part with the
 * most rows left, if that part has over two bands left (less is not worth
 * the rows above a new part). False when there is none.
 */
static bool take_half(struct job *j, int k)
{
	int best = -1, most = 2 * j->band;

	pthread_mutex_lock(&j->lock);
	for (int i = 0; i < j->parts; i++) {
		if (j->part[i].end - j->part[i].next > most) {
			best = i;
			most = j->part[i].end - j->part[i].next;
		}
	}
	if (best >= 0) {
		int mid = j->part[best].next + (most / 2 & ~1);

		j->part[k].next = mid;
		j->part[k].end = j->part[best].end;
		j->part[best].end = mid;
	}
	pthread_mutex_unlock(&j->lock);
	return best >= 0;
}

/* Pool task @task: part @task band by band, then halves of the others' parts. */
static void run_task(void *opaque, unsigned task, unsigned worker)
{
	struct job *j = opaque;
	struct worker *wk = &j->isp->fx->w[worker];
	int s0, s1;

	do {
		/* A new part: the buffers hold no rows of it yet. */
		for (int b = 0; b < B_COUNT; b++)
			wk->win[b].lo = wk->win[b].done = 0;
		while (take_band(j, (int)task, &s0, &s1))
			run_band(j, wk, worker, s0, s1);
	} while (take_half(j, (int)task));
}

/*
 * Which outputs are made from frame-sized planes after the bands (those that
 * crop or scale, and the YUV ones when a vendor stage runs at the YUV tap),
 * and which planes keep their final rows: rgb[0] for RGB and rgb[1] for
 * YCbCr, or only rgb[1] when rgb[0] holds rows the bands read (@rgb0_busy:
 * after a whole-frame demosaic or the RGB tap). Returns false when the
 * planes are too few: RGB and YUV outputs both made that way, rgb[0] busy.
 */
static bool outputs_via_frame(struct cisp_isp *isp, bool rgb0_busy, bool yuv_tap, struct job *j)
{
	bool rgb = false, yuv = false;

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct output_state *o = &isp->out[i];

		j->via_frame[i] = o->used && (via_frame(isp, o) || (o->yuv && yuv_tap));
		yuv |= j->via_frame[i] && o->yuv;
		rgb |= j->via_frame[i] && !o->yuv;
	}
	j->rgb_frame = j->yuv_frame = NULL;
	if (rgb0_busy && rgb && yuv)
		return false;
	if (rgb)
		j->rgb_frame = rgb0_busy ? &isp->rgb[1] : &isp->rgb[0];
	if (yuv)
		j->yuv_frame = &isp->rgb[1];
	return true;
}

/* The band executor runs the fast and the quality demosaic. */
static bool supported(const struct cisp_isp *isp)
{
	return isp->demosaic_algorithm == CISP_DEMOSAIC_FAST || isp->demosaic_algorithm == CISP_DEMOSAIC_QUALITY;
}

/* The whole-frame work after a chain: the vendor stages at a tap, or the demosaic. */
static int after_chain(struct cisp_isp *isp, const struct job *j, struct cisp_pool *pool)
{
	switch (j->chain->to) {
	case TO_BAYER_FRAME:
		return vendor_instance_run(isp->vendor, CISP_VENDOR_TAP_BAYER, &isp->bayer[1], 1);
	case TO_DEMOSAIC_FRAME:
		cisp_demosaic_run_dsp(isp->demosaic, &isp->bayer[0], isp->cfa, &isp->state.demosaic, &isp->rgb[0], pool,
				      isp->dsp);
		return 0;
	case TO_RGB_FRAME:
		return vendor_instance_run(isp->vendor, CISP_VENDOR_TAP_RGB, isp->rgb[0].c, 3);
	case TO_OUTPUTS:
		break;
	}
	/* The YUV tap's stages, if any, on the YCbCr of the YUV outputs. */
	if (j->yuv_frame) {
		int ret = vendor_instance_run(isp->vendor, CISP_VENDOR_TAP_YUV, j->yuv_frame->c, 3);

		if (ret)
			return ret;
	}
	/* Crops and scaling read around their rows: over the whole frame, as the reference does. */
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (j->via_frame[i])
			cisp_isp_finish_output(isp, i, isp->out[i].yuv ? j->yuv_frame : j->rgb_frame, j->output[i], pool);
	return 0;
}

int cisp_isp_process_fused(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			   unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			   struct cisp_pool *pool)
{
	const int h = (int)isp->config.height;
	const int workers = (int)cisp_pool_threads(pool);
	const bool whole = isp->demosaic_algorithm != CISP_DEMOSAIC_FAST; /* a whole-frame demosaic */
	const bool bayer_tap = vendor_instance_active_at(isp->vendor, CISP_VENDOR_TAP_BAYER);
	const bool rgb_tap = vendor_instance_active_at(isp->vendor, CISP_VENDOR_TAP_RGB);
	const bool yuv_tap = vendor_instance_active_at(isp->vendor, CISP_VENDOR_TAP_YUV);
	bool want_stats = stats && block_on(isp, CISP_BLOCK_STATS);
	struct chain chain[4];
	struct job job = { .isp = isp, .input = input, .count = count, .output = output, .band = isp->band_rows,
			   .stats = want_stats };
	int rows[B_COUNT] = { 0 }, n = 0, ret;
	enum from from = FROM_INPUT;

	if (count > 1) {
		cisp_merge_order(exposure, count, job.order);
		for (unsigned k = 1; k < count; k++)
			cisp_merge_prepare(&job.merge[k], exposure[job.order[k - 1]], exposure[job.order[k]]);
	}

	if (!supported(isp) || !outputs_via_frame(isp, whole || rgb_tap, yuv_tap, &job))
		return 1;
	if (bayer_tap) {
		build_chain(isp, want_stats, from, TO_BAYER_FRAME, &chain[n++]);
		from = FROM_BAYER_FRAME;
	}
	if (whole) {
		build_chain(isp, want_stats, from, TO_DEMOSAIC_FRAME, &chain[n++]);
		from = FROM_DEMOSAIC_FRAME;
	}
	if (rgb_tap) {
		build_chain(isp, want_stats, from, TO_RGB_FRAME, &chain[n++]);
		from = FROM_RGB_FRAME;
	}
	build_chain(isp, want_stats, from, TO_OUTPUTS, &chain[n++]);
	if ((n > 1 || job.rgb_frame || job.yuv_frame) && (ret = cisp_isp_frame_planes(isp)))
		return ret;
	/* A band in the middle of a tall frame needs the most rows of each buffer. */
	for (int k = 0; k < n; k++) {
		int lo[B_COUNT], hi[B_COUNT];

		needs(&chain[k], 1 << 20, (1 << 20) + job.band, 1 << 22, lo, hi);
		for (int b = 0; b < B_COUNT; b++)
			if (b != B_SHARP && hi[b] > lo[b] && hi[b] - lo[b] + SLACK_BANDS * job.band > rows[b])
				rows[b] = hi[b] - lo[b] + SLACK_BANDS * job.band;
	}
	if ((ret = ensure_buffers(isp, workers, rows)))
		return ret;
	if (want_stats && isp->acc_count < (unsigned)workers) {
		static const struct cisp_wb_params unity = { .gain = { 4096, 4096, 4096, 4096 } };
		const struct cisp_wb_params *wb = block_on(isp, CISP_BLOCK_WB) ? &isp->state.wb : &unity;
		struct cisp_stats_acc **acc = realloc(isp->acc, (size_t)workers * sizeof(*acc));

		if (!acc)
			return cisp_error(-ENOMEM, "out of memory for statistics");
		isp->acc = acc;
		for (; isp->acc_count < (unsigned)workers; isp->acc_count++) {
			ret = cisp_stats_acc_create(&acc[isp->acc_count], &isp->state.stats, wb, isp->cfa,
						    (int)isp->config.width, h);
			if (ret)
				return ret;
		}
	}
	for (int i = 0; want_stats && i < workers; i++)
		cisp_stats_acc_reset(isp->acc[i]);

	job.part = isp->fx->part;
	job.parts = workers;
	pthread_mutex_init(&job.lock, NULL);
	for (int k = 0; k < n; k++) {
		/* A part per worker, of even rows (4:2:0 and statistics work on row pairs). */
		for (int i = 0; i < workers; i++) {
			job.part[i].next = (int)((int64_t)h * i / workers) & ~1;
			job.part[i].end = i + 1 < workers ? (int)((int64_t)h * (i + 1) / workers) & ~1 : h;
		}
		job.chain = &chain[k];
		cisp_pool_run(pool, (unsigned)workers, run_task, &job);
		if ((ret = after_chain(isp, &job, pool)))
			break;
	}
	pthread_mutex_destroy(&job.lock);
	if (ret)
		return ret;

	if (stats) {
		memset(stats, 0, sizeof(*stats));
		stats->magic = CISP_STATS_MAGIC;
		stats->version = CISP_STATS_VERSION;
		stats->size = sizeof(*stats);
		stats->width = isp->config.width;
		stats->height = isp->config.height;
		if (want_stats) {
			for (int i = 1; i < workers; i++)
				cisp_stats_acc_merge(isp->acc[0], isp->acc[i]);
			cisp_stats_acc_finish(isp->acc[0], stats);
		}
	}
	return 0;
}

size_t cisp_isp_memory(const struct cisp_isp *isp)
{
	const size_t n = (size_t)isp->config.width * isp->config.height;
	size_t bytes = sizeof(*isp) + sizeof(*isp->tone);

	if (isp->memory)
		bytes += 8 * n * sizeof(uint16_t);
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (isp->out[i].scaled)
			bytes += (size_t)isp->config.output[i].width * isp->config.output[i].height * 3 * sizeof(uint16_t);
	if (isp->fx)
		bytes += isp->fx->bytes;
	return bytes;
}
