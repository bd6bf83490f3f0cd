/* SPDX-License-Identifier: MIT */
/*
 * cisp bench: speed of the ISP on a synthetic frame (default 4000x3000) or
 * a mosaic read from a file:
 * each stage alone and the whole pipeline, the reference executor (scalar
 * stages, stage by stage over whole frames) against the optimised one
 * (banded, dsp.h row functions), at 1 and 2 threads, and peak memory.
 *
 * Every figure is one line "bench key=value ...", machine-readable. The two
 * executions alternate within each repetition and figures are medians, so
 * the ratios hold on a noisy machine even when the absolute figures move.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>

#include "commands.h"
#include "core/error_internal.h"
#include "isp/blc.h"
#include "isp/bnr.h"
#include "isp/ccm.h"
#include "isp/csc.h"
#include "isp/demosaic.h"
#include "isp/dpc.h"
#include "isp/dsp.h"
#include "isp/lsc.h"
#include "isp/pack.h"
#include "isp/pipeline_internal.h"
#include "isp/sharpen.h"
#include "isp/statistics.h"
#include "isp/tone.h"
#include "isp/unpack.h"
#include "isp/wb.h"
#include "options.h"

#define MAX_REPS 50
/* Scratch rows per worker in the stage benchmarks: a 64-row band's green and its halo. */
#define SCRATCH_ROWS 72

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp bench [options]\n"
		"\n"
		"Time the ISP on a synthetic frame (or a mosaic from a file): each stage and\n"
		"the whole pipeline, the reference executor against the optimised one, at 1\n"
		"and 2 threads; print one 'bench key=value ...' line per figure and the peak\n"
		"memory.\n"
		"\n"
		"options:\n"
		"  --size WxH        frame size (default 4000x3000)\n"
		"  --format NAME     Bayer input format (default SRGGB10)\n"
		"  --input FILE      the frame from a grey PGM or PNG mosaic (its size; samples\n"
		"                    scaled to the format's bits; its CFA must be the format's,\n"
		"                    e.g. build/bench/mosaic output is RGGB); unpacked formats\n"
		"  --reps N          repetitions per figure, median reported (default 5)\n"
		"  --threads LIST    thread counts, comma-separated (default 1,2)\n"
		"  --cpu LEVEL       row functions: scalar, sse4, avx2, avx512, neon (default: best)\n"
		"  --band N          rows per band of the optimised executor (default 16)\n"
		"  --no-stages       the pipelines only\n"
		"  --no-quality      skip the pipeline with the quality demosaic and chroma denoise\n"
		"  --no-reference    time the optimised executor only (for profiling)\n"
		"  -h, --help        this help\n");
}

struct opts {
	const char *input;
	uint32_t w, h, format;
	int reps, band, cpu, stages, quality, reference;
	int threads[8], n_threads;
};

/* ---- synthetic frame and parameters ---- */

static void make_frame(struct cisp_image *img)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	unsigned max = (1u << f->bits) - 1;
	uint64_t r = 88172645463325252ull;

	for (uint32_t y = 0; y < img->height; y++) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

		if (f->packed) {
			for (uint32_t k = 0; k < img->plane[0].stride; k++) {
				r ^= r << 13, r ^= r >> 7, r ^= r << 17;
				row[k] = (uint8_t)(((k * 3 + y) & 255) ^ (r & 15));
			}
			continue;
		}
		for (uint32_t x = 0; x < img->width; x++) {
			unsigned v;

			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			/* A smooth scene with edges and noise, a little clipping. */
			v = ((x / 16 + y / 12) % 8) * max / 9 + ((x * y) >> 10) % (max / 8 + 1) + (unsigned)(r % 64);
			if (v > max)
				v = max;
			if (f->bits == 8)
				row[x] = (uint8_t)v;
			else {
				row[2 * x] = (uint8_t)v;
				row[2 * x + 1] = (uint8_t)(v >> 8);
			}
		}
	}
}

