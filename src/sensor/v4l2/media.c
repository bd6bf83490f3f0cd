/* SPDX-License-Identifier: MIT */
/*
 * The media controller side of a V4L2 camera: which sensor feeds a raw
 * capture node, how to set its pipeline up (links and pad formats) so that
 * the kernel's validation at stream start passes, and, when it does not
 * (EPIPE), which link is wrong.
 *
 * At stream start the kernel walks every entity reachable over enabled
 * links, in both directions, and checks that both ends of each link carry
 * the same format. So it is not enough to configure the chain sensor ->
 * receiver -> capture node: other sinks fed by the sensor (a debayer next to
 * the raw path, as on vimc) need the same format, and mutable links further
 * out are disabled so that their entities leave the pipeline.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/media.h>
#include <linux/v4l2-subdev.h>
#include <linux/videodev2.h>

#include "core/error_internal.h"
#include "v4l2.h"

/* MEDIA_LNK_FL_LINK_TYPE shifts a signed 15 by 28 (undefined behaviour): the same mask, unsigned. */
#define LINK_TYPE 0xf0000000u

struct media_graph {
	struct media_v2_topology t;
	struct media_v2_entity *ents;
	struct media_v2_interface *ifs;
	struct media_v2_pad *pads;
	struct media_v2_link *links;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static void graph_free(struct media_graph *g)
{
	free(g->ents);
	free(g->ifs);
	free(g->pads);
	free(g->links);
	memset(g, 0, sizeof(*g));
}

static int graph_load(int fd, struct media_graph *g, const char *path)
{
	memset(g, 0, sizeof(*g));
	/* The graph can change between the two calls (hotplug): retry a few times. */
	for (int tries = 0; tries < 3; tries++) {
		uint64_t version;

		graph_free(g);
		if (xioctl(fd, MEDIA_IOC_G_TOPOLOGY, &g->t) < 0)
			return cisp_error(-errno, "v4l2: %s: cannot read the media graph: %s", path, strerror(errno));
		version = g->t.topology_version;
		g->ents = calloc(g->t.num_entities + 1, sizeof(*g->ents));
		g->ifs = calloc(g->t.num_interfaces + 1, sizeof(*g->ifs));
		g->pads = calloc(g->t.num_pads + 1, sizeof(*g->pads));
		g->links = calloc(g->t.num_links + 1, sizeof(*g->links));
		if (!g->ents || !g->ifs || !g->pads || !g->links) {
			graph_free(g);
			return cisp_error(-ENOMEM, "v4l2: out of memory");
		}
		g->t.ptr_entities = (uintptr_t)g->ents;
		g->t.ptr_interfaces = (uintptr_t)g->ifs;
		g->t.ptr_pads = (uintptr_t)g->pads;
		g->t.ptr_links = (uintptr_t)g->links;
		if (xioctl(fd, MEDIA_IOC_G_TOPOLOGY, &g->t) < 0) {
			int err = errno;

			graph_free(g);
			if (err == ENOSPC)
				continue;
			return cisp_error(-err, "v4l2: %s: cannot read the media graph: %s", path, strerror(err));
		}
		if (g->t.topology_version == version)
			return 0;
	}
	graph_free(g);
	return cisp_error(-EAGAIN, "v4l2: %s: the media graph keeps changing", path);
}

static const struct media_v2_entity *entity(const struct media_graph *g, uint32_t id)
{
	for (uint32_t i = 0; i < g->t.num_entities; i++)
		if (g->ents[i].id == id)
			return &g->ents[i];
	return NULL;
}

static const struct media_v2_pad *pad(const struct media_graph *g, uint32_t id)
{
	for (uint32_t i = 0; i < g->t.num_pads; i++)
		if (g->pads[i].id == id)
			return &g->pads[i];
	return NULL;
}

static bool is_data_link(const struct media_v2_link *l)
{
	return (l->flags & LINK_TYPE) == MEDIA_LNK_FL_DATA_LINK;
}

/* The /dev path of an entity's interface (video node or subdev), or "". */
static void entity_devnode(const struct media_graph *g, uint32_t ent, char *out, size_t n)
{
	out[0] = '\0';
	for (uint32_t i = 0; i < g->t.num_links; i++) {
		const struct media_v2_link *l = &g->links[i];

		if ((l->flags & LINK_TYPE) != MEDIA_LNK_FL_INTERFACE_LINK || l->sink_id != ent)
			continue;
		for (uint32_t j = 0; j < g->t.num_interfaces; j++) {
			char p[96], line[256];
			FILE *f;

			if (g->ifs[j].id != l->source_id)
				continue;
			snprintf(p, sizeof(p), "/sys/dev/char/%u:%u/uevent", g->ifs[j].devnode.major,
				 g->ifs[j].devnode.minor);
			f = fopen(p, "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				if (!strncmp(line, "DEVNAME=", 8)) {
					line[strcspn(line, "\n")] = '\0';
					snprintf(out, n, "/dev/%.58s", line + 8);
				}
			fclose(f);
			return;
		}
	}
}

int media_find_chain(const char *media_path, uint32_t maj, uint32_t min, struct media_chain *chain)
{
	struct media_device_info di = { 0 };
	struct media_graph g;
	struct media_hop rev[MEDIA_MAX_HOPS];
	uint32_t video = 0, cur, src_pad = 0;
	unsigned n = 0;
	int fd, ret = 0;

	memset(chain, 0, sizeof(*chain));
	fd = open(media_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return v4l2_open_error(media_path, errno);
	if (xioctl(fd, MEDIA_IOC_DEVICE_INFO, &di) < 0 || graph_load(fd, &g, media_path) < 0) {
		close(fd);
		return -ENOENT;
	}
	close(fd);
	snprintf(chain->media_devnode, sizeof(chain->media_devnode), "%s", media_path);
	snprintf(chain->driver, sizeof(chain->driver), "%s", di.driver);
	snprintf(chain->model, sizeof(chain->model), "%s", di.model);
	for (uint32_t i = 0; i < g.t.num_interfaces && !video; i++) {
		if (g.ifs[i].devnode.major != maj || g.ifs[i].devnode.minor != min)
			continue;
		for (uint32_t j = 0; j < g.t.num_links; j++)
			if ((g.links[j].flags & LINK_TYPE) == MEDIA_LNK_FL_INTERFACE_LINK &&
			    g.links[j].source_id == g.ifs[i].id)
				video = g.links[j].sink_id;
	}
	if (!video) {
		graph_free(&g);
		return -ENOENT;
	}
	ret = MEDIA_CHAIN_PROCESSED;
	cur = video;
	while (cur) {
		const struct media_v2_entity *e = entity(&g, cur);
		const struct media_v2_link *in = NULL;

		if (!e || n == MEDIA_MAX_HOPS)
			break;
		memset(&rev[n], 0, sizeof(rev[n]));
		rev[n].entity = cur;
		rev[n].source_pad = src_pad;
		snprintf(rev[n].name, sizeof(rev[n].name), "%s", e->name);
		if (n > 0)
			entity_devnode(&g, cur, rev[n].devnode, sizeof(rev[n].devnode));
		if (n > 0 && e->function == MEDIA_ENT_F_CAM_SENSOR) {
			n++;
			ret = MEDIA_CHAIN_SENSOR;
			break;
		}
		/* Only receivers and bridges may sit between the sensor and a raw node. */
		if (n > 0 && e->function != MEDIA_ENT_F_VID_IF_BRIDGE && e->function != MEDIA_ENT_F_VID_MUX)
			break;
		/* The link feeding one of its sink pads: an enabled one if there is one. */
		for (uint32_t j = 0; j < g.t.num_links; j++) {
			const struct media_v2_link *l = &g.links[j];
			const struct media_v2_pad *p = pad(&g, l->sink_id);

			if (!is_data_link(l) || !p || p->entity_id != cur)
				continue;
			if (!in || ((l->flags & MEDIA_LNK_FL_ENABLED) && !(in->flags & MEDIA_LNK_FL_ENABLED)))
				in = l;
		}
		if (!in) {
			if (n == 0)
				ret = MEDIA_CHAIN_NONE;
			break;
		}
		rev[n].sink_pad = pad(&g, in->sink_id)->index;
		rev[n].link_source = in->source_id;
		rev[n].link_sink = in->sink_id;
		rev[n].link_flags = in->flags;
		n++;
		cur = pad(&g, in->source_id) ? pad(&g, in->source_id)->entity_id : 0;
		src_pad = cur ? pad(&g, in->source_id)->index : 0;
	}
	if (ret == MEDIA_CHAIN_SENSOR) {
		/* rev[] runs from the video node up; the chain runs from the sensor down. */
		for (unsigned i = 0; i < n; i++)
			chain->hops[i] = rev[n - 1 - i];
		chain->num_hops = n;
		for (uint32_t j = 0; j < g.t.num_links; j++) {
			const struct media_v2_link *l = &g.links[j];
			uint32_t other = 0;

			if ((l->flags & LINK_TYPE) != MEDIA_LNK_FL_ANCILLARY_LINK)
				continue;
			if (l->source_id == chain->hops[0].entity)
				other = l->sink_id;
			else if (l->sink_id == chain->hops[0].entity)
				other = l->source_id;
			if (other && entity(&g, other) && entity(&g, other)->function == MEDIA_ENT_F_LENS)
				entity_devnode(&g, other, chain->lens_devnode, sizeof(chain->lens_devnode));
		}
	}
	graph_free(&g);
	return ret;
}

static int setup_link(int fd, const struct media_graph *g, const struct media_v2_link *l, bool enable)
{
	const struct media_v2_pad *src = pad(g, l->source_id), *dst = pad(g, l->sink_id);
	struct media_link_desc ld = { 0 };

	ld.source.entity = src->entity_id;
	ld.source.index = (uint16_t)src->index;
	ld.sink.entity = dst->entity_id;
	ld.sink.index = (uint16_t)dst->index;
	ld.flags = (l->flags & MEDIA_LNK_FL_IMMUTABLE) | (enable ? MEDIA_LNK_FL_ENABLED : 0);
	if (xioctl(fd, MEDIA_IOC_SETUP_LINK, &ld) < 0)
		return cisp_error(errno == EBUSY ? -EBUSY : -errno, "v4l2: cannot %s the link '%s':%u -> '%s':%u: %s%s",
				  enable ? "enable" : "disable", entity(g, src->entity_id)->name, src->index,
				  entity(g, dst->entity_id)->name, dst->index, strerror(errno),
				  errno == EBUSY ? " (the pipeline is streaming: another program uses the camera)" : "");
	return 0;
}

static bool on_chain_link(const struct media_chain *c, const struct media_v2_link *l)
{
	for (unsigned i = 1; i < c->num_hops; i++)
		if (c->hops[i].link_source == l->source_id && c->hops[i].link_sink == l->sink_id)
			return true;
	return false;
}

static bool on_chain(const struct media_chain *c, uint32_t ent)
{
	for (unsigned i = 0; i < c->num_hops; i++)
		if (c->hops[i].entity == ent)
			return true;
	return false;
}

/* Entities reachable from the sensor over enabled data links, either way (as the kernel walks). */
static void component(const struct media_graph *g, uint32_t start, bool *in)
{
	bool grew = true;

	for (uint32_t i = 0; i < g->t.num_entities; i++)
		in[i] = g->ents[i].id == start;
	while (grew) {
		grew = false;
		for (uint32_t j = 0; j < g->t.num_links; j++) {
			const struct media_v2_link *l = &g->links[j];
			const struct media_v2_pad *a, *b;
			uint32_t ia = UINT32_MAX, ib = UINT32_MAX;

			if (!is_data_link(l) || !(l->flags & MEDIA_LNK_FL_ENABLED))
				continue;
			a = pad(g, l->source_id);
			b = pad(g, l->sink_id);
			for (uint32_t i = 0; a && b && i < g->t.num_entities; i++) {
				if (g->ents[i].id == a->entity_id)
					ia = i;
				if (g->ents[i].id == b->entity_id)
					ib = i;
			}
			if (ia == UINT32_MAX || ib == UINT32_MAX || in[ia] == in[ib])
				continue;
			in[ia] = in[ib] = true;
			grew = true;
		}
	}
}

static int subdev_set(const char *devnode, const char *name, uint32_t padi, uint32_t mbus, uint32_t w, uint32_t h,
		      bool strict)
{
	struct v4l2_subdev_format f = { .which = V4L2_SUBDEV_FORMAT_ACTIVE, .pad = padi };
	char a[24], b[24];
	int fd = open(devnode, O_RDWR | O_CLOEXEC), err;

	if (fd < 0)
		return strict ? v4l2_open_error(devnode, errno) : 0;
	f.format.code = mbus;
	f.format.width = w;
	f.format.height = h;
	f.format.field = V4L2_FIELD_NONE;
	err = xioctl(fd, VIDIOC_SUBDEV_S_FMT, &f) < 0 ? errno : 0;
	close(fd);
	if (!strict)
		return 0;
	if (err)
		return cisp_error(err == EBUSY ? -EBUSY : -err, "v4l2: cannot set %s %ux%u on '%s' pad %u: %s", v4l2_mbus_name(mbus, a), w, h,
				  name, padi, err == EBUSY ? "busy (another program is streaming from it)" : strerror(err));
	if (f.format.code != mbus || f.format.width != w || f.format.height != h)
		return cisp_error(-EINVAL, "v4l2: '%s' pad %u does not support %s %ux%u (it offers %s %ux%u)", name, padi,
				  v4l2_mbus_name(mbus, a), w, h, v4l2_mbus_name(f.format.code, b), f.format.width,
				  f.format.height);
	return 0;
}

int media_configure(const struct media_chain *c, uint32_t mbus, uint32_t w, uint32_t h)
{
	struct media_graph g;
	bool *in;
	int fd, ret = 0;

	fd = open(c->media_devnode, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return v4l2_open_error(c->media_devnode, errno);
	ret = graph_load(fd, &g, c->media_devnode);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	/* Our links on, then every other mutable link around them off. */
	for (uint32_t j = 0; j < g.t.num_links && ret == 0; j++)
		if (is_data_link(&g.links[j]) && on_chain_link(c, &g.links[j]) &&
		    !(g.links[j].flags & MEDIA_LNK_FL_ENABLED)) {
			ret = setup_link(fd, &g, &g.links[j], true);
			g.links[j].flags |= MEDIA_LNK_FL_ENABLED;
		}
	in = calloc(g.t.num_entities + 1, sizeof(*in));
	if (!in && ret == 0)
		ret = cisp_error(-ENOMEM, "v4l2: out of memory");
	if (ret == 0)
		component(&g, c->hops[0].entity, in);
	for (uint32_t j = 0; j < g.t.num_links && ret == 0; j++) {
		struct media_v2_link *l = &g.links[j];
		const struct media_v2_pad *src = pad(&g, l->source_id);

		if (!is_data_link(l) || !(l->flags & MEDIA_LNK_FL_ENABLED) || (l->flags & MEDIA_LNK_FL_IMMUTABLE) ||
		    on_chain_link(c, l) || !src)
			continue;
		for (uint32_t i = 0; i < g.t.num_entities; i++)
			if (g.ents[i].id == src->entity_id && in[i]) {
				ret = setup_link(fd, &g, l, false);
				l->flags &= ~(uint32_t)MEDIA_LNK_FL_ENABLED;
			}
	}
	free(in);
	close(fd);
	/* Formats from the sensor down the chain; the video node is set by the caller. */
	for (unsigned i = 0; i + 1 < c->num_hops && ret == 0; i++) {
		const struct media_hop *hp = &c->hops[i];

		if (i > 0)
			ret = subdev_set(hp->devnode, hp->name, hp->sink_pad, mbus, w, h, true);
		if (ret == 0)
			ret = subdev_set(hp->devnode, hp->name, hp->source_pad, mbus, w, h, true);
	}
	/* Other sinks fed by a pad of the chain over an enabled (immutable) link: same format. */
	for (uint32_t j = 0; j < g.t.num_links && ret == 0; j++) {
		const struct media_v2_link *l = &g.links[j];
		const struct media_v2_pad *src = pad(&g, l->source_id), *dst = pad(&g, l->sink_id);
		char node[64];

		if (!is_data_link(l) || !(l->flags & MEDIA_LNK_FL_ENABLED) || on_chain_link(c, l) || !src || !dst ||
		    !on_chain(c, src->entity_id) || on_chain(c, dst->entity_id))
			continue;
		entity_devnode(&g, dst->entity_id, node, sizeof(node));
		if (node[0])
			subdev_set(node, entity(&g, dst->entity_id)->name, dst->index, mbus, w, h, false);
	}
	graph_free(&g);
	return ret;
}

int media_mismatch_error(const char *video, const char *src, unsigned spad, uint32_t src_code, uint32_t src_w,
			 uint32_t src_h, const char *dst, unsigned dpad, uint32_t dst_code, uint32_t dst_w,
			 uint32_t dst_h)
{
	char a[24], b[24];

	return cisp_error(-EPIPE,
			  "v4l2: %s: pipeline mismatch at stream start: '%s' pad %u sends %s %ux%u but '%s' pad %u "
			  "expects %s %ux%u (the formats on both ends of every enabled link must agree; "
			  "the option pipeline=auto sets them)",
			  video, src, spad, v4l2_mbus_name(src_code, a), src_w, src_h, dst, dpad,
			  v4l2_mbus_name(dst_code, b), dst_w, dst_h);
}

static int subdev_get(const char *devnode, uint32_t padi, struct v4l2_mbus_framefmt *out)
{
	struct v4l2_subdev_format f = { .which = V4L2_SUBDEV_FORMAT_ACTIVE, .pad = padi };
	int fd = open(devnode, O_RDWR | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = xioctl(fd, VIDIOC_SUBDEV_G_FMT, &f);
	close(fd);
	if (r < 0)
		return -1;
	*out = f.format;
	return 0;
}

int media_explain_epipe(const struct media_chain *c, const char *video, uint32_t mbus, uint32_t w, uint32_t h)
{
	struct media_graph g;
	int fd;

	/* Along the chain: each link's source pad against its sink pad (the video node last). */
	for (unsigned i = 1; i < c->num_hops; i++) {
		const struct media_hop *up = &c->hops[i - 1], *dn = &c->hops[i];
		struct v4l2_mbus_framefmt s, d;

		if (subdev_get(up->devnode, up->source_pad, &s) < 0)
			continue;
		if (i + 1 == c->num_hops) {
			d.code = mbus;
			d.width = w;
			d.height = h;
		} else if (subdev_get(dn->devnode, dn->sink_pad, &d) < 0) {
			continue;
		}
		if (s.code != d.code || s.width != d.width || s.height != d.height)
			return media_mismatch_error(video, up->name, up->source_pad, s.code, s.width, s.height, dn->name,
						    dn->sink_pad, d.code, d.width, d.height);
	}
	/* Then the other enabled links the kernel walks into. */
	fd = open(c->media_devnode, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && graph_load(fd, &g, c->media_devnode) == 0) {
		for (uint32_t j = 0; j < g.t.num_links; j++) {
			const struct media_v2_link *l = &g.links[j];
			const struct media_v2_pad *src = pad(&g, l->source_id), *dst = pad(&g, l->sink_id);
			struct v4l2_mbus_framefmt s, d;
			char sn[64], dn[64];

			if (!is_data_link(l) || !(l->flags & MEDIA_LNK_FL_ENABLED) || on_chain_link(c, l) || !src ||
			    !dst || !on_chain(c, src->entity_id))
				continue;
			entity_devnode(&g, src->entity_id, sn, sizeof(sn));
			entity_devnode(&g, dst->entity_id, dn, sizeof(dn));
			if (!sn[0] || !dn[0] || subdev_get(sn, src->index, &s) < 0 || subdev_get(dn, dst->index, &d) < 0)
				continue;
			if (s.code != d.code || s.width != d.width || s.height != d.height) {
				int ret = media_mismatch_error(video, entity(&g, src->entity_id)->name, src->index, s.code,
							       s.width, s.height, entity(&g, dst->entity_id)->name,
							       dst->index, d.code, d.width, d.height);

				graph_free(&g);
				close(fd);
				return ret;
			}
		}
		graph_free(&g);
	}
	if (fd >= 0)
		close(fd);
	return cisp_error(-EPIPE,
			  "v4l2: %s: the kernel refused the pipeline at stream start (EPIPE) although the formats "
			  "along it agree; the kernel log (dmesg) names the link",
			  video);
}
