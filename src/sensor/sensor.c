/* SPDX-License-Identifier: MIT */
/*
 * The generic sensor layer: backend registry, modes, control validation, and
 * the delay bookkeeping (timeline and queued requests) that tells which
 * values each frame uses. See include/cisp/sensor.h for the model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/sensor.h>

#include "core/error_internal.h"
#include "sensor_internal.h"

static const struct sensor_backend *const backends[] = {
	&vsensor_backend,
	&v4l2_sensor_backend,
};

#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

static const char *const control_names[CISP_SENSOR_NUM_CONTROLS] = {
	"exposure", "analogue_gain", "digital_gain", "frame_length",
	"lens_position", "test_pattern", "hflip", "vflip",
};

/* Public calls on a sensor fail cleanly when given none. */
#define NEED_SENSOR(s, what)                                                      \
	do {                                                                      \
		if (!(s))                                                         \
			return cisp_error(-EINVAL, "%s: no sensor given", what); \
	} while (0)

/* ---- timeline ---- */

void sensor_timeline_write(struct sensor_timeline *t, unsigned id, uint64_t frame, int32_t value)
{
	unsigned n = t->num_pending[id];

	/* A write supersedes everything that would take effect at or after its frame. */
	while (n > 0 && t->pending[id][n - 1].frame >= frame)
		n--;
	if (n == SENSOR_TIMELINE_DEPTH) {
		/* Only reachable without retire(): fold the oldest entry. */
		t->base[id] = t->pending[id][0].value;
		memmove(&t->pending[id][0], &t->pending[id][1], (n - 1) * sizeof(t->pending[id][0]));
		n--;
	}
	t->pending[id][n].frame = frame;
	t->pending[id][n].value = value;
	t->num_pending[id] = n + 1;
}

int32_t sensor_timeline_value(const struct sensor_timeline *t, unsigned id, uint64_t frame)
{
	int32_t v = t->base[id];

	for (unsigned i = 0; i < t->num_pending[id] && t->pending[id][i].frame <= frame; i++)
		v = t->pending[id][i].value;
	return v;
}

void sensor_timeline_retire(struct sensor_timeline *t, uint64_t frame)
{
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
		unsigned k = 0, n = t->num_pending[id];

		while (k < n && t->pending[id][k].frame <= frame)
			t->base[id] = t->pending[id][k++].value;
		memmove(&t->pending[id][0], &t->pending[id][k], (n - k) * sizeof(t->pending[id][0]));
		t->num_pending[id] = n - k;
	}
}

void sensor_timeline_settle(struct sensor_timeline *t)
{
	sensor_timeline_retire(t, UINT64_MAX);
}

void sensor_apply_frame_rules(const struct cisp_sensor_mode *mode, int32_t values[CISP_SENSOR_NUM_CONTROLS])
{
	int32_t longest = values[CISP_SENSOR_FRAME_LENGTH] - (int32_t)mode->exposure_margin;

	if (values[CISP_SENSOR_EXPOSURE] > longest)
		values[CISP_SENSOR_EXPOSURE] = longest;
}

double cisp_sensor_line_ns(const struct cisp_sensor_mode *mode)
{
	return (double)mode->line_length * 1e9 / (double)mode->pixel_rate;
}

/* ---- registry and open ---- */

int cisp_sensor_enumerate(struct cisp_sensor_desc *list, unsigned max)
{
	unsigned total = 0;

	if (!list && max)
		return cisp_error(-EINVAL, "sensor enumerate: no list for %u entries", max);
	for (size_t b = 0; b < N_BACKENDS; b++) {
		int n = backends[b]->enumerate(total < max ? list + total : NULL, total < max ? max - total : 0);
		if (n < 0)
			return n;
		total += (unsigned)n;
	}
	return (int)total;
}

static const struct cisp_sensor_mode *cur_mode(const struct cisp_sensor *s)
{
	return &s->modes[s->mode];
}

int cisp_sensor_control_info(const struct cisp_sensor *s, enum cisp_sensor_control id,
			     struct cisp_sensor_control_info *info)
{
	const struct cisp_sensor_mode *m;

