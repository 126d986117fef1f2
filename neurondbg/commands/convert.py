"""`neurondbg convert VALUE... --from FMT --to FMT`: one conversion per value (DESIGN CLI).

VALUE is a decimal (`1.233`, `-0`, `1e-3`), `inf` / `-inf` / `nan`, or a hex float
(`0x1p-3`); with --bits it is a hex bit pattern of the source format. A VALUE is read
by machine.convert.parse_value, the same reader as the Convert Lab's: exactly, rounded
once to the nearest source value (ties to even). The chosen --mode then applies to the
src -> dst conversion. Integer sources take integers only, and they must fit the format.

`--gen` picks the generation Neuron dtype names resolve under (FP8_EXP4). `--iss NAME
[--param K=V]...` runs an ISS primitive of reference 003 (machine.convert.iss) on each
VALUE instead; its rows carry "primitive" and "params" where a conversion's carry
profile / mode / sat.

More than TABLE_MAX VALUEs are converted as `--input` converts a file's, and printed the
same way (the lines below, no flags column); --trace, --compare and --iss then refuse.

`--input FILE` (`-` for stdin) converts many values at once, vectorized: one
VALUE per line (blank lines and `#` comments skipped), or a `.npy` array (integers with
--bits are bit patterns; otherwise each element is a value, read exactly). A bad value
is one line `FILE:LINE: ...` and exit 2. The output streams: one tab-separated line per
value (input, input bits, input value, output bits, output value, equal|differs) after
a `#` title and a `#` column line, or with --json one JSON object per line (JSON Lines:
the keys of a row of the one-value form, with "equal": bool, the output's value is the
input's, NaN for NaN, in place of "flags"). Decisions: the flags come from a per-lane
trace (~0.3 ms a value), so the batch form leaves them to the one-value form ("exact"
when the output's value is the input's, NaN for NaN or the same infinity: inf saturated
to the maximum is "inexact saturated overflow"; "underflow" when a nonzero input gives a
subnormal or zero); --trace, --compare and --iss take VALUEs only; at most NOTES_SHOWN
"beyond range" notes are printed, then their count.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import click
import numpy as np
from click.core import ParameterSource

from neurondbg.documents import Kind, stamp_rows
from neurondbg.errors import InputError
from neurondbg.machine.convert.formats import FORMAT_NAMES, Format, IntFormat, parse_format
from neurondbg.machine.convert.iss import ISS_PRIMITIVES, IssPrimitive, IssValue
from neurondbg.machine.convert.kernels import convert, decode_value
from neurondbg.machine.convert.modes import MODES, Mode
from neurondbg.machine.convert.options import PROFILES, Options, applied_mode, resolve, rules
from neurondbg.machine.convert.parse import BadNumber
from neurondbg.machine.convert.parse import parse_value as machine_parse_value
from neurondbg.machine.convert.roles import ROLE_STYLES, Mark, bit_parts, elide, plain_bits
from neurondbg.machine.dtypes import DEFAULT_GEN, GEN_NAMES, Gen
from neurondbg.params import FORMAT, GEN, MODE, PROFILE

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from neurondbg.machine.convert.trace import Trace

__all__ = ["ROLE_STYLES", "colour_bits", "command", "parse_bits", "parse_value"]

ELIDE_OVER = 24  # a part of a bit string longer than this is shown as 1000…(N bits)…0001
# VALUEs beyond this print as --input does (one line each, no flags column): a table row's
# flags come from a trace (~1 ms a value with its parse), so 200,000 VALUEs took minutes
TABLE_MAX = 256
TEXT_MIN = 40  # columns a trace's sentences need beside the bits; fewer: one block per step

# one line per mode and profile, for --help (and the README)
MODE_HELP: dict[str, str] = {
    Mode.RINT: "nearest, ties to even (IEEE default)",
    Mode.ROUND: "nearest, ties away from zero",
    Mode.FLOOR: "toward -inf", Mode.CEIL: "toward +inf", Mode.TRUNC: "toward zero",
    Mode.ODD: "round to odd (a later rounding then rounds once)",
    Mode.HYBRID: "HiFloat8 threshold rounding (ref 002 Table 9/10; --to hif8 only)",
}
PROFILE_HELP: dict[str, str] = {
    "ieee": "IEEE 754 rules carried to every format; any mode",
    "neuron": "the Neuron Cast: in -> fp32 -> out, rint to floats, trunc to integers",
    "ascend": "ref 002: the modes it lists per pair, its NaN/inf/overflow rules",
}


class Row(TypedDict):
    """One converted VALUE as the table shows it and `--json` prints it."""

    input: str
    input_bits: str
    input_value: int | float | str
    output_bits: str
    output_value: int | float | str
    src: str
    dst: str
    flags: list[str]
    profile: NotRequired[str]  # a conversion's rule ...
    mode: NotRequired[str]
    sat: NotRequired[bool]
    primitive: NotRequired[str]  # ... or an ISS primitive's
    params: NotRequired[dict[str, IssValue]]
    section: NotRequired[str]
    trace: NotRequired[dict[str, Any]]  # --trace --json: Trace.to_dict()
    step: NotRequired[int]  # a lane of a Cast the TUI exports: the step that ran it
    lane: NotRequired[list[int]]  # ... and the lane, [partition, element]


NEGATIVE = re.compile(r"-(\d|\.\d|inf|nan|0x)", re.IGNORECASE)  # "-1.5", "-inf", "-0x1p-3"


class ValuesLast(click.Command):
    """A command whose negative-number arguments are VALUEs, not options.

    click tries a token starting with "-" as an option first; with ignore_unknown_options
    each such VALUE then costs a NoSuchOption and its difflib suggestions (~0.4 ms: 200,000
    VALUEs took minutes). The options (with the value each takes) are moved ahead of a
    "--" and the VALUEs, in their order, after it; anything else starting with "-" stays
    an option, so click still reports an unknown one."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value = {name for p in self.params if isinstance(p, click.Option)
                       and not p.is_flag and not p.count for name in p.opts}
        opts: list[str] = []
        values: list[str] = []
        i = 0
        while i < len(args):
            tok = args[i]
            if tok == "--":
                values.extend(args[i + 1:])
                break
            if tok.startswith("-") and not NEGATIVE.match(tok):
                opts.append(tok)
                if tok in takes_value and i + 1 < len(args):
                    opts.append(args[i + 1])
                    i += 1
            else:
                values.append(tok)
            i += 1
        return super().parse_args(ctx, [*opts, "--", *values] if values else opts)


