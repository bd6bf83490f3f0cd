/* SPDX-License-Identifier: MIT */
/*
 * Numbers in files and option strings are written with a decimal point,
 * whatever locale the application set (GStreamer applications often set the
 * user's, where the decimal separator may be a comma).
 */
#ifndef CISP_CORE_NUMBER_H
#define CISP_CORE_NUMBER_H

/* strtod() in the "C" locale. */
double cisp_strtod(const char *s, char **end);

#endif
