/* SPDX-License-Identifier: MIT */
/*
 * Reading a tuning file: typed values with ranges, mappings of known keys and
 * lists, each error naming the file, the line and the key
 * ("tuning.yaml:12: awb.ct[2].r_over_g: 0 is outside 0.0625..16").
 *
 * tuning_parse_into() (tuning_yaml.c) reads the top level and hands each
 * section to the algorithm that owns it (struct control_algorithm.parse);
 * the algorithms read their sections with the functions below.
 */
#ifndef CISP_CONTROL_TUNING_YAML_H
#define CISP_CONTROL_TUNING_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

/* One file being read. */
struct tuning_reader {
	const char *name; /* the file, for messages */
	yaml_document_t doc;
};

/* Fail with -EINVAL and "NAME:LINE: KEY: message" (the line of @n). */
int tuning_fail(struct tuning_reader *r, const yaml_node_t *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Write the name of a place in the file ("awb.ct[2].ct") into @k; a longer name is cut short. */
void tuning_place(char *k, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The node @id of the document. */
yaml_node_t *tuning_node(struct tuning_reader *r, yaml_node_item_t id);

/* The text of a scalar node, or NULL for any other node. */
const char *tuning_scalar(const yaml_node_t *n);

/* @v as messages and docs/tuning.md write a range's end: whole numbers in full, others to 10 digits. */
const char *tuning_format(char *buf, size_t size, double v);

/* A number within [@min, @max] (out of it: "VALUE is outside MIN..MAX"). */
int tuning_number(struct tuning_reader *r, const yaml_node_t *n, const char *key, double min, double max,
		  double *out);

/* A whole number within [@min, @max]. */
int tuning_whole(struct tuning_reader *r, const yaml_node_t *n, const char *key, double min, double max,
		 double *out);

/* A list of exactly @count numbers, each within [@min, @max]. */
int tuning_numbers(struct tuning_reader *r, const yaml_node_t *n, const char *key, unsigned count, double min,
		   double max, double *out);

/* Plain text (no '/'), shorter than @size. */
int tuning_text(struct tuning_reader *r, const yaml_node_t *n, const char *key, char *out, size_t size);

/*
 * Walk a mapping: every key must be one of @keys (NULL-terminated, at most
 * 32), at most once; @fn handles each with its index and its place ("ae.speed").
 * Keys whose bit (1u << index) is in @required must be present.
 */
typedef int (*tuning_key_fn)(struct tuning_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *value);
int tuning_map(struct tuning_reader *r, const yaml_node_t *map, const char *where, const char *const *keys,
	       uint32_t required, tuning_key_fn fn, void *ctx);

/* Walk a list of 1..@max items: @fn gets each with its index and place ("ccm[2]"); @count receives the length. */
typedef int (*tuning_item_fn)(struct tuning_reader *r, void *ctx, unsigned index, const char *key, yaml_node_t *item);
int tuning_list(struct tuning_reader *r, const yaml_node_t *n, const char *key, unsigned max, unsigned *count,
		tuning_item_fn fn, void *ctx);

/*
 * Tables rise strictly in their first column (colour temperature, gain): @v,
 * @column of list item @i (@item, placed at @key), against the previous
 * item's @prev.
 */
int tuning_sorted(struct tuning_reader *r, const yaml_node_t *item, const char *key, const char *column, double prev,
		  double v, unsigned i);

#endif /* CISP_CONTROL_TUNING_YAML_H */
