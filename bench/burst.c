/* SPDX-License-Identifier: MIT */
/*
 * Burst merge on the virtual sensor in low light with hand shake
 * (docs/burst.md, "Figures"):
 *  - SNR gain on a flat field against one frame, for N = 2, 4, 8 (ideal
 *    sqrt(N));
 *  - residual ghosting of a moving object (a square pasted into the frames,
 *    moving between them), against the plain aligned mean (no rejection);
 *  - time of an 8-frame merge on 2 threads against the ISP's single-frame
 *    pipeline (default parameters) on the same 2 threads, measured A B B A in
 *    this run, as a ratio.
 *
 * usage: bench-burst [SENSOR [LUX [SHAKE]]]  (default virtual:cisp-12m12 5 8)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/burst.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/sensor.h>
#include <cisp/stats.h>

#define FRAMES 8

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint16_t *pixel(const struct cisp_image *img, uint32_t x, uint32_t y)
{
	return (uint16_t *)(img->plane[0].data + (size_t)y * img->plane[0].stride) + x;
}

/* Mean above @black over standard deviation of the green sites of a square at the centre (256 or half the height). */
static double centre_snr(const struct cisp_image *img, uint32_t black, enum cisp_cfa cfa)
{
	double sum = 0, sq = 0, n = 0;
	uint32_t r = img->height / 4 < 128 ? img->height / 4 : 128;

	for (uint32_t y = img->height / 2 - r; y < img->height / 2 + r; y++)
		for (uint32_t x = img->width / 2 - r; x < img->width / 2 + r; x++) {
			enum cisp_channel ch = cisp_cfa_channel(cfa, x, y);
			double v;

			if (ch != CISP_CH_GR && ch != CISP_CH_GB)
				continue;
			v = *pixel(img, x, y);
			sum += v;
			sq += v * v;
			n++;
		}
	return (sum / n - black) / sqrt(sq / n - (sum / n) * (sum / n));
}

static int fail(const char *what)
{
	fprintf(stderr, "bench-burst: %s: %s\n", what, cisp_last_error());
	return 1;
}

