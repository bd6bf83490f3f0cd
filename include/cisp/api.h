/* SPDX-License-Identifier: MIT */
/**
 * @file api.h
 * @brief CISP_API: what marks a declaration as part of libcisp's public ABI.
 *
 * The library is compiled with -fvisibility=hidden, so every function and
 * variable stays inside libcisp.so unless its declaration in include/cisp/
 * carries CISP_API. The shared library thus exports exactly the public API
 * (docs/api.md); code that includes these headers sees no difference.
 */
#ifndef CISP_API_H
#define CISP_API_H

#if defined(__GNUC__) || defined(__clang__)
/** Exported from libcisp.so: a declaration of the public API. */
#define CISP_API __attribute__((visibility("default")))
#else
#define CISP_API
#endif

#endif /* CISP_API_H */
