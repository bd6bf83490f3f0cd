/* SPDX-License-Identifier: MIT */
/*
 * Local tone mapping (docs/stages/ltm.md): the arithmetic's known answers,
 * no halo at an edge between two brightnesses, hostile blocks refused with
 * the block named, the tuning section, and the control algorithm lifting
 * the local contrast of the dark part of the virtual sensor's HDR scene.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/control.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/sensor_levels.h>
#include <cisp/tuning.h>

#include "control/ltm_grid.h"
#include "control/tuning.h"
#include "isp/ltm.h"
#include "test.h"

TEST(ltm_level_known_answers)
{
	CHECK_EQ(cisp_ltm_level(0), 0);
	CHECK_EQ(cisp_ltm_level(1), 0);
	CHECK_EQ(cisp_ltm_level(2), 256);
	CHECK_EQ(cisp_ltm_level(3), 384);
	CHECK_EQ(cisp_ltm_level(256), 2048);
	CHECK_EQ(cisp_ltm_level(384), 2176);
	CHECK_EQ(cisp_ltm_level(1000), 2548); /* e = 9: 2304 + (1000 >> 1) - 256 */
	CHECK_EQ(cisp_ltm_level(65535), 4095);
	CHECK_EQ(cisp_ltm_luma(65535, 65535, 65535), 65535);
	CHECK_EQ(cisp_ltm_luma(1000, 2000, 3000), 1813); /* (77000 + 300000 + 87000 + 128) >> 8 */
}

/* A 2x2 grid: the left nodes at level 2048 with gain 2, the right ones 6 stops brighter with gain 1. */
static void two_level_grid(struct cisp_ltm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->grid_w = 2;
	p->grid_h = 2;
	p->range = 384;
	p->node[0] = p->node[2] = 2048;
	p->node[1] = p->node[3] = 2048 + 6 * 256;
	p->node[4] = p->node[6] = 512;
	p->node[5] = p->node[7] = 256;
}

TEST(ltm_gain_known_answers)
{
	struct cisp_ltm_coeffs *c = calloc(1, sizeof(*c));
	struct cisp_ltm_params p;
	uint8_t node, pos;

	/* Node centres at (i + 1/2) W / n: pixel 31 of 64 lies 31/64 past the first of two. */
	cisp_ltm_node_pos(31, 64, 2, &node, &pos);
	CHECK_EQ(node, 0);
	CHECK_EQ(pos, 31);
	cisp_ltm_node_pos(0, 64, 2, &node, &pos);
	CHECK_EQ(pos, 0);
	cisp_ltm_node_pos(63, 64, 2, &node, &pos);
	CHECK_EQ(node, 0);
	CHECK_EQ(pos, 64);
	cisp_ltm_node_pos(100, 128, 4, &node, &pos); /* (201 * 4 * 64) / 256 - 32 = 169 */
	CHECK_EQ(node, 2);
	CHECK_EQ(pos, 41);

	two_level_grid(&p);
	CHECK_EQ(cisp_ltm_prepare(c, &p, 64, 64), 0);
	CHECK_EQ(c->rscale, 10922);
	/* Mid-frame, a dark pixel takes the dark nodes' gain alone, a bright one the bright nodes'. */
	CHECK_EQ(cisp_ltm_gain_at(c, 256, 31, 10), 512);
	CHECK_EQ(cisp_ltm_gain_at(c, 256 << 6, 32, 40), 256);
	/* 3 stops from both levels: by distance alone, (33 * 512 + 31 * 256) / 64 rounded. */
	CHECK_EQ(cisp_ltm_gain_at(c, 256 << 3, 31, 0), 388);
	/* Within range of both: level 2048 + 192 weighs r = 192 * 10922 >> 16 = 31 each way. */
	CHECK_EQ(cisp_ltm_gain_at(c, 256, 31, 0), 512);
	{
		uint16_t r[2] = { 1000, 40000 }, g[2] = { 1000, 40000 }, b[2] = { 1000, 40000 }, o[3][2];
		const uint16_t *in[3] = { r, g, b };
		uint16_t *out[3] = { o[0], o[1], o[2] };

		/* Column 0 is the left node's alone: gain 2 for a dark pixel, and 2 clipped for a bright one far from both. */
		cisp_ltm_row_c(c, in, out, 2, 0);
		CHECK_EQ(o[0][0], 2000);
		CHECK_EQ(o[1][0], 2000);
		CHECK_EQ(o[2][1], 65535);
	}
	free(c);
}

