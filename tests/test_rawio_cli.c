/* SPDX-License-Identifier: MIT */
/* cisp develop on raw files (one and many) and cisp convert, through the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <tiffio.h>

#include <cisp/dng.h>
#include <cisp/error.h>
#include <cisp/raw_file.h>
#include <cisp/raw_frame.h>

#include "cli.h"
#include "test.h"

/* A 12-bit RGGB DNG of a smooth gradient, with colour metadata, a default crop and an orientation. */
static void make_dng(const char *name, int orientation)
{
	struct cisp_raw_frame f;
	static const float m[9] = { 0.6722f, -0.0635f, -0.0963f, -0.4287f, 1.2460f, 0.2028f, -0.0909f, 0.2162f, 0.5668f };

	memset(&f, 0, sizeof(f));
	CHECK_EQ(cisp_image_alloc(&f.image, CISP_FMT_SRGGB12, 96, 64), 0);
	for (uint32_t y = 0; y < 64; y++)
		for (uint32_t x = 0; x < 96; x++) {
			unsigned v = 200 + x * 20 + y * 10;
			f.image.plane[0].data[y * f.image.plane[0].stride + 2 * x] = (uint8_t)v;
			f.image.plane[0].data[y * f.image.plane[0].stride + 2 * x + 1] = (uint8_t)(v >> 8);
		}
	for (int c = 0; c < 4; c++)
		f.black[c] = 128;
	f.white = 4000;
	f.has_matrix = true;
	memcpy(f.xyz_to_cam, m, sizeof(m));
	f.has_wb = true;
	f.wb_gains[0] = 2.0f;
	f.wb_gains[1] = 1.0f;
	f.wb_gains[2] = 1.6f;
	f.orientation = orientation;
	f.crop.x = 4;
	f.crop.y = 2;
	f.crop.width = 80;
	f.crop.height = 56;
	snprintf(f.make, sizeof(f.make), "Test");
	snprintf(f.model, sizeof(f.model), "Camera");
	f.iso = 800;
	f.exposure_s = 0.02f;
	CHECK_EQ(cisp_dng_write(cli_tmp(name), &f), 0);
	cisp_raw_frame_free(&f);
}

static void jpeg_size(const char *path, unsigned *w, unsigned *h)
{
	struct jpeg_decompress_struct d;
	struct jpeg_error_mgr jerr;
	FILE *f = fopen(path, "rb");

	*w = *h = 0;
	if (!f)
		return;
	d.err = jpeg_std_error(&jerr);
	jpeg_create_decompress(&d);
	jpeg_stdio_src(&d, f);
	jpeg_read_header(&d, TRUE);
	*w = d.image_width;
	*h = d.image_height;
	jpeg_destroy_decompress(&d);
	fclose(f);
}

/* A DNG develops to JPEG, PNG and 16-bit TIFF, cropped to its default crop and turned upright. */
TEST(rawio_cli_develop_raw_file)
{
	unsigned w, h;
	TIFF *tif;

	make_dng("cam.dng", 6);
	CHECK_EQ(cli_run("develop cam.dng -o cam.jpg --quality 85"), 0);
	jpeg_size(cli_tmp("cam.jpg"), &w, &h);
	CHECK_EQ(w, 56); /* 80x56 crop, turned 90 degrees */
	CHECK_EQ(h, 80);
	CHECK_EQ(cli_run("develop cam.dng --no-crop -o full.jpg"), 0);
	jpeg_size(cli_tmp("full.jpg"), &w, &h);
	CHECK_EQ(w, 64);
	CHECK_EQ(h, 96);
	CHECK_EQ(cli_run("develop cam.dng --linear -o cam.tif"), 0);
	tif = TIFFOpen(cli_tmp("cam.tif"), "r");
	CHECK(tif != NULL);
	if (tif) {
		uint16_t bps = 0;
		uint32_t tw = 0;
		TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &bps);
		TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &tw);
		CHECK_EQ(bps, 16);
		CHECK_EQ(tw, 56);
		TIFFClose(tif);
	}
	CHECK_EQ(cli_run("develop cam.dng --depth 16 -o cam16.png"), 0);
	CHECK_EQ(cli_run("develop cam.dng -o cam.y4m"), 0);
	CHECK_EQ(cli_run("develop cam.dng --linear -o lin.jpg"), 2);
	CHECK(strstr(cli_output, "JPEG holds 8 bits per channel") != NULL);
	CHECK(!cli_exists("lin.jpg"));
	CHECK_EQ(cli_run("develop cam.dng --awb sometimes -o x.jpg"), 2);
	CHECK(strstr(cli_output, "--awb takes camera, grey or none") != NULL);
	/* A CFA order given replaces the file's, with a warning. */
	CHECK_EQ(cli_run("develop cam.dng --cfa GRBG -o x.jpg"), 0);
	CHECK(strstr(cli_output, "cam.dng: CFA order GRBG given replaces the file's RGGB") != NULL);
}

