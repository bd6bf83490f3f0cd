/* SPDX-License-Identifier: MIT */
/*
 * The vendor stages of one ISP instance: the stored state of their blocks,
 * and running them at their tap points. A stage runs on a frame when one of
 * its blocks is enabled. From the pipeline's side every stage works in
 * place on the planes at its tap: a trusted plugin writes into scratch
 * planes that are then copied back, a sandboxed one into its output memfd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "vendor_stage/vendor_internal.h"

struct stage_run {
	const struct vendor_stage *stage;
	struct sandbox *sb; /* sandboxed */
	void *state;        /* trusted: what create() made */
	bool created;
	uint64_t sequence;
	struct cisp_vendor_block_value value[CISP_VENDOR_MAX_STAGE_BLOCKS];
	uint8_t *payload[CISP_VENDOR_MAX_STAGE_BLOCKS]; /* max_payload bytes each */
};

struct vendor_instance {
	const struct cisp_vendor_host *host;
	struct cisp_vendor_stream stream;
	unsigned count;
	struct stage_run *run;
	uint16_t *scratch; /* trusted stages' output: 3 planes */
};

static unsigned tap_planes(unsigned tap)
{
	return tap == CISP_VENDOR_TAP_BAYER ? 1 : 3;
}

void vendor_instance_destroy(struct vendor_instance *vi)
{
	if (!vi)
		return;
	for (unsigned i = 0; i < vi->count; i++) {
		struct stage_run *r = &vi->run[i];

		sandbox_destroy(r->sb);
		if (r->created && r->stage->plugin->destroy)
			r->stage->plugin->destroy(r->state);
		for (unsigned b = 0; b < CISP_VENDOR_MAX_STAGE_BLOCKS; b++)
			free(r->payload[b]);
	}
	free(vi->run);
	free(vi->scratch);
	free(vi);
}

static int stage_start(struct vendor_instance *vi, struct stage_run *r)
{
	const struct vendor_stage *s = r->stage;
	struct cisp_vendor_stream stream = vi->stream;
	int ret;

	for (unsigned b = 0; b < s->decl.num_blocks; b++) {
		/* One byte more than declared so an empty payload still has an address. */
		r->payload[b] = calloc(1, s->decl.blocks[b].max_payload + 1);
		if (!r->payload[b])
			return cisp_error(-ENOMEM, "out of memory for the payloads of vendor stage %s", s->decl.name);
		r->value[b] = (struct cisp_vendor_block_value){ .type = s->decl.blocks[b].type, .payload = r->payload[b] };
	}
	stream.tap = s->decl.tap;
	if (!s->trusted)
		return sandbox_create(&r->sb, s, &stream, tap_planes(s->decl.tap));
	if (s->plugin->create && (ret = s->plugin->create(&r->state, &stream)))
		return cisp_error(vendor_status_error(ret), "vendor stage %s: create() failed (error %d)",
				  s->decl.name, ret);
	r->created = true;
	return 0;
}

int vendor_instance_create(struct vendor_instance **out, struct cisp_vendor_host *host, uint32_t width,
			   uint32_t height, unsigned cfa)
{
	struct vendor_instance *vi;
	bool trusted = false;
	int ret;

	*out = NULL;
	if (!host || !vendor_host_count(host))
		return 0;
	vi = calloc(1, sizeof(*vi));
	if (!vi || !(vi->run = calloc(vendor_host_count(host), sizeof(*vi->run)))) {
		free(vi);
		return cisp_error(-ENOMEM, "out of memory for vendor stages");
	}
	vi->host = host;
	vi->stream = (struct cisp_vendor_stream){ .width = width, .height = height, .cfa = cfa };
	for (unsigned i = 0; i < vendor_host_count(host); i++) {
		struct stage_run *r = &vi->run[vi->count++];

		r->stage = vendor_host_at(host, i);
		trusted |= r->stage->trusted;
		if ((ret = stage_start(vi, r))) {
			vendor_instance_destroy(vi);
			return ret;
		}
	}
	if (trusted && !(vi->scratch = malloc((size_t)width * height * 3 * sizeof(uint16_t)))) {
		vendor_instance_destroy(vi);
		return cisp_error(-ENOMEM, "out of memory for vendor stage output planes");
	}
	*out = vi;
	return 0;
}

void vendor_instance_limits(const struct vendor_instance *vi, struct cisp_params_limits *limits)
{
	if (!vi)
		return;
	limits->vendor = cisp_vendor_host_caps(vi->host, &limits->num_vendor);
	limits->blocks |= CISP_BLOCK_BIT(CISP_BLOCK_VENDOR);
}

static struct cisp_vendor_block_value *find_block(struct vendor_instance *vi, uint32_t vendor_id, unsigned type,
						  uint8_t **payload)
{
	for (unsigned i = 0; i < vi->count; i++) {
		struct stage_run *r = &vi->run[i];

		if (r->stage->decl.vendor_id != vendor_id)
			continue;
		for (unsigned b = 0; b < r->stage->decl.num_blocks; b++)
			if (r->value[b].type == type) {
				*payload = r->payload[b];
				return &r->value[b];
			}
	}
	return NULL;
}

