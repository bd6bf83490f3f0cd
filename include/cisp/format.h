/* SPDX-License-Identifier: MIT */
/**
 * @file format.h
 * @brief Pixel formats, identified by their V4L2 fourcc codes.
 *
 * A format is a 32-bit fourcc with the same value as the V4L2 pixel format of
 * the same layout (V4L2_PIX_FMT_SRGGB10P is 'pRAA', so is CISP_FMT_SRGGB10P).
 * Names are the V4L2 names without the V4L2_PIX_FMT_ prefix ("SRGGB10P",
 * "SGRBG12", "NV12"); they are what the command line takes.
 *
 * Bayer formats at 10 to 16 bits that are not packed store one sample per
 * 16-bit little-endian container, right-aligned (a 10-bit sample is 0..1023).
 * The packed formats follow MIPI CSI-2: RAW10 packs 4 samples in 5 bytes (the
 * 8 high bits of each sample, then one byte of the four 2-bit remainders, the
 * first sample in the lowest bits); RAW12 packs 2 samples in 3 bytes.
 */
#ifndef CISP_FORMAT_H
#define CISP_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Build a fourcc from four characters, as v4l2_fourcc() does. */
#define CISP_FOURCC(a, b, c, d) \
	((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

/* Bayer, 8 bits, one byte per sample. */
#define CISP_FMT_SBGGR8   CISP_FOURCC('B', 'A', '8', '1')
#define CISP_FMT_SGBRG8   CISP_FOURCC('G', 'B', 'R', 'G')
#define CISP_FMT_SGRBG8   CISP_FOURCC('G', 'R', 'B', 'G')
#define CISP_FMT_SRGGB8   CISP_FOURCC('R', 'G', 'G', 'B')
/* Bayer, 10 bits in 16-bit little-endian containers. */
#define CISP_FMT_SBGGR10  CISP_FOURCC('B', 'G', '1', '0')
#define CISP_FMT_SGBRG10  CISP_FOURCC('G', 'B', '1', '0')
#define CISP_FMT_SGRBG10  CISP_FOURCC('B', 'A', '1', '0')
#define CISP_FMT_SRGGB10  CISP_FOURCC('R', 'G', '1', '0')
/* Bayer, 10 bits, MIPI CSI-2 packed (4 samples in 5 bytes). */
#define CISP_FMT_SBGGR10P CISP_FOURCC('p', 'B', 'A', 'A')
#define CISP_FMT_SGBRG10P CISP_FOURCC('p', 'G', 'A', 'A')
#define CISP_FMT_SGRBG10P CISP_FOURCC('p', 'g', 'A', 'A')
#define CISP_FMT_SRGGB10P CISP_FOURCC('p', 'R', 'A', 'A')
/* Bayer, 12 bits in 16-bit containers. */
#define CISP_FMT_SBGGR12  CISP_FOURCC('B', 'G', '1', '2')
#define CISP_FMT_SGBRG12  CISP_FOURCC('G', 'B', '1', '2')
#define CISP_FMT_SGRBG12  CISP_FOURCC('B', 'A', '1', '2')
#define CISP_FMT_SRGGB12  CISP_FOURCC('R', 'G', '1', '2')
/* Bayer, 12 bits, MIPI CSI-2 packed (2 samples in 3 bytes). */
#define CISP_FMT_SBGGR12P CISP_FOURCC('p', 'B', 'C', 'C')
#define CISP_FMT_SGBRG12P CISP_FOURCC('p', 'G', 'C', 'C')
#define CISP_FMT_SGRBG12P CISP_FOURCC('p', 'g', 'C', 'C')
#define CISP_FMT_SRGGB12P CISP_FOURCC('p', 'R', 'C', 'C')
/* Bayer, 14 bits in 16-bit containers. */
#define CISP_FMT_SBGGR14  CISP_FOURCC('B', 'G', '1', '4')
#define CISP_FMT_SGBRG14  CISP_FOURCC('G', 'B', '1', '4')
#define CISP_FMT_SGRBG14  CISP_FOURCC('G', 'R', '1', '4')
#define CISP_FMT_SRGGB14  CISP_FOURCC('R', 'G', '1', '4')
/* Bayer, 16 bits. */
#define CISP_FMT_SBGGR16  CISP_FOURCC('B', 'Y', 'R', '2')
#define CISP_FMT_SGBRG16  CISP_FOURCC('G', 'B', '1', '6')
#define CISP_FMT_SGRBG16  CISP_FOURCC('G', 'R', '1', '6')
#define CISP_FMT_SRGGB16  CISP_FOURCC('R', 'G', '1', '6')
/* YUV 4:2:0, 8 bits: NV12 (Y plane, then interleaved CbCr), I420 (Y, Cb, Cr planes). */
#define CISP_FMT_NV12     CISP_FOURCC('N', 'V', '1', '2')
#define CISP_FMT_I420     CISP_FOURCC('Y', 'U', '1', '2')
/* RGB: 8 bits per channel (R, G, B bytes), and 16 bits per channel little-endian. */
#define CISP_FMT_RGB888   CISP_FOURCC('R', 'G', 'B', '3')
#define CISP_FMT_RGB48    CISP_FOURCC('R', 'G', 'B', '6')
/*
 * 8-bit RGB in 4 bytes a pixel: B, G, R, then 255 (V4L2 XBGR32, DRM XRGB8888,
 * GStreamer BGRx), the layout display sinks take without conversion.
 */
#define CISP_FMT_XBGR32   CISP_FOURCC('X', 'R', '2', '4')

/** What a format holds. */
enum cisp_format_kind {
	CISP_KIND_BAYER = 1, /**< one colour sample per pixel, in a 2x2 CFA pattern */
	CISP_KIND_YUV = 2,   /**< luma and chroma planes */
	CISP_KIND_RGB = 3,   /**< interleaved RGB */
};

/**
 * The 2x2 colour filter array order, read as the colours of pixels (0,0),
 * (1,0), (0,1), (1,1). R is red, B blue, G green.
 */
enum cisp_cfa {
	CISP_CFA_RGGB = 0,
	CISP_CFA_GRBG = 1,
	CISP_CFA_GBRG = 2,
	CISP_CFA_BGGR = 3,
};

/**
 * Bayer colour channels, the order of every per-channel array in the params
 * ABI. Gr is the green on the rows that hold red, Gb the green on rows that
 * hold blue.
 */
enum cisp_channel {
	CISP_CH_R = 0,
	CISP_CH_GR = 1,
	CISP_CH_GB = 2,
	CISP_CH_B = 3,
};

/** The fixed description of a pixel format. */
struct cisp_format_info {
	uint32_t fourcc;            /**< the format's code (CISP_FMT_*) */
	const char *name;           /**< V4L2 name without prefix, e.g. "SRGGB10P" */
	enum cisp_format_kind kind; /**< Bayer, YUV or RGB */
	unsigned bits;              /**< significant bits per sample (8..16) */
	enum cisp_cfa cfa;          /**< CFA order; Bayer formats only */
	bool packed;                /**< MIPI CSI-2 packed (RAW10/RAW12) */
	unsigned planes;            /**< number of memory planes (1..3) */
};

/**
 * cisp_format_info() - describe a format.
 * @fourcc: a CISP_FMT_* code.
 *
 * Return: the format's description, or NULL if cisp does not know it.
 */
CISP_API const struct cisp_format_info *cisp_format_info(uint32_t fourcc);

/**
 * cisp_format_from_name() - look a format up by name.
 * @name: a V4L2 name ("SGRBG12", "SRGGB10P", "NV12"), case-insensitive; the
 *        aliases "I420"/"YUV420", "RGB24"/"RGB888", "RGB48" and
 *        "XBGR32"/"BGRx" are accepted.
 *
 * Return: the fourcc, or 0 (with a message for cisp_last_error()) if unknown.
 */
CISP_API uint32_t cisp_format_from_name(const char *name);

/**
 * cisp_format_name() - the V4L2 name of a format.
 * @fourcc: a CISP_FMT_* code.
 *
 * Return: the name, or "unknown" for codes cisp does not know.
 */
CISP_API const char *cisp_format_name(uint32_t fourcc);

/**
 * cisp_bayer_format() - the Bayer format of a given CFA order and bit depth.
 * @cfa: the CFA order.
 * @bits: 8, 10, 12, 14 or 16.
 * @packed: true for the MIPI CSI-2 packed layout (10 and 12 bits only).
 *
 * Return: the fourcc, or 0 if no such format exists.
 */
CISP_API uint32_t cisp_bayer_format(enum cisp_cfa cfa, unsigned bits, bool packed);

/**
 * cisp_cfa_from_name() - parse "RGGB", "GRBG", "GBRG" or "BGGR".
 * @name: the CFA order, case-insensitive.
 * @cfa: receives the order.
 *
 * Return: 0, or -EINVAL with a message.
 */
CISP_API int cisp_cfa_from_name(const char *name, enum cisp_cfa *cfa);

/**
 * cisp_cfa_channel() - which colour channel a pixel sees.
 * @cfa: the CFA order.
 * @x: column of the pixel.
 * @y: row of the pixel.
 *
 * Return: CISP_CH_R, CISP_CH_GR, CISP_CH_GB or CISP_CH_B.
 */
CISP_API enum cisp_channel cisp_cfa_channel(enum cisp_cfa cfa, unsigned x, unsigned y);

#ifdef __cplusplus
}
#endif

#endif /* CISP_FORMAT_H */
