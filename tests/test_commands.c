/* SPDX-License-Identifier: MIT */
/*
 * The cisp command as a whole (docs/cli.md): help, refused options, the
 * documentation and man pages against the help text; cisp run's last frame
 * of a short run; what develop's library calls refuse; the metadata the
 * image writers put in files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include <cisp/develop.h>
#include <cisp/error.h>
#include <cisp/raster.h>
#include <cisp/tuning.h>

#include "cli.h"
#include "test.h"

/* The commands `cisp --help` lists, into @names (up to 32); their number. */
static int command_names(char names[32][32])
{
	const char *p;
	int n = 0;

	CHECK_EQ(cli_run("--help"), 0);
	p = strstr(cli_output, "commands:\n");
	CHECK(p != NULL);
	if (!p)
		return 0;
	for (p = strchr(p, '\n') + 1; n < 32 && p[0] == ' ' && p[1] == ' ' && p[2] != ' '; p = strchr(p, '\n') + 1) {
		sscanf(p, " %31s", names[n++]);
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

TEST(cli_help_command_is_command_help)
{
	char names[32][32], help[16384];
	int n = command_names(names);

	CHECK(n >= 10);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(cli_run("%s --help", names[i]), 0);
		snprintf(help, sizeof(help), "%s", cli_output);
		CHECK(strstr(help, "usage: cisp") != NULL);
		CHECK_EQ(cli_run("help %s", names[i]), 0);
		if (strcmp(help, cli_output))
			test_fail(__FILE__, __LINE__, "cisp help %s differs from cisp %s --help", names[i], names[i]);
	}
	CHECK_EQ(cli_run("help no-such-command"), 2);
	CHECK(strstr(cli_output, "cisp: unknown command 'no-such-command'; 'cisp help' lists the commands") != NULL);
	CHECK_EQ(cli_run("help"), 0);
	CHECK(strstr(cli_output, "commands:") != NULL);
}

/* A refused option is one line naming the command, the option and where the options are. */
TEST(cli_bad_option_is_one_line)
{
	char names[32][32], want[256];
	int n = command_names(names);

	for (int i = 0; i < n; i++) {
		/* params takes a subcommand first; its options are the subcommands'. */
		const char *sub = strcmp(names[i], "params") ? "" : " validate";

		CHECK_EQ(cli_run("%s%s --no-such-option x", names[i], sub), 2);
		snprintf(want, sizeof(want), "cisp %.31s%s: unknown option '--no-such-option'; 'cisp help %.31s' lists", names[i],
			 sub, names[i]);
		if (!strstr(cli_output, want) && !(strstr(cli_output, "unexpected argument '--no-such-option'") &&
						   strstr(cli_output, "'cisp help ")))
			test_fail(__FILE__, __LINE__, "cisp %s --no-such-option: %s", names[i], cli_output);
		if (strchr(cli_output, '\n') != cli_output + strlen(cli_output) - 1)
			test_fail(__FILE__, __LINE__, "cisp %s --no-such-option printed more than a line: %s", names[i],
				  cli_output);
	}
	CHECK_EQ(cli_run("develop in.raw -o"), 2);
	CHECK(strstr(cli_output, "cisp develop: option '-o' needs a value; 'cisp help develop' lists the options\n"));
	CHECK_EQ(cli_run("run --frames"), 2);
	CHECK(strstr(cli_output, "cisp run: option '--frames' needs a value"));
	CHECK_EQ(cli_run("develop in.raw -q -o x.png"), 2);
	CHECK(strstr(cli_output, "cisp develop: unknown option '-q'"));
	CHECK_EQ(cli_run("develop in.raw --size 12 -o x.png"), 2);
	CHECK(strstr(cli_output, "cisp develop: --size: '12' is not a size WxH"));
}

/* docs/cli.md has a section for every command, which names every option its --help lists. */
TEST(cli_docs_cover_every_option)
{
	char names[32][32], path[1024], heading[64];
	char *doc;
	int n = command_names(names);

	snprintf(path, sizeof(path), "%s/docs/cli.md", CISP_SOURCE_DIR);
	doc = test_read_text(path);
	CHECK(doc != NULL);
	if (!doc)
		return;
	for (int i = 0; i < n; i++) {
		const char *section, *end, *line;
		size_t len;

		snprintf(heading, sizeof(heading), "\n## cisp %.31s\n", names[i]);
		section = strstr(doc, heading);
		if (!section) {
			test_fail(__FILE__, __LINE__, "docs/cli.md has no section '## cisp %s'", names[i]);
			continue;
		}
		end = strstr(section + 1, "\n## ");
		len = end ? (size_t)(end - section) : strlen(section);
		CHECK_EQ(cli_run("%s --help", names[i]), 0);
		/* Option lines: "  -x, --long VALUE  ..." or "  --long ..."; either name counts. */
		for (line = cli_output; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
			char a[64] = "", b[64] = "", quoted[70];
			bool found = false;

			if (strncmp(line, "  -", 3))
				continue;
			if (sscanf(line, " %63[-a-zA-Z0-9], %63[-a-zA-Z0-9]", a, b) < 1 || !strcmp(b, "--help") ||
			    !strcmp(a, "--help"))
				continue;
			for (const char *o = a; o; o = o == a && b[0] ? b : NULL) {
				snprintf(quoted, sizeof(quoted), "%s", o);
				for (const char *s = section; (s = strstr(s, quoted)) && s < section + len; s++) {
					char after = s[strlen(quoted)];
					if (after != '-' && (after < 'a' || after > 'z')) {
						found = true;
						break;
					}
				}
			}
			if (!found)
				test_fail(__FILE__, __LINE__, "docs/cli.md, cisp %s: option %s%s%s is not described",
					  names[i], a, b[0] ? "/" : "", b);
		}
	}
	free(doc);
}

/* The man pages are the help text: every option of cisp develop is in cisp-develop(1). */
TEST(cli_man_pages_from_help)
{
	char names[32][32], path[1024];
	int n = command_names(names);

	for (int i = 0; i < n; i++) {
		char *page;

		snprintf(path, sizeof(path), "%s/tools/cisp-%.31s.1", CISP_BUILD_DIR, names[i]);
		page = test_read_text(path);
		if (!page) {
			test_fail(__FILE__, __LINE__, "no man page %s", path);
			continue;
		}
		CHECK(strstr(page, ".SH SYNOPSIS") && strstr(page, ".SH DESCRIPTION"));
		if (!strcmp(names[i], "develop"))
			CHECK(strstr(page, ".B \\-\\-demosaic fast|quality\n") && strstr(page, ".B \\-\\-no\\-crop\n"));
		free(page);
	}
}

/* --png of a run shorter than the camera's queue of requests is the last frame, not black. */
TEST(run_png_of_a_short_run)
{
	struct cisp_raster r = { 0 };
	double sum = 0;

	for (int frames = 1; frames <= 5; frames += 2) {
		char name[32];

		snprintf(name, sizeof(name), "short%d.png", frames);
		CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames %d --quiet --size 320x240 --png %s", frames, name),
			 0);
		CHECK_EQ(cisp_raster_read(cli_tmp(name), &r), 0);
		sum = 0;
		for (size_t i = 0; r.data && i < (size_t)r.width * r.height * r.channels; i++)
			sum += r.data[i];
		CHECK(r.width == 320 && r.height == 240);
		if (r.data && sum / ((double)r.width * r.height * r.channels) < 20)
			test_fail(__FILE__, __LINE__, "%d frames: the PNG's mean is %g", frames,
				  sum / ((double)r.width * r.height * r.channels));
		cisp_raster_free(&r);
	}
}

