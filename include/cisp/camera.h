/* SPDX-License-Identifier: MIT */
/**
 * @file camera.h
 * @brief Cameras: a sensor, the ISP and the 3A control loop driven frame by
 * frame behind one request API.
 *
 * A camera manager owns one ISP device (device.h) and lists the cameras
 * that can be opened: every sensor cisp_sensor_enumerate() finds (the
 * virtual sensor models now, V4L2 sensors through the same list later).
 * An open camera is a sensor, a device context of the manager's device, a
 * control loop (control.h) and the sensor's tuning (tuning.h); several
 * cameras stream at once on the one device, each in its own context.
 *
 * Use:
 *  1. cisp_camera_manager_create(), cisp_camera_list();
 *  2. cisp_camera_open() by name;
 *  3. cisp_camera_default_config(), change what is needed,
 *     cisp_camera_configure(): the sensor mode and the streams (main
 *     processed output, an optional smaller preview, the raw Bayer frame);
 *  4. cisp_camera_queue() requests (the buffers to fill for one frame and
 *     the controls to apply), cisp_camera_start();
 *  5. take completed requests with cisp_camera_wait() (or receive them in
 *     the completion callback), read their metadata, queue them again;
 *  6. cisp_camera_stop(), cisp_camera_close(), cisp_camera_manager_destroy().
 *
 * Each queued request gets one frame: requests complete in the order they
 * were queued, with consecutive frame sequences from 0 at each start. While
 * no request is queued the camera does not capture (the sensor is
 * free-running only as fast as requests come).
 *
 * Per frame the camera captures from the sensor, submits one ISP job with
 * the parameter changes the control loop asked for, hands the frame's
 * statistics and sensor metadata to the loop, queues the loop's sensor
 * controls for the frame they are meant for, and completes the request.
 *
 * Threads: each started camera runs its frames on a thread of its own. The
 * calls below may be made from any thread, but one camera's calls must not
 * overlap (the caller serialises them); different cameras are independent.
 * Errors are reported as everywhere in cisp: a negative errno and a message
 * for cisp_last_error() on the calling thread; a request that fails while
 * running carries its own status and message.
 */
#ifndef CISP_CAMERA_H
#define CISP_CAMERA_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/control.h>
#include <cisp/device.h>
#include <cisp/image.h>
#include <cisp/sensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque camera manager. */
struct cisp_camera_manager;
/** An opaque open camera. */
struct cisp_camera;

/** The streams of a camera; also indices of struct cisp_camera_config.stream. */
enum cisp_camera_stream {
	/** The main processed output (ISP output 0): NV12, I420, RGB888, RGB48 or XBGR32. */
	CISP_STREAM_MAIN = 0,
	/** A second processed output (ISP output 1), at most the main output's size. */
	CISP_STREAM_PREVIEW = 1,
	/** The raw Bayer frame as the sensor delivered it (the ISP's input). */
	CISP_STREAM_RAW = 2,
	/** Number of streams. */
	CISP_STREAM_COUNT = 3,
};

/**
 * struct cisp_camera_manager_config - how to build a manager.
 * @device: an existing ISP device to run the cameras on (the caller keeps
 *          it and destroys it after the manager), or NULL to create one.
 * @device_config: the configuration of the device created when @device is
 *                 NULL (NULL: the defaults, one worker per CPU).
 * @config: a camera configuration file naming cameras made of a sensor,
 *          its options and a tuning file (docs/camera.md), or NULL for the
 *          file named by the CISP_CAMERA_CONFIG environment variable, if
 *          set.
 */
struct cisp_camera_manager_config {
	struct cisp_device *device;
	const struct cisp_device_config *device_config;
	const char *config;
};

/** One camera that cisp_camera_list() found. */
struct cisp_camera_desc {
	char name[128];        /**< what cisp_camera_open() takes, e.g. "virtual:cisp-8m10" */
	char backend[16];      /**< the sensor backend: "virtual", "v4l2", ... */
	char description[128]; /**< one line for people */
};

/**
 * struct cisp_camera_options - how to open a camera.
 * @sensor_options: "key=value,..." options for the sensor backend (for the
 *                  virtual sensor: scene, illuminant, lux, seed, ...; see
 *                  cisp_sensor_set_option()), or NULL.
 * @tuning: a tuning file, or another sensor model's name, to use instead of
 *          the one found for the sensor model by cisp_tuning_find(), or
 *          NULL (cisp_tuning_open() reads it).
 * @priority: the device context's priority under overload (device.h); 0 is
 *            normal.
 */
