/* SPDX-License-Identifier: MIT */
/*
 * cisp webcam: run a camera (3A, tuning) and feed a v4l2loopback device
 * that applications open as an ordinary webcam (docs/webcam.md).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cisp/camera.h>
#include <cisp/eis.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/v4l2_output.h>

#include "commands.h"
#include "options.h"
#include "webcam.h"

/*
 * Requests in flight: one in the ISP while the other takes the next frame
 * (the writer hands its request back at once). Each more adds a frame of
 * latency when the ISP is the slowest part.
 */
#define NUM_REQUESTS 2
/* A camera that gives no frame for this long is lost (a slow ISP takes a second a frame in a VM). */
#define LOST_AFTER_S 5.0
/* While lost, the camera is opened again this often. */
#define RETRY_S 1.0
/* Latencies kept for the percentiles (the latest ones). */
#define MAX_LATENCIES 4096

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cisp webcam --camera NAME [--device /dev/videoN] [--size WxH] [--fps N] [options]\n"
		"\n"
		"Run a camera through the ISP and the 3A loop and feed a v4l2loopback device\n"
		"at a steady frame rate: browsers, conferencing apps, OBS and ffmpeg open it as\n"
		"a webcam. Runs until SIGINT or SIGTERM (or --frames). docs/webcam.md.\n"
		"\n"
		"options:\n"
		"  --camera NAME        a camera from 'cisp list' (required)\n"
		"  --device PATH        the v4l2loopback device (default: the first one found);\n"
		"                       'none' runs the whole path without a device\n"
		"  --size WxH           frame size (default 1280x720), even\n"
		"  --fps N              frame rate the webcam keeps (default 30)\n"
		"  --min-fps N          let frames grow longer in low light, down to N fps\n"
		"                       (default: the frame rate never drops)\n"
		"  --format yuyv|nv12   the device's pixel format (default yuyv)\n"
		"  --mode NAME|INDEX    sensor mode (default: the smallest that holds the size)\n"
		"  --option KEY=VALUE   a sensor option; repeatable\n"
		"  --tuning FILE        tuning file (default: found by sensor model)\n"
		"  --eis                stabilise from the sensor's gyroscope, a 10%% margin\n"
		"                       cropped on each side (docs/eis.md); a camera without a\n"
		"                       gyroscope runs unstabilised, with a warning\n"
		"  --frames N           stop after N frames\n"
		"  --faces HZ           detect faces up to HZ times a second: AE meters them,\n"
		"                       AF focuses on them, the log says when they change\n"
		"  --settle N           write N frames first, left out of the figures (the\n"
		"                       3A's start); --frames counts the frames after them\n"
		"  --quiet              no report every 10 seconds\n"
		"  -h, --help           this help\n");
}

/* Log the faces of a frame when their number changed since the last frame logged (@shown). */
static void log_faces(struct cisp_camera *cam, const struct cisp_camera_request *req, int *shown)
{
	struct cisp_camera_face f[CISP_CAMERA_MAX_FACES];
	int n = cisp_camera_request_faces(cam, req, f, CISP_CAMERA_MAX_FACES);

	if (n < 0 || n == *shown)
		return;
	*shown = n;
	printf("frame %llu: %d face%s", (unsigned long long)req->metadata.sequence, n, n == 1 ? "" : "s");
	for (int i = 0; i < n && i < CISP_CAMERA_MAX_FACES; i++)
		printf("%s %dx%d at %d,%d (confidence %.2f, %u frames old)", i ? ";" : ":", f[i].width, f[i].height,
		       f[i].x, f[i].y, f[i].confidence, f[i].age);
	printf("\n");
	fflush(stdout);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t, .tv_nsec = (long)((t - floor(t)) * 1e9) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop_requested)
		;
}

/*
 * The frame rate: one frame per slot of a grid of periods. Camera frames are
 * placed by their sensor timestamps (CLOCK_MONOTONIC for V4L2 and real-time
 * virtual sensors), so that the ISP's jitter does not drop frames; one more
 * than a quarter period before its slot is left out (a sensor faster than
 * the rate, such as vimc at up to 60 fps). A late one (more than half a
 * period) starts the grid again from itself, without a burst to catch up.
 * Black frames, while the camera is away, are placed by the clock.
 */
