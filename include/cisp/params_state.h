/* SPDX-License-Identifier: MIT */
/**
 * @file params_state.h
 * @brief Decoding, validating, applying and encoding params buffers.
 *
 * A struct cisp_param_state holds the current value and enabled state of
 * every block: what an ISP context runs with. Params buffers (params.h) are
 * deltas against it. Validation checks the whole buffer first, so applying
 * either changes the state as a whole or not at all.
 *
 * The human-readable form of a params buffer is YAML (docs/abi.md):
 * cisp_params_from_yaml() and cisp_params_to_yaml() convert both ways and
 * round-trip exactly.
 */
#ifndef CISP_PARAMS_STATE_H
#define CISP_PARAMS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/params.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bit of a block type in a mask of block types. */
#define CISP_BLOCK_BIT(type) (1u << (type))

/**
 * struct cisp_param_state - the full parameter state of one ISP context.
 * The header of each block records its type and the size of a full block
 * (flags 0). Entries past a variable-length block's counts are 0.
 * @enabled: CISP_BLOCK_BIT() of every enabled stage (the demosaic and CSC
 *           bits are always set; NOISE has none).
 * @blc: black level.
 * @dpc: defective pixels.
 * @noise: noise profile.
 * @bnr: Bayer denoise.
 * @lsc: lens shading.
 * @wb: white balance.
 * @demosaic: demosaic.
 * @ccm: colour correction.
 * @tone: tone curve and transfer.
 * @lut3d: 3D LUT.
 * @sharpen: sharpening.
 * @csc: YCbCr conversion.
 * @crop: per-output crop, crop[n].output == n; CISP_BLOCK_BIT(CISP_BLOCK_CROP)
 *        in @enabled is unused, @crop_enabled says which outputs crop.
 * @crop_enabled: bit n set when output n has a crop.
 * @stats: statistics configuration.
 * @cnr: chroma denoise.
 * @highlights: clipped highlights.
 * @ltm: local tone mapping.
 */
struct cisp_param_state {
	uint32_t enabled;
	struct cisp_blc_params blc;
	struct cisp_dpc_params dpc;
	struct cisp_noise_params noise;
	struct cisp_bnr_params bnr;
	struct cisp_lsc_params lsc;
	struct cisp_wb_params wb;
	struct cisp_demosaic_params demosaic;
	struct cisp_ccm_params ccm;
	struct cisp_tone_params tone;
	struct cisp_lut3d_params lut3d;
	struct cisp_sharpen_params sharpen;
	struct cisp_csc_params csc;
	struct cisp_crop_params crop[CISP_MAX_OUTPUTS];
	uint32_t crop_enabled;
	struct cisp_stats_params stats;
	struct cisp_cnr_params cnr;
	struct cisp_highlights_params highlights;
	struct cisp_ltm_params ltm;
};

/**
 * struct cisp_vendor_block_caps - one vendor block an ISP instance accepts:
 * what its vendor stage declared (docs/vendor.md).
 * @vendor_id: the vendor.
 * @type: the vendor's block type.
 * @min_version: lowest payload version accepted.
 * @max_version: highest payload version accepted.
 * @max_payload: largest payload accepted, in bytes (at most
 *               CISP_VENDOR_MAX_PAYLOAD).
 */
struct cisp_vendor_block_caps {
	uint32_t vendor_id;
	uint16_t type;
	uint16_t min_version;
	uint16_t max_version;
	uint16_t reserved;
	uint32_t max_payload;
};

/**
 * struct cisp_params_limits - what a particular ISP instance accepts, for the
 * checks that depend on it (a crop inside the frame, a supported block).
 * @width: input frame width in pixels; 0 with @height 0 skips the checks
 *         against the frame.
 * @height: input frame height in rows.
 * @blocks: CISP_BLOCK_BIT() of every block type the instance implements
 *          (CISP_BLOCK_VENDOR when it has vendor stages).
 * @demosaic_algorithms: bit n set when enum cisp_demosaic_algorithm n is
 *                       available.
 * @vendor: the vendor blocks it accepts (@num_vendor entries); a vendor
 *          block not listed is refused.
 * @num_vendor: entries in @vendor.
 */
struct cisp_params_limits {
	uint32_t width;
	uint32_t height;
	uint32_t blocks;
	uint32_t demosaic_algorithms;
	const struct cisp_vendor_block_caps *vendor;
	uint32_t num_vendor;
};

/**
 * cisp_param_state_init() - set every block to its documented default.
 * @state: the state to initialise.
 */
CISP_API void cisp_param_state_init(struct cisp_param_state *state);

/**
 * cisp_block_name() - short lower-case name of a block type ("blc", "lsc").
 * @type: enum cisp_block_type.
 * Return: the name, or "unknown".
 */
CISP_API const char *cisp_block_name(unsigned type);

/**
 * cisp_block_type_from_name() - the block type of a short name.
 * @name: as returned by cisp_block_name().
 * Return: the type, or 0 if unknown.
 */
CISP_API unsigned cisp_block_type_from_name(const char *name);

