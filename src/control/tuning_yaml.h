/* SPDX-License-Identifier: MIT */
/*
 * Reading a tuning file: tuning_parse_into() (tuning_yaml.c) reads the top
 * level and hands each section to the algorithm that owns it (struct
 * control_algorithm.parse); the algorithms read their sections with the
 * shared YAML reader (core/yaml_reader.h) and tuning_sorted() below.
 */
#ifndef CISP_CONTROL_TUNING_YAML_H
#define CISP_CONTROL_TUNING_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "core/yaml_reader.h"

/*
 * Tables rise strictly in their first column (colour temperature, gain): @v,
 * @column of list item @i (@item, placed at @key), against the previous
 * item's @prev.
 */
int tuning_sorted(struct yaml_reader *r, const yaml_node_t *item, const char *key, const char *column, double prev,
		  double v, unsigned i);

#endif /* CISP_CONTROL_TUNING_YAML_H */
