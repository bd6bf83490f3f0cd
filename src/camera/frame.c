/* SPDX-License-Identifier: MIT */
/*
 * One frame of a camera, in three steps the camera thread overlaps with the
 * next frame's: take it from the sensor (imported from the sensor's own
 * buffer when it lends one), one ISP job through the device with the
 * parameter changes the control loop asked for, then the loop on the
 * frame's statistics, its sensor controls queued for the frame they are
 * meant for, and the request's metadata.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/fence.h>

#include "camera_internal.h"
#include "core/error_internal.h"

/* Put the camera's crops (its stream configuration) into the ISP state. */
static void apply_crops(struct cisp_camera *cam)
{
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++) {
		const struct cisp_stream_config *s = &cam->config.stream[o];
		struct cisp_crop_params *c = &cam->params.crop[o];

		c->output = (uint16_t)o;
		if (s->format && s->crop_width) {
			c->x = (uint16_t)s->crop_x;
			c->y = (uint16_t)s->crop_y;
			c->width = (uint16_t)s->crop_width;
			c->height = (uint16_t)s->crop_height;
			cam->params.crop_enabled |= 1u << o;
		} else {
			cam->params.crop_enabled &= ~(1u << o);
		}
	}
}

int camera_encode_delta(struct cisp_camera *cam, uint32_t blocks)
{
	size_t size;
	int r;

	cam->delta_size = 0;
	cam->delta_blocks = 0;
	if (!blocks)
		return 0;
	r = cisp_params_encode(&cam->params, blocks, NULL, 0, &size);
	if (r && r != -ENOSPC)
		return r;
	if (size > cam->delta_capacity) {
		void *buf = realloc(cam->delta, size);

		if (!buf)
			return cisp_error(-ENOMEM, "out of memory for a params buffer");
		cam->delta = buf;
		cam->delta_capacity = size;
	}
	r = cisp_params_encode(&cam->params, blocks, cam->delta, cam->delta_capacity, &size);
	if (r)
		return r;
	cam->delta_size = size;
	cam->delta_blocks = blocks;
	return 0;
}

/* Take what changed in the loop's parameter state, keep the camera's crops, encode it. */
static int take_params(struct cisp_camera *cam, const struct cisp_control_result *res, uint32_t changed)
{
	int r = cisp_param_state_copy(&cam->params, res->params, changed, NULL);

	if (r)
		return r;
	apply_crops(cam);
	cam->next_ct = res->state.colour_temperature;
	cam->next_gains[0] = res->state.colour_gains[0];
	cam->next_gains[1] = res->state.colour_gains[1];
	for (int i = 0; i < 9; i++)
		cam->next_ccm[i] = cam->params.enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM)
					   ? cam->params.ccm.coeff[i] / 4096.0
					   : (i % 4 == 0);
	return camera_encode_delta(cam, changed);
}

int camera_frame_start(struct cisp_camera *cam)
{
	struct cisp_camera_request *first;
	struct cisp_control_result res;
	int r;

	/* The first request's controls shape the start (e.g. a manual exposure from frame 0). */
	pthread_mutex_lock(&cam->lock);
	first = cam->pending.count ? cam->pending.item[cam->pending.head] : NULL;
	pthread_mutex_unlock(&cam->lock);
	/* Bad values fail that request in its turn (camera_frame_run()), not the start. */
	if (first && first->controls.mask)
		cisp_control_request(cam->loop, &first->controls);
	cam->bracket_ltm_ready = false; /* a grid of another scene */
	r = cisp_control_start(cam->loop, &res);
	if (r)
		return cisp_error_prefix(r, "camera %s: control loop start", cam->name);
	if (res.sensor.mask) {
		r = cisp_sensor_set_controls(cam->sensor, &res.sensor);
		if (r)
			return cisp_error_prefix(r, "camera %s: starting sensor controls", cam->name);
	}
	/* The whole state: the context may hold another stream's state from before. */
	return take_params(cam, &res, ~0u);
}

static int queue_sensor_controls(struct cisp_camera *cam, const struct cisp_control_result *res)
{
	int r;

	if (!res->sensor.mask)
		return 0;
	r = cisp_sensor_queue_controls(cam->sensor, res->sensor_sequence, &res->sensor);
	if (r == -EAGAIN) /* that frame is already too late for some control: as soon as possible */
		r = cisp_sensor_set_controls(cam->sensor, &res->sensor);
	return r;
}

void camera_frame_metadata(struct cisp_camera *cam, struct cisp_camera_metadata *m,
			   const struct cisp_sensor_metadata *md)
{
	m->sequence = md->sequence;
	m->timestamp_ns = md->timestamp_ns;
	m->exposure_us = (double)md->exposure_ns / 1000.0;
	m->analogue_gain = md->controls[CISP_SENSOR_ANALOGUE_GAIN] / (double)CISP_SENSOR_GAIN_ONE;
	m->digital_gain = md->controls[CISP_SENSOR_DIGITAL_GAIN] / (double)CISP_SENSOR_GAIN_ONE;
	m->frame_duration_us = (double)md->frame_duration_ns / 1000.0;
	m->lens_position = md->controls[CISP_SENSOR_LENS_POSITION];
	m->colour_temperature = cam->next_ct;
	m->colour_gains[0] = cam->next_gains[0];
	m->colour_gains[1] = cam->next_gains[1];
	memcpy(m->ccm, cam->next_ccm, sizeof(m->ccm));
	m->sensor = *md;
}

