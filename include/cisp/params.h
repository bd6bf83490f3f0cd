/* SPDX-License-Identifier: MIT */
/**
 * @file params.h
 * @brief The parameters buffer of the canonical ISP, ABI version 1.
 *
 * This header is the contract between whoever configures the ISP (3A
 * algorithms, a tuning tool, a kernel driver's user) and whoever implements
 * it (the software ISP here, a hardware ISP one day). It holds layouts only:
 * fixed-size little-endian integers, no pointers, no host-only types, no
 * implicit padding. docs/abi.md documents every field; docs/pipeline.md and
 * docs/stages/ define the arithmetic each block drives.
 *
 * A params buffer is a struct cisp_params_header followed by blocks. Each
 * block starts with a struct cisp_block_header and is a whole number of
 * 8-byte units long. The ISP keeps the state of every block per context: a
 * buffer carries only the blocks that change, in any order, each type at most
 * once (CISP_BLOCK_CROP once per output). The whole buffer is validated
 * before any of it is applied; a rejected buffer changes nothing.
 *
 * Block flags:
 *  - CISP_BLOCK_FL_ENABLE: apply the payload and enable the stage.
 *  - CISP_BLOCK_FL_DISABLE: disable the stage. The payload may be omitted
 *    (size 8: the stored values stay); if present it is checked and stored
 *    like any payload, without effect while the stage is disabled.
 *  - neither: apply the payload, keep the stage's enabled state.
 *  - both: invalid.
 * Only DISABLE may omit the payload, and not on CISP_BLOCK_CROP (its payload
 * names the output). Stages that always run (demosaic, CSC) refuse DISABLE;
 * CISP_BLOCK_NOISE is not a stage and takes no flags.
 *
 * A fixed-size block with a payload is exactly its structure's size.
 * Variable-length blocks (DPC, LSC, LUT3D) are shorter than their structure:
 * their size is exactly the header plus the entries their counts say,
 * rounded up to a multiple of 8, and the bytes after the last entry are 0.
 * Reserved fields, and array entries past a count (CISP_BLOCK_STATS @af),
 * must be 0.
 *
 * Fixed-point notation: Qm.n is an integer holding value * 2^n with m integer
 * bits. Pixel values in the Bayer and RGB domains are 16-bit codes where
 * 65535 is the white level after black-level correction ("16-bit units").
 */
#ifndef CISP_PARAMS_H
#define CISP_PARAMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** "CISP" read as a little-endian 32-bit integer. */
#define CISP_PARAMS_MAGIC 0x50534943u
/** The ABI version this header describes. */
#define CISP_PARAMS_VERSION 1
/** Largest params buffer accepted, in bytes. */
#define CISP_PARAMS_MAX_SIZE (1024u * 1024u)

/**
 * struct cisp_params_header - start of every params buffer (16 bytes).
 * @magic: CISP_PARAMS_MAGIC.
 * @version: CISP_PARAMS_VERSION.
 * @reserved0: 0.
 * @total_size: bytes of the whole buffer, this header included; a multiple
 *              of 8, at most CISP_PARAMS_MAX_SIZE.
 * @reserved1: 0.
 */
struct cisp_params_header {
	uint32_t magic;
	uint16_t version;
	uint16_t reserved0;
	uint32_t total_size;
	uint32_t reserved1;
};

/**
 * struct cisp_block_header - start of every block (8 bytes).
 * @type: enum cisp_block_type.
 * @flags: CISP_BLOCK_FL_* bits; the others must be 0.
 * @size: bytes of the block, this header included; a multiple of 8.
 */
struct cisp_block_header {
	uint16_t type;
	uint16_t flags;
	uint32_t size;
};

/** Disable the block's stage. */
#define CISP_BLOCK_FL_DISABLE (1u << 0)
/** Apply the payload and enable the stage. */
#define CISP_BLOCK_FL_ENABLE (1u << 1)

