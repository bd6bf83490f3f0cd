/* SPDX-License-Identifier: MIT */
/*
 * The chroma denoise on one persistent instance per CPU level, frame after
 * frame, with random changes of the parameters it reads (its own block, the
 * noise profile, white balance, colour matrix, tone curve, CSC) sent as
 * params deltas: every level's output bytes and statistics are the
 * reference executor's on every frame. Tables rebuilt between frames, a
 * radius that changes, strength 0 and the extremes, and frames narrower
 * than a vector plus its reach all come up.
 */
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "isp/dsp.h"
#include "isp/pipeline_internal.h"
#include "test.h"

#define FRAMES 48

static uint32_t pick(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(test_rand() % (hi - lo + 1));
}

/* A strength at random, the ends of its range one time in four. */
static uint16_t strength(uint32_t hi)
{
	switch (test_rand() % 8) {
	case 0:
		return 0;
	case 1:
		return (uint16_t)hi;
	default:
		return (uint16_t)pick(1, hi);
	}
}

/* Change one of the blocks the chroma denoise reads, or switch it on or off. */
static void vary(struct cisp_param_state *s)
{
	switch (test_rand() % 7) {
	case 0:
		s->cnr.strength = strength(4096);
		s->cnr.luma_strength = (uint16_t)(1 + strength(4095));
		s->cnr.radius = (uint16_t)pick(1, CISP_CNR_MAX_RADIUS);
		break;
	case 1:
		s->enabled ^= CISP_BLOCK_BIT(CISP_BLOCK_CNR);
		break;
	case 2:
		for (int c = 0; c < 4; c++) {
			s->noise.a[c] = pick(0, 1u << 20);
			s->noise.b[c] = pick(0, 20000);
		}
		break;
	case 3:
		for (int c = 0; c < 4; c++)
			s->wb.gain[c] = (uint16_t)pick(3000, 12000);
		break;
	case 4:
		for (int i = 0; i < 9; i++)
			s->ccm.coeff[i] = (int16_t)((int)pick(0, 16000) - 8000 + (i % 4 ? 0 : 4096));
		break;
	case 5:
		s->tone.transfer = (uint16_t)pick(0, 2);
		for (int i = 0, v = 0; i < CISP_TONE_POINTS; i++, v += (int)pick(0, 400))
			s->tone.curve[i] = (uint16_t)(v > 65535 ? 65535 : v);
		break;
	default:
		s->csc.matrix = (uint16_t)pick(0, 2);
		s->csc.range = (uint16_t)pick(0, 1);
		break;
	}
}

/* A mosaic with a gradient, blocks of another level and noise: new for each frame. */
static void fill_frame(struct cisp_image *img)
{
	for (uint32_t y = 0; y < img->height; y++) {
		uint16_t *row = (uint16_t *)(void *)(img->plane[0].data + y * img->plane[0].stride);

		for (uint32_t x = 0; x < img->width; x++) {
			uint32_t v = (x * 97 + y * 41) % 4096;

			if ((x / 6 + y / 5) % 4 == 0)
				v = 4095 - v / 2;
			v += (uint32_t)(test_rand() % 400);
			row[x] = (uint16_t)(v > 4095 ? 4095 : v);
		}
	}
}

/* The first byte where two images differ, or -1. */
static long first_difference(const struct cisp_image *a, const struct cisp_image *b)
{
	long offset = 0;

	for (unsigned p = 0; p < a->num_planes; p++) {
		size_t row, rows;

		cisp_image_plane_size(a->format, a->width, a->height, p, &row, &rows);
		for (size_t y = 0; y < rows; y++)
			for (size_t x = 0; x < row; x++, offset++)
				if (a->plane[p].data[y * a->plane[p].stride + x] != b->plane[p].data[y * b->plane[p].stride + x])
					return offset;
	}
	return -1;
}

