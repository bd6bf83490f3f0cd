/* SPDX-License-Identifier: MIT */
/*
 * cisp-webcam-reader: reads a webcam the way applications do (plain V4L2
 * capture: S_FMT, REQBUFS, mmap, QBUF/DQBUF), for the VM test of
 * `cisp webcam` (tests/vm/webcam_vm_test.sh). It uses no part of cisp.
 *
 *   cisp-webcam-reader DEVICE FRAMES FPS MIN_FPS bars|black
 *
 * Captures FRAMES frames of YUYV from DEVICE (a path, or the card name as
 * in /sys/class/video4linux/videoN/name), checks that the device offers
 * its writer's format whatever the reader asks for, measures the frame
 * rate from the buffers' timestamps (the writer's write times) and prints
 * it, asserting it between MIN_FPS and FPS + 15%, and checks the colour of
 * the last frame: vimc's "75% Colorbar" pattern (eight bars: white,
 * yellow, cyan, green, magenta, red, blue, black) or black.
 * Output: "ok ..."/"FAIL ..." lines; exit status 0 when all passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define NUM_BUFFERS 4

static int failures;

#define EXPECT(cond, ...)                                          \
	do {                                                       \
		printf((cond) ? "ok   " : "FAIL ");                \
		failures += !(cond);                               \
		printf(__VA_ARGS__);                               \
		printf("\n");                                      \
	} while (0)

/* The /dev path of a node whose sysfs name is @name, or @name itself when it is a path. */
static const char *find_device(const char *name, char *out, size_t size)
{
	glob_t g;

	if (name[0] == '/')
		return name;
	if (glob("/sys/class/video4linux/video*/name", 0, NULL, &g))
		return NULL;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char text[64] = "";
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (!f)
			continue;
		if (fgets(text, sizeof(text), f))
			text[strcspn(text, "\n")] = 0;
		fclose(f);
		if (!strcmp(text, name)) {
			const char *node = strstr(g.gl_pathv[i], "video4linux/") + strlen("video4linux/");

			snprintf(out, size, "/dev/%.*s", (int)strcspn(node, "/"), node);
			globfree(&g);
			return out;
		}
	}
	globfree(&g);
	return NULL;
}

/* Mean Y, Cb, Cr of the 16x16 block centred at (@cx, @cy) of a YUYV frame. */
static void block_mean(const uint8_t *f, unsigned stride, unsigned cx, unsigned cy, double yuv[3])
{
	double s[3] = { 0, 0, 0 };

	for (unsigned y = cy - 8; y < cy + 8; y++)
		for (unsigned x = (cx - 8) & ~1u; x < cx + 8; x += 2) {
			const uint8_t *p = f + y * stride + x * 2;

			s[0] += p[0] + p[2];
			s[1] += 2 * p[1];
			s[2] += 2 * p[3];
		}
	for (int c = 0; c < 3; c++)
		yuv[c] = s[c] / (16.0 * 16.0);
}

static void check_bars(const uint8_t *f, unsigned w, unsigned h, unsigned stride)
{
	static const char *const names[8] = { "white", "yellow", "cyan", "green", "magenta", "red", "blue", "black" };
	/* The sign of Cb - 128 and Cr - 128 of each bar (0: near neutral). */
	static const int cb[8] = { 0, -1, 1, -1, 1, -1, 1, 0 };
	static const int cr[8] = { 0, 1, -1, -1, 1, 1, -1, 0 };
	double yuv[8][3];

	for (int b = 0; b < 8; b++) {
		block_mean(f, stride, (unsigned)((b + 0.5) * w / 8), h / 2, yuv[b]);
		printf("     bar %-7s Y %5.1f Cb %5.1f Cr %5.1f\n", names[b], yuv[b][0], yuv[b][1], yuv[b][2]);
	}
	for (int b = 0; b < 8; b++) {
		double dcb = yuv[b][1] - 128, dcr = yuv[b][2] - 128;
		bool good = cb[b] ? dcb * cb[b] > 8 : dcb > -24 && dcb < 24;

		good = good && (cr[b] ? dcr * cr[b] > 8 : dcr > -24 && dcr < 24);
		EXPECT(good, "bar %d (%s): chroma Cb %+.0f Cr %+.0f has the bar's signs", b, names[b], dcb, dcr);
	}
	/* Luma falls bar by bar, white to black, as the pattern's does. */
	for (int b = 1; b < 8; b++)
		EXPECT(yuv[b][0] < yuv[b - 1][0], "bar %s darker than bar %s (%.0f < %.0f)", names[b], names[b - 1],
		       yuv[b][0], yuv[b - 1][0]);
	EXPECT(yuv[0][0] > 150 && yuv[7][0] < 60, "white bar bright (%.0f), black bar dark (%.0f)", yuv[0][0],
	       yuv[7][0]);
}

