/* SPDX-License-Identifier: MIT */
/**
 * @file log.h
 * @brief Logging: levelled messages to stderr or to a caller's callback.
 *
 * The level comes from the environment variable CISP_LOG (error, warn, info,
 * debug; default warn) and can be changed with cisp_log_set_level().
 */
#ifndef CISP_LOG_H
#define CISP_LOG_H

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Message levels, most severe first. */
enum cisp_log_level {
	CISP_LOG_ERROR = 0, /**< something failed */
	CISP_LOG_WARN = 1,  /**< something worked around, such as a missing value replaced by a default */
	CISP_LOG_INFO = 2,  /**< progress a user may want to see */
	CISP_LOG_DEBUG = 3, /**< details for developers */
};

/** A log sink: receives the level and the formatted message (no newline). */
typedef void (*cisp_log_fn)(enum cisp_log_level level, const char *message, void *opaque);

/**
 * cisp_log_set_level() - show messages up to and including @level.
 * @level: the most verbose level to show.
 */
CISP_API void cisp_log_set_level(enum cisp_log_level level);

/**
 * cisp_log_set_sink() - send messages to @fn instead of stderr.
 * @fn: the sink, or NULL for stderr.
 * @opaque: passed to @fn.
 */
CISP_API void cisp_log_set_sink(cisp_log_fn fn, void *opaque);

/**
 * cisp_log() - emit a message if @level is enabled.
 * @level: the message's level.
 * @fmt: printf format.
 */
CISP_API void cisp_log(enum cisp_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

#endif /* CISP_LOG_H */