/** Block types, in the order the stages run (NOISE and STATS configure). */
enum cisp_block_type {
	CISP_BLOCK_BLC = 1,       /**< black level and white level, struct cisp_blc_params */
	CISP_BLOCK_DPC = 2,       /**< defective pixel correction, struct cisp_dpc_params */
	CISP_BLOCK_NOISE = 3,     /**< sensor noise profile, struct cisp_noise_params */
	CISP_BLOCK_BNR = 4,       /**< Bayer denoise, struct cisp_bnr_params */
	CISP_BLOCK_LSC = 5,       /**< lens shading correction, struct cisp_lsc_params */
	CISP_BLOCK_WB = 6,        /**< white-balance gains, struct cisp_wb_params */
	CISP_BLOCK_DEMOSAIC = 7,  /**< demosaic algorithm, struct cisp_demosaic_params */
	CISP_BLOCK_CCM = 8,       /**< colour correction matrix, struct cisp_ccm_params */
	CISP_BLOCK_TONE = 9,      /**< tone curve and transfer function, struct cisp_tone_params */
	CISP_BLOCK_LUT3D = 10,    /**< 3D LUT, struct cisp_lut3d_params */
	CISP_BLOCK_SHARPEN = 11,  /**< luma sharpening, struct cisp_sharpen_params */
	CISP_BLOCK_CSC = 12,      /**< RGB to YCbCr conversion, struct cisp_csc_params */
	CISP_BLOCK_CROP = 13,     /**< per-output crop, struct cisp_crop_params */
	CISP_BLOCK_STATS = 14,    /**< statistics configuration, struct cisp_stats_params */
	CISP_BLOCK_CNR = 15,      /**< chroma denoise, struct cisp_cnr_params */
	CISP_BLOCK_HIGHLIGHTS = 16, /**< clipped highlights, struct cisp_highlights_params */
	CISP_BLOCK_LTM = 17,        /**< local tone mapping, struct cisp_ltm_params */
	/**
	 * a vendor block, struct cisp_vendor_params: an opaque payload for a
	 * vendor stage. Not a canonical type: it takes the last bit of the
	 * 32-bit block masks, while canonical types grow from below.
	 */
	CISP_BLOCK_VENDOR = 31,
};

/** One past the highest canonical block type of this version. */
#define CISP_BLOCK_TYPE_COUNT 18

/* ------------------------------------------------------------------------ */

/**
 * struct cisp_blc_params - black level correction (CISP_BLOCK_BLC, 24 bytes).
 * @header: type CISP_BLOCK_BLC.
 * @black: black level per channel (R, Gr, Gb, B), in 16-bit input units: the
 *         input sample shifted left to 16 bits (a 10-bit black of 64 is
 *         4096). Range 0..65535.
 * @white: white (saturation) level in the same units. For every channel
 *         white - black[c] must be at least 16384.
 * @reserved: 0.
 *
 * out = clamp(((in - black[c]) * gain[c] + 8192) >> 14, 0, 65535) with
 * gain[c] = (65535 * 16384 + (white - black[c]) / 2) / (white - black[c]),
 * and out = 65535 for in >= white (saturated samples are exactly full scale).
 * Disabled: out = in. Default: enabled, black 0, white 65535 (identity).
 */
struct cisp_blc_params {
	struct cisp_block_header header;
	uint16_t black[4];
	uint16_t white;
	uint16_t reserved[3];
};

/** Largest static defect list. */
#define CISP_DPC_MAX_PIXELS 16384

/**
 * struct cisp_dpc_pixel - one static defect, in input pixel coordinates.
 * @x: column.
 * @y: row.
 */
struct cisp_dpc_pixel {
	uint16_t x;
	uint16_t y;
};

/**
 * struct cisp_dpc_params - defective pixel correction (CISP_BLOCK_DPC).
 * @header: type CISP_BLOCK_DPC; size 16 + 4 * @count rounded up to 8.
 * @threshold: dynamic detection threshold in 16-bit units: a pixel further
 *             than this above the largest (or below the smallest) of its 8
 *             same-colour neighbours is replaced. 0 turns dynamic detection
 *             off.
 * @count: entries in @pixels, 0..CISP_DPC_MAX_PIXELS.
 * @reserved: 0.
 * @pixels: static defects, always replaced; sorted by row then column, no
 *          duplicates, inside the input frame. @count entries used.
 *
 * Default: disabled, threshold 0, no static defects.
 */