struct cisp_camera_options {
	const char *sensor_options;
	const char *tuning;
	int priority;
};

/**
 * struct cisp_stream_config - one stream.
 * @format: the pixel format; 0 leaves the stream off. Main and preview:
 *          CISP_FMT_NV12, CISP_FMT_I420, CISP_FMT_RGB888, CISP_FMT_RGB48 or
 *          CISP_FMT_XBGR32.
 *          Raw: the sensor mode's Bayer format (struct
 *          cisp_sensor_mode.format) or its CSI-2 packed variant (10 and 12
 *          bits).
 * @width: output width (main, preview; even for YUV formats); for raw, 0 or
 *         the mode's width.
 * @height: output height; for raw, 0 or the mode's height.
 * @crop_x: main and preview: left edge of the part of the sensor frame the
 *          output shows, in sensor mode pixels (the whole frame when
 *          @crop_width is 0); raw: must be 0.
 * @crop_y: top edge of that part.
 * @crop_width: its width (0: the whole frame); the ISP scales it to
 *              @width x @height (docs/stages/scale.md).
 * @crop_height: its height (0 with @crop_width 0).
 */
struct cisp_stream_config {
	uint32_t format;
	uint32_t width;
	uint32_t height;
	uint32_t crop_x;
	uint32_t crop_y;
	uint32_t crop_width;
	uint32_t crop_height;
};

struct cisp_camera_request;

/**
 * struct cisp_camera_bracket - an exposure bracket merged into one output
 * (docs/hdr.md). Each frame is exposed at the bracket's base exposure (the
 * exposure AE meters, or the manual one) times 2^@ev[k]; the camera
 * captures the frames with the sensor's control delays honoured, merges
 * them in one CISP_JOB_MERGE_HDR job and tone-maps the result locally.
 * @count: 0 for a normal single frame, or 2..CISP_BRACKET_MAX_FRAMES.
 * @ev: each frame's exposure offset from the base, in stops; the longest
 *      at most CISP_BRACKET_MAX_RATIO times the shortest (8 stops apart).
 */
struct cisp_camera_bracket {
	unsigned count;
	double ev[CISP_BRACKET_MAX_FRAMES];
};

/**
 * struct cisp_camera_merged - the frames merged into an output.
 * @count: 0 for a single frame, else the bracket's frame count.
 * @sequence: each merged frame's sequence, in the bracket's order.
 * @exposure_us: the exposure time each frame was integrated with (from
 *               its sensor metadata).
 * @analogue_gain: the analogue gain each frame used (1.0 = x1).
 */
struct cisp_camera_merged {
	unsigned count;
	uint64_t sequence[CISP_BRACKET_MAX_FRAMES];
	double exposure_us[CISP_BRACKET_MAX_FRAMES];
	double analogue_gain[CISP_BRACKET_MAX_FRAMES];
};

/**
 * cisp_camera_complete_fn - called on the camera's thread (or, for
 * requests cancelled by cisp_camera_stop() and cisp_camera_close(), on the
 * caller's thread) for each request that completes. The request is the
 * caller's again when the call is made; it may be queued again from the
 * callback. A request cancelled by a stop (status -ECANCELED) that is
 * queued again waits for the next start; one cancelled by close must not be
 * queued again. The callback must not stop, configure or close its camera
 * (cisp_camera_stop() there fails with -EDEADLK).
 * @req: the request.
 * @opaque: struct cisp_camera_config.opaque.
 */
typedef void (*cisp_camera_complete_fn)(struct cisp_camera_request *req, void *opaque);

/**
 * struct cisp_camera_config - the configuration of a camera (while stopped).
 * @mode: the sensor mode index (cisp_sensor_get_mode()).
 * @stream: the streams, indexed by enum cisp_camera_stream; main is
 *          required.
 * @complete: called for each completed request; NULL: completed requests
 *            wait for cisp_camera_wait().
 * @opaque: passed to @complete.
 */
struct cisp_camera_config {
	unsigned mode;
	struct cisp_stream_config stream[CISP_STREAM_COUNT];
	cisp_camera_complete_fn complete;
	void *opaque;
};

