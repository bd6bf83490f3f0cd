/* SPDX-License-Identifier: MIT */
/*
 * Preemption at band boundaries. The rule: a running job is stopped at a
 * preemption point for a ready job that goes before it, and only when no
 * worker is free (test backends whose fences order every step, so nothing
 * depends on timing). The state: the software ISP stopped at every one of
 * its band boundaries, with jobs run on top of jobs run on top of it, gives
 * outputs identical to runs nothing interrupted.
 */
#include <stdlib.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>

#include "core/preempt.h"
#include "device/device_internal.h"
#include "isp/pipeline_internal.h"

#include "test.h"

/* ---- the rule, on test backends ---- */

#define POINTS 4

struct rule_rig {
	struct cisp_fence *gate;      /* holds the blocker on its worker until the test opens it */
	struct cisp_fence *b_started; /* the blocker runs: the banded job's in-fence */
	struct cisp_fence *l_started; /* the banded job runs: the others' in-fence */
	struct cisp_fence *urgent, *lesser; /* out-fences of the jobs that become ready while it runs */
	bool urgent_done[POINTS], lesser_done[POINTS];
};

static int rig_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	(void)config;
	*instance = opaque;
	return 0;
}

static void rig_destroy(void *instance)
{
	(void)instance;
}

static int rig_set_params(void *instance, const void *buf, size_t size)
{
	(void)instance;
	(void)buf;
	(void)size;
	return 0;
}

static int blocker_process(void *instance, struct cisp_device_frame *frame)
{
	struct rule_rig *r = instance;

	(void)frame;
	cisp_fence_signal(r->b_started, 0);
	return cisp_fence_wait(r->gate, -1);
}

/* A job of POINTS bands: after each, a preemption point, and a note of what ran there. */
static int banded_process(void *instance, struct cisp_device_frame *frame)
{
	struct rule_rig *r = instance;

	(void)frame;
	cisp_fence_signal(r->l_started, 0);
	for (int i = 0; i < POINTS; i++) {
		cisp_device_preempt_point();
		r->urgent_done[i] = cisp_fence_status(r->urgent) != CISP_FENCE_PENDING;
		r->lesser_done[i] = cisp_fence_status(r->lesser) != CISP_FENCE_PENDING;
	}
	return 0;
}

static int quick_process(void *instance, struct cisp_device_frame *frame)
{
	(void)instance;
	(void)frame;
	return 0;
}

static struct cisp_context *rule_context(struct cisp_device *dev, const char *name, int priority,
					 struct cisp_device_backend *backend, struct rule_rig *r,
					 int (*process)(void *, struct cisp_device_frame *))
{
	struct cisp_context_config c = {
		.name = name,
		.isp = { CISP_FMT_SRGGB16, 16, 16, { { CISP_FMT_RGB888, 16, 16 } } },
		.priority = priority,
		.backend = backend,
	};
	struct cisp_context *ctx = NULL;

	*backend = (struct cisp_device_backend){ .name = name, .create = rig_create, .destroy = rig_destroy,
						 .set_params = rig_set_params, .process = process, .opaque = r };
	if (cisp_context_create(&ctx, dev, &c)) {
		printf("    %s\n", cisp_last_error());
		abort();
	}
	return ctx;
}

static struct cisp_fence *rule_submit(struct cisp_context *ctx, struct cisp_image *in, struct cisp_image *out,
				      struct cisp_fence *after, uint64_t deadline, struct cisp_job_result *result)
{
	struct cisp_job job = { .num_inputs = 1, .input = { in }, .output = { out }, .deadline_ns = deadline,
				.result = result };
	struct cisp_fence *f = NULL;

	if (after) {
		job.in_fence[0] = after;
		job.num_in_fences = 1;
	}
	if (cisp_job_submit(ctx, &job, &f)) {
		printf("    %s\n", cisp_last_error());
		abort();
	}
	return f;
}

/*
 * One worker holds the blocker; the other runs the banded job, whose start
 * makes "urgent" and "lesser" ready. With @workers 2 every worker is busy:
 * the banded job must run "urgent" at its first point and never "lesser".
 * With 3, a worker is free for them: the banded job is never stopped.
 * @urgent_key and @lesser_key are (priority, deadline) against the banded
 * job's (1, 2000).
 */