struct cisp_dpc_params {
	struct cisp_block_header header;
	uint16_t threshold;
	uint16_t count;
	uint32_t reserved;
	struct cisp_dpc_pixel pixels[CISP_DPC_MAX_PIXELS];
};

/**
 * struct cisp_noise_params - the sensor's noise profile (CISP_BLOCK_NOISE,
 * 40 bytes). The variance of a pixel of channel c with mean signal s, both
 * in 16-bit units after black-level correction, is a[c] * s + b[c]. Denoise
 * stages derive their thresholds from it. This block has no enabled state;
 * its flags must be 0.
 * @header: type CISP_BLOCK_NOISE.
 * @a: shot-noise slope per channel (R, Gr, Gb, B), Q16.16 16-bit units,
 *     any value (0..65535.99998).
 * @b: read-noise variance per channel, in squared 16-bit units (integer),
 *     any value.
 *
 * Default: a = 4.0, b = 64 (a clean sensor at low gain).
 */
struct cisp_noise_params {
	struct cisp_block_header header;
	uint32_t a[4];
	uint32_t b[4];
};

/** Bayer denoise filters (struct cisp_bnr_params.mode). */
enum cisp_bnr_mode {
	/** edge-aware range filter of the 8 nearest same-colour samples, +-3 rows of support */
	CISP_BNR_FAST = 0,
	/**
	 * the mean of a patch-guided range filter and Walsh-Hadamard shrinkage
	 * of the half-resolution colour planes: about 0.5 dB more at mid noise,
	 * several times the cost, +-7 rows of support
	 */
	CISP_BNR_QUALITY = 1,
};

/**
 * struct cisp_bnr_params - Bayer-domain denoise (CISP_BLOCK_BNR, 16 bytes).
 * @header: type CISP_BLOCK_BNR.
 * @strength: Q8.8, 0..1024: the filter's noise scale as a multiple of the
 *            local noise standard deviation sigma from the noise profile
 *            (256 = 1.0 sigma). A same-colour neighbour's weight falls to 0
 *            where its difference to the centre reaches 6 scaled sigmas, or
 *            the difference of a luma guide 3 scaled sigmas
 *            (docs/stages/bnr.md). 0 leaves the plane unchanged.
 *            In CISP_BNR_QUALITY the same scale multiplies the noise
 *            standard deviation both of its filters assume.
 * @mode: enum cisp_bnr_mode, the filter.
 * @reserved: 0.
 *
 * Default: disabled, strength 224 (0.875: the best mean gain at mid noise
 * on the benchmark of docs/stages/cnr.md, with no image worse at low noise),
 * mode CISP_BNR_FAST.
 */
struct cisp_bnr_params {
	struct cisp_block_header header;
	uint16_t strength;
	uint16_t mode;
	uint16_t reserved[2];
};

/** Largest lens shading grid per dimension. */
#define CISP_LSC_MAX_GRID 64

/**
 * struct cisp_lsc_params - lens shading correction (CISP_BLOCK_LSC).
 * @header: type CISP_BLOCK_LSC; size 16 + 8 * @grid_w * @grid_h.
 * @grid_w: grid nodes across, 2..CISP_LSC_MAX_GRID.
 * @grid_h: grid nodes down, 2..CISP_LSC_MAX_GRID.
 * @reserved: 0.
 * @gain: per-channel gain grids, Q4.12 (4096 = 1.0), 0..65535:
 *        channel-major (R, Gr, Gb, B), then row-major; @grid_w * @grid_h
 *        entries per channel, packed (channel c starts at entry
 *        c * @grid_w * @grid_h).
 *        Node (i, j) sits at input pixel (i * (W-1) / (grid_w-1),
 *        j * (H-1) / (grid_h-1)); gains between nodes are bilinear.
 *
 * Default: disabled, a 2x2 grid of 1.0.
 */
