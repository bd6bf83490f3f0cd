/* SPDX-License-Identifier: MIT */
/*
 * Face detection and face-priority AE on the virtual sensor (docs/faces.md).
 *
 *   bench-faces KODAK_DIR WORK_DIR [FRAMES]
 *   bench-faces cascades KODAK_DIR CASCADE...
 *
 * The second form chooses the cascade: each OpenCV cascade file runs on
 * the 24 Kodak images themselves (sRGB luma, box-averaged to 384x256 as
 * the camera's copy is) and on darker versions of them (the linear
 * reflectance x0.1 of set B, re-encoded), with the camera's detector
 * settings; it prints the images with a face found, faces on face-free
 * images, and the time of one detection.
 *
 * The first form measures the camera:
 * Each scene is rendered by the virtual sensor cisp-8m10 (binned mode,
 * 1632x1224, NV12 main and a 640x480 NV12 preview) for FRAMES frames
 * (default 24); the last third are measured. Scenes:
 *  - the Kodak set, face detection on: the frames with a face, per image
 *    (which images show faces is the set's, listed below);
 *  - backlit composites written to WORK_DIR: a portrait at a quarter of its
 *    reflectance on a white window, under D65 at 400 lux (set A); the
 *    same portraits at a tenth of their reflectance (a darker skin tone)
 *    under illuminant A at 150 lux (set B, chosen for being different).
 *    Each runs without and with face detection: the mean luma (Y, 0..255)
 *    of the central 60% of the face found is printed for both.
 * Cost: the mean time of one detection and of one frame's ISP job
 * (metadata isp_ns) in the same runs, and their ratio; the CPU model and
 * load are printed with them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/raster.h>

#include "camera/camera_internal.h"
#include "faces/detector.h"

#define NREQ 3
#define PREVIEW_W 640
#define PREVIEW_H 480

/*
 * Kodak images with a face a viewer sees: kodim04 and kodim15 (portraits),
 * kodim17 (a street performer painted white), kodim18 (a dark-skinned
 * woman, her face about a fifteenth of the frame high). The others count as
 * face-free (kodim05's riders wear helmets, kodim14's rafters are tiny).
 */
static const char *const kodak_faces[] = { "kodim04", "kodim15", "kodim17", "kodim18", NULL };
/*
 * The sensor's 4:3 view of the portrait-oriented kodim17 and kodim18 (512 x
 * 768, scaled to cover the view) keeps their middle rows: the faces are cut
 * off, so the camera runs count them neither as faces nor as face-free.
 */
static const char *const kodak_faces_cut[] = { "kodim17", "kodim18", NULL };
static const char *const portraits[] = { "kodim04", "kodim15" };

struct run {
	unsigned measured, with_face;      /* frames measured, and those reporting a face */
	unsigned faces;                    /* faces reported over the measured frames */
	struct cisp_camera_face largest;   /* of the last measured frame with a face */
	double face_y;                     /* mean Y of a rectangle given to the run, last frame */
	double isp_ns;                     /* ISP time per frame */
	uint64_t detections, detect_ns;
};

static double mean_y(const struct cisp_image *img, const struct cisp_camera_face *f)
{
	/* The central 60% of the rectangle: the skin AE meters. */
	int x0 = f->x + f->width / 5, x1 = f->x + f->width * 4 / 5, y0 = f->y + f->height / 5, y1 = f->y + f->height * 4 / 5;
	double sum = 0;
	unsigned n = 0;

	for (int y = y0 < 0 ? 0 : y0; y < y1 && y < (int)img->height; y++)
		for (int x = x0 < 0 ? 0 : x0; x < x1 && x < (int)img->width; x++, n++)
			sum += img->plane[0].data[(size_t)y * img->plane[0].stride + (size_t)x];
	return n ? sum / n : -1;
}

