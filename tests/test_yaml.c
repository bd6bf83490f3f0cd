/* SPDX-License-Identifier: MIT */
/* The YAML form of params buffers: known texts and bytes, exact decimals, round trips, errors, the CLI. */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cisp/error.h>
#include <cisp/params_state.h>

#include "test.h"
#include "test_abi.h"

/* Encode @text; returns the buffer (NULL on error, with the error code in *ret). */
static uint8_t *from_yaml(const char *text, size_t *size, int *ret)
{
	void *buf = NULL;

	*ret = cisp_params_from_yaml(text, strlen(text), &buf, size);
	return buf;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static const char known_text[] = "wb:\n"
				 "  enable: true\n"
				 "  gain: [1.800048828125, 1.0, 1.0, 1.5]\n"
				 "lsc:\n"
				 "  enable: false\n"
				 "crop_preview:\n"
				 "  x: 2\n"
				 "  y: 4\n"
				 "  width: 100\n"
				 "  height: 50\n"
				 "noise:\n"
				 "  a: [4.0, 0.0000152587890625, 65535.9999847412109375, 1.5]\n"
				 "  b: [64, 0, 4294967295, 1]\n";

/* The bytes of known_text, laid out by hand from params.h. */
static size_t known_bytes(uint8_t *b)
{
	memset(b, 0, 104);
	memcpy(b, "CISP", 4);
	put16(b + 4, 1);
	put32(b + 8, 104);
	/* wb: type 6, ENABLE, 16 bytes; gains 1.8 -> 7373, 1.0, 1.0, 1.5 */
	put16(b + 16, 6), put16(b + 18, 2), put32(b + 20, 16);
	put16(b + 24, 7373), put16(b + 26, 4096), put16(b + 28, 4096), put16(b + 30, 6144);
	/* lsc: type 5, DISABLE, header only */
	put16(b + 32, 5), put16(b + 34, 1), put32(b + 36, 8);
	/* crop: type 13, no flags, 24 bytes, output 1, x 2, y 4, 100x50 */
	put16(b + 40, 13), put32(b + 44, 24);
	put16(b + 48, 1), put16(b + 52, 2), put16(b + 54, 4), put16(b + 56, 100), put16(b + 58, 50);
	/* noise: type 3, 40 bytes, a in Q16.16, b */
	put16(b + 64, 3), put32(b + 68, 40);
	put32(b + 72, 4 << 16), put32(b + 76, 1), put32(b + 80, 0xffffffffu), put32(b + 84, 3 << 15);
	put32(b + 88, 64), put32(b + 92, 0), put32(b + 96, 0xffffffffu), put32(b + 100, 1);
	return 104;
}

TEST(yaml_known_text_and_bytes)
{
	uint8_t expected[104];
	size_t n = known_bytes(expected), size;
	char *text = NULL;
	int ret;
	uint8_t *buf = from_yaml(known_text, &size, &ret);

	CHECK_EQ(ret, 0);
	CHECK_EQ(size, n);
	CHECK(buf && !memcmp(buf, expected, n));
	CHECK_EQ(cisp_params_to_yaml(expected, n, &text), 0);
	CHECK(text && !strcmp(text, known_text));
	if (text && strcmp(text, known_text))
		printf("    got:\n%s", text);
	free(text);
	free(buf);

	/* An empty buffer is an empty mapping, and an empty document is an empty buffer. */
	CHECK_EQ(cisp_params_to_yaml(expected, 16, &text), -EMSGSIZE); /* total_size says 104 */
	put32(expected + 8, 16);
	CHECK_EQ(cisp_params_to_yaml(expected, 16, &text), 0);
	CHECK(!strcmp(text, "{}\n"));
	buf = from_yaml(text, &size, &ret);
	CHECK(ret == 0 && size == 16 && !memcmp(buf, expected, 16));
	free(buf);
	free(text);
	buf = from_yaml("", &size, &ret);
	CHECK(ret == 0 && size == 16 && !memcmp(buf, expected, 16));
	free(buf);
	buf = from_yaml("# nothing\n", &size, &ret);
	CHECK(ret == 0 && size == 16);
	free(buf);
}

/* Each decimal, as the first WB gain (Q4.12), gives this stored value (-1: an error). */
TEST(yaml_decimals_round_exactly)
{
	static const struct {
		const char *text;
		long raw;
	} cases[] = {
		{ "1.8", 7373 },                  /* 7372.8 */
		{ "1", 4096 },                    /* integers are fine for decimals */
		{ "0", 0 },
		{ "00001.5", 6144 },
		{ "2.5", 10240 },
		{ "0.0001220703125", 1 },         /* exactly half a step: away from zero */
		{ "0.00012207031249999", 0 },     /* just below half */
		{ "0.000122070312500001", 1 },    /* just above */
		{ "0.0003662109375", 2 },         /* 1.5 steps: up */
		{ "15.999755859375", 65535 },     /* the largest */
		{ "15.9998779296875", -1 },       /* rounds to 65536: out of range */
		{ "16", -1 },
		{ "-0.0001", 0 },                 /* -0.4096 steps rounds to 0, in range */
		{ "1.", -1 },
		{ ".5", -1 },
		{ "+1", -1 },
		{ "1e3", -1 },
		{ "0x10", -1 },
		{ "1_5", -1 },
		{ "''", -1 },
		{ "99999999999999999999999", -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		size_t size;
		int ret;
		uint8_t *buf;

		snprintf(text, sizeof(text), "wb:\n  gain: [%s, 1, 1, 1]\n", cases[i].text);
		buf = from_yaml(text, &size, &ret);
		if (cases[i].raw < 0) {
			if (ret != -EINVAL)
				printf("    '%s' was accepted\n", cases[i].text);
			CHECK_EQ(ret, -EINVAL);
			CHECK(strstr(cisp_last_error(), "line 2: wb.gain[0]: ") != NULL);
		} else {
			if (ret)
				printf("    '%s': %s\n", cases[i].text, cisp_last_error());
			CHECK_EQ(ret, 0);
			CHECK(buf && (buf[24] | buf[25] << 8) == cases[i].raw);
		}
		free(buf);
	}
}

TEST(yaml_signed_and_wide_decimals)
{
	size_t size;
	int ret;
	char *text = NULL;
	uint8_t *buf = from_yaml("ccm:\n"
				 "  coeff: [[-0.0001220703125, -1.5, 0], [0, -7.75, 0], [0, 0, 7.999755859375]]\n"
				 "  offset: [-65535, 0, 65535]\n",
				 &size, &ret);

	CHECK_EQ(ret, 0);
	CHECK_EQ(size, 16 + 40);
	if (buf) {
		CHECK_EQ((int16_t)(buf[24] | buf[25] << 8), -1); /* -0.5 step: away from zero */
		CHECK_EQ((int16_t)(buf[26] | buf[27] << 8), -6144);
		CHECK_EQ((int16_t)(buf[32] | buf[33] << 8), -31744);
		CHECK_EQ((int16_t)(buf[40] | buf[41] << 8), 32767);
		CHECK_EQ((int32_t)(buf[44] | buf[45] << 8 | buf[46] << 16 | (uint32_t)buf[47] << 24), -65535);
		CHECK_EQ(cisp_params_to_yaml(buf, size, &text), 0);
		CHECK(text && !strcmp(text, "ccm:\n"
					    "  coeff: [[-0.000244140625, -1.5, 0.0],\n"
					    "          [0.0, -7.75, 0.0],\n"
					    "          [0.0, 0.0, 7.999755859375]]\n"
					    "  offset: [-65535, 0, 65535]\n"));
		free(text);
	}
	free(buf);
	/* The row sum limit of a CCM is checked too (|4| + |4| = 8.0 = 32768). */
	buf = from_yaml("ccm:\n  coeff: [[4, 4, 0], [0, 1, 0], [0, 0, 1]]\n  offset: [0, 0, 0]\n", &size, &ret);
	CHECK_ERR(ret, -EINVAL, "line 1: ccm: row 0: the sum of |coeff| = 32768 is over 32767");
	CHECK(!buf);
	buf = from_yaml("ccm:\n  coeff: [[-8.001, 0, 0], [0, 1, 0], [0, 0, 1]]\n  offset: [0, 0, 0]\n", &size, &ret);
	CHECK_ERR(ret, -EINVAL, "line 2: ccm.coeff[0][0]: -8.001 is out of range -8.0..7.999755859375");
	/* -8.0 alone is a valid coefficient but no valid row: |-32768| > 32767 */
	buf = from_yaml("ccm:\n  coeff: [[-8, 0, 0], [0, 1, 0], [0, 0, 1]]\n  offset: [0, 0, 0]\n", &size, &ret);
	CHECK_ERR(ret, -EINVAL, "line 1: ccm: row 0: the sum of |coeff| = 32768 is over 32767");
}

/* Random states, random subsets: buffer -> YAML -> buffer is the same bytes, and the YAML is canonical. */
TEST(yaml_random_round_trips)
{
	struct cisp_param_state *s = malloc(sizeof(*s));

	for (int i = 0; i < 60; i++) {
		uint32_t mask = (uint32_t)test_rand() & ABI_ALL_BLOCKS;
		size_t size, size2;
		uint8_t *buf, *buf2;
		char *text = NULL, *text2 = NULL;
		int ret;

		abi_random_state(s);
		if (i % 4) { /* keep most tables small */
			s->dpc.count = (uint16_t)(s->dpc.count % 50);
			s->lut3d.size = (uint16_t)(2 + s->lut3d.size % 5);
		}
		CHECK_EQ(cisp_params_encode(s, mask, NULL, 0, &size), 0);
		buf = malloc(size);
		CHECK_EQ(cisp_params_encode(s, mask, buf, size, &size), 0);
		if (i % 3 == 0 && size > 24) {
			/* a DISABLE block without a payload, where one is allowed */
			for (size_t off = 16; off < size; off += buf[off + 4] | buf[off + 5] << 8 | buf[off + 6] << 16) {
				unsigned type = buf[off];

				if (buf[off + 2] == 1 && type != 13) {
					size_t bsize = buf[off + 4] | buf[off + 5] << 8 | buf[off + 6] << 16;

					memmove(buf + off + 8, buf + off + bsize, size - off - bsize);
					size -= bsize - 8;
					buf[off + 4] = 8;
					buf[off + 5] = buf[off + 6] = 0;
					buf[8] = (uint8_t)size, buf[9] = (uint8_t)(size >> 8), buf[10] = (uint8_t)(size >> 16);
					break;
				}
			}
		}
		CHECK_EQ(cisp_params_validate(buf, size, NULL), 0);
		CHECK_EQ(cisp_params_to_yaml(buf, size, &text), 0);
		buf2 = from_yaml(text ? text : "", &size2, &ret);
		CHECK_EQ(ret, 0);
		if (ret)
			printf("    %s\n", cisp_last_error());
		CHECK(buf2 && size2 == size && !memcmp(buf, buf2, size));
		CHECK_EQ(cisp_params_to_yaml(buf2, size2, &text2), 0);
		CHECK(text && text2 && !strcmp(text, text2));
		free(text);
		free(text2);
		free(buf);
		free(buf2);
	}
	free(s);
}

/* A hand-written (non-canonical) YAML encodes, and decodes to the canonical form. */
TEST(yaml_canonical_form)
{
	static const char in[] = "# flow style, comments, any spacing\n"
				 "dpc: {enable: true, threshold: 0x0, pixels: []}\n";
	static const char in_ok[] = "# flow style, comments, any spacing\n"
				    "dpc: {enable: true,   threshold: 0010, pixels: [ [5,0], [1, 1] ] }\n"
				    "stats: {enable: false, zones_x: 4, zones_y: 3, saturation: 60000,\n"
				    "        af: [[0, 0, 8, 8], [10, 10, 100, 50]], row_group: 0}\n"
				    "wb:\n"
				    "    gain:\n"
				    "      - 2\n"
				    "      - 1.0\n"
				    "      - 1\n"
				    "      - 1.25\n";
	static const char canonical[] = "dpc:\n"
					"  enable: true\n"
					"  threshold: 10\n"
					"  pixels: [[5, 0], [1, 1]]\n"
					"stats:\n"
					"  enable: false\n"
					"  zones_x: 4\n"
					"  zones_y: 3\n"
					"  saturation: 60000\n"
					"  af: [[0, 0, 8, 8], [10, 10, 100, 50]]\n"
					"  row_group: 0\n"
					"wb:\n"
					"  gain: [2.0, 1.0, 1.0, 1.25]\n";
	size_t size;
	int ret;
	char *text = NULL;
	uint8_t *buf = from_yaml(in, &size, &ret);

	CHECK_ERR(ret, -EINVAL, "line 2: dpc.threshold: '0x0' is not an integer");
	buf = from_yaml(in_ok, &size, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(size, 16 + 24 + 88 + 16);
	CHECK_EQ(cisp_params_to_yaml(buf, size, &text), 0);
	CHECK(text && !strcmp(text, canonical));
	if (text && strcmp(text, canonical))
		printf("    got:\n%s", text);
	free(text);
	free(buf);
}

TEST(yaml_wraps_long_lists)
{
	struct cisp_param_state *s = malloc(sizeof(*s));
	size_t size;
	uint8_t buf[1024];
	char *text = NULL, *line;
	size_t longest = 0;

	cisp_param_state_init(s);
	s->lsc.grid_w = 3;
	s->lsc.grid_h = 2;
	for (int i = 0; i < 24; i++)
		s->lsc.gain[i] = (uint16_t)(4096 + 1024 * (i % 6));
	CHECK_EQ(cisp_params_encode(s, CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_TONE), buf,
				    sizeof(buf), &size),
		 0);
	CHECK_EQ(cisp_params_to_yaml(buf, size, &text), 0);
	/* A grid is a row per line; the 257-node curve wraps before 100 columns. */
	CHECK(strstr(text, "lsc:\n"
			   "  enable: false\n"
			   "  grid_w: 3\n"
			   "  grid_h: 2\n"
			   "  r: [[1.0, 1.25, 1.5],\n"
			   "      [1.75, 2.0, 2.25]]\n"
			   "  gr: [[1.0, 1.25, 1.5],\n"
			   "       [1.75, 2.0, 2.25]]\n") != NULL);
	CHECK(strstr(text, "tone:\n  enable: true\n  transfer: srgb\n  curve: [0, 256, 512,") != NULL);
	CHECK(strstr(text, "65024, 65280, 65535]\n") != NULL);
	for (line = text; *line;) {
		size_t n = strcspn(line, "\n");

		longest = n > longest ? n : longest;
		line += n + (line[n] == '\n');
	}
	CHECK(longest <= 100);
	CHECK(longest > 90);
	free(text);
	free(s);
}

/* Each bad text fails with -EINVAL and a message naming the line and key. */
TEST(yaml_errors)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "blc:\n  black: [0, 0, 0, 0]\n  white: 70000\n", "line 3: blc.white: 70000 is out of range 0..65535" },
		{ "blc:\n  black: [0, 0, 0]\n  white: 65535\n", "line 2: blc.black: 3 entries, expected 4" },
		{ "blc:\n  black: 0\n  white: 65535\n", "line 2: blc.black: expected a sequence" },
		{ "blc:\n  black: [0, [0], 0, 0]\n  white: 65535\n", "line 2: blc.black[1]: expected a number, not a sequence" },
		{ "blc:\n  black: [0, 0, 0, 0]\n", "line 2: blc: missing key 'white'" },
		{ "blc:\n  black: [0, 0, 0, 0]\n  white: 65535\n  whit: 3\n",
		  "line 4: blc.whit: unknown key (blc has: enable, black, white)" },
		{ "blc:\n  black: [0, 0, 0, 0]\n  white: 65535\n  reserved: [0, 0, 0]\n", "line 4: blc.reserved: unknown key" },
		{ "blc:\n  black: [0, 0, 0, 0]\n  white: 65535\n  white: 65535\n", "line 4: blc.white: appears twice" },
		{ "blc:\n  black: [0, 0, 0, 0]\n  white: 7000\n", "line 1: blc: white - black[0] = 7000 is below 16384" },
		{ "blc: 3\n", "line 1: blc: expected a mapping of fields" },
		{ "blc:\n", "line 1: blc: expected a mapping of fields" },
		{ "lsc_main: {}\n", "line 1: lsc_main: unknown block (blocks: blc, dpc," },
		{ "crop: {}\n", "line 1: crop: unknown block" },
		{ "wb: {enable: false}\nwb: {enable: true, gain: [1, 1, 1, 1]}\n", "line 2: wb: appears twice" },
		{ "- blc\n", "line 1: document: expected a mapping from block names to blocks" },
		{ "[1]: 2\n", "line 1: document: keys must be block names" },
		{ "wb: {enable: yes, gain: [1, 1, 1, 1]}\n", "line 1: wb.enable: expected true or false" },
		{ "wb: {enable: [true], gain: [1, 1, 1, 1]}\n", "line 1: wb.enable: expected true or false" },
		{ "noise: {enable: true, a: [1, 1, 1, 1], b: [1, 1, 1, 1]}\n", "line 1: noise.enable: unknown key (noise has: a, b)" },
		{ "noise: {a: [1, 1, 1, -1], b: [1, 1, 1, 1]}\n", "line 1: noise.a[3]: -1 is out of range 0.0..65535.9999847412109375" },
		{ "demosaic: {enable: false}\n", "line 1: demosaic: DISABLE on demosaic, which cannot be disabled" },
		{ "demosaic: {algorithm: best, false_colour: 1}\n", "line 1: demosaic.algorithm: 'best' is not one of fast, quality" },
		{ "demosaic: {algorithm: 1, false_colour: 1}\n", "line 1: demosaic.algorithm: '1' is not one of fast, quality" },
		{ "demosaic: {algorithm: fast, false_colour: 1.5}\n", "line 1: demosaic.false_colour: 1.5 is out of range 0.0..1.0" },
		{ "tone: {transfer: srgbb, curve: []}\n", "line 1: tone.transfer: 'srgbb' is not one of linear, srgb, bt709" },
		{ "tone: {transfer: srgb, curve: [1, 2]}\n", "line 1: tone.curve: 2 entries, expected 257" },
		{ "csc: {matrix: bt709, range: narrow}\n", "line 1: csc.range: 'narrow' is not one of limited, full" },
		{ "crop_main:\n  enable: false\n", "line 2: crop_main: missing key 'x'" },
		{ "crop_main: {x: 1, y: 0, width: 16, height: 16}\n", "line 1: crop_main: x = 1 is odd" },
		{ "crop_main: {output: 0, x: 0, y: 0, width: 16, height: 16}\n", "line 1: crop_main.output: unknown key" },
		{ "dpc: {threshold: 1, pixels: [[1, 2], [0, 2]]}\n",
		  "line 1: dpc: pixels[1] (0, 2) does not come after pixels[0] (1, 2)" },
		{ "dpc: {threshold: 1, pixels: [[1, 2, 3]]}\n", "line 1: dpc.pixels[0]: 3 entries, expected 2" },
		{ "dpc: {threshold: 1, count: 1, pixels: [[1, 2]]}\n", "line 1: dpc.count: unknown key (dpc has: enable, threshold, pixels)" },
		{ "dpc: {threshold: 65536, pixels: []}\n", "line 1: dpc.threshold: 65536 is out of range 0..65535" },
		{ "lsc: {grid_w: 2, grid_h: 3, r: [[1, 1], [1, 1]], gr: [], gb: [], b: []}\n",
		  "line 1: lsc.r: 2 entries, expected 3 (grid_w = 2, grid_h = 3)" },
		{ "lsc: {grid_w: 2, grid_h: 1, r: [], gr: [], gb: [], b: []}\n", "line 1: lsc.grid_h: 1 is out of range 2..64" },
		{ "lsc: {grid_w: 2, grid_h: 2, r: [[1, 1], [1]], gr: [], gb: [], b: []}\n", "line 1: lsc.r[1]: 1 entries, expected 2" },
		{ "lut3d: {size: 2, table: [[0, 0, 0]]}\n", "line 1: lut3d.table: 1 entries, expected 8 (size = 2)" },
		{ "lut3d: {size: 34, table: []}\n", "line 1: lut3d.size: 34 is out of range 2..33" },
		{ "stats: {zones_x: 0, zones_y: 1, saturation: 1, af: [], row_group: 0}\n",
		  "line 1: stats.zones_x: 0 is out of range 1..32" },
		{ "stats: {zones_x: 1, zones_y: 1, saturation: 1, af: [[0, 0, 8, 7]], row_group: 0}\n",
		  "line 1: stats: af[0] 8x7 is smaller than 8x8" },
		{ "stats: {zones_x: 1, zones_y: 1, saturation: 1, af: [[0,0,8,8],[0,0,8,8],[0,0,8,8],[0,0,8,8],[0,0,8,8],"
		  "[0,0,8,8],[0,0,8,8],[0,0,8,8],[0,0,8,8]], row_group: 0}\n",
		  "line 1: stats.af: 9 entries, at most 8" },
		{ "wb: [1\n", "line 2: did not find expected ',' or ']'" },
		{ "wb: {enable: false}\n---\nlsc: {enable: false}\n", "line 2: only one YAML document is allowed" },
		{ "wb: {enable: false}\n\tx: 1\n", "line 2: found character that cannot start any token" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t size = 99;
		int ret;
		uint8_t *buf = from_yaml(cases[i].text, &size, &ret);

		CHECK_ERR(ret, -EINVAL, cases[i].needle);
		CHECK(!buf);
		CHECK_EQ(size, 0);
	}
}

