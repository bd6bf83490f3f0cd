/* SPDX-License-Identifier: MIT */
/*
 * jobs: the ISP device directly: a context, jobs submitted in one call each,
 * and fences that order them without a round trip through the application.
 *
 *   cc jobs.c $(pkg-config --cflags --libs cisp) -o jobs
 *   ./jobs
 *
 * Job 1 waits for a fence the application signals when its input is
 * "ready" (as a capture driver's fence would); job 2 waits for job 1's
 * out-fence. Both are submitted at once; the application then signals the
 * input fence and polls job 2's fence descriptor, the way a display or
 * encoder would.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/fence.h>
#include <cisp/format.h>

#define WIDTH 640
#define HEIGHT 480

/* A 12-bit RGGB mosaic of a horizontal grey ramp over a black level of 256. */
static void fill_ramp(struct cisp_image *raw)
{
	for (unsigned y = 0; y < HEIGHT; y++) {
		uint16_t *row = (uint16_t *)(raw->plane[0].data + y * raw->plane[0].stride);

		for (unsigned x = 0; x < WIDTH; x++)
			row[x] = (uint16_t)(256 + x * 3839 / (WIDTH - 1));
	}
}

static void print_result(const char *name, const struct cisp_job_result *r)
{
	printf("%s: sequence %llu, %s, ran %.2f ms, %.2f ms after submission\n", name,
	       (unsigned long long)r->sequence, r->status == CISP_FENCE_OK ? "ok" : r->message,
	       (r->end_ns - r->start_ns) / 1e6, (r->end_ns - r->submit_ns) / 1e6);
}

int main(void)
{
	struct cisp_device *device = NULL;
	struct cisp_context *context = NULL;
	struct cisp_context_config cc = {
		.name = "example",
		.isp = { .input_format = CISP_FMT_SRGGB12, .width = WIDTH, .height = HEIGHT,
			 .output = { { CISP_FMT_NV12, WIDTH, HEIGHT } } },
	};
	struct cisp_image raw = { 0 }, out[2] = { { 0 } };
	struct cisp_fence *input_ready = NULL, *done[2] = { NULL, NULL };
	struct cisp_job_result result[2];
	struct cisp_stats *stats = calloc(1, sizeof(*stats));
	struct pollfd pfd = { .events = POLLIN };
	int status = 1;

	if (!stats || cisp_device_create(&device, NULL) || cisp_context_create(&context, device, &cc) ||
	    cisp_image_alloc(&raw, CISP_FMT_SRGGB12, WIDTH, HEIGHT) ||
	    cisp_image_alloc(&out[0], CISP_FMT_NV12, WIDTH, HEIGHT) ||
	    cisp_image_alloc(&out[1], CISP_FMT_NV12, WIDTH, HEIGHT) || cisp_fence_create(&input_ready))
		goto fail;
	fill_ramp(&raw);

	for (int i = 0; i < 2; i++) {
		struct cisp_job job = {
			.num_inputs = 1,
			.input = { &raw },
			.output = { &out[i] },
			.stats = i == 1 ? stats : NULL,
			.result = &result[i],
			.num_in_fences = 1,
			/* Job 1 waits for the input, job 2 for job 1. */
			.in_fence = { i == 0 ? input_ready : done[0] },
		};

		if (cisp_job_submit(context, &job, &done[i]))
			goto fail;
	}
	printf("two jobs submitted; job 1 waits for its input\n");
	cisp_fence_signal(input_ready, 0);

	/* A fence is a file descriptor: poll() it with the application's other descriptors. */
	pfd.fd = cisp_fence_fd(done[1]);
	if (pfd.fd < 0 || poll(&pfd, 1, 5000) != 1) {
		fprintf(stderr, "jobs: job 2 did not complete in 5 s\n");
		goto out;
	}
	if (cisp_fence_wait(done[1], 0))
		goto fail;
	print_result("job 1", &result[0]);
	print_result("job 2", &result[1]);
	if (stats->valid & CISP_STATS_HIST) {
		unsigned long long sum = 0, n = 0;

		for (int b = 0; b < 256; b++) {
			sum += (unsigned long long)stats->hist[b] * (unsigned)b;
			n += stats->hist[b];
		}
		printf("job 2's luma histogram: mean bin %.1f of 255 over %llu cells\n", n ? (double)sum / n : 0.0, n);
	}
	status = 0;
	goto out;
fail:
	fprintf(stderr, "jobs: %s\n", cisp_last_error());
out:
	for (int i = 0; i < 2; i++)
		cisp_fence_unref(done[i]);
	cisp_fence_unref(input_ready);
	cisp_context_destroy(context);
	cisp_device_destroy(device);
	cisp_image_free(&raw);
	cisp_image_free(&out[0]);
	cisp_image_free(&out[1]);
	free(stats);
	return status;
}
