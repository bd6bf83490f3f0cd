#!/bin/sh
# SPDX-License-Identifier: MIT
# Frames per second of cispisp against plugins-bad's bayer2rgb, measured in
# the same run: one 8-bit RGGB frame made from a Kodak image by rgb2bayer,
# looped by multifilesrc into each element, then fakesink sync=false.
#
#   bench/gst_bench.sh [-a] [-b BUILD] [-n FRAMES] [-r RUNS] [-s WxH] [-t THREADS]
#
# Prints the CPU model and the load before and after, then per configuration
# the median fps of RUNS interleaved runs (and their range) with its ratio to
# bayer2rgb's median beside it. The runs go through the configurations in
# turn, forwards then backwards (A B B A), so a drift of the machine's load
# touches them alike. "source only" is the loop alone.
# -a adds the slower configurations (denoise, quality demosaic).
set -eu
build=build
frames=300
runs=3
size=1920x1080
threads=2
all=0
while getopts ab:n:r:s:t: opt; do
	case $opt in
	a) all=1 ;;
	b) build=$OPTARG ;;
	n) frames=$OPTARG ;;
	r) runs=$OPTARG ;;
	s) size=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) sed -n '2,14p' "$0"; exit 2 ;;
	esac
done
w=${size%x*}
h=${size#*x}
root=$(cd "$(dirname "$0")/.." && pwd)
image="$root/../shared/data/kodak/kodim23.png"
[ -f "$image" ] || { echo "error: $image is absent (the shared data set)" >&2; exit 1; }
[ -e "$build/gst/libgstcisp.so" ] || { echo "error: no plugin in $build/gst (build first)" >&2; exit 1; }
export GST_PLUGIN_PATH="$build/gst"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
frame="$tmp/frame.rggb"

gst-launch-1.0 -q filesrc location="$image" ! pngdec ! videoconvert ! videoscale ! \
	video/x-raw,format=ARGB,width="$w",height="$h" ! rgb2bayer ! video/x-bayer,format=rggb ! \
	filesink location="$frame"
src="multifilesrc location=$frame loop=true num-buffers=$frames ! video/x-bayer,format=rggb,width=$w,height=$h,framerate=60/1"

# The defaults leave out lens shading and Bayer denoise (a Bayer stream says nothing of its lens or
# noise); this adds both, with a mild lens falloff and a noise profile of a small sensor at low gain.
full="{noise: {a: [4.0, 4.0, 4.0, 4.0], b: [64, 64, 64, 64]}, bnr: {enable: true, strength: 1.0}, lsc: {enable: true, grid_w: 3, grid_h: 3, r: [[1.5, 1.25, 1.5], [1.25, 1.0, 1.25], [1.5, 1.25, 1.5]], gr: [[1.5, 1.25, 1.5], [1.25, 1.0, 1.25], [1.5, 1.25, 1.5]], gb: [[1.5, 1.25, 1.5], [1.25, 1.0, 1.25], [1.5, 1.25, 1.5]], b: [[1.5, 1.25, 1.5], [1.25, 1.0, 1.25], [1.5, 1.25, 1.5]]}}"

# LABEL|ELEMENTS between the source and fakesink
configs="source only|identity
bayer2rgb|bayer2rgb
cispisp RGB (defaults, fast demosaic)|cispisp threads=$threads ! video/x-raw,format=RGB
cispisp BGRx (defaults, fast demosaic)|cispisp threads=$threads ! video/x-raw,format=BGRx
cispisp NV12 (defaults, fast demosaic)|cispisp threads=$threads ! video/x-raw,format=NV12
cispisp NV12 (every canonical stage, + LSC and BNR)|cispisp threads=$threads params=\"$full\" ! video/x-raw,format=NV12
cispisp RGB, no AWB/AE/DPC/sharpening|cispisp threads=$threads awb=false ae=false defect-threshold=0 sharpen=0 ! video/x-raw,format=RGB"
[ "$all" = 0 ] || configs="$configs
cispisp NV12 + Bayer and chroma denoise|cispisp threads=$threads params=\"{bnr: {enable: true, strength: 1.0}, cnr: {enable: true, strength: 1.0, luma_strength: 2.0, radius: 4}}\" ! video/x-raw,format=NV12
cispisp NV12, quality demosaic|cispisp threads=$threads demosaic=quality ! video/x-raw,format=NV12"

# Seconds from PLAYING to EOS, as gst-launch-1.0 reports them.
run_one() {
	# shellcheck disable=SC2086 # the description is split into gst-launch arguments on purpose
	gst-launch-1.0 $src ! $1 ! fakesink sync=false 2>&1 |
		sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' |
		awk '{ printf "%.6f\n", $1 * 3600 + $2 * 60 + $3 }'
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "gst_bench: ${w}x${h} RGGB 8-bit, $frames frames a run, $runs runs, cispisp threads=$threads"
echo "gst_bench: cpu model: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, load before: $(loadavg)"
echo "$configs" | while IFS='|' read -r label elements; do : > "$tmp/$(echo "$label" | cksum | cut -d' ' -f1)"; done
i=0
while [ "$i" -lt "$runs" ]; do
	# Odd runs take the configurations backwards.
	if [ $((i % 2)) = 0 ]; then echo "$configs"; else echo "$configs" | sed -n '1!G;h;$p'; fi |
	while IFS='|' read -r label elements; do
		t=$(run_one "$elements")
		[ -n "$t" ] || { echo "error: '$label' did not run: gst-launch-1.0 $src ! $elements ! fakesink" >&2; exit 1; }
		echo "$t" >> "$tmp/$(echo "$label" | cksum | cut -d' ' -f1)"
	done
	i=$((i + 1))
done
# The median of a configuration's run times (seconds).
median() { sort -g "$tmp/$(echo "$1" | cksum | cut -d' ' -f1)" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
b=$(median bayer2rgb)
echo "$configs" | while IFS='|' read -r label elements; do
	f="$tmp/$(echo "$label" | cksum | cut -d' ' -f1)"
	sort -g "$f" | awk -v n="$frames" -v label="$label" -v w="$w" -v h="$h" -v b="$b" '
		{ t[NR] = $1 }
		END {
			med = t[int((NR + 1) / 2)]
			printf "%-52s %8.1f fps  %6.3fx bayer2rgb  (%.1f..%.1f fps)  %7.1f MPix/s\n", label, n / med, b / med,
			       n / t[NR], n / t[1], n * w * h / med / 1e6
		}'
done
echo "gst_bench: load after: $(loadavg)"
