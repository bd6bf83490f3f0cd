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
# Beside the fps, the CPU time a frame (user and system time of all the
# process's threads, less that of a run of 10 frames, which holds the
# start-up: loading the plugins, negotiating, the first frames) and its ratio
# to bayer2rgb's: how much work a frame is, whatever the thread count (on a
# shared virtual machine the load moves it too).
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
	*) sed -n '2,19p' "$0"; exit 2 ;;
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
# The looped frame, @1 buffers of it.
src() { echo "multifilesrc location=$frame loop=true num-buffers=$1 ! video/x-bayer,format=rggb,width=$w,height=$h,framerate=60/1"; }

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

# A run of @2 frames through elements @1: seconds from PLAYING to EOS, as
# gst-launch-1.0 reports them, then the CPU seconds of the run (user and
# system; run in a subshell, whose children it counts alone: `times` writes to
# a file, since in a pipe it would run in a subshell of its own).
run_one() {
	# shellcheck disable=SC2086 # the description is split into gst-launch arguments on purpose
	# shellcheck disable=SC2046 # so is the source's
	gst-launch-1.0 $(src "$2") ! $1 ! fakesink sync=false 2>&1 |
		sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' > "$tmp/wall"
	times > "$tmp/times"
	[ -s "$tmp/wall" ] || return 0
	sed -n '2s/m/ /g; 2s/s//gp' "$tmp/times" | awk -v w="$(cat "$tmp/wall")" '
		{ split(w, t, " "); printf "%.6f %.3f\n", t[1] * 3600 + t[2] * 60 + t[3], $1 * 60 + $2 + $3 * 60 + $4 }'
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "gst_bench: ${w}x${h} RGGB 8-bit, $frames frames a run, $runs runs, cispisp threads=$threads"
# The family, model and stepping too: virtual machines often name only the vendor ("AMD EPYC").
cpuinfo() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -n 1; }
echo "gst_bench: cpu model: $(cpuinfo 'model name'), family $(cpuinfo 'cpu family') model $(cpuinfo model) stepping $(cpuinfo stepping), $(nproc) CPUs, load before: $(loadavg)"
# The file of a configuration's runs, by its label: a line "wall CPU" (seconds) a run.
runs_file() { echo "$tmp/$(echo "$1" | cksum | cut -d' ' -f1)"; }
start=10 # frames of the start-up runs
echo "$configs" | while IFS='|' read -r label elements; do
	: > "$(runs_file "$label")"
	# The start-up's CPU seconds: the lesser of two short runs (each in a subshell of its own).
	first=$(run_one "$elements" "$start")
	second=$(run_one "$elements" "$start")
	printf '%s\n%s\n' "$first" "$second" | sort -g -k 2 | sed -n '1s/.* //p' > "$(runs_file "$label").start"
done
i=0
while [ "$i" -lt "$runs" ]; do
	# Odd runs take the configurations backwards.
	if [ $((i % 2)) = 0 ]; then echo "$configs"; else echo "$configs" | sed -n '1!G;h;$p'; fi |
	while IFS='|' read -r label elements; do
		t=$(run_one "$elements" "$frames")
		[ -n "$t" ] || { echo "error: '$label' did not run: gst-launch-1.0 $(src "$frames") ! $elements ! fakesink" >&2; exit 1; }
		echo "$t" >> "$(runs_file "$label")"
	done
	i=$((i + 1))
done
# The median of column @2 of a configuration's runs (1: wall-clock seconds, 2: CPU seconds).
median() { sort -g -k "$2" "$(runs_file "$1")" | awk -v k="$2" '{ t[NR] = $k } END { print t[int((NR + 1) / 2)] }'; }
# A configuration's CPU seconds a frame beyond the start-up (empty when the runs are too short to say).
cpu_frame() {
	awk -v c="$(median "$1" 2)" -v s="$(cat "$(runs_file "$1").start")" -v n="$frames" -v n0="$start" \
		'BEGIN { if (n > n0 && s != "" && c > s) printf "%.6f\n", (c - s) / (n - n0) }'
}
b=$(median bayer2rgb 1)
b_cpu=$(cpu_frame bayer2rgb)
echo "$configs" | while IFS='|' read -r label elements; do
	sort -g "$(runs_file "$label")" |
		awk -v n="$frames" -v label="$label" -v w="$w" -v h="$h" -v b="$b" -v c="$(cpu_frame "$label")" -v bc="$b_cpu" '
		{ t[NR] = $1 }
		END {
			med = t[int((NR + 1) / 2)]
			printf "%-52s %8.1f fps  %6.3fx bayer2rgb  (%.1f..%.1f fps)  %7.1f MPix/s", label, n / med, b / med,
			       n / t[NR], n / t[1], n * w * h / med / 1e6
			if (c != "" && bc != "")
				printf "  %6.2f ms CPU a frame  %6.3fx bayer2rgb", c * 1000, bc / c
			printf "\n"
		}'
done
echo "gst_bench: load after: $(loadavg)"
