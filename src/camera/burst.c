/* SPDX-License-Identifier: MIT */
/*
 * Burst merge entry points (include/cisp/burst.h, docs/burst.md): check the
 * frames, build the pyramids, align level by level, weigh and merge, each
 * step spread over the pool by frames, tile rows or row bands. Every task
 * writes its own part, so the result does not depend on the threads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/image.h>

#include "burst.h"
#include "core/error_internal.h"

static int check_frames(const struct cisp_burst_config *c)
{
	const struct cisp_image *ref;
	const struct cisp_format_info *fi;

	if (!c)
		return cisp_error(-EINVAL, "burst: no configuration");
	if (c->num_frames < CISP_BURST_MIN_FRAMES || c->num_frames > CISP_BURST_MAX_FRAMES)
		return cisp_error(-EINVAL, "burst: %u frames; a burst has %d to %d", c->num_frames,
				  CISP_BURST_MIN_FRAMES, CISP_BURST_MAX_FRAMES);
	for (unsigned z = 0; z < c->num_frames; z++) {
		char what[32];
		int r;

		if (!c->frame[z] || !c->frame[z]->plane[0].data)
			return cisp_error(-EINVAL, "burst: frame %u of %u is missing", z, c->num_frames);
		snprintf(what, sizeof(what), "burst frame %u", z);
		r = cisp_image_check(c->frame[z], what);
		if (r)
			return r;
	}
	ref = c->frame[0];
	fi = cisp_format_info(ref->format);
	if (!fi || fi->kind != CISP_KIND_BAYER || fi->packed || fi->bits < 10)
		return cisp_error(-EINVAL, "burst: format %s is not an unpacked Bayer format of 10 to 16 bits",
				  cisp_format_name(ref->format));
	if (ref->width < 2 || ref->height < 2 || ref->width % 2 || ref->height % 2)
		return cisp_error(-EINVAL, "burst: a %ux%u mosaic; width and height must be even", ref->width,
				  ref->height);
	for (unsigned z = 1; z < c->num_frames; z++) {
		const struct cisp_image *f = c->frame[z];

		if (f->format != ref->format || f->width != ref->width || f->height != ref->height)
			return cisp_error(-EINVAL, "burst: frame %u is %s %ux%u, the reference %s %ux%u", z,
					  cisp_format_name(f->format), f->width, f->height, cisp_format_name(ref->format),
					  ref->width, ref->height);
	}
	return 0;
}

static void free_burst(struct burst *b)
{
	for (unsigned z = 0; z < CISP_BURST_MAX_FRAMES; z++)
		free(b->grey[z][0].data);
	for (unsigned l = 0; l < BURST_LEVELS; l++)
		free(b->offset[l]);
	free(b->reject);
}

static int init_burst(struct burst *b, const struct cisp_burst_config *c)
{
	uint32_t w, h;
	size_t grey = 0;

	memset(b, 0, sizeof(*b));
	b->config = c;
	b->frames = c->num_frames;
	b->width = c->frame[0]->width;
	b->height = c->frame[0]->height;
	w = b->width / 2;
	h = b->height / 2;
	/* Levels while a level keeps a few tiles each way. */
	for (b->levels = 0; b->levels < BURST_LEVELS; b->levels++) {
		if (b->levels && (w < 2 * BURST_GREY_TILE || h < 2 * BURST_GREY_TILE))
			break;
		b->tiles_x[b->levels] = burst_tiles(w);
		b->tiles_y[b->levels] = burst_tiles(h);
		grey += (size_t)w * h;
		w = (w + 1) / 2;
		h = (h + 1) / 2;
	}
	for (unsigned z = 0; z < b->frames; z++) {
		uint16_t *p = malloc(grey * sizeof(uint16_t));

		if (!p)
			return cisp_error(-ENOMEM, "burst: out of memory for the grey pyramids");
		w = b->width / 2;
		h = b->height / 2;
		for (unsigned l = 0; l < b->levels; l++) {
			b->grey[z][l] = (struct burst_grey){ p, w, h };
			p += (size_t)w * h;
			w = (w + 1) / 2;
			h = (h + 1) / 2;
		}
	}
	for (unsigned l = 0; l < b->levels; l++) {
		b->offset[l] = calloc((size_t)(b->frames - 1) * b->tiles_x[l] * b->tiles_y[l], sizeof(*b->offset[l]));
		if (!b->offset[l])
			return cisp_error(-ENOMEM, "burst: out of memory for the tile offsets");
	}
	b->reject = calloc((size_t)(b->frames - 1) * b->tiles_x[0] * b->tiles_y[0], sizeof(*b->reject));
	if (!b->reject)
		return cisp_error(-ENOMEM, "burst: out of memory for the tile weights");
	return 0;
}

static void pyramid_task(void *opaque, unsigned task, unsigned worker)
{
	(void)worker;
	burst_pyramid(opaque, task);
}

static void align_task(void *opaque, unsigned task, unsigned worker)
{
	struct burst *b = opaque;
	unsigned rows = b->tiles_y[b->level];

	(void)worker;
	burst_align_row(b, 1 + task / rows, task % rows);
}