/* What develop's library calls refuse, each with its message. */
TEST(develop_api_refuses)
{
	struct cisp_develop_source src;
	struct cisp_develop_options opt = { 0 };
	struct cisp_raw_frame frame;
	struct cisp_isp_config cfg;
	struct cisp_raster r;
	struct cisp_image out;
	static const uint8_t bad_params[5] = { 'C', 'I', 'S', 'P', 1 };

	cisp_develop_source_init(&src);
	CHECK_EQ(src.cfa, -1);
	CHECK_EQ(src.black, -1);
	CHECK_ERR(cisp_develop_read(cli_tmp("missing.raw"), &src, &frame), -ENOENT, "missing.raw");
	cli_write("dump.raw", (uint8_t[64 * 48 * 2]){ 0 }, 64 * 48 * 2);
	src.width = 64;
	src.height = 48;
	CHECK_ERR(cisp_develop_read(cli_tmp("dump.raw"), &src, &frame), -EINVAL, "needs both its size and its format");
	src.dump_format = CISP_FMT_SRGGB16;
	src.cfa = CISP_CFA_GRBG; /* replaces the dump format's order */
	CHECK_EQ(cisp_develop_read(cli_tmp("dump.raw"), &src, &frame), 0);
	CHECK_EQ(frame.image.width, 64);
	CHECK_EQ(frame.image.format, CISP_FMT_SGRBG16);
	cisp_raw_frame_free(&frame);
	src.black = 300;
	src.white = 300;
	CHECK_ERR(cisp_develop_read(cli_tmp("dump.raw"), &src, &frame), -EINVAL, "black level 300 is not below the white level 300");
	cisp_develop_source_init(&src);
	src.cfa = 7;
	CHECK_ERR(cisp_develop_read(cli_tmp("dump.raw"), &src, &frame), -EINVAL, "out of range");

	/* A mosaic with a default crop: the area rounds inwards to even, full_frame keeps it all. */
	CHECK_EQ(cisp_raster_alloc(&r, 64, 48, 1, 1023), 0);
	for (size_t i = 0; i < 64 * 48; i++)
		r.data[i] = (uint16_t)(i * 7 % 1024);
	CHECK_EQ(cisp_raw_from_raster(&r, CISP_CFA_RGGB, 16, 1023, &frame), 0);
	cisp_raster_free(&r);
	frame.crop.x = 3;
	frame.crop.y = 2;
	frame.crop.width = 50;
	frame.crop.height = 41;
	struct cisp_develop_area a = cisp_develop_area(&frame, NULL);
	CHECK(a.x == 4 && a.y == 2 && a.width == 48 && a.height == 40);
	opt.full_frame = true;
	a = cisp_develop_area(&frame, &opt);
	CHECK(a.x == 0 && a.width == 64 && a.height == 48);
	opt.full_frame = false;
	CHECK_EQ(cisp_develop_config(&frame, &opt, &cfg), 0);
	CHECK(cfg.output[0].format == CISP_FMT_RGB888 && cfg.output[0].width == 48 && cfg.output[0].height == 40);
	opt.linear = true;
	CHECK_EQ(cisp_develop_config(&frame, &opt, &cfg), 0);
	CHECK_EQ(cfg.output[0].format, CISP_FMT_RGB48);
	opt.demosaic = 9;
	CHECK_ERR(cisp_develop_config(&frame, &opt, &cfg), -EINVAL, "out of range");
	opt.demosaic = 0;
	opt.ev = 5;
	CHECK_ERR(cisp_develop(&frame, &opt, &out, NULL), -EINVAL, "out of range");
	CHECK(out.owned == NULL);
	opt.ev = 0;
	opt.highlights = CISP_DEVELOP_HIGHLIGHTS_NONE + 1;
	CHECK_ERR(cisp_develop_config(&frame, &opt, &cfg), -EINVAL, "develop: highlights 4 out of range 0..3");
	opt.highlights = CISP_DEVELOP_HIGHLIGHTS_RECONSTRUCT;
	opt.params = bad_params;
	opt.params_size = sizeof(bad_params);
	opt.params_name = "mine.bin";
	CHECK_ERR(cisp_develop(&frame, &opt, &out, NULL), -EMSGSIZE, "mine.bin: params buffer of 5 bytes");
	opt.params = NULL;
	CHECK_EQ(cisp_develop(&frame, &opt, &out, NULL), 0);
	CHECK(out.width == 48 && out.height == 40 && out.format == CISP_FMT_RGB48);
	cisp_image_free(&out);
	cisp_raw_frame_free(&frame);
}

