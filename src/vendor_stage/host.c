/* SPDX-License-Identifier: MIT */
/*
 * The vendor host: loading plugins and checking what they declare. A
 * trusted plugin is loaded here with dlopen(); a sandboxed one only ever in
 * a helper, which reports its declaration (sandbox_describe()). Either way
 * the declaration is checked field by field before the stage is accepted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/input_file.h>
#include <cisp/vendor.h>

#include "core/error_internal.h"
#include "vendor_stage/vendor_internal.h"
#include "vendor_stage/vendor_paths.h"

/* Most stages one host loads. */
#define MAX_STAGES 16

struct cisp_vendor_host {
	char *helper;
	struct vendor_stage *stage[MAX_STAGES];
	unsigned count;
	struct cisp_vendor_block_caps caps[MAX_STAGES * CISP_VENDOR_MAX_STAGE_BLOCKS];
	uint32_t num_caps;
};

const char *cisp_vendor_tap_name(unsigned tap)
{
	static const char *const names[CISP_VENDOR_TAP_COUNT] = { "bayer", "rgb", "yuv" };

	return tap < CISP_VENDOR_TAP_COUNT ? names[tap] : "unknown";
}

/* The helper program: configured, from the environment, or the installed one. */
static char *find_helper(const struct cisp_vendor_host_config *config)
{
	const char *env = secure_getenv("CISP_VENDOR_HELPER");

	if (config && config->helper_path)
		return strdup(config->helper_path);
	if (env && *env)
		return strdup(env);
	return strdup(CISP_VENDOR_HELPER_INSTALLED);
}

int cisp_vendor_host_create(struct cisp_vendor_host **out, const struct cisp_vendor_host_config *config)
{
	struct cisp_vendor_host *host = calloc(1, sizeof(*host));

	if (host)
		host->helper = find_helper(config);
	if (!host || !host->helper) {
		free(host);
		return cisp_error(-ENOMEM, "out of memory for a vendor host");
	}
	*out = host;
	return 0;
}

static void stage_free(struct vendor_stage *s)
{
	if (!s)
		return;
	if (s->handle)
		dlclose(s->handle);
	free(s->path);
	free(s);
}

void cisp_vendor_host_destroy(struct cisp_vendor_host *host)
{
	if (!host)
		return;
	for (unsigned i = 0; i < host->count; i++)
		stage_free(host->stage[i]);
	free(host->helper);
	free(host);
}