struct pacer {
	double period, next;
	bool started;
};

static bool pacer_take(struct pacer *p, double t)
{
	if (p->started && t < p->next - p->period / 4)
		return false;
	if (!p->started || t > p->next + p->period / 2)
		p->next = t;
	p->started = true;
	p->next += p->period;
	return true;
}

/* The smallest mode that holds @w x @h and can run at @fps, else the largest; or the named one. */
static int pick_mode(struct cisp_sensor *s, const char *name, uint32_t w, uint32_t h, double fps, unsigned *index)
{
	const struct cisp_sensor_info *info = cisp_sensor_info(s);
	uint64_t best = UINT64_MAX, largest = 0;
	struct cisp_sensor_mode m;
	bool found = false;

	for (unsigned i = 0; i < info->num_modes; i++) {
		if (cisp_sensor_get_mode(s, i, &m))
			continue;
		uint64_t area = (uint64_t)m.width * m.height;
		double fastest = 1e9 / (cisp_sensor_line_ns(&m) * m.frame_length_min);

		if (name) {
			char num[16];

			snprintf(num, sizeof(num), "%u", i);
			if (!strcmp(m.name, name) || !strcmp(num, name)) {
				*index = i;
				return 0;
			}
			continue;
		}
		if (m.width >= w && m.height >= h && fastest >= fps * 0.999 && area < best) {
			best = area;
			*index = i;
			found = true;
		}
		if (!found && area > largest) {
			largest = area;
			*index = i;
		}
	}
	if (name) {
		fprintf(stderr, "cisp webcam: camera %s has no mode '%s' (see cisp list)\n", SHOWN(info->name),
			SHOWN(name));
		return -EINVAL;
	}
	return 0;
}

/* The centred part of @m with the aspect ratio of @w x @h (even numbers), for the main stream's crop. */
static void crop_to_aspect(const struct cisp_sensor_mode *m, uint32_t w, uint32_t h, struct cisp_stream_config *sc)
{
	uint64_t cw = m->width, ch = m->height;

	if (cw * h > ch * w)
		cw = ch * w / h;
	else
		ch = cw * h / w;
	cw &= ~1ull;
	ch &= ~1ull;
	sc->crop_width = (uint32_t)cw;
	sc->crop_height = (uint32_t)ch;
	sc->crop_x = ((m->width - (uint32_t)cw) / 2) & ~1u;
	sc->crop_y = ((m->height - (uint32_t)ch) / 2) & ~1u;
	sc->width = w;
	sc->height = h;
}

/* One open camera and its requests. */
struct webcam_camera {
	struct cisp_camera *cam;
	struct cisp_camera_request req[NUM_REQUESTS];
	struct cisp_image main[NUM_REQUESTS];
	struct cisp_stream_config main_config; /* the main stream's crop and size */
	bool eis;                              /* stabilised */
};

static void camera_close(struct webcam_camera *c)
{
	cisp_camera_close(c->cam);
	for (unsigned i = 0; i < NUM_REQUESTS; i++)
		cisp_image_free(&c->main[i]);
	memset(c, 0, sizeof(*c));
}

