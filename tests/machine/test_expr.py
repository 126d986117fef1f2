"""The safe expression parser and the breakpoint spec language."""

import struct

import numpy as np
import pytest

from neurondbg.machine import expr as ex
from neurondbg.machine.breakpoints import parse_spec
from neurondbg.machine.state import MachineConfig, MachineState


@pytest.fixture
def state() -> MachineState:
    s = MachineState.create(MachineConfig(partitions=4, sbuf_bytes=128, psum_bytes=64))
    s.R[5] = 7
    s.R[6] = 0xFFFFFFFE
    s.R[7] = struct.unpack("<I", struct.pack("<f", 2.5))[0]
    s.sbuf[3, 0x40:0x44] = np.frombuffer(struct.pack("<f", 1.75), np.uint8)
    s.sbuf[1, 2] = 200
    s.pc = 0x80
    s.sem[3] = 9
    s.acc[2] = -1.5
    return s


@pytest.mark.parametrize("text, value", [
    ("R5", 7), ("R5 + 1 * 2", 9), ("(R5 + 1) * 2", 16), ("R5 > 3 && PC == 0x80", 1),
    ("R5 > 3 and not PC == 0x80", 0), ("R6:int32", -2), ("R7:fp32 * 2", 5.0),
    ("sb[3, 0x40]:fp32 > 1.5", 1), ("sb[1, 2]", 200), ("sb[1, 2]:int8", -56),
    ("sem[3] - 10", -1), ("acc[2]", -1.5), ("R5 % 4", 3), ("-R5 / 2", -3), ("~0 & 0xF", 15),
    ("1 << 4 | 1", 17), ("R5 == 7 || R6 == 0", 1), ("!R5", 0), ("R5 >= 7 && R5 <= 7", 1),
    ("0b101 ^ 1", 4), ("R5 != 7", 0),
])
def test_expressions(state, text, value) -> None:
    assert ex.parse(text)(state) == value


@pytest.mark.parametrize("text, col, what", [
    ("R5 >", 5, "a number"), ("R64", 1, "R0..R63"), ("sb[3 0x40]", 6, "','"),
    ("R5 $ 2", 4, "unexpected character"), ("(R5", 4, "')'"), ("R5 R6", 4, "an operator"),
    ("sb[1, 2]:fp99", 10, "unknown format"), ("foo", 1, "a register"), ("", 1, "an expression"),
])
def test_expression_errors(text, col, what) -> None:
    with pytest.raises(ValueError) as e:
        ex.parse(text)
    assert str(e.value).startswith(f"column {col}:") and what in str(e.value)


def test_targets() -> None:
    t = ex.parse_target("sb[0:8, 16:32]")
    assert (t.kind, t.index, t.p1, t.b0, t.b1, t.space) == ("mem", 0, 8, 16, 32, "sbuf")
    assert ex.parse_target("psum[2, 0x10]:fp32").b1 == 0x14
    assert ex.parse_target("R5").name == "R5" and ex.parse_target("sem[3]").name == "sem[3]"
    with pytest.raises(ValueError, match="column 9: expected a range end"):
        ex.parse_target("sb[0, 8:4]")


def test_specs() -> None:
    assert parse_spec("op:0x47").value == 0x47
    assert parse_spec("pc:0x80").value == 0x80
    assert parse_spec("label:loop").value == "loop"
    b = parse_spec("pc:0x80 if R5 > 3")
    assert b.kind == "pc" and b.cond is not None and b.cond.text == "R5 > 3"
    assert parse_spec("watch:sb[0,0:64]").value.b1 == 64
    assert parse_spec("change:R5").kind == "change"
    for k in ("invalid", "fault", "saturate", "tie", "nan", "inf"):
        assert parse_spec(k).kind == k


@pytest.mark.parametrize("spec, col, what", [
    ("when:3", 1, "expected one of"), ("pc:", 4, "an argument"), ("pc:zz", 4, "byte address"),
    ("if:R5 >", 8, "a number"), ("watch:R99", 7, "R0..R63"), ("tie:3", 4, "no argument"),
    ("pc:0x80 if R5 >", 16, "a number"), ("op:0x147", 4, "0..255"),
])
def test_spec_errors(spec, col, what) -> None:
    with pytest.raises(ValueError) as e:
        parse_spec(spec)
    assert str(e.value).startswith(f"column {col}:") and what in str(e.value)
