/* SPDX-License-Identifier: MIT */
/*
 * Exposure brackets (docs/hdr.md): a request whose bracket lists 2..8
 * exposure offsets gets its frames captured at the base exposure times
 * 2^ev, each exposure queued for its frame with the sensor's delays, checked
 * against the frame's metadata, merged by one CISP_JOB_MERGE_HDR job and
 * tone-mapped locally. The merged frame is linear at the shortest exposure's
 * scale; its job's LTM grid multiplies it back to the base exposure's
 * brightness, except where that would clip, and the loop meters it as a frame
 * of the base exposure, so AE converges on brackets as on single frames.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/fence.h>
#include <cisp/format.h>

#include "camera_internal.h"
#include "control/ltm_grid.h"
#include "control/tuning.h"
#include "core/error_internal.h"
#include "isp/merge.h"

/* LTM strength for merged frames when the tuning's ltm section leaves it at 0 (off). */
#define HDR_LTM_STRENGTH 0.7
/* A region's gain stops its mean this far (1/256 stop) under full scale: its brighter pixels keep room. */
#define HDR_HEADROOM 128

int camera_bracket_check(const struct cisp_camera *cam, const struct cisp_camera_request *req)
{
	const struct cisp_camera_bracket *b = &req->bracket;
	double lo = INFINITY, hi = -INFINITY;

	if (!b->count)
		return 0;
	if (b->count < 2 || b->count > CISP_BRACKET_MAX_FRAMES)
		return cisp_error(-EINVAL, "bracket: %u exposures; a bracket has 2..%d", b->count,
				  CISP_BRACKET_MAX_FRAMES);
	if (req->buffer[CISP_STREAM_RAW] &&
	    cam->config.stream[CISP_STREAM_RAW].format != cisp_bayer_format(cam->mode.cfa, 16, false))
		return cisp_error(-EINVAL, "bracket: its raw buffer gets the merged linear frame: the raw stream must be "
				  "16-bit Bayer, not %s", cisp_format_name(cam->config.stream[CISP_STREAM_RAW].format));
	for (unsigned k = 0; k < b->count; k++) {
		if (!isfinite(b->ev[k]) || fabs(b->ev[k]) > 8)
			return cisp_error(-EINVAL, "bracket: exposure %u is %g stops; offsets are -8..8", k, b->ev[k]);
		lo = fmin(lo, b->ev[k]);
		hi = fmax(hi, b->ev[k]);
	}
	if (exp2(hi - lo) > CISP_BRACKET_MAX_RATIO)
		return cisp_error(-EINVAL, "bracket: exposures %g to %g stops are %g stops apart; at most %g (ratio %d)",
				  lo, hi, hi - lo, log2(CISP_BRACKET_MAX_RATIO), CISP_BRACKET_MAX_RATIO);
	return 0;
}

void camera_bracket_free(struct cisp_camera *cam)
{
	for (unsigned k = 0; k < CISP_BRACKET_MAX_FRAMES; k++)
		cisp_image_free(&cam->bracket_raw[k]);
}

/*
 * The exposure of each frame, in lines: the base exposure the sensor will
 * use at frame @first times 2^ev, each rounded down to the control's step
 * and kept inside the frame. Only the frames that do not fit change: the
 * base stays what AE chose, so that AE's metering of the merged frame
 * stays true (the merge takes the exposures the frames really had).
 */
