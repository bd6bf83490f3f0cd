/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/):
 * small valid inputs that reach deep into each decoder, which the fuzzer
 * then mutates. Run from the source tree: build/fuzz/make-seeds fuzz/corpus
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cisp/dng.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/raster.h>
#include <cisp/raw_file.h>
#include <cisp/raw_frame.h>
#include <cisp/stats.h>

static const char *root;

static void put(const char *target, const char *name, const void *data, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
}

static void put_text(const char *name, const char *text)
{
	put("params_yaml", name, text, strlen(text));
}

/* A params seed in both forms: the binary buffer and its YAML. */
static void params_seed(const char *name, const void *buf, size_t size)
{
	char file[64];
	char *text;

	if (cisp_params_to_yaml(buf, size, &text)) {
		fprintf(stderr, "seed %s: %s\n", name, cisp_last_error());
		exit(1);
	}
	snprintf(file, sizeof(file), "%s.bin", name);
	put("params", file, buf, size);
	snprintf(file, sizeof(file), "%s.yaml", name);
	put("params_yaml", file, text, strlen(text));
	free(text);
}

static void params_from_yaml(const char *name, const char *text)
{
	size_t size;
	void *buf;

	if (cisp_params_from_yaml(text, strlen(text), &buf, &size)) {
		fprintf(stderr, "seed %s: %s\n", name, cisp_last_error());
		exit(1);
	}
	params_seed(name, buf, size);
	free(buf);
}

static void params_seeds(void)
{
	static uint8_t buf[CISP_PARAMS_MAX_SIZE];
	struct cisp_param_state *s = malloc(sizeof(*s));
	size_t size;

	cisp_param_state_init(s);
	/* Every block at its default, one buffer each, then all together. */
	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++) {
		char name[32];

		if (cisp_params_encode(s, CISP_BLOCK_BIT(t), buf, sizeof(buf), &size))
			continue;
		snprintf(name, sizeof(name), "default_%s", cisp_block_name(t));
		params_seed(name, buf, size);
	}
	s->dpc.count = 3;
	s->dpc.pixels[0] = (struct cisp_dpc_pixel){ 1, 2 };
	s->dpc.pixels[1] = (struct cisp_dpc_pixel){ 5, 2 };
	s->dpc.pixels[2] = (struct cisp_dpc_pixel){ 0, 9 };
	s->lsc.grid_w = 3;
	s->lsc.grid_h = 2;
	for (int i = 0; i < 24; i++)
		s->lsc.gain[i] = (uint16_t)(4096 + 100 * i);
	s->lut3d.size = 3;
	for (int i = 0; i < 27; i++)
		for (int c = 0; c < 3; c++)
			s->lut3d.table[i][c] = (uint16_t)((i >> c) * 2400);
	s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_LUT3D);
	s->stats.af_count = 1;
	s->stats.af[0] = (struct cisp_stats_window){ 8, 8, 16, 16 };
	s->crop_enabled = 1;
	s->crop[0].width = 32;
	s->crop[0].height = 16;
	if (cisp_params_encode(s, ~0u, buf, sizeof(buf), &size)) {
		fprintf(stderr, "seed state: %s\n", cisp_last_error());
		exit(1);
	}
	params_seed("whole_state", buf, size);
	free(s);

	params_from_yaml("steady", "wb:\n  gain: [1.9375, 1.0, 1.0, 1.4375]\nbnr:\n  strength: 2.0\n");
	params_from_yaml("disable", "bnr:\n  enable: false\nlsc:\n  enable: false\nsharpen:\n  enable: false\n");
	params_from_yaml("vendor", "vendor_0x454d4341_1:\n  enable: true\n  version: 1\n  payload: [2, 0, 0, 1, 20, 0, 0, 0]\n"
				   "vendor_0xffff0101_1:\n  enable: false\n  version: 2\n  payload: [7, 0, 1, 0]\n"
				   "wb:\n  gain: [2.0, 1.0, 1.0, 1.5]\n");
	params_from_yaml("empty", "{}\n");
	/* Texts the YAML parser must take apart: flow mappings, comments, anchors. */
	put_text("flow.yaml", "{wb: {enable: true, gain: [1, 1, 1, 1]}, csc: {matrix: bt601, range: full}}\n");
	put_text("comments.yaml", "# a comment\nccm:  # and another\n  coeff: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n"
				  "  offset: [0, -5, 7]\n");
	put_text("anchor.yaml", "blc: &b\n  black: [0, 0, 0, 0]\n  white: 65535\nnoise: {a: [1, 2, 3, 4], b: &n [1, 2, 3, 4]}\n");
}

