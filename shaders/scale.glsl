// SPDX-License-Identifier: MIT
// Crop and scale of an output (src/isp/scale.c, cisp_scale_rows()): output
// pixel (i, j) of each plane from the window at (x, y) of the frame, with the
// host scaler's own tables (backend_vulkan_output.c): the horizontal pass of
// each input row it covers rounded to Q1 as the reference's, then the
// vertical one. A crop alone runs through it with one weight of 16384 a
// sample, which gives the sample back unchanged. Before it: the planes
// (rgb[]) and the tables (table[]).
layout(push_constant) uniform Params {
	uint width, height;  // the frame's
	uint out_w, out_h;   // the output's
	uint x, y;           // the window's top left corner in the frame
	uint h_taps, v_taps; // weights per output sample on each axis
	uint tables;         // word offset of: h start[out_w], h weights[out_w * h_taps], v start[out_h], v weights
	uint place;          // pack_scaled.comp's output: as pack_fused.comp's
} p;

uvec3 scaled_at(uint i, uint j)
{
	uint h_start = p.tables, h_weights = h_start + p.out_w, v_start = h_weights + p.out_w * p.h_taps,
	     v_weights = v_start + p.out_h;
	uint frame = p.width * p.height, column = p.x + table[h_start + i], top = p.y + table[v_start + j];
	uvec3 v;
	for (uint c = 0u; c < 3u; c++) {
		// Weights sum to 16384 on each axis: 16384 * 65535 + 4096 and
		// 16384 + 16384 * 131070 stay below 2^31, as the reference's int32.
		uint acc = 16384u;
		for (uint k = 0u; k < p.v_taps; k++) {
			uint wv = table[v_weights + j * p.v_taps + k];
			if (wv == 0u)
				continue; // padding: adds nothing
			uint row = c * frame + (top + k) * p.width + column, sum = 4096u;
			for (uint t = 0u; t < p.h_taps; t++)
				sum += table[h_weights + i * p.h_taps + t] * rgb[row + t];
			acc += wv * (sum >> 13u);
		}
		v[c] = acc >> 15u;
	}
	return v;
}
