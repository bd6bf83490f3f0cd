/* SPDX-License-Identifier: MIT */
/*
 * A well-behaved test plugin that uses the C library as ordinary code does:
 * malloc and a realloc growing 1 -> 4 MiB (which moves it with mremap),
 * many small allocations, printf into a buffer and a memory stream, qsort
 * of 16 KiB (which asks the kernel for the memory size), strtod. Vendor
 * 0xffff0300, block 1 at the RGB tap. Output = input + the payload's first
 * byte, once every check passed; otherwise the job fails naming the check.
 * It must give the same output trusted and sandboxed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/vendor.h>

#define N_SORT 4096

static int compare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The first libc check that fails, or NULL. */
static const char *use_libc(void)
{
	uint8_t *p = malloc(1 << 20), *q;
	uint32_t *v = malloc(N_SORT * sizeof(*v));
	void *small[1000];
	char text[64], *stream = NULL;
	size_t stream_size = 0;
	FILE *f;

	if (!p || !v)
		return "malloc";
	memset(p, 0x5a, 1 << 20);
	q = realloc(p, 4 << 20);
	if (!q)
		return "realloc to 4 MiB";
	for (size_t i = 0; i < 1 << 20; i++)
		if (q[i] != 0x5a)
			return "realloc kept the contents";
	memset(q, 1, 4 << 20);
	free(q);

	for (uint32_t i = 0; i < N_SORT; i++)
		v[i] = i * 2654435761u;
	qsort(v, N_SORT, sizeof(*v), compare);
	for (uint32_t i = 1; i < N_SORT; i++)
		if (v[i - 1] > v[i])
			return "qsort";
	free(v);

	for (int i = 0; i < 1000; i++)
		if (!(small[i] = malloc((size_t)(i % 97) + 1)))
			return "small allocations";
	for (int i = 0; i < 1000; i++)
		free(small[i]);

	snprintf(text, sizeof(text), "%.3f %g %5d %s", 2.25, 1e-3, 42, "ok");
	if (strcmp(text, "2.250 0.001    42 ok"))
		return "snprintf";
	if (strtod("6.5e1", NULL) != 65.0)
		return "strtod";
	if (!(f = open_memstream(&stream, &stream_size)))
		return "open_memstream";
	for (int i = 0; i < 1000; i++)
		fprintf(f, "%d,", i);
	fclose(f);
	if (stream_size != 3890 || strncmp(stream, "0,1,2,", 6))
		return "fprintf to a memory stream";
	free(stream);
	return NULL;
}

static int process(void *state, const struct cisp_vendor_frame *f)
{
	const struct cisp_vendor_block_value *b = &f->blocks[0];
	unsigned add = b->size ? ((const uint8_t *)b->payload)[0] : 0;
	const char *failed = use_libc();

	(void)state;
	if (failed) {
		snprintf(f->message, f->message_size, "%s did not work", failed);
		return -EDOM;
	}
	for (uint32_t c = 0; c < f->in.num_planes; c++)
		for (uint32_t y = 0; y < f->in.height; y++)
			for (uint32_t x = 0; x < f->in.width; x++) {
				unsigned s = f->in.plane[c][(size_t)y * f->in.stride + x] + add;

				f->out.plane[c][(size_t)y * f->out.stride + x] = (uint16_t)(s > 65535 ? 65535 : s);
			}
	return 0;
}

const struct cisp_vendor_plugin cisp_vendor_plugin = {
	.abi_version = CISP_VENDOR_PLUGIN_ABI,
	.vendor_id = 0xffff0300u,
	.name = "test-libc-user",
	.vendor_name = "cisp tests",
	.tap = CISP_VENDOR_TAP_RGB,
	.num_blocks = 1,
	.blocks = { { .type = 1, .min_version = 1, .max_version = 1, .max_payload = 8, .name = "add" } },
	.process = process,
};
