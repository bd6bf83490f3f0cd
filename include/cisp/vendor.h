/* SPDX-License-Identifier: MIT */
/**
 * @file vendor.h
 * @brief Vendor stages: undocumented ISP features passed through without
 * trusting them (docs/vendor.md).
 *
 * Two halves:
 *
 *  - The **plugin ABI**, for vendors: a shared object exports one
 *    `const struct cisp_vendor_plugin cisp_vendor_plugin` that declares its
 *    vendor id, the tap point it runs at and the vendor blocks it
 *    implements, and gives three functions (create, process, destroy). A
 *    plugin sees only its own stage's buffers: one input and one output
 *    image of the frame at its tap point, and the payloads of its blocks.
 *
 *  - The **host API**, for applications: a struct cisp_vendor_host holds the
 *    loaded plugins; an ISP configured with it (struct cisp_isp_config
 *    @vendor) runs each plugin at its tap point and accepts its vendor
 *    blocks (params.h, CISP_BLOCK_VENDOR) in params buffers.
 *
 * By default a plugin runs in a helper process, without privileges, that
 * dies with the calling process: its buffers are shared through memfds, a
 * seccomp filter allows only the system calls a stage needs (no writing
 * files, no sockets, no processes, no shared memory), and each job has a
 * time limit on the caller's clock. A crash, hang, write outside its output,
 * forbidden system call or bad reply fails that job with a message; the
 * helper is restarted for the next job and other jobs and instances carry
 * on (docs/security.md). A plugin marked trusted is loaded into the calling
 * process instead and runs without those costs and without that protection.
 */
#ifndef CISP_VENDOR_H
#define CISP_VENDOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/params.h>
#include <cisp/params_state.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* The plugin ABI                                                           */
/* ------------------------------------------------------------------------ */

/** The plugin ABI version this header describes. */
#define CISP_VENDOR_PLUGIN_ABI 1
/** Name of the symbol a plugin exports (a struct cisp_vendor_plugin). */
#define CISP_VENDOR_PLUGIN_SYMBOL "cisp_vendor_plugin"
/** Most vendor blocks one plugin implements. */
#define CISP_VENDOR_MAX_STAGE_BLOCKS 8
/** Size of the name fields, with their NUL. */
#define CISP_VENDOR_NAME_MAX 32
/** Size of the error message a plugin may write, with its NUL. */
#define CISP_VENDOR_MESSAGE_MAX 160

/**
 * enum cisp_vendor_tap - where a vendor stage runs in the pipeline
 * (docs/pipeline.md). Samples are 16-bit at every tap.
 */
enum cisp_vendor_tap {
	/**
	 * Bayer domain, after defective pixel correction and before Bayer
	 * denoise: one plane, the CFA mosaic at the input size, black level
	 * removed and scaled so that 65535 is the white level.
	 */
	CISP_VENDOR_TAP_BAYER = 0,
	/**
	 * RGB domain, after the 3D LUT and before sharpening: R, G, B planes at
	 * the input size, encoded by the tone block's transfer function.
	 */
	CISP_VENDOR_TAP_RGB = 1,
	/**
	 * YUV domain, after colour-space conversion and chroma denoise, before
	 * crop and scale: Y, Cb, Cr planes at the input size, each 257 times the
	 * 8-bit code (Cb = Cr = 32896 is grey; Y in the CSC block's range). Runs
	 * only when an output is YUV.
	 */
	CISP_VENDOR_TAP_YUV = 2,
};

/** Number of tap points. */
#define CISP_VENDOR_TAP_COUNT 3

/**
 * struct cisp_vendor_block_decl - one vendor block a plugin implements.
 * @type: the vendor's block type, 1..65535, unique within the plugin.
 * @min_version: lowest payload version it reads, >= 1.
 * @max_version: highest payload version it reads, >= @min_version.
 * @reserved: 0.
 * @max_payload: largest payload it accepts, 0..CISP_VENDOR_MAX_PAYLOAD
 *               bytes; the ISP refuses larger ones before they reach it.
 * @name: a short name for listings ("effect"), NUL-terminated.
 */
struct cisp_vendor_block_decl {
	uint16_t type;
	uint16_t min_version;
	uint16_t max_version;
	uint16_t reserved;
	uint32_t max_payload;
	char name[CISP_VENDOR_NAME_MAX];
};