/* The frame from a grey mosaic file: its size, its samples scaled to the format's bits. */
static int read_frame(struct opts *o, struct cisp_image *img)
{
	const struct cisp_format_info *f = cisp_format_info(o->format);
	struct cisp_raster r;
	const unsigned max = (1u << f->bits) - 1;
	int ret = cisp_raster_read(o->input, &r);

	if (ret)
		return ret;
	if (r.channels != 1 || r.width < 16 || r.height < 16 || r.width % 2 || r.height % 2 || f->packed) {
		ret = cisp_error(-EINVAL,
				 "%s: %ux%u, %u channel(s), format %s: a mosaic needs one channel, an even size of at "
				 "least 16x16 and an unpacked format",
				 o->input, r.width, r.height, r.channels, f->name);
		cisp_raster_free(&r);
		return ret;
	}
	o->w = r.width;
	o->h = r.height;
	ret = cisp_image_alloc(img, o->format, o->w, o->h);
	for (uint32_t y = 0; !ret && y < o->h; y++) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

		for (uint32_t x = 0; x < o->w; x++) {
			unsigned v = (unsigned)(((uint64_t)r.data[(size_t)y * o->w + x] * max + r.maxval / 2) / r.maxval);

			if (f->bits == 8) {
				row[x] = (uint8_t)v;
			} else {
				row[2 * x] = (uint8_t)v;
				row[2 * x + 1] = (uint8_t)(v >> 8);
			}
		}
	}
	cisp_raster_free(&r);
	return ret;
}

/* The canonical pipeline: BLC, DPC, LSC, WB, Bayer denoise, fast demosaic, CCM, tone, sharpen, CSC, statistics. */
static void canonical_state(struct cisp_param_state *s, bool quality)
{
	cisp_param_state_init(s);
	s->enabled = CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) |
		     CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) |
		     CISP_BLOCK_BIT(CISP_BLOCK_DEMOSAIC) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) |
		     CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) |
		     CISP_BLOCK_BIT(CISP_BLOCK_CSC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	s->blc.black[0] = s->blc.black[1] = s->blc.black[2] = s->blc.black[3] = 4096;
	s->dpc.threshold = 4096;
	s->lsc.grid_w = 17;
	s->lsc.grid_h = 13;
	for (int i = 0; i < 4 * 17 * 13; i++)
		s->lsc.gain[i] = (uint16_t)(4096 + (i * 37) % 3000);
	s->wb.gain[0] = 8000;
	s->wb.gain[3] = 6500;
	s->ccm.coeff[0] = 6500;
	s->ccm.coeff[1] = -2000;
	s->ccm.coeff[2] = -404;
	s->ccm.coeff[3] = -800;
	s->ccm.coeff[4] = 5400;
	s->ccm.coeff[5] = -504;
	s->ccm.coeff[6] = -100;
	s->ccm.coeff[7] = -1500;
	s->ccm.coeff[8] = 5696;
	s->sharpen.strength = 384;
	s->sharpen.coring = 64;
	s->sharpen.limit = 4096;
	if (quality) {
		s->demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
		s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	}
}

/* CPU seconds (user and system, all threads) the process has used. */
static double cpu_seconds(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
	       1e-6 * (double)u.ru_stime.tv_usec;
}

static double peak_rss_kib(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)u.ru_maxrss;
}

/* The smallest of @n times. */
static double fastest(const double *t, int n)
{
	double best = t[0];

	for (int i = 1; i < n; i++)
		if (t[i] < best)
			best = t[i];
	return best;
}

/* ---- whole pipeline ---- */

