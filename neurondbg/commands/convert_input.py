"""`neurondbg convert --input FILE` (and many VALUEs): many values at once, vectorized.

The values are read by machine.convert.parse.parse_values (equal to the one-value
reader lane by lane), converted by one machine.convert.convert call, and printed in
blocks of BLOCK lines, so 100,000 values take a fraction of a second where one process
per value took a millisecond each. The output shapes are documented in
neurondbg.commands.convert.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
import numpy as np

from neurondbg.commands._npy import judge_npy_header
from neurondbg.commands.convert import parse_bits
from neurondbg.documents import Kind, key_text
from neurondbg.errors import InputError
from neurondbg.machine.convert.formats import Format, parse_format
from neurondbg.machine.convert.kernels import convert, decode_value
from neurondbg.machine.convert.options import Options, applied_mode, resolve
from neurondbg.machine.convert.parse import BadNumber, ParsedValue, parse_values
from neurondbg.machine.convert.parse import parse_value as machine_parse_value
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.files import MAX_DATA_BYTES, InputFileError, open_stream, read_file, read_npy

BLOCK = 4096  # lines per write: few system calls, bounded memory for the text
NOTES_SHOWN = 10
NPY_MAX_VALUES = 1 << 27  # elements of a .npy input (1 GiB of float64)


def run_input(path: str, src_name: str | None, dst_name: str | None, gen: Gen | None,
              mode: str, sat: bool, profile: str, as_bits: bool, as_json: bool) -> None:
    """Convert every value of `path` and print one line per value."""
    opt = _options(src_name, dst_name, gen, mode, sat, profile)
    texts, lines = _read_texts(path, as_bits)
    where = "<stdin>" if path == "-" else path
    _run(texts, [f"{where}:{n}" for n in lines], opt, as_bits, as_json)


def run_values(values: tuple[str, ...], src_name: str | None, dst_name: str | None,
               gen: Gen | None, mode: str, sat: bool, profile: str, as_bits: bool,
               as_json: bool) -> None:
    """The VALUEs of the command line, many of them: the same vectorized path and output
    as a file's (a bad one is `convert: VALUE N: ...`, exit 2)."""
    opt = _options(src_name, dst_name, gen, mode, sat, profile)
    _run(list(values), [f"convert: VALUE {n}" for n in range(1, len(values) + 1)], opt,
         as_bits, as_json)


def _options(src_name: str | None, dst_name: str | None, gen: Gen | None, mode: str,
             sat: bool, profile: str) -> Options:
    if src_name is None or dst_name is None:
        raise InputError(f"convert: missing --{'from' if src_name is None else 'to'} FMT")
    try:
        return resolve(parse_format(src_name, gen), parse_format(dst_name, gen), mode, sat,
                       profile)
    except ValueError as exc:
        raise InputError(f"convert: {exc}") from None


def _run(texts: list[str], places: list[str], opt: Options, as_bits: bool,
         as_json: bool) -> None:
    """Parse, convert and print `texts`; places[i] names text i in messages."""
    if as_bits:
        in_bits = np.zeros(len(texts), opt.src.container)
        for i, t in enumerate(texts):
            try:
                in_bits[i] = parse_bits(t, opt.src)
            except InputError as exc:
                raise InputError(f"{places[i]}: {exc.message}") from None
    else:
        in_bits = _parse(texts, places, opt.src)
    out = convert(in_bits, opt.src, opt.dst, opt.mode, opt.sat, opt.profile)
    _print(texts, in_bits, np.asarray(out), opt, as_json)


def _read_texts(path: str, as_bits: bool) -> tuple[list[str], list[int]]:
    """(the value texts, each one's line number); a .npy's elements numbered from 1."""
    try:
        if path != "-" and Path(path).suffix.lower() == ".npy":
            return _npy_texts(path, as_bits)
        data = _read_stdin() if path == "-" else read_file(
            path, what="values file", max_bytes=MAX_DATA_BYTES)
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    where = "<stdin>" if path == "-" else path
    if len(data) > MAX_DATA_BYTES:
        raise InputError(f"{where}: more than {MAX_DATA_BYTES} bytes of values")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: offset {exc.start}: expected UTF-8 text, one value per "
                         "line") from None
    stripped = [line.strip() for line in text.splitlines()]
    lines = [n for n, t in enumerate(stripped, 1) if t and t[0] != "#"]
    texts = [stripped[n - 1] for n in lines]
    if not texts:
        raise InputError(f"{where}: no values (one VALUE per line; # starts a comment)")
    return texts, lines


def _read_stdin() -> bytes:
    """Standard input, up to one byte past the limit (a file's reads go through
    machine.files, which names the file; stdin's own OS errors are mapped here)."""
    try:
        return sys.stdin.buffer.read(MAX_DATA_BYTES + 1)
    except OSError as exc:
        raise InputError(f"<stdin>: cannot read: {exc.strerror or exc}") from None


