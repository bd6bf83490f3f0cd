/* SPDX-License-Identifier: MIT */
/*
 * A guard every YAML reader runs before loading a document: libyaml's
 * scanner spends time linear in the nesting depth on every token, so a file
 * of nothing but '[' takes hours to load. The guard scans tokens only until
 * the nesting passes a limit no schema of cisp's comes near.
 */
#ifndef CISP_CORE_YAML_DEPTH_H
#define CISP_CORE_YAML_DEPTH_H

#include <stddef.h>
#include <stdio.h>

/* Deeper nesting than any cisp file needs (the deepest schema needs 6). */
#define CISP_YAML_MAX_DEPTH 32

/*
 * 0, or -EINVAL with "NAME:LINE: nested more than 32 levels deep" ("line
 * LINE: ..." when @name is NULL, for readers whose callers add the file
 * name). Syntax errors are left to the loader, which reports them with their
 * position.
 */
int cisp_yaml_check_depth_string(const char *name, const char *text, size_t length);

/* The same for a file, read from its current position; @f is put back there. */
int cisp_yaml_check_depth_file(const char *name, FILE *f);

#endif
