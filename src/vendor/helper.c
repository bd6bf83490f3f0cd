/* SPDX-License-Identifier: MIT */
/*
 * cisp-vendor-helper: runs one vendor plugin for one stream, confined.
 *
 *   cisp-vendor-helper describe PLUGIN.so   report the plugin's declaration
 *   cisp-vendor-helper run PLUGIN.so        create an instance, run jobs
 *
 * The library starts it with an empty environment and exactly the
 * descriptors of protocol.h. In order, it:
 *  1. closes standard input, output and error, maps the control memfd, sets
 *     resource limits (no core dumps, no file writes, 1 GiB of data) and its
 *     signal handlers (on their own stack);
 *  2. where the kernel has Landlock, confines file access to reading the
 *     plugin and the system's library folders; installs the load filter
 *     (what the dynamic loader needs: read-only opens, reads, mappings; no
 *     sockets, no processes, no writes but to the library) and loads the
 *     plugin, whose constructors run under both;
 *  3. (run) maps the image memfds between guard pages, the input read-only,
 *     closes every descriptor but the socket, and installs the run filter:
 *     reads and writes on the socket, memory management without PROT_EXEC,
 *     the clock, exiting, and signalling itself (abort());
 *  4. creates the plugin's instance and answers every job until EOF.
 * A memory fault or a forbidden system call lands in a handler that writes
 * what happened into the control memfd and exits with a code saying so.
 *
 * This program links nothing but the C library and is built without
 * sanitizers: it is the small trusted part of the sandbox.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cisp/vendor.h>

#include "protocol.h"
#include "seccomp_filter.h"

#define DATA_LIMIT (1ull << 30)

static struct helper_shared *shared;
/* The image buffers: each image ends where the guard page after it starts. */
static uint8_t *in_image, *out_image;
static uint64_t image_bytes;
static size_t page;
static uint8_t altstack[65536];

static _Noreturn void die(int code)
{
	syscall(SYS_exit_group, code);
	for (;;)
		;
}

static _Noreturn void setup_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void setup_failed(const char *fmt, ...)
{
	va_list ap;

	if (shared) {
		va_start(ap, fmt);
		vsnprintf(shared->message, sizeof(shared->message), fmt, ap);
		va_end(ap);
	}
	die(HELPER_EXIT_SETUP);
}

/* Where @a lies relative to the image buffers and their guard pages. */
static void classify(uintptr_t a)
{
	uintptr_t in0 = (uintptr_t)in_image, in1 = in0 + image_bytes;
	uintptr_t out0 = (uintptr_t)out_image, out1 = out0 + image_bytes;

	shared->fault_where = HELPER_FAULT_ELSEWHERE;
	shared->fault_offset = 0;
	if (!in_image)
		return;
	if (a >= out1 && a < out1 + page) {
		shared->fault_where = HELPER_FAULT_PAST_OUTPUT;
		shared->fault_offset = (int64_t)(a - out1);
	} else if (a < out0 && a >= (out0 & ~(uintptr_t)(page - 1)) - page) {
		shared->fault_where = HELPER_FAULT_BEFORE_OUTPUT;
		shared->fault_offset = (int64_t)(out0 - a);
	} else if (a >= in0 && a < in1) {
		shared->fault_where = HELPER_FAULT_INPUT_WRITE;
		shared->fault_offset = (int64_t)(a - in0);
	} else if (a >= in1 && a < in1 + page) {
		shared->fault_where = HELPER_FAULT_PAST_INPUT;
		shared->fault_offset = (int64_t)(a - in1);
	} else if (a < in0 && a >= (in0 & ~(uintptr_t)(page - 1)) - page) {
		shared->fault_where = HELPER_FAULT_BEFORE_INPUT;
		shared->fault_offset = (int64_t)(in0 - a);
	}
}

static void on_fault(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	(void)context;
	classify((uintptr_t)si->si_addr);
	die(HELPER_EXIT_FAULT);
}

static void on_sigsys(int sig, siginfo_t *si, void *context)
{
	(void)sig;
	(void)context;
	shared->syscall_nr = si->si_syscall;
	die(HELPER_EXIT_SYSCALL);
}

