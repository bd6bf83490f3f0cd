/* SPDX-License-Identifier: MIT */
/**
 * @file sensor.h
 * @brief Raw image sensors: modes, controls with delays, frames with metadata.
 *
 * A sensor delivers Bayer frames numbered 0, 1, 2, ... from stream start (the
 * frame's *sequence*). Implementations ("backends") sit behind one interface:
 * the virtual sensor (a physically modelled sensor rendering a scene, name
 * "virtual:<model>"), V4L2 sensors and raw-file players.
 *
 * ## The control delay model
 *
 * A sensor latches a control value at a frame boundary, some frames after it
 * was written. cisp describes this with one number per control, its *delay*
 * d (struct cisp_sensor_control_info.delay, from the sensor model), and the
 * *write point* w: the sequence returned by cisp_sensor_next_sequence(), i.e.
 * the frame the next cisp_sensor_capture() will return.
 *
 *  - While streaming, a value written by cisp_sensor_set_controls() at write
 *    point w is first in effect on frame w + d, and stays in effect until a
 *    later write takes effect. Frames before w + d keep the previous value.
 *    Example: exposure (d = 2) written after frame 4 was captured (w = 5)
 *    first shows on frame 7; analogue gain (d = 1) written at the same time
 *    first shows on frame 6.
 *  - While stopped, cisp_sensor_set_controls() programs the state the stream
 *    starts with: frame 0 and every frame until later writes take effect.
 *  - cisp_sensor_queue_controls(s, n, c) asks for the values of @c on frame
 *    n exactly: cisp writes each control at write point n - d (during the
 *    capture call that makes the write point reach it, before the frame is
 *    produced). It fails with -EAGAIN, writing nothing, if n - d < w for any
 *    control of @c (too late for that control).
 *  - Exposure is clamped on each frame to frame_length - exposure_margin of
 *    that same frame (both as in effect on that frame).
 *  - cisp_sensor_predict_controls() gives the values frame n will use given
 *    everything written and queued so far; the metadata of a captured frame
 *    (struct cisp_sensor_metadata.controls) gives the values it did use.
 *  - A frame taken with CISP_SENSOR_AHEAD leaves the write point at
 *    itself until the next frame is taken: a caller that takes frame n + 1
 *    before it has looked at frame n (to overlap capture with processing)
 *    still writes at write point n + 1, as if it had not. Its content does
 *    not change: controls with a delay of 1 or more written at n + 1 reach
 *    frame n + 1 + delay at the earliest; one without delay reaches n + 2.
 *    (On a real sensor the write point moves at the next start of frame,
 *    not at the end of readout.)
 *  - Frames a sensor drops (no buffer free: a real-time sensor whose
 *    consumer is slower than the frame rate) leave gaps in the sequence;
 *    they still count as frames for the delays. cisp_sensor_dropped()
 *    counts them.
 *  - cisp_sensor_stop() drops queued requests not yet written; values
 *    already written stay programmed for the next start. Sequences restart
 *    at 0 on each start; timestamps never go back.
 *
 * ## Units
 *
 * Exposure and frame length are in lines; one line lasts line_length /
 * pixel_rate seconds (struct cisp_sensor_mode), so exposure_ns = lines *
 * line_length * 1e9 / pixel_rate. Gains are unsigned fixed point with 8
 * fractional bits (CISP_SENSOR_GAIN_ONE = 256 is x1). Lens position is the
 * focus motor's DAC code; larger values focus closer.
 *
 * ## Threads
 *
 * A sensor handle is not thread-safe: use it from one thread at a time.
 */
#ifndef CISP_SENSOR_H
#define CISP_SENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/format.h>
#include <cisp/image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque sensor handle. */
struct cisp_sensor;

/** Gain value meaning x1 (gains have 8 fractional bits). */
#define CISP_SENSOR_GAIN_ONE 256

/** The largest control delay, in frames, any sensor may declare. */
#define CISP_SENSOR_MAX_DELAY 8

