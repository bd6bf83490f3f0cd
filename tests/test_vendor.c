/* SPDX-License-Identifier: MIT */
/*
 * Vendor stages (include/cisp/vendor.h, src/vendor_stage): loading and declaration
 * checks, block state, every tap point trusted and sandboxed, the example
 * plugin through the whole pipeline, and every hostile test plugin
 * (tests/plugins/hostile.c) contained: the job fails with its reason, the
 * helper is restarted, the next job and other instances carry on. The
 * helper's confinement and its life are checked from outside, as
 * docs/security.md lists.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/vendor.h>

#include "isp/demosaic.h"
#include "isp/pipeline_internal.h"
#include "test.h"
#include "vendor_stage/vendor_internal.h"

#define W 32
#define H 16
#define PROBE_VENDOR(tap) (0xffff0100u + (tap))
#define HOSTILE_VENDOR(mode) (0xffff0200u + (mode))
#define ACME_VENDOR 0x454d4341u

static const char *plugin(const char *name)
{
	static char path[8][512];
	static unsigned next;
	char *p = path[next++ % 8];

	if (!strcmp(name, "acme_effects"))
		snprintf(p, sizeof(path[0]), "%s/plugins/acme_effects.so", CISP_BUILD_DIR);
	else
		snprintf(p, sizeof(path[0]), "%s/tests/plugins/%s.so", CISP_BUILD_DIR, name);
	return p;
}

static struct cisp_vendor_host *new_host(void)
{
	struct cisp_vendor_host_config c = { CISP_BUILD_DIR "/src/vendor_stage/cisp-vendor-helper" };
	struct cisp_vendor_host *host = NULL;

	CHECK_EQ(cisp_vendor_host_create(&host, &c), 0);
	return host;
}

static int add(struct cisp_vendor_host *host, const char *name, bool trusted, uint32_t limit_ms)
{
	struct cisp_vendor_stage_config c = { plugin(name), trusted, limit_ms };

	return cisp_vendor_host_add(host, &c);
}

/* ---- params buffers with vendor blocks ---- */

struct pbuf {
	uint64_t align;
	uint8_t data[8192];
	size_t size;
};

static void pbuf_init(struct pbuf *b)
{
	struct cisp_params_header h = { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, 16, 0 };

	memset(b, 0, sizeof(*b));
	memcpy(b->data, &h, sizeof(h));
	b->size = sizeof(h);
}

static void pbuf_vendor(struct pbuf *b, uint32_t vendor_id, uint16_t type, uint16_t version, uint16_t flags,
			const void *payload, uint32_t n)
{
	uint32_t size = (24 + n + 7) & ~7u;
	struct {
		struct cisp_block_header header;
		uint32_t vendor_id;
		uint16_t type, version;
		uint32_t payload_size, reserved;
	} v = { { CISP_BLOCK_VENDOR, flags, size }, vendor_id, type, version, n, 0 };

	memset(b->data + b->size, 0, size);
	memcpy(b->data + b->size, &v, sizeof(v));
	if (n)
		memcpy(b->data + b->size + sizeof(v), payload, n);
	b->size += size;
	((struct cisp_params_header *)b->data)->total_size = (uint32_t)b->size;
}

/* Validate @b against the instance's limits and apply it; returns the validation result. */
static int apply(struct vendor_instance *vi, const struct pbuf *b)
{
	struct cisp_params_limits lim = { W, H, ~0u, 1 };
	int ret;

	vendor_instance_limits(vi, &lim);
	if ((ret = cisp_params_validate(b->data, b->size, &lim)))
		return ret;
	vendor_instance_apply(vi, b->data, b->size);
	return 0;
}

/* One vendor block, enabled, with a one-byte or two-byte payload. */
static int set_byte(struct vendor_instance *vi, uint32_t vendor_id, uint8_t value)
{
	struct pbuf b;

	pbuf_init(&b);
	pbuf_vendor(&b, vendor_id, 1, 1, CISP_BLOCK_FL_ENABLE, &value, 1);
	return apply(vi, &b);
}

static int set_add(struct vendor_instance *vi, uint32_t vendor_id, uint16_t version, uint16_t add, uint16_t refuse)
{
	uint16_t payload[2] = { add, refuse };
	struct pbuf b;

	pbuf_init(&b);
	pbuf_vendor(&b, vendor_id, 1, version, CISP_BLOCK_FL_ENABLE, payload, version == 2 ? 4 : 2);
	return apply(vi, &b);
}

/* ---- planes ---- */

struct frame3 {
	uint16_t data[3][W * H];
	struct plane16 p[3];
};

static void frame_fill(struct frame3 *f, uint32_t seed)
{
	for (int c = 0; c < 3; c++) {
		for (int i = 0; i < W * H; i++)
			f->data[c][i] = (uint16_t)((i * 2654435761u + seed * 40503u + (uint32_t)c * 7919u) >> 8);
		f->data[c][0] = 65535; /* saturates with any add */
		f->p[c] = (struct plane16){ f->data[c], W, 0, W, H };
	}
}

/* Every sample of @out is min(in + add * (plane + 1), 65535). */
static bool probe_answer(const struct frame3 *in, const struct frame3 *out, unsigned planes, unsigned add)
{
	for (unsigned c = 0; c < planes; c++)
		for (int i = 0; i < W * H; i++) {
			unsigned v = in->data[c][i] + add * (c + 1);

			if (out->data[c][i] != (v > 65535 ? 65535 : v))
				return false;
		}
	return true;
}

/* ---- loading and declarations ---- */