static int bench_pipeline(const struct opts *o, const char *name, bool quality, struct cisp_image *in, bool memory_only)
{
	struct cisp_isp_config c = { o->format, o->w, o->h, { { CISP_FMT_NV12, o->w, o->h } } };
	struct cisp_param_state s;
	struct cisp_isp *isp;
	struct cisp_image out;
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_stats *stats = malloc(sizeof(*stats));
	const double mpix = (double)o->w * o->h / 1e6;
	int ret;

	if (!stats)
		return -ENOMEM;
	if ((ret = cisp_isp_create(&isp, &c)) || (ret = cisp_image_alloc(&out, CISP_FMT_NV12, o->w, o->h))) {
		free(stats);
		return ret;
	}
	canonical_state(&s, quality);
	if ((ret = cisp_isp_set_state(isp, &s, ~0u))) {
		fprintf(stderr, "cisp bench: %s pipeline: %s\n", name, cisp_last_error());
		goto done;
	}
	if (memory_only) {
		/* The first frames of the process: its peak memory is the optimised executor's own. */
		struct cisp_isp_exec opt = { true, o->band, o->cpu };
		struct cisp_pool *pool;
		int threads = o->threads[o->n_threads - 1];

		if (!(ret = cisp_pool_create(&pool, (unsigned)threads))) {
			cisp_isp_set_exec(isp, &opt);
			for (int k = 0; k < 2 && !ret; k++)
				ret = cisp_isp_process(isp, in, outs, stats, pool);
			cisp_pool_destroy(pool);
			printf("bench memory pipeline=%s exec=optimized threads=%d peak_rss_kib=%.0f isp_bytes=%zu "
			       "frame_bytes_in=%zu frame_bytes_out=%zu\n",
			       name, threads, peak_rss_kib(), cisp_isp_memory(isp),
			       (size_t)in->plane[0].stride * in->height, (size_t)out.plane[0].stride * out.height * 3 / 2);
		}
		goto done;
	}
	for (int t = 0; t < o->n_threads; t++) {
		struct cisp_pool *pool;
		double tr[MAX_REPS], to[MAX_REPS], co[MAX_REPS], r, v;
		struct cisp_isp_exec ref = { false, 0, CISP_CPU_SCALAR }, opt = { true, o->band, o->cpu };

		if ((ret = cisp_pool_create(&pool, (unsigned)o->threads[t])))
			goto done;
		/* One untimed frame of each (first-frame set-up), then alternate. */
		for (int k = -1; k < o->reps && !ret; k++) {
			double t0, c0;

			ret = cisp_isp_set_exec(isp, &opt);
			c0 = cpu_seconds();
			t0 = now_seconds();
			ret = ret ? ret : cisp_isp_process(isp, in, outs, stats, pool);
			if (k >= 0) {
				to[k] = now_seconds() - t0;
				co[k] = cpu_seconds() - c0;
			}
			if (!o->reference) {
				tr[k < 0 ? 0 : k] = 1e30; /* not measured */
				continue;
			}
			if (!ret)
				ret = cisp_isp_set_exec(isp, &ref);
			t0 = now_seconds();
			ret = ret ? ret : cisp_isp_process(isp, in, outs, stats, pool);
			if (k >= 0)
				tr[k] = now_seconds() - t0;
		}
		cisp_pool_destroy(pool);
		if (ret)
			goto done;
		r = mpix / median(tr, o->reps);
		v = mpix / median(to, o->reps);
		if (o->reference)
			printf("bench pipeline=%s exec=reference threads=%d mpix_s=%.1f\n", name, o->threads[t], r);
		printf("bench pipeline=%s exec=optimized cpu=%s band=%d threads=%d mpix_s=%.1f", name,
		       cisp_cpu_name((enum cisp_cpu_level)(o->cpu >= 0 ? o->cpu : (int)cisp_dsp()->level)), o->band,
		       o->threads[t], v);
		if (o->reference)
			printf(" speedup=%.2f", v / r);
		/* Pixels per CPU-second: on a shared machine, what the threads did when they ran. */
		printf(" cpu_mpix_s=%.1f", mpix / median(co, o->reps));
		/* The fastest repetition: the one the machine's other load disturbed least. */
		printf(" best_mpix_s=%.1f\n", mpix / fastest(to, o->reps));
		fflush(stdout);
	}
done:
	if (ret)
		fprintf(stderr, "cisp bench: %s pipeline: %s\n", name, cisp_last_error());
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	free(stats);
	return ret;
}