# ignore_unknown_options: "-inf", "-1.5" and "-0x1p-3" are values, not options.
@click.command("convert", cls=ValuesLast, context_settings={"ignore_unknown_options": True})
@click.argument("values", nargs=-1)
@click.option("--from", "src_name", type=FORMAT, metavar="FMT",
              help="source format (fp32, bf16, fp8_e4m3, int8, ... or a Neuron dtype name such "
                   "as FP8_EXP4)")
@click.option("--to", "dst_name", type=FORMAT, metavar="FMT", help="destination format")
@click.option("--gen", type=GEN, metavar="GEN", default=None,
              help=f"generation for Neuron dtype names ({', '.join(GEN_NAMES)}, or trn1..trn3; "
                   f"default {DEFAULT_GEN.label}): FP8_EXP4 is e4m3 up to cayman, e4m3fn after")
@click.option("--mode", type=MODE, metavar="MODE", default=Mode.RINT.value, show_default=True,
              help="; ".join(f"{m}: {MODE_HELP[m]}" for m in MODES))
@click.option("--sat/--nosat", default=False, help="saturate out-of-range results")
@click.option("--profile", type=PROFILE, metavar="PROFILE", default="ieee", show_default=True,
              help="; ".join(f"{p}: {PROFILE_HELP[p]}" for p in PROFILES))
@click.option("--iss", "iss_name", metavar="NAME", default=None,
              help="run an ISS primitive of reference 003 instead of --from/--to: "
                   f"{', '.join(ISS_PRIMITIVES)}")
@click.option("--param", "iss_params", metavar="K=V", multiple=True,
              help="a parameter of the --iss primitive (e.g. shift=4, width=8, round_mode=1)")
@click.option("--bits", "as_bits", is_flag=True,
              help="VALUEs are hex bit patterns of --from (or of the --iss input lane)")
@click.option("--trace", "show_trace", is_flag=True, help="show the step-by-step bit trace")
@click.option("--compare", is_flag=True,
              help="each VALUE under every mode side by side (cells that differ marked)")
