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
# Debian 12's lavapipe (Mesa 22.3.6-1+deb12u2) keeps a 128-byte buffer in a global it never frees:
# once the Vulkan loader unloads the driver nothing points at it, and LeakSanitizer reports it in
# any program that creates and destroys a Vulkan instance. In an AddressSanitizer build the driver
# is preloaded, so it stays loaded and its buffer reachable; cisp's own leaks are still reported.
lavapipe=/usr/lib/$(gcc -print-multiarch 2>/dev/null)/libvulkan_lvp.so
if [ -f "$lavapipe" ] && grep -q '"name": "b_sanitize", "value": "[^"]*address' "$build/meson-info/intro-buildoptions.json" 2>/dev/null; then
	export LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$lavapipe"
fi

# Programs run side by side: first the unit tests, split into one process per CPU
# (CISP_TEST_JOBS overrides) as most of them use one thread, then the banded pass beside
# checkasm. Each program's output is printed whole when the group ends.
jobs=${CISP_TEST_JOBS:-$(nproc)}
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "CISP_TEST_JOBS=$jobs is not a count" >&2; exit 2; }
. "$(dirname "$0")/side_by_side.sh"

# Correctness tests run the reference executor unless told otherwise; the
# banded executor is checked against it (fastpath tests), and the pipeline, device
# and vendor tests run once more on it.
k=0
while [ $k -lt "$jobs" ]; do
	side_by_side "unit tests ($build/tests/cisp-test, part $((k + 1)) of $jobs)" \
		env CISP_TEST_SHARD=$k/$jobs CISP_EXEC="${CISP_EXEC-reference}" "$build/tests/cisp-test" ${CISP_TESTS:-}
	k=$((k + 1))
done
side_by_side_wait || status=1

if [ -z "${CISP_TESTS:-}" ]; then
	side_by_side "pipeline tests on the banded executor" env CISP_EXEC=banded "$build/tests/cisp-test" pipeline device_isp vendor
fi
# checkasm runs with the whole suite, or when CISP_TESTS names it.
case " ${CISP_TESTS:-checkasm} " in
*checkasm*) side_by_side "checkasm ($build/tests/checkasm)" "$build/tests/checkasm" ;;
esac
side_by_side_wait || status=1

# The GStreamer elements run with the whole suite, or when CISP_TESTS names gst.
case " ${CISP_TESTS:-gst} " in
*gst*) tests/gst/run.sh "$build" || status=1 ;;
esac

exit $status