TEST(yaml_long_lists_at_their_limits)
{
	/* 16384 defect pixels fit, 16385 do not; the count comes from the list. */
	size_t cap = 16 * 16400 + 64, n = 0, size;
	char *text = malloc(cap);
	int ret;
	uint8_t *buf;

	n += (size_t)snprintf(text + n, cap - n, "dpc:\n  threshold: 0\n  pixels: [");
	for (int i = 0; i < 16384; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s[%d, %d]", i ? ", " : "", i % 1000, i / 1000);
	snprintf(text + n, cap - n, "]\n");
	buf = from_yaml(text, &size, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(size, 16 + 16 + 4 * 16384);
	CHECK(buf && (buf[16 + 10] | buf[16 + 11] << 8) == 16384);
	free(buf);
	snprintf(text + n, cap - n, ", [0, 17]]\n");
	buf = from_yaml(text, &size, &ret);
	CHECK_ERR(ret, -EINVAL, "line 3: dpc.pixels: 16385 entries, at most 16384");
	free(text);
}

/* The complete example of docs/abi.md is canonical YAML and a valid buffer for a 1920x1080 frame. */
TEST(yaml_docs_example)
{
	char path[1024], *doc, *start, *end;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/docs/abi.md", CISP_SOURCE_DIR);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	doc = calloc(1, (size_t)len + 1);
	CHECK_EQ(fread(doc, 1, (size_t)len, f), len);
	fclose(f);
	start = strstr(doc, "<!-- example: the canonical YAML of a valid buffer -->\n```yaml\n");
	CHECK(start != NULL);
	if (start) {
		struct cisp_params_limits limits = { 1920, 1080, ABI_ALL_BLOCKS, 3 };
		size_t size;
		int ret;
		char *text = NULL;
		uint8_t *buf;

		start = strstr(start, "```yaml\n") + 8;
		end = strstr(start, "```\n");
		*end = '\0';
		buf = from_yaml(start, &size, &ret);
		CHECK_EQ(ret, 0);
		if (ret)
			printf("    %s\n", cisp_last_error());
		CHECK_EQ(cisp_params_validate(buf, size, &limits), 0);
		CHECK_EQ(cisp_params_to_yaml(buf, size, &text), 0);
		CHECK(text && !strcmp(text, start));
		if (text && strcmp(text, start))
			printf("    canonical form:\n%s", text);
		free(text);
		free(buf);
	}
	free(doc);
}

/* ---- the cisp params command ---- */

/* Run a shell command; its exit status, and its output (stdout and stderr) in a malloc()ed string. */
static int run(const char *cmd, char **output)
{
	char full[4096];
	size_t n = 0, cap = 1 << 16;
	FILE *p;
	int status;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	*output = calloc(1, cap + 1);
	if (!p)
		return -1;
	n = fread(*output, 1, cap, p);
	(*output)[n] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(yaml_cli_round_trip)
{
	const char *tmp = test_tmp_dir();
	const char *cisp = CISP_BUILD_DIR "/tools/cisp";
	char cmd[2048], yaml[512], bin[512], out[512], *output = NULL;
	uint8_t expected[104], got[200];
	FILE *f;
	size_t n;

	snprintf(yaml, sizeof(yaml), "%s/params.yaml", tmp);
	snprintf(bin, sizeof(bin), "%s/params.bin", tmp);
	snprintf(out, sizeof(out), "%s/decoded.yaml", tmp);
	write_text(yaml, known_text);

	snprintf(cmd, sizeof(cmd), "'%s' params encode '%s' '%s' && '%s' params decode '%s'", cisp, yaml, bin, cisp, bin);
	CHECK_EQ(run(cmd, &output), 0);
	CHECK(!strcmp(output, known_text));
	free(output);
	known_bytes(expected);
	f = fopen(bin, "rb");
	CHECK(f != NULL);
	n = f ? fread(got, 1, sizeof(got), f) : 0;
	if (f)
		fclose(f);
	CHECK_EQ(n, 104);
	CHECK(!memcmp(got, expected, 104));

	snprintf(cmd, sizeof(cmd), "'%s' params decode '%s' -o '%s' && cat '%s'", cisp, bin, out, out);
	CHECK_EQ(run(cmd, &output), 0);
	CHECK(!strcmp(output, known_text));
	free(output);

	/* validate: binary or YAML; the crop of 100x50 at (2, 4) needs a frame of at least 102x54. */
	snprintf(cmd, sizeof(cmd), "'%s' params validate '%s' --size 102x54", cisp, bin);
	CHECK_EQ(run(cmd, &output), 0);
	CHECK(strstr(output, "valid, 104 bytes: wb lsc crop noise") != NULL);
	free(output);
	snprintf(cmd, sizeof(cmd), "'%s' params validate '%s' --size 100x54", cisp, yaml);
	CHECK_EQ(run(cmd, &output), 1);
	CHECK(strstr(output, "params block 2 (crop) at offset 40: 100x50 at (2, 4) runs outside the 100x54 frame") != NULL);
	free(output);
	snprintf(cmd, sizeof(cmd), "'%s' params validate '%s' --size 100x", cisp, yaml);
	CHECK_EQ(run(cmd, &output), 2);
	free(output);

	/* errors name the file, the line and the key */
	write_text(yaml, "wb:\n  gain: [1, 1, 1, 16]\n");
	snprintf(cmd, sizeof(cmd), "'%s' params encode '%s' '%s'", cisp, yaml, bin);
	CHECK_EQ(run(cmd, &output), 1);
	CHECK(strstr(output, "params.yaml: line 2: wb.gain[3]: 16 is out of range 0.0..15.999755859375") != NULL);
	free(output);
	snprintf(cmd, sizeof(cmd), "'%s' params decode '%s'", cisp, yaml);
	CHECK_EQ(run(cmd, &output), 1);
	CHECK(strstr(output, "params.yaml: params header: magic 0x") != NULL);
	free(output);

	/* --help on each subcommand, usage errors */
	static const char *const helps[] = { "params --help", "params encode --help", "params decode --help",
					     "params validate --help" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "'%s' %s", cisp, helps[i]);
		CHECK_EQ(run(cmd, &output), 0);
		CHECK(strstr(output, "usage: cisp params") != NULL);
		free(output);
	}
	snprintf(cmd, sizeof(cmd), "'%s' params encode only-one-argument", cisp);
	CHECK_EQ(run(cmd, &output), 2);
	free(output);
	snprintf(cmd, sizeof(cmd), "'%s' params frobnicate", cisp);
	CHECK_EQ(run(cmd, &output), 2);
	CHECK(strstr(output, "unknown subcommand 'frobnicate'") != NULL);
	free(output);
}

/* Mangled YAML never crashes: it encodes to a valid buffer or fails with a line number. */
TEST(yaml_random_mutations)
{
	static const char alphabet[] = "[]{},:-# \n\t'\"0123456789.abcdefghijklmnopqrstuvwxyz_&*!|>%@`";
	size_t base_len = strlen(known_text);
	int accepted = 0, rejected = 0;

	for (int i = 0; i < 3000; i++) {
		char text[sizeof(known_text) + 16];
		size_t len = base_len, size;
		int ret;
		uint8_t *buf;

		memcpy(text, known_text, base_len + 1);
		for (int n = 1 + (int)(test_rand() % 3); n > 0; n--) {
			size_t at = (size_t)(test_rand() % len);
			char c = alphabet[test_rand() % (sizeof(alphabet) - 1)];

			switch (test_rand() % 3) {
			case 0: /* replace */
				text[at] = c;
				break;
			case 1: /* delete */
				memmove(text + at, text + at + 1, len - at);
				len--;
				break;
			default: /* insert */
				memmove(text + at + 1, text + at, len - at + 1);
				text[at] = c;
				len++;
			}
		}
		buf = from_yaml(text, &size, &ret);
		if (ret == 0) {
			accepted++;
			CHECK_EQ(cisp_params_validate(buf, size, NULL), 0);
		} else {
			rejected++;
			CHECK_EQ(ret, -EINVAL);
			CHECK(!strncmp(cisp_last_error(), "line ", 5));
		}
		free(buf);
	}
	CHECK(accepted > 100);
	CHECK(rejected > 1000);
}

/* Nesting no params file needs is refused before libyaml's scanner spends hours on it. */
TEST(yaml_deep_nesting_refused)
{
	size_t n = 200000;
	char *text = malloc(n + 16);
	void *buf = NULL;
	size_t size = 0;

	if (!text)
		return;
	memcpy(text, "blc: ", 5);
	memset(text + 5, '[', n);
	CHECK_ERR(cisp_params_from_yaml(text, n + 5, &buf, &size), -EINVAL, "line 1: nested more than 32 levels deep");
	CHECK(buf == NULL);
	free(text);
}
