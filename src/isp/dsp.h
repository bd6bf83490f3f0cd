/* SPDX-License-Identifier: MIT */
/*
 * The table of hot row functions, filled once at start-up for the CPU.
 *
 * Each entry computes one row of one stage. The C versions live in the stage
 * files (they are the reference arithmetic, split out per row); optimised
 * versions live in x86/ and arm/ and must give the same bits for every input
 * (tests/checkasm checks this). cisp_dsp() picks the best level the CPU has;
 * the environment variable CISP_CPU=scalar|sse4|avx2|avx512|avx512vnni|neon caps it.
 *
 * Rows are arrays of 16-bit samples; widths are even and at least 16 unless
 * an entry says otherwise. Per-site coefficients [2] are for even and odd
 * columns of the row.
 */
#ifndef CISP_ISP_DSP_H
#define CISP_ISP_DSP_H

#include <stdint.h>

#include <cisp/format.h>

struct cisp_bnr_quality;
struct cisp_bnr_row_tables;
struct cisp_cnr_row_tables;
struct cisp_highlights_coeffs;
struct cisp_lsc_row;
struct cisp_ltm_coeffs;
struct cisp_tone_coeffs;
struct plane16;
struct rgb16;

enum cisp_cpu_level {
	CISP_CPU_SCALAR = 0,
	CISP_CPU_SSE4,
	CISP_CPU_AVX2,
	CISP_CPU_AVX512,
	CISP_CPU_AVX512VNNI, /* AVX-512 with AVX512-VNNI */
	CISP_CPU_NEON,
	CISP_CPU_LEVELS
};

