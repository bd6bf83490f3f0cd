/* SPDX-License-Identifier: MIT */
/*
 * Virtual sensor model files (docs/sensor.md, "Sensor model files"):
 * vs_model_parse(), libyaml under it.
 */
#include <string.h>

#include <cisp/format.h>
#include <cisp/image.h>

#include "fuzz.h"
#include "sensor/virtual/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vs_model m;

	if (size > MODEL_FILE_MAX || vs_model_parse((const char *)data, size, "<fuzz>", &m))
		return 0;
	/* What the sensor and the camera layers rely on. */
	FUZZ_CHECK(memchr(m.name, 0, sizeof(m.name)) && m.name[0]);
	FUZZ_CHECK(m.array_width >= 16 && m.array_height >= 16 && m.array_width <= CISP_MAX_DIMENSION &&
		   m.array_height <= CISP_MAX_DIMENSION);
	FUZZ_CHECK(m.again_min <= m.again_max && m.dgain_min <= m.dgain_max);
	FUZZ_CHECK(m.num_modes >= 1 && m.modes);
	for (unsigned i = 0; i < m.num_modes; i++) {
		const struct cisp_sensor_mode *mode = &m.modes[i];

		FUZZ_CHECK(memchr(mode->name, 0, sizeof(mode->name)));
		FUZZ_CHECK(mode->width % 4 == 0 && mode->height % 2 == 0 && mode->width >= 16 && mode->height >= 16);
		FUZZ_CHECK((uint64_t)mode->crop_x + mode->crop_width <= m.array_width &&
			   (uint64_t)mode->crop_y + mode->crop_height <= m.array_height);
		FUZZ_CHECK(cisp_format_info(mode->format) && cisp_format_info(mode->format)->kind == CISP_KIND_BAYER);
		FUZZ_CHECK(mode->black_level < mode->white_level);
		FUZZ_CHECK(mode->frame_length_min <= mode->frame_length_default &&
			   mode->frame_length_default <= mode->frame_length_max);
	}
	vs_model_free(&m);
	return 0;
}
