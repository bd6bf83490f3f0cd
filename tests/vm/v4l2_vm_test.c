/* SPDX-License-Identifier: MIT */
/*
 * cisp-v4l2-vm-test: the V4L2 sensor backend against the kernel's test
 * drivers vimc and vivid, run inside the VM of tests/vm/run.sh (it needs
 * root and the modules loaded; on an ordinary machine it reports what is
 * missing and fails).
 *
 * Through the public sensor API only: list the cameras, capture Bayer
 * frames of several formats and sizes with a single-colour test pattern and
 * the on-screen text off, check the colour at the CFA sites of the raw frame
 * and after developing it through the ISP, check that frames repeat byte
 * for byte, that sequences and timestamps advance, that the packed and
 * 16-bit variants hold the same samples, that a wrong pipeline fails with a
 * clear EPIPE message, and that unplugging a streaming camera stops it
 * cleanly.
 *
 * Output: "ok ..." / "FAIL ..." lines and a final "RESULT pass|fail"; the
 * exit status is 0 only when every check passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/isp.h>
#include <cisp/sensor.h>

#include "sensor/v4l2/v4l2.h"
#include "expect.h"

/* The camera whose description contains @what (and @what2 if given). */
static int find_camera(const struct cisp_sensor_desc *list, int n, const char *what, const char *what2, char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i].backend, "v4l2") && strstr(list[i].description, what) &&
		    (!what2 || strstr(list[i].description, what2))) {
			strcpy(name, list[i].name);
			return 0;
		}
	return -1;
}

static int find_mode(struct cisp_sensor *s, const char *name)
{
	for (unsigned i = 0; i < cisp_sensor_info(s)->num_modes; i++) {
		struct cisp_sensor_mode m;

		cisp_sensor_get_mode(s, i, &m);
		if (!strcmp(m.name, name))
			return (int)i;
	}
	return -1;
}

static uint32_t fnv1a(const struct cisp_image *img)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	size_t row = (size_t)img->width * (f->bits > 8 ? 2 : 1);
	uint32_t h = 2166136261u;

	if (f->packed)
		row = f->bits == 10 ? (size_t)img->width * 5 / 4 : (size_t)img->width * 3 / 2;
	for (uint32_t y = 0; y < img->height; y++)
		for (size_t x = 0; x < row; x++)
			h = (h ^ img->plane[0].data[y * img->plane[0].stride + x]) * 16777619u;
	return h;
}

/* Mean of each colour channel (R, Gr, Gb, B) of an unpacked Bayer image, as a fraction of full scale. */
static void site_means(const struct cisp_image *img, double mean[4])
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	double sum[4] = { 0 }, full = (double)((1u << f->bits) - 1);
	unsigned cnt[4] = { 0 };

	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++) {
			const uint8_t *p = img->plane[0].data + y * img->plane[0].stride;
			unsigned v = f->bits == 8 ? p[x] : (unsigned)(p[2 * x] | p[2 * x + 1] << 8);
			enum cisp_channel ch = cisp_cfa_channel(f->cfa, x, y);

			sum[ch] += v;
			cnt[ch]++;
		}
	for (int c = 0; c < 4; c++)
		mean[c] = sum[c] / cnt[c] / full;
}

/* Develop through the ISP to RGB888 and return the mean R, G, B of the centre (0..255). */
static int develop(const struct cisp_image *raw, double rgb[3])
{
	struct cisp_isp_config cfg = { .input_format = raw->format, .width = raw->width, .height = raw->height };
	struct cisp_isp *isp = NULL;
	struct cisp_image out;
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &out };
	double sum[3] = { 0 };
	unsigned n = 0;
	int ret;

	cfg.output[0].format = CISP_FMT_RGB888;
	cfg.output[0].width = raw->width;
	cfg.output[0].height = raw->height;
	ret = cisp_isp_create(&isp, &cfg);
	if (ret < 0)
		return ret;
	ret = cisp_image_alloc(&out, CISP_FMT_RGB888, raw->width, raw->height);
	if (ret == 0)
		ret = cisp_isp_process(isp, raw, outs, NULL, NULL);
	for (uint32_t y = raw->height / 4; ret == 0 && y < raw->height * 3 / 4; y++)
		for (uint32_t x = raw->width / 4; x < raw->width * 3 / 4; x++, n++)
			for (int c = 0; c < 3; c++)
				sum[c] += out.plane[0].data[y * out.plane[0].stride + 3 * x + c];
	for (int c = 0; c < 3 && n; c++)
		rgb[c] = sum[c] / n;
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	return ret;
}

