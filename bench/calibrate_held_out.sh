#!/bin/sh
# SPDX-License-Identifier: MIT
# The held-out-illuminant validation of cisp calibrate (docs/calibrate.md):
# a virtual sensor is calibrated from its own lightbox captures under D65
# and A only; then the whole camera (that tuning, AE and AWB) photographs the
# ColorChecker under F2, F11 and D50, lights the calibration never saw, and
# the developed patches are measured against their spectral truth (ΔE00).
# D65 and A are measured too, labelled as fits. Goal: mean ΔE00 <= 2.0 and
# max <= 5 under each held-out light.
#
# The same captures and curve also give the previous method's tuning, for a
# before/after in one run: the charts' own matrices only, interpolated by
# colour temperature (no matrices synthesised from the estimated
# sensitivities, nothing off the curve).
#
#   bench/calibrate_held_out.sh [-B BUILD_DIR] [-s SENSOR] [-m IQ_MODE] [-o DIR]
#
# SENSOR defaults to cisp-8m10 (calibrated in its full mode, which reads the
# whole pixel array), IQ_MODE to 2 (its binned mode: a quarter of the pixels
# to develop); DIR (default a temporary folder) keeps the tunings, the
# calibration report and the lab's JSON, HTML and text.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# The sensor models of this checkout, not only the installed ones.
export CISP_SENSOR_PATH="$root/data/sensors${CISP_SENSOR_PATH:+:$CISP_SENSOR_PATH}"
build=$root/build
sensor=cisp-8m10
mode=2
out=
while getopts B:s:m:o: o; do
	case $o in
	B) build=$OPTARG ;;
	s) sensor=$OPTARG ;;
	m) mode=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-B BUILD_DIR] [-s SENSOR] [-m IQ_MODE] [-o DIR]" >&2; exit 2 ;;
	esac
done
cisp=$build/tools/cisp
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

echo "== calibrating $sensor from captures under D65 and A"
"$cisp" calibrate --camera "$sensor" --illuminants D65,A -o "$out/tuning.yaml" \
	--report "$out/calibration.html" --json "$out/calibration.json" --force
echo "== how the matrices were made (each calibration chart left out in turn; never the held-out lights)"
sed -n '/^  colour_methods:/,$p' "$out/tuning.yaml"
grep -o 'colour_method: [0-9]*' "$out/tuning.yaml" || echo "colour_method: none"

# The previous method's tuning: the ccm entries of the charts' own lights only.
cts=$(grep -o 'illuminant: "[^"]*", ct: [0-9]*' "$out/tuning.yaml" | sed 's/.*ct: //' | tr '\n' ' ')
awk -v cts="$cts" '
	function flush() { if (entry != "" && keep) printf "%s", entry; entry = "" }
	BEGIN { n = split(cts, c, " "); for (i = 1; i <= n; i++) measured[c[i]] = 1 }
	/^ccm:/ { in_ccm = 1; print; next }
	in_ccm && /^  - ct: / { flush(); entry = $0 "\n"; keep = ($3 in measured); next }
	in_ccm && /^    / { entry = entry $0 "\n"; if ($1 == "tint:") keep = 0; next }
	in_ccm { flush(); in_ccm = 0 }
	{ print }
	END { flush() }' "$out/tuning.yaml" >"$out/before.yaml"

for t in before tuning; do
	echo "== the camera (tuning, AE, AWB) on the ColorChecker, mode $mode, $t"
	"$cisp" iq --sensor "$sensor" --mode "$mode" --tuning "$out/$t.yaml" --illuminant F2,F11,D50,D65,A \
		--3a-frames 0 --json "$out/iq-$t.json" --html "$out/iq-$t.html" --force >"$out/iq-$t.txt"
done
echo "== mean / max dE00 (patch), before (charts' matrices interpolated) -> after"
awk '/^ColorChecker/ { l = $2; sub(",", "", l)
		fig = sprintf("%s / %s %s", $5, $7, $8)
		if ($9 !~ /chromatic/) fig = fig " " $9
		if (FILENAME ~ /before/) before[l] = fig; else { after[l] = fig; order[++n] = l } }
	/not calibrated under: accuracy/ && FILENAME !~ /before/ { held[l] = 1 }
	END { for (i = 1; i <= n; i++) { l = order[i]
		printf "%-4s %-12s %-28s -> %s\n", l, held[l] ? "(held out)" : "(a fit)", before[l], after[l] } }' \
	"$out/iq-before.txt" "$out/iq-tuning.txt"
echo "== the goal under the held-out lights: mean dE00 <= 2.0, max <= 5"
awk '/^ColorChecker/ { light = $2 } /not calibrated under: accuracy/ { held[light] = 1 }
	/^ColorChecker/ { mean[$2] = $5; max[$2] = $7 }
	END { bad = 0; n = 0
		for (l in held) { n++; ok = mean[l] <= 2.0 && max[l] <= 5
			printf "%-5s mean %s max %s: %s\n", l, mean[l], max[l], ok ? "met" : "NOT met"; bad += !ok }
		exit bad || n != 3 }' "$out/iq-tuning.txt"
