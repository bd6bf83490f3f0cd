/* SPDX-License-Identifier: MIT */
/* strtod_l and newlocale: _GNU_SOURCE comes from the build (meson.build). */
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>

#include "core/number.h"

static locale_t c_locale;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

double cisp_strtod(const char *s, char **end)
{
	pthread_once(&once, make_c_locale);
	/* Without a locale object (out of memory at start), the process's locale. */
	return c_locale ? strtod_l(s, end, c_locale) : strtod(s, end);
}

locale_t cisp_c_numeric_begin(void)
{
	pthread_once(&once, make_c_locale);
	/* Without a locale object, (locale_t)0 queries and keeps the current one. */
	return uselocale(c_locale);
}

void cisp_c_numeric_end(locale_t previous)
{
	if (previous)
		uselocale(previous);
}
