/* SPDX-License-Identifier: MIT */
/*
 * The raw-file front end: cisp_raw_read_memory() (LibRaw under it, with
 * cisp's own checks of what it returns), then the metadata to params, and
 * for small frames the whole pipeline. LibRaw itself is a system library
 * built without coverage; the inputs still reach every path of the wrapper.
 */
#include <errno.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/log.h>
#include <cisp/raw_file.h>

#include "fuzz.h"

static void develop(const struct cisp_raw_frame *frame)
{
	const struct cisp_image *in = &frame->image;
	struct cisp_isp_config c = { in->format, in->width, in->height, { { CISP_FMT_RGB888, in->width, in->height } } };
	struct cisp_image out;
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_isp *isp;

	if ((size_t)in->width * in->height > 256 * 256 || cisp_isp_create(&isp, &c))
		return;
	FUZZ_CHECK(cisp_image_alloc(&out, CISP_FMT_RGB888, in->width, in->height) == 0);
	FUZZ_CHECK(cisp_isp_process(isp, in, outs, NULL, NULL) == 0);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cisp_raw_frame frame;
	struct cisp_param_state state;
	int ret;

	if (size > 4 << 20)
		return 0;
	ret = cisp_raw_read_memory(data, size, "<fuzz>", &frame);
	if (ret)
		return 0;
	FUZZ_CHECK(cisp_format_info(frame.image.format) && cisp_format_info(frame.image.format)->kind == CISP_KIND_BAYER);
	FUZZ_CHECK(frame.image.width <= CISP_MAX_DIMENSION && frame.image.height <= CISP_MAX_DIMENSION);
	cisp_param_state_init(&state);
	ret = cisp_raw_frame_params(&frame, &state);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	develop(&frame);
	cisp_raw_frame_free(&frame);
	return 0;
}

/* Warnings about what a damaged file lacks would be printed for nearly every input. */
__attribute__((constructor)) static void quiet(void)
{
	cisp_log_set_level(CISP_LOG_ERROR);
}
