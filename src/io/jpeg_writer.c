/* SPDX-License-Identifier: MIT */
/* JPEG through libjpeg(-turbo): ICC profile in APP2, EXIF in APP1. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "io/writers.h"

struct jpeg_failure {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
	char message[JMSG_LENGTH_MAX];
};

static void on_error(j_common_ptr cinfo)
{
	struct jpeg_failure *f = (struct jpeg_failure *)cinfo->err;

	f->mgr.format_message(cinfo, f->message);
	longjmp(f->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level)
{
	(void)cinfo;
	(void)level;
}

int io_write_jpeg(struct cisp_output_file *out, const struct cisp_image *img, int quality,
		  const struct file_meta *meta)
{
	const char *path = cisp_output_file_path(out);
	struct jpeg_compress_struct cinfo;
	struct jpeg_failure failure;
	FILE *f;

	if (img->format != CISP_FMT_RGB888)
		return cisp_error(-EINVAL, "%s: JPEG holds 8-bit RGB, not %s", path, cisp_format_name(img->format));
	f = cisp_output_file_stream(out);
	if (!f)
		return -ENOMEM;
	cinfo.err = jpeg_std_error(&failure.mgr);
	failure.mgr.error_exit = on_error;
	failure.mgr.emit_message = on_message;
	failure.message[0] = '\0';
	if (setjmp(failure.jump)) {
		jpeg_destroy_compress(&cinfo);
		return cisp_error(-EIO, "%s: %s", path, failure.message);
	}
	jpeg_create_compress(&cinfo);
	jpeg_stdio_dest(&cinfo, f);
	cinfo.image_width = img->width;
	cinfo.image_height = img->height;
	cinfo.input_components = 3;
	cinfo.in_color_space = JCS_RGB;
	jpeg_set_defaults(&cinfo);
	jpeg_set_quality(&cinfo, quality, TRUE);
	if (quality > 90) {
		/* Full-resolution chroma at high quality. */
		for (int c = 0; c < 3; c++)
			cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
	}
	cinfo.optimize_coding = TRUE;
	jpeg_start_compress(&cinfo, TRUE);
	if (meta && meta->exif_size) {
		JOCTET app1[6 + 1024];
		size_t n = meta->exif_size < sizeof(app1) - 6 ? meta->exif_size : sizeof(app1) - 6;
		memcpy(app1, "Exif\0\0", 6);
		memcpy(app1 + 6, meta->exif, n);
		jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1, (unsigned)(6 + n));
	}
	if (meta && meta->icc_size)
		jpeg_write_icc_profile(&cinfo, meta->icc, (unsigned)meta->icc_size);
	while (cinfo.next_scanline < cinfo.image_height) {
		JSAMPROW row = img->plane[0].data + (size_t)cinfo.next_scanline * img->plane[0].stride;
		jpeg_write_scanlines(&cinfo, &row, 1);
	}
	jpeg_finish_compress(&cinfo);
	jpeg_destroy_compress(&cinfo);
	return 0;
}
