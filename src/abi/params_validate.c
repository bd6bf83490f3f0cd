/* SPDX-License-Identifier: MIT */
/*
 * Validation of params buffers: the header, the framing of every block, every
 * field against the ranges of the block table, the checks between fields,
 * and (with limits) against the instance. Then applying a valid buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/params_state.h>

#include "core/error_internal.h"
#include "params_internal.h"

#define HEADER_SIZE ((uint32_t)sizeof(struct cisp_params_header))
#define BLOCK_HEADER_SIZE ((uint32_t)sizeof(struct cisp_block_header))

static bool frame_known(const struct abi_ctx *ctx)
{
	return ctx->limits && ctx->limits->width && ctx->limits->height;
}

/* "name", "name[i]" or "name[i][j]" for element @i of the span of @f. */
static const char *element_name(char *out, size_t size, const struct abi_field *f, struct abi_span s, uint32_t i)
{
	if (f->count == 1)
		snprintf(out, size, "%s", f->name);
	else if (s.row)
		snprintf(out, size, "%s[%" PRIu32 "][%" PRIu32 "]", f->name, (i - s.first) / s.row,
			 (i - s.first) % s.row);
	else
		snprintf(out, size, "%s[%" PRIu32 "]", f->name, i - s.first);
	return out;
}

static int check_range(const struct abi_ctx *ctx, const struct abi_field *f, const void *block, struct abi_span s,
		       uint32_t i)
{
	int64_t v = abi_get(block, f, i);
	char name[64];

	if (v >= f->min && v <= f->max)
		return 0;
	if (f->names)
		return abi_error(ctx, -EINVAL, "%s = %" PRId64 " is not a known value (0..%" PRId64 ")",
				 element_name(name, sizeof(name), f, s, i), v, f->max);
	return abi_error(ctx, -EINVAL, "%s = %" PRId64 " is out of range %" PRId64 "..%" PRId64,
			 element_name(name, sizeof(name), f, s, i), v, f->min, f->max);
}

int abi_check_counts(const struct abi_ctx *ctx, const struct abi_block *b, const void *block, uint32_t size)
{
	int ret;

	for (const struct abi_field *f = b->fields; f->name; f++) {
		if (!(f->flags & ABI_COUNT))
			continue;
		if (f->offset + abi_type_bytes(f->type) > size)
			return abi_error(ctx, -EMSGSIZE, "size %" PRIu32 " ends before %s", size, f->name);
		if ((ret = check_range(ctx, f, block, (struct abi_span){ 0, 1, 0 }, 0)))
			return ret;
	}
	return 0;
}

static int check_size(const struct abi_ctx *ctx, const struct abi_block *b, const void *block, uint32_t size)
{
	uint32_t expected = abi_block_encoded_size(b, block);
	char counts[128];

	if (size == expected)
		return 0;
	if (!b->used_size)
		return abi_error(ctx, -EMSGSIZE, "size %" PRIu32 " is not the %" PRIu32 " bytes of a %s block", size,
				 expected, b->name);
	abi_describe_counts(counts, sizeof(counts), b, block);
	return abi_error(ctx, -EMSGSIZE, "size %" PRIu32 " does not match %s (expected %" PRIu32 ")", size, counts,
			 expected);
}

/* Every element of @f inside the block: reserved ones 0, used ones in range, the others 0. */
static int check_field(const struct abi_ctx *ctx, const struct abi_block *b, const struct abi_field *f,
		       const void *block, uint32_t size)
{
	uint32_t bytes = abi_type_bytes(f->type);
	struct abi_span s = abi_field_span(f, block);
	char name[64];
	int ret;

	if (f->offset >= size)
		return 0; /* past the used part of a variable-length block */
	if (f->flags & ABI_RESERVED) {
		for (uint32_t i = 0; i < f->count && f->offset + (i + 1) * bytes <= size; i++)
			if (abi_get(block, f, i))
				return abi_error(ctx, -EINVAL, "%s = %" PRId64 " must be 0 (reserved)",
						 element_name(name, sizeof(name), f, (struct abi_span){ 0 }, i),
						 abi_get(block, f, i));
		return 0;
	}
	for (uint32_t i = s.first; i < s.first + s.n; i++)
		if ((ret = check_range(ctx, f, block, s, i)))
			return ret;
	if (b->used_size)
		return 0; /* the padding check covers the rest */
	for (uint32_t i = 0; i < f->count; i++)
		if ((i < s.first || i >= s.first + s.n) && abi_get(block, f, i))
			return abi_error(ctx, -EINVAL, "%s = %" PRId64 " must be 0: it is past the %s in use",
					 element_name(name, sizeof(name), f, (struct abi_span){ 0, 0, s.row }, i),
					 abi_get(block, f, i), f->length_of ? f->length_of : "entries");
	return 0;
}

