/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan backend (docs/gpu.md): each stage shader against the C
 * reference row on random inputs of several sizes, then whole frames on a
 * device with CISP_ISP=vulkan against the software ISP, outputs and
 * statistics byte for byte. Without a Vulkan device (or in a build without
 * Vulkan) the tests say so loudly and skip, unless CISP_REQUIRE_VULKAN=1,
 * which CI sets: then that is a failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "device/vulkan_backend.h"
#include "test.h"

/* No device: a failure where CI requires one, else a loud skip. */
static void no_vulkan(const char *why)
{
	const char *require = getenv("CISP_REQUIRE_VULKAN");

	if (require && !strcmp(require, "1"))
		test_fail(__FILE__, __LINE__, "CISP_REQUIRE_VULKAN=1 and %s", why);
	else
		test_skip("NO VULKAN DEVICE, the Vulkan backend is NOT tested: %s", why);
}

/* A device whose contexts run on the Vulkan backend. */
static struct cisp_device *vulkan_device(void)
{
	struct cisp_device *dev = NULL;

	setenv("CISP_ISP", VULKAN_ISP_NAME, 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	return dev;
}

#ifndef CISP_VULKAN_BUILT
TEST(vulkan_not_built)
{
	struct cisp_device *dev = vulkan_device();
	struct cisp_context *ctx = NULL;
	const struct cisp_context_config cc = { .name = "v",
						.isp = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL } };

	CHECK_ERR(cisp_context_create(&ctx, dev, &cc), -ENOTSUP, "no Vulkan device: this cisp was built without Vulkan");
	cisp_device_destroy(dev);
	no_vulkan("this build has no Vulkan backend (meson option vulkan)");
}
#else
#include "device/vulkan_frame.h"
#include "isp/unpack.h"

/* Frame sizes: widths that are not a multiple of the 64-pair workgroup, and the smallest. */
static const struct {
	uint32_t w, h;
} sizes[] = { { 4, 2 }, { 132, 4 }, { 254, 6 }, { 2, 2 }, { 1030, 2 } };

/*
 * A reference to the process's device. The first call takes one more that
 * is kept to the end of the process, so that the device, whose pipelines
 * lavapipe compiles at each opening, is made once for the tests and the
 * contexts they create. It is closed at exit, before LeakSanitizer looks
 * (lavapipe frees everything only when its device goes).
 */
static struct vk_gpu *kept;

static void close_kept(void)
{
	vk_gpu_close(kept);
}

static struct vk_gpu *open_gpu(void)
{
	struct vk_gpu *g = NULL;

	if (!kept && !vk_gpu_open(&kept))
		atexit(close_kept);
	if (!kept || vk_gpu_open(&g)) {
		no_vulkan(cisp_last_error());
		return NULL;
	}
	return g;
}

/* A frame of @format with random bytes in its rows (padding included: the image's rows are 64-byte aligned). */
static struct cisp_image random_raw(uint32_t format, uint32_t w, uint32_t h)
{
	struct cisp_image img;

	if (cisp_image_alloc(&img, format, w, h)) {
		test_fail(__FILE__, __LINE__, "%s", cisp_last_error());
		return img;
	}
	for (uint32_t y = 0; y < h; y++)
		for (size_t x = 0; x < (size_t)img.plane[0].stride; x++)
			img.plane[0].data[y * img.plane[0].stride + x] = (uint8_t)test_rand();
	return img;
}

/* The unpack of @img on the GPU, then @extra steps, equal to @want (w x h samples): 0 or the first wrong index + 1. */
static size_t gpu_differs(struct vk_gpu *g, const struct cisp_image *img, const struct vk_step *extra,
			  unsigned n_extra, const uint16_t *want)
{
	struct vk_frame *f = NULL;
	struct vk_step steps[4];
	const uint16_t *got;
	size_t n = (size_t)img->width * img->height, bad = 0;

	CHECK_EQ(vk_frame_create(g, img->format, img->width, img->height, &f), 0);
	if (!f)
		return 1;
	vk_step_unpack(f, &steps[0]);
	if (n_extra)
		memcpy(steps + 1, extra, n_extra * sizeof(*extra));
	CHECK_EQ(vk_frame_run(f, img, steps, 1 + n_extra, &got), 0);
	for (size_t i = 0; i < n && !bad; i++)
		if (got[i] != want[i])
			bad = i + 1;
	if (bad)
		fprintf(stderr, "  %ux%u %s: sample %zu is %u, the reference's %u\n", img->width, img->height,
			cisp_format_name(img->format), bad - 1, got[bad - 1], want[bad - 1]);
	vk_frame_destroy(f);
	return bad;
}

/* Every Bayer layout, random bytes (out-of-range containers included), against cisp_unpack_rows(). */
TEST(vulkan_unpack_bitexact)
{
	static const struct {
		unsigned bits;
		bool packed;
	} fmt[] = { { 8, false }, { 10, false }, { 12, false }, { 14, false }, { 16, false }, { 10, true }, { 12, true } };
	struct vk_gpu *g = open_gpu();

	for (unsigned f = 0; g && f < sizeof(fmt) / sizeof(fmt[0]); f++) {
		for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint32_t format = cisp_bayer_format((enum cisp_cfa)(s % 4), fmt[f].bits, fmt[f].packed);
			/* RAW10 comes in groups of 4 samples. */
			uint32_t w = fmt[f].packed && fmt[f].bits == 10 ? (sizes[s].w + 3) & ~3u : sizes[s].w, h = sizes[s].h;
			struct cisp_image img = random_raw(format, w, h);
			uint16_t *want = malloc((size_t)w * h * 2);

			cisp_unpack_rows(&img, &(struct plane16){ want, w, 0, (int)w, (int)h, 0 }, 0, (int)h);
			CHECK_EQ(gpu_differs(g, &img, NULL, 0, want), 0);
			free(want);
			cisp_image_free(&img);
		}
	}
	vk_gpu_close(g);
}

/*
 * The input imported where it is (VK_EXT_external_memory_host) and copied,
 * against cisp_unpack_rows(): rows at odd addresses with odd strides, and a
 * frame whose last byte is the last of a page before an inaccessible one, so
 * that the import takes only the pages that hold the frame.
 */