/** Sensor controls; also bit positions in struct cisp_sensor_controls.mask. */
enum cisp_sensor_control {
	CISP_SENSOR_EXPOSURE = 0,	/**< integration time in lines */
	CISP_SENSOR_ANALOGUE_GAIN = 1,	/**< analogue gain, 8 fractional bits */
	CISP_SENSOR_DIGITAL_GAIN = 2,	/**< digital gain, 8 fractional bits */
	CISP_SENSOR_FRAME_LENGTH = 3,	/**< lines per frame incl. vertical blanking */
	CISP_SENSOR_LENS_POSITION = 4,	/**< voice-coil focus motor DAC code */
	CISP_SENSOR_TEST_PATTERN = 5,	/**< enum cisp_sensor_test_pattern */
	CISP_SENSOR_HFLIP = 6,		/**< 1: mirror left-right */
	CISP_SENSOR_VFLIP = 7,		/**< 1: mirror top-bottom */
	CISP_SENSOR_NUM_CONTROLS = 8,
};

/**
 * Test patterns. Pattern frames ignore exposure, gains and the scene; their
 * values are raw codes: "on" is the mode's white level, "off" its black level.
 * Flips keep the CFA order (the readout window shifts by one pixel, as many
 * sensors do), so the frame format never changes.
 */
enum cisp_sensor_test_pattern {
	CISP_SENSOR_PATTERN_OFF = 0,   /**< the image */
	CISP_SENSOR_PATTERN_BARS = 1,  /**< 8 vertical bars: white, yellow, cyan, green, magenta, red, blue, black */
	CISP_SENSOR_PATTERN_SOLID = 2, /**< every sample at black + (white - black) / 2 */
	CISP_SENSOR_PATTERN_RAMP = 3,  /**< horizontal ramp from black (left) to white (right) */
};

/** Limits and delay of one control in the current mode. */
struct cisp_sensor_control_info {
	const char *name;     /**< "exposure", "analogue_gain", ... */
	bool supported;       /**< false if the sensor lacks the control (then writes fail) */
	int32_t min;          /**< smallest value */
	int32_t max;          /**< largest value */
	int32_t step;         /**< values are min + k * step; writes are rounded down to a step */
	int32_t def;          /**< the value after open and after a mode change */
	unsigned delay;       /**< frames from the write point to the first frame using it */
};

/**
 * A set of control values. Only the controls whose bit (1u << id) is set in
 * @mask are meant; the other entries of @value are ignored.
 */
struct cisp_sensor_controls {
	uint32_t mask;                            /**< which entries are present */
	int32_t value[CISP_SENSOR_NUM_CONTROLS];  /**< values, indexed by enum cisp_sensor_control */
};

/**
 * cisp_sensor_controls_set() - add one value to a control set.
 * @c: the set.
 * @id: the control.
 * @value: its value.
 */
static inline void cisp_sensor_controls_set(struct cisp_sensor_controls *c, enum cisp_sensor_control id,
					    int32_t value)
{
	c->mask |= 1u << id;
	c->value[id] = value;
}

/** A sensor mode: one readout configuration. */
struct cisp_sensor_mode {
	char name[32];            /**< e.g. "full", "1080p", "binned" */
	uint32_t width;           /**< output pixels per row (even) */
	uint32_t height;          /**< output rows (even) */
	uint32_t format;          /**< native Bayer format, 16-bit containers (CISP_FMT_SRGGB10, ...) */
	enum cisp_cfa cfa;        /**< CFA order of the output */
	unsigned bits;            /**< bits per sample (8..16) */
	uint32_t crop_x;          /**< left edge of the pixel array area read out */
	uint32_t crop_y;          /**< top edge of the area read out */
	uint32_t crop_width;      /**< width of the area read out (= width * binning) */
	uint32_t crop_height;     /**< height of the area read out (= height * binning) */
	unsigned binning;         /**< 1, or n for n x n averaging of same-colour pixels */
	uint64_t pixel_rate;      /**< pixels per second of the readout clock */
	uint32_t line_length;     /**< pixels per line including horizontal blanking */
	uint32_t frame_length_min;     /**< smallest frame length, lines */
	uint32_t frame_length_max;     /**< largest frame length, lines */
	uint32_t frame_length_default; /**< frame length after open and mode changes */
	uint32_t exposure_margin; /**< exposure <= frame length - margin lines */
	uint32_t black_level;     /**< pedestal of a dark pixel, in codes of @bits */
	uint32_t white_level;     /**< the largest code, (1 << @bits) - 1 */
};

