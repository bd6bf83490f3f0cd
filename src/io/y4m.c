/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/output_file.h>
#include <cisp/y4m.h>

#include "core/error_internal.h"

struct cisp_y4m_writer {
	struct cisp_output_file *out;
	bool owned; /* opened by path: committed or discarded by cisp_y4m_close() */
	FILE *file;
	const char *path;
	uint32_t width, height;
	int error; /* the first write error */
	uint8_t *row; /* chroma row scratch for NV12 */
};

int cisp_y4m_open_to(struct cisp_y4m_writer **out, struct cisp_output_file *file, uint32_t width, uint32_t height,
		     unsigned fps_num, unsigned fps_den, bool full_range)
{
	const char *path = cisp_output_file_path(file);
	struct cisp_y4m_writer *w;

	*out = NULL;
	if (!width || !height || width % 2 || height % 2 || !fps_num || !fps_den)
		return cisp_error(-EINVAL, "%s: a 4:2:0 video needs an even size and a frame rate (got %ux%u at %u/%u)",
				  path, width, height, fps_num, fps_den);
	w = calloc(1, sizeof(*w));
	if (w)
		w->row = malloc(width / 2);
	if (!w || !w->row) {
		free(w);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	w->file = cisp_output_file_stream(file);
	if (!w->file) {
		free(w->row);
		free(w);
		return -ENOMEM;
	}
	w->out = file;
	w->path = path;
	w->width = width;
	w->height = height;
	/* C420jpeg: chroma sited between the luma samples, as 2x2 averaging makes it. */
	fprintf(w->file, "YUV4MPEG2 W%u H%u F%u:%u Ip A1:1 C420jpeg XCOLORRANGE=%s\n", width, height, fps_num,
		fps_den, full_range ? "FULL" : "LIMITED");
	*out = w;
	return 0;
}

int cisp_y4m_open(struct cisp_y4m_writer **out, const char *path, uint32_t width, uint32_t height,
		  unsigned fps_num, unsigned fps_den, bool full_range)
{
	struct cisp_output_file *file;
	int ret = cisp_output_file_create(&file, path, CISP_OUTPUT_REPLACE);

	if (!ret)
		ret = cisp_y4m_open_to(out, file, width, height, fps_num, fps_den, full_range);
	if (ret) {
		cisp_output_file_discard(file);
		return ret;
	}
	(*out)->owned = true;
	return 0;
}

static int write_plane(struct cisp_y4m_writer *w, const uint8_t *data, size_t stride, size_t row_bytes,
		       size_t rows)
{
	for (size_t y = 0; y < rows; y++)
		if (fwrite(data + y * stride, 1, row_bytes, w->file) != row_bytes)
			return w->error = cisp_error(-EIO, "%s: write failed: %s", w->path, strerror(errno));
	return 0;
}

int cisp_y4m_write(struct cisp_y4m_writer *w, const struct cisp_image *f)
{
	size_t cw = w->width / 2, ch = w->height / 2;
	int ret;

	if ((f->format != CISP_FMT_I420 && f->format != CISP_FMT_NV12) || f->width != w->width ||
	    f->height != w->height)
		return cisp_error(-EINVAL, "%s: frame is %ux%u %s, the video is %ux%u 4:2:0", w->path, f->width,
				  f->height, cisp_format_name(f->format), w->width, w->height);
	if (fputs("FRAME\n", w->file) < 0)
		return w->error = cisp_error(-EIO, "%s: write failed: %s", w->path, strerror(errno));
	if ((ret = write_plane(w, f->plane[0].data, f->plane[0].stride, w->width, w->height)))
		return ret;
	if (f->format == CISP_FMT_I420) {
		if ((ret = write_plane(w, f->plane[1].data, f->plane[1].stride, cw, ch)))
			return ret;
		return write_plane(w, f->plane[2].data, f->plane[2].stride, cw, ch);
	}
	/* NV12: split the interleaved CbCr plane into Cb then Cr. */
	for (int c = 0; c < 2; c++) {
		for (size_t y = 0; y < ch; y++) {
			const uint8_t *src = f->plane[1].data + y * f->plane[1].stride;
			for (size_t x = 0; x < cw; x++)
				w->row[x] = src[2 * x + (size_t)c];
			if ((ret = write_plane(w, w->row, cw, cw, 1)))
				return ret;
		}
	}
	return 0;
}

int cisp_y4m_close(struct cisp_y4m_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (w->owned)
		ret = cisp_output_file_finish(w->out, w->error);
	else if (fflush(w->file))
		ret = cisp_error(-EIO, "%s: write failed: %s", w->path, strerror(errno));
	free(w->row);
	free(w);
	return ret;
}
