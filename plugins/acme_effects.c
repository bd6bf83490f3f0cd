/* SPDX-License-Identifier: MIT */
/*
 * An example vendor stage: "ACME" colour effects in the RGB domain (mono,
 * sepia, saturation), driven by one vendor block. It shows the whole plugin
 * ABI (include/cisp/vendor.h) and is written like any vendor code would be:
 * it reads its payload, checks it itself (the ISP never looks inside), and
 * writes every sample of its output. At the RGB tap it shows in every
 * output, RGB or YUV.
 *
 * Block ACME_BLOCK_EFFECT (type 1), version 1, 8 bytes, little-endian:
 *   u16 effect    0 none (copy), 1 mono, 2 sepia, 3 saturation
 *   u16 strength  Q8.8, 0..256: how much of the effect (256 = all of it)
 *   u16 param     sepia: warmth in 8-bit steps, 0..64;
 *                 saturation: gain Q8.8, 0..1024; otherwise 0
 *   u16 reserved  0
 *
 * On the non-linear R', G', B' (16-bit), with the luma
 *   Y = (54 R + 183 G + 19 B + 128) >> 8
 * the effect's target t for each channel c is
 *   mono:       t = Y
 *   sepia:      t_R = min(Y + 257 warmth, 65535), t_G = Y, t_B = max(Y - 257 warmth, 0)
 *   saturation: t = clamp(Y + floor(((c - Y) * gain + 128) / 256), 0, 65535)
 * and the output is c + floor(((t - c) * strength + 128) / 256): t exactly
 * at strength 256, c at 0. docs/vendor.md has the numbers it gives.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cisp/vendor.h>

#define ACME_VENDOR_ID 0x454d4341u /* "ACME" read as a little-endian u32 */
#define ACME_BLOCK_EFFECT 1

enum { EFFECT_NONE, EFFECT_MONO, EFFECT_SEPIA, EFFECT_SATURATION, EFFECT_COUNT };

struct effect {
	unsigned effect, strength, param;
};

static unsigned rd16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* Floor division by 256 of a possibly negative value (>> on negative int is implementation-defined). */
static int32_t floor256(int32_t v)
{
	return v >= 0 ? v / 256 : -((-v + 255) / 256);
}

static int parse(const struct cisp_vendor_block_value *b, struct effect *e, char *msg, size_t size)
{
	const uint8_t *p = b->payload;

	if (b->version != 1 || b->size != 8) {
		snprintf(msg, size, "effect block: version %u with %u bytes, expected version 1 with 8", b->version,
			 b->size);
		return -EINVAL;
	}
	e->effect = rd16(p);
	e->strength = rd16(p + 2);
	e->param = rd16(p + 4);
	if (e->effect >= EFFECT_COUNT || e->strength > 256 || rd16(p + 6) ||
	    (e->effect == EFFECT_SEPIA && e->param > 64) || (e->effect == EFFECT_SATURATION && e->param > 1024) ||
	    (e->effect != EFFECT_SEPIA && e->effect != EFFECT_SATURATION && e->param)) {
		snprintf(msg, size, "effect block: effect %u, strength %u, param %u, reserved %u out of range",
			 e->effect, e->strength, e->param, rd16(p + 6));
		return -EINVAL;
	}
	return 0;
}

static int32_t clamp16(int32_t v)
{
	return v < 0 ? 0 : v > 65535 ? 65535 : v;
}

/* The effect's target for channel @c (0 R, 1 G, 2 B) of value @v, on a pixel of luma @y. */
static int32_t target(const struct effect *e, int c, int32_t v, int32_t y)
{
	switch (e->effect) {
	case EFFECT_MONO:
		return y;
	case EFFECT_SEPIA:
		return clamp16(y + (1 - c) * 257 * (int32_t)e->param);
	case EFFECT_SATURATION:
		return clamp16(y + floor256((v - y) * (int32_t)e->param + 128));
	default:
		return v;
	}
}

static int process(void *state, const struct cisp_vendor_frame *f)
{
	struct effect e = { 0 };
	int ret;

	(void)state;
	/* The stage runs when its block is enabled; a disabled one still arrives here as "no effect". */
	if (f->blocks[0].enabled && (ret = parse(&f->blocks[0], &e, f->message, f->message_size)))
		return ret;
	for (uint32_t y = 0; y < f->in.height; y++) {
		const uint16_t *src[3];
		uint16_t *dst[3];

		for (int c = 0; c < 3; c++) {
			src[c] = f->in.plane[c] + (size_t)y * f->in.stride;
			dst[c] = f->out.plane[c] + (size_t)y * f->out.stride;
		}
		for (uint32_t x = 0; x < f->in.width; x++) {
			int32_t luma = (54 * src[0][x] + 183 * src[1][x] + 19 * src[2][x] + 128) >> 8;

			for (int c = 0; c < 3; c++) {
				int32_t v = src[c][x], t = target(&e, c, v, luma);

				dst[c][x] = (uint16_t)(v + floor256((t - v) * (int32_t)e.strength + 128));
			}
		}
	}
	return 0;
}

/* The declaration the ISP reads. */
const struct cisp_vendor_plugin cisp_vendor_plugin = {
	.abi_version = CISP_VENDOR_PLUGIN_ABI,
	.vendor_id = ACME_VENDOR_ID,
	.name = "acme-colour-effects",
	.vendor_name = "ACME Imaging (example)",
	.tap = CISP_VENDOR_TAP_RGB,
	.num_blocks = 1,
	.blocks = { { .type = ACME_BLOCK_EFFECT, .min_version = 1, .max_version = 1, .max_payload = 8,
		      .name = "effect" } },
	.process = process,
};
