/* SPDX-License-Identifier: MIT */
/*
 * Validation of a statistics buffer read from somewhere the reader does not
 * control (a hardware ISP, another process, a file): the layout of stats.h
 * and the relations docs/abi.md guarantees between its fields, so that a 3A
 * algorithm can index zones, windows and rows by the buffer's own counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <cisp/image.h>
#include <cisp/stats.h>

#include "core/error_internal.h"

#define KNOWN_VALID (CISP_STATS_HIST | CISP_STATS_ZONES | CISP_STATS_AF | CISP_STATS_ROWS)
/* Largest s(i, j) of one AF cell (docs/stages/statistics.md). */
#define AF_CELL_MAX 262140u

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static int check_zones(const struct cisp_stats *s, uint64_t cells)
{
	uint64_t total = 0;
	unsigned used;

	if (!(s->valid & CISP_STATS_ZONES)) {
		if (s->zones_x || s->zones_y || !all_zero(s->zone, sizeof(s->zone)))
			return cisp_error(-EINVAL, "stats: zones are set but CISP_STATS_ZONES is not valid");
		return 0;
	}
	if (s->zones_x < 1 || s->zones_x > CISP_STATS_MAX_ZONES || s->zones_y < 1 || s->zones_y > CISP_STATS_MAX_ZONES)
		return cisp_error(-EINVAL, "stats: zones %ux%u outside 1x1..%dx%d", s->zones_x, s->zones_y,
				  CISP_STATS_MAX_ZONES, CISP_STATS_MAX_ZONES);
	used = (unsigned)s->zones_x * s->zones_y; /* in range now: the product fits */
	for (unsigned i = 0; i < used; i++) {
		const struct cisp_stats_zone *z = &s->zone[i];

		if (z->reserved)
			return cisp_error(-EINVAL, "stats: zone[%u].reserved = %u must be 0", i, z->reserved);
		if (z->count > z->total)
			return cisp_error(-EINVAL, "stats: zone[%u] averages %" PRIu32 " of its %" PRIu32 " cells", i,
					  z->count, z->total);
		if (!z->count && (z->r || z->g || z->b))
			return cisp_error(-EINVAL, "stats: zone[%u] has means but no cells", i);
		total += z->total;
	}
	if (total != cells)
		return cisp_error(-EINVAL, "stats: the zones hold %" PRIu64 " cells, the frame %" PRIu64, total, cells);
	if (!all_zero(&s->zone[used], (CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES - used) * sizeof(s->zone[0])))
		return cisp_error(-EINVAL, "stats: zone entries past zones_x * zones_y = %u are not 0", used);
	return 0;
}

static int check_af(const struct cisp_stats *s, uint64_t cells)
{
	if (!!(s->valid & CISP_STATS_AF) != (s->af_count > 0))
		return cisp_error(-EINVAL, "stats: af_count %u does not match CISP_STATS_AF in valid 0x%" PRIx32,
				  s->af_count, s->valid);
	if (s->af_count > CISP_STATS_MAX_AF)
		return cisp_error(-EINVAL, "stats: af_count %u is over %d", s->af_count, CISP_STATS_MAX_AF);
	for (unsigned i = 0; i < s->af_count; i++) {
		const struct cisp_stats_af *a = &s->af[i];

		if (a->reserved)
			return cisp_error(-EINVAL, "stats: af[%u].reserved = %" PRIu32 " must be 0", i, a->reserved);
		if (a->count > cells || a->sharpness > (uint64_t)a->count * AF_CELL_MAX)
			return cisp_error(-EINVAL, "stats: af[%u] sharpness %" PRIu64 " over %" PRIu32
					  " cells is impossible in a frame of %" PRIu64 " cells", i, a->sharpness, a->count,
					  cells);
	}
	if (!all_zero(&s->af[s->af_count], (CISP_STATS_MAX_AF - s->af_count) * sizeof(s->af[0])))
		return cisp_error(-EINVAL, "stats: af entries past af_count = %u are not 0", s->af_count);
	return 0;
}

