/* SPDX-License-Identifier: MIT */
/*
 * How fast the virtual sensor renders: frames per second of steady capture
 * (noise and readout only), and the cost of a new lens position (blur,
 * shading, CFA sampling) and of a new scene (the spectral render), on one
 * thread, in thread CPU time.
 *
 * bench-sensor [sensor [mode [frames [options]]]]
 *   default: virtual:cisp-8m10, mode 1 (1920x1080), 60 frames, colorchart
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/sensor.h>

/* This thread's CPU time: on a shared machine it counts only the time the render really ran. */
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int capture(struct cisp_sensor *s, struct cisp_image *img)
{
	if (cisp_sensor_capture(s, img, NULL, 0) < 0) {
		fprintf(stderr, "capture: %s\n", cisp_last_error());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "virtual:cisp-8m10";
	unsigned mode_index = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	int frames = argc > 3 ? atoi(argv[3]) : 60;
	const char *options = argc > 4 ? argv[4] : NULL;
	struct cisp_sensor_controls c = { 0 };
	struct cisp_sensor_control_info lens;
	struct cisp_sensor_mode m;
	struct cisp_sensor *s;
	struct cisp_image img;
	double t0, t_first, t_steady, t_lens;

	if (cisp_sensor_open(&s, name, options) < 0 || cisp_sensor_set_mode(s, mode_index) < 0 ||
	    cisp_sensor_get_mode(s, mode_index, &m) < 0) {
		fprintf(stderr, "%s\n", cisp_last_error());
		return 1;
	}
	if (cisp_image_alloc(&img, m.format, m.width, m.height) < 0 || cisp_sensor_start(s) < 0) {
		fprintf(stderr, "%s\n", cisp_last_error());
		return 1;
	}
	t0 = now();
	if (capture(s, &img))
		return 1;
	t_first = now() - t0;
	t0 = now();
	for (int i = 0; i < frames; i++)
		if (capture(s, &img))
			return 1;
	t_steady = (now() - t0) / frames;
	/* A lens move: the frame after the write point plus the delay renders a new blur. */
	cisp_sensor_control_info(s, CISP_SENSOR_LENS_POSITION, &lens);
	cisp_sensor_controls_set(&c, CISP_SENSOR_LENS_POSITION, lens.def + 100);
	cisp_sensor_set_controls(s, &c);
	for (unsigned i = 0; i < lens.delay; i++)
		if (capture(s, &img))
			return 1;
	t0 = now();
	if (capture(s, &img))
		return 1;
	t_lens = now() - t0 - t_steady;
	printf("%s mode %u (%s, %ux%u, %u bits)\n", name, mode_index, m.name, m.width, m.height, m.bits);
	printf("  steady capture: %.2f ms/frame = %.1f frames/s = %.0f Mpixel/s (%d frames)\n", t_steady * 1e3,
	       1 / t_steady, m.width * (double)m.height / t_steady * 1e-6, frames);
	printf("  first frame (scene render + blur + noise): %.1f ms\n", t_first * 1e3);
	printf("  new lens position (blur + shading + CFA sampling): %.1f ms\n", t_lens * 1e3);
	cisp_image_free(&img);
	cisp_sensor_close(s);
	return 0;
}