int abi_check_payload(const struct abi_ctx *ctx, const struct abi_block *b, const void *block, uint32_t size)
{
	int ret;

	/* A fixed size is checked before any field is read; a variable one follows from the counts. */
	if (!b->used_size && (ret = check_size(ctx, b, block, size)))
		return ret;
	if ((ret = abi_check_counts(ctx, b, block, size)))
		return ret;
	if (b->used_size && (ret = check_size(ctx, b, block, size)))
		return ret;
	for (const struct abi_field *f = b->fields; f->name; f++)
		if (!(f->flags & ABI_COUNT) && (ret = check_field(ctx, b, f, block, size)))
			return ret;
	if (b->used_size && !ctx->in_state) {
		const uint8_t *p = block;

		for (uint32_t i = b->used_size(block); i < size; i++)
			if (p[i])
				return abi_error(ctx, -EINVAL, "padding byte %" PRIu32 " after the last entry is %u, not 0",
						 i, p[i]);
	}
	return b->check ? b->check(ctx, block) : 0;
}

/* ---- the checks between fields, named in the block table ---- */

int abi_check_blc(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_blc_params *p = block;

	for (int c = 0; c < 4; c++)
		if (p->white - p->black[c] < 16384)
			return abi_error(ctx, -EINVAL, "white - black[%d] = %d is below 16384 (white %u, black[%d] %u)",
					 c, p->white - p->black[c], p->white, c, p->black[c]);
	return 0;
}

int abi_check_dpc(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_dpc_params *p = block;

	for (unsigned i = 0; i < p->count; i++) {
		const struct cisp_dpc_pixel *d = &p->pixels[i];

		if (i > 0) {
			const struct cisp_dpc_pixel *prev = &p->pixels[i - 1];

			if (d->y < prev->y || (d->y == prev->y && d->x <= prev->x))
				return abi_error(ctx, -EINVAL,
						 "pixels[%u] (%u, %u) does not come after pixels[%u] (%u, %u): the "
						 "list must be sorted by row, then column, without duplicates",
						 i, d->x, d->y, i - 1, prev->x, prev->y);
		}
		if (frame_known(ctx) && (d->x >= ctx->limits->width || d->y >= ctx->limits->height))
			return abi_error(ctx, -EINVAL, "pixels[%u] (%u, %u) is outside the %ux%u frame", i, d->x, d->y,
					 ctx->limits->width, ctx->limits->height);
	}
	return 0;
}

int abi_check_demosaic(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_demosaic_params *p = block;

	const struct abi_field *f = abi_find_field(abi_block_info(CISP_BLOCK_DEMOSAIC), "algorithm");

	if (ctx->limits && !(ctx->limits->demosaic_algorithms & (1u << p->algorithm)))
		return abi_error(ctx, -ENOTSUP, "algorithm %s is not available on this ISP", f->names[p->algorithm]);
	return 0;
}

int abi_check_ccm(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_ccm_params *p = block;

	for (int i = 0; i < 3; i++) {
		int sum = 0;

		for (int j = 0; j < 3; j++)
			sum += abs(p->coeff[3 * i + j]);
		if (sum > 32767)
			return abi_error(ctx, -EINVAL,
					 "row %d: the sum of |coeff| = %d is over 32767 (|%d| + |%d| + |%d|)", i, sum,
					 p->coeff[3 * i], p->coeff[3 * i + 1], p->coeff[3 * i + 2]);
	}
	return 0;
}

int abi_check_crop(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_crop_params *p = block;
	const unsigned v[4] = { p->x, p->y, p->width, p->height };
	static const char *const names[4] = { "x", "y", "width", "height" };

	for (int i = 0; i < 4; i++)
		if (v[i] & 1)
			return abi_error(ctx, -EINVAL, "%s = %u is odd", names[i], v[i]);
	if (p->width < 2 || p->height < 2)
		return abi_error(ctx, -EINVAL, "%ux%u is smaller than 2x2", p->width, p->height);
	if (frame_known(ctx) && (p->x + p->width > ctx->limits->width || p->y + p->height > ctx->limits->height))
		return abi_error(ctx, -EINVAL, "%ux%u at (%u, %u) runs outside the %ux%u frame", p->width, p->height,
				 p->x, p->y, ctx->limits->width, ctx->limits->height);
	return 0;
}