/**
 * struct cisp_camera_metadata - what happened to one frame.
 * @sequence: the frame's sequence since start (0, 1, 2, ...).
 * @timestamp_ns: start of readout of the frame's first row, on the sensor's
 *                clock.
 * @exposure_us: the exposure time the frame was integrated with (applied
 *               by the sensor, as reported for that frame).
 * @analogue_gain: the analogue gain the frame used (1.0 = x1).
 * @digital_gain: the sensor's digital gain the frame used (1.0 = x1).
 * @frame_duration_us: the frame's duration.
 * @lens_position: the lens position (focus motor code) the frame used.
 * @colour_temperature: the colour temperature, kelvin, of the white
 *                      balance and colour correction the ISP applied to
 *                      this frame.
 * @colour_gains: the red and blue white-balance gains (relative to green)
 *                the ISP applied to this frame.
 * @ccm: the colour matrix the ISP applied to this frame (row-major, white
 *       balanced camera RGB to linear output RGB; the identity when the
 *       stage was off).
 * @ae_state: the AE state after this frame's statistics.
 * @awb_state: the AWB state after this frame's statistics.
 * @af_state: the AF state after this frame's statistics.
 * @sensor: the sensor's metadata of the frame (the controls it used, in
 *          sensor units).
 * @control: the control loop's report after this frame's statistics
 *           (decisions for later frames, AE error, flicker, sharpness).
 * @isp_ns: time the ISP job took, from submission to completion.
 * @merged: for a bracket's output, the frames merged into it. The fields
 *          above then describe the bracket's shortest exposure: the merged
 *          frame is linear at its scale (docs/hdr.md).
 */
struct cisp_camera_metadata {
	uint64_t sequence;
	uint64_t timestamp_ns;
	double exposure_us;
	double analogue_gain;
	double digital_gain;
	double frame_duration_us;
	int32_t lens_position;
	double colour_temperature;
	double colour_gains[2];
	double ccm[9];
	enum cisp_ae_state ae_state;
	enum cisp_awb_state awb_state;
	enum cisp_af_state af_state;
	struct cisp_sensor_metadata sensor;
	struct cisp_control_state control;
	uint64_t isp_ns;
	struct cisp_camera_merged merged;
};

/**
 * struct cisp_camera_request - one frame's buffers and controls. The caller
 * owns the request and its images; from cisp_camera_queue() until it
 * completes the camera uses them and the caller must not touch them.
 * @buffer: an image for each stream this request wants filled (in the
 *          stream's format and size), NULL for the others; a stream that is
 *          not configured must be NULL. At least one buffer is needed.
 * @controls: the controls to apply from this request's frame on (only the
 *            fields in @controls.mask; others keep their earlier value).
 *            Sensor controls take effect as early as the sensor's delays
 *            allow; the metadata says what each frame really used.
 * @user: the caller's, untouched.
 * @status: set on completion: 0, -ECANCELED for a request that stop or
 *          close cancelled (its buffers hold nothing), or the error of a
 *          failed frame.
 * @message: set on completion: the error message of a failed request, or
 *           empty.
 * @burst: frames to capture for this request and merge into its one
 *         frame (docs/burst.md): 0 or 1 for a single frame; 2 to
 *         CISP_BURST_MAX_FRAMES for a burst, taken one after another with
 *         the same controls, aligned and merged (cisp_burst_merge()) before
 *         the ISP; the metadata is the first frame's. The raw frames must
 *         be unpacked (the raw stream's format, or the mode's); the raw
 *         buffer, if any, receives the merged mosaic.
 * @metadata: set on completion of a frame that was captured (also when the
 *            ISP failed on it).
 * @bracket: an exposure bracket to capture and merge into this request's
 *           outputs instead of one frame (count 0: one frame). Its raw
 *           buffer, if any, gets the merged linear frame (16-bit Bayer,
 *           black 0, white 65535; the raw stream must be in that format).
 */
struct cisp_camera_request {
	struct cisp_image *buffer[CISP_STREAM_COUNT];
	struct cisp_control_request controls;
	void *user;
	int status;
	char message[128];
	uint32_t burst; /* where padding was: the struct's size and layout are those of libcisp.so.0 */
	struct cisp_camera_metadata metadata;
	struct cisp_camera_bracket bracket;
};

/**
 * cisp_camera_manager_create() - make a manager and its ISP device, and
 * read the camera configuration file.
 * @m: receives the manager.
 * @config: the device and configuration file to use, or NULL for a new
 *          device with the defaults and the file of CISP_CAMERA_CONFIG.
 * Return: 0, the error of cisp_device_create(), or -EINVAL (-errno for a
 * file that cannot be read) with a message naming the file, line and key
 * of a bad configuration file.
 */
