/* SPDX-License-Identifier: MIT */
/*
 * Vendor blocks in the params ABI (params.h, CISP_BLOCK_VENDOR): framing,
 * limits, the canonical state left alone, and the YAML form. And the other
 * direction: statistics handed back by a device are validated before use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "test.h"

struct vbuf {
	uint64_t align;
	uint8_t data[1 << 18];
	size_t size;
};

static struct vbuf *vbuf_new(void)
{
	struct vbuf *b = calloc(1, sizeof(*b));
	struct cisp_params_header h = { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, 16, 0 };

	memcpy(b->data, &h, sizeof(h));
	b->size = sizeof(h);
	return b;
}

static void set_total(struct vbuf *b)
{
	((struct cisp_params_header *)b->data)->total_size = (uint32_t)b->size;
}

/* Append raw bytes as a block (the caller writes its header). */
static struct cisp_vendor_params *vbuf_vendor(struct vbuf *b, uint32_t vendor_id, uint16_t type, uint16_t version,
					      uint32_t payload_size, uint32_t block_size)
{
	struct cisp_vendor_params *v = (struct cisp_vendor_params *)(b->data + b->size);

	memset(v, 0, block_size);
	v->header = (struct cisp_block_header){ CISP_BLOCK_VENDOR, CISP_BLOCK_FL_ENABLE, block_size };
	if (block_size >= 24) {
		v->vendor_id = vendor_id;
		v->type = type;
		v->version = version;
		v->payload_size = payload_size;
	}
	for (uint32_t i = 0; i < payload_size && 24 + i < block_size; i++)
		v->payload[i] = (uint8_t)(i * 7 + 1);
	b->size += block_size;
	set_total(b);
	return v;
}

TEST(vendor_abi_names)
{
	CHECK(!strcmp(cisp_block_name(CISP_BLOCK_VENDOR), "vendor"));
	CHECK_EQ(cisp_block_type_from_name("vendor"), CISP_BLOCK_VENDOR);
	CHECK_EQ(CISP_BLOCK_BIT(CISP_BLOCK_VENDOR), 0x80000000u);
	CHECK_EQ(sizeof(struct cisp_vendor_params), 24 + CISP_VENDOR_MAX_PAYLOAD);
}

/* Framing is checked without limits; the payload is never read (any bytes pass). */
TEST(vendor_abi_framing)
{
	struct vbuf *b = vbuf_new();
	struct cisp_vendor_params *v;

	vbuf_vendor(b, 1, 1, 1, 5, 32);
	CHECK_EQ(cisp_params_validate(b->data, b->size, NULL), 0);
	memset(b->data + 16 + 24, 0xff, 5); /* payload bytes: anything */
	CHECK_EQ(cisp_params_validate(b->data, b->size, NULL), 0);
	b->data[16 + 24 + 5] = 1; /* padding after the payload */
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL,
		  "params block 0 (vendor) at offset 16: padding byte 29 after the last entry is 1, not 0");

	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 1, 1, 1, 0, 16);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EMSGSIZE, "size 16 ends before payload_size");
	free(b);
	b = vbuf_new();
	v = vbuf_vendor(b, 1, 1, 1, 0, 8);
	v->header.flags = CISP_BLOCK_FL_DISABLE;
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EMSGSIZE,
		  "size 8 omits the payload, which vendor blocks always need (it names the vendor block)");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 1, 1, 1, 9, 32);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EMSGSIZE,
		  "size 32 does not match payload_size = 9 (expected 40)");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 1, 1, 1, CISP_VENDOR_MAX_PAYLOAD + 1, 32);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "payload_size = 65537 is out of range 0..65536");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 0, 1, 1, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "vendor_id = 0 is out of range 1..4294967295");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 1, 0, 1, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "type = 0 is out of range 1..65535");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 1, 1, 0, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "version = 0 is out of range 1..65535");
	free(b);
	b = vbuf_new();
	v = vbuf_vendor(b, 1, 1, 1, 0, 24);
	v->reserved = 4;
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "reserved = 4 must be 0 (reserved)");
	v->reserved = 0;
	v->header.flags = 4;
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "flags 0x0004 have unknown bits");

	/* The largest payload fits. */
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 1, 1, 1, CISP_VENDOR_MAX_PAYLOAD, 24 + CISP_VENDOR_MAX_PAYLOAD);
	CHECK_EQ(cisp_params_validate(b->data, b->size, NULL), 0);
	free(b);
}

