"""Every worked example of reference 002, value for value, through `convert` and `trace`.

All tests use profile "ascend": ref 002 documents that vendor's Cast API (its RoundMode
CAST_* modes, SatMode and special-value rules), which is what the ascend profile models.
Each example is checked on the vectorized kernel AND on the per-lane trace (`both`).

Where the document slips (arithmetic or printing), the test follows correct rounding and a
comment quotes the document's printed value. Schematic examples written with "xxx" or with
more fraction bits than the source format can carry are realized as concrete inputs of the
source format whose kept bits and discarded-bits class (below / at / above the midpoint)
match the document; the comment says how.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from neurondbg.machine.convert import convert, trace
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.trace import Trace

PROFILE = "ascend"  # ref 002 is the ascend vendor's Cast API


def both(bits: int, src: str, dst: str, mode: str = "rint", sat: bool = False) -> Trace:
    """Convert one lane with the kernel and the trace; they must agree. Returns the trace."""
    out = int(convert(np.array([bits], FORMATS[src].container), src, dst, mode, sat,
                      PROFILE)[0])
    t = trace(bits, src, dst, mode, sat, PROFILE)
    assert t.output_bits == out, (hex(bits), src, dst, mode, hex(out), hex(t.output_bits))
    return t


def one(bits: int, src: str, dst: str, mode: str = "rint", sat: bool = False) -> int:
    return both(bits, src, dst, mode, sat).output_bits


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def bf16_exact(x: Fraction | float) -> int:
    """bf16 bits of a value bf16 represents exactly (asserted)."""
    b = f32(float(x))
    assert b & 0xFFFF == 0 and Fraction(float(x)) == Fraction(x), x
    return b >> 16


def frac(bits: str) -> Fraction:
    """Value of a binary fraction string '0.0100110' (the document's 0b0.xxx notation)."""
    whole, _, tail = bits.partition(".")
    return int(whole, 2) + Fraction(int(tail, 2), 2 ** len(tail))


# --- Table 7: float -> integer, every row of every mode (float -> int32, Table 3) -----------

TABLE7 = [
    ("rint", 3.3, 3), ("rint", 5.9, 6), ("rint", 5.5, 6), ("rint", 4.5, 4), ("rint", -3.6, -4),
    ("round", 3.3, 3), ("round", 5.9, 6), ("round", 5.5, 6), ("round", -3.6, -4),
    ("round", -6.5, -7),
    ("floor", 3.2, 3), ("floor", 7.9, 7), ("floor", -4.6, -5), ("floor", -3.1, -4),
    ("ceil", 3.2, 4), ("ceil", 7.9, 8), ("ceil", -4.6, -4), ("ceil", -3.1, -3),
    ("trunc", 3.2, 3), ("trunc", 7.9, 7), ("trunc", -4.6, -4), ("trunc", -3.1, -3),
]


@pytest.mark.parametrize("mode,x,want", TABLE7)
def test_table7_float_to_int(mode: str, x: float, want: int) -> None:
    t = both(f32(x), "fp32", "int32", mode)
    assert t.output_bits == want & 0xFFFFFFFF and t.output_value == want
    assert t.tie == (x in (5.5, 4.5, -6.5))


@pytest.mark.parametrize("mode", ["rint", "round"])
def test_table7_minus_2_4_slip(mode: str) -> None:
    # Table 7 prints "Input: -2.4; output: 2" under CAST_RINT and CAST_ROUND: the sign is
    # lost in the document; the nearest integer to -2.4 is -2.
    assert one(f32(-2.4), "fp32", "int32", mode) == (-2) & 0xFFFFFFFF


# --- Table 8: float -> half, CAST_ODD ------------------------------------------------------

def test_float_to_half_odd_123_23333() -> None:
    # sign 0, exponent 10000101, mantissa 11101100111011101110111 -> half 0 10101 1110110011.
    # The document prints "half = 123.2": the exact value is 123.1875 (printed to 1 decimal).
    b = f32(123.23333)
    assert b == 0b0_10000101_11101100111011101110111
    t = both(b, "fp32", "fp16", "odd")
    assert t.output_bits == 0b0_10101_1110110011
    assert t.output_value == Fraction(1971, 16)
    assert t.step("rebias").values["target_biased_exponent"] == 0b10101


@pytest.mark.parametrize("xs", [0b000000000, 0b101100111, 0b111111111])
@pytest.mark.parametrize("sign", [0, 1])
def test_float_to_half_odd_patterns(xs: int, sign: int) -> None:
    # "a.xxxxxxxxx00000100000000: y is 0 (even), rounding is performed -> a.xxxxxxxxx1";
    # "a.xxxxxxxxx11000100000000: y is 1 (odd), no rounding -> a.xxxxxxxxx1" (y = bit 10,
    # the half's lsb; 13 bits discarded). The x bits are free: three fillings, both signs.
    for tail in (0b00000100000000, 0b11000100000000):
        bits = (sign << 31) | (127 << 23) | (xs << 14) | tail
        want = (sign << 15) | (15 << 10) | (xs << 1) | 1
        assert one(bits, "fp32", "fp16", "odd") == want


# --- Table 8: float -> bfloat16_t ---------------------------------------------------------

E = 127 << 23  # any normal exponent: these examples are about the mantissa only
M_A = 0b00100000010000010000000  # examples 1: discarded below the midpoint
M_B = 0b00110001000000000000000  # discarded at the midpoint, kept lsb even
M_C = 0b00110011000000000000000  # discarded at the midpoint, kept lsb odd
M_D = 0b00100001010000010000000  # discarded above the midpoint

F2BF = [  # (mode, sign, float32 mantissa, bf16 mantissa) exactly as Table 8 lists them
    ("rint", 0, M_A, 0b0010000), ("rint", 0, M_B, 0b0011000), ("rint", 0, M_C, 0b0011010),
    ("rint", 0, M_D, 0b0010001),
    ("round", 0, M_A, 0b0010000), ("round", 0, M_B, 0b0011001), ("round", 0, M_D, 0b0010001),
    ("floor", 0, M_A, 0b0010000), ("floor", 1, M_B, 0b0011001),
    ("ceil", 0, M_A, 0b0010001), ("ceil", 1, M_B, 0b0011000),
]


@pytest.mark.parametrize("mode,sign,m32,want", F2BF)
def test_float_to_bf16_mantissa_examples(mode: str, sign: int, m32: int, want: int) -> None:
    t = both((sign << 31) | E | m32, "fp32", "bf16", mode)
    assert t.output_bits == (sign << 15) | (127 << 7) | want
    assert t.tie == (m32 in (M_B, M_C))
    if mode in ("rint", "round"):  # symmetric modes: the other sign gives the same mantissa
        assert one((1 << 31) | E | m32, "fp32", "bf16", mode) & 0x7F == want


def test_float_to_bf16_trunc_slip() -> None:
    # CAST_TRUNC example 1 prints "bfloat16_mantissa:001000" (6 bits: a printing slip);
    # dropping the 16 discarded bits of 00100000010000010000000 leaves 7 bits 0010000.
    assert one(E | M_A, "fp32", "bf16", "trunc") & 0x7F == 0b0010000
    assert one((1 << 31) | E | M_A, "fp32", "bf16", "trunc") & 0x7F == 0b0010000


def test_float_to_bf16_205_75() -> None:
    # 205.75 = 0 10000110 10011011100000000000000 -> bf16 0 10000110 1001110 = 206 (CAST_RINT)
    b = f32(205.75)
    assert b == 0b0_10000110_10011011100000000000000
    t = both(b, "fp32", "bf16", "rint")
    assert t.output_bits == (0b10000110 << 7) | 0b1001110 and t.output_value == 206
    g = t.step("grs").values
    # discarded 1100000000000000: guard 1, round 1, sticky 0 -> above the midpoint
    assert (g["guard"], g["round"], g["sticky"], t.tie) == (1, 1, 0, False)


# --- Table 8: bfloat16_t -> half ----------------------------------------------------------

def test_bf16_to_half_example_1_normal() -> None:
    # Example 1: bf16 mantissa 1011000 -> float16 mantissa 1011000000 (three 0s appended);
    # any exponent >= -14 (here 0 and -14), every mode.
    for e in (127, 127 - 14):
        for mode in ("rint", "round", "floor", "ceil", "trunc"):
            t = both((e << 7) | 0b1011000, "bf16", "fp16", mode)
            assert t.output_bits == ((e - 112) << 10) | 0b1011000000 and not t.inexact


@pytest.mark.parametrize("mode,want", [("rint", 0b0000110111), ("round", 0b0000110111),
                                       ("floor", 0b0000110110), ("ceil", 0b0000110111),
                                       ("trunc", 0b0000110110)])
def test_bf16_to_half_example_2_subnormal(mode: str, want: int) -> None:
    # Example 2: exponent 108 (-19 < -14), mantissa 1011011: shift 5 -> 0b0.000011011011,
    # 12 bits, the two low bits "11" are discarded (midpoint 0b10). The document stops
    # there; above the midpoint, so rint/round/ceil round up and floor/trunc do not.
    t = both((108 << 7) | 0b1011011, "bf16", "fp16", mode)
    assert t.output_bits == want
    assert t.step("align").values["shift"] == 5
    assert t.step("grs").values["dropped_bits"] == 2


# The mode cases print a 14-bit fraction "0b0.00001101100xxx" with a 4-bit discarded part,
# which a bf16 cannot carry: at Example 2's exponent (108) a bf16 gives 12 fraction bits,
# "00001" + 7 mantissa bits, of which the last 2 are discarded. Each case is realized with
# the document's 10 kept bits and a 2-bit discarded part of the case's class
# (01 below, 10 at, 11 above the midpoint 10).
K0 = 0b0000110110  # the kept bits of cases "0b0.00001101100xxx" (lsb even)
K1 = 0b0000110001  # the kept bits of RINT case (4) "0b0.00001100010xxx" (lsb odd)


def bf16_sub(kept: int, dropped: int, sign: int = 0) -> int:
    assert kept >> 5 == 1  # "00001" then the mantissa's first 5 bits
    return (sign << 15) | (108 << 7) | ((kept & 0x1F) << 2) | dropped


BF2H = [  # (mode, sign, kept, dropped, fp16 mantissa printed by the document)
    ("rint", 0, K0, 0b01, K0), ("rint", 0, K0, 0b11, 0b0000110111), ("rint", 0, K0, 0b10, K0),
    ("round", 0, K0, 0b01, K0), ("round", 0, K0, 0b11, 0b0000110111),
    ("round", 0, K0, 0b10, 0b0000110111),
    ("floor", 0, K0, 0b01, K0), ("floor", 1, K0, 0b01, 0b0000110111),
    ("ceil", 0, K0, 0b01, 0b0000110111), ("ceil", 1, K0, 0b01, K0),
    ("trunc", 0, K0, 0b11, K0), ("trunc", 1, K0, 0b11, K0),
]


@pytest.mark.parametrize("mode,sign,kept,dropped,want", BF2H)
def test_bf16_to_half_mode_cases(mode: str, sign: int, kept: int, dropped: int,
                                 want: int) -> None:
    t = both(bf16_sub(kept, dropped, sign), "bf16", "fp16", mode)
    assert t.output_bits == (sign << 15) | want  # fp16 subnormal: exponent field 00000
    assert t.tie == (dropped == 0b10)


def test_bf16_to_half_rint_case_4_slip() -> None:
    # CAST_RINT (4): "0b0.00001100010xxx ... 1 % 2 == 1. Output: float16_mantissa =
    # 0b0.0000110001": the document prints the unrounded kept bits. At the midpoint with an
    # odd lsb, rint rounds up: 0000110001 + 1 = 0000110010.
    assert one(bf16_sub(K1, 0b10), "bf16", "fp16", "rint") == 0b0000110010


def test_bf16_to_half_2_90573e_06() -> None:
    # bf16 0 01101100 1000011 -> fp16 0 00000 0000110001 (CAST_RINT: discarded 11 > 10).
    # The document prints "float16=0.00000293"; the value is 49 * 2^-24 = 2.9206e-06,
    # i.e. 0.00000292 to the document's 8 decimals (a printing slip).
    bits = (0b01101100 << 7) | 0b1000011
    t = both(bits, "bf16", "fp16", "rint")
    assert t.output_bits == 0b0000110001
    assert t.output_value == Fraction(49, 2**24)
    assert t.step("align").values["shift"] == 5
    assert round(float(t.input_value), 11) == 2.90573e-06


# --- Table 8: half -> bfloat16_t (3 bits discarded, midpoint 100) ---------------------------

H2BF = [  # (mode, sign, half mantissa, bf16 mantissa) as the document lists them
    ("rint", 0, 0b0111010011, 0b0111010), ("rint", 0, 0b0111010111, 0b0111011),
    ("rint", 0, 0b0111010100, 0b0111010),
    ("round", 0, 0b0111010011, 0b0111010), ("round", 0, 0b0111010111, 0b0111011),
    ("round", 0, 0b0111010100, 0b0111011),
    ("floor", 0, 0b0111010011, 0b0111010), ("floor", 1, 0b0111010011, 0b0111011),
    ("ceil", 0, 0b0111010011, 0b0111011), ("ceil", 1, 0b0111010011, 0b0111010),
    ("trunc", 0, 0b0111010011, 0b0111010), ("trunc", 1, 0b0111010011, 0b0111010),
]


@pytest.mark.parametrize("mode,sign,mh,want", H2BF)
def test_half_to_bf16_mode_cases(mode: str, sign: int, mh: int, want: int) -> None:
    t = both((sign << 15) | (15 << 10) | mh, "fp16", "bf16", mode)  # exponent 15: 2^0
    assert t.output_bits == (sign << 15) | (127 << 7) | want
    assert t.tie == (mh & 0b111 == 0b100)


def test_half_to_bf16_rint_case_4_slip() -> None:
    # Case (4) prints half_mantissa 0111010100 -> 0111011 as "odd lsb, rounds up", but the
    # kept lsb of 0111010|100 is 0 (even): that is case (3)'s input again. Correct rint
    # keeps 0111010; an odd example would be 0111011100 -> 0111100.
    h = (15 << 10) | 0b0111010100
    assert one(h, "fp16", "bf16") & 0x7F == 0b0111010
    assert one((15 << 10) | 0b0111011100, "fp16", "bf16") & 0x7F == 0b0111100


def test_half_to_bf16_round_0_131() -> None:
    # half 0 01100 0000110001 -> bf16 0 01111100 0000110 = 0.130859 (CAST_ROUND). The
    # document prints the bf16 exponent as "1111100" (7 bits, leading 0 dropped: 124).
    h = (0b01100 << 10) | 0b0000110001
    t = both(h, "fp16", "bf16", "round")
    assert t.output_bits == (0b01111100 << 7) | 0b0000110
    assert round(float(t.output_value), 6) == 0.130859
    assert round(float(t.input_value), 3) == 0.131


# --- Table 8: float -> fp8_e4m3fn_t (20 bits discarded) -------------------------------------

@pytest.mark.parametrize("m32,want", [
    (0b01100100110000000000000, 0b011), (0b01110100110000000000000, 0b100),
    (0b01010000000000000000000, 0b010), (0b01110000000000000000000, 0b100)])
def test_float_to_e4m3fn_mantissa_examples(m32: int, want: int) -> None:
    t = both(E | m32, "fp32", "fp8_e4m3fn")
    assert t.output_bits == (7 << 3) | want  # exponent 0 -> 0111
    assert t.tie == (m32 & 0xFFFFF == 0x80000)


def test_float_to_e4m3fn_1_233() -> None:
    # 1.233 = 0 01111111 00111011101001011110010 -> 0 0111 010 = 1.25
    b = f32(1.233)
    assert b == 0b0_01111111_00111011101001011110010
    t = both(b, "fp32", "fp8_e4m3fn")
    assert t.output_bits == 0b0_0111_010 and t.output_value == Fraction(5, 4)


# --- Table 8: float -> fp8_e5m2_t (21 bits discarded; CAST_RINT only) ------------------------

@pytest.mark.parametrize("m32,want", [
    (0b01000100110000000000000, 0b01), (0b01101001100000000000000, 0b10),
    (0b00100000000000000000000, 0b00)])
def test_float_to_e5m2_mantissa_examples(m32: int, want: int) -> None:
    t = both(E | m32, "fp32", "fp8_e5m2")
    assert t.output_bits == (15 << 2) | want  # exponent 0 -> 01111
    assert t.tie == (m32 & 0x1FFFFF == 0x100000)


def test_float_to_e5m2_case_4_22_bit_slip() -> None:
    # Case (4) prints float_mantissa = "0110000000000000000000": 22 bits, one 0 short. The
    # intended 23-bit mantissa 01|100000000000000000000 is a midpoint with an odd kept lsb
    # and rounds up to the printed 10. Read as a 23-bit number (a leading 0 added) it would
    # be 00|110000000000000000000, above the midpoint, giving 01: so the test follows the
    # case's stated class (tie, odd lsb).
    t = both(E | 0b01100000000000000000000, "fp32", "fp8_e5m2")
    assert t.output_bits & 0b11 == 0b10 and t.tie
    assert one(E | 0b0110000000000000000000, "fp32", "fp8_e5m2") & 0b11 == 0b01


def test_float_to_e5m2_1_233() -> None:
    # -> 0 01111 01 = 1.25
    t = both(f32(1.233), "fp32", "fp8_e5m2")
    assert t.output_bits == 0b0_01111_01 and t.output_value == Fraction(5, 4)


# --- Table 8: bfloat16_t -> fp4x2_e2m1_t / fp4x2_e1m2_t --------------------------------------
# The mode cases print the value below 1 as "0b0.<10 fraction bits>" with "xxx" free: the
# test takes xxx = 000 and the bf16 holding that value exactly. e2m1 keeps 1 fraction bit
# (0.5) below 1.0, e1m2 keeps 2 (0.25); both formats' subnormal codes are the kept bits.

E2M1 = [  # (mode, sign, "0.<fraction>", e2m1 code as the document's output implies)
    ("rint", 0, "0.0000110", 0b000), ("rint", 0, "0.0100110", 0b001),
    ("rint", 0, "0.0100000", 0b000),
    ("round", 0, "0.0000110", 0b000), ("round", 0, "0.0100110", 0b001),
    ("round", 0, "0.0100000", 0b001),
    ("floor", 0, "0.0000110", 0b000), ("floor", 1, "0.0100110", 0b001),
    ("ceil", 0, "0.0000110", 0b001), ("ceil", 1, "0.0100110", 0b000),
    ("trunc", 0, "0.0100110", 0b000), ("trunc", 1, "0.0100110", 0b000),
]


@pytest.mark.parametrize("mode,sign,x,want", E2M1)
def test_bf16_to_e2m1_mode_cases(mode: str, sign: int, x: str, want: int) -> None:
    t = both((sign << 15) | bf16_exact(frac(x)), "bf16", "fp4_e2m1", mode)
    assert t.output_bits == (sign << 3) | want  # floor/ceil toward zero keep the sign (-0)
    assert t.tie == (x == "0.0100000")


BF16_0_761719 = (0b01111110 << 7) | 0b1000011  # bf16 0 01111110 1000011, both fp4 sections


def test_bf16_to_e2m1_rint_case_4_slip() -> None:
    # CAST_RINT (4): "0b0.1100000xxx ... 1 % 2 == 1. Output: float4_e2m1_mantissa = 0b0.1".
    # 0.75 is the midpoint of 0.5 (mantissa 1, odd) and 1.0 (0 01 0, even): rounding up
    # carries into the exponent and gives 1.0; the document prints the unrounded kept bit.
    t = both(bf16_exact(frac("0.1100000")), "bf16", "fp4_e2m1", "rint")
    assert t.output_bits == 0b0_01_0 and t.output_value == 1 and t.tie


@pytest.mark.parametrize(("fmt", "want"), [
    # e2m1: the nine low bits 011011011 are below the midpoint 0b100000000: rint -> 0.
    ("fp4_e2m1", 0),
    # e1m2: the eight low bits 11011011 are above the midpoint 0b10000000: rint -> 0.01.
    ("fp4_e1m2", 0b0_0_01),
])
def test_bf16_to_fp4_example_1(fmt: str, want: int) -> None:
    # Example 1 of both fp4 sections: exponent 124 (-3), mantissa 1011011 -> 0b0.0011011011;
    # the document stops at the rounding decision.
    t = both((124 << 7) | 0b1011011, "bf16", fmt)
    assert t.output_bits == want and t.step("align").values["shift"] == 3


def test_bf16_to_e2m1_0_761719() -> None:
    # bf16 0 01111110 1000011 -> 0.11000011 after the shift. The document says "The
    # discarded precision 1000011 is greater than the discarded precision midpoint 1000000.
    # Therefore, rounding is performed. float4_e2m1_mantissa = 0.1 ... float4_e2m1=0.5": it
    # prints the unrounded kept bit. Rounding 0.1 up carries into the exponent: 1.0
    # (0 01 0), the nearest e2m1 value to 0.761719 (midpoint 0.75).
    t = both(BF16_0_761719, "bf16", "fp4_e2m1")
    assert t.output_bits == 0b0_01_0 and t.output_value == 1
    assert t.step("carry").values["exponent"] == 0


E1M2 = [  # (mode, sign, "0.<fraction>", e1m2 code)
    ("rint", 0, "0.0000011", 0b00), ("rint", 0, "0.0010011", 0b01),
    ("rint", 0, "0.0010000", 0b00), ("rint", 0, "0.0110000", 0b10),
    ("round", 0, "0.0000110", 0b00), ("round", 0, "0.0010110", 0b01),
    ("round", 0, "0.0010000", 0b01),
    ("floor", 0, "0.0000110", 0b00), ("floor", 1, "0.0010011", 0b01),  # see the slip test
    ("ceil", 0, "0.0000110", 0b01), ("ceil", 1, "0.0010110", 0b00),
    ("trunc", 0, "0.0010110", 0b00), ("trunc", 1, "0.0010110", 0b00),
]


@pytest.mark.parametrize("mode,sign,x,want", E1M2)
def test_bf16_to_e1m2_mode_cases(mode: str, sign: int, x: str, want: int) -> None:
    t = both((sign << 15) | bf16_exact(frac(x)), "bf16", "fp4_e1m2", mode)
    assert t.output_bits == (sign << 3) | want
    assert t.tie == (x in ("0.0010000", "0.0110000"))


@pytest.mark.parametrize("x", ["0.0010011", "0.0010110", "0.00100110"])
def test_bf16_to_e1m2_floor_case_2_11_bit_slip(x: str) -> None:
    # CAST_FLOOR (2) prints "0b0.00100110xxx": 11 fraction bits, one too many. Read as
    # 0.0010011 (RINT (2)'s value), as 0.0010110 (the other cases') or literally, a negative
    # input floors to the printed -0.01 (code 1 001) all the same.
    assert one((1 << 15) | bf16_exact(frac(x)), "bf16", "fp4_e1m2", "floor") == 0b1001


def test_bf16_to_e1m2_0_761719() -> None:
    # bf16 0.761719 -> e1m2 0 0 11 = 0.75 (discarded 000011 below the midpoint 100000).
    # The document labels this result "float4_e2m1_mantissa = 0.11 ... float4_e2m1=0.75"
    # in the e1m2 section (a naming slip); the value is right.
    t = both(BF16_0_761719, "bf16", "fp4_e1m2")
    assert t.output_bits == 0b0_0_11 and t.output_value == Fraction(3, 4)


# --- Tables 9 / 10: HiFloat8 special encodings --------------------------------------------

@pytest.mark.parametrize("mode", ["round", "hybrid"])
def test_hif8_special_encodings(mode: str) -> None:
    # Table 9 (float): NaN -> 0x80; inf or Ev > 15 -> +-INF 0x6F / 0xEF; Ev < -23 -> 0.
    assert one(0x7FC00000, "fp32", "hif8", mode) == 0b10000000
    assert one(0x7F800000, "fp32", "hif8", mode) == 0b01101111
    assert one(0xFF800000, "fp32", "hif8", mode) == 0b11101111
    assert one(f32(2.0**16), "fp32", "hif8", mode) == 0b01101111  # Ev = 16 > 15
    assert one(f32(2.0**-24), "fp32", "hif8", mode) == 0
    # Table 10 (half) has the same codes; its "tmp2[31]" sign test is a slip for the
    # half's sign bit 15 (a 16-bit source has no bit 31): -inf gives 0xEF.
    assert one(0x7E00, "fp16", "hif8", mode) == 0b10000000
    assert one(0x7C00, "fp16", "hif8", mode) == 0b01101111
    assert one(0xFC00, "fp16", "hif8", mode) == 0b11101111


def test_hif8_ev_minus_23_half_away() -> None:
    # Table 9: Ev == -23 under Half To Away Round gives the min subnormal 0x01 / 0x81.
    assert one(f32(2.0**-23), "fp32", "hif8", "round") == 0b00000001
    assert one(f32(-1.5 * 2.0**-23), "fp32", "hif8", "round") == 0b10000001


# --- Constraints: special values and out-of-range inputs -----------------------------------

NAN32, INF32, NINF32 = 0x7FC00000, 0x7F800000, 0xFF800000
H257 = 0x5C04  # half 257.0


@pytest.mark.parametrize("bits,src,dst,sat,want", [
    # float -> int: out of range keeps the low bits (half 257 -> uint8 1), with sat 255;
    # +-inf -> max/min; NaN -> 0; sat: half -inf -> uint8 0
    (H257, "fp16", "uint8", False, 1), (H257, "fp16", "uint8", True, 255),
    (INF32, "fp32", "int32", False, 0x7FFFFFFF), (NINF32, "fp32", "int32", False, 0x80000000),
    (NAN32, "fp32", "int32", False, 0), (NAN32, "fp32", "int32", True, 0),
    (0xFC00, "fp16", "uint8", True, 0), (0x7E00, "fp16", "uint8", True, 0),
    # float -> float, non-saturating: NaN -> NaN, +-inf -> +-inf
    (NAN32, "fp32", "fp16", False, 0x7E00), (INF32, "fp32", "fp16", False, 0x7C00),
    (NINF32, "fp32", "bf16", False, 0xFF80),
    # saturating: NaN -> 0, out of range -> the largest value (with the sign)
    (NAN32, "fp32", "bf16", True, 0), (f32(1e10), "fp32", "fp16", True, 0x7BFF),
    (f32(-1e10), "fp32", "fp16", True, 0xFBFF), (INF32, "fp32", "fp16", True, 0x7BFF),
    # e4m3fn has no inf: inf -> NaN; e5m2 / e4m3fn: NaN -> 0 by default
    (INF32, "fp32", "fp8_e4m3fn", False, 0x7F), (NAN32, "fp32", "fp8_e5m2", False, 0),
    (NAN32, "fp32", "fp8_e4m3fn", False, 0),
    # bf16 -> fp4: inf or out of range -> +-max, NaN -> 0
    (0xFF80, "bf16", "fp4_e2m1", False, 0xF), (0x4200, "bf16", "fp4_e1m2", False, 0x7),
    (0x7FC0, "bf16", "fp4_e2m1", False, 0), (0x7FC0, "bf16", "fp4_e1m2", False, 0),
    # e8m0: +-inf or |x| beyond its max -> 0xFE; NaN -> 0xFF; |x| is converted
    (0x7F80, "bf16", "fp8_e8m0", False, 0xFE), (0xFF80, "bf16", "fp8_e8m0", False, 0xFE),
    (0x7FC0, "bf16", "fp8_e8m0", False, 0xFF), (0xC380, "bf16", "fp8_e8m0", False, 127 + 8),
    # int -> int: int32 256 -> uint8 0 (truncated), 255 with sat; narrow -> wide only
    # saturates: int16 -1 -> uint32 0
    (256, "int32", "uint8", False, 0), (256, "int32", "uint8", True, 255),
    (0xFFFF, "int16", "uint32", False, 0),
])
def test_constraints(bits: int, src: str, dst: str, sat: bool, want: int) -> None:
    assert one(bits, src, dst, "rint", sat) == want
