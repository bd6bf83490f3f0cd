/* SPDX-License-Identifier: MIT */
/* A Bayer frame on the Vulkan device and its stage dispatches (vulkan_frame.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cisp/format.h>

#include "core/buffer_fd.h"
#include "core/error_internal.h"
#include "device/vulkan_frame.h"

/* The SPIR-V of shaders/bnr_guide.comp (src/device/meson.build). */
static const uint32_t spv_bnr_guide[] =
#include "device/bnr_guide.spv.h"
	;

/* Invocations per workgroup along x (local_size_x of shaders/samples.glsl): each makes a pair of samples. */
#define GROUP_PAIRS 64
/* The Bayer denoise's inv tables: 4 CFA sites of 256 16-bit values, two to a word. */
#define BNR_TABLE_WORDS (4 * 128)

static int create_sets(struct vk_frame *f)
{
	/* raw -> plane 0, plane 0 -> 1, plane 1 -> 0; a statistics tap reads plane 0 or 1 into the sums. */
	const struct vk_buffer *bindings[5][3] = { { &f->raw, &f->plane[0], &f->tables },
						   { &f->plane[0], &f->plane[1], &f->tables },
						   { &f->plane[1], &f->plane[0], &f->tables },
						   { &f->plane[0], &f->sums, &f->tables },
						   { &f->plane[1], &f->sums, &f->tables } };
	struct vk_gpu *g = f->gpu;
	VkResult r;
	int ret;

	/* A command pool of the frame's own: the contexts sharing the device record on their own threads. */
	if ((ret = vk_sets_create(g, 5, bindings, &f->descriptors, f->set)) ||
	    (ret = vk_commands_create(g, &f->commands, &f->cmd)))
		return ret;
	if (!g->timestamp_bits)
		return 0;
	r = vkCreateQueryPool(g->device,
			      &(VkQueryPoolCreateInfo){ .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
							.queryType = VK_QUERY_TYPE_TIMESTAMP,
							.queryCount = VK_SHADER_COUNT + 1 },
			      NULL, &f->timestamps);
	return r == VK_SUCCESS ? 0 : vk_error(r, "creating a query pool");
}

int vk_frame_create(struct vk_gpu *g, uint32_t format, uint32_t width, uint32_t height, struct vk_frame **out)
{
	const struct cisp_format_info *info = cisp_format_info(format);
	struct vk_frame *f;
	size_t row, rows, raw_size;
	int ret;

	if (!info || info->kind != CISP_KIND_BAYER)
		return cisp_error(-ENOTSUP, "Vulkan backend: input format %s is not a Bayer format",
				  cisp_format_name(format));
	/* Both sizes are at most 65535 (the image layer's limit), so these products fit. */
	if (!width || !height || width % 2 || height % 2 || width > 65535 || height > 65535 ||
	    cisp_image_plane_size(format, width, height, 0, &row, &rows))
		return cisp_error(-EINVAL, "Vulkan backend: a %ux%u %s frame is not a whole Bayer frame", width, height,
				  cisp_format_name(format));
	f = calloc(1, sizeof(*f));
	if (!f)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan frame");
	f->gpu = g;
	f->format = format;
	f->width = width;
	f->height = height;
	f->row_bytes = (uint32_t)row;
	f->import_input = g->host_import || g->dma_buf;
	f->import_fd = g->dma_buf;
	/* Whole 32-bit words: the unpack shader reads the raw bytes four at a time. */
	raw_size = (row * rows + 3) & ~(size_t)3;
	/* Lens shading's tables: a cell and weight per column, then two node gains per row, cell and column parity. */
	f->dpc_base = width + height * 2 * (CISP_LSC_MAX_GRID - 1);
	f->stats_base = f->dpc_base + height + 1 + CISP_DPC_MAX_PIXELS;
	if ((ret = vk_buffer_create(g, raw_size, &f->raw)) ||
	    (ret = vk_buffer_create(g, (VkDeviceSize)width * height * 2, &f->plane[0])) ||
	    (ret = vk_buffer_create(g, (VkDeviceSize)width * height * 2, &f->plane[1])) ||
	    (ret = vk_buffer_create(g, 4 * ((VkDeviceSize)f->stats_base + 4 * CISP_STATS_MAX_AF), &f->tables)) ||
	    (ret = vk_buffer_create(g, 4 * VK_STATS_WORDS, &f->sums)) ||
	    (ret = create_sets(f))) {
		vk_frame_destroy(f);
		return ret;
	}
	*out = f;
	return 0;
}