static void set_handlers(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_ONSTACK };

	if (sigaltstack(&ss, NULL))
		setup_failed("sigaltstack: %s", strerror(errno));
	sigfillset(&sa.sa_mask);
	sa.sa_sigaction = on_fault;
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		setup_failed("sigaction: %s", strerror(errno));
	sa.sa_sigaction = on_sigsys;
	if (sigaction(SIGSYS, &sa, NULL))
		setup_failed("sigaction: %s", strerror(errno));
}

static void set_limits(void)
{
	const struct rlimit none = { 0, 0 }, data = { DATA_LIMIT, DATA_LIMIT };

	if (setrlimit(RLIMIT_CORE, &none) || setrlimit(RLIMIT_FSIZE, &none) || setrlimit(RLIMIT_DATA, &data))
		setup_failed("setrlimit: %s", strerror(errno));
}

#ifdef SYS_open
#define SYS_OPEN_OR_NONE SYS_open
#else
#define SYS_OPEN_OR_NONE (-1)
#endif
#ifdef SYS_fstat
#define SYS_FSTAT_OR_NONE SYS_fstat
#else
#define SYS_FSTAT_OR_NONE (-1)
#endif

/* Calls abort() makes: it blocks signals, then signals itself (the pid is checked). */
#define SELF_SIGNAL_RULES(pid)                                                                      \
	{ SYS_getpid, SC_ANY, 0, 0 }, { SYS_gettid, SC_ANY, 0, 0 }, { SYS_rt_sigprocmask, SC_ANY, 0, 0 }, \
		{ SYS_tgkill, SC_ARG_EQ, 0, (uint32_t)(pid) }

#ifdef LANDLOCK_ACCESS_FS_REFER
#define LL_REFER LANDLOCK_ACCESS_FS_REFER
#else
#define LL_REFER 0
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
#define LL_TRUNCATE LANDLOCK_ACCESS_FS_TRUNCATE
#else
#define LL_TRUNCATE 0
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LL_IOCTL_DEV LANDLOCK_ACCESS_FS_IOCTL_DEV
#else
#define LL_IOCTL_DEV 0
#endif

