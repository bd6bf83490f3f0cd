/* SPDX-License-Identifier: MIT */
/* cisp list: the cameras that can be opened, with their backend, model and modes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "commands.h"
#include "device/vulkan_backend.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: cisp list\n"
		     "\n"
		     "List the cameras 'cisp run --camera NAME' can open: the named cameras of the\n"
		     "file CISP_CAMERA_CONFIG names, then every sensor found (virtual sensor models\n"
		     "on CISP_SENSOR_PATH and where cisp is installed), with its backend, model,\n"
		     "tuning and modes (size, bit depth, CFA order, frame rate range). Then the\n"
		     "ISPs 'cisp run --isp NAME' can run them on: the Vulkan backend's device\n"
		     "(name, driver, Vulkan version, whether dma-buf import is offered), or why\n"
		     "there is none.\n"
		     "\n"
		     "options:\n"
		     "  -h, --help   this help\n");
}

/* Names come from configuration files, sensor models and devices: printed through SHOWN(). */
static void print_camera(struct cisp_camera_manager *mgr, const struct cisp_camera_desc *d)
{
	const struct cisp_sensor_info *info;
	struct cisp_camera *cam;
	struct cisp_sensor *s;

	printf("%s\n  backend %s: %s\n", SHOWN(d->name), SHOWN(d->backend), SHOWN(d->description));
	if (cisp_camera_open(&cam, mgr, d->name, NULL)) {
		printf("  cannot open: %s\n", error_text());
		return;
	}
	s = cisp_camera_sensor(cam);
	info = cisp_sensor_info(s);
	printf("  model %s, pixel array %ux%u, tuning %s\n", SHOWN(info->model), info->array_width, info->array_height,
	       SHOWN(cisp_camera_tuning_name(cam)));
	for (unsigned i = 0; i < info->num_modes; i++) {
		struct cisp_sensor_mode m;
		double line_ns;

		if (cisp_sensor_get_mode(s, i, &m))
			continue;
		line_ns = cisp_sensor_line_ns(&m);
		printf("  mode %u %-8s %5ux%-5u %2u-bit %s, binning %u, %.1f..%.2f frames/s (default %.1f)\n", i,
		       SHOWN(m.name), m.width, m.height, m.bits, cisp_format_name(m.format), m.binning,
		       1e9 / (line_ns * m.frame_length_min), 1e9 / (line_ns * m.frame_length_max),
		       1e9 / (line_ns * m.frame_length_default));
	}
	cisp_camera_close(cam);
}

/* The device API's backends, the Vulkan one with the device it would run on. */
static void print_isps(void)
{
	char vulkan[512];

	printf("ISPs (cisp run --isp NAME)\n  software: the canonical ISP on the CPU\n");
	if (vulkan_describe(vulkan, sizeof(vulkan)))
		printf("  vulkan: not available: %s\n", error_text());
	else
		printf("  vulkan: %s\n", SHOWN(vulkan));
}

int cmd_list(int argc, char **argv)
{
	struct cisp_camera_manager *mgr;
	struct cisp_camera_desc *list;
	int n;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		}
		fprintf(stderr, "cisp list: unexpected argument '%s'; 'cisp help list' lists the options\n", SHOWN(argv[1]));
		return 2;
	}
	if (cisp_camera_manager_create(&mgr, &(struct cisp_camera_manager_config){
						     .device_config = &(struct cisp_device_config){ .workers = 1 } })) {
		fprintf(stderr, "cisp list: %s\n", error_text());
		return 1;
	}
	n = cisp_camera_list(mgr, NULL, 0);
	list = n > 0 ? calloc((size_t)n, sizeof(*list)) : NULL;
	if (n > 0 && list) {
		int room = n;

		/* A camera that appeared since the count is not in @list. */
		n = cisp_camera_list(mgr, list, (unsigned)room);
		if (n > room)
			n = room;
	}
	if (n < 0 || (n > 0 && !list)) {
		fprintf(stderr, "cisp list: %s\n", n < 0 ? error_text() : "out of memory");
		cisp_camera_manager_destroy(mgr);
		free(list);
		return 1;
	}
	if (!n)
		printf("no cameras found (virtual sensor models are looked for on CISP_SENSOR_PATH and in data/sensors)\n");
	for (int i = 0; i < n; i++)
		print_camera(mgr, &list[i]);
	print_isps();
	free(list);
	cisp_camera_manager_destroy(mgr);
	return 0;
}