/* Open, configure and start the camera for @o; 0 or a negative errno with the message in cisp_last_error(). */
static int camera_open(struct webcam_camera *c, struct cisp_camera_manager *mgr, const struct webcam_options *o,
		       bool announce)
{
	struct cisp_camera_options co = { .sensor_options = o->sensor_options, .tuning = o->tuning };
	struct cisp_camera_config cfg;
	struct cisp_sensor_mode mode;
	unsigned index = 0;
	int r;

	memset(c, 0, sizeof(*c));
	r = cisp_camera_open(&c->cam, mgr, o->camera, &co);
	if (r)
		return r;
	/* A virtual sensor renders in real time, on CLOCK_MONOTONIC, as a real one delivers frames. */
	if (!strncmp(o->camera, "virtual:", 8) && !(o->sensor_options && strstr(o->sensor_options, "realtime")) &&
	    (r = cisp_sensor_set_option(cisp_camera_sensor(c->cam), "realtime", "1")))
		goto fail;
	/*
	 * Two buffers (V4L2 and real-time virtual sensors alike): frames wait in
	 * the driver while the ISP is busy, and a webcam wants the newest one,
	 * not one of four queued.
	 */
	if ((!strncmp(o->camera, "v4l2:", 5) || !strncmp(o->camera, "virtual:", 8)) &&
	    !(o->sensor_options && strstr(o->sensor_options, "buffers")) &&
	    (r = cisp_sensor_set_option(cisp_camera_sensor(c->cam), "buffers", "2")))
		goto fail;
	if ((r = pick_mode(cisp_camera_sensor(c->cam), o->mode, o->width, o->height, o->fps, &index)))
		goto fail;
	cisp_camera_default_config(c->cam, index, &cfg);
	cisp_sensor_get_mode(cisp_camera_sensor(c->cam), index, &mode);
	crop_to_aspect(&mode, o->width, o->height, &cfg.stream[CISP_STREAM_MAIN]);
	c->main_config = cfg.stream[CISP_STREAM_MAIN];
	if (o->eis && (r = cisp_camera_set_eis(c->cam, &(struct cisp_eis_config){ .enable = true }))) {
		if (r != -ENOTSUP)
			goto fail;
		if (announce)
			fprintf(stderr, "cisp webcam: warning: %s\n", cisp_last_error());
	}
	c->eis = o->eis && !r;
	if ((r = cisp_camera_configure(c->cam, &cfg)))
		goto fail;
	if (o->faces > 0 && (r = cisp_camera_detect_faces(c->cam, o->faces)))
		goto fail;
	if (announce)
		printf("camera %s, mode %s (%ux%u), %ux%u of it to %ux%u, tuning %s\n", SHOWN(o->camera),
		       SHOWN(mode.name), mode.width, mode.height, cfg.stream[CISP_STREAM_MAIN].crop_width,
		       cfg.stream[CISP_STREAM_MAIN].crop_height, o->width, o->height,
		       SHOWN(cisp_camera_tuning_name(c->cam)));
	for (unsigned i = 0; i < NUM_REQUESTS; i++) {
		if ((r = cisp_image_alloc(&c->main[i], CISP_FMT_NV12, o->width, o->height)))
			goto fail;
		c->req[i].buffer[CISP_STREAM_MAIN] = &c->main[i];
		/* The frame rate is a promise: AE keeps 1/fps, and goes down to min_fps only when allowed. */
		c->req[i].controls.mask = CISP_REQ_FRAME_DURATION;
		c->req[i].controls.frame_duration_us[0] = 1e6 / o->fps;
		c->req[i].controls.frame_duration_us[1] = 1e6 / (o->min_fps > 0 ? o->min_fps : o->fps);
		if ((r = cisp_camera_queue(c->cam, &c->req[i])))
			goto fail;
	}
	if ((r = cisp_camera_start(c->cam)))
		goto fail;
	return 0;
fail:
	camera_close(c);
	return r;
}

/* Rows of a frame the residual motion is measured on: every this many. */
#define MOTION_ROW_STEP 16
#define MOTION_MAX_ROWS (8192 / MOTION_ROW_STEP)

/*
 * Where the still scene stands in output row @y of @req's frame, output
 * pixels: the virtual sensor's true shake at that row's readout, less the
 * window EIS cut the row's band at (docs/eis.md, "Figures"). -ENOTSUP for a
 * sensor that is not virtual.
 */
