/* SPDX-License-Identifier: MIT */
/*
 * The YAML form of a params buffer (docs/abi.md): a mapping from block names
 * to mappings of fields, in buffer order. Fixed-point fields are decimals
 * (written as the exact value stored), enums are names, tables are flow
 * sequences. Decoding writes a canonical text; encoding it gives back the
 * same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <cisp/params_state.h>

#include "core/error_internal.h"
#include "core/yaml_reader.h"
#include "params_internal.h"

#define BLOCK_HEADER_SIZE ((uint32_t)sizeof(struct cisp_block_header))
/* Flow sequences wrap before this column. */
#define LINE_WIDTH 100

/* ---- numbers ---- */

/*
 * Write v / 2^frac exactly: the integer part, then every fraction digit (at
 * least one when frac > 0; a dyadic fraction always ends).
 */
static int format_value(char *out, size_t size, int64_t v, unsigned frac)
{
	uint64_t mag = v < 0 ? (uint64_t)-v : (uint64_t)v;
	uint64_t mask = ((uint64_t)1 << frac) - 1, f = mag & mask;
	int n = snprintf(out, size, "%s%" PRIu64, v < 0 ? "-" : "", mag >> frac);

	if (frac == 0)
		return n;
	out[n++] = '.';
	do {
		f *= 10;
		out[n++] = (char)('0' + (f >> frac));
		f &= mask;
	} while (f);
	out[n] = '\0';
	return n;
}

/* Magnitude that stands for "too large for any field": out of every range. */
#define HUGE_VALUE ((int64_t)1 << 40)

/*
 * Parse "[-]digits[.digits]" as round(value * 2^frac), ties away from zero,
 * exactly (the fraction digits are doubled in decimal). A fraction needs
 * frac > 0. Returns false for malformed text.
 */
static bool parse_value(const char *s, unsigned frac, int64_t *out)
{
	char digits[128];
	size_t k = 0;
	bool neg = *s == '-';
	int64_t acc = 0;

	s += neg;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		acc = acc < HUGE_VALUE ? acc * 10 + (*s - '0') : HUGE_VALUE;
	if (*s == '.') {
		if (!frac || s[1] < '0' || s[1] > '9')
			return false;
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (k == sizeof(digits))
				return false;
			digits[k++] = (char)(*s - '0');
		}
	}
	if (*s)
		return false;
	/* acc.digits * 2^frac: double both frac times, carrying out of the fraction. */
	for (unsigned b = 0; b < frac; b++) {
		int carry = 0;

		for (size_t i = k; i-- > 0;) {
			int d = digits[i] * 2 + carry;

			digits[i] = (char)(d % 10);
			carry = d / 10;
		}
		acc = acc < HUGE_VALUE ? acc * 2 + carry : HUGE_VALUE;
	}
	if (k && digits[0] >= 5)
		acc++; /* the rest of the fraction is at least one half */
	*out = neg ? -acc : acc;
	return true;
}

/* ---- decoding: buffer to text ---- */

struct text {
	char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < t->cap - t->len)
			break;
		size_t cap = 2 * t->cap + (size_t)n;
		char *p = realloc(t->p, cap);

		if (!p) {
			t->failed = true;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	t->len += (size_t)n;
}

/* The YAML key of a block: its name, with the output's for per-output blocks ("crop_main"). */
static void block_key_name(char *out, size_t size, const struct abi_block *b, unsigned output)
{
	if (b->flags & ABI_PER_OUTPUT)
		snprintf(out, size, "%s_%s", b->name, abi_output_names[output]);
	else
		snprintf(out, size, "%s", b->name);
}

/* One element as YAML text: an enum name or a (decimal) number. */
static void element_text(char *out, size_t size, const struct abi_field *f, int64_t v)
{
	if (f->names)
		snprintf(out, size, "%s", f->names[v]);
	else
		format_value(out, size, v, f->frac);
}