static int plan_exposures(struct cisp_camera *cam, const struct cisp_camera_bracket *b, uint64_t first,
			  int32_t *lines, int32_t *base)
{
	struct cisp_sensor_control_info info;
	struct cisp_sensor_controls now;
	double fit;
	int r;

	r = cisp_sensor_control_info(cam->sensor, CISP_SENSOR_EXPOSURE, &info);
	if (!r && !info.supported)
		r = cisp_error(-ENOTSUP, "bracket: the sensor has no exposure control");
	if (!r)
		r = cisp_sensor_predict_controls(cam->sensor, first, &now);
	if (r)
		return r;
	fit = info.max;
	*base = now.value[CISP_SENSOR_EXPOSURE];
	if (now.mask & (1u << CISP_SENSOR_FRAME_LENGTH))
		fit = fmin(fit, (double)now.value[CISP_SENSOR_FRAME_LENGTH] - cam->mode.exposure_margin);
	for (unsigned k = 0; k < b->count; k++) {
		double v = fmin(now.value[CISP_SENSOR_EXPOSURE] * exp2(b->ev[k]), fit);
		int32_t step = info.step > 0 ? info.step : 1;
		int32_t l = (int32_t)fmin(fmax(floor(v), info.min), info.max);

		lines[k] = info.min + (l - info.min) / step * step;
	}
	return 0;
}

/* A frame's exposure as the merge weighs it: lines times both gains. */
static double light(const struct cisp_sensor_metadata *md)
{
	return (double)md->controls[CISP_SENSOR_EXPOSURE] * md->controls[CISP_SENSOR_ANALOGUE_GAIN] *
	       md->controls[CISP_SENSOR_DIGITAL_GAIN];
}

/* Each frame's relative exposure for the merge, the longest at 2^24. */
static int relative_exposures(const struct cisp_sensor_metadata *md, unsigned count, uint32_t *exposure)
{
	double e[CISP_BRACKET_MAX_FRAMES], lo = INFINITY, hi = 0;

	for (unsigned k = 0; k < count; k++) {
		e[k] = light(&md[k]);
		lo = fmin(lo, e[k]);
		hi = fmax(hi, e[k]);
	}
	if (!(lo > 0) || hi > lo * CISP_BRACKET_MAX_RATIO)
		return cisp_error(-ERANGE, "bracket: the frames' exposures span %g..%g (exposure x gains); the merge takes a ratio of at most %d",
				  lo, hi, CISP_BRACKET_MAX_RATIO);
	for (unsigned k = 0; k < count; k++)
		exposure[k] = (uint32_t)lround(e[k] / hi * 16777216.0);
	return 0;
}

/*
 * Queue each frame's exposure (and the base again after the bracket), then
 * capture up to the bracket's last frame; the frames before its first are
 * the ones the exposure delay makes wait, and are dropped.
 */
static int capture_bracket(struct cisp_camera *cam, const struct cisp_camera_bracket *b,
			   struct cisp_sensor_metadata *md, int32_t *base_lines)
{
	struct cisp_sensor_control_info info;
	struct cisp_sensor_controls c = { 0 }, base;
	int32_t lines[CISP_BRACKET_MAX_FRAMES];
	uint64_t first;
	int r;

	r = cisp_sensor_control_info(cam->sensor, CISP_SENSOR_EXPOSURE, &info);
	if (r)
		return r;
	first = cisp_sensor_next_sequence(cam->sensor) + info.delay;
	r = cisp_sensor_predict_controls(cam->sensor, first + b->count, &base);
	if (!r)
		r = plan_exposures(cam, b, first, lines, base_lines);
	for (unsigned k = 0; !r && k < b->count; k++) {
		cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, lines[k]);
		r = cisp_sensor_queue_controls(cam->sensor, first + k, &c);
	}
	if (r)
		return cisp_error_prefix(r, "bracket: queueing the exposures");
	/* The frames after the bracket go back to what the loop had set for them. */
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, base.value[CISP_SENSOR_EXPOSURE]);
	r = cisp_sensor_queue_controls(cam->sensor, first + b->count, &c);
	if (r)
		return cisp_error_prefix(r, "bracket: queueing the exposure after it");

	for (unsigned k = 0; !r && k < b->count; k++)
		if (!cam->bracket_raw[k].owned)
			r = cisp_image_alloc(&cam->bracket_raw[k], cam->raw_format, cam->mode.width, cam->mode.height);
	if (r)
		return r;
	for (uint64_t seq = cisp_sensor_next_sequence(cam->sensor); seq < first + b->count;
	     seq = cisp_sensor_next_sequence(cam->sensor)) {
		unsigned k = seq < first ? 0 : (unsigned)(seq - first);
		struct cisp_sensor_metadata m;

		r = cisp_sensor_capture(cam->sensor, &cam->bracket_raw[k], &m, 0);
		if (r)
			return cisp_error_prefix(r, "bracket: capture");
		if (m.sequence < first)
			continue;
		k = (unsigned)(m.sequence - first);
		if (m.sequence != seq)
			return cisp_error(-EIO, "bracket: the sensor dropped frames %llu..%llu of the bracket",
					  (unsigned long long)seq, (unsigned long long)m.sequence - 1);
		if (m.controls[CISP_SENSOR_EXPOSURE] != lines[k])
			return cisp_error(-EIO, "bracket: frame %llu was exposed %d lines, not the %d asked for; not merged",
					  (unsigned long long)m.sequence, m.controls[CISP_SENSOR_EXPOSURE], lines[k]);
		md[k] = m;
	}
	return 0;
}

