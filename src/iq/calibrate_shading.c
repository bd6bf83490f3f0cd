/* SPDX-License-Identifier: MIT */
/*
 * Lens shading tables from flats: per channel, the level at each of the
 * 17 x 17 nodes comes from a weighted least-squares quadratic surface
 * fitted to the flat's block means around the node (a window four node
 * spacings wide, cut by the frame's edges, where the surface extrapolates),
 * and the node's gain is the channel's brightest node level over its own.
 * The surface is fitted to level^(-1/2), which is quadratic for the cos^4
 * law of a simple lens (1 / (1 + k r^2)^2), so it holds in the corners,
 * where the falloff bends most. Each channel is
 * flattened on its own, so colour shading goes too. What the table leaves is
 * measured on the flat's blocks, 4 x 4 of them averaged so noise does not
 * count.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

#define N CISP_CALIB_LSC_GRID
/* Largest gain of the tuning's tables (65535 / 4096). */
#define MAX_GAIN 15.99

bool calib_linear_solve(double a[6][6], double b[6], double x[6], int n)
{
	for (int k = 0; k < n; k++) {
		int p = k;

		for (int i = k + 1; i < n; i++)
			if (fabs(a[i][k]) > fabs(a[p][k]))
				p = i;
		if (fabs(a[p][k]) < 1e-12)
			return false;
		for (int j = 0; j < n; j++) {
			double t = a[k][j];

			a[k][j] = a[p][j];
			a[p][j] = t;
		}
		double t = b[k];

		b[k] = b[p];
		b[p] = t;
		for (int i = k + 1; i < n; i++) {
			double f = a[i][k] / a[k][k];

			for (int j = k; j < n; j++)
				a[i][j] -= f * a[k][j];
			b[i] -= f * b[k];
		}
	}
	for (int k = n - 1; k >= 0; k--) {
		double s = b[k];

		for (int j = k + 1; j < n; j++)
			s -= a[k][j] * x[j];
		x[k] = s / a[k][k];
	}
	return true;
}

/* The level of channel @c at frame point (@nx, @ny): a quadratic surface fitted to level^(-1/2) of the blocks around it. */
static double node_level(const struct calib_planes *shape, const struct calib_blocks *b, const double *m,
			 unsigned c, double nx, double ny, double rx, double ry)
{
	double a[6][6] = { { 0 } }, rhs[6] = { 0 }, coef[6];

	for (unsigned j = 0; j < b->gh; j++)
		for (unsigned i = 0; i < b->gw; i++) {
			double x, y, u, v, w, f[6];

			calib_block_centre(shape, b, c, i, j, &x, &y);
			u = (x - nx) / rx;
			v = (y - ny) / ry;
			if (fabs(u) >= 1 || fabs(v) >= 1)
				continue;
			w = (1 - u * u) * (1 - v * v);
			f[0] = 1;
			f[1] = u;
			f[2] = v;
			f[3] = u * u;
			f[4] = u * v;
			f[5] = v * v;
			if (!(m[j * b->gw + i] > 0))
				continue;
			for (int r = 0; r < 6; r++) {
				rhs[r] += w * f[r] / sqrt(m[j * b->gw + i]);
				for (int k = 0; k < 6; k++)
					a[r][k] += w * f[r] * f[k];
			}
		}
	/* Too few blocks for a quadratic (a tiny frame): a plane. */
	if (!calib_linear_solve(a, rhs, coef, 6)) {
		double a3[6][6], r3[6];

		for (int r = 0; r < 3; r++) {
			r3[r] = rhs[r];
			for (int k = 0; k < 3; k++)
				a3[r][k] = a[r][k];
		}
		if (!calib_linear_solve(a3, r3, coef, 3))
			return NAN;
	}
	return coef[0] > 0 ? 1 / (coef[0] * coef[0]) : NAN;
}

double calib_shading_gain(const struct cisp_calib_shading_table *t, uint32_t width, uint32_t height, unsigned c,
			  double x, double y)
{
	double u = fmin(fmax(x * (N - 1) / (width - 1.0), 0), N - 1), v = fmin(fmax(y * (N - 1) / (height - 1.0), 0), N - 1);
	int i = (int)fmin(floor(u), N - 2), j = (int)fmin(floor(v), N - 2);
	double fu = u - i, fv = v - j;
	const float *g = t->gain[c];

	return (1 - fv) * ((1 - fu) * g[j * N + i] + fu * g[j * N + i + 1]) +
	       fv * ((1 - fu) * g[(j + 1) * N + i] + fu * g[(j + 1) * N + i + 1]);
}

