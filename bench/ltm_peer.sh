#!/bin/sh
# SPDX-License-Identifier: MIT
# Local tone mapping speed against OpenCV's tone-mapping operators, one thread each, at 1080p and
# 12 MP, in the same run: cisp, OpenCV, OpenCV, cisp (A B B A), each the best of FRAMES frames;
# prints every figure and OpenCV's time over cisp's (docs/stages/ltm.md, "Measurements").
# Usage: bench/ltm_peer.sh [BUILD] [FRAMES]
set -eu
export OPENCV_LOG_LEVEL=ERROR
build=${1:-build}
frames=${2:-3}
peer="$build/bench/bench-ltm-opencv"
[ -x "$peer" ] || { echo "ltm_peer.sh: $peer was not built (OpenCV's photo module not found)" >&2; exit 1; }
for size in "1920 1080" "4000 3000"; do
	# shellcheck disable=SC2086
	{
		"$build/bench/bench-ltm" speed $size "$frames"
		"$peer" $size "$frames"
		"$peer" $size "$frames"
		"$build/bench/bench-ltm" speed $size "$frames"
	} | awk '{ print; t = $3 + 0; if (!($1 in ms) || t < ms[$1]) ms[$1] = t; size = $2 }
		END { for (k in ms) if (k != "cisp-ltm") printf "%s %s: %.1fx the time of cisp-ltm\n", k, size, ms[k] / ms["cisp-ltm"] }'
done
