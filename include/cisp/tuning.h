/* SPDX-License-Identifier: MIT */
/**
 * @file tuning.h
 * @brief Tuning files: the per sensor+lens data the control algorithms run on.
 *
 * A tuning file is YAML (schema in docs/tuning.md), versioned, one per
 * sensor model and lens. It holds what calibration measured: the colour
 * matrices and lens shading tables by colour temperature, the white-balance
 * colour-temperature curve, the noise profile by gain, the AE, AF and
 * flicker settings, denoise and sharpening strengths by gain. Parsing
 * validates every key; an error names the file, the line and the key.
 *
 * Tuning files are found by sensor model in the folders of the CISP_TUNING_PATH
 * environment variable (colon-separated), then the installed and the source
 * tree's data/tuning folders. A sensor without one gets the built-in
 * "uncalibrated" tuning, which still gives a usable picture.
 */
#ifndef CISP_TUNING_H
#define CISP_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The tuning file format version this library reads. */
#define CISP_TUNING_VERSION 1

/** A parsed, validated tuning (opaque; its contents are read by src/control). */
struct cisp_tuning;

/**
 * cisp_tuning_parse() - parse and validate a tuning file held in memory.
 * @t: receives the tuning; free with cisp_tuning_free().
 * @text: the YAML text (need not be NUL-terminated).
 * @length: its length in bytes.
 * @name: what error messages call the text (a file name), or NULL.
 * Return: 0; -EINVAL with a message naming the line and key for a malformed
 * or invalid file; -EPROTONOSUPPORT for another format version; -ENOMEM.
 */
CISP_API int cisp_tuning_parse(struct cisp_tuning **t, const char *text, size_t length, const char *name);

/**
 * cisp_tuning_load() - read, parse and validate a tuning file.
 * @t: receives the tuning.
 * @path: the file.
 * Return: 0, -errno of a failed read (the message names the file), or as
 * cisp_tuning_parse().
 */
CISP_API int cisp_tuning_load(struct cisp_tuning **t, const char *path);

/**
 * cisp_tuning_open() - a tuning named as users name it: a file, or a sensor
 * model whose file is on the search path.
 * @t: receives the tuning.
 * @name: a path (it holds a '/' or ends in ".yaml"), or a sensor model name
 *        ("cisp-8m10"), whose "<model>.yaml" is looked for as
 *        cisp_tuning_find() does.
 * Return: 0; -ENOENT with a message naming where it looked when a model has
 * no file (never the uncalibrated tuning: the name asked for a file); or as
 * cisp_tuning_load().
 */
CISP_API int cisp_tuning_open(struct cisp_tuning **t, const char *name);

/**
 * cisp_tuning_find() - the tuning for a sensor model and lens.
 * @t: receives the tuning.
 * @sensor_model: the sensor model (struct cisp_sensor_info.model).
 * @lens: the lens name, or NULL for the sensor's default lens.
 * Looks for "<model>.yaml" (or "<model>-<lens>.yaml") on the search path
 * above; when there is none, gives the built-in uncalibrated tuning and logs
 * a warning. A file that exists but does not parse is an error, never
 * replaced silently.
 * Return: 0, or as cisp_tuning_load().
 */
CISP_API int cisp_tuning_find(struct cisp_tuning **t, const char *sensor_model, const char *lens);

/**
 * cisp_tuning_uncalibrated() - the built-in tuning for unknown sensors.
 * @t: receives the tuning.
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_tuning_uncalibrated(struct cisp_tuning **t);

/**
 * cisp_tuning_name() - what the tuning is called.
 * @t: the tuning.
 * Return: the file's path, or "uncalibrated".
 */
CISP_API const char *cisp_tuning_name(const struct cisp_tuning *t);

/**
 * cisp_tuning_lsc_array() - the pixel array the lens shading tables span.
 * @t: the tuning.
 * @width: receives its width, 0 when the tables span each mode's frame.
 * @height: receives its height, 0 likewise.
 */
CISP_API void cisp_tuning_lsc_array(const struct cisp_tuning *t, uint32_t *width, uint32_t *height);

/**
 * cisp_tuning_free() - free a tuning.
 * @t: the tuning (may be NULL).
 */
CISP_API void cisp_tuning_free(struct cisp_tuning *t);

#ifdef __cplusplus
}
#endif

#endif /* CISP_TUNING_H */
