"""Vectorized, bit-exact conversion: `convert(bits, src, dst, mode, sat, profile)`.

Paths (all agree with the generic decode -> round -> special-value rules):
- sources of <= 8 bits, and 16-bit sources with many lanes: a cached table of
  every source encoding, built once per option set by the paths below, then one
  fancy-index (a few 16-bit lanes are converted directly: cheaper than a table);
- fp32 -> float formats (ieee / ascend): a uint32 bit kernel (_fast32);
- everything else: decode to exact lanes (_exact), round (_round / _hif8), then
  the profile's special-value rules (_policy).
- profile `neuron` (ref 000 §6, DESIGN): src -> fp32 -> dst. Float targets with
  an ml_dtypes type use its `astype` bit for bit (that *is* numpy astype: NaN
  payloads as numpy / ml_dtypes keep them, fp4 NaN -> ml_dtypes' code); with
  `sat` the fp32 value is first clamped to +-max (inf too) and a NaN going to a
  format without NaN gives 0. e8m0 is the exception: ml_dtypes does not round
  it to nearest (ties always go up, fp32 subnormals round up), so e8m0, like
  fp32r, fp4_e1m2 and hif8 (no ml_dtypes type), uses the ieee rint rules.
  Integer sources reach fp32 by RNE (int32 beyond 2^24 loses bits); integer
  targets truncate toward zero and saturate, NaN -> 0.
Decisions where the spec is silent are in _policy's docstring.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from neurondbg.machine.convert import _policy as pol
from neurondbg.machine.convert._exact import (
    FINITE,
    INF,
    NAN,
    U64,
    Lanes,
    as_bits,
    decode,
    lanes_value,
)
from neurondbg.machine.convert._fast32 import fast32_applies, fp32_to_float
from neurondbg.machine.convert._hif8 import round_hif8
from neurondbg.machine.convert._round import round_float, round_int
from neurondbg.machine.convert.formats import FORMATS, FloatFormat, Format, IntFormat
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.options import Options, resolve

__all__ = ["cast_rows", "convert", "convert_into", "decode_value", "encode_value", "numpy_cast"]


def convert(bits: object, src: str | Format, dst: str | Format, mode: str = "rint",
            sat: bool = False, profile: str = "ieee", *, out: np.ndarray | None = None
            ) -> np.ndarray:
    """Convert encodings of `src` to encodings of `dst` (DESIGN "Conversion API").

    bits: array-like of unsigned encodings (negative ints are read as two's
    complement patterns); returns an array of the same shape in dst's container.

    out (keyword only): a preallocated array of dst's container dtype and the shape
    of `bits` (any strides, e.g. a view of machine memory) that receives the result
    and is returned. The table, same-dtype and numpy-cast paths (see `convert_into`)
    write straight into it (no temporary of the result); the others copy once. It
    may overlap `bits`: the result is then computed before `out` is touched.
    """
    opt = resolve(src, dst, mode, sat, profile)
    b = as_bits(bits, opt.src)
    if out is not None:
        _check_out(out, b.shape, opt.dst.container)
        if _overlap(b, out):
            out[...] = convert(b, opt.src, opt.dst, opt.mode, opt.sat, opt.profile)
            return out
        return convert_into(b, opt, out)
    if opt.profile == "neuron" and opt.src == opt.dst:
        # Ref 000 §6.1: a Cast whose in_dtype == out_dtype "degenerates to the pool_copy
        # bit-move" (NKI: "bit-accurate copy when input and output data types are the
        # same"): no fp32 hub, so int32 2^24+1 and NaN payloads survive.
        return b.copy()
    if _use_lut(opt, b):
        return _lut(opt)[b.astype(np.intp)]
    return _convert_wide(b, opt)


Before = Callable[[int, int], object]


def convert_into(b: np.ndarray, opt: Options, out: np.ndarray, before: Before | None = None
                 ) -> np.ndarray:
    """`convert(b, ..., out=out)` for resolved options (machine.convert.options.resolve).

    The caller guarantees what `convert` checks: `b` is in opt.src's container, `out` is
    a writeable array of opt.dst's container and b's shape, and they share no byte.
    before(lo, hi), when given, is called just before rows lo..hi-1 (the first axis) of
    `out` are first written, in increasing order, covering every row once, so a journal
    can take the old bytes as the write reaches them (MachineState.open_write). Paths
    that compute the whole result first call it once, with all rows, right before the copy.
    """
    if opt.profile == "neuron" and opt.src == opt.dst:
        direct: tuple[np.dtype, np.dtype] | None = (opt.src.container, opt.src.container)
    elif _use_lut(opt, b):
        if before is not None:
            before(0, _rows(out))
        # Indices are < 2**bits by construction: "clip" never clips, and unlike the
        # default "raise" it lets take write into `out` without a buffer.
        return np.take(_lut(opt), b.astype(np.intp), out=out, mode="clip")
    else:
        direct = _cast_dtypes(opt)
    if direct is None:
        res = _convert_wide(b, opt)
        if before is not None:
            before(0, _rows(out))
        out[...] = res
        return out
    cast_rows(b, out, (*direct, _warns(*direct)), before)
    return out


NumpyCast = tuple[np.dtype, np.dtype, bool]


def numpy_cast(opt: Options) -> NumpyCast | None:
    """(source dtype, destination dtype, may set FP flags) when `convert_into` converts
    any array of opt.src by that one numpy cast (`cast_rows`), else None: for sources
    wider than 16 bits (never a table, whatever the size), resolved once per CAST plan
    (machine.engines.tensor.direct_cast) so a step does not decide it again."""
    if opt.src.bits <= 16:
        return None
    if opt.profile == "neuron" and opt.src == opt.dst:
        pair = (opt.src.container, opt.src.container)
    else:
        found = _cast_dtypes(opt)
        if found is None:
            return None
        pair = found
    return (*pair, _warns(*pair))


def _warns(src: np.dtype, dst: np.dtype) -> bool:
    """Whether numpy's cast src -> dst may raise an FP warning (so needs errstate).

    Checked with every flag raising (tests/machine/test_cast_plan.py): a bit copy
    (equal dtypes) and the exact widening of a float format to fp32 never set one over
    every source encoding; fp32 -> bf16, fp16 and the fp8 / fp4 types do (NaN inputs
    set `invalid`, fp16 overflow sets `over`), so those keep the errstate.
    """
    return src != dst and dst != np.float32


def cast_rows(b: np.ndarray, out: np.ndarray, cast: NumpyCast, before: Before | None = None
              ) -> None:
    """out[...] = b converted by the numpy cast `cast` (`numpy_cast`), both viewed as its
    dtypes; `before` as in `convert_into`. The caller guarantees convert_into's terms."""
    src, dst, warns = cast
    if warns:
        with np.errstate(over="ignore", invalid="ignore"):  # astype's NaN/overflow casts
            _cast_rows(out.view(dst), b.view(src), before)  # are meant
    else:
        _cast_rows(out.view(dst), b.view(src), before)