/* A name field: NUL-terminated inside its array, not empty, printable ASCII. */
static int check_name(const char *name, size_t size, const char *path, const char *field)
{
	size_t n = strnlen(name, size);

	if (n == size)
		return cisp_error(-EINVAL, "vendor plugin %s: %s is not NUL-terminated within %zu bytes", path, field, size);
	if (!n)
		return cisp_error(-EINVAL, "vendor plugin %s: %s is empty", path, field);
	for (size_t i = 0; i < n; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return cisp_error(-EINVAL, "vendor plugin %s: %s has a byte 0x%02x that is not printable ASCII",
					  path, field, (unsigned char)name[i]);
	return 0;
}

int vendor_check_decl(const struct helper_decl *d, const char *path)
{
	char field[48];
	int ret;

	if (d->abi_version != CISP_VENDOR_PLUGIN_ABI)
		return cisp_error(-EPROTONOSUPPORT, "vendor plugin %s: plugin ABI version %" PRIu32
				  " is not supported (this library implements version %d)",
				  path, d->abi_version, CISP_VENDOR_PLUGIN_ABI);
	if (!d->vendor_id)
		return cisp_error(-EINVAL, "vendor plugin %s: vendor_id 0 is not a vendor", path);
	if ((ret = check_name(d->name, sizeof(d->name), path, "name")) ||
	    (ret = check_name(d->vendor_name, sizeof(d->vendor_name), path, "vendor_name")))
		return ret;
	if (d->tap >= CISP_VENDOR_TAP_COUNT)
		return cisp_error(-EINVAL, "vendor plugin %s: tap %" PRIu32 " is not a tap point (0..%d)", path, d->tap,
				  CISP_VENDOR_TAP_COUNT - 1);
	if (d->num_blocks < 1 || d->num_blocks > CISP_VENDOR_MAX_STAGE_BLOCKS)
		return cisp_error(-EINVAL, "vendor plugin %s: num_blocks %" PRIu32 " is out of range 1..%d", path,
				  d->num_blocks, CISP_VENDOR_MAX_STAGE_BLOCKS);
	if (!d->has_process)
		return cisp_error(-EINVAL, "vendor plugin %s: process is NULL", path);
	for (uint32_t i = 0; i < d->num_blocks; i++) {
		const struct cisp_vendor_block_decl *b = &d->blocks[i];

		snprintf(field, sizeof(field), "blocks[%" PRIu32 "].name", i);
		if ((ret = check_name(b->name, sizeof(b->name), path, field)))
			return ret;
		if (!b->type)
			return cisp_error(-EINVAL, "vendor plugin %s: blocks[%" PRIu32 "].type is 0", path, i);
		if (b->reserved)
			return cisp_error(-EINVAL, "vendor plugin %s: blocks[%" PRIu32 "].reserved is %u, not 0", path, i,
					  b->reserved);
		if (!b->min_version || b->min_version > b->max_version)
			return cisp_error(-EINVAL, "vendor plugin %s: blocks[%" PRIu32 "] versions %u..%u are not a range "
					  "of versions from 1", path, i, b->min_version, b->max_version);
		if (b->max_payload > CISP_VENDOR_MAX_PAYLOAD)
			return cisp_error(-EINVAL, "vendor plugin %s: blocks[%" PRIu32 "].max_payload %" PRIu32
					  " is over %d", path, i, b->max_payload, CISP_VENDOR_MAX_PAYLOAD);
		for (uint32_t j = 0; j < i; j++)
			if (d->blocks[j].type == b->type)
				return cisp_error(-EINVAL, "vendor plugin %s: blocks[%" PRIu32 "] and blocks[%" PRIu32
						  "] both have type %u", path, j, i, b->type);
	}
	return 0;
}

/* dlopen() a trusted plugin here and read its declaration. */
static int load_trusted(struct vendor_stage *s)
{
	const struct cisp_vendor_plugin *p;

	s->handle = dlopen(s->path, RTLD_NOW | RTLD_LOCAL);
	if (!s->handle)
		return cisp_error(-ENOEXEC, "vendor plugin %s does not load: %s", s->path, dlerror());
	p = dlsym(s->handle, CISP_VENDOR_PLUGIN_SYMBOL);
	if (!p)
		return cisp_error(-ENOEXEC, "vendor plugin %s does not export %s", s->path, CISP_VENDOR_PLUGIN_SYMBOL);
	s->plugin = p;
	helper_decl_of(&s->decl, p);
	return 0;
}

int cisp_vendor_host_add(struct cisp_vendor_host *host, const struct cisp_vendor_stage_config *config)
{
	struct vendor_stage *s;
	char real[PATH_MAX];
	FILE *probe;
	int ret;

	if (!config || !config->path)
		return cisp_error(-EINVAL, "no vendor plugin path");
	if (host->count == MAX_STAGES)
		return cisp_error(-ENOSPC, "a vendor host loads at most %d stages", MAX_STAGES);
	if (!realpath(config->path, real))
		return cisp_error(-errno, "vendor plugin %s: %s", config->path, strerror(errno));
	/* A FIFO or a device named by mistake would block dlopen() and the helper: refused at once. */
	if ((ret = cisp_input_file_open(real, &probe, NULL)))
		return cisp_error_prefix(ret, "vendor plugin");
	fclose(probe);
	if (!config->trusted && access(host->helper, X_OK))
		return cisp_error(-ENOENT, "the vendor helper %s is missing (set CISP_VENDOR_HELPER, or mark the "
				  "plugin trusted)", host->helper);
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(real))) {
		free(s);
		return cisp_error(-ENOMEM, "out of memory for a vendor stage");
	}
	s->trusted = config->trusted;
	s->time_limit_ms = config->time_limit_ms ? config->time_limit_ms : CISP_VENDOR_DEFAULT_TIME_LIMIT_MS;
	s->helper = host->helper;
	ret = s->trusted ? load_trusted(s) : sandbox_describe(host->helper, s->path, s->time_limit_ms, &s->decl);
	if (!ret)
		ret = vendor_check_decl(&s->decl, s->path);
	for (unsigned i = 0; !ret && i < s->decl.num_blocks; i++)
		for (uint32_t c = 0; !ret && c < host->num_caps; c++)
			if (host->caps[c].vendor_id == s->decl.vendor_id && host->caps[c].type == s->decl.blocks[i].type)
				ret = cisp_error(-EEXIST, "vendor plugin %s: vendor 0x%08" PRIx32 " block %u is already "
						 "implemented by a loaded stage", s->path, s->decl.vendor_id,
						 s->decl.blocks[i].type);
	if (ret) {
		stage_free(s);
		return ret;
	}
	for (unsigned i = 0; i < s->decl.num_blocks; i++) {
		const struct cisp_vendor_block_decl *b = &s->decl.blocks[i];

		host->caps[host->num_caps++] = (struct cisp_vendor_block_caps){
			.vendor_id = s->decl.vendor_id,
			.type = b->type,
			.min_version = b->min_version,
			.max_version = b->max_version,
			.max_payload = b->max_payload,
		};
	}
	host->stage[host->count++] = s;
	return 0;
}

unsigned cisp_vendor_host_stages(const struct cisp_vendor_host *host)
{
	return host->count;
}

int cisp_vendor_host_stage(const struct cisp_vendor_host *host, unsigned index, struct cisp_vendor_stage_info *info)
{
	const struct vendor_stage *s;

	if (index >= host->count)
		return cisp_error(-EINVAL, "vendor stage %u does not exist (%u loaded)", index, host->count);
	s = host->stage[index];
	*info = (struct cisp_vendor_stage_info){
		.name = s->decl.name,
		.vendor_name = s->decl.vendor_name,
		.vendor_id = s->decl.vendor_id,
		.tap = s->decl.tap,
		.trusted = s->trusted,
		.time_limit_ms = s->time_limit_ms,
		.path = s->path,
		.num_blocks = s->decl.num_blocks,
		.blocks = s->decl.blocks,
	};
	return 0;
}

const struct cisp_vendor_block_caps *cisp_vendor_host_caps(const struct cisp_vendor_host *host, uint32_t *count)
{
	*count = host->num_caps;
	return host->caps;
}

unsigned vendor_host_count(const struct cisp_vendor_host *host)
{
	return host->count;
}

const struct vendor_stage *vendor_host_at(const struct cisp_vendor_host *host, unsigned index)
{
	return host->stage[index];
}
