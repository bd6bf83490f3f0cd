/* SPDX-License-Identifier: MIT */
/**
 * @file checked.h
 * @brief Checked size arithmetic, for every size and offset computed from
 * numbers that come from outside.
 *
 * File headers and directories, buffer metadata and caps, driver replies,
 * parameter blocks: a bounds check written as plain arithmetic
 * (`offset + stride * (rows - 1) + row > size`) wraps round for a hostile
 * offset or stride and passes; these cannot. Each function does the
 * arithmetic in size_t with the compiler's __builtin_*_overflow and says
 * whether the result is exact, so a caller refuses the input instead of
 * going on with a wrapped number.
 *
 * Header-only (static inline, no library symbols): the library, the cisp
 * command and the GStreamer plugin check their buffers the same way, and so
 * can an application that maps buffers for cisp.
 */
#ifndef CISP_CHECKED_H
#define CISP_CHECKED_H

#include <stdbool.h>
#include <stddef.h>

/**
 * cisp_size_add() - @a + @b in size_t, checked.
 * @a: first term.
 * @b: second term.
 * @sum: receives the sum; undefined when it wraps.
 * Return: true when the sum fits a size_t, false when it wraps.
 */
static inline bool cisp_size_add(size_t a, size_t b, size_t *sum)
{
	return !__builtin_add_overflow(a, b, sum);
}

/**
 * cisp_size_mul() - @a * @b in size_t, checked.
 * @a: first factor.
 * @b: second factor.
 * @product: receives the product; undefined when it wraps.
 * Return: true when the product fits a size_t, false when it wraps.
 */
static inline bool cisp_size_mul(size_t a, size_t b, size_t *product)
{
	return !__builtin_mul_overflow(a, b, product);
}

/**
 * cisp_size_mul_add() - @a * @b + @c in size_t, checked.
 * @a: first factor.
 * @b: second factor.
 * @c: term added to the product.
 * @result: receives the result; undefined when it wraps.
 * Return: true when every step fits a size_t.
 */
static inline bool cisp_size_mul_add(size_t a, size_t b, size_t c, size_t *result)
{
	return cisp_size_mul(a, b, result) && cisp_size_add(*result, c, result);
}

/**
 * cisp_span_inside() - whether a span of bytes lies inside a buffer.
 * @offset: first byte of the span.
 * @length: its length (an empty span may start at @size).
 * @size: the buffer's size.
 * Return: true when bytes [@offset, @offset + @length) are inside [0, @size).
 */
static inline bool cisp_span_inside(size_t offset, size_t length, size_t size)
{
	size_t end;

	return cisp_size_add(offset, length, &end) && end <= size;
}

/**
 * cisp_rows_inside() - whether a plane of rows lies inside a buffer.
 * @offset: byte of the plane's first row.
 * @stride: bytes from one row to the next.
 * @rows: number of rows; no rows is an empty plane, inside when @offset is.
 * @row_bytes: bytes used of each row.
 * @size: the buffer's size.
 *
 * The plane's end, offset + stride * (rows - 1) + row_bytes, is computed
 * without wrapping.
 *
 * Return: true when the whole plane is within the buffer.
 */
static inline bool cisp_rows_inside(size_t offset, size_t stride, size_t rows, size_t row_bytes, size_t size)
{
	size_t start;

	if (rows == 0)
		return offset <= size;
	return cisp_size_mul_add(stride, rows - 1, offset, &start) && cisp_span_inside(start, row_bytes, size);
}

#endif /* CISP_CHECKED_H */