static int scene_offset(struct webcam_camera *c, const struct cisp_camera_request *req, uint32_t y, double *u,
			double *v)
{
	const struct cisp_stream_config *sc = &c->main_config;
	double kx = (double)sc->width / sc->crop_width, ky = (double)sc->height / sc->crop_height;
	double row = (y + 0.5) / ky - 0.5, wx = 0, wy = 0, sx = 1, sy = 1, dx, dy;
	struct cisp_eis_frame f;
	int r;

	if (c->eis) {
		unsigned b = 0;

		if ((r = cisp_camera_eis_frame(c->cam, req, &f)))
			return r;
		while (b + 1 < f.num_bands && f.band[b + 1].first_row <= y)
			b++;
		sx = f.step_x_q16 / 65536.0;
		sy = f.step_y_q16 / 65536.0;
		row = (f.centre_y_q8 / 256.0 + y * sy + 0.5) / f.scale_y - 0.5;
		wx = ((double)f.band[b].x_q8 - f.centre_x_q8) / 256;
		wy = ((double)f.band[b].y_q8 - f.centre_y_q8) / 256;
		kx = f.scale_x;
		ky = f.scale_y;
	}
	r = cisp_vsensor_shake(cisp_camera_sensor(c->cam), req->metadata.timestamp_ns,
			       sc->crop_y + (uint32_t)lround(fmax(row, 0)), &dx, &dy);
	/* Output column x shows the scene at sensor column (wx + x sx) / k - dx: it moves by (wx - k dx) / sx. */
	*u = (wx - kx * dx) / sx;
	*v = (wy - ky * dy) / sy;
	return r;
}

/* The residual motion's running sums: each frame's scene offsets on every MOTION_ROW_STEP-th row. */
struct motion {
	bool off;                /* not measurable here */
	bool have_prev;
	uint64_t prev_sequence;
	double prev[MOTION_MAX_ROWS][2];
	double sum;              /* squared frame-to-frame motion, over rows and pairs */
	unsigned long rows, pairs;
};

static void motion_add(struct motion *mo, struct webcam_camera *c, const struct cisp_camera_request *req)
{
	uint64_t seq = req->metadata.sequence;
	bool next = mo->have_prev && seq == mo->prev_sequence + 1;
	unsigned k = 0;

	for (uint32_t y = 0; !mo->off && y < c->main_config.height && k < MOTION_MAX_ROWS; y += MOTION_ROW_STEP, k++) {
		double u, v;

		if (scene_offset(c, req, y, &u, &v)) {
			mo->off = true;
			return;
		}
		if (next) {
			mo->sum += (u - mo->prev[k][0]) * (u - mo->prev[k][0]) + (v - mo->prev[k][1]) * (v - mo->prev[k][1]);
			mo->rows++;
		}
		mo->prev[k][0] = u;
		mo->prev[k][1] = v;
	}
	mo->pairs += next;
	mo->have_prev = true;
	mo->prev_sequence = seq;
}

/* Mean Y of the central 60% of @f in @img (NV12), the skin face-priority AE meters; -1 when empty. */
static double face_luma(const struct cisp_image *img, const struct cisp_camera_face *f)
{
	int64_t x0 = f->x + (int64_t)f->width / 5, x1 = f->x + (int64_t)f->width * 4 / 5;
	int64_t y0 = f->y + (int64_t)f->height / 5, y1 = f->y + (int64_t)f->height * 4 / 5;
	double sum = 0;
	uint64_t n = 0;

	for (int64_t y = y0 < 0 ? 0 : y0; y < y1 && y < img->height; y++)
		for (int64_t x = x0 < 0 ? 0 : x0; x < x1 && x < img->width; x++, n++)
			sum += img->plane[0].data[(size_t)y * img->plane[0].stride + (size_t)x];
	return n ? sum / n : -1;
}

/* The faces of a measured frame: counted, the largest kept, the metered rectangle's luma read. */
static void faces_measure(const struct webcam_options *o, struct webcam_camera *c,
			  const struct cisp_camera_request *req, struct webcam_report *rep)
{
	struct cisp_camera_face f[CISP_CAMERA_MAX_FACES];
	int n = o->faces > 0 ? cisp_camera_request_faces(c->cam, req, f, CISP_CAMERA_MAX_FACES) : 0;

	if (n > 0) {
		rep->face_frames++;
		rep->face = f[0];
	}
	if (o->meter || n > 0)
		rep->face_luma = face_luma(req->buffer[CISP_STREAM_MAIN], o->meter ? o->meter : &f[0]);
}

