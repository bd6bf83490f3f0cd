/* SPDX-License-Identifier: MIT */
/* The params buffer ABI: layout, defaults, encode/apply round trips, diff, and hostile buffers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/params_state.h>

#include "abi/fixed_point.h"
#include "abi/params_internal.h"
#include "test.h"
#include "test_abi.h"

#define BIT(t) CISP_BLOCK_BIT(CISP_BLOCK_##t)
#define ALL_BLOCKS ABI_ALL_BLOCKS

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(test_rand() % n);
}

static uint32_t rnd_range(uint32_t lo, uint32_t hi)
{
	return lo + rnd(hi - lo + 1);
}

/* ---- building buffers by hand ---- */

struct pbuf {
	uint8_t *data;
	size_t size;
};

static void pb_init(struct pbuf *b)
{
	struct cisp_params_header h = { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, 16, 0 };

	b->data = calloc(1, 2 * CISP_PARAMS_MAX_SIZE);
	memcpy(b->data, &h, sizeof(h));
	b->size = 16;
}

static void pb_set_total(struct pbuf *b, uint32_t total)
{
	memcpy(b->data + 8, &total, 4);
}

/* Append a block with a zeroed payload; returns it. */
static void *pb_block(struct pbuf *b, unsigned type, unsigned flags, uint32_t size)
{
	struct cisp_block_header h = { (uint16_t)type, (uint16_t)flags, size };
	uint8_t *p = b->data + b->size;

	memcpy(p, &h, sizeof(h));
	b->size += size;
	pb_set_total(b, (uint32_t)b->size);
	return p;
}

/* Append the state's block of @type (as cisp_params_encode() writes it) and return it. */
static void *pb_from_state(struct pbuf *b, const struct cisp_param_state *s, unsigned type)
{
	size_t n;
	uint8_t *tmp = malloc(CISP_PARAMS_MAX_SIZE);
	uint8_t *p = b->data + b->size;

	CHECK_EQ(cisp_params_encode(s, CISP_BLOCK_BIT(type), tmp, CISP_PARAMS_MAX_SIZE, &n), 0);
	memcpy(p, tmp + 16, n - 16);
	b->size += n - 16;
	pb_set_total(b, (uint32_t)b->size);
	free(tmp);
	return p;
}

static void pb_free(struct pbuf *b)
{
	free(b->data);
}

/* ---- states ---- */

/* A random state every field of which is valid (no limits); see test_abi.h. */
void abi_random_state(struct cisp_param_state *s)
{
	cisp_param_state_init(s);
	s->enabled = (uint32_t)test_rand() & ALL_BLOCKS & ~BIT(NOISE) & ~BIT(CROP);
	s->enabled |= BIT(DEMOSAIC) | BIT(CSC);
	s->crop_enabled = rnd(4);

	s->blc.white = (uint16_t)rnd_range(16384, 65535);
	for (int c = 0; c < 4; c++)
		s->blc.black[c] = (uint16_t)rnd(s->blc.white - 16384u + 1);

	s->dpc.threshold = (uint16_t)rnd(65536);
	s->dpc.count = (uint16_t)(rnd(8) == 0 ? CISP_DPC_MAX_PIXELS : rnd(40));
	for (unsigned i = 0, key = rnd(1000); i < s->dpc.count; i++, key += 1 + rnd(50)) {
		s->dpc.pixels[i].x = (uint16_t)(key % 4000);
		s->dpc.pixels[i].y = (uint16_t)(key / 4000);
	}

	for (int c = 0; c < 4; c++) {
		s->noise.a[c] = (uint32_t)test_rand();
		s->noise.b[c] = (uint32_t)test_rand();
	}
	s->bnr.strength = (uint16_t)rnd(1025);
	s->cnr.strength = (uint16_t)rnd(4097);
	s->cnr.luma_strength = (uint16_t)rnd_range(1, 4096);
	s->cnr.radius = (uint16_t)rnd_range(1, CISP_CNR_MAX_RADIUS);

	s->lsc.grid_w = (uint16_t)rnd_range(2, CISP_LSC_MAX_GRID);
	s->lsc.grid_h = (uint16_t)rnd_range(2, CISP_LSC_MAX_GRID);
	memset(s->lsc.gain, 0, sizeof(s->lsc.gain));
	for (int i = 0; i < 4 * s->lsc.grid_w * s->lsc.grid_h; i++)
		s->lsc.gain[i] = (uint16_t)rnd(65536);

	for (int c = 0; c < 4; c++)
		s->wb.gain[c] = (uint16_t)rnd(65536);
	s->demosaic.algorithm = (uint16_t)rnd(2);
	s->demosaic.false_colour = (uint16_t)rnd(257);

	for (int i = 0; i < 9; i++)
		s->ccm.coeff[i] = (int16_t)((int)rnd(2 * 10922 + 1) - 10922);
	for (int i = 0; i < 3; i++)
		s->ccm.offset[i] = (int32_t)rnd(2 * 65535 + 1) - 65535;

	s->tone.transfer = (uint16_t)rnd(3);
	for (int i = 0; i < CISP_TONE_POINTS; i++)
		s->tone.curve[i] = (uint16_t)rnd(65536);

	memset(s->lut3d.table, 0, sizeof(s->lut3d.table));
	s->lut3d.size = (uint16_t)(rnd(8) == 0 ? CISP_LUT3D_MAX_SIZE : rnd_range(2, 9));
	for (int i = 0; i < s->lut3d.size * s->lut3d.size * s->lut3d.size; i++)
		for (int c = 0; c < 3; c++)
			s->lut3d.table[i][c] = (uint16_t)rnd(65536);

	s->sharpen.strength = (uint16_t)rnd(2049);
	s->sharpen.coring = (uint16_t)rnd(65536);
	s->sharpen.limit = (uint16_t)rnd(65536);
	s->csc.matrix = (uint16_t)rnd(3);
	s->csc.range = (uint16_t)rnd(2);

	for (int o = 0; o < CISP_MAX_OUTPUTS; o++) {
		s->crop[o].x = (uint16_t)(2 * rnd(1000));
		s->crop[o].y = (uint16_t)(2 * rnd(1000));
		s->crop[o].width = (uint16_t)(2 * rnd_range(1, 2000));
		s->crop[o].height = (uint16_t)(2 * rnd_range(1, 2000));
	}

	s->stats.zones_x = (uint16_t)rnd_range(1, 32);
	s->stats.zones_y = (uint16_t)rnd_range(1, 32);
	s->stats.saturation = (uint16_t)rnd(65536);
	s->stats.af_count = (uint16_t)rnd(CISP_STATS_MAX_AF + 1);
	memset(s->stats.af, 0, sizeof(s->stats.af));
	for (int i = 0; i < s->stats.af_count; i++) {
		s->stats.af[i].x = (uint16_t)(2 * rnd(1000));
		s->stats.af[i].y = (uint16_t)(2 * rnd(1000));
		s->stats.af[i].width = (uint16_t)(2 * rnd_range(4, 500));
		s->stats.af[i].height = (uint16_t)(2 * rnd_range(4, 500));
	}
	s->stats.row_group = (uint16_t)rnd(16);
}

