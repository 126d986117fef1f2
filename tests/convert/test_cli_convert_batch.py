"""Many values at once. machine.convert.parse.parse_values equals parse_value
lane by lane, and `convert --input` prints what the one-value form computes."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.convert._exact import decode
from neurondbg.machine.convert.formats import FORMAT_NAMES, parse_format
from neurondbg.machine.convert.parse import ParsedValue, parse_value, parse_values

FLOATS = [n for n in FORMAT_NAMES if not parse_format(n).is_int]
INTS = [n for n in FORMAT_NAMES if parse_format(n).is_int]


def exact_decimal(x: Fraction, digits: int = 60) -> str:
    """x as a decimal text with `digits` significant digits (exact when x's is short)."""
    from decimal import Decimal, getcontext

    getcontext().prec = digits
    return str(Decimal(x.numerator) / Decimal(x.denominator))


def midpoints(name: str, count: int, rng: random.Random) -> list[str]:
    """Texts exactly at, and a hair either side of, midpoints between neighbours of fmt."""
    fmt = parse_format(name)
    codes = np.array(rng.sample(range(1 << min(fmt.bits, 16)), min(count, 1 << fmt.bits)),
                     np.uint64)
    if fmt.bits > 16:
        codes = np.array([rng.getrandbits(fmt.bits) for _ in range(count)], np.uint64)
    lanes = decode(codes.astype(fmt.container), fmt)
    out = []
    for c, m, e, neg in zip(lanes.cls, lanes.mag, lanes.exp, lanes.neg, strict=True):
        if c != 0 or m == 0:
            continue
        v = Fraction(int(m)) * Fraction(2) ** int(e)
        # half a unit of the lane's last place: the midpoint to the next magnitude up
        mid = v + Fraction(2) ** (int(e) - 1) if int(m) & 1 else v
        sign = "-" if neg else ""
        for d in (mid, mid * (1 + Fraction(1, 10 ** 30)), mid * (1 - Fraction(1, 10 ** 30))):
            out.append(sign + exact_decimal(d, 80))
    return out


def slow(texts: list[str], name: str) -> tuple[list[int], list[bool]]:
    got = [parse_value(t, parse_format(name)) for t in texts]
    return [p.bits for p in got], [p.overflow for p in got]


@pytest.mark.parametrize("name", FLOATS)
def test_parse_values_equals_parse_value_at_midpoints(name: str) -> None:
    rng = random.Random(name)
    texts = midpoints(name, 300, rng) + [repr(rng.uniform(-1e6, 1e6)) for _ in range(200)]
    texts += ["0", "-0", "0.0e9", "1e-400", "-1e-400", "1e400", "3.5e38", "-7e4", "65520",
              "448", "464", "1_000", "0x1p-3", "inf", "-nan", " 2.5 ", "+.5", "5.", "1E3",
              "2.0000000000000000000000000000001", "1" + "0" * 300, "4.9e-324"]
    fast = parse_values(texts, parse_format(name))
    bits, over = slow(texts, name)
    assert fast.bits.tolist() == bits
    assert fast.overflow.tolist() == over


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(FLOATS), digits=st.text("0123456789", min_size=1, max_size=40),
       point=st.integers(0, 40), exp=st.integers(-60, 60), neg=st.booleans())
def test_parse_values_equals_parse_value_on_any_decimal(name: str, digits: str, point: int,
                                                        exp: int, neg: bool) -> None:
    p = min(point, len(digits))
    text = f"{'-' if neg else ''}{digits[:p]}.{digits[p:]}e{exp}".replace("-.e", "-0.e")
    if text.lstrip("-").startswith(".e"):
        text = text.replace(".e", "0.e", 1)
    fast = parse_values([text], parse_format(name))
    exact: ParsedValue = parse_value(text, parse_format(name))
    assert (int(fast.bits[0]), bool(fast.overflow[0])) == (exact.bits, exact.overflow)


@pytest.mark.parametrize("name", INTS)
def test_parse_values_integers(name: str) -> None:
    fmt = parse_format(name)
    texts = [str(fmt.min_value), str(fmt.max_value), "0", "-0", " 7 ", "2.0", "0_1", "5e0"]
    assert parse_values(texts, fmt).bits.tolist() == slow(texts, name)[0]


def test_a_bad_value_goes_to_the_slow_reader_with_its_index() -> None:
    seen: list[tuple[int, str]] = []

    def read(i: int, t: str) -> ParsedValue:
        seen.append((i, t))
        return parse_value(t, parse_format("fp32"))

    with pytest.raises(ValueError, match="expected a number"):
        parse_values(["1", "2", "one"], parse_format("fp32"), read)
    assert seen == [(2, "one")]
    with pytest.raises(ValueError, match="out of range"):
        parse_values(["1", "300"], parse_format("int8"))


# --- the command line ---------------------------------------------------------------------

from pathlib import Path  # noqa: E402

