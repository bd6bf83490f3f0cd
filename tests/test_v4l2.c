/* SPDX-License-Identifier: MIT */
/*
 * The V4L2 backend's parts that need no camera: the format table, frame
 * copies between device and caller formats, the sizes offered for ranges,
 * and the messages of the errors users meet. Capture itself is tested
 * against vimc and vivid in a VM (tests/vm/run.sh).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/media-bus-format.h>

#include <cisp/error.h>
#include <cisp/sensor.h>

#include "sensor/v4l2/v4l2.h"
#include "test.h"

TEST(v4l2_format_table)
{
	static const enum cisp_cfa cfas[] = { CISP_CFA_RGGB, CISP_CFA_GRBG, CISP_CFA_GBRG, CISP_CFA_BGGR };
	static const unsigned bits[] = { 8, 10, 12, 14, 16 };
	char name[24];

	for (size_t c = 0; c < 4; c++)
		for (size_t b = 0; b < 5; b++)
			for (int packed = 0; packed < 2; packed++) {
				uint32_t fourcc = cisp_bayer_format(cfas[c], bits[b], packed);
				const struct v4l2_bayer *e = v4l2_bayer_by_fourcc(fourcc);
				const struct cisp_format_info *fi = cisp_format_info(fourcc);

				if (!fourcc)
					continue;
				CHECK(e != NULL);
				if (!e)
					continue;
				/* cisp's codes are V4L2's: the table agrees with cisp's own description. */
				CHECK_EQ(e->cfa, fi->cfa);
				CHECK_EQ(e->bits, fi->bits);
				CHECK_EQ(e->packed, fi->packed);
				/* The bus code leads back to the unpacked entry of the same CFA and depth. */
				CHECK(v4l2_bayer_by_mbus(e->mbus) != NULL);
				CHECK_EQ(v4l2_bayer_by_mbus(e->mbus)->packed, false);
				CHECK_EQ(v4l2_bayer_by_mbus(e->mbus)->cfa, cfas[c]);
				CHECK_EQ(v4l2_bayer_by_mbus(e->mbus)->bits, bits[b]);
			}
	CHECK_EQ(v4l2_bayer_by_mbus(MEDIA_BUS_FMT_SGRBG8_1X8)->fourcc, CISP_FMT_SGRBG8);
	CHECK_EQ(v4l2_bayer_by_mbus(MEDIA_BUS_FMT_SBGGR10_1X10)->fourcc, CISP_FMT_SBGGR10);
	CHECK_EQ(v4l2_bayer_packed(v4l2_bayer_by_mbus(MEDIA_BUS_FMT_SRGGB12_1X12))->fourcc, CISP_FMT_SRGGB12P);
	CHECK(v4l2_bayer_packed(v4l2_bayer_by_fourcc(CISP_FMT_SRGGB8)) == NULL);
	CHECK(v4l2_bayer_by_fourcc(CISP_FMT_NV12) == NULL);
	CHECK(v4l2_bayer_by_mbus(MEDIA_BUS_FMT_RGB888_1X24) == NULL);
	CHECK(!strcmp(v4l2_mbus_name(MEDIA_BUS_FMT_SGRBG12_1X12, name), "SGRBG12_1X12"));
	CHECK(!strcmp(v4l2_mbus_name(MEDIA_BUS_FMT_RGB888_1X24, name), "0x100a"));
	CHECK(!strcmp(v4l2_fourcc_str(CISP_FMT_SRGGB10P, name), "pRAA"));
	CHECK_EQ(v4l2_bayer_row_bytes(v4l2_bayer_by_fourcc(CISP_FMT_SRGGB10P), 640), 800);
	CHECK_EQ(v4l2_bayer_row_bytes(v4l2_bayer_by_fourcc(CISP_FMT_SRGGB12P), 640), 960);
	CHECK_EQ(v4l2_bayer_row_bytes(v4l2_bayer_by_fourcc(CISP_FMT_SRGGB12), 640), 1280);
	CHECK_EQ(v4l2_bayer_row_bytes(v4l2_bayer_by_fourcc(CISP_FMT_SRGGB8), 640), 640);
}