/**
 * cisp_sensor_line_ns() - one line's duration in a mode.
 * @mode: the mode.
 * Return: line_length * 1e9 / pixel_rate, in nanoseconds.
 */
CISP_API double cisp_sensor_line_ns(const struct cisp_sensor_mode *mode);

/** What cisp_sensor_enumerate() lists. */
struct cisp_sensor_desc {
	char name[128];       /**< what cisp_sensor_open() takes, e.g. "virtual:cisp-8m10" */
	char backend[16];     /**< "virtual", "v4l2", "file" */
	char description[128];/**< one line for people */
};

/** Fixed facts about an open sensor. */
struct cisp_sensor_info {
	char name[128];        /**< the name it was opened by */
	char backend[16];      /**< the backend serving it */
	char model[64];        /**< the sensor model ("cisp-8m10") */
	char description[128]; /**< one line for people */
	uint32_t array_width;  /**< active pixel array width */
	uint32_t array_height; /**< active pixel array height */
	unsigned num_modes;    /**< number of modes */
};

/** Bits of struct cisp_sensor_metadata.flags. */
enum cisp_sensor_metadata_flags {
	/** The controls were reported by the sensor itself (embedded data),
	 *  not reconstructed from the writes and the delay model. */
	CISP_SENSOR_MD_CONTROLS_REPORTED = 1u << 0,
	/** The frame was copied out of the device's buffer into the caller's
	 *  image (cisp_sensor_capture() of a V4L2 camera; never set by
	 *  cisp_sensor_acquire(), nor by the virtual sensor, which renders
	 *  into the caller's image). */
	CISP_SENSOR_MD_COPIED = 1u << 1,
};

/** Per-frame metadata. */
struct cisp_sensor_metadata {
	uint64_t sequence;          /**< frame number since stream start */
	uint64_t timestamp_ns;      /**< start of readout of the first row, on the sensor's clock */
	uint64_t exposure_ns;       /**< integration time of every row */
	uint64_t frame_duration_ns; /**< frame length times line time */
	uint32_t mode;              /**< mode index */
	uint32_t format;            /**< format of the delivered image */
	uint32_t flags;             /**< enum cisp_sensor_metadata_flags */
	int32_t controls[CISP_SENSOR_NUM_CONTROLS]; /**< the values this frame used */
};

/** Flags of cisp_sensor_capture(). */
enum cisp_sensor_capture_flags {
	/** Return -EAGAIN instead of waiting when no frame is ready. */
	CISP_SENSOR_NONBLOCK = 1u << 0,
	/** The frame is taken ahead: the write point stays at it until the
	 *  next frame is taken (see the delay model at the top of this file). */
	CISP_SENSOR_AHEAD = 1u << 1,
};

/**
 * cisp_sensor_enumerate() - list the sensors that can be opened.
 * @list: receives up to @max entries (may be NULL when @max is 0).
 * @max: room in @list.
 *
 * Virtual sensors are the model files (*.yaml) found in the folders of the
 * CISP_SENSOR_PATH environment variable (colon-separated), then the
 * installed and the source tree's data/sensors folders. V4L2 cameras
 * ("v4l2:/dev/videoN") are the raw Bayer capture nodes; nodes the user may
 * not open are listed with that reason as description (docs/v4l2.md).
 *
 * Return: the number of sensors found (may exceed @max), or a negative errno.
 */
CISP_API int cisp_sensor_enumerate(struct cisp_sensor_desc *list, unsigned max);