/* An existing output is kept unless --force, and a failed develop leaves no output behind. */
TEST(rawio_cli_never_overwrites)
{
	struct stat before, after;

	make_dng("keep.dng", 1);
	CHECK_EQ(cli_run("develop keep.dng -o keep.png"), 0);
	CHECK_EQ(stat(cli_tmp("keep.png"), &before), 0);
	CHECK_EQ(cli_run("develop keep.dng --ev 1 -o keep.png"), 1);
	CHECK(strstr(cli_output, "keep.png exists (use --force to replace it)") != NULL);
	CHECK_EQ(stat(cli_tmp("keep.png"), &after), 0);
	CHECK_EQ(after.st_size, before.st_size);
	CHECK_EQ(after.st_mtime, before.st_mtime);
	CHECK_EQ(cli_run("develop keep.dng --ev 1 --force -o keep.png"), 0);
	CHECK_EQ(cli_run("develop missing.dng -o missing.png"), 1);
	CHECK(strstr(cli_output, "cannot open missing.dng") != NULL);
	CHECK(!cli_exists("missing.png"));
}

/* Broken files: clear messages naming the file and LibRaw's reason, exit status 1. */
TEST(rawio_cli_bad_files)
{
	FILE *f = fopen(cli_tmp("notes.txt"), "w");

	if (f) {
		fputs("shopping list: eggs, milk, a new camera\n", f);
		fclose(f);
	}
	f = fopen(cli_tmp("zero.dng"), "w");
	if (f)
		fclose(f);
	CHECK_EQ(cli_run("develop notes.txt -o notes.jpg"), 1);
	CHECK(strstr(cli_output, "notes.txt: LibRaw cannot open it: ") != NULL);
	CHECK_EQ(cli_run("develop zero.dng -o zero.jpg"), 1);
	CHECK(strstr(cli_output, "zero.dng: the file is empty") != NULL);
	CHECK_EQ(cli_run("convert zero.dng -o zero2.dng"), 1);
	CHECK(strstr(cli_output, "zero.dng: the file is empty") != NULL);
	CHECK(!cli_exists("notes.jpg") && !cli_exists("zero.jpg") && !cli_exists("zero2.dng"));
}

