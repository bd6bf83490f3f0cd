// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The worker pool of include/cisp/pool.h in the module: the virtual ISP is
 * one pipe, so a frame's bands run one after the other on the job's worker,
 * which gives the scheduler a chance to run something else between bands.
 */
#include <linux/errno.h>
#include <linux/sched.h>

#include <cisp/pool.h>

int cisp_pool_create(struct cisp_pool **pool, unsigned int threads)
{
	*pool = NULL;
	return -EOPNOTSUPP;
}

unsigned int cisp_pool_threads(const struct cisp_pool *pool)
{
	return 1;
}

void cisp_pool_run(struct cisp_pool *pool, unsigned int count, cisp_task_fn fn, void *opaque)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		fn(opaque, i, 0);
		cond_resched();
	}
}

void cisp_pool_destroy(struct cisp_pool *pool)
{
}