static void check_rule(uint32_t schedule, unsigned workers, const int urgent_key[2], const int lesser_key[2])
{
	struct cisp_device_config dc = { .workers = workers, .job_threads = 1, .schedule = schedule };
	struct cisp_device_backend be[4];
	struct rule_rig r = { 0 };
	struct cisp_job_result res_l = { 0 }, res_u = { 0 };
	struct cisp_context_counters k;
	struct cisp_image in, out;
	struct cisp_device *dev;
	struct cisp_context *blocker, *banded, *urgent, *lesser;
	struct cisp_fence *fb, *fl;
	bool preempts = workers == 2;

	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_SRGGB16, 16, 16), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB888, 16, 16), 0);
	CHECK_EQ(cisp_fence_create(&r.gate), 0);
	CHECK_EQ(cisp_fence_create(&r.b_started), 0);
	CHECK_EQ(cisp_fence_create(&r.l_started), 0);
	blocker = rule_context(dev, "blocker", 0, &be[0], &r, blocker_process);
	banded = rule_context(dev, "banded", 1, &be[1], &r, banded_process);
	urgent = rule_context(dev, "urgent", urgent_key[0], &be[2], &r, quick_process);
	lesser = rule_context(dev, "lesser", lesser_key[0], &be[3], &r, quick_process);

	r.urgent = rule_submit(urgent, &in, &out, r.l_started, (uint64_t)urgent_key[1], &res_u);
	r.lesser = rule_submit(lesser, &in, &out, r.l_started, (uint64_t)lesser_key[1], NULL);
	fl = rule_submit(banded, &in, &out, r.b_started, 2000, &res_l);
	fb = rule_submit(blocker, &in, &out, NULL, 0, NULL);

	CHECK_EQ(cisp_fence_wait(fl, 60000000000), 0);
	cisp_context_counters(banded, &k);
	if (preempts) {
		/* Stopped once, at its first point, for "urgent" only; "lesser" waits for it. */
		CHECK(r.urgent_done[0]);
		for (int i = 0; i < POINTS; i++)
			CHECK(!r.lesser_done[i]);
		CHECK(res_l.start_ns < res_u.start_ns && res_u.end_ns < res_l.end_ns);
		CHECK_EQ((int)cisp_context_preemptions(banded), 1);
		/* The stopped time is not the banded job's processing time. */
		CHECK(k.busy_ns <= res_l.end_ns - res_l.start_ns - (res_u.end_ns - res_u.start_ns));
	} else {
		CHECK_EQ((int)cisp_context_preemptions(banded), 0);
	}
	cisp_fence_signal(r.gate, 0);
	CHECK_EQ(cisp_fence_wait(fb, 60000000000), 0);
	CHECK_EQ(cisp_fence_wait(r.urgent, 60000000000), 0);
	CHECK_EQ(cisp_fence_wait(r.lesser, 60000000000), 0);
	cisp_context_counters(urgent, &k);
	CHECK_EQ((int)k.completed, 1);

	cisp_device_destroy(dev);
	cisp_fence_unref(fb);
	cisp_fence_unref(fl);
	cisp_fence_unref(r.urgent);
	cisp_fence_unref(r.lesser);
	cisp_fence_unref(r.gate);
	cisp_fence_unref(r.b_started);
	cisp_fence_unref(r.l_started);
	cisp_image_free(&in);
	cisp_image_free(&out);
}

TEST(device_preempt_rule_edf)
{
	/* Earliest deadline first: an earlier deadline preempts whatever the priority; a later one does not. */
	check_rule(CISP_SCHEDULE_EDF, 2, (const int[]){ 0, 1000 }, (const int[]){ 2, 3000 });
}

TEST(device_preempt_rule_priority)
{
	/* By priority: a higher one preempts whatever the deadline; a lower one does not, even earlier. */
	check_rule(CISP_SCHEDULE_PRIORITY, 2, (const int[]){ 2, 3000 }, (const int[]){ 0, 1000 });
}

