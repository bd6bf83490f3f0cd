/* SPDX-License-Identifier: MIT */
/*
 * The description of every params block, shared by validation, encoding and
 * the YAML form. A block type is one struct abi_block entry in params.c (its
 * fields, size, state slot and default) plus, when its fields constrain each
 * other or the frame, a check function in params_validate.c.
 */
#ifndef CISP_ABI_PARAMS_INTERNAL_H
#define CISP_ABI_PARAMS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/params.h>
#include <cisp/params_state.h>

/* Storage type of a field's elements (little-endian in the buffer). */
enum abi_type {
	ABI_U16,
	ABI_I16,
	ABI_U32,
	ABI_I32,
	ABI_U8,
};

/* Bytes of one element of an enum abi_type (a constant expression for the tables). */
#define ABI_TYPE_BYTES(t) ((t) == ABI_U8 ? 1u : (t) == ABI_U32 || (t) == ABI_I32 ? 4u : 2u)

static inline uint32_t abi_type_bytes(unsigned type)
{
	return ABI_TYPE_BYTES(type);
}

/* Bits of struct abi_field.flags. */
#define ABI_RESERVED (1u << 0) /* must be 0; not part of the YAML form */
#define ABI_COUNT (1u << 1)    /* a count or size the block's layout depends on: checked first */
#define ABI_IMPLICIT (1u << 2) /* not a YAML key: set from a list's length or the block's key */
#define ABI_GRID (1u << 3)     /* YAML: one inner list per line */
#define ABI_OPTIONAL (1u << 4) /* YAML: a scalar that may be left out, meaning 0 (and is left out when 0) */

/* The elements of an array field in use: elements [first, first + n), in YAML lists of @row. */
struct abi_span {
	uint32_t first;
	uint32_t n;
	uint32_t row; /* 0: a flat list */
};

/* One field of a block: a scalar (count 1) or an array. */
struct abi_field {
	const char *name;
	uint32_t offset;  /* byte offset of element 0 from the block start */
	uint8_t type;     /* enum abi_type */
	uint8_t frac;     /* fraction bits of a fixed-point value (Qm.frac); 0 for integers */
	uint8_t flags;    /* ABI_* */
	uint8_t row;      /* elements per inner YAML list (pairs, triples); 0: flat */
	uint32_t count;   /* elements in the structure */
	int64_t min, max; /* range of every element in use */
	const char *const *names; /* enum: the name of each value 0..max; NULL otherwise */
	/* Elements in use, from the block's (already checked) counts; NULL: all @count. */
	struct abi_span (*span)(const void *block);
	/* For a list whose length sets an ABI_IMPLICIT count: that field's name. */
	const char *length_of;
};

struct abi_ctx;

/* Bits of struct abi_block.flags. */
#define ABI_NO_FLAGS (1u << 0)   /* not a stage: no enabled state, flags must be 0 */
#define ABI_ALWAYS_ON (1u << 1)  /* a stage that cannot be disabled */
#define ABI_PER_OUTPUT (1u << 2) /* once per output (field "output"); payload always required */
/* A vendor block: once per (vendor_id, type), its fields always present, its payload kept outside the state. */
#define ABI_VENDOR (1u << 3)

/* One block type. */
struct abi_block {
	const char *name;
	uint32_t size;          /* sizeof the full structure */
	uint32_t state_offset;  /* offsetof(struct cisp_param_state, ...) */
	uint32_t flags;         /* ABI_NO_FLAGS, ABI_ALWAYS_ON, ABI_PER_OUTPUT */
	bool enabled_by_default;
	const struct abi_field *fields; /* NULL-name terminated */
	/* Variable-length blocks: bytes in use from the counts (not rounded); NULL for fixed size. */
	uint32_t (*used_size)(const void *block);
	/* Checks between fields and against the limits, after the field ranges; NULL if none. */
	int (*check)(const struct abi_ctx *ctx, const void *block);
	/* Writes the default payload into a zeroed full-size block. */
	void (*defaults)(void *block);
};