/* ---- stages alone, over whole frames in bands on the pool ---- */

struct stage_ctx {
	const struct cisp_dsp *d;
	const struct cisp_image *in;
	struct plane16 a, b;      /* Bayer planes */
	struct rgb16 r0, r1;      /* RGB planes */
	struct cisp_image *nv12;
	struct cisp_blc_coeffs blc;
	struct cisp_dpc_coeffs dpc;
	struct cisp_bnr_coeffs *bnr;
	struct cisp_lsc_coeffs *lsc;
	struct cisp_wb_coeffs wb;
	struct cisp_tone_coeffs *tone;
	struct cisp_param_state s;
	struct cisp_stats_acc *acc[8];
	uint16_t *scratch; /* per worker: SCRATCH_ROWS rows of width */
	int w, h, opt, stage;
	enum cisp_cfa cfa;
};

enum { ST_UNPACK, ST_BLC, ST_DPC, ST_BNR, ST_LSC, ST_STATS, ST_WB, ST_DEMOSAIC, ST_CCM, ST_TONE, ST_SHARPEN, ST_CSC,
       ST_PACK, ST_COUNT };
static const char *const stage_names[ST_COUNT] = { "unpack", "blc", "dpc", "bnr", "lsc", "stats", "wb", "demosaic_fast",
						   "ccm", "tone", "sharpen", "csc", "pack_nv12" };