TEST(vendor_host_loads_and_describes)
{
	struct cisp_vendor_host *host = new_host();
	struct cisp_vendor_stage_info info;
	const struct cisp_vendor_block_caps *caps;
	uint32_t n;

	CHECK_EQ(add(host, "acme_effects", false, 0), 0);
	CHECK_EQ(add(host, "probe_bayer", true, 250), 0);
	CHECK_EQ(cisp_vendor_host_stages(host), 2);
	CHECK_EQ(cisp_vendor_host_stage(host, 0, &info), 0);
	CHECK(!strcmp(info.name, "acme-colour-effects"));
	CHECK(!strcmp(info.vendor_name, "ACME Imaging (example)"));
	CHECK_EQ(info.vendor_id, ACME_VENDOR);
	CHECK_EQ(info.tap, CISP_VENDOR_TAP_RGB);
	CHECK(!info.trusted);
	CHECK_EQ(info.time_limit_ms, CISP_VENDOR_DEFAULT_TIME_LIMIT_MS);
	CHECK(strstr(info.path, "/plugins/acme_effects.so") != NULL && info.path[0] == '/');
	CHECK_EQ(info.num_blocks, 1);
	CHECK_EQ(info.blocks[0].type, 1);
	CHECK_EQ(info.blocks[0].max_payload, 8);
	CHECK(!strcmp(info.blocks[0].name, "effect"));
	CHECK_EQ(cisp_vendor_host_stage(host, 1, &info), 0);
	CHECK(info.trusted);
	CHECK_EQ(info.time_limit_ms, 250);
	CHECK_EQ(info.tap, CISP_VENDOR_TAP_BAYER);
	CHECK_ERR(cisp_vendor_host_stage(host, 2, &info), -EINVAL, "vendor stage 2 does not exist (2 loaded)");

	caps = cisp_vendor_host_caps(host, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(caps[0].vendor_id, ACME_VENDOR);
	CHECK_EQ(caps[0].type, 1);
	CHECK_EQ(caps[0].min_version, 1);
	CHECK_EQ(caps[0].max_version, 1);
	CHECK_EQ(caps[0].max_payload, 8);
	CHECK_EQ(caps[1].vendor_id, PROBE_VENDOR(CISP_VENDOR_TAP_BAYER));
	CHECK_EQ(caps[1].max_version, 2);
	CHECK_EQ(caps[1].max_payload, 64);

	/* The same blocks twice, sandboxed or not. */
	CHECK_ERR(add(host, "acme_effects", true, 0), -EEXIST, "vendor 0x454d4341 block 1 is already implemented");
	CHECK_ERR(add(host, "probe_bayer", false, 0), -EEXIST, "is already implemented by a loaded stage");
	CHECK_EQ(cisp_vendor_host_stages(host), 2);
	CHECK(!strcmp(cisp_vendor_tap_name(CISP_VENDOR_TAP_RGB), "rgb"));
	CHECK(!strcmp(cisp_vendor_tap_name(7), "unknown"));
	cisp_vendor_host_destroy(host);
}

/* A file of text where a shared object should be, in a fresh folder anyone can read; the path goes to @path. */
static void write_not_elf(char *dir, size_t dir_size, char *path, size_t size)
{
	FILE *f;

	snprintf(dir, dir_size, "%s/cisp-vendor-XXXXXX", P_tmpdir);
	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(chmod(dir, 0755), 0);
	snprintf(path, size, "%s/not-elf.so", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	for (int i = 0; f && i < 20; i++)
		fputs("not a shared object\n", f);
	if (f)
		fclose(f);
}

TEST(vendor_host_refuses_what_does_not_load)
{
	struct cisp_vendor_host *host = new_host(), *nohelper = NULL;
	struct cisp_vendor_host_config bad = { "/nonexistent/cisp-vendor-helper" };
	char dir[256], text[512];

	CHECK_ERR(add(host, "no_such_plugin", false, 0), -ENOENT, "no_such_plugin.so: No such file or directory");
	CHECK_ERR(add(host, "empty", false, 0), -ENOEXEC, "does not export cisp_vendor_plugin");
	CHECK_ERR(add(host, "empty", true, 0), -ENOEXEC, "does not export cisp_vendor_plugin");
	write_not_elf(dir, sizeof(dir), text, sizeof(text));
	{
		struct cisp_vendor_stage_config c = { text, false, 0 };

		CHECK_ERR(cisp_vendor_host_add(host, &c), -ENOEXEC, "could not be set up");
		CHECK(strstr(cisp_last_error(), "invalid ELF header") != NULL);
		/* Started by root, the helper runs as nobody: a plugin only root can read does not load, and says why. */
		if (geteuid() == 0) {
			CHECK_EQ(chmod(dir, 0700), 0);
			CHECK_ERR(cisp_vendor_host_add(host, &c), -ENOEXEC, "not-elf.so: Permission denied (the helper runs "
									     "as user 65534)");
		}
	}
	unlink(text);
	rmdir(dir);
	/* Load-time code runs under the helper's one filter: a socket in a constructor is refused. */
	CHECK_ERR(add(host, "hostile_constructor", false, 0), -EPERM, "made a forbidden system call: socket");
	/* So is a seccomp filter of the plugin's own: seccomp() is not on the list. */
	CHECK_ERR(add(host, "hostile_seccomp", false, 0), -EPERM, "hostile_seccomp.so made a forbidden system call: "
								  "seccomp");
	CHECK_EQ(cisp_vendor_host_stages(host), 0);

	CHECK_EQ(cisp_vendor_host_create(&nohelper, &bad), 0);
	CHECK_ERR(add(nohelper, "probe_rgb", false, 0), -ENOENT, "the vendor helper /nonexistent/cisp-vendor-helper is missing");
	CHECK_EQ(add(nohelper, "probe_rgb", true, 0), 0); /* trusted plugins need no helper */
	cisp_vendor_host_destroy(nohelper);
	/* A helper that cannot be executed (a folder): the child's execve() error comes back. */
	bad.helper_path = "/";
	CHECK_EQ(cisp_vendor_host_create(&nohelper, &bad), 0);
	CHECK_ERR(add(nohelper, "probe_rgb", false, 0), -EACCES, "cannot start the vendor helper /: Permission denied");
	cisp_vendor_host_destroy(nohelper);
	cisp_vendor_host_destroy(host);
}

/*
 * A helper program that speaks the protocol but confines nothing is
 * refused before the plugin is loaded: the library checks the helper from
 * /proc, not from its word.
 */
TEST(vendor_unconfined_helper_is_refused)
{
	struct cisp_vendor_host_config c = { CISP_BUILD_DIR "/tests/plugins/unconfined_helper" };
	struct cisp_vendor_host *host = NULL;

	CHECK_EQ(cisp_vendor_host_create(&host, &c), 0);
	CHECK_ERR(add(host, "probe_rgb", false, 0), -EPERM, "probe_rgb.so is not confined: Seccomp ");
	CHECK_EQ(cisp_vendor_host_stages(host), 0);
	cisp_vendor_host_destroy(host);
}

static struct helper_decl good_decl(void)
{
	struct helper_decl d = { .abi_version = CISP_VENDOR_PLUGIN_ABI, .vendor_id = 7, .name = "n", .vendor_name = "v",
				 .tap = 1, .num_blocks = 2, .has_process = 1 };

	d.blocks[0] = (struct cisp_vendor_block_decl){ .type = 1, .min_version = 1, .max_version = 1, .name = "a" };
	d.blocks[1] = (struct cisp_vendor_block_decl){ .type = 2, .min_version = 2, .max_version = 5,
						       .max_payload = CISP_VENDOR_MAX_PAYLOAD, .name = "b" };
	return d;
}

TEST(vendor_declarations_checked_field_by_field)
{
	struct helper_decl d = good_decl();

	CHECK_EQ(vendor_check_decl(&d, "p.so"), 0);
	d.abi_version = 2;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EPROTONOSUPPORT, "vendor plugin p.so: plugin ABI version 2 is not supported");
	d = good_decl();
	d.vendor_id = 0;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "vendor_id 0 is not a vendor");
	d = good_decl();
	memset(d.name, 'x', sizeof(d.name));
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "name is not NUL-terminated within 32 bytes");
	d = good_decl();
	d.vendor_name[0] = '\0';
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "vendor_name is empty");
	d = good_decl();
	d.name[0] = '\033';
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "name has a byte 0x1b that is not printable ASCII");
	d = good_decl();
	d.tap = 3;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "tap 3 is not a tap point (0..2)");
	d = good_decl();
	d.num_blocks = 0;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "num_blocks 0 is out of range 1..8");
	d.num_blocks = 9;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "num_blocks 9 is out of range 1..8");
	d = good_decl();
	d.has_process = 0;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "process is NULL");
	d = good_decl();
	d.blocks[1].type = 0;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[1].type is 0");
	d = good_decl();
	d.blocks[1].type = 1;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[0] and blocks[1] both have type 1");
	d = good_decl();
	d.blocks[1].min_version = 6;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[1] versions 6..5 are not a range");
	d.blocks[1].min_version = 0;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[1] versions 0..5 are not a range");
	d = good_decl();
	d.blocks[1].max_payload = CISP_VENDOR_MAX_PAYLOAD + 1;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[1].max_payload 65537 is over 65536");
	d = good_decl();
	d.blocks[0].reserved = 3;
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[0].reserved is 3, not 0");
	d = good_decl();
	d.blocks[1].name[31] = 'x';
	memset(d.blocks[1].name, 'y', 31);
	CHECK_ERR(vendor_check_decl(&d, "p.so"), -EINVAL, "blocks[1].name is not NUL-terminated");
}

/* ---- blocks and taps ---- */

TEST(vendor_blocks_validated_against_the_stages)
{
	struct cisp_vendor_host *host = new_host();
	struct vendor_instance *vi = NULL;
	uint8_t big[65] = { 0 };
	struct pbuf b;

	CHECK_EQ(add(host, "probe_rgb", false, 0), 0);
	CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
	pbuf_init(&b);
	pbuf_vendor(&b, 0x12345678, 1, 1, 0, NULL, 0);
	CHECK_ERR(apply(vi, &b), -ENOTSUP, "params block 0 (vendor) at offset 16: vendor_id 0x12345678 is not registered with this ISP");
	pbuf_init(&b);
	pbuf_vendor(&b, PROBE_VENDOR(1), 2, 1, 0, NULL, 0);
	CHECK_ERR(apply(vi, &b), -ENOTSUP, "vendor 0xffff0101 has no block type 2 on this ISP");
	pbuf_init(&b);
	pbuf_vendor(&b, PROBE_VENDOR(1), 1, 3, 0, NULL, 0);
	CHECK_ERR(apply(vi, &b), -ENOTSUP, "version 3 of vendor 0xffff0101 block 1 is not supported (1..2)");
	pbuf_init(&b);
	pbuf_vendor(&b, PROBE_VENDOR(1), 1, 1, 0, big, 65);
	CHECK_ERR(apply(vi, &b), -EMSGSIZE, "payload_size 65 is over the 64 bytes the vendor stage declares");
	pbuf_init(&b);
	pbuf_vendor(&b, PROBE_VENDOR(1), 1, 2, CISP_BLOCK_FL_ENABLE, big, 64);
	CHECK_EQ(apply(vi, &b), 0);
	vendor_instance_destroy(vi);
	cisp_vendor_host_destroy(host);
}