/**
 * cisp_sensor_open() - open a sensor.
 * @s: receives the handle; close with cisp_sensor_close().
 * @name: "virtual:<model>" (a model name from the search path),
 *        "virtual:<path to a model .yaml>", "v4l2:/dev/videoN" or
 *        "v4l2:<video node name>" (docs/v4l2.md).
 * @options: "key=value,key=value" options for the backend (see
 *        cisp_sensor_set_option()), or NULL.
 *
 * The sensor opens stopped, in mode 0, with every control at its default.
 *
 * Return: 0, -ENOENT for an unknown sensor, -EINVAL for a bad name, model
 * file or option (the message says which), -ENOMEM; V4L2 cameras also
 * -EACCES (no permission), -EBUSY, -ENODEV (not a capture node), -ENOTSUP.
 */
CISP_API int cisp_sensor_open(struct cisp_sensor **s, const char *name, const char *options);

/**
 * cisp_sensor_close() - stop the sensor if needed and free it.
 * @s: the sensor (may be NULL).
 */
CISP_API void cisp_sensor_close(struct cisp_sensor *s);

/**
 * cisp_sensor_info() - fixed facts about a sensor.
 * @s: the sensor.
 * Return: the facts, valid until the sensor is closed (NULL for no sensor).
 */
CISP_API const struct cisp_sensor_info *cisp_sensor_info(const struct cisp_sensor *s);

/**
 * cisp_sensor_get_mode() - describe a mode.
 * @s: the sensor.
 * @index: 0 .. num_modes - 1.
 * @mode: receives the description.
 * Return: 0 or -ERANGE.
 */
CISP_API int cisp_sensor_get_mode(const struct cisp_sensor *s, unsigned index, struct cisp_sensor_mode *mode);

/**
 * cisp_sensor_current_mode() - the index of the selected mode.
 * @s: the sensor.
 * Return: the index.
 */
CISP_API unsigned cisp_sensor_current_mode(const struct cisp_sensor *s);

/**
 * cisp_sensor_set_mode() - select a mode; only while stopped. Controls whose
 * limits depend on the mode (exposure, frame length) are reset to their
 * defaults; the others keep their values.
 * @s: the sensor.
 * @index: the mode.
 * Return: 0, -ERANGE, or -EBUSY while streaming.
 */
CISP_API int cisp_sensor_set_mode(struct cisp_sensor *s, unsigned index);

/**
 * cisp_sensor_control_info() - limits and delay of a control in the current
 * mode.
 * @s: the sensor.
 * @id: the control.
 * @info: receives the description.
 * Return: 0 or -EINVAL for an unknown control.
 */
CISP_API int cisp_sensor_control_info(const struct cisp_sensor *s, enum cisp_sensor_control id,
				      struct cisp_sensor_control_info *info);

/**
 * cisp_sensor_set_controls() - write controls now (see the delay model at
 * the top of this file). Values outside [min, max] are clamped and rounded
 * down to a step; the metadata shows what was applied.
 * @s: the sensor.
 * @c: the values; controls not in @c->mask are left alone.
 * Return: 0, -EINVAL for an unsupported control or unknown mask bit (then
 * nothing is written).
 */
CISP_API int cisp_sensor_set_controls(struct cisp_sensor *s, const struct cisp_sensor_controls *c);

/**
 * cisp_sensor_queue_controls() - ask for control values on one future frame.
 * @s: the sensor.
 * @sequence: the frame that must use the values.
 * @c: the values.
 *
 * Each control is written at write point @sequence - delay, so that it is in
 * effect from frame @sequence on. Requests are kept in order; a later request
 * for the same control and frame replaces the earlier one.
 *
 * Return: 0; -EAGAIN if some control can no longer reach @sequence (nothing
 * is queued); -EINVAL as cisp_sensor_set_controls(); -ENOSPC when 64
 * requests are already waiting.
 */
CISP_API int cisp_sensor_queue_controls(struct cisp_sensor *s, uint64_t sequence, const struct cisp_sensor_controls *c);

