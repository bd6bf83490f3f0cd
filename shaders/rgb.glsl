// SPDX-License-Identifier: MIT
// What the RGB-side stage shaders share (docs/gpu.md, "The RGB side"): a
// frame of three planes (R, G, B, or Y, Cb, Cr after the conversion) and a
// fourth for a stage's scratch (sharpening's luma), one 32-bit word per
// 16-bit sample, plane c at c * width * height, rows packed;
// one invocation per pixel, workgroups of 64 pixels by one row.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// Reflection at the frame's edges, as mirror() in src/core/plane.h.
int mirror(int i, int n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * (n - 1) - i;
	return i;
}

// clamp(v, 0, 65535), as clamp16() in src/isp/arith.h.
uint clamp16(int v)
{
	return uint(clamp(v, 0, 65535));
}

// round(v * 255 / 65535): cisp_to8(); 65535 * 255 + 32767 fits in 32 bits unsigned.
uint to8(uint v)
{
	return (v * 255u + 32767u) / 65535u;
}
