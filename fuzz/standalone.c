/* SPDX-License-Identifier: MIT */
/*
 * A main() for fuzz targets built without libFuzzer (gcc, or clang without
 * -fsanitize=fuzzer): runs every file given, or every file of every folder
 * given, through LLVMFuzzerTestOneInput() once. The build runs the committed
 * corpora this way (fuzz/run.sh --replay), so they stay regression tests.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "cannot read %s\n", path);
		if (f)
			fclose(f);
		return 1;
	}
	/* An exact-size heap copy, so that reading past the input is caught by the sanitizers. */
	data = malloc(size ? (size_t)size : 1);
	if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "cannot read %s\n", path);
		fclose(f);
		free(data);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned files = 0;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *dir;
		struct dirent *e;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: no such file or folder\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			status |= run_file(argv[i]);
			files++;
			continue;
		}
		if (!(dir = opendir(argv[i])))
			return 1;
		while ((e = readdir(dir))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			status |= run_file(path);
			files++;
		}
		closedir(dir);
	}
	printf("%s: %u inputs run\n", argv[0], files);
	return status;
}
