#!/bin/sh
# SPDX-License-Identifier: MIT
# Colour of cisp develop --linear against LibRaw's own linear rendering.
#
#   bench/libraw_compare.sh [BUILD] [WORKDIR]
#   EXTRA_DNGS="a.dng b.dng" bench/libraw_compare.sh     (real DNGs as well)
#
# Makes DNGs with cisp convert (a flat colour chart and Kodak photographs
# rendered through a real camera's published colour matrix, and the real
# N900 raw mosaic with that matrix), develops each with
#     cisp develop --linear --no-crop             (linear sRGB, 16-bit TIFF)
#     dcraw_emu -4 -T -w -o 1 -c 0                (LibRaw: linear 16-bit, as-shot WB, sRGB)
# and compares their 16x16 block means (bench/blockdiff). -c 0 turns off
# LibRaw's habit of lowering the white level to the brightest sample when that
# is within 75% of it: the file's WhiteLevel is the white level. --no-crop
# because dcraw_emu does not apply a DNG's default crop. Both apply the
# orientation.
#
# Demosaics differ in how they treat fine detail and dark noise, so the
# table also gives LibRaw's default (AHD) against LibRaw's bilinear
# (dcraw_emu -q 0): the spread between two demosaics of the same library.
set -eu
build=${1:-build}
work=${2:-/tmp/cisp-libraw-compare}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${CISP_TEST_DATA:-$root/../shared/data}
cisp=$build/tools/cisp

for tool in "$cisp" "$build/bench/rgb2raw" "$build/bench/blockdiff"; do
	[ -x "$tool" ] || { echo "libraw_compare: $tool is missing (build first)" >&2; exit 1; }
done
command -v dcraw_emu >/dev/null || { echo "libraw_compare: dcraw_emu not found (Debian package libraw-bin)" >&2; exit 1; }
mkdir -p "$work"

# Canon EOS 5D Mark III: XYZ (D65) to camera, Adobe's published ColorMatrix.
matrix=0.6722,-0.0635,-0.0963,-0.4287,1.2460,0.2028,-0.0909,0.2162,0.5668

# make_dng NAME SCENE CFA BLACK WHITE ORIENTATION: a DNG of SCENE (an RGB image or "chart") as the camera records it.
make_dng() {
	name=$1 scene=$2 cfa=$3 black=$4 white=$5 orientation=$6
	neutral=$("$build/bench/rgb2raw" "$scene" "$work/$name.pgm" --matrix $matrix --cfa "$cfa" \
		--black "$black" --white "$white" | sed -n 's/^neutral //p')
	"$cisp" convert "$work/$name.pgm" --cfa "$cfa" --black "$black" --white "$white" --matrix $matrix \
		--neutral "$neutral" --orientation "$orientation" --make Canon --model "EOS 5D Mark III" \
		--crop 8,8,64,64 --force -o "$work/$name.dng"
}

names=""
make_dng chart chart RGGB 512 15600 1
names="chart"
if [ -d "$data/kodak" ]; then
	make_dng kodim05 "$data/kodak/kodim05.png" GBRG 256 4000 6
	make_dng kodim15 "$data/kodak/kodim15.png" BGGR 64 1023 3
	make_dng kodim23 "$data/kodak/kodim23.png" GRBG 2048 16383 8
	names="$names kodim05 kodim15 kodim23"
else
	echo "libraw_compare: $data/kodak not found: Kodak scenes left out" >&2
fi
if [ -f "$data/raw/nokia_n900_fcam_bayer_small.png" ]; then
	# Real sensor data (GRBG, black 25, white 1023) with the same published matrix and its D65 neutral.
	neutral=$("$build/bench/rgb2raw" chart "$work/unused.pgm" --matrix $matrix | sed -n 's/^neutral //p')
	"$cisp" convert "$data/raw/nokia_n900_fcam_bayer_small.png" --cfa GRBG --black 25 --white 1023 \
		--matrix $matrix --neutral "$neutral" --make Nokia --model N900 --force -o "$work/n900.dng"
	names="$names n900"
else
	echo "libraw_compare: $data/raw/nokia_n900_fcam_bayer_small.png not found: the real mosaic is left out" >&2
fi
for dng in ${EXTRA_DNGS:-}; do
	base=$(basename "$dng" .dng)
	cp "$dng" "$work/$base.dng"
	names="$names $base"
done

diff_of() { "$build/bench/blockdiff" "$1" "$2" | sed -n 's/^mean_diff_percent //p'; }

printf '%-10s %18s %22s %22s\n' file "cisp vs LibRaw AHD" "cisp vs LibRaw bilinear" "LibRaw AHD vs bilinear"
sum=0 count=0
for n in $names; do
	"$cisp" develop "$work/$n.dng" --linear --no-crop --force -o "$work/$n.cisp.tif" 2>/dev/null
	dcraw_emu -4 -T -w -o 1 -c 0 -Z "$work/$n.ahd.tif" "$work/$n.dng"
	dcraw_emu -4 -T -w -o 1 -c 0 -q 0 -Z "$work/$n.bilinear.tif" "$work/$n.dng"
	a=$(diff_of "$work/$n.cisp.tif" "$work/$n.ahd.tif")
	b=$(diff_of "$work/$n.cisp.tif" "$work/$n.bilinear.tif")
	c=$(diff_of "$work/$n.ahd.tif" "$work/$n.bilinear.tif")
	printf '%-10s %17s%% %21s%% %21s%%\n' "$n" "$a" "$b" "$c"
	sum=$(echo "$sum $a" | awk '{ print $1 + $2 }')
	count=$((count + 1))
done
echo "mean block difference, cisp vs LibRaw (AHD), over $count files: $(echo "$sum $count" | awk '{ printf "%.3f", $1 / $2 }') %"