/* The optimised rows of one stage: the dsp.h functions as the banded executor calls them. */
static void opt_rows(struct stage_ctx *c, unsigned worker, int y0, int y1)
{
	const struct cisp_dsp *d = c->d;
	const int w = c->w, h = c->h;
	uint16_t *sc = c->scratch + (size_t)worker * SCRATCH_ROWS * w;

	if (c->stage == ST_STATS) {
		cisp_stats_acc_rows_with(c->acc[worker], &c->a, y0, y1, d->stats_cells, d->stats_run_sums);
		return;
	}
	if (c->stage == ST_BNR) {
		/* The guide of rows y0-2..y1+1 once (scratch rows), then the rows: as the banded executor. */
		struct cisp_bnr_row_tables tb;

		for (int yy = y0 - 2; yy < y1 + 2; yy++) {
			int ym = mirror(yy, h);

			d->bnr_guide_row(plane_row(&c->a, mirror(ym - 1, h)), plane_row(&c->a, ym),
					 plane_row(&c->a, mirror(ym + 1, h)), sc + (size_t)(yy - y0 + 2) * w, w);
		}
		for (int y = y0; y < y1; y++) {
			const uint16_t *r[5], *g[5];

			for (int k = 0; k < 5; k++) {
				r[k] = plane_row(&c->a, mirror(y + k - 2, h));
				/* A reflected row's guide is the guide of the row it reflects to. */
				g[k] = sc + (size_t)(mirror(y + k - 2, h) - y0 + 2) * w;
			}
			cisp_bnr_tables(c->bnr, y, &tb);
			d->bnr_row(r, g, plane_row(&c->b, y), w, &tb);
		}
		return;
	}
	for (int y = y0; y < y1; y++) {
		uint16_t *a = plane_row(&c->a, y), *b = plane_row(&c->b, y);
		const uint16_t *i3[3] = { plane_row(&c->r0.c[0], y), plane_row(&c->r0.c[1], y), plane_row(&c->r0.c[2], y) };
		uint16_t *o3[3] = { plane_row(&c->r1.c[0], y), plane_row(&c->r1.c[1], y), plane_row(&c->r1.c[2], y) };

		switch (c->stage) {
		case ST_UNPACK: {
			const struct cisp_format_info *f = cisp_format_info(c->in->format);

			if (!f->packed && f->bits > 8)
				d->unpack16_row(c->in->plane[0].data + (size_t)y * c->in->plane[0].stride, a, w, (int)f->bits);
			else
				cisp_unpack_rows(c->in, &c->a, y, y + 1);
			break;
		}
		case ST_BLC:
			d->blc_row(a, b, w, &c->blc.black[(y & 1) * 2], &c->blc.gain[(y & 1) * 2], c->blc.white);
			break;
		case ST_DPC:
			d->dpc_row(plane_row(&c->a, cisp_dpc_mirror(y - 2, h)), a, plane_row(&c->a, cisp_dpc_mirror(y + 2, h)),
				   b, w, c->dpc.threshold);
			break;
		case ST_LSC: {
			struct cisp_lsc_row gains;

			cisp_lsc_row_gains(c->lsc, y, &gains);
			d->lsc_row(a, b, w, &gains);
			break;
		}
		case ST_WB:
			d->wb_row(a, b, w, &c->wb.gain[(y & 1) * 2]);
			break;
		case ST_DEMOSAIC: {
			/* Green of each row once (rows y0-1..y1 in scratch), then red and blue: as the banded executor. */
			const uint16_t *g[3], *bb[3];

			if (y == y0)
				for (int yy = y0 - 1; yy <= y1; yy++) {
					const uint16_t *r[5];
					int ym = mirror(yy, h);

					for (int j = 0; j < 5; j++)
						r[j] = plane_row(&c->a, mirror(ym + j - 2, h));
					d->green_row(r, sc + (size_t)(yy - y0 + 1) * w, w, cisp_demosaic_first_colour(c->cfa, ym));
				}
			for (int k = 0; k < 3; k++) {
				g[k] = sc + (size_t)(y + k - y0) * w;
				bb[k] = plane_row(&c->a, mirror(y + k - 1, h));
			}
			d->rb_row(bb, g, o3[0], o3[2], w, cisp_demosaic_first_colour(c->cfa, y));
			memcpy(o3[1], g[1], (size_t)w * 2);
			break;
		}
		case ST_CCM:
			d->ccm_row(c->s.ccm.coeff, c->s.ccm.offset, i3, o3, w);
			break;
		case ST_TONE:
			for (int k = 0; k < 3; k++)
				d->tone_row(c->tone, i3[k], o3[k], w);
			break;
		case ST_SHARPEN: {
			const uint16_t *l[5];

			for (int k = 0; k < 5; k++) {
				int yy = mirror(y + k - 2, h);
				const uint16_t *rr[3] = { plane_row(&c->r0.c[0], yy), plane_row(&c->r0.c[1], yy),
							  plane_row(&c->r0.c[2], yy) };

				/* Luma once per row in the executor: count it once here too (row k = 4 is new). */
				if (k == 4 || y == y0)
					d->luma_row(rr, sc + (size_t)((yy % 5 + 5) % 5) * w, w);
				l[k] = sc + (size_t)((yy % 5 + 5) % 5) * w;
			}
			d->sharpen_row(l, i3, o3, w, c->s.sharpen.coring, c->s.sharpen.strength, c->s.sharpen.limit,
				       (int32_t *)(void *)(sc + 5 * (size_t)w));
			break;
		}
		case ST_CSC: {
			int32_t yz;
			const int32_t *m = cisp_csc_matrix(&c->s.csc, &yz);

			d->csc_row(m, yz, i3, o3, w);
			break;
		}
		case ST_PACK:
			d->to8_row(i3[0], c->nv12->plane[0].data + (size_t)y * c->nv12->plane[0].stride, w);
			if (!(y & 1)) {
				uint8_t *uv = c->nv12->plane[1].data + (size_t)(y / 2) * c->nv12->plane[1].stride;

				d->chroma420_row(i3[1], plane_row(&c->r0.c[1], y + 1), i3[2], plane_row(&c->r0.c[2], y + 1), uv,
						 uv + 1, 2, w);
			}
			break;
		}
	}
}

