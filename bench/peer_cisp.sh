#!/bin/sh
# SPDX-License-Identifier: MIT
# cisp's demosaic as a peer of ../shared/tools/peers: `peer_cisp.sh IN.pgm OUT.ppm`
# runs `cisp demosaic --bench` PEER_RUNS times (default 1) on PEER_THREADS
# threads (default 2) and prints each run and, last, `time_ms <median>`, the
# kit's format. CISP_ALGO picks the demosaic (quality, the default, or fast),
# CISP_BUILD the build folder (default build/ beside this script). A peer list
# line: `cisp-quality /path/to/bench/peer_cisp.sh`; then, in the kit,
#   PEER_THREADS=2 scripts/run_speed.sh -i big.pgm -r 5 scripts/peers.default mylist
set -eu
build=${CISP_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
[ $# -eq 2 ] || { echo "usage: $0 IN.pgm OUT.ppm" >&2; exit 2; }
out=$("$build/tools/cisp" demosaic --algo "${CISP_ALGO:-quality}" --threads "${PEER_THREADS:-2}" \
	--bench "${PEER_RUNS:-1}" "$1" "$2")
echo "$out" | awk -v px="$(head -c 64 "$1" | sed -n 2p | awk '{ print $1 * $2 }')" '
	/runs \(ms\):/ { sub(/.*\(ms\): */, ""); for (i = 1; i <= NF; i++) printf "run %d: %s ms\n", i, $i }
	/^median_ms/ { m = $2 }
	END { printf "cisp: %d px, median %s ms\ntime_ms %s\n", px, m, m }'
