#!/bin/sh
# SPDX-License-Identifier: MIT
# The job of `make demo`: a live virtual camera. `cisp run` streams the 8 MP
# virtual sensor (colour chart, D65) through the ISP with the 3A loop, from a
# start far too dark and too warm, and writes the video, the last frame and
# the per-frame metadata to out/.
set -eu
build=${1:-build}
mkdir -p out
# meson devenv: the build's cisp, with the sensor models and tuning files of this checkout.
meson devenv -C "$build" -w "$PWD" cisp run -o out/demo.y4m --png out/demo.png --metadata out/demo.jsonl
echo "demo: wrote out/demo.y4m (video), out/demo.png (last frame), out/demo.jsonl (metadata per frame)"