/* Many files: plain progress lines off a terminal, going on past bad files, a summary, exit 1. */
TEST(rawio_cli_batch)
{
	FILE *f;

	make_dng("b1.dng", 1);
	make_dng("b2.dng", 3);
	make_dng("b3.dng", 8);
	f = fopen(cli_tmp("b4.dng"), "w");
	if (f) {
		fputs("not a raw file\n", f);
		fclose(f);
	}
	f = fopen(cli_tmp("b5.dng"), "w");
	if (f)
		fclose(f);
	CHECK_EQ(cli_run("develop b1.dng b2.dng b3.dng b4.dng b5.dng -o batch/ -j 2"), 1);
	CHECK(cli_exists("batch/b1.jpg") && cli_exists("batch/b2.jpg") && cli_exists("batch/b3.jpg"));
	CHECK(!cli_exists("batch/b4.jpg") && !cli_exists("batch/b5.jpg"));
	CHECK(strstr(cli_output, "] b1.dng -> batch/b1.jpg") != NULL);
	CHECK(strstr(cli_output, "[5/5]") != NULL);
	CHECK(strstr(cli_output, "b4.dng: failed: b4.dng: LibRaw cannot open it") != NULL);
	CHECK(strstr(cli_output, "3 of 5 files developed; 2 failed:\n  b4.dng: LibRaw cannot open it") != NULL);
	CHECK(strstr(cli_output, "\n  b5.dng: the file is empty") != NULL);
	CHECK(strchr(cli_output, '\r') == NULL); /* no progress bar off a terminal */

	/* Again: the outputs exist now, and are kept. */
	CHECK_EQ(cli_run("develop b1.dng b2.dng -o batch"), 1);
	CHECK(strstr(cli_output, "0 of 2 files developed; 2 failed:") != NULL);
	CHECK(strstr(cli_output, "batch/b1.jpg exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("develop b1.dng b2.dng -o batch --force --type png --linear"), 0);
	CHECK(cli_exists("batch/b1.png") && cli_exists("batch/b2.png"));
	CHECK(strstr(cli_output, "2 of 2 files developed") != NULL);
	CHECK_EQ(cli_run("develop b1.dng --linear -o tiffs/"), 0);
	CHECK(cli_exists("tiffs/b1.tif"));

	/* Two inputs that would write the same file. */
	CHECK_EQ(mkdir(cli_tmp("other"), 0777) == 0 || errno == EEXIST, 1);
	make_dng("other/b1.dng", 1);
	CHECK_EQ(cli_run("develop b1.dng other/b1.dng -o dup/"), 2);
	CHECK(strstr(cli_output, "would both be written to dup/b1.jpg") != NULL);
}

/* cisp convert: a raw dump becomes a DNG LibRaw reads back sample for sample (LibRaw wants 22x22 at least). */
TEST(rawio_cli_convert)
{
	struct cisp_raw_frame f;
	uint16_t dump[32 * 24];
	FILE *out = fopen(cli_tmp("frame.raw"), "wb");

	for (int i = 0; i < 32 * 24; i++)
		dump[i] = (uint16_t)(test_rand() % 1024);
	CHECK(out != NULL);
	if (out) {
		CHECK_EQ(fwrite(dump, 2, 32 * 24, out), 32 * 24);
		fclose(out);
	}
	CHECK_EQ(cli_run("convert frame.raw --size 32x24 --format SGRBG10 --black 64 "
		     "--matrix 0.6722,-0.0635,-0.0963,-0.4287,1.246,0.2028,-0.0909,0.2162,0.5668 "
		     "--neutral 0.5,1,0.625 --make Acme --model 'V4L2 sensor' --orientation 3 --exposure 0.01 --iso 100 "
		     "-o frame.dng"),
		 0);
	CHECK_EQ(cisp_raw_read_file(cli_tmp("frame.dng"), &f), 0);
	if (f.image.plane[0].data) {
		int diff = 0;
		CHECK_EQ(f.image.format, CISP_FMT_SGRBG10);
		for (uint32_t y = 0; y < 24; y++)
			for (uint32_t x = 0; x < 32; x++) {
				const uint8_t *p = f.image.plane[0].data + y * f.image.plane[0].stride + 2 * x;
				diff += (p[0] | p[1] << 8) != dump[y * 32 + x];
			}
		CHECK_EQ(diff, 0);
		CHECK_EQ(f.black[0], 64);
		CHECK_EQ(f.white, 1023);
		CHECK_NEAR(f.wb_gains[0], 2.0, 1e-4);
		CHECK_NEAR(f.wb_gains[2], 1.6, 1e-4);
		CHECK_NEAR(f.xyz_to_cam[4], 1.246, 2e-4);
		CHECK_EQ(f.orientation, 3);
		CHECK(!strcmp(f.make, "Acme"));
		CHECK(!strcmp(f.model, "V4L2 sensor"));
		CHECK_NEAR(f.iso, 100, 0);
	}
	cisp_raw_frame_free(&f);

	/* A DNG in, a DNG out: LibRaw's reading of the first carried into the second. */
	CHECK_EQ(cli_run("convert frame.dng --orientation 1 -o again.dng"), 0);
	CHECK_EQ(cisp_raw_read_file(cli_tmp("again.dng"), &f), 0);
	CHECK_EQ(f.orientation, 1);
	CHECK_EQ(f.black[3], 64);
	CHECK(!strcmp(f.make, "Acme"));
	cisp_raw_frame_free(&f);

	CHECK_EQ(cli_run("convert frame.raw --size 32x24 --format SGRBG10 -o frame.tif"), 2);
	CHECK(strstr(cli_output, "the output must be a .dng file") != NULL);
	CHECK_EQ(cli_run("convert frame.raw --size 32x24 --format SGRBG10 -o frame.dng"), 1);
	CHECK(strstr(cli_output, "frame.dng exists (use --force to replace it)") != NULL);
	CHECK_EQ(cli_run("convert frame.raw --size 30x24 --format SGRBG10 -o other.dng"), 1);
	CHECK(strstr(cli_output, "frame.raw holds 1536 bytes") != NULL);
	CHECK_EQ(cli_run("convert frame.raw --size 32x24 --format SGRBG10 --crop 0,0,40,24 -o other.dng"), 2);
	CHECK(strstr(cli_output, "--crop 0,0,40,24 is outside the 32x24 frame") != NULL);
}

/* The real N900 mosaic, converted to a DNG with a published colour matrix, develops through LibRaw input. */
TEST(rawio_cli_real_mosaic_to_dng)
{
	char cmd[1024];
	const char *data = test_data_dir();
	struct cisp_raw_frame f;

	if (!data) {
		test_skip("shared test data not found: the N900 mosaic is needed");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "convert %s/raw/nokia_n900_fcam_bayer_small.png --cfa GRBG --black 25 --white 1023 "
		 "--matrix 0.6722,-0.0635,-0.0963,-0.4287,1.246,0.2028,-0.0909,0.2162,0.5668 --neutral 0.55,1,0.7 "
		 "-o n900.dng",
		 data);
	CHECK_EQ(cli_run("%s", cmd), 0);
	CHECK_EQ(cisp_raw_read_file(cli_tmp("n900.dng"), &f), 0);
	CHECK_EQ(f.image.format, CISP_FMT_SGRBG10);
	CHECK_EQ(f.image.width, 256);
	CHECK_EQ(f.image.height, 344);
	cisp_raw_frame_free(&f);
	CHECK_EQ(cli_run("develop n900.dng -o n900.jpg"), 0);
	CHECK(cli_exists("n900.jpg"));
}
