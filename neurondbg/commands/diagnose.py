"""`neurondbg diagnose INPUT ACTUAL --from F --to T`: which conversion rule explains an output.

INPUT holds the source lanes and ACTUAL the output a device, a simulator or another
library produced, both `.npy` (any shape, the same for both). Without --bits they hold
values (float or integer arrays), each of which must be exactly a value of its format;
with --bits, encodings in the format's container (uint8 / uint16 / uint32 / uint64).
The work is machine.convert.diagnose's: every profile x mode x saturation and the usual
slips, one vectorized convert per rule.

Decisions where the specification is silent: the expected rule is `--profile/--mode/--sat`
(default ieee rint, no saturation); with --reference REF lanes are judged against that
array instead. Comparing values (no --bits), any NaN matches any NaN; with --bits
encodings must match bit for bit. `--trace-lane 3,17` (or a flat index) traces that
lane under the expected rule and under the first rule that explains it, side by side.
On a terminal, stderr shows a bar of the lanes judged while the rules are tried
(neurondbg.progress, counting the lanes machine.convert.diagnose has judged).
"""

from __future__ import annotations

import json
import math
import re
from itertools import zip_longest
from typing import TYPE_CHECKING

import click
import numpy as np

from neurondbg.commands._npy import judge_npy_header
from neurondbg.documents import Kind, stamp
from neurondbg.errors import InputError
from neurondbg.machine.convert.diagnose import Diagnosis, Rule, diagnose, explaining_rule
from neurondbg.machine.convert.formats import Format, parse_format
from neurondbg.machine.convert.kernels import decode_value, encode_value
from neurondbg.machine.convert.modes import Mode
from neurondbg.machine.convert.options import resolve
from neurondbg.machine.convert.roles import plain_bits
from neurondbg.machine.files import MAX_DATA_BYTES, InputFileError, open_stream, read_npy
from neurondbg.params import FORMAT, MODE, PROFILE
from neurondbg.progress import progress

if TYPE_CHECKING:
    from neurondbg.machine.convert.trace import Step

VALUE_DTYPES = tuple(np.dtype(t) for t in (
    np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8,
    np.uint16, np.uint32, np.uint64))
MAX_DIM = 1 << 31  # per dimension; the file size (MAX_DATA_BYTES) bounds the total
ELIDE_OVER = 24


@click.command("diagnose")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@click.argument("actual_path", metavar="ACTUAL", type=click.Path(dir_okay=False))
@click.option("--from", "src_name", type=FORMAT, metavar="FMT", required=True,
              help="the format of INPUT")
@click.option("--to", "dst_name", type=FORMAT, metavar="FMT", required=True,
              help="the format of ACTUAL")
@click.option("--reference", "ref_path", metavar="REF", type=click.Path(dir_okay=False),
              default=None, help="judge lanes against this array instead of a rule")
@click.option("--bits", "as_bits", is_flag=True,
              help="the arrays hold encodings (the formats' uint containers), not values")
@click.option("--profile", type=PROFILE, metavar="PROFILE", default="ieee", show_default=True,
              help="the expected rule's profile")
@click.option("--mode", type=MODE, metavar="MODE", default=Mode.RINT.value, show_default=True,
              help="the expected rule's rounding mode")
@click.option("--sat/--nosat", default=False, help="the expected rule saturates")
@click.option("--trace-lane", "lane_text", metavar="INDEX", default=None,
              help="trace this lane (e.g. 3,17) under the expected and the explaining rule")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def command(input_path: str, actual_path: str, src_name: str, dst_name: str,
            ref_path: str | None, as_bits: bool, profile: str, mode: Mode, sat: bool,
            lane_text: str | None, as_json: bool) -> None:
    """Find which conversion rule reproduces ACTUAL from INPUT, lane by lane."""
    try:
        src, dst = parse_format(src_name), parse_format(dst_name)
        opt = resolve(src, dst, mode, sat, profile)
    except ValueError as exc:
        raise InputError(f"diagnose: {exc}") from None
    x = load_lanes(input_path, src, as_bits, "INPUT")
    y = load_lanes(actual_path, dst, as_bits, "ACTUAL")
    ref = load_lanes(ref_path, dst, as_bits, "REF") if ref_path else None
    for name, arr in (("ACTUAL", y), ("REF", ref)):
        if arr is not None and arr.shape != x.shape:
            raise InputError(f"diagnose: {name} has shape {arr.shape} but INPUT {x.shape}: "
                             "one output per input lane expected")
    lane = parse_lane(lane_text, x.shape) if lane_text is not None else None  # before the work
    expected = Rule(opt.profile, opt.mode, opt.sat)
    with progress(x.size, "diagnose", "lanes") as advance:
        d = diagnose(x, y, src, dst, expected, ref, nan_any=not as_bits, progress=advance)
    if as_json:
        out = d.to_dict()
        if lane is not None:
            out["trace_lane"] = _lane_json(d, x, y, ref, lane, src, dst)
        click.echo(json.dumps(stamp(Kind.DIAGNOSE, out), indent=2, default=str))
        return
    _print(d)
    if lane is not None:
        _print_lane(d, x, y, ref, lane, src, dst)