static unsigned sample(const struct cisp_image *img, uint32_t x, uint32_t y)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	const uint8_t *r = img->plane[0].data + (size_t)y * img->plane[0].stride;

	if (f->packed && f->bits == 10)
		return (unsigned)(r[x / 4 * 5 + x % 4] << 2 | ((r[x / 4 * 5 + 4] >> (2 * (x % 4))) & 3));
	if (f->packed)
		return x & 1 ? (unsigned)(r[x / 2 * 3 + 1] << 4 | r[x / 2 * 3 + 2] >> 4)
			     : (unsigned)(r[x / 2 * 3] << 4 | (r[x / 2 * 3 + 2] & 0xf));
	return f->bits == 8 ? r[x] : (unsigned)(r[2 * x] | r[2 * x + 1] << 8);
}

/* A device buffer of @fourcc with padded rows and random samples (some containers over the top). */
static uint8_t *device_frame(uint32_t fourcc, uint32_t w, uint32_t h, size_t *stride, unsigned *values)
{
	const struct v4l2_bayer *b = v4l2_bayer_by_fourcc(fourcc);
	uint8_t *buf;

	*stride = v4l2_bayer_row_bytes(b, w) + 24;
	buf = calloc(h, *stride);
	for (uint32_t i = 0; i < w * h; i++)
		values[i] = (unsigned)(test_rand() % (1u << b->bits));
	for (uint32_t y = 0; y < h; y++) {
		uint8_t *r = buf + y * *stride;

		for (uint32_t x = 0; x < w; x++) {
			unsigned v = values[y * w + x];

			if (b->packed && b->bits == 10) {
				r[x / 4 * 5 + x % 4] = (uint8_t)(v >> 2);
				r[x / 4 * 5 + 4] |= (uint8_t)((v & 3) << (2 * (x % 4)));
			} else if (b->packed) {
				r[x / 2 * 3 + (x & 1)] = (uint8_t)(v >> 4);
				r[x / 2 * 3 + 2] |= (uint8_t)((v & 0xf) << (4 * (x & 1)));
			} else if (b->bits == 8) {
				r[x] = (uint8_t)v;
			} else {
				r[2 * x] = (uint8_t)v;
				r[2 * x + 1] = (uint8_t)(v >> 8);
			}
		}
	}
	return buf;
}

TEST(v4l2_copy_variants)
{
	static const uint32_t devs[] = { CISP_FMT_SGRBG8, CISP_FMT_SBGGR10, CISP_FMT_SBGGR10P, CISP_FMT_SRGGB12,
					 CISP_FMT_SRGGB12P, CISP_FMT_SGBRG16 };
	const uint32_t w = 64, h = 6;
	unsigned *values = calloc(w * h, sizeof(*values));

	for (size_t d = 0; d < sizeof(devs) / sizeof(devs[0]); d++) {
		const struct v4l2_bayer *b = v4l2_bayer_by_fourcc(devs[d]);
		const struct v4l2_bayer *plain = v4l2_bayer_by_mbus(b->mbus), *packed = v4l2_bayer_packed(b);
		uint32_t targets[3] = { plain->fourcc, cisp_bayer_format(b->cfa, 16, false), packed ? packed->fourcc : 0 };
		size_t stride;
		uint8_t *buf = device_frame(devs[d], w, h, &stride, values);

		for (int t = 0; t < 3; t++) {
			struct cisp_image img;
			unsigned shift = targets[t] == cisp_bayer_format(b->cfa, 16, false) ? 16 - b->bits : 0;
			unsigned bad = 0;

			if (!targets[t])
				continue;
			CHECK_EQ(cisp_image_alloc(&img, targets[t], w, h), 0);
			CHECK_EQ(v4l2_copy_frame(b, buf, stride, stride * h, &img), 0);
			for (uint32_t y = 0; y < h; y++)
				for (uint32_t x = 0; x < w; x++)
					bad += sample(&img, x, y) != values[y * w + x] << shift;
			if (bad)
				test_fail(__FILE__, __LINE__, "%s -> %s: %u samples differ", cisp_format_name(devs[d]),
					  cisp_format_name(targets[t]), bad);
			cisp_image_free(&img);
		}
		free(buf);
	}
	free(values);
}

