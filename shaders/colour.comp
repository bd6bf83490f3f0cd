// SPDX-License-Identifier: MIT
// The per-pixel colour stages fused (docs/gpu.md, "The fused colour
// dispatch"): colour correction (src/isp/ccm.c), local tone mapping (ltm.c),
// global tone (tone.c) and the 3D LUT (lut3d.c), those of @stages in that
// order (the reference executor's), on each pixel in registers, in place: one
// read and one write of the planes for all of them.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
#include "colour.glsl"

const uint COLOUR_CCM = 1u, COLOUR_LTM = 2u, COLOUR_TONE = 4u, COLOUR_LUT3D = 8u;

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

	if ((p.stages & COLOUR_CCM) != 0u) {
		int m[9];
		for (int k = 0; k < 9; k++)
			m[k] = bitfieldExtract(p.ccm_m[k >> 1], (k & 1) * 16, 16); // sign-extended
		v = ccm(v, m, ivec3(p.ccm_offset[0], p.ccm_offset[1], p.ccm_offset[2]));
	}
	if ((p.stages & COLOUR_LTM) != 0u)
		v = ltm(v, x, y);
	if ((p.stages & COLOUR_TONE) != 0u)
		v = tone(v);
	if ((p.stages & COLOUR_LUT3D) != 0u)
		v = lut3d(v, p.lut3d_size);
	rgb[i] = v.r;
	rgb[n + i] = v.g;
	rgb[2u * n + i] = v.b;
}
