# SPDX-License-Identifier: MIT
# Sourced by tests/vm/run.sh while it fills the initramfs ($IR): the webcam
# test's parts (docs/webcam.md). v4l2loopback is built out of tree from
# Debian's v4l2loopback-dkms source, once per kernel version, as vimc is;
# the package is only downloaded and unpacked (no dkms on the host).
# Uses CACHE, KVER, BUILD, IR and say() of run.sh.
WEBCAM_READER=$BUILD/tests/vm/cisp-webcam-reader
if [ ! -x "$WEBCAM_READER" ] || [ ! -x "$BUILD/tools/cisp" ]; then
	say "webcam test left out: $WEBCAM_READER or $BUILD/tools/cisp is missing"
	return 0
fi
V4L2LOOPBACK=$CACHE/v4l2loopback-$KVER/v4l2loopback.ko
if [ ! -f "$V4L2LOOPBACK" ]; then
	say "building v4l2loopback.ko for $KVER"
	(cd "$CACHE/debs" && { ls v4l2loopback-dkms_*.deb >/dev/null 2>&1 ||
		apt-get download -qq v4l2loopback-dkms 2>&1 | grep -v unsandboxed || true; })
	rm -rf "$CACHE/v4l2loopback-src" "$CACHE/v4l2loopback-$KVER"
	dpkg-deb -x "$CACHE"/debs/v4l2loopback-dkms_*.deb "$CACHE/v4l2loopback-src"
	cp -r "$CACHE"/v4l2loopback-src/usr/src/v4l2loopback-* "$CACHE/v4l2loopback-$KVER"
	rm -rf "$CACHE/v4l2loopback-src"
	make -s -C "/usr/src/linux-headers-$KVER" M="$CACHE/v4l2loopback-$KVER" modules 2>&1 |
		grep -v 'Skipping BTF' || true
	strip --strip-debug "$V4L2LOOPBACK"
fi
cp "$V4L2LOOPBACK" "$IR/lib/modules/v4l2loopback.ko"
copy_program "$WEBCAM_READER"
cp tests/vm/webcam_vm_test.sh "$IR/bin/webcam_vm_test.sh"
chmod +x "$IR/bin/webcam_vm_test.sh"
