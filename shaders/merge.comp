// SPDX-License-Identifier: MIT
// merge (src/isp/merge.c, cisp_merge_rows): one step of an exposure bracket's
// merge, the merge so far (at the longer exposure) with the next, shorter frame.
// Out of place: every invocation reads the merge so far as it was, which is what
// the C row's copy of the last four originals gives it.
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Frame { uint frame[]; }; // the shorter frame
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Acc { uint acc[]; };     // the merge so far
layout(push_constant) uniform Params {
	uint width, height;
	int scale; // Q2.14, cisp_merge_prepare()
} p;

// src/isp/merge.h
const int KNEE = 57344, WIDTH_SHIFT = 12, WIDTH = 1 << WIDTH_SHIFT;
const int GHOST_FLOOR = 192, GHOST_SHIFT = 2;

int acc_at(uint row, int x)
{
	uint pair = acc[row + uint(x) / 2u];
	return int((x & 1) != 0 ? hi16(pair) : lo16(pair));
}

int frame_at(uint row, int x)
{
	uint pair = frame[row + uint(x) / 2u];
	return int((x & 1) != 0 ? hi16(pair) : lo16(pair));
}

// Column @c reflected into a row of width @w keeping its colour; @x where it still falls outside.
int same_colour(int c, int w, int x)
{
	c = c < 0 ? -c : c >= w ? 2 * (w - 1) - c : c;
	return c < 0 || c >= w ? x : c;
}

// The scaled longer frame minus the shorter one, smoothed over 5 same-colour columns, against 192 + s/4.
bool ghost_at(uint row, int x, int w)
{
	const int tap[5] = int[5](-4, -2, 0, 2, 4), weight[5] = int[5](1, 2, 2, 2, 1);
	int sum = 0, limit = 8 * (GHOST_FLOOR + (frame_at(row, x) >> GHOST_SHIFT));

	for (int k = 0; k < 5; k++) {
		int c = same_colour(x + tap[k], w, x), a = acc_at(row, c);
		// 65535 * 16384 + 8192 < 2^31; |sum| <= 8 * 65535.
		if (a < KNEE)
			sum += weight[k] * (((a * p.scale + 8192) >> 14) - frame_at(row, c));
	}
	return sum > limit || -sum > limit;
}

uint merged(int a, int s, bool ghost)
{
	int scaled = (a * p.scale + 8192) >> 14, t = ghost ? WIDTH : clamp(a - KNEE, 0, WIDTH);
	// 65535 * 4096 + 2048 < 2^31.
	return uint((scaled * (WIDTH - t) + s * t + WIDTH / 2) >> WIDTH_SHIFT);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	uint row = y * (p.width / 2u), i = row + px;
	int w = int(p.width), x = 2 * int(px); // the width is even: x + 1 is in the row
	// One decision for the pair's two colours, so that a pixel does not change colour.
	bool ghost = ghost_at(row, x, w) || ghost_at(row, x + 1, w);
	uint a = acc[i], s = frame[i];
	dst[i] = merged(int(lo16(a)), int(lo16(s)), ghost) | (merged(int(hi16(a)), int(hi16(s)), ghost) << 16);
}
