// SPDX-License-Identifier: MIT
// The per-pixel colour stages fused (docs/gpu.md, "The fused colour
// dispatch"): colour correction (src/isp/ccm.c), local tone mapping (ltm.c),
// global tone (tone.c), the 3D LUT (lut3d.c), sharpening's luma into plane 3
// (sharpen.c) and the conversion to YCbCr (csc.c), those of @stages in that
// order (the reference executor's), on each pixel in registers, in place: one
// read and one write of the planes for all of them.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
#include "colour.glsl"

layout(push_constant) uniform Params {
	uint width, height;
	uint stages;     // COLOUR_* bits
	int lut3d_size;  // the 3D LUT's nodes per edge
	int ccm_m[5];    // the matrix, Q3.12, row-major, two 16-bit entries a word (the even one low)
	int ccm_offset[3];
} p;

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	uvec3 v = uvec3(rgb[i], rgb[n + i], rgb[2u * n + i]);

	v = colour_stages(v, x, y, p.stages, p.ccm_m, p.ccm_offset, p.lut3d_size);
	if ((p.stages & COLOUR_LUMA) != 0u)
		rgb[3u * n + i] = sharpen_luma(v);
	if ((p.stages & COLOUR_CSC) != 0u)
		v = csc(v);
	rgb[i] = v.r;
	rgb[n + i] = v.g;
	rgb[2u * n + i] = v.b;
}
