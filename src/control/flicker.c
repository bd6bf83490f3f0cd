/* SPDX-License-Identifier: MIT */
/*
 * Flicker detection from row means: docs/control.md, "Flicker".
 *
 * The log row means of a frame are the scene's vertical profile plus the
 * band, depth * v * cos(w (t - T / 2) + phi) for a row read at t with
 * exposure T (v = sin(w T / 2) / (w T / 2), w = 2 pi * 2 * mains). The
 * difference of two frames cancels the scene and leaves one sinusoid in the
 * row's time whose amplitude is depth * |v1 e^(i psi1) - v0 e^(i psi0)|, with
 * psi = w (timestamp - T / 2) from each frame's metadata: a least-squares fit
 * of that sinusoid gives the depth of the light's modulation.
 */
#include <math.h>
#include <string.h>

#include "algorithm.h"
#include "flicker.h"

/* Row means outside this range (16-bit units) are too dark or too near clipping to read. */
#define ROW_MIN 256.0
#define ROW_MAX 60000.0
/* Fewer usable row means than this: no analysis. */
#define MIN_ROWS 16
/* Below this sensitivity (band difference per unit depth) a frame pair says nothing. */
#define MIN_SENSITIVITY 0.1
/* Fit terms: offset, slope, and a cosine and sine at 100 and 120 Hz. */
#define NB 6

void flicker_init(struct flicker *f, double threshold)
{
	memset(f, 0, sizeof(*f));
	f->threshold = threshold;
	f->depth[0] = f->depth[1] = -1;
}

void flicker_reset(struct flicker *f)
{
	double threshold = f->threshold;
	flicker_init(f, threshold);
}

double flicker_period_us(unsigned mains_hz)
{
	return mains_hz ? 1e6 / (2.0 * mains_hz) : 0.0;
}

double flicker_visibility(unsigned mains_hz, double exposure_s, bool signed_)
{
	double x = M_PI * 2.0 * mains_hz * exposure_s;
	double v = x > 1e-9 ? sin(x) / x : 1.0;
	return signed_ ? v : fabs(v);
}

/* Solve the n x n system a x = b in place (Gaussian elimination with pivoting); false when singular. */
static bool solve(double a[NB][NB], double b[NB], int n)
{
	for (int c = 0; c < n; c++) {
		int p = c;
		for (int r = c + 1; r < n; r++)
			if (fabs(a[r][c]) > fabs(a[p][c]))
				p = r;
		if (fabs(a[p][c]) < 1e-12)
			return false;
		for (int k = 0; k < n; k++) {
			double t = a[c][k];
			a[c][k] = a[p][k];
			a[p][k] = t;
		}
		double t = b[c];
		b[c] = b[p];
		b[p] = t;
		for (int r = 0; r < n; r++) {
			if (r == c)
				continue;
			double m = a[r][c] / a[c][c];
			for (int k = c; k < n; k++)
				a[r][k] -= m * a[c][k];
			b[r] -= m * b[c];
		}
	}
	for (int c = 0; c < n; c++)
		b[c] /= a[c][c];
	return true;
}

/*
 * Fit d = c0 + c1 tau + sum over both flicker frequencies of a cos(w tau) +
 * b sin(w tau) over the usable rows; both at once, since a frame spans few
 * periods and the two sinusoids are far from orthogonal over it. Gives the
 * amplitude sqrt(a^2 + b^2) per frequency and the residual's rms; false
 * when too few rows or the system is singular.
 */
static bool fit(const double *d, const bool *ok, const double *tau, unsigned n, const double w[2], double amp[2],
		double *rms, unsigned *used)
{
	double ata[NB][NB] = { { 0 } }, atb[NB] = { 0 };
	unsigned m = 0;

	for (unsigned k = 0; k < n; k++) {
		if (!ok[k])
			continue;
		const double basis[NB] = { 1.0, tau[k], cos(w[0] * tau[k]), sin(w[0] * tau[k]), cos(w[1] * tau[k]),
					   sin(w[1] * tau[k]) };
		for (int i = 0; i < NB; i++) {
			for (int j = 0; j < NB; j++)
				ata[i][j] += basis[i] * basis[j];
			atb[i] += basis[i] * d[k];
		}
		m++;
	}
	*used = m;
	*rms = 0;
	if (m < MIN_ROWS || !solve(ata, atb, NB))
		return false;
	double ss = 0;
	for (unsigned k = 0; k < n; k++) {
		if (!ok[k])
			continue;
		double e = d[k] - atb[0] - atb[1] * tau[k];
		for (int i = 0; i < 2; i++)
			e -= atb[2 + 2 * i] * cos(w[i] * tau[k]) + atb[3 + 2 * i] * sin(w[i] * tau[k]);
		ss += e * e;
	}
	*rms = sqrt(ss / (m > NB ? m - NB : 1));
	for (int i = 0; i < 2; i++)
		amp[i] = hypot(atb[2 + 2 * i], atb[3 + 2 * i]);
	return true;
}

