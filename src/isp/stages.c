/* SPDX-License-Identifier: MIT */
/* The list of stage descriptors (stage_list.h) and what the stages share. */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "isp/stage.h"

const struct cisp_stage *const cisp_stages[CISP_STAGE_COUNT] = {
#define STAGE(name) &cisp_stage_##name,
#include "isp/stage_list.h"
#undef STAGE
};

const void *stage_coeffs(const struct stage_env *env, const struct cisp_stage *stage)
{
	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++)
		if (cisp_stages[i] == stage)
			return env->coeffs[i];
	return NULL;
}

int stage_alloc(void **coeffs, size_t size, const char *what)
{
	if (!*coeffs && !(*coeffs = calloc(1, size)))
		return cisp_error(-ENOMEM, "out of memory for the %s tables", what);
	return 0;
}

bool stage_active(const struct cisp_stage *s, const struct stage_ctx *c)
{
	if (!(s->flags & STAGE_ALWAYS) && !(c->state->enabled & CISP_BLOCK_BIT(s->block)))
		return false;
	return !s->active || s->active(c);
}
