#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the GStreamer element tests of a build folder: the check tests, then
# gst-inspect-1.0 and gst-launch-1.0 on the plugin as a user runs them.
set -u
build=${1:-build}
status=0
plugin_dir="$build/gst"

if [ ! -e "$plugin_dir/libgstcisp.so" ]; then
	echo "*** SKIPPED: the GStreamer plugin is not built in $build (install the GStreamer development packages, or run make test) ***"
	exit 0
fi

# The element tests side by side (one thread each, mostly), each one's output printed whole.
. "$(dirname "$0")/../side_by_side.sh"
for t in "$build"/tests/gst/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	side_by_side "$t" "$t"
done
side_by_side_wait || status=1

# The command-line tools are not instrumented: a sanitizer build's plugin needs its runtime preloaded.
if nm -D "$plugin_dir/libgstcisp.so" 2>/dev/null | grep -q __asan_init; then
	rt=$(${CC:-clang} -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
	[ -f "$rt" ] || rt=$(gcc -print-file-name=libasan.so)
	export LD_PRELOAD="$rt"
	export ASAN_OPTIONS=detect_leaks=0 # the tools exit without freeing the registry
fi
GST_PLUGIN_PATH=$(cd "$plugin_dir" && pwd)
GST_REGISTRY=$(cd "$build/tests/gst" && pwd)/registry-tools.bin
export GST_PLUGIN_PATH GST_REGISTRY

pass=0
fail=0
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		status=1
		echo "FAIL: $name"
		echo "$out" | tail -n 20
	fi
}
contains() { # NAME NEEDLE COMMAND...: the command succeeds and prints NEEDLE
	name=$1
	needle=$2
	shift 2
	if out=$("$@" 2>&1) && printf '%s' "$out" | grep -q -- "$needle"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		status=1
		echo "FAIL: $name (expected '$needle')"
		echo "$out" | tail -n 20
	fi
}

echo "== gst-inspect-1.0 and gst-launch-1.0"
contains "gst-inspect-1.0 cispisp" "Develops raw Bayer video" gst-inspect-1.0 cispisp
contains "gst-inspect-1.0 cispisp caps" "rggb16le" gst-inspect-1.0 cispisp
contains "gst-inspect-1.0 cispsrc" "Frames from a cisp camera" gst-inspect-1.0 cispsrc
contains "gst-device-monitor-1.0 lists the cameras" "virtual:cisp-test" gst-device-monitor-1.0 Video/Source
check "cispsrc to EOS" gst-launch-1.0 -q cispsrc camera=virtual:cisp-test num-buffers=30 ! videoconvert ! fakesink
contains "an unknown camera is an error with its name" "virtual:nowhere" \
	sh -c 'gst-launch-1.0 cispsrc camera=virtual:nowhere ! fakesink; true'
check "test pattern through rgb2bayer and cispisp" gst-launch-1.0 -q videotestsrc num-buffers=30 ! \
	video/x-raw,width=320,height=240 ! rgb2bayer ! cispisp ! videoconvert ! fakesink
check "quality demosaic, scaled NV12" gst-launch-1.0 -q videotestsrc num-buffers=5 ! video/x-raw,width=320,height=240 ! \
	rgb2bayer ! cispisp demosaic=quality threads=2 ! video/x-raw,format=NV12,width=160,height=120 ! fakesink
contains "a bad params file is an error with its name" "params-file '/nonexistent.yaml'" \
	sh -c 'gst-launch-1.0 videotestsrc num-buffers=1 ! rgb2bayer ! cispisp params-file=/nonexistent.yaml ! fakesink; true'

# The README's pipelines, as pasted, in a scratch folder; a window becomes fakesink, an endless
# test source stops after 30 frames.
readme=$(cd "$(dirname "$0")/../.." && pwd)/README.md
scratch=$(mktemp -d)
sed -n '/^## GStreamer/,/^## /p' "$readme" | grep '^gst-launch-1.0 ' |
	sed -e 's/autovideosink/fakesink/' -e '/num-buffers/!s/videotestsrc /videotestsrc num-buffers=30 /' \
	> "$scratch/pipelines"
[ -s "$scratch/pipelines" ] || { echo "FAIL: no pipelines found in $readme"; fail=$((fail + 1)); status=1; }
while read -r line; do
	check "README: $line" sh -c "cd '$scratch' && $line"
done < "$scratch/pipelines"
for f in camera.webm out.webm capture.raw capture.y4m; do
	[ -s "$scratch/$f" ] || { echo "FAIL: the README's pipelines did not write $f"; fail=$((fail + 1)); status=1; }
done
rm -rf "$scratch"

echo "$pass passed, $fail failed"
exit $status
