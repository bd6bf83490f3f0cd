#!/bin/sh
# SPDX-License-Identifier: MIT
# The files the cisp command writes, checked by the validators Debian ships
# (docs/cli.md, "Files"): pngcheck, exiftool -validate, tiffinfo, LibRaw
# reading DNGs back (unprocessed_raw, bit for bit; dcraw_emu) and GStreamer's
# y4mdec. Each command's outputs: run (Y4M, PNG, DNG), convert (DNG),
# develop (JPEG, PNG, TIFF, Y4M; with and without camera metadata), demosaic
# (PNG). Exit status 1 when a validator refuses a file.
set -u
build=${1:-build}
cisp=$(cd "$build" && pwd)/tools/cisp
status=0

missing=""
for tool in pngcheck exiftool tiffinfo unprocessed_raw dcraw_emu raw-identify gst-launch-1.0; do
	command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	echo "validators.sh: missing:$missing (Debian: pngcheck libimage-exiftool-perl libtiff-tools libraw-bin gstreamer1.0-tools)" >&2
	exit 1
fi
# The build's programs find this checkout's data (tests/run-all.sh does the same).
eval "$(meson devenv -C "$build" --dump | grep -E '^(export )?CISP_')"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$out" || exit 1

pass=0
fail() {
	echo "FAIL: $*"
	status=1
}
ok() { pass=$((pass + 1)); }
write_file() { # FILE COMMAND...: run a cisp command that writes FILE
	file=$1
	shift
	if "$cisp" "$@" >log 2>&1 && [ -f "$file" ]; then ok; else fail "cisp $*: $(tail -n 3 log)"; fi
}

# ---- the files ----
write_file run.y4m run --frames 3 --size 640x480 --quiet -o run.y4m --png run.png --save-raw run.dng
write_file meta.dng convert run.dng -o meta.dng --make Cisp --model "Validator Test" --exposure 0.01 --iso 200 \
	--orientation 6
for f in meta.jpg meta.png meta.tif meta.y4m; do write_file "$f" develop meta.dng -o "$f"; done
write_file meta16.png develop meta.dng --depth 16 -o meta16.png
write_file meta8.tif develop meta.dng --depth 8 -o meta8.tif
write_file linear.tif develop meta.dng --linear -o linear.tif
# A headerless dump has no camera metadata at all.
unprocessed_raw -q run.dng >/dev/null 2>&1 || fail "unprocessed_raw run.dng"
write_file dump.jpg develop run.dng.pgm -o dump.jpg
write_file dump.png develop run.dng.pgm -o dump.png
write_file dump.tif develop run.dng.pgm -o dump.tif
write_file demosaic.png demosaic run.dng.pgm demosaic.png

# ---- the validators ----
for f in *.png; do
	if pngcheck -q "$f" >check 2>&1; then ok; else fail "pngcheck $f: $(cat check)"; fi
done
for f in *.jpg *.png *.tif *.dng; do
	# -validate: the tags each format's standard requires, their types and order.
	result=$(exiftool -s3 -validate -warning -a "$f" 2>&1)
	if [ "$result" = OK ]; then ok; else fail "exiftool -validate $f: $result"; fi
done
for f in *.tif; do
	if tiffinfo -D "$f" >/dev/null 2>check && [ ! -s check ]; then ok; else fail "tiffinfo $f: $(cat check)"; fi
done
# LibRaw decodes each DNG, sees the raw frame's size, and reads back the
# mosaic convert wrote as the one it read, bit for bit.
size=$(sed -n 2p run.dng.pgm | tr ' ' x)
mv run.dng.pgm run.pgm
for f in *.dng; do
	if dcraw_emu -T "$f" >check 2>&1 && [ -f "$f.tiff" ]; then ok; else fail "dcraw_emu $f: $(cat check)"; fi
	found=$(raw-identify -v "$f" | sed -n 's/^Image size: *\([0-9]*\) x \([0-9]*\)$/\1x\2/p')
	if [ -n "$size" ] && [ "$found" = "$size" ]; then ok; else fail "raw-identify $f: size $found, not $size"; fi
done
unprocessed_raw -q meta.dng >/dev/null 2>&1 || fail "unprocessed_raw meta.dng"
if cmp -s run.pgm meta.dng.pgm; then ok; else fail "meta.dng does not read back as run.dng's mosaic"; fi
for f in *.y4m; do
	if [ "$(head -n 1 "$f" | wc -c)" -le 80 ] &&
		gst-launch-1.0 -q filesrc location="$f" ! y4mdec ! fakesink >check 2>&1; then
		ok
	else
		fail "y4mdec $f: $(head -c 100 "$f" | head -n 1) $(cat check)"
	fi
done

echo "validators: $pass passed$([ $status = 0 ] || echo ', failures above')"
exit $status