static bool same_state(const struct cisp_param_state *a, const struct cisp_param_state *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Encode @blocks of @s into a malloc()ed buffer. */
static uint8_t *encode(const struct cisp_param_state *s, uint32_t blocks, size_t *size)
{
	uint8_t *buf;

	CHECK_EQ(cisp_params_encode(s, blocks, NULL, 0, size), 0);
	buf = malloc(*size);
	CHECK_EQ(cisp_params_encode(s, blocks, buf, *size, size), 0);
	return buf;
}

static struct cisp_param_state *new_state(void)
{
	struct cisp_param_state *s = malloc(sizeof(*s));

	cisp_param_state_init(s);
	return s;
}

/*
 * The buffer must be rejected with @err and a message containing @needle, and
 * applying it must leave a (non-default) state exactly as it was.
 */
#define CHECK_REJECT(buf, size, limits, err, needle)                                               \
	do {                                                                                       \
		struct cisp_param_state *before_ = new_state(), *after_ = new_state();              \
		abi_random_state(before_);                                                             \
		*after_ = *before_;                                                                \
		CHECK_ERR(cisp_params_validate(buf, size, limits), err, needle);                   \
		CHECK_ERR(cisp_param_state_apply(after_, buf, size, limits), err, needle);         \
		CHECK(same_state(before_, after_));                                                \
		free(before_);                                                                     \
		free(after_);                                                                      \
	} while (0)

/* ---- defaults and names ---- */

TEST(abi_defaults)
{
	struct cisp_param_state *s = new_state();

	CHECK_EQ(s->enabled, BIT(BLC) | BIT(WB) | BIT(DEMOSAIC) | BIT(CCM) | BIT(TONE) | BIT(CSC) | BIT(STATS));
	CHECK_EQ(s->crop_enabled, 0);
	CHECK_EQ(s->blc.header.type, CISP_BLOCK_BLC);
	CHECK_EQ(s->blc.header.size, 24);
	CHECK_EQ(s->blc.header.flags, 0);
	CHECK_EQ(s->blc.black[0] + s->blc.black[3], 0);
	CHECK_EQ(s->blc.white, 65535);
	CHECK_EQ(s->dpc.count, 0);
	CHECK_EQ(s->dpc.threshold, 0);
	CHECK_EQ(s->dpc.header.size, 16 + 4 * 16384);
	CHECK_EQ(s->noise.a[2], 4 * 65536);
	CHECK_EQ(s->noise.b[3], 64);
	CHECK_EQ(s->bnr.strength, 224);
	CHECK_EQ(s->lsc.grid_w, 2);
	CHECK_EQ(s->lsc.grid_h, 2);
	CHECK_EQ(s->lsc.gain[15], 4096);
	CHECK_EQ(s->lsc.gain[16], 0);
	CHECK_EQ(s->wb.gain[1], 4096);
	CHECK_EQ(s->demosaic.algorithm, CISP_DEMOSAIC_FAST);
	CHECK_EQ(s->demosaic.false_colour, 256);
	CHECK_EQ(s->ccm.coeff[0], 4096);
	CHECK_EQ(s->ccm.coeff[1], 0);
	CHECK_EQ(s->ccm.coeff[4], 4096);
	CHECK_EQ(s->ccm.coeff[8], 4096);
	CHECK_EQ(s->ccm.header.size, 40);
	CHECK_EQ(s->tone.transfer, CISP_TRANSFER_SRGB);
	CHECK_EQ(s->tone.curve[1], 256);
	CHECK_EQ(s->tone.curve[255], 65280);
	CHECK_EQ(s->tone.curve[256], 65535);
	CHECK_EQ(s->lut3d.size, 2);
	/* node (r, g, b) = (1, 0, 1) is index (1 * 2 + 0) * 2 + 1 = 5 */
	CHECK_EQ(s->lut3d.table[5][0], 65535);
	CHECK_EQ(s->lut3d.table[5][1], 0);
	CHECK_EQ(s->lut3d.table[5][2], 65535);
	CHECK_EQ(s->lut3d.header.size, 215640);
	CHECK_EQ(s->sharpen.strength, 256);
	CHECK_EQ(s->sharpen.coring, 256);
	CHECK_EQ(s->sharpen.limit, 4096);
	CHECK_EQ(s->csc.matrix, CISP_CSC_BT709);
	CHECK_EQ(s->csc.range, CISP_RANGE_LIMITED);
	CHECK_EQ(s->crop[1].output, 1);
	CHECK_EQ(s->crop[1].header.type, CISP_BLOCK_CROP);
	CHECK_EQ(s->crop[0].width, 16);
	CHECK_EQ(s->stats.zones_x, 16);
	CHECK_EQ(s->stats.zones_y, 12);
	CHECK_EQ(s->stats.saturation, 65000);
	CHECK_EQ(s->stats.af_count, 0);
	CHECK_EQ(s->stats.row_group, 0);
	free(s);
}

TEST(abi_block_names)
{
	static const char *const names[] = { "unknown", "blc", "dpc",   "noise",   "bnr", "lsc",  "wb",   "demosaic",
					     "ccm",     "tone", "lut3d", "sharpen", "csc", "crop", "stats", "cnr",
					     "highlights", "ltm" };

	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++) {
		CHECK(!strcmp(cisp_block_name(t), names[t]));
		CHECK_EQ(cisp_block_type_from_name(names[t]), t);
	}
	CHECK(!strcmp(cisp_block_name(0), "unknown"));
	CHECK(!strcmp(cisp_block_name(18), "unknown"));
	CHECK(!strcmp(cisp_block_name(0xffff), "unknown"));
	CHECK_EQ(cisp_block_type_from_name("unknown"), 0);
	CHECK_EQ(cisp_block_type_from_name("LSC"), 0);
}

/* ---- encode ---- */

TEST(abi_encode_default_state)
{
	struct cisp_param_state *s = new_state(), *t = new_state();
	size_t size;
	uint8_t *buf = encode(s, ~0u, &size);
	/* header, then each block: blc 24, dpc 16 (no pixels), noise 40, bnr 16, lsc 16 + 2*2*8, wb 16,
	 * demosaic 16, ccm 40, tone 536, lut3d 16 + 8*6, sharpen 16, csc 16, crop 2 * 24, stats 88, cnr 16,
	 * highlights 16, ltm 16 + 2*2*4 */
	const size_t expected = 16 + 24 + 16 + 40 + 16 + 48 + 16 + 16 + 40 + 536 + 64 + 16 + 16 + 48 + 88 + 16 + 16 + 32;
	static const struct {
		uint16_t type, flags;
		uint32_t size;
	} blocks[] = { { 1, 2, 24 }, { 2, 1, 16 },  { 3, 0, 40 },  { 4, 1, 16 },  { 5, 1, 48 },
		       { 6, 2, 16 }, { 7, 2, 16 },  { 8, 2, 40 },  { 9, 2, 536 }, { 10, 1, 64 },
		       { 11, 1, 16 }, { 12, 2, 16 }, { 13, 1, 24 }, { 13, 1, 24 }, { 14, 2, 88 },
		       { 15, 1, 16 }, { 16, 1, 16 }, { 17, 1, 32 } };
	size_t off = 16;

	CHECK_EQ(size, expected);
	CHECK_EQ(buf[0], 'C');
	CHECK_EQ(buf[1], 'I');
	CHECK_EQ(buf[2], 'S');
	CHECK_EQ(buf[3], 'P');
	CHECK_EQ(buf[4] | buf[5] << 8, 1);
	CHECK_EQ(abi_rd32(buf + 8), expected);
	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		CHECK_EQ(abi_rd16(buf + off), blocks[i].type);
		CHECK_EQ(abi_rd16(buf + off + 2), blocks[i].flags);
		CHECK_EQ(abi_rd32(buf + off + 4), blocks[i].size);
		off += blocks[i].size;
	}
	/* The crop blocks name their outputs, the LSC block its 2x2 grid. */
	CHECK_EQ(abi_rd16(buf + 16 + 24 + 16 + 40 + 16 + 8), 2);
	CHECK_EQ(abi_rd16(buf + 16 + 24 + 16 + 40 + 16 + 16), 4096);
	CHECK_EQ(abi_rd16(buf + expected - 32 - 16 - 16 - 88 - 24 + 8), 1);
	CHECK_EQ(cisp_param_state_apply(t, buf, size, NULL), 0);
	CHECK(same_state(s, t));
	free(buf);
	free(s);
	free(t);
}

