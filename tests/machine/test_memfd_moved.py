"""Memory that moved into a memfd (a CAST of >= MOVE_MIN_BYTES replaces a state's
`sbuf`/`psum` with new arrays holding the same bytes) is exact everywhere: undo and replay
across the move, who_wrote and watchpoints, the engines of a core and its race detector,
session save/load and --dump-sbuf, the DAP adapter's readMemory.

Each check runs the same program on plain memory (no memfd) as the reference: the bytes
must be the same at every position."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.debugger import Machine
from neurondbg.machine.engines.tensor import MOVE_MIN_BYTES
from neurondbg.machine.state import MachineState, Region
from neurondbg.sessions.store import load_session
from tests.core.conftest import core
from tests.dap.test_adapter import launched
from tests.machine.helpers import machine, use_core
from tests.machine.test_cast_alias import plain_memory

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="memfd is Linux only")

N = 1024  # elements per partition: fp32 -> bf16 writes 128 x 2 KiB = MOVE_MIN_BYTES
SRC, MID, OUT = 0x0, 0x2000, 0x3000
SMALL = {"sbuf_bytes": 16384, "psum_bytes": 2048}  # 2 MiB of SBUF: cheap to move and scan


def cast(i: str, o: str, src: int, dst: int, n: int = N, nac: int = 128) -> str:
    return (f"CAST in_dtype={i} out_dtype={o} nac={nac} src=sb[0, {src:#x}] step=[1,0,0,0] "
            f"num=[{n},1,1,1] dst=sb[0, {dst:#x}] step=[1,0,0,0] num=[{n},1,1,1]")


BIG = cast("FP32", "BF16", SRC, MID)  # moves memory (exactly MOVE_MIN_BYTES written)
BACK = cast("BF16", "FP32", MID, OUT)  # 512 KiB more, into moved memory
FILL = f".fill sb[0:128, {SRC:#x}] fp32 count={N} start=1.0 step=0.00390625 pstep=0.5"
PROGRAM = "\n".join([FILL, BIG, BACK, "HALT"])
MID_REGION = Region("sbuf", 0, 128, MID, 2, (1, 0, 0, 0), (N, 1, 1, 1))
assert 128 * N * 2 == MOVE_MIN_BYTES


def values() -> np.ndarray:
    """The (128, N) fp32 inputs FILL writes."""
    return (1.0 + np.arange(N) / 256 + 0.5 * np.arange(128)[:, None]).astype(np.float32)


def bf16_bytes() -> np.ndarray:
    """The (128, 2N) bytes BIG writes at MID (round to nearest even, as the neuron profile
    does for these finite normal values)."""
    return values().astype(ml_dtypes.bfloat16).view(np.uint8)


def moved(st: MachineState) -> bool:
    """Whether the state's memory is in a memfd (has a second mapping)."""
    return st.write_alias(MID_REGION, move=False) is not None


def small_machine(text: str = PROGRAM, **kw: int) -> Machine:
    return machine(text, **{**SMALL, **kw})


def reference(text: str = PROGRAM, fill=None, **kw: int) -> list[str]:
    """Digests after 0, 1, ... steps on plain memory, up to the halt."""
    with plain_memory():
        m = small_machine(text, **kw)
    if fill is not None:
        fill(m)
    assert not moved(m.state)
    out = [m.state.digest()]
    while not m.state.halted:
        assert m.step().executed
        out.append(m.state.digest())
    assert not moved(m.state)  # the reference never moved
    return out


def test_undo_to_before_the_move_and_forward_again_is_exact() -> None:
    ref = reference()
    m = use_core(small_machine())
    before = m.state().sbuf
    assert not moved(m.state())
    for k in range(1, len(ref)):
        assert m.step().record.executed
        assert m.state().digest() == ref[k], k
    assert moved(m.state()) and m.state().sbuf is not before  # the arrays were replaced
    assert (m.state().sbuf[:, MID:MID + 2 * N] == bf16_bytes()).all()
    while m.reverse_step():
        assert m.state().digest() == ref[m.state().steps], m.state().steps
    assert m.state().steps == 0 and moved(m.state())  # memory stays where it moved
    assert not m.state().sbuf[:, MID:].any()
    for k in range(1, len(ref)):  # forward again: the cast now writes moved memory at once
        assert m.step().record.executed
        assert m.state().digest() == ref[k], k


def chain_fill(m: Machine) -> None:
    """Every byte of SBUF non-zero random: the journal copies old bytes, checkpoints are
    all of memory, so a small budget folds the window."""
    m.state.sbuf[...] = np.random.default_rng(5).integers(1, 256, m.state.sbuf.shape,
                                                        dtype=np.uint8)


CHAIN = "\n".join([BIG, BACK, cast("FP32", "FP32", OUT, SRC)] * 3 + ["HALT"])


def test_reverse_past_the_window_replays_across_the_move() -> None:
    budget = 3 << 20
    ref = reference(CHAIN, chain_fill, journal_budget=budget)
    q = small_machine(CHAIN, journal_budget=budget)
    chain_fill(q)
    m = use_core(q, budget)
    while not m.state().halted:
        assert m.step().record.executed
    assert moved(m.state()) and m.state().digest() == ref[-1]
    assert m.state().journal.origin > 1  # the move's step is before the window
    stop = m.reverse(m.state().steps - 1)  # to just after the move: replayed from checkpoint 0
    assert (stop.steps, m.state().steps) == (len(ref) - 2, 1)
    assert m.state().digest() == ref[1]
    assert m.reverse(1).steps == 1 and m.state().digest() == ref[0]
    for k in range(1, len(ref)):
        assert m.step().record.executed
        assert m.state().digest() == ref[k], k


