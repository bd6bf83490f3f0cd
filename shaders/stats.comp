// SPDX-License-Identifier: MIT
// statistics (src/isp/statistics.c, cisp_stats_cells_c and the sums of
// cisp_stats_acc_rows_with): the tap after lens shading. One invocation per
// 2x2 cell, a workgroup per 64 cells of a cell row: its sums in shared memory
// (integer atomics, so the order does not matter), then one addition each
// into the frame's sums. 64-bit sums are pairs of uint, the carry added to
// the high word: exact on any device, without 64-bit atomics.
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
// The frame's sums, zeroed by the host (vulkan_frame.h, VK_STATS_*): the
// histogram; per zone r, g, b (64-bit each), count, total; per AF window its
// sum (64-bit), cells and a spare word; per row group its green sum (64-bit).
layout(std430, set = 0, binding = 1) buffer Sums { uint sums[]; };
// From @base: each AF window's cells i0, i1, j0, j1.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint zones_x, zones_y;
	uint saturation;
	uint row_group;
	uint af_count;
	uint sites;   // CFA site of R | Gr << 8 | Gb << 16 | B << 24
	uint wb_r_gr; // histogram gains, Q4.12: R | Gr << 16
	uint wb_gb_b; // Gb | B << 16
	uint base;
} p;

const uint HIST = 0u, ZONES = 256u, AF = 256u + 32u * 32u * 8u, ROWS = AF + 8u * 4u;

shared uint s_hist[256];
shared uint s_zone[32 * 5]; // per zone column: r, g, b, count, total
shared uint s_af[8], s_af_cells[8], s_row;

uint at(uint x, uint y)
{
	uint pair = src[y * (p.width / 2u) + (x >> 1)];
	return (x & 1u) == 0u ? lo16(pair) : hi16(pair);
}

// Channel @c (R, Gr, Gb, B) of cell (i, j).
uint channel(uint c, uint i, uint j)
{
	uint s = (p.sites >> (8u * c)) & 0xffu;
	return at(2u * i + (s & 1u), 2u * j + (s >> 1));
}

uint green(uint i, uint j)
{
	return (channel(1u, i, j) + channel(2u, i, j) + 1u) >> 1;
}

// plane.h's mirror(): reflect without repeating the edge.
uint mirror(int i, int n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * (n - 1) - i;
	return uint(i);
}

// 65535 * 65535 + 2048 fits in 32 bits unsigned.
uint wb_apply(uint v, uint gain)
{
	return min((v * gain + 2048u) >> 12, 65535u);
}

void add64(uint at, uint v)
{
	uint old = atomicAdd(sums[at], v);
	if (old + v < old)
		atomicAdd(sums[at + 1u], 1u);
}

void main()
{
	uint lid = gl_LocalInvocationID.x, i = gl_GlobalInvocationID.x, j = gl_WorkGroupID.y;
	uint cells_x = p.width / 2u, cells_y = p.height / 2u;

	for (uint k = lid; k < 256u; k += 64u)
		s_hist[k] = 0u;
	for (uint k = lid; k < 32u * 5u; k += 64u)
		s_zone[k] = 0u;
	if (lid < 8u) {
		s_af[lid] = 0u;
		s_af_cells[lid] = 0u;
	}
	if (lid == 0u)
		s_row = 0u;
	barrier();

	if (i < cells_x) {
		uint r = channel(0u, i, j), gr = channel(1u, i, j), gb = channel(2u, i, j), b = channel(3u, i, j);
		uint g = (gr + gb + 1u) >> 1;
		// At most 256 * 65535 + 128: no overflow.
		uint y = (54u * wb_apply(r, p.wb_r_gr & 0xffffu) +
			  183u * ((wb_apply(gr, p.wb_r_gr >> 16) + wb_apply(gb, p.wb_gb_b & 0xffffu) + 1u) >> 1) +
			  19u * wb_apply(b, p.wb_gb_b >> 16) + 128u) >> 8;
		bool ok = r < p.saturation && gr < p.saturation && gb < p.saturation && b < p.saturation;
		uint zc = i * p.zones_x / cells_x;

		atomicAdd(s_hist[y >> 8], 1u);
		if (ok) {
			atomicAdd(s_zone[zc * 5u], r);
			atomicAdd(s_zone[zc * 5u + 1u], g);
			atomicAdd(s_zone[zc * 5u + 2u], b);
			atomicAdd(s_zone[zc * 5u + 3u], 1u);
		}
		atomicAdd(s_zone[zc * 5u + 4u], 1u);
		atomicAdd(s_row, g);
		for (uint k = 0u; k < p.af_count; k++) {
			uint w = p.base + 4u * k;
			if (i < table[w] || i >= table[w + 1u] || j < table[w + 2u] || j >= table[w + 3u])
				continue;
			int g2 = 2 * int(g);
			int l = int(green(mirror(int(i) - 1, int(cells_x)), j)), rt = int(green(mirror(int(i) + 1, int(cells_x)), j));
			int up = int(green(i, mirror(int(j) - 1, int(cells_y)))), dn = int(green(i, mirror(int(j) + 1, int(cells_y))));
			atomicAdd(s_af[k], uint(abs(g2 - l - rt) + abs(g2 - up - dn)));
			atomicAdd(s_af_cells[k], 1u);
		}
	}
	barrier();

	// A workgroup's sums fit 32 bits (64 cells of at most 2^18); the frame's go into pairs.
	for (uint k = lid; k < 256u; k += 64u)
		if (s_hist[k] != 0u)
			atomicAdd(sums[HIST + k], s_hist[k]);
	for (uint zc = lid; zc < p.zones_x; zc += 64u) {
		uint z = ZONES + ((j * p.zones_y / cells_y) * p.zones_x + zc) * 8u;
		if (s_zone[zc * 5u + 4u] == 0u)
			continue;
		add64(z, s_zone[zc * 5u]);
		add64(z + 2u, s_zone[zc * 5u + 1u]);
		add64(z + 4u, s_zone[zc * 5u + 2u]);
		atomicAdd(sums[z + 6u], s_zone[zc * 5u + 3u]);
		atomicAdd(sums[z + 7u], s_zone[zc * 5u + 4u]);
	}
	if (lid < p.af_count && s_af_cells[lid] != 0u) {
		add64(AF + 4u * lid, s_af[lid]);
		atomicAdd(sums[AF + 4u * lid + 2u], s_af_cells[lid]);
	}
	if (lid == 0u)
		add64(ROWS + 2u * (j / p.row_group), s_row);
}
