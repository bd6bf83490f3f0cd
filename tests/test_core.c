/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/buffer.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/pool.h>

#include "core/matrix3.h"
#include "core/yaml_reader.h"
#include "test.h"

TEST(matrix3_inverse)
{
	const double a[3][3] = { { 2, 1, 0 }, { 1, 3, 1 }, { 0, 1, 4 } };
	const double singular[3][3] = { { 1, 2, 3 }, { 2, 4, 6 }, { 0, 1, 1 } };
	double inv[3][3], untouched[3][3] = { { 7 } };

	CHECK_NEAR(matrix3_invert(a, inv), 18, 1e-12);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double p = a[i][0] * inv[0][j] + a[i][1] * inv[1][j] + a[i][2] * inv[2][j];

			CHECK_NEAR(p, i == j, 1e-12);
		}
	CHECK_NEAR(inv[0][0], 11.0 / 18, 1e-15);
	CHECK_NEAR(inv[0][2], 1.0 / 18, 1e-15);
	CHECK_EQ(matrix3_invert(singular, untouched), 0);
	CHECK_EQ(untouched[0][0], 7); /* left as it was */
	const double huge[3][3] = { { 1e300, 0, 0 }, { 0, 1e300, 0 }, { 0, 0, 1e300 } };
	CHECK_EQ(matrix3_invert(huge, untouched), 0); /* the determinant overflows */
	CHECK_EQ(untouched[0][0], 7);
}

TEST(format_names_round_trip)
{
	static const char *const names[] = { "SRGGB8", "SGRBG10", "SGBRG10P", "SBGGR12P", "SRGGB14",
					     "SGRBG16", "NV12", "YUV420", "RGB24", "RGB48", "XBGR32" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint32_t f = cisp_format_from_name(names[i]);
		CHECK(f != 0);
		CHECK(!strcmp(cisp_format_name(f), names[i]));
	}
	CHECK_EQ(cisp_format_from_name("srggb10p"), CISP_FMT_SRGGB10P);
	CHECK_EQ(cisp_format_from_name("I420"), CISP_FMT_I420);
	CHECK_EQ(cisp_format_from_name("RGB888"), CISP_FMT_RGB888);
	CHECK_EQ(cisp_format_from_name("BGRx"), CISP_FMT_XBGR32);
	CHECK_EQ(cisp_format_from_name("XR24"), CISP_FMT_XBGR32);
	CHECK_EQ(cisp_format_from_name("SRGGB11"), 0);
	CHECK(strstr(cisp_last_error(), "SRGGB11") != NULL);
	/* The fourccs are V4L2's. */
	CHECK_EQ(CISP_FMT_SRGGB10P, 0x41415270u); /* 'pRAA' */
	CHECK_EQ(CISP_FMT_SGRBG10, 0x30314142u);  /* 'BA10' */
	CHECK_EQ(CISP_FMT_XBGR32, 0x34325258u);   /* 'XR24' */
}

TEST(format_bayer_lookup)
{
	const struct cisp_format_info *f = cisp_format_info(CISP_FMT_SGBRG12P);

	CHECK(f && f->kind == CISP_KIND_BAYER && f->bits == 12 && f->packed && f->cfa == CISP_CFA_GBRG);
	CHECK_EQ(cisp_bayer_format(CISP_CFA_BGGR, 10, true), CISP_FMT_SBGGR10P);
	CHECK_EQ(cisp_bayer_format(CISP_CFA_RGGB, 14, true), 0);
	CHECK_EQ(cisp_bayer_format(CISP_CFA_GRBG, 16, false), CISP_FMT_SGRBG16);
}

TEST(cfa_channels)
{
	enum cisp_cfa cfa;

	CHECK_EQ(cisp_cfa_from_name("grbg", &cfa), 0);
	CHECK_EQ(cfa, CISP_CFA_GRBG);
	CHECK_ERR(cisp_cfa_from_name("RGBG", &cfa), -EINVAL, "RGBG");
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_RGGB, 0, 0), CISP_CH_R);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_RGGB, 1, 0), CISP_CH_GR);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_RGGB, 0, 1), CISP_CH_GB);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_RGGB, 3, 3), CISP_CH_B);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_GRBG, 1, 0), CISP_CH_R);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_GRBG, 0, 0), CISP_CH_GR);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_GBRG, 0, 1), CISP_CH_R);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_GBRG, 0, 0), CISP_CH_GB);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_BGGR, 1, 1), CISP_CH_R);
	CHECK_EQ(cisp_cfa_channel(CISP_CFA_BGGR, 0, 1), CISP_CH_GR);
}