/**
 * cisp_sensor_predict_controls() - the values a future frame will use, from
 * every write and queued request so far.
 * @s: the sensor.
 * @sequence: a frame not yet captured (>= cisp_sensor_next_sequence()).
 * @c: receives every control (mask set to all supported controls), with the
 *     exposure clamp of the delay model applied.
 * Return: 0, or -EINVAL for a frame already captured.
 */
CISP_API int cisp_sensor_predict_controls(const struct cisp_sensor *s, uint64_t sequence,
					  struct cisp_sensor_controls *c);

/**
 * cisp_sensor_next_sequence() - the write point: the sequence of the frame
 * the next cisp_sensor_capture() returns (0 while stopped).
 * @s: the sensor.
 * Return: the sequence.
 */
CISP_API uint64_t cisp_sensor_next_sequence(const struct cisp_sensor *s);

/**
 * cisp_sensor_start() - start streaming from frame 0.
 * @s: the sensor.
 * Return: 0, -EBUSY if already streaming, or a backend error.
 */
CISP_API int cisp_sensor_start(struct cisp_sensor *s);

/**
 * cisp_sensor_stop() - stop streaming; queued requests are dropped.
 * @s: the sensor.
 * Return: 0 (also when already stopped).
 */
CISP_API int cisp_sensor_stop(struct cisp_sensor *s);

/**
 * cisp_sensor_capture() - take the next frame.
 * @s: the sensor (streaming).
 * @img: a caller image of the current mode's size in the mode's Bayer format,
 *       its CSI-2 packed variant (10 and 12 bits), or the same CFA at 16 bits
 *       (samples scaled up by 16 - bits); rows may be padded.
 * @md: receives the frame's metadata (may be NULL).
 * @flags: enum cisp_sensor_capture_flags.
 *
 * Afterwards the write point is the next frame, and queued requests due
 * there are written.
 *
 * Return: 0; -EAGAIN with CISP_SENSOR_NONBLOCK when no frame is ready;
 * -EINVAL for a wrong image (the message gives the expected format and size);
 * -ENODATA when not streaming; V4L2 cameras also -ETIMEDOUT (no frame in
 * time) and -ENODEV (unplugged: the stream has stopped).
 */
CISP_API int cisp_sensor_capture(struct cisp_sensor *s, struct cisp_image *img, struct cisp_sensor_metadata *md,
				 unsigned flags);

/**
 * cisp_sensor_acquire() - take the next frame in the sensor's own buffer,
 * without a copy (V4L2 cameras: the driver's mmapped buffer).
 * @s: the sensor (streaming).
 * @format: the format the caller reads; the device must deliver it as is.
 * @img: receives a view of the buffer: @format, the mode's size, the
 *       driver's row stride; rows may be padded. Only read it, and only
 *       until cisp_sensor_release().
 * @md: receives the frame's metadata (may be NULL).
 * @flags: enum cisp_sensor_capture_flags.
 *
 * The buffer is not given back to the device until cisp_sensor_release():
 * while the caller holds it the device has one buffer less, and when it has
 * none left it drops frames. Give every frame back before cisp_sensor_stop().
 *
 * Return: 0; -ENOTSUP (nothing taken) when the backend has no buffers of its
 * own (the virtual sensor renders into the caller's image: use
 * cisp_sensor_capture()) or delivers another format than @format; the
 * errors of cisp_sensor_capture() otherwise.
 */
CISP_API int cisp_sensor_acquire(struct cisp_sensor *s, uint32_t format, struct cisp_image *img,
				 struct cisp_sensor_metadata *md, unsigned flags);

/**
 * cisp_sensor_release() - give a frame of cisp_sensor_acquire() back to the
 * device.
 * @s: the sensor.
 * @img: the view cisp_sensor_acquire() filled.
 * Return: 0, -EINVAL for a view the sensor did not lend, or a device error.
 */
CISP_API int cisp_sensor_release(struct cisp_sensor *s, const struct cisp_image *img);

