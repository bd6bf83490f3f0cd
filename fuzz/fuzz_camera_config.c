/* SPDX-License-Identifier: MIT */
/*
 * Camera configuration files (camera_config_parse(), libyaml under it).
 * Properties: an accepted file gives at most 256 cameras, each with a
 * non-empty name and sensor, every string terminated within its field, and
 * no name twice.
 */
#include <string.h>

#include "camera/camera_internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cisp_camera_manager m;

	memset(&m, 0, sizeof(m));
	if (!camera_config_parse(&m, "fuzz.yaml", (const char *)data, size)) {
		FUZZ_CHECK(m.num_entries <= 256);
		for (unsigned i = 0; i < m.num_entries; i++) {
			const struct camera_entry *e = &m.entries[i];

			FUZZ_CHECK(e->name[0] && e->sensor[0]);
			FUZZ_CHECK(memchr(e->name, 0, sizeof(e->name)) && memchr(e->sensor, 0, sizeof(e->sensor)));
			FUZZ_CHECK(memchr(e->options, 0, sizeof(e->options)) && memchr(e->tuning, 0, sizeof(e->tuning)));
			FUZZ_CHECK(memchr(e->description, 0, sizeof(e->description)));
			FUZZ_CHECK(camera_config_file_find(&m, e->name) == e);
		}
	}
	free(m.entries);
	return 0;
}
