#!/bin/sh
# SPDX-License-Identifier: MIT
# Fuzz the decoders with libFuzzer (docs/fuzzing.md).
#
#   fuzz/run.sh [--seconds N] [--build DIR] [TARGET...]
#       Build the targets with clang, libFuzzer, AddressSanitizer and
#       UndefinedBehaviorSanitizer into DIR (default build-fuzz), then fuzz
#       each TARGET (default: all) for N seconds (default 10) from its
#       committed seed corpus. New inputs go to a scratch folder, never into
#       the committed corpus. Any crash, leak, sanitizer report or broken
#       property stops the run with the failing input saved in DIR/artifacts.
#
#   fuzz/run.sh --replay BUILD
#       Run every committed corpus once through the targets of an ordinary
#       build (no libFuzzer needed): the corpora as regression tests.
#
# Long runs (10 million executions or an hour per target): fuzz/long.sh, on
# the build this script makes.
set -eu
cd "$(dirname "$0")/.."

targets_all="params params_yaml stats raw_dump raw_file tuning camera_config raster sensor_model"
seconds=10
build=build-fuzz
replay=""

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--replay) replay=$2; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
targets=${*:-$targets_all}

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

if [ -n "$replay" ]; then
	for t in $targets; do
		"$replay/fuzz/fuzz_$t" "fuzz/corpus/$t"
	done
	exit 0
fi

if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
# A build configured without the flag makes replay programs (fuzz/meson.build), not fuzzers.
if ! grep -q -- '-fsanitize=fuzzer-no-link' "$build/meson-info/intro-buildoptions.json"; then
	echo "fuzz/run.sh: $build was not configured with -Dc_args=-fsanitize=fuzzer-no-link;" \
		"fuzz from a build this script makes (leave out --build) or configure one with it" >&2
	exit 2
fi
programs=""
for t in $targets; do
	programs="$programs fuzz/fuzz_$t"
done
# Only the library and the targets: the fuzz build needs nothing else.
ninja -C "$build" $programs

mkdir -p "$build/artifacts"
status=0
for t in $targets; do
	work=$(mktemp -d)
	dict=""
	[ -f "fuzz/$t.dict" ] && dict="-dict=fuzz/$t.dict"
	echo "== fuzz_$t for ${seconds}s"
	if ! "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
		-artifact_prefix="$build/artifacts/$t-" $dict "$work" "fuzz/corpus/$t" 2>"$build/fuzz_$t.log"; then
		status=1
		tail -n 60 "$build/fuzz_$t.log"
	else
		grep -E "stat::number_of_executed_units|stat::peak_rss_mb|INFO: Done" "$build/fuzz_$t.log" || true
	fi
	rm -rf "$work"
done
exit $status
