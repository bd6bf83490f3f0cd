/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include <yaml.h>

#include "core/error_internal.h"
#include "core/yaml_depth.h"

static int scan(yaml_parser_t *yp, const char *name)
{
	yaml_token_t tok;
	unsigned depth = 0;
	int ret = 0;

	for (;;) {
		if (!yaml_parser_scan(yp, &tok))
			break; /* the loader reports the syntax error */
		if (tok.type == YAML_FLOW_SEQUENCE_START_TOKEN || tok.type == YAML_FLOW_MAPPING_START_TOKEN ||
		    tok.type == YAML_BLOCK_SEQUENCE_START_TOKEN || tok.type == YAML_BLOCK_MAPPING_START_TOKEN)
			depth++;
		else if ((tok.type == YAML_FLOW_SEQUENCE_END_TOKEN || tok.type == YAML_FLOW_MAPPING_END_TOKEN ||
			  tok.type == YAML_BLOCK_END_TOKEN) &&
			 depth)
			depth--;
		if (depth > CISP_YAML_MAX_DEPTH && name)
			ret = cisp_error(-EINVAL, "%s:%lu: nested more than %d levels deep", name,
					 (unsigned long)tok.start_mark.line + 1, CISP_YAML_MAX_DEPTH);
		else if (depth > CISP_YAML_MAX_DEPTH)
			ret = cisp_error(-EINVAL, "line %lu: nested more than %d levels deep",
					 (unsigned long)tok.start_mark.line + 1, CISP_YAML_MAX_DEPTH);
		if (ret || tok.type == YAML_STREAM_END_TOKEN) {
			yaml_token_delete(&tok);
			break;
		}
		yaml_token_delete(&tok);
	}
	yaml_parser_delete(yp);
	return ret;
}

int cisp_yaml_check_depth_string(const char *name, const char *text, size_t length)
{
	yaml_parser_t yp;

	if (!yaml_parser_initialize(&yp))
		return cisp_error(-ENOMEM, "%s: out of memory", name ? name : "YAML");
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, length);
	return scan(&yp, name);
}

int cisp_yaml_check_depth_file(const char *name, FILE *f)
{
	yaml_parser_t yp;
	long at = ftell(f);
	int ret;

	if (at < 0)
		return cisp_error(-errno, "%s: cannot tell the file position", name);
	if (!yaml_parser_initialize(&yp))
		return cisp_error(-ENOMEM, "%s: out of memory", name);
	yaml_parser_set_input_file(&yp, f);
	ret = scan(&yp, name);
	if (fseek(f, at, SEEK_SET))
		return cisp_error(-errno, "%s: cannot go back in the file", name);
	return ret;
}
