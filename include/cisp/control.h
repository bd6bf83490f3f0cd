/* SPDX-License-Identifier: MIT */
/**
 * @file control.h
 * @brief The 3A control loop: statistics in, sensor controls and ISP
 * parameters out.
 *
 * One struct cisp_control drives one camera. For every frame the ISP has
 * processed, the caller hands over the frame's statistics and the sensor
 * metadata of that frame (the controls it actually used). The loop runs the
 * algorithms (AE/AGC with anti-flicker, AWB, AF, and the colour, shading,
 * noise and sharpening parameters that follow the estimated colour
 * temperature and gain) and returns:
 *  - the sensor controls to write, and the frame they are meant for; the
 *    caller queues them with cisp_sensor_queue_controls() (or writes them
 *    with cisp_sensor_set_controls() when that frame is already too late);
 *  - the ISP parameter state to use from the next frame on, with the mask
 *    of blocks that changed (encode them with cisp_params_encode());
 *  - the loop's state for the frame's metadata (AE/AWB/AF states, colour
 *    temperature, detected flicker).
 *
 * The loop knows every control's delay (from the sensor), so it judges
 * each statistic against the exposure and gain that frame really used and
 * never reacts twice to the same error while a change is still in flight.
 *
 * Every automatic control can be switched to manual with
 * cisp_control_request(); manual values pass through unchanged (clamped to
 * the sensor's limits).
 *
 * Threads: a handle is used from one thread at a time.
 */
#ifndef CISP_CONTROL_H
#define CISP_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/stats.h>
#include <cisp/tuning.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque control loop. */
struct cisp_control;

/** AE metering modes: how zones are weighted. */
enum cisp_ae_metering {
	CISP_AE_METERING_CENTRE = 0, /**< centre-weighted (default) */
	CISP_AE_METERING_SPOT = 1,   /**< the central zones only */
	CISP_AE_METERING_MATRIX = 2, /**< every zone alike */
};

/** Anti-flicker modes. */
enum cisp_flicker_mode {
	CISP_FLICKER_AUTO = 0, /**< detect 50/60 Hz from the row statistics (default) */
	CISP_FLICKER_OFF = 1,  /**< no restriction on exposure */
	CISP_FLICKER_50HZ = 2, /**< exposures in multiples of 10 ms under 50 Hz mains */
	CISP_FLICKER_60HZ = 3, /**< exposures in multiples of 8.33 ms under 60 Hz mains */
};

/** AF modes. */
enum cisp_af_mode {
	CISP_AF_MANUAL = 0,     /**< lens at the requested position */
	CISP_AF_AUTO = 1,       /**< one scan on each trigger, then hold */
	CISP_AF_CONTINUOUS = 2, /**< scan at start and again whenever the scene changes (default) */
};

/** AE states reported per frame. */
enum cisp_ae_state {
	CISP_AE_SEARCHING = 0, /**< moving towards the target */
	CISP_AE_CONVERGED = 1, /**< within tolerance of the target */
	CISP_AE_MANUAL = 2,    /**< exposure and gains are manual */
	CISP_AE_LIMITED = 3,   /**< at the longest exposure and highest gain (too dark) or shortest and lowest (too bright) */
};

/** AWB states reported per frame. */
enum cisp_awb_state {
	CISP_AWB_SEARCHING = 0, /**< the estimate is still moving */
	CISP_AWB_CONVERGED = 1, /**< stable */
	CISP_AWB_MANUAL = 2,    /**< gains or colour temperature are manual */
};

/** AF states reported per frame. */
enum cisp_af_state {
	CISP_AF_IDLE = 0,     /**< manual, or auto not triggered yet */
	CISP_AF_SCANNING = 1, /**< sweeping or climbing */
	CISP_AF_FOCUSED = 2,  /**< at the sharpness peak */
	CISP_AF_FAILED = 3,   /**< no usable peak (flat scene); lens left where it was */
};