void vk_frame_destroy(struct vk_frame *f)
{
	if (!f)
		return;
	if (f->commands)
		vkDestroyCommandPool(f->gpu->device, f->commands, NULL); /* frees f->cmd */
	if (f->timestamps)
		vkDestroyQueryPool(f->gpu->device, f->timestamps, NULL);
	if (f->descriptors)
		vkDestroyDescriptorPool(f->gpu->device, f->descriptors, NULL);
	vk_buffer_destroy(f->gpu, &f->imported);
	vk_bnrq_destroy(f->gpu, f->bnrq);
	vk_merge_destroy(f->gpu, f->merge);
	if (f->guide_pipeline)
		vkDestroyPipeline(f->gpu->device, f->guide_pipeline, NULL);
	if (f->guide_descriptors)
		vkDestroyDescriptorPool(f->gpu->device, f->guide_descriptors, NULL);
	vk_buffer_destroy(f->gpu, &f->guide);
	vk_buffer_destroy(f->gpu, &f->raw);
	vk_buffer_destroy(f->gpu, &f->plane[0]);
	vk_buffer_destroy(f->gpu, &f->plane[1]);
	vk_buffer_destroy(f->gpu, &f->tables);
	vk_buffer_destroy(f->gpu, &f->sums);
	free(f);
}

/* Every stage's push constants start with the frame's width and height. */
static uint32_t *step_begin(const struct vk_frame *f, struct vk_step *s, enum vk_shader shader, unsigned words)
{
	memset(s, 0, sizeof(*s));
	s->shader = shader;
	s->push_size = words * 4;
	s->push[0] = f->width;
	s->push[1] = f->height;
	s->rows = f->height;
	return s->push + 2;
}

void vk_step_unpack(const struct vk_frame *f, struct vk_step *s)
{
	const struct cisp_format_info *info = cisp_format_info(f->format);
	uint32_t *p = step_begin(f, s, VK_SHADER_UNPACK, 6);

	/* The raw buffer's layout; an input imported where it is has its own stride and offset (vk_frame_load()). */
	p[0] = f->row_bytes;
	p[1] = info->bits;
	p[2] = info->packed;
	p[3] = 0;
}

void vk_step_blc(const struct vk_frame *f, const struct cisp_blc_coeffs *c, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_BLC, 11);

	p[0] = c->white;
	for (int site = 0; site < 4; site++) {
		p[1 + site] = c->black[site];
		p[5 + site] = c->gain[site];
	}
}

void vk_step_dpc(struct vk_frame *f, const struct cisp_dpc_coeffs *c, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_DPC, 4), *first = (uint32_t *)f->tables.map + f->dpc_base;
	uint32_t *columns = first + f->height + 1;

	p[0] = c->threshold;
	p[1] = f->dpc_base;
	/* Row y's defects are [first[y], first[y + 1]) of the sorted list (cisp_dpc_static_row()'s). */
	for (uint32_t y = 0; y <= f->height; y++)
		first[y] = cisp_dpc_first_static(c, (int)y);
	for (unsigned k = 0; k < first[f->height]; k++)
		columns[k] = c->pixels[k].x;
}

int vk_frame_guide(struct vk_frame *f)
{
	const struct vk_buffer *bindings[4][3] = { { &f->plane[0], &f->guide, &f->guide },
						   { &f->plane[1], &f->guide, &f->guide },
						   { &f->plane[0], &f->plane[1], &f->guide },
						   { &f->plane[1], &f->plane[0], &f->guide } };
	int ret;

	/* Each part once, whatever an earlier call that failed left. */
	if (!f->guide.map &&
	    (ret = vk_buffer_create(f->gpu, (VkDeviceSize)f->width * f->height * 2 + 4 * BNR_TABLE_WORDS, &f->guide)))
		return ret;
	if (!f->guide_descriptors && (ret = vk_sets_create(f->gpu, 4, bindings, &f->guide_descriptors, f->guide_set))) {
		if (f->guide_descriptors) /* the pool without its sets */
			vkDestroyDescriptorPool(f->gpu->device, f->guide_descriptors, NULL);
		f->guide_descriptors = VK_NULL_HANDLE;
		return ret;
	}
	if (!f->guide_pipeline)
		return vk_pipeline_create(f->gpu, spv_bnr_guide, sizeof(spv_bnr_guide), &f->guide_pipeline);
	return 0;
}