TEST(vendor_abi_once_per_block_and_at_most_16)
{
	struct vbuf *b = vbuf_new();

	vbuf_vendor(b, 1, 1, 1, 0, 24);
	vbuf_vendor(b, 1, 2, 1, 0, 24); /* another type */
	vbuf_vendor(b, 2, 1, 1, 0, 24); /* another vendor */
	CHECK_EQ(cisp_params_validate(b->data, b->size, NULL), 0);
	vbuf_vendor(b, 1, 2, 7, 3, 32);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL,
		  "params block 3 (vendor) at offset 88: duplicate of block 1 at offset 40 (each vendor block once: "
		  "vendor 0x00000001, type 2)");
	free(b);
	b = vbuf_new();
	for (uint16_t t = 1; t <= CISP_VENDOR_MAX_BLOCKS; t++)
		vbuf_vendor(b, 9, t, 1, 0, 24);
	CHECK_EQ(cisp_params_validate(b->data, b->size, NULL), 0);
	vbuf_vendor(b, 9, 100, 1, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, NULL), -EINVAL, "params block 16 (vendor) at offset 400: more than 16 vendor blocks");
	free(b);
}

TEST(vendor_abi_limits)
{
	static const struct cisp_vendor_block_caps caps[] = { { 0x454d4341, 1, 1, 2, 0, 16 }, { 0x454d4341, 3, 5, 5, 0, 0 } };
	struct cisp_params_limits lim = { 64, 48, ~0u, 3, caps, 2 };
	struct cisp_params_limits none = { 64, 48, ~0u & ~CISP_BLOCK_BIT(CISP_BLOCK_VENDOR), 3, caps, 2 };
	struct vbuf *b = vbuf_new();

	vbuf_vendor(b, 0x454d4341, 1, 2, 16, 40);
	vbuf_vendor(b, 0x454d4341, 3, 5, 0, 24);
	CHECK_EQ(cisp_params_validate(b->data, b->size, &lim), 0);
	CHECK_ERR(cisp_params_validate(b->data, b->size, &none), -ENOTSUP, "this ISP does not implement vendor blocks");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 0x454d4341, 1, 2, 17, 48);
	CHECK_ERR(cisp_params_validate(b->data, b->size, &lim), -EMSGSIZE,
		  "payload_size 17 is over the 16 bytes the vendor stage declares for block 0x454d4341/1");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 0x454d4341, 3, 4, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, &lim), -ENOTSUP, "version 4 of vendor 0x454d4341 block 3 is not supported (5..5)");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 0x454d4341, 2, 1, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, &lim), -ENOTSUP, "vendor 0x454d4341 has no block type 2 on this ISP");
	free(b);
	b = vbuf_new();
	vbuf_vendor(b, 0x41, 1, 1, 0, 24);
	CHECK_ERR(cisp_params_validate(b->data, b->size, &lim), -ENOTSUP, "vendor_id 0x00000041 is not registered with this ISP");
	free(b);
}

/* The canonical state ignores vendor blocks; the canonical blocks around them still apply. */
TEST(vendor_abi_apply_leaves_the_state)
{
	struct cisp_param_state *s = malloc(sizeof(*s)), *ref = malloc(sizeof(*ref));
	struct vbuf *b = vbuf_new();
	struct cisp_wb_params wb = { { CISP_BLOCK_WB, 0, 16 }, { 4096, 5000, 6000, 7000 } };

	cisp_param_state_init(s);
	cisp_param_state_init(ref);
	vbuf_vendor(b, 5, 5, 5, 3, 32);
	memcpy(b->data + b->size, &wb, sizeof(wb));
	b->size += sizeof(wb);
	set_total(b);
	CHECK_EQ(cisp_param_state_apply(s, b->data, b->size, NULL), 0);
	ref->wb = wb;
	ref->wb.header.flags = 0;
	CHECK(!memcmp(s, ref, sizeof(*s)));
	/* Encoding the state writes no vendor block. */
	CHECK_EQ(cisp_params_diff(ref, s), 0);
	free(s);
	free(ref);
	free(b);
}

