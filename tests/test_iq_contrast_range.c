/* SPDX-License-Identifier: MIT */
/*
 * The dynamic-range measurements (iq_contrast_range.h) against pictures
 * whose answer is set: a stepped chart whose texture stops at a chosen band,
 * an edge with a halo of a chosen height; bad regions refused; and the lab's
 * chart through the virtual camera, with its local tone mapping and without.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/iq_contrast_range.h>
#include <cisp/iq_lab.h>

#include "test.h"

#define BANDS 12
#define SQUARE 8

/*
 * Bands of 6 x 4 squares side by side, band k at 0.8 * 2^-k with squares of
 * +-20 %, encoded as a display would (values clamped to 8-bit codes); the
 * bands from @flat_from on have no texture (both squares at the band's level).
 */
static void stepped_picture(struct cisp_iq_image *img, struct cisp_iq_checker_band *b, int flat_from)
{
	CHECK_EQ(cisp_iq_image_alloc(img, BANDS * 6 * SQUARE, 4 * SQUARE, 3), 0);
	for (int k = 0; k < BANDS; k++) {
		b[k] = (struct cisp_iq_checker_band){ { k * 6 * SQUARE, 0, 6 * SQUARE, 4 * SQUARE }, SQUARE, -k };
		for (uint32_t y = 0; y < img->height; y++)
			for (int x = 0; x < 6 * SQUARE; x++) {
				int dark = (x / SQUARE + (int)y / SQUARE) & 1;
				double v = 0.8 * exp2(-k) * (k >= flat_from ? 1 : dark ? 0.8 : 1.2);
				float code = (float)(round(cisp_iq_encode(CISP_TRANSFER_SRGB, v) * 255) / 255);

				for (int c = 0; c < 3; c++)
					img->data[y * img->stride + (size_t)(k * 6 * SQUARE + x) * 3 + c] = code;
			}
	}
}

TEST(contrast_range_counts_the_bands_whose_texture_shows)
{
	struct cisp_iq_image img = { 0 };
	struct cisp_iq_checker_band b[BANDS];
	struct cisp_iq_contrast_range_result *r = calloc(1, sizeof(*r));

	/* Texture down to band 6: 7 stops, from band 0 to band 6. */
	stepped_picture(&img, b, 7);
	CHECK_EQ(cisp_iq_contrast_range(&img, b, BANDS, 0.02, r), 0);
	CHECK_EQ(r->count, BANDS);
	CHECK_NEAR(r->stops, 7, 0);
	CHECK_EQ(r->top, 0);
	CHECK_EQ(r->bottom, 6);
	/* sRGB keeps a Michelson contrast of 0.2 in linear light near 0.09 at mid-grey. */
	CHECK(r->band[2].michelson > 0.07 && r->band[2].michelson < 0.11);
	CHECK(!r->band[7].kept && r->band[7].michelson == 0);
	CHECK_NEAR(r->band[0].stops, 0, 0);
	CHECK_NEAR(r->band[6].stops, -6, 0);
	/* A gap ends the run: the brightest band flat, the run starts at band 1. */
	for (uint32_t y = 0; y < img.height; y++)
		for (int x = 0; x < 6 * SQUARE * 3; x++)
			img.data[y * img.stride + (size_t)x] = 0.9f;
	CHECK_EQ(cisp_iq_contrast_range(&img, b, BANDS, 0.02, r), 0);
	CHECK_EQ(r->top, 1);
	CHECK_NEAR(r->stops, 6, 0);
	/* Every band textured: 12 stops; a demand of more contrast than sRGB leaves drops them all. */
	cisp_iq_image_free(&img);
	stepped_picture(&img, b, BANDS);
	CHECK_EQ(cisp_iq_contrast_range(&img, b, BANDS, 0.02, r), 0);
	CHECK_NEAR(r->stops, 12, 0);
	CHECK_EQ(cisp_iq_contrast_range(&img, b, BANDS, 0.5, r), 0);
	CHECK_NEAR(r->stops, 0, 0);
	CHECK_EQ(r->top, -1);
	/* Bad bands. */
	b[3].rect.x = (int32_t)img.width - 8;
	CHECK_ERR(cisp_iq_contrast_range(&img, b, BANDS, 0.02, r), -EINVAL, "band 3");
	b[3].rect.x = 3 * 6 * SQUARE;
	b[3].square = 3;
	CHECK_ERR(cisp_iq_contrast_range(&img, b, BANDS, 0.02, r), -EINVAL, "band 3");
	b[3].square = 2 * SQUARE;
	CHECK_ERR(cisp_iq_contrast_range(&img, b, BANDS, 0.02, r), -EINVAL, "3x3 squares");
	CHECK_ERR(cisp_iq_contrast_range(&img, b, 0, 0.02, r), -EINVAL, "0 bands");
	CHECK_ERR(cisp_iq_contrast_range(&img, b, CISP_IQ_CONTRAST_MAX_BANDS + 1, 0.02, r), -EINVAL, "bands");
	cisp_iq_image_free(&img);
	free(r);
}

