/* SPDX-License-Identifier: MIT */
/* The list of stage descriptors (stage_list.h). */
#include "isp/stage.h"

const struct cisp_stage *const cisp_stages[CISP_STAGE_COUNT] = {
#define STAGE(name) &cisp_stage_##name,
#include "isp/stage_list.h"
#undef STAGE
};

bool stage_active(const struct cisp_stage *s, const struct stage_ctx *c)
{
	if (!(s->flags & STAGE_ALWAYS) && !(c->state->enabled & CISP_BLOCK_BIT(s->block)))
		return false;
	return !s->active || s->active(c);
}
