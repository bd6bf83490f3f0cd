/* SPDX-License-Identifier: MIT */
/*
 * bench-vendor: what running a vendor stage in a sandboxed helper costs per
 * job, against the same plugin trusted in-process.
 *
 *   bench-vendor [JOBS]
 *
 * 1. One stage alone (the test probe plugin, which adds a constant to every
 *    sample) at the Bayer and RGB taps for several frame sizes: time per job
 *    trusted and sandboxed, and the difference, which is the isolation
 *    overhead (the stage's planes copied into and out of the memfds instead
 *    of out of one scratch copy, one round trip on the socket, the reply
 *    checks).
 * 2. The whole pipeline on a 1920x1080 frame to NV12 with the example
 *    colour-effects plugin at the RGB tap: none, trusted, sandboxed. (A
 *    frame with an enabled vendor stage takes the reference executor.)
 * Wall-clock times on one thread, the median and the fastest of the jobs:
 * on a loaded machine the fastest is the better estimate of the cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/vendor.h>

#include "vendor_stage/vendor_internal.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median and the fastest of @n times (the fastest shows the cost on a loaded machine). */
struct timing {
	double median, best;
};

static struct timing summarise(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return (struct timing){ v[n / 2], v[0] };
}

static struct cisp_vendor_host *host_with(const char *plugin, bool trusted)
{
	struct cisp_vendor_host_config hc = { CISP_BUILD_DIR "/src/vendor_stage/cisp-vendor-helper" };
	struct cisp_vendor_stage_config sc = { plugin, trusted, 5000 };
	struct cisp_vendor_host *host;

	if (cisp_vendor_host_create(&host, &hc) || cisp_vendor_host_add(host, &sc)) {
		fprintf(stderr, "bench-vendor: %s\n", cisp_last_error());
		exit(1);
	}
	return host;
}

/* Seconds per job of one probe stage on the planes of a @w x @h frame at @tap. */
static struct timing stage_job(const char *plugin, unsigned tap, bool trusted, uint32_t w, uint32_t h, int jobs)
{
	struct cisp_vendor_host *host = host_with(plugin, trusted);
	unsigned n = tap ? 3 : 1;
	struct vendor_instance *vi;
	uint16_t *mem = calloc((size_t)w * h * n, sizeof(uint16_t));
	struct plane16 planes[3];
	struct {
		struct cisp_params_header h;
		struct cisp_block_header b;
		uint32_t vendor_id;
		uint16_t type, version;
		uint32_t payload_size, reserved;
		uint16_t add, pad[3];
	} params = { { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, sizeof(params), 0 },
		     { CISP_BLOCK_VENDOR, CISP_BLOCK_FL_ENABLE, sizeof(params) - 16 },
		     0xffff0100u + tap, 1, 1, 2, 0, 1, { 0 } };
	double *t = malloc(sizeof(double) * (size_t)jobs);
	struct timing m;

	if (vendor_instance_create(&vi, host, w, h, 0)) {
		fprintf(stderr, "bench-vendor: %s\n", cisp_last_error());
		exit(1);
	}
	vendor_instance_apply(vi, &params, sizeof(params));
	for (unsigned c = 0; c < n; c++)
		planes[c] = (struct plane16){ mem + (size_t)c * w * h, w, 0, (int)w, (int)h };
	for (int j = -3; j < jobs; j++) {
		double t0 = now();

		if (vendor_instance_run(vi, tap, planes, n)) {
			fprintf(stderr, "bench-vendor: %s\n", cisp_last_error());
			exit(1);
		}
		if (j >= 0)
			t[j] = now() - t0;
	}
	m = summarise(t, jobs);
	vendor_instance_destroy(vi);
	cisp_vendor_host_destroy(host);
	free(mem);
	free(t);
	return m;
}

