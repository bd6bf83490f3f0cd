/* SPDX-License-Identifier: MIT */
/*
 * Conformance: profiles load, the shipped golden vectors are what the
 * reference produces, the software ISP passes, and a backend with one stage
 * altered fails with a reason that names the stage.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/iq_conform.h>
#include <cisp/params_state.h>

#include "test.h"

TEST(iq_profiles_load)
{
	struct cisp_iq_profile p;
	char path[512];
	FILE *f;

	CHECK_EQ(cisp_iq_profile_load("video-conferencing", &p), 0);
	CHECK(!strcmp(p.name, "video-conferencing"));
	CHECK(p.required_blocks & CISP_BLOCK_BIT(CISP_BLOCK_LSC));
	CHECK(p.required_blocks & CISP_BLOCK_BIT(CISP_BLOCK_STATS));
	CHECK(!(p.required_blocks & CISP_BLOCK_BIT(CISP_BLOCK_LUT3D)));
	CHECK_EQ(p.num_illuminants, 3);
	CHECK(!strcmp(p.illuminants[1], "A"));
	CHECK_NEAR(p.max_mean_de00, 3.0, 0);
	CHECK(p.num_golden >= 8);
	CHECK_EQ(cisp_iq_profile_load("mobile-photo", &p), 0);
	CHECK(p.required_demosaic & (1u << CISP_DEMOSAIC_QUALITY));
	CHECK_EQ(cisp_iq_profile_load("machine-vision", &p), 0);
	CHECK_ERR(cisp_iq_profile_load("no-such-market", &p), -ENOENT, "no-such-market");
	snprintf(path, sizeof(path), "%s/bad-profile.yaml", test_tmp_dir());
	f = fopen(path, "w");
	fputs("name: bad\nrequired_blocks: [blc, teleport]\n", f);
	fclose(f);
	CHECK_ERR(cisp_iq_profile_load(path, &p), -EINVAL, "'teleport' is not a block name");
	f = fopen(path, "w");
	fputs("name: bad\niq:\n  sensor: cisp-test\n  illuminants: [D65]\n  max_mean_de00: lots\n", f);
	fclose(f);
	CHECK_ERR(cisp_iq_profile_load(path, &p), -EINVAL, "max_mean_de00: 'lots' is not a number");
	/* Each bad shape names the file, the line and the key. */
	{
		static const struct {
			const char *text, *needle;
		} bad[] = {
			{ "description: x\n", "bad-profile.yaml:1: name: missing (required)" },
			{ "name: [a]\n", "bad-profile.yaml:1: name: must be text" },
			{ "name: bad\ngolden: blc\n", "bad-profile.yaml:2: golden: must be a list" },
			{ "name: bad\ngolden: [blc, [x]]\n", "bad-profile.yaml:2: golden[1]: must be a name" },
			{ "name: bad\nrequired_demosaic: [fast, best]\n", "bad-profile.yaml:2: required_demosaic: must list fast and/or quality ('best')" },
			{ "name: bad\niq: {illuminants: [A]}\n", "bad-profile.yaml:2: iq.sensor: missing (required)" },
			{ "name: bad\niq: {sensor: s, illuminants: []}\n", "iq.illuminants: must list 1..8 illuminants" },
			{ "name: bad\niq: {sensor: s, illuminants: [A, A, A, A, A, A, A, A, A]}\n", "iq.illuminants: has more than 8 entries" },
			{ "name: bad\niq: {sensor: s, mode: -1, illuminants: [A]}\n", "iq.mode: -1 is outside 0..255" },
			{ "name: bad\n---\nname: again\n", "bad-profile.yaml:2: only one YAML document is allowed" },
			{ "name: bad\ngoldn: [blc]\n", "bad-profile.yaml:2: goldn: unknown key" },
			{ "name: bad\niq: {sensor: s, illuminants: [A], max_mean_de: 2}\n", "bad-profile.yaml:2: iq.max_mean_de: unknown key" },
		};

		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			f = fopen(path, "w");
			fputs(bad[i].text, f);
			fclose(f);
			CHECK_ERR(cisp_iq_profile_load(path, &p), -EINVAL, bad[i].needle);
		}
	}
}

static int count_vectors(const char *dir, char names[][32], int max)
{
	static const char *const all[] = { "demosaic-fast", "blc", "dpc", "bnr", "lsc", "wb", "demosaic-quality",
					   "ccm", "tone", "lut3d", "sharpen", "csc", "crop", "highlights", "ltm" };
	int n = 0;

	(void)dir;
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]) && n < max; i++)
		snprintf(names[n++], 32, "%s", all[i]);
	return n;
}

TEST(iq_golden_vectors_match_the_reference)
{
	char names[16][32], dir[512], a[1024], b[1024], detail[400];
	int n = count_vectors(NULL, names, 16);

	/* Every shipped vector passes on the software ISP... */
	for (int i = 0; i < n; i++) {
		int r = cisp_iq_golden_check(cisp_iq_golden_dir(), names[i], cisp_iq_software_backend(), detail,
					     sizeof(detail));

		if (r != 1)
			test_fail(__FILE__, __LINE__, "golden vector %s: %s", names[i], detail);
	}
	/*
	 * ...and regenerating them gives the same bytes. If the reference's
	 * arithmetic changes on purpose, regenerate with cisp conform --generate
	 * tests/golden and say so: other backends are held to these files.
	 */
	snprintf(dir, sizeof(dir), "%s/golden", test_tmp_dir());
	CHECK_EQ(mkdir(dir, 0700), 0);
	CHECK_EQ(cisp_iq_golden_generate(dir, cisp_iq_software_backend()), n);
	for (int i = 0; i <= n; i++) {
		const char *suffix[] = { ".out.bin", ".params.yaml", ".yaml" };

		for (int k = 0; k < 3; k++) {
			char cmd[2200];

			if (i == n && k > 0)
				break;
			if (i == n)
				snprintf(a, sizeof(a), "%s/mosaic-48x32.in.bin", cisp_iq_golden_dir());
			else
				snprintf(a, sizeof(a), "%s/%s%s", cisp_iq_golden_dir(), names[i], suffix[k]);
			snprintf(b, sizeof(b), "%s/%s", dir, strrchr(a, '/') + 1);
			snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
			if (system(cmd) != 0)
				test_fail(__FILE__, __LINE__, "%s differs from what the reference generates now", a);
		}
	}
	CHECK_EQ(cisp_iq_golden_check(cisp_iq_golden_dir(), "no-such-vector", cisp_iq_software_backend(), detail,
				      sizeof(detail)),
		 -ENOENT);
	CHECK(strstr(detail, "no-such-vector.yaml") != NULL);
}