/* The object: a square of side @side, @contrast codes brighter, at (@x, @y). */
static void paste(struct cisp_image *img, uint32_t x, uint32_t y, uint32_t side, unsigned contrast, unsigned white)
{
	for (uint32_t j = y; j < y + side && j < img->height; j++)
		for (uint32_t i = x; i < x + side && i < img->width; i++) {
			unsigned v = *pixel(img, i, j) + contrast;

			*pixel(img, i, j) = (uint16_t)(v > white ? white : v);
		}
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "virtual:cisp-12m12";
	double lux = argc > 2 ? atof(argv[2]) : 5, shake = argc > 3 ? atof(argv[3]) : 8;
	char options[256];
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode mode;
	struct cisp_sensor_metadata md;
	struct cisp_image frame[FRAMES], moved[FRAMES], out, out_moved, nv12;
	struct cisp_burst_config c = { 0 };
	struct cisp_burst_result res;
	struct cisp_pool *pool = NULL;
	struct cisp_isp *isp = NULL;
	double a, b, snr1, sigma, t_isp = 1e30, t_merge = 1e30;
	uint32_t side, x0, y0, step;
	unsigned contrast;

	/* Defects off: a hot pixel is the DPC stage's business and would swamp the noise of a patch. */
	snprintf(options, sizeof(options), "scene=flat,lux=%g,shake=%g,seed=1,defects=off", lux, shake);
	if (cisp_sensor_open(&s, name, options) || cisp_sensor_get_mode(s, 0, &mode))
		return fail(name);
	/* Low light as AE would meet it: the longest exposure of the default frame length, the most analogue gain. */
	{
		struct cisp_sensor_controls sc = { 0 };
		struct cisp_sensor_control_info ci;

		for (unsigned id = CISP_SENSOR_EXPOSURE; id <= CISP_SENSOR_ANALOGUE_GAIN; id++) {
			if (cisp_sensor_control_info(s, (enum cisp_sensor_control)id, &ci))
				return fail("controls");
			sc.mask |= 1u << id;
			sc.value[id] = ci.max;
		}
		if (cisp_sensor_set_controls(s, &sc) || cisp_sensor_start(s))
			return fail("start");
	}
	for (int z = 0; z < FRAMES; z++) {
		if (cisp_image_alloc(&frame[z], mode.format, mode.width, mode.height) ||
		    cisp_image_alloc(&moved[z], mode.format, mode.width, mode.height) ||
		    cisp_sensor_capture(s, &frame[z], &md, 0))
			return fail("capture");
		c.frame[z] = &frame[z];
	}
	if (cisp_vsensor_noise_model(s, md.controls[CISP_SENSOR_ANALOGUE_GAIN], md.controls[CISP_SENSOR_DIGITAL_GAIN], &a,
				     &b))
		return fail("noise model");
	c.black_level = mode.black_level;
	c.noise_a = a;
	c.noise_b = b;
	if (cisp_image_alloc(&out, mode.format, mode.width, mode.height) ||
	    cisp_image_alloc(&out_moved, mode.format, mode.width, mode.height) || cisp_pool_create(&pool, 2))
		return fail("allocation");
	printf("%s %ux%u %u-bit, %s: exposure %.1f ms, analogue gain x%.2f, noise var = %.4f * s + %.2f codes^2\n", name,
	       mode.width, mode.height, mode.bits, options, md.exposure_ns / 1e6,
	       md.controls[CISP_SENSOR_ANALOGUE_GAIN] / 256.0, a, b);

	/* SNR gain on the flat field. */
	snr1 = centre_snr(&frame[0], mode.black_level, mode.cfa);
	printf("SNR, green sites of a square at the centre: one frame %.2f\n", snr1);
	for (unsigned n = 2; n <= FRAMES; n *= 2) {
		double snr;

		c.num_frames = n;
		if (cisp_burst_merge(&c, &out, pool, &res))
			return fail("merge");
		snr = centre_snr(&out, mode.black_level, mode.cfa);
		/* The per-pixel mean of the same frames, unaligned: what the frames' noise alone allows on a flat field. */
		for (uint32_t y = 0; y < mode.height; y++)
			for (uint32_t x = 0; x < mode.width; x++) {
				unsigned sum = 0;

				for (unsigned z = 0; z < n; z++)
					sum += *pixel(&frame[z], x, y);
				*pixel(&out_moved, x, y) = (uint16_t)((sum + n / 2) / n);
			}
		printf("  N = %u: the plain per-pixel mean, unaligned: SNR %.2f, gain %.2f\n", n,
		       centre_snr(&out_moved, mode.black_level, mode.cfa),
		       centre_snr(&out_moved, mode.black_level, mode.cfa) / snr1);
		printf("  N = %u: SNR %.2f, gain %.2f (sqrt(N) %.2f, %.0f %% of it), variance factor %.3f, %u of %u "
		       "tile-frame pairs rejected\n",
		       n, snr, snr / snr1, sqrt(n), 100 * snr / snr1 / sqrt(n), res.variance_factor, res.rejected,
		       res.tiles_x * res.tiles_y * (n - 1));
	}

	/* A moving object: a square 10 sigma bright, a side of 1/16 of the height, moving a side per frame. */
	sigma = sqrt(a * 0 + b);
	{
		double mean = 0;

		for (uint32_t x = 0; x < 64; x++)
			mean += *pixel(&frame[0], mode.width / 2 + x, mode.height / 2);
		mean = mean / 64 - mode.black_level;
		sigma = sqrt(a * fmax(mean, 0) + b);
	}
	contrast = (unsigned)lround(10 * sigma);
	side = (mode.height / 16) & ~1u;
	step = side;
	x0 = mode.width / 4;
	y0 = mode.height / 2;
	c.num_frames = FRAMES;
	for (int z = 0; z < FRAMES; z++) {
		for (uint32_t y = 0; y < mode.height; y++)
			memcpy(pixel(&moved[z], 0, y), pixel(&frame[z], 0, y), (size_t)mode.width * 2);
		paste(&moved[z], x0 + step * z, y0, side, contrast, mode.white_level);
	}
	for (int rejecting = 1; rejecting >= 0; rejecting--) {
		struct cisp_burst_config m = c;
		double ghost = 0, count = 0;

		if (!rejecting)
			m.noise_b = 16777216.0; /* noise so large that nothing is rejected: the plain aligned mean */
		if (cisp_burst_merge(&m, &out, pool, NULL))
			return fail("merge");
		for (int z = 0; z < FRAMES; z++)
			m.frame[z] = &moved[z];
		if (cisp_burst_merge(&m, &out_moved, pool, &res))
			return fail("merge");
		/* Where later frames had the object and the reference did not. */
		for (uint32_t y = y0; y < y0 + side; y++)
			for (uint32_t x = x0 + side; x < x0 + step * (FRAMES - 1) + side; x++) {
				ghost += (double)*pixel(&out_moved, x, y) - *pixel(&out, x, y);
				count++;
			}
		printf("moving square (%u codes = 10 sigma, %u px, %u px a frame), %s: residual ghost %.2f codes = %.2f %% "
		       "of its contrast\n",
		       contrast, side, step, rejecting ? "with rejection" : "plain aligned mean", ghost / count,
		       100 * ghost / count / contrast);
	}

	/* Time: the 8-frame merge against the single-frame pipeline, on the same 2 threads, A B B A. */
	{
		struct cisp_isp_config ic = { mode.format, mode.width, mode.height, { { CISP_FMT_NV12, mode.width, mode.height } },
					      NULL };
		struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &nv12 };
		struct cisp_stats *stats = calloc(1, sizeof(*stats));

		if (!stats || cisp_image_alloc(&nv12, CISP_FMT_NV12, mode.width, mode.height) || cisp_isp_create(&isp, &ic))
			return fail("ISP");
		c.num_frames = FRAMES;
		for (int rep = 0; rep < 4; rep++) {
			bool pipeline = rep == 0 || rep == 3;
			double t0 = now_ms();

			if (pipeline ? cisp_isp_process(isp, &frame[0], outs, stats, pool) : cisp_burst_merge(&c, &out, pool, NULL))
				return fail(pipeline ? "ISP" : "merge");
			if (pipeline)
				t_isp = fmin(t_isp, now_ms() - t0);
			else
				t_merge = fmin(t_merge, now_ms() - t0);
		}
		printf("time on 2 threads (best of 2, A B B A): merge of %d frames %.0f ms, single-frame pipeline "
		       "(default parameters, blocks 0x%x) %.0f ms: the merge is %.2fx the pipeline\n",
		       FRAMES, t_merge, cisp_isp_params(isp)->enabled, t_isp, t_merge / t_isp);
		free(stats);
	}
	cisp_isp_destroy(isp);
	cisp_image_free(&nv12);
	cisp_pool_destroy(pool);
	cisp_image_free(&out);
	cisp_image_free(&out_moved);
	for (int z = 0; z < FRAMES; z++) {
		cisp_image_free(&frame[z]);
		cisp_image_free(&moved[z]);
	}
	cisp_sensor_close(s);
	return 0;
}
