#!/bin/sh
# SPDX-License-Identifier: MIT
# cisp calibrate against the Raspberry Pi tuning tool (docs/calibrate.md): the
# virtual sensor bench/rpi-SENSOR.yaml carries the black level, noise, lens
# shading and (spectral sensitivities fitted by bench/rpi_spectra.c) the
# colour of the Pi's calibration of SENSOR (Debian's libcamera-ipa); cisp
# calibrates it from its own lightbox captures, and the result is compared
# with the Pi's numbers, imported by cisp tuning import: black level, noise
# slope, shading, and per light the colour matrices (their entries and the
# CIEDE2000 each gives on the chart) and the white-balance curve.
#
#   bench/calibrate_rpi.sh [-B BUILD_DIR] [-o DIR] [-s imx477|imx219]
#
# Needs python3 with PyYAML (Debian's python3-yaml) for the comparison.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# The sensor models of this checkout, not only the installed ones.
export CISP_SENSOR_PATH="$root/data/sensors${CISP_SENSOR_PATH:+:$CISP_SENSOR_PATH}"
build=$root/build
out=
sensor=imx477
while getopts B:o:s: o; do
	case $o in
	B) build=$OPTARG ;;
	o) out=$OPTARG ;;
	s) sensor=$OPTARG ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-o DIR] [-s imx477|imx219]" >&2; exit 2 ;;
	esac
done
# Per sensor: its mode's bits, the model's array, and the lights of its charts (the colour
# temperatures of the Pi's ALSC tables, Planck's law below 5000 K and CIE daylight from there, as
# bench/rpi_spectra.c renders them).
case $sensor in
imx477) bits=12 array=1012x760 lights=blackbody:2960,blackbody:4850,daylight:5930 ;;
imx219) bits=10 array=820x616 lights=blackbody:3000,blackbody:3850,daylight:6000 ;;
*) echo "calibrate_rpi.sh: no model for $sensor (imx477, imx219)" >&2; exit 2 ;;
esac
json=/usr/share/libcamera/ipa/raspberrypi/$sensor.json
if [ ! -f "$json" ]; then
	echo "calibrate_rpi.sh: $json is not installed (Debian's libcamera-ipa); nothing was measured" >&2
	exit 1
fi
cisp=$build/tools/cisp
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

"$cisp" tuning import "$json" --bits $bits --array $array -o "$out/rpi.yaml" --force 2>/dev/null
"$cisp" calibrate --camera "$root/bench/rpi-$sensor.yaml" --illuminants $lights \
	-o "$out/cisp.yaml" --report "$out/cisp.html" --force
python3 - "$out/rpi.yaml" "$out/cisp.yaml" $bits <<'EOF'
import math, sys, yaml

rpi, cal = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
bits = int(sys.argv[3])
print("black level (%d-bit codes): Raspberry Pi %.2f, cisp %s" % (bits, rpi["black_level"][0],
      ", ".join("%.2f" % v for v in cal["black_level"])))
# The Pi's slope from cisp's a: a = f k^2, f = 65535 / (65535 - black in the Pi's 16-bit units).
f = 65535 / (65535 - rpi["black_level"][0] * 2 ** (16 - bits))
k_rpi = math.sqrt(rpi["noise"][0]["a"][1] / f)
for n in cal["noise"]:
    k = [math.sqrt(a / f / n["gain"]) for a in n["a"]]
    print("noise slope at gain %g (divided by sqrt(gain)): Raspberry Pi %.3f, cisp %s (%+.1f%%)" % (
        n["gain"], k_rpi, ", ".join("%.3f" % v for v in k), 100 * (sum(k) / 4 / k_rpi - 1)))
names = ["r", "gr", "gb", "b"]
for tr in rpi["lens_shading"]["tables"]:
    tc = min(cal["lens_shading"]["tables"], key=lambda t: abs(t["ct"] - tr["ct"]))
    for c in names:
        d = [b / a - 1 for a, b in zip(tr[c], tc[c])]
        corner = [tr[c][i] for i in (0, 16, 272, 288)], [tc[c][i] for i in (0, 16, 272, 288)]
        print("shading %s, Pi %d K / cisp %d K: corner gains Pi %.3f, cisp %.3f; nodes differ by %.1f%% rms, %.1f%% at most"
              % (c, tr["ct"], tc["ct"], sum(corner[0]) / 4, sum(corner[1]) / 4,
                 100 * math.sqrt(sum(x * x for x in d) / len(d)), 100 * max(abs(x) for x in d)))
EOF
# Colour: the chart through the model's sensitivities under each calibrated light, through cisp's
# matrix and the Pi's (at that colour temperature), and the grey against both curves.
"$build/bench/rpi-spectra" compare "$root/bench/rpi-$sensor.yaml" "$out/rpi.yaml" "$out/cisp.yaml"