struct cisp_dsp {
	enum cisp_cpu_level level;
	/* Unpacking of a little-endian 16-bit container row of @bits (10..16) bits: min(v, 2^bits - 1) << (16 - bits). */
	void (*unpack16_row)(const uint8_t *s, uint16_t *d, int w, int bits);
	/* Black level: clamp((max(s - black, 0) * gain + 8192) >> 14), 65535 where s >= white. */
	void (*blc_row)(const uint16_t *s, uint16_t *d, int w, const uint16_t black[2], const uint16_t gain[2],
			uint16_t white);
	/* White balance: clamp((s * gain + 2048) >> 12). */
	void (*wb_row)(const uint16_t *s, uint16_t *d, int w, const uint16_t gain[2]);
	/* Clipped highlights of row y from the input rows r[0..4] (y-2..y+2; r[0], r[4] only in reconstruct). */
	void (*highlights_row)(const struct cisp_highlights_coeffs *c, const uint16_t *const r[5], uint16_t *d, int w,
			       int y);
	/* Lens shading of columns [0, w) with the gains of the row (struct cisp_lsc_row in lsc.h); s may be d. */
	void (*lsc_row)(const uint16_t *s, uint16_t *d, int w, const struct cisp_lsc_row *r);
	/* Dynamic defect detection on rows y-2, y, y+2 (threshold > 0). */
	void (*dpc_row)(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w,
			int threshold);
	/* Bayer denoise: the guide of a row from the input rows above, at and below it. */
	void (*bnr_guide_row)(const uint16_t *a, const uint16_t *m, const uint16_t *b, uint16_t *d, int w);
	/* Bayer denoise of a row from input rows r[0..4] (y-2..y+2) and their guide rows g[0..4]. */
	void (*bnr_row)(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, int w,
			const struct cisp_bnr_row_tables *t);
	/* Statistics of a row of 2x2 cells (cisp_stats_cells_c() in statistics.h says what goes in out[] and column[]). */
	uint32_t (*stats_cells)(const uint16_t *row0, const uint16_t *row1, int cells, const uint8_t site[4],
			    const uint16_t wb[4], int saturation, uint16_t *const out[2], uint32_t *const column[4]);
	/* Statistics zone sums of the column sums, which it clears (cisp_stats_run_sums_c() in statistics.h). */
	void (*stats_run_sums)(uint32_t *const v[4], const int *start, int runs, uint32_t (*sum)[4]);
	/* Fast demosaic green of a row: r[0..4] are rows y-2..y+2, nx its first red/blue column. */
	void (*green_row)(const uint16_t *const r[5], uint16_t *dst, int w, int nx);
	/* Fast demosaic red and blue of a row from Bayer rows y-1..y+1 and their green. */
	void (*rb_row)(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c, uint16_t *other_c,
		       int w, int nx);
	/* Colour matrix: out_c = clamp(((sum m[3c+k] in_k + 2048) >> 12) + off[c]); in may be out. */
	void (*ccm_row)(const int16_t m[9], const int32_t off[3], const uint16_t *const in[3],
			uint16_t *const out[3], int w);
	/* Local tone mapping of row @y (cisp_ltm_row_c() in ltm.h); in may be out. */
	void (*ltm_row)(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], uint16_t *const out[3], int w,
			int y);
	/* The tone function (cisp_tone_at() in tone.h) of each sample; s may be d. */
	void (*tone_row)(const struct cisp_tone_coeffs *c, const uint16_t *s, uint16_t *d, int w);
	/* Sharpening luma (871 r + 2929 g + 296 b + 2048) >> 12. */
	void (*luma_row)(const uint16_t *const rgb[3], uint16_t *luma, int w);
	/*
	 * Sharpening of one row from the luma of rows y-2..y+2 and the row's
	 * R, G, B (@out may be @mid); @tmp holds w + 4 int32 of scratch.
	 */
	void (*sharpen_row)(const uint16_t *const luma[5], const uint16_t *const mid[3], uint16_t *const out[3],
			    int w, int coring, int strength, int limit, int32_t *tmp);
	/* RGB to YCbCr, Q15 matrix m (Y, Cb, Cr rows), Y offset y_zero; in may be out. */
	void (*csc_row)(const int32_t m[9], int32_t y_zero, const uint16_t *const in[3], uint16_t *const out[3],
			int w);
	/* Chroma denoise: the horizontal pass of a row, and the vertical pass from 2 * radius + 1 such rows. */
	void (*cnr_h_row)(const uint16_t *y, const uint16_t *cb, const uint16_t *cr, uint16_t *ocb, uint16_t *ocr, int w,
			  const struct cisp_cnr_row_tables *t);
	void (*cnr_v_row)(const uint16_t *const y[], const uint16_t *const cb[], const uint16_t *const cr[],
			  uint16_t *ocb, uint16_t *ocr, int w, const struct cisp_cnr_row_tables *t);
	/* 16-bit to 8-bit, cisp_to8() per sample (any width >= 1). */
	void (*to8_row)(const uint16_t *s, uint8_t *d, int w);
	/*
	 * 4:2:0 chroma of a pair of rows of even width w: the 8-bit mean of each
	 * 2x2 block of Cb and Cr into dcb[step * i] and dcr[step * i] (NV12:
	 * step 2 into one interleaved row; planar: step 1).
	 */
	void (*chroma420_row)(const uint16_t *cb0, const uint16_t *cb1, const uint16_t *cr0, const uint16_t *cr1,
			      uint8_t *dcb, uint8_t *dcr, int step, int w);
	/*
	 * Quality demosaic, pass 1 (two greens), pass 2 (their blend) and pass 3
	 * (red and blue) on rows [y0, y1) of a frame, with the scratch of
	 * cisp_dmq_scratch_size(): demosaic_quality.h; whole chunks of rows
	 * rather than single rows, because each pass keeps its rows of
	 * intermediates in the scratch.
	 */
	void (*dmq_green_rows)(const struct plane16 *bayer, enum cisp_cfa cfa, const struct plane16 *gc,
			       const struct plane16 *g2, int y0, int y1, void *scratch);
	void (*dmq_blend_rows)(const struct plane16 *bayer, const struct plane16 *gc, const struct plane16 *g2,
			       enum cisp_cfa cfa, const struct plane16 *g, int y0, int y1, void *scratch);
	void (*dmq_colour_rows)(const struct plane16 *bayer, const struct plane16 *g, enum cisp_cfa cfa,
				unsigned false_colour, const struct rgb16 *out, int y0, int y1, void *scratch);
	/*
	 * Quality Bayer denoise: a tile of the patch filter and of the
	 * transform shrinkage (bnr_quality.h; whole tiles, not rows, because
	 * both filters work on a mirrored copy of the input around the tile).
	 */
	void (*bnr_patch_tile)(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			       int th, uint16_t *dst, int stride);
	void (*bnr_transform_tile)(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
				   int th, uint16_t *dst, int stride);
	/* Unpacking of a row of 8-bit samples: s << 8 (any width >= 1). */
	void (*unpack8_row)(const uint8_t *s, uint16_t *d, int w);
	/* Interleaved 8-bit RGB of a row, cisp_to8() per sample (any width >= 1). */
	void (*rgb888_row)(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w);
	/* The same as B,G,R,255 in 4 bytes a pixel (XBGR32; any width >= 1). */
	void (*xbgr32_row)(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w);
	/*
	 * The denoise reciprocal (2^32 + n/2) / n of each n, 64 <= n <= 65536:
	 * what the Bayer and chroma denoise rows compute inline instead of reading
	 * their tables; an entry of its own so that checkasm can check every n.
	 */
	void (*recip_row)(const uint32_t *n, uint32_t *r, int count);
};

