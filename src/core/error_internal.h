/* SPDX-License-Identifier: MIT */
/*
 * cisp_error() and cisp_error_prefix(), which every failing function calls,
 * are public (cisp/error.h): code built on the library reports its failures
 * the same way. The library's files include them under this name.
 */
#ifndef CISP_CORE_ERROR_INTERNAL_H
#define CISP_CORE_ERROR_INTERNAL_H

#include <cisp/error.h>

#endif