/* Stream @frames frames of @options, face detection at @rate_hz (0: off); @rect: where to read Y. */
static int run_scene(struct cisp_camera_manager *m, const char *options, double rate_hz, unsigned frames,
		     const struct cisp_camera_face *rect, struct run *out)
{
	struct cisp_camera_options o = { .sensor_options = options };
	struct cisp_camera_request req[NREQ], *done;
	struct cisp_image main_img[NREQ], preview[NREQ];
	struct cisp_camera_config cfg;
	struct cisp_camera *cam;
	uint64_t isp_sum = 0;
	int r;

	memset(out, 0, sizeof(*out));
	memset(req, 0, sizeof(req));
	memset(main_img, 0, sizeof(main_img));
	memset(preview, 0, sizeof(preview));
	r = cisp_camera_open(&cam, m, "virtual:cisp-8m10", &o);
	if (r)
		return r;
	r = cisp_camera_default_config(cam, 2, &cfg);
	cfg.stream[CISP_STREAM_PREVIEW] = (struct cisp_stream_config){ CISP_FMT_NV12, PREVIEW_W, PREVIEW_H, 0, 0, 0, 0 };
	if (!r)
		r = cisp_camera_configure(cam, &cfg);
	if (!r && rate_hz > 0)
		r = cisp_camera_detect_faces(cam, rate_hz);
	for (unsigned i = 0; !r && i < NREQ; i++) {
		r = cisp_image_alloc(&main_img[i], CISP_FMT_NV12, cfg.stream[0].width, cfg.stream[0].height);
		if (!r)
			r = cisp_image_alloc(&preview[i], CISP_FMT_NV12, PREVIEW_W, PREVIEW_H);
		req[i].buffer[CISP_STREAM_MAIN] = &main_img[i];
		req[i].buffer[CISP_STREAM_PREVIEW] = &preview[i];
		if (!r)
			r = cisp_camera_queue(cam, &req[i]);
	}
	if (!r)
		r = cisp_camera_start(cam);
	for (unsigned n = 0; !r && n < frames; n++) {
		r = cisp_camera_wait(cam, &done, -1);
		if (r)
			break;
		if (done->status) {
			r = cisp_error(done->status, "frame %u: %s", n, done->message);
			break;
		}
		isp_sum += done->metadata.isp_ns;
		if (n >= frames - frames / 3) {
			struct cisp_camera_face f[CISP_CAMERA_MAX_FACES];
			int k = rate_hz > 0 ? cisp_camera_request_faces(cam, done, f, CISP_CAMERA_MAX_FACES) : 0;
			if (k < 0) {
				r = k;
				break;
			}
			out->measured++;
			out->faces += (unsigned)k;
			if (k > 0) {
				out->with_face++;
				out->largest = f[0];
			}
			if (rect)
				out->face_y = mean_y(done->buffer[CISP_STREAM_MAIN], rect);
		}
		if (n + NREQ < frames)
			r = cisp_camera_queue(cam, done);
	}
	out->isp_ns = frames ? (double)isp_sum / frames : 0;
	camera_faces_cost(cam, &out->detections, &out->detect_ns);
	cisp_camera_close(cam);
	for (unsigned i = 0; i < NREQ; i++) {
		cisp_image_free(&main_img[i]);
		cisp_image_free(&preview[i]);
	}
	return r;
}

/* A backlit composite: white window, the portrait at @reflectance of itself in the middle 70%. */
static int composite(const char *kodak, const char *name, double reflectance, const char *path)
{
	struct cisp_raster in, out;
	char src[4096];
	int r;

	snprintf(src, sizeof(src), "%s/%s.png", kodak, name);
	r = cisp_raster_read(src, &in);
	if (r)
		return r;
	r = cisp_raster_alloc(&out, in.width, in.height, 3, in.maxval);
	if (r) {
		cisp_raster_free(&in);
		return r;
	}
	uint32_t w = in.width * 7 / 10, h = in.height * 7 / 10, x0 = (in.width - w) / 2, y0 = (in.height - h) / 2;
	for (uint32_t y = 0; y < in.height; y++)
		for (uint32_t x = 0; x < in.width; x++)
			for (unsigned c = 0; c < 3; c++) {
				uint16_t *o = &out.data[((size_t)y * in.width + x) * 3 + c];
				*o = (uint16_t)in.maxval;
				if (x >= x0 && x < x0 + w && y >= y0 && y < y0 + h) {
					/* Box-sample the portrait into the middle; scale its linear reflectance. */
					uint32_t sx = (x - x0) * in.width / w, sy = (y - y0) * in.height / h;
					double v = in.data[((size_t)sy * in.width + sx) * in.channels + (in.channels == 3 ? c : 0)] /
						   (double)in.maxval;
					double lin = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
					lin *= reflectance;
					v = lin <= 0.0031308 ? lin * 12.92 : 1.055 * pow(lin, 1 / 2.4) - 0.055;
					*o = (uint16_t)(v * in.maxval + 0.5);
				}
			}
	r = cisp_raster_write(path, &out);
	cisp_raster_free(&in);
	cisp_raster_free(&out);
	return r;
}