/** Bits of struct cisp_control_request.mask: which fields are meant. */
enum cisp_control_request_bits {
	CISP_REQ_AE_ENABLE = 1u << 0,      /**< @ae_enable */
	CISP_REQ_EXPOSURE = 1u << 1,       /**< @exposure_us (manual AE) */
	CISP_REQ_ANALOGUE_GAIN = 1u << 2,  /**< @analogue_gain (manual AE) */
	CISP_REQ_DIGITAL_GAIN = 1u << 3,   /**< @digital_gain (manual AE) */
	CISP_REQ_EV = 1u << 4,             /**< @ev */
	CISP_REQ_METERING = 1u << 5,       /**< @metering */
	CISP_REQ_FLICKER = 1u << 6,        /**< @flicker */
	CISP_REQ_AWB_ENABLE = 1u << 7,     /**< @awb_enable */
	CISP_REQ_COLOUR_TEMPERATURE = 1u << 8, /**< @colour_temperature (manual AWB) */
	CISP_REQ_COLOUR_GAINS = 1u << 9,   /**< @colour_gains (manual AWB; wins over a temperature) */
	CISP_REQ_AF_MODE = 1u << 10,       /**< @af_mode */
	CISP_REQ_AF_TRIGGER = 1u << 11,    /**< start a scan (auto mode) */
	CISP_REQ_LENS_POSITION = 1u << 12, /**< @lens_position (manual AF) */
	CISP_REQ_FRAME_DURATION = 1u << 13, /**< @frame_duration_us limits */
	CISP_REQ_MAX_DIGITAL_GAIN = 1u << 14, /**< @max_digital_gain */
};

/**
 * struct cisp_control_request - manual settings and modes, as an
 * application requests them. Only fields whose bit is in @mask change;
 * others keep their earlier value.
 */
struct cisp_control_request {
	uint32_t mask;                   /**< enum cisp_control_request_bits */
	bool ae_enable;                  /**< false: @exposure_us and gains are used as given */
	double exposure_us;              /**< manual exposure time, microseconds */
	double analogue_gain;            /**< manual analogue gain (1.0 = x1) */
	double digital_gain;             /**< manual digital gain (1.0 = x1) */
	double ev;                       /**< exposure compensation in stops, -4..4 */
	enum cisp_ae_metering metering;  /**< metering mode */
	enum cisp_flicker_mode flicker;  /**< anti-flicker mode */
	bool awb_enable;                 /**< false: @colour_temperature or @colour_gains are used */
	double colour_temperature;       /**< manual colour temperature, kelvin (2000..12000) */
	double colour_gains[2];          /**< manual red and blue gains relative to green */
	enum cisp_af_mode af_mode;       /**< AF mode */
	int32_t lens_position;           /**< manual lens position (focus motor code) */
	double frame_duration_us[2];     /**< smallest frame duration (the frame rate AE keeps; 0 = the mode's default) and largest (AE stretches frames up to it in low light, after the analogue gain; 0 = the smallest: frames never stretch) */
	double max_digital_gain;         /**< largest digital gain (sensor and ISP) AE may use, 1..256; 0 = the tuning's ae.max_digital_gain (4 without a tuning) */
};

/** Which algorithms a loop runs (docs/control.md, "Algorithms"). */
enum cisp_control_algorithms {
	/** A camera's: AE/AGC with anti-flicker, AWB, AF, and the blocks that follow them, from its tuning (default). */
	CISP_CONTROL_CAMERA = 0,
	/**
	 * Grey-world white balance and an ISP digital gain for exposure, from
	 * the statistics alone: for a stream with no sensor to control and no
	 * tuning. It writes the WB block only and takes the request fields
	 * awb_enable, colour_gains, ae_enable, digital_gain, ev and
	 * max_digital_gain.
	 */
	CISP_CONTROL_GREY_WORLD = 1,
};

/** What the loop needs to know about the camera it drives. */
struct cisp_control_config {
	/** The sensor+lens tuning; kept by pointer, must outlive the loop. Not used by CISP_CONTROL_GREY_WORLD (may be NULL). */
	const struct cisp_tuning *tuning;
	struct cisp_sensor_mode mode;     /**< the sensor mode being streamed */
	/** Limits and delays of every sensor control in that mode (from cisp_sensor_control_info()). */
	struct cisp_sensor_control_info controls[CISP_SENSOR_NUM_CONTROLS];
	enum cisp_control_algorithms algorithms; /**< the algorithms to run */
};

