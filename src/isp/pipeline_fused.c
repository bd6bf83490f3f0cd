/* SPDX-License-Identifier: MIT */
/*
 * The banded executor: the frame is cut into parts of whole rows, one per
 * worker; a worker walks down its part in bands of band_rows output rows
 * and, for each band, runs every stage on just the rows the next stages
 * need, into small per-worker row buffers that stay in cache. A buffer is
 * a ring of rows (plane16.ring): the rows it still holds from the previous
 * band stay where they are while the next band's rows take the places of
 * rows no longer needed, so a stage computes each row once per part and no
 * row is ever moved; only the first band of a part
 * computes the rows above it that the stages' vertical support reaches.
 * A worker that finishes its part early takes the lower half of the part
 * with the most rows left, so the workers finish together on a busy machine
 * without cutting the frame into many parts (each costs those rows above).
 *
 * It knows no stage: it builds the frame's chain of nodes from the stages'
 * descriptors (stage.h). A stage with passes adds a node per pass, each
 * writing a buffer of rows read by the nodes after it with their rows of
 * support. A stage with a point function runs on each row the node before
 * it hands on, while the row is in cache: in place, unless something still
 * reads that node's rows as they are (a statistics tap, the RGB outputs
 * once the YUV stages begin), then from them into a buffer of its own. A
 * pass marked in_place writes over its input's rows when nothing else
 * reads them. Each stage computes its rows with the same arithmetic as its
 * reference (the dsp.h row functions), and reflections at the frame edges
 * read real frame rows inside the ranges computed here, so the output is
 * the same for any band size, task split or thread count. Statistics are
 * integer sums per worker, merged at the end.
 *
 * A stage with neither (the quality demosaic, the vendor stages at their
 * taps) runs over the whole frame by its reference, between chains that hand
 * over through frame-sized planes (frame.h); so do outputs that crop or
 * scale, after the bands. Otherwise there is no frame-sized memory: the band
 * buffers are made on the first frame (and again only when a parameter
 * change makes a stage's support taller).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "core/preempt.h"
#include "isp/pipeline_internal.h"

/* What a frame's plan holds at the most; a plan that needs more runs on the reference executor. */
#define MAX_NODES 48
#define MAX_BUFFERS 40
#define MAX_CHAINS 8
#define MAX_POINTS 6

/*
 * A buffer of rows, written by one node: a window of rows per worker, or
 * frame-sized planes (where a chain hands over, or an output that crops or
 * scales reads). An in-place pass's buffer holds its rows in the memory of
 * the buffer it writes over (@owner).
 */
struct buffer {
	int planes;
	int owner;
	bool frame;
	bool sink;    /* read after the bands: every row of the band is made */
	int index[3]; /* its frame-sized planes (frame.h); -1: planes the caller gives */
	struct rgb16 rows; /* a frame-sized buffer's planes */
};

struct point {
	void (*fn)(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y);
	struct stage_ctx ctx;
};

enum node_kind {
	N_SOURCE,  /* the input frame's rows (the source stage, the exposure stages, the merge) */
	N_PASS,    /* a stage's pass */
	N_COPY,    /* its input's rows, through its points */
	N_TAP,     /* a statistics tap */
	N_OUTPUTS, /* the outputs packed in the bands */
};

struct node {
	enum node_kind kind;
	int out; /* the buffer it writes (-1: none) */
	int planes; /* its planes */
	int n_in;
	struct {
		int buf, radius;
	} in[2];
	const struct cisp_stage *stage;
	struct stage_ctx ctx;
	struct stage_pass pass;
	size_t scratch; /* its scratch's offset in the worker's memory */
	int n_points;
	struct point point[MAX_POINTS]; /* on each row it hands on: the first from the row, the others in place */
};

/*
 * A run of bands over nodes [first, first + count), from the input frame
 * or the frame-sized planes of buffer @from, then the work over the whole
 * frame after it: the outputs it makes from frame-sized planes, and stage
 * @barrier (if any) from buffer @barrier_in to @barrier_out.
 */
struct chain {
	int first, count;
	int from;
	int barrier, barrier_in, barrier_out;
	int rgb_src, yuv_src; /* the rows of the outputs it makes (-1: none of that kind) */
	int band;             /* rows a band: the instance's, or more where a pass asks (lay_out) */
};

struct plan {
	struct node node[MAX_NODES];
	struct buffer buf[MAX_BUFFERS];
	struct chain chain[MAX_CHAINS];
	int n_nodes, n_buffers, n_chains;
	int n_exposure;
	struct point exposure[MAX_POINTS]; /* the source node's points on each frame's row, before the merge */
	int tap;           /* the node of the statistics tap, or -1 */
	bool frame_planes; /* it lends the instance's frame-sized planes */
};