struct cisp_lsc_params {
	struct cisp_block_header header;
	uint16_t grid_w;
	uint16_t grid_h;
	uint32_t reserved;
	uint16_t gain[4 * CISP_LSC_MAX_GRID * CISP_LSC_MAX_GRID];
};

/**
 * struct cisp_wb_params - white-balance gains (CISP_BLOCK_WB, 16 bytes).
 * @header: type CISP_BLOCK_WB.
 * @gain: per channel (R, Gr, Gb, B), Q4.12 (4096 = 1.0), 0..65535.
 *        out = min((in * gain[c] + 2048) >> 12, 65535).
 *
 * Default: enabled, all 1.0.
 */
struct cisp_wb_params {
	struct cisp_block_header header;
	uint16_t gain[4];
};

/** Demosaic algorithms. */
enum cisp_demosaic_algorithm {
	CISP_DEMOSAIC_FAST = 0,    /**< directional, 5x5 support */
	CISP_DEMOSAIC_QUALITY = 1, /**< edge-aware high quality */
};

/**
 * struct cisp_demosaic_params - demosaic (CISP_BLOCK_DEMOSAIC, 16 bytes).
 * The stage cannot be disabled.
 * @header: type CISP_BLOCK_DEMOSAIC.
 * @algorithm: enum cisp_demosaic_algorithm.
 * @false_colour: false-colour suppression strength, Q8.8, 0..256.
 * @reserved: 0.
 *
 * Default: fast, false-colour suppression 256.
 */
struct cisp_demosaic_params {
	struct cisp_block_header header;
	uint16_t algorithm;
	uint16_t false_colour;
	uint32_t reserved;
};

/**
 * struct cisp_ccm_params - colour correction matrix (CISP_BLOCK_CCM, 40 bytes).
 * @header: type CISP_BLOCK_CCM.
 * @coeff: 3x3 matrix, row-major, Q3.12 (4096 = 1.0), -32768..32767; for each
 *         row the sum of the absolute values must be at most 32767.
 * @reserved: 0.
 * @offset: added after the matrix, 16-bit units, -65535..65535.
 *
 * out[i] = clamp(((sum_j coeff[3i+j] * in[j] + 2048) >> 12) + offset[i],
 * 0, 65535), the shift arithmetic (rounding towards minus infinity).
 * Default: enabled, identity, no offset.
 */
struct cisp_ccm_params {
	struct cisp_block_header header;
	int16_t coeff[9];
	int16_t reserved;
	int32_t offset[3];
};

/** Transfer functions (opto-electronic, linear light to code). */
enum cisp_transfer {
	CISP_TRANSFER_LINEAR = 0, /**< identity */
	CISP_TRANSFER_SRGB = 1,   /**< IEC 61966-2-1 */
	CISP_TRANSFER_BT709 = 2,  /**< ITU-R BT.709 */
};

/** Nodes of the global tone curve. */
#define CISP_TONE_POINTS 257

/**
 * struct cisp_tone_params - global tone curve and transfer function
 * (CISP_BLOCK_TONE, 536 bytes).
 * @header: type CISP_BLOCK_TONE.
 * @transfer: enum cisp_transfer, applied after the curve.
 * @reserved0: 0.
 * @curve: tone curve in the linear domain, 16-bit units (0..65535): node i
 *         is the output for input i * 256 (node 256 stands for input
 *         65536); linear interpolation between nodes. The stage evaluates
 *         the curve then the transfer at 113 points eight to an octave and
 *         interpolates between those (docs/stages/tone.md).
 * @reserved1: 0.
 *
 * Disabled: out = in (linear output). Default: enabled, sRGB, identity curve.
 */
struct cisp_tone_params {
	struct cisp_block_header header;
	uint16_t transfer;
	uint16_t reserved0[3];
	uint16_t curve[CISP_TONE_POINTS];
	uint16_t reserved1[3];
};

/** Largest 3D LUT edge. */
#define CISP_LUT3D_MAX_SIZE 33