def test_who_wrote_and_watchpoints_on_moved_bytes() -> None:
    m = use_core(small_machine())
    m.step()
    m.step()
    assert moved(m.state())
    assert m.state().who_wrote("sbuf", 5, MID + 10) == (0, 0)
    assert m.state().who_wrote("sbuf", 5, OUT + 4) == (1, 64)
    assert m.state().who_wrote("sbuf", 5, OUT + 4 * N) is None
    m.reverse(2)
    m.add_breakpoint(f"watch:sb[5, {MID:#x}:{MID + 4:#x}]")
    m.add_breakpoint(f"change:sb[7, {OUT:#x}:{OUT + 4:#x}]")
    stop = m.cont()
    want = bf16_bytes()[5, :4].tobytes().hex(" ")
    assert (stop.reason, stop.steps, m.state().steps) == ("breakpoint", 1, 1)
    assert "#1 watch" in stop.detail and stop.detail.endswith(f"00 00 00 00 -> {want}")
    stop = m.cont()
    assert (stop.reason, m.state().steps) == ("breakpoint", 2) and "#2 change" in stop.detail
    got = m.state().sbuf[7, OUT:OUT + 4].view(np.float32)[0]
    assert got == values()[7, 0].astype(ml_dtypes.bfloat16).astype(np.float32)
    stop = m.reverse_continue()  # back over the change: stops where it was made
    assert stop.reason == "breakpoint" and m.state().steps == 1


ACT_OUT = 0x1000
KERNEL_READ = cast("BF16", "FP32", MID, ACT_OUT, n=16)  # small: only POOL's cast moves


def kernel(plain: bool = False):
    def make():
        return core(pool=PROGRAM, act="\n".join([KERNEL_READ, KERNEL_READ, "HALT"]),
                    config=SMALL)
    if plain:
        with plain_memory():
            return make()
    return make()


def test_engines_of_a_core_see_moved_memory_and_races_are_found() -> None:
    ref_core = kernel(plain=True)
    ref = [ref_core.digest()]
    while ref_core.step().engine is not None and len(ref) < 10:
        ref.append(ref_core.digest())
    c = kernel()
    pool, act = c.state("pool"), c.state("act")
    for k in range(1, len(ref)):
        c.step()
        assert c.digest() == ref[k], k
    assert moved(pool) and act.sbuf is pool.sbuf and act.psum is pool.psum
    # ACT's second cast ran after POOL's: it read the moved bf16 values
    want = values()[:, :16].astype(ml_dtypes.bfloat16).astype(np.float32)
    assert (act.sbuf[:, ACT_OUT:ACT_OUT + 64].view(np.float32) == want).all()
    assert {(r.b.kind, r.bytes) for r in c.races} == {("read", (MID, MID + 32))}
    while c.reverse_step():
        assert c.digest() == ref[c.steps], c.steps
    assert c.steps == 0 and not act.sbuf[:, MID:].any()
    stop = c.cont()
    assert stop.reason == "halt" and c.digest() == ref[-1]
    assert {r.b.kind for r in stop.races} == {"read"}


def write_program(tmp_path: Path) -> Path:
    p = tmp_path / "big.asm"
    p.write_text(PROGRAM + "\n")
    return p


def test_session_saved_after_the_move_loads_to_the_same_bytes(tmp_path: Path) -> None:
    prog = write_program(tmp_path)
    sess, dump, dump2 = tmp_path / "s.toml", tmp_path / "d.npy", tmp_path / "d2.npy"
    r = CliRunner().invoke(cli, ["run", str(prog), "--max-steps", "1", "--save-session",
                                 str(sess), "--dump-sbuf", str(dump)])
    assert r.exit_code == 0, r.output
    sb = np.load(dump)
    assert (sb[:, MID:MID + 2 * N] == bf16_bytes()).all() and not sb[:, OUT:].any()
    loaded = load_session(sess)
    st = loaded.machine.state
    assert st.steps == 1 and moved(st) and (st.sbuf == sb).all()  # the replay moved it
    r = CliRunner().invoke(cli, ["run", str(sess), "--dump-sbuf", str(dump2)])
    assert r.exit_code == 0, r.output
    sb2 = np.load(dump2)
    want = bf16_bytes().view(ml_dtypes.bfloat16).astype(np.float32).view(np.uint8)
    assert (sb2[:, OUT:OUT + 4 * N] == want).all() and (sb2[:, :OUT] == sb[:, :OUT]).all()


def test_dap_reads_moved_memory_before_and_after_a_step_back(tmp_path: Path) -> None:
    c = launched(write_program(tmp_path), stopOnEntry=True)
    c.ok("configurationDone")
    c.event("stopped")

    def read(part: int, off: int, n: int) -> bytes:
        got = c.ok("readMemory", memoryReference=f"sbuf[{part}]", offset=off, count=n)
        return base64.b64decode(got["data"])

    assert read(9, MID, 8) == bytes(8)
    c.ok("next", threadId=1)
    c.event("stopped")
    assert read(9, MID, 8) == bf16_bytes()[9, :8].tobytes()
    c.ok("next", threadId=1)
    c.event("stopped")
    out = read(9, OUT, 8)
    assert out != bytes(8)
    c.ok("stepBack", threadId=1)
    c.event("stopped")
    assert read(9, OUT, 8) == bytes(8) and read(9, MID, 8) == bf16_bytes()[9, :8].tobytes()
    c.ok("stepBack", threadId=1)
    c.event("stopped")
    assert read(9, MID, 8) == bytes(8)