def _use_lut(opt: Options, b: np.ndarray) -> bool:
    """Whether the table of every source encoding converts `b` (see the module docstring)."""
    return opt.src.bits <= 8 or (opt.src.bits <= 16 and (b.size >= _LUT_MIN or opt in _LUTS))


def _cast_dtypes(opt: Options) -> tuple[np.dtype, np.dtype] | None:
    """(source, destination) numpy dtypes when the neuron Cast of `opt` IS numpy's cast
    between them (ml_dtypes astype, bit for bit: the module docstring), else None.

    fp32 -> a float target with an ml_dtypes type (not e8m0, not saturating), and a
    float source with one -> fp32 (exact widening: the hub itself).
    """
    s, d = opt.src, opt.dst
    if opt.profile != "neuron":
        return None
    if s.is_fp32 and d.is_float and d.ml_dtype is not None and not d.is_scale and not opt.sat:
        return np.dtype(np.float32), d.ml_dtype
    if d.is_fp32 and s.is_float and s.ml_dtype is not None:
        return s.ml_dtype, np.dtype(np.float32)
    return None


def _rows(out: np.ndarray) -> int:
    return out.shape[0] if out.ndim else 1


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays share bytes. Views of one buffer (machine memory) are bounds-
    overlapping, so the exact test runs, with a work bound: too hard counts as shared."""
    if not np.may_share_memory(a, b):
        return False
    try:
        # numpy's stub admits only the MAY_SHARE constants; the function takes any bound
        return bool(np.shares_memory(a, b, max_work=1 << 12))  # type: ignore[arg-type]
    except np.exceptions.TooHardError:
        return True


def _check_out(out: object, shape: tuple[int, ...], container: np.dtype) -> None:
    if not isinstance(out, np.ndarray) or out.dtype != container or out.shape != shape:
        got = (f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray)
               else type(out).__name__)
        raise ValueError(f"out must be a {container} array of shape {shape}, got {got}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def _convert_wide(b: np.ndarray, opt: Options) -> np.ndarray:
    """Convert without a table (any source width)."""
    if opt.profile == "neuron":
        return _neuron(b, opt)
    if opt.src.is_fp32 and fast32_applies(opt.dst, opt.mode):
        return fp32_to_float(b, opt, encode_lanes)
    return generic(b, opt)


CHUNK = 1 << 16  # lanes per pass of the generic path: bounds its uint64 temporaries


def generic(b: np.ndarray, opt: Options) -> np.ndarray:
    """decode -> round -> special values, in chunks (memory stays O(CHUNK))."""
    if b.size <= CHUNK:
        return encode_lanes(decode(b, opt.src), opt, b)
    flat = np.ascontiguousarray(b).reshape(-1)
    out = np.empty(flat.shape, dtype=opt.dst.container)
    for i in range(0, flat.size, CHUNK):
        part = flat[i:i + CHUNK]
        out[i:i + CHUNK] = encode_lanes(decode(part, opt.src), opt, part)
    return out.reshape(b.shape)


_LUT_MIN = 1 << 12  # a 16-bit source table (65536 lanes) pays off from a few thousand lanes
_LUTS: dict[Options, np.ndarray] = {}
_LUTS_MAX = 256


def _lut(opt: Options) -> np.ndarray:
    """Every source encoding converted once (cached per option set)."""
    table = _LUTS.get(opt)
    if table is None:
        codes = np.arange(1 << opt.src.bits, dtype=opt.src.container)
        table = _neuron(codes, opt) if opt.profile == "neuron" else generic(codes, opt)
        table.setflags(write=False)
        if len(_LUTS) >= _LUTS_MAX:
            _LUTS.pop(next(iter(_LUTS)))  # oldest first
        _LUTS[opt] = table
    return table


# --- the generic path -------------------------------------------------------------------

def encode_lanes(lanes: Lanes, opt: Options, raw: np.ndarray | None = None) -> np.ndarray:
    """Round exact lanes into opt.dst under opt's mode/sat/profile rules."""
    if opt.dst.is_int:
        return _to_int(lanes, opt.dst, opt.mode, opt.sat, opt.profile)
    return _to_float(lanes, opt, raw)


