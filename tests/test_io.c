/* SPDX-License-Identifier: MIT */
/* Image files, raw frames and Y4M. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/image_file.h>
#include <cisp/input_file.h>
#include <cisp/output_file.h>
#include <cisp/raster.h>
#include <cisp/raw_frame.h>
#include <cisp/y4m.h>

#include "cli.h"
#include "test.h"

static const char *tmp_path(const char *name)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];

	snprintf(p, 512, "%s/%s", test_tmp_dir(), name);
	return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fwrite(data, 1, n, f), n);
		fclose(f);
	}
}

static void round_trip(const char *name, unsigned channels, unsigned maxval)
{
	struct cisp_raster a, b;
	const char *path = tmp_path(name);

	CHECK_EQ(cisp_raster_alloc(&a, 7, 5, channels, maxval), 0);
	for (size_t i = 0; i < 7 * 5 * channels; i++)
		a.data[i] = (uint16_t)(test_rand() % (maxval + 1));
	CHECK_EQ(cisp_raster_write(path, &a), 0);
	CHECK_EQ(cisp_raster_read(path, &b), 0);
	CHECK_EQ(b.width, 7);
	CHECK_EQ(b.height, 5);
	CHECK_EQ(b.channels, channels);
	if (b.data)
		CHECK(!memcmp(a.data, b.data, 7 * 5 * channels * sizeof(uint16_t)));
	cisp_raster_free(&a);
	cisp_raster_free(&b);
}

TEST(raster_round_trips)
{
	round_trip("a.pgm", 1, 255);
	round_trip("b.pgm", 1, 1023);
	round_trip("c.ppm", 3, 65535);
	round_trip("d.png", 1, 255);
	round_trip("e.png", 3, 65535);
	round_trip("f.png", 3, 255);
}

TEST(raster_bad_files)
{
	struct cisp_raster r;
	static const char truncated[] = "P5\n4 4\n255\nabc";
	static const char huge[] = "P5\n99999 99999\n255\n";
	static const char text[] = "hello, this is not an image\n";
	static const char bad_max[] = "P6\n2 2\n70000\n";
	static const uint8_t png_sig_only[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13 };

	write_bytes(tmp_path("t.pgm"), truncated, sizeof(truncated) - 1);
	CHECK_ERR(cisp_raster_read(tmp_path("t.pgm"), &r), -EINVAL, "truncated");
	write_bytes(tmp_path("h.pgm"), huge, sizeof(huge) - 1);
	CHECK_ERR(cisp_raster_read(tmp_path("h.pgm"), &r), -EINVAL, "outside");
	write_bytes(tmp_path("x.txt"), text, sizeof(text) - 1);
	CHECK_ERR(cisp_raster_read(tmp_path("x.txt"), &r), -ENOTSUP, "not a PNG, PGM or PPM");
	write_bytes(tmp_path("m.ppm"), bad_max, sizeof(bad_max) - 1);
	CHECK_ERR(cisp_raster_read(tmp_path("m.ppm"), &r), -EINVAL, "maximum value 70000");
	write_bytes(tmp_path("e.png"), "", 0);
	CHECK_ERR(cisp_raster_read(tmp_path("e.png"), &r), -EINVAL, "empty");
	write_bytes(tmp_path("s.png"), png_sig_only, sizeof(png_sig_only));
	CHECK_ERR(cisp_raster_read(tmp_path("s.png"), &r), -EINVAL, "bad PNG");
	CHECK_ERR(cisp_raster_read(tmp_path("missing.png"), &r), -ENOENT, "cannot open");
	CHECK_EQ(cisp_raster_alloc(&r, 4, 4, 3, 255), 0);
	CHECK_ERR(cisp_raster_write(tmp_path("x.pgm"), &r), -EINVAL, "grey images");
	CHECK_ERR(cisp_raster_write(tmp_path("x.bmp"), &r), -EINVAL, "unknown image extension");
	cisp_raster_free(&r);
}

/* CRC-32 of PNG chunks (ISO 3309, reflected 0xedb88320). */
static uint32_t png_crc(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

TEST(raster_refuses_sizes_the_file_cannot_hold)
{
	static const char big_pgm[] = "P5\n16000 16000\n255\nabcd";
	static const char over_max[] = "P5\n2 1\n100\n\x32\xc8";
	static const char good[] = "P5\n2 1\n255\n\x10\x20";
	struct cisp_raster r, m;
	uint8_t png[4096];
	size_t n;
	FILE *f;

	/* A PNM header's promise is checked against the file before anything is allocated. */
	write_bytes(tmp_path("big.pgm"), big_pgm, sizeof(big_pgm) - 1);
	CHECK_ERR(cisp_raster_read(tmp_path("big.pgm"), &r), -EINVAL,
		  "truncated: the header promises 256000000 bytes of samples, the file holds 4");
	write_bytes(tmp_path("over.pgm"), over_max, sizeof(over_max) - 1);
	CHECK_ERR(cisp_raster_read(tmp_path("over.pgm"), &r), -EINVAL, "sample 1 is 200, over the maximum value 100");

	/* A small PNG whose header is made to claim 16000 x 16000 (with a correct CRC). */
	CHECK_EQ(cisp_raster_alloc(&r, 8, 8, 1, 255), 0);
	CHECK_EQ(cisp_raster_write(tmp_path("small.png"), &r), 0);
	cisp_raster_free(&r);
	f = fopen(tmp_path("small.png"), "rb");
	CHECK(f != NULL);
	n = f ? fread(png, 1, sizeof(png), f) : 0;
	if (f)
		fclose(f);
	CHECK(n > 33 && n < sizeof(png));
	for (int k = 0; k < 2; k++) {
		png[16 + 4 * k] = 0;
		png[17 + 4 * k] = 0;
		png[18 + 4 * k] = 16000 >> 8;
		png[19 + 4 * k] = 16000 & 255;
	}
	{
		uint32_t crc = png_crc(png + 12, 17);

		png[29] = (uint8_t)(crc >> 24);
		png[30] = (uint8_t)(crc >> 16);
		png[31] = (uint8_t)(crc >> 8);
		png[32] = (uint8_t)crc;
	}
	write_bytes(tmp_path("claims.png"), png, n);
	CHECK_ERR(cisp_raster_read(tmp_path("claims.png"), &r), -EINVAL, "16000x16000 needs more data than a file of");
	CHECK_ERR(cisp_raster_read_memory(png, n, "claims.png", &r), -EINVAL, "16000x16000 needs more data");

	/* The memory reader gives what the file reader gives. */
	write_bytes(tmp_path("good.pgm"), good, sizeof(good) - 1);
	CHECK_EQ(cisp_raster_read(tmp_path("good.pgm"), &r), 0);
	CHECK_EQ(cisp_raster_read_memory(good, sizeof(good) - 1, "good.pgm", &m), 0);
	CHECK_EQ(m.width, 2);
	CHECK_EQ(m.height, 1);
	CHECK_EQ(m.maxval, 255);
	CHECK_EQ(m.data[0], r.data[0]);
	CHECK_EQ(m.data[1], 0x20);
	cisp_raster_free(&r);
	cisp_raster_free(&m);
	CHECK_ERR(cisp_raster_read_memory(good, 0, "nothing", &m), -EINVAL, "nothing: the file is empty");
	CHECK_ERR(cisp_raster_read_memory(good, 5, "cut", &m), -EINVAL, "cut: malformed PNM header");
}

TEST(raw_dump_reader)
{
	/* A 4x2 SRGGB10P frame: 4 samples in 5 bytes per row. */
	static const uint8_t bytes[10] = { 1, 2, 3, 4, 0xe4, 5, 6, 7, 8, 0x1b };
	struct cisp_raw_frame f;

	write_bytes(tmp_path("f.raw"), bytes, sizeof(bytes));
	CHECK_ERR(cisp_raw_read_dump(tmp_path("f.raw"), CISP_FMT_SRGGB10P, 4, 4, &f), -EMSGSIZE,
		  "holds 10 bytes, but a 4x4 SRGGB10P frame is 20 bytes");
	CHECK_ERR(cisp_raw_read_dump(tmp_path("f.raw"), CISP_FMT_NV12, 4, 2, &f), -EINVAL, "not a Bayer format");
	CHECK_EQ(cisp_raw_read_dump(tmp_path("f.raw"), CISP_FMT_SRGGB10P, 4, 2, &f), 0);
	CHECK_EQ(f.white, 1023);
	CHECK_EQ(f.image.plane[0].data[4], 0xe4);
	CHECK_EQ(f.image.plane[0].data[f.image.plane[0].stride + 4], 0x1b);
	cisp_raw_frame_free(&f);
}

TEST(raw_from_raster_picks_depth)
{
	struct cisp_raster r;
	struct cisp_raw_frame f;
	struct cisp_param_state s;

	CHECK_EQ(cisp_raster_alloc(&r, 4, 4, 1, 65535), 0);
	r.data[5] = 1100; /* above the white level: clipped */
	CHECK_EQ(cisp_raw_from_raster(&r, CISP_CFA_GBRG, 64, 1023, &f), 0);
	CHECK_EQ(f.image.format, CISP_FMT_SGBRG10);
	CHECK_EQ(((uint16_t *)(f.image.plane[0].data + f.image.plane[0].stride))[1], 1023);
	cisp_param_state_init(&s);
	CHECK_EQ(cisp_raw_frame_params(&f, &s), 0);
	CHECK_EQ(s.blc.black[2], 64 << 6);
	CHECK_EQ(s.blc.white, 1023 << 6);
	cisp_raw_frame_free(&f);
	CHECK_EQ(cisp_raw_from_raster(&r, CISP_CFA_RGGB, 0, 0, &f), 0); /* white = largest sample */
	CHECK_EQ(f.white, 1100);
	CHECK_EQ(f.image.format, CISP_FMT_SRGGB12);
	cisp_raw_frame_free(&f);
	CHECK_ERR(cisp_raw_from_raster(&r, CISP_CFA_RGGB, 2000, 1000, &f), -EINVAL, "below the white level");
	CHECK_EQ(cisp_raw_from_raster(&r, CISP_CFA_RGGB, 900, 1000, &f), 0);
	CHECK_ERR(cisp_raw_frame_params(&f, &s), -EINVAL, "too small a signal range");
	cisp_raw_frame_free(&f);
	cisp_raster_free(&r);
}

TEST(raw_frame_colour_matrix)
{
	/* A camera whose raw RGB is sRGB with the blue channel at half gain. */
	static const float xyz_to_srgb[9] = { 3.2404542f, -1.5371385f, -0.4985314f, -0.9692660f, 1.8760108f,
					      0.0415560f, 0.0556434f, -0.2040259f, 1.0572252f };
	struct cisp_raw_frame f = { 0 };
	struct cisp_param_state s;

	CHECK_EQ(cisp_image_alloc(&f.image, CISP_FMT_SRGGB12, 16, 16), 0);
	f.white = 4095;
	f.has_matrix = true;
	for (int i = 0; i < 9; i++)
		f.xyz_to_cam[i] = xyz_to_srgb[i] * (i >= 6 ? 0.5f : 1.0f);
	cisp_param_state_init(&s);
	CHECK_EQ(cisp_raw_frame_params(&f, &s), 0);
	/* Daylight WB doubles blue; the CCM is then the identity. */
	CHECK_NEAR(s.wb.gain[3], 8192, 2);
	CHECK_NEAR(s.wb.gain[0], 4096, 2);
	for (int i = 0; i < 9; i++)
		CHECK_NEAR(s.ccm.coeff[i], i % 4 == 0 ? 4096 : 0, 2);
	cisp_image_free(&f.image);
}

TEST(y4m_writer)
{
	struct cisp_y4m_writer *w;
	struct cisp_image img;
	char buf[256];
	FILE *f;
	size_t n;

	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, 4, 2), 0);
	memcpy(img.plane[0].data, "ABCD", 4);
	memcpy(img.plane[0].data + img.plane[0].stride, "EFGH", 4);
	memcpy(img.plane[1].data, "uvUV", 4);
	CHECK_EQ(cisp_y4m_open(&w, tmp_path("v.y4m"), 4, 2, 30, 1, false), 0);
	CHECK_EQ(cisp_y4m_write(w, &img), 0);
	CHECK_EQ(cisp_y4m_write(w, &img), 0);
	CHECK_EQ(cisp_y4m_close(w), 0);
	f = fopen(tmp_path("v.y4m"), "rb");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	{
		const char *hdr = "YUV4MPEG2 W4 H2 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n";
		size_t h = strlen(hdr);
		CHECK_EQ(n, h + 2 * (6 + 12));
		CHECK(!memcmp(buf, hdr, h));
		CHECK(!memcmp(buf + h, "FRAME\nABCDEFGHuUvV", 18));
	}
	CHECK_ERR(cisp_y4m_open(&w, tmp_path("v.y4m"), 3, 2, 30, 1, false), -EINVAL, "even size");
	cisp_image_free(&img);
}

