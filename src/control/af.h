/* SPDX-License-Identifier: MIT */
/*
 * Contrast autofocus on the statistics' AF windows (docs/control.md, "AF"):
 * a coarse sweep over the lens range, a fine sweep around the best coarse
 * position, and a parabola through the best fine points. Positions are asked
 * for one per frame; every sharpness is paired with the lens position its
 * frame really used (metadata), so the lens delay never mixes them up.
 *
 * The loop runs AF as af_algorithm (af.c: the af tuning section, the
 * figure of merit from the statistics, the AF requests); the functions
 * below are its core, also for tests.
 */
#ifndef CISP_CONTROL_AF_H
#define CISP_CONTROL_AF_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/control.h>
#include <cisp/params.h>

#include "faces.h"
#include "tuning.h"

/* Most positions measured in one scan (coarse and fine together). */
#define AF_MAX_POINTS 64
/* Frames in a row whose scene differs before continuous AF scans again. */
#define AF_CHANGE_FRAMES 3

enum af_phase {
	AF_PHASE_IDLE,   /* nothing to do (manual, auto not triggered, or done) */
	AF_PHASE_WAIT,   /* a scan is due, waiting for exposure to settle */
	AF_PHASE_COARSE, /* sweeping the whole range */
	AF_PHASE_FINE,   /* sweeping around the coarse peak */
	AF_PHASE_MOVE,   /* moving to the chosen position */
};

struct af_point {
	int32_t position;
	double sharpness;
};

struct af {
	const struct cisp_tuning *t;
	int32_t min, max;         /* the range scanned: the tuning's, within the motor's */
	unsigned latency;         /* frames from a decision to the first frame using it */
	enum cisp_af_mode mode;
	enum cisp_af_state state;
	enum af_phase phase;
	int32_t position;         /* the latest decided position */
	int32_t manual;           /* the requested manual position */
	int32_t start_position;   /* where a scan started (the lens returns there when it fails) */
	int32_t plan[AF_MAX_POINTS];
	unsigned plan_n, next;    /* positions of this sweep; the next one to ask for */
	struct af_point pts[AF_MAX_POINTS];
	unsigned npts;            /* positions measured in this scan */
	unsigned phase_frames;    /* frames spent in the phase (a sweep whose frames go missing ends anyway) */
	int32_t target;           /* MOVE: the chosen position */
	double ref_sharpness, ref_luma; /* the scene when focus was found (continuous mode) */
	unsigned changed;         /* frames in a row that differed from it */
	double sharpness;         /* the latest frame's figure */
};

void af_init(struct af *af, const struct cisp_tuning *t, int32_t motor_min, int32_t motor_max, unsigned latency,
	     int32_t position);
/* Stream start: keep the lens where it is; continuous mode scans again. */
void af_reset(struct af *af);
/* Mode and manual position from a request. */
void af_set_mode(struct af *af, enum cisp_af_mode mode, int32_t manual);
/* Start a scan (auto and continuous modes). */
void af_trigger(struct af *af);
/*
 * One frame: its sharpness (any exposure-independent figure), its scene
 * luma (for scene changes), the lens position it used, and whether exposure
 * is settled enough to scan. Returns the position to ask for.
 */
int32_t af_process(struct af *af, double sharpness, double luma, int32_t frame_position, bool settled);

/*
 * The AF window on face @f (docs/faces.md): its rectangle in a frame of
 * @width x @height pixels, even-aligned, at least AF_FACE_MIN_WINDOW pixels
 * wide and high and inside the frame (which is at least that big).
 */
#define AF_FACE_MIN_WINDOW 32
struct cisp_stats_window af_face_window(const struct control_face *f, uint32_t width, uint32_t height);

#endif /* CISP_CONTROL_AF_H */