/* Row @y of a bracket frame, black level off, white at 65535, as the ISP's BLC gives the merge. */
static void linear_row(const struct cisp_camera *cam, const struct cisp_image *raw, uint32_t y, uint16_t *out)
{
	const uint16_t *in = (const uint16_t *)(raw->plane[0].data + (size_t)y * raw->plane[0].stride);
	unsigned shift = cisp_format_info(raw->format)->bits - cam->mode.bits; /* 16-bit containers: shifted up */
	int64_t black = (int64_t)cam->mode.black_level << shift, range = ((int64_t)cam->mode.white_level << shift) - black;

	for (uint32_t x = 0; x < raw->width; x++) {
		int64_t v = ((int64_t)in[x] - black) * 65535;

		v = v <= 0 ? 0 : (v + range / 2) / range;
		out[x] = (uint16_t)(v > 65535 ? 65535 : v);
	}
}

/*
 * The merged linear Bayer frame for the request's raw buffer (16-bit, black
 * 0, white 65535, at the shortest exposure's scale): the merge stage's
 * arithmetic on the frames with their black level taken off, without the
 * ISP's defect and shading corrections (docs/hdr.md).
 */
static int merged_raw(struct cisp_camera *cam, struct cisp_image *out, const uint32_t *exposure, unsigned count)
{
	unsigned order[CISP_BRACKET_MAX_FRAMES];
	uint16_t *row = malloc((size_t)out->width * sizeof(*row));

	if (!row)
		return cisp_error(-ENOMEM, "bracket: out of memory for the merged raw frame");
	cisp_merge_order(exposure, count, order);
	for (uint32_t y = 0; y < out->height; y++) {
		uint16_t *acc = (uint16_t *)(out->plane[0].data + (size_t)y * out->plane[0].stride);
		struct plane16 a = { acc, (ptrdiff_t)out->width, (int)y, (int)out->width, (int)out->height };
		struct plane16 f = { row, (ptrdiff_t)out->width, (int)y, (int)out->width, (int)out->height };

		linear_row(cam, &cam->bracket_raw[order[0]], y, acc);
		for (unsigned k = 1; k < count; k++) {
			struct cisp_merge_coeffs c;

			linear_row(cam, &cam->bracket_raw[order[k]], y, row);
			cisp_merge_prepare(&c, exposure[order[k - 1]], exposure[order[k]]);
			cisp_merge_rows(&c, &a, &f, &a, (int)y, (int)y + 1);
		}
	}
	free(row);
	return 0;
}

/*
 * The LTM grid of the next merge job, from the merged frame's statistics
 * (@cam->stats, at the scale of the base exposure / @gain): the loop's LTM
 * arithmetic with the target at that scale, each gain then times @gain (the
 * base exposure's brightness) but at most what puts the region's mean
 * HDR_HEADROOM under full scale, and never under 1: the highlights that a
 * single frame clips keep the shortest frame's levels.
 */