/* The device, or nothing for "none": where the frames go. */
struct sink {
	struct cisp_v4l2_output *out;
	struct cisp_v4l2_output_config config;
	uint8_t *packed; /* without a device: the frames are packed here all the same */
	size_t size;
	double period;   /* seconds */
};

static int sink_write(struct sink *s, const struct cisp_image *frame)
{
	if (s->out)
		return cisp_v4l2_output_write(s->out, frame);
	return cisp_v4l2_output_pack(&s->config, frame, s->packed, s->size);
}

/* Keep the device fed with black frames at the rate for @seconds while the camera is away. */
static int feed_black(struct sink *s, const struct cisp_image *black, double seconds, struct webcam_report *rep,
		      unsigned long limit, double *first, double *last)
{
	double end = mono_s() + seconds;
	struct pacer pacer = { .period = s->period };
	struct pacer *p = &pacer;

	while (!stop_requested && mono_s() < end && (!limit || rep->written < limit)) {
		if (p->started)
			sleep_until(p->next);
		pacer_take(p, mono_s());
		if (sink_write(s, black))
			return -1;
		*last = mono_s();
		if (!rep->written)
			*first = *last;
		rep->written++;
		rep->lost++;
	}
	return 0;
}

int webcam_run(const struct webcam_options *o, struct webcam_report *rep)
{
	struct cisp_camera_manager *mgr = NULL;
	struct cisp_camera_manager_config mc = { 0 };
	struct cisp_device_config dc = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct webcam_camera cam = { 0 };
	struct sink sink = { 0 };
	struct pacer pacer = { .period = 1.0 / o->fps };
	struct cisp_image black = { 0 };
	double *latency = calloc(MAX_LATENCIES, sizeof(double));
	struct motion *motion = calloc(1, sizeof(*motion));
	unsigned long measured = 0, settled = 0, camera_frames = 0;
	uint64_t settle_sensor_dropped = 0;
	double first = 0, last = 0, report_at = 0;
	int faces_shown = 0;
	bool lost = false, clock_ok = true;
	char device[64];
	int status = 1;

	/* One camera, one frame at a time: one ISP worker, every CPU on its frame. */
	dc.workers = 1;
	dc.job_threads = cpus > 1 ? (unsigned)cpus : 1;
	mc.device_config = &dc;
	memset(rep, 0, sizeof(*rep));
	rep->latency_p50_ms = rep->latency_p99_ms = rep->motion_rms_px = rep->face_luma = -1;
	sink.config = (struct cisp_v4l2_output_config){ o->pixelformat, o->width, o->height,
							(unsigned)lround(o->fps * 1000), 1000 };
	sink.size = cisp_v4l2_output_frame_size(&sink.config);
	sink.period = 1.0 / o->fps;
	if (!latency || !motion || !sink.size) {
		fprintf(stderr, "cisp webcam: %s\n", latency && motion ? "bad size or format" : "out of memory");
		free(motion);
		free(latency);
		return latency && motion ? 2 : 1;
	}
	if (o->device && !strcmp(o->device, "none")) {
		sink.packed = malloc(sink.size);
		if (!sink.packed) {
			fprintf(stderr, "cisp webcam: out of memory\n");
			goto out;
		}
	} else {
		if (!o->device && cisp_v4l2_output_find(device, sizeof(device))) {
			fprintf(stderr, "cisp webcam: %s\n", error_text());
			goto out;
		}
		if (cisp_v4l2_output_open(&sink.out, o->device ? o->device : device, &sink.config)) {
			fprintf(stderr, "cisp webcam: %s\n", error_text());
			goto out;
		}
	}
	if (cisp_image_alloc(&black, CISP_FMT_NV12, o->width, o->height)) {
		fprintf(stderr, "cisp webcam: %s\n", error_text());
		goto out;
	}
	memset(black.plane[0].data, 16, black.plane[0].stride * o->height);
	memset(black.plane[1].data, 128, black.plane[1].stride * (o->height / 2));
	if (cisp_camera_manager_create(&mgr, &mc) || camera_open(&cam, mgr, o, true)) {
		fprintf(stderr, "cisp webcam: %s\n", error_text());
		goto out;
	}
	printf("feeding %s with %s %ux%u at %g fps%s\n", sink.out ? SHOWN(o->device ? o->device : device) : "no device",
	       o->pixelformat == CISP_V4L2_OUTPUT_NV12 ? "NV12" : "YUYV", o->width, o->height, o->fps,
	       o->min_fps > 0 ? " (lower in low light)" : "");
	fflush(stdout);
	status = 0;
	/* --frames counts the frames after the start (--settle). */
	while (!stop_requested && (!o->frames || (o->settle && !settled) || rep->written < o->frames)) {
		struct cisp_camera_request *req = NULL;
		int r;

		if (lost) {
			/* No limit during the start: it ends with a camera frame. */
			unsigned long limit = o->settle && !settled ? 0 : o->frames;

			if (feed_black(&sink, &black, RETRY_S, rep, limit, &first, &last)) {
				fprintf(stderr, "cisp webcam: %s\n", error_text());
				status = 1;
				break;
			}
			if (!stop_requested && !camera_open(&cam, mgr, o, false)) {
				fprintf(stderr, "cisp webcam: camera %s is back\n", SHOWN(o->camera));
				lost = false;
				pacer.started = false;
			}
			continue;
		}
		r = cisp_camera_wait(cam.cam, &req, (int64_t)(LOST_AFTER_S * 1e9));
		if (stop_requested)
			break;
		if (r || req->status) {
			/* The sensor is gone (unplugged, driver unbound) or stuck: readers keep a valid device. */
			fprintf(stderr, "cisp webcam: camera %s lost: %s; black frames until it is back\n",
				SHOWN(o->camera), r ? error_text() : SHOWN(req->message));
			camera_close(&cam);
			lost = true;
			continue;
		}
		double now = mono_s();
		const struct cisp_camera_metadata *m = &req->metadata;

		if (o->faces > 0)
			log_faces(cam.cam, req, &faces_shown);

		camera_frames++;
		if (!settled && o->settle && rep->written >= o->settle) {
			/*
			 * The start is over: the figures count from here. The sensor's own
			 * drops so far are the gaps in the sequence (one request a frame).
			 */
			settled = rep->written;
			settle_sensor_dropped = m->sequence + 1 >= camera_frames ? m->sequence + 1 - camera_frames : 0;
			rep->settle_dropped = rep->dropped + settle_sensor_dropped;
			rep->written = rep->dropped = 0;
			measured = 0;
			clock_ok = true;
		}
		if (settled || !o->settle)
			motion_add(motion, &cam, req);

		if (pacer_take(&pacer, m->timestamp_ns / 1e9)) {
			if (sink_write(&sink, req->buffer[CISP_STREAM_MAIN])) {
				fprintf(stderr, "cisp webcam: %s\n", error_text());
				status = 1;
				break;
			}
			now = mono_s();
			if (!rep->written)
				first = now;
			last = now;
			rep->written++;
			/* Sensor readout start to the frame in the device, where the sensor's clock is CLOCK_MONOTONIC. */
			double ms = (now * 1e9 - (double)m->timestamp_ns) / 1e6;
			if (!measured && (ms < 0 || ms > 10000))
				clock_ok = false; /* another clock: the first frame cannot be in the future or minutes old */
			latency[measured++ % MAX_LATENCIES] = ms;
			if (settled || !o->settle)
				faces_measure(o, &cam, req, rep);
		} else {
			rep->dropped++;
		}
		rep->frame_duration_ms = m->frame_duration_us / 1000;
		rep->frame_duration_max_ms = fmax(rep->frame_duration_max_ms, rep->frame_duration_ms);
		rep->analogue_gain = m->analogue_gain;
		rep->digital_gain = m->digital_gain;
		if (!o->quiet && now >= report_at) {
			if (report_at > 0)
				printf("%lu frames, %.1f fps, frame %.1f ms, gain x%.2f, %lu left out, %lu black\n",
				       rep->written, last > first ? (rep->written - 1) / (last - first) : 0,
				       rep->frame_duration_ms, m->analogue_gain * m->digital_gain, rep->dropped, rep->lost);
			fflush(stdout);
			report_at = now + 10;
		}
		if (cisp_camera_queue(cam.cam, req)) {
			fprintf(stderr, "cisp webcam: %s\n", error_text());
			status = 1;
			break;
		}
	}
	/* Frames the sensor dropped itself (no free buffer while the ISP was busy) were left out too. */
	if (cam.cam) {
		cisp_camera_stop(cam.cam);
		uint64_t sensor_dropped = cisp_sensor_dropped(cisp_camera_sensor(cam.cam));

		rep->dropped += sensor_dropped > settle_sensor_dropped ? sensor_dropped - settle_sensor_dropped : 0;
	}
	struct rusage ru;
	if (rep->written && !getrusage(RUSAGE_SELF, &ru))
		rep->cpu_ms_per_frame = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
					 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6) * 1000 /
					(rep->written + settled);
	rep->seconds = last - first;
	rep->fps = rep->seconds > 0 ? (rep->written - 1) / rep->seconds : 0;
	if (clock_ok && measured) {
		unsigned n = measured < MAX_LATENCIES ? (unsigned)measured : MAX_LATENCIES;

		rep->latency_p50_ms = quantile(latency, n, 0.5);
		rep->latency_p99_ms = quantile(latency, n, 0.99);
	}
	if (!motion->off && motion->pairs) {
		rep->motion_rms_px = sqrt(motion->sum / motion->rows);
		rep->motion_pairs = motion->pairs;
	}