static void stats_seeds(void)
{
	static const struct {
		const char *name;
		uint16_t zones_x, zones_y, af_count, row_group;
		bool enable;
	} cases[] = {
		{ "default", 16, 12, 0, 0, true },
		{ "af", 5, 3, 2, 3, true },
		{ "one_zone", 1, 1, 8, 24, true },
		{ "disabled", 16, 12, 0, 0, false },
	};
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_RGB888, 64, 48 } } };
	struct cisp_image in, out;
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_stats st;

	cisp_image_alloc(&in, CISP_FMT_SRGGB10, 64, 48);
	cisp_image_alloc(&out, CISP_FMT_RGB888, 64, 48);
	for (int i = 0; i < 64 * 48; i++)
		((uint16_t *)in.plane[0].data)[i] = (uint16_t)((i * 7919) % 1024);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct {
			struct cisp_params_header h;
			struct cisp_stats_params p;
		} buf = { { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, sizeof(buf), 0 },
			  { { CISP_BLOCK_STATS, cases[k].enable ? CISP_BLOCK_FL_ENABLE : CISP_BLOCK_FL_DISABLE,
			      sizeof(buf.p) },
			    cases[k].zones_x, cases[k].zones_y, 1000, cases[k].af_count, { { 0 } }, cases[k].row_group, { 0 } } };
		struct cisp_isp *isp;
		char name[64];

		for (unsigned w = 0; w < cases[k].af_count; w++)
			buf.p.af[w] = (struct cisp_stats_window){ (uint16_t)(2 * w), (uint16_t)(3 * w), 8 + 4 * w, 8 + 2 * w };
		if (cisp_isp_create(&isp, &c) || cisp_isp_set_params(isp, &buf, sizeof(buf)) ||
		    cisp_isp_process(isp, &in, outs, &st, NULL) || cisp_stats_validate(&st, sizeof(st))) {
			fprintf(stderr, "stats seed %s: %s\n", cases[k].name, cisp_last_error());
			exit(1);
		}
		snprintf(name, sizeof(name), "%s.stats", cases[k].name);
		put("stats", name, &st, sizeof(st));
		cisp_isp_destroy(isp);
	}
	cisp_image_free(&in);
	cisp_image_free(&out);
}

/* Headerless dumps: the 6-byte header of fuzz_raw_dump.c, then the frame. */
static void raw_dump_seeds(void)
{
	static const struct {
		uint8_t format, w, h;
	} cases[] = {
		{ 0 | 1 << 2, 16, 16 },           /* RGGB 10-bit */
		{ 1 | 2 << 2, 32, 18 },           /* GRBG 12-bit */
		{ 2 | 1 << 2 | 1 << 5, 16, 16 },  /* GBRG RAW10 packed */
		{ 3 | 2 << 2 | 1 << 5, 20, 16 },  /* BGGR RAW12 packed */
		{ 0 | 0 << 2, 24, 16 },           /* RGGB 8-bit */
		{ 0 | 4 << 2, 16, 20 },           /* RGGB 16-bit */
	};
	static uint8_t buf[6 + 80 * 80 * 2];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		static const unsigned bits[] = { 8, 10, 12, 14, 16 };
		uint32_t format = cisp_bayer_format((enum cisp_cfa)(cases[k].format & 3), bits[((cases[k].format >> 2) & 7) % 5],
						    (cases[k].format >> 5) & 1);
		size_t need = cisp_image_packed_size(format, cases[k].w, cases[k].h);
		char name[32];

		buf[0] = cases[k].format;
		buf[1] = (uint8_t)(cases[k].w - 1);
		buf[2] = 0;
		buf[3] = (uint8_t)(cases[k].h - 1);
		buf[4] = 0;
		buf[5] = 1; /* exact */
		for (size_t i = 0; i < need; i++)
			buf[6 + i] = (uint8_t)(i * 37 + (i >> 7));
		snprintf(name, sizeof(name), "%s_%ux%u.dump", cisp_format_name(format), cases[k].w, cases[k].h);
		put("raw_dump", name, buf, 6 + need);
	}
}