static bool listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

static void print_machine(void)
{
	char line[256], model[256] = "unknown";
	double load[1] = { 0 };
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
	getloadavg(load, 1);
	printf("cpu: %s, load average %.2f\n", model, load[0]);
}

/* CPU time of the process, all threads (OpenCV may use several): the machine's load does not count. */
static double cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Kodak image @name as 8-bit luma box-averaged by 2 (384x256), its linear values times @scale. */
static int kodak_luma(const char *kodak, const char *name, double scale, uint8_t **luma, unsigned *w, unsigned *h)
{
	struct cisp_raster in;
	char src[4096];
	int r;

	snprintf(src, sizeof(src), "%s/%s.png", kodak, name);
	if ((r = cisp_raster_read(src, &in)))
		return r;
	*w = in.width / 2;
	*h = in.height / 2;
	*luma = malloc((size_t)*w * *h);
	if (!*luma) {
		cisp_raster_free(&in);
		return -ENOMEM;
	}
	for (unsigned y = 0; y < *h; y++)
		for (unsigned x = 0; x < *w; x++) {
			double sum = 0;
			for (unsigned k = 0; k < 4; k++) {
				const uint16_t *p = &in.data[(((size_t)(2 * y + k / 2)) * in.width + 2 * x + k % 2) * in.channels];
				double v = (in.channels == 3 ? (54.0 * p[0] + 183.0 * p[1] + 19.0 * p[2]) / 256 : p[0]) / in.maxval;
				double lin = (v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)) * scale;
				sum += lin <= 0.0031308 ? lin * 12.92 : 1.055 * pow(lin, 1 / 2.4) - 0.055;
			}
			(*luma)[(size_t)y * *w + x] = (uint8_t)(sum / 4 * 255 + 0.5);
		}
	cisp_raster_free(&in);
	return 0;
}

