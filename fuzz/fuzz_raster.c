/* SPDX-License-Identifier: MIT */
/*
 * Image files: cisp_raster_read_memory(), the PGM/PPM parser and the PNG
 * reader (libpng under it) with cisp's checks of the sizes a file declares.
 */
#include <cisp/image.h>
#include <cisp/raster.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cisp_raster r;
	size_t n;

	if (cisp_raster_read_memory(data, size, "<fuzz>", &r)) {
		FUZZ_CHECK(r.data == NULL);
		return 0;
	}
	FUZZ_CHECK(r.width >= 1 && r.height >= 1 && r.width <= CISP_MAX_DIMENSION && r.height <= CISP_MAX_DIMENSION);
	FUZZ_CHECK(r.channels == 1 || r.channels == 3);
	FUZZ_CHECK(r.maxval >= 1 && r.maxval <= 65535);
	n = (size_t)r.width * r.height * r.channels;
	/* Every sample is read, so the sanitizers see the whole array; none is over the maximum. */
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(r.data[i] <= r.maxval);
	cisp_raster_free(&r);
	return 0;
}
