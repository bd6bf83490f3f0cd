/* SPDX-License-Identifier: MIT */
/*
 * The library's side of a sandboxed stage: the memfds a helper shares, one
 * job's round trip, and what to do when the helper misbehaves. The helper
 * process itself (starting, checking, talking to, ending it) is
 * helper_process.c.
 *
 * Nothing the helper writes is trusted: the library never reads back what
 * it wrote into shared memory itself (the geometry and the payload offsets
 * are kept here, and written out again before every helper starts), an
 * answer counts only when it answers the request just sent, by its
 * deadline, its message is copied out and cut to printable ASCII, the
 * bytes of the output memfd before the image must come back unchanged, and
 * the shared sizes are fixed by seals so the helper cannot shrink a buffer
 * under the library's mapping. A job that fails for any reason but the
 * plugin's own error status kills the helper and starts a new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/log.h>

#include "core/error_internal.h"
#include "vendor_stage/helper_process.h"
#include "vendor_stage/vendor_internal.h"

/* Loading a plugin and creating its instance may take this long beyond the job limit. */
#define STARTUP_MS 5000u
/* What the bytes of the output memfd before the image must still hold after a job. */
#define CANARY 0xa5

struct sandbox {
	const struct vendor_stage *stage;
	struct cisp_vendor_stream stream;
	uint32_t payload_offset[CISP_VENDOR_MAX_STAGE_BLOCKS];
	unsigned num_planes;
	size_t image_bytes, memfd_bytes, shared_bytes;
	int shared_fd, in_fd, out_fd;
	struct helper_shared *shared;
	uint8_t *in_map, *out_map;
	struct helper_process proc;
	unsigned restarts;
};

/* A sealed memfd of @size bytes mapped read-write here; @extra_seals on top of a fixed size. */
static int make_memfd(const char *name, size_t size, unsigned extra_seals, int *fd, void **map)
{
	*fd = helper_high_fd(memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (*fd < 0 || ftruncate(*fd, (off_t)size))
		return cisp_error(-errno, "cannot make a %zu-byte memfd for a vendor stage: %s", size, strerror(errno));
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return cisp_error(-errno, "cannot map a %zu-byte memfd: %s", size, strerror(errno));
	}
	if (fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | extra_seals | F_SEAL_SEAL))
		return cisp_error(-errno, "cannot seal a memfd: %s", strerror(errno));
	return 0;
}

int sandbox_describe(const char *helper, const char *plugin, uint32_t time_limit_ms, struct helper_decl *decl)
{
	struct helper_process proc = HELPER_PROCESS_NONE;
	struct helper_shared *shared = NULL;
	uint64_t limit = (uint64_t)STARTUP_MS + time_limit_ms, deadline = helper_now_ms() + limit;
	int shared_fd = -1, ret;
	int32_t status;
	char msg[256];

	if ((ret = make_memfd("cisp-vendor-describe", HELPER_PAYLOAD_START, 0, &shared_fd, (void **)&shared)))
		goto out;
	memset(shared, 0, HELPER_PAYLOAD_START);
	shared->protocol = HELPER_PROTOCOL;
	ret = helper_start(&proc, helper, HELPER_MODE_DESCRIBE, plugin, &shared_fd, 1, deadline, shared, msg, sizeof(msg));
	if (!ret && (ret = helper_request(&proc, HELPER_MSG_LOAD, 0, deadline, &status, msg, sizeof(msg))))
		ret = helper_end(&proc, ret, shared, limit, msg, sizeof(msg));
	if (ret) {
		ret = cisp_error(ret, "vendor plugin %s %s", plugin, msg);
		goto out;
	}
	memcpy(decl, &shared->decl, sizeof(*decl));
	helper_stop(&proc);
out:
	if (shared)
		munmap(shared, HELPER_PAYLOAD_START);
	if (shared_fd >= 0)
		close(shared_fd);
	return ret;
}

/* What the helper reads from the control memfd to set itself up, from the library's own copies. */
static void write_setup(struct sandbox *sb)
{
	struct helper_shared *h = sb->shared;

	memset(h, 0, sizeof(*h));
	h->protocol = HELPER_PROTOCOL;
	h->num_planes = sb->num_planes;
	h->stream = sb->stream;
	h->image_bytes = sb->image_bytes;
	h->memfd_bytes = sb->memfd_bytes;
	memcpy(h->payload_offset, sb->payload_offset, sizeof(h->payload_offset));
	memset(sb->out_map, CANARY, sb->memfd_bytes - sb->image_bytes);
}