/* The table for this CPU, capped by CISP_CPU; filled on the first call. */
const struct cisp_dsp *cisp_dsp(void);
/* The best level this CPU supports. */
enum cisp_cpu_level cisp_cpu_detect(void);
/* Fill @d for @level; returns 0, or -ENOTSUP when this build or CPU lacks it. */
int cisp_dsp_init(struct cisp_dsp *d, enum cisp_cpu_level level);
/* "scalar", "sse4", "avx2", "avx512", "avx512vnni", "neon". */
const char *cisp_cpu_name(enum cisp_cpu_level level);
/* The level named @name, or -1. */
int cisp_cpu_from_name(const char *name);
/* recip_row in C: the 64-bit division. */
void cisp_recip_row_c(const uint32_t *n, uint32_t *r, int count);

/* Per-architecture fillers, in x86/ and arm/ (present when the build has them). */
void cisp_dsp_init_sse4(struct cisp_dsp *d);
void cisp_dsp_init_avx2(struct cisp_dsp *d);
void cisp_dsp_init_avx512(struct cisp_dsp *d);
/* The AVX-512 rows compiled again with AVX512-VNNI, over the AVX-512 table (x86/dsp_avx512vnni.c). */
void cisp_dsp_init_avx512vnni(struct cisp_dsp *d);
void cisp_dsp_init_neon(struct cisp_dsp *d);
/* The quality demosaic's entries of each level (simd_demosaic_quality.h). */
void cisp_dsp_init_dmq_sse4(struct cisp_dsp *d);
void cisp_dsp_init_dmq_avx2(struct cisp_dsp *d);
void cisp_dsp_init_dmq_avx512(struct cisp_dsp *d);
void cisp_dsp_init_dmq_neon(struct cisp_dsp *d);
/* The highlights entry of each level (simd_highlights.h). */
void cisp_dsp_init_highlights_sse4(struct cisp_dsp *d);
void cisp_dsp_init_highlights_avx2(struct cisp_dsp *d);
void cisp_dsp_init_highlights_avx512(struct cisp_dsp *d);
void cisp_dsp_init_highlights_neon(struct cisp_dsp *d);
/* The local tone mapping entry of each level (simd_ltm.h). */
void cisp_dsp_init_ltm_sse4(struct cisp_dsp *d);
void cisp_dsp_init_ltm_avx2(struct cisp_dsp *d);
void cisp_dsp_init_ltm_avx512(struct cisp_dsp *d);
void cisp_dsp_init_ltm_neon(struct cisp_dsp *d);
/* The chroma denoise entries of each level (simd_cnr.h). */
void cisp_dsp_init_cnr_sse4(struct cisp_dsp *d);
void cisp_dsp_init_cnr_avx2(struct cisp_dsp *d);
void cisp_dsp_init_cnr_avx512(struct cisp_dsp *d);
void cisp_dsp_init_cnr_avx512vnni(struct cisp_dsp *d);
void cisp_dsp_init_cnr_neon(struct cisp_dsp *d);
/* The quality Bayer denoise's entries of each level (simd_bnr_quality.h). */
void cisp_dsp_init_bnrq_sse4(struct cisp_dsp *d);
void cisp_dsp_init_bnrq_avx2(struct cisp_dsp *d);
void cisp_dsp_init_bnrq_avx512(struct cisp_dsp *d);
void cisp_dsp_init_bnrq_neon(struct cisp_dsp *d);

#endif
