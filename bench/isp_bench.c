/* SPDX-License-Identifier: MIT */
/*
 * The ISP benchmark (isp_bench.h): speed of the ISP on a synthetic frame
 * (default 4000x3000) or a mosaic read from a file: the whole pipeline and
 * each stage alone, the reference executor (scalar stages, stage by stage
 * over whole frames) against the banded one (dsp.h row functions), at 1 and
 * 2 threads, and peak memory. The stages are those of the stage list
 * (src/isp/stage_list.h), each run alone by both executors: this file names
 * none of them.
 *
 * Every figure is one line "bench key=value ...", machine-readable. The two
 * executions alternate within each repetition and figures are medians, so
 * the ratios hold on a noisy machine even when the absolute figures move.
 * The peer (peer.h: OpenCV's edge-aware demosaic of the same frame) runs
 * between them, in the order A B B A, and every figure has its ratio to it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>

#include "core/error_internal.h"
#include "device/vulkan_backend.h"
#include "isp/dsp.h"
#include "isp/pipeline_internal.h"
#include "isp_bench.h"
#include "peer.h"

/* ---- timing ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* The middle of @n times (the mean of the two middle ones for even @n), and the smallest in *@best. */
static double middle(const double *t, int n, double *best)
{
	double s[ISP_BENCH_MAX_REPS] = { 0 };

	/* Insertion sort: a few repetitions. */
	for (int i = 0; i < n; i++) {
		int k = i;

		for (; k > 0 && s[k - 1] > t[i]; k--)
			s[k] = s[k - 1];
		s[k] = t[i];
	}
	if (best)
		*best = s[0];
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

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
static int read_frame(const char *path, uint32_t format, struct cisp_image *img)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	struct cisp_raster r;
	const unsigned max = (1u << f->bits) - 1;
	int ret = cisp_raster_read(path, &r);

	if (ret)
		return ret;
	if (r.channels != 1 || r.width < 16 || r.height < 16 || r.width % 2 || r.height % 2 || f->packed) {
		ret = cisp_error(-EINVAL,
				 "%s: %ux%u, %u channel(s), format %s: a mosaic needs one channel, an even size of at "
				 "least 16x16 and an unpacked format",
				 path, r.width, r.height, r.channels, f->name);
		cisp_raster_free(&r);
		return ret;
	}
	ret = cisp_image_alloc(img, format, r.width, r.height);
	for (uint32_t y = 0; !ret && y < r.height; y++) {
		uint8_t *row = img->plane[0].data + (size_t)y * img->plane[0].stride;

		for (uint32_t x = 0; x < r.width; x++) {
			unsigned v = (unsigned)(((uint64_t)r.data[(size_t)y * r.width + x] * max + r.maxval / 2) / r.maxval);

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

/*
 * The pipelines: the canonical one (BLC, DPC, LSC, WB, highlights, Bayer
 * denoise, fast demosaic, CCM, tone, sharpen, CSC, statistics), that with
 * the quality demosaic and the chroma denoise ("quality"), and that with the
 * quality Bayer denoise too ("quality_bnr").
 */
enum pipeline { CANONICAL, QUALITY, QUALITY_BNR };

static void canonical_state(struct cisp_param_state *s, enum pipeline p)
{
	cisp_param_state_init(s);
	s->enabled = CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) |
		     CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) |
		     CISP_BLOCK_BIT(CISP_BLOCK_DEMOSAIC) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) |
		     CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) |
		     CISP_BLOCK_BIT(CISP_BLOCK_CSC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS) |
		     CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS); /* clip, as cisp develop and the camera run it */
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
	if (p != CANONICAL) {
		s->demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
		s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	}
	if (p == QUALITY_BNR)
		s->bnr.mode = CISP_BNR_QUALITY;
}

/*
 * An instance for @in with one NV12 output of its size and the canonical
 * state; 1 (and none) when the build lacks its demosaic.
 */
static int make_isp(struct cisp_isp **isp, const struct cisp_image *in, enum pipeline p)
{
	struct cisp_isp_config c = { in->format, in->width, in->height, { { CISP_FMT_NV12, in->width, in->height } } };
	struct cisp_params_limits limits;
	struct cisp_param_state s;
	int ret = cisp_isp_create(isp, &c);

	if (ret)
		return ret;
	canonical_state(&s, p);
	cisp_isp_limits(*isp, &limits);
	if (!(limits.demosaic_algorithms & (1u << s.demosaic.algorithm)))
		ret = 1;
	else
		ret = cisp_isp_set_state(*isp, &s, ~0u);
	if (ret) {
		cisp_isp_destroy(*isp);
		*isp = NULL;
	}
	return ret;
}