int abi_check_stats(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_stats_params *p = block;

	for (unsigned i = 0; i < p->af_count; i++) {
		const struct cisp_stats_window *w = &p->af[i];

		if (w->width < 8 || w->height < 8)
			return abi_error(ctx, -EINVAL, "af[%u] %ux%u is smaller than 8x8", i, w->width, w->height);
		if (frame_known(ctx) && (w->x + w->width > ctx->limits->width || w->y + w->height > ctx->limits->height))
			return abi_error(ctx, -EINVAL, "af[%u] %ux%u at (%u, %u) runs outside the %ux%u frame", i,
					 w->width, w->height, w->x, w->y, ctx->limits->width, ctx->limits->height);
	}
	return 0;
}

/* The framing against what the instance's vendor stages declared; the payload itself is never read. */
int abi_check_vendor(const struct abi_ctx *ctx, const void *block)
{
	const struct cisp_vendor_params *p = block;
	const struct cisp_vendor_block_caps *caps = NULL;
	bool vendor_known = false;

	if (!ctx->limits)
		return 0;
	for (uint32_t i = 0; i < ctx->limits->num_vendor; i++) {
		const struct cisp_vendor_block_caps *c = &ctx->limits->vendor[i];

		vendor_known |= c->vendor_id == p->vendor_id;
		if (c->vendor_id == p->vendor_id && c->type == p->type)
			caps = c;
	}
	if (!vendor_known)
		return abi_error(ctx, -ENOTSUP, "vendor_id 0x%08" PRIx32 " is not registered with this ISP", p->vendor_id);
	if (!caps)
		return abi_error(ctx, -ENOTSUP, "vendor 0x%08" PRIx32 " has no block type %u on this ISP", p->vendor_id,
				 p->type);
	if (p->version < caps->min_version || p->version > caps->max_version)
		return abi_error(ctx, -ENOTSUP, "version %u of vendor 0x%08" PRIx32 " block %u is not supported (%u..%u)",
				 p->version, p->vendor_id, p->type, caps->min_version, caps->max_version);
	if (p->payload_size > caps->max_payload)
		return abi_error(ctx, -EMSGSIZE, "payload_size %" PRIu32 " is over the %" PRIu32
				 " bytes the vendor stage declares for block 0x%08" PRIx32 "/%u",
				 p->payload_size, caps->max_payload, p->vendor_id, p->type);
	return 0;
}

/* ---- the buffer ---- */

static int check_header(const uint8_t *buf, size_t size)
{
	uint32_t magic, total;
	unsigned version, reserved0, reserved1;

	if (size < HEADER_SIZE)
		return cisp_error(-EMSGSIZE, "params buffer of %zu bytes is shorter than its %" PRIu32 "-byte header",
				  size, HEADER_SIZE);
	magic = abi_rd32(buf + offsetof(struct cisp_params_header, magic));
	version = abi_rd16(buf + offsetof(struct cisp_params_header, version));
	reserved0 = abi_rd16(buf + offsetof(struct cisp_params_header, reserved0));
	total = abi_rd32(buf + offsetof(struct cisp_params_header, total_size));
	reserved1 = abi_rd32(buf + offsetof(struct cisp_params_header, reserved1));
	if (magic != CISP_PARAMS_MAGIC)
		return cisp_error(-EPROTO, "params header: magic 0x%08" PRIx32 " is not 0x%08x (\"CISP\")", magic,
				  CISP_PARAMS_MAGIC);
	if (version != CISP_PARAMS_VERSION)
		return cisp_error(-EPROTONOSUPPORT, "params header: version %u is not supported (only version %d)",
				  version, CISP_PARAMS_VERSION);
	if (reserved0 || reserved1)
		return cisp_error(-EINVAL, "params header: %s = %u must be 0 (reserved)",
				  reserved0 ? "reserved0" : "reserved1", reserved0 ? reserved0 : reserved1);
	if (total % 8)
		return cisp_error(-EMSGSIZE, "params header: total_size %" PRIu32 " is not a multiple of 8", total);
	if (total > CISP_PARAMS_MAX_SIZE)
		return cisp_error(-EMSGSIZE, "params header: total_size %" PRIu32 " is over the maximum of %u bytes",
				  total, CISP_PARAMS_MAX_SIZE);
	if (total != size)
		return cisp_error(-EMSGSIZE, "params header: total_size %" PRIu32 " does not match the buffer size %zu",
				  total, size);
	return 0;
}

