/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/log.h>

static int current_level = -1; /* -1: not read from CISP_LOG yet */
static cisp_log_fn sink;
static void *sink_opaque;

static int level_from_env(void)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	const char *env = getenv("CISP_LOG");

	if (env)
		for (int i = 0; i < 4; i++)
			if (!strcmp(env, names[i]))
				return i;
	return CISP_LOG_WARN;
}

void cisp_log_set_level(enum cisp_log_level level)
{
	current_level = (int)level;
}

void cisp_log_set_sink(cisp_log_fn fn, void *opaque)
{
	sink = fn;
	sink_opaque = opaque;
}

void cisp_log(enum cisp_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error", "warning", "info", "debug" };
	char message[1024];
	va_list ap;

	if (current_level < 0)
		current_level = level_from_env();
	if ((int)level > current_level)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (sink)
		sink(level, message, sink_opaque);
	else
		fprintf(stderr, "cisp: %s: %s\n", prefix[level], message);
}
