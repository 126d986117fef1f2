"""Session files written by tomli-w: every field round-trips, notes read as multiline text."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.edits import Edit
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.schema import (
    BreakpointEntry,
    DataImage,
    Note,
    SessionSpec,
    session_from_dict,
    session_to_dict,
)
from neurondbg.sessions.store import read_session, save_session
from neurondbg.sessions.toml_write import dumps

TRICKY = 'quote " apostrophe \' triple """ backslash \\ tab\t é ∑ 😀 \x01 \x7f \r lone CR'
EVERY_FIELD = SessionSpec(
    program="../prog/loop.asm", sha256="ab" * 32,
    config=MachineConfig(gen=Gen.MARIANA, engine="dve", partitions=64, sbuf_bytes=2048,
                         psum_bytes=512, fp8_exp4="fp8_e4m3fn", fp8_sat=True, base=0x1000,
                         execute_invalid=True),
    steps=7, digest="cd" * 32, pc=0x10C0,
    stop={"reason": "breakpoint", "pc": 0x10C0, "detail": f"#2 op:CAST {TRICKY}"},
    data=[DataImage("sbuf", "s.sbuf.0123456789ab.npy", 1, 16),
          DataImage("psum", "s.psum.ba9876543210.npy")],
    breakpoints=[BreakpointEntry("label:loop if R1 >= 6", True, 1),
                 BreakpointEntry("op:CAST", False, 2)],
    watchpoints=[BreakpointEntry("watch:R2", True, 3)],
    edits=[Edit(0, "sbuf[1, 0]:fp32", "0x40200000"), Edit(2, "R5", "0x7")],
    layout={"focus": "memory", "maximised": "", "ratio": 0.375,
            "memory": {"dtype": "bf16", "goto": [0, 64], "label": TRICKY}},
    tour={"name": "t", "title": "A tour", "description": "two\nlines"},
    notes=[Note(0, "first line\nsecond line\n\n  indented", "Start"),
           Note(3, f"one line {TRICKY}"), Note(5, "windows\r\nline ends\r\n", "CRLF")],
    source=Path("/tmp/s.toml"))


def _back(spec: SessionSpec) -> SessionSpec:
    return session_from_dict(tomllib.loads(dumps(session_to_dict(spec))), spec.source)


def test_every_session_field_round_trips() -> None:
    back = _back(EVERY_FIELD)
    assert back == EVERY_FIELD
    assert session_to_dict(back) == session_to_dict(EVERY_FIELD)


def test_notes_are_multiline_strings() -> None:
    spec = SessionSpec(program="p.asm", sha256="", config=MachineConfig(),
                       notes=[Note(0, "first line\nsecond line", "Start")])
    text = dumps(session_to_dict(spec))
    assert 'text = """\nfirst line\nsecond line"""' in text
    assert 'title = "Start"' in text and _back(spec).notes == spec.notes


def test_crlf_is_kept_exactly() -> None:
    # tomli-w would turn CRLF into LF in a multiline string: such text is escaped instead
    doc = {"notes": [{"step": 0, "text": "a\r\nb"}], "other": "c\nd"}
    text = dumps(doc)
    assert '"a\\r\\nb"' in text and '"c\\nd"' in text
    assert tomllib.loads(text) == doc


def test_saved_session_reads_back_its_tour_and_notes(core: Core, program: Path,
                                                     tmp_path: Path) -> None:
    notes = EVERY_FIELD.notes
    tour = EVERY_FIELD.tour
    path = tmp_path / "s.toml"
    save_session(path, core, program_path=program, layout=EVERY_FIELD.layout,
                 tour=tour, notes=notes)
    spec = read_session(path)
    assert (spec.notes, spec.tour, spec.layout) == (notes, tour, EVERY_FIELD.layout)


def test_special_floats() -> None:
    back = tomllib.loads(dumps({"a": math.inf, "b": -math.inf, "c": math.nan}))
    assert back["a"] == math.inf and back["b"] == -math.inf and math.isnan(back["c"])


@pytest.mark.parametrize(("doc", "where"), [
    ({"layout": {"x": b"raw"}}, "layout.x: cannot write bytes"),
    ({"layout": {"xs": [1, None]}}, r"layout.xs\[1\]: cannot write NoneType"),
    ({"notes": [{"step": 0}, {"step": object()}]}, r"notes\[1\].step: cannot write object"),
])
def test_unwritable_value_names_the_key(doc: dict, where: str) -> None:
    with pytest.raises(TypeError, match=where):
        dumps(doc)


def test_unsaveable_layout_is_a_one_line_error_and_writes_nothing(
        core: Core, program: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    with pytest.raises(SessionError, match=r"s\.toml: cannot save: layout\.x: cannot write "
                                           r"bytes to TOML$"):
        save_session(path, core, program_path=program, layout={"x": b"raw"})
    assert list(tmp_path.iterdir()) == [program.parent]


_scalars = (st.integers(-(2**63), 2**63 - 1) | st.booleans() | st.text(max_size=12)
            | st.floats(allow_nan=False))
_keys = st.text(min_size=1, max_size=8)
_values = st.recursive(_scalars | st.lists(_scalars, max_size=4),
                       lambda inner: st.dictionaries(_keys, inner, max_size=4), max_leaves=12)


@settings(deadline=None, max_examples=150)
@given(st.dictionaries(_keys, _values | st.lists(st.dictionaries(_keys, _values, max_size=3),
                                                 min_size=1, max_size=3), max_size=5))
def test_round_trip_through_tomllib(doc: dict) -> None:
    assert tomllib.loads(dumps(doc)) == doc


@settings(deadline=None, max_examples=200)
@given(st.text())
def test_any_note_text_round_trips(text: str) -> None:
    spec = SessionSpec(program="p.asm", sha256="", config=MachineConfig(),
                       notes=[Note(0, text, text)])
    assert _back(spec).notes == spec.notes


OLD_WRITER_TEXT = '''schema = 1

[program]
path = "p.asm"
sha256 = ""

[machine]
gen = "cayman"
engine = "pool"

[position]
steps = 0
digest = ""
stop = {reason = "halt", pc = 64, detail = "HALT at 0x40"}

[layout]
focus = "memory"

[[notes]]
step = 0
text = "first line\\nsecond \\"quoted\\" line"
title = "Start"
'''


def test_a_file_the_old_writer_wrote_reads_the_same_and_rewrites_multiline() -> None:
    spec = session_from_dict(tomllib.loads(OLD_WRITER_TEXT))
    assert spec.notes == [Note(0, 'first line\nsecond "quoted" line', "Start")]
    assert spec.stop == {"reason": "halt", "pc": 64, "detail": "HALT at 0x40"}
    text = dumps(session_to_dict(spec))
    assert 'text = """\nfirst line\nsecond \\"quoted\\" line"""' in text
    back = session_from_dict(tomllib.loads(text))
    assert back.config == spec.config.resolved()  # the machine is saved resolved
    assert (back.notes, back.stop, back.layout) == (spec.notes, spec.stop, spec.layout)