TEST(vendor_isp_without_stages_refuses_vendor_blocks)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, W, H, { { CISP_FMT_RGB888, W, H } } };
	struct cisp_params_limits lim;
	struct cisp_isp *isp;
	struct pbuf b;

	CHECK_EQ(cisp_isp_create(&isp, &c), 0);
	cisp_isp_limits(isp, &lim);
	CHECK(!(lim.blocks & CISP_BLOCK_BIT(CISP_BLOCK_VENDOR)));
	CHECK_EQ(lim.num_vendor, 0);
	pbuf_init(&b);
	pbuf_vendor(&b, ACME_VENDOR, 1, 1, CISP_BLOCK_FL_ENABLE, "\0\0\0\0\0\0\0\0", 8);
	CHECK_ERR(cisp_isp_set_params(isp, b.data, b.size), -ENOTSUP, "this ISP does not implement vendor blocks");
	cisp_isp_destroy(isp);
}

/* A probe at every tap, sandboxed and trusted: in place, exact, only while enabled, only at its tap. */
TEST(vendor_probe_at_every_tap)
{
	for (unsigned tap = 0; tap < CISP_VENDOR_TAP_COUNT; tap++)
		for (int trusted = 0; trusted < 2; trusted++) {
			static const char *const names[] = { "probe_bayer", "probe_rgb", "probe_yuv" };
			struct cisp_vendor_host *host = new_host();
			struct vendor_instance *vi = NULL;
			unsigned planes = tap ? 3 : 1;
			struct frame3 in, f;
			struct pbuf b;

			CHECK_EQ(add(host, names[tap], trusted, 0), 0);
			CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
			CHECK_EQ(vendor_instance_helper_pid(vi, 0) > 0, !trusted);
			frame_fill(&in, tap);
			f = in;
			frame_fill(&f, tap); /* the same values, with its own planes */
			/* Never enabled: nothing runs. */
			CHECK_EQ(vendor_instance_run(vi, tap, f.p, planes), 0);
			CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
			CHECK_EQ(set_add(vi, PROBE_VENDOR(tap), 1, 1000, 0), 0);
			/* Another tap: nothing runs. */
			CHECK_EQ(vendor_instance_run(vi, (tap + 1) % 3, f.p, (tap + 1) % 3 ? 3 : 1), 0);
			CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
			CHECK_EQ(vendor_instance_run(vi, tap, f.p, planes), 0);
			CHECK(probe_answer(&in, &f, planes, 1000));
			if (planes == 1)
				CHECK(!memcmp(f.data[1], in.data[1], sizeof(f.data[1])));
			/* Disabled, the payload kept: nothing runs. */
			frame_fill(&f, tap);
			pbuf_init(&b);
			pbuf_vendor(&b, PROBE_VENDOR(tap), 1, 1, CISP_BLOCK_FL_DISABLE, "\x05\x00", 2);
			CHECK_EQ(apply(vi, &b), 0);
			CHECK_EQ(vendor_instance_run(vi, tap, f.p, planes), 0);
			CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
			/* Neither flag keeps the state (disabled); ENABLE with an empty payload adds 0. */
			pbuf_init(&b);
			pbuf_vendor(&b, PROBE_VENDOR(tap), 1, 1, 0, "\x05\x00", 2);
			CHECK_EQ(apply(vi, &b), 0);
			CHECK_EQ(vendor_instance_run(vi, tap, f.p, planes), 0);
			CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
			pbuf_init(&b);
			pbuf_vendor(&b, PROBE_VENDOR(tap), 1, 1, CISP_BLOCK_FL_ENABLE, NULL, 0);
			CHECK_EQ(apply(vi, &b), 0);
			CHECK_EQ(vendor_instance_run(vi, tap, f.p, planes), 0);
			CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
			/* Planes of a wrong count are refused. */
			CHECK_ERR(vendor_instance_run(vi, tap, f.p, planes == 1 ? 3 : 1), -EINVAL, "planes at the");
			vendor_instance_destroy(vi);
			cisp_vendor_host_destroy(host);
		}
}

/* A plugin's own error fails the job with its message; the helper is healthy and is kept. */
TEST(vendor_plugin_error_fails_only_that_job)
{
	for (int trusted = 0; trusted < 2; trusted++) {
		struct cisp_vendor_host *host = new_host();
		struct vendor_instance *vi = NULL;
		struct frame3 in, f;
		int pid;

		CHECK_EQ(add(host, "probe_rgb", trusted, 0), 0);
		CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
		pid = vendor_instance_helper_pid(vi, 0);
		CHECK_EQ(set_add(vi, PROBE_VENDOR(1), 2, 7, 1), 0); /* refuses sequence 1 */
		frame_fill(&in, 3);
		frame_fill(&f, 3);
		CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0); /* sequence 0 */
		CHECK(probe_answer(&in, &f, 3, 7));
		frame_fill(&f, 3);
		CHECK_ERR(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), -EDOM,
			  "vendor stage test-probe (rgb tap): ");
		CHECK(strstr(cisp_last_error(), "failed: probe refuses frame 1 (error -33)") != NULL);
		CHECK(!memcmp(f.data, in.data, sizeof(f.data))); /* a failed stage leaves its planes alone */
		CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0); /* sequence 2 */
		CHECK(probe_answer(&in, &f, 3, 7));
		CHECK_EQ(vendor_instance_helper_pid(vi, 0), pid);
		CHECK_EQ(vendor_instance_restarts(vi, 0), 0);
		vendor_instance_destroy(vi);
		cisp_vendor_host_destroy(host);
	}
}

/* ---- containment ---- */

struct hostile_case {
	const char *plugin;
	unsigned mode;
	int err;
	const char *needle;
};

static const struct hostile_case hostile_cases[] = {
	{ "hostile_overflow", 1, -EFAULT, "accessed memory 0 bytes past the end of its output buffer" },
	{ "hostile_crash", 2, -EFAULT, "made an invalid memory access outside its buffers" },
	{ "hostile_spin", 3, -ETIMEDOUT, "did not finish within its 200 ms time limit and was killed" },
	{ "hostile_open", 4, -EPERM, "made a forbidden system call: openat" },
	{ "hostile_shared_memory", 17, -EPERM, "made a forbidden system call: mmap" },
	{ "hostile_socket", 5, -EPERM, "made a forbidden system call: socket" },
	{ "hostile_exec", 6, -EPERM, "made a forbidden system call: execve" },
	{ "hostile_write_input", 7, -EFAULT, "wrote into its read-only input buffer (byte 10)" },
	{ "hostile_underflow", 8, -EFAULT, "bytes before the start of its output buffer" },
	{ "hostile_abort", 9, -EIO, "crashed with SIGABRT (Aborted)" },
	{ "hostile_garbage", 10, -EPROTO, "failed: bad??? reply (error 12345)" },
	{ "hostile_chatter", 12, -EPROTO, "sent a 1-byte message, which the protocol does not have" },
};

/*
 * Each hostile plugin, enabled to misbehave: the job fails with its reason
 * and the planes are untouched; then, told to behave, the next job succeeds
 * on a new helper (or, for a plain bad reply, the same one).
 */
