#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# The camera path on vimc in the VM of tests/vm/run.sh (docs/camera.md):
# `cisp run` with one request in flight (capture and ISP one after the
# other) and with four (frame n + 1 taken while the ISP works on frame n),
# alternating 1 4 4 1. Prints the latency from sensor readout start to the
# frame (p50, p99) and the CPU per frame, and their ratios: figures, not
# checks, since qemu's software emulation on a shared host sets the pace.
# Checked: every raw frame reaches the ISP without a copy (vimc's buffers
# are imported). Prints "@@ ..." lines; exit status 0 when the checks passed.
RC=0
FRAMES=10
: > /tmp/camera_figures.txt
for n in 1 4 4 1; do
	if ! cisp run --camera v4l2:/dev/video0 --mode "SGRBG8 640x480" --frames $FRAMES --start auto --quiet \
		--requests $n --option "pattern=100% Red" --option control.show_information=None > /tmp/camera.txt 2>&1; then
		cat /tmp/camera.txt
		echo "@@ FAIL camera: cisp run --requests $n"
		RC=1
		continue
	fi
	# "  latency, ...: p50 X ms, p99 Y ms" and "  CPU Z ms a frame (all threads), D frames dropped ..., C of N raw frames copied ..."
	awk -v n=$n '
		/^  latency,/ { for (i = 1; i < NF; i++) { if ($i == "p50") p50 = $(i + 1); if ($i == "p99") p99 = $(i + 1) } }
		/^  CPU / { cpu = $2; dropped = $8; copied = $14 }
		END { print n, (p50 == "" ? -1 : p50), (p99 == "" ? -1 : p99), cpu, dropped, copied }' /tmp/camera.txt >> /tmp/camera_figures.txt
	tail -n 1 /tmp/camera_figures.txt | awk '{ printf "@@ camera requests=%d: latency p50 %s ms, p99 %s ms, CPU %s ms a frame, %s frames dropped, %s of '$FRAMES' raw frames copied\n", $1, $2, $3, $4, $5, $6 }'
done
awk '
	$6 != 0 { copied = 1 }
	$2 < 0 { unmeasured = 1 }
	{ k = ($1 == 1) ? "one" : "four"; p50[k] += $2; p99[k] += $3; cpu[k] += $4; runs[k]++ }
	END {
		if (runs["one"] && runs["four"] && !unmeasured)
			printf "@@ figure camera on vimc, overlap (4 requests) / none (1), means of 2 runs each: latency p50 %.2f, p99 %.2f, CPU a frame %.2f\n",
				(p50["four"] / runs["four"]) / (p50["one"] / runs["one"]), (p99["four"] / runs["four"]) / (p99["one"] / runs["one"]),
				(cpu["four"] / runs["four"]) / (cpu["one"] / runs["one"])
		exit copied
	}' /tmp/camera_figures.txt || { echo "@@ FAIL camera: raw frames were copied, not imported"; RC=1; }
exit $RC
