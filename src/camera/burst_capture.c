/* SPDX-License-Identifier: MIT */
/*
 * A camera request with a burst (struct cisp_camera_request.burst,
 * docs/burst.md): its frames are taken from the sensor one after the other,
 * the first into the buffer the ISP will read and the others into the
 * camera's burst buffers, and merged into the first. The noise model the
 * merge needs is the control loop's NOISE block taken back to the frames'
 * codes; the variance the merge leaves lowers that block for this frame's
 * ISP job, so the denoisers see the merged frame's noise.
 */
#include <errno.h>
#include <math.h>

#include <cisp/error.h>
#include <cisp/format.h>

#include "camera_internal.h"
#include "core/error_internal.h"

int camera_burst_check(const struct cisp_camera *cam, const struct cisp_camera_request *req)
{
	const struct cisp_format_info *fi = cisp_format_info(cam->raw_format);

	if (req->burst <= 1)
		return 0;
	if (req->bracket.count)
		return cisp_error(-EINVAL, "request: a burst of %u frames and an exposure bracket; one or the other",
				  req->burst);
	if (req->burst > CISP_BURST_MAX_FRAMES)
		return cisp_error(-EINVAL, "request's burst of %u frames: 0 or 1 (one frame), or %d to %d", req->burst,
				  CISP_BURST_MIN_FRAMES, CISP_BURST_MAX_FRAMES);
	if (!fi || fi->packed || fi->bits < 10)
		return cisp_error(-EINVAL,
				  "request's burst: the camera's raw frames are %s; a burst needs unpacked frames of "
				  "10 to 16 bits (configure the raw stream so)",
				  cisp_format_name(cam->raw_format));
	return 0;
}

/*
 * The noise model of the frames in their codes from the NOISE block, which
 * is in 16-bit units after the black level: the ISP widens a sample of
 * @fi->bits to 16 bits, then scales white - black to 65535 (docs/stages/blc.md).
 * The four channels' mean.
 */
static void noise_in_codes(const struct cisp_camera *cam, const struct cisp_format_info *fi,
			   struct cisp_burst_config *bc)
{
	const struct cisp_noise_params *n = &cam->params.noise;
	unsigned shift = fi->bits > cam->mode.bits ? fi->bits - cam->mode.bits : 0;
	double range16 = ldexp((double)cam->mode.white_level - cam->mode.black_level, 16 - (int)cam->mode.bits);
	double k = range16 > 0 ? ldexp(65535.0 / range16, 16 - (int)fi->bits) : 1;
	double a = 0, b = 0;

	for (int c = 0; c < 4; c++) {
		a += n->a[c] / 65536.0 / 4;
		b += n->b[c] / 4.0;
	}
	bc->black_level = cam->mode.black_level << shift;
	bc->noise_a = fmin(a / k, 4096);
	bc->noise_b = fmin(b / (k * k), 16777216.0);
}

int camera_burst_take(struct cisp_camera *cam, struct camera_frame *f, unsigned flags)
{
	struct cisp_camera_request *req = f->req;
	const struct cisp_format_info *fi = cisp_format_info(cam->raw_format);
	struct cisp_burst_config bc = { .num_frames = req->burst };
	struct cisp_burst_result res;
	struct cisp_image *ref = req->buffer[CISP_STREAM_RAW] ? req->buffer[CISP_STREAM_RAW] : &cam->raw[f->slot];
	int r = 0;

	if (!cam->burst_pool)
		r = cisp_pool_create(&cam->burst_pool, 0);
	for (unsigned z = 1; !r && z < req->burst; z++)
		if (!cam->burst[z].owned)
			r = cisp_image_alloc(&cam->burst[z], cam->raw_format, cam->mode.width, cam->mode.height);
	if (r)
		return cisp_error_prefix(r, "camera %s: burst", cam->name);
	for (unsigned z = 0; z < req->burst; z++) {
		struct cisp_sensor_metadata md;
		struct cisp_image *img = z ? &cam->burst[z] : ref;

		r = cisp_sensor_capture(cam->sensor, img, z ? &md : &f->md, flags);
		if (r)
			return cisp_error_prefix(r, "camera %s: burst frame %u of %u", cam->name, z, req->burst);
		bc.frame[z] = img;
	}
	noise_in_codes(cam, fi, &bc);
	r = cisp_burst_merge(&bc, ref, cam->burst_pool, &res);
	if (r)
		return cisp_error_prefix(r, "camera %s", cam->name);
	f->raw = ref;
	f->variance_factor = res.variance_factor;
	return 0;
}

int camera_burst_encode_noise(struct cisp_camera *cam, const struct camera_frame *f)
{
	struct cisp_noise_params keep = cam->params.noise;
	int r;

	for (int c = 0; f->variance_factor > 0 && c < 4; c++) {
		cam->params.noise.a[c] = (uint32_t)llround(keep.a[c] * f->variance_factor);
		cam->params.noise.b[c] = (uint32_t)llround(keep.b[c] * f->variance_factor);
	}
	r = camera_encode_delta(cam, cam->delta_blocks | CISP_BLOCK_BIT(CISP_BLOCK_NOISE));
	cam->params.noise = keep;
	if (!r)
		cam->noise_lowered = f->variance_factor > 0;
	return r;
}

void camera_burst_free(struct cisp_camera *cam)
{
	for (unsigned z = 0; z < CISP_BURST_MAX_FRAMES; z++)
		cisp_image_free(&cam->burst[z]);
	cisp_pool_destroy(cam->burst_pool);
	cam->burst_pool = NULL;
}
