/* SPDX-License-Identifier: MIT */
/**
 * @file iq_conform.h
 * @brief Conformance: checking an ISP backend against a profile (a market's
 * minimum: required blocks, bit-exact golden vectors per block, image-quality
 * thresholds on the virtual sensor). docs/conformance.md describes the
 * profile files and the golden vectors.
 */
#ifndef CISP_IQ_CONFORM_H
#define CISP_IQ_CONFORM_H

#include <stdint.h>

#include <cisp/api.h>
#include <cisp/iq_lab.h>
#include <cisp/iq_report.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most golden vectors and illuminants a profile lists. */
#define CISP_IQ_PROFILE_MAX_VECTORS 32
#define CISP_IQ_PROFILE_MAX_ILLUMINANTS 8

/**
 * struct cisp_iq_profile - a conformance profile (profiles/NAME.yaml).
 * @name: the profile's name.
 * @description: one line for people.
 * @required_blocks: CISP_BLOCK_BIT() of the blocks the backend must offer.
 * @required_demosaic: bit n for each enum cisp_demosaic_algorithm required.
 * @num_golden: golden vectors to pass.
 * @golden: their names (files NAME.yaml in the golden folder).
 * @sensor: the virtual sensor model of the IQ checks ("" for none).
 * @mode: its mode.
 * @lux: illuminance.
 * @num_illuminants: illuminants of the colour checks.
 * @illuminants: their names.
 * @max_mean_de00: ColorChecker mean dE00 limit per illuminant (0: unchecked).
 * @max_max_de00: largest single-patch dE00 limit (0: unchecked).
 * @max_wb_error_deg: white-balance error limit, degrees (0: unchecked).
 * @min_mtf50: centre MTF50 minimum, cycles per pixel (0: unchecked).
 * @min_snr_db: luminance SNR minimum of the neutral 5 patch (18 %
 *              grey), dB (0: unchecked).
 */
struct cisp_iq_profile {
	char name[64];
	char description[256];
	uint32_t required_blocks;
	uint32_t required_demosaic;
	unsigned num_golden;
	char golden[CISP_IQ_PROFILE_MAX_VECTORS][32];
	char sensor[128];
	unsigned mode;
	double lux;
	unsigned num_illuminants;
	char illuminants[CISP_IQ_PROFILE_MAX_ILLUMINANTS][32];
	double max_mean_de00;
	double max_max_de00;
	double max_wb_error_deg;
	double min_mtf50;
	double min_snr_db;
};

/**
 * cisp_iq_profile_load() - read a profile.
 * @name: a profile name, looked up as NAME.yaml in CISP_PROFILE_PATH
 *        (colon-separated), the installed profiles and the source tree's
 *        profiles/ folder; or the path of a .yaml file.
 * @profile: receives it.
 * Return: 0, -ENOENT, or -EINVAL with a message naming the file, key and problem.
 */
CISP_API int cisp_iq_profile_load(const char *name, struct cisp_iq_profile *profile);

/**
 * cisp_iq_golden_dir() - the folder of the shipped golden vectors
 * (CISP_GOLDEN_PATH, else the installed folder if present, else the source
 * tree's tests/golden).
 * Return: the folder.
 */
CISP_API const char *cisp_iq_golden_dir(void);

/**
 * cisp_iq_golden_generate() - write the golden vectors from a reference
 * backend: for each vector NAME.yaml (what it is), NAME.params.yaml (the
 * params buffer, YAML form), NAME.in.bin (the raw input) and NAME.out.bin
 * (the expected output, packed).
 * @dir: the folder (must exist).
 * @backend: the reference (normally cisp_iq_software_backend()).
 * Return: the number of vectors written, or a negative errno.
 */
CISP_API int cisp_iq_golden_generate(const char *dir, const struct cisp_iq_backend *backend);

/**
 * cisp_iq_golden_check() - run one golden vector on a backend and compare
 * its output bit for bit.
 * @dir: the golden folder.
 * @name: the vector.
 * @backend: the backend under test.
 * @detail: receives why it failed (or a summary when it passed).
 * @size: room in @detail.
 * Return: 1 pass, 0 mismatch (described in @detail), or a negative errno
 * when the vector cannot be run (missing files, backend error).
 */
CISP_API int cisp_iq_golden_check(const char *dir, const char *name, const struct cisp_iq_backend *backend,
				  char *detail,
				  size_t size);

/**
 * cisp_iq_conform() - check a backend against a profile: required blocks,
 * golden vectors, IQ thresholds; each a check in @report.
 * @profile: the profile.
 * @backend: the backend.
 * @golden_dir: the golden vectors (NULL: cisp_iq_golden_dir()).
 * @run_iq: run the image-quality checks (they take seconds).
 * @report: receives the checks, results and pictures.
 * Return: 0 when everything ran (see cisp_iq_report_passed() for the
 * verdict), or a negative errno for an error that stopped it.
 */
CISP_API int cisp_iq_conform(const struct cisp_iq_profile *profile, const struct cisp_iq_backend *backend,
			     const char *golden_dir, bool run_iq, struct cisp_iq_report *report);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_CONFORM_H */
