/* SPDX-License-Identifier: MIT */
/*
 * Vendor stages inside the library: what the ISP pipeline calls (a
 * struct vendor_instance per ISP instance), and what host.c, instance.c and
 * sandbox.c share.
 */
#ifndef CISP_VENDOR_INTERNAL_H
#define CISP_VENDOR_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/params_state.h>
#include <cisp/vendor.h>

#include "core/plane.h"
#include "vendor_stage/protocol.h"

/* ---- for the pipeline ---- */

struct vendor_instance;

/*
 * Make the stages of @host for a @width x @height stream of CFA order @cfa:
 * sandboxed ones start their helper now. @host may be NULL (no stages:
 * *vi = NULL, and every function below accepts NULL).
 */
int vendor_instance_create(struct vendor_instance **vi, struct cisp_vendor_host *host, uint32_t width,
			   uint32_t height, unsigned cfa);
void vendor_instance_destroy(struct vendor_instance *vi);

/* Whether a stage at @tap would run on the next frame (one of its blocks is enabled). */
bool vendor_instance_active_at(const struct vendor_instance *vi, enum cisp_vendor_tap tap);

/* Add the host's vendor blocks to @limits (CISP_BLOCK_VENDOR and the list of caps). */
void vendor_instance_limits(const struct vendor_instance *vi, struct cisp_params_limits *limits);

/* Store the vendor blocks of a params buffer that passed validation with those limits. */
void vendor_instance_apply(struct vendor_instance *vi, const void *buf, size_t size);

/*
 * Run the stages at @tap (those with an enabled block) on @planes, in
 * place: @n planes (1 at the Bayer tap, 3 otherwise) of the stream's size.
 * Return: 0, or the failure of a stage with a message naming it.
 */
int vendor_instance_run(struct vendor_instance *vi, enum cisp_vendor_tap tap, const struct plane16 *planes,
			unsigned n);

/* For tests: stage @index's helper process (-1: none, or trusted) and its restarts so far. */
int vendor_instance_helper_pid(const struct vendor_instance *vi, unsigned index);
unsigned vendor_instance_restarts(const struct vendor_instance *vi, unsigned index);

/* ---- shared by host.c, instance.c and sandbox.c ---- */

/* A loaded stage. */
struct vendor_stage {
	struct helper_decl decl;
	const struct cisp_vendor_plugin *plugin; /* trusted: the plugin's own structure; NULL when sandboxed */
	void *handle;                            /* trusted: dlopen() handle */
	bool trusted;
	uint32_t time_limit_ms;
	char *path;
	const char *helper; /* the host's helper program */
};

/* The stages of a host, in load order. */
unsigned vendor_host_count(const struct cisp_vendor_host *host);
const struct vendor_stage *vendor_host_at(const struct cisp_vendor_host *host, unsigned index);

/* A plugin's status as an error code: itself when it is a negative errno, else -EPROTO. */
static inline int vendor_status_error(int status)
{
	return status < 0 && status > -4096 ? status : -EPROTO;
}

/* Check a declaration (from a trusted plugin or a helper's report); @path for messages. */
int vendor_check_decl(const struct helper_decl *d, const char *path);

/* A sandboxed stage's helper process and its buffers. */
struct sandbox;

/* Load @plugin in a helper and copy its declaration into @decl (not yet checked). */
int sandbox_describe(const char *helper, const char *plugin, uint32_t time_limit_ms, struct helper_decl *decl);

/* Start a helper running @stage for @stream with @num_planes planes per image. */
int sandbox_create(struct sandbox **sb, const struct vendor_stage *stage, const struct cisp_vendor_stream *stream,
		   unsigned num_planes);
void sandbox_destroy(struct sandbox *sb);

/*
 * Run one job: copy @planes in, send the block values (payloads at
 * values[i].payload), wait for the reply within the stage's time limit,
 * check it, copy the output back into @planes. A helper that failed is
 * restarted before this returns.
 */
int sandbox_run(struct sandbox *sb, const struct plane16 *planes, const struct cisp_vendor_block_value *values,
		uint64_t sequence);

/* Helpers restarted so far, and the running one's process id (-1: none). */
unsigned sandbox_restarts(const struct sandbox *sb);
int sandbox_pid(const struct sandbox *sb);

#endif