static void check_black(const uint8_t *f, unsigned w, unsigned h, unsigned stride)
{
	double yuv[3];

	block_mean(f, stride, w / 2, h / 2, yuv);
	EXPECT(yuv[0] <= 17 && yuv[1] > 126 && yuv[1] < 130 && yuv[2] > 126 && yuv[2] < 130,
	       "black frame while the camera is away (Y %.0f Cb %.0f Cr %.0f)", yuv[0], yuv[1], yuv[2]);
}

int main(int argc, char **argv)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_requestbuffers rb = { .count = NUM_BUFFERS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_capability cap;
	void *map[NUM_BUFFERS];
	size_t len[NUM_BUFFERS];
	char path[64];
	const char *dev;
	double first = 0, last = 0;
	int fd, frames, want;
	double fps, min_fps;

	if (argc != 6 || (frames = atoi(argv[2])) < 2 || (fps = atof(argv[3])) <= 0 ||
	    (min_fps = atof(argv[4])) <= 0 || (strcmp(argv[5], "bars") && strcmp(argv[5], "black"))) {
		fprintf(stderr, "usage: cisp-webcam-reader DEVICE FRAMES FPS MIN_FPS bars|black\n");
		return 2;
	}
	dev = find_device(argv[1], path, sizeof(path));
	fd = dev ? open(dev, O_RDWR) : -1;
	EXPECT(fd >= 0, "open %s (%s): %s", argv[1], dev ? dev : "not found", fd >= 0 ? "" : strerror(errno));
	if (fd < 0)
		return 1;
	EXPECT(ioctl(fd, VIDIOC_QUERYCAP, &cap) == 0 && (cap.device_caps & V4L2_CAP_VIDEO_CAPTURE),
	       "%s is a capture device (%s, %s)", dev, cap.driver, cap.card);
	/* Ask for NV12 at another size: a webcam gives what it carries, as applications expect. */
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_NV12;
	fmt.fmt.pix.width = 320;
	fmt.fmt.pix.height = 240;
	ioctl(fd, VIDIOC_S_FMT, &fmt);
	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	EXPECT(ioctl(fd, VIDIOC_G_FMT, &fmt) == 0 && fmt.fmt.pix.pixelformat == V4L2_PIX_FMT_YUYV &&
		       fmt.fmt.pix.width == 640 && fmt.fmt.pix.height == 480,
	       "format negotiated to the writer's YUYV 640x480 (got %.4s %ux%u)", (char *)&fmt.fmt.pix.pixelformat,
	       fmt.fmt.pix.width, fmt.fmt.pix.height);
	if (ioctl(fd, VIDIOC_REQBUFS, &rb) < 0 || rb.count < 2) {
		EXPECT(0, "REQBUFS: %s", strerror(errno));
		return 1;
	}
	for (unsigned i = 0; i < rb.count && i < NUM_BUFFERS; i++) {
		struct v4l2_buffer b = { .index = i, .type = type, .memory = V4L2_MEMORY_MMAP };

		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0 ||
		    (map[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset)) == MAP_FAILED ||
		    ioctl(fd, VIDIOC_QBUF, &b) < 0) {
			EXPECT(0, "buffer %u: %s", i, strerror(errno));
			return 1;
		}
		len[i] = b.length;
	}
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0) {
		EXPECT(0, "STREAMON: %s", strerror(errno));
		return 1;
	}
	want = frames;
	for (int n = 0; n < want; n++) {
		struct v4l2_buffer b = { .type = type, .memory = V4L2_MEMORY_MMAP };
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 10000) != 1 || ioctl(fd, VIDIOC_DQBUF, &b) < 0) {
			EXPECT(0, "frame %d did not come within 10 s: %s", n, strerror(errno));
			return 1;
		}
		double t = b.timestamp.tv_sec + b.timestamp.tv_usec / 1e6;
		if (n == 0)
			first = t;
		last = t;
		if (n == want - 1) {
			EXPECT(b.bytesused >= 640 * 480 * 2 && b.index < NUM_BUFFERS && len[b.index] >= 640 * 480 * 2,
			       "frame of %u bytes", b.bytesused);
			if (!strcmp(argv[5], "bars"))
				check_bars(map[b.index], 640, 480, 640 * 2);
			else
				check_black(map[b.index], 640, 480, 640 * 2);
		}
		ioctl(fd, VIDIOC_QBUF, &b);
	}
	ioctl(fd, VIDIOC_STREAMOFF, &type);
	close(fd);
	double measured = last > first ? (frames - 1) / (last - first) : 0;
	printf("     %d frames in %.2f s: %.1f fps (%g requested)\n", frames, last - first, measured, fps);
	/* Never faster than asked: the writer paces on CLOCK_MONOTONIC, vimc gives up to 60 fps. */
	EXPECT(measured <= fps * 1.15 && measured >= min_fps, "rate %.1f fps within [%.1f, %.1f]", measured, min_fps,
	       fps * 1.15);
	return failures ? 1 : 0;
}