/* A buffer's window: rows [lo, done) are held, row y at row y mod capacity of the memory. */
struct window {
	uint16_t *mem[3];
	int capacity; /* rows */
	int lo, done;
};

struct worker {
	struct window win[MAX_BUFFERS];
	uint8_t *mem;
};

/* Rows [next, end) of a worker's part of the frame, not yet taken. */
struct part {
	int next, end;
};

struct cisp_fused {
	int workers;
	size_t per_worker; /* bytes of memory each worker holds */
	size_t bytes;
	struct part *part; /* one per worker, after w[] */
	struct worker w[];
};

struct job {
	struct cisp_isp *isp;
	const struct plan *plan;
	const struct chain *chain;
	const struct cisp_image *const *input; /* one frame, or a bracket in order[] (longest exposure first) */
	const uint32_t *exposure;
	unsigned count;
	unsigned order[CISP_BRACKET_MAX_FRAMES];
	const struct stage_merge *merge;
	struct cisp_image *const *output;
	int band;
	pthread_mutex_t lock; /* guards part[] */
	struct part *part;
	int parts; /* one per worker */
};

/* ---- the plan of a frame ---- */

struct builder {
	struct plan *p;
	struct cisp_isp *isp;
	unsigned used; /* frame-sized planes lent */
	int cur;       /* the buffer holding the rows the next stage reads */
	int cur_node;  /* the node that writes it in this chain (-1: it comes from before the chain) */
	bool open;     /* its rows may change in place: nothing else reads them as they are */
	bool ok;       /* false: the plan needs more than it holds */
};

static int new_buffer(struct builder *b, int planes)
{
	if (b->p->n_buffers == MAX_BUFFERS) {
		b->ok = false;
		return MAX_BUFFERS - 1; /* written, never run */
	}
	b->p->buf[b->p->n_buffers] = (struct buffer){ .planes = planes, .owner = b->p->n_buffers, .index = { -1, -1, -1 } };
	return b->p->n_buffers++;
}

static struct node *new_node(struct builder *b, enum node_kind kind, int out)
{
	struct node *n = &b->p->node[MAX_NODES - 1]; /* written, never run, when the plan is full */

	if (b->p->n_nodes < MAX_NODES)
		n = &b->p->node[b->p->n_nodes++];
	else
		b->ok = false;
	*n = (struct node){ .kind = kind, .out = out, .planes = out >= 0 ? b->p->buf[out].planes : 0 };
	return n;
}

static void add_input(struct node *n, int buf, int radius)
{
	n->in[n->n_in].buf = buf;
	n->in[n->n_in++].radius = radius;
}

/* Make buffer @buf frame-sized: @planes if given, else planes lent from the instance's. */
static void make_frame(struct builder *b, int buf, const struct rgb16 *planes)
{
	struct buffer *f = &b->p->buf[buf];

	f->frame = true;
	if (planes) {
		f->rows = *planes;
		return;
	}
	b->p->frame_planes = true;
	b->ok &= cisp_frame_planes_take(&b->used, f->planes, f->index);
}

static void give_back(struct builder *b, int buf)
{
	const struct buffer *f = &b->p->buf[buf];

	for (int c = 0; c < f->planes; c++)
		if (f->index[c] >= 0)
			b->used &= ~(1u << f->index[c]);
}

/* A chain from buffer @from (frame-sized; -1: the input frame, whose node add_source() adds). */
static void start_chain(struct builder *b, int from)
{
	b->ok &= b->p->n_chains < MAX_CHAINS;
	if (!b->ok)
		return;
	b->p->chain[b->p->n_chains++] = (struct chain){ b->p->n_nodes, 0, from, -1, -1, -1, -1, -1 };
	b->cur = from;
	b->cur_node = -1;
	b->open = false;
}

/* The node that reads the input frame: the source stage, then with @exposures the active exposure stages. */
static void add_source(struct builder *b, bool exposures)
{
	struct node *n = new_node(b, N_SOURCE, new_buffer(b, 1));

	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++) {
		const struct cisp_stage *s = cisp_stages[i];
		struct stage_ctx ctx = cisp_isp_stage_ctx(b->isp, i, b->isp->dsp);

		if (s->source) {
			n->stage = s;
			n->ctx = ctx;
		} else if (exposures && (s->flags & STAGE_EXPOSURE) && stage_active(s, &ctx)) {
			/* The executor runs exposure stages only as points. */
			b->ok &= s->point && b->p->n_exposure < MAX_POINTS;
			if (b->ok)
				b->p->exposure[b->p->n_exposure++] = (struct point){ s->point, ctx };
		}
	}
	b->ok &= n->stage != NULL;
	b->cur = n->out;
	b->cur_node = (int)(n - b->p->node);
	b->open = true;
}