static void import_and_copy(struct vk_gpu *g, struct cisp_image *img)
{
	const uint32_t w = img->width, h = img->height;
	uint16_t *want = malloc((size_t)w * h * 2);

	cisp_unpack_rows(img, &(struct plane16){ want, w, 0, (int)w, (int)h, 0 }, 0, (int)h);
	for (int import = 0; import < 2; import++) {
		struct vk_frame *f = NULL;
		struct vk_step step;
		const uint16_t *got = NULL;

		CHECK_EQ(vk_frame_create(g, img->format, w, h, &f), 0);
		if (!f)
			break;
		f->import_input = import && g->host_import;
		vk_step_unpack(f, &step);
		CHECK_EQ(vk_frame_run(f, img, &step, 1, &got), 0);
		CHECK(got && !memcmp(got, want, (size_t)w * h * 2));
		/* Imported when asked and offered, released after the run. */
		CHECK_EQ(f->imports, (unsigned long)f->import_input);
		CHECK(!f->imported.buffer);
		vk_frame_destroy(f);
	}
	free(want);
}

TEST(vulkan_input_import_bitexact)
{
	static const struct {
		unsigned bits;
		bool packed;
	} fmt[] = { { 8, false }, { 12, false }, { 16, false }, { 10, true }, { 12, true } };
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct vk_gpu *g = open_gpu();

	if (g && !g->host_import)
		fprintf(stderr, "  %s does not offer host memory import: the copy path alone is tested\n", g->name);
	for (unsigned k = 0; g && k < sizeof(fmt) / sizeof(fmt[0]); k++) {
		const uint32_t w = fmt[k].packed && fmt[k].bits == 10 ? 132 : 134, h = 6;
		const uint32_t format = cisp_bayer_format((enum cisp_cfa)(k % 4), fmt[k].bits, fmt[k].packed);
		struct cisp_image img = random_raw(format, w, h);
		size_t row, rows, stride = 0, bytes;
		uint8_t *map;

		CHECK_EQ(cisp_image_plane_size(format, w, h, 0, &row, &rows), 0);
		/* Odd strides and addresses: 1 to 3 bytes past a word, rows 1 to 13 bytes apart past their size. */
		for (int trial = 0; trial < 2; trial++) {
			const size_t skip = 1 + (size_t)test_rand() % 3;
			struct cisp_image odd = img;

			stride = row + 1 + (size_t)test_rand() % 13;
			bytes = skip + stride * h;
			map = malloc(bytes);
			odd.plane[0].data = map + skip;
			odd.plane[0].stride = stride;
			for (uint32_t y = 0; y < h; y++)
				memcpy(odd.plane[0].data + y * stride, img.plane[0].data + y * img.plane[0].stride, row);
			import_and_copy(g, &odd);
			free(map);
		}
		/* The frame's last byte the last of a page, the next page inaccessible. */
		bytes = stride * (h - 1) + row;
		map = mmap(NULL, 2 * page + bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(map != MAP_FAILED);
		if (map != MAP_FAILED) {
			uint8_t *guard = map + page + (bytes + page - 1) / page * page;
			struct cisp_image end = img;

			CHECK_EQ(mprotect(guard, page, PROT_NONE), 0);
			end.plane[0].data = guard - bytes;
			end.plane[0].stride = stride;
			for (uint32_t y = 0; y < h; y++)
				memcpy(end.plane[0].data + y * stride, img.plane[0].data + y * img.plane[0].stride, row);
			import_and_copy(g, &end);
			munmap(map, 2 * page + bytes);
		}
		cisp_image_free(&img);
	}
	vk_gpu_close(g);
}

/* 16-bit samples: their unpack is the identity, so a stage after it sees exactly these. */
static struct cisp_image random_samples(uint32_t w, uint32_t h)
{
	struct cisp_image img = random_raw(CISP_FMT_SRGGB16, w, h);

	/* Some samples at the ends of the range, where clamps and saturation act. */
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x += 7)
			((uint16_t *)(img.plane[0].data + y * img.plane[0].stride))[x] = x % 2 ? 65535 : 0;
	return img;
}

static const uint16_t *sample_row(const struct cisp_image *img, uint32_t y)
{
	return (const uint16_t *)(img->plane[0].data + y * img->plane[0].stride);
}

TEST(vulkan_blc_bitexact)
{
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (int trial = 0; trial < 3; trial++) {
			uint32_t w = sizes[s].w, h = sizes[s].h;
			struct cisp_image img = random_samples(w, h);
			struct cisp_blc_params p = { .white = 0 };
			struct cisp_blc_coeffs c;
			struct vk_frame f = { .width = w, .height = h };
			struct vk_step step;
			uint16_t *want = malloc((size_t)w * h * 2);
			unsigned top = 0;

			for (int ch = 0; ch < 4; ch++) {
				p.black[ch] = (uint16_t)(test_rand() % (trial == 2 ? 49152 : 8193));
				top = p.black[ch] > top ? p.black[ch] : top;
			}
			/* white - black >= 16384 (validation); the last trial at the smallest range, gain near 4. */
			p.white = (uint16_t)(top + 16384 + (trial == 2 ? 0 : test_rand() % (65535 - top - 16384 + 1)));
			cisp_blc_prepare(&c, &p, (enum cisp_cfa)(trial % 4));
			for (uint32_t y = 0; y < h; y++)
				cisp_blc_row_c(sample_row(&img, y), want + y * w, (int)w, &c.black[(y & 1) * 2],
					       &c.gain[(y & 1) * 2], c.white);
			vk_step_blc(&f, &c, &step);
			CHECK_EQ(gpu_differs(g, &img, &step, 1, want), 0);
			free(want);
			cisp_image_free(&img);
		}
	}
	vk_gpu_close(g);
}

TEST(vulkan_wb_bitexact)
{
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (int trial = 0; trial < 3; trial++) {
			uint32_t w = sizes[s].w, h = sizes[s].h;
			struct cisp_image img = random_samples(w, h);
			struct cisp_wb_params p;
			struct cisp_wb_coeffs c;
			struct vk_frame f = { .width = w, .height = h };
			struct vk_step step;
			uint16_t *want = malloc((size_t)w * h * 2);

			/*
			 * Any 16-bit gain (up to 16x); the second trial's include the largest; the
			 * third's, odd multiples of 2048, put every odd sample exactly half-way
			 * between two results, where only the reference's rounding gives its answer.
			 */
			for (int ch = 0; ch < 4; ch++)
				p.gain[ch] = (uint16_t)(trial == 2 ? 2048u * (2 * ch + 1)
							: trial ? (uint64_t)(65535 - ch) : test_rand());
			cisp_wb_prepare(&c, &p, (enum cisp_cfa)s % 4);
			for (uint32_t y = 0; y < h; y++)
				cisp_wb_row_c(sample_row(&img, y), want + y * w, (int)w, &c.gain[(y & 1) * 2]);
			vk_step_wb(&f, &c, &step);
			CHECK_EQ(gpu_differs(g, &img, &step, 1, want), 0);
			free(want);
			cisp_image_free(&img);
		}
	}
	vk_gpu_close(g);
}

