#!/bin/sh
# SPDX-License-Identifier: MIT
# Demosaic quality beyond Kodak: render the low inter-channel correlation sets
# of bench/lowcorr.c (deterministic from the seed), print the mean correlation
# of their channels' gradients (bench/gradcorr.c) and score every demosaic on
# them the way bench/kodak_cpsnr.sh scores Kodak.
#
#   bench/lowcorr_cpsnr.sh [-B BUILD_DIR] [-o DIR] [-s SEED] [-p PEERS_DIR] [-c LABEL=COMMAND]... [SET...]
#
# SET is design (the default: the set the quality demosaic was designed on),
# heldout (a second set from another generator, for a final check only) or
# kodak (../shared/data/kodak, for the same columns side by side). -o keeps
# the rendered images in DIR (default: a temporary folder; lowcorr replaces
# no file there, so give a new or empty DIR); -p adds OpenCV's
# edge-aware demosaic and LibRaw's VNG and AHD from a built copy of
# ../shared/tools/peers; -c adds any command, as kodak_cpsnr.sh does.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
seed=1
out=""
peers=""
extra=""
while getopts B:o:s:p:c: o; do
	case $o in
	B) build=$OPTARG ;;
	o) out=$OPTARG ;;
	s) seed=$OPTARG ;;
	p) peers=$OPTARG ;;
	c) extra="$extra -c $(printf '%s' "$OPTARG" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")" ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-o DIR] [-s SEED] [-p PEERS_DIR] [-c LABEL=COMMAND]... [design|heldout|kodak]..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- design
for tool in bench/lowcorr bench/gradcorr; do
	[ -x "$build/$tool" ] || { echo "lowcorr_cpsnr.sh: $build/$tool is missing; build first (ninja -C $build)" >&2; exit 1; }
done
if [ -n "$peers" ]; then
	for p in opencv-ea libraw-vng libraw-ahd; do
		[ -x "$peers/bin/$p" ] || { echo "lowcorr_cpsnr.sh: $peers/bin/$p is missing (make in the peers kit)" >&2; exit 1; }
		extra="$extra -c $p=$peers/bin/$p"
	done
fi
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT INT TERM
fi

for set in "$@"; do
	case $set in
	design | heldout)
		mkdir -p "$out/$set"
		"$build/bench/lowcorr" --seed "$seed" "$set" "$out/$set"
		dir=$out/$set ;;
	kodak) dir=$root/../shared/data/kodak ;;
	*) echo "lowcorr_cpsnr.sh: unknown set '$set' (design, heldout or kodak)" >&2; exit 2 ;;
	esac
	echo "## $set: correlation of the channels' gradients"
	"$build/bench/gradcorr" "$dir"/*.png
	echo "## $set: CPSNR"
	eval "\"$root/bench/kodak_cpsnr.sh\" -k \"$dir\" -B \"$build\" $extra"
	echo
done
