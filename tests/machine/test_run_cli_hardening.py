"""`run` / `asm` / `replay` / `validate` never lose a file and behave like a debugger:
outputs that are inputs are refused before the run, writes are atomic, Ctrl+C stops at
a step with exit 130 and saves, a session continues, `validate` and `run` agree."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.isa.programs import counted_loop, spin
from neurondbg.sessions import atomic
from tests.helpers import aliases, interrupted_spin

LOOP = counted_loop(10)
SPIN = spin(1)
PREDICATED = ("    CAST_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=BF16 op=BYPASS nac=8 "
              "src0=sb[0, 0] step=[1,0,0] num=[8,1,1] src1=sb[0, 32] step=[1,0,0] num=[8,1,1] "
              "dst=sb[0, 64] step=[1,0,0] num=[8,1,1]\n")


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit), \
        r.exception
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    p = tmp_path / "loop.asm"
    p.write_text(LOOP)
    return p


# -- an output that is an input is refused before the run ------------------------------------
@pytest.mark.parametrize("option", ["--save-session", "--trace", "--dump-sbuf"])
def test_output_that_resolves_to_the_program_is_refused(prog: Path, tmp_path: Path,
                                                        option: str) -> None:
    before = prog.read_bytes()
    for alias in aliases(prog):
        code, out, err = run("run", prog, option, alias)
        assert code == 2 and out == "", (alias, err)
        assert f"{option} would overwrite the program" in err and err.count("\n") == 1
        assert prog.read_bytes() == before


def test_outputs_naming_the_sbuf_input_a_session_or_each_other_are_refused(
        prog: Path, tmp_path: Path) -> None:
    image = tmp_path / "in.npy"
    np.save(image, np.arange(8, dtype=np.uint8).reshape(1, 8))
    code, _, err = run("run", prog, "--sbuf", image, "--dump-sbuf", image)
    assert code == 2 and "would overwrite the --sbuf input" in err
    assert np.array_equal(np.load(image), np.arange(8, dtype=np.uint8).reshape(1, 8))
    out = tmp_path / "o.out"
    code, _, err = run("run", prog, "--trace", out, "--dump-sbuf", out)
    assert code == 2 and "would overwrite the --trace output" in err and not out.exists()
    sess = tmp_path / "s.toml"
    assert run("run", prog, "--max-steps", "3", "--save-session", sess)[0] == 0
    saved = sess.read_bytes()
    code, _, err = run("run", sess, "--save-session", sess)
    assert code == 2 and "would overwrite the session" in err and sess.read_bytes() == saved
    code, _, err = run("run", sess, "--trace", prog)
    assert code == 2 and "would overwrite the program the session names" in err


def test_unwritable_outputs_are_refused_before_the_run(prog: Path, tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    code, out, err = run("run", prog, "--save-session", sess, "--trace",
                         tmp_path / "missing" / "t.jsonl")
    assert code == 2 and out == "" and "no such folder" in err
    assert not sess.exists()  # nothing ran, nothing was written
    code, _, err = run("run", prog, "--dump-sbuf", "/dev/null")
    assert code == 2 and "not a regular file" in err


def test_asm_refuses_to_overwrite_its_source(prog: Path) -> None:
    before = prog.read_bytes()
    code, _, err = run("asm", prog, "-o", prog)
    assert code == 2 and "-o would overwrite the source" in err and prog.read_bytes() == before


# -- atomic outputs ---------------------------------------------------------------------------
def _failing_replace(monkeypatch) -> None:
    def crash(src, dst):
        raise OSError(5, "simulated crash")
    monkeypatch.setattr(atomic.os, "replace", crash)


def _temporaries(folder: Path) -> list[str]:
    return [n for n in os.listdir(folder) if n.endswith(".tmp")]


def test_dump_sbuf_trace_and_asm_output_survive_a_crash(prog: Path, tmp_path: Path,
                                                        monkeypatch) -> None:
    # earlier outputs of the same kinds: an image, a trace, a program
    old = {tmp_path / "sb.npy": b"\x93NUMPY" + bytes(58), tmp_path / "t.jsonl":
           b'{"neurondbg_trace":1}\n', tmp_path / "p.bin": bytes(64)}
    for p, data in old.items():
        p.write_bytes(data)
    dump, trace, binary = old
    _failing_replace(monkeypatch)
    for args in (("run", prog, "--dump-sbuf", dump), ("run", prog, "--trace", trace),
                 ("asm", prog, "-o", binary)):
        code, _, err = run(*args)
        assert code == 2 and "simulated crash" in err
    assert [p.read_bytes() for p in old] == list(old.values())
    assert _temporaries(tmp_path) == []


def test_asm_writes_records_and_sidecar(tmp_path: Path) -> None:
    src = tmp_path / "d.asm"
    src.write_text(".data sb[0:1, 0] fp32 1 2\n" + LOOP)
    out = tmp_path / "d.bin"
    assert run("asm", src, "-o", out)[0] == 0
    assert (tmp_path / "d.bin.data.npz").is_file() and out.stat().st_size == 5 * 64
    src.write_text(LOOP)
    assert run("asm", src, "-o", out)[0] == 0
    assert not (tmp_path / "d.bin.data.npz").exists()  # a stale sidecar is removed
    assert _temporaries(tmp_path) == []


# -- Ctrl+C ------------------------------------------------------------------------------------
def test_ctrl_c_stops_at_a_step_saves_and_exits_130(tmp_path: Path) -> None:
    result, err, spin = interrupted_spin(tmp_path, SPIN)
    assert (f"interrupted at step {result['steps']} (engine pool, pc {result['pc']:#x}, "
            f"{spin}:") in err


# -- sessions continue -----------------------------------------------------------------------
def test_run_session_continues_from_the_saved_step(prog: Path, tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    code, out, _ = run("run", prog, "--max-steps", "7", "--save-session", sess, "--json")
    first = json.loads(out)
    code, out, _ = run("run", sess, "--json", "--max-steps", "0")
    assert json.loads(out)["steps"] == 7 and json.loads(out)["digest"] == first["digest"]
    code, out, _ = run("run", sess, "--json")
    done = json.loads(out)
    assert code == 0 and done["stop"]["reason"] == "halt" and done["registers"][1] == 30
    code, out, _ = run("run", sess, "--json", "--max-steps", "2")  # counted from step 7
    assert json.loads(out)["steps"] == 9


# -- validate and run agree --------------------------------------------------------------------
def test_validate_and_run_judge_the_same_engine_with_the_same_fix(tmp_path: Path) -> None:
    p = tmp_path / "pred.asm"
    p.write_text("    MOVE R1=1\n" + PREDICATED + "    HALT\n")
    vcode, vout, _ = run("validate", p)
    rcode, rout, _ = run("run", p)
    assert vcode == 1 and rcode == 1
    assert vout.startswith(f"#1 @0x000040 {p}:2:5: CAST_PREDICATED")  # source line:column
    clause = [ln for ln in vout.splitlines() if ln.startswith("  engine_has_opcode(pool)")]
    assert len(clause) == 1 and "(fix: " in clause[0]
    assert clause[0] in rout.splitlines()  # run's invalid stop carries the same line
    assert f"({p}:2:5)" in rout.splitlines()[0]  # the source line:column of the CAST
    _, out, _ = run("run", p, "--json")
    stop = json.loads(out)["stop"]
    assert stop["source"] == f"{p}:2:5" and "engine_has_opcode(pool)" in stop["fixes"]
    assert run("validate", p, "--engine", "dve")[0] == 0
    assert run("validate", p, "--engine", "any")[0] == 0  # wire-level predicates only


# -- replay ------------------------------------------------------------------------------------
def test_replay_stops_when_interrupted(prog: Path, tmp_path: Path) -> None:
    from neurondbg.sessions.errors import SessionInterrupted
    from neurondbg.sessions.replay import replay

    trace = tmp_path / "t.jsonl"
    assert run("run", prog, "--trace", trace)[0] == 0
    stop = threading.Event()
    assert not replay(trace, prog, interrupt=stop).diverged
    stop.set()
    # set before it starts: it stops in its first phase, counting the trace's steps
    with pytest.raises(SessionInterrupted, match=r"t.jsonl: replay interrupted while counting "
                                                 r"the trace's steps \(at step 0; 0 steps "
                                                 r"matched\)"):
        replay(trace, prog, interrupt=stop)


def test_fifo_programs_are_refused_by_every_command(tmp_path: Path) -> None:
    fifo = tmp_path / "p.bin"
    os.mkfifo(fifo)
    for args in (("validate", fifo), ("run", fifo), ("asm", fifo, "-o", tmp_path / "o.bin")):
        code, _, err = run(*args)
        assert code == 2 and "is a FIFO" in err and err.count("\n") == 1, (args, err)