/* Start a helper and wait for its instance; 0, or an error with the reason in @msg. */
static int start(struct sandbox *sb, char *msg, size_t size)
{
	const int fds[3] = { sb->shared_fd, sb->in_fd, sb->out_fd };
	uint64_t limit = (uint64_t)STARTUP_MS + sb->stage->time_limit_ms, deadline = helper_now_ms() + limit;
	int32_t status;
	int ret;

	/* A previous helper may have scribbled over all of it. */
	write_setup(sb);
	ret = helper_start(&sb->proc, sb->stage->helper, HELPER_MODE_RUN, sb->stage->path, fds, 3, deadline, sb->shared,
			   msg, size);
	if (ret)
		return ret;
	if ((ret = helper_request(&sb->proc, HELPER_MSG_LOAD, 0, deadline, &status, msg, size)))
		return helper_end(&sb->proc, ret, sb->shared, limit, msg, size);
	if (status) {
		char text[CISP_VENDOR_MESSAGE_MAX], raw[CISP_VENDOR_MESSAGE_MAX];

		memcpy(raw, sb->shared->message, sizeof(raw));
		raw[sizeof(raw) - 1] = '\0';
		helper_clean_message(text, sizeof(text), raw);
		snprintf(msg, size, "create() failed: %s (error %d)", text, status);
		helper_stop(&sb->proc);
		return vendor_status_error(status);
	}
	return 0;
}

int sandbox_create(struct sandbox **out, const struct vendor_stage *stage, const struct cisp_vendor_stream *stream,
		   unsigned num_planes)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off = HELPER_PAYLOAD_START;
	char msg[256];
	int ret;

	if (!sb)
		return cisp_error(-ENOMEM, "out of memory for a vendor stage");
	sb->stage = stage;
	sb->num_planes = num_planes;
	sb->proc = HELPER_PROCESS_NONE;
	sb->shared_fd = sb->in_fd = sb->out_fd = -1;
	sb->image_bytes = (size_t)stream->width * stream->height * num_planes * sizeof(uint16_t);
	sb->memfd_bytes = (sb->image_bytes + page - 1) / page * page;
	sb->stream = *stream;
	for (unsigned i = 0; i < stage->decl.num_blocks; i++) {
		sb->payload_offset[i] = (uint32_t)off;
		off += (stage->decl.blocks[i].max_payload + 7) & ~(size_t)7;
	}
	sb->shared_bytes = off;

	ret = make_memfd("cisp-vendor-control", sb->shared_bytes, 0, &sb->shared_fd, (void **)&sb->shared);
	if (!ret)
		ret = make_memfd("cisp-vendor-input", sb->memfd_bytes, F_SEAL_FUTURE_WRITE, &sb->in_fd, (void **)&sb->in_map);
	if (!ret)
		ret = make_memfd("cisp-vendor-output", sb->memfd_bytes, 0, &sb->out_fd, (void **)&sb->out_map);
	if (ret) {
		sandbox_destroy(sb);
		return ret;
	}
	if ((ret = start(sb, msg, sizeof(msg)))) {
		sandbox_destroy(sb);
		return cisp_error(ret, "vendor stage %s: %s", stage->decl.name, msg);
	}
	*out = sb;
	return 0;
}

void sandbox_destroy(struct sandbox *sb)
{
	if (!sb)
		return;
	helper_stop(&sb->proc);
	if (sb->shared)
		munmap(sb->shared, sb->shared_bytes);
	if (sb->in_map)
		munmap(sb->in_map, sb->memfd_bytes);
	if (sb->out_map)
		munmap(sb->out_map, sb->memfd_bytes);
	if (sb->shared_fd >= 0)
		close(sb->shared_fd);
	if (sb->in_fd >= 0)
		close(sb->in_fd);
	if (sb->out_fd >= 0)
		close(sb->out_fd);
	free(sb);
}

unsigned sandbox_restarts(const struct sandbox *sb)
{
	return sb->restarts;
}

int sandbox_pid(const struct sandbox *sb)
{
	return sb->proc.pid;
}

