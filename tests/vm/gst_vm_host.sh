# SPDX-License-Identifier: MIT
# Sourced by tests/vm/run.sh while it fills the initramfs ($IR): GStreamer in
# the guest, for cispsrc on the kernel ISP (tests/vm/gst_vm_test.sh,
# docs/gstreamer.md). gst-launch-1.0, the core elements (fakesink, filesink,
# capsfilter) and the system libraries ldd lists for them and for the cisp
# plugin that $IR does not hold yet are packed into a compressed cpio archive
# of their own, kept in $CACHE and made again only when one of those files
# changes; run.sh appends it to the initramfs (the kernel unpacks
# concatenated archives one over the other). The plugin, the build's
# libcisp.so.0 and cisp-isp-counters.so (tests/vm/isp_counters.c) change
# with the build, so they are copied into $IR on every run.
# Uses CACHE, BUILD, IR and say() of run.sh; sets GST_ARCHIVE (empty when the
# test is left out).
GST_ARCHIVE=
GST_CISP=$BUILD/gst/libgstcisp.so
GST_LAUNCH=$(command -v gst-launch-1.0 || true)
GST_CORE=$(pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null)/libgstcoreelements.so
if [ ! -f "$GST_CISP" ] || [ -z "$GST_LAUNCH" ] || [ ! -f "$GST_CORE" ]; then
	say "cispsrc test left out: $GST_CISP, gst-launch-1.0 or $GST_CORE is missing"
	return 0
fi
# A sanitizer build's plugin needs its runtime loaded first, which gst-launch-1.0 does not do.
if nm -D "$GST_CISP" | grep -q ' U __[at]san_'; then
	say "cispsrc test left out: $GST_CISP is a sanitizer build"
	return 0
fi
# gst_libraries system|build: the libraries the three need, the system's (for the archive) or
# the build's (for $IR).
gst_libraries() {
	ldd "$GST_LAUNCH" "$GST_CORE" "$GST_CISP" | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}' |
		LC_ALL=C sort -u | awk -v want="$1" '(/^\/(lib|usr\/lib|lib64)\// ? "system" : "build") == want'
}
# The system libraries that the programs run.sh copied did not bring (GLib, GStreamer, ORC, ...).
gst_system_libraries() {
	gst_libraries system | while read -r lib; do
		[ -e "$IR$lib" ] || echo "$lib"
	done
}
# The archive's name: the names, sizes and times of its files.
GST_KEY=$( (echo "$GST_LAUNCH"; echo "$GST_CORE"; gst_system_libraries) | xargs stat -L -c '%n %s %Y' |
	sha256sum | cut -c1-16)
GST_ARCHIVE=$CACHE/gst-$GST_KEY.cpio.gz
if [ ! -f "$GST_ARCHIVE" ]; then
	say "packing GStreamer for the guest"
	rm -rf "$CACHE"/gst-*.cpio.gz "$CACHE/gst-root"
	mkdir -p "$CACHE/gst-root/bin" "$CACHE/gst-root/lib/gstreamer-1.0"
	cp "$GST_LAUNCH" "$CACHE/gst-root/bin/"
	cp "$GST_CORE" "$CACHE/gst-root/lib/gstreamer-1.0/"
	gst_system_libraries | while read -r lib; do
		mkdir -p "$CACHE/gst-root$(dirname "$lib")"
		cp -L "$lib" "$CACHE/gst-root$lib"
	done
	(cd "$CACHE/gst-root" && find . | cpio -o -H newc --quiet | gzip -1 > "$GST_ARCHIVE.tmp")
	mv "$GST_ARCHIVE.tmp" "$GST_ARCHIVE"
	say "GStreamer for the guest: $(du -sk "$CACHE/gst-root" | cut -f1) KiB, $(du -k "$GST_ARCHIVE" | cut -f1) KiB packed"
	rm -rf "$CACHE/gst-root"
fi
# The plugin finds libcisp.so.0 beside it through its run path; in the guest it is in /lib,
# which the dynamic loader searches.
mkdir -p "$IR/lib/gstreamer-1.0"
strip --strip-unneeded -o "$IR/lib/gstreamer-1.0/libgstcisp.so" "$GST_CISP"
gst_libraries build | while read -r lib; do
	strip --strip-unneeded -o "$IR/lib/$(basename "$lib")" "$lib"
done
cp "$BUILD/tests/vm/cisp-isp-counters.so" "$IR/lib/"
cp tests/vm/gst_vm_test.sh "$IR/bin/gst_vm_test.sh"
chmod +x "$IR/bin/gst_vm_test.sh"