/* A node that copies the current rows into a buffer of its own (through the points added to it). */
static void add_copy(struct builder *b)
{
	struct node *n = new_node(b, N_COPY, new_buffer(b, b->p->buf[b->cur].planes));

	add_input(n, b->cur, 0);
	b->cur = n->out;
	b->cur_node = (int)(n - b->p->node);
	b->open = true;
}

static void add_point(struct builder *b, const struct cisp_stage *s, const struct stage_ctx *ctx)
{
	struct node *n;

	if (!b->open)
		add_copy(b);
	n = &b->p->node[b->cur_node];
	b->ok &= n->n_points < MAX_POINTS;
	if (b->ok)
		n->point[n->n_points++] = (struct point){ s->point, *ctx };
}

static void add_passes(struct builder *b, const struct cisp_stage *s, const struct stage_ctx *ctx,
		       const struct stage_pass *pass, int n_pass)
{
	int made[STAGE_MAX_PASSES] = { 0 };

	for (int k = 0; k < n_pass; k++) {
		const struct stage_pass *ps = &pass[k];
		int out = new_buffer(b, ps->planes);
		struct node *n = new_node(b, N_PASS, out);

		/* Over the stage's input rows when nothing else reads them and they are a window. */
		if (ps->in_place && b->open && !b->p->buf[b->cur].frame)
			b->p->buf[out].owner = b->p->buf[b->cur].owner;
		n->stage = s;
		n->ctx = *ctx;
		n->pass = *ps;
		for (int i = 0; i < ps->n_in; i++)
			add_input(n, ps->in[i].from == STAGE_INPUT ? b->cur : made[ps->in[i].from], ps->in[i].radius);
		made[k] = out;
	}
	b->cur = made[n_pass - 1];
	b->cur_node = b->p->n_nodes - 1;
	b->open = true;
}

static void add_tap(struct builder *b, const struct cisp_stage *s, const struct stage_ctx *ctx)
{
	struct node *n = new_node(b, N_TAP, -1);

	n->stage = s;
	n->ctx = *ctx;
	add_input(n, b->cur, s->tap->radius);
	b->p->tap = (int)(n - b->p->node);
	b->open = false;
}

/*
 * The current rows (of buffer @src, @open as the builder's) into
 * frame-sized planes that are read after the bands (@planes, or the
 * instance's): the node that makes them writes there when nothing else
 * reads them, else a copy does. Returns that buffer: @src itself when it is
 * frame-sized already.
 */
static int to_frame(struct builder *b, int src, bool open, const struct rgb16 *planes)
{
	if (b->p->buf[src].frame)
		return src;
	b->cur = src;
	b->open = open;
	if (!b->open || b->p->buf[src].owner != src)
		add_copy(b);
	make_frame(b, b->cur, planes);
	b->p->buf[b->cur].sink = true;
	b->open = false;
	return b->cur;
}

/* The outputs of one kind (@yuv) from buffer @src: in the bands, or from frame-sized planes after them. */
static int output_rows(struct builder *b, int src, bool open, bool yuv)
{
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (b->isp->out[i].used && b->isp->out[i].yuv == yuv && cisp_output_via_frame(b->isp, i))
			return to_frame(b, src, open, NULL);
	return src;
}

/* Whether a chain whose outputs read @rgb and @yuv (-1: not made there) packs any of them in its bands. */
static bool packs_in_bands(const struct cisp_isp *isp, int rgb, int yuv)
{
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (isp->out[i].used && (isp->out[i].yuv ? yuv : rgb) >= 0 && !cisp_output_via_frame(isp, i))
			return true;
	return false;
}

/*
 * End the chain with the outputs it makes (from buffers @rgb and @yuv, -1:
 * none of that kind) and stage @barrier (-1: none) over the whole frame
 * after it. The frame-sized planes its bands wrote or read are given back
 * once the outputs are made from them; the stage's result is the next
 * chain's source.
 */
