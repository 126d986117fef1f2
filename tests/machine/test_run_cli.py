"""`neurondbg run` on the examples: JSON shape, exit codes, --dump-sbuf, --sbuf, --trace, errors."""

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.asm import assemble

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DVE = {"accumulators", "predicated_cast", "demo"}
EXPECT = {  # example -> (stop reason, exit code, steps)
    "loop": ("halt", 0, 32), "move_dtype_gate": ("invalid", 1, 1),
    "copy_type_mismatch": ("invalid", 1, 1), "cast_rounding": ("halt", 0, 4),
    "predicated_cast": ("halt", 0, 2), "accumulators": ("halt", 0, 4), "demo": ("invalid", 1, 18),
}


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("name", sorted(EXPECT))
@pytest.mark.parametrize("suffix", [".asm", ".bin"])
def test_examples_run_json(name, suffix) -> None:
    engine = "dve" if name in DVE else "pool"
    code, out, _ = run(str(EXAMPLES / f"{name}{suffix}"), "--json", "--engine", engine)
    reason, want_code, steps = EXPECT[name]
    d = json.loads(out)
    assert (d["stop"]["reason"], code, d["steps"]) == (reason, want_code, steps)
    assert set(d["stop"]) >= {"reason", "pc", "detail"} and len(d["registers"]) == 64
    assert d["pc"] == d["stop"]["pc"] or reason == "halt"


def test_binaries_match_their_sources() -> None:
    for src in EXAMPLES.glob("*.asm"):
        asm = assemble(src.read_text(), str(src))
        assert asm.records == src.with_suffix(".bin").read_bytes(), src.name


def test_loop_registers_and_trace(tmp_path) -> None:
    trace = tmp_path / "t.jsonl"
    code, out, _ = run(str(EXAMPLES / "loop.asm"), "--json", "--trace", str(trace))
    assert code == 0 and json.loads(out)["registers"][1:3] == [30, 0]
    header, *lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert header == {"neurondbg_trace": 1, "gen": "cayman", "engine": "pool",
                      "execute_invalid": False}
    assert len(lines) == 32 and lines[0]["mnemonic"] == "MOVE" and lines[-1]["halted"]
    assert lines[1]["writes"] == [{"target": "R1", "old": 0, "new": 3}]
    assert all(x["verdict"] == "valid" for x in lines)


def test_dump_sbuf_of_cast_example(tmp_path) -> None:
    out = tmp_path / "sb.npy"
    code, _, _ = run(str(EXAMPLES / "cast_rounding.bin"), "--dump-sbuf", str(out))
    sb = np.load(out)
    assert code == 0 and sb.dtype == np.uint8 and sb.shape == (128, 224 * 1024)
    src = sb[:, :256].view(np.float32)
    np.testing.assert_array_equal(sb[:, 0x400:0x480].view(ml_dtypes.bfloat16),
                                  src.astype(ml_dtypes.bfloat16))
    assert sb[127, 0xC00:0xC40].view(np.int8).tolist() == [127] * 64


def test_sbuf_input_and_breakpoints(tmp_path) -> None:
    a = np.zeros((2, 64), np.uint8)
    a[:, 0:4] = np.frombuffer(np.float32(1 + 2.0**-8).tobytes(), np.uint8)
    path = tmp_path / "in.npy"
    np.save(path, a)
    code, out, _ = run(str(EXAMPLES / "copy_type_mismatch.asm"), "--sbuf", str(path), "--json",
                       "--break", "tie")
    d = json.loads(out)
    assert code == 0 and d["stop"]["reason"] == "breakpoint" and "tie" in d["stop"]["detail"]
    code, out, _ = run(str(EXAMPLES / "loop.asm"), "--break", "label:loop if R2 == 5", "--json")
    assert json.loads(out)["registers"][2] == 5
    code, out, _ = run(str(EXAMPLES / "loop.asm"), "--max-steps", "3", "--json")
    assert code == 0 and json.loads(out)["stop"]["reason"] == "max-steps"


@pytest.mark.parametrize("args, fragment", [
    (["missing.asm"], "missing.asm: no such file"),
    (["{ex}/loop.asm", "--break", "pc:zz"], "--break 'pc:zz': column 4"),
    (["{ex}/loop.asm", "--break", "label:nowhere"], "unknown label 'nowhere'"),
    (["{ex}/loop.asm", "--gen", "tonga"], "Invalid value for '--gen': unknown generation"),
    (["{ex}/loop.asm", "--sbuf", "{ex}/loop.asm"], "expected a .npy file"),
])
def test_bad_input_is_one_line_exit_2(args, fragment, tmp_path) -> None:
    code, _, err = run(*[a.format(ex=EXAMPLES) for a in args])
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_partial_record_and_asm_errors(tmp_path) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\0" * 70)
    code, _, err = run(str(bad))
    assert code == 2 and "offset 64" in err and len(err.strip().splitlines()) == 1
    src = tmp_path / "bad.asm"
    src.write_text("NOP\nFROB x=1\n")
    code, _, err = run(str(src))
    assert code == 2 and "bad.asm:2:" in err and len(err.strip().splitlines()) == 1


def test_save_session_and_resume(tmp_path) -> None:
    sess = tmp_path / "s.toml"
    code, out, _ = run(str(EXAMPLES / "loop.asm"), "--max-steps", "7", "--save-session",
                       str(sess), "--json")
    first = json.loads(out)
    assert code == 0 and sess.exists() and first["steps"] == 7
    code, out, _ = run(str(sess), "--json", "--max-steps", "0")  # 0: the saved state
    again = json.loads(out)
    assert again["steps"] == 7 and again["digest"] == first["digest"]
    code, out, _ = run(str(sess), "--json")  # continues from the saved step to the halt
    assert json.loads(out)["stop"]["reason"] == "halt" and json.loads(out)["registers"][1] == 30