TEST(vendor_hostile_plugins_are_contained)
{
	for (size_t i = 0; i < sizeof(hostile_cases) / sizeof(hostile_cases[0]); i++) {
		const struct hostile_case *hc = &hostile_cases[i];
		struct cisp_vendor_host *host = new_host();
		struct vendor_instance *vi = NULL;
		struct frame3 in, f;
		bool restarts = hc->mode != 10; /* only a plain bad status keeps its helper */
		int pid;

		printf("    %s\n", hc->plugin);
		CHECK_EQ(add(host, hc->plugin, false, 200), 0);
		CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
		pid = vendor_instance_helper_pid(vi, 0);
		frame_fill(&in, (uint32_t)i);
		frame_fill(&f, (uint32_t)i);
		CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(hc->mode), 1), 0);
		CHECK_ERR(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), hc->err, hc->needle);
		CHECK(strstr(cisp_last_error(), "vendor stage test-hostile") != NULL);
		CHECK(!restarts || strstr(cisp_last_error(), "the helper was restarted") != NULL);
		CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
		CHECK_EQ(vendor_instance_restarts(vi, 0), restarts);
		CHECK_EQ(vendor_instance_helper_pid(vi, 0) != pid, restarts);
		CHECK(vendor_instance_helper_pid(vi, 0) > 0);

		/* Behaving again: the next job works. */
		CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(hc->mode), 0), 0);
		f.data[0][3] ^= 1;
		in.data[0][3] ^= 1;
		CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0);
		CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
		vendor_instance_destroy(vi);
		cisp_vendor_host_destroy(host);
	}
	CHECK(access("/tmp/cisp-escaped", F_OK) != 0);
}

/*
 * A helper that overwrites the set-up fields of its control memfd (frame
 * geometry, payload offsets) with huge values and then answers well: the
 * library never reads those fields back, so the job completes with the
 * right output; the helper itself then trips over its own damage on the
 * next job, and the restarted one gets its set-up written out afresh.
 */
TEST(vendor_hostile_scribble_on_shared_memory)
{
	struct cisp_vendor_host *host = new_host();
	struct vendor_instance *vi = NULL;
	struct frame3 in, f;

	CHECK_EQ(add(host, "hostile_scribble", false, 0), 0);
	CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
	frame_fill(&in, 5);
	frame_fill(&f, 5);
	CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(13), 1), 0);
	CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0);
	CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
	CHECK_ERR(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), -EFAULT, "outside its buffers; the helper was restarted");
	CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(13), 0), 0);
	CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0);
	CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
	CHECK_EQ(vendor_instance_restarts(vi, 0), 1);
	vendor_instance_destroy(vi);
	cisp_vendor_host_destroy(host);
}

/* Whether the kernel offers Landlock (the helper confines its file access with it where it can). */
static bool have_landlock(void)
{
#ifdef SYS_landlock_create_ruleset
	return syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */) >= 1;
#else
	return false;
#endif
}

/*
 * A plugin that reads /etc/passwd, then through /proc the maps and memory
 * of the process that started its helper, from a constructor and again in
 * a job. The dynamic loader must open files read-only, so the seccomp
 * filter allows that; only the helper's Landlock domain stops it: the
 * plugin and the system's library folders are all it can read, and a
 * Landlock domain cannot look into processes outside it.
 */
TEST(vendor_plugin_code_reads_nothing_else)
{
	struct cisp_vendor_host *host;
	struct vendor_instance *vi = NULL;
	struct frame3 in, f;

	if (!have_landlock()) {
		test_skip("this kernel has no Landlock: plugin code can read what the helper's user can");
		return;
	}
	host = new_host();
	CHECK_EQ(add(host, "hostile_peek", false, 0), 0);
	CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
	frame_fill(&in, 9);
	frame_fill(&f, 9);
	CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(14), 1), 0);
	if (vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3)) {
		printf("    %s\n", cisp_last_error()); /* "... failed: read /etc/passwd ..." */
		CHECK(0);
	}
	CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
	CHECK_EQ(vendor_instance_restarts(vi, 0), 0);
	vendor_instance_destroy(vi);
	cisp_vendor_host_destroy(host);
}

/* The fields of /proc/PID/status this test reads (PID 0: this process). */
struct proc_status {
	int seccomp, filters, no_new_privs;
	unsigned long long cap[5]; /* CapInh, CapPrm, CapEff, CapBnd, CapAmb */
	unsigned uid[4], gid[4];
	char groups[64];
	unsigned long rss_shmem_kb;
};

static void proc_status(int pid, struct proc_status *s)
{
	static const char *const caps[5] = { "CapInh: %llx", "CapPrm: %llx", "CapEff: %llx", "CapBnd: %llx", "CapAmb: %llx" };
	char path[64], line[256];
	FILE *f;

	memset(s, 0xff, sizeof(*s));
	s->groups[0] = '\0';
	snprintf(path, sizeof(path), pid ? "/proc/%d/status" : "/proc/self/status", pid);
	f = fopen(path, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "Seccomp: %d", &s->seccomp);
		sscanf(line, "Seccomp_filters: %d", &s->filters);
		sscanf(line, "NoNewPrivs: %d", &s->no_new_privs);
		for (int i = 0; i < 5; i++)
			sscanf(line, caps[i], &s->cap[i]);
		sscanf(line, "Uid: %u %u %u %u", &s->uid[0], &s->uid[1], &s->uid[2], &s->uid[3]);
		sscanf(line, "Gid: %u %u %u %u", &s->gid[0], &s->gid[1], &s->gid[2], &s->gid[3]);
		sscanf(line, "Groups: %63[0-9 ]", s->groups);
		sscanf(line, "RssShmem: %lu kB", &s->rss_shmem_kb);
	}
	if (f)
		fclose(f);
}

/*
 * What the helper runs with, read from outside: no environment, only its
 * socket, / as its folder, one seccomp filter more than this process, no_new_privs, no
 * capabilities in any set, and (started by root, as the tests are here)
 * user and group 65534 with no other groups; of shared memory, only the
 * three memfds it was given.
 */
TEST(vendor_helper_runs_confined)
{
	struct cisp_vendor_host *host = new_host();
	struct vendor_instance *vi = NULL;
	struct proc_status self, st;
	char path[64], cwd[8];
	unsigned fds = 0;
	bool fd3 = false;
	struct stat sb;
	struct dirent *e;
	struct frame3 f;
	DIR *dir;
	FILE *env;
	int pid;

	CHECK_EQ(add(host, "probe_yuv", false, 0), 0);
	CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
	CHECK_EQ(set_add(vi, PROBE_VENDOR(2), 1, 3, 0), 0);
	frame_fill(&f, 1);
	CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_YUV, f.p, 3), 0);
	pid = vendor_instance_helper_pid(vi, 0);
	CHECK(pid > 0);
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	CHECK(dir != NULL);
	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.') {
			fds++;
			fd3 |= !strcmp(e->d_name, "3");
		}
	if (dir)
		closedir(dir);
	CHECK_EQ(fds, 1);
	CHECK(fd3);
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	env = fopen(path, "r");
	CHECK(env && fgetc(env) == EOF);
	if (env)
		fclose(env);
	snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
	CHECK_EQ(readlink(path, cwd, sizeof(cwd)), 1);
	CHECK_EQ(cwd[0], '/');

	proc_status(0, &self);
	proc_status(pid, &st);
	CHECK_EQ(st.seccomp, 2); /* SECCOMP_MODE_FILTER */
	CHECK_EQ(st.filters, self.filters + 1);
	CHECK_EQ(st.no_new_privs, 1);
	for (int i = 0; i < 5; i++)
		if (i != 3 || geteuid() == 0)
			CHECK_EQ(st.cap[i], 0);
	for (int i = 0; i < 4; i++) {
		CHECK(st.uid[i] != 0);
		if (geteuid() == 0) {
			CHECK_EQ(st.uid[i], 65534);
			CHECK_EQ(st.gid[i], 65534);
		}
	}
	if (geteuid() == 0)
		CHECK(!strcmp(st.groups, ""));
	/* The control memfd (2 pages) and one page of each image. */
	CHECK(st.rss_shmem_kb <= 4 * 4);
	vendor_instance_destroy(vi);
	/* Destroying the instance ends the helper. */
	snprintf(path, sizeof(path), "/proc/%d", pid);
	CHECK(stat(path, &sb) != 0);
	cisp_vendor_host_destroy(host);
}