/* Let the Landlock domain being built read @path (a folder: everything beneath it); skip what does not exist. */
static void landlock_allow(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr rule = { .allowed_access = access };
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rule.allowed_access &= LANDLOCK_ACCESS_FS_READ_FILE; /* a file takes file rights only */
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0))
		setup_failed("cannot add a Landlock rule for %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * The load filter has to let the dynamic loader open files read-only, and
 * seccomp cannot look at paths: where the kernel has Landlock (5.13 on),
 * confine what can be opened to the plugin itself and the system's library
 * folders. A Landlock domain also cannot inspect processes outside it, so
 * load-time code reads neither other files nor the library's memory
 * through /proc. Without Landlock the helper goes on under seccomp alone
 * (docs/vendor.md says what that leaves).
 */
static void confine_files(const char *plugin)
{
	static const char *const libraries[] = { "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib",
						 "/etc/ld.so.cache" };
	struct landlock_ruleset_attr attr = { 0 };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	int ruleset;

	if (abi < 1)
		return;
	/* Every access right this kernel knows is handled, so all but the reads below are refused. */
	attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	if (abi >= 2)
		attr.handled_access_fs |= LL_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LL_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LL_IOCTL_DEV;
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		setup_failed("cannot create a Landlock ruleset: %s", strerror(errno));
	landlock_allow(ruleset, plugin, LANDLOCK_ACCESS_FS_READ_FILE);
	for (size_t i = 0; i < sizeof(libraries) / sizeof(libraries[0]); i++)
		landlock_allow(ruleset, libraries[i], read);
	if (syscall(SYS_landlock_restrict_self, ruleset, 0))
		setup_failed("cannot enter the Landlock domain: %s", strerror(errno));
	close(ruleset);
}

static void install_load_filter(void)
{
	const uint32_t writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
	const struct sc_rule rules[] = {
		{ SYS_openat, SC_ARG_CLEAR, 2, writing },
		{ SYS_OPEN_OR_NONE, SC_ARG_CLEAR, 1, writing },
		{ SYS_read, SC_ANY, 0, 0 },
		{ SYS_pread64, SC_ANY, 0, 0 },
		{ SYS_lseek, SC_ANY, 0, 0 },
		{ SYS_close, SC_ANY, 0, 0 },
		{ SYS_FSTAT_OR_NONE, SC_ANY, 0, 0 },
		{ SYS_newfstatat, SC_ANY, 0, 0 },
		{ SYS_statx, SC_ANY, 0, 0 },
		{ SYS_mmap, SC_ANY, 0, 0 },
		{ SYS_mprotect, SC_ANY, 0, 0 },
		{ SYS_munmap, SC_ANY, 0, 0 },
		{ SYS_madvise, SC_ANY, 0, 0 },
		{ SYS_brk, SC_ANY, 0, 0 },
		{ SYS_futex, SC_ANY, 0, 0 },
		{ SYS_close_range, SC_ANY, 0, 0 },
		{ SYS_write, SC_ARG_EQ, 0, HELPER_FD_SOCKET },
		{ SYS_exit, SC_ANY, 0, 0 },
		{ SYS_exit_group, SC_ANY, 0, 0 },
		{ SYS_rt_sigreturn, SC_ANY, 0, 0 },
		{ SYS_clock_gettime, SC_ANY, 0, 0 },
		{ SYS_getrandom, SC_ANY, 0, 0 }, /* the C library's malloc seeds itself */
		{ SYS_seccomp, SC_ANY, 0, 0 },   /* to add the run filter: filters only take away */
		SELF_SIGNAL_RULES(getpid()),
	};
	int ret = sc_install(rules, sizeof(rules) / sizeof(rules[0]));

	if (ret)
		setup_failed("cannot install the seccomp load filter: %s", strerror(-ret));
}

static void install_run_filter(void)
{
	const struct sc_rule rules[] = {
		{ SYS_read, SC_ARG_EQ, 0, HELPER_FD_SOCKET },
		{ SYS_write, SC_ARG_EQ, 0, HELPER_FD_SOCKET },
		{ SYS_mmap, SC_ARG_CLEAR, 2, PROT_EXEC },
		{ SYS_mprotect, SC_ARG_CLEAR, 2, PROT_EXEC },
		{ SYS_munmap, SC_ANY, 0, 0 },
		{ SYS_mremap, SC_ANY, 0, 0 },
		{ SYS_madvise, SC_ANY, 0, 0 },
		{ SYS_brk, SC_ANY, 0, 0 },
		{ SYS_exit, SC_ANY, 0, 0 },
		{ SYS_exit_group, SC_ANY, 0, 0 },
		{ SYS_rt_sigreturn, SC_ANY, 0, 0 },
		{ SYS_restart_syscall, SC_ANY, 0, 0 },
		{ SYS_clock_gettime, SC_ANY, 0, 0 },
		{ SYS_getrandom, SC_ANY, 0, 0 },
		SELF_SIGNAL_RULES(getpid()),
	};
	int ret = sc_install(rules, sizeof(rules) / sizeof(rules[0]));

	if (ret)
		setup_failed("cannot install the seccomp run filter: %s", strerror(-ret));
}

static void *map_fd(int fd, size_t size, int prot, void *at)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) || (uint64_t)st.st_size != size)
		setup_failed("descriptor %d is not a %zu-byte memfd", fd, size);
	p = mmap(at, size, prot, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
	if (p == MAP_FAILED)
		setup_failed("cannot map descriptor %d: %s", fd, strerror(errno));
	return p;
}