static void copy_planes_in(struct sandbox *sb, const struct plane16 *planes)
{
	uint16_t *dst = (uint16_t *)(sb->in_map + sb->memfd_bytes - sb->image_bytes);
	const struct cisp_vendor_stream *s = &sb->stream;

	for (unsigned c = 0; c < sb->num_planes; c++)
		for (uint32_t y = 0; y < s->height; y++, dst += s->width)
			memcpy(dst, plane_row(&planes[c], (int)y), s->width * sizeof(uint16_t));
}

static void copy_planes_out(struct sandbox *sb, const struct plane16 *planes)
{
	const uint16_t *src = (const uint16_t *)(sb->out_map + sb->memfd_bytes - sb->image_bytes);
	const struct cisp_vendor_stream *s = &sb->stream;

	for (unsigned c = 0; c < sb->num_planes; c++)
		for (uint32_t y = 0; y < s->height; y++, src += s->width)
			memcpy(plane_row(&planes[c], (int)y), src, s->width * sizeof(uint16_t));
}

/* Bytes before the output image that no longer hold the canary (and restore them). */
static size_t canary_damage(struct sandbox *sb)
{
	size_t n = sb->memfd_bytes - sb->image_bytes, bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += sb->out_map[i] != CANARY;
	if (bad)
		memset(sb->out_map, CANARY, n);
	return bad;
}

/* One job with a running helper; *restart says whether it must be replaced. */
static int round_trip(struct sandbox *sb, const struct plane16 *planes, const struct cisp_vendor_block_value *values,
		      uint64_t sequence, char *msg, size_t size, bool *restart)
{
	char text[CISP_VENDOR_MESSAGE_MAX];
	size_t damage;
	int32_t status;
	int ret;

	*restart = true;
	if ((ret = helper_idle(&sb->proc, msg, size)))
		return helper_end(&sb->proc, ret, sb->shared, 0, msg, size);
	copy_planes_in(sb, planes);
	for (unsigned i = 0; i < sb->stage->decl.num_blocks; i++) {
		sb->shared->block[i] = (struct helper_block){ values[i].version, (uint16_t)values[i].enabled,
							      values[i].size };
		memcpy((uint8_t *)sb->shared + sb->payload_offset[i], values[i].payload, values[i].size);
	}
	ret = helper_request(&sb->proc, HELPER_MSG_RUN, sequence, helper_now_ms() + sb->stage->time_limit_ms, &status,
			     msg, size);
	if (ret)
		return helper_end(&sb->proc, ret, sb->shared, sb->stage->time_limit_ms, msg, size);
	if ((damage = canary_damage(sb))) {
		snprintf(msg, size, "wrote %zu bytes before the start of its output buffer", damage);
		return -EFAULT;
	}
	*restart = false;
	if (status) {
		memcpy(text, sb->shared->message, sizeof(text)); /* a copy: the helper could still write the original */
		text[sizeof(text) - 1] = '\0';
		helper_clean_message(text, sizeof(text), text);
		snprintf(msg, size, "failed: %s (error %d)", text[0] ? text : "no message", status);
		return vendor_status_error(status);
	}
	copy_planes_out(sb, planes);
	return 0;
}

int sandbox_run(struct sandbox *sb, const struct plane16 *planes, const struct cisp_vendor_block_value *values,
		uint64_t sequence)
{
	char msg[256], again[256];
	bool restart = false;
	int ret;

	/* A helper can end between jobs through no fault of its own: it dies with the thread that started it. */
	if (sb->proc.pid >= 0 && helper_exited(&sb->proc)) {
		helper_stop(&sb->proc);
		sb->restarts++;
	}
	if (sb->proc.pid < 0 && (ret = start(sb, msg, sizeof(msg)))) {
		sb->restarts++;
		return cisp_error(ret, "%s (the helper could not be restarted)", msg);
	}
	ret = round_trip(sb, planes, values, sequence, msg, sizeof(msg), &restart);
	if (!restart)
		return ret ? cisp_error(ret, "%s", msg) : 0;
	helper_stop(&sb->proc);
	sb->restarts++;
	cisp_log(CISP_LOG_WARN, "vendor stage %s: job %" PRIu64 " %s; restarting its helper", sb->stage->decl.name,
		 sequence, msg);
	if (start(sb, again, sizeof(again)))
		return cisp_error(ret, "%s; restarting the helper failed: %s", msg, again);
	return cisp_error(ret, "%s; the helper was restarted", msg);
}
