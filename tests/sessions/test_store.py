"""Session save / load: exact state, breakpoints, layout, images, atomicity, bad input."""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.sessions import atomic
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.schema import session_from_dict
from neurondbg.sessions.store import load_session, read_session, save_session

from .conftest import make_core, queue, sbuf_image

LAYOUT = {"focus": "memory", "maximised": "", "memory": {"dtype": "bf16", "goto": [0, 64]}}


def _setup(program: Path) -> Core:
    core = make_core(program, sbuf=sbuf_image())  # not from the program: saved as an image
    core.add_breakpoint("label:loop if R1 >= 6")
    core.add_breakpoint("op:CAST")
    core.add_breakpoint("watch:R2")
    core.add_breakpoint("change:sb[0, 64:80]")
    core.set_enabled(2, False)
    return core


def test_round_trip_reproduces_state_breakpoints_layout(program: Path,
                                                        tmp_path: Path) -> None:
    machine = _setup(program)
    assert machine.cont().detail == "#3 watch:R2: MOVE at 0x0: R2 written: 0 -> 4"
    stop = machine.cont()
    assert stop.detail == ("#4 change:sb[0, 64:80]: CAST at 0x80: sbuf[0:1, 64:80] changed: "
                           + " ".join(["00"] * 16)
                           + " -> 02 03 06 07 0a 0b 0e 0f 12 13 16 17 1a 1b 1e 1f")
    assert machine.state().steps == 3
    steps, digest = machine.state().steps, machine.state().digest()
    path = tmp_path / "s" / "one.toml"
    path.parent.mkdir()
    save_session(path, machine, program_path=program, layout=LAYOUT, stop=stop)
    doc = tomllib.loads(path.read_text())
    assert doc["schema"] == 1 and doc["program"]["path"] == "../prog/loop.asm"
    assert doc["position"]["steps"] == steps and doc["position"]["stop"] == stop.to_dict()
    # images get content-hashed names, so a save never overwrites the images it replaces
    [image] = doc["data"]
    assert re.fullmatch(r"one\.sbuf\.[0-9a-f]{12}\.npy", image["file"])
    assert {k: v for k, v in image.items() if k != "file"} == {
        "space": "sbuf", "partition": 0, "offset": 0}
    assert np.load(path.parent / image["file"]).shape == (3, 40)

    loaded = load_session(path)
    m = loaded.core
    assert loaded.warnings == [] and loaded.digest_ok and not loaded.program_changed
    assert m.state().steps == steps and m.state().digest() == digest
    assert [(b.text, b.enabled) for b in m.breakpoints] == [
        ("label:loop if R1 >= 6", True), ("op:CAST", False), ("watch:R2", True),
        ("change:sb[0, 64:80]", True)]
    assert loaded.layout == LAYOUT and loaded.stop.to_dict() == stop.to_dict()
    # both machines continue identically, breakpoints included
    a, b = machine.cont(), m.cont()
    assert (a.reason, a.pc, a.detail) == (b.reason, b.pc, b.detail)
    assert machine.state().digest() == m.state().digest()


def test_reverse_stepped_session_and_machine_config(program: Path, tmp_path: Path) -> None:
    from neurondbg.machine.state import MachineConfig

    cfg = MachineConfig(sbuf_bytes=2048, psum_bytes=512, fp8_exp4="fp8_e4m3fn", fp8_sat=True,
                        execute_invalid=True, engine="dve")
    m = make_core(program, cfg)
    m.cont(max_steps=9)
    m.reverse_step()
    m.reverse_step()
    save_session(tmp_path / "r.toml", m, program_path=program)
    loaded = load_session(tmp_path / "r.toml")
    assert loaded.machine.config == queue(m).config and loaded.machine.state.steps == 7
    assert loaded.machine.state.digest() == m.state().digest() and loaded.stop is not None
    assert loaded.spec.data == []  # the program's own .data explains all memory


