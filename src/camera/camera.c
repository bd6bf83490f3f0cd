/* SPDX-License-Identifier: MIT */
/*
 * Cameras: the manager, open and close, configuration, start and stop, and
 * the request queues. One thread per started camera runs its frames
 * (frame.c); the queues are guarded by the camera's lock.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/fence.h>
#include <cisp/format.h>

#include "camera_internal.h"
#include "core/error_internal.h"

int cisp_camera_manager_create(struct cisp_camera_manager **m, const struct cisp_camera_manager_config *config)
{
	struct cisp_camera_manager *mgr;
	const char *path;
	int r;

	*m = NULL;
	mgr = calloc(1, sizeof(*mgr));
	if (!mgr)
		return cisp_error(-ENOMEM, "out of memory for a camera manager");
	if (config && config->device) {
		mgr->device = config->device;
	} else {
		r = cisp_device_create(&mgr->device, config ? config->device_config : NULL);
		if (r) {
			free(mgr);
			return r;
		}
		mgr->owns_device = true;
	}
	pthread_mutex_init(&mgr->lock, NULL);
	path = config && config->config ? config->config : getenv("CISP_CAMERA_CONFIG");
	if (path && *path) {
		r = camera_config_file_load(mgr, path);
		if (r) {
			cisp_camera_manager_destroy(mgr);
			return r;
		}
	}
	*m = mgr;
	return 0;
}

void cisp_camera_manager_destroy(struct cisp_camera_manager *m)
{
	if (!m)
		return;
	if (m->open_cameras)
		fprintf(stderr, "cisp: camera manager destroyed with %u cameras open\n", m->open_cameras);
	if (m->owns_device)
		cisp_device_destroy(m->device);
	pthread_mutex_destroy(&m->lock);
	free(m->entries);
	free(m);
}

int cisp_camera_list(struct cisp_camera_manager *m, struct cisp_camera_desc *list, unsigned max)
{
	struct cisp_sensor_desc *sensors = NULL;
	unsigned k = m->num_entries;
	int n, alloc;

	for (unsigned i = 0; i < m->num_entries && i < max; i++) {
		const struct camera_entry *e = &m->entries[i];
		const char *colon = strchr(e->sensor, ':');

		memset(&list[i], 0, sizeof(list[i]));
		snprintf(list[i].name, sizeof(list[i].name), "%s", e->name);
		snprintf(list[i].backend, sizeof(list[i].backend), "%.*s",
			 colon ? (int)(colon - e->sensor) : (int)strlen(e->sensor), e->sensor);
		if (e->description[0])
			snprintf(list[i].description, sizeof(list[i].description), "%s", e->description);
		else
			snprintf(list[i].description, sizeof(list[i].description), "%.60s %.60s", e->sensor,
				 e->options);
	}
	n = cisp_sensor_enumerate(NULL, 0);
	if (n <= 0)
		return n < 0 ? n : (int)k;
	sensors = calloc((size_t)n, sizeof(*sensors));
	if (!sensors)
		return cisp_error(-ENOMEM, "out of memory listing cameras");
	/* A sensor that appeared since the count is not in @sensors: read only what was filled. */
	alloc = n;
	n = cisp_sensor_enumerate(sensors, (unsigned)alloc);
	for (int i = 0; n > 0 && i < n && i < alloc && k + (unsigned)i < max; i++) {
		struct cisp_camera_desc *d = &list[k + (unsigned)i];

		memset(d, 0, sizeof(*d));
		snprintf(d->name, sizeof(d->name), "%s", sensors[i].name);
		snprintf(d->backend, sizeof(d->backend), "%s", sensors[i].backend);
		snprintf(d->description, sizeof(d->description), "%s", sensors[i].description);
	}
	free(sensors);
	return n < 0 ? n : n + (int)k;
}

/*
 * -ENOENT from opening @name: for a camera that is not listed, say so and
 * name the known ones; for a listed one the sensor's message stands (a
 * missing scene file, say).
 */
static int unknown_camera(struct cisp_camera_manager *m, const char *name)
{
	struct cisp_camera_desc list[32];
	char known[512] = "", saved[256];
	size_t len = 0;
	int n;

	snprintf(saved, sizeof(saved), "%s", cisp_last_error());
	n = cisp_camera_list(m, list, 32);
	for (int i = 0; i < n && i < 32; i++)
		if (!strcmp(list[i].name, name))
			return cisp_error(-ENOENT, "%s", saved);
	/* Stop at a full buffer: known + len must stay inside it. */
	for (int i = 0; i < n && i < 32 && len < sizeof(known); i++)
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "", list[i].name);
	return cisp_error(-ENOENT, "no camera '%s' (cameras: %s)", name, n > 0 ? known : "none");
}