/* Random gain grids of random sizes (2x2 up to the largest, and wider than the smallest frames). */
static void random_lsc(struct cisp_lsc_params *p, int trial)
{
	struct cisp_block_header header = p->header;

	memset(p, 0, sizeof(*p));
	p->header = header;
	p->grid_w = (uint16_t)(trial == 0 ? 2 : trial == 1 ? CISP_LSC_MAX_GRID : 2 + test_rand() % 16);
	p->grid_h = (uint16_t)(trial == 0 ? CISP_LSC_MAX_GRID : 2 + test_rand() % 16);
	for (int i = 0; i < 4 * p->grid_w * p->grid_h; i++)
		p->gain[i] = (uint16_t)(trial == 1 && i % 3 == 0 ? 65535 : 4096 + test_rand() % 8192);
}

TEST(vulkan_lsc_bitexact)
{
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (int trial = 0; trial < 3; trial++) {
			uint32_t w = sizes[s].w, h = sizes[s].h;
			struct cisp_image img = random_samples(w, h);
			struct cisp_lsc_params *p = calloc(1, sizeof(*p));
			struct cisp_lsc_coeffs *c = NULL;
			struct vk_frame *f = NULL;
			struct vk_step steps[2];
			const uint16_t *got;
			uint16_t *want = malloc((size_t)w * h * 2);

			random_lsc(p, trial);
			CHECK_EQ(cisp_lsc_prepare(&c, p, (enum cisp_cfa)(s % 4), (int)w, (int)h), 0);
			cisp_lsc_rows(c, &(struct plane16){ (uint16_t *)img.plane[0].data, img.plane[0].stride / 2, 0,
							    (int)w, (int)h, 0 },
				      &(struct plane16){ want, w, 0, (int)w, (int)h, 0 }, 0, (int)h);
			/* The tables live in the frame, so this one builds its own steps. */
			CHECK_EQ(vk_frame_create(g, img.format, w, h, &f), 0);
			if (f && c) {
				vk_step_unpack(f, &steps[0]);
				vk_frame_lsc_tables(f, c);
				vk_step_lsc(f, &steps[1]);
				CHECK_EQ(vk_frame_run(f, &img, steps, 2, &got), 0);
				CHECK(!memcmp(got, want, (size_t)w * h * 2));
			}
			vk_frame_destroy(f);
			cisp_lsc_free(c);
			free(p);
			free(want);
			cisp_image_free(&img);
		}
	}
	vk_gpu_close(g);
}

/*
 * A sorted static defect list of about @n random pixels of a w x h frame, the
 * four corners and the pixels next to them among them (where the neighbours
 * mirror); with @past, some pixels past the frame too, which the reference
 * ignores (parameter validation refuses them).
 */
static unsigned random_defects(struct cisp_dpc_params *p, uint32_t w, uint32_t h, unsigned n, bool past_frame)
{
	const uint32_t margin = past_frame ? 2 : 0;
	unsigned count = 0;

	for (uint32_t y = 0; y < h + margin && count < CISP_DPC_MAX_PIXELS; y++)
		for (uint32_t x = 0; x < w + margin && count < CISP_DPC_MAX_PIXELS; x++) {
			bool corner = (x < 2 || x + 2 >= w) && (y < 2 || y + 2 >= h);
			bool past = x >= w || y >= h;

			if ((corner && !past) || (uint32_t)test_rand() % (w * h) < n / (past ? 4 : 1))
				p->pixels[count++] = (struct cisp_dpc_pixel){ (uint16_t)x, (uint16_t)y };
		}
	return count;
}

/*
 * Defect correction: dynamic detection at thresholds from none (the static
 * list alone) to one that replaces many pixels, and static lists from empty
 * to dense, against cisp_dpc_rows(); the last trial's flat frame has spikes
 * and dips of the threshold and one more or less, where the comparison's
 * strictness shows.
 */
static void spikes(struct cisp_image *img, int threshold)
{
	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++) {
			int step = (int)(x / 5 % 3) - 1, v = 20000;

			if (y % 4 == 1 && x % 5 == 0)
				v += x % 2 ? threshold + step : -threshold - step;
			((uint16_t *)(img->plane[0].data + y * img->plane[0].stride))[x] = (uint16_t)v;
		}
}

TEST(vulkan_dpc_bitexact)
{
	static const struct {
		uint32_t w, h;
	} dpc_sizes[] = { { 4, 4 }, { 132, 6 }, { 254, 8 }, { 18, 22 }, { 1030, 4 } };
	struct vk_gpu *g = open_gpu();
	struct cisp_dpc_params *p = calloc(1, sizeof(*p));

	for (unsigned s = 0; g && s < sizeof(dpc_sizes) / sizeof(dpc_sizes[0]); s++) {
		for (int trial = 0; trial < 5; trial++) {
			uint32_t w = dpc_sizes[s].w, h = dpc_sizes[s].h;
			struct cisp_image img = random_samples(w, h);
			struct cisp_dpc_coeffs c;
			struct vk_frame *f = NULL;
			struct vk_step steps[2];
			const uint16_t *got;
			uint16_t *want = malloc((size_t)w * h * 2);

			p->threshold = (uint16_t)(trial == 0 ? 0 : trial == 1 ? 1 + test_rand() % 65535 : 200u * (unsigned)trial);
			p->count = (uint16_t)random_defects(p, w, h, trial == 3 ? w * h / 3 : 8u * (unsigned)trial, true);
			if (trial == 4) {
				p->threshold = 1000;
				spikes(&img, p->threshold);
			}
			cisp_dpc_prepare(&c, p);
			cisp_dpc_rows(&c, &(struct plane16){ (uint16_t *)img.plane[0].data, img.plane[0].stride / 2, 0,
							     (int)w, (int)h, 0 },
				      &(struct plane16){ want, w, 0, (int)w, (int)h, 0 }, 0, (int)h);
			CHECK_EQ(vk_frame_create(g, img.format, w, h, &f), 0);
			if (f) {
				vk_step_unpack(f, &steps[0]);
				vk_step_dpc(f, &c, &steps[1]);
				CHECK_EQ(vk_frame_run(f, &img, steps, 2, &got), 0);
				for (size_t i = 0; i < (size_t)w * h; i++)
					if (got[i] != want[i]) {
						test_fail(__FILE__, __LINE__, "%ux%u threshold %u, %u defects: (%zu, %zu) is %u, the reference's %u",
							  w, h, p->threshold, p->count, i % w, i / w, got[i], want[i]);
						break;
					}
			}
			vk_frame_destroy(f);
			free(want);
			cisp_image_free(&img);
		}
	}
	free(p);
	vk_gpu_close(g);
}

