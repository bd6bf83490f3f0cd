/* SPDX-License-Identifier: MIT */
/*
 * The video-conferencing profile's checks of the webcam path, from the
 * figures of its runs (cmd_conform.c makes them): frame rate, frames left
 * out and latency with EIS off and on, the residual motion with EIS, and
 * face exposure on a backlit portrait (docs/conformance.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cisp/iq_report.h>

#include "webcam.h"

/* An info line of the report, printed as well: the checks' table shows checks only. */
static void info(struct cisp_iq_report *r, const char *name, const char *text)
{
	cisp_iq_report_info(r, name, text);
	printf("%s: %s\n", name, text);
}

/* Rate, frames left out and latency of one run; @with names it ("", " with EIS"). */
static void check_rate(struct cisp_iq_report *r, const struct webcam_report *w, const char *with)
{
	char name[128];

	snprintf(name, sizeof(name), "webcam: frames delivered per second%s", with);
	cisp_iq_report_check(r, name, w->fps, "fps", ">=", WEBCAM_FPS * 0.97);
	snprintf(name, sizeof(name), "webcam: sensor frames left out%s", with);
	cisp_iq_report_check(r, name, (double)w->dropped, "", "<=", WEBCAM_FRAMES / 50);
	if (w->latency_p50_ms < 0) {
		snprintf(name, sizeof(name), "webcam: latency%s", with);
		cisp_iq_report_check_text(r, name, false, "not measured (the sensor's clock is not CLOCK_MONOTONIC)");
		return;
	}
	snprintf(name, sizeof(name), "webcam: latency p50%s, readout start to device", with);
	cisp_iq_report_check(r, name, w->latency_p50_ms, "ms", "<=", WEBCAM_MAX_P50_MS);
	snprintf(name, sizeof(name), "webcam: latency p99%s, readout start to device", with);
	cisp_iq_report_check(r, name, w->latency_p99_ms, "ms", "<=", WEBCAM_MAX_P99_MS);
}

static void check_eis(struct cisp_iq_report *r, const struct webcam_conformance *c)
{
	char text[200];

	snprintf(text, sizeof(text), "%.1f ms a frame with EIS, %.1f without; %lu frames in %.1f s",
		 c->eis_on.cpu_ms_per_frame, c->eis_off.cpu_ms_per_frame, c->eis_on.written, c->eis_on.seconds);
	info(r, "webcam: EIS on", text);
	if (c->motion_on.motion_rms_px < 0) {
		cisp_iq_report_check_text(r, "webcam: residual motion with EIS", false,
					  "not measured: no two consecutive sensor frames, or not the virtual sensor");
	} else {
		snprintf(text, sizeof(text), "%.3f px a frame without EIS (%lu frame pairs), %.3f with it (%lu pairs)",
			 c->motion_off.motion_rms_px, c->motion_off.motion_pairs, c->motion_on.motion_rms_px,
			 c->motion_on.motion_pairs);
		info(r, "webcam: residual motion, RMS", text);
		cisp_iq_report_check(r, "webcam: residual motion with EIS, RMS a frame", c->motion_on.motion_rms_px,
				     "px", "<=", WEBCAM_MAX_MOTION_PX);
	}
	check_rate(r, &c->eis_on, " with EIS");
}

static void check_faces(struct cisp_iq_report *r, const struct webcam_conformance *c)
{
	const struct webcam_report *f = &c->faces;
	char text[400];

	if (c->faces_error[0]) {
		/* Not run (no portrait given, the module not built, the image unreadable): a failure that says why. */
		cisp_iq_report_check_text(r, "webcam: faces found, backlit portrait", false, c->faces_error);
		return;
	}
	cisp_iq_report_check(r, "webcam: frames with a face found, backlit portrait",
			     f->written ? (double)f->face_frames / f->written : 0, "", ">=", WEBCAM_MIN_FACE_SHARE);
	if (!f->face_frames || f->face_luma < 0) {
		cisp_iq_report_check_text(r, "webcam: face luma with face priority", false, "no face to meter");
		return;
	}
	snprintf(text, sizeof(text), "%dx%d at %d,%d: Y %.1f with face priority, %.1f without (same rectangle)",
		 f->face.width, f->face.height, f->face.x, f->face.y, f->face_luma, c->no_faces.face_luma);
	info(r, "webcam: face exposure", text);
	cisp_iq_report_check(r, "webcam: face luma with face priority, at least", f->face_luma, "Y", ">=",
			     WEBCAM_MIN_FACE_LUMA);
	cisp_iq_report_check(r, "webcam: face luma with face priority, at most", f->face_luma, "Y", "<=",
			     WEBCAM_MAX_FACE_LUMA);
}

void webcam_conformance_check(struct cisp_iq_report *r, const struct webcam_conformance *c)
{
	const struct webcam_report *w = &c->eis_off;
	double load[1];
	char text[200];

	snprintf(text, sizeof(text), "%lu frames in %.1f s, EIS off", w->written, w->seconds);
	info(r, "webcam path", text);
	snprintf(text, sizeof(text), "%d frames before those, not measured: %lu sensor frames left out", WEBCAM_SETTLE,
		 w->settle_dropped);
	info(r, "webcam: start", text);
	snprintf(text, sizeof(text), "%.1f ms a frame, the virtual sensor's rendering included", w->cpu_ms_per_frame);
	info(r, "webcam: CPU", text);
	/* Rate and latency are wall-clock: what else the machine ran stands beside them. */
	if (getloadavg(load, 1) == 1) {
		snprintf(text, sizeof(text), "%ld CPUs, load average %.2f after the runs", sysconf(_SC_NPROCESSORS_ONLN),
			 load[0]);
		info(r, "webcam: machine", text);
	}
	/* The promise: every sensor frame at the period (to the line), the gain raised instead. */
	cisp_iq_report_check(r, "webcam: longest sensor frame, dim room",
			     w->frame_duration_max_ms > c->eis_on.frame_duration_max_ms ? w->frame_duration_max_ms
											 : c->eis_on.frame_duration_max_ms,
			     "ms", "<=", 1000 / WEBCAM_FPS * 1.005);
	cisp_iq_report_check(r, "webcam: analogue x digital gain, dim room", w->analogue_gain * w->digital_gain, "x",
			     ">=", 1.5);
	check_rate(r, w, "");
	/* Frames between the sensor and the device at once (Little's law): latency times the delivered rate. */
	if (w->latency_p50_ms >= 0) {
		snprintf(text, sizeof(text), "%.2f at p50 latency, %.2f at p99", w->latency_p50_ms * w->fps / 1000,
			 w->latency_p99_ms * w->fps / 1000);
		info(r, "webcam: frames held", text);
	}
	check_eis(r, c);
	check_faces(r, c);
}