/*
 * One capture case: mode @mode_name with pattern @colour (0 red, 1 green,
 * 2 blue); @frames frames into an image of the mode's format.
 */
static void capture_case(const char *cam, const char *options, const char *mode_name, int colour, unsigned frames)
{
	static const char *const patterns[] = { "100% Red", "100% Green", "100% Blue" };
	static const char *const names[] = { "red", "green", "blue" };
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode m;
	struct cisp_image img = { 0 }, wide = { 0 }, packed = { 0 };
	uint32_t hash0 = 0;
	bool same = true, seq_ok = true, ts_ok = true;
	uint64_t last_ts = 0;
	char opts[256];
	int idx, ret;

	snprintf(opts, sizeof(opts), "%s,pattern=%s", options, patterns[colour]);
	ret = cisp_sensor_open(&s, cam, opts);
	if (ret < 0) {
		EXPECT(0, "%s %s: open: %s", cam, mode_name, cisp_last_error());
		return;
	}
	idx = find_mode(s, mode_name);
	if (idx < 0) {
		EXPECT(0, "%s: no mode '%s'", cam, mode_name);
		cisp_sensor_close(s);
		return;
	}
	cisp_sensor_set_mode(s, (unsigned)idx);
	cisp_sensor_get_mode(s, (unsigned)idx, &m);
	cisp_image_alloc(&img, m.format, m.width, m.height);
	ret = cisp_sensor_start(s);
	if (ret < 0) {
		EXPECT(0, "%s %s: start: %s", cam, mode_name, cisp_last_error());
		goto out;
	}
	for (unsigned i = 0; i < frames && ret == 0; i++) {
		struct cisp_sensor_metadata md;

		ret = cisp_sensor_capture(s, &img, &md, 0);
		if (ret < 0)
			break;
		if (md.sequence != i)
			seq_ok = false;
		if (i > 0 && md.timestamp_ns <= last_ts)
			ts_ok = false;
		last_ts = md.timestamp_ns;
		if (i == 0)
			hash0 = fnv1a(&img);
		else if (fnv1a(&img) != hash0)
			same = false;
	}
	/* The same stream into the 16-bit variant: every sample shifted up by 16 - bits. */
	if (ret == 0 && m.bits < 16) {
		double a[4], b[4], scale = (double)(1u << (16 - m.bits)) * ((1u << m.bits) - 1) / 65535.0;
		bool equal = true;

		cisp_image_alloc(&wide, cisp_bayer_format(m.cfa, 16, false), m.width, m.height);
		ret = cisp_sensor_capture(s, &wide, NULL, 0);
		if (ret == 0) {
			site_means(&img, a);
			site_means(&wide, b);
			for (int c = 0; c < 4; c++)
				if (a[c] * scale - b[c] > 1e-9 || b[c] - a[c] * scale > 1e-9)
					equal = false;
			EXPECT(equal, "%s %s: the 16-bit capture holds the same samples shifted up by %u (R %.4f/%.4f)",
			       cam, mode_name, 16 - m.bits, a[0], b[0]);
		}
	}
	if (ret == 0 && (m.bits == 10 || m.bits == 12)) {
		cisp_image_alloc(&packed, cisp_bayer_format(m.cfa, m.bits, true), m.width, m.height);
		ret = cisp_sensor_capture(s, &packed, NULL, 0);
		if (ret == 0) {
			double r1[3], r2[3];

			develop(&img, r1);
			develop(&packed, r2);
			EXPECT(r1[0] == r2[0] && r1[1] == r2[1] && r1[2] == r2[2],
			       "%s %s: the CSI-2 packed capture develops to the same image", cam, mode_name);
		}
	}
	EXPECT(ret == 0, "%s %s: captured %u frames%s%s", cam, mode_name, frames, ret ? ": " : "",
	       ret ? cisp_last_error() : "");
	if (ret == 0) {
		double site[4], rgb[3] = { 0 };
		int want = colour == 0 ? CISP_CH_R : colour == 2 ? CISP_CH_B : CISP_CH_GR;
		bool raw_ok = true, dev_ok;

		site_means(&img, site);
		for (int ch = 0; ch < 4; ch++) {
			bool on = ch == want || (colour == 1 && ch == CISP_CH_GB);

			if (on ? site[ch] < 0.7 : site[ch] > 0.1)
				raw_ok = false;
		}
		EXPECT(raw_ok, "%s %s %s: raw CFA site means R %.3f Gr %.3f Gb %.3f B %.3f", cam, mode_name, names[colour],
		       site[0], site[1], site[2], site[3]);
		ret = develop(&img, rgb);
		dev_ok = ret == 0 && rgb[colour] > 150 && rgb[(colour + 1) % 3] < 0.25 * rgb[colour] &&
			 rgb[(colour + 2) % 3] < 0.25 * rgb[colour];
		EXPECT(dev_ok, "%s %s %s: developed centre mean RGB %.1f %.1f %.1f", cam, mode_name, names[colour], rgb[0],
		       rgb[1], rgb[2]);
		EXPECT(seq_ok && ts_ok, "%s %s: sequences 0..%u in order, timestamps increasing", cam, mode_name,
		       frames - 1);
		EXPECT(same, "%s %s: %u frames identical (fnv1a %08x)", cam, mode_name, frames, hash0);
	}
	printf("     dmabuf export: %s\n", v4l2_dmabuf_exported(s) ? "yes" : "no");
	cisp_sensor_stop(s);
out:
	cisp_image_free(&img);
	cisp_image_free(&wide);
	cisp_image_free(&packed);
	cisp_sensor_close(s);
}

