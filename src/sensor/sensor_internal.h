/* SPDX-License-Identifier: MIT */
/*
 * The sensor layer's inside: the backend interface (an ops table every
 * implementation fills in: virtual, V4L2, raw files) and the control timeline
 * that implements the delay model of include/cisp/sensor.h.
 */
#ifndef CISP_SENSOR_INTERNAL_H
#define CISP_SENSOR_INTERNAL_H

#include <cisp/sensor.h>

/* Pending writes one control can have: one per frame of delay, plus one. */
#define SENSOR_TIMELINE_DEPTH (CISP_SENSOR_MAX_DELAY + 2)
#define SENSOR_QUEUE_SIZE 64
#define SENSOR_ALL_CONTROLS ((1u << CISP_SENSOR_NUM_CONTROLS) - 1)

/*
 * The values of every control over future frames: base[] holds from the
 * oldest frame of interest on, and each pending entry replaces it from its
 * frame on. Entries of one control are in increasing frame order.
 */
struct sensor_timeline {
	int32_t base[CISP_SENSOR_NUM_CONTROLS];
	struct {
		uint64_t frame;
		int32_t value;
	} pending[CISP_SENSOR_NUM_CONTROLS][SENSOR_TIMELINE_DEPTH];
	unsigned num_pending[CISP_SENSOR_NUM_CONTROLS];
};

/* Control @id takes @value from @frame on (replacing entries at or after @frame). */
void sensor_timeline_write(struct sensor_timeline *t, unsigned id, uint64_t frame, int32_t value);
/* The value of control @id on @frame. */
int32_t sensor_timeline_value(const struct sensor_timeline *t, unsigned id, uint64_t frame);
/* Fold entries that take effect at or before @frame into base[] (frames before it are done). */
void sensor_timeline_retire(struct sensor_timeline *t, uint64_t frame);
/* Fold every entry into base[] (the stream stopped: the last writes stay programmed). */
void sensor_timeline_settle(struct sensor_timeline *t);

/* Apply the per-frame rules of the delay model (exposure <= frame length - margin). */
void sensor_apply_frame_rules(const struct cisp_sensor_mode *mode, int32_t values[CISP_SENSOR_NUM_CONTROLS]);

/* What a backend implements. Every function gets the backend's private data. */
struct sensor_ops {
	/* Free everything, including what open() put into the sensor (modes). */
	void (*close)(void *priv);
	/* Switch to mode @index (the generic layer checked it and that the sensor is stopped). */
	int (*set_mode)(void *priv, unsigned index);
	int (*start)(void *priv);
	int (*stop)(void *priv);
	/*
	 * Write controls to the device now. @values are already clamped; only
	 * controls in @mask are meant. While streaming they take effect on frame
	 * @write_point plus their delay (a device that latches by itself may
	 * ignore @write_point); while stopped from frame 0.
	 */
	int (*write_controls)(void *priv, uint64_t write_point, uint32_t mask,
			      const int32_t values[CISP_SENSOR_NUM_CONTROLS]);
	/*
	 * Produce the next frame into @img (checked against the mode by the
	 * generic layer: size and an accepted format). Fill @md's sequence,
	 * timestamp_ns, and, when the device knows them, controls (with
	 * CISP_SENSOR_MD_CONTROLS_REPORTED). -EAGAIN when @flags has
	 * CISP_SENSOR_NONBLOCK and no frame is ready.
	 */
	int (*capture)(void *priv, struct cisp_image *img, struct cisp_sensor_metadata *md, unsigned flags);
	/*
	 * Optional: lend the next frame in the device's own buffer (no copy),
	 * as a view of @format (the device's format, or -ENOTSUP before
	 * taking a frame); fill @md as capture() does. The buffer stays the
	 * caller's until release() gets the same view back.
	 */
	int (*acquire)(void *priv, uint32_t format, struct cisp_image *img, struct cisp_sensor_metadata *md,
		       unsigned flags);
	int (*release)(void *priv, const struct cisp_image *img);
	/* A pollable fd, or -ENOTSUP. */
	int (*fd)(void *priv);
	/* Backend options; -ENOENT for unknown keys. */
	int (*set_option)(void *priv, const char *key, const char *value);
};

struct cisp_sensor {
	struct cisp_sensor_info info;
	struct cisp_sensor_mode *modes; /* owned by the backend */
	unsigned mode;
	/* Controls as the backend declares them; exposure and frame length limits come from the mode. */
	struct cisp_sensor_control_info controls[CISP_SENSOR_NUM_CONTROLS];
	uint32_t exposure_min; /* lines */

	const struct sensor_ops *ops;
	void *priv;

	bool streaming;
	uint64_t next_sequence;
	bool ahead;       /* the last frame was taken ahead (CISP_SENSOR_AHEAD): it is next_sequence */
	uint64_t dropped; /* frames missing from the sequence since start */
	struct sensor_timeline timeline;
	struct {
		uint64_t sequence;
		struct cisp_sensor_controls c;
	} queue[SENSOR_QUEUE_SIZE];
	unsigned queue_len;
};

/* For a backend's open(): control @id is supported, within @min..@max in steps of 1, @delay frames late. */
void sensor_declare_control(struct cisp_sensor *s, unsigned id, int32_t min, int32_t max, int32_t def,
			    unsigned delay);

/* A backend: enumerate the sensors it serves, open one by the text after "prefix:". */
struct sensor_backend {
	const char *prefix;
	int (*enumerate)(struct cisp_sensor_desc *list, unsigned max);
	/* Fill s->info (except name), s->modes, s->info.num_modes, s->controls, s->exposure_min, s->ops, s->priv. */
	int (*open)(struct cisp_sensor *s, const char *id);
};

extern const struct sensor_backend vsensor_backend;
extern const struct sensor_backend v4l2_sensor_backend;

#endif