/* The chunks of a PNG file, in order, as four-letter names into @names; their number. */
static int png_chunks(const char *path, char names[64][5])
{
	unsigned char head[8];
	FILE *f = fopen(path, "rb");
	int n = 0;

	if (!f || fread(head, 1, 8, f) != 8) {
		if (f)
			fclose(f);
		return -1;
	}
	while (n < 64 && fread(head, 1, 8, f) == 8) {
		long length = (long)head[0] << 24 | head[1] << 16 | head[2] << 8 | head[3];

		memcpy(names[n], head + 4, 4);
		names[n++][4] = '\0';
		if (fseek(f, length + 4, SEEK_CUR))
			break;
	}
	fclose(f);
	return n;
}

/* What cisp develop writes carries the metadata validators require (tests/validators.sh runs them). */
TEST(develop_files_metadata)
{
	char chunks[64][5];
	int n, exif = 0, idat = -1, exif_at = -1;
	uint16_t unit = 0;
	float xres = 0;
	char *jpeg;
	TIFF *tif;

	{
		struct cisp_raster r;
		CHECK_EQ(cisp_raster_alloc(&r, 64, 48, 1, 1023), 0);
		for (size_t i = 0; i < 64 * 48; i++)
			r.data[i] = (uint16_t)(100 + i % 900);
		CHECK_EQ(cisp_raster_write(cli_tmp("mosaic.pgm"), &r), 0);
		cisp_raster_free(&r);
	}
	CHECK_EQ(cli_run("convert mosaic.pgm -o meta.dng --make Cisp --model Test --exposure 0.01 --iso 200"), 0);
	CHECK_EQ(cli_run("develop meta.dng -o meta.png"), 0);
	CHECK_EQ(cli_run("develop meta.dng -o meta.jpg"), 0);
	CHECK_EQ(cli_run("develop meta.dng -o meta.tif"), 0);

	/* PNG: one eXIf chunk, before the pixels (a second one after IDAT is an error to pngcheck). */
	n = png_chunks(cli_tmp("meta.png"), chunks);
	CHECK(n > 3);
	for (int i = 0; i < n; i++) {
		if (!strcmp(chunks[i], "eXIf")) {
			exif++;
			exif_at = i;
		}
		if (!strcmp(chunks[i], "IDAT") && idat < 0)
			idat = i;
	}
	CHECK_EQ(exif, 1);
	CHECK(exif_at >= 0 && exif_at < idat);

	/* JPEG: EXIF version 2.32, FlashpixVersion, the YCbCr layout and the make. */
	jpeg = test_read_text(cli_tmp("meta.jpg"));
	CHECK(jpeg != NULL);
	if (jpeg) {
		long size = cli_size("meta.jpg");
		bool v232 = false, fpx = false, ycc = false, make = false;

		for (long i = 0; i + 4 <= size && i < 4096; i++) {
			v232 |= !memcmp(jpeg + i, "0232", 4);
			fpx |= !memcmp(jpeg + i, "0100", 4);
			ycc |= !memcmp(jpeg + i, "\1\2\3\0", 4);
			make |= !memcmp(jpeg + i, "Cisp", 4);
		}
		CHECK(v232 && fpx && ycc && make);
		free(jpeg);
	}

	/* TIFF: a resolution (72 dpi), which TIFF 6.0 requires. */
	tif = TIFFOpen(cli_tmp("meta.tif"), "r");
	CHECK(tif != NULL);
	if (tif) {
		CHECK(TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xres) == 1);
		CHECK(TIFFGetField(tif, TIFFTAG_RESOLUTIONUNIT, &unit) == 1);
		CHECK(xres == 72.0f && unit == RESUNIT_INCH);
		TIFFClose(tif);
	}
}

