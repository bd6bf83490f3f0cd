/* SPDX-License-Identifier: MIT */
/**
 * @file isp.h
 * @brief The canonical ISP pipeline: one configured instance that turns raw
 * Bayer frames into up to two processed outputs and a statistics buffer.
 *
 * An instance holds a configuration (input format and size, output formats
 * and sizes) and a parameter state (params_state.h) that params buffers
 * update. cisp_isp_process() runs every stage of docs/pipeline.md on one
 * frame. The output is a deterministic function of the input, the
 * configuration and the state: the same bits on every machine, CPU feature
 * level and thread count.
 */
#ifndef CISP_ISP_H
#define CISP_ISP_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/params.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque ISP instance. */
struct cisp_isp;

/**
 * struct cisp_output_config - one output of the ISP.
 * @format: CISP_FMT_NV12, CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_RGB48 or CISP_FMT_XBGR32;
 *          0 leaves the output unused.
 * @width: output width; even for YUV formats.
 * @height: output height; even for YUV formats.
 */
struct cisp_output_config {
	uint32_t format;
	uint32_t width;
	uint32_t height;
};

struct cisp_vendor_host;

/**
 * struct cisp_isp_config - the fixed configuration of an instance.
 * @input_format: a Bayer CISP_FMT_*.
 * @width: input width, even, 16..CISP_MAX_DIMENSION.
 * @height: input height, even, 16..CISP_MAX_DIMENSION.
 * @output: output 0 (main, required) and 1 (preview, optional).
 * @vendor: vendor stages to run at their tap points (vendor.h), or NULL;
 *          the host must outlive the instance.
 */
struct cisp_isp_config {
	uint32_t input_format;
	uint32_t width;
	uint32_t height;
	struct cisp_output_config output[CISP_MAX_OUTPUTS];
	struct cisp_vendor_host *vendor;
};

/**
 * cisp_isp_check_config() - check a configuration as cisp_isp_create()
 * does, without making anything.
 * @config: the configuration.
 *
 * Return: 0, or -EINVAL with the message cisp_isp_create() would give.
 */
CISP_API int cisp_isp_check_config(const struct cisp_isp_config *config);

/**
 * cisp_isp_create() - make an instance with the default parameter state.
 * @isp: receives the instance.
 * @config: its configuration.
 *
 * Return: 0, -EINVAL with a message for a bad configuration, -ENOMEM.
 */
CISP_API int cisp_isp_create(struct cisp_isp **isp, const struct cisp_isp_config *config);

/**
 * cisp_isp_destroy() - free an instance.
 * @isp: the instance (may be NULL).
 */
CISP_API void cisp_isp_destroy(struct cisp_isp *isp);

/**
 * cisp_isp_limits() - what this instance accepts in params buffers.
 * @isp: the instance.
 * @limits: receives the frame size, supported blocks and algorithms.
 */
CISP_API void cisp_isp_limits(const struct cisp_isp *isp, struct cisp_params_limits *limits);

/**
 * cisp_isp_set_params() - validate a params buffer against this instance and
 * apply it to its state.
 * @isp: the instance.
 * @buf: the params buffer.
 * @size: its size.
 *
 * Return: 0, or the validation error (see cisp_params_validate()) with the
 * state unchanged.
 */
CISP_API int cisp_isp_set_params(struct cisp_isp *isp, const void *buf, size_t size);

/**
 * cisp_isp_set_state() - apply blocks of a parameter state: validate them
 * and copy them into the instance's state (cisp_param_state_copy() with the
 * instance's limits), as cisp_isp_set_params() would apply them encoded.
 * @isp: the instance.
 * @state: the state to take the blocks from.
 * @blocks: CISP_BLOCK_BIT() mask of the blocks to apply; ~0u for all.
 *
 * Return: 0, or the validation error (see cisp_param_state_copy()) with the
 * instance's state unchanged.
 */
CISP_API int cisp_isp_set_state(struct cisp_isp *isp, const struct cisp_param_state *state, uint32_t blocks);

/**
 * cisp_isp_params() - the instance's current parameter state.
 * @isp: the instance.
 * Return: the state, valid until the next cisp_isp_set_params().
 */
CISP_API const struct cisp_param_state *cisp_isp_params(const struct cisp_isp *isp);

/**
 * cisp_isp_process() - run the pipeline on one frame.
 * @isp: the instance.
 * @input: the raw frame, in the configured input format and size.
 * @output: one image per configured output, in its format and size (entries
 *          of unused outputs are ignored and may be NULL).
 * @stats: receives the statistics, or NULL.
 * @pool: worker pool to run on, or NULL for the calling thread only.
 *
 * Return: 0, -EINVAL when an image does not match the configuration, or
 * the error of a vendor stage (docs/vendor.md).
 */
CISP_API int cisp_isp_process(struct cisp_isp *isp, const struct cisp_image *input,
			      struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			      struct cisp_pool *pool);

/** Most frames cisp_isp_process_bracket() merges. */
#define CISP_BRACKET_MAX_FRAMES 8
/** Largest ratio of the longest to the shortest exposure of a bracket. */
#define CISP_BRACKET_MAX_RATIO 256

/**
 * cisp_isp_process_bracket() - merge an exposure bracket into one
 * high-dynamic-range linear frame and run the rest of the pipeline on it.
 * @isp: the instance.
 * @input: @count raw frames of one scene, in the configured format and size.
 * @exposure: each frame's relative exposure (exposure time times gain, any
 *            unit, > 0); the longest at most CISP_BRACKET_MAX_RATIO times
 *            the shortest.
 * @count: 1..CISP_BRACKET_MAX_FRAMES (1 is cisp_isp_process()).
 * @output: as for cisp_isp_process().
 * @stats: receives the statistics of the merged frame, or NULL.
 * @pool: worker pool, or NULL.
 *
 * Each frame goes through unpack and black level; the frames are then merged
 * (docs/stages/merge.md) into one frame at the scale of the shortest
 * exposure, where the longer exposures supply the samples they hold below
 * saturation; defective pixels, denoise, lens shading, statistics and every
 * later stage run once, on the merged frame. The tone curve and local tone
 * mapping of the state map its range to the output.
 *
 * Return: 0, or -EINVAL with a message for a bad image, exposure or count.
 */
CISP_API int cisp_isp_process_bracket(struct cisp_isp *isp, const struct cisp_image *const input[],
				      const uint32_t exposure[], unsigned count,
				      struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
				      struct cisp_pool *pool);

/**
 * cisp_isp_statistics() - compute a frame's statistics without producing
 * outputs: the Bayer stages up to the statistics tap, then the statistics,
 * exactly as cisp_isp_process() would compute them.
 * @isp: the instance (its state is not changed).
 * @input: the raw frame.
 * @config: the statistics configuration to use (checked as in a params
 *          buffer; its header is ignored), or NULL for the state's;
 *          statistics are computed even when the state disables them.
 * @stats: receives the statistics.
 * @pool: worker pool, or NULL.
 *
 * Used to score frames, such as the sharpness of each frame of a burst.
 *
 * Return: 0, or -EINVAL with a message for a bad image or configuration.
 */
CISP_API int cisp_isp_statistics(struct cisp_isp *isp, const struct cisp_image *input,
				 const struct cisp_stats_params *config,
				 struct cisp_stats *stats, struct cisp_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* CISP_ISP_H */