static void stage_task(void *opaque, unsigned task, unsigned worker)
{
	struct stage_ctx *c = opaque;
	int y0 = (int)task * 64, y1 = y0 + 64 < c->h ? y0 + 64 : c->h;

	if (!c->opt) {
		/* The reference rows (the optimised executor calls these too for unpack, BNR and statistics). */
		switch (c->stage) {
		case ST_UNPACK:
			cisp_unpack_rows(c->in, &c->a, y0, y1);
			break;
		case ST_BLC:
			cisp_blc_rows(&c->blc, &c->a, &c->b, y0, y1);
			break;
		case ST_DPC:
			cisp_dpc_rows(&c->dpc, &c->a, &c->b, y0, y1);
			break;
		case ST_BNR:
			cisp_bnr_rows(c->bnr, &c->a, &c->b, y0, y1);
			break;
		case ST_LSC:
			cisp_lsc_rows(c->lsc, &c->a, &c->b, y0, y1);
			break;
		case ST_STATS:
			cisp_stats_acc_rows(c->acc[worker], &c->a, y0, y1);
			break;
		case ST_WB:
			cisp_wb_rows(&c->wb, &c->a, &c->b, y0, y1);
			break;
		case ST_DEMOSAIC:
			cisp_demosaic_fast_rows(&c->a, c->cfa, &c->r1, y0, y1, c->scratch + (size_t)worker * SCRATCH_ROWS * c->w);
			break;
		case ST_CCM:
			cisp_ccm_rows(&c->s.ccm, &c->r0, &c->r1, y0, y1);
			break;
		case ST_TONE:
			cisp_tone_rows(c->tone, &c->r0, &c->r1, y0, y1);
			break;
		case ST_SHARPEN:
			cisp_sharpen_rows(&c->s.sharpen, &c->r0, &c->r1, y0, y1);
			break;
		case ST_CSC:
			cisp_csc_rows(&c->s.csc, &c->r0, &c->r1, y0, y1);
			break;
		case ST_PACK:
			cisp_pack_rows(&c->r0, c->nv12, y0, y1);
			break;
		}
		return;
	}
	opt_rows(c, worker, y0, y1);
}