/*
 * The fast Bayer denoise against its C rows (cisp_bnr_guide_row_c(), then
 * cisp_bnr_row_c() over reflected rows, as the stage runs them): frames of
 * odd and even pair counts, random or a smooth ramp, low or high, with noise of a few
 * levels (where the weights are neither 0 nor the centre's alone and the
 * mean's rounding decides), strengths 0, small, random and 1024, noise
 * profiles of gains 1 to 64 and the extremes, every CFA.
 */
static void noisy_ramp(struct cisp_image *img, unsigned base, unsigned noise)
{
	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++) {
			unsigned v = base + 61 * x % 8192 + 37 * y + test_rand() % (noise + 1);

			((uint16_t *)(img->plane[0].data + y * img->plane[0].stride))[x] = (uint16_t)(v < 65535 ? v : 65535);
		}
}

static void bnr_reference(const struct cisp_bnr_coeffs *c, const struct cisp_image *img, uint16_t *want)
{
	const int w = (int)img->width, h = (int)img->height;
	uint16_t *guide = malloc((size_t)w * h * 2);

	for (int y = 0; y < h; y++)
		cisp_bnr_guide_row_c(sample_row(img, (uint32_t)mirror(y - 1, h)), sample_row(img, (uint32_t)y),
				     sample_row(img, (uint32_t)mirror(y + 1, h)), guide + (size_t)y * w, w);
	for (int y = 0; y < h; y++) {
		const uint16_t *r[5], *g[5];
		struct cisp_bnr_row_tables t;

		for (int k = 0; k < 5; k++) {
			r[k] = sample_row(img, (uint32_t)mirror(y + k - 2, h));
			g[k] = guide + (size_t)mirror(y + k - 2, h) * w;
		}
		cisp_bnr_tables(c, y, &t);
		cisp_bnr_row_c(r, g, want + (size_t)y * w, w, &t);
	}
	free(guide);
}

TEST(vulkan_bnr_bitexact)
{
	static const struct {
		uint32_t w, h;
	} bnr_sizes[] = { { 4, 4 }, { 6, 4 }, { 130, 6 }, { 254, 10 }, { 516, 4 } };
	static const uint16_t strengths[] = { 0, 1, 24, 256, 1024 };
	struct vk_gpu *g = open_gpu();

	for (unsigned s = 0; g && s < sizeof(bnr_sizes) / sizeof(bnr_sizes[0]); s++) {
		for (int trial = 0; trial < 7; trial++) {
			const uint32_t w = bnr_sizes[s].w, h = bnr_sizes[s].h, gain = 1u << (2 * (trial % 4));
			struct cisp_image img = random_samples(w, h);
			struct cisp_bnr_params p = { .strength = trial < 5 ? strengths[trial] : (uint16_t)(test_rand() % 1025) };
			struct cisp_noise_params noise;
			struct cisp_bnr_coeffs *c = NULL;
			struct vk_frame *f = NULL;
			struct vk_step steps[2];
			const uint16_t *got;
			uint16_t *want = malloc((size_t)w * h * 2);

			/* Gains 1, 4, 16, 64 of the default profile; trial 5 no noise at all, trial 6 the most. */
			for (int ch = 0; ch < 4; ch++) {
				noise.a[ch] = trial == 5 ? 0 : trial == 6 ? 0xffffffffu : (4u << 16) * gain + (uint32_t)ch * 977;
				noise.b[ch] = trial == 5 ? 0 : trial == 6 ? 0xffffffffu : 64u * gain * gain;
			}
			/* High levels too, where the mean's last rounding (half an ulp of 2^-10 and more) shows. */
			if (trial % 2)
				noisy_ramp(&img, trial % 4 == 1 ? 1000 : 40000, 8u * gain * gain);
			CHECK_EQ(cisp_bnr_prepare(&c, &p, &noise, (enum cisp_cfa)((s + (unsigned)trial) % 4)), 0);
			CHECK_EQ(vk_frame_create(g, img.format, w, h, &f), 0);
			if (c && f) {
				bnr_reference(c, &img, want);
				vk_step_unpack(f, &steps[0]);
				CHECK_EQ(vk_step_bnr(f, c, &steps[1]), 0);
				CHECK_EQ(vk_frame_run(f, &img, steps, 2, &got), 0);
				for (size_t i = 0; i < (size_t)w * h; i++)
					if (got[i] != want[i]) {
						test_fail(__FILE__, __LINE__, "%ux%u strength %u gain %u: (%zu, %zu) is %u, the reference's %u",
							  w, h, p.strength, gain, i % w, i / w, got[i], want[i]);
						break;
					}
			}
			vk_frame_destroy(f);
			cisp_bnr_free(c);
			free(want);
			cisp_image_free(&img);
		}
	}
	vk_gpu_close(g);
}

/* A random statistics configuration for a w x h frame: zones, saturation, up to 8 AF windows, row groups. */
static void random_stats(struct cisp_stats_params *p, uint32_t w, uint32_t h)
{
	p->zones_x = (uint16_t)(1 + test_rand() % CISP_STATS_MAX_ZONES);
	p->zones_y = (uint16_t)(1 + test_rand() % CISP_STATS_MAX_ZONES);
	p->saturation = (uint16_t)(test_rand() % 2 ? 65535 : 30000 + test_rand() % 35000);
	p->af_count = (uint16_t)(test_rand() % (CISP_STATS_MAX_AF + 1));
	for (int k = 0; k < p->af_count; k++) {
		uint32_t ww = 8 + (uint32_t)test_rand() % (w - 7), wh = 8 + (uint32_t)test_rand() % (h - 7);

		p->af[k] = (struct cisp_stats_window){ (uint16_t)(test_rand() % (w - ww + 1)),
						       (uint16_t)(test_rand() % (h - wh + 1)), (uint16_t)ww, (uint16_t)wh };
	}
	p->row_group = (uint16_t)(test_rand() % (h / 2 + 2));
}