TEST(halo_measures_the_overshoot_set_on_each_side)
{
	struct cisp_iq_image img = { 0 };
	struct cisp_iq_halo_result h;
	const struct cisp_iq_rect roi = { 0, 0, 64, 8 };

	CHECK_EQ(cisp_iq_image_alloc(&img, 64, 8, 3), 0);
	/* Dark 0.2, bright 0.7: a bump of 0.02 (4 %) beside the edge on the bright side, a dip of 0.01 (2 %) on the dark. */
	for (uint32_t y = 0; y < 8; y++)
		for (int x = 0; x < 64; x++) {
			float v = x < 32 ? 0.2f : 0.7f;

			v += x == 32 || x == 33 ? 0.02f : x == 30 ? -0.01f : 0;
			for (int c = 0; c < 3; c++)
				img.data[y * img.stride + (size_t)x * 3 + c] = v;
		}
	CHECK_EQ(cisp_iq_halo(&img, &roi, &h), 0);
	CHECK_NEAR(h.dark, 0.2, 1e-6);
	CHECK_NEAR(h.bright, 0.7, 1e-6);
	CHECK_NEAR(h.overshoot_pct, 4, 1e-4);
	CHECK_NEAR(h.undershoot_pct, 2, 1e-4);
	/* Bad regions: outside, too narrow, no brighter right side. */
	CHECK_ERR(cisp_iq_halo(&img, &(struct cisp_iq_rect){ 8, 0, 64, 8 }, &h), -EINVAL, "not inside");
	CHECK_ERR(cisp_iq_halo(&img, &(struct cisp_iq_rect){ 0, 0, 8, 8 }, &h), -EINVAL, "16");
	CHECK_ERR(cisp_iq_halo(&img, &(struct cisp_iq_rect){ 40, 0, 24, 8 }, &h), -EINVAL, "not brighter");
	cisp_iq_image_free(&img);
}

/* The lab's chart on the test camera, whose tuning turns LTM on: more stops kept with it than without. */
TEST(iq_lab_dynamic_range_with_and_without_ltm)
{
	const struct cisp_iq_lab lab = { .sensor = "cisp-test", .seed = 2 };
	struct cisp_iq_lab_color color = { .illuminant = "D65" };
	struct cisp_iq_lab_dynamic_range *d = calloc(1, sizeof(*d));
	struct cisp_iq_lab ceiling = lab;

	CHECK_EQ(cisp_iq_lab_dynamic_range(&lab, &color, true, d), 0);
	CHECK(d->ltm);
	CHECK_EQ(d->range.count, CISP_IQ_LAB_RANGE_BANDS);
	CHECK_EQ(d->range.top, 0);
	CHECK(d->range_off.stops >= 8);
	CHECK(d->range.stops > d->range_off.stops);
	/* LTM lifts the dark side of the edge towards the bright one. */
	CHECK(d->halo.dark > d->halo_off.dark);
	CHECK(d->picture.data && d->picture.width > 0);
	printf("    stops kept: %.0f with LTM, %.0f without; halo %.2f%% / %.2f%% with, %.2f%% / %.2f%% without\n",
	       d->range.stops, d->range_off.stops, d->halo.overshoot_pct, d->halo.undershoot_pct, d->halo_off.overshoot_pct,
	       d->halo_off.undershoot_pct);
	cisp_iq_image_free(&d->picture);
	ceiling.calibration = CISP_IQ_LAB_CEILING;
	CHECK_ERR(cisp_iq_lab_dynamic_range(&ceiling, &color, false, d), -EINVAL, "ceiling");
	free(d);
}