static int bench_stages(const struct opts *o, const struct cisp_image *in)
{
	struct stage_ctx c = { 0 };
	const size_t n = (size_t)o->w * o->h;
	const double mpix = (double)n / 1e6;
	uint16_t *mem = malloc(n * 8 * sizeof(uint16_t));
	struct cisp_image nv12 = { 0 };
	struct cisp_wb_params unity = { .gain = { 4096, 4096, 4096, 4096 } };
	int ret = 0;

	c.w = (int)o->w;
	c.h = (int)o->h;
	c.in = in;
	c.cfa = cisp_format_info(o->format)->cfa;
	c.d = o->cpu >= 0 ? NULL : cisp_dsp();
	c.scratch = malloc((size_t)8 * SCRATCH_ROWS * c.w * sizeof(uint16_t));
	c.tone = malloc(sizeof(*c.tone));
	if (!mem || !c.scratch || !c.tone || cisp_image_alloc(&nv12, CISP_FMT_NV12, o->w, o->h)) {
		ret = -ENOMEM;
		goto done;
	}
	if (!c.d) {
		static struct cisp_dsp forced;

		cisp_dsp_init(&forced, (enum cisp_cpu_level)o->cpu);
		c.d = &forced;
	}
	c.nv12 = &nv12;
	c.a = (struct plane16){ mem, c.w, 0, c.w, c.h };
	c.b = (struct plane16){ mem + n, c.w, 0, c.w, c.h };
	for (int k = 0; k < 3; k++) {
		c.r0.c[k] = (struct plane16){ mem + (2 + k) * n, c.w, 0, c.w, c.h };
		c.r1.c[k] = (struct plane16){ mem + (5 + k) * n, c.w, 0, c.w, c.h };
	}
	canonical_state(&c.s, false);
	cisp_blc_prepare(&c.blc, &c.s.blc, c.cfa);
	cisp_dpc_prepare(&c.dpc, &c.s.dpc);
	cisp_wb_prepare(&c.wb, &c.s.wb, c.cfa);
	cisp_tone_prepare(c.tone, &c.s.tone);
	if ((ret = cisp_bnr_prepare(&c.bnr, &c.s.bnr, &c.s.noise, c.cfa)) ||
	    (ret = cisp_lsc_prepare(&c.lsc, &c.s.lsc, c.cfa, c.w, c.h)))
		goto done;
	for (int i = 0; i < 8; i++)
		if ((ret = cisp_stats_acc_create(&c.acc[i], &c.s.stats, &unity, c.cfa, c.w, c.h)))
			goto done;
	/* Plausible data everywhere: the frame unpacked, RGB from a demosaic. */
	cisp_unpack_rows(in, &c.a, 0, c.h);
	cisp_demosaic_fast_rows(&c.a, c.cfa, &c.r0, 0, c.h, c.scratch);

	for (int t = 0; t < o->n_threads; t++) {
		struct cisp_pool *pool;

		if ((ret = cisp_pool_create(&pool, (unsigned)o->threads[t])))
			goto done;
		for (int st = 0; st < ST_COUNT; st++) {
			double tr[MAX_REPS], to[MAX_REPS], r, v;

			c.stage = st;
			for (int k = 0; k < o->reps; k++) {
				double t0;

				c.opt = 0;
				t0 = now_seconds();
				cisp_pool_run(pool, (unsigned)((c.h + 63) / 64), stage_task, &c);
				tr[k] = now_seconds() - t0;
				c.opt = 1;
				t0 = now_seconds();
				cisp_pool_run(pool, (unsigned)((c.h + 63) / 64), stage_task, &c);
				to[k] = now_seconds() - t0;
			}
			r = mpix / median(tr, o->reps);
			v = mpix / median(to, o->reps);
			printf("bench stage=%s threads=%d reference_mpix_s=%.1f optimized_mpix_s=%.1f speedup=%.2f\n",
			       stage_names[st], o->threads[t], r, v, v / r);
			fflush(stdout);
		}
		cisp_pool_destroy(pool);
	}
done:
	if (ret)
		fprintf(stderr, "cisp bench: stages: %s\n", cisp_last_error());
	for (int i = 0; i < 8; i++)
		cisp_stats_acc_free(c.acc[i]);
	cisp_bnr_free(c.bnr);
	cisp_lsc_free(c.lsc);
	cisp_image_free(&nv12);
	free(c.tone);
	free(c.scratch);
	free(mem);
	return ret;
}