TEST(output_formats_by_extension)
{
	CHECK_EQ(cisp_output_format_for_path("a.png", false), CISP_FMT_RGB888);
	CHECK_EQ(cisp_output_format_for_path("dir.x/a.PNG", true), CISP_FMT_RGB48);
	CHECK_EQ(cisp_output_format_for_path("a.nv12", false), CISP_FMT_NV12);
	CHECK_EQ(cisp_output_format_for_path("a.y4m", false), CISP_FMT_I420);
	CHECK_EQ(cisp_output_format_for_path("a.y4m", true), 0);
	CHECK(strstr(cisp_last_error(), "16-bit output") != NULL);
	CHECK_EQ(cisp_output_format_for_path("a.jpg.txt", false), 0);
}

/* ---- output files and input files ---- */

static bool file_says(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, text);
}

/* Create @path with @flags, write @text, commit; the commit's result (or the creation's). */
static int write_output(const char *path, unsigned flags, const char *text)
{
	struct cisp_output_file *f;
	int ret = cisp_output_file_create(&f, path, flags);

	if (ret)
		return ret;
	fputs(text, cisp_output_file_stream(f));
	return cisp_output_file_commit(f);
}

static void check_output_rules(const char *dir)
{
	char a[512], b[512], link[512], target[512];
	struct cisp_output_file *f;
	struct stat st;

	snprintf(a, sizeof(a), "%s/a.txt", dir);
	snprintf(b, sizeof(b), "%s/b.txt", dir);
	snprintf(link, sizeof(link), "%s/link.txt", dir);
	snprintf(target, sizeof(target), "%s/target.txt", dir);

	/* Nothing at the name until the commit; then the whole file. */
	CHECK_EQ(cisp_output_file_create(&f, a, 0), 0);
	fputs("first\n", cisp_output_file_stream(f));
	CHECK(access(a, F_OK) != 0);
	CHECK(!strcmp(cisp_output_file_path(f), a));
	CHECK_EQ(cisp_output_file_commit(f), 0);
	CHECK(file_says(a, "first\n"));

	/* An existing name: refused at creation without CISP_OUTPUT_REPLACE, replaced with it. */
	CHECK_ERR(write_output(a, 0, "second\n"), -EEXIST, "a.txt exists");
	CHECK(file_says(a, "first\n"));
	CHECK_EQ(write_output(a, CISP_OUTPUT_REPLACE, "second\n"), 0);
	CHECK(file_says(a, "second\n"));

	/* A name that appears while the file is written: the commit refuses it, atomically. */
	CHECK_EQ(cisp_output_file_create(&f, b, 0), 0);
	fputs("late\n", cisp_output_file_stream(f));
	write_bytes(b, "someone else's\n", 15);
	CHECK_ERR(cisp_output_file_commit(f), -EEXIST, "b.txt exists");
	CHECK(file_says(b, "someone else's\n"));

	/* Links at the name are never followed: kept, or replaced themselves. */
	write_bytes(target, "target\n", 7);
	CHECK_EQ(symlink("target.txt", link), 0);
	CHECK_ERR(write_output(link, 0, "through the link\n"), -EEXIST, "link.txt exists");
	CHECK_EQ(write_output(link, CISP_OUTPUT_REPLACE, "instead of the link\n"), 0);
	CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(file_says(link, "instead of the link\n"));
	CHECK(file_says(target, "target\n"));
	unlink(link);
	CHECK_EQ(symlink("nowhere.txt", link), 0);
	CHECK_ERR(write_output(link, 0, "x"), -EEXIST, "link.txt exists");
	snprintf(target, sizeof(target), "%s/nowhere.txt", dir);
	CHECK(access(target, F_OK) != 0);

	/* A discarded file leaves nothing. */
	snprintf(target, sizeof(target), "%s/dropped.txt", dir);
	CHECK_EQ(cisp_output_file_create(&f, target, 0), 0);
	fputs("dropped\n", cisp_output_file_stream(f));
	cisp_output_file_discard(f);
	CHECK(access(target, F_OK) != 0);
	/* a.txt, b.txt, target.txt, link.txt: no hidden file left */
	CHECK_EQ(cli_count_entries(dir), 4);
}