/*
 * A plugin whose process() never returns: it writes each job's output and
 * answers in the helper's place, as the helper's job loop would, then
 * watches for the next job. Its answers cannot carry the nonce of a request
 * it did not read, so each is refused at once: the job fails, the helper is
 * killed and a new one started, every time, and the library never waits
 * on it past a deadline (the old failure: 247 "successful" jobs, then a
 * library blocked in send() for good).
 */
TEST(vendor_forged_answers_are_refused)
{
	struct cisp_vendor_host *host = new_host();
	struct vendor_instance *vi = NULL;
	struct frame3 in, f;
	int pid;

	CHECK_EQ(add(host, "hostile_forge", false, 2000), 0);
	CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
	CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(15), 1), 0);
	for (unsigned j = 0; j < 8; j++) {
		pid = vendor_instance_helper_pid(vi, 0);
		frame_fill(&in, j);
		frame_fill(&f, j);
		CHECK_ERR(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), -EPROTO,
			  "sent an answer to a request it was not sent; the helper was restarted");
		CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
		CHECK(vendor_instance_helper_pid(vi, 0) != pid);
	}
	CHECK_EQ(vendor_instance_restarts(vi, 0), 8);
	CHECK_EQ(set_byte(vi, HOSTILE_VENDOR(15), 0), 0);
	CHECK_EQ(vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0);
	CHECK(!memcmp(f.data, in.data, sizeof(f.data)));
	vendor_instance_destroy(vi);
	cisp_vendor_host_destroy(host);
}

/* Nanoseconds of CPU time process @pid has used, or -1 once it is gone. */
static long long cpu_ns(int pid)
{
	struct timespec ts;
	clockid_t clock;

	if (clock_getcpuclockid(pid, &clock) || clock_gettime(clock, &ts))
		return -1;
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/*
 * A library process killed while its helper spins in a job: the helper
 * dies with it (its parent-death signal), it does not spin on as an orphan.
 * The library here is a forked copy of this process; this one becomes the
 * orphan's reaper meanwhile, to reap it.
 */
TEST(vendor_helper_dies_with_its_library)
{
	int pipefd[2], helper = -1, helper_fd, status;
	struct pollfd p;
	pid_t library;

	CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	CHECK_EQ(pipe(pipefd), 0);
	library = fork();
	if (library == 0) {
		struct cisp_vendor_host_config hc = { CISP_BUILD_DIR "/src/vendor_stage/cisp-vendor-helper" };
		struct cisp_vendor_stage_config sc = { plugin("hostile_spin"), false, 60000 };
		struct cisp_vendor_host *host;
		struct vendor_instance *vi;
		struct frame3 f;

		if (cisp_vendor_host_create(&host, &hc) || cisp_vendor_host_add(host, &sc) ||
		    vendor_instance_create(&vi, host, W, H, 0) || set_byte(vi, HOSTILE_VENDOR(3), 1))
			_exit(1);
		helper = vendor_instance_helper_pid(vi, 0);
		if (write(pipefd[1], &helper, sizeof(helper)) != sizeof(helper))
			_exit(1);
		frame_fill(&f, 0);
		vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3); /* spins for a minute */
		_exit(0);
	}
	close(pipefd[1]);
	CHECK(library > 0);
	CHECK_EQ(read(pipefd[0], &helper, sizeof(helper)), sizeof(helper));
	close(pipefd[0]);
	helper_fd = helper > 0 ? (int)syscall(SYS_pidfd_open, helper, 0) : -1;
	CHECK(helper_fd >= 0);
	/* Wait until the helper is in the job, spinning: 20 ms of CPU time. */
	for (int i = 0; i < 5000 && helper_fd >= 0 && cpu_ns(helper) < 20000000; i++)
		usleep(1000);
	CHECK(cpu_ns(helper) >= 20000000);
	kill(library, SIGKILL);
	CHECK_EQ(waitpid(library, &status, 0), library);
	p = (struct pollfd){ .fd = helper_fd, .events = POLLIN };
	if (helper_fd >= 0 && poll(&p, 1, 5000) != 1) {
		test_fail(__FILE__, __LINE__, "the helper %d outlived its library by 5 s", helper);
		kill(helper, SIGKILL);
	}
	if (helper > 0)
		waitpid(helper, &status, 0);
	if (helper_fd >= 0)
		close(helper_fd);
	CHECK_EQ(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
}

struct thread_start {
	struct cisp_vendor_host *host;
	struct vendor_instance *vi;
	int ret;
};

static void *start_instance(void *opaque)
{
	struct thread_start *t = opaque;

	t->ret = vendor_instance_create(&t->vi, t->host, W, H, 0);
	return NULL;
}

/*
 * A helper's parent is the thread that started it, and the helper dies
 * when that thread ends (its parent-death signal). The next job finds it
 * gone and starts a new one first: the job itself succeeds.
 */
TEST(vendor_helper_of_an_ended_thread_is_replaced)
{
	struct thread_start t = { new_host(), NULL, -1 };
	struct frame3 in, f;
	struct pollfd p;
	pthread_t thread;
	int pid;

	CHECK_EQ(add(t.host, "probe_rgb", false, 0), 0);
	CHECK_EQ(pthread_create(&thread, NULL, start_instance, &t), 0);
	pthread_join(thread, NULL);
	CHECK_EQ(t.ret, 0);
	pid = vendor_instance_helper_pid(t.vi, 0);
	p = (struct pollfd){ .fd = (int)syscall(SYS_pidfd_open, pid, 0), .events = POLLIN };
	CHECK(p.fd >= 0);
	CHECK_EQ(poll(&p, 1, 5000), 1);
	close(p.fd);
	CHECK_EQ(set_add(t.vi, PROBE_VENDOR(1), 1, 9, 0), 0);
	frame_fill(&in, 4);
	frame_fill(&f, 4);
	CHECK_EQ(vendor_instance_run(t.vi, CISP_VENDOR_TAP_RGB, f.p, 3), 0);
	CHECK(probe_answer(&in, &f, 3, 9));
	CHECK_EQ(vendor_instance_restarts(t.vi, 0), 1);
	CHECK(vendor_instance_helper_pid(t.vi, 0) != pid);
	vendor_instance_destroy(t.vi);
	cisp_vendor_host_destroy(t.host);
}

/*
 * A plugin using the C library as ordinary code does (realloc growing 1 to
 * 4 MiB, which moves it with mremap; printf into a buffer; qsort; ...):
 * it works sandboxed as it does trusted, with the same output.
 */
TEST(vendor_ordinary_libc_works_sandboxed)
{
	for (int trusted = 0; trusted < 2; trusted++) {
		struct cisp_vendor_host *host = new_host();
		struct vendor_instance *vi = NULL;
		struct frame3 in, f;
		unsigned bad = 0;

		CHECK_EQ(add(host, "libc_user", trusted, 0), 0);
		CHECK_EQ(vendor_instance_create(&vi, host, W, H, 0), 0);
		CHECK_EQ(set_byte(vi, 0xffff0300u, 5), 0);
		frame_fill(&in, 7);
		frame_fill(&f, 7);
		if (vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3)) {
			test_fail(__FILE__, __LINE__, "%s: %s", trusted ? "trusted" : "sandboxed", cisp_last_error());
			bad++;
		}
		for (int c = 0; c < 3; c++)
			for (int i = 0; i < W * H; i++)
				bad += f.data[c][i] != (in.data[c][i] > 65530 ? 65535 : in.data[c][i] + 5);
		CHECK_EQ(bad, 0);
		CHECK_EQ(vendor_instance_restarts(vi, 0), 0);
		vendor_instance_destroy(vi);
		cisp_vendor_host_destroy(host);
	}
}

/* ---- other instances and threads carry on ---- */

struct worker {
	struct cisp_vendor_host *host;
	bool hostile;
	int jobs, failed, wrong;
};

