/* SPDX-License-Identifier: MIT */
/*
 * cisp-vendor-helper: runs one vendor plugin for one stream, confined.
 *
 *   cisp-vendor-helper describe PLUGIN.so   report the plugin's declaration
 *   cisp-vendor-helper run PLUGIN.so        create an instance, run jobs
 *
 * The library starts it with an empty environment, the descriptors of
 * protocol.h and a parent-death signal (SIGKILL). Before any code of the
 * plugin is loaded, it:
 *  1. maps the control memfd; sets resource limits (no core dumps, no file
 *     writes, 1 GiB of data, an address space of that plus its buffers) and
 *     its signal handlers (on their own stack);
 *  2. (run) maps the image memfds between guard pages, the input read-only;
 *  3. closes every descriptor but the socket and leaves the library's
 *     working folder for /; sets no_new_privs; where the kernel has
 *     Landlock, confines file access to reading the plugin and the
 *     system's library folders;
 *  4. drops every capability (bounding and ambient sets included) and, when
 *     started as root, becomes user and group HELPER_UNPRIVILEGED_ID with no
 *     supplementary groups; asks again for the parent-death signal, which a
 *     change of user clears, and exits if its parent is already gone;
 *  5. installs its one seccomp filter, for good: what loading the plugin and
 *     running it need, and no seccomp(), prctl() or anything else that could
 *     loosen or replace the confinement;
 *  6. says READY and waits while the library checks all of that from
 *     /proc/PID/status.
 * Only then does it load the plugin (constructors run under the filter),
 * create its instance and answer every job until EOF. A memory fault or a
 * forbidden system call lands in a handler that writes what happened into
 * the control memfd and exits with a code saying so.
 *
 * This program links nothing but the C library and is built without
 * sanitizers: it is the small trusted part of the sandbox.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cisp/vendor.h>

#include "protocol.h"
#include "seccomp_filter.h"

/* Private writable memory (RLIMIT_DATA). */
#define DATA_LIMIT (1ull << 30)
/* Address space beyond the data limit and the buffers: the program, the C library, the plugin, the stack. */
#define CODE_AND_STACK (256ull << 20)
#define STACK_LIMIT (8ull << 20)

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