# --- reading the arrays ---------------------------------------------------------------------

def load_lanes(path: str, fmt: Format, as_bits: bool, what: str) -> np.ndarray:
    """The encodings in `fmt` of a .npy file's lanes (InputError, one line, otherwise)."""
    want = f"{fmt.name} encodings ({fmt.container})" if as_bits else f"{fmt.name} values"
    try:  # opening and reading fail as machine.files.open_stream words them
        with open_stream(path, what=f"{what} .npy", max_bytes=MAX_DATA_BYTES) as fh:
            shape = judge_npy_header(fh, path, f"an array of {want}")
            allowed = (fmt.container,) if as_bits else VALUE_DTYPES
            arr = read_npy(fh, path, what=f"an array of {want}", dtypes=allowed,
                           max_shape=(MAX_DIM,) * len(shape))
    except InputFileError as e:
        raise InputError(f"diagnose: {e}") from None
    if as_bits:
        if fmt.bits < 8 and (arr >> fmt.bits).any():
            i = _first(arr >> fmt.bits != 0)
            raise InputError(f"diagnose: {path}: lane {_at(i)}: 0x{int(arr[i]):x} does not fit "
                             f"{fmt.name} ({fmt.bits} bits)")
        return arr
    return _encode_exact(arr, fmt, path)


def _encode_exact(values: np.ndarray, fmt: Format, path: str) -> np.ndarray:
    """Values -> encodings; each value must be one of fmt's (else the first bad lane)."""
    if fmt.is_int:
        if values.dtype.kind == "f":
            bad = ~np.isfinite(values) | (values != np.round(values))
            if bad.any():
                i = _first(bad)
                raise InputError(f"diagnose: {path}: lane {_at(i)}: {values[i].item()!r} is "
                                 f"not an integer ({fmt.name} lanes)")
        v = values.astype(np.int64) if values.dtype != np.uint64 else values
        out = (v < fmt.min_value) | (v > fmt.max_value)
        if out.any():
            i = _first(out)
            raise InputError(f"diagnose: {path}: lane {_at(i)}: {values[i].item()} is outside "
                             f"{fmt.name} [{fmt.min_value}, {fmt.max_value}]")
        mask = (1 << fmt.bits) - 1
        return (v.astype(np.uint64) & np.uint64(mask)).astype(fmt.container)
    v = values.astype(np.float64)
    bits = encode_value(v, fmt)
    back = decode_value(bits, fmt)
    bad = ~((back == v) | (np.isnan(back) & np.isnan(v)))
    if bad.any():
        i = _first(bad)
        raise InputError(f"diagnose: {path}: lane {_at(i)}: {float(v[i])!r} is not a "
                         f"{fmt.name} value (pass encodings with --bits)")
    return bits


def _first(mask: np.ndarray) -> tuple[int, ...]:
    """The index of the first True lane (C order)."""
    return tuple(int(j) for j in np.unravel_index(int(np.argmax(mask)), mask.shape))


def _at(i: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(j) for j in i) + "]"