/**
 * struct cisp_lut3d_params - 3D lookup table (CISP_BLOCK_LUT3D).
 * @header: type CISP_BLOCK_LUT3D; size 16 + 6 * @size^3 rounded up to 8.
 * @size: nodes per edge, 2..CISP_LUT3D_MAX_SIZE.
 * @reserved: 0.
 * @table: output R, G, B (16-bit units) of node (r, g, b) at index
 *         (b * size + g) * size + r (red varies fastest); @size^3 entries
 *         used. Tetrahedral interpolation between nodes.
 * @pad: 0; rounds the full structure up to a multiple of 8 bytes.
 *
 * Default: disabled, 2x2x2 identity.
 */
struct cisp_lut3d_params {
	struct cisp_block_header header;
	uint16_t size;
	uint16_t reserved[3];
	uint16_t table[CISP_LUT3D_MAX_SIZE * CISP_LUT3D_MAX_SIZE * CISP_LUT3D_MAX_SIZE][3];
	uint16_t pad;
};

/**
 * struct cisp_sharpen_params - luma sharpening with noise coring
 * (CISP_BLOCK_SHARPEN, 16 bytes).
 * @header: type CISP_BLOCK_SHARPEN.
 * @strength: Q8.8, 0..2048: gain on the high-pass detail.
 * @coring: detail below this (16-bit units, 0..65535) is treated as noise
 *          and dropped.
 * @limit: largest change of a pixel, 16-bit units, 0..65535 (overshoot
 *         control).
 * @reserved: 0.
 *
 * Default: disabled, strength 256, coring 256, limit 4096.
 */
struct cisp_sharpen_params {
	struct cisp_block_header header;
	uint16_t strength;
	uint16_t coring;
	uint16_t limit;
	uint16_t reserved;
};

/** YCbCr matrices. */
enum cisp_csc_matrix {
	CISP_CSC_BT601 = 0,
	CISP_CSC_BT709 = 1,
	CISP_CSC_BT2020 = 2,
};

/** YCbCr quantisation ranges. */
enum cisp_csc_range {
	CISP_RANGE_LIMITED = 0, /**< Y 16..235, C 16..240 (8-bit) */
	CISP_RANGE_FULL = 1,    /**< 0..255 */
};

/**
 * struct cisp_csc_params - RGB to YCbCr (CISP_BLOCK_CSC, 16 bytes). Used by
 * YUV outputs; cannot be disabled.
 * @header: type CISP_BLOCK_CSC.
 * @matrix: enum cisp_csc_matrix.
 * @range: enum cisp_csc_range.
 * @reserved: 0.
 *
 * Default: BT.709, limited range.
 */
struct cisp_csc_params {
	struct cisp_block_header header;
	uint16_t matrix;
	uint16_t range;
	uint32_t reserved;
};

/** Outputs per frame: 0 is the main output, 1 the preview. */
#define CISP_MAX_OUTPUTS 2

/**
 * struct cisp_crop_params - the input rectangle an output shows
 * (CISP_BLOCK_CROP, 24 bytes); the output is scaled from it to the
 * output's configured size. May appear once per output in a buffer, and
 * always carries its payload (even with DISABLE).
 * @header: type CISP_BLOCK_CROP.
 * @output: 0 (main) or 1 (preview).
 * @reserved0: 0.
 * @x: left column, even.
 * @y: top row, even.
 * @width: columns, even, at least 2, @x + @width within the input.
 * @height: rows, even, at least 2, @y + @height within the input.
 * @reserved1: 0.
 *
 * Disabled: the whole input. Default: disabled, x 0, y 0, 16x16 (the
 * smallest frame; unused while disabled).
 */
struct cisp_crop_params {
	struct cisp_block_header header;
	uint16_t output;
	uint16_t reserved0;
	uint16_t x;
	uint16_t y;
	uint16_t width;
	uint16_t height;
	uint32_t reserved1;
};

/** Largest radius of the chroma denoise filter. */
#define CISP_CNR_MAX_RADIUS 8