/* ---- whole pipeline ---- */

struct run {
	const struct isp_bench_options *o;
	int cpu;   /* the row functions' level: --cpu, or -1 for cisp_dsp()'s */
	int level; /* the level they run at */
	const struct cisp_image *in;
	struct bench_peer *peer; /* the yardstick, or NULL */
};

/*
 * Repetition @k (-1: the untimed first) of the peer at @threads threads
 * into @tp[k]. A peer that fails is stopped, loudly, and the figures go on
 * without a ratio.
 */
static void time_peer(struct run *r, int threads, int k, double *tp)
{
	double t;

	if (!r->peer)
		return;
	if (bench_peer_time(r->peer, threads, &t, NULL)) {
		fprintf(stderr, "\n*** NO PEER from here on: %s\n\n", cisp_last_error());
		bench_peer_stop(r->peer);
		r->peer = NULL;
		return;
	}
	if (k >= 0)
		tp[k] = t;
}

/* " peer_mpix_s=P ratio=V/P" for a figure @v, when the peer ran every repetition of @tp. */
static void print_ratio(const struct run *r, double v, const double *tp)
{
	double peer;

	if (!r->peer)
		return;
	peer = (double)r->in->width * r->in->height / 1e6 / middle(tp, r->o->reps, NULL);
	printf(" peer_mpix_s=%.1f ratio=%.3f", peer, v / peer);
}

static int bench_pipeline(struct run *r, const char *name, enum pipeline p, bool memory_only)
{
	const struct isp_bench_options *o = r->o;
	const double mpix = (double)r->in->width * r->in->height / 1e6;
	struct cisp_isp *isp = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_stats *stats = malloc(sizeof(*stats));
	const struct cisp_isp_exec ref = { false, 0, CISP_CPU_SCALAR }, opt = { true, o->band, r->cpu };
	int ret = stats ? 0 : -ENOMEM;

	if (!ret && (ret = make_isp(&isp, r->in, p)) == 1) {
		free(stats);
		return 0; /* not part of this build */
	}
	if (!ret)
		ret = cisp_image_alloc(&out, CISP_FMT_NV12, r->in->width, r->in->height);
	if (!ret && memory_only) {
		/* The first frames of the process: its peak memory is the optimised executor's own. */
		struct cisp_pool *pool;
		int threads = o->threads[o->n_threads - 1];

		if (!(ret = cisp_pool_create(&pool, (unsigned)threads))) {
			cisp_isp_set_exec(isp, &opt);
			for (int k = 0; k < 2 && !ret; k++)
				ret = cisp_isp_process(isp, r->in, outs, stats, pool);
			cisp_pool_destroy(pool);
			printf("bench memory pipeline=%s exec=optimized threads=%d peak_rss_kib=%.0f isp_bytes=%zu "
			       "frame_bytes_in=%zu frame_bytes_out=%zu\n",
			       name, threads, peak_rss_kib(), cisp_isp_memory(isp), (size_t)r->in->plane[0].stride * r->in->height,
			       (size_t)out.plane[0].stride * out.height * 3 / 2);
		}
	}
	for (int t = 0; !ret && !memory_only && t < o->n_threads; t++) {
		struct cisp_pool *pool;
		double tr[ISP_BENCH_MAX_REPS], to[ISP_BENCH_MAX_REPS], co[ISP_BENCH_MAX_REPS], tp[ISP_BENCH_MAX_REPS];
		double best, v;

		if ((ret = cisp_pool_create(&pool, (unsigned)o->threads[t])))
			break;
		/* One untimed frame of each (first-frame set-up), then alternate: the peer between, A B B A. */
		for (int k = -1; k < o->reps && !ret; k++) {
			double t0, c0;

			if (k % 2)
				time_peer(r, o->threads[t], k, tp);
			ret = cisp_isp_set_exec(isp, &opt);
			c0 = cpu_seconds();
			t0 = now();
			ret = ret ? ret : cisp_isp_process(isp, r->in, outs, stats, pool);
			if (k >= 0) {
				to[k] = now() - t0;
				co[k] = cpu_seconds() - c0;
			}
			if (!(k % 2))
				time_peer(r, o->threads[t], k, tp);
			if (!o->reference)
				continue;
			if (!ret)
				ret = cisp_isp_set_exec(isp, &ref);
			t0 = now();
			ret = ret ? ret : cisp_isp_process(isp, r->in, outs, stats, pool);
			if (k >= 0)
				tr[k] = now() - t0;
		}
		cisp_pool_destroy(pool);
		if (ret)
			break;
		v = mpix / middle(to, o->reps, &best);
		if (o->reference) {
			double vr = mpix / middle(tr, o->reps, NULL);

			printf("bench pipeline=%s exec=reference threads=%d mpix_s=%.1f", name, o->threads[t], vr);
			print_ratio(r, vr, tp);
			printf("\n");
		}
		printf("bench pipeline=%s exec=optimized cpu=%s band=%d threads=%d mpix_s=%.1f", name,
		       cisp_cpu_name((enum cisp_cpu_level)r->level), o->band, o->threads[t], v);
		print_ratio(r, v, tp);
		if (o->reference)
			printf(" speedup=%.2f", v / (mpix / middle(tr, o->reps, NULL)));
		/* Pixels per CPU-second: on a shared machine, what the threads did when they ran. */
		printf(" cpu_mpix_s=%.1f", mpix / middle(co, o->reps, NULL));
		/* The fastest repetition: the one the machine's other load disturbed least. */
		printf(" best_mpix_s=%.1f\n", mpix / best);
		fflush(stdout);
	}
	if (ret)
		fprintf(stderr, "cisp bench: %s pipeline: %s\n", name, cisp_last_error());
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	free(stats);
	return ret;
}

