/* SPDX-License-Identifier: MIT */
/*
 * camera: stream a camera with its 3A loop (auto exposure, white balance,
 * focus), print each frame's metadata and save the last frame.
 *
 *   cc camera.c $(pkg-config --cflags --libs cisp) -o camera
 *   ./camera virtual:cisp-8m10 30 last.png
 *
 * Four requests circulate: each carries an image for the main stream; the
 * camera fills it with one frame, the application reads it and queues the
 * request again. `cisp list` shows the cameras there are.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image_file.h>

#define REQUESTS 4

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "virtual:cisp-test";
	int frames = argc > 2 ? atoi(argv[2]) : 30, queued = 0, status = 1;
	const char *output = argc > 3 ? argv[3] : "last.png";
	struct cisp_camera_manager *manager = NULL;
	struct cisp_camera *camera = NULL;
	struct cisp_camera_config config;
	struct cisp_camera_request requests[REQUESTS] = { 0 };
	struct cisp_image images[REQUESTS] = { 0 };
	struct cisp_stream_config *main_stream = &config.stream[CISP_STREAM_MAIN];

	if (frames < 1) {
		fprintf(stderr, "usage: %s [CAMERA] [FRAMES] [OUT.png]\n", argv[0]);
		return 2;
	}
	if (cisp_camera_manager_create(&manager, NULL) || cisp_camera_open(&camera, manager, name, NULL) ||
	    cisp_camera_default_config(camera, 0, &config))
		goto fail;
	/* The main stream in RGB at half the sensor's size (the ISP scales). */
	main_stream->format = CISP_FMT_RGB888;
	main_stream->width = main_stream->width / 4 * 2;
	main_stream->height = main_stream->height / 4 * 2;
	if (cisp_camera_configure(camera, &config))
		goto fail;
	for (int i = 0; i < REQUESTS; i++) {
		if (cisp_image_alloc(&images[i], main_stream->format, main_stream->width, main_stream->height))
			goto fail;
		requests[i].buffer[CISP_STREAM_MAIN] = &images[i];
		if (i < frames) {
			if (cisp_camera_queue(camera, &requests[i]))
				goto fail;
			queued++;
		}
	}
	if (cisp_camera_start(camera))
		goto fail;
	printf("%s, tuning %s, %ux%u RGB\n", name, cisp_camera_tuning_name(camera), main_stream->width,
	       main_stream->height);
	printf("frame  exposure_us  gain   ct_K  r_gain b_gain  ae        awb\n");
	for (int done = 0; done < frames; done++) {
		struct cisp_camera_request *req;
		const struct cisp_camera_metadata *md;

		if (cisp_camera_wait(camera, &req, -1))
			goto fail;
		if (req->status) {
			fprintf(stderr, "camera: frame failed: %s\n", req->message);
			goto out;
		}
		md = &req->metadata;
		printf("%5llu  %11.0f  %5.2f  %5.0f  %6.3f %6.3f  %-8s  %s\n", (unsigned long long)md->sequence,
		       md->exposure_us, md->analogue_gain * md->digital_gain, md->colour_temperature, md->colour_gains[0],
		       md->colour_gains[1], cisp_ae_state_name(md->ae_state), cisp_awb_state_name(md->awb_state));
		if (done == frames - 1) {
			if (cisp_image_write_file(output, req->buffer[CISP_STREAM_MAIN], false))
				goto fail;
			printf("wrote %s\n", output);
		} else if (queued < frames) {
			if (cisp_camera_queue(camera, req))
				goto fail;
			queued++;
		}
	}
	status = 0;
	goto out;
fail:
	fprintf(stderr, "camera: %s\n", cisp_last_error());
out:
	cisp_camera_close(camera);
	cisp_camera_manager_destroy(manager);
	for (int i = 0; i < REQUESTS; i++)
		cisp_image_free(&images[i]);
	return status;
}
