/* SPDX-License-Identifier: MIT */
/*
 * The YAML form of params buffers (cisp_params_from_yaml(), libyaml under
 * it). Properties: an accepted text gives a valid buffer, whose canonical
 * YAML encodes back to the same bytes and decodes to the same text.
 */
#include <string.h>

#include <cisp/params_state.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = NULL, *again = NULL;
	char *text = NULL, *text2 = NULL;
	size_t n, n2;

	if (size > 256 * 1024)
		return 0;
	if (cisp_params_from_yaml((const char *)data, size, &buf, &n))
		return 0;
	FUZZ_CHECK(cisp_params_validate(buf, n, NULL) == 0);
	FUZZ_CHECK(cisp_params_to_yaml(buf, n, &text) == 0);
	FUZZ_CHECK(cisp_params_from_yaml(text, strlen(text), &again, &n2) == 0);
	FUZZ_CHECK(n2 == n && !memcmp(buf, again, n));
	FUZZ_CHECK(cisp_params_to_yaml(again, n2, &text2) == 0);
	FUZZ_CHECK(!strcmp(text, text2));
	free(buf);
	free(again);
	free(text);
	free(text2);
	return 0;
}
