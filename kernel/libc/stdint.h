/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* <stdint.h> for the cisp sources in the module: see cisp_libc.h. */
#include "cisp_libc.h"
