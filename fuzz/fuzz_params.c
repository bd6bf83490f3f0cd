/* SPDX-License-Identifier: MIT */
/*
 * The binary params decoder: cisp_params_validate() with and without the
 * limits of an instance (a 64x48 frame, two vendor blocks), applying to a
 * state, and the YAML form. Properties beyond "no crash, no leak":
 *  - a buffer valid against the limits is valid without them;
 *  - applying gives the result of validating, and a refused buffer leaves
 *    the state untouched;
 *  - an unaligned copy validates the same;
 *  - a valid buffer decodes to YAML that encodes back to the same bytes.
 */
#include <string.h>

#include <cisp/params_state.h>

#include "fuzz.h"

static const struct cisp_vendor_block_caps caps[] = {
	{ 0x454d4341, 1, 1, 1, 0, 8 },
	{ 0xffff0101, 1, 1, 2, 0, 64 },
};
static const struct cisp_params_limits limits = { 64, 48, ~0u, 3, caps, 2 };

static struct cisp_param_state state, before;
static uint8_t copy[CISP_PARAMS_MAX_SIZE + 8 + 1];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int plain, limited, ret;
	char *text = NULL;
	void *back = NULL;
	size_t back_size;

	if (size > CISP_PARAMS_MAX_SIZE + 8)
		return 0;
	plain = cisp_params_validate(data, size, NULL);
	limited = cisp_params_validate(data, size, &limits);
	FUZZ_CHECK(limited || !plain);

	/* The same bytes one byte off alignment. */
	memcpy(copy + 1, data, size);
	FUZZ_CHECK(cisp_params_validate(copy + 1, size, NULL) == plain);

	/* The state of a previous input, so that deltas meet non-default values. */
	memcpy(&before, &state, sizeof(state));
	ret = cisp_param_state_apply(&state, data, size, &limits);
	FUZZ_CHECK(ret == limited);
	if (ret)
		FUZZ_CHECK(!memcmp(&before, &state, sizeof(state)));

	if (plain)
		return 0;
	FUZZ_CHECK(cisp_params_to_yaml(data, size, &text) == 0);
	FUZZ_CHECK(cisp_params_from_yaml(text, strlen(text), &back, &back_size) == 0);
	FUZZ_CHECK(back_size == size && !memcmp(back, data, size));
	free(text);
	free(back);
	return 0;
}

/* A state that is not all defaults from the start, reset now and then by the inputs themselves. */
__attribute__((constructor)) static void init(void)
{
	cisp_param_state_init(&state);
}
