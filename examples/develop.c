/* SPDX-License-Identifier: MIT */
/*
 * develop: a raw file to a JPEG, PNG or TIFF, with the defaults of
 * `cisp develop` (docs/api.md).
 *
 *   cc develop.c $(pkg-config --cflags --libs cisp) -o develop
 *   ./develop photo.dng photo.jpg
 *
 * The input is a camera raw file (DNG, CR2, NEF, ...) or a grey PGM/PNG
 * mosaic; the output's extension picks its type. OUT is replaced.
 */
#include <stdio.h>

#include <cisp/develop.h>
#include <cisp/error.h>
#include <cisp/image_file.h>

int main(int argc, char **argv)
{
	struct cisp_develop_source source;
	struct cisp_develop_options options = { .demosaic = CISP_DEMOSAIC_QUALITY };
	struct cisp_raw_frame frame;
	struct cisp_image image = { 0 };
	struct cisp_file_options file = { 0 };
	int status = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IN OUT.jpg|OUT.png|OUT.tif\n", argv[0]);
		return 2;
	}
	/* Everything from the file: its levels, colour matrix, white balance and crop. */
	cisp_develop_source_init(&source);
	if (cisp_develop_read(argv[1], &source, &frame)) {
		fprintf(stderr, "develop: %s\n", cisp_last_error());
		return 1;
	}
	options.output_format = cisp_output_format_for_path(argv[2], false);
	if (!options.output_format || cisp_develop(&frame, &options, &image, NULL)) {
		fprintf(stderr, "develop: %s\n", cisp_last_error());
		goto out;
	}
	/* The file gets the camera's metadata (EXIF, TIFF tags) and is turned upright. */
	file.orientation = frame.orientation;
	file.meta = &frame;
	if (cisp_image_write_file_opts(argv[2], &image, &file)) {
		fprintf(stderr, "develop: %s\n", cisp_last_error());
		goto out;
	}
	printf("%s: %ux%u %s -> %s: %ux%u\n", argv[1], frame.image.width, frame.image.height,
	       frame.model[0] ? frame.model : "mosaic", argv[2], image.width, image.height);
	status = 0;
out:
	cisp_image_free(&image);
	cisp_raw_frame_free(&frame);
	return status;
}
