/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cisp/error.h>

#include "error_internal.h"

static _Thread_local char last_message[1024];

const char *cisp_last_error(void)
{
	return last_message;
}

void cisp_clear_error(void)
{
	last_message[0] = '\0';
}

int cisp_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	va_end(ap);
	return err;
}

int cisp_error_prefix(int err, const char *fmt, ...)
{
	char previous[sizeof(last_message)];
	char prefix[256];
	va_list ap;

	snprintf(previous, sizeof(previous), "%s", last_message);
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	size_t n = (size_t)snprintf(last_message, sizeof(last_message), "%s: ", prefix);
	if (n < sizeof(last_message)) {
		size_t room = sizeof(last_message) - n - 1, len = strlen(previous);
		memcpy(last_message + n, previous, len < room ? len : room);
		last_message[n + (len < room ? len : room)] = '\0';
	}
	return err;
}