static int check_rows(const struct cisp_stats *s, uint32_t cells_y)
{
	uint32_t count;

	if (!(s->valid & CISP_STATS_ROWS)) {
		if (s->row_count || s->row_group || !all_zero(s->row_mean, sizeof(s->row_mean)))
			return cisp_error(-EINVAL, "stats: row means are set but CISP_STATS_ROWS is not valid");
		return 0;
	}
	if (s->row_group < 1 || s->row_group > cells_y)
		return cisp_error(-EINVAL, "stats: row_group %u is outside 1..%" PRIu32 " cell rows", s->row_group, cells_y);
	count = (cells_y + s->row_group - 1) / s->row_group;
	if (s->row_count != count || count > CISP_STATS_MAX_ROWS)
		return cisp_error(-EINVAL, "stats: row_count %u, but %" PRIu32 " cell rows in groups of %u make %" PRIu32,
				  s->row_count, cells_y, s->row_group, count);
	if (!all_zero(&s->row_mean[count], (CISP_STATS_MAX_ROWS - count) * sizeof(s->row_mean[0])))
		return cisp_error(-EINVAL, "stats: row_mean entries past row_count = %u are not 0", s->row_count);
	return 0;
}

int cisp_stats_validate(const void *buf, size_t size)
{
	struct cisp_stats s;
	uint64_t cells, sum = 0;
	int ret;

	if (!buf || size != sizeof(s))
		return cisp_error(-EMSGSIZE, "stats buffer of %zu bytes is not the %zu bytes of version %d", buf ? size : 0,
				  sizeof(s), CISP_STATS_VERSION);
	memcpy(&s, buf, sizeof(s)); /* aligned, and safe from a writer that keeps writing */
	if (s.magic != CISP_STATS_MAGIC)
		return cisp_error(-EPROTO, "stats: magic 0x%08" PRIx32 " is not 0x%08x (\"CSTA\")", s.magic,
				  CISP_STATS_MAGIC);
	if (s.version != CISP_STATS_VERSION)
		return cisp_error(-EPROTONOSUPPORT, "stats: version %u is not supported (only version %d)", s.version,
				  CISP_STATS_VERSION);
	if (s.size != sizeof(s))
		return cisp_error(-EMSGSIZE, "stats: size %" PRIu32 " is not %zu", s.size, sizeof(s));
	if (s.reserved0 || s.reserved1 || s.reserved2[0] || s.reserved2[1] || s.reserved2[2] || s.reserved3)
		return cisp_error(-EINVAL, "stats: a reserved header field is not 0");
	if (s.valid & ~KNOWN_VALID)
		return cisp_error(-EINVAL, "stats: valid 0x%08" PRIx32 " has unknown bits 0x%08" PRIx32, s.valid,
				  s.valid & ~KNOWN_VALID);
	if (s.width < 16 || s.height < 16 || s.width > CISP_MAX_DIMENSION || s.height > CISP_MAX_DIMENSION ||
	    s.width % 2 || s.height % 2)
		return cisp_error(-EINVAL, "stats: frame %" PRIu32 "x%" PRIu32 " is not even within 16x16..%dx%d", s.width,
				  s.height, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	cells = (uint64_t)(s.width / 2) * (s.height / 2);
	for (int i = 0; i < 256; i++)
		sum += s.hist[i];
	if ((s.valid & CISP_STATS_HIST) ? sum != cells : sum != 0)
		return cisp_error(-EINVAL, "stats: the histogram counts %" PRIu64 " cells, the frame has %" PRIu64 "%s", sum,
				  cells, (s.valid & CISP_STATS_HIST) ? "" : " (and CISP_STATS_HIST is not valid)");
	if ((ret = check_zones(&s, cells)) || (ret = check_af(&s, cells)) || (ret = check_rows(&s, s.height / 2)))
		return ret;
	return 0;
}
