/* SPDX-License-Identifier: MIT */
/*
 * cisp info: what an ISP instance accepts in params buffers, the way a
 * driver's "supported params blocks" control reports it: the ABI versions,
 * every canonical block, the demosaic algorithms, and the vendor blocks of
 * the vendor stages given on the command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>
#include <cisp/vendor.h>

#include "commands.h"
#include "options.h"

#define MAX_PLUGINS 16

static const char usage_text[] =
	"usage: cisp info [--vendor PLUGIN.so]... [--trusted-vendor PLUGIN.so]...\n"
	"                 [--time-limit MS] [--size WxH] [--format FMT]\n"
	"\n"
	"Show what an ISP instance accepts: the params and statistics ABI versions,\n"
	"every canonical block, the demosaic algorithms, and the vendor blocks of\n"
	"the vendor stages given (docs/vendor.md). Plugins are loaded as the ISP\n"
	"loads them: in a sandboxed helper, or in-process with --trusted-vendor.\n"
	"\n"
	"options:\n"
	"  --vendor PLUGIN.so          load a vendor stage, sandboxed\n"
	"  --trusted-vendor PLUGIN.so  load a vendor stage into this process\n"
	"  --time-limit MS             per-job limit of sandboxed stages (default 1000)\n"
	"  --size WxH                  input frame size (default 1920x1080)\n"
	"  --format FMT                input format (default SRGGB10)\n"
	"  -h, --help                  this help\n";

static void print_blocks(const struct cisp_params_limits *lim)
{
	printf("canonical blocks (supported-params-blocks mask 0x%08x):\n", lim->blocks);
	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const char *name = cisp_block_name(t);

		if (strcmp(name, "unknown"))
			printf("  %2u %-10s %s\n", t, name, lim->blocks & CISP_BLOCK_BIT(t) ? "supported" : "not supported");
	}
	printf("demosaic algorithms:%s%s\n", lim->demosaic_algorithms & (1u << CISP_DEMOSAIC_FAST) ? " fast" : "",
	       lim->demosaic_algorithms & (1u << CISP_DEMOSAIC_QUALITY) ? " quality" : "");
}

static void print_vendor(const struct cisp_vendor_host *host, const struct cisp_params_limits *lim)
{
	printf("vendor blocks (type %d, plugin ABI version %d): %s\n", CISP_BLOCK_VENDOR, CISP_VENDOR_PLUGIN_ABI,
	       lim->blocks & CISP_BLOCK_BIT(CISP_BLOCK_VENDOR) ? "supported" : "none (no vendor stage loaded)");
	for (unsigned i = 0; host && i < cisp_vendor_host_stages(host); i++) {
		struct cisp_vendor_stage_info s;

		cisp_vendor_host_stage(host, i, &s);
		/* The plugin declared these strings: printed through SHOWN(). */
		printf("  stage %s: vendor 0x%08x (%s), %s tap, ", SHOWN(s.name), s.vendor_id, SHOWN(s.vendor_name),
		       cisp_vendor_tap_name(s.tap));
		if (s.trusted)
			printf("trusted (in-process)\n");
		else
			printf("sandboxed, %u ms per job\n", s.time_limit_ms);
		printf("    %s\n", SHOWN(s.path));
		for (uint32_t b = 0; b < s.num_blocks; b++)
			printf("    block %u \"%s\": versions %u..%u, payload up to %u bytes\n", s.blocks[b].type,
			       SHOWN(s.blocks[b].name), s.blocks[b].min_version, s.blocks[b].max_version,
			       s.blocks[b].max_payload);
	}
}

int cmd_info(int argc, char **argv)
{
	struct cisp_vendor_stage_config stages[MAX_PLUGINS];
	struct cisp_isp_config c = { CISP_FMT_SRGGB10, 1920, 1080, { { CISP_FMT_NV12, 1920, 1080 } } };
	struct cisp_vendor_host *host = NULL;
	struct cisp_params_limits lim;
	struct cisp_isp *isp = NULL;
	unsigned n = 0;
	unsigned long limit_ms = 0;
	int status = 1;

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (strcmp(opt, "--vendor") && strcmp(opt, "--trusted-vendor") && strcmp(opt, "--time-limit") &&
		    strcmp(opt, "--size") && strcmp(opt, "--format")) {
			fprintf(stderr, "cisp info: unknown option '%s'; 'cisp help info' lists the options\n", SHOWN(opt));
			return 2;
		}
		if (!value) {
			fprintf(stderr, "cisp info: option '%s' needs a value; 'cisp help info' lists the options\n", SHOWN(opt));
			return 2;
		}
		i++;
		if (!strcmp(opt, "--vendor") || !strcmp(opt, "--trusted-vendor")) {
			if (n == MAX_PLUGINS) {
				fprintf(stderr, "cisp info: at most %d vendor stages\n", MAX_PLUGINS);
				return 2;
			}
			stages[n++] = (struct cisp_vendor_stage_config){ value, !strcmp(opt, "--trusted-vendor"), 0 };
		} else if (!strcmp(opt, "--time-limit")) {
			if (parse_uint(opt, value, 1, 600000, &limit_ms))
				return 2;
		} else if (!strcmp(opt, "--size")) {
			if (parse_size(opt, value, &c.width, &c.height))
				return 2;
			c.output[0].width = c.width;
			c.output[0].height = c.height;
		} else if (!strcmp(opt, "--format")) {
			if (!(c.input_format = cisp_format_from_name(value))) {
				fprintf(stderr, "cisp info: unknown format '%s'\n", value);
				return 2;
			}
		}
	}
	if (n && cisp_vendor_host_create(&host, NULL)) {
		fprintf(stderr, "cisp info: %s\n", error_text());
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		stages[i].time_limit_ms = (uint32_t)limit_ms;
		if (cisp_vendor_host_add(host, &stages[i])) {
			fprintf(stderr, "cisp info: %s\n", error_text());
			goto out;
		}
	}
	c.vendor = host;
	if (cisp_isp_create(&isp, &c)) {
		fprintf(stderr, "cisp info: %s\n", error_text());
		goto out;
	}
	cisp_isp_limits(isp, &lim);
	printf("cisp %s: params ABI version %d (buffers up to %u bytes), statistics ABI version %d (%zu bytes)\n",
	       CISP_VERSION, CISP_PARAMS_VERSION, CISP_PARAMS_MAX_SIZE, CISP_STATS_VERSION, sizeof(struct cisp_stats));
	printf("ISP instance: %ux%u %s\n", lim.width, lim.height, cisp_format_name(c.input_format));
	print_blocks(&lim);
	print_vendor(host, &lim);
	status = 0;
out:
	cisp_isp_destroy(isp);
	cisp_vendor_host_destroy(host);
	return status;
}