CISP_API int cisp_camera_manager_create(struct cisp_camera_manager **m,
					const struct cisp_camera_manager_config *config);

/**
 * cisp_camera_manager_destroy() - free a manager; every camera opened from
 * it must be closed first.
 * @m: the manager (may be NULL).
 */
CISP_API void cisp_camera_manager_destroy(struct cisp_camera_manager *m);

/**
 * cisp_camera_list() - the cameras that can be opened: those of the
 * configuration file first, then every sensor cisp_sensor_enumerate()
 * finds.
 * @m: the manager.
 * @list: receives up to @max entries (may be NULL when @max is 0).
 * @max: room in @list.
 * Return: the number of cameras (may exceed @max), or a negative errno.
 */
CISP_API int cisp_camera_list(struct cisp_camera_manager *m, struct cisp_camera_desc *list, unsigned max);

/**
 * cisp_camera_open() - open a camera: its sensor, its tuning and a control
 * loop. The camera opens stopped and unconfigured (cisp_camera_configure()
 * is needed before cisp_camera_start()).
 * @cam: receives the camera.
 * @m: the manager.
 * @name: a name from cisp_camera_list(), or any name cisp_sensor_open()
 *        accepts ("virtual:<model file>.yaml").
 * @options: sensor options, tuning file and priority, or NULL. For a
 *           camera of the configuration file, its sensor options come
 *           first and these are added after them (a later key wins), and
 *           @options->tuning replaces its tuning file.
 * Return: 0; -ENOENT for an unknown camera (the message lists the known
 * ones); -EINVAL for a bad option or tuning file; -ENOMEM.
 */
CISP_API int cisp_camera_open(struct cisp_camera **cam, struct cisp_camera_manager *m, const char *name,
			      const struct cisp_camera_options *options);

/**
 * cisp_camera_close() - stop the camera if needed (in-flight requests
 * complete with -ECANCELED, through the callback if there is one), free it.
 * @cam: the camera (may be NULL).
 */
CISP_API void cisp_camera_close(struct cisp_camera *cam);

/**
 * cisp_camera_sensor() - the camera's sensor, for its modes, control
 * limits and backend options. Set options only while the camera is
 * stopped (the sensor is not thread-safe); modes and controls belong to
 * the camera.
 * @cam: the camera.
 * Return: the sensor.
 */
CISP_API struct cisp_sensor *cisp_camera_sensor(struct cisp_camera *cam);

/**
 * cisp_camera_tuning_name() - the tuning in use.
 * @cam: the camera.
 * Return: the tuning file's path, or "uncalibrated".
 */
CISP_API const char *cisp_camera_tuning_name(const struct cisp_camera *cam);

/**
 * cisp_camera_default_config() - a configuration for a mode: the main
 * stream in NV12 at the mode's full size, no preview, no raw stream, no
 * callback.
 * @cam: the camera.
 * @mode: the sensor mode index.
 * @config: receives the configuration.
 * Return: 0 or -ERANGE for a mode the sensor lacks.
 */
CISP_API int cisp_camera_default_config(struct cisp_camera *cam, unsigned mode, struct cisp_camera_config *config);

/**
 * cisp_camera_configure() - check and apply a configuration: set the
 * sensor mode, make the device context and the control loop for it.
 * @cam: the camera, stopped.
 * @config: the configuration.
 * Return: 0; -EBUSY while started; -ERANGE for a bad mode; -EINVAL with a
 * message naming the stream and field for a configuration the ISP cannot
 * produce (nothing changes then: every check runs before the old
 * configuration is let go); -ENOMEM (the camera is left unconfigured).
 */
CISP_API int cisp_camera_configure(struct cisp_camera *cam, const struct cisp_camera_config *config);

/**
 * cisp_camera_start() - start streaming: the control loop's starting
 * controls (with the controls of the first queued request applied) are
 * written to the sensor, and the camera thread starts taking requests.
 * @cam: the camera, configured and stopped.
 * Return: 0; -EBUSY when already started; -EINVAL when not configured;
 * -EAGAIN when the thread cannot be started; or the sensor's error.
 */
CISP_API int cisp_camera_start(struct cisp_camera *cam);

/**
 * cisp_camera_stop() - stop streaming: wait for the frame in progress, then
 * complete every request not yet processed with -ECANCELED (through the
 * callback, or for cisp_camera_wait()), and stop the sensor.
 * @cam: the camera.
 * Return: 0 (also when already stopped); -EDEADLK from the camera's own
 * completion callback.
 */