/* A tuning is named as users name it: a file, or a sensor model found on the search path. */
TEST(tuning_open_by_path_or_model)
{
	struct cisp_tuning *t = NULL;
	char path[1024];

	CHECK_EQ(cisp_tuning_open(&t, "cisp-test"), 0);
	CHECK(t && strstr(cisp_tuning_name(t), "cisp-test.yaml"));
	cisp_tuning_free(t);
	snprintf(path, sizeof(path), "%s/data/tuning/cisp-test.yaml", CISP_SOURCE_DIR);
	CHECK_EQ(cisp_tuning_open(&t, path), 0);
	cisp_tuning_free(t);
	CHECK_ERR(cisp_tuning_open(&t, "no-such-model"), -ENOENT, "no tuning file for sensor model 'no-such-model'");
	CHECK_ERR(cisp_tuning_open(&t, "missing.yaml"), -ENOENT, "missing.yaml");
	CHECK_ERR(cisp_tuning_open(&t, ""), -EINVAL, "no file or sensor model");
	/* cisp run --tuning takes a model's name as the camera option does. */
	CHECK_EQ(cli_run("run --camera virtual:cisp-test --frames 2 --quiet --tuning cisp-test"), 0);
	CHECK(strstr(cli_output, "cisp-test.yaml") != NULL);
}