def test_paths_resolve_relative_to_the_session_file(program: Path, tmp_path: Path) -> None:
    machine = make_core(program, sbuf=sbuf_image())
    machine.cont(max_steps=3)
    save_session(tmp_path / "prog" / "s.toml", machine, program_path=program)
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "prog", moved)
    cwd = os.getcwd()
    os.chdir(tmp_path.parent)  # not the session's folder
    try:
        loaded = load_session(moved / "s.toml")
    finally:
        os.chdir(cwd)
    assert loaded.program_path == (moved / "loop.asm").resolve()
    assert loaded.machine.state.digest() == machine.state().digest()


def test_changed_program_is_flagged_and_can_be_refused(core: Core, program: Path,
                                                       tmp_path: Path) -> None:
    core.cont(max_steps=4)
    save_session(tmp_path / "s.toml", core, program_path=program)
    program.write_text(program.read_text().replace("src1=3", "src1=5"))
    loaded = load_session(tmp_path / "s.toml")
    assert loaded.program_changed and not loaded.digest_ok
    assert "changed since the session was saved" in loaded.warnings[0]
    assert "digest mismatch" in loaded.warnings[1]
    with pytest.raises(SessionError, match=r"s\.toml: program \.\./loop\.asm|prog/loop\.asm"):
        load_session(tmp_path / "s.toml", allow_changed=False)


