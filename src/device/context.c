/* SPDX-License-Identifier: MIT */
/*
 * Contexts: one stream's persistent state on a device. The backend instance
 * (for the software ISP, a struct cisp_isp) holds the formats and the
 * parameter state; the context adds the scheduling attributes, the queue of
 * jobs and the counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "device/device_internal.h"

/* Waiting jobs allowed per context when the configuration says 0. */
#define DEFAULT_QUEUE_LIMIT 4

static int check_config(const struct cisp_device *dev, const struct cisp_context_config *c, const char *name)
{
	const struct cisp_device_backend *b = c->backend;

	if (c->overload > CISP_OVERLOAD_SKIP_LATE)
		return cisp_error(-EINVAL,
				  "context '%s': overload policy %u is not run-all (0), drop-oldest (1) or skip-late (2)",
				  name, c->overload);
	if (c->queue_limit > dev->num_slots)
		return cisp_error(-EINVAL, "context '%s': queue_limit %u is over the device's %u job slots", name,
				  c->queue_limit, dev->num_slots);
	if (b && (!b->create || !b->destroy || !b->set_params || !b->process || !b->name))
		return cisp_error(-EINVAL, "context '%s': backend %s lacks a name, create, destroy, set_params or process",
				  name, b->name ? b->name : "(unnamed)");
	return 0;
}

int cisp_context_create(struct cisp_context **out, struct cisp_device *dev, const struct cisp_context_config *config)
{
	struct cisp_context *ctx;
	char name[CISP_CONTEXT_NAME_MAX];
	int ret;

	if (!dev || !config)
		return cisp_error(-EINVAL, "cisp_context_create: %s is NULL", dev ? "the configuration" : "the device");
	if (config->name)
		snprintf(name, sizeof(name), "%s", config->name);
	else
		snprintf(name, sizeof(name), "%ux%u", config->isp.width, config->isp.height);
	if ((ret = check_config(dev, config, name)))
		return ret;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return cisp_error(-ENOMEM, "out of memory for context '%s'", name);
	ctx->dev = dev;
	snprintf(ctx->name, sizeof(ctx->name), "%s", name);
	ctx->config = *config;
	ctx->config.name = ctx->name;
	if (!ctx->config.queue_limit)
		ctx->config.queue_limit = DEFAULT_QUEUE_LIMIT;
	ctx->backend = config->backend ? config->backend : dev->default_backend;
	ctx->config.backend = ctx->backend;
	ret = ctx->backend->create(&ctx->instance, &config->isp, ctx->backend->opaque);
	if (ret) {
		free(ctx);
		return cisp_error_prefix(ret, "context '%s'", name);
	}

	pthread_mutex_lock(&dev->lock);
	ctx->next = dev->contexts;
	if (dev->contexts)
		dev->contexts->prev = ctx;
	dev->contexts = ctx;
	pthread_mutex_unlock(&dev->lock);
	*out = ctx;
	return 0;
}

void cisp_context_destroy(struct cisp_context *ctx)
{
	struct cisp_device *dev;

	if (!ctx)
		return;
	dev = ctx->dev;
	pthread_mutex_lock(&dev->lock);
	ctx->dying = true; /* from now on freed jobs wake us */
	pthread_mutex_unlock(&dev->lock);
	cisp_context_cancel_all(ctx);

	pthread_mutex_lock(&dev->lock);
	/* The state dies with the context: carriers need not apply their params any more. */
	for (struct job *job = ctx->head, *next; job; job = next) {
		next = job->next;
		if (job->params_allocated)
			free(job->params);
		job->params_allocated = false;
		job->params_size = 0;
		if (!job->pending)
			job_free(job);
	}
	/* What is left: the running job, and jobs whose in-fence callbacks are under way. */
	while (ctx->head || ctx->running)
		pthread_cond_wait(&dev->drained, &dev->lock);
	if (ctx->prev)
		ctx->prev->next = ctx->next;
	else
		dev->contexts = ctx->next;
	if (ctx->next)
		ctx->next->prev = ctx->prev;
	pthread_mutex_unlock(&dev->lock);

	ctx->backend->destroy(ctx->instance);
	free(ctx);
}

int cisp_context_limits(struct cisp_context *ctx, struct cisp_params_limits *limits)
{
	memset(limits, 0, sizeof(*limits));
	if (!ctx->backend->limits)
		return cisp_error(-ENOTSUP, "context %s: backend %s does not report what it accepts", ctx->name,
				  ctx->backend->name);
	/* Fixed when the instance was made: no lock needed against the worker. */
	ctx->backend->limits(ctx->instance, limits);
	return 0;
}
