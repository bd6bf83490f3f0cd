/* SPDX-License-Identifier: MIT */
/*
 * Numbers in files and option strings are written with a decimal point,
 * whatever locale the application set (GStreamer applications often set the
 * user's, where the decimal separator may be a comma).
 */
#ifndef CISP_CORE_NUMBER_H
#define CISP_CORE_NUMBER_H

#include <locale.h>

/* strtod() in the "C" locale. */
double cisp_strtod(const char *s, char **end);

/*
 * Switch the calling thread to the "C" numeric locale for printf-style
 * writing of files and option strings, until cisp_c_numeric_end() with the
 * returned value. Other threads keep their locale (uselocale is per thread).
 */
locale_t cisp_c_numeric_begin(void);

/* Restore the locale cisp_c_numeric_begin() returned. */
void cisp_c_numeric_end(locale_t previous);

#endif