def test_crash_between_write_and_rename_keeps_the_old_file(core: Core, program: Path,
                                                          tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.toml"
    save_session(path, core, program_path=program)
    before = path.read_bytes()
    core.cont(max_steps=5)

    def crash(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(SessionError, match=r"s\.toml: cannot write: No space left on device"):
        save_session(path, core, program_path=program)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog", "s.toml"]  # no temp left
    monkeypatch.undo()
    save_session(path, core, program_path=program)
    assert read_session(path).steps == 5


def _write(tmp_path: Path, text: str, program: Path | None = None) -> Path:
    p = tmp_path / "bad.toml"
    rel = "prog/loop.asm" if program is None else program
    p.write_text(text.replace("PROG", str(rel)))
    return p


GOOD = 'schema = 1\n[program]\npath = "PROG"\n[machine]\ngen = "cayman"\n'


@pytest.mark.parametrize("text, message", [
    ('schema = 1\n[program\npath = "x"\n', r"bad\.toml:2:9: malformed TOML: Expected ']'"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n",  # was a bare RecursionError
     r"bad\.toml: malformed TOML: nested too deeply or a number too large"),
    ('schema = 2\n[program]\npath = "x"\n[machine]\ngen = "cayman"\n',
     r"bad\.toml: schema: unknown schema version 2; this neurondbg reads version 1"),
    ('[program]\npath = "x"\n', r"bad\.toml: schema: missing"),
    ('schema = 1\n[machine]\ngen = "cayman"\n', r"bad\.toml: program: missing"),
    (GOOD.replace('"cayman"', '"tahoe"'), r"bad\.toml: machine\.gen: unknown generation"),
    (GOOD + 'engine = "gpu"\n', r"machine\.engine: expected one of pool, dve, act, pe, sp"),
    (GOOD + "fp8_sat = 1\n", r"machine\.fp8_sat: expected true or false, found an integer"),
    (GOOD + "[position]\nsteps = -3\n", r"position\.steps: expected a non-negative integer"),
    (GOOD + '[[breakpoints]]\nspec = 5\n', r"breakpoints\[0\]\.spec: expected a string"),
    (GOOD + '[[data]]\nspace = "dram"\nfile = "x.npy"\n',
     r"data\[0\]\.space: expected one of sbuf, psum, found 'dram'"),
])
def test_bad_session_files(tmp_path: Path, program: Path, text: str, message: str) -> None:
    with pytest.raises(SessionError, match=message) as e:
        load_session(_write(tmp_path, text))
    assert "\n" not in str(e.value)


def test_missing_program_data_and_not_a_program(tmp_path: Path, program: Path) -> None:
    with pytest.raises(SessionError, match=r"bad\.toml: program nope\.asm: no such file"):
        load_session(_write(tmp_path, GOOD.replace("PROG", "nope.asm")))
    with pytest.raises(SessionError, match=r"data\[0\]: /\S*/gone\.npy: no such data image$"):
        load_session(_write(tmp_path, GOOD + '[[data]]\nfile = "gone.npy"\n'))
    (tmp_path / "text.npy").write_text("not numpy")
    with pytest.raises(SessionError, match=r"data\[0\]: data file text\.npy: expected a \.npy"):
        load_session(_write(tmp_path, GOOD + '[[data]]\nfile = "text.npy"\n'))
    np.save(tmp_path / "f.npy", np.zeros((2, 2), np.float32))
    with pytest.raises(SessionError, match=r"expected a uint8 array .* found float32"):
        load_session(_write(tmp_path, GOOD + '[[data]]\nfile = "f.npy"\n'))
    bad = tmp_path / "prog" / "bad.asm"
    bad.write_text("HALT\nCOPY in_dtype=NOPE\n")
    with pytest.raises(SessionError, match=r"bad\.toml: not a program: .*bad\.asm:2:"):
        load_session(_write(tmp_path, GOOD.replace("PROG", "prog/bad.asm")))
    binary = tmp_path / "prog" / "short.bin"
    binary.write_bytes(b"\x00" * 65)
    with pytest.raises(SessionError, match=r"not a program: .*short\.bin"):
        load_session(_write(tmp_path, GOOD.replace("PROG", "prog/short.bin")))
    with pytest.raises(SessionError, match=r"missing\.toml: no such session file"):
        load_session(tmp_path / "missing.toml")
    (tmp_path / "bin.toml").write_bytes(b"schema = 1\n\xff\xfe")
    with pytest.raises(SessionError, match=r"bin\.toml: offset 11: expected UTF-8"):
        load_session(tmp_path / "bin.toml")


def test_bad_breakpoint_spec_names_the_entry(tmp_path: Path, program: Path) -> None:
    with pytest.raises(SessionError, match=r"breakpoints\[0\]\.spec 'op:NOPE': column 4"):
        load_session(_write(tmp_path, GOOD + '[[breakpoints]]\nspec = "op:NOPE"\n'))


def test_from_dict_defaults() -> None:
    spec = session_from_dict({"schema": 1, "program": {"path": "p.asm"},
                              "machine": {"gen": "sunda"}})
    assert spec.steps == 0 and spec.breakpoints == [] and spec.layout == {}
    assert spec.config.gen.label == "sunda" and spec.config.engine == "pool"


def test_saving_refuses_a_program_file_that_changed_since_loading(
        core: Core, program: Path, tmp_path: Path) -> None:
    program.write_text(program.read_text().replace("src1=3", "src1=4"))
    with pytest.raises(SessionError, match=r"s\.toml: cannot save: .*loop\.asm no longer holds"):
        save_session(tmp_path / "s.toml", core, program_path=program)
    assert not (tmp_path / "s.toml").exists()


_SPECS = ["op:CAST", "label:loop if R1 >= 6", "watch:R1", "change:sb[1, 64:72]", "tie",
          "pc:0x100", "invalid", "fault", "if:R2 == 1"]


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(forward=st.integers(0, 18), back=st.integers(0, 18),
       specs=st.lists(st.sampled_from(_SPECS), unique=True, max_size=4),
       layout=st.dictionaries(st.sampled_from(["focus", "zoom", "dtype"]),
                              st.text(max_size=6) | st.integers(0, 9), max_size=3))
def test_round_trip_at_any_position(forward: int, back: int, specs: list[str],
                                    layout: dict) -> None:
    import tempfile

    from .conftest import PROGRAM

    with tempfile.TemporaryDirectory() as d:
        prog = Path(d) / "p.asm"
        prog.write_text(PROGRAM)
        m = make_core(prog)
        m.cont(max_steps=forward)
        for _ in range(back):
            m.reverse_step()
        for s in specs:
            m.add_breakpoint(s)
        save_session(Path(d) / "s.toml", m, program_path=prog, layout=layout)
        loaded = load_session(Path(d) / "s.toml")
        assert loaded.machine.state.digest() == m.state().digest() and loaded.digest_ok
        assert [b.text for b in loaded.core.breakpoints] == specs
        assert loaded.layout == layout and loaded.warnings == []