static int cascades(int argc, char **argv)
{
	print_machine();
	for (int c = 3; c < argc; c++) {
		struct face_detector *d;
		if (face_detector_create(&d, argv[c])) {
			fprintf(stderr, "bench-faces: %s\n", cisp_last_error());
			return 1;
		}
		printf("\n%s\n", argv[c]);
		for (int set = 0; set < 2; set++) {
			unsigned hits = 0, faces_total = 0, false_faces = 0, runs = 0;
			double spent = 0;
			printf("  %s:", set ? "reflectance x0.1" : "as shot");
			for (int i = 1; i <= 24; i++) {
				char name[16];
				uint8_t *luma;
				unsigned w, h;
				struct face_box b[CISP_CAMERA_MAX_FACES];
				snprintf(name, sizeof(name), "kodim%02d", i);
				if (kodak_luma(argv[2], name, set ? 0.1 : 1.0, &luma, &w, &h)) {
					fprintf(stderr, "bench-faces: %s\n", cisp_last_error());
					return 1;
				}
				double t0 = cpu_ns();
				int n = face_detector_find(d, luma, w, h, w, 20, b, CISP_CAMERA_MAX_FACES);
				spent += cpu_ns() - t0;
				runs++;
				free(luma);
				if (n < 0)
					return 1;
				if (listed(kodak_faces, name)) {
					faces_total++;
					hits += n > 0;
				} else {
					false_faces += (unsigned)n;
				}
				if (n > 0)
					printf(" %s%s(%d)", name, listed(kodak_faces, name) ? "" : "!", n);
			}
			printf("\n    face images with a face: %u/%u; faces on face-free images: %u; %.2f ms CPU a detection\n",
			       hits, faces_total, false_faces, spent / runs / 1e6);
		}
		face_detector_destroy(d);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cisp_device_config dc = { .workers = 2 };
	struct cisp_camera_manager_config mc = { .device_config = &dc };
	struct cisp_camera_manager *m;
	unsigned frames = argc > 3 ? (unsigned)atoi(argv[3]) : 24;
	double isp_sum = 0, detect_sum = 0;
	uint64_t detections = 0, cost_runs = 0;
	char opts[8192], path[4096];
	struct run run;

	if (argc > 3 && !strcmp(argv[1], "cascades"))
		return cascades(argc, argv);
	if (argc < 3 || frames < 6) {
		fprintf(stderr, "usage: bench-faces KODAK_DIR WORK_DIR [FRAMES >= 6]\n");
		return 2;
	}
	if (cisp_camera_manager_create(&m, &mc))
		goto fail;
	print_machine();

	/* Detection rate and false positives on the Kodak set. */
	unsigned face_frames = 0, face_hits = 0, free_frames = 0, free_hits = 0, false_faces = 0;
	printf("\nkodak (D65, 400 lux): frames with a face / frames measured\n");
	for (int i = 1; i <= 24; i++) {
		char name[16];
		snprintf(name, sizeof(name), "kodim%02d", i);
		snprintf(opts, sizeof(opts), "scene=%s/%s.png", argv[1], name);
		if (run_scene(m, opts, 1000, frames, NULL, &run))
			goto fail;
		bool face = listed(kodak_faces, name), cut = listed(kodak_faces_cut, name);
		printf("  %s %-10s %u/%u", name, cut ? "(face cut)" : face ? "(face)" : "", run.with_face, run.measured);
		if (run.with_face)
			printf("  largest %dx%d at %d,%d conf %.2f age %u", run.largest.width, run.largest.height,
			       run.largest.x, run.largest.y, run.largest.confidence, run.largest.age);
		printf("\n");
		if (cut) {
			/* neither */
		} else if (face) {
			face_frames += run.measured;
			face_hits += run.with_face;
		} else {
			free_frames += run.measured;
			free_hits += run.with_face;
			false_faces += run.faces;
		}
		isp_sum += run.isp_ns * frames;
		detect_sum += (double)run.detect_ns;
		detections += run.detections;
		cost_runs += frames;
	}
	printf("detection rate (face images in view): %u/%u frames = %.0f%%\n", face_hits, face_frames,
	       face_frames ? 100.0 * face_hits / face_frames : 0);
	printf("false positives (face-free images): %u/%u frames with a face, %u faces\n", free_hits, free_frames,
	       false_faces);

	/* Backlit composites: face luminance without and with face priority. */
	static const struct {
		const char *set, *options;
		double reflectance;
	} sets[] = { { "A: backlit, D65 400 lux, reflectance x0.25", "illuminant=D65,lux=400", 0.25 },
		     { "B: backlit darker skin, A 150 lux, reflectance x0.10", "illuminant=A,lux=150", 0.10 } };
	for (unsigned s = 0; s < 2; s++) {
		unsigned found = 0, total = 0;
		printf("\nset %s: face Y (0..255) off -> on\n", sets[s].set);
		for (unsigned p = 0; p < 2; p++) {
			struct run on, off;
			snprintf(path, sizeof(path), "%s/backlit-%c-%s.ppm", argv[2], 'a' + s, portraits[p]);
			if (composite(argv[1], portraits[p], sets[s].reflectance, path))
				goto fail;
			snprintf(opts, sizeof(opts), "scene=%s,%s", path, sets[s].options);
			if (run_scene(m, opts, 1000, frames, NULL, &on))
				goto fail;
			total += on.measured;
			found += on.with_face;
			if (!on.with_face) {
				printf("  %s: no face found\n", portraits[p]);
				continue;
			}
			/* The same rectangle read again in both runs: the scene stands still. */
			if (run_scene(m, opts, 1000, frames, &on.largest, &on) ||
			    run_scene(m, opts, 0, frames, &on.largest, &off))
				goto fail;
			printf("  %s: face %dx%d, Y %.0f -> %.0f\n", portraits[p], on.largest.width, on.largest.height,
			       off.face_y, on.face_y);
		}
		printf("  detection: %u/%u frames\n", found, total);
	}

	double isp = cost_runs ? isp_sum / cost_runs : 0, det = detections ? detect_sum / detections : 0;
	printf("\ncost (Kodak runs): one detection %.2f ms (%llu runs), one frame's ISP job %.2f ms: ratio %.3f\n",
	       det / 1e6, (unsigned long long)detections, isp / 1e6, isp > 0 ? det / isp : 0);
	printf("per frame: detection %.2f ms on its own thread (%.2f detections a frame): ratio %.3f to the ISP job\n",
	       cost_runs ? detect_sum / cost_runs / 1e6 : 0, cost_runs ? (double)detections / cost_runs : 0,
	       isp > 0 && cost_runs ? detect_sum / cost_runs / isp : 0);
	print_machine();
	cisp_camera_manager_destroy(m);
	return 0;
fail:
	fprintf(stderr, "bench-faces: %s\n", cisp_last_error());
	return 1;
}