void flicker_process(struct flicker *f, const struct cisp_stats *stats, const struct cisp_sensor_metadata *md,
		     double line_ns)
{
	static const unsigned mains[2] = { 50, 60 };
	unsigned n = stats->row_count, group = stats->row_group;
	double *x = f->x, *d = f->d, *tau = f->tau;
	bool *ok = f->ok, *usable = f->usable;
	double exposure_s = md->exposure_ns * 1e-9;

	f->depth[0] = f->depth[1] = -1;
	if (!(stats->valid & CISP_STATS_ROWS) || n == 0 || n > CISP_STATS_MAX_ROWS || group == 0) {
		f->have_prev = false;
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		ok[k] = stats->row_mean[k] >= ROW_MIN && stats->row_mean[k] <= ROW_MAX;
		x[k] = ok[k] ? log((double)stats->row_mean[k]) : 0;
		/* Entry k averages pixel rows 2gk .. 2gk + 2g - 1, read around row 2gk + g - 0.5. */
		tau[k] = (2.0 * group * k + group - 0.5) * line_ns * 1e-9;
	}

	bool pair = f->have_prev && f->prev_count == n && f->prev_group == group && md->sequence > f->prev_sequence &&
		    md->timestamp_ns > f->prev_timestamp_ns;
	if (pair) {
		double dt = (md->timestamp_ns - f->prev_timestamp_ns) * 1e-9;
		for (unsigned k = 0; k < n; k++) {
			usable[k] = ok[k] && f->prev_ok[k];
			d[k] = usable[k] ? x[k] - f->prev[k] : 0;
		}
		const double w[2] = { 2 * M_PI * 2.0 * mains[0], 2 * M_PI * 2.0 * mains[1] };
		double amp[2], rms;
		unsigned used;
		if (fit(d, usable, tau, n, w, amp, &rms, &used)) {
			/* An amplitude within the fit's noise reads as none. */
			double noise = 4 * rms * sqrt(2.0 / used);
			for (int i = 0; i < 2; i++) {
				double v1 = flicker_visibility(mains[i], exposure_s, true);
				double v0 = flicker_visibility(mains[i], f->prev_exposure_s, true);
				/* Phase of the band between the two frames: timestamps and exposure centres. */
				double dpsi = w[i] * (dt - (exposure_s - f->prev_exposure_s) / 2);
				double sens = hypot(v1 * cos(dpsi) - v0, v1 * sin(dpsi));
				if (sens >= MIN_SENSITIVITY)
					f->depth[i] = amp[i] > noise ? amp[i] / sens : 0;
			}
		}
	}

	/* Vote: a frequency is found when its depth is over the threshold and clearly over the other's. */
	unsigned found = 0;
	bool analysable = f->depth[0] >= 0 || f->depth[1] >= 0;
	for (int i = 0; i < 2; i++) {
		double other = f->depth[1 - i];
		if (f->depth[i] > f->threshold && f->depth[i] > 1.5 * (other > 0 ? other : 0))
			found = mains[i];
	}
	if (found) {
		f->votes = found == f->candidate_hz ? f->votes + 1 : 1;
		f->candidate_hz = found;
		if (f->votes >= FLICKER_VOTES) {
			f->detected_hz = found;
			f->quiet = 0;
		}
	} else if (analysable) {
		f->votes = 0;
		f->candidate_hz = 0;
		int i = f->detected_hz == 60;
		if (f->detected_hz && f->depth[i] >= 0 && f->depth[i] < f->threshold / 2 &&
		    ++f->quiet >= FLICKER_CLEAR_FRAMES)
			f->detected_hz = 0;
	}

	for (unsigned k = 0; k < n; k++) {
		f->prev[k] = x[k];
		f->prev_ok[k] = ok[k];
	}
	f->prev_count = n;
	f->prev_group = group;
	f->prev_sequence = md->sequence;
	f->prev_timestamp_ns = md->timestamp_ns;
	f->prev_exposure_s = exposure_s;
	f->have_prev = true;
}

/* ---- the algorithm ---- */

static const char *const flicker_keys[] = { "detect_threshold", NULL };

static int flicker_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;

	(void)i;
	return yaml_reader_number(r, v, k, 0.005, 1, &t->flicker.detect_threshold);
}

static int flicker_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_map(r, v, key, flicker_keys, 0, flicker_key, t);
}

static void flicker_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->flicker.detect_threshold = 0.02;
}

/* The detection, and the requested mode. */
struct flicker_algorithm {
	struct flicker f;
	enum cisp_flicker_mode mode;
};

/* Publish the frequency exposures avoid: the requested one, or the one detected. */
static void publish(const struct flicker_algorithm *a, struct control_context *ctx)
{
	unsigned hz = a->mode == CISP_FLICKER_50HZ ? 50 : a->mode == CISP_FLICKER_60HZ ? 60
			: a->mode == CISP_FLICKER_AUTO ? a->f.detected_hz : 0;

	ctx->state.flicker_hz = hz;
	ctx->state.flicker_detected = a->mode == CISP_FLICKER_AUTO && hz != 0;
}

static int flicker_algorithm_init(void *self, const struct control_context *ctx)
{
	struct flicker_algorithm *a = self;

	flicker_init(&a->f, ctx->tuning->flicker.detect_threshold);
	a->mode = CISP_FLICKER_AUTO;
	return 0;
}

static void flicker_request(void *self, struct control_context *ctx, const struct cisp_control_request *r)
{
	struct flicker_algorithm *a = self;

	(void)ctx;
	if (r->mask & CISP_REQ_FLICKER)
		a->mode = r->flicker;
}

static void flicker_start(void *self, struct control_context *ctx)
{
	struct flicker_algorithm *a = self;

	flicker_reset(&a->f);
	publish(a, ctx);
}

static void flicker_algorithm_process(void *self, struct control_context *ctx)
{
	struct flicker_algorithm *a = self;

	flicker_process(&a->f, ctx->stats, ctx->md, ctx->line_ns);
	publish(a, ctx);
}

const struct control_algorithm flicker_algorithm = {
	.section = "flicker",
	.size = sizeof(struct flicker_algorithm),
	.requests = CISP_REQ_FLICKER,
	.parse = flicker_parse,
	.defaults = flicker_defaults,
	.init = flicker_algorithm_init,
	.request = flicker_request,
	.start = flicker_start,
	.process = flicker_algorithm_process,
};