/* The statistics tap on the GPU against the reference's accumulator over @img's samples: 0 or 1 (after a message). */
static int stats_differ(struct vk_gpu *g, const struct cisp_image *img, const struct cisp_stats_params *p,
			const struct cisp_wb_params *wb, enum cisp_cfa cfa)
{
	const uint32_t w = img->width, h = img->height;
	struct cisp_stats_acc *acc = NULL;
	struct cisp_stats_layout layout;
	struct cisp_stats_sums *sums = malloc(sizeof(*sums));
	struct cisp_stats *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));
	struct vk_frame *f = NULL;
	struct vk_step steps[2];
	const uint16_t *samples;
	int bad = 1;

	CHECK_EQ(cisp_stats_acc_create(&acc, p, wb, cfa, (int)w, (int)h), 0);
	CHECK_EQ(vk_frame_create(g, img->format, w, h, &f), 0);
	if (acc && f && sums && want && got) {
		cisp_stats_acc_rows(acc, &(struct plane16){ (uint16_t *)img->plane[0].data, img->plane[0].stride / 2, 0,
							    (int)w, (int)h, 0 },
				    0, (int)h);
		cisp_stats_acc_finish(acc, want);
		cisp_stats_acc_layout(acc, &layout);
		vk_step_unpack(f, &steps[0]);
		vk_step_stats(f, &layout, &steps[1]);
		CHECK_EQ(vk_frame_run(f, img, steps, 2, &samples), 0);
		vk_frame_stats_sums(f, &layout, sums);
		cisp_stats_acc_load(acc, sums);
		cisp_stats_acc_finish(acc, got);
		/* The tap leaves the frame as it was. */
		bad = memcmp(got, want, sizeof(*got)) || memcmp(samples, sample_row(img, 0), 2 * w);
		if (bad)
			fprintf(stderr, "  %ux%u zones %ux%u, %u AF windows, row group %u: the statistics differ\n", w, h,
				p->zones_x, p->zones_y, p->af_count, p->row_group);
	}
	vk_frame_destroy(f);
	cisp_stats_acc_free(acc);
	free(sums);
	free(want);
	free(got);
	return bad;
}

/*
 * The statistics on random frames of several sizes and random
 * configurations, then on a 1024x1024 frame whose zone, row and AF sums pass
 * 2^32 (the 64-bit sums as pairs of words): every field of struct cisp_stats
 * byte for byte.
 */
TEST(vulkan_stats_bitexact)
{
	static const struct {
		uint32_t w, h;
	} stats_sizes[] = { { 16, 16 }, { 132, 18 }, { 254, 20 }, { 1030, 16 }, { 130, 34 } };
	struct vk_gpu *g = open_gpu();
	struct cisp_stats_params p = { .zones_x = 1 };
	struct cisp_wb_params wb;
	struct cisp_image big;

	for (unsigned s = 0; g && s < sizeof(stats_sizes) / sizeof(stats_sizes[0]); s++) {
		for (int trial = 0; trial < 3; trial++) {
			struct cisp_image img = random_samples(stats_sizes[s].w, stats_sizes[s].h);

			random_stats(&p, img.width, img.height);
			for (int c = 0; c < 4; c++)
				wb.gain[c] = (uint16_t)(trial == 2 ? 65535 : 2048 + test_rand() % 12000);
			CHECK_EQ(stats_differ(g, &img, &p, trial ? &wb : NULL, (enum cisp_cfa)((s + (unsigned)trial) % 4)), 0);
			cisp_image_free(&img);
		}
	}
	if (!g)
		return;
	/* Every sample just under saturation, one zone, one row group, an AF window of the whole frame. */
	big = random_samples(1024, 1024);
	for (uint32_t y = 0; y < big.height; y++)
		for (uint32_t x = 0; x < big.width; x++)
			((uint16_t *)(big.plane[0].data + y * big.plane[0].stride))[x] =
				(uint16_t)(65534 - (x % 3 == 0 && y % 2 == 0 ? 60000 : 0));
	p = (struct cisp_stats_params){ .zones_x = 1, .zones_y = 1, .saturation = 65535, .af_count = 1,
					.af = { { 0, 0, 1024, 1024 } }, .row_group = 512 };
	CHECK_EQ(stats_differ(g, &big, &p, NULL, CISP_CFA_RGGB), 0);
	cisp_image_free(&big);
	vk_gpu_close(g);
}

/* Unpack, black level and white balance in one command buffer, against the reference rows in turn. */
TEST(vulkan_bayer_chain_bitexact)
{
	struct vk_gpu *g = open_gpu();
	const uint32_t w = 250, h = 10;
	struct cisp_image img;
	const struct cisp_blc_params bp = { .black = { 4096, 4000, 4100, 3900 }, .white = 60000 };
	const struct cisp_wb_params wp = { .gain = { 7000, 4096, 4096, 9000 } };
	struct cisp_blc_coeffs bc;
	struct cisp_wb_coeffs wc;
	struct vk_frame f = { .width = w, .height = h };
	struct vk_step steps[2];
	uint16_t *want;

	if (!g)
		return;
	img = random_raw(CISP_FMT_SGRBG12P, w, h);
	want = malloc((size_t)w * h * 2);
	cisp_unpack_rows(&img, &(struct plane16){ want, w, 0, (int)w, (int)h, 0 }, 0, (int)h);
	cisp_blc_prepare(&bc, &bp, CISP_CFA_GRBG);
	cisp_wb_prepare(&wc, &wp, CISP_CFA_GRBG);
	for (uint32_t y = 0; y < h; y++) {
		cisp_blc_row_c(want + y * w, want + y * w, (int)w, &bc.black[(y & 1) * 2], &bc.gain[(y & 1) * 2], bc.white);
		cisp_wb_row_c(want + y * w, want + y * w, (int)w, &wc.gain[(y & 1) * 2]);
	}
	vk_step_blc(&f, &bc, &steps[0]);
	vk_step_wb(&f, &wc, &steps[1]);
	CHECK_EQ(gpu_differs(g, &img, steps, 2, want), 0);
	free(want);
	cisp_image_free(&img);
	vk_gpu_close(g);
}