/* A list field: a flow sequence of values or of rows, wrapped at LINE_WIDTH (grids: a row per line). */
static void put_list(struct text *t, const struct abi_field *f, const void *block)
{
	struct abi_span s = abi_field_span(f, block);
	uint32_t per_item = s.row ? s.row : 1;
	size_t indent = 2 + strlen(f->name) + 3, col = indent;

	put(t, "  %s: [", f->name);
	for (uint32_t item = 0; item < s.n / per_item; item++) {
		char text[4096], value[32];
		size_t n = 0;

		for (uint32_t e = 0; e < per_item; e++) {
			element_text(value, sizeof(value), f, abi_get(block, f, s.first + item * per_item + e));
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s%s", !e && s.row ? "[" : "", e ? ", " : "",
					      value);
		}
		if (s.row)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "]");
		if (item && ((f->flags & ABI_GRID) || col + 2 + n + 1 > LINE_WIDTH)) {
			put(t, ",\n%*s", (int)indent, "");
			col = indent;
		} else if (item) {
			put(t, ", ");
			col += 2;
		}
		put(t, "%s", text);
		col += n;
	}
	put(t, "]\n");
}

static void put_block(struct text *t, const uint8_t *p)
{
	unsigned type = abi_rd16(p), flags = abi_rd16(p + 2);
	uint32_t size = abi_rd32(p + 4);
	const struct abi_block *b = abi_block_info(type);
	char key[64];

	if (b->flags & ABI_VENDOR)
		snprintf(key, sizeof(key), "vendor_0x%08" PRIx32 "_%u", abi_rd32(p + 8), abi_rd16(p + 12));
	else
		block_key_name(key, sizeof(key), b,
			       (b->flags & ABI_PER_OUTPUT) ? (unsigned)abi_get(p, abi_find_field(b, "output"), 0) : 0);
	put(t, "%s:\n", key);
	if (flags & CISP_BLOCK_FL_ENABLE)
		put(t, "  enable: true\n");
	else if (flags & CISP_BLOCK_FL_DISABLE)
		put(t, "  enable: false\n");
	if (size == BLOCK_HEADER_SIZE)
		return;
	for (const struct abi_field *f = b->fields; f->name; f++) {
		char value[32];

		if (f->flags & (ABI_RESERVED | ABI_IMPLICIT))
			continue;
		if (f->count > 1) {
			put_list(t, f, p);
			continue;
		}
		if ((f->flags & ABI_OPTIONAL) && !abi_get(p, f, 0))
			continue;
		element_text(value, sizeof(value), f, abi_get(p, f, 0));
		put(t, "  %s: %s\n", f->name, value);
	}
}

int cisp_params_to_yaml(const void *buf, size_t size, char **text)
{
	struct text t = { .p = malloc(4096), .cap = 4096 };
	const uint8_t *base = buf;
	int ret = cisp_params_validate(buf, size, NULL);

	*text = NULL;
	if (ret || !t.p) {
		free(t.p);
		return ret ? ret : cisp_error(-ENOMEM, "out of memory for the YAML text");
	}
	t.p[0] = '\0';
	if (size == sizeof(struct cisp_params_header))
		put(&t, "{}\n");
	for (size_t off = sizeof(struct cisp_params_header); off < size; off += abi_rd32(base + off + 4))
		put_block(&t, base + off);
	if (t.failed) {
		free(t.p);
		return cisp_error(-ENOMEM, "out of memory for the YAML text");
	}
	*text = t.p;
	return 0;
}

/* ---- encoding: text to buffer ---- */

struct parser {
	struct yaml_reader r; /* the document, and "line N: ..." messages */
	uint8_t *out;         /* the params buffer being built */
	size_t size, cap;
	uint32_t vendor_id, vendor_type; /* of the vendor block being parsed, from its key */
};