/** The loop's per-frame report, for request metadata and logs. */
struct cisp_control_state {
	uint64_t sequence;               /**< the frame these statistics came from */
	enum cisp_ae_state ae_state;     /**< AE state */
	double ae_error;                 /**< measured / target brightness of that frame (1.0 on target) */
	double exposure_us;              /**< exposure chosen by the latest decision */
	double analogue_gain;            /**< analogue gain chosen by the latest decision */
	double digital_gain;             /**< total digital gain (sensor and ISP) chosen by the latest decision */
	double lux;                      /**< estimated scene illuminance (tuning-calibrated; 0 if unknown) */
	unsigned flicker_hz;             /**< mains frequency being avoided (0, 50 or 60) */
	bool flicker_detected;           /**< @flicker_hz came from detection, not from the request */
	enum cisp_awb_state awb_state;   /**< AWB state */
	double colour_temperature;       /**< estimated (or manual) colour temperature, kelvin */
	double colour_gains[2];          /**< red and blue gains relative to green in use */
	enum cisp_af_state af_state;     /**< AF state */
	int32_t lens_position;           /**< lens position chosen by the latest decision */
	double sharpness;                /**< AF figure of merit of that frame (normalised per cell) */
};

/** The loop's output for one frame of statistics. */
struct cisp_control_result {
	/** Sensor controls to apply; mask 0 when nothing changes. */
	struct cisp_sensor_controls sensor;
	/**
	 * The first frame these controls are meant for: queue them with
	 * cisp_sensor_queue_controls(s, sensor_sequence, &sensor); if that
	 * returns -EAGAIN, write them with cisp_sensor_set_controls().
	 */
	uint64_t sensor_sequence;
	/** The ISP parameter state to use from the next frame; owned by the loop, valid until its next call. */
	const struct cisp_param_state *params;
	/** Block types (1u << CISP_BLOCK_*) of @params that changed since the previous result. */
	uint32_t params_changed;
	/** The loop's state after this frame. */
	struct cisp_control_state state;
};

/**
 * cisp_control_create() - make a control loop for one camera.
 * @c: receives the loop; free with cisp_control_destroy().
 * @config: the tuning, the sensor mode and the sensor's control limits.
 * Return: 0; -EINVAL (the message says what) for a config the loop cannot
 * drive, a tuning that does not fit the mode among them (black and white
 * levels too close for the BLC block); -ENOMEM.
 */
CISP_API int cisp_control_create(struct cisp_control **c, const struct cisp_control_config *config);

/**
 * cisp_control_destroy() - free a loop.
 * @c: the loop (may be NULL).
 */
CISP_API void cisp_control_destroy(struct cisp_control *c);

/**
 * cisp_control_request() - change modes and manual values; they take
 * effect at the next cisp_control_start() or cisp_control_process(). Those
 * that need no statistics (the grey-world configuration's manual gains) are
 * in the parameters of the latest result at once, and the next result's
 * params_changed has the blocks they changed.
 * @c: the loop.
 * @req: the request.
 * Return: 0, or -EINVAL for an out-of-range value or a field the loop's
 * configuration has no algorithm for (nothing changes).
 */
CISP_API int cisp_control_request(struct cisp_control *c, const struct cisp_control_request *req);

/**
 * cisp_control_start() - the controls and parameters to start streaming
 * with (before frame 0). Resets the algorithms' history.
 * @c: the loop.
 * @out: receives the sensor controls (write them with
 *       cisp_sensor_set_controls() while stopped; @out->sensor_sequence is 0)
 *       and the full ISP parameter state (@out->params_changed has every
 *       block the loop manages).
 * Return: 0 or a negative errno.
 */
CISP_API int cisp_control_start(struct cisp_control *c, struct cisp_control_result *out);

/**
 * cisp_control_process() - run the algorithms on one frame's statistics.
 * @c: the loop.
 * @stats: the statistics the ISP computed for the frame, with the
 *         configuration the loop asked for (params' STATS block).
 * @md: that frame's sensor metadata (the controls it used).
 * @out: receives the decisions.
 * Frames may be skipped (e.g. when the ISP drops one) but must come in
 * increasing sequence order.
 * Return: 0; -EINVAL for statistics without zones or out of order; the
 * loop's state is unchanged on error.
 */
CISP_API int cisp_control_process(struct cisp_control *c, const struct cisp_stats *stats,
				  const struct cisp_sensor_metadata *md,
				  struct cisp_control_result *out);

/** Names for logs and JSON: "searching", "converged", ... */
CISP_API const char *cisp_ae_state_name(enum cisp_ae_state s);
/** Names for logs and JSON. */
CISP_API const char *cisp_awb_state_name(enum cisp_awb_state s);
/** Names for logs and JSON. */
CISP_API const char *cisp_af_state_name(enum cisp_af_state s);

#ifdef __cplusplus
}
#endif

#endif /* CISP_CONTROL_H */