from click.testing import CliRunner  # noqa: E402

from neurondbg.cli import cli  # noqa: E402

SAMPLE = ["1.5", "0.1", "-0", "nan", "-inf", "1e999", "65504", "3.0e-8", "448", "-1e-40",
          "0x1p-3", "1_000", "2.5", "1e-400", "0.3333333333333333333333333"]


def one_value_rows(values: list[str], *opts: str) -> list[dict]:
    r = CliRunner().invoke(cli, ["convert", *values, *opts, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize(("src", "dst", "extra"), [
    ("fp32", "bf16", ()), ("fp32", "fp8_e4m3fn", ("--sat",)), ("fp16", "fp8_e5m2", ()),
    ("bf16", "int8", ("--mode", "trunc")), ("fp32", "hif8", ()), ("fp32", "fp32r", ()),
])
def test_input_lines_equal_the_one_value_form(tmp_path: Path, src: str, dst: str,
                                              extra: tuple[str, ...]) -> None:
    opts = ["--from", src, "--to", dst, *extra]
    f = tmp_path / "v.txt"
    f.write_text("# values\n\n" + "\n".join(SAMPLE) + "\n")
    r = CliRunner().invoke(cli, ["convert", "--input", str(f), *opts, "--json"])
    assert r.exit_code == 0, r.output
    got = [json.loads(line) for line in r.stdout.splitlines()]
    want = one_value_rows(SAMPLE, *opts)
    assert len(got) == len(want) == len(SAMPLE)
    for g, w in zip(got, want, strict=True):
        finite = all(isinstance(w[k], float | int) for k in ("input_value", "output_value"))
        if finite:  # the trace's "exact" is "equal" when no special value is involved
            assert g["equal"] == ("exact" in w["flags"])
        assert g["equal"] == (w["input_value"] == w["output_value"])
        del w["flags"], g["equal"]
        assert g == w


def test_input_text_lines_and_stdin(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["convert", "--input", "-", "--from", "fp32", "--to", "bf16"],
                           input="1.5\n0.1\nnan\n")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == [
        "# fp32 -> bf16  (ieee, rint, nosat)",
        "# input\tinput bits\tinput value\toutput bits\toutput value\tequal",
        "1.5\t0x3fc00000\t1.5\t0x3fc0\t1.5\tequal",
        "0.1\t0x3dcccccd\t0.10000000149011612\t0x3dcd\t0.10009765625\tdiffers",
        "nan\t0x7fc00000\tnan\t0x7fc0\tnan\tequal"]


def test_input_npy_values_and_bits(tmp_path: Path) -> None:
    f = tmp_path / "v.npy"
    np.save(f, np.array([1.5, 0.1, -2.0], np.float32))
    r = CliRunner().invoke(cli, ["convert", "--input", str(f), "--from", "fp32", "--to", "bf16",
                                 "--json"])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["input_bits"] for x in rows] == ["0x3fc00000", "0x3dcccccd", "0xc0000000"]
    np.save(f, np.array([0x3C00, 0x7C00], np.uint16))
    r = CliRunner().invoke(cli, ["convert", "--input", str(f), "--bits", "--from", "fp16",
                                 "--to", "fp32", "--json"])
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["output_value"] for x in rows] == [1.0, "inf"]


@pytest.mark.parametrize(("text", "args", "message"), [
    ("1\n\ntwo\n", (), "v.txt:3: value 'two': expected a number"),
    ("1\n300\n", ("--from", "int8", "--to", "int16"), "v.txt:2: value '300': out of range"),
    ("0x1g\n", ("--bits",), "v.txt:1: convert: value '0x1g': expected a hex bit pattern"),
    ("# only a comment\n", (), "v.txt: no values"),
])
def test_a_bad_input_is_one_line_with_its_line(tmp_path: Path, text: str, args: tuple,
                                                message: str) -> None:
    f = tmp_path / "v.txt"
    f.write_text(text)
    opts = list(args) if "--from" in args else ["--from", "fp32", "--to", "bf16", *args]
    r = CliRunner().invoke(cli, ["convert", "--input", str(f), *opts])
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr


def test_input_refuses_per_value_forms(tmp_path: Path) -> None:
    f = tmp_path / "v.txt"
    f.write_text("1\n")
    for extra in (["1.5"], ["--trace"], ["--compare"]):
        r = CliRunner().invoke(cli, ["convert", "--input", str(f), "--from", "fp32", "--to",
                                     "bf16", *extra])
        assert r.exit_code == 2 and r.stderr.startswith("neurondbg: error: convert: ")


def test_input_not_utf8(tmp_path: Path) -> None:
    f = tmp_path / "v.txt"
    f.write_bytes(b"1.5\n\xff\n")
    r = CliRunner().invoke(cli, ["convert", "--input", str(f), "--from", "fp32", "--to", "bf16"])
    assert r.exit_code == 2 and "offset 4: expected UTF-8" in r.stderr