CISP_API int cisp_camera_stop(struct cisp_camera *cam);

/**
 * cisp_camera_queue() - hand a request to the camera (started or not).
 * @cam: the camera, configured.
 * @req: the request; its status, message and metadata are overwritten.
 * Return: 0; -EINVAL with a message for a buffer that does not match its
 * stream, a buffer for a stream that is off, no buffer at all, or unknown
 * control mask bits; -EINVAL naming the value for a bad bracket (count,
 * an offset out of range, a raw stream that is not 16-bit Bayer), for a
 * burst out of range or with packed raw frames, or for a request with both;
 * -EBUSY for a request already queued; -ENODEV when not configured.
 * Control values the loop refuses (cisp_control_request()) fail the
 * request when its turn comes: it completes with that status and message,
 * without a frame, and the camera goes on with the next one.
 */
CISP_API int cisp_camera_queue(struct cisp_camera *cam, struct cisp_camera_request *req);

/**
 * cisp_camera_wait() - take the oldest completed request (only without a
 * completion callback).
 * @cam: the camera.
 * @req: receives the request.
 * @timeout_ns: how long to wait; 0: do not wait; negative: no limit.
 * Return: 0; -ETIMEDOUT when none completed in time; -ENODATA when none is
 * completed and the camera is stopped or has nothing queued or in flight
 * (waiting would never end); -EINVAL with a completion callback.
 */
CISP_API int cisp_camera_wait(struct cisp_camera *cam, struct cisp_camera_request **req, int64_t timeout_ns);

/**
 * cisp_camera_stream_name() - "main", "preview" or "raw".
 * @stream: enum cisp_camera_stream.
 * Return: the name, or "unknown".
 */
CISP_API const char *cisp_camera_stream_name(unsigned stream);

/** Most faces cisp_camera_request_faces() reports for one frame. */
#define CISP_CAMERA_MAX_FACES 8

/**
 * struct cisp_camera_face - a face seen by the camera's face detection
 * (docs/faces.md).
 * @x: left edge of the face's rectangle, in pixels of the main stream.
 * @y: its top edge.
 * @width: its width, pixels of the main stream.
 * @height: its height.
 * @confidence: 0..1: 1 - 2^(-hits / 3), where hits counts the detector's
 *              raw windows merged into this face (0.5 at the three it
 *              needs to report one).
 * @sequence: the frame the face was found in.
 * @age: frames from @sequence to the frame it is reported for (detection
 *       runs at a few Hz off the frame path, so faces lag a little).
 */
struct cisp_camera_face {
	int32_t x;
	int32_t y;
	int32_t width;
	int32_t height;
	double confidence;
	uint64_t sequence;
	uint32_t age;
};

/**
 * cisp_camera_detect_faces() - turn face detection on or off. When on, a
 * thread of the camera looks for faces in a downscaled luma copy of the
 * preview stream (the main stream without one) at most @rate_hz times a
 * second, never holding up a frame; each completed frame then carries the
 * latest faces (cisp_camera_request_faces()), AE meters them and AF puts
 * its window on the largest (docs/faces.md).
 * @cam: the camera, stopped.
 * @rate_hz: detections per second at most (a detection starts on the
 *           newest frame once the previous one is done); 0 turns it off.
 * Return: 0; -ENOTSUP "face detection not built" in a build without
 * OpenCV's objdetect; -EBUSY while started; -EINVAL for a rate that is
 * negative or over 1000; -ENOENT when the cascade file is missing.
 */
CISP_API int cisp_camera_detect_faces(struct cisp_camera *cam, double rate_hz);

/**
 * cisp_camera_request_faces() - the faces of a completed request's frame:
 * those of the latest detection done when the frame completed.
 * @cam: the camera the request completed on.
 * @req: the request, completed with status 0.
 * @faces: receives up to @max faces, largest first (may be NULL when @max
 *         is 0).
 * @max: room in @faces.
 * Return: the number of faces (0..CISP_CAMERA_MAX_FACES, may exceed
 * @max); -ENODATA when face detection is off; -ENOENT for a frame that is
 * not among the camera's last 64 completed ones (or from an earlier start).
 */
CISP_API int cisp_camera_request_faces(struct cisp_camera *cam, const struct cisp_camera_request *req,
				       struct cisp_camera_face *faces, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* CISP_CAMERA_H */