TEST(device_preempt_rule_free_worker)
{
	/* A worker is free: it takes the urgent job, nothing is stopped. */
	check_rule(CISP_SCHEDULE_EDF, 3, (const int[]){ 0, 1000 }, (const int[]){ 2, 3000 });
}

/* ---- the state: the software ISP stopped at every band ---- */

#define LW 320
#define LH 96
#define SW 64
#define SH 48

static const struct cisp_isp_exec banded_exec = { .fused = true, .band_rows = 8, .cpu = -1 };

static struct cisp_image raw_image(int w, int h)
{
	struct cisp_image img;

	if (cisp_image_alloc(&img, CISP_FMT_SRGGB16, (uint32_t)w, (uint32_t)h))
		abort();
	for (int y = 0; y < h; y++) {
		uint16_t *row = (uint16_t *)(img.plane[0].data + (size_t)y * img.plane[0].stride);

		for (int x = 0; x < w; x++)
			row[x] = (uint16_t)(test_rand() & 0xffff);
	}
	return img;
}

static struct cisp_image rgb_image(int w, int h)
{
	struct cisp_image img;

	if (cisp_image_alloc(&img, CISP_FMT_RGB888, (uint32_t)w, (uint32_t)h))
		abort();
	return img;
}

static bool same_rgb(const struct cisp_image *a, const struct cisp_image *b)
{
	for (uint32_t y = 0; y < a->height; y++)
		if (memcmp(a->plane[0].data + y * a->plane[0].stride, b->plane[0].data + y * b->plane[0].stride,
			   (size_t)a->width * 3))
			return false;
	return true;
}

static struct cisp_isp_config isp_config(int w, int h)
{
	return (struct cisp_isp_config){ CISP_FMT_SRGGB16, (uint32_t)w, (uint32_t)h,
					 { { CISP_FMT_RGB888, (uint32_t)w, (uint32_t)h } } };
}

static void count_point(void *opaque)
{
	(*(unsigned *)opaque)++;
}

/* What the banded executor makes of @in alone, with nothing in between; *@points: its preemption points. */
static void uninterrupted(const struct cisp_image *in, struct cisp_image *out, unsigned *points)
{
	struct cisp_isp_config c = isp_config((int)in->width, (int)in->height);
	struct cisp_isp *isp;

	*points = 0;
	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	CHECK_EQ(cisp_isp_set_exec(isp, &banded_exec), 0);
	preempt_hook_set(count_point, points);
	CHECK_EQ(cisp_isp_process(isp, in, (struct cisp_image *[CISP_MAX_OUTPUTS]){ out }, NULL, NULL), 0);
	preempt_hook_set(NULL, NULL);
	cisp_isp_destroy(isp);
}

static struct cisp_context *isp_context(struct cisp_device *dev, const char *name, int w, int h, unsigned limit)
{
	struct cisp_context_config c = { .name = name, .isp = isp_config(w, h), .queue_limit = limit };
	struct cisp_context *ctx = NULL;

	if (cisp_context_create(&ctx, dev, &c)) {
		printf("    %s\n", cisp_last_error());
		abort();
	}
	/* Banded whatever CISP_EXEC says: the bands are what is under test. */
	CHECK_EQ(cisp_isp_set_exec(ctx->instance, &banded_exec), 0);
	return ctx;
}

/*
 * One worker, preempt_always: at every preemption point the worker runs a
 * ready job. A large frame ("large") is stopped at each of its band
 * boundaries for a small one ("small"), which is itself stopped at its own
 * boundaries for another ("nested"). Every output must be what the same
 * input gives alone.
 */
