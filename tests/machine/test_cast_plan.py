"""A CAST's plan (operands, formats, numpy cast) is resolved once per record under the
state's configuration (machine.engines.pool.cast): whatever changes what the
plan says (the record, the FP8 settings, a register-mode address, another machine's
geometry) must give the next step the new one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from neurondbg.machine.asm import assemble
from neurondbg.machine.convert import convert
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.kernels import _cast_dtypes, _warns, numpy_cast
from neurondbg.machine.convert.options import resolve
from neurondbg.machine.dtypes import DEFAULT_GEN
from neurondbg.machine.isa.addr import encode_address
from tests.machine.helpers import machine

P, N = 4, 64
VALS = np.linspace(-3.3, 1000.7, P * N, dtype=np.float32).reshape(P, N)


def _cast(out: str = "BF16", dst: int = 0x400, src: str = "sb[0, 0]") -> str:
    return (f"CAST in_dtype=FP32 out_dtype={out} nac={P} src={src} step=[1,0,0,0] "
            f"num=[{N},1,1,1] dst=sb[0, {dst:#x}] step=[1,0,0,0] num=[{N},1,1,1]")


def _machine(text: str, **config):
    m = machine(f"{text}\n{text}\nHALT", execute_invalid=True, **config)
    m.state.sbuf[:P, :4 * N] = VALS.view(np.uint8)
    return m


def _got(m, dst: int, size: int) -> np.ndarray:
    return m.state.sbuf[:P, dst:dst + size * N].copy()


def _want(fmt: str) -> np.ndarray:
    out = convert(VALS.view(np.uint32), "fp32", fmt, "rint", False, "neuron")
    return out.view(np.uint8).reshape(P, -1)


def test_an_edited_cast_record_runs_as_edited_after_the_old_one_ran() -> None:
    m = _machine(_cast())
    assert m.step().executed and np.array_equal(_got(m, 0x400, 2), _want("bf16"))
    m.state.undo_step()
    new = assemble(_cast("FP16", 0x800), "<edit>").program().record(0)
    m.write_record(0, new)
    rec = m.step()
    assert rec.executed and rec.lanes.dst == "fp16"
    assert np.array_equal(_got(m, 0x800, 2), _want("fp16"))
    assert not _got(m, 0x400, 2).any()  # the old destination was undone and not rewritten


def test_a_cast_record_edited_into_another_opcode_runs_that_opcode() -> None:
    """The step's handler is judged per instruction (Machine keeps it per record): the
    edited record's opcode runs, not the CAST that ran there before."""
    m = _machine(_cast())
    m.step()
    m.state.undo_step()
    text = (f"MEMSET dtype=INT16 nac={P} set_value=0x1234 dst=sb[0, 0x400] step=[1,0,0,0] "
            f"num=[{N},1,1,1]")
    m.write_record(0, assemble(text, "<edit>").program().record(0))
    rec = m.step()
    assert rec.executed and rec.lanes is None
    assert (_got(m, 0x400, 2).view(np.uint16) == 0x1234).all()


def test_a_changed_fp8_setting_is_planned_afresh() -> None:
    m = _machine(_cast("FP8_EXP4"))
    first = m.state.fp8_exp4
    m.step()
    assert np.array_equal(_got(m, 0x400, 1), _want(first))
    other = "fp8_e4m3fn" if first != "fp8_e4m3fn" else "fp8_e4m3"
    m.state.fp8_exp4 = other
    rec = m.step()  # the same record bytes, now another format
    assert rec.lanes.dst == other and np.array_equal(_got(m, 0x400, 1), _want(other))
    assert not np.array_equal(_want(other), _want(first))  # the test tells them apart


def test_fp8_saturation_changed_after_a_step_is_used_by_the_next() -> None:
    m = _machine(_cast("FP8_EXP5"))
    big = np.full((P, N), 1e6, np.float32)
    m.state.sbuf[:P, :4 * N] = big.view(np.uint8)
    m.state.fp8_sat = False
    m.step()
    unsat = _got(m, 0x400, 1)
    m.state.fp8_sat = True
    assert m.step().lanes.sat
    sat = convert(big.view(np.uint32), "fp32", "fp8_e5m2", "rint", True, "neuron")
    assert np.array_equal(_got(m, 0x400, 1), sat.view(np.uint8).reshape(P, -1))
    assert not np.array_equal(unsat, _got(m, 0x400, 1))