static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_SIZE = 256, OPT_FORMAT, OPT_REPS, OPT_THREADS, OPT_CPU, OPT_BAND, OPT_NO_STAGES, OPT_NO_QUALITY,
	       OPT_NO_REFERENCE, OPT_INPUT };
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, OPT_SIZE },	     { "format", required_argument, NULL, OPT_FORMAT },
		{ "reps", required_argument, NULL, OPT_REPS },	     { "threads", required_argument, NULL, OPT_THREADS },
		{ "cpu", required_argument, NULL, OPT_CPU },	     { "band", required_argument, NULL, OPT_BAND },
		{ "no-stages", no_argument, NULL, OPT_NO_STAGES }, { "no-quality", no_argument, NULL, OPT_NO_QUALITY },
		{ "no-reference", no_argument, NULL, OPT_NO_REFERENCE }, { "input", required_argument, NULL, OPT_INPUT },
		{ "help", no_argument, NULL, 'h' },		     { NULL, 0, NULL, 0 }
	};
	unsigned long v;
	int opt;

	*o = (struct opts){ NULL, 4000, 3000, CISP_FMT_SRGGB10, 5, 16, -1, 1, 1, 1, { 1, 2 }, 2 };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_SIZE:
			if (parse_size("--size", optarg, &o->w, &o->h))
				return -EINVAL;
			if (o->w < 16 || o->h < 16 || o->w % 2 || o->h % 2) {
				fprintf(stderr, "cisp bench: --size %s: width and height must be even and at least 16\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_FORMAT: {
			uint32_t fmt = cisp_format_from_name(optarg);
			const struct cisp_format_info *f = cisp_format_info(fmt);

			if (!f || f->kind != CISP_KIND_BAYER) {
				fprintf(stderr, "cisp bench: --format %s is not a Bayer format\n", optarg);
				return -EINVAL;
			}
			o->format = fmt;
			break;
		}
		case OPT_REPS:
			if (parse_uint("--reps", optarg, 1, MAX_REPS, &v))
				return -EINVAL;
			o->reps = (int)v;
			break;
		case OPT_THREADS: {
			char *p = optarg, *end;

			o->n_threads = 0;
			while (*p && o->n_threads < 8) {
				long t = strtol(p, &end, 10);

				if (end == p || t < 1 || t > 256 || (*end && *end != ',')) {
					fprintf(stderr, "cisp bench: --threads %s: a list of counts 1..256 like 1,2\n", optarg);
					return -EINVAL;
				}
				o->threads[o->n_threads++] = (int)t;
				p = *end ? end + 1 : end;
			}
			break;
		}
		case OPT_CPU:
			o->cpu = cisp_cpu_from_name(optarg);
			if (o->cpu < 0 || o->cpu > (int)cisp_cpu_detect() ||
			    (o->cpu != CISP_CPU_SCALAR && (o->cpu == CISP_CPU_NEON) != (cisp_cpu_detect() == CISP_CPU_NEON))) {
				fprintf(stderr, "cisp bench: --cpu %s: this machine has scalar up to %s\n", optarg,
					cisp_cpu_name(cisp_cpu_detect()));
				return -EINVAL;
			}
			break;
		case OPT_BAND:
			if (parse_uint("--band", optarg, 2, 4096, &v) || v % 2) {
				fprintf(stderr, "cisp bench: --band %s: an even number of rows, 2..4096\n", optarg);
				return -EINVAL;
			}
			o->band = (int)v;
			break;
		case OPT_NO_STAGES:
			o->stages = 0;
			break;
		case OPT_NO_QUALITY:
			o->quality = 0;
			break;
		case OPT_NO_REFERENCE:
			o->reference = 0;
			break;
		case OPT_INPUT:
			o->input = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cisp bench: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct opts o;
	struct cisp_image in;
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (o.input ? read_frame(&o, &in) : cisp_image_alloc(&in, o.format, o.w, o.h)) {
		fprintf(stderr, "cisp bench: %s\n", cisp_last_error());
		return 1;
	}
	if (!o.input)
		make_frame(&in);
	printf("bench frame=%ux%u format=%s input=%s cpu=%s reps=%d\n", o.w, o.h, cisp_format_name(o.format),
	       o.input ? o.input : "synthetic",
	       cisp_cpu_name((enum cisp_cpu_level)(o.cpu >= 0 ? o.cpu : (int)cisp_dsp()->level)), o.reps);
	ret = bench_pipeline(&o, "canonical", false, &in, true);
	if (!ret)
		ret = bench_pipeline(&o, "canonical", false, &in, false);
	if (!ret && o.quality && (cisp_demosaic_algorithms() & (1u << CISP_DEMOSAIC_QUALITY)))
		ret = bench_pipeline(&o, "quality", true, &in, false);
	if (!ret && o.stages)
		ret = bench_stages(&o, &in);
	cisp_image_free(&in);
	return ret ? 1 : 0;
}