/* A frame whose left half is 6 stops darker than its right: each half keeps one gain to the edge. */
TEST(ltm_no_halo_at_an_edge)
{
	struct cisp_ltm_coeffs *c = calloc(1, sizeof(*c));
	struct cisp_ltm_params p;
	uint16_t row[3][64], out[3][64];
	const uint16_t *in[3] = { row[0], row[1], row[2] };
	uint16_t *o[3] = { out[0], out[1], out[2] };
	bool exact = true;

	two_level_grid(&p);
	CHECK_EQ(cisp_ltm_prepare(c, &p, 64, 64), 0);
	for (int x = 0; x < 64; x++)
		for (int k = 0; k < 3; k++)
			row[k][x] = x < 32 ? 256 : 256 << 6;
	for (int y = 0; y < 64; y++) {
		cisp_ltm_row_c(c, in, o, 64, y);
		for (int x = 0; x < 64; x++)
			exact &= out[1][x] == (x < 32 ? 512 : 256 << 6);
	}
	CHECK(exact);
	free(c);
}

/* Encode @s's LTM block (valid), then write @value at byte @offset of the buffer (the block starts at 16). */
static size_t hostile(const struct cisp_param_state *s, uint8_t *buf, size_t offset, uint16_t value)
{
	size_t size = 0;

	if (cisp_params_encode(s, CISP_BLOCK_BIT(CISP_BLOCK_LTM), buf, CISP_PARAMS_MAX_SIZE, &size))
		return 0;
	buf[offset] = (uint8_t)value;
	buf[offset + 1] = (uint8_t)(value >> 8);
	return size;
}

TEST(ltm_hostile_blocks_refused)
{
	struct cisp_param_state *s = calloc(1, sizeof(*s));
	struct cisp_ltm_coeffs *c = calloc(1, sizeof(*c));
	uint8_t *buf = malloc(CISP_PARAMS_MAX_SIZE);
	size_t size;

	cisp_param_state_init(s);
	s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LTM);
	/* Block fields: grid_w at 24, grid_h 26, range 28, reserved 30; levels at 32, gains at 40 (2x2). */
	size = hostile(s, buf, 24, 1);
	CHECK_ERR(cisp_params_validate(buf, size, NULL), -EINVAL, "(ltm) at offset 16: grid_w = 1 is out of range 2..32");
	size = hostile(s, buf, 26, 40);
	CHECK(cisp_params_validate(buf, size, NULL) < 0);
	CHECK(strstr(cisp_last_error(), "(ltm) at offset 16") != NULL);
	size = hostile(s, buf, 28, 0);
	CHECK_ERR(cisp_params_validate(buf, size, NULL), -EINVAL, "(ltm) at offset 16: range = 0 is out of range 64..1024");
	size = hostile(s, buf, 30, 7);
	CHECK_ERR(cisp_params_validate(buf, size, NULL), -EINVAL, "(ltm) at offset 16: reserved = 7 must be 0");
	size = hostile(s, buf, 32 + 6, 5000);
	CHECK_ERR(cisp_params_validate(buf, size, NULL), -EINVAL, "(ltm) at offset 16: level[1][1] = 5000 is out of range");
	size = hostile(s, buf, 40 + 2, 0);
	CHECK_ERR(cisp_params_validate(buf, size, NULL), -EINVAL, "(ltm) at offset 16: gain[0][1] = 0 is out of range 16..4095");
	/* A block cut short of its grid: a 3x2 grid in the 2x2 grid's 32 bytes. */
	size = hostile(s, buf, 24, 3);
	CHECK(cisp_params_validate(buf, size, NULL) < 0);
	CHECK(strstr(cisp_last_error(), "(ltm)") != NULL);
	/* The stage's own checks, for a state that did not come through validation. */
	s->ltm.grid_h = 1;
	CHECK_ERR(cisp_ltm_prepare(c, &s->ltm, 64, 64), -EINVAL, "LTM grid 2x1 is outside 2x2..32x32");
	s->ltm.grid_h = 2;
	s->ltm.node[4] = 0;
	CHECK_ERR(cisp_ltm_prepare(c, &s->ltm, 64, 64), -EINVAL, "LTM node 0: level 0 or gain 0 is out of range");
	free(buf);
	free(c);
	free(s);
}

/* The shipped test tuning without its ltm section, @extra appended, parsed. */
static int tuning_with(const char *extra, struct cisp_tuning **t)
{
	char *base = test_read_text(CISP_SOURCE_DIR "/data/tuning/cisp-test.yaml"), *text, *ltm;
	int ret = -ENOMEM;

	*t = NULL;
	/* The section runs from its key to the next line that is not indented. */
	if (base && (ltm = strstr(base, "\nltm:\n"))) {
		char *end = ltm + 6, *nl;

		while (*end == ' ')
			end = (nl = strchr(end, '\n')) ? nl + 1 : end + strlen(end);
		memmove(ltm + 1, end, strlen(end) + 1);
	}
	if (base && (text = malloc(strlen(base) + strlen(extra) + 1))) {
		strcpy(text, base);
		strcat(text, extra);
		ret = cisp_tuning_parse(t, text, strlen(text), "ltm-test");
		free(text);
	}
	free(base);
	return ret;
}