/* Seconds per frame of the whole pipeline, with the colour effect (mono) when @host is given. */
static struct timing pipeline_frame(struct cisp_vendor_host *host, int frames)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 1920, 1080, { { CISP_FMT_NV12, 1920, 1080 } }, host };
	struct {
		struct cisp_params_header h;
		struct cisp_block_header b;
		uint32_t vendor_id;
		uint16_t type, version;
		uint32_t payload_size, reserved;
		uint16_t payload[4];
	} params = { { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, sizeof(params), 0 },
		     { CISP_BLOCK_VENDOR, CISP_BLOCK_FL_ENABLE, sizeof(params) - 16 },
		     0x454d4341u, 1, 1, 8, 0, { 1, 256, 0, 0 } };
	struct cisp_image in, out;
	struct cisp_image *outs[2] = { &out, NULL };
	double *t = malloc(sizeof(double) * (size_t)frames);
	struct timing m;
	struct cisp_isp *isp;

	if (cisp_isp_create(&isp, &c) || (host && cisp_isp_set_params(isp, &params, sizeof(params)))) {
		fprintf(stderr, "bench-vendor: %s\n", cisp_last_error());
		exit(1);
	}
	cisp_image_alloc(&in, CISP_FMT_SRGGB10, 1920, 1080);
	cisp_image_alloc(&out, CISP_FMT_NV12, 1920, 1080);
	for (size_t i = 0; i < (size_t)1920 * 1080; i++)
		((uint16_t *)in.plane[0].data)[i] = (uint16_t)((i * 7919) % 1024);
	for (int j = -2; j < frames; j++) {
		double t0 = now();

		if (cisp_isp_process(isp, &in, outs, NULL, NULL)) {
			fprintf(stderr, "bench-vendor: %s\n", cisp_last_error());
			exit(1);
		}
		if (j >= 0)
			t[j] = now() - t0;
	}
	m = summarise(t, frames);
	cisp_image_free(&in);
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[][2] = { { 16, 16 }, { 640, 480 }, { 1920, 1080 }, { 4096, 3072 } };
	static const char *const probes[] = { CISP_BUILD_DIR "/tests/plugins/probe_bayer.so",
					      CISP_BUILD_DIR "/tests/plugins/probe_rgb.so" };
	int jobs = argc > 1 ? atoi(argv[1]) : 31;
	struct cisp_vendor_host *host;

	if (jobs < 1)
		jobs = 31;
	printf("one vendor stage (test probe), %d jobs, ms per job: median (fastest)\n", jobs);
	printf("%-6s %-10s %18s %18s %18s %8s\n", "tap", "frame", "trusted", "sandboxed", "overhead", "MB/job");
	for (unsigned tap = 0; tap < 2; tap++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint32_t w = sizes[s][0], h = sizes[s][1];
			int n = w * h > 4000000 ? (jobs + 2) / 3 : jobs;
			struct timing t = stage_job(probes[tap], tap, true, w, h, n);
			struct timing sb = stage_job(probes[tap], tap, false, w, h, n);
			char frame[32];

			snprintf(frame, sizeof(frame), "%ux%u", w, h);
			printf("%-6s %-10s %9.3f (%6.3f) %9.3f (%6.3f) %9.3f (%6.3f) %8.1f\n", cisp_vendor_tap_name(tap), frame,
			       t.median * 1e3, t.best * 1e3, sb.median * 1e3, sb.best * 1e3, (sb.median - t.median) * 1e3,
			       (sb.best - t.best) * 1e3, (double)w * h * (tap ? 3 : 1) * 2 / 1e6);
		}

	printf("\nwhole pipeline, 1920x1080 SRGGB10 to NV12, colour effect at the RGB tap, %d frames, ms per frame\n",
	       (jobs + 2) / 3);
	for (int mode = 0; mode < 3; mode++) {
		static const char *const names[] = { "no vendor stage", "trusted", "sandboxed" };
		struct timing t;

		host = mode ? host_with(CISP_BUILD_DIR "/plugins/acme_effects.so", mode == 1) : NULL;
		t = pipeline_frame(host, (jobs + 2) / 3);
		printf("  %-16s %9.2f (%7.2f)\n", names[mode], t.median * 1e3, t.best * 1e3);
		cisp_vendor_host_destroy(host);
	}
	return 0;
}