void camera_request_fail(struct cisp_camera_request *req, int r)
{
	req->status = r;
	snprintf(req->message, sizeof(req->message), "%s", cisp_last_error());
}

void camera_frame_take(struct cisp_camera *cam, struct camera_frame *f, unsigned flags)
{
	struct cisp_camera_request *req = f->req;
	int r;

	cisp_clear_error();
	f->raw = NULL;
	f->lent = false;
	f->fence = NULL;
	f->variance_factor = 0;
	if (req->controls.mask) {
		r = cisp_control_request(cam->loop, &req->controls);
		if (r)
			return camera_request_fail(req, cisp_error_prefix(r, "request controls"));
	}
	if (req->burst > 1) {
		r = camera_burst_take(cam, f, flags);
		if (r)
			camera_request_fail(req, r);
		return;
	}
	if (req->buffer[CISP_STREAM_RAW]) {
		f->raw = req->buffer[CISP_STREAM_RAW];
	} else {
		/* Without a copy when the sensor lends its buffer in the ISP's input format. */
		r = cisp_sensor_acquire(cam->sensor, cam->raw_format, &f->view, &f->md, flags);
		if (!r) {
			f->raw = &f->view;
			f->lent = true;
			return;
		}
		if (r != -ENOTSUP)
			return camera_request_fail(req, cisp_error_prefix(r, "camera %s: capture", cam->name));
		cisp_clear_error();
		f->raw = &cam->raw[f->slot];
	}
	r = cisp_sensor_capture(cam->sensor, f->raw, &f->md, flags);
	if (r)
		camera_request_fail(req, cisp_error_prefix(r, "camera %s: capture", cam->name));
}

void camera_job_outputs(struct cisp_camera *cam, const struct cisp_camera_request *req, struct cisp_job *job)
{
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++)
		if (cam->config.stream[o].format)
			job->output[o] = camera_eis_output(cam, o) ? camera_eis_output(cam, o) /* cut after the ISP */
				       : req->buffer[o] ? req->buffer[o] : &cam->scratch[o];
	job->stats = cam->stats;
	job->params = cam->delta_size ? cam->delta : NULL;
	job->params_size = cam->delta_size;
}

void camera_frame_submit(struct cisp_camera *cam, struct camera_frame *f)
{
	struct cisp_camera_request *req = f->req;
	struct cisp_job job = { 0 };
	int r;

	if (req->status)
		return;
	/* The colour is the loop's decision after the previous frame: known only now. */
	camera_frame_metadata(cam, &req->metadata, &f->md);
	memset(&f->result, 0, sizeof(f->result));
	/* A merged burst's job has its lowered noise profile; the job after it the loop's again. */
	if (f->variance_factor > 0 || cam->noise_lowered) {
		r = camera_burst_encode_noise(cam, f);
		if (r)
			return camera_request_fail(req, cisp_error_prefix(r, "camera %s: burst noise profile", cam->name));
	}
	job.mode = CISP_JOB_SINGLE;
	job.num_inputs = 1;
	job.input[0] = f->raw;
	camera_job_outputs(cam, req, &job);
	job.result = &f->result;
	r = cisp_job_submit(cam->ctx, &job, &f->fence);
	if (r)
		return camera_request_fail(req, cisp_error_prefix(r, "camera %s: ISP job", cam->name));
	cam->delta_size = 0; /* the device applies the delta in its turn, whether the job runs or not */
	cam->delta_blocks = 0;
}

void camera_frame_finish(struct cisp_camera *cam, struct camera_frame *f)
{
	struct cisp_camera_request *req = f->req;
	int r = 0;

	if (f->fence) {
		r = cisp_fence_wait(f->fence, -1);
		cisp_fence_unref(f->fence);
		f->fence = NULL;
		req->metadata.isp_ns = f->result.end_ns > f->result.submit_ns ? f->result.end_ns - f->result.submit_ns : 0;
	}
	/* The ISP is done reading it: the sensor may fill the buffer again. */
	if (f->lent && cisp_sensor_release(cam->sensor, &f->view) && !req->status && !r)
		camera_request_fail(req, cisp_error_prefix(-EIO, "camera %s: giving the sensor its buffer back", cam->name));
	f->lent = false;
	if (req->status)
		return;
	if (r) {
		req->status = r;
		snprintf(req->message, sizeof(req->message), "ISP job failed: %.100s",
			 f->result.message[0] ? f->result.message : "no message");
		return;
	}

	camera_frame_control(cam, req, &f->md);
}

void camera_frame_control(struct cisp_camera *cam, struct cisp_camera_request *req,
			  const struct cisp_sensor_metadata *md)
{
	struct cisp_control_result res;
	int r, r2;

	r = cisp_control_process(cam->loop, cam->stats, md, &res);
	if (r)
		return camera_request_fail(req, cisp_error_prefix(r, "camera %s: control loop", cam->name));
	req->metadata.control = res.state;
	req->metadata.ae_state = res.state.ae_state;
	req->metadata.awb_state = res.state.awb_state;
	req->metadata.af_state = res.state.af_state;
	/* Both, whatever the other does: the loop counts its decisions as sent. */
	r = queue_sensor_controls(cam, &res);
	r2 = take_params(cam, &res, res.params_changed & ~CISP_BLOCK_BIT(CISP_BLOCK_CROP));
	if (!r)
		r = r2;
	if (r)
		camera_request_fail(req, cisp_error_prefix(r, "camera %s: applying the loop's decisions", cam->name));
}
