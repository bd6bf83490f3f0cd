#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write src/isp/tone_tables.h: the transfer-function tables of the tone stage.

Each table has TONE_TF_POINTS entries. Entry k holds the transfer function at
input code x_k (16-bit linear units, 65535 = 1.0):
    x_k = k                      for k < 2048        (one entry per code)
    x_k = 2048 + 16 * (k - 2048) for k >= 2048       (every 16th code, up to 65536)
and its value is, in 1/16 of a 16-bit output code,
    T[k] = floor(65535 * 16 * tf(x_k / 65535) + 1/2)
The point at 65536 lies just beyond 1.0 and uses the same formula (its value
exceeds 65535 * 16 slightly). The arithmetic is done with Python's decimal
module at 50 significant digits, which rounds every operation correctly, so
the table does not depend on the machine's floating point; no value lies
within 1e-6 of a rounding tie, so the result is unambiguous. The committed
table, not this script, is the definition the stage follows.

Usage: tools/gen_tone_tables.py > src/isp/tone_tables.h
"""
from decimal import Decimal as D, getcontext

getcontext().prec = 50

DIRECT = 2048
STEP = 16
SCALE = 65535 * 16


def srgb(x):
    """IEC 61966-2-1 sRGB encoding."""
    if x <= D("0.0031308"):
        return D("12.92") * x
    return D("1.055") * x ** (D(5) / D(12)) - D("0.055")


def bt709(x):
    """ITU-R BT.709 opto-electronic transfer function."""
    if x < D("0.018"):
        return D("4.5") * x
    return D("1.099") * x ** D("0.45") - D("0.099")


def points():
    return list(range(DIRECT)) + list(range(DIRECT, 65537, STEP))


def table(tf):
    out = []
    for x in points():
        v = SCALE * tf(D(x) / D(65535))
        frac = v - int(v)
        assert abs(frac - D("0.5")) > D("1e-6"), (x, v)
        out.append(int(v + D("0.5")))
    return out


def emit(name, values):
    lines = [f"static const uint32_t {name}[TONE_TF_POINTS] = {{"]
    for i in range(0, len(values), 10):
        lines.append("\t" + ", ".join(str(v) for v in values[i:i + 10]) + ",")
    lines.append("};")
    return "\n".join(lines)


def main():
    n = len(points())
    print("/* SPDX-License-Identifier: MIT */")
    print("/*")
    print(" * Transfer-function tables of the tone stage, written by tools/gen_tone_tables.py;")
    print(" * included only by tone.c. Entry k is the function at input code k for k < 2048 and")
    print(" * at 2048 + 16 * (k - 2048) above, in 1/16 output codes, rounded to nearest. These")
    print(" * numbers define the stage; docs/stages/tone.md says how they were made.")
    print(" */")
    print(f"#define TONE_TF_DIRECT {DIRECT}")
    print(f"#define TONE_TF_POINTS {n}")
    print()
    print(emit("tone_srgb", table(srgb)))
    print()
    print(emit("tone_bt709", table(bt709)))


if __name__ == "__main__":
    main()