/* Mean of the developed image over columns [x0, x1), all rows (0..255, the three channels together). */
static double column_mean(const struct cisp_image *raw, uint32_t x0, uint32_t x1)
{
	struct cisp_isp_config cfg = { .input_format = raw->format, .width = raw->width, .height = raw->height };
	struct cisp_isp *isp = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &out };
	double sum = 0;

	cfg.output[0] = (struct cisp_output_config){ CISP_FMT_RGB888, raw->width, raw->height };
	if (cisp_isp_create(&isp, &cfg) < 0 || cisp_image_alloc(&out, CISP_FMT_RGB888, raw->width, raw->height) < 0 ||
	    cisp_isp_process(isp, raw, outs, NULL, NULL) < 0)
		sum = -1;
	for (uint32_t y = 0; sum >= 0 && y < raw->height; y++)
		for (uint32_t x = x0; x < x1; x++)
			sum += out.plane[0].data[y * out.plane[0].stride + 3 * x] +
			       out.plane[0].data[y * out.plane[0].stride + 3 * x + 1] +
			       out.plane[0].data[y * out.plane[0].stride + 3 * x + 2];
	cisp_image_free(&out);
	cisp_isp_destroy(isp);
	return sum < 0 ? -1 : sum / (3.0 * raw->height * (x1 - x0));
}

/* The flip controls through cisp's control API: colour bars run white (left) to black (right), flipped the other way. */
static void flip_case(const char *cam, const char *osd)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_control_info ci;
	struct cisp_sensor_mode m;
	struct cisp_image img = { 0 };
	char opts[128];
	int idx;

	snprintf(opts, sizeof(opts), "%s,pattern=75%% Colorbar", osd);
	if (cisp_sensor_open(&s, cam, opts) < 0 || (idx = find_mode(s, "SGRBG8 640x480")) < 0 ||
	    cisp_sensor_set_mode(s, (unsigned)idx) < 0 || cisp_sensor_get_mode(s, (unsigned)idx, &m) < 0 ||
	    cisp_image_alloc(&img, m.format, m.width, m.height) < 0) {
		EXPECT(0, "%s: flip test set-up: %s", cam, cisp_last_error());
		goto out;
	}
	cisp_sensor_control_info(s, CISP_SENSOR_HFLIP, &ci);
	EXPECT(ci.supported && ci.max == 1, "%s: horizontal flip control (delay %u)", cam, ci.delay);
	for (int flip = 0; flip < 2 && ci.supported; flip++) {
		struct cisp_sensor_controls c = { 0 };
		struct cisp_sensor_metadata md = { 0 };
		double left, right;
		int ret;

		cisp_sensor_controls_set(&c, CISP_SENSOR_HFLIP, flip);
		ret = cisp_sensor_set_controls(s, &c);
		if (ret == 0)
			ret = cisp_sensor_start(s);
		for (int i = 0; i < 2 && ret == 0; i++)
			ret = cisp_sensor_capture(s, &img, &md, 0);
		cisp_sensor_stop(s);
		if (ret < 0) {
			EXPECT(0, "%s: capture with hflip %d: %s", cam, flip, cisp_last_error());
			break;
		}
		left = column_mean(&img, 0, m.width / 16);
		right = column_mean(&img, m.width - m.width / 16, m.width);
		EXPECT(md.controls[CISP_SENSOR_HFLIP] == flip && (flip ? right > left + 100 : left > right + 100),
		       "%s: hflip %d (metadata %d): developed left edge %.1f, right edge %.1f", cam, flip,
		       md.controls[CISP_SENSOR_HFLIP], left, right);
	}
