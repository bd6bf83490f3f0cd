/* SPDX-License-Identifier: MIT */
/*
 * The headerless raw reader (cisp_raw_read_dump()) and what consumes its
 * frame: the levels to params, then the ISP's unpacking and whole pipeline.
 *
 * Input: byte 0 picks the format (CFA order, bit depth, packing), bytes 1-2
 * and 3-4 the width and height (1..80, so odd and tiny sizes occur), byte 5
 * bit 0 keeps the file as given (usually a size mismatch), otherwise the
 * rest is cut or zero-padded to the frame's exact size. The rest is the
 * file, written to a memfd the reader opens by path.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/log.h>
#include <cisp/raw_frame.h>

#include "fuzz.h"

#define HEADER 6

static uint8_t fitted[80 * 80 * 2];

static uint32_t pick_format(uint8_t b)
{
	static const unsigned bits[] = { 8, 10, 12, 14, 16 };

	return cisp_bayer_format((enum cisp_cfa)(b & 3), bits[((b >> 2) & 7) % 5], (b >> 5) & 1);
}

/* ISP instances by format and size, kept between inputs: making one costs more than a frame. */
#define CACHE 16
static struct {
	uint32_t format, width, height;
	struct cisp_isp *isp;
} cache[CACHE];
static unsigned next_slot;

/* An ISP for the frame's format and size in its default state, or NULL for sizes it does not take. */
static struct cisp_isp *isp_for(const struct cisp_image *in)
{
	struct cisp_isp_config c = { in->format, in->width, in->height, { { CISP_FMT_RGB888, in->width, in->height } } };
	unsigned slot = next_slot;

	for (unsigned i = 0; i < CACHE; i++)
		if (cache[i].isp && cache[i].format == in->format && cache[i].width == in->width &&
		    cache[i].height == in->height)
			return cache[i].isp;
	cisp_isp_destroy(cache[slot].isp);
	cache[slot].isp = NULL;
	if (cisp_isp_create(&cache[slot].isp, &c))
		return NULL; /* odd, under 16, RAW10 width not a multiple of 4 */
	cache[slot].format = in->format;
	cache[slot].width = in->width;
	cache[slot].height = in->height;
	next_slot = (slot + 1) % CACHE;
	return cache[slot].isp;
}

/* Run the pipeline on the frame with the blocks its levels set; any content must process. */
static void develop(const struct cisp_raw_frame *frame)
{
	const struct cisp_image *in = &frame->image;
	struct cisp_image out;
	struct cisp_image *outs[2] = { &out, NULL };
	static struct cisp_param_state defaults, state;
	struct cisp_isp *isp = isp_for(in);

	if (!isp)
		return;
	cisp_param_state_init(&defaults);
	state = defaults;
	FUZZ_CHECK(cisp_image_alloc(&out, CISP_FMT_RGB888, in->width, in->height) == 0);
	if (!cisp_raw_frame_params(frame, &state)) {
		/* Every changed block, and BLC always so a cached instance never keeps another depth's levels. */
		uint32_t blocks = cisp_params_diff(&defaults, &state) | CISP_BLOCK_BIT(CISP_BLOCK_BLC);
		size_t size;
		void *buf;

		FUZZ_CHECK(cisp_params_encode(&state, blocks, NULL, 0, &size) == 0);
		buf = malloc(size);
		FUZZ_CHECK(buf && cisp_params_encode(&state, blocks, buf, size, &size) == 0);
		FUZZ_CHECK(cisp_isp_set_params(isp, buf, size) == 0);
		free(buf);
	}
	FUZZ_CHECK(cisp_isp_process(isp, in, outs, NULL, NULL) == 0);
	cisp_image_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct cisp_raw_frame frame;
	const uint8_t *file = data + HEADER;
	uint32_t format, w, h;
	size_t n = size - HEADER, need;
	char path[64];

	if (size < HEADER)
		return 0;
	if (fd < 0 && (fd = memfd_create("cisp-fuzz-dump", 0)) < 0)
		abort();
	format = pick_format(data[0]);
	w = 1 + (uint32_t)(data[1] | data[2] << 8) % 80;
	h = 1 + (uint32_t)(data[3] | data[4] << 8) % 80;
	need = cisp_image_packed_size(format, w, h);
	if (!(data[5] & 1) && need) {
		memset(fitted, 0, need);
		memcpy(fitted, file, n < need ? n : need);
		file = fitted;
		n = need;
	}
	if (ftruncate(fd, 0) || pwrite(fd, file, n, 0) != (ssize_t)n)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (cisp_raw_read_dump(path, format, w, h, &frame))
		return 0;
	FUZZ_CHECK(frame.image.format == format && frame.image.width == w && frame.image.height == h);
	develop(&frame);
	cisp_raw_frame_free(&frame);
	return 0;
}

/* Warnings about what a damaged file lacks would be printed for nearly every input. */
__attribute__((constructor)) static void quiet(void)
{
	cisp_log_set_level(CISP_LOG_ERROR);
}