TEST(v4l2_copy_errors)
{
	const struct v4l2_bayer *b = v4l2_bayer_by_fourcc(CISP_FMT_SRGGB10);
	uint8_t buf[64 * 4 * 2] = { 0 };
	struct cisp_image img;

	/* Containers holding more than 10 bits are clamped, as the ISP does. */
	buf[0] = 0xff;
	buf[1] = 0xff;
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB16, 64, 4), 0);
	CHECK_EQ(v4l2_copy_frame(b, buf, 128, sizeof(buf), &img), 0);
	CHECK_EQ(sample(&img, 0, 0), 1023u << 6);
	cisp_image_free(&img);
	/* Another CFA or depth is refused with the formats named. */
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SGRBG10, 64, 4), 0);
	CHECK_ERR(v4l2_copy_frame(b, buf, 128, sizeof(buf), &img), -EINVAL, "cannot copy SRGGB10 frames into SGRBG10");
	cisp_image_free(&img);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB12, 64, 4), 0);
	CHECK_ERR(v4l2_copy_frame(b, buf, 128, sizeof(buf), &img), -EINVAL, "into SRGGB12");
	cisp_image_free(&img);
	/* A buffer shorter than the frame (a driver's bytesused) is refused. */
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_SRGGB10, 64, 4), 0);
	CHECK_ERR(v4l2_copy_frame(b, buf, 128, sizeof(buf) - 1, &img), -EINVAL, "needs 512");
	CHECK_ERR(v4l2_copy_frame(b, buf, 100, sizeof(buf), &img), -EINVAL, "100-byte rows");
	/* A stride whose 3 rows wrap to 2 bytes: refused, not read. */
	CHECK_ERR(v4l2_copy_frame(b, buf, SIZE_MAX / 3 + 1, sizeof(buf), &img), -EINVAL, "needs 18446744073709551615");
	cisp_image_free(&img);
}

/* A dequeued buffer's payload never reaches past its mapping, whatever the driver reports. */
TEST(v4l2_payload_clamped)
{
	size_t off = 99;

	CHECK_EQ(v4l2_payload(4096, 0, 0, &off), 4096);
	CHECK_EQ(off, 0);
	CHECK_EQ(v4l2_payload(4096, 1000, 0, &off), 1000);
	/* A bytesused beyond the mapping is the mapping. */
	CHECK_EQ(v4l2_payload(4096, 0xffffffffu, 0, &off), 4096);
	CHECK_EQ(v4l2_payload(4096, 8192, 256, &off), 4096 - 256);
	CHECK_EQ(off, 256);
	CHECK_EQ(v4l2_payload(4096, 1000, 256, &off), 1000 - 256);
	/* An offset outside the payload is ignored. */
	CHECK_EQ(v4l2_payload(4096, 1000, 1000, &off), 1000);
	CHECK_EQ(off, 0);
	CHECK_EQ(v4l2_payload(4096, 0xffffffffu, 0xfffffff0u, &off), 4096);
	CHECK_EQ(off, 0);
}