static size_t seq_length(const yaml_node_t *node)
{
	return (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
}

/* One element from a scalar node: an enum name or a number in the field's range. */
static int parse_element(struct parser *ps, const yaml_node_t *node, const char *path, const struct abi_field *f,
			 void *block,
			 uint32_t index)
{
	char lo[32], hi[32];
	int64_t v;

	if (node->type != YAML_SCALAR_NODE)
		return yaml_reader_fail(&ps->r, node, path, "expected %s, not a %s", f->names ? "a name" : "a number",
				  node->type == YAML_SEQUENCE_NODE ? "sequence" : "mapping");
	if (f->names) {
		char list[128] = "";

		for (v = 0; v <= f->max; v++) {
			if (!strcmp(yaml_reader_scalar(node), f->names[v])) {
				abi_set(block, f, index, v);
				return 0;
			}
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", v ? ", " : "", f->names[v]);
		}
		return yaml_reader_fail(&ps->r, node, path, "'%s' is not one of %s", yaml_reader_scalar(node), list);
	}
	if (!parse_value(yaml_reader_scalar(node), f->frac, &v))
		return yaml_reader_fail(&ps->r, node, path, "'%s' is not %s", yaml_reader_scalar(node),
				  f->frac ? "a decimal number" : "an integer");
	if (v < f->min || v > f->max) {
		format_value(lo, sizeof(lo), f->min, f->frac);
		format_value(hi, sizeof(hi), f->max, f->frac);
		return yaml_reader_fail(&ps->r, node, path, "%s is out of range %s..%s", yaml_reader_scalar(node), lo, hi);
	}
	abi_set(block, f, index, v);
	return 0;
}

/* A sequence of @n entries (any length when @n is 0); returns its length in *len. */
static int expect_sequence(struct parser *ps, const yaml_node_t *node, const char *path, size_t n, const char *what,
			   size_t *len)
{
	if (node->type != YAML_SEQUENCE_NODE)
		return yaml_reader_fail(&ps->r, node, path, "expected a sequence");
	*len = seq_length(node);
	if (n && *len != n)
		return yaml_reader_fail(&ps->r, node, path, "%zu entries, expected %s", *len, what);
	return 0;
}

static int parse_list(struct parser *ps, const yaml_node_t *node, const char *path, const struct abi_block *b,
		      const struct abi_field *f, void *block)
{
	struct abi_span s;
	char what[128], sub[160];
	size_t len, rows, n;
	int ret;

	if (node->type != YAML_SEQUENCE_NODE)
		return yaml_reader_fail(&ps->r, node, path, "expected a sequence");
	rows = seq_length(node);
	if (f->length_of) {
		/* The list's length is the count the block stores. */
		const struct abi_field *count = abi_find_field(b, f->length_of);

		if ((int64_t)rows > count->max)
			return yaml_reader_fail(&ps->r, node, path, "%zu entries, at most %" PRId64, rows, count->max);
		abi_set(block, count, 0, (int64_t)rows);
	}
	s = abi_field_span(f, block);
	/* Lengths that follow from other fields say so: "expected 5 (grid_w = 3, grid_h = 5)". */
	n = (size_t)snprintf(what, sizeof(what), "%" PRIu32, s.row ? s.n / s.row : s.n);
	if (f->span && !f->length_of) {
		char counts[96];

		abi_describe_counts(counts, sizeof(counts), b, block);
		snprintf(what + n, sizeof(what) - n, " (%s)", counts);
	}
	if (s.row) {
		if ((ret = expect_sequence(ps, node, path, s.n / s.row, what, &len)))
			return ret;
		for (uint32_t r = 0; r < s.n / s.row; r++) {
			const yaml_node_t *row = yaml_reader_node(&ps->r, node->data.sequence.items.start[r]);

			snprintf(sub, sizeof(sub), "%s[%" PRIu32 "]", path, r);
			snprintf(what, sizeof(what), "%" PRIu32, s.row);
			if ((ret = expect_sequence(ps, row, sub, s.row, what, &len)))
				return ret;
			for (uint32_t e = 0; e < s.row; e++) {
				snprintf(sub, sizeof(sub), "%s[%" PRIu32 "][%" PRIu32 "]", path, r, e);
				ret = parse_element(ps, yaml_reader_node(&ps->r, row->data.sequence.items.start[e]), sub, f, block,
						    s.first + r * s.row + e);
				if (ret)
					return ret;
			}
		}
		return 0;
	}
	if ((ret = expect_sequence(ps, node, path, s.n, what, &len)))
		return ret;
	for (uint32_t i = 0; i < s.n; i++) {
		snprintf(sub, sizeof(sub), "%s[%" PRIu32 "]", path, i);
		if ((ret = parse_element(ps, yaml_reader_node(&ps->r, node->data.sequence.items.start[i]), sub, f, block,
					 s.first + i)))
			return ret;
	}
	return 0;
}

/* The YAML key of a field, or NULL for fields that have none. */
static bool has_key(const struct abi_field *f)
{
	return !(f->flags & (ABI_RESERVED | ABI_IMPLICIT));
}

static int append(struct parser *ps, const void *data, size_t n)
{
	if (ps->size + n > ps->cap) {
		size_t cap = 2 * (ps->size + n);
		uint8_t *p = realloc(ps->out, cap);

		if (!p)
			return cisp_error(-ENOMEM, "out of memory for a params buffer");
		ps->out = p;
		ps->cap = cap;
	}
	memcpy(ps->out + ps->size, data, n);
	ps->size += n;
	return 0;
}

/* Parse one block's mapping (@key names it) into a block and append it. */
static int parse_block(struct parser *ps, const yaml_node_t *key, const yaml_node_t *map, unsigned type,
		       unsigned output, uint8_t *block)
{
	const struct abi_block *b = abi_block_info(type);
	const char *name = yaml_reader_scalar(key);
	const yaml_node_t *value[32] = { 0 }; /* by field index */
	const yaml_node_t *enable = NULL;
	struct abi_ctx ctx = { .limits = NULL };
	unsigned flags = 0, nfields = 0;
	char path[96];
	uint32_t size;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return yaml_reader_fail(&ps->r, map, name, "expected a mapping of fields");
	for (const struct abi_field *f = b->fields; f->name; f++)
		nfields++;
	if (nfields > sizeof(value) / sizeof(value[0]))
		return cisp_error(-EINVAL, "%s has too many fields for the YAML parser", b->name);
	/* Every key once, and a known one. */
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const yaml_node_t *k = yaml_reader_node(&ps->r, pair->key), *v = yaml_reader_node(&ps->r, pair->value);
		const struct abi_field *f;
		const yaml_node_t **slot;

		if (k->type != YAML_SCALAR_NODE)
			return yaml_reader_fail(&ps->r, k, name, "keys must be field names");
		snprintf(path, sizeof(path), "%s.%s", name, yaml_reader_scalar(k));
		f = abi_find_field(b, yaml_reader_scalar(k));
		if (!strcmp(yaml_reader_scalar(k), "enable") && !(b->flags & ABI_NO_FLAGS))
			slot = &enable;
		else if (f && has_key(f))
			slot = &value[f - b->fields];
		else {
			char keys[256];
			size_t n = (size_t)snprintf(keys, sizeof(keys), "%s", (b->flags & ABI_NO_FLAGS) ? "" : "enable");

			for (f = b->fields; f->name && n < sizeof(keys); f++)
				if (has_key(f))
					n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", n ? ", " : "", f->name);
			return yaml_reader_fail(&ps->r, k, path, "unknown key (%s has: %s)", b->name, keys);
		}
		if (*slot)
			return yaml_reader_fail(&ps->r, k, path, "appears twice");
		*slot = v;
	}
	if (enable) {
		snprintf(path, sizeof(path), "%s.enable", name);
		if (enable->type != YAML_SCALAR_NODE ||
		    (strcmp(yaml_reader_scalar(enable), "true") && strcmp(yaml_reader_scalar(enable), "false")))
			return yaml_reader_fail(&ps->r, enable, path, "expected true or false");
		flags = !strcmp(yaml_reader_scalar(enable), "true") ? CISP_BLOCK_FL_ENABLE : CISP_BLOCK_FL_DISABLE;
	}

	memset(block, 0, b->size);
	if (flags == CISP_BLOCK_FL_DISABLE && map->data.mapping.pairs.top - map->data.mapping.pairs.start == 1 &&
	    !(b->flags & (ABI_PER_OUTPUT | ABI_VENDOR))) {
		size = BLOCK_HEADER_SIZE; /* enable: false alone: no payload (a crop always has one) */
	} else {
		for (unsigned i = 0; i < nfields; i++) {
			const struct abi_field *f = &b->fields[i];

			if (!has_key(f))
				continue;
			snprintf(path, sizeof(path), "%s.%s", name, f->name);
			if (!value[i] && (f->flags & ABI_OPTIONAL))
				continue; /* 0: the block was zeroed */
			if (!value[i])
				return yaml_reader_fail(&ps->r, map, name, "missing key '%s'", f->name);
			ret = f->count > 1 ? parse_list(ps, value[i], path, b, f, block)
					   : parse_element(ps, value[i], path, f, block, 0);
			if (ret)
				return ret;
		}
		if (b->flags & ABI_PER_OUTPUT)
			abi_set(block, abi_find_field(b, "output"), 0, output);
		if (b->flags & ABI_VENDOR) {
			abi_set(block, abi_find_field(b, "vendor_id"), 0, ps->vendor_id);
			abi_set(block, abi_find_field(b, "type"), 0, ps->vendor_type);
		}
		size = abi_block_encoded_size(b, block);
	}
	memcpy(block, &(struct cisp_block_header){ (uint16_t)type, (uint16_t)flags, size }, BLOCK_HEADER_SIZE);
	snprintf(ctx.where, sizeof(ctx.where), "line %lu: %s", yaml_reader_line(key), name);
	if ((ret = abi_check_block(&ctx, type, flags, block, size)))
		return ret;
	return append(ps, block, size);
}