/* What runs on the GPU: black level whenever it is on; white balance only where nothing after it reads its bit. */
TEST(vulkan_plan)
{
	struct cisp_param_state s;
	struct vulkan_plan p;

	cisp_param_state_init(&s);
	s.enabled = CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_WB);
	p = vulkan_plan_frame(&s, true);
	CHECK(p.blc && p.wb);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	p = vulkan_plan_frame(&s, false);
	CHECK(p.blc && p.wb && !p.stats);
	p = vulkan_plan_frame(&s, true);
	CHECK(p.blc && p.stats && p.wb);
	/* The fast Bayer denoise runs on the GPU, and the stages after it follow. */
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	s.bnr.mode = CISP_BNR_FAST;
	p = vulkan_plan_frame(&s, true);
	CHECK(p.blc && p.bnr && p.stats && p.wb);
	/* Its quality mode too; on a device without 64-bit integers, it keeps lens shading and the statistics on
	 * the CPU, and so white balance, whose bit they read. */
	s.bnr.mode = CISP_BNR_QUALITY;
	p = vulkan_plan_frame(&s, true);
	CHECK(p.blc && p.bnr && p.stats && p.wb);
	p = vulkan_plan_on(&s, true, false);
	CHECK(p.blc && !p.bnr && !p.stats && !p.wb);
	p = vulkan_plan_on(&s, false, false);
	CHECK(p.blc && !p.bnr && !p.stats && !p.wb);
	s.enabled = CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	p = vulkan_plan_frame(&s, false);
	CHECK(!p.blc && p.lsc && p.wb);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	p = vulkan_plan_frame(&s, false);
	CHECK(p.dpc && p.lsc && p.wb);
	s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	p = vulkan_plan_on(&s, false, false);
	CHECK(p.dpc && !p.bnr && !p.lsc && !p.wb);
	p = vulkan_plan_frame(&s, false);
	CHECK(p.dpc && p.bnr && p.lsc && p.wb);
	s.bnr.mode = CISP_BNR_FAST;
	p = vulkan_plan_frame(&s, false);
	CHECK(p.dpc && p.bnr && p.lsc && p.wb);
	/* Highlights read the white-balance bit: white balance stays on the GPU with them only with the whole frame. */
	s.enabled = CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS) | CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	p = vulkan_plan_frame(&s, true);
	CHECK(p.rgb && p.wb && p.stats);
	p = vulkan_plan_handed_over(p, &s);
	CHECK(!p.wb && p.stats);
}

/* Submit one frame to @ctx with params @state: 0 and *@fence, or an error. */
static int submit(struct cisp_context *ctx, const struct cisp_param_state *state, const struct cisp_image *in,
		  struct cisp_image *out[CISP_MAX_OUTPUTS], struct cisp_stats *stats, struct cisp_fence **fence)
{
	struct cisp_job j = { .num_inputs = 1, .input = { in }, .stats = stats };
	size_t size = 0;
	void *params;
	int ret;

	cisp_params_encode(state, ~0u, NULL, 0, &size);
	params = malloc(size);
	CHECK_EQ(cisp_params_encode(state, ~0u, params, size, &size), 0);
	memcpy(j.output, out, sizeof(j.output));
	j.params = params;
	j.params_size = size;
	ret = cisp_job_submit(ctx, &j, fence);
	free(params);
	return ret;
}

static int wait_job(struct cisp_fence *fence)
{
	int ret = cisp_fence_wait(fence, -1) ? -EIO : cisp_fence_error(fence);

	cisp_fence_unref(fence);
	return ret;
}

/* One frame through a context of @dev with params @state; 0 or the job's error. */
static int run_job(struct cisp_device *dev, const struct cisp_isp_config *cfg, const struct cisp_param_state *state,
		   const struct cisp_image *in, struct cisp_image *out[CISP_MAX_OUTPUTS], struct cisp_stats *stats)
{
	const struct cisp_context_config cc = { .name = "v", .isp = *cfg };
	struct cisp_context *ctx = NULL;
	struct cisp_fence *fence = NULL;
	int ret;

	if ((ret = cisp_context_create(&ctx, dev, &cc)))
		return ret;
	if (!(ret = submit(ctx, state, in, out, stats, &fence)))
		ret = wait_job(fence);
	cisp_context_destroy(ctx);
	return ret;
}

/*
 * Whole frames: the Vulkan backend's RGB and NV12 outputs and statistics are
 * the software ISP's, with the default state plus black level, defect
 * correction (dynamic and a static list), lens shading, white balance and
 * statistics of a random configuration; with Bayer denoise in its quality
 * mode and highlight clipping too; with neither defects nor statistics (the
 * job asks for them all the same: the header, every sum 0); and with the fast
 * Bayer denoise at a gain-16 profile, alone and with highlight clipping. The
 * GPU runs every frame whole, the half-size NV12 output included; the plan a
 * hand-over would take keeps white balance on the CPU with highlights.
 */
TEST(vulkan_pipeline_bitexact)
{
	const uint32_t w = 132, h = 36;
	const struct cisp_isp_config cfg = { CISP_FMT_SBGGR10P, w, h,
					     { { CISP_FMT_RGB888, w, h }, { CISP_FMT_NV12, w / 2, h / 2 } }, NULL };
	struct cisp_device *vk = vulkan_device(), *sw = NULL;
	struct cisp_image in = random_raw(cfg.input_format, w, h), out[2][2];
	struct cisp_stats *stats = calloc(2, sizeof(*stats));
	struct cisp_param_state state;

	CHECK_EQ(cisp_device_create(&sw, &(struct cisp_device_config){ .workers = 1 }), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(cisp_image_alloc(&out[i][0], CISP_FMT_RGB888, w, h), 0);
		CHECK_EQ(cisp_image_alloc(&out[i][1], CISP_FMT_NV12, w / 2, h / 2), 0);
	}
	for (int config = 0; config < 5; config++) {
		const uint32_t cpu_only = CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE) |
					  CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS);
		struct vulkan_plan plan;
		int ret;

		cisp_param_state_init(&state);
		state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_WB);
		state.blc.black[0] = state.blc.black[1] = state.blc.black[2] = state.blc.black[3] = 4096;
		state.blc.black[2] = 4200;
		state.blc.white = 64000;
		state.wb.gain[0] = 7800; /* R, Q4.12 */
		state.wb.gain[3] = 6100; /* B */
		random_lsc(&state.lsc, 2);
		state.dpc.threshold = 3000;
		state.dpc.count = (uint16_t)random_defects(&state.dpc, w, h, 40, false);
		state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC) |
				 CISP_BLOCK_BIT(CISP_BLOCK_STATS);
		random_stats(&state.stats, w, h);
		state.bnr.mode = config == 1 ? CISP_BNR_QUALITY : CISP_BNR_FAST;
		state.bnr.strength = 300;
		for (int ch = 0; ch < 4; ch++) {
			state.noise.a[ch] = (64u << 16) + (uint32_t)ch * 4099;
			state.noise.b[ch] = 64u * 256;
		}
		if (config == 1 || config == 4)
			state.enabled |= cpu_only;
		if (config == 2)
			state.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS) | cpu_only);
		if (config == 3)
			state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
		plan = vulkan_plan_frame(&state, true);
		CHECK(plan.blc && plan.dpc == (config != 2) && plan.bnr == (config == 1 || config >= 3));
		/* Whole on the GPU; were the frame handed over, white balance would stay on the CPU with highlights. */
		CHECK(plan.lsc && vulkan_plan_handed_over(plan, &state).wb == (config != 1 && config != 4) &&
		      plan.stats == (config != 2));
		CHECK(plan.rgb);
		memset(stats, 0, 2 * sizeof(*stats));
		ret = run_job(vk, &cfg, &state, &in, (struct cisp_image *[CISP_MAX_OUTPUTS]){ &out[0][0], &out[0][1] },
			      &stats[0]);
		if (ret == -ENODEV) {
			no_vulkan(cisp_last_error());
			break;
		}
		if (ret)
			test_fail(__FILE__, __LINE__, "the Vulkan backend's job: %s", cisp_last_error());
		CHECK_EQ(run_job(sw, &cfg, &state, &in, (struct cisp_image *[CISP_MAX_OUTPUTS]){ &out[1][0], &out[1][1] },
				 &stats[1]),
			 0);
		CHECK(test_same_pixels(&out[0][0], &out[1][0]));
		CHECK(test_same_pixels(&out[0][1], &out[1][1]));
		CHECK(!memcmp(&stats[0], &stats[1], sizeof(*stats)));
	}
	for (int i = 0; i < 2; i++) {
		cisp_image_free(&out[i][0]);
		cisp_image_free(&out[i][1]);
	}
	cisp_image_free(&in);
	free(stats);
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
}