def _to_float(lanes: Lanes, opt: Options, raw: np.ndarray | None) -> np.ndarray:
    dst, mode, sat, profile = opt.dst, opt.mode, opt.sat, opt.profile
    assert not dst.is_int
    neg = lanes.neg
    if dst.is_hif8:
        thr, frac_bits = _hybrid_thr(opt, raw, lanes) if mode == Mode.HYBRID else (None, 14)
        code, over, _ = round_hif8(lanes, mode, thr, frac_bits)
        enc = code.astype(np.int64)
        out = np.where(enc == 0, 0, pol.with_sign(enc, neg, dst))  # no -0: 0x80 is NaN
    else:
        e8m0 = dst.is_scale
        if e8m0 and profile == "ascend":  # ref 002 speaks of "the absolute value": |x|
            lanes = Lanes(lanes.cls, np.zeros(neg.shape, bool), lanes.mag, lanes.exp)
        enc, _ = round_float(lanes, dst.man_bits, dst.bias, dst.emin, mode)
        over = enc > (dst.max_code >> dst.pad_bits)
        enc = np.maximum(enc, 0) << dst.pad_bits  # e8m0 underflow (and ascend 0) -> 0x00
        out = pol.with_sign(enc, neg, dst)
    out = np.where(over, pol.overflow_result(dst, neg, mode, sat, profile), out)
    if dst.is_scale and profile != "ascend":
        # e8m0 holds only 2^k > 0: zero and negative finite inputs are NaN (as ml_dtypes)
        out = np.where((lanes.cls == FINITE) & (neg | (lanes.mag == 0)), 0xFF, out)
    out = np.where(lanes.cls == INF, pol.inf_result(dst, neg, mode, sat, profile), out)
    out = np.where(lanes.cls == NAN, pol.nan_result(dst, neg, sat, profile), out)
    return out.astype(dst.container)