/**
 * struct cisp_cnr_params - chroma denoise on YCbCr (CISP_BLOCK_CNR, 16 bytes).
 * Runs on the full-resolution Y, Cb, Cr planes after colour-space conversion,
 * before crop and scale; Y is not changed. Its thresholds follow from the
 * noise profile (CISP_BLOCK_NOISE) carried through the white-balance gains,
 * the colour correction matrix, the tone curve and the CSC matrix as
 * docs/stages/cnr.md defines; these fields scale them.
 * @header: type CISP_BLOCK_CNR.
 * @strength: Q8.8, 0..4096: the chroma threshold as a multiple of the chroma
 *            noise standard deviation derived from the profile (256 = 1.0).
 *            0 leaves the planes unchanged.
 * @luma_strength: Q8.8, 1..4096: the luma edge threshold as a multiple of the
 *                 derived luma noise standard deviation; chroma is not
 *                 averaged across luma steps larger than this.
 * @radius: 1..CISP_CNR_MAX_RADIUS: taps on each side of the horizontal pass
 *          and of the vertical pass.
 * @reserved: 0.
 *
 * Default: disabled, strength 768, luma_strength 3072, radius 4 (tuned with
 * BNR's default on the benchmark of docs/stages/cnr.md).
 */
struct cisp_cnr_params {
	struct cisp_block_header header;
	uint16_t strength;
	uint16_t luma_strength;
	uint16_t radius;
	uint16_t reserved;
};

/** Highlight modes (docs/stages/highlights.md). */
enum cisp_highlights_mode {
	CISP_HIGHLIGHTS_CLIP = 0,        /**< near the clip point, towards white */
	CISP_HIGHLIGHTS_BLEND = 1,       /**< near the clip point, towards the neutral of the same brightness */
	CISP_HIGHLIGHTS_RECONSTRUCT = 2, /**< near the clip point, towards the colour of the unclipped neighbours */
};

/**
 * struct cisp_highlights_params - clipped highlights, after white balance
 * (CISP_BLOCK_HIGHLIGHTS, 16 bytes).
 * @header: type CISP_BLOCK_HIGHLIGHTS.
 * @mode: enum cisp_highlights_mode.
 * @white: the level at which the sensor clips, in the units of the black
 *         level's output (65535: the white level of BLC), 1024..65535. Each
 *         colour clips at this level times its white-balance gain.
 * @knee: where the roll-off starts, as a fraction of each colour's clip level, Q4.12,
 *        2048..4032 (0.5 to 0.984).
 * @reserved: 0.
 *
 * Default: disabled, clip, white 65535, knee 3686 (0.9).
 */
struct cisp_highlights_params {
	struct cisp_block_header header;
	uint16_t mode;
	uint16_t white;
	uint16_t knee;
	uint16_t reserved;
};

/** Largest local tone mapping grid per dimension (the statistics' largest zone grid). */
#define CISP_LTM_MAX_GRID 32

/**
 * struct cisp_ltm_params - local tone mapping, on linear RGB after the
 * colour matrix (CISP_BLOCK_LTM; docs/stages/ltm.md).
 * @header: type CISP_BLOCK_LTM; size 16 + 4 * @grid_w * @grid_h.
 * @grid_w: grid nodes across, 2..CISP_LTM_MAX_GRID. Node (i, j) stands for
 *          the region around pixel ((i + 1/2) W / grid_w, (j + 1/2) H /
 *          grid_h): the centre of statistics zone (i, j) when the grids match.
 * @grid_h: grid nodes down, 2..CISP_LTM_MAX_GRID.
 * @range: how far in brightness a pixel still takes a node's gain, in
 *         1/256 stop, 64..1024 (a quarter stop to four stops): a node's
 *         weight falls linearly from full at the node's level to 0 at
 *         @range away from it.
 * @reserved: 0.
 * @node: @grid_w * @grid_h levels then as many gains, each row-major
 *        (the gains start at entry @grid_w * @grid_h). A level is the
 *        region's luminance as log2 of the 16-bit value in 1/256 stop,
 *        0..4095 (docs/stages/ltm.md, "Levels"); a gain is what the
 *        region is multiplied by, Q8.8 (256 = 1.0), 16..4095.
 *
 * Default: disabled, a 2x2 grid of level 0 and gain 1.0, range 384.
 */