TEST(image_sizes)
{
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_SRGGB10P, 640, 480), 640 * 5 / 4 * 480);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_SRGGB12P, 642, 480), 642 * 3 / 2 * 480);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_SRGGB12, 640, 480), 640 * 2 * 480);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_SBGGR8, 640, 480), 640 * 480);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_NV12, 642, 480), 642 * 480 + 642 * 240);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_I420, 641, 481), 641 * 481 + 2 * 321 * 241);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_RGB48, 10, 10), 600);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_XBGR32, 10, 3), 120);
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_SRGGB10, 641, 480), 0); /* odd Bayer width */
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_SRGGB10P, 642, 480), 0); /* RAW10 needs 4 | width */
	CHECK_EQ(cisp_image_packed_size(CISP_FMT_RGB888, CISP_MAX_DIMENSION + 1, 1), 0);
}

TEST(image_alloc_and_wrap)
{
	struct cisp_image img;
	uint8_t mem[64 * 16 * 2];

	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, 100, 50), 0);
	CHECK_EQ(img.num_planes, 2);
	CHECK(img.plane[0].stride >= 100 && img.plane[0].stride % 64 == 0);
	CHECK(img.plane[1].data == img.plane[0].data + img.plane[0].stride * 50);
	CHECK_EQ(cisp_image_check(&img, "output 0"), 0);
	img.plane[1].stride = 10;
	CHECK_ERR(cisp_image_check(&img, "output 0"), -EINVAL, "output 0: plane 1 stride 10");
	cisp_image_free(&img);
	CHECK(img.owned == NULL);

	CHECK_EQ(cisp_image_wrap(&img, CISP_FMT_SRGGB16, 64, 16, mem, sizeof(mem)), 0);
	CHECK_EQ(img.plane[0].stride, 128);
	CHECK_ERR(cisp_image_wrap(&img, CISP_FMT_SRGGB16, 64, 16, mem, sizeof(mem) - 1), -EMSGSIZE,
		  "2047 bytes were given");
	CHECK_ERR(cisp_image_alloc(&img, CISP_FMT_SRGGB8, 0, 16), -EINVAL, "outside");
	CHECK_ERR(cisp_image_alloc(&img, 0x12345678, 16, 16), -EINVAL, "unknown pixel format");
}

TEST(buffer_kinds)
{
	struct cisp_buffer *a, *b, *c;
	char user[32];

	CHECK_EQ(cisp_buffer_alloc(&a, 1000), 0);
	CHECK_EQ(cisp_buffer_size(a), 1000);
	CHECK_EQ(cisp_buffer_fd(a), -1);
	CHECK_EQ(((uint8_t *)cisp_buffer_data(a))[999], 0);
	cisp_buffer_free(a);

	CHECK_EQ(cisp_buffer_memfd(&b, 4096, "test"), 0);
	CHECK(cisp_buffer_fd(b) >= 0);
	memcpy(cisp_buffer_data(b), "hello", 6);
	CHECK_EQ(cisp_buffer_import_fd(&c, cisp_buffer_fd(b), 4096), 0);
	CHECK(!strcmp(cisp_buffer_data(c), "hello")); /* same memory, second mapping */
	CHECK_ERR(cisp_buffer_import_fd(&a, cisp_buffer_fd(b), 8192), -EINVAL, "fewer than");
	cisp_buffer_free(c);
	cisp_buffer_free(b);

	CHECK_ERR(cisp_buffer_import_fd(&a, 1000, 16), -EBADF, "not open");
	CHECK_EQ(cisp_buffer_wrap(&a, user, sizeof(user)), 0);
	CHECK(cisp_buffer_data(a) == user);
	cisp_buffer_free(a);
	CHECK_ERR(cisp_buffer_alloc(&a, 0), -EINVAL, "empty");
	/* Rounding up to 64 bytes must not wrap to a tiny allocation that the size then overruns. */
	CHECK_ERR(cisp_buffer_alloc(&a, SIZE_MAX - 10), -ENOMEM, "out of memory for a 18446744073709551605-byte buffer");
}

struct pool_check {
	atomic_uint sum;
	unsigned char seen[1000];
};

static void pool_task(void *opaque, unsigned task, unsigned worker)
{
	struct pool_check *p = opaque;

	(void)worker;
	p->seen[task]++;
	atomic_fetch_add(&p->sum, task);
}

