#!/bin/sh
# SPDX-License-Identifier: MIT
# cisp calibrate against the Raspberry Pi tuning tool (docs/calibrate.md): the
# virtual sensor bench/rpi-imx477.yaml carries the black level, noise and lens
# shading of the Pi's IMX477 calibration (Debian's libcamera-ipa); cisp
# calibrates it from its own lightbox captures, and the result is compared
# with the Pi's numbers, imported by cisp tuning import. Colour is not
# compared: the model's spectral sensitivities are not the IMX477's.
#
#   bench/calibrate_rpi.sh [-B BUILD_DIR] [-o DIR]
#
# Needs python3 with PyYAML (Debian's python3-yaml) for the comparison.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# The sensor models of this checkout, not only the installed ones.
export CISP_SENSOR_PATH="$root/data/sensors${CISP_SENSOR_PATH:+:$CISP_SENSOR_PATH}"
build=$root/build
out=
while getopts B:o: o; do
	case $o in
	B) build=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-o DIR]" >&2; exit 2 ;;
	esac
done
json=/usr/share/libcamera/ipa/raspberrypi/imx477.json
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

"$cisp" tuning import "$json" --bits 12 --array 1012x760 -o "$out/rpi.yaml" --force 2>/dev/null
# The lights of the Pi's ALSC tables: 2960 K, 4850 K, 5930 K.
"$cisp" calibrate --camera "$root/bench/rpi-imx477.yaml" --illuminants blackbody:2960,blackbody:4850,blackbody:5930 \
	-o "$out/cisp.yaml" --report "$out/cisp.html" --force
python3 - "$out/rpi.yaml" "$out/cisp.yaml" <<'EOF'
import math, sys, yaml

rpi, cal = (yaml.safe_load(open(p)) for p in sys.argv[1:3])
print("black level (12-bit codes): Raspberry Pi %.2f, cisp %s" % (rpi["black_level"][0],
      ", ".join("%.2f" % v for v in cal["black_level"])))
# The Pi's slope from cisp's a: a = f k^2, f = 65535 / (65535 - black in the Pi's 16-bit units).
f = 65535 / (65535 - rpi["black_level"][0] * 16)
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