TEST(vendor_abi_yaml_round_trip)
{
	static const char text[] = "vendor_0x454d4341_1:\n"
				   "  enable: true\n"
				   "  version: 2\n"
				   "  payload: [1, 2, 3, 255, 0]\n"
				   "wb:\n"
				   "  gain: [1.5, 1.0, 1.0, 2.0]\n"
				   "vendor_0x00000007_3:\n"
				   "  enable: false\n"
				   "  version: 1\n"
				   "  payload: []\n"
				   "vendor_0x00000007_4:\n"
				   "  version: 1\n"
				   "  payload: [9]\n";
	const struct cisp_vendor_params *v;
	char *back = NULL;
	size_t size;
	void *buf;

	CHECK_EQ(cisp_params_from_yaml(text, strlen(text), &buf, &size), 0);
	CHECK_EQ(size, 16 + 32 + 16 + 24 + 32);
	v = (const void *)((const uint8_t *)buf + 16);
	CHECK_EQ(v->header.type, CISP_BLOCK_VENDOR);
	CHECK_EQ(v->header.flags, CISP_BLOCK_FL_ENABLE);
	CHECK_EQ(v->header.size, 32);
	CHECK_EQ(v->vendor_id, 0x454d4341);
	CHECK_EQ(v->type, 1);
	CHECK_EQ(v->version, 2);
	CHECK_EQ(v->payload_size, 5);
	CHECK(!memcmp(v->payload, "\x01\x02\x03\xff\x00\x00\x00\x00", 8));
	v = (const void *)((const uint8_t *)buf + 64);
	CHECK_EQ(v->header.flags, CISP_BLOCK_FL_DISABLE);
	CHECK_EQ(v->header.size, 24);
	CHECK_EQ(cisp_params_to_yaml(buf, size, &back), 0);
	CHECK(back && !strcmp(back, text));
	free(back);
	free(buf);
}

TEST(vendor_abi_yaml_errors)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "vendor_0x0_1:\n  version: 1\n  payload: []\n",
		  "line 1: vendor_0x0_1: vendor id 0 or type 1 out of range (1..0xffffffff, 1..65535)" },
		{ "vendor_1_65536:\n  version: 1\n  payload: []\n", "vendor id 1 or type 65536 out of range" },
		{ "vendor_x:\n  version: 1\n", "line 1: vendor_x: a vendor block's key is vendor_<vendor id>_<type>" },
		{ "vendor_1_-2:\n  version: 1\n", "a vendor block's key is vendor_<vendor id>_<type>" },
		{ "vendor_1_2:\n  payload: []\n", "line 2: vendor_1_2: missing key 'version'" },
		{ "vendor_1_2:\n  version: 1\n  payload: [256]\n", "line 3: vendor_1_2.payload[0]: 256 is out of range 0..255" },
		{ "vendor_1_2:\n  version: 1\n  payload: []\n  type: 3\n", "line 4: vendor_1_2.type: unknown key (vendor has: enable, version, payload)" },
		{ "vendor_1_2:\n  version: 1\n  payload: [1]\nvendor_0x1_2:\n  version: 1\n  payload: [1]\n",
		  "duplicate of block 0 at offset 16 (each vendor block once: vendor 0x00000001, type 2)" },
		{ "foo:\n  a: 1\n", "unknown block (blocks: blc, dpc" },
	};
	void *buf;
	size_t size;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_ERR(cisp_params_from_yaml(cases[i].text, strlen(cases[i].text), &buf, &size), -EINVAL, cases[i].message);
	CHECK(strstr(cisp_last_error(), "vendor_<vendor id>_<type>)") != NULL);
}

/* ---- statistics from a device that is not trusted ---- */

/* Statistics of a real frame with two AF windows, from the ISP. */
static struct cisp_stats *isp_stats(void)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_RGB888, 64, 48 } } };
	struct cisp_stats *st = calloc(1, sizeof(*st));
	struct cisp_image in, out;
	struct cisp_image *outs[2] = { &out, NULL };
	struct vbuf *b = vbuf_new();
	struct cisp_stats_params sp = { { CISP_BLOCK_STATS, CISP_BLOCK_FL_ENABLE, sizeof(sp) }, 5, 3, 900, 2,
					{ { 0, 0, 16, 16 }, { 10, 10, 30, 20 } }, 3, { 0 } };
	struct cisp_isp *isp;

	memcpy(b->data + b->size, &sp, sizeof(sp));
	b->size += sizeof(sp);
	set_total(b);
	cisp_isp_create(&isp, &c);
	CHECK_EQ(cisp_isp_set_params(isp, b->data, b->size), 0);
	cisp_image_alloc(&in, CISP_FMT_SRGGB10, 64, 48);
	cisp_image_alloc(&out, CISP_FMT_RGB888, 64, 48);
	for (int i = 0; i < 64 * 48; i++)
		((uint16_t *)in.plane[0].data)[i] = (uint16_t)((i * 7919) % 1024);
	CHECK_EQ(cisp_isp_process(isp, &in, outs, st, NULL), 0);
	cisp_image_free(&in);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	free(b);
	return st;
}