static int align(struct burst *b, const struct cisp_burst_config *c, struct cisp_pool *pool)
{
	int r = check_frames(c);

	if (r)
		return r;
	r = init_burst(b, c);
	if (r) {
		free_burst(b);
		return r;
	}
	cisp_pool_run(pool, b->frames, pyramid_task, b);
	for (unsigned l = b->levels; l-- > 0;) {
		b->level = l;
		cisp_pool_run(pool, (b->frames - 1) * b->tiles_y[l], align_task, b);
	}
	return 0;
}

int cisp_burst_align(const struct cisp_burst_config *c, struct cisp_pool *pool, int32_t (*offset)[2], size_t max,
		     unsigned *tiles_x, unsigned *tiles_y)
{
	struct burst b;
	size_t n;
	int r = align(&b, c, pool);

	if (r)
		return r;
	*tiles_x = b.tiles_x[0];
	*tiles_y = b.tiles_y[0];
	n = (size_t)(b.frames - 1) * b.tiles_x[0] * b.tiles_y[0];
	if (n > max) {
		r = cisp_error(-ENOSPC, "burst: %zu tile offsets, room for %zu", n, max);
	} else {
		/* Grey pixels of level 0 are two mosaic pixels. */
		for (size_t i = 0; i < n; i++) {
			offset[i][0] = 2 * b.offset[0][i][0];
			offset[i][1] = 2 * b.offset[0][i][1];
		}
	}
	free_burst(&b);
	return r;
}

static int check_noise(const struct cisp_burst_config *c, const struct cisp_image *out)
{
	if (!(c->noise_a >= 0 && c->noise_a <= 4096) || !(c->noise_b >= 0 && c->noise_b <= 16777216.0))
		return cisp_error(-EINVAL, "burst: noise model a=%g b=%g out of range (a 0..4096, b 0..2^24)",
				  c->noise_a, c->noise_b);
	if (!(c->rejection >= 0 && c->rejection <= 256))
		return cisp_error(-EINVAL, "burst: rejection %g out of range (0..256)", c->rejection);
	if (!out || out->format != c->frame[0]->format || out->width != c->frame[0]->width ||
	    out->height != c->frame[0]->height || !out->plane[0].data)
		return cisp_error(-EINVAL, "burst: the output must be a %s %ux%u image",
				  cisp_format_name(c->frame[0]->format), c->frame[0]->width, c->frame[0]->height);
	if (cisp_image_check(out, "burst output"))
		return -EINVAL;
	for (unsigned z = 1; z < c->num_frames; z++)
		if (out->plane[0].data == c->frame[z]->plane[0].data)
			return cisp_error(-EINVAL, "burst: the output is frame %u (only the reference may be)", z);
	return 0;
}

static void weigh_task(void *opaque, unsigned task, unsigned worker)
{
	struct burst *b = opaque;

	(void)worker;
	burst_weigh_row(b, 1 + task / b->tiles_y[0], task % b->tiles_y[0]);
}

struct merge_job {
	const struct burst *b;
	struct cisp_image *out;
};

static void merge_task(void *opaque, unsigned task, unsigned worker)
{
	struct merge_job *m = opaque;

	(void)worker;
	burst_merge_band(m->b, m->out, task);
}

/* The noise variance of a tile's merge relative to one frame's: weights (1 + sum A) / n and (1 - A) / n. */
static void summarise(const struct burst *b, struct cisp_burst_result *res)
{
	size_t tiles = (size_t)b->tiles_x[0] * b->tiles_y[0];
	double total = 0, n = b->frames;

	memset(res, 0, sizeof(*res));
	res->tiles_x = b->tiles_x[0];
	res->tiles_y = b->tiles_y[0];
	for (size_t t = 0; t < tiles; t++) {
		double ref = 1, alts = 0;

		for (unsigned z = 1; z < b->frames; z++) {
			double a = b->reject[(z - 1) * tiles + t] / (double)BURST_ONE;

			ref += a;
			alts += (1 - a) * (1 - a);
			res->rejected += a > 0.5;
		}
		total += (ref * ref + alts) / (n * n);
	}
	res->variance_factor = total / (double)tiles;
}

int cisp_burst_merge(const struct cisp_burst_config *c, struct cisp_image *out, struct cisp_pool *pool,
		     struct cisp_burst_result *result)
{
	struct burst b;
	struct merge_job job = { &b, out };
	int r = check_frames(c);

	if (r == 0)
		r = check_noise(c, out);
	if (r == 0)
		r = align(&b, c, pool);
	if (r)
		return r;
	b.noise_a = (int64_t)llround(c->noise_a * 65536);
	b.noise_b = (int64_t)llround(c->noise_b * 65536);
	b.rejection = (int64_t)llround((c->rejection > 0 ? c->rejection : 4) * 256);
	cisp_pool_run(pool, (b.frames - 1) * b.tiles_y[0], weigh_task, &b);
	cisp_pool_run(pool, (b.height + CISP_BURST_TILE / 2 - 1) / (CISP_BURST_TILE / 2), merge_task, &job);
	if (result)
		summarise(&b, result);
	free_burst(&b);
	return 0;
}