int vk_step_bnr(struct vk_frame *f, const struct cisp_bnr_coeffs *c, struct vk_step *s)
{
	const uint32_t base = f->width / 2 * f->height; /* the tables' first word, after the guide plane */
	uint32_t *p = step_begin(f, s, VK_SHADER_BNR, 5), *table;
	struct cisp_bnr_row_tables t;
	int ret;

	if ((ret = vk_frame_guide(f)))
		return ret;
	table = (uint32_t *)f->guide.map + base;
	p[0] = base;
	for (int y = 0; y < 2; y++) {
		cisp_bnr_tables(c, y, &t);
		for (int k = 0; k < 2; k++) {
			const int site = y * 2 + k;

			p[1] |= (uint32_t)t.green[k] << site;
			for (int i = 0; i < 128; i++)
				table[site * 128 + i] = t.inv[k][2 * i] | (uint32_t)t.inv[k][2 * i + 1] << 16;
		}
	}
	p[2] = (uint32_t)t.enabled;
	return 0;
}

void vk_frame_lsc_tables(struct vk_frame *f, const struct cisp_lsc_coeffs *c)
{
	uint32_t *table = f->tables.map, *rows = table + f->width;
	struct cisp_lsc_row r;

	/* The columns of each cell (the same on every row), then each row's node gains. */
	cisp_lsc_row_gains(c, 0, &r);
	for (int i = 0, x = 0; i < r.cells; i++)
		for (; x < r.end[i] && x < (int)f->width; x++)
			table[x] = (uint32_t)i << 16 | r.wx[x];
	f->lsc_cells = (uint32_t)r.cells;
	for (uint32_t y = 0; y < f->height; y++) {
		cisp_lsc_row_gains(c, (int)y, &r);
		for (int i = 0; i < r.cells; i++)
			for (int k = 0; k < 2; k++)
				rows[((size_t)y * r.cells + i) * 2 + k] = r.left[i][k] | (uint32_t)r.right[i][k] << 16;
	}
}

void vk_step_lsc(const struct vk_frame *f, struct vk_step *s)
{
	step_begin(f, s, VK_SHADER_LSC, 3)[0] = f->lsc_cells;
}

void vk_step_wb(const struct vk_frame *f, const struct cisp_wb_coeffs *c, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_WB, 6);

	for (int site = 0; site < 4; site++)
		p[site] = c->gain[site];
}

void vk_step_stats(struct vk_frame *f, const struct cisp_stats_layout *l, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_STATS, 11), *af = (uint32_t *)f->tables.map + f->stats_base;

	s->rows = f->height / 2; /* one workgroup row per cell row */
	p[0] = (uint32_t)l->zones_x;
	p[1] = (uint32_t)l->zones_y;
	p[2] = (uint32_t)l->saturation;
	p[3] = (uint32_t)l->row_group;
	p[4] = (uint32_t)l->af_count;
	p[5] = l->site[0] | (uint32_t)l->site[1] << 8 | (uint32_t)l->site[2] << 16 | (uint32_t)l->site[3] << 24;
	p[6] = l->wb[0] | (uint32_t)l->wb[1] << 16;
	p[7] = l->wb[2] | (uint32_t)l->wb[3] << 16;
	p[8] = f->stats_base;
	for (int k = 0; k < l->af_count; k++)
		for (int e = 0; e < 4; e++)
			af[4 * k + e] = (uint32_t)l->af[k][e];
	memset(f->sums.map, 0, 4 * VK_STATS_WORDS);
}

static uint64_t word_pair(const uint32_t *w)
{
	return w[0] | (uint64_t)w[1] << 32;
}

void vk_frame_stats_sums(const struct vk_frame *f, const struct cisp_stats_layout *l, struct cisp_stats_sums *s)
{
	const uint32_t *w = f->sums.map;

	memset(s, 0, sizeof(*s));
	memcpy(s->hist, w + VK_STATS_HIST, sizeof(s->hist));
	for (int z = 0; z < l->zones_x * l->zones_y; z++) {
		const uint32_t *zone = w + VK_STATS_ZONES + 8 * z;

		for (int c = 0; c < 3; c++)
			s->zone_sum[z][c] = word_pair(zone + 2 * c);
		s->zone_count[z] = zone[6];
		s->zone_total[z] = zone[7];
	}
	for (int k = 0; k < l->af_count; k++) {
		s->af_sum[k] = word_pair(w + VK_STATS_AF + 4 * k);
		s->af_cells[k] = w[VK_STATS_AF + 4 * k + 2];
	}
	for (int r = 0; r < l->row_count; r++)
		s->row_sum[r] = word_pair(w + VK_STATS_ROWS + 2 * r);
}