TEST(abi_encode_largest_state)
{
	struct cisp_param_state *s = new_state(), *t = new_state();
	size_t size;
	uint8_t *buf;

	s->dpc.count = CISP_DPC_MAX_PIXELS;
	for (unsigned i = 0; i < CISP_DPC_MAX_PIXELS; i++) {
		s->dpc.pixels[i].x = (uint16_t)(i % 128 * 2);
		s->dpc.pixels[i].y = (uint16_t)(i / 128);
	}
	s->lsc.grid_w = s->lsc.grid_h = CISP_LSC_MAX_GRID;
	s->lut3d.size = CISP_LUT3D_MAX_SIZE;
	s->ltm.grid_w = s->ltm.grid_h = CISP_LTM_MAX_GRID;
	for (unsigned i = 0; i < CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID; i++)
		s->ltm.node[CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID + i] = 256;
	buf = encode(s, ~0u, &size);
	/* dpc 16 + 65536, lsc 16 + 32768, lut3d 16 + 215622 rounded to 215640, ltm 16 + 4096 */
	CHECK_EQ(size,
		 16 + 24 + 65552 + 40 + 16 + 32784 + 16 + 16 + 40 + 536 + 215640 + 16 + 16 + 48 + 88 + 16 + 16 + 4112);
	CHECK(size <= CISP_PARAMS_MAX_SIZE);
	CHECK_EQ(cisp_param_state_apply(t, buf, size, NULL), 0);
	CHECK(same_state(s, t));
	free(buf);
	free(s);
	free(t);
}

TEST(abi_encode_sizes_and_space)
{
	struct cisp_param_state *s = new_state();
	uint8_t buf[256];
	size_t size = 0;

	s->dpc.count = 3;
	s->dpc.pixels[0].x = 5;
	s->dpc.pixels[1].x = 9;
	s->dpc.pixels[2].y = 1;
	CHECK_EQ(cisp_params_encode(s, BIT(DPC), NULL, 0, &size), 0);
	CHECK_EQ(size, 16 + 32); /* 16 + 3 * 4 = 28, rounded up to 32 */
	CHECK_ERR(cisp_params_encode(s, BIT(DPC), buf, 47, &size), -ENOSPC, "needs 48 bytes");
	CHECK_EQ(size, 48);
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(cisp_params_encode(s, BIT(DPC), buf, sizeof(buf), &size), 0);
	CHECK_EQ(abi_rd32(buf + 16 + 4), 32);
	CHECK_EQ(abi_rd16(buf + 16 + 2), CISP_BLOCK_FL_DISABLE);
	CHECK_EQ(abi_rd16(buf + 16 + 10), 3);
	CHECK_EQ(abi_rd16(buf + 16 + 16 + 10), 1);              /* pixels[2].y */
	CHECK_EQ(abi_rd32(buf + 16 + 28), 0);                   /* padding */
	CHECK_EQ(cisp_params_encode(s, 0, buf, 16, &size), 0); /* just a header */
	CHECK_EQ(size, 16);
	CHECK_EQ(cisp_params_encode(s, 1u << 0 | 1u << 20, buf, 16, &size), 0); /* not block types */
	CHECK_EQ(size, 16);
	CHECK_EQ(cisp_params_validate(buf, 16, NULL), 0);
	free(s);
}

TEST(abi_encode_refuses_an_invalid_state)
{
	struct cisp_param_state *s = new_state();
	uint8_t *buf = malloc(CISP_PARAMS_MAX_SIZE);
	size_t size;

	s->lsc.grid_w = 65;
	CHECK_ERR(cisp_params_encode(s, BIT(LSC), buf, CISP_PARAMS_MAX_SIZE, &size), -EINVAL,
		  "block lsc: grid_w = 65 is out of range 2..64");
	cisp_param_state_init(s);
	s->dpc.count = 60000;
	CHECK_ERR(cisp_params_encode(s, ~0u, NULL, 0, &size), -EINVAL, "count = 60000 is out of range 0..16384");
	cisp_param_state_init(s);
	s->blc.black[2] = 60000;
	CHECK_ERR(cisp_params_encode(s, ~0u, buf, CISP_PARAMS_MAX_SIZE, &size), -EINVAL,
		  "the state to encode is invalid: params block 0 (blc) at offset 16: white - black[2]");
	free(buf);
	free(s);
}

/* ---- round trips ---- */

TEST(abi_random_states_round_trip)
{
	struct cisp_param_state *s = new_state(), *t = new_state();

	for (int i = 0; i < 200; i++) {
		size_t size;
		uint8_t *buf;

		abi_random_state(s);
		buf = encode(s, ~0u, &size);
		cisp_param_state_init(t);
		CHECK_EQ(cisp_param_state_apply(t, buf, size, NULL), 0);
		CHECK(same_state(s, t));
		free(buf);
	}
	free(s);
	free(t);
}

TEST(abi_subsets_apply_only_their_blocks)
{
	struct cisp_param_state *a = new_state(), *b = new_state(), *t = new_state();

	for (int i = 0; i < 100; i++) {
		uint32_t mask = (uint32_t)test_rand() & ALL_BLOCKS;
		size_t size;
		uint8_t *buf;

		abi_random_state(a);
		abi_random_state(b);
		buf = encode(b, mask, &size);
		*t = *a;
		CHECK_EQ(cisp_param_state_apply(t, buf, size, NULL), 0);
		/* Every block of the mask now equals b's, every other one is still a's. */
		CHECK_EQ(cisp_params_diff(t, b) & mask, 0);
		CHECK_EQ(cisp_params_diff(t, a) & ~mask, 0);
		free(buf);
	}
	free(a);
	free(b);
	free(t);
}

TEST(abi_copy_is_applying_the_encoded_blocks)
{
	struct cisp_param_state *a = new_state(), *b = new_state(), *applied = new_state(), *copied = new_state();

	for (int i = 0; i < 100; i++) {
		uint32_t mask = i ? (uint32_t)test_rand() & ALL_BLOCKS : ~0u;
		size_t size;
		uint8_t *buf;

		abi_random_state(a);
		abi_random_state(b);
		/* Stale entries past the counts: the buffer carries zeros there, and so does the copy. */
		if (b->dpc.count < CISP_DPC_MAX_PIXELS)
			b->dpc.pixels[b->dpc.count].x = 7;
		buf = encode(b, mask, &size);
		*applied = *a;
		CHECK_EQ(cisp_param_state_apply(applied, buf, size, NULL), 0);
		*copied = *a;
		CHECK_EQ(cisp_param_state_copy(copied, b, mask, NULL), 0);
		CHECK(!memcmp(applied, copied, sizeof(*copied)));
		free(buf);
	}
	free(a);
	free(b);
	free(applied);
	free(copied);
}

