#!/bin/bash
# SPDX-License-Identifier: MIT
# The V4L2 backend against real kernel drivers, and the virtual canonical ISP
# module: boot Debian's own kernel under qemu (software emulation), load vimc
# and vivid, run cisp-v4l2-vm-test in the guest, then load cisp_isp.ko
# (kernel/) and run cisp-kernel-vm-test, v4l2-compliance on its V4L2 nodes,
# the measurements under strace, `cisp run` and cispsrc on the kernel backend,
# and unload it. Exit status 0 only when the guest's checks all passed; a
# guest that hangs or panics ends the run after VM_TIMEOUT seconds.
#
#   tests/vm/run.sh [BUILD]      BUILD: the meson build folder (default: build)
#
# Environment:
#   VM_CACHE=DIR       kernel, busybox and vimc.ko kept between runs (default: build-vm)
#   VM_TIMEOUT=S       wall-clock limit of the guest (default 420)
#   VM_INSTALL=0       never run apt-get (fail with a list of what is missing)
#   VM_OUT=DIR         guest log and console output (default: $VM_CACHE/out)
#
# vimc is not built in Debian's kernel: it is compiled out of tree from the
# linux-source package against the headers of the same kernel (docs/v4l2.md),
# and so is cisp_isp.ko from kernel/ (docs/kernel-uapi.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${1:-build}
CACHE=$(realpath -m "${VM_CACHE:-build-vm}")
OUT=$(realpath -m "${VM_OUT:-$CACHE/out}")
TIMEOUT=${VM_TIMEOUT:-420}
T0=$(date +%s.%N)
mkdir -p "$CACHE" "$OUT"
say() { printf '[vm %6.1fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc 2>/dev/null || echo 0)" "$*"; }

# ---- the kernel and the packages the run needs
KPKG=${VM_KERNEL_PACKAGE:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')}
if [ -z "$KPKG" ]; then
	echo "tests/vm/run.sh: cannot tell Debian's kernel package (apt-cache depends linux-image-amd64)" >&2
	exit 2
fi
KVER=${KPKG#linux-image-}
KSERIES=$(echo "$KVER" | cut -d. -f1,2)
need=""
for p in qemu-system-x86 cpio gzip kmod bc make gcc libc6-dev xz-utils strace v4l-utils "linux-headers-$KVER" \
	"linux-source-$KSERIES"; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
	if [ "${VM_INSTALL:-1}" = 0 ] || [ "$(id -u)" != 0 ]; then
		echo "tests/vm/run.sh: missing Debian packages:$need" >&2
		exit 2
	fi
	say "installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
# The kernel image and busybox are only unpacked: the host's /boot stays as it is.
mkdir -p "$CACHE/debs"
(cd "$CACHE/debs"
 ls "${KPKG}"_*.deb >/dev/null 2>&1 || apt-get download -qq "$KPKG" 2>&1 | grep -v unsandboxed || true
 ls busybox-static_*.deb >/dev/null 2>&1 || apt-get download -qq busybox-static 2>&1 | grep -v unsandboxed || true)
KROOT=$CACHE/kernel
if [ ! -f "$KROOT/boot/vmlinuz-$KVER" ]; then
	say "unpacking $KPKG"
	rm -rf "$KROOT"
	dpkg-deb -x "$CACHE"/debs/"${KPKG}"_*.deb "$KROOT"
fi
BUSYBOX=$CACHE/busybox/bin/busybox
if [ ! -x "$BUSYBOX" ]; then
	rm -rf "$CACHE/busybox"
	dpkg-deb -x "$CACHE"/debs/busybox-static_*.deb "$CACHE/busybox"
fi

# ---- vimc.ko, out of tree, once per kernel version. The one pass over the
# source tarball (most of the cold build's time) also keeps checkpatch.pl and
# its data files, for the module's style check (kernel/checkpatch.sh).
VIMC=$CACHE/vimc-$KVER/vimc.ko
SCRIPTS=$CACHE/linux-scripts-$KSERIES
if [ ! -f "$VIMC" ] || [ ! -f "$SCRIPTS/checkpatch.pl" ]; then
	say "building vimc.ko for $KVER"
	rm -rf "$CACHE/src" "$CACHE/vimc-$KVER" "$SCRIPTS"
	mkdir -p "$CACHE/src"
	tar -xJf "/usr/src/linux-source-$KSERIES.tar.xz" -C "$CACHE/src" \
		--wildcards "linux-source-$KSERIES/drivers/media/test-drivers/vimc/*" \
		"linux-source-$KSERIES/scripts/checkpatch.pl" "linux-source-$KSERIES/scripts/spelling.txt" \
		"linux-source-$KSERIES/scripts/const_structs.checkpatch"
	cp -r "$CACHE/src/linux-source-$KSERIES/drivers/media/test-drivers/vimc" "$CACHE/vimc-$KVER"
	mv "$CACHE/src/linux-source-$KSERIES/scripts" "$SCRIPTS"
	rm -rf "$CACHE/src"
	make -s -C "/usr/src/linux-headers-$KVER" M="$CACHE/vimc-$KVER" CONFIG_VIDEO_VIMC=m modules 2>&1 |
		grep -v 'Skipping BTF' || true
	strip --strip-debug "$VIMC"
fi

# ---- cisp_isp.ko, once per kernel version and content of the sources it compiles
TK=$(date +%s.%N)
KHASH=$( (cd "$ROOT" && find kernel src/isp src/abi src/core src/device src/vendor_stage/vendor_internal.h \
	src/vendor_stage/protocol.h include/cisp -type f | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -c1-16)
CISP_KO=$CACHE/cisp_isp-$KVER-$KHASH.ko
if [ ! -f "$CISP_KO" ]; then
	say "building cisp_isp.ko for $KVER"
	rm -f "$CACHE"/cisp_isp-"$KVER"-*.ko
	make -s -C kernel KDIR="/usr/src/linux-headers-$KVER" BUILD="$CACHE/module" -j"$(nproc)" > "$CACHE/module.log" 2>&1 || true
	grep -v 'Skipping BTF' "$CACHE/module.log" || true
	if grep -qE 'warning:|error:' "$CACHE/module.log" || [ ! -f "$CACHE/module/cisp_isp.ko" ]; then
		echo "tests/vm/run.sh: cisp_isp.ko did not build cleanly (log: $CACHE/module.log)" >&2
		exit 1
	fi
	strip --strip-debug -o "$CISP_KO" "$CACHE/module/cisp_isp.ko"
fi
say "cisp_isp.ko ready in $(echo "$(date +%s.%N) - $TK" | bc) s"
# Its style as the kernel's checkpatch.pl sees it, once per content like the module; what remains is
# explained in docs/kernel-uapi.md.
CHECKPATCH=$CACHE/checkpatch-$KHASH.txt
if [ ! -f "$CHECKPATCH" ]; then
	rm -f "$CACHE"/checkpatch-*.txt
	(cd "$CACHE" && perl "$SCRIPTS/checkpatch.pl" --no-tree -f --strict --terse --show-types \
		"$ROOT"/kernel/*.[ch] "$ROOT"/kernel/libc/*.h "$ROOT"/kernel/include/uapi/linux/*.h) > "$CHECKPATCH" 2>&1 || true
fi
say "checkpatch --strict on kernel/: $(grep -c ': ERROR:' "$CHECKPATCH") errors," \
	"$(grep -c ': WARNING:' "$CHECKPATCH") warnings, $(grep -c ': CHECK:' "$CHECKPATCH") checks"
grep -E ': (ERROR|WARNING):' "$CHECKPATCH" || true
if grep -q ': ERROR:' "$CHECKPATCH"; then
	echo "tests/vm/run.sh: checkpatch finds errors in kernel/" >&2
	exit 1
fi
mkdir -p "$KROOT/lib/modules/$KVER/extra"
cp "$VIMC" "$KROOT/lib/modules/$KVER/extra/vimc.ko"
cp "$CISP_KO" "$KROOT/lib/modules/$KVER/extra/cisp_isp.ko"
depmod -b "$KROOT" "$KVER"

# ---- the programs
TEST=$BUILD/tests/vm/cisp-v4l2-vm-test
KTEST=$BUILD/tests/vm/cisp-kernel-vm-test
for t in "$TEST" "$KTEST"; do
	if [ ! -x "$t" ]; then
		echo "tests/vm/run.sh: $t is missing: build first (ninja -C $BUILD)" >&2
		exit 2
	fi
done

# ---- the initramfs: busybox, modules in load order, the programs and their libraries
IR=$CACHE/initramfs
rm -rf "$IR"
mkdir -p "$IR"/{bin,dev,proc,sys,tmp,lib/modules}
cp "$BUSYBOX" "$IR/bin/busybox"
copy_program() {
	cp "$1" "$IR/bin/"
	ldd "$1" | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}' | while read -r lib; do
		mkdir -p "$IR$(dirname "$lib")"
		cp -L "$lib" "$IR$lib"
	done
}
copy_program "$TEST"
copy_program "$KTEST"
[ -x "$BUILD/tools/cisp" ] && copy_program "$BUILD/tools/cisp"
cp tests/vm/camera_vm_test.sh "$IR/bin/camera_vm_test.sh" && chmod +x "$IR/bin/camera_vm_test.sh"
[ -x "$BUILD/bench/bench-device" ] && copy_program "$BUILD/bench/bench-device"
mkdir -p "$IR/data/sensors" "$IR/data/tuning"
cp data/sensors/cisp-test.yaml "$IR/data/sensors/"
cp data/tuning/cisp-test.yaml "$IR/data/tuning/"
copy_program "$(command -v strace)"
copy_program "$(command -v v4l2-compliance)"
: > "$IR/modules.order"
for m in vimc vivid vgem cisp_isp; do
	modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | awk '$1=="insmod"{print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
	b=$(basename "$ko")
	case "$ko" in
	*.xz) xz -dc "$ko" > "$IR/lib/modules/${b%.xz}"; b=${b%.xz} ;;
	*.zst) zstd -qdc "$ko" > "$IR/lib/modules/${b%.zst}"; b=${b%.zst} ;;
	*) cp "$ko" "$IR/lib/modules/$b" ;;
	esac
	echo "$b" >> "$IR/modules.order"
done
# The webcam test: v4l2loopback, the reader and the guest script (tests/vm/webcam_vm_host.sh).
. tests/vm/webcam_vm_host.sh
# cispsrc on the kernel ISP: GStreamer and the plugin (tests/vm/gst_vm_host.sh).
. tests/vm/gst_vm_host.sh
cat > "$IR/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "@@ userspace at $(cut -d' ' -f1 /proc/uptime) s"
for m in $(cat /modules.order); do
	case $m in
	vivid.ko) insmod /lib/modules/$m n_devs=2 node_types=0x1,0x1 multiplanar=1,2 ;;
	cisp_isp.ko) ;; # loaded by its own checks below
	*) insmod /lib/modules/$m ;;
	esac || echo "@@ insmod $m failed"
done
echo "@@ modules loaded at $(cut -d' ' -f1 /proc/uptime) s"
for v in /sys/class/video4linux/*; do echo "@@ $(basename $v): $(cat $v/name)"; done
RC=0
# A sanitizer build (tests/vm/run.sh build-asan) stops at the first report.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
# `cisp list` must show the three raw cameras (vimc Sensor A and B, vivid) by their v4l2: names.
if [ -x /bin/cisp ]; then
	echo "@@ cisp list"
	cisp list > /tmp/list.txt 2>&1
	LRC=$?
	cat /tmp/list.txt
	if [ $LRC = 0 ]; then
		[ "$(grep -c 'v4l2:/dev/video' /tmp/list.txt)" -ge 3 ] || { echo "@@ FAIL cisp list lacks the V4L2 cameras"; RC=1; }
	elif grep -q "unknown command" /tmp/list.txt; then
		echo "@@ cisp list: not in this build"
	else
		echo "@@ FAIL cisp list: exit status $LRC"
		RC=1
	fi
fi
cisp-v4l2-vm-test || RC=1
# `cisp run` on the vimc camera: the ISP and the control loop on a V4L2 sensor, raw frames
# imported, latency and CPU with and without overlap (tests/vm/camera_vm_test.sh).
[ -x /bin/cisp ] && { camera_vm_test.sh || RC=1; }
# The virtual canonical ISP (docs/kernel-uapi.md): load, check, measure, unload.
KT0=$(cut -d' ' -f1 /proc/uptime)
echo "@@ cisp_isp.ko at $KT0 s"
# A short fence timeout, for the check of a vgem fence left unsignalled.
if insmod /lib/modules/cisp_isp.ko fence_timeout_ms=1500 && [ -c /dev/cisp-isp ]; then
	for v in /sys/class/video4linux/*; do
		case "$(cat $v/name)" in cisp-isp*) echo "@@ $(basename $v): $(cat $v/name)" ;; esac
	done
	cisp-kernel-vm-test check || RC=1
	echo "@@ measure"
	cisp-kernel-vm-test measure 100
	# strace -c of 150 frames minus strace -c of 50: what one frame of the steady state costs.
	for api in uapi v4l2; do
		for n in 50 150; do
			strace -f -c -o /tmp/$api.$n cisp-kernel-vm-test syscalls-$api $n >/dev/null || RC=1
		done
		awk -v api=$api 'FNR == 1 { file++ } $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { n[$NF, file] = $4; seen[$NF] = 1 }
			$NF == "total" { t[file] = $4 }
			END { line = ""; for (c in seen) if (n[c, 2] != n[c, 1]) line = line sprintf(" %s %.2f", c, (n[c, 2] - n[c, 1]) / 100);
			      printf "@@ figure system calls per frame, %s: %.2f (%s )\n", api, (t[2] - t[1]) / 100, line }' /tmp/$api.50 /tmp/$api.150
	done
	for v in /sys/class/video4linux/*; do
		case "$(cat $v/name)" in cisp-isp*)
			d=/dev/$(basename $v)
			echo "@@ v4l2-compliance -d $d"
			v4l2-compliance -d $d > /tmp/compliance.txt 2>&1
			grep -E "^Total|fail:|warn:|FAIL" /tmp/compliance.txt
			grep -q "Failed: 0," /tmp/compliance.txt || { echo "@@ FAIL v4l2-compliance on $d"; RC=1; }
			;;
		esac
	done
	if [ -x /bin/cisp ] && cisp run --help >/dev/null 2>&1; then
		echo "@@ cisp run --isp /dev/cisp-isp"
		export CISP_SENSOR_PATH=/data/sensors CISP_TUNING_PATH=/data/tuning
		cisp run --camera virtual:cisp-test --mode 1 --frames 4 --quiet -o /tmp/cpu.y4m > /tmp/run.txt 2>&1 &&
		cisp run --isp /dev/cisp-isp --camera virtual:cisp-test --mode 1 --frames 4 --quiet -o /tmp/kernel.y4m \
			>> /tmp/run.txt 2>&1 && cmp /tmp/cpu.y4m /tmp/kernel.y4m && echo "@@ cisp run: the same video on both backends" ||
			{ cat /tmp/run.txt; echo "@@ FAIL cisp run on the kernel backend"; RC=1; }
	fi
	# The device bench's deadline part on the canonical ISP, on the CPU backend and then on the kernel's,
	# at 1/16 of its frame sizes (emulated CPUs): the same program, only CISP_ISP differs.
	if [ -x /bin/bench-device ]; then
		for isp in "" /dev/cisp-isp; do
			BT0=$(cut -d' ' -f1 /proc/uptime)
			CISP_ISP=$isp bench-device --part deadline --pipeline isp --size-divisor 16 --frames 24 \
				--loads 80,150 > /tmp/bench.txt 2>&1 || { echo "@@ FAIL bench-device (its output below)"; RC=1; }
			sed "s|^|@@ bench-device ${isp:-cpu}: |" /tmp/bench.txt
			echo "@@ bench-device ${isp:-cpu} took $(echo "$(cut -d' ' -f1 /proc/uptime) $BT0" | awk '{print $1 - $2}') s"
		done
	fi
	if [ -x /bin/gst_vm_test.sh ]; then
		gst_vm_test.sh || RC=1
	fi
	rmmod cisp_isp || { echo "@@ FAIL rmmod cisp_isp"; RC=1; }
	dmesg | grep "cisp-isp: unloaded" || true
	dmesg | grep -q "cisp-isp: unloaded, nothing left allocated" || { echo "@@ FAIL cisp_isp left objects behind"; RC=1; }
else
	echo "@@ FAIL insmod cisp_isp.ko"
	RC=1
fi
echo "@@ cisp_isp.ko checks took $(echo "$(cut -d' ' -f1 /proc/uptime) $KT0" | awk '{print $1 - $2}') s"
# cisp webcam into v4l2loopback, read as applications do (tests/vm/webcam_vm_test.sh).
if [ -x /bin/webcam_vm_test.sh ]; then
	webcam_vm_test.sh || RC=1
fi
echo "@@ RESULT rc=$RC at $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
EOF
chmod +x "$IR/init"
(cd "$IR" && find . | cpio -o -H newc --quiet | gzip -1 > "$CACHE/initramfs.cpio.gz")
[ -z "$GST_ARCHIVE" ] || cat "$GST_ARCHIVE" >> "$CACHE/initramfs.cpio.gz"

# ---- boot. KVM is not used: nested on these machines it aborts or hangs (docs/v4l2.md).
say "booting $KVER under qemu (TCG), limit ${TIMEOUT}s"
TB=$(date +%s.%N)
set +e
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp "${VM_SMP:-2}" -m "${VM_MEM:-1024}" \
	-nodefaults -display none -no-reboot \
	-kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$CACHE/initramfs.cpio.gz" \
	-append "console=ttyS0 quiet loglevel=3 panic=-1" \
	-serial stdio </dev/null > "$OUT/guest.log" 2>&1
QRC=$?
set -e
BOOT_S=$(echo "$(date +%s.%N) - $TB" | bc)
tr -d '\r' < "$OUT/guest.log" | grep -vE '^\[ *[0-9]+\.[0-9]+\] ' > "$OUT/guest.txt" || true
cat "$OUT/guest.txt"
GRC=$(sed -n 's/^@@ RESULT rc=\([0-9]*\).*/\1/p' "$OUT/guest.txt")
say "qemu exit status $QRC, guest result ${GRC:-none}, boot to poweroff ${BOOT_S}s"
if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
	echo "tests/vm/run.sh: the guest did not finish within ${TIMEOUT}s (log: $OUT/guest.log)" >&2
	exit 1
fi
[ "$QRC" = 0 ] && [ "${GRC:-1}" = 0 ]
