#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# `cisp run` on vimc in the VM of tests/vm/run.sh (docs/camera.md): the ISP
# and the control loop on a V4L2 sensor with one request in flight (capture
# and ISP one after the other) and with four (frame n + 1 taken while the
# ISP works on frame n), alternating 1 4 4 1 so that neither gains from
# going first. Checked: every run succeeds, and every raw frame reaches the
# ISP without a copy (vimc's buffers are imported). Printed, not checked
# (qemu's software emulation on a shared host sets the pace): latency from
# sensor readout start to the frame (p50, p99), CPU per frame, and the
# ratios of their means. Prints "@@ ..." lines; exit status 0 when the
# checks passed.
RC=0
FRAMES=6
: > /tmp/camera_figures.txt
for n in 1 4 4 1; do
	echo "@@ cisp run --camera v4l2:/dev/video0 --requests $n"
	cisp run --camera v4l2:/dev/video0 --mode "SGRBG8 640x480" --frames $FRAMES --start auto --quiet \
		--requests $n --option "pattern=100% Red" --option control.show_information=None > /tmp/camera.txt 2>&1
	CRC=$?
	cat /tmp/camera.txt
	if [ $CRC != 0 ]; then
		echo "@@ FAIL cisp run: exit status $CRC"
		RC=1
		continue
	fi
	echo "@@ cisp run ok"
	# "  latency, ...: p50 X ms, p99 Y ms" and "  CPU Z ms a frame (all threads), D frames dropped ..., C of N raw frames copied ..."
	awk -v n=$n '
		/^  latency,/ { for (i = 1; i < NF; i++) { if ($i == "p50") p50 = $(i + 1); if ($i == "p99") p99 = $(i + 1) } }
		/^  CPU / { cpu = $2; copied = $14 }
		END { print n, (p50 == "" ? -1 : p50), (p99 == "" ? -1 : p99), cpu, copied }' /tmp/camera.txt >> /tmp/camera_figures.txt
done
awk -v frames=$FRAMES '
	$2 < 0 { unmeasured = 1 }
	{ p50[$1] += $2 / 2; p99[$1] += $3 / 2; cpu[$1] += $4 / 2; runs[$1]++; if ($5 != 0) copied = 1 }
	END {
		if (runs[1] == 2 && runs[4] == 2 && !unmeasured)
			printf "@@ figure camera on vimc, %d frames a run, overlap (4 requests) / none (1), means of 2 runs: latency p50 %.0f / %.0f ms = %.2f, p99 %.0f / %.0f ms = %.2f, CPU a frame %.0f / %.0f ms = %.2f\n",
				frames, p50[4], p50[1], p50[4] / p50[1], p99[4], p99[1], p99[4] / p99[1], cpu[4], cpu[1], cpu[4] / cpu[1]
		exit copied
	}' /tmp/camera_figures.txt || { echo "@@ FAIL camera: raw frames were copied, not imported"; RC=1; }
exit $RC