void vendor_instance_apply(struct vendor_instance *vi, const void *buf, size_t size)
{
	const uint8_t *base = buf;

	if (!vi)
		return;
	for (size_t off = sizeof(struct cisp_params_header); off + sizeof(struct cisp_block_header) <= size;) {
		struct cisp_vendor_params h; /* the fixed fields only */
		struct cisp_vendor_block_value *v;
		uint8_t *payload;

		memcpy(&h.header, base + off, sizeof(h.header));
		if (h.header.type == CISP_BLOCK_VENDOR) /* validated: at least its fixed fields */
			memcpy(&h, base + off, offsetof(struct cisp_vendor_params, payload));
		if (h.header.type == CISP_BLOCK_VENDOR && (v = find_block(vi, h.vendor_id, h.type, &payload))) {
			/* Validated against the stage's caps: the payload fits its storage. */
			memcpy(payload, base + off + offsetof(struct cisp_vendor_params, payload), h.payload_size);
			v->version = h.version;
			v->size = h.payload_size;
			if (h.header.flags & CISP_BLOCK_FL_ENABLE)
				v->enabled = 1;
			else if (h.header.flags & CISP_BLOCK_FL_DISABLE)
				v->enabled = 0;
		}
		off += h.header.size;
	}
}

static bool any_enabled(const struct stage_run *r)
{
	for (unsigned b = 0; b < r->stage->decl.num_blocks; b++)
		if (r->value[b].enabled)
			return true;
	return false;
}

bool vendor_instance_active_at(const struct vendor_instance *vi, enum cisp_vendor_tap tap)
{
	for (unsigned i = 0; vi && i < vi->count; i++)
		if (vi->run[i].stage->decl.tap == (uint32_t)tap && any_enabled(&vi->run[i]))
			return true;
	return false;
}

static void image_of(struct cisp_vendor_image *img, const struct cisp_vendor_stream *s, unsigned n, uint16_t *plane[3],
		     uint32_t stride)
{
	*img = (struct cisp_vendor_image){ .width = s->width, .height = s->height, .num_planes = n, .stride = stride };
	for (unsigned c = 0; c < n; c++)
		img->plane[c] = plane[c];
}

/* A trusted stage: called directly, on the pipeline's planes and the scratch planes. */
static int run_trusted(struct vendor_instance *vi, struct stage_run *r, const struct plane16 *planes, unsigned n)
{
	const struct cisp_vendor_stream *s = &vi->stream;
	size_t plane_size = (size_t)s->width * s->height;
	char message[CISP_VENDOR_MESSAGE_MAX] = "";
	uint16_t *in[3], *out[3];
	struct cisp_vendor_frame frame = {
		.sequence = r->sequence,
		.num_blocks = r->stage->decl.num_blocks,
		.blocks = r->value,
		.message = message,
		.message_size = sizeof(message),
	};
	int ret;

	for (unsigned c = 0; c < n; c++) {
		in[c] = plane_row(&planes[c], 0);
		out[c] = vi->scratch + c * plane_size;
		if (planes[c].stride != planes[0].stride)
			return cisp_error(-EINVAL, "vendor stage %s: planes of different strides", r->stage->decl.name);
	}
	image_of(&frame.in, s, n, in, (uint32_t)planes[0].stride);
	image_of(&frame.out, s, n, out, s->width);
	ret = r->stage->plugin->process(r->state, &frame);
	if (ret) {
		message[sizeof(message) - 1] = '\0';
		return cisp_error(vendor_status_error(ret), "failed: %s (error %d)",
				  message[0] ? message : "no message", ret);
	}
	for (unsigned c = 0; c < n; c++)
		for (uint32_t y = 0; y < s->height; y++)
			memcpy(plane_row(&planes[c], (int)y), out[c] + (size_t)y * s->width, s->width * sizeof(uint16_t));
	return 0;
}

int vendor_instance_run(struct vendor_instance *vi, enum cisp_vendor_tap tap, const struct plane16 *planes,
			unsigned n)
{
	int ret;

	if (!vi)
		return 0;
	for (unsigned i = 0; i < vi->count; i++) {
		struct stage_run *r = &vi->run[i];
		const struct vendor_stage *s = r->stage;

		if (s->decl.tap != (uint32_t)tap || !any_enabled(r))
			continue;
		if (n != tap_planes(tap))
			return cisp_error(-EINVAL, "vendor stage %s: %u planes at the %s tap", s->decl.name, n,
					  cisp_vendor_tap_name(tap));
		ret = s->trusted ? run_trusted(vi, r, planes, n) : sandbox_run(r->sb, planes, r->value, r->sequence);
		r->sequence++;
		if (ret)
			return cisp_error_prefix(ret, "vendor stage %s (%s tap)", s->decl.name, cisp_vendor_tap_name(tap));
	}
	return 0;
}

int vendor_instance_helper_pid(const struct vendor_instance *vi, unsigned index)
{
	return vi && index < vi->count && vi->run[index].sb ? sandbox_pid(vi->run[index].sb) : -1;
}

unsigned vendor_instance_restarts(const struct vendor_instance *vi, unsigned index)
{
	return vi && index < vi->count && vi->run[index].sb ? sandbox_restarts(vi->run[index].sb) : 0;
}