static void *worker_main(void *opaque)
{
	struct worker *w = opaque;
	struct vendor_instance *vi = NULL;
	struct frame3 in, f;

	if (vendor_instance_create(&vi, w->host, W, H, 0))
		return NULL;
	set_add(vi, PROBE_VENDOR(1), 1, 5, 0);
	set_byte(vi, HOSTILE_VENDOR(2), w->hostile); /* the crashing plugin, armed or not */
	for (int j = 0; j < w->jobs; j++) {
		frame_fill(&in, (uint32_t)j);
		frame_fill(&f, (uint32_t)j);
		if (vendor_instance_run(vi, CISP_VENDOR_TAP_RGB, f.p, 3))
			w->failed++;
		else if (!probe_answer(&in, &f, 3, 5))
			w->wrong++;
	}
	vendor_instance_destroy(vi);
	return NULL;
}

TEST(vendor_crashes_do_not_reach_other_instances)
{
	struct cisp_vendor_host *host = new_host();
	struct worker good = { .jobs = 12 }, bad = { .hostile = true, .jobs = 4 };
	pthread_t t[2];

	CHECK_EQ(add(host, "hostile_crash", false, 0), 0);
	CHECK_EQ(add(host, "probe_rgb", false, 0), 0);
	good.host = bad.host = host;
	CHECK_EQ(pthread_create(&t[0], NULL, worker_main, &good), 0);
	CHECK_EQ(pthread_create(&t[1], NULL, worker_main, &bad), 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	CHECK_EQ(good.failed, 0);
	CHECK_EQ(good.wrong, 0);
	CHECK_EQ(bad.failed, 4);
	CHECK_EQ(bad.wrong, 0);
	cisp_vendor_host_destroy(host);
}

/* ---- the example plugin through the whole pipeline ---- */

/* A 64x32 10-bit RGGB test mosaic. */
static void raw_input(struct cisp_image *in)
{
	cisp_image_alloc(in, CISP_FMT_SRGGB10, 64, 32);
	for (uint32_t y = 0; y < 32; y++)
		for (uint32_t x = 0; x < 64; x++)
			((uint16_t *)(in->plane[0].data + y * in->plane[0].stride))[x] =
				(uint16_t)((x * 37 + y * 91 + (x ^ y) * 13) % 1024);
}

/* Both outputs of one frame: NV12 (main) and RGB888 (preview), 64x32. */
struct developed {
	struct cisp_image nv12, rgb;
};

static void run_isp(struct cisp_vendor_host *host, const struct pbuf *vendor_params, struct developed *out, int *ret)
{
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_NV12, 64, 32 }, { CISP_FMT_RGB888, 64, 32 } },
				     host };
	struct cisp_image *outs[2] = { &out->nv12, &out->rgb };
	struct cisp_image in;
	struct cisp_isp *isp;

	cisp_image_alloc(&out->nv12, CISP_FMT_NV12, 64, 32);
	cisp_image_alloc(&out->rgb, CISP_FMT_RGB888, 64, 32);
	*ret = cisp_isp_create(&isp, &c);
	if (*ret)
		return;
	raw_input(&in);
	if (vendor_params)
		*ret = cisp_isp_set_params(isp, vendor_params->data, vendor_params->size);
	if (!*ret)
		*ret = cisp_isp_process(isp, &in, outs, NULL, NULL);
	cisp_image_free(&in);
	cisp_isp_destroy(isp);
}

static void developed_free(struct developed *d)
{
	cisp_image_free(&d->nv12);
	cisp_image_free(&d->rgb);
}

static void effect(struct pbuf *b, uint16_t e, uint16_t strength, uint16_t param)
{
	uint16_t payload[4] = { e, strength, param, 0 };

	pbuf_init(b);
	pbuf_vendor(b, ACME_VENDOR, 1, 1, CISP_BLOCK_FL_ENABLE, payload, 8);
}

/* Chroma samples (the interleaved plane of NV12) all equal to @cb, @cr. */
static bool chroma_is(const struct cisp_image *img, uint8_t cb, uint8_t cr)
{
	for (uint32_t y = 0; y < img->height / 2; y++)
		for (uint32_t x = 0; x < img->width / 2; x++) {
			const uint8_t *p = img->plane[1].data + y * img->plane[1].stride + 2 * x;

			if (p[0] != cb || p[1] != cr)
				return false;
		}
	return true;
}

static bool same_plane(const struct cisp_image *a, const struct cisp_image *b, unsigned plane)
{
	size_t bytes, rows;

	cisp_image_plane_size(a->format, a->width, a->height, plane, &bytes, &rows);
	for (size_t y = 0; y < rows; y++)
		if (memcmp(a->plane[plane].data + y * a->plane[plane].stride, b->plane[plane].data + y * b->plane[plane].stride,
			   bytes))
			return false;
	return true;
}

static bool same_image(const struct developed *a, const struct developed *b)
{
	return same_plane(&a->nv12, &b->nv12, 0) && same_plane(&a->nv12, &b->nv12, 1) && same_plane(&a->rgb, &b->rgb, 0);
}

/*
 * RGB888 pixels with R - G == @dr and G - B == @db, among those whose G is
 * at least @margin from the ends; returns how many pixels broke the rule
 * and how many were checked.
 */
static unsigned rgb_offsets(const struct cisp_image *img, int dr, int db, int margin, unsigned *checked)
{
	unsigned bad = 0;

	*checked = 0;
	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++) {
			const uint8_t *p = img->plane[0].data + y * img->plane[0].stride + 3 * x;

			if (p[1] < margin || p[1] > 255 - margin)
				continue;
			++*checked;
			bad += p[0] - p[1] != dr || p[1] - p[2] != db;
		}
	return bad;
}