TEST(abi_copy_refuses_an_invalid_block_and_changes_nothing)
{
	struct cisp_param_state *src = new_state(), *dst = new_state(), *before = new_state();
	struct cisp_params_limits no_lsc = { 0, 0, ALL_BLOCKS & ~BIT(LSC), 3 };

	abi_random_state(dst);
	*before = *dst;
	src->wb.gain[0] = 8192;
	src->blc.black[2] = 60000; /* above the white level */
	CHECK_ERR(cisp_param_state_copy(dst, src, BIT(WB) | BIT(BLC), NULL), -EINVAL, "state block blc: white - black[2]");
	CHECK(!memcmp(dst, before, sizeof(*dst))); /* not even the valid WB block */
	cisp_param_state_init(src);
	src->lsc.grid_w = 65;
	CHECK_ERR(cisp_param_state_copy(dst, src, BIT(LSC), NULL), -EINVAL, "state block lsc: grid_w = 65 is out of range 2..64");
	cisp_param_state_init(src);
	CHECK_ERR(cisp_param_state_copy(dst, src, BIT(LSC), &no_lsc), -ENOTSUP, "does not implement lsc blocks");
	src->crop[1].width = 3; /* odd */
	CHECK(cisp_param_state_copy(dst, src, BIT(CROP), NULL) < 0);
	CHECK(strstr(cisp_last_error(), "state block crop of output preview") != NULL);
	CHECK(!memcmp(dst, before, sizeof(*dst)));
	free(src);
	free(dst);
	free(before);
}

TEST(abi_fixed_u16_rounds_half_away_and_clamps)
{
	CHECK_EQ(abi_fixed_u16(1.0, 4096), 4096);
	CHECK_EQ(abi_fixed_u16(0.5 / 4096, 4096), 1);       /* a half rounds up */
	CHECK_EQ(abi_fixed_u16(2.5, 1), 3);                  /* not to even */
	CHECK_EQ(abi_fixed_u16(0.49999 / 4096, 4096), 0);
	CHECK_EQ(abi_fixed_u16(15.99976, 4096), 65535);     /* the largest Q4.12 gain */
	CHECK_EQ(abi_fixed_u16(16.0, 4096), 65535);         /* clamped */
	CHECK_EQ(abi_fixed_u16(1e300, 4096), 65535);
	CHECK_EQ(abi_fixed_u16(-0.3, 4096), 0);
	CHECK_EQ(abi_fixed_u16(-1e300, 4096), 0);
	CHECK_EQ(abi_fixed_u16(NAN, 4096), 0);
	CHECK_EQ(abi_fixed_u16(0.1628, 256), 42);           /* 41.68: a Q8.8 strength */
}

TEST(abi_fixed_ccm_row_rounds_keeps_white_and_reports_overflow)
{
	long q[3];

	/* 1.62 x 4096 = 6635.52 rounds to 6636; the diagonal takes the row's rounding error. */
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ 1.62, -0.45, -0.17 }, 0, true, q), 0);
	CHECK_EQ(q[0], 6635);
	CHECK_EQ(q[1], -1843);
	CHECK_EQ(q[2], -696);
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ 1.62, -0.45, -0.17 }, 0, false, q), 0);
	CHECK_EQ(q[0], 6636); /* as rounded: 6636 - 1843 - 696 = 4097 */
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ -0.5 / 4096, 1, 0 }, 1, false, q), 0);
	CHECK_EQ(q[0], -1); /* halves away from zero */
	/* The ABI's limit is 32767 for the row's magnitudes, not for each coefficient. */
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ -3.5, 4.49, 0 }, 1, false, q), 0); /* 14336 + 18391 */
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ -3.5, 4.5, 0 }, 1, false, q), -ERANGE); /* 14336 + 18432 */
	CHECK_EQ(q[0], -14336);
	CHECK_EQ(q[1], 18432);
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ 9, 0, 0 }, 0, false, q), -ERANGE);
	CHECK_EQ(q[0], 36864);
	/* Hostile values are held and reported, never undefined. */
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ 1e300, 0, 0 }, 0, false, q), -ERANGE);
	CHECK_EQ(q[0], 1L << 30);
	CHECK_EQ(abi_fixed_ccm_row((const double[3]){ NAN, 0, 0 }, 0, false, q), -ERANGE);
	CHECK_EQ(q[0], 0);
}

TEST(abi_diff)
{
	struct cisp_param_state *a = new_state(), *b = new_state();
	size_t size;
	uint8_t *buf;

	CHECK_EQ(cisp_params_diff(a, b), 0);
	b->wb.gain[2] = 5000;
	b->enabled &= ~BIT(STATS);
	b->crop_enabled = 2;
	b->lsc.grid_w = 3; /* a larger grid of the same values up to 2x2 still differs */
	CHECK_EQ(cisp_params_diff(a, b), BIT(WB) | BIT(STATS) | BIT(CROP) | BIT(LSC));
	*b = *a;
	b->dpc.pixels[5].x = 7; /* past count: not part of the value */
	CHECK_EQ(cisp_params_diff(a, b), 0);

	for (int i = 0; i < 100; i++) {
		uint32_t mask;

		abi_random_state(a);
		abi_random_state(b);
		if (i % 2)
			b->tone = a->tone, b->enabled = a->enabled, b->crop[1] = a->crop[1];
		mask = cisp_params_diff(a, b);
		buf = encode(b, mask, &size);
		CHECK_EQ(cisp_param_state_apply(a, buf, size, NULL), 0);
		CHECK(same_state(a, b));
		CHECK_EQ(cisp_params_diff(a, b), 0);
		free(buf);
	}
	free(a);
	free(b);
}