static void end_chain(struct builder *b, int rgb, int yuv, int barrier)
{
	struct chain *c = &b->p->chain[b->p->n_chains - 1];
	const struct cisp_stage *s = barrier >= 0 ? cisp_stages[barrier] : NULL;
	const int cur = b->cur;
	const bool open = b->open;

	if (s) {
		c->barrier = barrier;
		c->barrier_in = to_frame(b, cur, open, NULL);
	}
	if (rgb >= 0)
		c->rgb_src = output_rows(b, rgb, rgb == cur && open, false);
	if (yuv >= 0)
		c->yuv_src = output_rows(b, yuv, yuv == cur && open, true);
	if (packs_in_bands(b->isp, c->rgb_src, c->yuv_src)) {
		struct node *n = new_node(b, N_OUTPUTS, -1);

		if (c->rgb_src >= 0)
			add_input(n, c->rgb_src, 0);
		if (c->yuv_src >= 0)
			add_input(n, c->yuv_src, 0);
	}
	c->count = b->p->n_nodes - c->first;
	if (!s)
		return;
	if (c->from >= 0 && c->from != c->barrier_in)
		give_back(b, c->from);
	for (int k = 0; k < 2; k++) {
		int o = k ? c->yuv_src : c->rgb_src;

		if (o >= 0 && o != c->barrier_in)
			give_back(b, o);
	}
	if (s->planes_in == s->planes_out && (s->in_place & ((1u << s->planes_out) - 1)) == (1u << s->planes_out) - 1) {
		c->barrier_out = c->barrier_in; /* over its input */
	} else {
		c->barrier_out = new_buffer(b, s->planes_out);
		make_frame(b, c->barrier_out, NULL);
		give_back(b, c->barrier_in);
	}
}

/*
 * The plan of one frame: the stages in chains of nodes, cut where a stage
 * has no banded form; @want_stats: with the statistics tap. False when the
 * frame needs more nodes or frame-sized planes than there are.
 */
static bool build_plan(struct cisp_isp *isp, bool want_stats, struct plan *p)
{
	struct builder b = { p, isp, 0, -1, -1, false, true };
	const bool any_yuv = cisp_isp_has_outputs(isp, true), any_rgb = cisp_isp_has_outputs(isp, false);
	int rgb = -1; /* where the RGB outputs read, once the YUV stages begin */
	bool rgb_made = false;

	p->n_nodes = p->n_buffers = p->n_chains = p->n_exposure = 0;
	p->tap = -1;
	p->frame_planes = false;
	start_chain(&b, -1);
	add_source(&b, true);
	for (unsigned i = 0; i < CISP_STAGE_COUNT && b.ok; i++) {
		const struct cisp_stage *s = cisp_stages[i];
		struct stage_ctx ctx = cisp_isp_stage_ctx(isp, i, isp->dsp);
		struct stage_pass pass[STAGE_MAX_PASSES];
		int n_pass;

		if (s->source || s->merge || (s->flags & STAGE_EXPOSURE))
			continue;
		if (s->tap) {
			if (want_stats && stage_active(s, &ctx))
				add_tap(&b, s, &ctx);
			continue;
		}
		if (!stage_active(s, &ctx) || ((s->flags & STAGE_YUV) && !any_yuv))
			continue;
		if ((s->flags & STAGE_YUV) && any_rgb && rgb < 0) {
			/* The RGB outputs take these rows; the YUV stages go on from them. */
			rgb = b.cur;
			b.open = false;
		}
		n_pass = s->passes ? s->passes(&ctx, pass) : 0;
		if (s->point) {
			add_point(&b, s, &ctx);
		} else if (n_pass > 0) {
			add_passes(&b, s, &ctx, pass, n_pass);
		} else {
			/* Over the whole frame: the chain ends before it, the next starts from its result. */
			end_chain(&b, rgb >= 0 && !rgb_made ? rgb : -1, -1, (int)i);
			rgb_made |= rgb >= 0;
			start_chain(&b, p->chain[p->n_chains - 1].barrier_out);
		}
	}
	if (b.ok)
		end_chain(&b, any_rgb && !rgb_made ? (rgb >= 0 ? rgb : b.cur) : -1, any_yuv ? b.cur : -1, -1);
	return b.ok;
}

/* ---- running a plan ---- */

/*
 * The rows each buffer must hold for rows [y0, y1) of the chain's results:
 * every reader's rows widened by its radius, within the frame (reflections
 * read inside).
 */