	if (!s || !info || (unsigned)id >= CISP_SENSOR_NUM_CONTROLS)
		return cisp_error(-EINVAL, "sensor control info: unknown control %d", (int)id);
	m = cur_mode(s);
	*info = s->controls[id];
	info->name = control_names[id];
	if (id == CISP_SENSOR_FRAME_LENGTH) {
		info->min = (int32_t)m->frame_length_min;
		info->max = (int32_t)m->frame_length_max;
		info->step = 1;
		info->def = (int32_t)m->frame_length_default;
	} else if (id == CISP_SENSOR_EXPOSURE) {
		/* Default: 10 ms (a whole period of 50 Hz flicker), within the default frame. */
		double lines_10ms = 1e7 / cisp_sensor_line_ns(m);
		int32_t def = (int32_t)lround(lines_10ms);
		int32_t longest = (int32_t)(m->frame_length_default - m->exposure_margin);

		info->min = (int32_t)s->exposure_min;
		info->max = (int32_t)(m->frame_length_max - m->exposure_margin);
		info->step = 1;
		info->def = def < longest ? def : longest;
		if (info->def < info->min)
			info->def = info->min;
	}
	return 0;
}

static int32_t clamp_control(const struct cisp_sensor *s, unsigned id, int32_t v)
{
	struct cisp_sensor_control_info ci;

	cisp_sensor_control_info(s, (enum cisp_sensor_control)id, &ci);
	if (v < ci.min)
		v = ci.min;
	if (v > ci.max)
		v = ci.max;
	if (ci.step > 1)
		v = ci.min + (v - ci.min) / ci.step * ci.step;
	return v;
}

static int check_controls(const struct cisp_sensor *s, const struct cisp_sensor_controls *c, const char *what)
{
	if (!c)
		return cisp_error(-EINVAL, "%s: no controls given", what);
	if (c->mask & ~SENSOR_ALL_CONTROLS)
		return cisp_error(-EINVAL, "%s: unknown control bits 0x%x in mask", what,
				  c->mask & ~SENSOR_ALL_CONTROLS);
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
		if ((c->mask & (1u << id)) && !s->controls[id].supported)
			return cisp_error(-EINVAL, "%s: sensor %s has no %s control", what, s->info.model,
					  control_names[id]);
	return 0;
}

/*
 * Write clamped @values of @mask now: into the timeline and to the device.
 * A frame taken ahead is captured already, so a control without delay
 * reaches the frame after it.
 */
static int write_now(struct cisp_sensor *s, uint32_t mask, const int32_t values[CISP_SENSOR_NUM_CONTROLS])
{
	uint64_t w = s->next_sequence;
	uint32_t late = 0;
	int ret;

	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
		if (!(mask & (1u << id)))
			continue;
		if (s->ahead && s->controls[id].delay == 0)
			late |= 1u << id;
		if (s->streaming)
			sensor_timeline_write(&s->timeline, id, w + s->controls[id].delay + !!(late & (1u << id)),
					      values[id]);
		else
			s->timeline.base[id] = values[id];
	}
	ret = mask & ~late ? s->ops->write_controls(s->priv, w, mask & ~late, values) : 0;
	if (!ret && late)
		ret = s->ops->write_controls(s->priv, w + 1, late, values);
	return ret;
}

static int write_defaults(struct cisp_sensor *s, uint32_t mask)
{
	int32_t values[CISP_SENSOR_NUM_CONTROLS] = { 0 };
	uint32_t m = 0;

	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
		struct cisp_sensor_control_info ci;

		cisp_sensor_control_info(s, (enum cisp_sensor_control)id, &ci);
		values[id] = ci.def;
		if ((mask & (1u << id)) && ci.supported)
			m |= 1u << id;
	}
	return write_now(s, m, values);
}

static int apply_options(struct cisp_sensor *s, const char *options)
{
	char *copy, *save = NULL;
	int ret = 0;

	if (!options || !*options)
		return 0;
	copy = strdup(options);
	if (!copy)
		return cisp_error(-ENOMEM, "sensor options: out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			ret = cisp_error(-EINVAL, "sensor option '%s' is not key=value", tok);
			break;
		}
		*eq = '\0';
		ret = cisp_sensor_set_option(s, tok, eq + 1);
	}
	free(copy);
	return ret;
}