def parse_lane(text: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """`3,17`, `[3, 17]` or a flat index -> an index into `shape` (InputError otherwise)."""
    nums = re.findall(r"-?\d+", text)
    if not nums or not re.fullmatch(r"\[?\s*-?\d+(\s*,\s*-?\d+)*\s*\]?", text.strip()):
        raise InputError(f"diagnose: --trace-lane {_clip(text)}: expected an index such as 3,17 "
                         f"(shape {shape}) or a flat lane number")
    size = math.prod(shape)
    if any(len(n.lstrip("-")) > len(str(size)) for n in nums):  # before int(): 5,000 digits
        raise InputError(f"diagnose: --trace-lane {_clip(text)}: outside the {size} lanes "
                         f"(shape {shape})")
    idx = [int(n) for n in nums]
    if len(idx) == 1 and len(shape) != 1:
        if not 0 <= idx[0] < size:
            raise InputError(f"diagnose: --trace-lane {idx[0]}: outside the {size} lanes")
        return tuple(int(j) for j in np.unravel_index(idx[0], shape))
    if len(idx) != len(shape) or any(not 0 <= i < n for i, n in zip(idx, shape, strict=True)):
        raise InputError(f"diagnose: --trace-lane {_clip(text)}: outside the shape {shape}")
    return tuple(idx)


def _clip(text: str, keep: int = 40) -> str:
    """A user's text for a one-line message: quoted, its middle elided past `keep` chars."""
    if len(text) <= keep:
        return repr(text)
    return repr(f"{text[:keep // 2]}…{text[-keep // 2:]}") + f" ({len(text)} characters)"


# --- output ---------------------------------------------------------------------------------

def _print(d: Diagnosis) -> None:
    click.echo(d.summary())
    width = max([len(r.name) for r, _ in d.explained_by] + [30])
    head = f"expected: {d.baseline.name}" if d.baseline else "the reference"
    click.echo(f"  {head:<{width + 10}} {d.matches_baseline:>12,}")
    for (rule, n), equal in zip(d.explained_by, d.alternatives, strict=True):
        click.echo(f"  {rule.name:<{width + 10}} {n:>12,}")
        for other in equal:
            click.echo(f"    equally good for these lanes: {other.name}")
    click.echo(f"  {'unexplained':<{width + 10}} {d.unexplained:>12,}")
    for ex in d.examples:
        idx = ", ".join(str(i) for i in ex["index"])
        rules = ", ".join(ex["rules"]) or "none"
        click.echo(f"  lane [{idx}]: {ex['input']} ({ex['input_bits']}) -> {ex['actual_bits']}"
                   f", expected {ex['expected_bits']}; reproduced by: {rules}")


def _cell(name: str, step: Step | None) -> str:
    if step is None:
        return (f"{name}: subnormal outputs are then flushed to zero" if name == "ftz" else
                f"{name}: a subnormal input was read as zero first")
    bits = plain_bits(step.bits_after, step.marks, ELIDE_OVER) if step.bits_after else ""
    return f"{name}  {bits}\n{step.text}".strip()


def _print_lane(d: Diagnosis, x: np.ndarray, y: np.ndarray, ref: np.ndarray | None,
                lane: tuple[int, ...], src: Format, dst: Format) -> None:
    from rich.console import Console
    from rich.table import Table

    bits, actual = int(x[lane]), int(y[lane])
    why = explaining_rule(d, bits, actual, src, dst)
    idx = ", ".join(str(i) for i in lane)
    left_rule = d.baseline
    title = f"lane [{idx}]: input 0x{bits:x} -> actual 0x{actual:x}"
    if ref is not None:
        title += f", reference 0x{int(ref[lane]):x}"
    table = Table(title=title, show_lines=True)
    left = left_rule.steps(bits, src, dst) if left_rule else []
    right = why.steps(bits, src, dst) if why else []
    table.add_column(f"expected: {left_rule.name}" if left_rule else "expected: the reference",
                     overflow="fold", ratio=1)
    table.add_column(f"explained by: {why.name}" if why else "no rule reproduces this lane",
                     overflow="fold", ratio=1)
    for a, b in zip_longest(left, right):
        table.add_row(_cell(*a) if a else "", _cell(*b) if b else "")
    import sys

    Console(highlight=False, width=None if sys.stdout.isatty() else 160).print(table)


def _lane_json(d: Diagnosis, x: np.ndarray, y: np.ndarray, ref: np.ndarray | None,
               lane: tuple[int, ...], src: Format, dst: Format) -> dict[str, object]:
    bits = int(x[lane])
    why = explaining_rule(d, bits, int(y[lane]), src, dst)

    def steps(rule: Rule | None) -> list[dict[str, object]]:
        if rule is None:
            return []
        return [{"step": n, **(s.to_dict() if s else {"text": "subnormal flushed to zero"})}
                for n, s in rule.steps(bits, src, dst)]

    return {"index": list(lane), "input_bits": hex(bits), "actual_bits": hex(int(y[lane])),
            "expected_rule": d.baseline.to_dict() if d.baseline else "reference",
            "explained_by": why.to_dict() if why else None,
            "expected_steps": steps(d.baseline), "explained_steps": steps(why)}


__all__ = ["command", "load_lanes", "parse_lane"]