TEST(ltm_tuning_section)
{
	struct cisp_tuning *t = NULL;

	CHECK_EQ(tuning_with("ltm:\n  strength: 0.5\n  boost: 3\n", &t), 0);
	if (t) {
		CHECK(t->ltm.strength == 0.5 && t->ltm.boost == 3 && t->ltm.cut == 1 && t->ltm.range == 1.5);
		cisp_tuning_free(t);
	}
	CHECK_ERR(tuning_with("ltm:\n  strength: 1.5\n", &t), -EINVAL, "ltm.strength");
	CHECK_ERR(tuning_with("ltm:\n  radius: 2\n", &t), -EINVAL, "radius");
}

/* ---- the control algorithm on the virtual HDR scene ---- */

/* Mean 8-bit green of a rectangle given in fractions of the frame's height (the scene's units). */
static double mean_green(const struct cisp_image *img, double u0, double v0, double u1, double v1)
{
	const double h = img->height;
	double sum = 0;
	int n = 0;

	for (int y = (int)(v0 * h); y < (int)(v1 * h); y++)
		for (int x = (int)(u0 * h); x < (int)(u1 * h); x++, n++)
			sum += img->plane[0].data[(size_t)y * img->plane[0].stride + 3 * (size_t)x + 1];
	return sum / n;
}

TEST(ltm_lifts_local_contrast_in_the_dark_of_an_hdr_scene)
{
	struct cisp_sensor *sensor = NULL;
	struct cisp_sensor_mode mode;
	struct cisp_sensor_controls ctl = { 0 };
	struct cisp_image raw = { 0 }, out = { 0 };
	struct cisp_image *outs[2] = { &out, NULL };
	struct cisp_param_state *s = calloc(1, sizeof(*s));
	struct cisp_stats *st = calloc(1, sizeof(*st));
	struct cisp_isp *isp = NULL;
	const struct ltm_tuning t = { .strength = 0.6, .boost = 4, .cut = 1, .range = 1.5 };
	const double wb[3] = { 1, 1, 1 };
	double diff[2];

	CHECK_EQ(cisp_sensor_open(&sensor, "virtual:cisp-test", "scene=hdr,seed=3"), 0);
	CHECK_EQ(cisp_sensor_get_mode(sensor, 0, &mode), 0);
	CHECK_EQ(cisp_image_alloc(&raw, mode.format, mode.width, mode.height), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, mode.width, mode.height), 0);
	/* A short exposure, as for a scene with a lamp in it: the dark side of the room ends up near black. */
	cisp_sensor_controls_set(&ctl, CISP_SENSOR_EXPOSURE, 40);
	CHECK_EQ(cisp_sensor_set_controls(sensor, &ctl), 0);
	CHECK_EQ(cisp_sensor_start(sensor), 0);
	CHECK_EQ(cisp_sensor_capture(sensor, &raw, NULL, 0), 0);
	cisp_sensor_stop(sensor);

	struct cisp_isp_config cfg = { mode.format, mode.width, mode.height, { { CISP_FMT_RGB888, mode.width, mode.height } } };
	const double black[4] = { mode.black_level, mode.black_level, mode.black_level, mode.black_level };

	CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
	cisp_param_state_init(s);
	CHECK_EQ(cisp_blc_from_sensor_levels(&s->blc, black, mode.white_level, mode.bits), 0);
	CHECK_EQ(cisp_isp_set_state(isp, s, ~0u), 0);
	CHECK_EQ(cisp_isp_process(isp, &raw, outs, st, NULL), 0);
	/* The darkest chart patch (the sixth, far from the lamp) against the wall just above it. */
	const double a = (double)mode.width / mode.height, side = 0.8 * a / 6, l = 0.1 * a + 5 * side;

	diff[0] = mean_green(&out, l + 0.1 * side, 0.60, l + 0.7 * side, 0.68) -
		  mean_green(&out, l + 0.1 * side, 0.74, l + 0.7 * side, 0.84);
	CHECK_EQ(control_ltm_grid(st, wb, 0.18, &t, &s->ltm), 0);
	s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LTM);
	CHECK_EQ(cisp_isp_set_state(isp, s, CISP_BLOCK_BIT(CISP_BLOCK_LTM)), 0);
	CHECK_EQ(cisp_isp_process(isp, &raw, outs, NULL, NULL), 0);
	diff[1] = mean_green(&out, l + 0.1 * side, 0.60, l + 0.7 * side, 0.68) -
		  mean_green(&out, l + 0.1 * side, 0.74, l + 0.7 * side, 0.84);
	/* Wall against patch, in 8-bit codes (2.95 without LTM, 11.3 with): LTM at least doubles it. */
	CHECK(diff[0] > 0);
	CHECK(diff[1] > 2 * diff[0]);
	/* Statistics without zones give no grid. */
	st->valid = 0;
	CHECK_ERR(control_ltm_grid(st, wb, 0.18, &t, &s->ltm), -EINVAL, "no zone grid");
	cisp_isp_destroy(isp);
	cisp_image_free(&raw);
	cisp_image_free(&out);
	cisp_sensor_close(sensor);
	free(st);
	free(s);
}