/* Flags of a block: known bits, not both, and what its type allows. */
static int check_flags(const struct abi_ctx *ctx, const struct abi_block *b, unsigned flags)
{
	const unsigned known = CISP_BLOCK_FL_ENABLE | CISP_BLOCK_FL_DISABLE;

	if (flags & ~known)
		return abi_error(ctx, -EINVAL, "flags 0x%04x have unknown bits 0x%04x", flags, flags & ~known);
	if (flags == known)
		return abi_error(ctx, -EINVAL, "flags 0x%04x set both ENABLE and DISABLE", flags);
	if ((b->flags & ABI_NO_FLAGS) && flags)
		return abi_error(ctx, -EINVAL, "flags 0x%04x on %s, which takes none (it has no enabled state)", flags,
				 b->name);
	if ((b->flags & ABI_ALWAYS_ON) && (flags & CISP_BLOCK_FL_DISABLE))
		return abi_error(ctx, -EINVAL, "DISABLE on %s, which cannot be disabled", b->name);
	return 0;
}

int abi_check_block(const struct abi_ctx *ctx, unsigned type, unsigned flags, const void *block, uint32_t size)
{
	const struct abi_block *b = abi_block_info(type);
	int ret;

	if (!b)
		return abi_error(ctx, -EINVAL, "unknown block type %u", type);
	if ((ret = check_flags(ctx, b, flags)))
		return ret;
	if (ctx->limits && !(type < 32 && (ctx->limits->blocks & CISP_BLOCK_BIT(type))))
		return abi_error(ctx, -ENOTSUP, "this ISP does not implement %s blocks", b->name);
	if (size > BLOCK_HEADER_SIZE)
		return abi_check_payload(ctx, b, block, size);
	if (!(flags & CISP_BLOCK_FL_DISABLE))
		return abi_error(ctx, -EMSGSIZE, "size 8 omits the payload, which only DISABLE may do");
	if (b->flags & (ABI_PER_OUTPUT | ABI_VENDOR))
		return abi_error(ctx, -EMSGSIZE, "size 8 omits the payload, which %s blocks always need (it names the %s)",
				 b->name, (b->flags & ABI_VENDOR) ? "vendor block" : "output");
	return 0;
}

/* A vendor block seen in a buffer: each (vendor_id, type) once, CISP_VENDOR_MAX_BLOCKS in all. */
struct vendor_seen {
	uint32_t vendor_id;
	uint32_t type;
	uint32_t index;
	uint32_t offset;
};

static int check_vendor_once(const struct abi_ctx *ctx, struct vendor_seen *seen, unsigned *n, const uint8_t *block,
			     uint32_t index, uint32_t offset)
{
	const struct cisp_vendor_params *p = (const struct cisp_vendor_params *)block;

	for (unsigned i = 0; i < *n; i++)
		if (seen[i].vendor_id == p->vendor_id && seen[i].type == p->type)
			return abi_error(ctx, -EINVAL, "duplicate of block %" PRIu32 " at offset %" PRIu32
					 " (each vendor block once: vendor 0x%08" PRIx32 ", type %u)", seen[i].index,
					 seen[i].offset, p->vendor_id, p->type);
	if (*n == CISP_VENDOR_MAX_BLOCKS)
		return abi_error(ctx, -EINVAL, "more than %d vendor blocks in one buffer", CISP_VENDOR_MAX_BLOCKS);
	seen[(*n)++] = (struct vendor_seen){ p->vendor_id, p->type, index, offset };
	return 0;
}

/*
 * The header of the block at @p: its type, flags and size; returns the
 * block's description (NULL for an unknown type).
 */
static const struct abi_block *read_block_header(const uint8_t *p, unsigned *type, unsigned *flags, uint32_t *size)
{
	*type = abi_rd16(p + offsetof(struct cisp_block_header, type));
	*flags = abi_rd16(p + offsetof(struct cisp_block_header, flags));
	*size = abi_rd32(p + offsetof(struct cisp_block_header, size));
	return abi_block_info(*type);
}

/* The output a per-output block @p of kind @b is for; 0 for the others. */
static unsigned block_output(const struct abi_block *b, const uint8_t *p)
{
	return (b->flags & ABI_PER_OUTPUT) ? (unsigned)abi_get(p, abi_find_field(b, "output"), 0) : 0;
}