TEST(vendor_example_effects_in_the_pipeline)
{
	struct developed plain, mono, sepia, same, sat[2], failed;
	struct cisp_vendor_host *host[2] = { new_host(), new_host() };
	unsigned checked;
	struct pbuf b;
	int ret;

	run_isp(NULL, NULL, &plain, &ret);
	CHECK_EQ(ret, 0);
	CHECK(!chroma_is(&plain.nv12, 128, 128));
	for (int trusted = 0; trusted < 2; trusted++)
		CHECK_EQ(add(host[trusted], "acme_effects", trusted, 0), 0);

	/* Mono: R = G = B on every pixel, so the YUV output's chroma is exactly grey. */
	effect(&b, 1, 256, 0);
	run_isp(host[0], &b, &mono, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(rgb_offsets(&mono.rgb, 0, 0, 0, &checked), 0);
	CHECK_EQ(checked, 64 * 32);
	CHECK(chroma_is(&mono.nv12, 128, 128));

	/* Sepia, warmth 20: R is G + 20 and B is G - 20 in 8-bit codes, away from clipping. */
	effect(&b, 2, 256, 20);
	run_isp(host[0], &b, &sepia, &ret);
	CHECK_EQ(ret, 0);
	CHECK_EQ(rgb_offsets(&sepia.rgb, 20, 20, 20, &checked), 0);
	CHECK(checked > 64 * 32 / 2);

	/* Saturation 1.0 at full strength is the identity. */
	effect(&b, 3, 256, 256);
	run_isp(host[0], &b, &same, &ret);
	CHECK_EQ(ret, 0);
	CHECK(same_image(&same, &plain));

	/* Trusted and sandboxed give the same bytes. */
	effect(&b, 3, 200, 700);
	for (int trusted = 0; trusted < 2; trusted++) {
		run_isp(host[trusted], &b, &sat[trusted], &ret);
		CHECK_EQ(ret, 0);
	}
	CHECK(same_image(&sat[0], &sat[1]));
	CHECK(!same_plane(&sat[0].rgb, &plain.rgb, 0));

	/* The plugin checks its own payload; the job fails with its message. */
	effect(&b, 9, 256, 0);
	run_isp(host[0], &b, &failed, &ret);
	CHECK_EQ(ret, -EINVAL);
	CHECK(strstr(cisp_last_error(), "vendor stage acme-colour-effects (rgb tap): "
					"failed: effect block: effect 9, strength 256, param 0, reserved 0 out of "
					"range (error -22)") != NULL);
	developed_free(&same);
	developed_free(&failed);
	developed_free(&plain);
	developed_free(&mono);
	developed_free(&sepia);
	developed_free(&sat[0]);
	developed_free(&sat[1]);
	cisp_vendor_host_destroy(host[0]);
	cisp_vendor_host_destroy(host[1]);
}

/* Append a canonical block to @b. */
static void pbuf_block(struct pbuf *b, const void *block, size_t size)
{
	memcpy(b->data + b->size, block, size);
	b->size += size;
	((struct cisp_params_header *)b->data)->total_size = (uint32_t)b->size;
}

/*
 * The YUV tap through the pipeline, with chroma denoise off and on (its Cb,
 * Cr planes then live elsewhere): the probe adds 257, 514, 771 to Y, Cb, Cr,
 * so the NV12 output is the plain one plus 1, 2, 3 wherever nothing clips,
 * and the RGB output, which never passes the YUV tap, is unchanged.
 */
TEST(vendor_yuv_tap_in_the_pipeline)
{
	const struct cisp_cnr_params cnr = { { CISP_BLOCK_CNR, CISP_BLOCK_FL_ENABLE, 16 }, 1024, 2048, 4, 0 };
	struct cisp_vendor_host *host = new_host();
	const uint16_t offset = 257;

	CHECK_EQ(add(host, "probe_yuv", false, 0), 0);
	for (int with_cnr = 0; with_cnr < 2; with_cnr++) {
		struct developed plain, probed;
		struct pbuf p, v;
		unsigned bad = 0, checked = 0;
		int ret;

		pbuf_init(&p);
		if (with_cnr)
			pbuf_block(&p, &cnr, sizeof(cnr));
		v = p;
		pbuf_vendor(&v, PROBE_VENDOR(CISP_VENDOR_TAP_YUV), 1, 1, CISP_BLOCK_FL_ENABLE, &offset, 2);
		run_isp(NULL, &p, &plain, &ret);
		CHECK_EQ(ret, 0);
		run_isp(host, &v, &probed, &ret);
		CHECK_EQ(ret, 0);
		for (uint32_t y = 0; y < 32; y++)
			for (uint32_t x = 0; x < 64; x++) {
				uint8_t a = plain.nv12.plane[0].data[y * plain.nv12.plane[0].stride + x];
				uint8_t b = probed.nv12.plane[0].data[y * probed.nv12.plane[0].stride + x];

				if (a <= 254) {
					checked++;
					bad += b != a + 1;
				}
			}
		for (uint32_t y = 0; y < 16; y++)
			for (uint32_t x = 0; x < 64; x++) {
				uint8_t a = plain.nv12.plane[1].data[y * plain.nv12.plane[1].stride + x];
				uint8_t b = probed.nv12.plane[1].data[y * probed.nv12.plane[1].stride + x];

				if (a <= 252) {
					checked++;
					bad += b != a + 2 + (x & 1); /* Cb, Cr interleaved */
				}
			}
		CHECK_EQ(bad, 0);
		CHECK(checked > 64 * 32 + 64 * 16 - 100);
		CHECK(same_plane(&plain.rgb, &probed.rgb, 0));
		developed_free(&plain);
		developed_free(&probed);
	}
	cisp_vendor_host_destroy(host);
}

/*
 * A stage that changes nothing, at each tap, sandboxed: both outputs come
 * out byte for byte as without the stage.
 */
TEST(vendor_identity_stage_changes_nothing)
{
	static const char *const names[] = { "probe_bayer", "probe_rgb", "probe_yuv" };
	struct developed plain;
	int ret;

	run_isp(NULL, NULL, &plain, &ret);
	CHECK_EQ(ret, 0);
	for (unsigned tap = 0; tap < CISP_VENDOR_TAP_COUNT; tap++) {
		struct cisp_vendor_host *host = new_host();
		const uint16_t zero = 0;
		struct developed out;
		struct pbuf v;

		CHECK_EQ(add(host, names[tap], false, 0), 0);
		pbuf_init(&v);
		pbuf_vendor(&v, PROBE_VENDOR(tap), 1, 1, CISP_BLOCK_FL_ENABLE, &zero, 2);
		run_isp(host, &v, &out, &ret);
		CHECK_EQ(ret, 0);
		CHECK(same_image(&out, &plain));
		developed_free(&out);
		cisp_vendor_host_destroy(host);
	}
	developed_free(&plain);
}

/* One frame of @c with probes adding @add at the taps in @taps (a bit each), by the executor @e. */
static void run_probes(const struct cisp_isp_config *c, const struct cisp_param_state *s, unsigned taps, uint16_t add,
		       const struct cisp_isp_exec *e, struct cisp_pool *pool, struct cisp_image out[2], struct cisp_stats *st)
{
	struct cisp_image *outs[2] = { &out[0], c->output[1].format ? &out[1] : NULL };
	struct cisp_image in;
	struct cisp_isp *isp;
	struct pbuf v;

	raw_input(&in);
	pbuf_init(&v);
	for (unsigned tap = 0; tap < CISP_VENDOR_TAP_COUNT; tap++)
		if (taps & (1u << tap))
			pbuf_vendor(&v, PROBE_VENDOR(tap), 1, 1, CISP_BLOCK_FL_ENABLE, &add, 2);
	CHECK_EQ(cisp_isp_create(&isp, c), 0);
	CHECK_EQ(cisp_isp_set_state(isp, s, ~0u), 0);
	CHECK_EQ(cisp_isp_set_params(isp, v.data, v.size), 0);
	CHECK_EQ(cisp_isp_set_exec(isp, e), 0);
	for (int i = 0; i < 2 && outs[i]; i++) {
		cisp_image_alloc(&out[i], c->output[i].format, c->output[i].width, c->output[i].height);
		memset(out[i].plane[0].data, 0x5a, cisp_image_packed_size(out[i].format, out[i].width, out[i].height));
	}
	CHECK_EQ(cisp_isp_process(isp, &in, outs, st, pool), 0);
	/* The stages ran in bands unless asked for the reference. */
	CHECK_EQ(isp->fx != NULL, e->fused);
	cisp_isp_destroy(isp);
	cisp_image_free(&in);
}

static bool same_bytes(const struct cisp_image *a, const struct cisp_image *b)
{
	for (unsigned p = 0; p < a->num_planes; p++)
		if (!same_plane(a, b, p))
			return false;
	return true;
}

/*
 * Vendor stages on the banded executor: the bands stop at each tap with a
 * stage, the stage runs on frame-sized planes, and the bands go on. Every
 * tap alone and all three, with the fast and the quality demosaic, scaled
 * outputs, 1 and 3 threads: the same bytes and statistics as the
 * reference, and not the bytes of a frame without the stages.
 */
TEST(vendor_stages_on_the_banded_executor)
{
	static const char *const names[] = { "probe_bayer", "probe_rgb", "probe_yuv" };
	const struct cisp_isp_config plain = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_NV12, 64, 32 }, { CISP_FMT_RGB888, 64, 32 } } };
	const struct cisp_isp_config scaled = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_I420, 32, 16 }, { CISP_FMT_XBGR32, 64, 32 } } };
	const struct cisp_isp_exec reference = { false, 0, -1 };
	struct cisp_vendor_host *host = new_host();
	struct cisp_pool *pools[2];

	for (unsigned tap = 0; tap < CISP_VENDOR_TAP_COUNT; tap++)
		CHECK_EQ(add(host, names[tap], true, 0), 0);
	CHECK_EQ(cisp_pool_create(&pools[0], 1), 0);
	CHECK_EQ(cisp_pool_create(&pools[1], 3), 0);
	for (int quality = 0; quality < 2; quality++) {
		for (int k = 0; k < 2; k++) {
			struct cisp_isp_config c = k ? scaled : plain;
			struct cisp_param_state s;

			c.vendor = host;
			cisp_param_state_init(&s);
			s.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_BNR);
			s.bnr.strength = 512;
			if (quality) {
				if (!(cisp_demosaic_algorithms() & (1u << CISP_DEMOSAIC_QUALITY)))
					continue;
				s.demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
			}
			for (unsigned taps = 1; taps < 1u << CISP_VENDOR_TAP_COUNT; taps++) {
				struct cisp_image ref[2] = { 0 }, none[2] = { 0 };
				struct cisp_stats st[2];

				if (taps != 7 && (taps & (taps - 1)))
					continue; /* each tap alone, then all three */
				run_probes(&c, &s, taps, 300, &reference, NULL, ref, &st[0]);
				run_probes(&c, &s, taps, 0, &reference, NULL, none, &st[1]);
				CHECK(!same_bytes(&ref[0], &none[0]) || !same_bytes(&ref[1], &none[1]));
				for (int b = 0; b < 2; b++) {
					for (int t = 0; t < 2; t++) {
						const struct cisp_isp_exec banded = { true, b ? 16 : 2, -1 };
						struct cisp_image out[2] = { 0 };

						run_probes(&c, &s, taps, 300, &banded, pools[t], out, &st[1]);
						for (int i = 0; i < 2; i++)
							if (!same_bytes(&out[i], &ref[i]))
								test_fail(__FILE__, __LINE__,
									  "taps %#x, %s demosaic, %s outputs, band %d, %d threads: "
									  "output %d differs from the reference",
									  taps, quality ? "quality" : "fast", k ? "scaled" : "full-size",
									  b ? 16 : 2, t ? 3 : 1, i);
						CHECK(!memcmp(&st[0], &st[1], sizeof(st[0])));
						cisp_image_free(&out[0]);
						cisp_image_free(&out[1]);
					}
				}
				for (int i = 0; i < 2; i++) {
					cisp_image_free(&ref[i]);
					cisp_image_free(&none[i]);
				}
			}
		}
	}
	cisp_pool_destroy(pools[0]);
	cisp_pool_destroy(pools[1]);
	cisp_vendor_host_destroy(host);
}