out:
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

/* The sensor at one format, the capture node at another: EPIPE with the mismatch named. */
static void wrong_pipeline(const char *cam)
{
	struct cisp_sensor *s = NULL;
	int idx, ret;

	/* Leave the sensor at SGRBG12 1280x720 (pipeline=auto), then ask for SRGGB8 640x480 without set-up. */
	if (cisp_sensor_open(&s, cam, NULL) < 0 || (idx = find_mode(s, "SGRBG12 1280x720")) < 0) {
		EXPECT(0, "%s: open for the pipeline test: %s", cam, cisp_last_error());
		cisp_sensor_close(s);
		return;
	}
	cisp_sensor_set_mode(s, (unsigned)idx);
	ret = cisp_sensor_start(s);
	cisp_sensor_stop(s);
	cisp_sensor_close(s);
	s = NULL;
	if (ret < 0 || cisp_sensor_open(&s, cam, "pipeline=manual") < 0 || (idx = find_mode(s, "SRGGB8 640x480")) < 0) {
		EXPECT(0, "%s: pipeline test set-up: %s", cam, cisp_last_error());
		cisp_sensor_close(s);
		return;
	}
	cisp_sensor_set_mode(s, (unsigned)idx);
	ret = cisp_sensor_start(s);
	EXPECT(ret == -EPIPE && strstr(cisp_last_error(), "pipeline mismatch"),
	       "%s: a wrong pipeline fails with EPIPE (ret %d): %s", cam, ret, cisp_last_error());
	if (ret == 0)
		cisp_sensor_stop(s);
	/* And the same camera works again once cisp sets the pipeline up. */
	cisp_sensor_set_option(s, "pipeline", "auto");
	ret = cisp_sensor_start(s);
	EXPECT(ret == 0, "%s: starts again with pipeline=auto%s%s", cam, ret ? ": " : "", ret ? cisp_last_error() : "");
	cisp_sensor_stop(s);
	cisp_sensor_close(s);
}

/* As an unprivileged user: the camera is listed with the reason, and opening it says why it fails. */
static void no_permission(const char *cam)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct cisp_sensor_desc list[64];
		struct cisp_sensor *s = NULL;
		int n, listed = 0, ret;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		n = cisp_sensor_enumerate(list, 64);
		for (int i = 0; i < n && i < 64; i++)
			listed += !strcmp(list[i].name, cam) && strstr(list[i].description, "no permission");
		ret = cisp_sensor_open(&s, cam, NULL);
		printf("     as uid 65534: listed %d, open %d: %s\n", listed, ret, cisp_last_error());
		_exit(listed == 1 && ret == -EACCES && strstr(cisp_last_error(), "no permission to open") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: without permission: listed with the reason, open fails with EACCES",
	       cam);
}

/* Two users of one camera: the second start fails with EBUSY and says so. */
static void busy(const char *cam)
{
	struct cisp_sensor *a = NULL, *b = NULL;
	int ret;

	if (cisp_sensor_open(&a, cam, NULL) < 0 || cisp_sensor_start(a) < 0 || cisp_sensor_open(&b, cam, NULL) < 0) {
		EXPECT(0, "%s: busy test set-up: %s", cam, cisp_last_error());
	} else {
		ret = cisp_sensor_start(b);
		EXPECT(ret == -EBUSY && strstr(cisp_last_error(), "busy"), "%s: a second start fails with EBUSY: %s", cam,
		       cisp_last_error());
	}
	cisp_sensor_close(b);
	cisp_sensor_close(a);
}