static void needs(const struct plan *p, const struct chain *c, int y0, int y1, int h, int lo[], int hi[])
{
	for (int b = 0; b < p->n_buffers; b++) {
		lo[b] = p->buf[b].sink ? y0 : 0;
		hi[b] = p->buf[b].sink ? y1 : 0;
	}
	for (int k = c->first + c->count - 1; k >= c->first; k--) {
		const struct node *n = &p->node[k];
		int a = n->out < 0 ? y0 : lo[n->out], e = n->out < 0 ? y1 : hi[n->out];

		if (a >= e)
			continue;
		for (int i = 0; i < n->n_in; i++) {
			int b = n->in[i].buf, r = n->in[i].radius;
			int l = a - r < 0 ? 0 : a - r, u = e + r > h ? h : e + r;

			if (lo[b] >= hi[b]) {
				lo[b] = l;
				hi[b] = u;
			} else {
				lo[b] = l < lo[b] ? l : lo[b];
				hi[b] = u > hi[b] ? u : hi[b];
			}
		}
	}
}

/* The rows of buffer @b for a worker, its planes into @r: its frame-sized planes, or the window that holds them. */
static void rows_of(const struct job *j, const struct worker *wk, int b, struct rgb16 *r)
{
	const struct buffer *buf = &j->plan->buf[b];
	const struct window *w = &wk->win[buf->owner];
	const int width = (int)j->isp->config.width, height = (int)j->isp->config.height;

	/* The ring's rows counted from a multiple of its capacity: rows [lo, lo + capacity) wrap at most once. */
	const int first = w->capacity ? w->lo - w->lo % w->capacity : w->lo;

	for (int c = 0; c < buf->planes; c++)
		r->c[c] = buf->frame ? buf->rows.c[c]
				     : (struct plane16){ w->mem[c], width, first, width, height, w->capacity };
}

/*
 * The window now needs rows from @lo on: the rows it holds below are given
 * up (their places in the ring take the new rows), nothing moves.
 */
static void slide(struct window *w, int lo)
{
	if (w->done <= lo || w->done <= w->lo)
		w->lo = w->done = lo;
	else if (lo > w->lo)
		w->lo = lo;
}

/* pass_io.emit: row @y is final; the node's points make its row of the node's buffer from it. */
static void emit(const struct pass_io *io, int y, const uint16_t *const row[3])
{
	const struct node *n = io->node;
	uint16_t *dst[3] = { NULL, NULL, NULL };

	for (int c = 0; c < n->planes; c++)
		dst[c] = plane_row(&io->out.c[c], y);
	if (!n->n_points) {
		for (int c = 0; c < n->planes; c++)
			if (row[c] != dst[c])
				memcpy(dst[c], row[c], (size_t)io->out.c[c].width * sizeof(uint16_t));
		return;
	}
	n->point[0].fn(&n->point[0].ctx, row ? row : (const uint16_t *const *)dst, dst, y);
	for (int k = 1; k < n->n_points; k++)
		n->point[k].fn(&n->point[k].ctx, (const uint16_t *const *)dst, dst, y);
}

/* Row @y of @image by the source stage, then the exposure stages on it. */
static void source_row(const struct plan *p, const struct node *n, const struct cisp_image *image, int y,
		       uint16_t *row)
{
	uint16_t *const rows[3] = { row, NULL, NULL };

	n->stage->source(&n->ctx, image, y, row);
	for (int k = 0; k < p->n_exposure; k++)
		p->exposure[k].fn(&p->exposure[k].ctx, (const uint16_t *const *)rows, rows, y);
}

/* Rows of the input frame; a bracket's shorter exposures merged into each in turn, as the reference does. */
static void source_rows(const struct job *j, const struct node *n, const struct pass_io *io, int y0, int y1)
{
	const int w = n->ctx.width, h = n->ctx.height;

	for (int y = y0; y < y1; y++) {
		uint16_t *row = plane_row(&io->out.c[0], y);

		source_row(j->plan, n, j->input[j->order[0]], y, row);
		for (unsigned k = 1; k < j->count; k++) {
			struct plane16 acc = { row, w, y, w, h }, next = { io->scratch, w, y, w, h };

			source_row(j->plan, n, j->input[j->order[k]], y, io->scratch);
			j->merge->rows(j->exposure[j->order[k - 1]], j->exposure[j->order[k]], &acc, &next, y, y + 1);
		}
		pass_emit(io, y, NULL);
	}
}

/* Rows [y0, y1) of the outputs the chain packs in its bands. */
static void output_rows_in_band(const struct job *j, const struct worker *wk, int y0, int y1)
{
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct output_state *o = &j->isp->out[i];
		int src = o->yuv ? j->chain->yuv_src : j->chain->rgb_src;

		if (o->used && src >= 0 && !cisp_output_via_frame(j->isp, i)) {
			struct rgb16 rows;

			rows_of(j, wk, src, &rows);
			cisp_output_pack_rows(j->isp->dsp, &rows, j->output[i], y0, y1);
		}
	}
}