/**
 * struct cisp_vendor_stream - what a stage instance is created for.
 * @width: frame width in pixels (even, >= 16).
 * @height: frame height in rows (even, >= 16).
 * @cfa: CFA order of the mosaic (enum cisp_cfa of format.h), for the Bayer
 *       tap.
 * @tap: the plugin's enum cisp_vendor_tap.
 */
struct cisp_vendor_stream {
	uint32_t width;
	uint32_t height;
	uint32_t cfa;
	uint32_t tap;
};

/**
 * struct cisp_vendor_image - an image at a tap point.
 * @width: pixels.
 * @height: rows.
 * @num_planes: 1 (Bayer) or 3 (R, G, B or Y, Cb, Cr).
 * @stride: samples from the start of one row to the next.
 * @plane: the planes; @height rows of @stride samples each, of which
 *         @width are the image.
 */
struct cisp_vendor_image {
	uint32_t width;
	uint32_t height;
	uint32_t num_planes;
	uint32_t stride;
	uint16_t *plane[3];
};

/**
 * struct cisp_vendor_block_value - the current state of one declared block.
 * @type: the block type (as declared).
 * @version: the version of the payload (0 while none was received).
 * @enabled: 1 when the last block received enabled it, 0 otherwise.
 * @size: bytes at @payload (at most the declared maximum).
 * @payload: the opaque payload, exactly as the params buffer carried it.
 */
struct cisp_vendor_block_value {
	uint16_t type;
	uint16_t version;
	uint32_t enabled;
	uint32_t size;
	const void *payload;
};

/**
 * struct cisp_vendor_frame - one job for a stage.
 * @sequence: frames this instance processed before (0, 1, 2, ...).
 * @in: the frame at the tap point. Read only (in a helper it is mapped
 *      read-only: writing faults).
 * @out: where the result goes, same size and planes as @in; every sample of
 *       it must be written. Nothing past its last plane's last sample is
 *       mapped in a helper: writing past it faults.
 * @num_blocks: entries in @blocks.
 * @blocks: the plugin's declared blocks, in declaration order.
 * @message: where process() may write a NUL-terminated error message.
 * @message_size: bytes at @message (CISP_VENDOR_MESSAGE_MAX).
 */
struct cisp_vendor_frame {
	uint64_t sequence;
	struct cisp_vendor_image in;
	struct cisp_vendor_image out;
	uint32_t num_blocks;
	const struct cisp_vendor_block_value *blocks;
	char *message;
	size_t message_size;
};

/**
 * struct cisp_vendor_plugin - what a plugin exports under the name
 * CISP_VENDOR_PLUGIN_SYMBOL. Every field is checked when it is loaded.
 * @abi_version: CISP_VENDOR_PLUGIN_ABI.
 * @vendor_id: the vendor, 1..0xffffffff (docs/vendor.md lists the ids in
 *             use).
 * @name: the stage's name ("acme-colour-effects"), NUL-terminated,
 *        printable ASCII.
 * @vendor_name: the vendor's name, NUL-terminated, printable ASCII.
 * @tap: enum cisp_vendor_tap.
 * @num_blocks: 1..CISP_VENDOR_MAX_STAGE_BLOCKS.
 * @blocks: the vendor blocks it implements; the stage runs on a frame when
 *          at least one of them is enabled.
 * @create: make an instance for a stream; 0 or a negative errno. May be
 *          NULL (the state is then NULL).
 * @destroy: free an instance; may be NULL.
 * @process: process one frame; 0, or a negative errno and a message in
 *           @frame->message.
 */
struct cisp_vendor_plugin {
	uint32_t abi_version;
	uint32_t vendor_id;
	char name[CISP_VENDOR_NAME_MAX];
	char vendor_name[CISP_VENDOR_NAME_MAX];
	uint32_t tap;
	uint32_t num_blocks;
	struct cisp_vendor_block_decl blocks[CISP_VENDOR_MAX_STAGE_BLOCKS];
	int (*create)(void **state, const struct cisp_vendor_stream *stream);
	void (*destroy)(void *state);
	int (*process)(void *state, const struct cisp_vendor_frame *frame);
};

/* ------------------------------------------------------------------------ */
/* The host API                                                             */
/* ------------------------------------------------------------------------ */

/** Per-job time limit of a sandboxed stage when none is configured. */
#define CISP_VENDOR_DEFAULT_TIME_LIMIT_MS 1000

/** An opaque set of loaded vendor stages. */
struct cisp_vendor_host;