@click.option("--profiles", "all_profiles", is_flag=True,
              help="with --compare: every profile too (ieee, neuron, ascend)")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]),
              default="auto", show_default=True,
              help="colour the bit strings (never: parts separated by |, as when piped)")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--input", "input_path", metavar="FILE", default=None,
              help="many values at once: one per line of FILE (- for stdin) or a .npy array; "
                   "prints one line per value (with --json, JSON Lines)")
def command(values: tuple[str, ...], src_name: str | None, dst_name: str | None,
            gen: Gen | None, mode: Mode, sat: bool, profile: str, iss_name: str | None,
            iss_params: tuple[str, ...], as_bits: bool, show_trace: bool, compare: bool,
            all_profiles: bool, color: str, as_json: bool, input_path: str | None) -> None:
    """Convert VALUEs from one number format to another, bit-exactly.

    With --iss NAME [--param K=V]... each VALUE goes through that ISS primitive of
    reference 003 instead (its input format follows from the primitive and parameters).
    """
    if input_path is not None:
        from neurondbg.commands.convert_input import run_input

        _refuse_for_input(values, iss_name, show_trace, compare)
        run_input(input_path, src_name, dst_name, gen, mode, sat, profile, as_bits, as_json)
        return
    if len(values) > TABLE_MAX:
        from neurondbg.commands.convert_input import run_values

        _refuse_for_many(len(values), iss_name, show_trace, compare)
        run_values(values, src_name, dst_name, gen, mode, sat, profile, as_bits, as_json)
        return
    console = _console(color)
    if all_profiles and not compare:
        raise InputError("convert: --profiles needs --compare")
    if iss_name is not None:
        _refuse_conversion_options(src_name, dst_name)
        _run_iss(values, iss_name, iss_params, as_bits, show_trace, as_json, console)
        return
    if iss_params:
        raise InputError("convert: --param needs --iss NAME; primitives: "
                         f"{', '.join(ISS_PRIMITIVES)}")
    if src_name is None or dst_name is None:
        raise InputError(f"convert: missing --{'from' if src_name is None else 'to'} FMT; "
                         f"formats: {', '.join(FORMAT_NAMES)}")
    _need_values(values)
    try:
        # FP8_EXP4 resolves per generation (machine.dtypes.fp8_exp4_format)
        opt = resolve(parse_format(src_name, gen), parse_format(dst_name, gen), mode, sat,
                      profile)
    except ValueError as exc:
        raise InputError(f"convert: {exc}") from None
    in_bits = [parse_bits(v, opt.src) if as_bits else parse_value(v, opt.src) for v in values]
    if compare:
        _compare(values, in_bits, rules(opt.src, opt.dst, PROFILES if all_profiles
                                        else (opt.profile,), (opt.sat,)), as_json, console)
        return
    out = convert(np.array(in_bits, dtype=opt.src.container), opt.src, opt.dst, opt.mode,
                  opt.sat, opt.profile)
    traces = [_trace(b, opt) for b in in_bits]  # the flags column reads them (a few lanes)
    rows = [_row(v, b, int(o), opt, t)
            for v, b, o, t in zip(values, in_bits, out, traces, strict=True)]
    sat_word = "sat" if opt.sat else "nosat"
    _emit(rows, traces if show_trace else [], as_json, console,
          f"{opt.src.name} -> {opt.dst.name}  ({opt.profile}, {applied_mode(opt)}, "
          f"{sat_word})")


def _refuse_for_input(values: tuple[str, ...], iss_name: str | None, show_trace: bool,
                      compare: bool) -> None:
    """--input is the vectorized form of a plain conversion: per-value forms are errors."""
    if values:
        raise InputError("convert: give VALUEs or --input FILE, not both")
    given = [o for o, on in (("--iss", iss_name is not None), ("--trace", show_trace),
                             ("--compare", compare)) if on]
    if given:
        raise InputError(f"convert: --input does not take {', '.join(given)} (they show one "
                         "value at a time: give the VALUEs as arguments)")


def _refuse_for_many(n: int, iss_name: str | None, show_trace: bool, compare: bool) -> None:
    """Past TABLE_MAX VALUEs the per-value forms (a trace per lane) are refused."""
    given = [o for o, on in (("--iss", iss_name is not None), ("--trace", show_trace),
                             ("--compare", compare)) if on]
    if given:
        raise InputError(f"convert: {', '.join(given)} takes at most {TABLE_MAX} VALUEs, got "
                         f"{n} (each is traced; without {', '.join(given)} any number of "
                         "VALUEs is converted at once)")