def test_a_register_mode_source_reads_the_register_at_each_step() -> None:
    m = _machine(_cast(src="0x80000005"))
    m.state.R[5] = encode_address("sbuf", 0, 0, DEFAULT_GEN)
    m.step()
    assert np.array_equal(_got(m, 0x400, 2), _want("bf16"))
    m.state.sbuf[:P, 0x200:0x200 + 4 * N] = (VALS * 2).view(np.uint8)
    m.state.R[5] = encode_address("sbuf", 0, 0x200, DEFAULT_GEN)
    assert m.step().executed
    twice = convert((VALS * 2).view(np.uint32), "fp32", "bf16", "rint", False, "neuron")
    assert np.array_equal(_got(m, 0x400, 2), twice.view(np.uint8).reshape(P, -1))
    assert not m.state.plans  # a register-mode plan is never kept


def test_the_same_record_under_another_geometry_is_judged_by_its_own_state() -> None:
    text = _cast(dst=0xFC0)  # 0xFC0 + 128 bytes fits 8 KiB of SBUF, not 4 KiB
    big = _machine(text, sbuf_bytes=8192)
    small = _machine(text, sbuf_bytes=4096)
    assert big.step().executed
    rec = small.step()
    assert rec.fault and "outside sbuf" in rec.fault
    assert small.step().fault == rec.fault  # a Fault is never kept as a plan: raised again


def test_plans_are_bounded_and_not_copied_with_the_state(monkeypatch) -> None:
    import copy

    import neurondbg.machine.engines.pool as pool

    monkeypatch.setattr(pool, "MAX_PLANS", 2)
    m = machine("\n".join([_cast(dst=0x400 + 0x80 * k) for k in range(3)] + ["HALT"]),
                execute_invalid=True)
    m.step()
    assert len(m.state.plans) == 1 and not copy.copy(m.state).plans
    m.step()
    m.step()
    assert len(m.state.plans) == 1  # full at 2: cleared, then the third one kept


def _encodings(fmt: str) -> np.ndarray:
    f = FORMATS[fmt]
    if f.bits <= 16:
        return np.arange(1 << f.bits, dtype=f.container)
    # fp32: every exponent with mantissas at the rounding edges, NaNs, infinities, zeros
    hi = np.arange(1 << 9, dtype=np.uint32) << np.uint32(23)
    low = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x7FFFFF, 0x400000, 0x3FFFFF,
                    0x0FFFFF, 0x100000, 0x080000, 0x180000], np.uint32)
    return (hi[:, None] | low[None, :]).ravel()


@pytest.mark.parametrize("src", sorted(FORMATS))
def test_numpy_casts_without_errstate_raise_no_fp_warning(src: str) -> None:
    """Where _warns says a numpy cast sets no FP flag, every encoding passes with every flag
    raising; where it says one may, some encoding does raise (the errstate is needed)."""
    for dst in sorted(FORMATS):
        try:
            opt = resolve(src, dst, "rint", False, "neuron")
        except ValueError:
            continue
        pair = _cast_dtypes(opt)  # convert_into's numpy cast (any source width)
        cast = numpy_cast(opt)  # the one a plan keeps (sources wider than 16 bits)
        if cast is not None:
            assert (opt.src == opt.dst or cast[:2] == pair) and cast[2] == _warns(*cast[:2])
        if pair is None:
            continue
        d0, d1 = pair
        warns = _warns(d0, d1)
        x = _encodings(src).view(d0)
        out = np.empty(x.shape, d1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="raise"):
                if warns:
                    with pytest.raises(FloatingPointError):
                        np.copyto(out, x, casting="unsafe")
                else:
                    np.copyto(out, x, casting="unsafe")