TEST(abi_flags_semantics)
{
	struct cisp_param_state *s = new_state();
	struct pbuf b;
	struct cisp_wb_params *wb;
	struct cisp_crop_params *crop;

	/* DISABLE without a payload keeps the stored values. */
	pb_init(&b);
	pb_block(&b, CISP_BLOCK_WB, CISP_BLOCK_FL_DISABLE, 8);
	s->wb.gain[0] = 1234;
	CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
	CHECK_EQ(s->enabled & BIT(WB), 0);
	CHECK_EQ(s->wb.gain[0], 1234);
	pb_free(&b);

	/* No flag: the payload applies, the stage stays disabled. */
	pb_init(&b);
	wb = pb_block(&b, CISP_BLOCK_WB, 0, sizeof(*wb));
	wb->gain[0] = 8192;
	CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
	CHECK_EQ(s->enabled & BIT(WB), 0);
	CHECK_EQ(s->wb.gain[0], 8192);
	CHECK_EQ(s->wb.gain[1], 0);
	/* ENABLE: applies and enables; DISABLE with a payload stores it and disables. */
	wb->header.flags = CISP_BLOCK_FL_ENABLE;
	wb->gain[0] = 4096;
	CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
	CHECK(s->enabled & BIT(WB));
	CHECK_EQ(s->wb.gain[0], 4096);
	wb->header.flags = CISP_BLOCK_FL_DISABLE;
	wb->gain[3] = 100;
	CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
	CHECK_EQ(s->enabled & BIT(WB), 0);
	CHECK_EQ(s->wb.gain[3], 100);
	CHECK_EQ(s->wb.header.flags, 0); /* the state keeps its own header */
	CHECK_EQ(s->wb.header.size, 16);
	pb_free(&b);

	/* CROP: per output. */
	pb_init(&b);
	crop = pb_block(&b, CISP_BLOCK_CROP, CISP_BLOCK_FL_ENABLE, sizeof(*crop));
	crop->output = 1;
	crop->x = 2;
	crop->width = crop->height = 64;
	CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
	CHECK_EQ(s->crop_enabled, 2);
	CHECK_EQ(s->crop[1].x, 2);
	CHECK_EQ(s->crop[1].width, 64);
	CHECK_EQ(s->crop[0].width, 16);
	CHECK_EQ(s->enabled & BIT(CROP), 0);
	pb_free(&b);

	/* NOISE has no enabled bit; ENABLE on demosaic is allowed and changes nothing. */
	pb_init(&b);
	pb_block(&b, CISP_BLOCK_NOISE, 0, sizeof(struct cisp_noise_params));
	((struct cisp_demosaic_params *)pb_block(&b, CISP_BLOCK_DEMOSAIC, CISP_BLOCK_FL_ENABLE, 16))->algorithm = 1;
	{
		uint32_t enabled = s->enabled;

		CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
		CHECK_EQ(s->enabled, enabled);
		CHECK_EQ(s->noise.a[0], 0);
		CHECK_EQ(s->demosaic.algorithm, 1);
		CHECK_EQ(s->demosaic.false_colour, 0);
	}
	pb_free(&b);

	/* A variable-length block clears the entries past its new count. */
	s->dpc.count = 3;
	s->dpc.pixels[2].x = 99;
	pb_init(&b);
	((struct cisp_dpc_params *)pb_block(&b, CISP_BLOCK_DPC, 0, 16 + 8))->count = 2;
	((struct cisp_dpc_params *)(b.data + 16))->pixels[1].x = 1;
	CHECK_EQ(cisp_param_state_apply(s, b.data, b.size, NULL), 0);
	CHECK_EQ(s->dpc.count, 2);
	CHECK_EQ(s->dpc.pixels[1].x, 1);
	CHECK_EQ(s->dpc.pixels[2].x, 0);
	pb_free(&b);

	/* An empty buffer (a header alone) is valid and changes nothing. */
	pb_init(&b);
	CHECK_EQ(cisp_params_validate(b.data, b.size, NULL), 0);
	pb_free(&b);
	free(s);
}

TEST(abi_unaligned_buffer)
{
	struct cisp_param_state *s = new_state(), *t = new_state();
	size_t size;
	uint8_t *buf, *odd;

	abi_random_state(s);
	buf = encode(s, ~0u, &size);
	odd = malloc(size + 1);
	memcpy(odd + 1, buf, size);
	CHECK_EQ(cisp_params_validate(odd + 1, size, NULL), 0);
	CHECK_EQ(cisp_param_state_apply(t, odd + 1, size, NULL), 0);
	CHECK(same_state(s, t));
	odd[1 + 16 + 16] = odd[1 + 16 + 17] = 0; /* blc.white */
	CHECK_ERR(cisp_params_validate(odd + 1, size, NULL), -EINVAL, "params block 0 (blc) at offset 16: white");
	free(odd);
	free(buf);
	free(s);
	free(t);
}

/* ---- hostile buffers ---- */

TEST(abi_bad_header)
{
	struct pbuf b;
	uint8_t *big;

	pb_init(&b);
	pb_block(&b, CISP_BLOCK_BNR, CISP_BLOCK_FL_DISABLE, 8);
	CHECK_REJECT(b.data, 0, NULL, -EMSGSIZE, "params buffer of 0 bytes is shorter than its 16-byte header");
	CHECK_REJECT(b.data, 15, NULL, -EMSGSIZE, "params buffer of 15 bytes is shorter than its 16-byte header");
	CHECK_ERR(cisp_params_validate(NULL, 0, NULL), -EMSGSIZE, "shorter than its 16-byte header");

	b.data[0] = 'X';
	CHECK_REJECT(b.data, b.size, NULL, -EPROTO, "params header: magic 0x50534958 is not 0x50534943 (\"CISP\")");
	b.data[0] = 'C';
	b.data[4] = 2;
	CHECK_REJECT(b.data, b.size, NULL, -EPROTONOSUPPORT, "params header: version 2 is not supported");
	b.data[4] = 1;
	b.data[6] = 1;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params header: reserved0 = 1 must be 0");
	b.data[6] = 0;
	b.data[13] = 1;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params header: reserved1 = 256 must be 0");
	b.data[13] = 0;

	pb_set_total(&b, 28);
	CHECK_REJECT(b.data, 28, NULL, -EMSGSIZE, "params header: total_size 28 is not a multiple of 8");
	pb_set_total(&b, 32);
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "params header: total_size 32 does not match the buffer size 24");
	CHECK_REJECT(b.data, 40, NULL, -EMSGSIZE, "params header: total_size 32 does not match the buffer size 40");
	pb_set_total(&b, 24);

	/* Oversized: a well-formed buffer of 1 MiB + 8 bytes (empty blocks) is still too big. */
	big = calloc(1, CISP_PARAMS_MAX_SIZE + 8);
	memcpy(big, b.data, 16);
	for (size_t off = 16; off < CISP_PARAMS_MAX_SIZE + 8; off += 8) {
		big[off] = CISP_BLOCK_BNR;
		big[off + 2] = CISP_BLOCK_FL_DISABLE;
		big[off + 4] = 8;
	}
	{
		uint32_t total = CISP_PARAMS_MAX_SIZE + 8;

		memcpy(big + 8, &total, 4);
	}
	CHECK_REJECT(big, CISP_PARAMS_MAX_SIZE + 8, NULL, -EMSGSIZE,
		     "params header: total_size 1048584 is over the maximum of 1048576 bytes");
	free(big);
	pb_free(&b);
}

TEST(abi_bad_framing)
{
	struct cisp_param_state *s = new_state();
	struct pbuf b;
	uint8_t *p;

	/* block 1 at offset 40 (after blc at 16) */
	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_BLC);
	p = pb_block(&b, CISP_BLOCK_WB, 0, 16);
	p[4] = 4;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE,
		     "params block 1 (wb) at offset 40: size 4 is smaller than the 8-byte block header");
	p[4] = 0;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "params block 1 (wb) at offset 40: size 0 is smaller");
	p[4] = 12;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "params block 1 (wb) at offset 40: size 12 is not a multiple of 8");
	p[4] = 24;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE,
		     "params block 1 (wb) at offset 40: size 24 runs past the end of the buffer (16 bytes left)");
	p[4] = 0;
	p[7] = 0x80; /* a size near 2^32 must not wrap */
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "size 2147483648 runs past the end of the buffer (16 bytes left)");
	p[7] = 0;
	p[4] = 16;

	p[0] = 0;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 1 (unknown) at offset 40: unknown block type 0");
	p[0] = 18;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 1 (unknown) at offset 40: unknown block type 18");
	p[0] = 0xff;
	p[1] = 0xff;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "unknown block type 65535");
	p[0] = CISP_BLOCK_WB;
	p[1] = 0;
	CHECK_EQ(cisp_params_validate(b.data, b.size, NULL), 0);

	/* Fixed-size blocks are exactly their structure. */
	pb_free(&b);
	pb_init(&b);
	pb_block(&b, CISP_BLOCK_WB, 0, 24);
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE,
		     "params block 0 (wb) at offset 16: size 24 is not the 16 bytes of a wb block");
	pb_free(&b);
	pb_init(&b);
	pb_block(&b, CISP_BLOCK_BLC, CISP_BLOCK_FL_ENABLE, 8);
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE,
		     "params block 0 (blc) at offset 16: size 8 omits the payload, which only DISABLE may do");
	pb_free(&b);
	pb_init(&b);
	pb_block(&b, CISP_BLOCK_CROP, CISP_BLOCK_FL_DISABLE, 8);
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "which crop blocks always need (it names the output)");
	pb_free(&b);
	free(s);
}