def _need_values(values: tuple[str, ...]) -> None:
    if not values:
        raise InputError("convert: expected at least one VALUE (e.g. 1.233, -inf, nan, 0x1p-3, "
                         "or a hex bit pattern with --bits)")


def _emit(rows: list[Row], traces: Sequence[Trace], as_json: bool, console: Console,
          title: str, kind: Kind = Kind.CONVERT) -> None:
    """Print rows (and their traces, when asked) as JSON or as tables."""
    if as_json:
        for row, tr in zip(rows, traces, strict=False):
            row["trace"] = tr.to_dict()
        click.echo(json.dumps(stamp_rows(kind, rows), indent=2))
        return
    _print_table(rows, title, console)
    for row, tr in zip(rows, traces, strict=False):
        _print_trace(row, tr, console)


# --- ISS primitives (reference 003; machine.convert.iss) ----------------------------------

def _refuse_conversion_options(src_name: str | None, dst_name: str | None) -> None:
    """--iss takes its formats and rounding from the primitive: conflicting options are errors."""
    ctx = click.get_current_context()
    given = [f"--{n}" for n, v in (("from", src_name), ("to", dst_name)) if v is not None]
    given += [f"--{n}" for n in ("mode", "sat", "profile")
              if ctx.get_parameter_source(n) is not ParameterSource.DEFAULT]
    if given:
        raise InputError(f"convert: --iss does not take {', '.join(given)}: the primitive and "
                         "its --param K=V choose the formats and the rounding")


def parse_iss_params(prim: IssPrimitive, texts: tuple[str, ...]) -> dict[str, IssValue]:
    """`K=V` texts -> the primitive's bound parameters (ValueError names the choices)."""
    by_name = {p.name: p for p in prim.params}
    raw: dict[str, IssValue] = {}
    for text in texts:
        key, eq, val = text.partition("=")
        key, val = key.strip().lower(), val.strip()
        if not eq or not key or not val:
            raise ValueError(f"{prim.name}: --param {text!r}: expected NAME=VALUE, e.g. "
                             f"{prim.params[0].name if prim.params else 'shift'}="
                             f"{prim.params[0].default if prim.params else 4}")
        p = by_name.get(key)
        if p is not None and all(isinstance(c, int) for c in p.choices):
            try:
                raw[key] = int(val, 0)
            except ValueError:
                raise ValueError(f"{prim.name}: {key} takes an integer, got {val!r}") from None
        else:
            raw[key] = val.lower()
    return prim.bind(**raw)


def _run_iss(values: tuple[str, ...], name: str, texts: tuple[str, ...], as_bits: bool,
             show_trace: bool, as_json: bool, console: Console) -> None:
    from neurondbg.debug.lab_model import iss_format

    prim = ISS_PRIMITIVES.get(name.strip().lower())
    if prim is None:
        raise InputError(f"convert: unknown ISS primitive {name!r}; expected one of: "
                         f"{', '.join(ISS_PRIMITIVES)}")
    try:
        params = parse_iss_params(prim, texts)
    except ValueError as exc:
        raise InputError(f"convert: --iss {exc}") from None
    _need_values(values)
    src, dst = (iss_format(n) for n in prim.formats(**params))
    in_bits = [parse_bits(v, src) if as_bits else parse_value(v, src, iss=prim.name)
               for v in values]
    out = prim.vector(np.array(in_bits, dtype=np.uint64), **params)
    traces = [prim.trace(b, **params) for b in in_bits]  # the flags column reads them
    rows: list[Row] = [
            {"input": v, "input_bits": _hex(b, src), "input_value": _iss_value(b, src),
             "output_bits": _hex(int(o), dst), "output_value": _iss_value(int(o), dst),
             "src": src.name, "dst": dst.name, "primitive": prim.name, "params": params,
             "section": prim.section, "flags": t.flags}
            for v, b, o, t in zip(values, in_bits, out, traces, strict=True)]
    shown = ", ".join(f"{k}={v}" for k, v in params.items())
    _emit(rows, traces if show_trace else [], as_json, console,
          f"ISS {prim.name}({shown}): {src.name} -> {dst.name}  ({prim.section})",
          Kind.CONVERT_ISS)


def _iss_value(code: int, fmt: Format) -> int | float | str:
    # ISS lanes may be 24/48 bits wide (accumulators): no numpy container, read exactly.
    return _int_exact(code, fmt) if fmt.is_int else _value(code, fmt)


