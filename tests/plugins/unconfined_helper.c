/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for cisp-vendor-helper that speaks its protocol but confines
 * nothing: no seccomp filter, no no_new_privs, its user and capabilities
 * kept. It says READY at once and answers a LOAD as the real helper would.
 * The library must refuse it from what /proc says, before it sends LOAD.
 */
#include <unistd.h>

#include "vendor_stage/protocol.h"

int main(void)
{
	struct helper_msg m = { .type = HELPER_MSG_READY };

	if (write(HELPER_FD_SOCKET, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return 1;
	if (read(HELPER_FD_SOCKET, &m, sizeof(m)) != (ssize_t)sizeof(m))
		return 0;
	m.type = HELPER_MSG_DONE;
	m.status = 0;
	return write(HELPER_FD_SOCKET, &m, sizeof(m)) != (ssize_t)sizeof(m);
}