/**
 * cisp_params_validate() - check a whole params buffer.
 * @buf: the buffer.
 * @size: its size in bytes.
 * @limits: the instance's limits, or NULL to check only what does not depend
 *          on the instance.
 *
 * Checks the header, the framing of every block (size, alignment, known
 * type, flags, no duplicates) and every field's range, in buffer order; the
 * first problem found is returned. @buf needs no particular alignment.
 *
 * Return: 0, or a negative errno with a message that names the block (index
 * from 0, type name and byte offset), the field and the reason
 * ("params block 2 (lsc) at offset 48: grid_w = 1 is out of range 2..64"):
 *  - -EMSGSIZE: a size problem: the buffer is shorter than the header;
 *    total_size differs from @size, is not a multiple of 8 or is over
 *    CISP_PARAMS_MAX_SIZE; a block's size is not a multiple of 8, is smaller
 *    than the block header, runs past the end, is not its structure's size,
 *    does not match its counts, or omits a payload that is required.
 *  - -EPROTO: the magic is not CISP_PARAMS_MAGIC.
 *  - -EPROTONOSUPPORT: the version is not CISP_PARAMS_VERSION.
 *  - -EINVAL: a bad value: a non-zero reserved field (header or block), an
 *    unknown block type, bad flags (unknown bits, ENABLE with DISABLE,
 *    DISABLE on a stage that always runs, any flag on NOISE), a duplicate
 *    block, a field out of its range (also against @limits: outside the
 *    frame).
 *  - -ENOTSUP: with @limits, a block type or demosaic algorithm the
 *    instance does not implement.
 *  - -ENOMEM: no memory for an aligned copy of an unaligned @buf.
 */
CISP_API int cisp_params_validate(const void *buf, size_t size, const struct cisp_params_limits *limits);

/**
 * cisp_param_state_apply() - validate a params buffer, then apply it.
 * @state: the state to update.
 * @buf: the buffer.
 * @size: its size.
 * @limits: as for cisp_params_validate().
 *
 * Return: 0, or the error of cisp_params_validate() with @state unchanged.
 */
CISP_API int cisp_param_state_apply(struct cisp_param_state *state, const void *buf, size_t size,
				    const struct cisp_params_limits *limits);

/**
 * cisp_params_encode() - write blocks of a state as a params buffer.
 * @state: the state.
 * @blocks: CISP_BLOCK_BIT() of the block types to write (each with ENABLE or
 *          DISABLE as in @state; variable-length blocks at their used size;
 *          CROP once per output). ~0u writes the whole state.
 * @buf: where to write, or NULL to only compute the size.
 * @capacity: bytes available at @buf.
 * @size: receives the size of the buffer.
 *
 * Bits of types that are not block types are ignored.
 *
 * Return: 0; -ENOSPC when @capacity is too small (@size still set); -EINVAL
 * when @state holds a value the ABI does not allow (the message names it;
 * the written buffer is checked with cisp_params_validate()).
 */
CISP_API int cisp_params_encode(const struct cisp_param_state *state, uint32_t blocks, void *buf,
				size_t capacity, size_t *size);

/**
 * cisp_param_state_copy() - validate blocks of one state, then copy them into
 * another: what applying cisp_params_encode(@src, @blocks) to @dst does,
 * without the buffer.
 * @dst: the state to update.
 * @src: the state to take the blocks from.
 * @blocks: CISP_BLOCK_BIT() of the block types to copy, each with its enabled
 *          state; ~0u copies the whole state. Bits of types that are not
 *          block types, and CISP_BLOCK_VENDOR (a state holds no vendor
 *          blocks), are ignored.
 * @limits: as for cisp_params_validate().
 *
 * Entries past the counts of a variable-length block become 0 in @dst.
 *
 * Return: 0, or -EINVAL/-EMSGSIZE/-ENOTSUP naming the block ("state block
 * lsc: ...") and field, with @dst unchanged.
 */
CISP_API int cisp_param_state_copy(struct cisp_param_state *dst, const struct cisp_param_state *src, uint32_t blocks,
				   const struct cisp_params_limits *limits);

/**
 * cisp_params_diff() - the block types whose value or enabled state differs.
 * @a: one state.
 * @b: the other.
 *
 * Variable-length blocks compare their used entries only. Applying
 * cisp_params_encode(@b, diff) to @a makes it equal to @b.
 *
 * Return: CISP_BLOCK_BIT() mask, ready for cisp_params_encode().
 */
CISP_API uint32_t cisp_params_diff(const struct cisp_param_state *a, const struct cisp_param_state *b);

/**
 * cisp_params_from_yaml() - encode the YAML form of a params buffer.
 * @text: the YAML document.
 * @length: its length in bytes.
 * @buf: receives a malloc()ed params buffer; free() it.
 * @size: receives its size.
 *
 * Return: 0, or -EINVAL with a message naming the line, the key and the
 * problem ("line 7: blc.white: 70000 is out of range 0..65535"), or -ENOMEM.
 * The result has been validated (without limits).
 */
CISP_API int cisp_params_from_yaml(const char *text, size_t length, void **buf, size_t *size);

/**
 * cisp_params_to_yaml() - decode a params buffer into its YAML form.
 * @buf: the buffer (validated first).
 * @size: its size.
 * @text: receives a malloc()ed NUL-terminated document; free() it.
 *
 * Return: 0, the validation error (without limits), or -ENOMEM.
 */
CISP_API int cisp_params_to_yaml(const void *buf, size_t size, char **text);

#ifdef __cplusplus
}
#endif

#endif /* CISP_PARAMS_STATE_H */