int cisp_sensor_open(struct cisp_sensor **out, const char *name, const char *options)
{
	const struct sensor_backend *be = NULL;
	struct cisp_sensor *s;
	const char *colon;
	int ret;

	if (!out || !name)
		return cisp_error(-EINVAL, "sensor open: no sensor name given");
	*out = NULL;
	colon = strchr(name, ':');
	for (size_t b = 0; colon && b < N_BACKENDS; b++)
		if (strlen(backends[b]->prefix) == (size_t)(colon - name) &&
		    !strncmp(name, backends[b]->prefix, (size_t)(colon - name)))
			be = backends[b];
	if (!be)
		return cisp_error(-ENOENT, "sensor '%s': expected <backend>:<id> with backend 'virtual' or 'v4l2'", name);
	if (!colon[1])
		return cisp_error(-EINVAL, "sensor '%s': nothing after '%s:'", name, be->prefix);
	s = calloc(1, sizeof(*s));
	if (!s)
		return cisp_error(-ENOMEM, "sensor open: out of memory");
	ret = be->open(s, colon + 1);
	if (ret < 0) {
		free(s);
		return ret;
	}
	snprintf(s->info.name, sizeof(s->info.name), "%s", name);
	snprintf(s->info.backend, sizeof(s->info.backend), "%s", be->prefix);
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
		s->controls[id].name = control_names[id];
	ret = write_defaults(s, SENSOR_ALL_CONTROLS);
	if (ret == 0)
		ret = apply_options(s, options);
	if (ret < 0) {
		cisp_sensor_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

void cisp_sensor_close(struct cisp_sensor *s)
{
	if (!s)
		return;
	if (s->streaming)
		s->ops->stop(s->priv);
	s->ops->close(s->priv);
	free(s);
}

const struct cisp_sensor_info *cisp_sensor_info(const struct cisp_sensor *s)
{
	return s ? &s->info : NULL;
}

int cisp_sensor_get_mode(const struct cisp_sensor *s, unsigned index, struct cisp_sensor_mode *mode)
{
	if (!s || !mode)
		return cisp_error(-EINVAL, "sensor mode: no sensor or mode given");
	if (index >= s->info.num_modes)
		return cisp_error(-ERANGE, "sensor %s: mode %u does not exist (it has %u)", s->info.model, index,
				  s->info.num_modes);
	*mode = s->modes[index];
	return 0;
}

unsigned cisp_sensor_current_mode(const struct cisp_sensor *s)
{
	return s ? s->mode : 0;
}

int cisp_sensor_set_mode(struct cisp_sensor *s, unsigned index)
{
	int ret;

	NEED_SENSOR(s, "set mode");
	if (index >= s->info.num_modes)
		return cisp_error(-ERANGE, "sensor %s: mode %u does not exist (it has %u)", s->info.model, index,
				  s->info.num_modes);
	if (s->streaming)
		return cisp_error(-EBUSY, "sensor %s: cannot change mode while streaming", s->info.model);
	ret = s->ops->set_mode(s->priv, index);
	if (ret < 0)
		return ret;
	s->mode = index;
	return write_defaults(s, (1u << CISP_SENSOR_EXPOSURE) | (1u << CISP_SENSOR_FRAME_LENGTH));
}

/* ---- controls ---- */

int cisp_sensor_set_controls(struct cisp_sensor *s, const struct cisp_sensor_controls *c)
{
	int32_t values[CISP_SENSOR_NUM_CONTROLS] = { 0 };
	int ret;

	NEED_SENSOR(s, "set controls");
	ret = check_controls(s, c, "set controls");

	if (ret < 0)
		return ret;
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
		if (c->mask & (1u << id))
			values[id] = clamp_control(s, id, c->value[id]);
	return write_now(s, c->mask, values);
}

/*
 * Write the queued values due at write point @w (or before it: frames the
 * sensor dropped skip write points), and drop what is done.
 */
static int flush_queue(struct cisp_sensor *s, uint64_t w)
{
	int32_t values[CISP_SENSOR_NUM_CONTROLS] = { 0 };
	uint32_t mask = 0;
	unsigned kept = 0;

	for (unsigned i = 0; i < s->queue_len; i++) {
		struct cisp_sensor_controls *c = &s->queue[i].c;

		for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
			if ((c->mask & (1u << id)) && s->queue[i].sequence - s->controls[id].delay <= w) {
				values[id] = c->value[id];
				mask |= 1u << id;
				c->mask &= ~(1u << id);
			}
		}
		if (c->mask)
			s->queue[kept++] = s->queue[i];
	}
	s->queue_len = kept;
	return write_now(s, mask, values);
}

int cisp_sensor_queue_controls(struct cisp_sensor *s, uint64_t sequence, const struct cisp_sensor_controls *c)
{
	uint64_t w;
	int ret;

	NEED_SENSOR(s, "queue controls");
	w = s->streaming ? s->next_sequence : 0;
	ret = check_controls(s, c, "queue controls");
	if (ret < 0)
		return ret;
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
		unsigned d = s->controls[id].delay;

		/* A frame taken ahead is captured: not even a control without delay reaches it. */
		if ((c->mask & (1u << id)) && (sequence < d || sequence - d < w || sequence < w + s->ahead))
			return cisp_error(-EAGAIN,
					  "queue controls: %s (delay %u) for frame %llu had to be written by frame %lld; "
					  "the next frame is %llu",
					  control_names[id], d, (unsigned long long)sequence,
					  (long long)sequence - (long long)d, (unsigned long long)w);
	}
	if (s->queue_len == SENSOR_QUEUE_SIZE)
		return cisp_error(-ENOSPC, "queue controls: %d requests already waiting", SENSOR_QUEUE_SIZE);
	s->queue[s->queue_len].sequence = sequence;
	s->queue[s->queue_len].c.mask = c->mask;
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
		s->queue[s->queue_len].c.value[id] = (c->mask & (1u << id)) ? clamp_control(s, id, c->value[id]) : 0;
	s->queue_len++;
	/* Due right now: write at once rather than at the next frame boundary. */
	return s->streaming ? flush_queue(s, w) : 0;
}

