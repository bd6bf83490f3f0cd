#!/bin/sh
# SPDX-License-Identifier: MIT
# Build tests/checkasm for AArch64 with the Debian cross compiler and run it
# under qemu-user: the NEON row functions against their C versions.
# usage: tests/checkasm/cross-aarch64.sh [BUILD_DIR] [checkasm options...]
# Needs gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user (CI installs them).
set -eu
cd "$(dirname "$0")/../.."
out=${1:-build-aarch64}
[ $# -gt 0 ] && shift
CC=${CROSS_CC:-aarch64-linux-gnu-gcc}
mkdir -p "$out"
# Only what the row functions need: the stage files hold their C versions.
$CC -std=c11 -O2 -static -Wall -Wextra -Wno-missing-field-initializers -Wshadow -Wmissing-prototypes -Werror -D_GNU_SOURCE -DHAVE_NEON_SIMD \
	-Iinclude -Isrc -o "$out/checkasm" \
	tests/checkasm/checkasm.c tests/checkasm/dmq.c tests/checkasm/bnrq.c tests/checkasm/highlights.c tests/checkasm/ltm.c src/isp/dsp.c src/isp/demosaic_quality_row.c src/isp/arm/dsp_neon.c \
	src/isp/blc.c src/isp/bnr.c src/isp/bnr_quality.c src/isp/bnr_patch.c src/isp/bnr_transform.c src/isp/bnr_row.c src/isp/wb.c src/isp/highlights.c src/isp/ltm.c src/isp/lsc.c src/isp/dpc.c src/isp/demosaic_fast.c src/isp/ccm.c \
	src/isp/tone.c src/isp/sharpen.c src/isp/csc.c src/isp/pack.c src/isp/statistics.c src/isp/unpack.c src/isp/cnr.c src/isp/cnr_row.c src/core/error.c src/core/format.c \
	-lpthread
echo "== checkasm under qemu-aarch64 ($out/checkasm)"
exec ${QEMU:-qemu-aarch64} "$out/checkasm" "$@"