/* The bytes @fd holds now (a memfd's may have shrunk since it was mapped), or -1 where it cannot tell. */
static long long fd_bytes(int fd)
{
	struct stat st;

	/* A file's size from fstat, so that the offset it shares with the caller's fd stays where it was. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		return (long long)st.st_size;
	return (long long)lseek(fd, 0, SEEK_END); /* a dma-buf's size */
}

/*
 * The input's @bytes at @data, where an fd-backed buffer holds them: -ENOENT
 * (none does: the caller imports by address or copies), 0 when imported by
 * the fd into @imported at *@offset (@by_fd: the caller may), 1 when they
 * are to be read otherwise (not @by_fd, or the device or the range does not
 * allow it), or an error: the frame runs past the buffer's end or past what
 * its fd now holds.
 */
static int load_fd(struct vk_frame *f, const uint8_t *data, size_t bytes, bool by_fd, struct vk_buffer *imported,
		   VkDeviceSize *offset)
{
	size_t at, end, words;
	long long held;
	int fd, ret = 1;

	/* The buffer's own fd, lent while it lives: the import duplicates it, and nothing here closes it. */
	fd = cisp_buffer_fd_of(data, bytes, &at);
	if (fd < 0)
		return fd;
	end = at + bytes; /* at most the buffer's size: cisp_buffer_fd_of() checked */
	words = end + (-end & 3); /* the unpack reads whole 32-bit words */
	held = fd_bytes(fd);
	if (held >= 0 && (unsigned long long)held < end)
		ret = cisp_error(-EINVAL,
				 "Vulkan backend: the input's %zu bytes at offset %zu of its fd run past the %lld bytes the fd "
				 "holds now",
				 bytes, at, held);
	/* The shader's byte addresses are 32-bit. */
	else if (by_fd && held >= 0 && (unsigned long long)held >= words && words <= UINT32_MAX &&
		 !vk_buffer_import_dma_buf(f->gpu, fd, words, imported)) {
		*offset = at;
		ret = 0;
	}
	return ret;
}

int vk_frame_load(struct vk_frame *f, const struct cisp_image *input, struct vk_buffer *raw, struct vk_buffer *imported,
		  VkDescriptorSet set, struct vk_step *unpack)
{
	const size_t stride = input->plane[0].stride;
	/* The frame's bytes: whole rows but the last, which may end where its bytes do. */
	const size_t bytes = stride * (f->height - 1) + f->row_bytes;
	const struct vk_buffer *bound = raw;
	/* Strides past 32 bits are copied: the shader counts bytes in a uint (imports past the limit fail). */
	const bool importable = f->import_input && stride <= UINT32_MAX / f->height;
	VkDeviceSize offset;
	int ret;

	vk_buffer_destroy(f->gpu, imported);
	/* An input in an fd-backed buffer is checked whichever path reads it, and imported by its fd where it can be. */
	ret = load_fd(f, input->plane[0].data, bytes, importable && f->import_fd, imported, &offset);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	if (!ret)
		f->fd_imports++;
	else if (importable && !vk_buffer_import_host(f->gpu, input->plane[0].data, bytes, imported, &offset))
		f->imports++;
	if (imported->buffer) {
		unpack->push[2] = (uint32_t)stride;
		unpack->push[5] = (uint32_t)offset;
		bound = imported;
	} else {
		/* A bracket's other frames have a raw buffer once one is copied. */
		if (!raw->map && (ret = vk_buffer_create(f->gpu, f->raw.size, raw)))
			return ret;
		for (uint32_t y = 0; y < f->height; y++)
			memcpy((uint8_t *)raw->map + (size_t)y * f->row_bytes, input->plane[0].data + (size_t)y * stride,
			       f->row_bytes);
	}
	/* Every time: the handle of a released import may come back as another one's. */
	vkUpdateDescriptorSets(f->gpu->device, 1,
			       &(VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
							.dstSet = set,
							.dstBinding = 0,
							.descriptorCount = 1,
							.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
							.pBufferInfo = &(VkDescriptorBufferInfo){ bound->buffer, 0,
												  VK_WHOLE_SIZE } },
			       0, NULL);
	return 0;
}

void vk_frame_release_input(struct vk_frame *f)
{
	/* Set 0 still names the buffer; the next load binds another before any dispatch reads it. */
	vk_buffer_destroy(f->gpu, &f->imported);
	vk_merge_release_inputs(f->gpu, f->merge);
}

