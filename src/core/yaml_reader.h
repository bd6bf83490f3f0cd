/* SPDX-License-Identifier: MIT */
/*
 * The one reader of cisp's YAML files (tuning files, params buffers in YAML,
 * sensor models, camera configurations, conformance profiles): loading with
 * the depth guard, typed values with ranges, mappings of known keys and
 * lists, each error naming the file, the line and the key
 * ("tuning.yaml:12: awb.ct[2].r_over_g: 0 is outside 0.0625..16").
 */
#ifndef CISP_CORE_YAML_READER_H
#define CISP_CORE_YAML_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

/* One file being read: its name for messages and its loaded document. */
struct yaml_reader {
	const char *name; /* the file, for messages; NULL for a buffer (yaml_reader_load_buffer()) */
	yaml_document_t doc;
};

/*
 * Load @text (@length bytes) as the file @name (kept, not copied, for the
 * messages): the nesting depth first (yaml_depth.h), then libyaml; a
 * second document is refused. Errors: "NAME:LINE: <libyaml's problem>",
 * "NAME:LINE: only one YAML document is allowed", "NAME:1: the file is
 * empty". On success
 * *@root is the document's root; yaml_reader_free() releases the document.
 */
int yaml_reader_load(struct yaml_reader *r, const char *name, const char *text, size_t length, yaml_node_t **root);
void yaml_reader_free(struct yaml_reader *r);

/*
 * Load a buffer that has no file name (a params buffer in YAML): messages
 * say "line LINE: ...", and an empty document (nothing, or only comments)
 * is no error: *@root is then NULL. yaml_reader_free() releases it either way.
 */
int yaml_reader_load_buffer(struct yaml_reader *r, const char *text, size_t length, yaml_node_t **root);

/*
 * Load the file @path (at most @max_bytes; cisp_read_text_file()'s errors)
 * as yaml_reader_load() does; @path is kept for the messages.
 */
int yaml_reader_load_file(struct yaml_reader *r, const char *path, size_t max_bytes, yaml_node_t **root);

/* The line of @n, from 1 (0 for NULL). */
unsigned long yaml_reader_line(const yaml_node_t *n);

/* Fail with -EINVAL and "NAME:LINE: KEY: message" (the line of @n). */
int yaml_reader_fail(struct yaml_reader *r, const yaml_node_t *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Write the name of a place in the file ("awb.ct[2].ct") into @k; a longer name is cut short. */
void yaml_reader_place(char *k, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The node @id of the document. */
yaml_node_t *yaml_reader_node(struct yaml_reader *r, yaml_node_item_t id);

/* The value of @key in mapping @map, or NULL (no such key, or @map is not a mapping). */
yaml_node_t *yaml_reader_get(struct yaml_reader *r, const yaml_node_t *map, const char *key);

/* The text of a scalar node, or NULL for any other node. */
const char *yaml_reader_scalar(const yaml_node_t *n);

/* @v as messages and docs/tuning.md write a range's end: whole numbers in full, others to 10 digits. */
const char *yaml_reader_format(char *buf, size_t size, double v);

/* A number within [@min, @max] (out of it: "VALUE is outside MIN..MAX"). */
int yaml_reader_number(struct yaml_reader *r, const yaml_node_t *n, const char *key, double min, double max,
		  double *out);

/* A whole number within [@min, @max]. */
int yaml_reader_whole(struct yaml_reader *r, const yaml_node_t *n, const char *key, double min, double max,
		 double *out);

/* A list of exactly @count numbers, each within [@min, @max]. */
int yaml_reader_numbers(struct yaml_reader *r, const yaml_node_t *n, const char *key, unsigned count, double min,
		   double max, double *out);

/*
 * The number at @key of mapping @map (named "@where.@key" in messages),
 * within [@min, @max]; an absent key gives @def, or "missing (required)"
 * when @def is NaN.
 */
int yaml_reader_number_at(struct yaml_reader *r, const yaml_node_t *map, const char *where, const char *key,
			  double min, double max, double def, double *out);

/*
 * The text at @key of mapping @map (named "@where.@key"), shorter than
 * @size; with @required the key must be there and not empty, without it an
 * absent key leaves @out as it is.
 */
int yaml_reader_string_at(struct yaml_reader *r, const yaml_node_t *map, const char *where, const char *key,
			  bool required, char *out, size_t size);

/*
 * A list of at most @max texts: @out receives pointers into the document
 * (valid until yaml_reader_free()), @count the length (0 for an empty list).
 */
int yaml_reader_strings(struct yaml_reader *r, const yaml_node_t *n, const char *key, unsigned max,
			const char **out, unsigned *count);

/* Any text (a path, options, a description), shorter than @size. */
int yaml_reader_string(struct yaml_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size);

/* Plain text (no '/'), shorter than @size. */
int yaml_reader_text(struct yaml_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size);

/*
 * Walk a mapping: every key must be one of @keys (NULL-terminated, at most
 * 32), at most once; @fn handles each with its index and its place ("ae.speed").
 * Keys whose bit (1u << index) is in @required must be present. With @fn
 * NULL only the keys are checked (for readers that look values up).
 */
typedef int (*yaml_key_fn)(struct yaml_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *value);
int yaml_reader_map(struct yaml_reader *r, const yaml_node_t *map, const char *where, const char *const *keys,
	       uint32_t required, yaml_key_fn fn, void *ctx);

/* Walk a list of 1..@max items: @fn gets each with its index and place ("ccm[2]"); @count receives the length. */
typedef int (*yaml_item_fn)(struct yaml_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *item);
int yaml_reader_list(struct yaml_reader *r, const yaml_node_t *n, const char *key, unsigned max, unsigned *count,
		yaml_item_fn fn, void *ctx);

#endif /* CISP_CORE_YAML_READER_H */