int cisp_sensor_predict_controls(const struct cisp_sensor *s, uint64_t sequence, struct cisp_sensor_controls *c)
{
	uint64_t next;

	NEED_SENSOR(s, "predict controls");
	if (!c)
		return cisp_error(-EINVAL, "predict controls: no output given");
	next = s->streaming ? s->next_sequence + s->ahead : 0;
	if (sequence < next)
		return cisp_error(-EINVAL, "predict controls: frame %llu was already captured (next is %llu)",
				  (unsigned long long)sequence, (unsigned long long)next);
	c->mask = 0;
	for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++) {
		uint64_t best = 0;
		bool queued = false;

		c->value[id] = 0;
		if (!s->controls[id].supported)
			continue;
		c->mask |= 1u << id;
		/* While stopped, frame 0 starts from base; pending entries do not exist. */
		c->value[id] = sensor_timeline_value(&s->timeline, id, sequence);
		/* Queued values are written after everything in the timeline. */
		for (unsigned i = 0; i < s->queue_len; i++) {
			uint64_t q = s->queue[i].sequence;

			if ((s->queue[i].c.mask & (1u << id)) && q <= sequence && (!queued || q >= best)) {
				best = q;
				queued = true;
				c->value[id] = s->queue[i].c.value[id];
			}
		}
	}
	sensor_apply_frame_rules(cur_mode(s), c->value);
	return 0;
}

uint64_t cisp_sensor_next_sequence(const struct cisp_sensor *s)
{
	return s && s->streaming ? s->next_sequence : 0;
}

/* ---- streaming ---- */

int cisp_sensor_start(struct cisp_sensor *s)
{
	int ret;

	NEED_SENSOR(s, "start");
	if (s->streaming)
		return cisp_error(-EBUSY, "sensor %s is already streaming", s->info.model);
	ret = s->ops->start(s->priv);
	if (ret < 0)
		return ret;
	s->streaming = true;
	s->next_sequence = 0;
	s->ahead = false;
	s->dropped = 0;
	return flush_queue(s, 0);
}

int cisp_sensor_stop(struct cisp_sensor *s)
{
	NEED_SENSOR(s, "stop");
	if (!s->streaming)
		return 0;
	s->ops->stop(s->priv);
	s->streaming = false;
	s->ahead = false;
	s->queue_len = 0;
	sensor_timeline_settle(&s->timeline);
	return 0;
}

static bool format_accepted(const struct cisp_sensor_mode *m, uint32_t format)
{
	return format == m->format || format == cisp_bayer_format(m->cfa, 16, false) ||
	       ((m->bits == 10 || m->bits == 12) && format == cisp_bayer_format(m->cfa, m->bits, true));
}

/*
 * Before taking a frame: a frame taken ahead stops holding the write point,
 * and what was queued for the next one is written.
 */
static int begin_frame(struct cisp_sensor *s, const char *what)
{
	if (!s->streaming)
		return cisp_error(-ENODATA, "sensor %s: %s while not streaming", s->info.model, what);
	if (!s->ahead)
		return 0;
	s->ahead = false;
	s->next_sequence++;
	return flush_queue(s, s->next_sequence);
}

