/* SPDX-License-Identifier: MIT */
/*
 * A well-behaved test plugin, built once per tap point (PROBE_TAP): vendor
 * 0xffff0100 + tap, block 1 ("add", version 1..2, up to 64 bytes). Output
 * sample = min(input + add * (plane + 1), 65535), where add is the payload's
 * first u16 (0 without payload). Version 2 also fails the job when the
 * payload's second u16 equals the frame's sequence number, with a message.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <cisp/vendor.h>

static int process(void *state, const struct cisp_vendor_frame *f)
{
	const struct cisp_vendor_block_value *b = &f->blocks[0];
	const uint8_t *p = b->payload;
	unsigned add = b->size >= 2 ? (unsigned)(p[0] | p[1] << 8) : 0;

	(void)state;
	if (b->version == 2 && b->size >= 4 && (unsigned)(p[2] | p[3] << 8) == f->sequence) {
		snprintf(f->message, f->message_size, "probe refuses frame %llu", (unsigned long long)f->sequence);
		return -EDOM;
	}
	for (uint32_t c = 0; c < f->in.num_planes; c++)
		for (uint32_t y = 0; y < f->in.height; y++)
			for (uint32_t x = 0; x < f->in.width; x++) {
				unsigned v = f->in.plane[c][(size_t)y * f->in.stride + x] + add * (c + 1);

				f->out.plane[c][(size_t)y * f->out.stride + x] = (uint16_t)(v > 65535 ? 65535 : v);
			}
	return 0;
}

const struct cisp_vendor_plugin cisp_vendor_plugin = {
	.abi_version = CISP_VENDOR_PLUGIN_ABI,
	.vendor_id = 0xffff0100u + PROBE_TAP,
	.name = "test-probe",
	.vendor_name = "cisp tests",
	.tap = PROBE_TAP,
	.num_blocks = 1,
	.blocks = { { .type = 1, .min_version = 1, .max_version = 2, .max_payload = 64, .name = "add" } },
	.process = process,
};
