/* SPDX-License-Identifier: MIT */
/* cisp params: convert params buffers between YAML and binary, and validate them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/output_file.h>
#include <cisp/params_state.h>

#include "commands.h"
#include "options.h"

static const char usage_text[] =
	"usage: cisp params encode IN.yaml OUT.bin [--force]\n"
	"       cisp params decode IN.bin [-o OUT.yaml [--force]]\n"
	"       cisp params validate IN.bin|IN.yaml [--size WxH]\n"
	"\n"
	"Convert ISP parameter buffers (ABI version 1, docs/abi.md) between their\n"
	"YAML form and the binary buffer, and check them.\n"
	"\n"
	"encode: the YAML form as the binary buffer, checked completely (field\n"
	"ranges, sizes, flags) before anything is written; errors name the line and\n"
	"key. decode: a binary buffer as its canonical YAML form, on standard output\n"
	"or into OUT.yaml; encoding that YAML gives back the same bytes. validate:\n"
	"check a buffer (binary, or YAML: told apart by the binary's magic) and list\n"
	"its blocks; exit status 0 when valid, 1 otherwise.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE   decode: write the YAML to FILE\n"
	"  --size WxH          validate: also check against a WxH input frame: crops,\n"
	"                      defective pixels and AF windows inside it\n"
	"  --force             replace an existing output file\n"
	"  -h, --help          this help ('cisp params COMMAND --help': one subcommand's)\n";

static const char encode_help[] =
	"usage: cisp params encode IN.yaml OUT.bin [--force]\n"
	"\n"
	"Encode the YAML form of a params buffer as the binary buffer. The YAML is\n"
	"checked completely (field ranges, sizes, flags) before anything is written;\n"
	"errors name the line and key. An existing OUT.bin is kept unless --force.\n";

static const char decode_help[] =
	"usage: cisp params decode IN.bin [-o OUT.yaml [--force]]\n"
	"\n"
	"Decode a binary params buffer into its canonical YAML form, on standard\n"
	"output or into OUT.yaml. Encoding that YAML gives back the same bytes.\n"
	"\n"
	"  -o, --output FILE   write the YAML to FILE\n"
	"  --force             replace an existing FILE\n";

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

/* Write @size bytes of @data to the new file @path, made from the input @in. */
static int write_all(const char *path, bool force, const char *in, const void *data, size_t size)
{
	const char *inputs[] = { in, NULL };
	struct cisp_output_file *out;
	FILE *f;
	int ret = create_output(&out, path, force, inputs);

	if (!ret) {
		f = cisp_output_file_stream(out);
		ret = !f ? -ENOMEM : fwrite(data, 1, size, f) != size ? -EIO : 0;
		ret = finish_output(out, ret, force);
	}
	return ret;
}

static int cmd_encode(int argc, char **argv)
{
	const char *files[2] = { NULL, NULL };
	bool force = false;
	void *buf;
	size_t size;
	int n = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(encode_help, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--force")) {
			force = true;
		} else if (argv[i][0] != '-' && n < 2) {
			files[n++] = argv[i];
		} else {
			fprintf(stderr, "cisp params encode: unexpected argument '%s'; 'cisp help params' lists the options\n",
				SHOWN(argv[i]));
			return 2;
		}
	}
	if (n != 2) {
		fprintf(stderr, "cisp params encode: give IN.yaml and OUT.bin; 'cisp help params' lists the options\n");
		return 2;
	}
	ret = load_params(files[0], PARAMS_YAML, &buf, &size);
	if (!ret) {
		ret = write_all(files[1], force, files[0], buf, size);
		free(buf);
	}
	if (ret) {
		fprintf(stderr, "cisp params encode: %s\n", error_text());
		return 1;
	}
	return 0;
}

static int cmd_decode(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	bool force = false;
	char *text;
	void *data;
	size_t size;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(decode_help, stdout);
			return 0;
		} else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--force")) {
			force = true;
		} else if (argv[i][0] != '-' && !in) {
			in = argv[i];
		} else {
			fprintf(stderr, "cisp params decode: unexpected argument '%s'; 'cisp help params' lists the options\n",
				SHOWN(argv[i]));
			return 2;
		}
	}
	if (!in) {
		fprintf(stderr, "cisp params decode: no input file given; 'cisp help params' lists the options\n");
		return 2;
	}
	ret = load_params(in, PARAMS_BINARY, &data, &size);
	if (!ret) {
		ret = cisp_params_to_yaml(data, size, &text);
		if (ret)
			cisp_error_prefix(ret, "%s", in);
		free(data);
	}
	if (!ret) {
		if (out)
			ret = write_all(out, force, in, text, strlen(text));
		else if (fputs(text, stdout) == EOF || fflush(stdout))
			ret = cisp_error(-EIO, "standard output: write failed");
		free(text);
	}
	if (ret) {
		fprintf(stderr, "cisp params decode: %s\n", error_text());
		return 1;
	}
	return 0;
}

static int cmd_validate(int argc, char **argv)
{
	struct cisp_params_limits limits = { .blocks = ~0u, .demosaic_algorithms = ~0u };
	const char *in = NULL;
	bool sized = false;
	void *buf = NULL;
	char name[1024];
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
			fprintf(stderr, "cisp params validate: unexpected argument '%s'; 'cisp help params' lists the options\n",
				SHOWN(argv[i]));
			return 2;
		}
	}
	if (!in) {
		fprintf(stderr, "cisp params validate: no input file given; 'cisp help params' lists the options\n");
		return 2;
	}
	ret = load_params(in, PARAMS_ANY, &buf, &size);
	if (!ret && (ret = cisp_params_validate(buf, size, sized ? &limits : NULL)))
		cisp_error_prefix(ret, "%s", in);
	if (ret) {
		fprintf(stderr, "cisp params validate: %s\n", error_text());
		free(buf);
		return 1;
	}
	printf("%s: valid, %zu bytes:", cisp_printable(in, name, sizeof(name)), size);
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
		fprintf(stderr, "cisp params: encode, decode or validate? 'cisp help params' says more\n");
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
	fprintf(stderr, "cisp params: unknown subcommand '%s'; 'cisp help params' lists them\n", SHOWN(argv[1]));
	return 2;
}