static void replay(uint32_t width, uint32_t height)
{
	enum { LEVELS = CISP_CPU_LEVELS + 1 }; /* the reference, then each level */
	const struct cisp_isp_config ic = { CISP_FMT_SGRBG12, width, height, { { CISP_FMT_NV12, width, height } }, NULL };
	struct cisp_isp *isp[LEVELS] = { NULL };
	struct cisp_image in, out[LEVELS];
	struct cisp_stats *st = calloc(LEVELS, sizeof(*st));
	struct cisp_param_state *state = malloc(sizeof(*state)), *prev = malloc(sizeof(*prev));
	int levels = 0;

	cisp_param_state_init(state);
	state->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	*prev = *state;
	CHECK_EQ(cisp_image_alloc(&in, ic.input_format, width, height), 0);
	for (int l = 0; l < LEVELS; l++) {
		const struct cisp_isp_exec e = { l > 0, 0, l > 0 ? l - 1 : -1 };

		CHECK_EQ(cisp_isp_create(&isp[l], &ic), 0);
		CHECK_EQ(cisp_isp_set_state(isp[l], state, ~0u), 0);
		if (cisp_isp_set_exec(isp[l], &e)) {
			cisp_isp_destroy(isp[l]);
			isp[l] = NULL; /* a level this machine or build lacks */
			continue;
		}
		levels++;
		CHECK_EQ(cisp_image_alloc(&out[l], CISP_FMT_NV12, width, height), 0);
	}
	CHECK(levels >= 2);
	for (int n = 0; n < FRAMES; n++) {
		struct cisp_image *outs[CISP_MAX_OUTPUTS] = { NULL };
		void *delta = NULL;
		size_t size = 0;
		uint32_t diff;

		for (int k = 0; k < 2; k++)
			vary(state);
		diff = cisp_params_diff(prev, state);
		*prev = *state;
		if (diff) {
			CHECK_EQ(cisp_params_encode(state, diff, NULL, 0, &size), 0);
			delta = malloc(size);
			if (cisp_params_encode(state, diff, delta, size, &size))
				test_fail(__FILE__, __LINE__, "frame %d: %s", n, cisp_last_error());
		}
		fill_frame(&in);
		for (int l = 0; l < LEVELS; l++) {
			if (!isp[l])
				continue;
			if (delta)
				CHECK_EQ(cisp_isp_set_params(isp[l], delta, size), 0);
			outs[0] = &out[l];
			CHECK_EQ(cisp_isp_process(isp[l], &in, outs, &st[l], NULL), 0);
		}
		free(delta);
		for (int l = 1; l < LEVELS; l++) {
			long at = isp[l] ? first_difference(&out[0], &out[l]) : -1;

			if (at >= 0)
				test_fail(__FILE__, __LINE__,
					  "%ux%u frame %d: %s differs from the reference at byte %ld (chroma denoise %s, strength %u, luma %u, radius %u)",
					  width, height, n, cisp_cpu_name((enum cisp_cpu_level)(l - 1)), at,
					  state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CNR) ? "on" : "off", state->cnr.strength,
					  state->cnr.luma_strength, state->cnr.radius);
			if (isp[l] && memcmp(&st[0], &st[l], sizeof(st[0])))
				test_fail(__FILE__, __LINE__, "%ux%u frame %d: %s statistics differ from the reference", width,
					  height, n, cisp_cpu_name((enum cisp_cpu_level)(l - 1)));
		}
	}
	for (int l = 0; l < LEVELS; l++) {
		cisp_isp_destroy(isp[l]);
		if (isp[l] || l == 0)
			cisp_image_free(&out[l]);
	}
	cisp_image_free(&in);
	free(st);
	free(state);
	free(prev);
}

TEST(cnr_replay_random_params_every_level)
{
	replay(32, 32); /* the kernel module's test frame */
	replay(24, 16); /* narrower than a vector and its reach at AVX2 and AVX-512 */
	replay(72, 20);
}
