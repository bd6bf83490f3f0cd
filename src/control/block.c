/* SPDX-License-Identifier: MIT */
/* Writing params blocks: block.h. */
#include <string.h>

#include "block.h"

uint32_t control_write_block(void *dst, const void *src, size_t size, unsigned type)
{
	if (!memcmp(dst, src, size))
		return 0;
	memcpy(dst, src, size);
	return CISP_BLOCK_BIT(type);
}

uint32_t control_enable_block(struct cisp_param_state *ps, unsigned type, bool on)
{
	uint32_t bit = CISP_BLOCK_BIT(type), was = ps->enabled & bit;

	ps->enabled = on ? ps->enabled | bit : ps->enabled & ~bit;
	return was != (ps->enabled & bit) ? bit : 0;
}