def _npy_texts(path: str, as_bits: bool) -> tuple[list[str], list[int]]:
    """A .npy's elements as texts: integers with --bits as hex patterns, floats by repr
    (exact: it reads back as the same float64, and float16/32 widen exactly)."""
    kinds = ("u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8")
    dtypes = tuple(np.dtype(k) for k in kinds if as_bits) or tuple(
        np.dtype(k) for k in (*kinds, "f2", "f4", "f8"))
    what = "a 1-D array of values" + (" (integer bit patterns)" if as_bits else "")
    with open_stream(path, what=".npy values", max_bytes=MAX_DATA_BYTES) as fh:
        judge_npy_header(fh, path, what)
        arr = read_npy(fh, path, what=what, dtypes=dtypes, max_shape=(NPY_MAX_VALUES,))
    if arr.size == 0:
        raise InputError(f"{path}: no values (an empty array)")
    if as_bits:
        if arr.dtype.kind == "i" and (arr < 0).any():
            i = int(np.flatnonzero(arr < 0)[0])
            raise InputError(f"{path}: element {i}: a bit pattern cannot be negative")
        texts = [f"0x{v:x}" for v in arr.astype(np.uint64).tolist()]
    else:
        texts = [repr(v) for v in arr.tolist()]
    return texts, list(range(len(texts)))


def _parse(texts: list[str], places: list[str], fmt: Format) -> np.ndarray:
    """The encodings of `texts` in fmt; a bad one is `PLACE: ...` (exit 2)."""
    def slow(i: int, t: str) -> ParsedValue:
        try:
            return machine_parse_value(t, fmt)
        except BadNumber as exc:
            raise InputError(f"{places[i]}: {exc} (or use --bits for a hex bit "
                             "pattern)") from None
        except ValueError as exc:
            raise InputError(f"{places[i]}: {exc}") from None

    parsed = parse_values(texts, fmt, slow)
    over = np.flatnonzero(parsed.overflow)
    for i in over[:NOTES_SHOWN].tolist():
        click.echo(f"neurondbg: note: {places[i]}: {texts[i]} is beyond {fmt.name}'s "
                   f"range: read as {_values(parsed.bits[i:i + 1], fmt)[0]}", err=True)
    if over.size > NOTES_SHOWN:
        click.echo(f"neurondbg: note: {over.size - NOTES_SHOWN} more values beyond "
                   f"{fmt.name}'s range", err=True)
    return parsed.bits


def _values(codes: np.ndarray, fmt: Format) -> list[int | float | str]:
    """What the one-value form's `_value` gives each code, computed for all at once."""
    if fmt.is_int:
        if fmt.bits > 32:  # past float64's integers: exactly, from the pattern
            half = 1 << (fmt.bits - 1)
            return [c - (half << 1) if fmt.signed and c >= half else c
                    for c in codes.astype(np.uint64).tolist()]
        ints: list[int | float | str] = decode_value(codes, fmt).astype(np.int64).tolist()
        return ints
    vals = decode_value(codes, fmt).astype(np.float64)
    out: list[int | float | str] = vals.tolist()
    for i in np.flatnonzero(~np.isfinite(vals)).tolist():
        v = vals[i]
        out[i] = "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return out


def _hex(codes: np.ndarray, digits: int) -> list[str]:
    """`0x` and `digits` hex digits per code; a table for 8 and 16-bit codes (faster)."""
    if digits <= 4:
        table = [f"0x{c:0{digits}x}" for c in range(1 << (4 * digits))]
        return [table[c] for c in codes.tolist()]
    return list(map(f"0x{{:0{digits}x}}".format, codes.astype(np.uint64).tolist()))


def _texts(vals: list[int | float | str], as_json: bool) -> list[str]:
    """Each value as the table (repr of a float) or JSON (nan / inf quoted) prints it."""
    if as_json:
        return [json.dumps(v) if isinstance(v, str) else repr(v) for v in vals]
    return list(map(str, vals))  # str of a float is its repr; of "nan" the word


def _print(texts: list[str], in_bits: np.ndarray, out: np.ndarray, opt: Options,
           as_json: bool) -> None:
    """One line per value, written BLOCK lines at a time."""
    in_vals, out_vals = _values(in_bits, opt.src), _values(out, opt.dst)
    # equal: the output is the input's value (NaN for NaN; -0 and 0 are one value)
    equal = [a == b for a, b in zip(in_vals, out_vals, strict=True)]
    iw, ow = (opt.src.bits + 3) // 4, (opt.dst.bits + 3) // 4
    in_hex = _hex(in_bits, iw)
    out_hex = _hex(out, ow)
    in_s, out_s = _texts(in_vals, as_json), _texts(out_vals, as_json)
    write = sys.stdout.write
    mode, sat_word = applied_mode(opt), "sat" if opt.sat else "nosat"
    if as_json:
        common = (f'"src": {json.dumps(opt.src.name)}, "dst": {json.dumps(opt.dst.name)}, '
                  f'"profile": {json.dumps(opt.profile)}, "mode": {json.dumps(mode)}, '
                  f'"sat": {json.dumps(opt.sat)}')
        line = ('{{' + key_text(Kind.CONVERT) + ', "input": {}, "input_bits": "{}", '
                '"input_value": {}, "output_bits": "{}", '
                '"output_value": {}, ' + common.replace("{", "{{").replace("}", "}}")
                + ', "equal": {}}}\n').format
        first = [json.dumps(t) for t in texts]
        last = ["true" if e else "false" for e in equal]
    else:
        write(f"# {opt.src.name} -> {opt.dst.name}  ({opt.profile}, {mode}, {sat_word})\n"
              "# input\tinput bits\tinput value\toutput bits\toutput value\tequal\n")
        line = "{}\t{}\t{}\t{}\t{}\t{}\n".format
        first = texts
        last = ["equal" if e else "differs" for e in equal]
    for at in range(0, len(texts), BLOCK):
        end = at + BLOCK
        write("".join(map(line, first[at:end], in_hex[at:end], in_s[at:end], out_hex[at:end],
                          out_s[at:end], last[at:end])))
    sys.stdout.flush()