def _hybrid_thr(opt: Options, raw: np.ndarray | None, lanes: Lanes) -> tuple[np.ndarray, int]:
    """Hybrid thresholds from the source encoding: Table 9 (fp32) / Table 10 (fp16).

    Other float sources use Table 9 on their exact fp32 widening.
    """
    if opt.src.is_fp16:
        assert raw is not None
        return ((raw.astype(np.int64) & 1) << 1) | 1, 2
    if not opt.src.is_fp32 or raw is None:
        raw = _to_float(lanes, Options(opt.src, _FP32, Mode.RINT, False, "ieee"), None)
    return raw.astype(np.int64) & 0x3FFF, 14


def _to_int(lanes: Lanes, dst: IntFormat, mode: str, sat: bool, profile: str) -> np.ndarray:
    res, huge, low = round_int(lanes, mode)
    w = dst.bits
    mask = U64((1 << w) - 1)
    neg = lanes.neg
    lim_pos = U64(dst.max_value)
    lim_neg = U64(-dst.min_value)
    in_range = ~huge & np.where(neg, res <= lim_neg, res <= lim_pos)
    max_pat = U64(dst.max_value) & mask
    min_pat = U64(dst.min_value & ((1 << w) - 1))
    clamp = np.where(neg, min_pat, max_pat)

    def pattern(m: np.ndarray) -> np.ndarray:  # two's complement of +-m in w bits
        return np.where(neg, (~m + U64(1)) & mask, m & mask)

    out = np.where(in_range, pattern(res), pattern(low) if profile == "ascend" and not sat
                   else clamp)
    out = np.where(lanes.cls == INF, clamp, out)
    out = np.where(lanes.cls == NAN, U64(0), out)
    return out.astype(dst.container)


# --- neuron: the Cast of reference 000 (src -> fp32 -> dst) ------------------------------

_FP32 = FORMATS["fp32"]


def _neuron(b: np.ndarray, opt: Options) -> np.ndarray:
    """The neuron Cast (ref 000 §6): src -> fp32 -> dst (one numpy cast when the hub is
    the source or the target, `_cast_dtypes`)."""
    direct = _cast_dtypes(opt)
    with np.errstate(over="ignore", invalid="ignore"):  # astype's NaN/overflow casts are meant
        if direct is not None:
            return b.view(direct[0]).astype(direct[1]).view(opt.dst.container)
        return _neuron_hub(b, opt)


def _neuron_hub(b: np.ndarray, opt: Options) -> np.ndarray:
    """src -> fp32 (the hub) -> dst, for the pairs that are not one numpy cast."""
    src, dst = opt.src, opt.dst
    if src.is_fp32:
        hub = b
    elif src.is_float and src.ml_dtype is not None:
        hub = b.view(src.ml_dtype).astype(np.float32).view(np.uint32)
    elif src.is_int and src.bits <= 32:  # numpy's int -> float32 is RNE
        hub = _int_values(b, src).astype(np.float32).view(np.uint32)
    else:  # int64/uint64 (RNE into fp32), hif8, fp4_e1m2 (exact)
        hub = generic(b, Options(src, _FP32, Mode.RINT, False, "ieee"))
    if dst.is_fp32:
        return hub.astype(np.uint32)
    f32 = hub.view(np.float32)
    if dst.is_float and dst.ml_dtype is not None and not dst.is_scale:
        if not opt.sat:
            return f32.astype(dst.ml_dtype).view(dst.container)
        top = np.float32(dst.max_value)
        out = np.clip(f32, -top, top).astype(dst.ml_dtype).view(dst.container)
        if dst.nan == "none":
            out = np.where(np.isnan(f32), 0, out).astype(dst.container)
        return out
    if dst.is_int and dst.bits <= 32:
        # float64 holds every fp32 value and both bounds exactly: trunc, clamp, NaN -> 0
        v = np.nan_to_num(np.trunc(f32.astype(np.float64)), nan=0.0)
        v = np.clip(v, dst.min_value, dst.max_value).astype(np.int64)
        ints: np.ndarray = (v & ((1 << dst.bits) - 1)).astype(dst.container)
        return ints
    mode = Mode.TRUNC if dst.is_int else Mode.RINT
    return generic(hub, Options(_FP32, dst, mode, opt.sat, "ieee"))


