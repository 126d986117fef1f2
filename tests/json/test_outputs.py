"""Every command's `--json` output on the bundled examples is a document of its kind: it
names its schema (`"schema": "neurondbg.<kind>/1"`) and that schema, shipped in the
package, accepts it. Inputs that vary (values, formats, modes) come from hypothesis."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.documents import Kind
from neurondbg.machine.neff.writer import write_neff
from neurondbg.schemas import schema
from neurondbg.sessions import examples
from tests.json.check import assert_document, assert_lines, errors, invoke
from tests.neff.kernels import vector_add

PROGRAMS = sorted(p for p in examples.files() if p.suffix in (".asm", ".bin"))
KERNELS = examples.kernels()
ALL = [*PROGRAMS, *KERNELS]
NAMES = [p.name if p.parent == examples.folder() else f"kernels/{p.name}" for p in ALL]


def _exit(code: int, *allowed: int) -> None:
    assert code in allowed or code in (0, 1), code


@pytest.mark.parametrize("path", ALL, ids=NAMES)
def test_run(path: Path) -> None:
    r = invoke("run", str(path), "--json")
    _exit(r.exit_code)
    doc = assert_document(r.stdout, Kind.RUN)
    assert isinstance(doc, dict)
    assert ("kernel" in doc) == (path in KERNELS)


@pytest.mark.parametrize("args", [
    ("--max-steps", "0"), ("--max-steps", "3"), ("--break", "op:CAST"),
    ("--engine", "dve", "--execute-invalid"), ("--engine", "dve", "--break", "invalid")],
    ids=["start", "max-steps", "breakpoint", "fault", "invalid"])
def test_run_each_stop(args: tuple[str, ...]) -> None:
    r = invoke("run", str(examples.path("demo.asm")), "--json", *args)
    _exit(r.exit_code)
    assert_document(r.stdout, Kind.RUN)


@settings(max_examples=12, deadline=None)
@given(program=st.sampled_from([examples.path("demo.asm"), examples.path("loop.asm"),
                                examples.kernel("missing_wait"), examples.kernel("deadlock"),
                                examples.kernel("double_buffer")]),
       max_steps=st.integers(0, 40), seed=st.integers(0, 2**16), engine=st.sampled_from(
           ["pool", "dve"]))
def test_run_stops_anywhere(program: Path, max_steps: int, seed: int, engine: str) -> None:
    """Wherever a run stops (a step budget, a random schedule of a kernel's engines), its
    document is a run document."""
    extra = (["--schedule", f"random:{seed}"] if program in KERNELS else
             ["--engine", engine, "--execute-invalid"])
    r = invoke("run", str(program), "--json", "--max-steps", str(max_steps), *extra)
    _exit(r.exit_code)
    doc = assert_document(r.stdout, Kind.RUN)
    assert isinstance(doc, dict) and doc["steps"] <= max_steps


def test_run_a_session() -> None:
    r = invoke("run", str(examples.DEMO), "--json")
    _exit(r.exit_code)
    doc = assert_document(r.stdout, Kind.RUN)
    assert isinstance(doc, dict) and "session" in doc


@pytest.mark.parametrize("path", ALL, ids=NAMES)
def test_validate(path: Path) -> None:
    r = invoke("validate", str(path), "--json")
    _exit(r.exit_code)
    doc = assert_document(r.stdout, Kind.VALIDATE)
    assert isinstance(doc, dict)
    # a program and a kernel share the top level: gen, engine, count, invalid and every
    # row in `instructions`; a kernel's `engine` is null and it keeps `engines`
    assert {"gen", "engine", "count", "invalid", "instructions"} <= set(doc)
    assert ("engines" in doc) == (path in KERNELS) == (doc["engine"] is None)
    r = invoke("validate", str(path), "--summary")
    _exit(r.exit_code)
    assert_document(r.stdout, Kind.VALIDATE_SUMMARY)


@pytest.mark.parametrize("path", ALL, ids=NAMES)
def test_disasm(path: Path) -> None:
    """A binary program streams its rows, an assembly one renders them whole: both
    stamp every row; a kernel is one object."""
    r = invoke("disasm", str(path), "--json")
    assert r.exit_code == 0, r.output
    doc = assert_document(r.stdout, Kind.DISASM)
    assert isinstance(doc, dict) == (path in KERNELS)


def test_disasm_streamed_rows_equal_the_whole_form(tmp_path: Path) -> None:
    """A .bin streamed a block at a time gives what the same records give rendered
    whole (the assembly form, copied under a name that is not read as records)."""
    streamed = invoke("disasm", str(examples.path("loop.bin")), "--json")
    whole = invoke("disasm", str(examples.path("loop.asm")), "--json")
    assert json.loads(streamed.stdout) == json.loads(whole.stdout)


@pytest.mark.parametrize("path", [examples.path("loop.asm"), examples.kernel("double_buffer")],
                         ids=["program", "kernel"])
def test_replay(path: Path, tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    r = invoke("run", str(path), "--trace", str(trace))
    assert r.exit_code == 0, r.output
    r = invoke("replay", str(trace), str(path), "--json")
    assert r.exit_code == 0, r.output
    doc = assert_document(r.stdout, Kind.REPLAY)
    assert isinstance(doc, dict) and doc["diverged"] is False


def test_replay_a_divergence(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    assert invoke("run", str(examples.path("loop.asm")), "--trace", str(trace)).exit_code == 0
    other = tmp_path / "other.asm"
    other.write_text(examples.path("loop.asm").read_text().replace("src1=3", "src1=4"))
    r = invoke("replay", str(trace), str(other), "--json")
    assert r.exit_code == 1, r.output
    doc = assert_document(r.stdout, Kind.REPLAY)
    assert isinstance(doc, dict) and doc["diverged"] is True


def test_check_nki() -> None:
    r = invoke("check-nki", str(examples.path("nki_calls.json")), "--json")
    _exit(r.exit_code)
    rows = assert_document(r.stdout, Kind.CHECK_NKI)
    assert [row["index"] for row in rows] == list(range(len(rows)))
    r = invoke("check-nki", "--list", "--json")
    assert r.exit_code == 0, r.output
    assert_document(r.stdout, Kind.CHECK_NKI_LIST)


FLOATS = ["fp32", "fp16", "bf16", "fp8_e4m3fn", "fp8_e5m2", "fp8_e3m4", "hif8", "fp4_e2m1"]
INTS = ["int8", "uint8", "int16", "int32"]
MODES = ["rint", "round", "floor", "ceil", "trunc", "odd"]
VALUES = st.one_of(st.floats(width=32, allow_nan=True, allow_infinity=True).map(repr),
                   st.integers(-1000, 1000).map(str))


@settings(max_examples=25, deadline=None)
@given(values=st.lists(VALUES, min_size=1, max_size=4), dst=st.sampled_from(FLOATS + INTS),
       mode=st.sampled_from(MODES), sat=st.booleans(), trace=st.booleans())
def test_convert(values: list[str], dst: str, mode: str, sat: bool, trace: bool) -> None:
    args = ["convert", *values, "--from", "fp32", "--to", dst, "--mode", mode,
            "--sat" if sat else "--nosat", "--json"] + (["--trace"] if trace else [])
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    rows = assert_document(r.stdout, Kind.CONVERT)
    assert len(rows) == len(values)
    assert all(("trace" in row) == trace for row in rows)


@settings(max_examples=10, deadline=None)
@given(values=st.lists(VALUES, min_size=1, max_size=3), dst=st.sampled_from(FLOATS))
def test_convert_compare(values: list[str], dst: str) -> None:
    r = invoke("convert", *values, "--from", "fp32", "--to", dst, "--compare", "--json")
    assert r.exit_code == 0, r.output
    assert len(assert_document(r.stdout, Kind.CONVERT_COMPARE)) == len(values)


@pytest.mark.parametrize("args", [("1.5", "--iss", "narrow"), ("7", "-2", "--iss", "float"),
                                  ("3.25", "--iss", "trunc", "--trace")])
def test_convert_iss(args: tuple[str, ...]) -> None:
    r = invoke("convert", *args, "--json")
    assert r.exit_code == 0, r.output
    assert_document(r.stdout, Kind.CONVERT_ISS)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(VALUES, min_size=1, max_size=20), dst=st.sampled_from(FLOATS + INTS))
def test_convert_lines(values: list[str], dst: str) -> None:
    """--input: JSON Lines, each line a convert row."""
    r = invoke("convert", "--input", "-", "--from", "fp32", "--to", dst, "--json",
               input="\n".join(values) + "\n")
    assert r.exit_code == 0, r.output
    assert len(assert_lines(r.stdout, Kind.CONVERT)) == len(values)


@pytest.mark.parametrize("mode", ["rint", "round"])
def test_diagnose(mode: str, tmp_path: Path) -> None:
    x = np.linspace(-4, 4, 64, dtype=np.float32)
    x[5] = 1.0625  # a tie, told apart by the mode
    np.save(tmp_path / "x.npy", x)
    r = invoke("convert", "--input", str(tmp_path / "x.npy"), "--from", "fp32", "--to",
               "fp8_e4m3fn", "--mode", mode, "--json")
    assert r.exit_code == 0, r.output
    y = np.array([float(json.loads(line)["output_value"]) for line in r.stdout.splitlines()],
                 dtype=np.float32)
    np.save(tmp_path / "y.npy", y)
    r = invoke("diagnose", str(tmp_path / "x.npy"), str(tmp_path / "y.npy"), "--from", "fp32",
               "--to", "fp8_e4m3fn", "--json", "--trace-lane", "5")
    assert r.exit_code == 0, r.output
    doc = assert_document(r.stdout, Kind.DIAGNOSE)
    assert isinstance(doc, dict) and "trace_lane" in doc


@pytest.fixture
def neff(tmp_path: Path) -> Path:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add()], target="sunda")
    return path


def test_neff(neff: Path) -> None:
    r = invoke("run", str(neff), "--json")
    _exit(r.exit_code)
    assert_document(r.stdout, Kind.RUN_NEFF)
    r = invoke("run", str(neff), "--json", "--races", "off")
    _exit(r.exit_code)
    assert_document(r.stdout, Kind.RUN_NEFF)
    r = invoke("validate", str(neff), "--json")
    _exit(r.exit_code)
    doc = assert_document(r.stdout, Kind.VALIDATE)
    assert isinstance(doc, dict) and "engines" in doc
    r = invoke("validate", str(neff), "--summary")
    _exit(r.exit_code)
    assert_document(r.stdout, Kind.VALIDATE_SUMMARY)
    r = invoke("disasm", str(neff), "--json")
    assert r.exit_code == 0, r.output
    doc = assert_document(r.stdout, Kind.DISASM)
    assert isinstance(doc, dict) and "neff" in doc


@pytest.mark.parametrize(("args", "kind"), [
    (("run", str(examples.path("loop.asm")), "--json"), Kind.RUN),
    (("run", str(examples.kernel("missing_wait")), "--json"), Kind.RUN),
    (("validate", str(examples.path("copy_type_mismatch.asm")), "--json"), Kind.VALIDATE),
    (("validate", str(examples.kernel("missing_wait")), "--json"), Kind.VALIDATE),
    (("validate", str(examples.path("copy_type_mismatch.asm")), "--summary"),
     Kind.VALIDATE_SUMMARY),
    (("disasm", str(examples.kernel("deadlock")), "--json"), Kind.DISASM),
], ids=["run", "run-kernel", "validate", "validate-kernel", "summary", "disasm-kernel"])
def test_the_schema_rejects_the_output_without_any_required_key(args: tuple[str, ...],
                                                                 kind: Kind) -> None:
    """Each key the schema requires of a real document is checked: the document without
    it (or, for validate, without its rows) is refused."""
    doc = json.loads(invoke(*args).stdout)
    assert errors(doc, kind) == []
    required = schema(kind).get("required") or next(
        s["required"] for s in schema(kind)["oneOf"] if s.get("type") == "object")
    for key in [*required, "instructions", "engines", "failures"]:
        if key in doc:
            broken = {k: v for k, v in doc.items() if k != key}
            assert errors(broken, kind), f"{kind}: accepted without {key!r}"
    if "stop" in doc:
        broken = {**doc, "stop": {k: v for k, v in doc["stop"].items() if k != "reason"}}
        assert errors(broken, kind), "a stop without its reason was accepted"
