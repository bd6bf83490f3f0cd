#!/bin/sh
# SPDX-License-Identifier: MIT
# Default exposure of cisp develop against dcraw's auto brightening.
#
#   bench/exposure_compare.sh [BUILD] [WORKDIR]
#   EXTRA_DNGS="a.dng b.dng" bench/exposure_compare.sh     (real DNGs as well)
#
# For each raw file, develops it with
#     cisp develop                 (defaults: automatic exposure, standard tone curve)
#     dcraw_emu -w                 (LibRaw: as-shot white balance, auto brightening: 1% of
#                                   the pixels at white, BT.709 curve; PPM, the same pixels -T writes)
# and prints how much brighter cisp's picture is, in stops, by the mean and the median of
# the display luminance (bench/brightness). The files: the three real mosaics of
# ../shared/data/raw as DNGs, Kodak photographs rendered through a published camera matrix
# at a full and a dim exposure (as a camera under-exposes), and virtual-sensor frames
# saved by cisp run --save-raw.
set -eu
build=${1:-build}
work=${2:-/tmp/cisp-exposure-compare}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${CISP_TEST_DATA:-$root/../shared/data}
cisp=$build/tools/cisp

for tool in "$cisp" "$build/bench/rgb2raw" "$build/bench/brightness"; do
	[ -x "$tool" ] || { echo "exposure_compare: $tool is missing (build first)" >&2; exit 1; }
done
command -v dcraw_emu >/dev/null || { echo "exposure_compare: dcraw_emu not found (Debian package libraw-bin)" >&2; exit 1; }
mkdir -p "$work"

# Canon EOS 5D Mark III: XYZ (D65) to camera, Adobe's published ColorMatrix.
matrix=0.6722,-0.0635,-0.0963,-0.4287,1.2460,0.2028,-0.0909,0.2162,0.5668
names=""

raw=$data/raw
if [ -d "$raw" ]; then
	"$cisp" convert "$raw/nokia_n900_fcam_bayer_small.png" --cfa GRBG --black 25 --white 1023 --force \
		-o "$work/n900.dng" 2>/dev/null
	"$cisp" convert "$raw/nikon_rose_768x512_rggb14.raw" --size 768x512 --format SRGGB14 --black 600 \
		--white 15520 --force -o "$work/rose.dng" 2>/dev/null
	"$cisp" convert "$raw/openisp_1920x1080_rggb10.raw" --size 1920x1080 --format SRGGB10 --white 1023 \
		--force -o "$work/chart1080.dng" 2>/dev/null
	names="n900 rose chart1080"
fi
# kodak NAME IMAGE LEVEL: IMAGE as the camera records it with sRGB white at LEVEL of the range.
kodak() {
	neutral=$("$build/bench/rgb2raw" "$data/kodak/$2.png" "$work/$1.pgm" --matrix $matrix --black 512 \
		--white 15600 --level "$3" | sed -n 's/^neutral //p')
	"$cisp" convert "$work/$1.pgm" --cfa RGGB --black 512 --white 15600 --matrix $matrix --neutral "$neutral" \
		--make Canon --model "EOS 5D Mark III" --force -o "$work/$1.dng" 2>/dev/null
	names="$names $1"
}
if [ -d "$data/kodak" ]; then
	for k in kodim01 kodim05 kodim07 kodim15 kodim20 kodim23; do
		kodak "$k" "$k" 0.8
	done
	kodak kodim03-dim kodim03 0.25
	kodak kodim21-dim kodim21 0.25
fi
export CISP_SENSOR_PATH="$root/data/sensors" CISP_TUNING_PATH="$root/tuning"
for scene in colorchart deadleaves; do
	"$cisp" run --scene "$scene" --frames 30 --save-raw "$work/virtual-$scene.dng" --force >/dev/null 2>&1
	names="$names virtual-$scene"
done
for dng in ${EXTRA_DNGS:-}; do
	base=$(basename "$dng" .dng)
	cp "$dng" "$work/$base.dng"
	names="$names $base"
done

printf '%-20s %8s %8s %14s %14s\n' file "mean" "median" "cisp mean Y" "dcraw mean Y"
for n in $names; do
	"$cisp" develop "$work/$n.dng" --no-crop --force -o "$work/$n.cisp.png" 2>/dev/null
	dcraw_emu -w -Z "$work/$n.dcraw.ppm" "$work/$n.dng"
	"$build/bench/brightness" "$work/$n.cisp.png" "$work/$n.dcraw.ppm" |
		awk -v n="$n" '$1 == "mean" { m = $4; a = $2; b = $3 } $1 == "median" { d = $4 }
			END { printf "%-20s %+8.2f %+8.2f %14.4f %14.4f\n", n, m, d, a, b }'
done | tee "$work/table.txt"
awk '{ s += ($2 < 0 ? -$2 : $2); t += ($3 < 0 ? -$3 : $3); n++; if (($2 < 0 ? -$2 : $2) > w) w = ($2 < 0 ? -$2 : $2) }
	END { printf "mean |stops|: mean %.2f, median %.2f over %d files; largest |mean| %.2f\n", s / n, t / n, n, w }' \
	"$work/table.txt"
