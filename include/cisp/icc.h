/* SPDX-License-Identifier: MIT */
/**
 * @file icc.h
 * @brief ICC profiles of cisp's output colour spaces, for embedding in
 * image files.
 */
#ifndef CISP_ICC_H
#define CISP_ICC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_icc_srgb() - an ICC v4 profile of sRGB (IEC 61966-2-1: BT.709
 * primaries, D65 white, the sRGB transfer function), or with @linear of
 * the same primaries and white with a linear (gamma 1.0) transfer, the
 * space of cisp's --linear output.
 * @linear: linear transfer instead of sRGB's.
 * @data: receives a malloc()ed profile; free() it.
 * @size: receives its size in bytes.
 *
 * Return: 0, or -ENOMEM with a message.
 */
CISP_API int cisp_icc_srgb(bool linear, uint8_t **data, size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* CISP_ICC_H */