/* Unbind the driver of a streaming camera: capture fails with ENODEV, stop and close are clean. */
static void unplug(const char *cam, const char *unbind_path, const char *device)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode m;
	struct cisp_image img = { 0 };
	int fd, ret;

	if (cisp_sensor_open(&s, cam, "timeout_ms=3000") < 0 || cisp_sensor_get_mode(s, 0, &m) < 0 ||
	    cisp_image_alloc(&img, m.format, m.width, m.height) < 0 || cisp_sensor_start(s) < 0 ||
	    cisp_sensor_capture(s, &img, NULL, 0) < 0) {
		EXPECT(0, "%s: unplug test set-up: %s", cam, cisp_last_error());
		goto out;
	}
	fd = open(unbind_path, O_WRONLY);
	if (fd < 0 || write(fd, device, strlen(device)) < 0) {
		EXPECT(0, "unbind %s through %s: %s", device, unbind_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	ret = cisp_sensor_capture(s, &img, NULL, 0);
	EXPECT(ret == -ENODEV, "%s: capture after unplug fails with ENODEV (ret %d): %s", cam, ret, cisp_last_error());
	ret = cisp_sensor_stop(s);
	EXPECT(ret == 0, "%s: stop after unplug", cam);
	ret = cisp_sensor_start(s);
	EXPECT(ret == -ENODEV, "%s: start after unplug fails with ENODEV: %s", cam, cisp_last_error());
out:
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

int main(void)
{
	struct cisp_sensor_desc list[64];
	char vimc[128], vivid[128], vivid_mp[128];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	n = cisp_sensor_enumerate(list, 64);
	printf("cameras (%d):\n", n);
	for (int i = 0; i < n && i < 64; i++)
		printf("  %-28s %-8s %s\n", list[i].name, list[i].backend, list[i].description);
	n = n < 64 ? n : 64;
	EXPECT(find_camera(list, n, "vimc", "Sensor A", vimc) == 0, "vimc camera listed");
	EXPECT(find_camera(list, n, "vivid-000", NULL, vivid) == 0, "vivid camera listed");
	EXPECT(find_camera(list, n, "vivid-001", "multi-planar", vivid_mp) == 0, "multi-planar vivid camera listed");
	/* vimc's processed nodes (after Debayer and Scaler) are not raw cameras. */
	for (int i = 0; i < n; i++)
		if (strstr(list[i].description, "RGB/YUV"))
			EXPECT(0, "%s is not a raw camera but was listed", list[i].name);

	if (find_camera(list, n, "vimc", "Sensor A", vimc) == 0) {
		const char *osd = "control.show_information=None";

		capture_case(vimc, osd, "SGRBG8 640x480", 0, 4);
		capture_case(vimc, osd, "SGRBG8 640x480", 2, 2);
		capture_case(vimc, osd, "SRGGB8 1920x1080", 0, 2);
		capture_case(vimc, osd, "SRGGB8 1920x1080", 1, 2);
		capture_case(vimc, osd, "SBGGR10 640x480", 2, 2);
		capture_case(vimc, osd, "SGRBG12 1280x720", 0, 2);
		flip_case(vimc, osd);
		wrong_pipeline(vimc);
		busy(vimc);
		no_permission(vimc);
	}
	if (find_camera(list, n, "vivid-001", "multi-planar", vivid_mp) == 0) {
		const char *osd = "control.osd_text_mode=None";

		capture_case(vivid_mp, osd, "SGRBG8 640x480", 0, 2);
		capture_case(vivid_mp, osd, "SRGGB12 1280x720", 2, 2);
	}
	if (find_camera(list, n, "vivid-000", NULL, vivid) == 0) {
		const char *osd = "control.osd_text_mode=None";

		capture_case(vivid, osd, "SGRBG8 640x480", 0, 2);
		capture_case(vivid, osd, "SRGGB8 1920x1080", 2, 2);
		capture_case(vivid, osd, "SGBRG10 640x480", 1, 2);
		capture_case(vivid, osd, "SRGGB12 640x480", 0, 2);
		capture_case(vivid, osd, "SBGGR16 640x480", 2, 2);
		flip_case(vivid, osd);
		busy(vivid);
		if (access("/sys/bus/platform/drivers/vivid/unbind", W_OK) == 0)
			unplug(vivid, "/sys/bus/platform/drivers/vivid/unbind", "vivid.0");
	}
	printf("RESULT %s (%d failed)\n", failures ? "fail" : "pass", failures);
	return failures ? 1 : 0;
}
