#!/bin/sh
# SPDX-License-Identifier: MIT
# The webcam path's speed and latency (docs/webcam.md "Measurements"): the
# video-conferencing profile's camera (virtual:cisp-8m10, its tuning and 3A,
# the binned mode to 1280x720 YUYV at 30 fps, 50 lux) without a device.
#
#   bench/webcam_bench.sh [BASELINE_CISP]
#
# 1. Throughput: the sensor not in real time (each frame rendered when asked),
#    so the path runs as fast as the machine lets it: frames a second and CPU
#    a frame, the start (the scene's first render, the AF's first scan)
#    included. With BASELINE_CISP (another build's cisp, e.g. of main) the two
#    run A B B A and the ratio of their CPU a frame is printed. A run that
#    lost the camera (black frames: a first frame slower than 5 s) says so.
# 2. Real time: the sensor at 30 fps on CLOCK_MONOTONIC as `cisp webcam` runs
#    it: frames delivered a second, frames left out, latency p50/p99.
# CISP_BUILD: the build folder (default build/ beside this script); FRAMES
# (default 90); WEBCAM_ARGS: more `cisp webcam` options for every run, e.g.
# "--option shake=6 --eis" for the conformance run's EIS pass. The CPU model and the load average are printed with the
# figures, which are wall-clock and depend on what else the machine runs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CISP_BUILD:-$root/build}
frames=${FRAMES:-90}
cisp=$build/tools/cisp
base=${1:-}
eval "$(meson devenv -C "$build" --dump | grep -E '^(export )?CISP_')"
args="webcam --camera virtual:cisp-8m10 --device none --size 1280x720 --fps 30 --quiet --option lux=50 ${WEBCAM_ARGS:-}"

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# CPU ms a frame and frames a second of one throughput run of cisp binary $1.
throughput() {
	"$1" $args --frames "$frames" --option realtime=0 | awk '
		/ frames in / { fps = $6; black = $(NF - 1) }
		/^CPU / { cpu = $2 }
		END { printf "%s %s%s\n", cpu, fps, (black > 0 ? " (camera lost: " black " black frames)" : "") }'
}

if [ -n "$base" ]; then
	a1=$(throughput "$cisp"); b1=$(throughput "$base"); b2=$(throughput "$base"); a2=$(throughput "$cisp")
	echo "throughput (not real time, $frames frames), CPU ms a frame and frames/s:"
	echo "  this build: $a1 | $a2"
	echo "  baseline:   $b1 | $b2"
	echo "${a1%% *} ${a2%% *} ${b1%% *} ${b2%% *}" |
		awk '{ printf "  CPU a frame, this build / baseline: %.3f\n", ($1 + $2) / ($3 + $4) }'
else
	a1=$(throughput "$cisp")
	echo "throughput (not real time, $frames frames), CPU ms a frame and frames/s: $a1"
fi

echo "real time, $frames frames:"
"$cisp" $args --frames "$frames" | sed 's/^/  /'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
