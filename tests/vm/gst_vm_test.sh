#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# cispsrc on the virtual canonical ISP in the VM of tests/vm/run.sh, which
# runs it while cisp_isp.ko is loaded (docs/gstreamer.md, docs/kernel-uapi.md).
# For each camera (the virtual test sensor, then vimc's raw sensor) the same
# gst-launch-1.0 pipeline runs twice: on the CPU backend, and with
# CISP_ISP=/dev/cisp-isp, each with cisp-isp-counters.so preloaded
# (tests/vm/isp_counters.c), which prints the module's counters of every
# context the process made on /dev/cisp-isp. Asserts the frames' bytes
# (filesink's file: N frames of the negotiated size, the same on both
# backends) and the jobs (on the kernel: at least one per frame submitted,
# all completed, none failed, timed out or skipped; on the CPU: no context).
# Prints "@@ ..." lines; exit status 0 when all passed.
RC=0
fail() { echo "@@ FAIL cispsrc: $*"; RC=1; }
now() { cut -d' ' -f1 /proc/uptime; }
T0=$(now)
# GStreamer's own files are in /lib/gstreamer-1.0 (tests/vm/gst_vm_host.sh); the registry is
# built in-process, as the guest has no gst-plugin-scanner.
export GST_PLUGIN_SYSTEM_PATH_1_0=/lib/gstreamer-1.0 GST_PLUGIN_PATH_1_0= GST_REGISTRY_FORK=no \
	GST_REGISTRY_1_0=/tmp/gst-registry.bin
export CISP_SENSOR_PATH=/data/sensors CISP_TUNING_PATH=/data/tuning

# run NAME FRAMES WIDTH HEIGHT CISPSRC-PROPERTIES...: both backends, compared.
run() {
	name=$1 frames=$2 width=$3 height=$4
	shift 4
	size=$((frames * width * height * 3 / 2))
	for isp in cpu kernel; do
		rm -f /tmp/gst-$name-$isp.nv12
		if [ $isp = kernel ]; then
			export CISP_ISP=/dev/cisp-isp
		else
			unset CISP_ISP
		fi
		t0=$(now)
		LD_PRELOAD=/lib/cisp-isp-counters.so gst-launch-1.0 -q cispsrc "$@" num-buffers=$frames ! \
			video/x-raw,format=NV12,width=$width,height=$height ! \
			filesink location=/tmp/gst-$name-$isp.nv12 > /tmp/gst-$name-$isp.log 2>&1
		status=$?
		[ $status = 0 ] || { cat /tmp/gst-$name-$isp.log; fail "$name on the $isp backend: exit status $status"; }
		t=$(echo "$(now) $t0" | awk '{printf "%.1f", $1 - $2}')
		bytes=$(wc -c < /tmp/gst-$name-$isp.nv12 2>/dev/null || echo 0)
		# The module's counters, summed over the contexts the process made.
		eval "$(awk '$1 == "cisp-isp" && $2 == "context" { n++; s += $5; c += $7; f += $9 + $11 + $13 }
			END { printf "contexts=%d submitted=%d completed=%d failed=%d\n", n, s, c, f }' /tmp/gst-$name-$isp.log)"
		echo "@@ cispsrc $name, $isp backend: $bytes bytes in $t s; the module's counters: $contexts context(s)," \
			"$submitted jobs submitted, $completed completed, $failed failed, timed out or skipped"
		[ "$bytes" = $size ] || fail "$name on the $isp backend: $bytes bytes, not $size ($frames frames of ${width}x$height NV12)"
		if [ $isp = kernel ]; then
			[ $submitted -ge $frames ] && [ $completed = $submitted ] && [ $failed = 0 ] ||
				fail "$name: $submitted jobs submitted to /dev/cisp-isp, $completed completed, $failed failed, for $frames frames"
		else
			[ $contexts = 0 ] || fail "$name: $contexts contexts on /dev/cisp-isp without CISP_ISP"
		fi
	done
	unset CISP_ISP
	if cmp /tmp/gst-$name-cpu.nv12 /tmp/gst-$name-kernel.nv12; then
		echo "@@ cispsrc $name: the same $frames frames on both backends"
	else
		fail "$name: the frames differ between the CPU and the kernel backends"
	fi
	rm -f /tmp/gst-$name-*.nv12
}

echo "@@ cispsrc on /dev/cisp-isp at $T0 s"
# The virtual sensor unpaced (realtime=0): every frame it renders reaches the ISP on both backends.
run virtual 4 320 240 camera=virtual:cisp-test sensor-options=realtime=0
run vimc 3 640 480 camera=v4l2:/dev/video0 "sensor-options=pattern=75% Colorbar,control.show_information=None"
echo "@@ cispsrc checks took $(echo "$(now) $T0" | awk '{printf "%.1f", $1 - $2}') s"
exit $RC