/* Small DNGs through the library's own writer. */
static void raw_file_seeds(void)
{
	static const struct {
		enum cisp_cfa cfa;
		unsigned bits;
		uint32_t w, h;
	} cases[] = { { CISP_CFA_RGGB, 12, 32, 32 }, { CISP_CFA_BGGR, 10, 32, 24 }, { CISP_CFA_GRBG, 16, 48, 32 } };
	char path[512], name[64];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct cisp_raw_frame frame = { 0 };
		uint32_t format = cisp_bayer_format(cases[k].cfa, cases[k].bits, false);

		if (cisp_image_alloc(&frame.image, format, cases[k].w, cases[k].h))
			exit(1);
		for (uint32_t y = 0; y < cases[k].h; y++)
			for (uint32_t x = 0; x < cases[k].w; x++)
				((uint16_t *)(frame.image.plane[0].data + y * frame.image.plane[0].stride))[x] =
					(uint16_t)(((x * 97 + y * 31) * 13) % (1u << cases[k].bits));
		for (int c = 0; c < 4; c++)
			frame.black[c] = (uint16_t)(16 << (cases[k].bits - 10));
		frame.white = (uint16_t)((1u << cases[k].bits) - 1);
		frame.has_wb = true;
		frame.wb_gains[0] = 2.0f;
		frame.wb_gains[1] = 1.0f;
		frame.wb_gains[2] = 1.5f;
		frame.orientation = 1;
		frame.has_matrix = true; /* XYZ to linear sRGB */
		memcpy(frame.xyz_to_cam, (const float[9]){ 3.2406f, -1.5372f, -0.4986f, -0.9689f, 1.8758f, 0.0415f, 0.0557f,
							   -0.2040f, 1.0570f },
		       sizeof(frame.xyz_to_cam));
		snprintf(name, sizeof(name), "%s_%ux%u.dng", cisp_format_name(format), cases[k].w, cases[k].h);
		snprintf(path, sizeof(path), "%s/raw_file", root);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/raw_file/%s", root, name);
		if (cisp_dng_write(path, &frame)) {
			fprintf(stderr, "dng seed: %s\n", cisp_last_error());
			exit(1);
		}
		cisp_raw_frame_free(&frame);
		if (cisp_raw_read_file(path, &frame)) {
			fprintf(stderr, "dng seed %s does not read back: %s\n", name, cisp_last_error());
			exit(1);
		}
		cisp_raw_frame_free(&frame);
	}
}

/* Small images of each kind the raster reader takes. */
static void raster_seeds(void)
{
	static const struct {
		const char *name;
		uint32_t w, h;
		unsigned channels, maxval;
	} cases[] = { { "grey8.pgm", 6, 4, 1, 255 },   { "grey10.pgm", 5, 3, 1, 1023 }, { "rgb8.ppm", 4, 4, 3, 255 },
		      { "grey8.png", 7, 5, 1, 255 },   { "rgb16.png", 4, 3, 3, 65535 } };
	char path[512];

	snprintf(path, sizeof(path), "%s/raster", root);
	mkdir(path, 0755);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct cisp_raster r;
		size_t n;

		if (cisp_raster_alloc(&r, cases[k].w, cases[k].h, cases[k].channels, cases[k].maxval))
			exit(1);
		n = (size_t)r.width * r.height * r.channels;
		for (size_t i = 0; i < n; i++)
			r.data[i] = (uint16_t)((i * 2654435761u >> 7) % (cases[k].maxval + 1u));
		snprintf(path, sizeof(path), "%s/raster/%s", root, cases[k].name);
		if (cisp_raster_write(path, &r)) {
			fprintf(stderr, "raster seed: %s\n", cisp_last_error());
			exit(1);
		}
		cisp_raster_free(&r);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make-seeds CORPUS_FOLDER\n");
		return 2;
	}
	root = argv[1];
	mkdir(root, 0755);
	params_seeds();
	stats_seeds();
	raw_dump_seeds();
	raw_file_seeds();
	raster_seeds();
	return 0;
}
