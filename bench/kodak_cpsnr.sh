#!/bin/sh
# SPDX-License-Identifier: MIT
# Demosaic quality on the Kodak suite, or any folder of 8-bit RGB PNGs: each
# image is mosaicked as RGGB 16-bit (v16 = v8 * 257), demosaicked with
# `cisp demosaic --algo A`, and compared with the original on an 8-bit scale,
# 10-pixel border excluded: CPSNR = 10 log10(255^2 / MSE over R, G, B).
# Prints the per-image CPSNR and the mean of the per-image dB values for every
# algorithm this build has, then the worst per-image difference of quality
# against fast.
#
#   bench/kodak_cpsnr.sh [-k DIR] [-B BUILD_DIR] [-t THREADS] [-c LABEL=COMMAND]...
#
# DIR defaults to ../shared/data/kodak beside the source tree (every *.png in
# it is measured), BUILD_DIR to build/ (it needs tools/cisp, bench/mosaic and
# bench/cpsnr). -c adds a column: COMMAND is run as `COMMAND IN.pgm OUT.ppm`
# (the convention of ../shared/tools/peers, e.g. -c ea=/tmp/peers/bin/opencv-ea,
# or another build: -c old="/tmp/old/tools/cisp demosaic --algo quality").
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kodak=$root/../shared/data/kodak
build=$root/build
threads=1
extra=""
while getopts k:B:t:c: o; do
	case $o in
	k) kodak=$OPTARG ;;
	B) build=$OPTARG ;;
	t) threads=$OPTARG ;;
	c) extra="$extra$OPTARG
" ;;
	*) echo "usage: $0 [-k DIR] [-B BUILD_DIR] [-t THREADS] [-c LABEL=COMMAND]..." >&2; exit 2 ;;
	esac
done

set -- "$kodak"/*.png
if [ ! -f "$1" ]; then
	echo "########################################################################" >&2
	echo "## kodak_cpsnr.sh: NO PNG IMAGES in $kodak" >&2
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
labels="$algos $(printf '%s' "$extra" | sed 's/=.*//' | tr '\n' ' ')"

echo "# $(basename "$kodak") CPSNR (dB), RGGB 16-bit mosaic, border 10, $threads thread(s)"
printf '%-14s' image
for a in $labels; do printf ' %9s' "$a"; done
echo
for img in "$@"; do
	name=$(basename "$img" .png)
	"$build/bench/mosaic" "$img" "$work/m.pgm"
	printf '%-14s' "$name"
	for a in $labels; do
		rm -f "$work/out.ppm" # cisp never replaces a file without --force
		case " $algos " in
		*" $a "*) "$build/tools/cisp" demosaic --algo "$a" --threads "$threads" "$work/m.pgm" "$work/out.ppm" ;;
		*) cmd=$(printf '%s' "$extra" | sed -n "s/^$a=//p")
		   # shellcheck disable=SC2086 # the command's own words
		   $cmd "$work/m.pgm" "$work/out.ppm" > /dev/null ;;
		esac
		# "CPSNR 38.1234 dB  R ..."
		cp=$("$build/bench/cpsnr" "$img" "$work/out.ppm" | awk '{ print $2 }')
		printf ' %9s' "$cp"
		echo "$a $name $cp" >> "$work/scores"
	done
	echo
done
printf '%-14s' mean
for a in $labels; do
	awk -v a="$a" '$1 == a { s += $3; n++ } END { printf " %9.4f", s / n }' "$work/scores"
done
echo
case " $algos " in
*" quality "*)
	awk '$1 == "fast" { f[$2] = $3 } $1 == "quality" { q[$2] = $3 }
		END { for (i in q) { d = q[i] - f[i]; if (w == "" || d < m) { m = d; w = i }; if (d < -0.1) n++ }
		      printf "# quality - fast: worst %+.4f dB (%s), %d image(s) more than 0.1 dB below fast\n", m, w, n }' \
		"$work/scores" ;;
esac
