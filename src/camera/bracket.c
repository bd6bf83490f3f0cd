/* SPDX-License-Identifier: MIT */
/*
 * Exposure brackets (docs/hdr.md): a request whose bracket lists 2..8
 * exposure offsets gets its frames captured at the base exposure times
 * 2^ev, each exposure queued for its frame with the sensor's delays, checked
 * against the frame's metadata, merged by one CISP_JOB_MERGE_HDR job and
 * tone-mapped locally. The loop then meters the merged frame as a frame of
 * the bracket's shortest exposure (its scale), so the next base exposure is
 * the one that puts the scene's mean at the AE target.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/fence.h>

#include "camera_internal.h"
#include "control/tuning.h"
#include "core/error_internal.h"

/* LTM strength for merged frames when the tuning's ltm section leaves it at 0 (off). */
#define HDR_LTM_STRENGTH 0.7

int camera_bracket_check(const struct cisp_camera *cam, const struct cisp_camera_request *req)
{
	const struct cisp_camera_bracket *b = &req->bracket;
	double lo = INFINITY, hi = -INFINITY;

	(void)cam;
	if (!b->count)
		return 0;
	if (b->count < 2 || b->count > CISP_BRACKET_MAX_FRAMES)
		return cisp_error(-EINVAL, "bracket: %u exposures; a bracket has 2..%d", b->count,
				  CISP_BRACKET_MAX_FRAMES);
	if (req->buffer[CISP_STREAM_RAW])
		return cisp_error(-EINVAL, "bracket: a bracket request takes no raw buffer (its frames are merged)");
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
 * use at frame @first times 2^ev, all scaled down together when the
 * longest would not fit the frame, each rounded down to the control's step.
 */
static int plan_exposures(struct cisp_camera *cam, const struct cisp_camera_bracket *b, uint64_t first,
			  int32_t *lines)
{
	struct cisp_sensor_control_info info;
	struct cisp_sensor_controls now;
	double want[CISP_BRACKET_MAX_FRAMES], longest = 0, fit;
	int r;

	r = cisp_sensor_control_info(cam->sensor, CISP_SENSOR_EXPOSURE, &info);
	if (!r && !info.supported)
		r = cisp_error(-ENOTSUP, "bracket: the sensor has no exposure control");
	if (!r)
		r = cisp_sensor_predict_controls(cam->sensor, first, &now);
	if (r)
		return r;
	fit = info.max;
	if (now.mask & (1u << CISP_SENSOR_FRAME_LENGTH))
		fit = fmin(fit, (double)now.value[CISP_SENSOR_FRAME_LENGTH] - cam->mode.exposure_margin);
	for (unsigned k = 0; k < b->count; k++) {
		want[k] = now.value[CISP_SENSOR_EXPOSURE] * exp2(b->ev[k]);
		longest = fmax(longest, want[k]);
	}
	for (unsigned k = 0; k < b->count; k++) {
		double v = longest > fit ? want[k] * fit / longest : want[k];
		int32_t step = info.step > 0 ? info.step : 1;
		int32_t l = (int32_t)fmin(fmax(floor(v), info.min), info.max);

		lines[k] = info.min + (l - info.min) / step * step;
	}
	return 0;
}

/* Each frame's relative exposure for the merge: lines times both gains, the longest at 2^24. */
static int relative_exposures(const struct cisp_sensor_metadata *md, unsigned count, uint32_t *exposure)
{
	double e[CISP_BRACKET_MAX_FRAMES], lo = INFINITY, hi = 0;

	for (unsigned k = 0; k < count; k++) {
		e[k] = (double)md[k].controls[CISP_SENSOR_EXPOSURE] * md[k].controls[CISP_SENSOR_ANALOGUE_GAIN] *
		       md[k].controls[CISP_SENSOR_DIGITAL_GAIN];
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
			   struct cisp_sensor_metadata *md)
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
		r = plan_exposures(cam, b, first, lines);
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

/* One merge job of the captured frames into the request's outputs, waited for. */
static int merge_bracket(struct cisp_camera *cam, struct cisp_camera_request *req,
			 const struct cisp_sensor_metadata *md)
{
	struct cisp_job_result result = { 0 };
	struct cisp_job job = { 0 };
	struct cisp_fence *fence;
	int r;

	job.mode = CISP_JOB_MERGE_HDR;
	job.num_inputs = req->bracket.count;
	for (unsigned k = 0; k < job.num_inputs; k++)
		job.input[k] = &cam->bracket_raw[k];
	r = relative_exposures(md, job.num_inputs, job.exposure);
	if (r)
		return r;
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++)
		if (cam->config.stream[o].format)
			job.output[o] = req->buffer[o] ? req->buffer[o] : &cam->scratch[o];
	job.stats = cam->stats;
	job.params = cam->delta_size ? cam->delta : NULL;
	job.params_size = cam->delta_size;
	job.result = &result;
	r = cisp_job_submit(cam->ctx, &job, &fence);
	if (r)
		return cisp_error_prefix(r, "camera %s: merge job", cam->name);
	cam->delta_size = 0;
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
	struct cisp_sensor_metadata md[CISP_BRACKET_MAX_FRAMES];
	struct cisp_camera_merged *merged = &req->metadata.merged;
	unsigned shortest = 0;
	double strength;
	int r;

	cisp_clear_error();
	if (req->controls.mask) {
		r = cisp_control_request(cam->loop, &req->controls);
		if (r)
			return camera_request_fail(req, cisp_error_prefix(r, "request controls"));
	}
	r = capture_bracket(cam, b, md);
	if (r)
		return camera_request_fail(req, cisp_error_prefix(r, "camera %s", cam->name));
	for (unsigned k = 0; k < b->count; k++) {
		if (md[k].exposure_ns < md[shortest].exposure_ns)
			shortest = k;
		merged->sequence[k] = md[k].sequence;
		merged->exposure_us[k] = (double)md[k].exposure_ns / 1000.0;
		merged->analogue_gain[k] = md[k].controls[CISP_SENSOR_ANALOGUE_GAIN] / (double)CISP_SENSOR_GAIN_ONE;
	}
	merged->count = b->count;
	/* The merged frame is linear at the shortest exposure's scale: its metadata describes it. */
	camera_frame_metadata(cam, &req->metadata, &md[shortest]);
	r = merge_bracket(cam, req, md);
	if (r)
		return camera_request_fail(req, r);
	/* The loop's LTM grid from the merged frame, for the next job, on even without an ltm section. */
	strength = cam->tuning->ltm.strength;
	if (!(strength > 0))
		cam->tuning->ltm.strength = HDR_LTM_STRENGTH;
	camera_frame_control(cam, req, &md[shortest]);
	cam->tuning->ltm.strength = strength;
}