TEST(device_preempt_every_band_bit_exact)
{
	struct cisp_device_config dc = { .workers = 1, .job_threads = 1, .max_jobs = 512,
					 .schedule = CISP_SCHEDULE_EDF };
	struct rule_rig r = { 0 };
	struct cisp_device_backend be;
	struct cisp_image big = raw_image(LW, LH), big_out = rgb_image(LW, LH), big_want = rgb_image(LW, LH);
	struct cisp_image blk_in = raw_image(16, 16), blk_out = rgb_image(16, 16);
	struct cisp_job_result big_res = { 0 }, *res;
	struct cisp_context_counters k;
	struct cisp_device *dev;
	struct cisp_context *blocker, *large, *small[2];
	struct cisp_fence *fb, *fl, **fs;
	struct cisp_image *in, *out, *want;
	unsigned points, small_points, n;
	uint64_t now;

	uninterrupted(&big, &big_want, &points);
	CHECK(points >= (unsigned)(LH / banded_exec.band_rows));
	/* Enough small jobs for every point of the large one, as many to run on top of them. */
	n = points + 2;
	in = calloc(2 * n, sizeof(*in));
	out = calloc(2 * n, sizeof(*out));
	want = calloc(2 * n, sizeof(*want));
	fs = calloc(2 * n, sizeof(*fs));
	res = calloc(2 * n, sizeof(*res));
	if (!in || !out || !want || !fs || !res)
		abort();
	for (unsigned i = 0; i < 2 * n; i++) {
		in[i] = raw_image(SW, SH);
		out[i] = rgb_image(SW, SH);
		want[i] = rgb_image(SW, SH);
		uninterrupted(&in[i], &want[i], &small_points);
	}
	CHECK(small_points >= (unsigned)(SH / banded_exec.band_rows));

	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	pthread_mutex_lock(&dev->lock);
	dev->preempt_always = true;
	pthread_mutex_unlock(&dev->lock);
	CHECK_EQ(cisp_fence_create(&r.gate), 0);
	CHECK_EQ(cisp_fence_create(&r.b_started), 0);
	blocker = rule_context(dev, "blocker", 0, &be, &r, blocker_process);
	large = isp_context(dev, "large", LW, LH, 4);
	small[0] = isp_context(dev, "small", SW, SH, n);
	small[1] = isp_context(dev, "nested", SW, SH, n);

	/* The blocker first (earliest deadline): the worker holds it until every job is queued. */
	now = cisp_device_clock_ns();
	fb = rule_submit(blocker, &blk_in, &blk_out, NULL, now, NULL);
	/* Then the large job before the small ones (deadlines): it starts first and is stopped at every point. */
	fl = rule_submit(large, &big, &big_out, NULL, now + 1000000000, &big_res);
	for (unsigned i = 0; i < 2 * n; i++)
		fs[i] = rule_submit(small[i % 2], &in[i], &out[i], NULL, now + 2000000000 + 1000000000 * (i % 2), &res[i]);
	cisp_fence_signal(r.gate, 0);

	CHECK_EQ(cisp_fence_wait(fl, 120000000000), 0);
	CHECK(same_rgb(&big_out, &big_want));
	cisp_context_counters(large, &k);
	CHECK_EQ((int)cisp_context_preemptions(large), (int)points);
	CHECK(k.busy_ns < big_res.end_ns - big_res.start_ns);
	for (unsigned i = 0; i < 2 * n; i++) {
		CHECK_EQ(cisp_fence_wait(fs[i], 120000000000), 0);
		if (!same_rgb(&out[i], &want[i]))
			test_fail(__FILE__, __LINE__, "small job %u: output differs from its uninterrupted run", i);
	}
	/* The first small job ran inside the large one; the small ones were stopped for the nested ones. */
	CHECK(big_res.start_ns < res[0].start_ns && res[0].end_ns < big_res.end_ns);
	CHECK(cisp_context_preemptions(small[0]) > 0);
	CHECK_EQ(cisp_fence_wait(fb, 60000000000), 0);

	cisp_device_destroy(dev);
	cisp_fence_unref(fb);
	cisp_fence_unref(fl);
	cisp_fence_unref(r.gate);
	cisp_fence_unref(r.b_started);
	for (unsigned i = 0; i < 2 * n; i++) {
		cisp_fence_unref(fs[i]);
		cisp_image_free(&in[i]);
		cisp_image_free(&out[i]);
		cisp_image_free(&want[i]);
	}
	free(in);
	free(out);
	free(want);
	free(fs);
	free(res);
	cisp_image_free(&big);
	cisp_image_free(&big_out);
	cisp_image_free(&big_want);
	cisp_image_free(&blk_in);
	cisp_image_free(&blk_out);
}