/* After taking a frame: its controls (when the device did not report them), the write point, drops. */
static int end_frame(struct cisp_sensor *s, struct cisp_sensor_metadata *md, uint32_t format, unsigned flags)
{
	const struct cisp_sensor_mode *m = cur_mode(s);
	double line_ns;

	md->mode = s->mode;
	md->format = format;
	if (!(md->flags & CISP_SENSOR_MD_CONTROLS_REPORTED)) {
		for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
			md->controls[id] = sensor_timeline_value(&s->timeline, id, md->sequence);
		sensor_apply_frame_rules(m, md->controls);
	}
	line_ns = cisp_sensor_line_ns(m);
	md->exposure_ns = (uint64_t)llround(md->controls[CISP_SENSOR_EXPOSURE] * line_ns);
	md->frame_duration_ns = (uint64_t)llround(md->controls[CISP_SENSOR_FRAME_LENGTH] * line_ns);
	/* A gap in the sequence is frames the device dropped (no buffer was free). */
	if (md->sequence > s->next_sequence)
		s->dropped += md->sequence - s->next_sequence;
	s->next_sequence = md->sequence + 1;
	sensor_timeline_retire(&s->timeline, s->next_sequence);
	if (flags & CISP_SENSOR_AHEAD) {
		/* The write point stays at this frame until the next one is taken. */
		s->next_sequence = md->sequence;
		s->ahead = true;
	}
	return flush_queue(s, s->next_sequence);
}

int cisp_sensor_capture(struct cisp_sensor *s, struct cisp_image *img, struct cisp_sensor_metadata *md,
			unsigned flags)
{
	const struct cisp_sensor_mode *m;
	struct cisp_sensor_metadata local;
	int ret;

	NEED_SENSOR(s, "capture");
	ret = begin_frame(s, "capture");
	if (ret < 0)
		return ret;
	m = cur_mode(s);
	ret = cisp_image_check(img, "sensor capture image");
	if (ret < 0)
		return ret;
	if (img->width != m->width || img->height != m->height || !format_accepted(m, img->format))
		return cisp_error(-EINVAL, "sensor %s mode '%s' delivers %ux%u %s; the capture image is %ux%u %s",
				  s->info.model, m->name, m->width, m->height, cisp_format_name(m->format),
				  img->width, img->height, cisp_format_name(img->format));
	if (!md)
		md = &local;
	memset(md, 0, sizeof(*md));
	ret = s->ops->capture(s->priv, img, md, flags);
	if (ret < 0)
		return ret;
	return end_frame(s, md, img->format, flags);
}

int cisp_sensor_acquire(struct cisp_sensor *s, uint32_t format, struct cisp_image *img,
			struct cisp_sensor_metadata *md, unsigned flags)
{
	struct cisp_sensor_metadata local;
	int ret;

	NEED_SENSOR(s, "acquire");
	if (!img)
		return cisp_error(-EINVAL, "sensor acquire: no image given");
	memset(img, 0, sizeof(*img));
	if (!s->ops->acquire)
		return cisp_error(-ENOTSUP, "sensor %s (%s) has no buffers of its own to lend", s->info.model,
				  s->info.backend);
	ret = begin_frame(s, "acquire");
	if (ret < 0)
		return ret;
	if (!md)
		md = &local;
	memset(md, 0, sizeof(*md));
	ret = s->ops->acquire(s->priv, format, img, md, flags);
	if (ret < 0)
		return ret;
	ret = end_frame(s, md, img->format, flags);
	if (ret < 0)
		s->ops->release(s->priv, img);
	return ret;
}

int cisp_sensor_release(struct cisp_sensor *s, const struct cisp_image *img)
{
	NEED_SENSOR(s, "release");
	if (!img || !s->ops->release)
		return cisp_error(-EINVAL, "sensor %s: release of a frame it did not lend", s->info.model);
	return s->ops->release(s->priv, img);
}

uint64_t cisp_sensor_dropped(const struct cisp_sensor *s)
{
	return s ? s->dropped : 0;
}

int cisp_sensor_fd(const struct cisp_sensor *s)
{
	NEED_SENSOR(s, "fd");
	return s->ops->fd ? s->ops->fd(s->priv) : cisp_error(-ENOTSUP, "sensor %s has no pollable fd",
							      s->info.model);
}

int cisp_sensor_set_option(struct cisp_sensor *s, const char *key, const char *value)
{
	NEED_SENSOR(s, "set option");
	if (!key || !value)
		return cisp_error(-EINVAL, "sensor option: key and value are required");
	if (!s->ops->set_option)
		return cisp_error(-ENOENT, "sensor %s has no option '%s'", s->info.model, key);
	return s->ops->set_option(s->priv, key, value);
}

void sensor_declare_control(struct cisp_sensor *s, unsigned id, int32_t min, int32_t max, int32_t def,
			    unsigned delay)
{
	struct cisp_sensor_control_info *c = &s->controls[id]; /* its name is the generic layer's */

	c->supported = true;
	c->min = min;
	c->max = max;
	c->step = 1;
	c->def = def;
	c->delay = delay;
}