/**
 * struct cisp_vendor_host_config - how a host runs its plugins.
 * @helper_path: the helper program that runs sandboxed plugins; NULL:
 *               $CISP_VENDOR_HELPER, else the installed one.
 */
struct cisp_vendor_host_config {
	const char *helper_path;
};

/**
 * struct cisp_vendor_stage_config - one plugin to load.
 * @path: the shared object.
 * @trusted: run it in-process, unprotected (only for code you would link
 *           into your program); false: in a sandboxed helper.
 * @time_limit_ms: sandboxed: the most one job may take before the helper is
 *                 killed (0: CISP_VENDOR_DEFAULT_TIME_LIMIT_MS).
 */
struct cisp_vendor_stage_config {
	const char *path;
	bool trusted;
	uint32_t time_limit_ms;
};

/**
 * struct cisp_vendor_stage_info - a loaded stage, as cisp_vendor_host_stage()
 * reports it.
 * @name: the plugin's name.
 * @vendor_name: the vendor's name.
 * @vendor_id: the vendor id.
 * @tap: enum cisp_vendor_tap.
 * @trusted: runs in-process.
 * @time_limit_ms: the per-job limit (sandboxed).
 * @path: the shared object it was loaded from.
 * @num_blocks: entries in @blocks.
 * @blocks: the blocks it implements.
 */
struct cisp_vendor_stage_info {
	const char *name;
	const char *vendor_name;
	uint32_t vendor_id;
	uint32_t tap;
	bool trusted;
	uint32_t time_limit_ms;
	const char *path;
	uint32_t num_blocks;
	const struct cisp_vendor_block_decl *blocks;
};

/**
 * cisp_vendor_host_create() - make an empty host.
 * @host: receives it.
 * @config: its configuration, or NULL for the defaults.
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_vendor_host_create(struct cisp_vendor_host **host, const struct cisp_vendor_host_config *config);

/**
 * cisp_vendor_host_destroy() - free a host. ISP instances using it must be
 * destroyed first.
 * @host: the host (may be NULL).
 */
CISP_API void cisp_vendor_host_destroy(struct cisp_vendor_host *host);

/**
 * cisp_vendor_host_add() - load a plugin and check its declaration.
 * @host: the host; no ISP instance may use it yet.
 * @config: which plugin and how to run it.
 *
 * A sandboxed plugin is loaded in a helper process, which reports its
 * declaration; the calling process never maps its code.
 *
 * Return: 0; -ENOENT when the file or the helper is missing; -ENOEXEC when
 * it does not load or lacks the symbol; -EPROTONOSUPPORT for another plugin
 * ABI version; -EINVAL for a bad declaration (the message names the field);
 * -EEXIST when a loaded stage already declares one of its blocks; the
 * errors of a failing helper (see docs/vendor.md); -ENOMEM.
 */
CISP_API int cisp_vendor_host_add(struct cisp_vendor_host *host, const struct cisp_vendor_stage_config *config);

/**
 * cisp_vendor_host_stages() - number of loaded stages.
 * @host: the host.
 * Return: the count.
 */
CISP_API unsigned cisp_vendor_host_stages(const struct cisp_vendor_host *host);

/**
 * cisp_vendor_host_stage() - describe a loaded stage.
 * @host: the host.
 * @index: 0..cisp_vendor_host_stages() - 1.
 * @info: receives the description (valid while the host lives).
 * Return: 0, or -EINVAL for a bad index.
 */
CISP_API int cisp_vendor_host_stage(const struct cisp_vendor_host *host, unsigned index,
				    struct cisp_vendor_stage_info *info);

/**
 * cisp_vendor_host_caps() - the vendor blocks of every loaded stage, in the
 * form struct cisp_params_limits takes.
 * @host: the host.
 * @count: receives the number of entries.
 * Return: the entries (valid while the host lives and loads nothing more).
 */
CISP_API const struct cisp_vendor_block_caps *cisp_vendor_host_caps(const struct cisp_vendor_host *host,
								    uint32_t *count);

/**
 * cisp_vendor_tap_name() - "bayer", "rgb" or "yuv".
 * @tap: enum cisp_vendor_tap.
 * Return: the name, or "unknown".
 */
CISP_API const char *cisp_vendor_tap_name(unsigned tap);

#ifdef __cplusplus
}
#endif

#endif /* CISP_VENDOR_H */