int cisp_camera_open(struct cisp_camera **cam, struct cisp_camera_manager *m, const char *name,
		     const struct cisp_camera_options *options)
{
	const struct camera_entry *entry;
	const char *sensor_options = options ? options->sensor_options : NULL;
	const char *tuning = options ? options->tuning : NULL;
	char merged[1024];
	struct cisp_camera *c;
	pthread_condattr_t attr;
	int r;

	*cam = NULL;
	if (!name || !*name)
		return cisp_error(-EINVAL, "no camera name given");
	entry = camera_config_file_find(m, name);
	if (entry) {
		/* The file's options first, the caller's after them: later keys win. */
		if ((size_t)snprintf(merged, sizeof(merged), "%s%s%s", entry->options,
				     entry->options[0] && sensor_options && *sensor_options ? "," : "",
				     sensor_options ? sensor_options : "") >= sizeof(merged))
			return cisp_error(-EINVAL, "camera %s: the sensor options are longer than %zu characters",
					  name, sizeof(merged) - 1);
		sensor_options = merged;
		if (!tuning && entry->tuning[0])
			tuning = entry->tuning;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return cisp_error(-ENOMEM, "out of memory for a camera");
	c->manager = m;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->priority = options ? options->priority : 0;
	r = cisp_sensor_open(&c->sensor, entry ? entry->sensor : name, sensor_options);
	if (r == -ENOENT && !entry && !strchr(name, '/')) {
		free(c);
		return unknown_camera(m, name);
	}
	if (r)
		goto fail;
	if (tuning)
		r = cisp_tuning_open(&c->tuning, tuning);
	else
		r = cisp_tuning_find(&c->tuning, cisp_sensor_info(c->sensor)->model, NULL);
	if (r) {
		cisp_error_prefix(r, "camera %s: tuning", name);
		goto fail;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_lock(&m->lock);
	m->open_cameras++;
	c->id = m->next_id++;
	pthread_mutex_unlock(&m->lock);
	*cam = c;
	return 0;
fail:
	cisp_tuning_free(c->tuning);
	cisp_sensor_close(c->sensor);
	free(c);
	return r;
}

/* Free what cisp_camera_configure() made. */
static void unconfigure(struct cisp_camera *cam)
{
	cisp_context_destroy(cam->ctx);
	cisp_control_destroy(cam->loop);
	cisp_image_free(&cam->raw[0]);
	cisp_image_free(&cam->raw[1]);
	camera_bracket_free(cam);
	camera_burst_free(cam);
	camera_eis_unconfigure(cam);
	for (unsigned i = 0; i < CISP_MAX_OUTPUTS; i++)
		cisp_image_free(&cam->scratch[i]);
	free(cam->stats);
	free(cam->delta);
	cam->ctx = NULL;
	cam->loop = NULL;
	cam->stats = NULL;
	cam->delta = NULL;
	cam->delta_size = cam->delta_capacity = 0;
	cam->configured = false;
}

void cisp_camera_close(struct cisp_camera *cam)
{
	if (!cam)
		return;
	cisp_camera_stop(cam); /* also cancels requests queued while stopped */
	camera_faces_free(cam);
	unconfigure(cam);
	camera_eis_free(cam);
	fifo_free(&cam->pending);
	fifo_free(&cam->done);
	cisp_tuning_free(cam->tuning);
	cisp_sensor_close(cam->sensor);
	pthread_mutex_lock(&cam->manager->lock);
	cam->manager->open_cameras--;
	pthread_mutex_unlock(&cam->manager->lock);
	pthread_cond_destroy(&cam->cond);
	pthread_mutex_destroy(&cam->lock);
	free(cam);
}

struct cisp_sensor *cisp_camera_sensor(struct cisp_camera *cam)
{
	return cam->sensor;
}

const char *cisp_camera_tuning_name(const struct cisp_camera *cam)
{
	return cisp_tuning_name(cam->tuning);
}

const char *cisp_camera_stream_name(unsigned stream)
{
	static const char *const names[CISP_STREAM_COUNT] = { "main", "preview", "raw" };

	return stream < CISP_STREAM_COUNT ? names[stream] : "unknown";
}

int cisp_camera_default_config(struct cisp_camera *cam, unsigned mode, struct cisp_camera_config *config)
{
	struct cisp_sensor_mode m;

	memset(config, 0, sizeof(*config));
	if (cisp_sensor_get_mode(cam->sensor, mode, &m))
		return cisp_error(-ERANGE, "camera %s has no mode %u (it has %u)", cam->name, mode,
				  cisp_sensor_info(cam->sensor)->num_modes);
	config->mode = mode;
	config->stream[CISP_STREAM_MAIN] = (struct cisp_stream_config){ CISP_FMT_NV12, m.width, m.height, 0, 0, 0, 0 };
	return 0;
}

/* The device context, the control loop and the buffers for a checked configuration. */
static int make_pipeline(struct cisp_camera *cam, const struct cisp_camera_config *config)
{
	struct cisp_context_config cc = { 0 };
	struct cisp_control_config lc = { 0 };
	char ctx_name[CISP_CONTEXT_NAME_MAX];
	int r;

	camera_isp_config(config, &cam->mode, &cc.isp);
	cam->raw_format = cc.isp.input_format;
	r = camera_eis_configure(cam, &cc.isp);
	if (r)
		return r;
	snprintf(ctx_name, sizeof(ctx_name), "camera%u", cam->id);
	cc.name = ctx_name;
	cc.priority = cam->priority;
	cc.frame_period_ns = (uint64_t)(cisp_sensor_line_ns(&cam->mode) * cam->mode.frame_length_default);
	cc.overload = CISP_OVERLOAD_RUN_ALL;
	r = cisp_context_create(&cam->ctx, cam->manager->device, &cc);
	if (r)
		return cisp_error_prefix(r, "camera %s", cam->name);

	lc.tuning = cam->tuning;
	lc.mode = cam->mode;
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
		cisp_sensor_control_info(cam->sensor, id, &lc.controls[id]);
	r = cisp_control_create(&cam->loop, &lc);
	if (r)
		return cisp_error_prefix(r, "camera %s: control loop", cam->name);

	r = cisp_image_alloc(&cam->raw[0], cam->raw_format, cam->mode.width, cam->mode.height);
	if (!r)
		r = cisp_image_alloc(&cam->raw[1], cam->raw_format, cam->mode.width, cam->mode.height);
	for (unsigned o = 0; !r && o < CISP_MAX_OUTPUTS; o++)
		if (config->stream[o].format)
			r = cisp_image_alloc(&cam->scratch[o], config->stream[o].format, config->stream[o].width,
					     config->stream[o].height);
	if (r)
		return r;
	cam->stats = calloc(1, sizeof(*cam->stats));
	if (!cam->stats)
		return cisp_error(-ENOMEM, "out of memory for statistics");
	return 0;
}

int cisp_camera_configure(struct cisp_camera *cam, const struct cisp_camera_config *config)
{
	struct cisp_sensor_mode mode;
	int r;

	if (cam->started)
		return cisp_error(-EBUSY, "camera %s: configure while started", cam->name);
	pthread_mutex_lock(&cam->lock);
	r = cam->pending.count ? -EBUSY : 0;
	pthread_mutex_unlock(&cam->lock);
	if (r)
		return cisp_error(r, "camera %s: configure with requests queued", cam->name);
	r = camera_config_check(cam, config, &mode);
	if (r)
		return r;
	r = cisp_sensor_set_mode(cam->sensor, config->mode);
	if (r)
		return r;
	unconfigure(cam);
	cam->mode = mode;
	cam->config = *config;
	r = make_pipeline(cam, config);
	if (r) {
		unconfigure(cam);
		return r;
	}
	cam->configured = true;
	return 0;
}

/* The camera whose completion callback this thread is running, if any. */
static _Thread_local struct cisp_camera *in_callback;

/*
 * Hand a finished request back: to the callback, or to the done queue. It
 * stops being the current one under the same lock that queues it as done,
 * so that cisp_camera_wait() never sees it in neither place (and -ENODATA).
 */
static void deliver(struct cisp_camera *cam, struct cisp_camera_request *req)
{
	pthread_mutex_lock(&cam->lock);
	if (cam->current == req)
		cam->current = NULL;
	if (cam->config.complete) {
		pthread_mutex_unlock(&cam->lock);
		in_callback = cam;
		cam->config.complete(req, cam->config.opaque);
		in_callback = NULL;
		return;
	}
	if (fifo_push(&cam->done, req))
		fprintf(stderr, "cisp: camera %s: out of memory, a completed request is lost\n", cam->name);
	pthread_cond_broadcast(&cam->cond);
	pthread_mutex_unlock(&cam->lock);
}

/* The next request to start, made the current one; NULL when the camera stops. */
static struct cisp_camera_request *next_request(struct cisp_camera *cam)
{
	struct cisp_camera_request *req = NULL;

	pthread_mutex_lock(&cam->lock);
	while (!cam->stopping && !cam->pending.count)
		pthread_cond_wait(&cam->cond, &cam->lock);
	if (!cam->stopping)
		req = cam->current = fifo_pop(&cam->pending);
	pthread_mutex_unlock(&cam->lock);
	return req;
}

/*
 * Whether the sensor has a frame ready before the ISP is done with @cur.
 * Only then is the next frame taken ahead: waiting for a frame still being
 * read out would hold back the one in the ISP by up to a frame period.
 */
static bool frame_ready_first(struct cisp_camera *cam, struct camera_frame *cur)
{
	struct pollfd p[2] = { { .fd = cisp_sensor_fd(cam->sensor), .events = POLLIN },
			       { .fd = cur->fence ? cisp_fence_fd(cur->fence) : -1, .events = POLLIN } };

	if (p[0].fd < 0 || p[1].fd < 0) {
		cisp_clear_error();
		return false;
	}
	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	return p[0].revents && !p[1].revents;
}

/*
 * The request whose frame is taken while the ISP works on @cur, or NULL:
 * none is waiting, the camera stops, the request has controls (the loop
 * must take or refuse them before its frame is taken, so that a refused
 * request takes no frame), or the ISP is done before the sensor has a frame.
 */
static struct cisp_camera_request *request_ahead(struct cisp_camera *cam, struct camera_frame *cur)
{
	struct cisp_camera_request *req = NULL;
	bool candidate;

	pthread_mutex_lock(&cam->lock);
	candidate = !cam->stopping && cam->pending.count && !cam->pending.item[cam->pending.head]->controls.mask &&
		    !cam->pending.item[cam->pending.head]->bracket.count;
	pthread_mutex_unlock(&cam->lock);
	if (!candidate || !frame_ready_first(cam, cur))
		return NULL;
	/* Only this thread takes requests off the queue: the head is still there. */
	pthread_mutex_lock(&cam->lock);
	req = cam->ahead = fifo_pop(&cam->pending);
	pthread_mutex_unlock(&cam->lock);
	return req;
}

/*
 * Frames overlap: frame n + 1 is taken from the sensor while the ISP works
 * on frame n when the sensor has it ready first, and taken "ahead" so that
 * the loop's decisions after frame n
 * still reach the sensor at the write point of frame n + 1 (sensor.h).
 * The ISP jobs themselves run one at a time: each carries the parameters
 * the loop chose after the one before.
 */
static void *camera_thread(void *arg)
{
	struct cisp_camera *cam = arg;
	struct camera_frame frames[2] = { { .slot = 0 }, { .slot = 1 } };
	struct camera_frame *cur = &frames[0], *next = &frames[1], *t;

	for (;;) {
		if (!cur->req) {
			cur->req = next_request(cam);
			if (!cur->req)
				break;
			if (cur->req->bracket.count) { /* never taken ahead: its frames follow the loop's decisions */
				camera_bracket_run(cam, cur->req);
				camera_eis_apply(cam, cur->req);
				deliver(cam, cur->req);
				cur->req = NULL;
				continue;
			}
			camera_frame_take(cam, cur, 0);
		}
		camera_frame_submit(cam, cur);
		next->req = request_ahead(cam, cur);
		if (next->req)
			camera_frame_take(cam, next, CISP_SENSOR_AHEAD);
		camera_frame_finish(cam, cur);
		camera_eis_apply(cam, cur->req); /* before the faces are looked for in its output */
		camera_faces_frame(cam, cur->req);
		deliver(cam, cur->req);
		pthread_mutex_lock(&cam->lock);
		cam->current = cam->ahead;
		cam->ahead = NULL;
		pthread_mutex_unlock(&cam->lock);
		cur->req = NULL;
		t = cur;
		cur = next;
		next = t;
	}
	return NULL;
}

int cisp_camera_start(struct cisp_camera *cam)
{
	int r;

	if (cam->started)
		return cisp_error(-EBUSY, "camera %s is already started", cam->name);
	if (!cam->configured)
		return cisp_error(-EINVAL, "camera %s is not configured", cam->name);
	r = camera_frame_start(cam);
	if (r)
		return r;
	r = cisp_sensor_start(cam->sensor);
	if (r)
		return r;
	r = camera_faces_start(cam);
	if (r) {
		cisp_sensor_stop(cam->sensor);
		return r;
	}
	cam->stopping = false;
	r = pthread_create(&cam->thread, NULL, camera_thread, cam);
	if (r) {
		camera_faces_stop(cam);
		cisp_sensor_stop(cam->sensor);
		return cisp_error(-EAGAIN, "camera %s: cannot start its thread", cam->name);
	}
	pthread_mutex_lock(&cam->lock);
	cam->started = true;
	pthread_mutex_unlock(&cam->lock);
	return 0;
}

/*
 * Complete every request that has not started with -ECANCELED: those
 * queued now, so that a callback queueing them again cannot loop.
 */
static void cancel_pending(struct cisp_camera *cam)
{
	size_t n;

	pthread_mutex_lock(&cam->lock);
	n = cam->pending.count;
	pthread_mutex_unlock(&cam->lock);
	while (n--) {
		struct cisp_camera_request *req;

		pthread_mutex_lock(&cam->lock);
		req = fifo_pop(&cam->pending);
		pthread_mutex_unlock(&cam->lock);
		if (!req)
			break;
		req->status = -ECANCELED;
		snprintf(req->message, sizeof(req->message), "cancelled: camera %.100s stopped", cam->name);
		deliver(cam, req);
	}
}

int cisp_camera_stop(struct cisp_camera *cam)
{
	/* From the completion callback the thread would join itself and stop half-way. */
	if (in_callback == cam)
		return cisp_error(-EDEADLK, "camera %s: stop from its own completion callback", cam->name);
	if (cam->started) {
		pthread_mutex_lock(&cam->lock);
		cam->stopping = true;
		pthread_cond_broadcast(&cam->cond);
		pthread_mutex_unlock(&cam->lock);
		pthread_join(cam->thread, NULL);
		camera_faces_stop(cam);
		cisp_sensor_stop(cam->sensor);
		pthread_mutex_lock(&cam->lock);
		cam->started = false;
		pthread_mutex_unlock(&cam->lock);
	}
	cancel_pending(cam);
	return 0;
}

int cisp_camera_queue(struct cisp_camera *cam, struct cisp_camera_request *req)
{
	int r;

	if (!cam->configured)
		return cisp_error(-ENODEV, "camera %s is not configured", cam->name);
	r = camera_request_check(cam, req);
	if (!r)
		r = camera_bracket_check(cam, req);
	if (r)
		return r;
	if (req->controls.mask & ~((CISP_REQ_FRAME_DURATION << 1) - 1))
		return cisp_error(-EINVAL, "request controls: unknown mask bits 0x%x", req->controls.mask);
	pthread_mutex_lock(&cam->lock);
	if (cam->current == req || cam->ahead == req || fifo_contains(&cam->pending, req) ||
	    fifo_contains(&cam->done, req)) {
		pthread_mutex_unlock(&cam->lock);
		return cisp_error(-EBUSY, "request is already queued");
	}
	req->status = 0;
	req->message[0] = 0;
	memset(&req->metadata, 0, sizeof(req->metadata));
	r = fifo_push(&cam->pending, req);
	pthread_cond_broadcast(&cam->cond);
	pthread_mutex_unlock(&cam->lock);
	return r ? cisp_error(r, "out of memory queueing a request") : 0;
}

int cisp_camera_wait(struct cisp_camera *cam, struct cisp_camera_request **req, int64_t timeout_ns)
{
	struct timespec until;
	int r = 0;

	*req = NULL;
	if (cam->config.complete)
		return cisp_error(-EINVAL, "camera %s delivers requests to its callback", cam->name);
	clock_gettime(CLOCK_MONOTONIC, &until);
	if (timeout_ns > 0) {
		until.tv_sec += timeout_ns / 1000000000;
		until.tv_nsec += timeout_ns % 1000000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_lock(&cam->lock);
	while (!cam->done.count) {
		if (!cam->started || (!cam->pending.count && !cam->current && !cam->ahead)) {
			r = -ENODATA;
			break;
		}
		if (timeout_ns == 0) {
			r = -ETIMEDOUT;
			break;
		}
		if (timeout_ns < 0)
			pthread_cond_wait(&cam->cond, &cam->lock);
		else if (pthread_cond_timedwait(&cam->cond, &cam->lock, &until) == ETIMEDOUT && !cam->done.count) {
			r = -ETIMEDOUT;
			break;
		}
	}
	if (!r)
		*req = fifo_pop(&cam->done);
	pthread_mutex_unlock(&cam->lock);
	if (r == -ENODATA)
		return cisp_error(r, "camera %s: no request is completed, and none is in flight%s", cam->name,
				  cam->started ? "" : " (the camera is stopped)");
	if (r)
		return cisp_error(r, "camera %s: no request completed in time", cam->name);
	return 0;
}