/**
 * cisp_sensor_dropped() - frames dropped since the stream started: gaps in
 * the sequence of the frames taken (a real-time sensor with no free buffer
 * drops the new frame, as a V4L2 driver does).
 * @s: the sensor.
 * Return: the count (0 for no sensor).
 */
CISP_API uint64_t cisp_sensor_dropped(const struct cisp_sensor *s);

/**
 * cisp_sensor_fd() - a file descriptor that polls readable (POLLIN) while a
 * frame is ready to capture; owned by the sensor.
 * @s: the sensor.
 * Return: the fd, or -ENOTSUP when the backend has none.
 */
CISP_API int cisp_sensor_fd(const struct cisp_sensor *s);

/**
 * cisp_sensor_set_option() - set a backend option; takes effect from the
 * next frame captured.
 * @s: the sensor.
 * @key: the option name.
 * @value: its value as text.
 *
 * Options of the virtual sensor:
 *  - seed=N: the noise seed (default 1); the same seed, model, options and
 *    control writes give the same frames byte for byte.
 *  - scene=NAME: "colorchart" (default), "resolution", "gradient", "hdr",
 *    "dominant" or "dominant:<ColorChecker patch name>" (default "green"),
 *    the image-quality charts "star", "steps", "flat", "deadleaves"
 *    (docs/iq.md),
 *    or the path of a PNG, JPEG, PPM or PGM file taken as sRGB reflectance.
 *  - illuminant=NAME: D65 (default), D50, D55, D75, A, F2, F11, LED,
 *    "daylight:<kelvin>" (4000..25000) or "blackbody:<kelvin>" (1000..20000).
 *  - lux=X: illuminance on the scene (default 400).
 *  - distance=M: scene distance in metres (overrides the scene's own).
 *  - flicker=0|50|60: mains frequency of the light (0: steady, default);
 *    flicker_depth=X: modulation depth of the light at twice that
 *    frequency, 0..1 (default 0.3).
 *  - motion=PX: the hdr scene gets a dark card that moves PX pixels a
 *    frame to the right (negative: left), wrapping around, at frame
 *    sequence times PX from its start (deterministic; default 0: no card).
 *  - noise, shading, blur, defects = on|off: switch a part of the model
 *    (all on by default) to get ground truth.
 *  - realtime=on|off: pace frames to their durations on CLOCK_MONOTONIC
 *    (default off: a frame is ready whenever asked). In real time the
 *    sensor fills a queue of buffers as frames end, as a V4L2 driver does;
 *    a frame that ends while every buffer is full is dropped.
 *  - buffers=N: that queue's length, 1..32 (default 4).
 *
 * Options of V4L2 cameras (pipeline, pattern, control.<name>, delay.<control>,
 * black_level, buffers, timeout_ms): docs/v4l2.md.
 *
 * Return: 0, -EINVAL for a bad value, -ENOENT for an unknown key or a
 * missing scene file.
 */
CISP_API int cisp_sensor_set_option(struct cisp_sensor *s, const char *key, const char *value);

/*
 * Ground truth of the virtual sensor, for tests and the image-quality lab.
 * These fail with -ENOTSUP on other backends.
 */

/** A ColorChecker patch as seen by the virtual sensor in the current mode. */
struct cisp_vsensor_patch {
	const char *name;  /**< the patch name ("dark skin", ..., "black 2") */
	int32_t x;         /**< left edge in output pixels (after crop, binning and flips) */
	int32_t y;         /**< top edge in output pixels */
	int32_t width;     /**< width in output pixels */
	int32_t height;    /**< height in output pixels */
	double xyz[3];     /**< CIE 1931 XYZ under the illuminant, Y of a perfect white = 1 */
	double camera[3];  /**< camera R, G, B response, G of a perfect white = 1 */
	double white_xyz[3];    /**< XYZ of a perfect white under the illuminant (Y = 1) */
	double white_camera[3]; /**< camera response to a perfect white (G = 1) */
};