TEST(abi_variable_length_sizes)
{
	struct cisp_param_state *s = new_state();
	struct pbuf b;
	uint8_t *p;

	s->dpc.count = 3;
	s->dpc.pixels[1].x = 1;
	s->dpc.pixels[2].x = 2;
	pb_init(&b);
	p = pb_from_state(&b, s, CISP_BLOCK_DPC);
	CHECK_EQ(abi_rd32(p + 4), 32);
	CHECK_EQ(cisp_params_validate(b.data, b.size, NULL), 0);
	p[10] = 4; /* count 4 fits the same 32 bytes, but its 4th pixel (the zero padding) is out of order */
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "pixels[3] (0, 0) does not come after pixels[2] (2, 0)");
	p[10] = 5;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE,
		     "params block 0 (dpc) at offset 16: size 32 does not match count = 5 (expected 40)");
	p[10] = 2;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "size 32 does not match count = 2 (expected 24)");
	p[10] = 3;
	p[28] = 1; /* the padding after pixels[2] */
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL,
		     "params block 0 (dpc) at offset 16: padding byte 28 after the last entry is 1, not 0");
	pb_free(&b);

	pb_init(&b);
	s->lsc.grid_w = 3;
	s->lsc.grid_h = 5;
	p = pb_from_state(&b, s, CISP_BLOCK_LSC);
	CHECK_EQ(abi_rd32(p + 4), 16 + 8 * 15);
	p[8] = 4;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "size 136 does not match grid_w = 4, grid_h = 5 (expected 176)");
	p[8] = 1;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 0 (lsc) at offset 16: grid_w = 1 is out of range 2..64");
	p[8] = 3;
	p[10] = 65;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "grid_h = 65 is out of range 2..64");
	pb_free(&b);

	pb_init(&b);
	s->lut3d.size = 3;
	p = pb_from_state(&b, s, CISP_BLOCK_LUT3D);
	CHECK_EQ(abi_rd32(p + 4), 16 + 168); /* 6 * 27 = 162 rounded to 168 */
	p[16 + 162] = 9;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "padding byte 178 after the last entry is 9, not 0");
	p[16 + 162] = 0;
	p[8] = 34;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 0 (lut3d) at offset 16: size = 34 is out of range 2..33");
	p[8] = 1;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "size = 1 is out of range 2..33");
	p[8] = 4;
	CHECK_REJECT(b.data, b.size, NULL, -EMSGSIZE, "size 184 does not match size = 4 (expected 400)");
	pb_free(&b);

	/* The largest LUT's last two bytes are the structure's pad field. */
	pb_init(&b);
	s->lut3d.size = 33;
	p = pb_from_state(&b, s, CISP_BLOCK_LUT3D);
	CHECK_EQ(abi_rd32(p + 4), 215640);
	p[215638] = 1;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "pad = 1 must be 0 (reserved)");
	pb_free(&b);
	free(s);
}

TEST(abi_bad_flags)
{
	struct cisp_param_state *s = new_state();
	struct pbuf b;
	uint8_t *p;

	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_STATS);
	p = pb_from_state(&b, s, CISP_BLOCK_WB);
	p[2] = 4;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL,
		     "params block 1 (wb) at offset 104: flags 0x0004 have unknown bits 0x0004");
	p[2] = 0;
	p[3] = 0x80;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "flags 0x8000 have unknown bits 0x8000");
	p[3] = 0;
	p[2] = 3;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 1 (wb) at offset 104: flags 0x0003 set both ENABLE and DISABLE");
	pb_free(&b);

	pb_init(&b);
	p = pb_from_state(&b, s, CISP_BLOCK_DEMOSAIC);
	p[2] = CISP_BLOCK_FL_DISABLE;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 0 (demosaic) at offset 16: DISABLE on demosaic, which cannot be disabled");
	p[4] = 8; /* without a payload too */
	b.size = 24;
	pb_set_total(&b, 24);
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "DISABLE on demosaic, which cannot be disabled");
	pb_free(&b);

	pb_init(&b);
	p = pb_from_state(&b, s, CISP_BLOCK_CSC);
	p[2] = CISP_BLOCK_FL_DISABLE;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "DISABLE on csc, which cannot be disabled");
	pb_free(&b);

	pb_init(&b);
	p = pb_from_state(&b, s, CISP_BLOCK_NOISE);
	CHECK_EQ(p[2], 0);
	for (unsigned f = 1; f <= 2; f++) {
		p[2] = (uint8_t)f;
		CHECK_REJECT(b.data, b.size, NULL, -EINVAL,
			     "params block 0 (noise) at offset 16: flags 0x000");
		CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "on noise, which takes none (it has no enabled state)");
	}
	pb_free(&b);
	free(s);
}

TEST(abi_duplicates)
{
	struct cisp_param_state *s = new_state();
	struct pbuf b;
	uint8_t *p;

	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_WB);
	pb_from_state(&b, s, CISP_BLOCK_BLC);
	pb_block(&b, CISP_BLOCK_WB, CISP_BLOCK_FL_DISABLE, 8);
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL,
		     "params block 2 (wb) at offset 56: duplicate of block 0 at offset 16 (each type once)");
	pb_free(&b);

	/* One crop per output is fine, two for the same output are not. */
	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_CROP); /* outputs 0 and 1 */
	CHECK_EQ(cisp_params_validate(b.data, b.size, NULL), 0);
	p = b.data + 16 + 24;
	p[8] = 0;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL,
		     "params block 1 (crop) at offset 40: duplicate of block 0 at offset 16 (each type once per output)");
	p[8] = 2;
	CHECK_REJECT(b.data, b.size, NULL, -EINVAL, "params block 1 (crop) at offset 40: output = 2 is out of range 0..1");
	pb_free(&b);
	free(s);
}

/* Set one element, expect the error. */
static void expect_field_error(struct cisp_param_state *s, unsigned type, size_t offset, int64_t value, unsigned bytes,
			       int err, const char *needle)
{
	struct pbuf b;
	uint8_t *p;

	pb_init(&b);
	p = pb_from_state(&b, s, type);
	for (unsigned i = 0; i < bytes; i++)
		p[offset + i] = (uint8_t)((uint64_t)value >> (8 * i));
	CHECK_REJECT(b.data, b.size, NULL, err, needle);
	pb_free(&b);
}