/* ---- through the device: a failing stage fails its job's fence, nothing else ---- */

static int submit(struct cisp_context *ctx, const struct cisp_image *in, struct cisp_image *out, const struct pbuf *params,
		  struct cisp_job_result *result, struct cisp_fence **fence)
{
	struct cisp_job job = { .num_inputs = 1, .input = { in }, .output = { out }, .result = result };

	if (params) {
		job.params = params->data;
		job.params_size = params->size;
	}
	return cisp_job_submit(ctx, &job, fence);
}

TEST(vendor_device_contexts_carry_on)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_vendor_host *host = new_host();
	struct cisp_context_config cc = { .isp = { CISP_FMT_SRGGB10, 64, 32, { { CISP_FMT_NV12, 64, 32 } }, host } };
	struct cisp_context *ctx[2] = { NULL, NULL };
	struct cisp_image in, out[2][4];
	struct developed ref;
	struct cisp_job_result result[2][4];
	struct cisp_fence *fence[2][4];
	struct cisp_device *dev = NULL;
	struct pbuf armed, calm, mono;
	uint8_t one = 1, zero = 0;
	int ret;

	CHECK_EQ(add(host, "hostile_crash", false, 0), 0);
	CHECK_EQ(add(host, "acme_effects", false, 0), 0);
	CHECK_EQ(cisp_device_create(&dev, &dc), 0);
	for (int c = 0; c < 2; c++)
		CHECK_EQ(cisp_context_create(&ctx[c], dev, &cc), 0);
	/* The device's supported params blocks: every canonical one, and the stages' vendor blocks. */
	{
		struct cisp_params_limits lim;

		CHECK_EQ(cisp_context_limits(ctx[0], &lim), 0);
		CHECK_EQ(lim.blocks, 0x8003fffeu);
		CHECK_EQ(lim.width, 64);
		CHECK_EQ(lim.num_vendor, 2);
		CHECK_EQ(lim.vendor[0].vendor_id, HOSTILE_VENDOR(2));
		CHECK_EQ(lim.vendor[1].vendor_id, ACME_VENDOR);
		CHECK_EQ(lim.vendor[1].max_payload, 8);
	}
	raw_input(&in);
	pbuf_init(&armed);
	pbuf_vendor(&armed, HOSTILE_VENDOR(2), 1, 1, CISP_BLOCK_FL_ENABLE, &one, 1);
	pbuf_init(&calm);
	pbuf_vendor(&calm, HOSTILE_VENDOR(2), 1, 1, CISP_BLOCK_FL_ENABLE, &zero, 1);
	effect(&mono, 1, 256, 0);

	/* Context 0: armed, armed, calm, calm. Context 1: mono on every frame. */
	for (int j = 0; j < 4; j++)
		for (int c = 0; c < 2; c++) {
			const struct pbuf *p = c ? (j ? NULL : &mono) : j == 0 ? &armed : j == 2 ? &calm : NULL;

			cisp_image_alloc(&out[c][j], CISP_FMT_NV12, 64, 32);
			CHECK_EQ(submit(ctx[c], &in, &out[c][j], p, &result[c][j], &fence[c][j]), 0);
		}
	for (int c = 0; c < 2; c++)
		for (int j = 0; j < 4; j++) {
			ret = cisp_fence_wait(fence[c][j], 20 * 1000000000ll);
			if (c == 0 && j < 2) {
				CHECK_EQ(ret, -EFAULT);
				CHECK_EQ(result[c][j].status, CISP_FENCE_ERROR);
				CHECK(strstr(result[c][j].message, "vendor stage test-hostile (rgb tap): made an invalid "
								   "memory access outside its buffers") != NULL);
			} else {
				CHECK_EQ(ret, 0);
				CHECK_EQ(result[c][j].status, CISP_FENCE_OK);
			}
			cisp_fence_unref(fence[c][j]);
		}
	/* Context 1's frames are all mono; context 0's last ones are plain and match a plain ISP. */
	for (int j = 0; j < 4; j++)
		CHECK(chroma_is(&out[1][j], 128, 128));
	run_isp(NULL, NULL, &ref, &ret);
	CHECK(same_plane(&out[0][3], &ref.nv12, 0) && same_plane(&out[0][3], &ref.nv12, 1));
	CHECK(same_plane(&out[0][2], &ref.nv12, 0) && same_plane(&out[0][2], &ref.nv12, 1));
	developed_free(&ref);
	for (int c = 0; c < 2; c++) {
		cisp_context_destroy(ctx[c]);
		for (int j = 0; j < 4; j++)
			cisp_image_free(&out[c][j]);
	}
	cisp_image_free(&in);
	cisp_device_destroy(dev);
	cisp_vendor_host_destroy(host);
}

/* ---- cisp info ---- */

TEST(vendor_cisp_info)
{
	char args[1024], out[8192];

	CHECK_EQ(test_run_cisp("info --size 64x48", out, sizeof(out)), 0);
	CHECK(strstr(out, "params ABI version 1 (buffers up to 1048576 bytes), statistics ABI version 1 (25784 bytes)"));
	CHECK(strstr(out, "ISP instance: 64x48 SRGGB10\n"));
	CHECK(strstr(out, "canonical blocks (supported-params-blocks mask 0x0003fffe):\n"));
	CHECK(strstr(out, "   1 blc        supported\n"));
	CHECK(strstr(out, "  15 cnr        supported\n"));
	CHECK(strstr(out, "vendor blocks (type 31, plugin ABI version 1): none (no vendor stage loaded)\n"));

	snprintf(args, sizeof(args), "info --vendor %s --trusted-vendor %s --time-limit 250", plugin("acme_effects"),
		 plugin("probe_bayer"));
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 0);
	CHECK(strstr(out, "canonical blocks (supported-params-blocks mask 0x8003fffe):\n"));
	CHECK(strstr(out, "vendor blocks (type 31, plugin ABI version 1): supported\n"));
	CHECK(strstr(out, "  stage acme-colour-effects: vendor 0x454d4341 (ACME Imaging (example)), rgb tap, sandboxed, "
			  "250 ms per job\n"));
	CHECK(strstr(out, "    block 1 \"effect\": versions 1..1, payload up to 8 bytes\n"));
	CHECK(strstr(out, "  stage test-probe: vendor 0xffff0100 (cisp tests), bayer tap, trusted (in-process)\n"));
	CHECK(strstr(out, "    block 1 \"add\": versions 1..2, payload up to 64 bytes\n"));

	snprintf(args, sizeof(args), "info --vendor %s", plugin("hostile_constructor"));
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 1);
	CHECK(strstr(out, "hostile_constructor.so made a forbidden system call: socket"));
	CHECK_EQ(test_run_cisp("info --bogus 1", out, sizeof(out)), 2);
	CHECK(strstr(out, "cisp info: unknown option '--bogus'"));
}