static void next_ltm_grid(struct cisp_camera *cam, const double colour_gains[2], double gain)
{
	const double wb[3] = { colour_gains[0], 1, colour_gains[1] };
	struct ltm_tuning t = cam->tuning->ltm;
	struct cisp_ltm_params *g = &cam->bracket_ltm;

	if (!(t.strength > 0))
		t.strength = HDR_LTM_STRENGTH;
	cam->bracket_ltm_ready = !control_ltm_grid(cam->stats, wb, cam->tuning->ae.target / gain, &t, g);
	if (!cam->bracket_ltm_ready)
		return;
	for (int k = 0, n = g->grid_w * g->grid_h; k < n; k++) {
		double room = exp2((4095.0 - HDR_HEADROOM - g->node[k]) / 256);
		double total = g->node[n + k] / 256.0 * gain;

		total = fmin(total, fmax(room, 1));
		g->node[n + k] = (uint16_t)fmin(fmax(lround(total * 256), 16), 4095);
	}
}

/* The merge job's LTM grid: the one from the last merged frame, else @gain everywhere (a bracket's first). */
static void merge_ltm_grid(const struct cisp_camera *cam, double gain, struct cisp_ltm_params *out)
{
	if (cam->bracket_ltm_ready) {
		*out = cam->bracket_ltm;
		return;
	}
	memset(out, 0, sizeof(*out));
	out->header.type = CISP_BLOCK_LTM;
	out->header.size = sizeof(*out);
	out->grid_w = out->grid_h = 2;
	out->range = 384;
	for (int k = 4; k < 8; k++)
		out->node[k] = (uint16_t)fmin(fmax(lround(gain * 256), 16), 4095);
}

/*
 * The merged frame's statistics as a frame of the base exposure (@gain times
 * the merged frame's) would have them, for the loop: the zones' means times
 * @gain up to full scale, the luma histogram's cells moved to their bins at
 * that scale (the top bin gathers what would clip). AE, AWB and LTM meter these.
 */
static void stats_at_base(struct cisp_stats *st, double gain)
{
	uint32_t hist[256] = { 0 };

	for (unsigned k = 0; k < st->zones_x * st->zones_y; k++) {
		struct cisp_stats_zone *z = &st->zone[k];

		z->r = (uint16_t)fmin(lround(z->r * gain), 65535);
		z->g = (uint16_t)fmin(lround(z->g * gain), 65535);
		z->b = (uint16_t)fmin(lround(z->b * gain), 65535);
	}
	for (unsigned b = 0; b < 256; b++)
		hist[(unsigned)fmin((b + 0.5) * gain, 255)] += st->hist[b];
	memcpy(st->hist, hist, sizeof(hist));
}

/*
 * One merge job of the captured frames into the request's outputs, waited
 * for. Its LTM grid (merge_ltm_grid()) replaces the loop's for this job
 * alone: the loop's goes back into the state and the next job's parameters.
 */
static int merge_bracket(struct cisp_camera *cam, struct cisp_camera_request *req,
			 const struct cisp_sensor_metadata *md, double gain)
{
	const uint32_t ltm_bit = CISP_BLOCK_BIT(CISP_BLOCK_LTM);
	struct cisp_ltm_params loop_ltm = cam->params.ltm;
	uint32_t loop_enabled = cam->params.enabled;
	struct cisp_job_result result = { 0 };
	struct cisp_job job = { 0 };
	struct cisp_fence *fence;
	int r;

	merge_ltm_grid(cam, gain, &cam->params.ltm);
	cam->params.enabled |= ltm_bit;
	r = camera_encode_delta(cam, cam->delta_blocks | ltm_bit);
	cam->params.ltm = loop_ltm;
	cam->params.enabled = loop_enabled;
	if (r)
		return cisp_error_prefix(r, "camera %s: the merge's LTM grid", cam->name);

	job.mode = CISP_JOB_MERGE_HDR;
	job.num_inputs = req->bracket.count;
	for (unsigned k = 0; k < job.num_inputs; k++)
		job.input[k] = &cam->bracket_raw[k];
	r = relative_exposures(md, job.num_inputs, job.exposure);
	if (r)
		return r;
	camera_job_outputs(cam, req, &job);
	job.result = &result;
	if (req->buffer[CISP_STREAM_RAW]) {
		r = merged_raw(cam, req->buffer[CISP_STREAM_RAW], job.exposure, job.num_inputs);
		if (r)
			return r;
	}
	r = cisp_job_submit(cam->ctx, &job, &fence);
	if (r)
		return cisp_error_prefix(r, "camera %s: merge job", cam->name);
	cam->delta_size = 0;
	cam->delta_blocks = 0;
	r = cisp_fence_wait(fence, -1);
	cisp_fence_unref(fence);
	req->metadata.isp_ns = result.end_ns > result.submit_ns ? result.end_ns - result.submit_ns : 0;
	if (r)
		return cisp_error(r, "merge job failed: %.100s", result.message[0] ? result.message : "no message");
	return 0;
}

