#!/bin/sh
# SPDX-License-Identifier: MIT
# Long fuzz runs (docs/fuzzing.md), one target at a time.
#
#   fuzz/long.sh [--build DIR] [--seconds N] [--runs N] TARGET...
#       For each TARGET in turn: libFuzzer until N runs (default 10 million)
#       or N seconds (default 3600), whichever comes first, on the build
#       fuzz/run.sh makes (run it once first), at nice 15, one process, with
#       a maximum input length that suits the target. New inputs go to
#       DIR/long/corpus-TARGET (kept between runs, never the committed
#       corpus), the log to DIR/long/TARGET.log, a failing input to
#       DIR/artifacts. Prints libFuzzer's final figures (runs, exec/s,
#       peak memory), the coverage it reached (edges and features), the
#       crashes (0, or 1 with the saved input: libFuzzer stops at the first),
#       the wall time and the CPU time.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build=build-fuzz
seconds=3600
runs=10000000

while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	-*) echo "fuzz/long.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "fuzz/long.sh: name the targets (params params_yaml stats raw_dump raw_file ...)" >&2; exit 2; }
case "$build" in /*) ;; *) build="$root/$build" ;; esac

# The timeout is wall-clock time: a process at nice 15 on a busy machine can
# wait seconds for a CPU, so 10 s (fuzz/run.sh) would report starvation as a
# hang; 60 s still catches a real one.

# Inputs a little beyond the largest meaningful one: a whole-state params
# buffer with vendor blocks, struct cisp_stats, an 80x80 16-bit dump and its
# 6-byte header, a small DNG, a tuning file, a sensor model file.
max_len() {
	case "$1" in
	params | params_yaml | sensor_model) echo 8192 ;;
	stats | tuning) echo 32768 ;;
	raw_dump) echo 13000 ;;
	raw_file) echo 16384 ;;
	*) echo 4096 ;;
	esac
}

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
for t in "$@"; do
	program="$build/fuzz/fuzz_$t"
	[ -x "$program" ] || { echo "fuzz/long.sh: no $program; run fuzz/run.sh --seconds 1 $t first" >&2; exit 2; }
	mkdir -p "$build/long/corpus-$t" "$build/long/run-$t" "$build/artifacts"
	dict=""
	[ -f "fuzz/$t.dict" ] && dict="-dict=$root/fuzz/$t.dict"
	echo "== fuzz_$t: $runs runs or ${seconds}s, max_len $(max_len "$t")"
	start=$(date +%s)
	touch "$build/long/$t.start"
	# -jobs=1 runs one worker that logs to fuzz-0.log in its working folder.
	# The subshell's `times` (not in a pipe: that would be another subshell)
	# gives the CPU time the fuzzer used: on a busy machine far less than the
	# wall time, and worth reporting with it.
	if ! (cd "$build/long/run-$t" && nice -n 15 "$program" -runs="$runs" -max_total_time="$seconds" \
		-max_len="$(max_len "$t")" -jobs=1 -workers=1 -timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" $dict \
		"$build/long/corpus-$t" "$root/fuzz/corpus/$t" >"$build/long/$t.log" 2>&1
		status=$?; times >"$build/long/$t.cpu"; exit $status); then
		status=1
		tail -n 60 "$build/long/run-$t/fuzz-0.log"
	fi
	log="$build/long/run-$t/fuzz-0.log"
	grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|^Done " "$log" || true
	grep -E "^#[0-9]+" "$log" | tail -n 1 | sed 's/^/last status: /'
	grep -E "^#[0-9]+" "$log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/coverage: \1 edges, \2 features/p'
	# A slow unit is saved but is no failure: at nice 15 on a loaded machine a
	# unit can wait seconds for a CPU. Rerun it alone to tell (printed apart).
	crashes=$(find "$build/artifacts" -name "$t-*" ! -name "$t-slow-unit-*" -newer "$build/long/$t.start" | sort)
	slow=$(find "$build/artifacts" -name "$t-slow-unit-*" -newer "$build/long/$t.start" | sort)
	echo "crashes: $(printf '%s' "$crashes" | grep -c .)${crashes:+ ($(echo $crashes))}"
	[ -z "$slow" ] || echo "slow units (rerun each alone to time it): $(echo $slow)"
	echo "corpus: $(ls "$build/long/corpus-$t" | wc -l) new inputs; wall time $(($(date +%s) - start)) s"
	sed -n '2s/^/cpu time (user, system): /p' "$build/long/$t.cpu" 2>/dev/null || true
done
exit $status