/* ---- each stage alone, over whole frames ---- */

/*
 * Frame-sized planes for the stages: Bayer stages read the unpacked frame
 * and write a second plane, RGB and YCbCr stages read its fast demosaic and
 * write three more planes.
 */
struct stage_planes {
	uint16_t *mem;
	struct rgb16 bayer, rgb, out;
	struct cisp_image nv12;
};

static int make_planes(struct cisp_isp *isp, const struct cisp_image *in, struct stage_planes *sp)
{
	const int w = (int)in->width, h = (int)in->height;
	const size_t n = (size_t)w * h;
	int ret = cisp_image_alloc(&sp->nv12, CISP_FMT_NV12, in->width, in->height);

	if (ret)
		return ret;
	if (!(sp->mem = malloc(n * 7 * sizeof(uint16_t))))
		return cisp_error(-ENOMEM, "out of memory for the stages' planes");
	for (int c = 0; c < 3; c++) {
		sp->bayer.c[c] = (struct plane16){ sp->mem, w, 0, w, h };
		sp->rgb.c[c] = (struct plane16){ sp->mem + (1 + c) * n, w, 0, w, h };
		sp->out.c[c] = (struct plane16){ sp->mem + (4 + c) * n, w, 0, w, h };
	}
	/* Plausible data everywhere: the frame unpacked (the first stage), RGB from a demosaic. */
	for (unsigned i = 0; !ret && i < CISP_STAGE_COUNT; i++) {
		const struct cisp_stage *s = cisp_stages[i];

		if (s->source)
			ret = cisp_reference_stage(isp, i, NULL, &(struct stage_io){ .image = in, .out = sp->bayer }, NULL,
						   NULL);
		else if (s->planes_in == 1 && s->planes_out == 3)
			ret = cisp_reference_stage(isp, i, NULL, &(struct stage_io){ .in = sp->bayer, .out = sp->rgb },
						   NULL, NULL);
	}
	return ret;
}

struct pack_job {
	const struct cisp_dsp *dsp;
	const struct rgb16 *src;
	struct cisp_image *img;
};

static void pack_band(void *opaque, unsigned worker, int y0, int y1)
{
	const struct pack_job *p = opaque;

	(void)worker;
	cisp_output_pack_rows(p->dsp, p->src, p->img, y0, y1);
}

/* Print one figure line of @name from the repetitions' times (seconds). */
static void print_stage(const struct run *r, const char *name, int threads, const double *tr, const double *to,
			const double *tp)
{
	const double mpix = (double)r->in->width * r->in->height / 1e6;
	double ref = mpix / middle(tr, r->o->reps, NULL), opt = to ? mpix / middle(to, r->o->reps, NULL) : 0;

	printf("bench stage=%s threads=%d reference_mpix_s=%.1f", name, threads, ref);
	if (r->peer)
		printf(" reference_ratio=%.3f", ref / (mpix / middle(tp, r->o->reps, NULL)));
	if (to) {
		printf(" optimized_mpix_s=%.1f", opt);
		print_ratio(r, opt, tp);
		printf(" speedup=%.2f\n", opt / ref);
	} else {
		printf(" optimized=none\n");
	}
	fflush(stdout);
}