TEST(abi_field_ranges)
{
	struct cisp_param_state *s = new_state();

	/* BLC: white - black >= 16384. */
	s->blc.white = 20000;
	s->blc.black[1] = 3616;
	expect_field_error(s, CISP_BLOCK_BLC, 10, 3617, 2, -EINVAL,
			   "params block 0 (blc) at offset 16: white - black[1] = 16383 is below 16384 (white 20000, black[1] 3617)");
	expect_field_error(s, CISP_BLOCK_BLC, 10, 30000, 2, -EINVAL, "white - black[1] = -10000 is below 16384");
	cisp_param_state_init(s);

	/* BNR strength 0..1024, demosaic false colour 0..256, sharpen strength 0..2048. */
	expect_field_error(s, CISP_BLOCK_BNR, 8, 1025, 2, -EINVAL, "params block 0 (bnr) at offset 16: strength = 1025 is out of range 0..1024");
	expect_field_error(s, CISP_BLOCK_DEMOSAIC, 10, 257, 2, -EINVAL, "false_colour = 257 is out of range 0..256");
	expect_field_error(s, CISP_BLOCK_DEMOSAIC, 8, 2, 2, -EINVAL, "algorithm = 2 is not a known value (0..1)");
	expect_field_error(s, CISP_BLOCK_SHARPEN, 8, 2049, 2, -EINVAL, "strength = 2049 is out of range 0..2048");
	expect_field_error(s, CISP_BLOCK_TONE, 8, 3, 2, -EINVAL, "params block 0 (tone) at offset 16: transfer = 3 is not a known value (0..2)");
	expect_field_error(s, CISP_BLOCK_CSC, 8, 3, 2, -EINVAL, "matrix = 3 is not a known value (0..2)");
	expect_field_error(s, CISP_BLOCK_CSC, 10, 2, 2, -EINVAL, "range = 2 is not a known value (0..1)");

	/* CCM: offsets, and each row's sum of |coeff| <= 32767. */
	expect_field_error(s, CISP_BLOCK_CCM, 28 + 8, 65536, 4, -EINVAL, "params block 0 (ccm) at offset 16: offset[2] = 65536 is out of range -65535..65535");
	expect_field_error(s, CISP_BLOCK_CCM, 28, -65536, 4, -EINVAL, "offset[0] = -65536 is out of range -65535..65535");
	s->ccm.coeff[3] = -16384;
	s->ccm.coeff[4] = 16383;
	expect_field_error(s, CISP_BLOCK_CCM, 8 + 2 * 5, 1, 2, -EINVAL,
			   "row 1: the sum of |coeff| = 32768 is over 32767 (|-16384| + |16383| + |1|)");
	cisp_param_state_init(s);

	/* Stats: zones 1..32, af_count 0..8, AF windows at least 8x8 (anywhere, on odd pixels too). */
	expect_field_error(s, CISP_BLOCK_STATS, 8, 0, 2, -EINVAL, "params block 0 (stats) at offset 16: zones_x = 0 is out of range 1..32");
	expect_field_error(s, CISP_BLOCK_STATS, 10, 33, 2, -EINVAL, "zones_y = 33 is out of range 1..32");
	expect_field_error(s, CISP_BLOCK_STATS, 14, 9, 2, -EINVAL, "af_count = 9 is out of range 0..8");
	s->stats.af_count = 2;
	s->stats.af[0] = (struct cisp_stats_window){ 0, 0, 8, 8 };
	s->stats.af[1] = (struct cisp_stats_window){ 100, 200, 64, 32 };
	expect_field_error(s, CISP_BLOCK_STATS, 16 + 8 + 4, 7, 2, -EINVAL, "af[1] 7x32 is smaller than 8x8");
	expect_field_error(s, CISP_BLOCK_STATS, 16 + 8 + 4, 6, 2, -EINVAL, "af[1] 6x32 is smaller than 8x8");
	expect_field_error(s, CISP_BLOCK_STATS, 16 + 8 + 6, 0, 2, -EINVAL, "af[1] 64x0 is smaller than 8x8");
	expect_field_error(s, CISP_BLOCK_STATS, 16 + 16, 2, 2, -EINVAL, "af[2][0] = 2 must be 0: it is past the af_count in use");
	expect_field_error(s, CISP_BLOCK_STATS, 82, 1, 2, -EINVAL, "reserved[0] = 1 must be 0 (reserved)");
	cisp_param_state_init(s);

	/* Crop: even, at least 2x2. */
	expect_field_error(s, CISP_BLOCK_CROP, 12, 1, 2, -EINVAL, "params block 0 (crop) at offset 16: x = 1 is odd");
	expect_field_error(s, CISP_BLOCK_CROP, 18, 15, 2, -EINVAL, "height = 15 is odd");
	expect_field_error(s, CISP_BLOCK_CROP, 16, 0, 2, -EINVAL, "0x16 is smaller than 2x2");
	expect_field_error(s, CISP_BLOCK_CROP, 10, 1, 2, -EINVAL, "reserved0 = 1 must be 0 (reserved)");
	expect_field_error(s, CISP_BLOCK_CROP, 20, 1, 4, -EINVAL, "reserved1 = 1 must be 0 (reserved)");

	/* DPC: sorted by row then column, no duplicates. */
	s->dpc.count = 3;
	s->dpc.pixels[0] = (struct cisp_dpc_pixel){ 10, 1 };
	s->dpc.pixels[1] = (struct cisp_dpc_pixel){ 4, 2 };
	s->dpc.pixels[2] = (struct cisp_dpc_pixel){ 5, 2 };
	expect_field_error(s, CISP_BLOCK_DPC, 16 + 8, 4, 2, -EINVAL,
			   "params block 0 (dpc) at offset 16: pixels[2] (4, 2) does not come after pixels[1] (4, 2)");
	expect_field_error(s, CISP_BLOCK_DPC, 16 + 6, 0, 2, -EINVAL, "pixels[1] (4, 0) does not come after pixels[0] (10, 1)");
	expect_field_error(s, CISP_BLOCK_DPC, 12, 7, 4, -EINVAL, "reserved = 7 must be 0 (reserved)");
	expect_field_error(s, CISP_BLOCK_DPC, 10, 16385, 2, -EINVAL, "count = 16385 is out of range 0..16384");
	free(s);
}

/* Every field of the table out of range at both ends, and every reserved field non-zero. */
TEST(abi_field_ranges_from_the_table)
{
	struct cisp_param_state *s = new_state();
	int checked = 0;

	/* Maximal variable-length blocks so every field is present. */
	s->dpc.count = 1;
	s->lut3d.size = 33;
	s->stats.af_count = 1;
	s->stats.af[0] = (struct cisp_stats_window){ 0, 0, 8, 8 };
	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *info = abi_block_info(t);

		for (const struct abi_field *f = info->fields; f->name; f++) {
			unsigned bytes = f->type == ABI_U32 || f->type == ABI_I32 ? 4 : 2;
			/* A field that is part of a shared array (LTM gains) starts where its span does. */
			struct abi_span span = abi_field_span(f, abi_state_block_const(info, s, 0));
			uint32_t offset = f->offset + span.first * bytes;
			const char *index = f->count > 1 ? (f->row || span.row ? "[0][0]" : "[0]") : "";
			int64_t lo = f->type == ABI_U16 ? 0 : f->type == ABI_I16 ? INT16_MIN : f->type == ABI_U32 ? 0 : INT32_MIN;
			int64_t hi = f->type == ABI_U16 ? UINT16_MAX : f->type == ABI_I16 ? INT16_MAX : f->type == ABI_U32 ? UINT32_MAX : INT32_MAX;
			char needle[96];

			if (f->flags & ABI_RESERVED) {
				snprintf(needle, sizeof(needle), "%s%s = 1 must be 0 (reserved)", f->name, f->count > 1 ? "[0]" : "");
				expect_field_error(s, t, f->offset, 1, bytes, -EINVAL, needle);
				checked++;
				continue;
			}
			if (f->min > lo) {
				snprintf(needle, sizeof(needle), "%s%s = %lld is ", f->name, index, (long long)(f->min - 1));
				expect_field_error(s, t, offset, f->min - 1, bytes, -EINVAL, needle);
				checked++;
			}
			if (f->max < hi) {
				snprintf(needle, sizeof(needle), "%s%s = %lld is ", f->name, index, (long long)(f->max + 1));
				expect_field_error(s, t, offset, f->max + 1, bytes, -EINVAL, needle);
				checked++;
			}
		}
	}
	/* 23 bounded ranges, 15 reserved fields; CNR: 5 range ends, 1 reserved; highlights: 4 and 1; LTM: 9 and 1 */
	CHECK_EQ(checked, 23 + 15 + 6 + 5 + 10);
	free(s);
}