# --- parsing ------------------------------------------------------------------------------

def parse_bits(text: str, fmt: Format) -> int:
    """A hex bit pattern (0x optional) that fits fmt's width."""
    t = text.strip().lower().replace("_", "")
    digits = t[2:] if t.startswith("0x") else t
    if not digits or not re.fullmatch(r"[0-9a-f]+", digits):
        raise InputError(f"convert: value {text!r}: expected a hex bit pattern of {fmt.name} "
                         f"(e.g. 0x{'3c00' if fmt.bits == 16 else '3f'})")
    v = int(digits, 16)
    if v >> fmt.bits:
        raise InputError(f"convert: bit pattern {text!r} is too wide for {fmt.name} "
                         f"({fmt.bits} bits, at most 0x{(1 << fmt.bits) - 1:x})")
    return v


def parse_value(text: str, fmt: Format, iss: str | None = None) -> int:
    """The encoding of `text` in fmt (machine.convert.parse_value: exact, one rounding to
    nearest, ties even); a finite value beyond the format's range gets a note on stderr.
    A hex-looking VALUE that is not a number gets the --bits command line to use."""
    try:
        parsed = machine_parse_value(text, fmt)
    except BadNumber as exc:
        if re.fullmatch(r"0x[0-9a-f_]+", text.strip().lower()):
            how = (f"neurondbg convert --iss {iss} --bits {text.strip()}" if iss else
                   f"neurondbg convert --bits {text.strip()} --from {fmt.name} --to FMT")
            raise InputError(f"convert: value {text!r} is not a {fmt.name} number; for a hex "
                             f"bit pattern add --bits: {how}") from None
        raise InputError(f"convert: {exc} (or use --bits for a hex bit pattern)") from None
    except ValueError as exc:
        raise InputError(f"convert: {exc}") from None
    if parsed.overflow:
        click.echo(f"neurondbg: note: {text} is beyond {fmt.name}'s range: read as "
                   f"{_value(parsed.bits, fmt)}", err=True)
    return parsed.bits


# --- output -------------------------------------------------------------------------------

def _hex(code: int, fmt: Format) -> str:
    return f"0x{code:0{(fmt.bits + 3) // 4}x}"


def _value(code: int, fmt: Format) -> int | float | str:
    v = float(decode_value(code, fmt))
    if fmt.is_int:
        return int(decode_value(code, fmt)) if fmt.bits < 54 else _int_exact(code, fmt)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _int_exact(code: int, fmt: IntFormat) -> int:
    return code - (1 << fmt.bits) if fmt.signed and code >> (fmt.bits - 1) else code


def _row(text: str, in_code: int, out_code: int, opt: Options, tr: Trace) -> Row:
    return {"input": text, "input_bits": _hex(in_code, opt.src),
            "input_value": _value(in_code, opt.src), "output_bits": _hex(out_code, opt.dst),
            "output_value": _value(out_code, opt.dst), "src": opt.src.name,
            "dst": opt.dst.name, "profile": opt.profile, "mode": applied_mode(opt),
            "sat": opt.sat, "flags": tr.flags}


def _trace(code: int, opt: Options) -> Trace:
    from neurondbg.machine.convert.trace import trace

    return trace(code, opt.src, opt.dst, opt.mode, opt.sat, opt.profile)


def _compare(values: tuple[str, ...], in_bits: list[int], opts: list[Options], as_json: bool,
             console: Console) -> None:
    """One row per VALUE, one column per rule; a cell that differs from the row's first
    (the first rule: rint of the first profile) is marked `*`."""
    from rich.table import Table

    src = opts[0].src
    cols = []  # per rule: the outputs of every value
    for opt in opts:
        out = convert(np.array(in_bits, dtype=src.container), opt.src, opt.dst, opt.mode,
                      opt.sat, opt.profile)
        cols.append([int(o) for o in out])
    names = [f"{o.profile} {applied_mode(o)}{' sat' if o.sat else ''}" for o in opts]
    if as_json:
        rows = [{"input": v, "input_bits": _hex(b, src),
                 "results": [{"profile": o.profile, "mode": applied_mode(o), "sat": o.sat,
                              "output_bits": _hex(col[i], o.dst),
                              "output_value": _value(col[i], o.dst),
                              "differs": col[i] != cols[0][i]}
                             for o, col in zip(opts, cols, strict=True)]}
                for i, (v, b) in enumerate(zip(values, in_bits, strict=True))]
        click.echo(json.dumps(stamp_rows(Kind.CONVERT_COMPARE, rows), indent=2))
        return
    table = Table(title=f"{src.name} -> {opts[0].dst.name}: every rule (* differs from "
                        f"{names[0]})")
    table.add_column("input", justify="right")
    for name in names:
        table.add_column(name, justify="right")
    for i, v in enumerate(values):
        cells = []
        for o, col in zip(opts, cols, strict=True):
            mark = "*" if col[i] != cols[0][i] else ""
            cells.append(f"{mark}{_hex(col[i], o.dst)} {_fmt(_value(col[i], o.dst))}")
        table.add_row(v, *cells)
    console.print(table)