TEST(v4l2_range_sizes_offered)
{
	uint32_t w[8], h[8];
	unsigned n;

	/* vimc's sensor: 16x16 to 4096x2160 in steps of 1. */
	n = v4l2_range_sizes(16, 4096, 1, 16, 2160, 1, w, h, 8);
	CHECK_EQ(n, 5);
	CHECK_EQ(w[0], 640);
	CHECK_EQ(h[0], 480);
	CHECK_EQ(w[2], 1920);
	CHECK_EQ(h[2], 1080);
	CHECK_EQ(w[3], 3840);
	CHECK_EQ(w[4], 4096);
	CHECK_EQ(h[4], 2160);
	/* A range that ends on a common size does not list it twice; odd maxima become even. */
	n = v4l2_range_sizes(16, 1280, 16, 16, 720, 16, w, h, 8);
	CHECK_EQ(n, 2);
	CHECK_EQ(w[1], 1280);
	n = v4l2_range_sizes(100, 1001, 3, 100, 701, 3, w, h, 8);
	CHECK_EQ(n, 1);
	CHECK_EQ(w[0], 1000);
	CHECK_EQ(h[0], 700);
	/* Steps that miss a common size leave it out. */
	n = v4l2_range_sizes(17, 2000, 2, 17, 2000, 2, w, h, 8);
	CHECK_EQ(n, 1);
	CHECK_EQ(v4l2_range_sizes(16, 4096, 1, 16, 2160, 1, w, h, 2), 2);
}

TEST(v4l2_error_messages)
{
	CHECK_ERR(v4l2_open_error("/dev/video7", EACCES), -EACCES, "no permission to open /dev/video7");
	CHECK(strstr(cisp_last_error(), "'video'") != NULL);
	CHECK_ERR(v4l2_open_error("/dev/video7", EBUSY), -EBUSY, "/dev/video7 is busy");
	CHECK_ERR(v4l2_open_error("/dev/video7", ENODEV), -ENOENT, "unplugged");
	CHECK_ERR(media_mismatch_error("/dev/video0", "Sensor A", 0, MEDIA_BUS_FMT_RGB888_1X24, 640, 480,
				       "Debayer A", 0, MEDIA_BUS_FMT_SGRBG8_1X8, 640, 480),
		  -EPIPE, "'Sensor A' pad 0 sends 0x100a 640x480 but 'Debayer A' pad 0 expects SGRBG8_1X8 640x480");
}

TEST(v4l2_open_errors)
{
	struct cisp_sensor *s = (struct cisp_sensor *)1;
	struct cisp_sensor_desc list[16];
	int n;

	CHECK_ERR(cisp_sensor_open(&s, "v4l2:/dev/no-such-video-node", NULL), -ENOENT,
		  "/dev/no-such-video-node does not exist");
	CHECK(s == NULL);
	/* A character device that is not V4L2: QUERYCAP fails with ENOTTY. */
	CHECK_ERR(cisp_sensor_open(&s, "v4l2:/dev/null", NULL), -ENODEV, "/dev/null is not a V4L2 device");
	CHECK_ERR(cisp_sensor_open(&s, "v4l2:no such camera", NULL), -ENOENT, "no video node named 'no such camera'");
	/* Long paths (/dev/v4l/by-id/ links) are opened whole, or refused: never cut. */
	{
		char path[400] = "v4l2:/dev";

		while (strlen(path) < 100)
			strcat(path, "/.");
		strcat(path, "/null");
		CHECK_ERR(cisp_sensor_open(&s, path, NULL), -ENODEV, "is not a V4L2 device");
		while (strlen(path) < 300)
			strcat(path, "/.");
		CHECK_ERR(cisp_sensor_open(&s, path, NULL), -ENAMETOOLONG, "is longer than 255 bytes");
	}
	CHECK_ERR(cisp_sensor_open(&s, "v4l2:", NULL), -EINVAL, "nothing after 'v4l2:'");
	/* Enumeration lists V4L2 cameras next to the virtual ones, whatever this machine has. */
	n = cisp_sensor_enumerate(list, 16);
	CHECK(n >= 0);
	for (int i = 0; i < n && i < 16; i++)
		CHECK(!strcmp(list[i].backend, "virtual") || !strncmp(list[i].name, "v4l2:/dev/video", 15));
}