/* page | input | page | page | output | page, the pages inaccessible. */
static void map_images(void)
{
	size_t bytes = shared->memfd_bytes;
	uint8_t *region;

	if (!bytes || bytes % page || bytes < shared->image_bytes || bytes > SIZE_MAX / 4)
		setup_failed("bad image sizes %llu / %llu", (unsigned long long)shared->image_bytes,
			     (unsigned long long)bytes);
	region = mmap(NULL, 2 * bytes + 4 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		setup_failed("cannot reserve %zu bytes: %s", 2 * bytes + 4 * page, strerror(errno));
	image_bytes = shared->image_bytes;
	in_image = (uint8_t *)map_fd(HELPER_FD_INPUT, bytes, PROT_READ, region + page) + bytes - image_bytes;
	out_image = (uint8_t *)map_fd(HELPER_FD_OUTPUT, bytes, PROT_READ | PROT_WRITE, region + 3 * page + bytes) +
		    bytes - image_bytes;
}

static void image_view(struct cisp_vendor_image *img, uint8_t *base)
{
	const struct cisp_vendor_stream *s = &shared->stream;
	size_t plane = (size_t)s->width * s->height;

	img->width = s->width;
	img->height = s->height;
	img->num_planes = shared->num_planes;
	img->stride = s->width;
	for (unsigned c = 0; c < 3; c++)
		img->plane[c] = c < shared->num_planes ? (uint16_t *)base + c * plane : NULL;
}

static void signal_done(void)
{
	char done = HELPER_MSG_DONE;

	if (write(HELPER_FD_SOCKET, &done, 1) != 1)
		die(HELPER_EXIT_OK); /* the library is gone */
}

static void run(const struct cisp_vendor_plugin *plugin, uint32_t num_blocks)
{
	struct cisp_vendor_block_value values[CISP_VENDOR_MAX_STAGE_BLOCKS];
	struct cisp_vendor_frame frame = { 0 };
	void *state = NULL;
	int ret;

	map_images();
	if (syscall(SYS_close_range, 0, 2, 0) || syscall(SYS_close_range, HELPER_FD_SOCKET + 1, ~0u, 0))
		setup_failed("close_range: %s", strerror(errno));
	install_run_filter();

	/* From here on, plugin code runs under the run filter only. */
	memset(shared->message, 0, sizeof(shared->message));
	ret = plugin->create ? plugin->create(&state, &shared->stream) : 0;
	shared->status = ret;
	shared->reply_sequence = 0;
	signal_done();
	if (ret)
		die(HELPER_EXIT_OK);

	image_view(&frame.in, in_image);
	image_view(&frame.out, out_image);
	frame.blocks = values;
	frame.message = shared->message;
	frame.message_size = sizeof(shared->message);
	for (;;) {
		char msg;
		ssize_t n = read(HELPER_FD_SOCKET, &msg, 1);

		if (n != 1 || msg != HELPER_MSG_RUN)
			die(HELPER_EXIT_OK);
		frame.sequence = shared->sequence;
		frame.num_blocks = num_blocks;
		for (unsigned i = 0; i < num_blocks; i++) {
			values[i] = (struct cisp_vendor_block_value){
				.type = plugin->blocks[i].type,
				.version = shared->block[i].version,
				.enabled = shared->block[i].enabled,
				.size = shared->block[i].size,
				.payload = (const uint8_t *)shared + shared->payload_offset[i],
			};
		}
		memset(shared->message, 0, sizeof(shared->message));
		shared->status = plugin->process(state, &frame);
		shared->reply_sequence = frame.sequence;
		signal_done();
	}
}

int main(int argc, char **argv)
{
	const struct cisp_vendor_plugin *plugin;
	struct helper_decl *d;
	struct stat st;
	void *handle;

	syscall(SYS_close_range, 0, 2, 0);
	if (argc != 3)
		return HELPER_EXIT_SETUP;
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (fstat(HELPER_FD_SHARED, &st) || (size_t)st.st_size < HELPER_PAYLOAD_START)
		return HELPER_EXIT_SETUP;
	shared = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, HELPER_FD_SHARED, 0);
	if (shared == MAP_FAILED) {
		shared = NULL;
		return HELPER_EXIT_SETUP;
	}
	if (shared->protocol != HELPER_PROTOCOL)
		setup_failed("protocol %u, this helper speaks %d", shared->protocol, HELPER_PROTOCOL);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		setup_failed("cannot set no_new_privs: %s", strerror(errno));
	set_limits();
	set_handlers();
	confine_files(argv[2]);
	install_load_filter();

	handle = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		setup_failed("%s", dlerror());
	plugin = dlsym(handle, CISP_VENDOR_PLUGIN_SYMBOL);
	if (!plugin)
		setup_failed("%s does not export %s", argv[2], CISP_VENDOR_PLUGIN_SYMBOL);

	d = &shared->decl;
	helper_decl_of(d, plugin);
	if (!strcmp(argv[1], HELPER_MODE_DESCRIBE)) {
		signal_done();
		return HELPER_EXIT_OK;
	}
	if (strcmp(argv[1], HELPER_MODE_RUN))
		setup_failed("unknown mode '%s'", argv[1]);
	/* The library checked this declaration when the plugin was added; check what run() relies on. */
	if (d->abi_version != CISP_VENDOR_PLUGIN_ABI || !d->has_process || d->num_blocks > CISP_VENDOR_MAX_STAGE_BLOCKS)
		setup_failed("the plugin's declaration changed since it was checked");
	run(plugin, d->num_blocks);
	return HELPER_EXIT_OK;
}