static void run_node(const struct job *j, const struct node *n, struct worker *wk, unsigned worker, int y0, int y1)
{
	struct pass_io io; /* the planes of its inputs and output only: the rows a node reads are those it declares */

	io.scratch = wk->mem + n->scratch;
	io.emit = emit;
	io.points = n->n_points > 0;
	io.node = n;
	if (n->out >= 0)
		rows_of(j, wk, n->out, &io.out);
	for (int i = 0; i < n->n_in; i++)
		rows_of(j, wk, n->in[i].buf, &io.in[i]);
	switch (n->kind) {
	case N_SOURCE:
		source_rows(j, n, &io, y0, y1);
		break;
	case N_PASS:
		n->pass.rows(&n->ctx, &io, y0, y1);
		break;
	case N_COPY:
		for (int y = y0; y < y1; y++) {
			const uint16_t *row[3] = { NULL, NULL, NULL };

			for (int c = 0; c < n->planes; c++)
				row[c] = plane_row(&io.in[0].c[c], y);
			emit(&io, y, row);
		}
		break;
	case N_TAP:
		n->stage->tap->rows(&n->ctx, worker, &io.in[0].c[0], y0, y1);
		break;
	case N_OUTPUTS:
		output_rows_in_band(j, wk, y0, y1);
		break;
	}
}

/* Rows [s0, s1) of the chain's results: every node on the rows the ones after it need. */
static void run_band(const struct job *j, struct worker *wk, unsigned worker, int s0, int s1)
{
	const struct plan *p = j->plan;
	const struct chain *c = j->chain;
	const int h = (int)j->isp->config.height;
	int lo[MAX_BUFFERS], hi[MAX_BUFFERS];

	needs(p, c, s0, s1, h, lo, hi);
	for (int k = c->first; k < c->first + c->count; k++) {
		const struct node *n = &p->node[k];

		if (n->out < 0) {
			run_node(j, n, wk, worker, s0, s1);
		} else if (lo[n->out] < hi[n->out]) {
			const struct buffer *buf = &p->buf[n->out];
			struct window *win = &wk->win[n->out];
			int from;

			/* An in-place pass's rows are its owner's: that window holds them. */
			if (buf->owner == n->out && !buf->frame)
				slide(win, lo[n->out]);
			from = win->done > lo[n->out] ? win->done : lo[n->out];
			if (from < hi[n->out])
				run_node(j, n, wk, worker, from, hi[n->out]);
			win->done = hi[n->out];
		}
	}
}

/* The next band of part @k into [*s0, *s1); false when the part is done. */
static bool take_band(struct job *j, int k, int *s0, int *s1)
{
	struct part *p = &j->part[k];
	bool more;

	pthread_mutex_lock(&j->lock);
	more = p->next < p->end;
	if (more) {
		*s0 = p->next;
		*s1 = p->next + j->band < p->end ? p->next + j->band : p->end;
		p->next = *s1;
	}
	pthread_mutex_unlock(&j->lock);
	return more;
}

/*
 * Part @k is done: make it the lower half (even rows) of the part with the
 * most rows left, if that part has over two bands left (less is not worth
 * the rows above a new part). False when there is none.
 */
static bool take_half(struct job *j, int k)
{
	int best = -1, most = 2 * j->band;

	pthread_mutex_lock(&j->lock);
	for (int i = 0; i < j->parts; i++) {
		if (j->part[i].end - j->part[i].next > most) {
			best = i;
			most = j->part[i].end - j->part[i].next;
		}
	}
	if (best >= 0) {
		int mid = j->part[best].next + (most / 2 & ~1);

		j->part[k].next = mid;
		j->part[k].end = j->part[best].end;
		j->part[best].end = mid;
	}
	pthread_mutex_unlock(&j->lock);
	return best >= 0;
}

/* Pool task @task: part @task band by band, then halves of the others' parts. */
static void run_task(void *opaque, unsigned task, unsigned worker)
{
	struct job *j = opaque;
	struct worker *wk = &j->isp->fx->w[worker];
	int s0, s1;

	do {
		/* A new part: the buffers hold no rows of it yet. */
		for (int b = 0; b < j->plan->n_buffers; b++)
			wk->win[b].lo = wk->win[b].done = 0;
		while (take_band(j, (int)task, &s0, &s1)) {
			run_band(j, wk, worker, s0, s1);
			/* Between bands nothing is half made: a more urgent job may run here (preempt.h). */
			preempt_point();
		}
	} while (take_half(j, (int)task));
}

/* ---- memory ---- */