TEST(pool_runs_every_task_once)
{
	for (unsigned threads = 1; threads <= 4; threads++) {
		struct cisp_pool *pool;

		CHECK_EQ(cisp_pool_create(&pool, threads), 0);
		CHECK_EQ(cisp_pool_threads(pool), threads);
		for (int round = 0; round < 50; round++) {
			struct pool_check p = { 0 };
			unsigned count = 1 + (unsigned)(test_rand() % 1000);
			bool once = true;

			cisp_pool_run(pool, count, pool_task, &p);
			CHECK_EQ(atomic_load(&p.sum), count * (count - 1) / 2);
			for (unsigned i = 0; i < count; i++)
				once &= p.seen[i] == 1;
			CHECK(once);
		}
		cisp_pool_destroy(pool);
	}
}

/* Messages name files and devices: a hostile name cannot put escape sequences into one. */
TEST(error_messages_are_printable)
{
	char small[16];

	CHECK_EQ(cisp_error(-EINVAL, "%s: not a mosaic", "evil\x1b[31m\x07.dng"), -EINVAL);
	CHECK(!strcmp(cisp_last_error(), "evil\\x1b[31m\\x07.dng: not a mosaic"));
	CHECK_EQ(cisp_error_prefix(-EIO, "dir\x9b/\xc2\x9b%s", "x"), -EIO);
	/* A lone 0x9b is not UTF-8's C1 encoding and is kept; the two-byte U+009B is written out. */
	CHECK(!strcmp(cisp_last_error(), "dir\x9b/\\xc2\\x9bx: evil\\x1b[31m\\x07.dng: not a mosaic"));
	CHECK(!strcmp(cisp_printable("caf\xc3\xa9\n", small, sizeof(small)), "caf\xc3\xa9\\x0a"));
	CHECK(!strcmp(cisp_printable("\x1b\x1b", small, 4), ""));
	CHECK(!strcmp(cisp_printable("abc", small, 1), ""));
}

/* ---- the shared YAML reader ---- */

static const char *const reader_keys[] = { "gain", "table", "name", NULL };

struct reader_seen {
	double gain, table[3];
	char name[8];
};

static int reader_key(struct yaml_reader *r, void *ctx, unsigned i, const char *key, yaml_node_t *v)
{
	struct reader_seen *seen = ctx;

	switch (i) {
	case 0: return yaml_reader_whole(r, v, key, 1, 64, &seen->gain);
	case 1: return yaml_reader_numbers(r, v, key, 3, 0, 1, seen->table);
	default: return yaml_reader_text(r, v, key, seen->name, sizeof(seen->name));
	}
}

/* Parse @text as file "t.yaml" with the keys above ("gain" required); 0 or the error. */
static int reader_parse(const char *text, struct reader_seen *seen)
{
	struct yaml_reader r;
	yaml_node_t *root;
	int ret = yaml_reader_load(&r, "t.yaml", text, strlen(text), &root);

	if (ret)
		return ret;
	ret = yaml_reader_map(&r, root, "top", reader_keys, 1u << 0, reader_key, seen);
	yaml_reader_free(&r);
	return ret;
}

TEST(yaml_reader_values_and_their_errors)
{
	struct reader_seen seen = { 0 };
	char deep[200];

	CHECK_EQ(reader_parse("gain: 4\ntable: [0, 0.5, 1]\nname: ab\n", &seen), 0);
	CHECK_EQ(seen.gain, 4);
	CHECK_EQ(seen.table[1], 0.5);
	CHECK(!strcmp(seen.name, "ab"));
	CHECK_ERR(reader_parse("gain: [1\n", &seen), -EINVAL, "t.yaml:2: ");
	CHECK_ERR(reader_parse("", &seen), -EINVAL, "t.yaml:1: the file is empty");
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = 0;
	CHECK_ERR(reader_parse(deep, &seen), -EINVAL, "t.yaml:1: nested more than 32 levels deep");
	CHECK_ERR(reader_parse("gain: 65\n", &seen), -EINVAL, "t.yaml:1: top.gain: 65 is outside 1..64");
	CHECK_ERR(reader_parse("gain: 2.5\n", &seen), -EINVAL, "t.yaml:1: top.gain: must be a whole number (is 2.5)");
	CHECK_ERR(reader_parse("gain: x1\n", &seen), -EINVAL, "t.yaml:1: top.gain: 'x1' is not a number");
	CHECK_ERR(reader_parse("gain: nan\n", &seen), -EINVAL, "top.gain: 'nan' is not a number");
	CHECK_ERR(reader_parse("gain: {a: 1}\n", &seen), -EINVAL, "top.gain: must be a number");
	CHECK_ERR(reader_parse("gain: 1\ntable: [0, 2, 1]\n", &seen), -EINVAL, "t.yaml:2: top.table[1]: 2 is outside 0..1");
	CHECK_ERR(reader_parse("gain: 1\ntable: [0, 1]\n", &seen), -EINVAL, "t.yaml:2: top.table: must have 3 numbers (has 2)");
	CHECK_ERR(reader_parse("gain: 1\ntable: 0\n", &seen), -EINVAL, "top.table: must be a list of 3 numbers");
	CHECK_ERR(reader_parse("gain: 1\nname: abcdefghij\n", &seen), -EINVAL, "top.name: is longer than 7 characters");
	CHECK_ERR(reader_parse("gain: 1\nname: a/b\n", &seen), -EINVAL, "top.name: 'a/b' must be a plain name");
	CHECK_ERR(reader_parse("gain: 1\ngian: 2\n", &seen), -EINVAL, "t.yaml:2: top.gian: unknown key");
	CHECK_ERR(reader_parse("gain: 1\ngain: 2\n", &seen), -EINVAL, "t.yaml:2: top.gain: appears twice");
	CHECK_ERR(reader_parse("name: a\n", &seen), -EINVAL, "t.yaml:1: top.gain: missing (required)");
	CHECK_ERR(reader_parse("- 1\n", &seen), -EINVAL, "top: must be a mapping of keys");
}

