/* SPDX-License-Identifier: MIT */
/* Writing blocks of a parameter state as a params buffer or into another state, and the difference of two states. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cisp/params_state.h>

#include "core/error_internal.h"
#include "params_internal.h"

/* The flags that carry a block's enabled state. */
static uint16_t block_flags(const struct abi_block *b, const struct cisp_param_state *state, unsigned output)
{
	if (b->flags & ABI_NO_FLAGS)
		return 0;
	if (b->flags & ABI_ALWAYS_ON)
		return CISP_BLOCK_FL_ENABLE;
	return abi_state_enabled(b, state, output) ? CISP_BLOCK_FL_ENABLE : CISP_BLOCK_FL_DISABLE;
}

int cisp_params_encode(const struct cisp_param_state *state, uint32_t blocks, void *buf, size_t capacity,
		       size_t *size)
{
	struct cisp_params_header header = { .magic = CISP_PARAMS_MAGIC, .version = CISP_PARAMS_VERSION };
	size_t total = sizeof(header);
	uint8_t *out = buf;
	int ret;

	/* The used sizes follow from the counts: check those before trusting them. */
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *b = abi_block_info(t);

		if (!b || !(blocks & CISP_BLOCK_BIT(t)))
			continue;
		for (unsigned o = 0; o < abi_block_instances(b); o++) {
			const void *blk = abi_state_block_const(b, state, o);
			struct abi_ctx ctx = { .limits = NULL };

			snprintf(ctx.where, sizeof(ctx.where), "state to encode, block %s", b->name);
			if ((ret = abi_check_counts(&ctx, b, blk, b->size)))
				return ret;
			total += abi_block_encoded_size(b, blk);
		}
	}
	*size = total;
	if (!buf)
		return 0;
	if (capacity < total)
		return cisp_error(-ENOSPC, "the params buffer needs %zu bytes, only %zu are available", total, capacity);

	header.total_size = (uint32_t)total;
	memcpy(out, &header, sizeof(header));
	total = sizeof(header);
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *b = abi_block_info(t);

		if (!b || !(blocks & CISP_BLOCK_BIT(t)))
			continue;
		for (unsigned o = 0; o < abi_block_instances(b); o++) {
			const uint8_t *blk = abi_state_block_const(b, state, o);
			uint32_t bsize = abi_block_encoded_size(b, blk);
			uint32_t used = b->used_size ? b->used_size(blk) : bsize;
			struct cisp_block_header h = { .type = (uint16_t)t, .flags = block_flags(b, state, o),
						       .size = bsize };

			memcpy(out + total, &h, sizeof(h));
			memcpy(out + total + sizeof(h), blk + sizeof(h), used - sizeof(h));
			memset(out + total + used, 0, bsize - used);
			total += bsize;
		}
	}
	/* A state is only ever written as a valid buffer. */
	ret = cisp_params_validate(buf, total, NULL);
	return ret ? cisp_error_prefix(ret, "the state to encode is invalid") : 0;
}

int cisp_param_state_copy(struct cisp_param_state *dst, const struct cisp_param_state *src, uint32_t blocks,
			  const struct cisp_params_limits *limits)
{
	int ret;

	/* Every block first, as a buffer is validated whole before any of it applies. */
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *b = abi_block_info(t);

		if (!b || !(blocks & CISP_BLOCK_BIT(t)) || (b->flags & ABI_VENDOR))
			continue;
		for (unsigned o = 0; o < abi_block_instances(b); o++) {
			const void *blk = abi_state_block_const(b, src, o);
			struct abi_ctx ctx = { .limits = limits, .in_state = true };

			snprintf(ctx.where, sizeof(ctx.where), "state block %s%s%s", b->name,
				 (b->flags & ABI_PER_OUTPUT) ? " of output " : "",
				 (b->flags & ABI_PER_OUTPUT) ? abi_output_names[o] : "");
			/* The used size follows from the counts: check those before trusting it. */
			if ((ret = abi_check_counts(&ctx, b, blk, b->size)) ||
			    (ret = abi_check_block(&ctx, t, block_flags(b, src, o), blk, abi_block_encoded_size(b, blk))))
				return ret;
		}
	}
	/* What applying cisp_params_encode(src, blocks) does: the entries in use, zeros past them, the flags. */
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *b = abi_block_info(t);

		if (!b || !(blocks & CISP_BLOCK_BIT(t)) || (b->flags & ABI_VENDOR))
			continue;
		for (unsigned o = 0; o < abi_block_instances(b); o++) {
			const uint8_t *from = abi_state_block_const(b, src, o);
			uint8_t *to = abi_state_block(dst, b, o);
			uint32_t used = b->used_size ? b->used_size(from) : b->size;
			const size_t head = sizeof(struct cisp_block_header);

			memmove(to + head, from + head, used - head); /* @dst may be @src */
			memset(to + used, 0, b->size - used);
			if (b->flags & ABI_NO_FLAGS)
				continue;
			if (b->flags & ABI_PER_OUTPUT)
				dst->crop_enabled = abi_state_enabled(b, src, o) ? dst->crop_enabled | 1u << o
										  : dst->crop_enabled & ~(1u << o);
			else
				dst->enabled = (block_flags(b, src, o) & CISP_BLOCK_FL_ENABLE)
						       ? dst->enabled | CISP_BLOCK_BIT(t)
						       : dst->enabled & ~CISP_BLOCK_BIT(t);
		}
	}
	return 0;
}

uint32_t cisp_params_diff(const struct cisp_param_state *a, const struct cisp_param_state *b)
{
	uint32_t mask = 0;

	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *info = abi_block_info(t);

		if (!info)
			continue;
		for (unsigned o = 0; o < abi_block_instances(info); o++) {
			const uint8_t *pa = abi_state_block_const(info, a, o);
			const uint8_t *pb = abi_state_block_const(info, b, o);
			uint32_t used = info->used_size ? info->used_size(pa) : info->size;

			if (block_flags(info, a, o) != block_flags(info, b, o) ||
			    (info->used_size && info->used_size(pb) != used) ||
			    memcmp(pa + sizeof(struct cisp_block_header), pb + sizeof(struct cisp_block_header),
				   used - sizeof(struct cisp_block_header)))
				mask |= CISP_BLOCK_BIT(t);
		}
	}
	return mask;
}
