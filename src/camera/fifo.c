/* SPDX-License-Identifier: MIT */
/* A growable FIFO of request pointers (the camera's queues). */
#include <errno.h>
#include <stdlib.h>

#include "camera_internal.h"

int fifo_push(struct request_fifo *f, struct cisp_camera_request *req)
{
	if (f->count == f->capacity) {
		size_t cap = f->capacity ? 2 * f->capacity : 16;
		struct cisp_camera_request **item = malloc(cap * sizeof(*item));

		if (!item)
			return -ENOMEM;
		/* Unroll the ring into the new array. */
		for (size_t i = 0; i < f->count; i++)
			item[i] = f->item[(f->head + i) % f->capacity];
		free(f->item);
		f->item = item;
		f->head = 0;
		f->capacity = cap;
	}
	f->item[(f->head + f->count) % f->capacity] = req;
	f->count++;
	return 0;
}

struct cisp_camera_request *fifo_pop(struct request_fifo *f)
{
	struct cisp_camera_request *req;

	if (!f->count)
		return NULL;
	req = f->item[f->head];
	f->head = (f->head + 1) % f->capacity;
	f->count--;
	return req;
}

bool fifo_contains(const struct request_fifo *f, const struct cisp_camera_request *req)
{
	for (size_t i = 0; i < f->count; i++)
		if (f->item[(f->head + i) % f->capacity] == req)
			return true;
	return false;
}

void fifo_free(struct request_fifo *f)
{
	free(f->item);
	*f = (struct request_fifo){ 0 };
}