TEST(output_file_rules)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s", tmp_path("outputs"));
	CHECK_EQ(mkdir(dir, 0777), 0);
	check_output_rules(dir);
	/* The same rules through hidden names, the way of file systems without O_TMPFILE. */
	setenv("CISP_NAMED_TEMP_FILES", "1", 1);
	snprintf(dir, sizeof(dir), "%s", tmp_path("outputs-named"));
	CHECK_EQ(mkdir(dir, 0777), 0);
	check_output_rules(dir);
	unsetenv("CISP_NAMED_TEMP_FILES");
}

TEST(output_file_refuses_what_it_cannot_replace)
{
	char dir[512], path[600];
	struct cisp_output_file *f;

	snprintf(dir, sizeof(dir), "%s", tmp_path("outputs-odd"));
	CHECK_EQ(mkdir(dir, 0777), 0);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK_EQ(mkfifo(path, 0666), 0);
	CHECK_ERR(cisp_output_file_create(&f, path, CISP_OUTPUT_REPLACE), -EEXIST, "is not a regular file");
	CHECK_ERR(cisp_output_file_create(&f, dir, CISP_OUTPUT_REPLACE), -EEXIST, "is not a regular file");
	snprintf(path, sizeof(path), "%s/", dir);
	CHECK_ERR(cisp_output_file_create(&f, path, 0), -EINVAL, "names a folder");
	CHECK_ERR(cisp_output_file_create(&f, "", 0), -EINVAL, "names a folder");
	snprintf(path, sizeof(path), "%s/no/such/folder.png", dir);
	CHECK_ERR(cisp_output_file_create(&f, path, 0), -ENOENT, "cannot create");
	CHECK(f == NULL);
	CHECK_EQ(cli_count_entries(dir), 1);
}