int calib_shading_fit(const struct calib_planes *shape, const struct calib_blocks *blocks, const double black[4],
		      double white, struct cisp_calib_shading_table *t)
{
	uint32_t width = 2 * shape->w, height = 2 * shape->h;
	double rx = 2 * (width - 1.0) / (N - 1), ry = 2 * (height - 1.0) / (N - 1);
	size_t nb = (size_t)blocks->gw * blocks->gh;
	double *m = malloc(nb * sizeof(double)), level[N * N];
	unsigned sw = (blocks->gw + 3) / 4, sh = (blocks->gh + 3) / 4;
	int ret = 0;

	if (!m)
		return cisp_error(-ENOMEM, "out of memory");
	(void)white;
	t->residual_pct = 0;
	for (unsigned c = 0; c < 4 && !ret; c++) {
		double top = 0, low = INFINITY;

		for (size_t i = 0; i < nb; i++)
			m[i] = blocks->mean[c * nb + i] - black[c];
		for (unsigned j = 0; j < N && !ret; j++)
			for (unsigned i = 0; i < N; i++) {
				double l = node_level(shape, blocks, m, c, i * (width - 1.0) / (N - 1),
						      j * (height - 1.0) / (N - 1), rx, ry);

				level[j * N + i] = l;
				top = fmax(top, l);
				low = fmin(low, l);
			}
		if (!(low > 0) || top / low > MAX_GAIN) {
			ret = cisp_error(-EINVAL,
					 "the flats' shading in channel %u falls to %.1f%% of its peak: a table holds "
					 "gains up to %g (is the flat lit, and the black level right?)",
					 c, 100 * fmax(low, 0) / top, MAX_GAIN);
			break;
		}
		for (unsigned i = 0; i < N * N; i++)
			t->gain[c][i] = (float)(top / level[i]);
		t->falloff[c] = low / top;
	}
	/* What the table leaves: corrected blocks, averaged 4 x 4, against their mean. */
	for (unsigned c = 0; c < 4 && !ret; c++) {
		double sum[16 * 16] = { 0 }, cnt[16 * 16] = { 0 }, total = 0, count = 0;

		for (unsigned j = 0; j < blocks->gh; j++)
			for (unsigned i = 0; i < blocks->gw; i++) {
				double x, y, v;

				calib_block_centre(shape, blocks, c, i, j, &x, &y);
				v = (blocks->mean[c * nb + j * blocks->gw + i] - black[c]) *
				    calib_shading_gain(t, width, height, c, x, y);
				sum[(j / 4) * sw + i / 4] += v;
				cnt[(j / 4) * sw + i / 4]++;
				total += v;
				count++;
			}
		for (unsigned k = 0; k < sw * sh; k++)
			if (cnt[k])
				t->residual_pct = fmax(t->residual_pct, 100 * fabs(sum[k] / cnt[k] / (total / count) - 1));
	}
	free(m);
	return ret;
}

static int cmp_table(const void *a, const void *b)
{
	const struct cisp_calib_shading_table *p = a, *q = b;

	return p->ct < q->ct ? -1 : p->ct > q->ct;
}

int calib_shading_solve(const struct calib_flat *f, const struct calib_planes *shape, const double black[4],
			double white, double saturation, struct cisp_calib_shading *out)
{
	out->count = 0;
	for (unsigned i = 0; i < f->groups; i++) {
		const struct calib_flat_group *g = &f->group[i], *best;
		struct cisp_calib_shading_table *t;
		struct calib_blocks pool;
		size_t nb = 4 * (size_t)g->sum.gw * g->sum.gh;
		double weight = 0;
		bool seen = false;
		int b, ret;

		/* One table per light, from its best-exposed group and every group like it. */
		for (unsigned k = 0; k < i && !seen; k++)
			seen = !strcmp(f->group[k].illuminant, g->illuminant);
		b = seen ? -1 : calib_flat_best_group(f, g->illuminant, saturation);
		if (b < 0)
			continue;
		if (out->count == CISP_CALIB_MAX_TABLE)
			return cisp_error(-EINVAL, "flats under more than %d lights", CISP_CALIB_MAX_TABLE);
		best = &f->group[b];
		t = &out->table[out->count];
		memset(t, 0, sizeof(*t));
		snprintf(t->illuminant, sizeof(t->illuminant), "%s", best->illuminant);
		t->ct = 5000;
		if (best->illuminant[0] && cisp_calib_illuminant_ct(best->illuminant, &t->ct, NULL))
			return cisp_error_prefix(-EINVAL, "flats");
		t->level = best->level;
		pool = best->sum;
		pool.mean = calloc(nb, sizeof(double));
		if (!pool.mean)
			return cisp_error(-ENOMEM, "out of memory");
		/*
		 * The shading's shape is the same at every level: the groups of this
		 * light and gain that are usable on their own are summed (above black),
		 * so more frames average the noise out.
		 */
		for (unsigned k = 0; k < f->groups; k++) {
			const struct calib_flat_group *o = &f->group[k];

			if (strcmp(o->illuminant, best->illuminant) || o->gain != best->gain || o->clipped > 0.001 ||
			    o->level < 0.15 || o->level > 0.9 || o->level > 0.9 * saturation)
				continue;
			for (size_t j = 0; j < nb; j++)
				pool.mean[j] += o->sum.mean[j] - o->frames * black[j / (nb / 4)];
			weight += o->frames;
		}
		for (size_t j = 0; j < nb; j++)
			pool.mean[j] = pool.mean[j] / weight + black[j / (nb / 4)];
		ret = calib_shading_fit(shape, &pool, black, white, t);
		free(pool.mean);
		if (ret)
			return ret;
		/* Two lights of one colour temperature: the first table serves. */
		for (unsigned k = 0; k < out->count && !seen; k++)
			seen = fabs(out->table[k].ct - t->ct) < 1;
		if (!seen)
			out->count++;
	}
	qsort(out->table, out->count, sizeof(out->table[0]), cmp_table);
	return 0;
}