/**
 * cisp_vsensor_chart_patch() - where a ColorChecker patch is and what it is,
 * for the "colorchart" scene.
 * @s: a virtual sensor.
 * @index: 0..23 in the chart's reading order (dark skin first, black last).
 * @patch: receives the patch.
 * Return: 0, -ERANGE, -ENODATA when the scene is not the chart, -ENOTSUP.
 */
CISP_API int cisp_vsensor_chart_patch(struct cisp_sensor *s, unsigned index, struct cisp_vsensor_patch *patch);

/** Focus and noise facts of the virtual sensor in the current state. */
struct cisp_vsensor_truth {
	int32_t focus_position;    /**< lens position at which the scene is sharpest */
	double blur_sigma_focused; /**< PSF sigma in output pixels at that position */
	double blur_sigma_per_step;/**< extra sigma per lens step away from it, output pixels */
	double electrons_per_lux_s;/**< green electrons per lux second on white under D65, per output pixel */
	double gain_dn_per_e;      /**< conversion gain at analogue gain x1, codes per electron */
	double read_noise_e;       /**< read noise before the analogue gain, electrons rms */
	double adc_noise_dn;       /**< noise after the analogue gain, codes rms */
	double full_well_e;        /**< full well of one site, electrons (a binned pixel averages its sites) */
	double dark_current_e_s;   /**< dark current, electrons per second */
	unsigned num_defects;      /**< defective pixels of the current mode */
};

/**
 * cisp_vsensor_truth() - focus and noise facts for the current mode, scene and
 * options.
 * @s: a virtual sensor.
 * @truth: receives them.
 * Return: 0 or -ENOTSUP.
 */
CISP_API int cisp_vsensor_truth(struct cisp_sensor *s, struct cisp_vsensor_truth *truth);

/**
 * cisp_vsensor_shake() - where hand shake (option shake=PIXELS) put the scene
 * in one row of a frame: the offset by which the scene is moved, in output
 * pixels (a feature at x in a still scene is at x + @dx), at the end of that
 * row's exposure. 0, 0 without shake.
 * @s: a virtual sensor.
 * @timestamp_ns: the frame's timestamp (struct cisp_sensor_metadata).
 * @row: the output row, below the current mode's height.
 * @dx: receives the horizontal offset.
 * @dy: receives the vertical offset.
 * Return: 0, -EINVAL for a row outside the mode, or -ENOTSUP.
 */
CISP_API int cisp_vsensor_shake(struct cisp_sensor *s, uint64_t timestamp_ns, uint32_t row, double *dx, double *dy);

/**
 * cisp_vsensor_noise_model() - the variance of a pixel's code as a function of
 * its mean above black: var = a * s + b, for the given gains (no clipping).
 * @s: a virtual sensor.
 * @analogue_gain: analogue gain (8 fractional bits).
 * @digital_gain: digital gain (8 fractional bits).
 * @a: receives codes per code (shot noise).
 * @b: receives codes squared (read, ADC and quantisation noise).
 *
 * The mean s includes the dark signal (dark current times exposure), whose
 * shot noise the a * s term covers.
 * Return: 0 or -ENOTSUP.
 */
CISP_API int cisp_vsensor_noise_model(struct cisp_sensor *s, int32_t analogue_gain, int32_t digital_gain, double *a,
				      double *b);

/** A defective pixel. */
struct cisp_vsensor_defect {
	uint32_t x;     /**< column in output pixels of the current mode (no flips) */
	uint32_t y;     /**< row */
	bool hot;       /**< stuck at the white level (true) or at the black level */
};

/**
 * cisp_vsensor_defects() - the defective pixels of the current mode, in output
 * coordinates without flips, sorted by row then column.
 * @s: a virtual sensor.
 * @list: receives up to @max defects.
 * @max: room in @list.
 * Return: the number of defects (may exceed @max), or -ENOTSUP.
 */
CISP_API int cisp_vsensor_defects(struct cisp_sensor *s, struct cisp_vsensor_defect *list, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* CISP_SENSOR_H */