/* The block type and output of a top-level key; false if none. */
static bool block_key(const char *key, unsigned *type, unsigned *output)
{
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT; t++) {
		const struct abi_block *b = abi_block_info(t);

		for (unsigned o = 0; b && o < abi_block_instances(b); o++) {
			char name[64];

			block_key_name(name, sizeof(name), b, o);
			if (!strcmp(key, name)) {
				*type = t;
				*output = o;
				return true;
			}
		}
	}
	return false;
}

/*
 * A vendor block's key, "vendor_<vendor id>_<type>" (canonically
 * vendor_0x41434d45_1): 1 when @key is one, 0 when it is no vendor key, or the
 * error of a malformed one.
 */
static int vendor_key(struct parser *ps, const yaml_node_t *k, const char *key)
{
	static const char prefix[] = "vendor_";
	unsigned long long id, type;
	char *end;

	if (strncmp(key, prefix, sizeof(prefix) - 1))
		return 0;
	key += sizeof(prefix) - 1;
	id = strtoull(key, &end, 0);
	if (end == key || *end != '_' || *key == '-' || *key == '+')
		goto bad;
	key = end + 1;
	type = strtoull(key, &end, 10);
	if (end == key || *end || *key == '-' || *key == '+')
		goto bad;
	if (id < 1 || id > UINT32_MAX || type < 1 || type > 65535)
		return yaml_reader_fail(&ps->r, k, yaml_reader_scalar(k),
					"vendor id %llu or type %llu out of range (1..0xffffffff, 1..65535)", id,
				  type);
	ps->vendor_id = (uint32_t)id;
	ps->vendor_type = (uint32_t)type;
	return 1;
bad:
	return yaml_reader_fail(&ps->r, k, yaml_reader_scalar(k),
				"a vendor block's key is vendor_<vendor id>_<type>, such as vendor_0x41434d45_1");
}

