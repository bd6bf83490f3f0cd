/* SPDX-License-Identifier: MIT */
/* cisp params: convert params buffers between YAML and binary, and validate them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/params_state.h>

#include "commands.h"
#include "options.h"

/* Text and binary inputs larger than this are refused (the binary maximum is 1 MiB). */

static const char usage_text[] =
	"usage: cisp params encode IN.yaml OUT.bin\n"
	"       cisp params decode IN.bin [-o OUT.yaml]\n"
	"       cisp params validate IN.bin|IN.yaml [--size WxH]\n"
	"\n"
	"Convert ISP parameter buffers (ABI version 1, docs/abi.md) between their\n"
	"YAML form and the binary buffer, and check them.\n";

static const char encode_help[] =
	"usage: cisp params encode IN.yaml OUT.bin\n"
	"\n"
	"Encode the YAML form of a params buffer as the binary buffer. The YAML is\n"
	"checked completely (field ranges, sizes, flags) before anything is written;\n"
	"errors name the line and key.\n";

static const char decode_help[] =
	"usage: cisp params decode IN.bin [-o OUT.yaml]\n"
	"\n"
	"Decode a binary params buffer into its canonical YAML form, on standard\n"
	"output or into OUT.yaml. Encoding that YAML gives back the same bytes.\n"
	"\n"
	"  -o, --output FILE   write the YAML to FILE\n";

static const char validate_help[] =
	"usage: cisp params validate IN.bin|IN.yaml [--size WxH]\n"
	"\n"
	"Check a params buffer (binary, or YAML: told apart by the binary's magic)\n"
	"and list its blocks. Exit status 0 when valid, 1 otherwise.\n"
	"\n"
	"  --size WxH   also check against a WxH input frame: crops, defective\n"
	"               pixels and AF windows inside it\n";

static bool is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

static int write_all(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "cisp params: cannot write %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

static bool looks_binary(const char *data, size_t size)
{
	return size >= 4 && !memcmp(data, "CISP", 4);
}

static int cmd_encode(int argc, char **argv)
{
	char *text;
	void *buf;
	size_t length, size;
	int ret;

	if (argc == 2 && is_help(argv[1])) {
		fputs(encode_help, stdout);
		return 0;
	}
	if (argc != 3) {
		fputs(encode_help, stderr);
		return 2;
	}
	if (read_file(argv[1], (void **)&text, &length))
		return 1;
	ret = cisp_params_from_yaml(text, length, &buf, &size);
	free(text);
	if (ret) {
		fprintf(stderr, "cisp params encode: %s: %s\n", argv[1], cisp_last_error());
		return 1;
	}
	ret = write_all(argv[2], buf, size);
	free(buf);
	return ret ? 1 : 0;
}

static int cmd_decode(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	char *data, *text;
	size_t size;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(decode_help, stdout);
			return 0;
		} else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] != '-' && !in) {
			in = argv[i];
		} else {
			fprintf(stderr, "cisp params decode: unexpected argument '%s'\n\n%s", argv[i], decode_help);
			return 2;
		}
	}
	if (!in) {
		fputs(decode_help, stderr);
		return 2;
	}
	if (read_file(in, (void **)&data, &size))
		return 1;
	ret = cisp_params_to_yaml(data, size, &text);
	free(data);
	if (ret) {
		fprintf(stderr, "cisp params decode: %s: %s\n", in, cisp_last_error());
		return 1;
	}
	if (out)
		ret = write_all(out, text, strlen(text));
	else if (fputs(text, stdout) == EOF || fflush(stdout))
		ret = -1;
	free(text);
	return ret ? 1 : 0;
}

static int cmd_validate(int argc, char **argv)
{
	struct cisp_params_limits limits = { .blocks = ~0u, .demosaic_algorithms = ~0u };
	const char *in = NULL;
	bool sized = false;
	char *data;
	void *buf;
	size_t size;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(validate_help, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (parse_size("--size", argv[++i], &limits.width, &limits.height))
				return 2;
			sized = true;
		} else if (argv[i][0] != '-' && !in) {
			in = argv[i];
		} else {
			fprintf(stderr, "cisp params validate: unexpected argument '%s'\n\n%s", argv[i], validate_help);
			return 2;
		}
	}
	if (!in) {
		fputs(validate_help, stderr);
		return 2;
	}
	if (read_file(in, (void **)&data, &size))
		return 1;
	if (looks_binary(data, size)) {
		buf = data;
		ret = cisp_params_validate(buf, size, sized ? &limits : NULL);
	} else {
		ret = cisp_params_from_yaml(data, size, &buf, &size); /* buf is NULL on failure */
		free(data);
		if (!ret)
			ret = cisp_params_validate(buf, size, sized ? &limits : NULL);
	}
	if (ret) {
		fprintf(stderr, "cisp params validate: %s: %s\n", in, cisp_last_error());
		free(buf);
		return 1;
	}
	printf("%s: valid, %zu bytes:", in, size);
	for (size_t off = sizeof(struct cisp_params_header); off < size;) {
		const struct cisp_block_header *h = (const void *)((const char *)buf + off);

		printf(" %s", cisp_block_name(h->type));
		off += h->size;
	}
	printf("\n");
	free(buf);
	return 0;
}

int cmd_params(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (is_help(argv[1])) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "encode"))
		return cmd_encode(argc - 1, argv + 1);
	if (!strcmp(argv[1], "decode"))
		return cmd_decode(argc - 1, argv + 1);
	if (!strcmp(argv[1], "validate"))
		return cmd_validate(argc - 1, argv + 1);
	fprintf(stderr, "cisp params: unknown subcommand '%s'\n\n%s", argv[1], usage_text);
	return 2;
}