void cisp_banded_free(struct cisp_isp *isp)
{
	if (!isp->fx)
		return;
	for (int i = 0; i < isp->fx->workers; i++)
		free(isp->fx->w[i].mem);
	free(isp->fx);
	isp->fx = NULL;
}

size_t cisp_banded_bytes(const struct cisp_isp *isp)
{
	return isp->fx ? isp->fx->bytes : 0;
}

/* Memory of @per_worker bytes for @workers workers; kept while it is large enough. */
static int ensure_memory(struct cisp_isp *isp, int workers, size_t per_worker)
{
	struct cisp_fused *fx = isp->fx;

	if (fx && fx->workers >= workers && fx->per_worker >= per_worker)
		return 0;
	cisp_banded_free(isp);
	fx = calloc(1, sizeof(*fx) + (size_t)workers * (sizeof(struct worker) + sizeof(struct part)));
	if (!fx)
		return cisp_error(-ENOMEM, "out of memory for the band buffers");
	fx->part = (struct part *)(void *)&fx->w[workers];
	fx->workers = workers;
	fx->per_worker = per_worker;
	fx->bytes = sizeof(*fx) + workers * (sizeof(struct worker) + sizeof(struct part) + per_worker);
	isp->fx = fx;
	for (int i = 0; i < workers; i++) {
		if (!(fx->w[i].mem = malloc(per_worker))) {
			cisp_banded_free(isp);
			return cisp_error(-ENOMEM, "out of memory for the band buffers");
		}
	}
	return 0;
}

/*
 * Each chain's windows and scratch, laid out from the start of a worker's
 * memory: a window holds the rows a band in the middle of a tall frame
 * needs. Returns the bytes a worker needs.
 */
static size_t lay_out(struct plan *p, int width, int band, int capacity[])
{
	size_t most = 0;

	for (int k = 0; k < p->n_chains; k++) {
		struct chain *c = &p->chain[k];
		int lo[MAX_BUFFERS], hi[MAX_BUFFERS];
		size_t bytes = 0;

		/* Taller bands where a pass works better on them (the quality Bayer denoise's tiles), even rows. */
		c->band = band;
		for (int i = c->first; i < c->first + c->count; i++)
			if (p->node[i].kind == N_PASS && p->node[i].pass.min_band > c->band)
				c->band = (p->node[i].pass.min_band + 1) & ~1;
		needs(p, c, 1 << 20, (1 << 20) + c->band, 1 << 22, lo, hi);
		for (int i = c->first; i < c->first + c->count; i++) {
			int b = p->node[i].out;

			if (b >= 0 && p->buf[b].owner == b && !p->buf[b].frame) {
				capacity[b] = hi[b] - lo[b];
				bytes += (size_t)capacity[b] * p->buf[b].planes * width * sizeof(uint16_t);
			}
		}
		/* The passes' scratch after the windows, the input node's bracket row last. */
		for (int i = c->first; i < c->first + c->count; i++) {
			struct node *n = &p->node[i];

			if (n->kind == N_PASS && n->pass.scratch) {
				bytes = (bytes + 7) & ~(size_t)7;
				n->scratch = bytes;
				bytes += n->pass.scratch;
			}
		}
		for (int i = c->first; i < c->first + c->count; i++) {
			if (p->node[i].kind == N_SOURCE) {
				p->node[i].scratch = bytes;
				bytes += (size_t)width * sizeof(uint16_t);
			}
		}
		most = bytes > most ? bytes : most;
	}
	return most;
}

/* A worker's windows for chain @c, in the order lay_out() placed them. */
static void place_windows(const struct plan *p, const struct chain *c, int width, const int capacity[], struct worker *wk)
{
	uint16_t *m = (uint16_t *)(void *)wk->mem;

	for (int i = c->first; i < c->first + c->count; i++) {
		int b = p->node[i].out;

		if (b >= 0 && p->buf[b].owner == b && !p->buf[b].frame) {
			wk->win[b].capacity = capacity[b];
			for (int k = 0; k < p->buf[b].planes; k++) {
				wk->win[b].mem[k] = m;
				m += (size_t)capacity[b] * width;
			}
		}
	}
}

/* Run @p: each chain in bands on @pool, then the work over the whole frame after it. */
static int run_plan(struct cisp_isp *isp, struct plan *p, const struct cisp_image *const input[],
		    const uint32_t exposure[], unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS],
		    struct cisp_stats *stats, struct cisp_pool *pool)
{
	const int workers = (int)cisp_pool_threads(pool), width = (int)isp->config.width, h = (int)isp->config.height;
	int capacity[MAX_BUFFERS] = { 0 }, ret;
	struct job job = { .isp = isp, .plan = p, .input = input, .exposure = exposure, .count = count,
			   .output = output, .band = isp->band_rows };
	const struct node *tap = p->tap >= 0 ? &p->node[p->tap] : NULL;