/* One Vulkan device per process and selection, reference-counted. */
TEST(vulkan_gpu_shared)
{
	struct vk_gpu *a = open_gpu(), *b = NULL, *c = NULL;

	if (!a)
		return;
	CHECK_EQ(vk_gpu_open(&b), 0);
	CHECK(a == b);
	/* Another selection gets its own device, even of the same GPU. */
	setenv("CISP_VULKAN_DEVICE", "0", 1);
	CHECK_EQ(vk_gpu_open(&c), 0);
	unsetenv("CISP_VULKAN_DEVICE");
	CHECK(c && c != a);
	vk_gpu_close(c);
	vk_gpu_close(a);
	/* b still holds the device: it runs a frame. */
	if (b) {
		struct cisp_image img = random_samples(8, 4);
		struct vk_frame *f = NULL;
		struct vk_step step;
		const uint16_t *got;

		CHECK_EQ(vk_frame_create(b, img.format, 8, 4, &f), 0);
		if (f) {
			vk_step_unpack(f, &step);
			CHECK_EQ(vk_frame_run(f, &img, &step, 1, &got), 0);
			CHECK(!memcmp(got, sample_row(&img, 0), 16));
		}
		vk_frame_destroy(f);
		cisp_image_free(&img);
	}
	vk_gpu_close(b);
}

/*
 * Two contexts on two workers share the device and run frames at once; the
 * first's lens shading changes from frame to frame and back (its tables are
 * rebuilt only on a change), the second's stays. Each frame is the software
 * ISP's.
 */