def _console(color: str = "auto") -> Console:
    import sys

    from rich.console import Console

    # Piped output gets a wide page, so bit strings and sentences are not folded.
    width = None if sys.stdout.isatty() else 160
    if color == "never":
        return Console(highlight=False, width=width, color_system=None, no_color=True)
    return Console(highlight=False, width=width, force_terminal=color == "always" or None)


def _plain(console: Console) -> bool:
    """No colour (piped, NO_COLOR, --color never): bit strings show their parts with |."""
    return console.no_color or console.color_system is None


def _print_table(rows: list[Row], title: str, console: Console) -> None:
    from rich.table import Table

    table = Table(title=title)
    for col in ("input", "input bits", "input value", "output bits", "output value"):
        table.add_column(col, justify="right")
    table.add_column("flags")
    for r in rows:
        table.add_row(r["input"], r["input_bits"], _fmt(r["input_value"]), r["output_bits"],
                      _fmt(r["output_value"]), " ".join(r["flags"]))
    console.print(table)


def _fmt(v: int | float | str) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def colour_bits(bits: str, marks: Sequence[Mark], limit: int | None = None) -> Text:
    """A rich Text of `bits` with each marked range styled by its role (a part longer
    than `limit` elided in the middle with its count)."""
    from rich.text import Text

    text = Text()
    for chunk, role in bit_parts(bits, marks):
        text.append(elide(chunk, limit), ROLE_STYLES.get(role or "", ""))
    return text


def _print_trace(row: Row, tr: Trace, console: Console) -> None:
    """The steps as a table (step, before, after, what happens), or, when the console is
    too narrow for the sentences to get TEXT_MIN columns beside the bit strings, as one
    block per step (the bits on a line, the sentence wrapped under them): a sentence is
    wrapped at word boundaries, never cut or dropped."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    plain = _plain(console)

    def bits(b: str, marks: Sequence[Mark]) -> Text:
        return Text(plain_bits(b, marks, ELIDE_OVER)) if plain else \
            colour_bits(b, marks, ELIDE_OVER)

    cells = [(f"{s.stage}:{s.name}" if s.stage else s.name, bits(s.bits_before, s.marks_before),
              bits(s.bits_after, s.marks), s.text) for s in tr.steps]
    title = f"trace of {row['input']} ({row['input_bits']} -> {row['output_bits']})"
    # 4 columns: 5 borders and 2 spaces of padding each
    fixed = 13 + sum(max((len(c[k]) for c in cells), default=0) for k in range(3))
    if console.width - fixed >= TEXT_MIN:
        table = Table(title=title, show_lines=False)
        table.add_column("step", no_wrap=True)
        table.add_column("before", no_wrap=True)
        table.add_column("after", no_wrap=True)
        table.add_column("what happens", min_width=TEXT_MIN)
        for name, before, after, text in cells:
            table.add_row(name, before, after, Text(text))
        console.print(table)
    else:
        console.print(Text(title, style="italic"))
        for name, before, after, text in cells:
            line = Text(name, style="bold")
            if before.plain or after.plain:
                line.append("  ")
                line.append_text(before if before.plain else Text("-"))
                line.append(" -> ")
                line.append_text(after if after.plain else Text("-"))
            console.print(line, overflow="fold")
            console.print(Padding(Text(text), (0, 0, 0, 4), expand=False))
    if plain:
        console.print("parts: sign|exponent|mantissa; kept|guard|round|sticky; "
                      "a long part reads 1000…(N bits)…0001")
        return
    legend = Text("roles: ")
    for role, style in ROLE_STYLES.items():
        legend.append(role, style)
        legend.append(" ")
    console.print(legend)
