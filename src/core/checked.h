/* SPDX-License-Identifier: MIT */
/*
 * Checked size arithmetic, for every size and offset computed from numbers
 * that come from outside: file headers and directories, buffer metadata and
 * caps, driver replies, parameter blocks. A bounds check written as plain
 * arithmetic (`offset + stride * (rows - 1) + row > size`) wraps round for
 * a hostile offset or stride and passes; these cannot. Each function does
 * the arithmetic in size_t with the compiler's __builtin_*_overflow and says
 * whether the result is exact, so a caller refuses the input instead of
 * going on with a wrapped number.
 *
 * Header-only and free of library symbols, so the GStreamer plugin uses it
 * as the library does.
 */
#ifndef CISP_CORE_CHECKED_H
#define CISP_CORE_CHECKED_H

#include <stdbool.h>
#include <stddef.h>

/* True when @a + @b fits a size_t, with the sum in *@sum; false (and *@sum undefined) when it wraps. */
static inline bool cisp_size_add(size_t a, size_t b, size_t *sum)
{
	return !__builtin_add_overflow(a, b, sum);
}

/* True when @a * @b fits a size_t, with the product in *@product; false when it wraps. */
static inline bool cisp_size_mul(size_t a, size_t b, size_t *product)
{
	return !__builtin_mul_overflow(a, b, product);
}

/* True when @a * @b + @c fits a size_t, with the result in *@result. */
static inline bool cisp_size_mul_add(size_t a, size_t b, size_t c, size_t *result)
{
	return cisp_size_mul(a, b, result) && cisp_size_add(*result, c, result);
}

/* True when @length bytes from byte @offset lie inside a buffer of @size bytes (an empty span may end at @size). */
static inline bool cisp_span_inside(size_t offset, size_t length, size_t size)
{
	size_t end;

	return cisp_size_add(offset, length, &end) && end <= size;
}

/*
 * True when a plane of @rows rows of @row_bytes each, @stride bytes apart,
 * starting at byte @offset, lies inside a buffer of @size bytes: its last
 * byte, offset + stride * (rows - 1) + row_bytes, computed without wrapping,
 * is within the buffer. No rows is an empty plane, inside when @offset is.
 */
static inline bool cisp_rows_inside(size_t offset, size_t stride, size_t rows, size_t row_bytes, size_t size)
{
	size_t start;

	if (rows == 0)
		return offset <= size;
	return cisp_size_mul_add(stride, rows - 1, offset, &start) && cisp_span_inside(start, row_bytes, size);
}

#endif
