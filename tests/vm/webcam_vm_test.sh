#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# The webcam path in the VM of tests/vm/run.sh (docs/webcam.md): vimc's raw
# sensor -> cisp webcam -> v4l2loopback -> cisp-webcam-reader, a plain V4L2
# capture client as applications are. Checks the colour bars of vimc's test
# pattern and the rate, a reader closing and opening again, the sensor
# unbound (black frames, the device stays valid) and bound again, and a clean
# stop on SIGTERM. Prints "@@ ..." lines; exit status 0 when all passed.
RC=0
fail() { echo "@@ FAIL webcam: $*"; RC=1; }
now() { cut -d' ' -f1 /proc/uptime; }
T0=$(now)
echo "@@ webcam: v4l2loopback -> cisp webcam at $T0 s"
insmod /lib/modules/v4l2loopback.ko exclusive_caps=1 card_label=cisp-webcam || { fail "insmod v4l2loopback"; exit 1; }
VIMC=$(basename "$(ls -d /sys/bus/platform/drivers/vimc/vimc* 2>/dev/null | head -n 1)")
# Rates: black frames cost nothing, so they show the pacing (at least a third of the rate, never more);
# the ISP and 3A under qemu's software emulation on a shared host run at one or two frames a
# second, so for camera frames only "they flow, never faster than asked" is asserted.
FPS=15
cisp webcam --camera "v4l2:Raw Capture 0" --size 640x480 --fps $FPS --quiet \
	--option "pattern=75% Colorbar" --option control.show_information=None > /tmp/webcam.log 2>&1 &
PID=$!
# Readers open the device once the writer feeds it (until then it is an output only).
wait_log() {
	for i in $(seq 1 "$2"); do grep -q "$1" /tmp/webcam.log && return 0; sleep 1; done
	return 1
}
wait_log "^feeding" 60 || fail "cisp webcam did not start feeding"
sleep 2
cisp-webcam-reader cisp-webcam 20 $FPS 0.1 bars || fail "first reader"
# A second writer is refused while the first feeds the device (exclusive_caps=1: it offers no output then).
DEV=
for v in /sys/class/video4linux/video*; do [ "$(cat $v/name)" = cisp-webcam ] && DEV=/dev/$(basename $v); done
cisp webcam --camera "v4l2:Raw Capture 1" --device "$DEV" --format nv12 --size 320x240 --frames 1 > /tmp/second.log 2>&1
SRC=$?
if grep -q "another writer feeds this v4l2loopback device" /tmp/second.log && [ $SRC = 1 ]; then
	echo "@@ webcam: a second writer is refused: $(cat /tmp/second.log)"
else
	cat /tmp/second.log
	fail "a second writer with another format (exit status $SRC)"
fi
# A consumer that closes and opens again is still fed.
cisp-webcam-reader cisp-webcam 5 $FPS 0.1 bars || fail "second reader"
# The sensor disappears: black frames, the device stays valid.
if [ -n "$VIMC" ]; then
	echo "$VIMC" > /sys/bus/platform/drivers/vimc/unbind || fail "unbind $VIMC"
	wait_log "lost" 20 || fail "no 'lost' message after unbinding $VIMC"
	sleep 2
	cisp-webcam-reader cisp-webcam 30 $FPS $((FPS / 3)) black || fail "reader while the camera is away"
	echo "$VIMC" > /sys/bus/platform/drivers/vimc/bind || fail "bind $VIMC"
	wait_log "is back" 30 || fail "the camera did not come back"
	sleep 2
	cisp-webcam-reader cisp-webcam 5 $FPS 0.1 bars || fail "reader after the camera came back"
else
	fail "vimc is not bound to a platform device"
fi
kill -TERM $PID
wait $PID
WRC=$?
cat /tmp/webcam.log
[ $WRC = 0 ] || fail "cisp webcam exit status $WRC after SIGTERM"
echo "@@ webcam: done in $(echo "$(now) $T0" | awk '{printf "%.1f", $1 - $2}') s"
exit $RC
