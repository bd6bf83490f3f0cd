#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every test program of a build folder; exit non-zero if any fails.
# CISP_TESTS: test name substrings to run only those (as the runner's arguments).
set -u
build=${1:-build}
status=0

# The build's programs find this checkout's data and vendor helper, not an installed
# one's: the CISP_* variables of `meson devenv`.
eval "$(meson devenv -C "$build" --dump | grep -E '^(export )?CISP_')"

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# Correctness tests run the reference executor unless told otherwise; the
# banded executor is checked against it (fastpath tests), and the pipeline, device
# and vendor tests run once more on it below.
# The unit tests in one process per CPU (CISP_TEST_JOBS overrides): most of them use one
# thread. Each process's output is printed whole when it ends.
jobs=${CISP_TEST_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "CISP_TEST_JOBS=$jobs is not a count" >&2; exit 2; }
logs=$(mktemp -d)
echo "== unit tests ($build/tests/cisp-test, $jobs at once)"
k=0
pids=""
while [ $k -lt "$jobs" ]; do
	CISP_TEST_SHARD=$k/$jobs CISP_EXEC=${CISP_EXEC-reference} "$build/tests/cisp-test" ${CISP_TESTS:-} \
		>"$logs/$k.log" 2>&1 &
	pids="$pids $!"
	k=$((k + 1))
done
for pid in $pids; do
	wait "$pid" || status=1
done
cat "$logs"/*.log
rm -rf "$logs"

if [ -z "${CISP_TESTS:-}" ]; then
	echo "== pipeline tests on the banded executor"
	CISP_EXEC=banded "$build/tests/cisp-test" pipeline device_isp vendor || status=1
fi

# checkasm runs with the whole suite, or when CISP_TESTS names it.
case " ${CISP_TESTS:-checkasm} " in
*checkasm*)
	echo "== checkasm ($build/tests/checkasm)"
	"$build/tests/checkasm" || status=1
	;;
esac

# The GStreamer elements run with the whole suite, or when CISP_TESTS names gst.
case " ${CISP_TESTS:-gst} " in
*gst*) tests/gst/run.sh "$build" || status=1 ;;
esac

exit $status