/*
 * Each stage the canonical pipeline (with the chroma denoise) runs, alone:
 * by its reference over whole frames, and in bands by the banded executor
 * between frame-sized planes; then the NV12 packing of the outputs.
 */
static int bench_stages(struct run *r)
{
	const struct isp_bench_options *o = r->o;
	const struct cisp_isp_exec opt = { true, o->band, r->cpu };
	struct stage_planes sp = { 0 };
	struct cisp_stats *stats = malloc(sizeof(*stats));
	struct cisp_param_state s;
	struct cisp_isp *isp = NULL;
	int ret = stats ? make_isp(&isp, r->in, CANONICAL) : -ENOMEM;

	canonical_state(&s, CANONICAL);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	if (!ret && !(ret = cisp_isp_set_state(isp, &s, ~0u)) && !(ret = cisp_isp_set_exec(isp, &opt)))
		ret = make_planes(isp, r->in, &sp);
	for (int t = 0; !ret && t < o->n_threads; t++) {
		struct cisp_pool *pool;

		if ((ret = cisp_pool_create(&pool, (unsigned)o->threads[t])))
			break;
		for (unsigned i = 0; !ret && i < CISP_STAGE_COUNT; i++) {
			const struct cisp_stage *st = cisp_stages[i];
			struct stage_ctx ctx = cisp_isp_stage_ctx(isp, i, NULL);
			const struct stage_io io = { r->in, st->planes_in == 1 ? sp.bayer : sp.rgb, sp.out, NULL };
			double tr[ISP_BENCH_MAX_REPS], to[ISP_BENCH_MAX_REPS], tp[ISP_BENCH_MAX_REPS];
			bool banded = true;

			if (st->merge || !stage_active(st, &ctx))
				continue;
			for (int k = 0; k < o->reps && !ret; k++) {
				double t0;

				time_peer(r, o->threads[t], k, tp);
				t0 = now();

				ret = cisp_reference_stage(isp, i, NULL, &io, stats, pool);
				tr[k] = now() - t0;
				t0 = now();
				if (!ret && banded && (ret = cisp_banded_stage(isp, i, &io, stats, pool)) == 1)
					ret = 0, banded = false;
				to[k] = now() - t0;
			}
			if (!ret)
				print_stage(r, st->name, o->threads[t], tr, banded ? to : NULL, tp);
		}
		/* The outputs' packing (output.h): the reference rows against the row functions. */
		if (!ret) {
			double tr[ISP_BENCH_MAX_REPS], to[ISP_BENCH_MAX_REPS], tp[ISP_BENCH_MAX_REPS];
			struct pack_job pj = { isp->dsp, &sp.rgb, &sp.nv12 };

			for (int k = 0; k < o->reps && !ret; k++) {
				double t0;

				time_peer(r, o->threads[t], k, tp);
				t0 = now();

				ret = cisp_output_finish(isp, 0, &sp.rgb, &sp.nv12, pool);
				tr[k] = now() - t0;
				t0 = now();
				cisp_frame_bands(pool, (int)r->in->height, pack_band, &pj);
				to[k] = now() - t0;
			}
			if (!ret)
				print_stage(r, "pack_nv12", o->threads[t], tr, to, tp);
		}
		cisp_pool_destroy(pool);
	}
	if (ret)
		fprintf(stderr, "cisp bench: stages: %s\n", cisp_last_error());
	cisp_image_free(&sp.nv12);
	free(sp.mem);
	cisp_isp_destroy(isp);
	free(stats);
	return ret;
}

/* ---- the pipeline through a device context: the Vulkan backend beside the software one ---- */

/* A context of @dev for @in with one NV12 output and the canonical state sent as parameters. */
/* The benchmark's ISP: @in's format and size, one NV12 output of its size. */
static struct cisp_isp_config bench_config(const struct cisp_image *in)
{
	return (struct cisp_isp_config){ in->format, in->width, in->height, { { CISP_FMT_NV12, in->width, in->height } } };
}