SCRATCH_BYTES = 1 << 18  # a block of output rows that stays in cache


def _cast_rows(out: np.ndarray, src: np.ndarray, before: Before | None) -> None:
    """out[...] = src cast to out's dtype (numpy's cast), calling before(lo, hi) just
    before rows lo..hi-1 of `out` are written (see `convert_into`); `out` and `src` disjoint.

    Arrays whose bounds do not overlap (machine memory written through its second
    mapping, MachineState.write_alias) take one numpy cast, after one before(0, n):
    measured for 128 x 4096 fp32 -> bf16, a zero check or copy of all old bytes and one
    cast beat the same in cache-sized blocks. Views of one buffer overlap in bounds, and
    numpy's bounds-only overlap guard would then cast all of `src` into a temporary
    first; a scratch block of rows that stays in cache does the same in pieces
    (measured: ~20% faster for 128 x 4096), and `before` reads each block of `out` just
    before it is converted and written.
    """
    if out.ndim < 2 or not np.may_share_memory(out, src):
        if before is not None:
            before(0, _rows(out))
        np.copyto(out, src, casting="unsafe")
        return
    n = out.shape[0]
    rows = max(1, SCRATCH_BYTES // max(1, out[0].nbytes))
    tmp = np.empty((min(rows, n), *out.shape[1:]), out.dtype)
    for p in range(0, n, rows):
        q = min(p + rows, n)
        if before is not None:
            before(p, q)  # first: old bytes taken while the block is still in cache
        part = tmp[:q - p]
        np.copyto(part, src[p:q], casting="unsafe")
        out[p:q] = part


def _int_values(b: np.ndarray, fmt: IntFormat) -> np.ndarray:
    """Signed values of two's-complement patterns (int4 sign-extended), as int64."""
    v = b.astype(np.int64)
    if fmt.signed:
        half = np.int64(1 << (fmt.bits - 1))
        v ^= half
        v -= half  # (v ^ s) - s sign-extends a `bits`-wide pattern
    return v


# --- value helpers (CLI, traces, UI) -----------------------------------------------------

def decode_value(bits: object, fmt: str | Format) -> np.ndarray:
    """Exact value of each encoding as float64 (NaN / inf as float; int64 beyond 2^53 rounds)."""
    f = resolve(fmt, "fp32").src if isinstance(fmt, str) else fmt
    return lanes_value(decode(as_bits(bits, f), f))


def encode_value(values: object, fmt: str | Format, mode: str = "rint",
                 sat: bool = False, profile: str = "ieee") -> np.ndarray:
    """Round float64 values into `fmt` (ieee/ascend rules of `profile`) in one step.

    float64 values are decoded exactly (53-bit significand) and rounded once, so no
    double rounding happens for any destination. Typed decimal text does not come this
    way: machine.convert.parse reads it exactly (no float64 on the way).
    """
    v = np.asarray(values, dtype=np.float64)
    dst = FORMATS[fmt] if isinstance(fmt, str) and fmt in FORMATS else fmt
    opt = resolve("fp32", dst, mode, sat, "ieee" if profile == "neuron" else profile)
    return encode_lanes(float64_lanes(v), Options(_FP64, opt.dst, opt.mode, opt.sat,
                                                  opt.profile), None)


_FP64 = FloatFormat("fp64", 64, 11, 52, 1023)


def float64_lanes(v: np.ndarray) -> Lanes:
    """Exact lanes of float64 values."""
    b = v.view(np.uint64)
    neg = (b >> U64(63)) == 1
    e = ((b >> U64(52)) & U64(0x7FF)).astype(np.int64)
    m = b & U64((1 << 52) - 1)
    mag = np.where(e == 0, m, m | U64(1 << 52))
    exp = np.where(e == 0, -1074, e - 1075)
    cls = np.where(e == 0x7FF, np.where(m == 0, INF, NAN), FINITE).astype(np.uint8)
    return Lanes(cls, neg, np.where(cls == FINITE, mag, U64(0)), exp)
