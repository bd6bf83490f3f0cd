// SPDX-License-Identifier: MIT
// What every stage shader shares: 16-bit samples, two to a uint (the even
// column in the low half), rows tightly packed; one invocation per pair.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

uint lo16(uint pair)
{
	return pair & 0xffffu;
}

uint hi16(uint pair)
{
	return pair >> 16;
}
