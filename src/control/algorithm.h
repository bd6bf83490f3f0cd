/* SPDX-License-Identifier: MIT */
/*
 * A control algorithm, and what the algorithms of one loop share
 * (docs/control.md, "Algorithms").
 *
 * The loop (control.c) runs a list of algorithms (algorithms.c), in the
 * manner of libcamera's IPA modules. Each algorithm is one file that reads
 * its own section of the tuning file, keeps its own state, handles its own
 * request fields and writes its own params blocks:
 *
 *   parse      its section, when a tuning file is read (tuning_yaml.c);
 *   defaults   its section's values when the file leaves keys out, or for
 *              the built-in uncalibrated tuning (tuning.c);
 *   init       its state from the tuning, when the loop is made;
 *   configure  for the sensor mode and controls, when the loop is made;
 *   request    apply the request fields it owns (the loop has checked them);
 *   start      forget history: a stream starts;
 *   process    one frame's statistics and metadata: decide, and publish the
 *              results in the context;
 *   prepare    write its blocks of the parameter state for the next frame.
 *
 * Every callback may be NULL. Algorithms see each other only through struct
 * control_context: each result there is written by one algorithm (in
 * start(), process() or request()) and read by those after it in the list
 * (AWB's gains by AE's metering, AE's exposure by AF's wait), or by
 * prepare(), which reads only the context and its own state. The loop
 * checks every request field first, so request() cannot fail.
 */
#ifndef CISP_CONTROL_ALGORITHM_H
#define CISP_CONTROL_ALGORITHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/control.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/stats.h>

#include "faces.h"
#include "tuning.h"
#include "tuning_yaml.h"

/* One split of an exposure product into controls (AE's decision). */
struct ae_exposure {
	int32_t exposure;     /* lines */
	int32_t again;        /* analogue gain code */
	int32_t dgain;        /* sensor digital gain code (256 when the sensor has none) */
	int32_t frame_length; /* lines */
	double isp_dgain;     /* digital gain left to the ISP (>= 1) */
	double product;       /* what the split really gives: exposure_us * again * dgain * isp_dgain */
};

/* What the algorithms of one loop share. */
struct control_context {
	/* The camera, fixed when the loop is made. */
	const struct cisp_tuning *tuning; /* NULL in the grey-world configuration */
	struct cisp_sensor_mode mode;
	struct cisp_sensor_control_info controls[CISP_SENSOR_NUM_CONTROLS];
	double line_ns;                   /* one line of the mode */
	unsigned latency;                 /* frames from the statistics of frame n to the first frame a decision reaches */

	/* process(): the frame whose statistics these are. */
	const struct cisp_stats *stats;
	const struct cisp_sensor_metadata *md;
	double frame_isp_dgain;           /* the ISP digital gain the loop gave that frame */
	struct control_faces faces;       /* the camera's latest faces (control_set_faces()): AE and the AF window */

	/*
	 * The results. @state is the loop's report, each algorithm filling its
	 * own fields (AE its exposure and states, AWB the colour temperature and
	 * gains, AF the lens position, flicker the frequency), which the others
	 * read: AE meters with AWB's gains and avoids the flicker frequency, the
	 * colour blocks follow AWB's colour temperature.
	 */
	struct cisp_control_state state;
	struct ae_exposure exposure;      /* AE: the controls of its latest decision */
	double green;                     /* AE: mean green of the frame at the statistics tap, fraction of full scale */
	double scene;                     /* AE: the frame's metered luma per unit exposure product */

	/* prepare(): the gains of the frame the parameters are for. */
	double sensor_gain;               /* analogue x sensor digital */
	double isp_dgain;                 /* the ISP's digital gain */
};

struct control_algorithm {
	const char *section; /* its key in the tuning file; NULL: none */
	bool required;       /* a tuning file must have the section */
	size_t size;         /* bytes of its state, zeroed by the loop before init */
	uint32_t blocks;     /* CISP_BLOCK_BIT() of the params blocks it writes */
	uint32_t requests;   /* enum cisp_control_request_bits it handles */

	int (*parse)(struct yaml_reader *r, const yaml_node_t *section, const char *key, struct cisp_tuning *t);
	void (*defaults)(struct cisp_tuning *t, bool uncalibrated);
	/* init and configure: 0, or a negative errno with a message (the loop is not made). */
	int (*init)(void *self, const struct control_context *ctx);
	int (*configure)(void *self, struct control_context *ctx);
	void (*request)(void *self, struct control_context *ctx, const struct cisp_control_request *req);
	void (*start)(void *self, struct control_context *ctx);
	void (*process)(void *self, struct control_context *ctx);
	/* Returns the blocks (CISP_BLOCK_BIT()) whose value or enabled state changed. */
	uint32_t (*prepare)(void *self, const struct control_context *ctx, struct cisp_param_state *ps);
};

/* The algorithms, each defined in the file of its name. */
extern const struct control_algorithm statistics_algorithm;    /* statistics.c: the STATS block */
extern const struct control_algorithm black_level_algorithm;   /* black_level.c: BLC */
extern const struct control_algorithm defects_algorithm;       /* defects.c: DPC */
extern const struct control_algorithm defect_pixels_section;   /* defects.c: its static list's section, no blocks */
extern const struct control_algorithm lens_shading_algorithm;  /* lens_shading.c: LSC */
extern const struct control_algorithm awb_algorithm;           /* awb.c: white balance, WB */
extern const struct control_algorithm flicker_algorithm;       /* flicker.c: anti-flicker */
extern const struct control_algorithm ae_algorithm;            /* ae.c: exposure and gains */
extern const struct control_algorithm af_algorithm;            /* af.c: focus */
extern const struct control_algorithm colour_matrix_algorithm; /* colour_matrix.c: CCM */
extern const struct control_algorithm noise_profile_algorithm; /* noise_profile.c: NOISE */
extern const struct control_algorithm denoise_algorithm;       /* denoise.c: BNR, CNR, SHARPEN */
extern const struct control_algorithm tone_curve_algorithm;    /* tone_curve.c: TONE */
extern const struct control_algorithm ltm_algorithm;           /* ltm.c: LTM */
extern const struct control_algorithm highlights_algorithm;      /* highlights.c: HIGHLIGHTS */
extern const struct control_algorithm grey_world_algorithm;    /* grey_world.c: WB for a stream without a sensor */
extern const struct control_algorithm provenance_section;      /* provenance.c: the calibration's record, no blocks */

/* The algorithms, in the order the loop runs them (NULL-terminated lists, algorithms.c). */
extern const struct control_algorithm *const control_camera_algorithms[];     /* CISP_CONTROL_CAMERA */
extern const struct control_algorithm *const control_grey_world_algorithms[]; /* CISP_CONTROL_GREY_WORLD */

/*
 * The camera algorithms' parameters without a loop, for tests and fuzzing:
 * every algorithm of the camera configuration is made for @t and @mode and
 * prepares its blocks of @ps for white-balance gains @gains (R, B against
 * G), colour temperature @ct and the gains of the frame. Returns the blocks
 * that changed, or a negative errno (a tuning that does not fit @mode).
 */
int control_prepare_params(const struct cisp_tuning *t, const struct cisp_sensor_mode *mode, const double gains[2],
			   double ct, double sensor_gain, double isp_dgain, struct cisp_param_state *ps);

#endif /* CISP_CONTROL_ALGORITHM_H */