TEST(abi_limits)
{
	struct cisp_param_state *s = new_state();
	struct cisp_params_limits lim = { 640, 480, ALL_BLOCKS, 1u << CISP_DEMOSAIC_FAST };
	struct cisp_params_limits none = { 0, 0, ALL_BLOCKS, 3 };
	struct pbuf b;
	uint8_t *p;

	/* Crop inside the frame. */
	s->crop[0] = (struct cisp_crop_params){ s->crop[0].header, 0, 0, 0, 0, 640, 480, 0 };
	s->crop[1] = (struct cisp_crop_params){ s->crop[1].header, 1, 0, 2, 4, 638, 476, 0 };
	pb_init(&b);
	p = pb_from_state(&b, s, CISP_BLOCK_CROP);
	CHECK_EQ(cisp_params_validate(b.data, b.size, &lim), 0);
	p[24 + 12] = 4;
	CHECK_REJECT(b.data, b.size, &lim, -EINVAL,
		     "params block 1 (crop) at offset 40: 638x476 at (4, 4) runs outside the 640x480 frame");
	CHECK_EQ(cisp_params_validate(b.data, b.size, NULL), 0);
	CHECK_EQ(cisp_params_validate(b.data, b.size, &none), 0);
	pb_free(&b);

	/* DPC coordinates inside the frame. */
	s->dpc.count = 2;
	s->dpc.pixels[0] = (struct cisp_dpc_pixel){ 639, 0 };
	s->dpc.pixels[1] = (struct cisp_dpc_pixel){ 640, 479 };
	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_DPC);
	CHECK_REJECT(b.data, b.size, &lim, -EINVAL, "params block 0 (dpc) at offset 16: pixels[1] (640, 479) is outside the 640x480 frame");
	s->dpc.pixels[1] = (struct cisp_dpc_pixel){ 0, 480 };
	pb_free(&b);
	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_DPC);
	CHECK_REJECT(b.data, b.size, &lim, -EINVAL, "pixels[1] (0, 480) is outside");
	pb_free(&b);

	/* AF windows inside the frame; zones and row groups that fit. */
	s->stats.af_count = 1;
	s->stats.af[0] = (struct cisp_stats_window){ 600, 400, 40, 80 };
	pb_init(&b);
	p = pb_from_state(&b, s, CISP_BLOCK_STATS);
	CHECK_EQ(cisp_params_validate(b.data, b.size, &lim), 0);
	p[16 + 4] = 42;
	CHECK_REJECT(b.data, b.size, &lim, -EINVAL, "af[0] 42x80 at (600, 400) runs outside the 640x480 frame");
	p[16 + 4] = 40;
	p[16] = 1; /* odd positions and sizes are fine: the statistics use the whole cells inside */
	p[16 + 6] = 79;
	CHECK_EQ(cisp_params_validate(b.data, b.size, &lim), 0);
	/* More zones than cells and any row group are defined by the statistics, not errors. */
	lim.width = lim.height = 16;
	p[16] = p[17] = p[18] = p[19] = 0;
	p[16 + 4] = p[16 + 6] = 16;
	p[8] = p[10] = 32;
	p[80] = 200;
	CHECK_EQ(cisp_params_validate(b.data, b.size, &lim), 0);
	lim.width = 640;
	lim.height = 480;
	pb_free(&b);

	/* Blocks and algorithms the instance has. */
	pb_init(&b);
	pb_from_state(&b, s, CISP_BLOCK_WB);
	p = pb_from_state(&b, s, CISP_BLOCK_DEMOSAIC);
	CHECK_EQ(cisp_params_validate(b.data, b.size, &lim), 0);
	p[8] = CISP_DEMOSAIC_QUALITY;
	CHECK_REJECT(b.data, b.size, &lim, -ENOTSUP, "params block 1 (demosaic) at offset 32: algorithm quality is not available on this ISP");
	CHECK_EQ(cisp_params_validate(b.data, b.size, NULL), 0);
	lim.demosaic_algorithms = 3;
	CHECK_EQ(cisp_params_validate(b.data, b.size, &lim), 0);
	lim.blocks &= ~BIT(WB);
	CHECK_REJECT(b.data, b.size, &lim, -ENOTSUP, "params block 0 (wb) at offset 16: this ISP does not implement wb blocks");
	pb_free(&b);
	free(s);
}

/* Every truncation of a valid buffer fails cleanly, with the header's size or with a fixed-up one. */
TEST(abi_truncated_buffers)
{
	struct cisp_param_state *s = new_state(), *t = new_state();
	size_t size;
	uint8_t *buf, *cut;

	abi_random_state(s);
	s->dpc.count = 3;
	s->lsc.grid_w = s->lsc.grid_h = 3;
	s->lut3d.size = 3;
	buf = encode(s, ~0u, &size);
	cut = malloc(size);
	for (size_t n = 0; n < size; n++) {
		memcpy(cut, buf, n);
		*t = *s;
		CHECK_EQ(cisp_param_state_apply(t, cut, n, NULL), -EMSGSIZE);
		CHECK(same_state(s, t));
		if (n >= 16 && n % 8 == 0) {
			/* total_size says n: the block at the cut runs past the end, unless n is a block boundary. */
			uint32_t total = (uint32_t)n;
			int ret;

			memcpy(cut + 8, &total, 4);
			ret = cisp_params_validate(cut, n, NULL);
			if (ret)
				CHECK(ret == -EMSGSIZE && strstr(cisp_last_error(), "runs past the end of the buffer"));
		}
	}
	free(cut);
	free(buf);
	free(s);
	free(t);
}

/* Random corruption never crashes, and either validates (then applies) or fails without touching the state. */
TEST(abi_random_byte_flips)
{
	struct cisp_param_state *s = new_state(), *t = new_state(), *u = new_state();
	int valid = 0, invalid = 0;

	for (int i = 0; i < 3000; i++) {
		size_t size;
		uint8_t *buf;
		int ret;

		abi_random_state(s);
		s->dpc.count = (uint16_t)(s->dpc.count % 8);
		s->lut3d.size = (uint16_t)(2 + s->lut3d.size % 4);
		buf = encode(s, (uint32_t)test_rand() & ALL_BLOCKS, &size);
		for (int n = 1 + (int)rnd(4); n > 0; n--)
			buf[rnd((uint32_t)size)] ^= (uint8_t)(1u << rnd(8));
		abi_random_state(t);
		*u = *t;
		cisp_clear_error();
		ret = cisp_param_state_apply(t, buf, size, NULL);
		if (ret == 0) {
			valid++;
			CHECK_EQ(cisp_params_validate(buf, size, NULL), 0);
		} else {
			invalid++;
			CHECK(ret == -EINVAL || ret == -EMSGSIZE || ret == -EPROTO || ret == -EPROTONOSUPPORT);
			CHECK(!strncmp(cisp_last_error(), "params ", 7));
			CHECK(same_state(t, u));
		}
		free(buf);
	}
	/* About 2/3 of the flips land in unconstrained table data. */
	CHECK(valid > 500);
	CHECK(invalid > 500);
	free(s);
	free(t);
	free(u);
}
