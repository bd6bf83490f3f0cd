#!/bin/sh
# SPDX-License-Identifier: MIT
# The x86 row functions under the emulator that runs tests/vm (qemu's TCG,
# -cpu max: SSE4 and AVX2, no AVX-512): checkasm at each level it offers,
# then the chroma denoise's replay of random parameters, so that an
# instruction the emulator gets wrong shows here and not only in the VM.
# usage: tests/checkasm/qemu-x86_64.sh [BUILD_DIR] [SEEDS...]
# Needs qemu-user; about a minute a seed.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
[ $# -gt 0 ] && shift
seeds=${*:-1}
qemu="${QEMU:-qemu-x86_64} -cpu max"
for seed in $seeds; do
	for level in sse4 avx2; do
		echo "== checkasm --cpu $level --seed $seed under $qemu"
		$qemu "$build/tests/checkasm" --cpu "$level" --seed "$seed"
	done
done
echo "== cnr_replay_random_params_every_level under $qemu"
eval "$(meson devenv -C "$build" --dump | grep -E '^(export )?CISP_')"
exec $qemu "$build/tests/cisp-test" cnr_replay_random_params_every_level