static int make_context(struct cisp_device *dev, const struct cisp_image *in, struct cisp_context **ctx, void **params,
			size_t *size)
{
	const struct cisp_context_config cc = { .name = "bench", .isp = bench_config(in) };
	struct cisp_param_state s;
	int ret;

	canonical_state(&s, CANONICAL);
	*size = 0;
	cisp_params_encode(&s, ~0u, NULL, 0, size);
	if (!(*params = malloc(*size)))
		return cisp_error(-ENOMEM, "out of memory for parameters");
	if ((ret = cisp_params_encode(&s, ~0u, *params, *size, size)))
		return ret;
	return cisp_context_create(ctx, dev, &cc);
}

/* One frame with statistics through @ctx, its parameters the first time (@params non-NULL): its seconds in *@t. */
static int device_frame(struct cisp_context *ctx, const struct cisp_image *in, struct cisp_image *out,
			struct cisp_stats *stats, const void *params, size_t size, double *t)
{
	const struct cisp_job j = { .num_inputs = 1, .input = { in }, .output = { out }, .stats = stats,
				    .params = params, .params_size = params ? size : 0 };
	struct cisp_fence *fence = NULL;
	double t0 = now();
	int ret = cisp_job_submit(ctx, &j, &fence);

	if (!ret)
		ret = cisp_fence_wait(fence, -1) ? cisp_error(-EIO, "waiting for a frame") : cisp_fence_error(fence);
	*t = now() - t0;
	cisp_fence_unref(fence);
	return ret;
}

/*
 * --isp vulkan: the canonical pipeline as jobs of a device context on the
 * Vulkan backend and on the software ISP, one frame each in the order
 * A B B A per repetition; frames/s and the time of a frame for each, and
 * their ratio.
 */
static int bench_devices(struct run *r)
{
	const char *isp[2] = { "software", VULKAN_ISP_NAME };
	struct cisp_device *dev[2] = { NULL, NULL };
	struct cisp_context *ctx[2] = { NULL, NULL };
	void *params[2] = { NULL, NULL };
	size_t size[2];
	struct cisp_image out = { 0 };
	struct cisp_stats *stats = malloc(sizeof(*stats));
	double t[2][ISP_BENCH_MAX_REPS], dt, best, fps[2], stage_ns[VULKAN_STAGE_COUNT];
	const struct cisp_isp_config config = bench_config(r->in);
	char name[512] = "", stages[256];
	struct cisp_param_state s;
	int ret = stats ? vulkan_describe(name, sizeof(name)) : -ENOMEM;

	for (int d = 0; d < 2 && !ret; d++) {
		if (d)
			setenv("CISP_ISP", VULKAN_ISP_NAME, 1);
		ret = cisp_device_create(&dev[d], &(struct cisp_device_config){ .workers = 1 });
		if (d)
			unsetenv("CISP_ISP");
		if (!ret)
			ret = make_context(dev[d], r->in, &ctx[d], &params[d], &size[d]);
	}
	if (!ret)
		ret = cisp_image_alloc(&out, CISP_FMT_NV12, r->in->width, r->in->height);
	/* An untimed first frame each, with the parameters. */
	for (int d = 0; d < 2 && !ret; d++)
		ret = device_frame(ctx[d], r->in, &out, stats, params[d], size[d], &dt);
	for (int k = 0; k < r->o->reps && !ret; k++)
		for (int i = 0; i < 4 && !ret; i++) {
			int d = i == 1 || i == 2; /* A B B A */

			ret = device_frame(ctx[d], r->in, &out, stats, NULL, 0, &dt);
			t[d][k] = i < 2 ? dt : 0.5 * (t[d][k] + dt);
		}
	if (ret) {
		fprintf(stderr, "cisp bench: --isp vulkan: %s\n", cisp_last_error());
	} else {
		canonical_state(&s, CANONICAL);
		if (vulkan_plan_describe(&config, &s, true, stages, sizeof(stages)))
			snprintf(stages, sizeof(stages), "none (%s)", cisp_last_error());
		printf("bench isp=vulkan device=\"%s\" gpu_stages=\"%s\"\n", name, stages);
		if (strstr(name, "llvmpipe"))
			printf("bench note=\"llvmpipe (lavapipe) runs the shaders on the CPU: these figures say nothing of a "
			       "GPU\"\n");
		/* Each Bayer shader's GPU time, from timestamps: the smallest of the repetitions. */
		if (vulkan_time_stages(r->in, &s, r->o->reps, stage_ns)) {
			printf("bench gpu_stages=none (%s)\n", cisp_last_error());
		} else {
			printf("bench gpu_stage_times=\"each Bayer shader in one command buffer, smallest of %d\"", r->o->reps);
			for (int i = 0; i < VULKAN_STAGE_COUNT; i++)
				printf(" %s_ms=%.3f", vulkan_stage_names[i], stage_ns[i] * 1e-6);
			printf("\n");
		}
		for (int d = 0; d < 2; d++) {
			fps[d] = 1.0 / middle(t[d], r->o->reps, &best);
			printf("bench device pipeline=canonical isp=%s frames_per_s=%.2f ms_per_frame=%.2f best_ms=%.2f", isp[d],
			       fps[d], 1e3 / fps[d], 1e3 * best);
			if (d)
				printf(" ratio=%.3f ratio_of=\"vulkan/software frames/s, A B B A\"", fps[1] / fps[0]);
			printf("\n");
		}
	}
	for (int d = 0; d < 2; d++) {
		cisp_context_destroy(ctx[d]);
		cisp_device_destroy(dev[d]);
		free(params[d]);
	}
	cisp_image_free(&out);
	free(stats);
	return ret;
}