static int reader_item(struct yaml_reader *r, void *ctx, unsigned i, const char *key, yaml_node_t *v)
{
	double *out = ctx;

	return yaml_reader_number(r, v, key, 0, 10, &out[i]);
}

TEST(yaml_reader_lists_lookups_and_files)
{
	struct yaml_reader r;
	yaml_node_t *root;
	double v[2];
	unsigned n = 0;
	char path[256];
	FILE *f;

	const char *text = "a: [3, 4]\nb: []\nc: [1, 2, 3]\n";

	if (yaml_reader_load(&r, "l.yaml", text, strlen(text), &root))
		return test_fail(__FILE__, __LINE__, "%s", cisp_last_error());
	CHECK_EQ(yaml_reader_list(&r, yaml_reader_get(&r, root, "a"), "a", 2, &n, reader_item, v), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(v[1], 4);
	CHECK_ERR(yaml_reader_list(&r, yaml_reader_get(&r, root, "b"), "b", 2, &n, reader_item, v), -EINVAL,
		  "l.yaml:2: b: must have at least one entry");
	CHECK_ERR(yaml_reader_list(&r, yaml_reader_get(&r, root, "c"), "c", 2, &n, reader_item, v), -EINVAL,
		  "l.yaml:3: c: has more than 2 entries");
	CHECK(yaml_reader_get(&r, root, "d") == NULL);
	CHECK(yaml_reader_get(&r, yaml_reader_get(&r, root, "a"), "a") == NULL); /* not a mapping */
	CHECK_EQ(yaml_reader_line(yaml_reader_get(&r, root, "c")), 3);
	yaml_reader_free(&r);

	CHECK_ERR(yaml_reader_load_file(&r, "/no/such/file.yaml", 1024, &root), -ENOENT, "/no/such/file.yaml");
	snprintf(path, sizeof(path), "%s/yaml-reader-%d.yaml", test_tmp_dir(), (int)getpid());
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("a: 1\nb: x\n", f);
	fclose(f);
	CHECK_ERR(yaml_reader_load_file(&r, path, 4, &root), -EFBIG, path);
	CHECK_EQ(yaml_reader_load_file(&r, path, 1024, &root), 0);
	CHECK_ERR(yaml_reader_number(&r, yaml_reader_get(&r, root, "b"), "b", 0, 1, v), -EINVAL, ":2: b: 'x' is not a number");
	yaml_reader_free(&r);
	unlink(path);
}

TEST(yaml_reader_values_at_keys_and_lists_of_names)
{
	const char *text = "n: 3\ns: some/path\ne: ''\nnames: [a, b, c]\nmixed: [a, [b]]\nm: {x: 1}\n";
	const char *names[3];
	struct yaml_reader r;
	yaml_node_t *root;
	unsigned count = 9;
	char out[8] = "keep";
	double v = 0;

	if (yaml_reader_load(&r, "v.yaml", text, strlen(text), &root))
		return;
	CHECK_EQ(yaml_reader_number_at(&r, root, "", "n", 0, 5, NAN, &v), 0);
	CHECK_EQ(v, 3);
	CHECK_EQ(yaml_reader_number_at(&r, root, "", "absent", 0, 5, 2.5, &v), 0);
	CHECK_EQ(v, 2.5);
	CHECK_ERR(yaml_reader_number_at(&r, root, "top", "absent", 0, 5, NAN, &v), -EINVAL,
		  "v.yaml:1: top.absent: missing (required)");
	CHECK_ERR(yaml_reader_number_at(&r, root, "", "n", 4, 5, NAN, &v), -EINVAL, "v.yaml:1: n: 3 is outside 4..5");
	CHECK_ERR(yaml_reader_number_at(&r, root, "", "s", 0, 5, NAN, &v), -EINVAL, "v.yaml:2: s: 'some/path' is not a number");
	/* Any text, '/' included; the plain-name form refuses it. */
	CHECK_ERR(yaml_reader_string_at(&r, root, "", "s", true, out, sizeof(out)), -EINVAL,
		  "v.yaml:2: s: is longer than 7 characters");
	CHECK_EQ(yaml_reader_string(&r, yaml_reader_get(&r, root, "n"), "n", out, sizeof(out)), 0);
	CHECK(!strcmp(out, "3"));
	CHECK_EQ(yaml_reader_string_at(&r, root, "", "absent", false, out, sizeof(out)), 0);
	CHECK(!strcmp(out, "3")); /* an optional key that is absent leaves @out */
	CHECK_ERR(yaml_reader_string_at(&r, root, "", "absent", true, out, sizeof(out)), -EINVAL, "absent: missing");
	CHECK_ERR(yaml_reader_string_at(&r, root, "", "e", true, out, sizeof(out)), -EINVAL, "v.yaml:3: e: must not be empty");
	CHECK_ERR(yaml_reader_string_at(&r, root, "", "m", false, out, sizeof(out)), -EINVAL, "v.yaml:6: m: must be text");
	/* Lists of names. */
	CHECK_EQ(yaml_reader_strings(&r, yaml_reader_get(&r, root, "names"), "names", 3, names, &count), 0);
	CHECK_EQ(count, 3);
	CHECK(!strcmp(names[0], "a") && !strcmp(names[2], "c"));
	CHECK_ERR(yaml_reader_strings(&r, yaml_reader_get(&r, root, "names"), "names", 2, names, &count), -EINVAL,
		  "v.yaml:4: names: has more than 2 entries");
	CHECK_ERR(yaml_reader_strings(&r, yaml_reader_get(&r, root, "mixed"), "mixed", 3, names, &count), -EINVAL,
		  "v.yaml:5: mixed[1]: must be a name");
	CHECK_ERR(yaml_reader_strings(&r, yaml_reader_get(&r, root, "n"), "n", 3, names, &count), -EINVAL,
		  "v.yaml:1: n: must be a list");
	/* A value that is not there has no line: the message says so instead of line 0. */
	CHECK_ERR(yaml_reader_strings(&r, NULL, "gone", 3, names, &count), -EINVAL, "v.yaml: gone: missing");
	CHECK_ERR(yaml_reader_numbers(&r, NULL, "gone", 2, 0, 1, &v), -EINVAL, "v.yaml: gone: missing (a list of 2 numbers)");
	/* Unknown keys name the known ones; a NULL walker only checks the keys. */
	CHECK_ERR(yaml_reader_map(&r, root, "", (const char *const[]){ "n", "s", NULL }, 0, NULL, NULL), -EINVAL,
		  "v.yaml:3: e: unknown key (known: n, s)");
	CHECK_EQ(yaml_reader_map(&r, yaml_reader_get(&r, root, "m"), "m", (const char *const[]){ "x", NULL }, 1, NULL, NULL), 0);
	yaml_reader_free(&r);

	/* A second document is refused, not silently ignored. */
	CHECK_ERR(yaml_reader_load(&r, "two.yaml", "a: 1\n---\nb: 2\n", 14, &root), -EINVAL,
		  "two.yaml:2: only one YAML document is allowed");
	/* A buffer has no file name: "line N", and an empty one is no error. */
	CHECK_EQ(yaml_reader_load_buffer(&r, "# nothing\n", 10, &root), 0);
	CHECK(root == NULL);
	yaml_reader_free(&r);
	CHECK_ERR(yaml_reader_load_buffer(&r, "a: [1\n", 6, &root), -EINVAL, "line 2: ");
	CHECK_EQ(yaml_reader_load_buffer(&r, "a: x\n", 5, &root), 0);
	CHECK_ERR(yaml_reader_number(&r, yaml_reader_get(&r, root, "a"), "a", 0, 1, &v), -EINVAL,
		  "line 1: a: 'x' is not a number");
	yaml_reader_free(&r);
}
