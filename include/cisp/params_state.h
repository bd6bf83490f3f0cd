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

#include <cisp/params.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bit of a block type in a mask of block types. */
#define CISP_BLOCK_BIT(type) (1u << (type))

/**
 * struct cisp_param_state - the full parameter state of one ISP context.
 * The header of each block records its type and the size of a full block.
 * @enabled: CISP_BLOCK_BIT() of every enabled stage.
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
 * @crop: per-output crop; CISP_BLOCK_BIT(CISP_BLOCK_CROP) in @enabled is
 *        unused, @crop_enabled says which outputs crop.
 * @crop_enabled: bit n set when output n has a crop.
 * @stats: statistics configuration.
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
};

/**
 * struct cisp_params_limits - what a particular ISP instance accepts, for the
 * checks that depend on it (a crop inside the frame, a supported block).
 * @width: input frame width in pixels.
 * @height: input frame height in rows.
 * @blocks: CISP_BLOCK_BIT() of every block type the instance implements.
 * @demosaic_algorithms: bit n set when enum cisp_demosaic_algorithm n is
 *                       available.
 */
struct cisp_params_limits {
	uint32_t width;
	uint32_t height;
	uint32_t blocks;
	uint32_t demosaic_algorithms;
};

/**
 * cisp_param_state_init() - set every block to its documented default.
 * @state: the state to initialise.
 */
void cisp_param_state_init(struct cisp_param_state *state);

/**
 * cisp_block_name() - short lower-case name of a block type ("blc", "lsc").
 * @type: enum cisp_block_type.
 * Return: the name, or "unknown".
 */
const char *cisp_block_name(unsigned type);

/**
 * cisp_block_type_from_name() - the block type of a short name.
 * @name: as returned by cisp_block_name().
 * Return: the type, or 0 if unknown.
 */
unsigned cisp_block_type_from_name(const char *name);

/**
 * cisp_params_validate() - check a whole params buffer.
 * @buf: the buffer.
 * @size: its size in bytes.
 * @limits: the instance's limits, or NULL to check only what does not depend
 *          on the instance.
 *
 * Checks the header, the framing of every block (size, alignment, known
 * type, flags, no duplicates) and every field's range.
 *
 * Return: 0, or a negative errno with a message that names the block (index,
 * type and byte offset), the field and the reason: -EINVAL for a bad value,
 * -EMSGSIZE for a size problem, -ENOTSUP for an unsupported block or
 * algorithm, -EPROTO for a bad magic or version.
 */
int cisp_params_validate(const void *buf, size_t size, const struct cisp_params_limits *limits);

/**
 * cisp_param_state_apply() - validate a params buffer, then apply it.
 * @state: the state to update.
 * @buf: the buffer.
 * @size: its size.
 * @limits: as for cisp_params_validate().
 *
 * Return: 0, or the error of cisp_params_validate() with @state unchanged.
 */
int cisp_param_state_apply(struct cisp_param_state *state, const void *buf, size_t size,
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
 * Return: 0, or -ENOSPC when @capacity is too small (@size still set).
 */
int cisp_params_encode(const struct cisp_param_state *state, uint32_t blocks, void *buf,
		       size_t capacity, size_t *size);

/**
 * cisp_params_diff() - the block types whose value or enabled state differs.
 * @a: one state.
 * @b: the other.
 * Return: CISP_BLOCK_BIT() mask, ready for cisp_params_encode().
 */
uint32_t cisp_params_diff(const struct cisp_param_state *a, const struct cisp_param_state *b);

/**
 * cisp_params_from_yaml() - encode the YAML form of a params buffer.
 * @text: the YAML document.
 * @length: its length in bytes.
 * @buf: receives a malloc()ed params buffer; free() it.
 * @size: receives its size.
 *
 * Return: 0, or -EINVAL with a message naming the line, the key and the
 * problem. The result has been validated (without limits).
 */
int cisp_params_from_yaml(const char *text, size_t length, void **buf, size_t *size);

/**
 * cisp_params_to_yaml() - decode a params buffer into its YAML form.
 * @buf: the buffer (validated first).
 * @size: its size.
 * @text: receives a malloc()ed NUL-terminated document; free() it.
 *
 * Return: 0 or the validation error.
 */
int cisp_params_to_yaml(const void *buf, size_t size, char **text);

#ifdef __cplusplus
}
#endif

#endif /* CISP_PARAMS_STATE_H */