	if (p->frame_planes && (ret = cisp_isp_frame_memory(isp)))
		return ret;
	for (int b = 0; b < p->n_buffers; b++)
		for (int c = 0; c < p->buf[b].planes; c++)
			if (p->buf[b].index[c] >= 0)
				p->buf[b].rows.c[c] = cisp_isp_frame_plane(isp, p->buf[b].index[c]);
	if ((ret = ensure_memory(isp, workers, lay_out(p, width, job.band, capacity))))
		return ret;
	if (tap && (ret = tap->stage->tap->begin(&tap->ctx, NULL, (unsigned)workers)))
		return ret;
	if (count > 1) {
		for (unsigned i = 0; i < CISP_STAGE_COUNT; i++)
			job.merge = cisp_stages[i]->merge ? cisp_stages[i]->merge : job.merge;
		job.merge->order(exposure, count, job.order);
	}
	job.part = isp->fx->part;
	job.parts = workers;
	pthread_mutex_init(&job.lock, NULL);
	for (int k = 0; k < p->n_chains && !ret; k++) {
		const struct chain *c = &p->chain[k];

		job.chain = c;
		job.band = c->band;
		if (c->count) {
			/* A part per worker, of even rows (4:2:0 and statistics work on row pairs). */
			for (int i = 0; i < workers; i++) {
				place_windows(p, c, width, capacity, &isp->fx->w[i]);
				job.part[i].next = (int)((int64_t)h * i / workers) & ~1;
				job.part[i].end = i + 1 < workers ? (int)((int64_t)h * (i + 1) / workers) & ~1 : h;
			}
			cisp_pool_run(pool, (unsigned)workers, run_task, &job);
		}
		/* Outputs that crop or scale read around their rows: over the whole frame, as the reference does. */
		for (int i = 0; i < CISP_MAX_OUTPUTS && !ret; i++) {
			int src = isp->out[i].yuv ? c->yuv_src : c->rgb_src;

			if (isp->out[i].used && src >= 0 && cisp_output_via_frame(isp, i))
				ret = cisp_output_finish(isp, i, &p->buf[src].rows, output[i], pool);
		}
		if (!ret && c->barrier >= 0)
			ret = cisp_reference_stage(isp, (unsigned)c->barrier, isp->dsp,
						   &(struct stage_io){ .in = p->buf[c->barrier_in].rows,
								       .out = p->buf[c->barrier_out].rows },
						   NULL, pool);
	}
	pthread_mutex_destroy(&job.lock);
	if (!ret && tap && stats)
		tap->stage->tap->finish(&tap->ctx, (unsigned)workers, stats);
	return ret;
}

int cisp_banded_process(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			struct cisp_pool *pool)
{
	struct plan plan;

	if (!build_plan(isp, stats != NULL, &plan))
		return 1;
	return run_plan(isp, &plan, input, exposure, count, output, stats, pool);
}

int cisp_banded_stage(struct cisp_isp *isp, unsigned index, const struct stage_io *io, struct cisp_stats *stats,
		      struct cisp_pool *pool)
{
	const struct cisp_stage *s = cisp_stages[index];
	struct stage_ctx ctx = cisp_isp_stage_ctx(isp, index, isp->dsp);
	struct stage_pass pass[STAGE_MAX_PASSES];
	int n_pass = s->passes ? s->passes(&ctx, pass) : 0;
	struct plan plan = { .tap = -1 };
	struct builder b = { &plan, isp, 0, -1, -1, false, true };

	if (s->source) {
		start_chain(&b, -1);
		add_source(&b, false);
	} else {
		int in = new_buffer(&b, s->planes_in);

		make_frame(&b, in, &io->in);
		start_chain(&b, in);
	}
	if (s->tap)
		add_tap(&b, s, &ctx);
	else if (s->point)
		add_point(&b, s, &ctx);
	else if (n_pass > 0)
		add_passes(&b, s, &ctx, pass, n_pass);
	else if (!s->source)
		return 1; /* no banded form */
	if (!s->tap)
		to_frame(&b, b.cur, b.open, &io->out);
	end_chain(&b, -1, -1, -1);
	if (!b.ok)
		return 1;
	return run_plan(isp, &plan, &io->image, NULL, 1, NULL, stats, pool);
}