struct cisp_ltm_params {
	struct cisp_block_header header;
	uint16_t grid_w;
	uint16_t grid_h;
	uint16_t range;
	uint16_t reserved;
	uint16_t node[2 * CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID];
};

/** Largest AE/AWB zone grid per dimension. */
#define CISP_STATS_MAX_ZONES 32
/** Most AF windows. */
#define CISP_STATS_MAX_AF 8
/** Most flicker row means. */
#define CISP_STATS_MAX_ROWS 4096

/**
 * struct cisp_stats_window - a rectangle in input pixels; the statistics use
 * the 2x2 cells lying wholly inside it.
 * @x: left column.
 * @y: top row.
 * @width: columns.
 * @height: rows.
 */
struct cisp_stats_window {
	uint16_t x;
	uint16_t y;
	uint16_t width;
	uint16_t height;
};

/**
 * struct cisp_stats_params - statistics configuration (CISP_BLOCK_STATS,
 * 88 bytes). Disabled: no statistics are written.
 * @header: type CISP_BLOCK_STATS.
 * @zones_x: AE/AWB zone columns, 1..CISP_STATS_MAX_ZONES (with more zones
 *           than the frame's width / 2 cell columns, some zones are empty).
 * @zones_y: zone rows, 1..CISP_STATS_MAX_ZONES.
 * @saturation: 2x2 cells with any sample at or above this (16-bit units,
 *              0..65535) are left out of the zone means.
 * @af_count: AF windows in use, 0..CISP_STATS_MAX_AF.
 * @af: AF windows, inside the input frame, each at least 8x8; the
 *      @af_count first are used, the others must be 0.
 * @row_group: cell rows (2 input rows each) averaged per flicker row mean;
 *             0 picks the smallest group that fits CISP_STATS_MAX_ROWS,
 *             smaller values are raised to it and larger ones than the
 *             frame's cell rows lowered to those.
 * @reserved: 0.
 *
 * Default: enabled, 16x12 zones, saturation 65000, no AF window, automatic
 * row group.
 */
struct cisp_stats_params {
	struct cisp_block_header header;
	uint16_t zones_x;
	uint16_t zones_y;
	uint16_t saturation;
	uint16_t af_count;
	struct cisp_stats_window af[CISP_STATS_MAX_AF];
	uint16_t row_group;
	uint16_t reserved[3];
};

/** Largest payload of one vendor block, in bytes. */
#define CISP_VENDOR_MAX_PAYLOAD 65536
/** Most vendor blocks in one params buffer. */
#define CISP_VENDOR_MAX_BLOCKS 16

/**
 * struct cisp_vendor_params - a vendor block (CISP_BLOCK_VENDOR): an opaque
 * payload for the vendor stage that registered @vendor_id and @type
 * (docs/vendor.md). The ISP checks the framing only and never reads the
 * payload. A buffer may carry several vendor blocks, each (@vendor_id,
 * @type) at most once, CISP_VENDOR_MAX_BLOCKS in all.
 * @header: type CISP_BLOCK_VENDOR; size 24 + @payload_size rounded up to 8.
 *          Always carries the fields up to @reserved (they name the block),
 *          also with DISABLE.
 * @vendor_id: the vendor, 1..0xffffffff.
 * @type: the vendor's block type, 1..65535.
 * @version: the version of the payload's layout, 1..65535.
 * @payload_size: bytes of @payload in use, 0..CISP_VENDOR_MAX_PAYLOAD.
 * @reserved: 0.
 * @payload: @payload_size opaque bytes; the bytes after them, up to the
 *           block's size, are 0.
 *
 * Flags work as for a canonical stage: ENABLE enables the vendor block,
 * DISABLE disables it, neither keeps its state; the payload is stored per
 * (@vendor_id, @type). Default: disabled, empty payload.
 */
struct cisp_vendor_params {
	struct cisp_block_header header;
	uint32_t vendor_id;
	uint16_t type;
	uint16_t version;
	uint32_t payload_size;
	uint32_t reserved;
	uint8_t payload[CISP_VENDOR_MAX_PAYLOAD];
};

#ifdef __cplusplus
}
#endif

#endif /* CISP_PARAMS_H */