/* The algorithm in the loop: off without statistics or strength, then the grid of the frame's statistics. */
TEST(ltm_control_loop_writes_the_grid)
{
	struct cisp_sensor *sensor = NULL;
	struct cisp_tuning *t = NULL, *off = NULL;
	struct cisp_control *loop = NULL, *loop_off = NULL;
	struct cisp_control_config cfg = { 0 };
	struct cisp_control_result res, res_off;
	struct cisp_sensor_metadata md;
	struct cisp_image raw = { 0 };
	struct cisp_stats *st = calloc(1, sizeof(*st));
	struct cisp_isp *isp = NULL;
	struct cisp_ltm_params *expect = calloc(1, sizeof(*expect));
	const struct ltm_tuning lt = { .strength = 0.6, .boost = 4, .cut = 1, .range = 1.5 };

	CHECK_EQ(tuning_with("ltm:\n  strength: 0.6\n  boost: 4\n", &t), 0);
	CHECK_EQ(tuning_with("", &off), 0);
	CHECK_EQ(cisp_sensor_open(&sensor, "virtual:cisp-test", "scene=hdr,seed=4"), 0);
	if (!t || !off || !sensor)
		return;
	CHECK_EQ(cisp_sensor_get_mode(sensor, 0, &cfg.mode), 0);
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		CHECK_EQ(cisp_sensor_control_info(sensor, (enum cisp_sensor_control)i, &cfg.controls[i]), 0);
	cfg.tuning = t;
	CHECK_EQ(cisp_control_create(&loop, &cfg), 0);
	cfg.tuning = off;
	CHECK_EQ(cisp_control_create(&loop_off, &cfg), 0);
	CHECK_EQ(cisp_control_start(loop, &res), 0);
	CHECK_EQ(cisp_control_start(loop_off, &res_off), 0);
	CHECK(!(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM)));

	struct cisp_isp_config ic = { cfg.mode.format, cfg.mode.width, cfg.mode.height,
				      { { CISP_FMT_NV12, cfg.mode.width, cfg.mode.height } } };

	CHECK_EQ(cisp_isp_create(&isp, &ic), 0);
	CHECK_EQ(cisp_image_alloc(&raw, cfg.mode.format, cfg.mode.width, cfg.mode.height), 0);
	CHECK_EQ(cisp_isp_set_state(isp, res.params, ~0u), 0);
	CHECK_EQ(cisp_sensor_set_controls(sensor, &res.sensor), 0);
	CHECK_EQ(cisp_sensor_start(sensor), 0);
	CHECK_EQ(cisp_sensor_capture(sensor, &raw, &md, 0), 0);
	cisp_sensor_stop(sensor);
	CHECK_EQ(cisp_isp_statistics(isp, &raw, NULL, st, NULL), 0);
	CHECK_EQ(cisp_control_process(loop, st, &md, &res), 0);
	CHECK_EQ(cisp_control_process(loop_off, st, &md, &res_off), 0);
	/* With the strength: on, and the grid is control_ltm_grid()'s for this frame's gains. */
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM));
	CHECK(res.params_changed & CISP_BLOCK_BIT(CISP_BLOCK_LTM));
	{
		const struct cisp_param_state *p = res.params;
		const double wb[3] = { res.state.colour_gains[0], 1, res.state.colour_gains[1] };
		int n = st->zones_x * st->zones_y, same = 1;

		CHECK_EQ(control_ltm_grid(st, wb, t->ae.target, &lt, expect), 0);
		CHECK_EQ(p->ltm.grid_w, st->zones_x);
		CHECK_EQ(p->ltm.grid_h, st->zones_y);
		/* Zone means are before white balance: the grid takes AWB's new gains, those of the frame it is for. */
		for (int k = 0; k < 2 * n; k++)
			same &= p->ltm.node[k] == expect->node[k];
		CHECK(same);
	}
	/* Without the section: off. */
	CHECK(!(res_off.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM)));
	cisp_isp_destroy(isp);
	cisp_image_free(&raw);
	cisp_control_destroy(loop);
	cisp_control_destroy(loop_off);
	cisp_sensor_close(sensor);
	cisp_tuning_free(t);
	cisp_tuning_free(off);
	free(expect);
	free(st);
}
