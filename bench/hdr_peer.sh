#!/bin/sh
# SPDX-License-Identifier: MIT
# HDR brackets against OpenCV (docs/hdr.md, "Quality against a peer"): the same brackets of the
# virtual test sensor merged by cisp (raw frames, the canonical pipeline) and by OpenCV's Mertens
# fusion and Debevec merge + Reinhard tone map (the frames developed alone by cisp), in the same
# run; each method's ghost area (its moving bracket against its still one) and time, one thread,
# as a ratio to cisp's (noisy on a shared machine: run it twice).
# HDR_PEER_KEEP=1 keeps the frames and outputs (PPM) and says where.
# Usage: bench/hdr_peer.sh [BUILD] [SENSOR_OPTIONS]
set -eu
export OPENCV_LOG_LEVEL=ERROR
build=${1:-build}
options=${2:-scene=hdr,motion=6}
peer="$build/bench/bench-hdr-opencv"
[ -x "$peer" ] || { echo "hdr_peer.sh: $peer was not built (OpenCV's photo module not found)" >&2; exit 1; }
eval "$(meson devenv -C "$build" --dump | grep -E '^(export )?CISP_')"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
[ -n "${HDR_PEER_KEEP:-}" ] && trap - EXIT && echo "frames in $dir"
{
	"$build/bench/bench-hdr-bracket" capture "$options" "$dir"
	"$peer" "$dir/times.txt" "$dir/times-still.txt" "$dir"
} | awk '{ print; ms[$1] = $(NF - 1) }
	END { for (k in ms) if (k != "cisp") printf "%s: %.1fx the time of cisp\n", k, ms[k] / ms["cisp"] }'
"$build/bench/bench-hdr-bracket" ghosts "$dir" cisp mertens debevec
