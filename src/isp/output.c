/* SPDX-License-Identifier: MIT */
/* The outputs of an instance: crop, scale and packing (output.h). */
#include <errno.h>
#include <stdlib.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "isp/dsp.h"
#include "isp/frame.h"
#include "isp/output.h"
#include "isp/pack.h"
#include "isp/pipeline_internal.h"
#include "isp/scale.h"

int cisp_output_update(struct cisp_isp *isp, int index)
{
	struct output_state *o = &isp->out[index];
	const struct cisp_output_config *oc = &isp->config.output[index];
	int x = 0, y = 0, w = (int)isp->config.width, h = (int)isp->config.height;

	if (!o->used)
		return 0;
	if (isp->state.crop_enabled & (1u << index)) {
		const struct cisp_crop_params *c = &isp->state.crop[index];

		x = c->x;
		y = c->y;
		w = c->width;
		h = c->height;
	}
	if (o->scaler && x == o->crop_x && y == o->crop_y && w == o->crop_w && h == o->crop_h)
		return 0;
	cisp_scaler_free(o->scaler);
	o->scaler = NULL;
	o->crop_x = x;
	o->crop_y = y;
	o->crop_w = w;
	o->crop_h = h;
	if (w == (int)oc->width && h == (int)oc->height)
		return 0; /* pack straight from the crop */
	return cisp_scaler_create(&o->scaler, w, h, (int)oc->width, (int)oc->height);
}

void cisp_output_free(struct output_state *o)
{
	cisp_scaler_free(o->scaler);
	free(o->scaled);
}

bool cisp_output_via_frame(const struct cisp_isp *isp, int index)
{
	const struct output_state *o = &isp->out[index];

	return o->scaler || o->crop_x || o->crop_y || o->crop_w != (int)isp->config.width ||
	       o->crop_h != (int)isp->config.height;
}

size_t cisp_output_bytes(const struct cisp_isp *isp)
{
	size_t bytes = 0;

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (isp->out[i].scaled)
			bytes += (size_t)isp->config.output[i].width * isp->config.output[i].height * 3 * sizeof(uint16_t);
	return bytes;
}

/* The window of @full that a crop shows, as planes whose row 0 is the crop's top row. */
static struct rgb16 crop_view(const struct rgb16 *full, const struct output_state *o)
{
	struct rgb16 v = *full;

	for (int c = 0; c < 3; c++) {
		v.c[c].base = plane_row(&full->c[c], o->crop_y) + o->crop_x;
		v.c[c].first_row = 0;
		v.c[c].width = o->crop_w;
		v.c[c].height = o->crop_h;
	}
	return v;
}

struct finish {
	const struct output_state *o;
	const struct rgb16 *src;
	struct cisp_image *img;
};

static void scale_band(void *opaque, unsigned worker, int y0, int y1)
{
	const struct finish *f = opaque;

	(void)worker;
	cisp_scale_rows(f->o->scaler, f->src, f->o->crop_x, f->o->crop_y, &f->o->scaled_planes, y0, y1);
}

static void pack_band(void *opaque, unsigned worker, int y0, int y1)
{
	const struct finish *f = opaque;

	(void)worker;
	cisp_pack_rows(f->src, f->img, y0, y1);
}

int cisp_output_finish(struct cisp_isp *isp, int index, const struct rgb16 *src, struct cisp_image *img,
		       struct cisp_pool *pool)
{
	struct output_state *o = &isp->out[index];
	const int w = (int)isp->config.output[index].width, h = (int)isp->config.output[index].height;
	struct rgb16 view = crop_view(src, o);
	struct finish f = { o, src, img };

	if (o->scaler) {
		if (!o->scaled) {
			size_t n = (size_t)w * h;

			if (!(o->scaled = malloc(n * 3 * sizeof(uint16_t))))
				return cisp_error(-ENOMEM, "out of memory for output %d", index);
			for (int c = 0; c < 3; c++)
				o->scaled_planes.c[c] = (struct plane16){ o->scaled + n * c, w, 0, w, h };
		}
		cisp_frame_bands(pool, h, scale_band, &f);
		view = o->scaled_planes;
	}
	f.src = &view;
	cisp_frame_bands(pool, h, pack_band, &f);
	return 0;
}

void cisp_output_pack_rows(const struct cisp_dsp *d, const struct rgb16 *src, struct cisp_image *img, int y0, int y1)
{
	const int w = (int)img->width;

	if (img->format == CISP_FMT_NV12 || img->format == CISP_FMT_I420) {
		const bool nv12 = img->format == CISP_FMT_NV12;

		for (int y = y0; y < y1; y++)
			d->to8_row(plane_row(&src->c[0], y), img->plane[0].data + (size_t)y * img->plane[0].stride, w);
		for (int y = y0; y < y1; y += 2) {
			uint8_t *cb = img->plane[1].data + (size_t)(y / 2) * img->plane[1].stride;
			uint8_t *cr = nv12 ? cb + 1 : img->plane[2].data + (size_t)(y / 2) * img->plane[2].stride;

			d->chroma420_row(plane_row(&src->c[1], y), plane_row(&src->c[1], y + 1), plane_row(&src->c[2], y),
					 plane_row(&src->c[2], y + 1), cb, cr, nv12 ? 2 : 1, w);
		}
	} else if (img->format == CISP_FMT_RGB888 || img->format == CISP_FMT_XBGR32) {
		/* 8-bit RGB in either byte order has row functions; RGB48 packs as the reference does. */
		void (*rgb8_row)(const uint16_t *, const uint16_t *, const uint16_t *, uint8_t *, int) =
			img->format == CISP_FMT_XBGR32 ? d->xbgr32_row : d->rgb888_row;

		for (int y = y0; y < y1; y++)
			rgb8_row(plane_row(&src->c[0], y), plane_row(&src->c[1], y), plane_row(&src->c[2], y),
				 img->plane[0].data + (size_t)y * img->plane[0].stride, w);
	} else {
		cisp_pack_rows(src, img, y0, y1);
	}
}