/* A write that fails (over a file size limit: the way of a full disk) fails the commit and leaves nothing. */
TEST(output_file_write_errors)
{
	char dir[512], path[600];
	static char block[65536];
	struct rlimit before, small;
	struct cisp_output_file *f;
	void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);

	snprintf(dir, sizeof(dir), "%s", tmp_path("outputs-full"));
	snprintf(path, sizeof(path), "%s/big.bin", dir);
	CHECK_EQ(mkdir(dir, 0777), 0);
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
	small = before;
	small.rlim_cur = 4096;
	CHECK_EQ(cisp_output_file_create(&f, path, 0), 0);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
	fwrite(block, 1, sizeof(block), cisp_output_file_stream(f));
	CHECK_ERR(cisp_output_file_commit(f), -EFBIG, "big.bin: write failed: File too large");
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &before), 0);
	signal(SIGXFSZ, previous);
	CHECK_EQ(cli_count_entries(dir), 0);
}

/*
 * The hidden names of unfinished outputs, removed the way a signal handler
 * does (in a child process: output files are unusable afterwards).
 */
TEST(output_file_temporaries_removed)
{
	char dir[512], path[600];
	int status = -1;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s", tmp_path("outputs-signal"));
	CHECK_EQ(mkdir(dir, 0777), 0);
	pid = fork();
	if (pid == 0) {
		struct cisp_output_file *f[3];
		int made = 0;

		setenv("CISP_NAMED_TEMP_FILES", "1", 1);
		for (int i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/out%d.bin", dir, i);
			made += cisp_output_file_create(&f[i], path, 0) == 0;
		}
		cisp_output_file_discard(f[1]);
		if (made != 3 || cli_count_entries(dir) != 2) /* two hidden files */
			_exit(1);
		cisp_output_file_remove_temporaries();
		if (cli_count_entries(dir) != 0)
			_exit(2);
		/* One made afterwards (by a thread the signal did not stop) removes itself. */
		snprintf(path, sizeof(path), "%s/late.bin", dir);
		if (cisp_output_file_create(&f[1], path, 0) != -EINTR || cli_count_entries(dir) != 0)
			_exit(3);
		_exit(0);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK_EQ(cli_count_entries(dir), 0);
}

TEST(input_file_regular_only)
{
	char fifo[512];
	uint64_t size = 0;
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s", tmp_path("in.fifo"));
	CHECK_EQ(mkfifo(fifo, 0666), 0);
	/* Without a writer, a plain open() of a FIFO would wait forever. */
	CHECK_ERR(cisp_input_file_open(fifo, &f, NULL), -EINVAL, "in.fifo: not a regular file (a FIFO)");
	CHECK_ERR(cisp_input_file_open(test_tmp_dir(), &f, NULL), -EINVAL, "not a regular file (a directory)");
	CHECK_ERR(cisp_input_file_open("/dev/zero", &f, NULL), -EINVAL,
		  "/dev/zero: not a regular file (a character device)");
	CHECK_ERR(cisp_input_file_open(tmp_path("missing"), &f, NULL), -ENOENT, "cannot open");
	CHECK(f == NULL);
	write_bytes(tmp_path("seven"), "1234567", 7);
	CHECK_EQ(cisp_input_file_open(tmp_path("seven"), &f, &size), 0);
	CHECK_EQ(size, 7);
	CHECK_EQ(fgetc(f), '1');
	if (f)
		fclose(f);
}
