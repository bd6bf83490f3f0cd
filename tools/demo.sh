#!/bin/sh
# The main job of `make demo`: develop the real raw mosaic shipped in data/raw
# through the whole canonical pipeline and write a viewable image.
set -eu
build=${1:-build}
mkdir -p out
"$build/tools/cisp" develop data/raw/nokia_n900_fcam_bayer_small.png \
	--cfa GRBG --black 25 --white 1023 --force -o out/demo.png
echo "demo: wrote out/demo.png (the N900 raw frame, developed by the canonical ISP)"