/* The fast Bayer denoise from plane @from: its guide (none for a copy, strength 0), then the filter. */
static void record_bnr(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, unsigned from)
{
	const uint32_t groups = (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS;

	if (s->push[4])
		vk_commands_dispatch(cmd, f->gpu, true, f->guide_pipeline, f->guide_set[from], s->push, s->push_size, groups,
				     f->height);
	vk_commands_dispatch(cmd, f->gpu, true, f->gpu->pipeline[VK_SHADER_BNR], f->guide_set[2 + from], s->push,
			     s->push_size, groups, f->height);
}

unsigned vk_frame_record_steps(struct vk_frame *f, VkCommandBuffer cmd, VkDescriptorSet raw_set,
			       const struct vk_step *unpack, const struct vk_step *steps, unsigned count, bool after_another,
			       bool timed)
{
	unsigned written = 0; /* steps that wrote the frame: a tap reads the last one's plane */

	if (timed) {
		vkCmdResetQueryPool(cmd, f->timestamps, 0, count + 1);
		vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, f->timestamps, 0);
	}
	for (unsigned i = 0; i < count; i++) {
		/* The unpack reads the raw input; then the planes take turns; a tap writes the sums. */
		const bool tap = steps[i].shader == VK_SHADER_STATS;
		VkDescriptorSet set = written == 0 ? raw_set : f->set[tap ? 3 + (written - 1) % 2 : 1 + (written - 1) % 2];
		const struct vk_step *step = i ? &steps[i] : unpack;

		if (step->bnr_quality)
			vk_bnrq_record(f, cmd, step, (written - 1) % 2, i > 0);
		else if (step->merge)
			vk_merge_record(f, cmd, step, (written - 1) % 2);
		else if (step->shader == VK_SHADER_BNR)
			record_bnr(f, cmd, step, (written - 1) % 2);
		else
			vk_commands_dispatch(cmd, f->gpu, i > 0 || after_another, f->gpu->pipeline[step->shader], set,
					     step->push, step->push_size, (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS,
					     step->rows);
		if (timed)
			vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, f->timestamps, i + 1);
		written += !tap;
	}
	/* The last step wrote plane 0 after an odd number of steps that write the frame, plane 1 after an even one. */
	return (written - 1) % 2;
}

int vk_frame_record(struct vk_frame *f, const struct cisp_image *input, const struct vk_step *steps, unsigned count,
		    VkCommandBuffer cmd, bool timed, unsigned *result_plane)
{
	unsigned merge_at = count; /* a bracket's merge step: its other frames first, through the steps before it */
	struct vk_step unpack;
	int ret;

	if (!count || steps[0].shader != VK_SHADER_UNPACK || steps[0].merge)
		return cisp_error(-EINVAL, "Vulkan backend: a frame starts with the unpack");
	if (input->format != f->format || input->width != f->width || input->height != f->height)
		return cisp_error(-EINVAL, "Vulkan backend: a %ux%u %s input for a %ux%u %s frame", input->width,
				  input->height, cisp_format_name(input->format), f->width, f->height,
				  cisp_format_name(f->format));
	for (unsigned i = 0; i < count; i++)
		if (steps[i].merge)
			merge_at = i;
	if (merge_at < count && (ret = vk_merge_record_inputs(f, cmd, steps, merge_at)))
		return ret;
	unpack = steps[0];
	if ((ret = vk_frame_load(f, input, &f->raw, &f->imported, f->set[0], &unpack)))
		return ret;
	*result_plane = vk_frame_record_steps(f, cmd, f->set[0], &unpack, steps, count, merge_at < count, timed);
	return 0;
}

int vk_frame_run(struct vk_frame *f, const struct cisp_image *input, const struct vk_step *steps, unsigned count,
		 const uint16_t **result)
{
	const bool timed = f->timestamps && count <= VK_SHADER_COUNT;
	uint64_t t[VK_SHADER_COUNT + 1];
	unsigned plane;
	int ret;

	memset(f->step_ns, 0, sizeof(f->step_ns));
	if (!(ret = vk_commands_begin(f->cmd)) && !(ret = vk_frame_record(f, input, steps, count, f->cmd, timed, &plane)) &&
	    !(ret = vk_commands_end(f->cmd)))
		ret = vk_gpu_run(f->gpu, f->cmd);
	vk_frame_release_input(f);
	if (ret)
		return ret;
	if (timed && vkGetQueryPoolResults(f->gpu->device, f->timestamps, 0, count + 1, sizeof(t), t, sizeof(t[0]),
					   VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
		const uint64_t mask = f->gpu->timestamp_bits >= 64 ? ~0ull : (1ull << f->gpu->timestamp_bits) - 1;

		for (unsigned i = 0; i < count; i++)
			f->step_ns[i] = (double)((t[i + 1] - t[i]) & mask) * f->gpu->timestamp_ns;
	}
	*result = f->plane[plane].map;
	return 0;
}
