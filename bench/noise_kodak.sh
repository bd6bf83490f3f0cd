#!/bin/sh
# SPDX-License-Identifier: MIT
# Denoise on the Kodak suite with simulated sensor noise (bench/noise_kodak.c):
# each kodim*.png becomes an RGGB 16-bit mosaic, seeded Poisson-Gaussian noise
# is added at the three levels of docs/stages/cnr.md (low, mid, high light),
# then demosaic only is compared with BNR + demosaic + CSC + CNR, the ABI's
# default CNR parameters and the fast demosaic, by CPSNR (8-bit scale,
# 10-pixel border). The BNR is the quality filter at strength 256 (-m fast:
# the fast filter at the ABI's default strength). Prints the per-image table
# and, per level, the mean, the mean gain and the worst image's gain. Then the
# speed of the reference BNR (both filters) and CNR on a 4000x3000 mosaic at
# 1 and 2 threads.
#
#   bench/noise_kodak.sh [-k KODAK_DIR] [-B BUILD_DIR] [-c CROP_DIR] [-m quality|fast] [-q] [-- noise_kodak options]
#
# -c writes the PNG crops of docs/stages/bnr.md (fine texture and saturated
# edges; reference | demosaic only | with denoise, 3x enlarged) at the low and
# mid levels. -q skips the speed runs. Options after -- go to every
# noise_kodak run (e.g. -- --bnr 256 --demosaic quality).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kodak=$root/../shared/data/kodak
build=$root/build
crops=
speed=1
mode=quality
usage="usage: $0 [-k KODAK_DIR] [-B BUILD_DIR] [-c CROP_DIR] [-m quality|fast] [-q] [-- noise_kodak options]"
while getopts k:B:c:m:q o; do
	case $o in
	k) kodak=$OPTARG ;;
	B) build=$OPTARG ;;
	c) crops=$OPTARG ;;
	m) mode=$OPTARG ;;
	q) speed=0 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $mode in
quality) bnr="--bnr-mode quality --bnr 256" ;;
fast) bnr="--bnr-mode fast" ;;
*) echo "$usage" >&2; exit 2 ;;
esac

if [ ! -f "$kodak/kodim01.png" ]; then
	echo "########################################################################" >&2
	echo "## noise_kodak.sh: NO KODAK IMAGES in $kodak" >&2
	echo "## (expected kodim01.png .. kodim24.png); nothing was measured." >&2
	echo "########################################################################" >&2
	exit 1
fi
for tool in bench/noise_kodak bench/mosaic; do
	[ -x "$build/$tool" ] || { echo "noise_kodak.sh: $build/$tool is missing; build first (ninja -C $build)" >&2; exit 1; }
done

# The seed of an image is its position in this list: keep it kodim01..kodim24 in order.
images=$(ls "$kodak"/kodim[0-9][0-9].png)
echo "# $build/bench/noise_kodak $bnr $* $kodak/kodim01..24.png"
# shellcheck disable=SC2086
"$build/bench/noise_kodak" $bnr "$@" $images

if [ -n "$crops" ]; then
	mkdir -p "$crops"
	# image: X,Y,W,H ... (fine texture, then saturated edges)
	while read -r name rects; do
		args=
		for r in $rects; do args="$args --crop $r"; done
		# shellcheck disable=SC2086
		"$build/bench/noise_kodak" $bnr "$@" --quiet --levels low,mid --crops "$crops" $args "$kodak/$name.png" > /dev/null
	done <<-EOF
	kodim08 0,150,128,96 620,40,128,96
	kodim13 330,360,128,96 60,120,128,96
	kodim19 260,250,128,96 150,450,128,96
	kodim23 200,280,128,96 440,140,128,96
	kodim03 100,100,128,96
	EOF
	echo "# crops in $crops (image_level_x_y.png: reference | demosaic only | with denoise)"
fi

if [ "$speed" = 1 ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT INT TERM
	# A natural 4000x3000 mosaic from the landscape images (all of one size).
	first=$(od -An -tu1 -j16 -N8 "$kodak/kodim01.png" | tr -s ' ')
	land=
	for img in $images; do
		[ "$(od -An -tu1 -j16 -N8 "$img" | tr -s ' ')" = "$first" ] && land="$land $img"
	done
	# shellcheck disable=SC2086
	"$build/bench/mosaic" --size 4000x3000 $land "$work/m.pgm"
	echo "# reference BNR (fast, then quality) and CNR, mid-level noise, 4000x3000, median of 5 runs"
	for t in 1 2; do
		"$build/bench/noise_kodak" --bnr-mode fast "$@" --speed --threads $t --runs 5 "$work/m.pgm"
		"$build/bench/noise_kodak" --bnr-mode quality --bnr 256 "$@" --speed --threads $t --runs 5 "$work/m.pgm" |
			grep '^BNR'
	done
fi