TEST(vulkan_contexts_bitexact)
{
	enum { FRAMES = 3 };
	const struct cisp_isp_config cfg[2] = {
		{ CISP_FMT_SGBRG12P, 96, 32, { { CISP_FMT_RGB888, 96, 32 } }, NULL },
		{ CISP_FMT_SRGGB10, 64, 24, { { CISP_FMT_RGB888, 64, 24 } }, NULL },
	};
	struct cisp_device *vk = NULL, *sw = NULL;
	struct cisp_context *ctx[2] = { NULL, NULL };
	struct cisp_param_state state[2][FRAMES];
	struct cisp_image in[2], out[2][FRAMES], want;
	struct cisp_fence *fence[2][FRAMES] = { { NULL } };
	int ret = 0;

	setenv("CISP_ISP", VULKAN_ISP_NAME, 1);
	CHECK_EQ(cisp_device_create(&vk, &(struct cisp_device_config){ .workers = 2 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_device_create(&sw, &(struct cisp_device_config){ .workers = 1 }), 0);
	for (int c = 0; c < 2 && !ret; c++) {
		ret = cisp_context_create(&ctx[c], vk, &(struct cisp_context_config){ .name = "v", .isp = cfg[c] });
		in[c] = random_raw(cfg[c].input_format, cfg[c].width, cfg[c].height);
		for (int i = 0; i < FRAMES; i++) {
			cisp_param_state_init(&state[c][i]);
			state[c][i].enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_WB);
			random_lsc(&state[c][i].lsc, 2);
			if (c == 1 || i == 2)
				state[c][i].lsc = state[c][0].lsc;
			CHECK_EQ(cisp_image_alloc(&out[c][i], CISP_FMT_RGB888, cfg[c].width, cfg[c].height), 0);
		}
	}
	if (ret == -ENODEV)
		no_vulkan(cisp_last_error());
	else if (ret)
		test_fail(__FILE__, __LINE__, "a Vulkan context: %s", cisp_last_error());
	for (int i = 0; i < FRAMES && !ret; i++)
		for (int c = 0; c < 2; c++)
			CHECK_EQ(submit(ctx[c], &state[c][i], &in[c], (struct cisp_image *[CISP_MAX_OUTPUTS]){ &out[c][i] },
					NULL, &fence[c][i]),
				 0);
	for (int c = 0; c < 2; c++) {
		CHECK_EQ(cisp_image_alloc(&want, CISP_FMT_RGB888, cfg[c].width, cfg[c].height), 0);
		for (int i = 0; i < FRAMES && !ret; i++) {
			CHECK(vulkan_plan_frame(&state[c][i], false).lsc);
			CHECK_EQ(wait_job(fence[c][i]), 0);
			CHECK_EQ(run_job(sw, &cfg[c], &state[c][i], &in[c], (struct cisp_image *[CISP_MAX_OUTPUTS]){ &want },
					 NULL),
				 0);
			CHECK(test_same_pixels(&out[c][i], &want));
		}
		cisp_image_free(&want);
		for (int i = 0; i < FRAMES; i++)
			cisp_image_free(&out[c][i]);
		cisp_image_free(&in[c]);
		cisp_context_destroy(ctx[c]);
	}
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
}

/* The output of `cisp ARGS` into @out: its exit status. */
static int run_cisp(const char *args, char *out, size_t size)
{
	char cmd[256];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s/tools/cisp %s 2>&1", CISP_BUILD_DIR, args);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && n + 1 < size && !feof(p))
		n += fread(out + n, 1, size - 1 - n, p);
	out[n] = 0;
	return p ? pclose(p) : -1;
}

/*
 * `cisp list` names the device, its driver and Vulkan version, and whether
 * dma-buf import is offered; `cisp bench --isp vulkan` prints every stage the
 * GPU runs (its whole frame), both backends' figures, their ratio, each
 * shader's time, and on lavapipe that they mean nothing.
 */
TEST(vulkan_tools)
{
	struct vk_gpu *g = open_gpu();
	static char out[16384];
	char want[700];

	if (!g)
		return;
	CHECK_EQ(run_cisp("list", out, sizeof(out)), 0);
	strcpy(want, "  vulkan: ");
	vk_gpu_describe(g, want + strlen(want), sizeof(want) - strlen(want));
	CHECK(strstr(out, want) != NULL);
	CHECK(strstr(out, "Vulkan 1.") && strstr(out, "dma-buf import: "));

	CHECK_EQ(run_cisp("bench --isp vulkan --size 64x48 --reps 1", out, sizeof(out)), 0);
	CHECK(strstr(out, "bench isp=vulkan device=\"") &&
	      strstr(out, "gpu_stages=\"unpack,blc,dpc,bnr,lsc,stats,wb,highlights,demosaic,ccm,tone,sharpen,csc,pack\""));
	CHECK(strstr(out, "bench device pipeline=canonical isp=software frames_per_s="));
	/* lavapipe has timestamps: every Bayer shader's time. */
	CHECK(strstr(out, "bench gpu_stage_times=") && strstr(out, " unpack_ms=") && strstr(out, " bnr_ms=") &&
	      strstr(out, " wb_ms="));
	CHECK(strstr(out, "bench device pipeline=canonical isp=vulkan frames_per_s=") && strstr(out, " ratio="));
	CHECK(!strstr(g->name, "llvmpipe") || strstr(out, "these figures say nothing of a GPU"));
	CHECK(run_cisp("bench --isp opencl", out, sizeof(out)) != 0);
	CHECK(strstr(out, "--isp opencl: the choice is vulkan"));
	vk_gpu_close(g);
}

/* vulkan_plan_describe() for @cfg and @s (@stats: the jobs ask for them) names the stages @want. */
static void check_stages(const struct cisp_isp_config *cfg, const struct cisp_param_state *s, bool stats,
			 const char *want)
{
	char stages[256] = "";

	CHECK_EQ(vulkan_plan_describe(cfg, s, stats, stages, sizeof(stages)), 0);
	if (strcmp(stages, want))
		test_fail(__FILE__, __LINE__, "the GPU's stages are \"%s\", not \"%s\"", stages, want);
}

/*
 * The stages a context runs on the GPU, as vulkan_plan_describe() names
 * them (`cisp bench --isp vulkan` prints them): the whole frame, YCbCr and
 * RGB outputs, one scaled; handed over with CISP_VULKAN_HAND_OVER=1 (white
 * balance then stays with chroma denoise on the CPU) and with an output too
 * big for the device's buffers; the quality Bayer denoise on a device
 * without shaderInt64 (the test's device's int64 turned off for the while).
 */
TEST(vulkan_plan_stages)
{
	const struct cisp_isp_config cfg = { CISP_FMT_SRGGB10, 64, 32,
					     { { CISP_FMT_NV12, 64, 32 }, { CISP_FMT_RGB888, 32, 16 } }, NULL };
	const struct cisp_isp_config big = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_NV12, 3388, 3400 } }, NULL };
	struct vk_gpu *g = open_gpu();
	struct cisp_param_state s;
	bool int64;

	if (!g)
		return;
	cisp_param_state_init(&s);
	s.enabled = CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_BNR) |
		    CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_STATS) | CISP_BLOCK_BIT(CISP_BLOCK_WB) |
		    CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_LTM) |
		    CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) |
		    CISP_BLOCK_BIT(CISP_BLOCK_CSC) | CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	check_stages(&cfg, &s, true,
		     "unpack,blc,dpc,bnr,lsc,stats,wb,highlights,demosaic,ccm,ltm,tone,lut3d,sharpen,csc,cnr,scale,pack");
	check_stages(&cfg, &s, false,
		     "unpack,blc,dpc,bnr,lsc,wb,highlights,demosaic,ccm,ltm,tone,lut3d,sharpen,csc,cnr,scale,pack");
	setenv("CISP_VULKAN_HAND_OVER", "1", 1);
	check_stages(&cfg, &s, true, "unpack,blc,dpc,bnr,lsc,stats");
	unsetenv("CISP_VULKAN_HAND_OVER");
	s.enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS) | CISP_BLOCK_BIT(CISP_BLOCK_CNR));
	check_stages(&big, &s, true, "unpack,blc,dpc,bnr,lsc,stats,wb");
	int64 = g->int64;
	g->int64 = false;
	s.bnr.mode = CISP_BNR_QUALITY;
	check_stages(&cfg, &s, true, "unpack,blc,dpc");
	g->int64 = int64;
	vk_gpu_close(g);
}

/* The errors: a device that is not there, a frame the GPU cannot hold, a job mode it does not run. */
TEST(vulkan_errors)
{
	struct cisp_device *dev;
	struct cisp_context *ctx = NULL;
	const struct cisp_context_config cc = { .name = "v",
						.isp = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL } };
	struct vk_gpu *g = open_gpu();
	struct vk_frame *f = NULL;

	if (!g)
		return;
	CHECK_ERR(vk_frame_create(g, CISP_FMT_NV12, 64, 48, &f), -ENOTSUP, "NV12 is not a Bayer format");
	CHECK_ERR(vk_frame_create(g, CISP_FMT_SRGGB10, 63, 48, &f), -EINVAL, "not a whole Bayer frame");
	CHECK_ERR(vk_frame_create(g, CISP_FMT_SRGGB10, 64, 47, &f), -EINVAL, "not a whole Bayer frame");
	vk_gpu_close(g);

	setenv("CISP_VULKAN_DEVICE", "no-such-gpu", 1);
	dev = vulkan_device();
	CHECK_ERR(cisp_context_create(&ctx, dev, &cc), -ENODEV, "no Vulkan device matches CISP_VULKAN_DEVICE=no-such-gpu");
	unsetenv("CISP_VULKAN_DEVICE");
	/* A selected device by index (bursts and brackets: tests/test_vulkan_merge.c). */
	setenv("CISP_VULKAN_DEVICE", "0", 1);
	CHECK_EQ(cisp_context_create(&ctx, dev, &cc), 0);
	unsetenv("CISP_VULKAN_DEVICE");
	cisp_context_destroy(ctx);
	cisp_device_destroy(dev);
	/* No driver at all: the loader finds none (another selection, so that the open device is not shared). */
	setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
	setenv("CISP_VULKAN_DEVICE", "0", 1);
	CHECK_ERR(vulkan_describe(NULL, 0), -ENODEV, "no Vulkan device (no driver)");
	unsetenv("CISP_VULKAN_DEVICE");
	unsetenv("VK_ICD_FILENAMES");
}
#endif