/* Validate a buffer that is at least 8-byte aligned. */
static int validate(const uint8_t *buf, size_t size, const struct cisp_params_limits *limits)
{
	/* Index + 1 and offset of the block seen for each type and output. */
	uint32_t seen[CISP_BLOCK_TYPE_COUNT][CISP_MAX_OUTPUTS] = { { 0 } };
	uint32_t seen_at[CISP_BLOCK_TYPE_COUNT][CISP_MAX_OUTPUTS];
	struct vendor_seen vendor[CISP_VENDOR_MAX_BLOCKS];
	unsigned num_vendor = 0;
	struct abi_ctx ctx = { .limits = limits };
	int ret = check_header(buf, size);

	for (uint32_t off = HEADER_SIZE, index = 0; !ret && off < size; index++) {
		const uint8_t *p = buf + off;
		unsigned type, flags, output;
		uint32_t bsize;
		const struct abi_block *b = read_block_header(p, &type, &flags, &bsize);

		snprintf(ctx.where, sizeof(ctx.where), "params block %" PRIu32 " (%s) at offset %" PRIu32, index,
			 b ? b->name : "unknown", off);
		if (bsize < BLOCK_HEADER_SIZE)
			return abi_error(&ctx, -EMSGSIZE, "size %" PRIu32 " is smaller than the %" PRIu32
					 "-byte block header", bsize, BLOCK_HEADER_SIZE);
		if (bsize % 8)
			return abi_error(&ctx, -EMSGSIZE, "size %" PRIu32 " is not a multiple of 8", bsize);
		if (bsize > size - off)
			return abi_error(&ctx, -EMSGSIZE, "size %" PRIu32 " runs past the end of the buffer (%zu bytes left)",
					 bsize, size - off);
		if ((ret = abi_check_block(&ctx, type, flags, p, bsize)))
			return ret;
		if (b->flags & ABI_VENDOR) {
			if ((ret = check_vendor_once(&ctx, vendor, &num_vendor, p, index, off)))
				return ret;
			off += bsize;
			continue;
		}
		output = block_output(b, p);
		if (seen[type][output])
			return abi_error(&ctx, -EINVAL, "duplicate of block %" PRIu32 " at offset %" PRIu32
					 " (each type once%s)", seen[type][output] - 1, seen_at[type][output],
					 (b->flags & ABI_PER_OUTPUT) ? " per output" : "");
		seen[type][output] = index + 1;
		seen_at[type][output] = off;
		off += bsize;
	}
	return ret;
}

int cisp_params_validate(const void *buf, size_t size, const struct cisp_params_limits *limits)
{
	void *copy;
	int ret;

	if (!buf && size)
		return cisp_error(-EINVAL, "params buffer is NULL");
	if (((uintptr_t)buf & 7) == 0)
		return validate(buf, size, limits);
	/* The checks read fields through their structures: give them an aligned copy. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return cisp_error(-ENOMEM, "out of memory for an aligned copy of a %zu-byte params buffer", size);
	memcpy(copy, buf, size);
	ret = validate(copy, size, limits);
	free(copy);
	return ret;
}

int cisp_param_state_apply(struct cisp_param_state *state, const void *buf, size_t size,
			   const struct cisp_params_limits *limits)
{
	const uint8_t *base = buf;
	int ret = cisp_params_validate(buf, size, limits);

	if (ret)
		return ret;
	for (size_t off = HEADER_SIZE; off < size;) {
		const uint8_t *p = base + off;
		unsigned type, flags, output;
		uint32_t bsize;
		const struct abi_block *b = read_block_header(p, &type, &flags, &bsize);

		if (b->flags & ABI_VENDOR) {
			off += bsize; /* kept by the vendor stages (src/vendor_stage) */
			continue;
		}
		output = block_output(b, p);
		if (bsize > BLOCK_HEADER_SIZE) {
			uint8_t *dst = abi_state_block(state, b, output);

			/* The state keeps its own header; entries past the counts become 0. */
			memcpy(dst + BLOCK_HEADER_SIZE, p + BLOCK_HEADER_SIZE, bsize - BLOCK_HEADER_SIZE);
			memset(dst + bsize, 0, b->size - bsize);
		}
		if (!(b->flags & ABI_NO_FLAGS)) {
			uint32_t *bits = (b->flags & ABI_PER_OUTPUT) ? &state->crop_enabled : &state->enabled;
			uint32_t bit = (b->flags & ABI_PER_OUTPUT) ? 1u << output : CISP_BLOCK_BIT(type);

			if (flags & CISP_BLOCK_FL_ENABLE)
				*bits |= bit;
			else if (flags & CISP_BLOCK_FL_DISABLE)
				*bits &= ~bit;
		}
		off += bsize;
	}
	return 0;
}