TEST(vendor_stats_validate)
{
	struct cisp_stats *good = isp_stats(), *s = malloc(sizeof(*s));

	CHECK_EQ(good->valid, CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_AF | CISP_STATS_ROWS);
	CHECK_EQ(cisp_stats_validate(good, sizeof(*good)), 0);
	CHECK_EQ(cisp_stats_validate((const uint8_t *)memcpy(s, good, sizeof(*s)), sizeof(*s)), 0);
	CHECK_ERR(cisp_stats_validate(good, sizeof(*good) - 1), -EMSGSIZE, "stats buffer of 25783 bytes is not the 25784 bytes");
	CHECK_ERR(cisp_stats_validate(NULL, 0), -EMSGSIZE, "stats buffer of 0 bytes");
#define MUTATE(stmt, err, needle)                                    \
	do {                                                         \
		memcpy(s, good, sizeof(*s));                         \
		stmt;                                                \
		CHECK_ERR(cisp_stats_validate(s, sizeof(*s)), err, needle); \
	} while (0)
	MUTATE(s->magic ^= 1, -EPROTO, "stats: magic 0x41545342 is not 0x41545343");
	MUTATE(s->version = 2, -EPROTONOSUPPORT, "stats: version 2 is not supported");
	MUTATE(s->size = 100, -EMSGSIZE, "stats: size 100 is not 25784");
	MUTATE(s->reserved2[1] = 1, -EINVAL, "a reserved header field is not 0");
	MUTATE(s->valid |= 16, -EINVAL, "valid 0x0000001f has unknown bits 0x00000010");
	MUTATE(s->width = 15, -EINVAL, "frame 15x48 is not even within 16x16..16384x16384");
	MUTATE(s->hist[3]++, -EINVAL, "the histogram counts 769 cells, the frame has 768");
	MUTATE(s->valid &= ~CISP_STATS_HIST, -EINVAL, "(and CISP_STATS_HIST is not valid)");
	MUTATE(s->zones_x = 33, -EINVAL, "zones 33x3 outside 1x1..32x32");
	/* Found by fuzz_stats: the zone count was multiplied out (and overflowed int) before the range check. */
	MUTATE((s->zones_x = 65520, s->zones_y = 64243), -EINVAL, "zones 65520x64243 outside 1x1..32x32");
	MUTATE(s->zone[4].count = s->zone[4].total + 1, -EINVAL, "zone[4] averages");
	MUTATE(s->zone[2].total++, -EINVAL, "the zones hold 769 cells, the frame 768");
	MUTATE(s->zone[15].g = 1, -EINVAL, "zone entries past zones_x * zones_y = 15 are not 0");
	MUTATE(s->zone[1].reserved = 1, -EINVAL, "zone[1].reserved = 1 must be 0");
	MUTATE((s->zone[1].count = 0, s->zone[1].r = 5), -EINVAL, "zone[1] has means but no cells");
	MUTATE(s->valid &= ~CISP_STATS_ZONES, -EINVAL, "zones are set but CISP_STATS_ZONES is not valid");
	MUTATE(s->af_count = 0, -EINVAL, "af_count 0 does not match CISP_STATS_AF");
	MUTATE(s->af_count = 9, -EINVAL, "af_count 9 is over 8");
	MUTATE(s->af[1].sharpness = (uint64_t)s->af[1].count * 262140 + 1, -EINVAL, "af[1] sharpness");
	MUTATE(s->af[0].count = 769, -EINVAL, "in a frame of 768 cells");
	MUTATE(s->af[2].count = 1, -EINVAL, "af entries past af_count = 2 are not 0");
	MUTATE(s->af[0].reserved = 1, -EINVAL, "af[0].reserved = 1 must be 0");
	MUTATE(s->row_count++, -EINVAL, "row_count 9, but 24 cell rows in groups of 3 make 8");
	MUTATE(s->row_group = 0, -EINVAL, "row_group 0 is outside 1..24 cell rows");
	MUTATE(s->row_mean[8] = 1, -EINVAL, "row_mean entries past row_count = 8 are not 0");
	MUTATE(s->valid &= ~CISP_STATS_ROWS, -EINVAL, "row means are set but CISP_STATS_ROWS is not valid");
#undef MUTATE
	free(s);
	free(good);
}