out:
	camera_close(&cam);
	cisp_camera_manager_destroy(mgr);
	cisp_v4l2_output_close(sink.out);
	cisp_image_free(&black);
	free(sink.packed);
	free(latency);
	free(motion);
	return status;
}

int cmd_webcam(int argc, char **argv)
{
	enum { OPT_CAMERA = 256, OPT_DEVICE, OPT_SIZE, OPT_FPS, OPT_MIN_FPS, OPT_FORMAT, OPT_MODE, OPT_OPTION,
	       OPT_TUNING, OPT_FRAMES, OPT_SETTLE, OPT_QUIET, OPT_FACES, OPT_EIS };
	static const struct option longopts[] = {
		{ "camera", required_argument, NULL, OPT_CAMERA }, { "device", required_argument, NULL, OPT_DEVICE },
		{ "size", required_argument, NULL, OPT_SIZE },     { "fps", required_argument, NULL, OPT_FPS },
		{ "min-fps", required_argument, NULL, OPT_MIN_FPS }, { "format", required_argument, NULL, OPT_FORMAT },
		{ "mode", required_argument, NULL, OPT_MODE },     { "option", required_argument, NULL, OPT_OPTION },
		{ "tuning", required_argument, NULL, OPT_TUNING }, { "frames", required_argument, NULL, OPT_FRAMES },
		{ "settle", required_argument, NULL, OPT_SETTLE }, { "quiet", no_argument, NULL, OPT_QUIET },
		{ "help", no_argument, NULL, 'h' },              { "faces", required_argument, NULL, OPT_FACES },
		{ "eis", no_argument, NULL, OPT_EIS },
		{ NULL, 0, NULL, 0 },
	};
	struct webcam_options o = { .width = 1280, .height = 720, .fps = 30, .pixelformat = CISP_V4L2_OUTPUT_YUYV };
	struct webcam_report rep;
	struct sigaction sa = { .sa_handler = on_stop };
	char options[1024] = "";
	int opt, r;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_CAMERA: o.camera = optarg; break;
		case OPT_DEVICE: o.device = optarg; break;
		case OPT_MODE: o.mode = optarg; break;
		case OPT_TUNING: o.tuning = optarg; break;
		case OPT_QUIET: o.quiet = true; break;
		case OPT_EIS: o.eis = true; break;
		case OPT_SIZE:
			if (parse_size("--size", optarg, &o.width, &o.height))
				return 2;
			if (o.width % 2 || o.height % 2 || o.width > 8192 || o.height > 8192) {
				fprintf(stderr, "cisp webcam: --size %s: even width and height up to 8192\n", SHOWN(optarg));
				return 2;
			}
			break;
		case OPT_FPS:
			if (parse_double("--fps", optarg, 1, 240, &o.fps))
				return 2;
			break;
		case OPT_MIN_FPS:
			if (parse_double("--min-fps", optarg, 1, 240, &o.min_fps))
				return 2;
			break;
		case OPT_FACES:
			if (parse_double("--faces", optarg, 0, 1000, &o.faces))
				return 2;
			break;
		case OPT_FORMAT:
			if (!strcasecmp(optarg, "yuyv")) {
				o.pixelformat = CISP_V4L2_OUTPUT_YUYV;
			} else if (!strcasecmp(optarg, "nv12")) {
				o.pixelformat = CISP_V4L2_OUTPUT_NV12;
			} else {
				fprintf(stderr, "cisp webcam: --format %s: yuyv or nv12\n", SHOWN(optarg));
				return 2;
			}
			break;
		case OPT_FRAMES: {
			unsigned long n;

			if (parse_uint("--frames", optarg, 1, 100000000, &n))
				return 2;
			o.frames = n;
			break;
		}
		case OPT_SETTLE: {
			unsigned long n;

			if (parse_uint("--settle", optarg, 0, 100000000, &n))
				return 2;
			o.settle = n;
			break;
		}
		case OPT_OPTION: {
			size_t len = strlen(options);

			if (strchr(optarg, ',') || !strchr(optarg, '=') ||
			    (size_t)snprintf(options + len, sizeof(options) - len, "%s%s", len ? "," : "", optarg) >=
				    sizeof(options) - len) {
				fprintf(stderr, "cisp webcam: --option %s: KEY=VALUE without ',', and not too many\n",
					SHOWN(optarg));
				return 2;
			}
			break;
		}
		case 'h': usage(stdout); return 0;
		default: bad_option(argv, "h"); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "cisp webcam: unexpected argument '%s'; 'cisp help webcam' lists the options\n",
			SHOWN(argv[optind]));
		return 2;
	}
	if (!o.camera) {
		fprintf(stderr, "cisp webcam: --camera is required; 'cisp help webcam' lists the options\n");
		return 2;
	}
	if (o.min_fps > o.fps) {
		fprintf(stderr, "cisp webcam: --min-fps %g is above --fps %g\n", o.min_fps, o.fps);
		return 2;
	}
	o.sensor_options = options[0] ? options : NULL;
	/* A signal ends the stream cleanly: the camera stops, the device stays as it is. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	r = webcam_run(&o, &rep);
	if (r)
		return r;
	if (o.settle)
		printf("%lu frames first, not measured: %lu sensor frames left out\n", o.settle, rep.settle_dropped);
	printf("%lu frames in %.1f s: %.2f fps (%g requested), %lu sensor frames left out, %lu black\n", rep.written,
	       rep.seconds, rep.fps, o.fps, rep.dropped, rep.lost);
	printf("CPU %.1f ms a frame (all threads; a virtual sensor's rendering included)\n", rep.cpu_ms_per_frame);
	/* Frames held between the sensor and the device (Little's law): latency times the delivered rate. */
	if (rep.latency_p50_ms >= 0)
		printf("latency, sensor readout start to the device: p50 %.1f ms, p99 %.1f ms (frames held: %.2f, %.2f)\n",
		       rep.latency_p50_ms, rep.latency_p99_ms, rep.latency_p50_ms * rep.fps / 1000,
		       rep.latency_p99_ms * rep.fps / 1000);
	else
		printf("latency not measured: the sensor's clock is not CLOCK_MONOTONIC\n");
	if (rep.motion_rms_px > 0)
		printf("residual motion of the still scene (the virtual sensor's shake%s): %.3f px RMS a frame, %lu frame pairs\n",
		       o.eis ? ", less EIS" : "", rep.motion_rms_px, rep.motion_pairs);
	if (o.faces > 0 && rep.face_frames)
		printf("%lu of %lu frames with a face; the largest face's mean Y %.1f in the last of them\n",
		       rep.face_frames, rep.written, rep.face_luma);
	else if (o.faces > 0)
		printf("no face in the %lu frames\n", rep.written);
	return 0;
}