/* Every block key, for messages. */
static void block_keys(char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	for (unsigned t = 0; t < CISP_BLOCK_TYPE_COUNT && n < size; t++) {
		const struct abi_block *b = abi_block_info(t);

		for (unsigned o = 0; b && o < abi_block_instances(b) && n < size; o++) {
			char name[64];

			block_key_name(name, sizeof(name), b, o);
			n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ", " : "", name);
		}
	}
	if (n < size)
		snprintf(out + n, size - n, ", vendor_<vendor id>_<type>");
}

static int parse_document(struct parser *ps, const yaml_node_t *root, uint8_t *block)
{
	bool seen[CISP_BLOCK_TYPE_COUNT][CISP_MAX_OUTPUTS] = { { false } };
	int ret;

	if (!root || (root->type == YAML_SCALAR_NODE && !*yaml_reader_scalar(root)))
		return 0; /* an empty document: no blocks */
	if (root->type != YAML_MAPPING_NODE)
		return yaml_reader_fail(&ps->r, root, "document", "expected a mapping from block names to blocks");
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
		const yaml_node_t *k = yaml_reader_node(&ps->r, pair->key);
		unsigned type, output;

		if (k->type != YAML_SCALAR_NODE)
			return yaml_reader_fail(&ps->r, k, "document", "keys must be block names");
		if ((ret = vendor_key(ps, k, yaml_reader_scalar(k)))) {
			/* Duplicates are found when the whole buffer is validated. */
			if (ret < 0 || (ret = parse_block(ps, k, yaml_reader_node(&ps->r, pair->value), CISP_BLOCK_VENDOR, 0, block)))
				return ret;
			continue;
		}
		if (!block_key(yaml_reader_scalar(k), &type, &output)) {
			char keys[512];

			block_keys(keys, sizeof(keys));
			return yaml_reader_fail(&ps->r, k, yaml_reader_scalar(k), "unknown block (blocks: %s)", keys);
		}
		if (seen[type][output])
			return yaml_reader_fail(&ps->r, k, yaml_reader_scalar(k), "appears twice");
		seen[type][output] = true;
		if ((ret = parse_block(ps, k, yaml_reader_node(&ps->r, pair->value), type, output, block)))
			return ret;
	}
	return 0;
}