void camera_bracket_run(struct cisp_camera *cam, struct cisp_camera_request *req)
{
	const struct cisp_camera_bracket *b = &req->bracket;
	struct cisp_sensor_metadata md[CISP_BRACKET_MAX_FRAMES], base;
	struct cisp_camera_merged *merged = &req->metadata.merged;
	unsigned shortest = 0;
	int32_t base_lines = 0;
	double gain;
	int r;

	cisp_clear_error();
	if (req->controls.mask) {
		r = cisp_control_request(cam->loop, &req->controls);
		if (r)
			return camera_request_fail(req, cisp_error_prefix(r, "request controls"));
	}
	r = capture_bracket(cam, b, md, &base_lines);
	if (r)
		return camera_request_fail(req, cisp_error_prefix(r, "camera %s", cam->name));
	for (unsigned k = 0; k < b->count; k++) {
		if (light(&md[k]) < light(&md[shortest]))
			shortest = k;
		merged->sequence[k] = md[k].sequence;
		merged->exposure_us[k] = (double)md[k].exposure_ns / 1000.0;
		merged->analogue_gain[k] = md[k].controls[CISP_SENSOR_ANALOGUE_GAIN] / (double)CISP_SENSOR_GAIN_ONE;
	}
	merged->count = b->count;
	/* The merged frame is linear at the shortest exposure's scale: its metadata describes it. */
	camera_frame_metadata(cam, &req->metadata, &md[shortest]);
	/* The base exposure's light over the shortest frame's (the frames share their gains). */
	if (base_lines <= 0 || md[shortest].controls[CISP_SENSOR_EXPOSURE] <= 0)
		return camera_request_fail(req, cisp_error(-ERANGE, "camera %s: bracket of base exposure %d lines, shortest %d",
							   cam->name, base_lines, md[shortest].controls[CISP_SENSOR_EXPOSURE]));
	gain = (double)base_lines / md[shortest].controls[CISP_SENSOR_EXPOSURE];
	r = merge_bracket(cam, req, md, gain);
	if (r) {
		camera_request_fail(req, r);
		/* The device may have taken the merge's grid: the next job gets the loop's LTM state again. */
		(void)camera_encode_delta(cam, cam->delta_blocks | CISP_BLOCK_BIT(CISP_BLOCK_LTM));
		return;
	}
	next_ltm_grid(cam, cam->next_gains, gain);
	/* The loop sees a frame of the base exposure: its statistics and its exposure. */
	stats_at_base(cam->stats, gain);
	base = md[shortest];
	base.controls[CISP_SENSOR_EXPOSURE] = base_lines;
	base.exposure_ns = (uint64_t)llround((double)md[shortest].exposure_ns * gain);
	camera_frame_control(cam, req, &base);
	/* The loop's parameters after it go to the next job, its LTM state included (the merge job had its own). */
	if (!req->status && !(cam->delta_blocks & CISP_BLOCK_BIT(CISP_BLOCK_LTM))) {
		r = camera_encode_delta(cam, cam->delta_blocks | CISP_BLOCK_BIT(CISP_BLOCK_LTM));
		if (r)
			camera_request_fail(req, cisp_error_prefix(r, "camera %s: parameters after a bracket", cam->name));
	}
}
