#!/bin/sh
# Demosaic quality on the Kodak suite: each kodim*.png is mosaicked as RGGB
# 16-bit (v16 = v8 * 257), demosaicked with `cisp demosaic --algo A`, and
# compared with the original on an 8-bit scale, 10-pixel border excluded:
# CPSNR = 10 log10(255^2 / MSE over R, G, B). Prints the per-image CPSNR and the
# mean of the per-image dB values for every algorithm this build has.
#
#   bench/kodak_cpsnr.sh [-k KODAK_DIR] [-B BUILD_DIR] [-t THREADS]
#
# KODAK_DIR defaults to ../shared/data/kodak beside the source tree, BUILD_DIR
# to build/ (it needs tools/cisp, bench/mosaic and bench/cpsnr).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kodak=$root/../shared/data/kodak
build=$root/build
threads=1
while getopts k:B:t: o; do
	case $o in
	k) kodak=$OPTARG ;;
	B) build=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) echo "usage: $0 [-k KODAK_DIR] [-B BUILD_DIR] [-t THREADS]" >&2; exit 2 ;;
	esac
done

set -- "$kodak"/kodim*.png
if [ ! -f "$1" ]; then
	echo "########################################################################" >&2
	echo "## kodak_cpsnr.sh: NO KODAK IMAGES in $kodak" >&2
	echo "## (expected kodim01.png .. kodim24.png); nothing was measured." >&2
	echo "########################################################################" >&2
	exit 1
fi
for tool in tools/cisp bench/mosaic bench/cpsnr; do
	[ -x "$build/$tool" ] || { echo "kodak_cpsnr.sh: $build/$tool is missing; build first (ninja -C $build)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# The algorithms this build has: quality only when its create succeeds.
"$build/bench/mosaic" "$1" "$work/probe.pgm"
algos=fast
if "$build/tools/cisp" demosaic --algo quality "$work/probe.pgm" "$work/probe.ppm" 2> "$work/probe.err"; then
	algos="fast quality"
else
	echo "# quality: not measured ($(cat "$work/probe.err"))"
fi

echo "# Kodak CPSNR (dB), RGGB 16-bit mosaic, border 10, $threads thread(s)"
printf '%-10s' image
for a in $algos; do printf ' %9s' "$a"; done
echo
for img in "$@"; do
	name=$(basename "$img" .png)
	"$build/bench/mosaic" "$img" "$work/m.pgm"
	printf '%-10s' "$name"
	for a in $algos; do
		"$build/tools/cisp" demosaic --algo "$a" --threads "$threads" "$work/m.pgm" "$work/out.ppm"
		# "CPSNR 38.1234 dB  R ..."
		cp=$("$build/bench/cpsnr" "$img" "$work/out.ppm" | awk '{ print $2 }')
		printf ' %9s' "$cp"
		echo "$a $cp" >> "$work/scores"
	done
	echo
done
printf '%-10s' mean
for a in $algos; do
	awk -v a="$a" '$1 == a { s += $2; n++ } END { printf " %9.4f", s / n }' "$work/scores"
done
echo