int cisp_params_from_yaml(const char *text, size_t length, void **buf, size_t *size)
{
	struct cisp_params_header header = { .magic = CISP_PARAMS_MAGIC, .version = CISP_PARAMS_VERSION };
	struct parser ps = { 0 };
	yaml_node_t *root;
	uint8_t *block;
	int ret;

	*buf = NULL;
	*size = 0;
	ret = yaml_reader_load_buffer(&ps.r, text, length, &root);
	if (ret)
		return ret;
	/* Room for the largest block (the 3D LUT) while it is filled in. */
	block = malloc(sizeof(struct cisp_lut3d_params));
	ret = block ? append(&ps, &header, sizeof(header)) : cisp_error(-ENOMEM, "out of memory for a params block");
	if (!ret)
		ret = parse_document(&ps, root, block);
	if (!ret && ps.size > CISP_PARAMS_MAX_SIZE)
		ret = cisp_error(-EINVAL, "the params buffer would be %zu bytes, over the maximum of %u", ps.size,
				 CISP_PARAMS_MAX_SIZE);
	if (!ret) {
		header.total_size = (uint32_t)ps.size;
		memcpy(ps.out, &header, sizeof(header));
		ret = cisp_params_validate(ps.out, ps.size, NULL);
	}
	free(block);
	yaml_reader_free(&ps.r);
	if (ret) {
		free(ps.out);
		return ret;
	}
	*buf = ps.out;
	*size = ps.size;
	return 0;
}