/* @buffers: bytes of the memfd mappings and their guard pages. */
static void set_limits(uint64_t buffers)
{
	const struct rlimit none = { 0, 0 }, data = { DATA_LIMIT, DATA_LIMIT }, stack = { STACK_LIMIT, STACK_LIMIT };
	const struct rlimit as = { DATA_LIMIT + CODE_AND_STACK + buffers, DATA_LIMIT + CODE_AND_STACK + buffers };

	if (setrlimit(RLIMIT_CORE, &none) || setrlimit(RLIMIT_FSIZE, &none) || setrlimit(RLIMIT_DATA, &data) ||
	    setrlimit(RLIMIT_STACK, &stack) || setrlimit(RLIMIT_AS, &as))
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
 * The dynamic loader has to open files read-only, and seccomp cannot look
 * at paths: where the kernel has Landlock (5.13 on), confine what can be
 * opened to the plugin itself and the system's library folders. A Landlock
 * domain also cannot inspect processes outside it, so the plugin reads
 * neither other files nor the library's memory through /proc. Without
 * Landlock the helper goes on under seccomp alone (docs/security.md says
 * what that leaves).
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

/*
 * Give up every privilege: the capability sets (the bounding set shrinks
 * only with CAP_SETPCAP; a helper without it has nothing there to lose, and
 * no_new_privs keeps it from gaining any), and root's identity. Then ask
 * again to die with the library (a change of user clears that) and check
 * the library has not died in between.
 */
static void drop_privileges(pid_t library)
{
	struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	const uid_t id = HELPER_UNPRIVILEGED_ID;
	uid_t ruid, euid, suid;

	for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			if (errno == EPERM)
				break;
			setup_failed("cannot drop capability %d from the bounding set: %s", cap, strerror(errno));
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		setup_failed("cannot clear the ambient capabilities: %s", strerror(errno));
	if (getresuid(&ruid, &euid, &suid))
		setup_failed("getresuid: %s", strerror(errno));
	if ((!ruid || !euid || !suid) && (setgroups(0, NULL) || setresgid(id, id, id) || setresuid(id, id, id)))
		setup_failed("cannot become user and group %u: %s", id, strerror(errno));
	if (syscall(SYS_capset, &header, none))
		setup_failed("cannot drop the capabilities: %s", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		setup_failed("cannot make the helper undumpable: %s", strerror(errno));
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		setup_failed("cannot ask for a parent-death signal: %s", strerror(errno));
	if (getppid() != library)
		die(HELPER_EXIT_OK); /* the library is gone */
}

/* Whether the plugin can still be read, now that the helper runs as who it runs as. */
static void check_readable(const char *plugin)
{
	int fd = open(plugin, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		setup_failed("%s: %s (the helper runs as user %u)", plugin, strerror(errno), (unsigned)geteuid());
	close(fd);
}

/*
 * The one seccomp filter, for the plugin's whole life: loading it (the
 * dynamic loader opens, reads and maps files), running it and answering
 * the library. Nothing in it can change the filter, the limits or the
 * credentials, so what the library checks before the plugin loads holds
 * until the helper exits.
 */
static void install_filter(void)
{
	const uint32_t writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
	const struct sc_rule rules[] = {
		/* Files, read-only (Landlock, where the kernel has it, says which). */
		{ SYS_openat, { SC_ARG_BITS(2, writing, 0) } },
		{ SYS_OPEN_OR_NONE, { SC_ARG_BITS(1, writing, 0) } },
		{ SYS_read },
		{ SYS_pread64 },
		{ SYS_lseek },
		{ SYS_close },
		{ SYS_FSTAT_OR_NONE },
		{ SYS_newfstatat },
		{ SYS_statx },
		/*
		 * Memory: private mappings only (the library's memfds are mapped
		 * shared before this filter, and nothing else can be: the data
		 * and address-space limits count every mapping); code only from
		 * files, and no memory both writable and executable.
		 */
		{ SYS_mmap, { SC_ARG_BITS(2, PROT_EXEC, 0), SC_ARG_BITS(3, MAP_SHARED, 0) } },
		{ SYS_mmap,
		  { SC_ARG_BITS(2, PROT_EXEC | PROT_WRITE, PROT_EXEC), SC_ARG_BITS(3, MAP_SHARED | MAP_ANONYMOUS, 0) } },
		{ SYS_mprotect, { SC_ARG_BITS(2, PROT_EXEC, 0) } },
		{ SYS_mprotect, { SC_ARG_BITS(2, PROT_WRITE, 0) } },
		{ SYS_munmap },
		{ SYS_mremap },
		{ SYS_madvise },
		{ SYS_brk },
		/* Answering the library. */
		{ SYS_write, { SC_ARG_EQ(0, HELPER_FD_SOCKET) } },
		/*
		 * What the C library does by itself: locks, clocks, seeds, the
		 * memory size (qsort), abort() (which signals only itself),
		 * returning from a signal handler, exiting.
		 */
		{ SYS_futex },
		{ SYS_clock_gettime },
		{ SYS_clock_getres },
		{ SYS_gettimeofday },
		{ SYS_getrandom },
		{ SYS_sysinfo },
		{ SYS_getpid },
		{ SYS_gettid },
		{ SYS_rt_sigprocmask },
		{ SYS_tgkill, { SC_ARG_EQ(0, (uint32_t)getpid()) } },
		{ SYS_rt_sigreturn },
		{ SYS_restart_syscall },
		{ SYS_exit },
		{ SYS_exit_group },
	};
	int ret = sc_install(rules, sizeof(rules) / sizeof(rules[0]));

	if (ret)
		setup_failed("cannot install the seccomp filter: %s", strerror(-ret));
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

/* Bytes the images and their guard pages take: page | input | page | page | output | page. */
static uint64_t images_span(void)
{
	return 2 * shared->memfd_bytes + 4 * page;
}

/* Map the images as images_span() says, the guard pages inaccessible. */
static void map_images(void)
{
	size_t bytes = shared->memfd_bytes;
	uint8_t *region;

	if (!bytes || bytes % page || bytes < shared->image_bytes || bytes > SIZE_MAX / 4)
		setup_failed("bad image sizes %llu / %llu", (unsigned long long)shared->image_bytes,
			     (unsigned long long)bytes);
	region = mmap(NULL, images_span(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		setup_failed("cannot reserve %zu bytes: %s", (size_t)images_span(), strerror(errno));
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

static void send_msg(const struct helper_msg *m)
{
	if (write(HELPER_FD_SOCKET, m, sizeof(*m)) != (ssize_t)sizeof(*m))
		die(HELPER_EXIT_OK); /* the library is gone */
}

/* The next request from the library, of @type; EOF or anything else ends the helper. */
static struct helper_msg receive(uint32_t type)
{
	struct helper_msg m;

	if (read(HELPER_FD_SOCKET, &m, sizeof(m)) != (ssize_t)sizeof(m) || m.type != type)
		die(HELPER_EXIT_OK);
	return m;
}

static void answer(const struct helper_msg *request, int status)
{
	const struct helper_msg m = { HELPER_MSG_DONE, status, request->sequence, request->nonce };

	send_msg(&m);
}

static _Noreturn void run(const struct cisp_vendor_plugin *plugin, uint32_t num_blocks, const struct helper_msg *load)
{
	struct cisp_vendor_block_value values[CISP_VENDOR_MAX_STAGE_BLOCKS];
	struct cisp_vendor_frame frame = { 0 };
	void *state = NULL;
	int ret;

	memset(shared->message, 0, sizeof(shared->message));
	ret = plugin->create ? plugin->create(&state, &shared->stream) : 0;
	answer(load, ret);
	if (ret)
		die(HELPER_EXIT_OK);

	image_view(&frame.in, in_image);
	image_view(&frame.out, out_image);
	frame.blocks = values;
	frame.message = shared->message;
	frame.message_size = sizeof(shared->message);
	for (;;) {
		struct helper_msg job = receive(HELPER_MSG_RUN);

		frame.sequence = job.sequence;
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
		answer(&job, plugin->process(state, &frame));
	}
}

int main(int argc, char **argv)
{
	const struct cisp_vendor_plugin *plugin;
	struct helper_msg load, ready = { .type = HELPER_MSG_READY };
	struct helper_decl *d;
	sigset_t none;
	struct stat st;
	void *handle;
	pid_t library = getppid();
	bool run_mode;

	/* The library starts the helper with every signal blocked. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
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
	run_mode = !strcmp(argv[1], HELPER_MODE_RUN);
	if (!run_mode && strcmp(argv[1], HELPER_MODE_DESCRIBE))
		setup_failed("unknown mode '%s'", argv[1]);

	set_limits((uint64_t)st.st_size + (run_mode ? images_span() : 0));
	set_handlers();
	if (run_mode)
		map_images();
	if (syscall(SYS_close_range, HELPER_FD_SOCKET + 1, ~0u, 0) || chdir("/"))
		setup_failed("cannot let go of the library's descriptors and folder: %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		setup_failed("cannot set no_new_privs: %s", strerror(errno));
	confine_files(argv[2]);
	drop_privileges(library);
	check_readable(argv[2]);
	install_filter();

	/* Confined for good. The library checks that from outside before any plugin code runs. */
	send_msg(&ready);
	load = receive(HELPER_MSG_LOAD);
	handle = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		setup_failed("%s", dlerror());
	plugin = dlsym(handle, CISP_VENDOR_PLUGIN_SYMBOL);
	if (!plugin)
		setup_failed("%s does not export %s", argv[2], CISP_VENDOR_PLUGIN_SYMBOL);

	d = &shared->decl;
	helper_decl_of(d, plugin);
	if (!run_mode) {
		answer(&load, 0);
		die(HELPER_EXIT_OK);
	}
	/* The library checked this declaration when the plugin was added; check what run() relies on. */
	if (d->abi_version != CISP_VENDOR_PLUGIN_ABI || !d->has_process || d->num_blocks > CISP_VENDOR_MAX_STAGE_BLOCKS)
		setup_failed("the plugin's declaration changed since it was checked");
	run(plugin, d->num_blocks, &load);
}