int isp_bench_run(const struct isp_bench_options *o)
{
	struct cisp_image in = { 0 };
	struct run r = { o, o->cpu ? cisp_cpu_from_name(o->cpu) : -1, (int)cisp_dsp()->level, &in, NULL };
	enum cisp_cpu_level best = cisp_cpu_detect();
	char model[256], load[64];
	int ret;

	/* Scalar, or a level up to the machine's of its architecture. */
	if (o->cpu && (r.cpu < 0 || r.cpu > (int)best ||
		       (r.cpu != CISP_CPU_SCALAR && (r.cpu == CISP_CPU_NEON) != (best == CISP_CPU_NEON)))) {
		fprintf(stderr, "cisp bench: --cpu %s: this machine has scalar up to %s\n", o->cpu, cisp_cpu_name(best));
		return 2;
	}
	ret = o->input ? read_frame(o->input, o->format, &in) : cisp_image_alloc(&in, o->format, o->width, o->height);
	if (ret) {
		fprintf(stderr, "cisp bench: %s\n", cisp_last_error());
		return 1;
	}
	r.level = r.cpu >= 0 ? r.cpu : r.level;
	if (!o->input)
		make_frame(&in);
	bench_cpu_model(model, sizeof(model));
	bench_loadavg(load, sizeof(load));
	printf("bench machine cpu_model=\"%s\" cpus=%ld loadavg_before=\"%s\"\n", model, sysconf(_SC_NPROCESSORS_ONLN),
	       load);
	printf("bench frame=%ux%u format=%s input=%s cpu=%s reps=%d\n", in.width, in.height, cisp_format_name(o->format),
	       o->input ? o->input : "synthetic", cisp_cpu_name((enum cisp_cpu_level)r.level), o->reps);
	fflush(stdout);
	if (o->isp && !strcmp(o->isp, VULKAN_ISP_NAME)) {
		ret = bench_devices(&r);
		bench_loadavg(load, sizeof(load));
		printf("bench machine loadavg_after=\"%s\"\n", load);
		cisp_image_free(&in);
		return ret ? 1 : 0;
	}
	ret = bench_pipeline(&r, "canonical", CANONICAL, true);
	if (!ret && o->peer && (ret = bench_peer_start(&r.peer, &in)))
		fprintf(stderr, "cisp bench: %s\n", cisp_last_error());
	if (r.peer)
		printf("bench peer=\"%s\" ratio=figure/peer (MPix/s over MPix/s, the peer timed between, A B B A)\n",
		       bench_peer_name(r.peer));
	else
		printf("bench peer=none (no ratios)\n");
	if (!ret)
		ret = bench_pipeline(&r, "canonical", CANONICAL, false);
	if (!ret && o->quality)
		ret = bench_pipeline(&r, "quality", QUALITY, false);
	if (!ret && o->quality)
		ret = bench_pipeline(&r, "quality_bnr", QUALITY_BNR, false);
	if (!ret && o->stages)
		ret = bench_stages(&r);
	bench_peer_stop(r.peer);
	bench_loadavg(load, sizeof(load));
	printf("bench machine loadavg_after=\"%s\"\n", load);
	cisp_image_free(&in);
	return ret ? 1 : 0;
}