/* Where a check runs, for messages: "params block 2 (lsc) at offset 48" or "line 7: lsc". */
struct abi_ctx {
	char where[128];
	const struct cisp_params_limits *limits; /* NULL: no instance checks */
	/* Checking a block inside a struct cisp_param_state: the bytes past a variable-length block's used
	 * entries are not looked at (a buffer carries them as 0; cisp_param_state_copy() writes them so). */
	bool in_state;
};

/* The block type's description, or NULL for an unknown type. */
const struct abi_block *abi_block_info(unsigned type);

/* Record "<where>: <message>" as the error and return @err. */
int abi_error(const struct abi_ctx *ctx, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Element @i of @f in @block, as a signed value. */
int64_t abi_get(const void *block, const struct abi_field *f, uint32_t i);
/* Store @v into element @i of @f in @block (v within the type's range). */
void abi_set(void *block, const struct abi_field *f, uint32_t i, int64_t v);
/* The elements of @f in use. */
struct abi_span abi_field_span(const struct abi_field *f, const void *block);
/* The field called @name in @b, or NULL. */
const struct abi_field *abi_find_field(const struct abi_block *b, const char *name);

/* "grid_w = 3, grid_h = 5": the ABI_COUNT fields of @block, for messages. */
void abi_describe_counts(char *out, size_t size, const struct abi_block *b, const void *block);

/* Size of @block as it is encoded: the full size, or the used size rounded up to 8. */
uint32_t abi_block_encoded_size(const struct abi_block *b, const void *block);

/*
 * Check a block's payload (@size bytes from its header on, more than 8): the
 * counts, the size against them, every field's range, reserved fields and
 * padding, then the block's own check. @block must be 4-byte aligned.
 */
int abi_check_payload(const struct abi_ctx *ctx, const struct abi_block *b, const void *block, uint32_t size);

/* Check the ABI_COUNT fields of a block of @size bytes (before its used size is trusted). */
int abi_check_counts(const struct abi_ctx *ctx, const struct abi_block *b, const void *block, uint32_t size);

/*
 * Check one block of a known size (at least 8, a multiple of 8): its type, its
 * flags, the instance's support, then its payload (or the lack of one).
 */
int abi_check_block(const struct abi_ctx *ctx, unsigned type, unsigned flags, const void *block, uint32_t size);

/* Pointer to the state's block for @b (and @output for per-output blocks). */
void *abi_state_block(struct cisp_param_state *state, const struct abi_block *b, unsigned output);
const void *abi_state_block_const(const struct abi_block *b, const struct cisp_param_state *state,
				  unsigned output);
/* Whether the state has the stage of @b (and @output) enabled. */
bool abi_state_enabled(const struct abi_block *b, const struct cisp_param_state *state, unsigned output);

/* Number of outputs a block type is stored for: CISP_MAX_OUTPUTS or 1. */
static inline unsigned abi_block_instances(const struct abi_block *b)
{
	return (b->flags & ABI_PER_OUTPUT) ? CISP_MAX_OUTPUTS : 1;
}

/* Names of the outputs, for the YAML keys of per-output blocks ("crop_main"). */
extern const char *const abi_output_names[CISP_MAX_OUTPUTS];

/* The check functions of the block table (params_validate.c). */
int abi_check_blc(const struct abi_ctx *ctx, const void *block);
int abi_check_dpc(const struct abi_ctx *ctx, const void *block);
int abi_check_demosaic(const struct abi_ctx *ctx, const void *block);
int abi_check_ccm(const struct abi_ctx *ctx, const void *block);
int abi_check_crop(const struct abi_ctx *ctx, const void *block);
int abi_check_stats(const struct abi_ctx *ctx, const void *block);
int abi_check_vendor(const struct abi_ctx *ctx, const void *block);

/* Little-endian loads from unaligned bytes. */
static inline uint16_t abi_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t abi_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
