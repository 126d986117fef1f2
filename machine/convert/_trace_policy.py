"""Special-value rules of each profile for one lane: NaN, infinity, overflow, integer range.

DESIGN.md "Conversion API" (profiles) is the contract; ref 002 "Constraints" for `ascend`.
Each function returns (code, sentence, saturated).
"""

from __future__ import annotations

from neurondbg.machine.convert._trace_codec import inf_code, max_code, nan_code
from neurondbg.machine.convert.formats import FloatFormat, Format, HiF8Format, IntFormat
from neurondbg.machine.convert.modes import Mode

Outcome = tuple[int, str, bool]


def effective_sat(dst: Format, sat: bool, profile: str) -> bool:
    # ref 002 Constraints: "When the output type is float32, only the non-saturation mode
    # is supported" -- so sat is ignored for fp32 output under ascend.
    return sat and not (profile == "ascend" and dst.is_fp32)


def nan_result(dst: Format, sign: int, sat: bool, profile: str) -> Outcome:
    if dst.is_int:
        return 0, f"NaN has no {dst.name} encoding: it converts to 0", False
    if profile == "ascend":
        if dst.is_scale:
            return 0xFF, "ref 002: bf16 NaN gives the e8m0 NaN 0b11111111", False
        if effective_sat(dst, sat, profile):
            return 0, "ref 002: in saturation mode a NaN input gives 0", False
        if dst.is_minifloat:
            return 0, f"ref 002: a NaN input to {dst.name} gives 0", False
    code = nan_code(dst, sign)
    if code is None:
        return 0, f"{dst.name} has no NaN: NaN converts to 0", False
    return code, f"NaN stays NaN: {dst.name}'s NaN encoding", False


def _toward_zero(mode: str, sign: int) -> bool:
    return (mode == Mode.TRUNC or (mode == Mode.FLOOR and not sign)
            or (mode == Mode.CEIL and sign != 0))


def float_overflow(dst: FloatFormat | HiF8Format, sign: int, mode: str, sat: bool, profile: str,
                   inf_input: bool) -> Outcome:
    """Result for an infinite input or a finite value rounded beyond the largest finite one."""
    what = "an infinite input" if inf_input else "the rounded value exceeds the largest finite"
    mx = max_code(dst, sign)
    if profile == "ascend" and dst.is_scale:
        return 0xFE, f"{what}: ref 002 gives the e8m0 maximum 0b11111110", True
    if profile == "ascend" and dst.is_float and dst.bits == 4:
        return mx, f"{what}: ref 002 gives the fp4 maximum with the input's sign", True
    if effective_sat(dst, sat, profile):
        return mx, f"{what}: saturation clamps to the largest finite value", True
    inf = inf_code(dst, sign)
    if inf_input and inf is not None:
        return inf, "infinity stays infinity", False
    if mode == Mode.ODD:
        return mx, f"{what}: round-to-odd overflows to the largest finite value", True
    if _toward_zero(mode, sign):
        return mx, f"{what}: {mode} rounds toward zero, so the largest finite value", True
    if inf is not None:
        return inf, f"{what}: without saturation it overflows to infinity", False
    nan = nan_code(dst, sign)
    if nan is not None:
        return nan, f"{what}: {dst.name} has no infinity, so it overflows to NaN", False
    return mx, f"{what}: {dst.name} has neither infinity nor NaN: the largest finite value", True


def int_range(dst: IntFormat, value: int, sat: bool, profile: str, wrap_ok: bool) -> Outcome:
    """An integer result (already rounded) into dst's range.

    wrap_ok: the profile's non-saturating rule keeps the low bits (ref 002: ascend,
    float -> int and int -> int without SatMode::SAT); otherwise out-of-range clamps.
    """
    mask = (1 << dst.bits) - 1
    if dst.min_value <= value <= dst.max_value:
        return value & mask, f"{value} fits {dst.name} [{dst.min_value}, {dst.max_value}]", False
    if wrap_ok and not sat:
        low = value & mask
        return low, (f"{value} is outside {dst.name}; without saturation the low {dst.bits} "
                     f"bits are kept (ref 002): 0x{low:x}"), False
    clamped = dst.max_value if value > 0 else dst.min_value
    return clamped & mask, (f"{value} is outside {dst.name} [{dst.min_value}, "
                            f"{dst.max_value}]: saturates to {clamped}"), True


def int_infinity(dst: IntFormat, sign: int) -> Outcome:
    v = dst.min_value if sign else dst.max_value
    return v & ((1 << dst.bits) - 1), f"{'-' if sign else '+'}inf gives {dst.name}'s " \
        f"{'minimum' if sign else 'maximum'} {v}", True
