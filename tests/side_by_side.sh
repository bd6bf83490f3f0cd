# SPDX-License-Identifier: MIT
# Programs run side by side, each one's output kept and printed whole when the group ends, in
# the order started. Sourced by tests/run-all.sh, tests/gst/run.sh and .ci/run.
#   side_by_side LABEL COMMAND...  start COMMAND in the background
#   side_by_side_wait              wait for all of them, print their output; fails if any did
side_by_side_logs=""
side_by_side_pids=""
side_by_side_count=0

side_by_side() {
	[ -n "$side_by_side_logs" ] || side_by_side_logs=$(mktemp -d)
	side_by_side_label=$1
	shift
	side_by_side_count=$((side_by_side_count + 1))
	side_by_side_log=$side_by_side_logs/$(printf %03d $side_by_side_count).log
	{ echo "== $side_by_side_label"; "$@"; } >"$side_by_side_log" 2>&1 &
	side_by_side_pids="$side_by_side_pids $!"
}

side_by_side_wait() {
	side_by_side_failed=0
	for side_by_side_pid in $side_by_side_pids; do
		wait "$side_by_side_pid" || side_by_side_failed=1
	done
	side_by_side_pids=""
	if [ -n "$side_by_side_logs" ]; then
		cat "$side_by_side_logs"/*.log 2>/dev/null
		rm -rf "$side_by_side_logs"
		side_by_side_logs=""
	fi
	return $side_by_side_failed
}
