"""Rounding forensics: diagnose finds the rule or slip that built ACTUAL."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.convert import convert
from neurondbg.machine.convert.diagnose import EXPECTED, Rule, Stopped, candidate_rules, diagnose
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.kernels import decode_value


def lanes(src: str, n: int = 4096, seed: int = 7) -> np.ndarray:
    """Random encodings plus values that tell rules apart: ties, subnormals, overflow, NaN."""
    fmt = FORMATS[src]
    rng = np.random.default_rng(seed)
    if fmt.is_float and fmt.bits == 32:
        v = np.concatenate([rng.standard_normal(n) * 8, rng.standard_normal(n) * 1e-3,
                            [1.0625, 1.1875, -1.0625, 2.5, 0.5, 1e6, -1e6, np.nan, np.inf,
                             2.0**-9 * 1.5, 2.0**-130, 300.5, 127.5, -128.5]])
        return v.astype(np.float32).view(np.uint32)
    return rng.integers(0, 1 << fmt.bits, n, dtype=np.uint64).astype(fmt.container)


PAIRS = [("fp32", "fp8_e4m3fn"), ("fp32", "bf16"), ("bf16", "fp4_e2m1"), ("fp32", "int8"),
         ("fp32", "hif8"), ("fp16", "fp8_e5m2")]


@pytest.mark.parametrize("src,dst", PAIRS)
def test_finds_every_injected_rule_and_slip(src: str, dst: str) -> None:
    s, d = FORMATS[src], FORMATS[dst]
    x = lanes(src)
    base = EXPECTED.request.apply(x, s, d)
    for rule in candidate_rules(s, d):
        actual = rule.request.apply(x, s, d)
        got = diagnose(x, actual, s, d)
        assert got.unexplained == 0, rule.name
        assert got.matches_baseline == int((actual == base).sum())
        if (actual == base).all():
            continue
        # the injected rule reproduces every lane, and is named as doing so
        assert rule in got.every, (rule.name, [r.name for r in got.every])
        # the first explaining rule reproduces ACTUAL on the lanes it was given
        first = got.explained_by[0][0]
        diff = actual != base
        assert (first.request.apply(x[diff], s, d) == actual[diff]).any()
        assert sum(n for _, n in got.explained_by) == int(diff.sum())


def test_random_bits_are_unexplained() -> None:
    s, d = FORMATS["fp32"], FORMATS["fp8_e4m3fn"]
    x = lanes("fp32")
    noise = np.random.default_rng(1).integers(0, 256, x.shape, dtype=np.uint8)
    got = diagnose(x, noise, s, d)
    assert got.unexplained > 0.8 * x.size
    assert "match no rule (unexplained)" in got.summary()
    assert got.examples[-1]["rules"] == []


def test_ties_away_summary_and_json_shape() -> None:
    s, d = FORMATS["fp32"], FORMATS["fp8_e4m3fn"]
    x = np.full((4, 32), 1.5, np.float32)  # 1.5 is exact in e4m3fn
    x[3, 17] = 1.0625  # a tie: rint -> 0x38, round -> 0x39
    xb = x.view(np.uint32)
    got = diagnose(xb, convert(xb, s, d, "round"), s, d)
    text = got.summary()
    assert text.startswith("128 lanes: all match ieee rint (nearest, ties to even) except 1 tie, "
                           "which match ieee round (nearest, ties away from zero)")
    assert "e.g. lane [3, 17]: 1.0625 → 0x39, expected 0x38" in text
    j = got.to_dict()
    assert {"lanes", "explained_by", "unexplained", "examples"} <= set(j)
    assert j["lanes"] == 128 and j["unexplained"] == 0
    row = j["explained_by"][0]
    assert (row["rule"], row["lanes"]) == ({"name": "ieee round", "profile": "ieee",
                                            "mode": "round", "sat": False}, 1)
    # ceil sends the one tie up as well: equally good for that lane
    assert "ieee ceil" in {r["name"] for r in row["equally_good"]}
    ex = j["examples"][0]
    assert ex["index"] == [3, 17] and ex["input_bits"] == "0x3f880000"
    assert (ex["actual_bits"], ex["expected_bits"]) == ("0x39", "0x38")
    assert "ieee round" in ex["rules"]


def test_reference_array_is_the_judge() -> None:
    s, d = FORMATS["fp32"], FORMATS["bf16"]
    x = lanes("fp32", 512)
    ref = convert(x, s, d, "rint")
    actual = ref.copy()
    actual[:5] = convert(x[:5], s, d, "trunc")
    got = diagnose(x, actual, s, d, reference=ref)
    changed = int((actual != ref).sum())
    assert got.baseline is None and got.matches_baseline == x.size - changed
    assert got.unexplained == 0 and "the reference" in got.summary()


def test_double_rounding_via_bf16_is_named() -> None:
    s, d = FORMATS["fp32"], FORMATS["fp8_e4m3fn"]
    x = lanes("fp32")
    actual = convert(convert(x, s, "bf16"), "bf16", d)
    got = diagnose(x, actual, s, d)
    assert got.explained_by[0][0] == Rule("ieee", "rint", False, "double", "bf16")
    assert "double rounding via bf16" in got.summary()


def test_double_rounding_via_fp16_is_named_and_bf16_is_equally_good_for_its_lanes() -> None:
    # via bf16 reproduces the exceptions of via fp16 too, but contradicts other lanes
    s, d = FORMATS["fp32"], FORMATS["fp8_e4m3fn"]
    x = lanes("fp32")
    actual = convert(convert(x, s, "fp16"), "fp16", d)
    via = {v: Rule("ieee", "rint", False, "double", v) for v in ("bf16", "fp16")}
    assert (via["bf16"].apply(x, s, d) != actual).any()
    got = diagnose(x, actual, s, d)
    assert got.explained_by[0][0] == via["fp16"]
    assert via["bf16"] in got.equally_good[0]
    assert "which match double rounding via fp16" in got.summary()
    assert "(equally good for these lanes: double rounding via bf16" in got.summary()
    row = got.to_dict()["explained_by"][0]
    assert row["rule"]["via"] == "fp16"
    assert {r["name"] for r in row["equally_good"]} >= {via["bf16"].name}


@pytest.mark.parametrize("seed", range(4))
def test_each_group_names_the_rule_with_most_lanes_in_total(seed: int) -> None:
    s, d = FORMATS["fp32"], FORMATS["fp8_e4m3fn"]
    x = lanes("fp32", 512, seed)
    rules = candidate_rules(s, d)
    rule = rules[seed * 3 % len(rules)]
    actual = rule.request.apply(x, s, d)
    got = diagnose(x, actual, s, d)
    totals = {r: int((r.request.apply(x, s, d) == actual).sum()) for r in rules}
    for (named, _n), equal in zip(got.explained_by, got.equally_good, strict=True):
        assert all(totals[named] >= totals[e] for e in equal), (named, equal)


# --- the CLI --------------------------------------------------------------------------------

def run(*args: str):
    return CliRunner().invoke(cli, ["diagnose", *args])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    x = np.full((4, 32), 1.5, np.float32)
    x[3, 17] = 1.0625
    xb = x.view(np.uint32)
    y = convert(xb, "fp32", "fp8_e4m3fn", "round")
    paths = {"x": x, "xb": xb, "yb": y, "yv": decode_value(y, "fp8_e4m3fn"),
             "ref": convert(xb, "fp32", "fp8_e4m3fn", "rint"), "short": y[:2]}
    out = {}
    for name, arr in paths.items():
        out[name] = str(tmp_path / f"{name}.npy")
        np.save(out[name], arr)
    return out


def test_cli_summary_values_and_bits(files: dict[str, str]) -> None:
    for args in ((files["xb"], files["yb"], "--bits"), (files["x"], files["yv"])):
        res = run(*args, "--from", "fp32", "--to", "fp8_e4m3fn")
        assert res.exit_code == 0, res.output
        assert "except 1 tie, which match ieee round" in res.output
        assert "lane [3, 17]: 1.0625 → 0x39, expected 0x38" in res.output


def test_cli_json_reference_and_trace_lane(files: dict[str, str]) -> None:
    res = run(files["xb"], files["yb"], "--bits", "--from", "fp32", "--to", "fp8_e4m3fn",
              "--reference", files["ref"], "--json", "--trace-lane", "3,17")
    assert res.exit_code == 0, res.output
    j = json.loads(res.output)
    assert j["expected"] == "reference" and j["explained_by"][0]["rule"]["mode"] == "round"
    assert j["trace_lane"]["index"] == [3, 17]
    assert j["trace_lane"]["explained_by"]["name"] == "ieee round"
    res = run(files["xb"], files["yb"], "--bits", "--from", "fp32", "--to", "fp8_e4m3fn",
              "--trace-lane", "113")  # flat index of [3, 17]
    assert res.exit_code == 0, res.output
    assert "expected: ieee rint" in res.output and "explained by: ieee round" in res.output
    assert "ties go to the even code, 0x38" in res.output
    assert "ties go away from zero, to 0x39" in res.output


@pytest.mark.parametrize("which,extra,needle", [
    ("short", (), "has shape (2, 32) but INPUT (4, 32)"),
    ("yb", (), "is not a fp8_e4m3fn value (pass encodings with --bits)"),
    ("yv", ("--bits",), "expected an array of fp8_e4m3fn encodings (uint8)"),
    ("yb", ("--bits", "--trace-lane", "9,9"), "outside the shape (4, 32)"),
    ("missing", (), "missing.npy: no such ACTUAL .npy"),
])
def test_cli_errors_are_one_line(files: dict[str, str], which: str, extra: tuple,
                                 needle: str) -> None:
    first = files["xb"] if "--bits" in extra or which == "short" else files["x"]
    if which == "short":
        extra = ("--bits",)
    actual = files.get(which, "missing.npy")
    res = run(first, actual, "--from", "fp32", "--to", "fp8_e4m3fn", *extra)
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("neurondbg: error: diagnose: "), res.output
    assert needle in lines[0]


@pytest.mark.parametrize("size", [64, 1 << 17])  # lane by lane, and through the code tables
def test_cancelled_stops_between_rules(size: int) -> None:
    """The TUI's Esc: `cancelled` is asked before each rule's conversion; the answer
    stops the work there (Stopped), not after every rule has run."""
    fp32, bf16 = FORMATS["fp32"], FORMATS["bf16"]
    src, dst = (fp32, bf16) if size == 64 else (bf16, FORMATS["fp8_e4m3fn"])
    x = np.random.default_rng(1).integers(0, 1 << 16, size).astype(src.container)
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) == 3

    with pytest.raises(Stopped):
        diagnose(x, convert(x, src.name, dst.name), src, dst, cancelled=cancelled)
    assert len(asked) == 3 < len(candidate_rules(src, dst))
    full = diagnose(x, convert(x, src.name, dst.name), src, dst, cancelled=lambda: False)
    assert full.unexplained == 0