/*
 * A backend whose white-balance stage is altered: it applies 85 % of the red
 * gain whenever the gain is not 1.0 (a wrong multiplier), otherwise it is the
 * software ISP.
 */
static int broken_process(void *ctx, const struct cisp_isp_config *cfg, const void *params, size_t size,
			  const struct cisp_image *in, struct cisp_image *out)
{
	uint8_t *copy = malloc(size);
	size_t off = sizeof(struct cisp_params_header);
	int ret;

	(void)ctx;
	memcpy(copy, params, size);
	while (off + sizeof(struct cisp_block_header) <= size) {
		struct cisp_block_header h;

		memcpy(&h, copy + off, sizeof(h));
		if (h.type == CISP_BLOCK_WB && h.size == sizeof(struct cisp_wb_params)) {
			struct cisp_wb_params wb;

			memcpy(&wb, copy + off, sizeof(wb));
			if (wb.gain[CISP_CH_R] != 4096)
				wb.gain[CISP_CH_R] = (uint16_t)(wb.gain[CISP_CH_R] * 85 / 100);
			memcpy(copy + off, &wb, sizeof(wb));
		}
		if (h.size < 8)
			break;
		off += h.size;
	}
	ret = cisp_iq_software_backend()->process(NULL, cfg, copy, size, in, out);
	free(copy);
	return ret;
}

static int broken_limits(void *ctx, const struct cisp_isp_config *cfg, struct cisp_params_limits *limits)
{
	return cisp_iq_software_backend()->limits(ctx, cfg, limits);
}

static const struct cisp_iq_backend broken = { .name = "software with an altered WB stage",
					       .limits = broken_limits,
					       .process = broken_process };

/* The profile's golden vectors and blocks, IQ on the small test sensor. */
static void test_profile(struct cisp_iq_profile *p)
{
	CHECK_EQ(cisp_iq_profile_load("video-conferencing", p), 0);
	snprintf(p->sensor, sizeof(p->sensor), "cisp-test");
	p->mode = 0;
}

/* The detail of the first failed check, found in the JSON report. */
static void failed_checks(struct cisp_iq_report *r, char *out, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/conform.json", test_tmp_dir());
	CHECK_EQ(cisp_iq_report_write_json(r, path), 0);
	f = fopen(path, "r");
	n = f ? fread(out, 1, size - 1, f) : 0;
	out[n] = 0;
	if (f)
		fclose(f);
}

TEST(iq_conform_software_passes_altered_stage_fails)
{
	static struct cisp_iq_profile p;
	struct cisp_iq_report *r;
	static char json[1 << 20];
	unsigned failed;

	test_profile(&p);
	CHECK_EQ(cisp_iq_report_create(&r, "conform"), 0);
	CHECK_EQ(cisp_iq_conform(&p, cisp_iq_software_backend(), NULL, true, r), 0);
	CHECK(cisp_iq_report_passed(r, &failed));
	CHECK_EQ(failed, 0);
	failed_checks(r, json, sizeof(json));
	CHECK(strstr(json, "\"name\": \"golden vector wb bit-exact\",\n      \"pass\": true") != NULL);
	CHECK(strstr(json, "\"name\": \"mean dE00, F11\",\n      \"pass\": true") != NULL);
	cisp_iq_report_destroy(r);

	CHECK_EQ(cisp_iq_report_create(&r, "conform"), 0);
	CHECK_EQ(cisp_iq_conform(&p, &broken, NULL, true, r), 0);
	CHECK(!cisp_iq_report_passed(r, &failed));
	failed_checks(r, json, sizeof(json));
	/* The WB vector fails and says where; vectors with unity gains still pass. */
	CHECK(strstr(json, "\"name\": \"golden vector wb bit-exact\",\n      \"pass\": false,\n      \"detail\": \"") !=
	      NULL);
	CHECK(strstr(json, "output bytes differ; first at pixel (0,0) R:") != NULL);
	CHECK(strstr(json, "\"name\": \"golden vector ccm bit-exact\",\n      \"pass\": true") != NULL);
	/* And the picture shows it: white balance off by degrees under every illuminant. */
	CHECK(strstr(json, "\"name\": \"white-balance error, D65\",\n      \"pass\": false") != NULL);
	CHECK(failed >= 4);
	cisp_iq_report_destroy(r);
}

TEST(iq_conform_cli)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s/tools/cisp conform --profile video-conferencing --no-iq >%s/conform.out 2>&1",
		 CISP_BUILD_DIR, test_tmp_dir());
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "grep -q '^PASS: profile video-conferencing, 0 checks failed' %s/conform.out",
		 test_tmp_dir());
	CHECK_EQ(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp conform --profile nowhere >/dev/null 2>&1", CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp conform >/dev/null 2>&1", CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}
