/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cisp/error.h>

#include "error_internal.h"

static _Thread_local char last_message[1024];

const char *cisp_printable(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return buf;
	for (const unsigned char *p = (const unsigned char *)s; *p && n + 9 < size; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", *p);
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* The C1 controls, U+0080 to U+009F in UTF-8. */
			n += (size_t)snprintf(buf + n, size - n, "\\xc2\\x%02x", p[1]);
			p++;
		} else {
			buf[n++] = (char)*p;
		}
	}
	buf[n < size ? n : size - 1] = '\0';
	return buf;
}

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
	char text[sizeof(last_message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* Messages name files and devices: a name with escape sequences must not reach a terminal. */
	cisp_printable(text, last_message, sizeof(last_message));
	return err;
}

int cisp_error_prefix(int err, const char *fmt, ...)
{
	char prefix[256];
	char text[sizeof(prefix) + 2 + sizeof(last_message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	snprintf(text, sizeof(text), "%s: %s", prefix, last_message);
	cisp_printable(text, last_message, sizeof(last_message));
	return err;
}
