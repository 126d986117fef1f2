"""The fast path and the recorded path agree on random kernels of every event mode.

`cont` batches SEQ fast steps (machine/core/core.py); a run with `on_step` (as `run
--trace` does) takes every step with a full record, and a run cut into pieces resumes
between them. On kernels using every WAIT_MODE and UPDATE_MODE of isa-facts §1.2 (the
_IMM, _REG, EVT_* and _COMPLETE forms), EVENT_SEMAPHORE's own events and TEST_EVENT_SEM,
on four engines, the three give the same stop, steps, schedule, digest and races, under
`rr`, `in-order`, `random:SEED` and `seq:` schedules.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from tests.core.conftest import core

ENGINES = ("pool", "dve", "act", "pe")
WAITS = [m.name for m in WaitMode if m is not WaitMode.INVALID]
UPDATES = [m.name for m in UpdateMode if m is not UpdateMode.INVALID]
TILES = (0x100, 0x108, 0x110)
ZEROS = ",0" * 15
CONFIG = {"gen": Gen.MARIANA}  # a generation with TEST_EVENT_SEM (isa-facts §7: +v4)
POLICIES = st.one_of(st.sampled_from(["rr", "in-order", "seq:1*2,0", "seq:0,2,1*3"]),
                     st.integers(0, 2**64 - 1).map(lambda s: f"random:{s}"))


def _value(draw: st.DrawFn, mode: str) -> int:
    """The value of a mode: an immediate 0..2, or (a _REG form) R1 or R2."""
    return draw(st.integers(1, 2)) if "_REG" in mode else draw(st.integers(0, 2))


@st.composite
def events(draw: st.DrawFn, prefix: str = "events.", wait_value: str = "semaphore_value",
           update_value: str = "semaphore_value") -> str:
    """A wait and an update of any mode (either may be absent)."""
    out = ""
    if draw(st.integers(0, 2)):
        mode = draw(st.sampled_from(WAITS))
        out += (f" {prefix}wait_mode={mode} {prefix}wait_idx={draw(st.integers(0, 1))}"
                f" {prefix}{wait_value}={_value(draw, mode)}")
    if draw(st.integers(0, 2)):
        mode = draw(st.sampled_from(UPDATES))
        value = _value(draw, mode)
        if update_value != wait_value or f"{wait_value}=" not in out:
            out += f" {prefix}{update_value}={value}"
        out += f" {prefix}update_mode={mode} {prefix}update_idx={draw(st.integers(0, 1))}"
    return out


@st.composite
def instruction(draw: st.DrawFn, engine: str) -> str:
    kinds = ["nop", "move", "alu", "es", "tes"] + (["copy"] if engine != "pe" else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "es":
        return "EVENT_SEMAPHORE" + draw(events("events_extended.", "sem_wait_value",
                                               "sem_update_value"))
    if kind == "tes":
        mode = draw(st.sampled_from(["READ_SEM", "UPDATE_SEM", "READ_EVT", "UPDATE_EVT"]))
        sem, reg = draw(st.integers(0, 1)), draw(st.integers(1, 2))
        return (f"TEST_EVENT_SEM mode={mode} num_evt_sem=1 evt_sem_ids=[{sem}{ZEROS}] "
                f"value_registers=[{reg}{ZEROS}]")
    head = {"nop": "NOP", "move": f"MOVE R{draw(st.integers(1, 2))}={draw(st.integers(0, 3))}",
            "alu": f"ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 "
                   f"src1={draw(st.integers(1, 3))}",
            "copy": (f"COPY in_dtype=FP32 out_dtype=FP32 nac=2 "
                     f"src=sb[0, {draw(st.sampled_from(TILES)):#x}] step=[1,0,0,0] "
                     f"num=[2,1,1,1] dst=sb[0, {draw(st.sampled_from(TILES)):#x}] "
                     "step=[1,0,0,0] num=[2,1,1,1]")}[kind]
    return head + (draw(events()) if kind != "move" else "")


@st.composite
def kernels(draw: st.DrawFn) -> dict[str, str]:
    n = draw(st.integers(3, 4))
    return {e: "\n".join(draw(st.lists(instruction(e), min_size=1, max_size=6))) + "\nHALT"
            for e in ENGINES[:n]}


def outcome(c: Core, piece: int | None = None) -> tuple:
    if piece is None:
        stop = c.cont(max_steps=200)
    else:
        left = 200
        while True:
            stop = c.cont(max_steps=min(piece, left))
            left -= stop.steps
            if stop.reason != "max-steps" or left <= 0:
                break
    return (stop.reason, stop.engine, stop.pc, c.steps, c.taken()[1], c.digest(),
            [r.to_dict() for r in c.races])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(), POLICIES, st.integers(1, 4))
def test_fast_recorded_and_cut_runs_agree_on_every_event_mode(
        queues: dict[str, str], policy: str, piece: int) -> None:
    fast = outcome(core(policy, config=CONFIG, **queues))
    recorded = core(policy, config=CONFIG, **queues)
    seen: list[str] = []
    recorded.on_step = lambda cs: seen.append(cs.engine) if cs.record is not None \
        and cs.record.executed else None
    assert outcome(recorded) == fast
    assert seen == fast[4]
    assert outcome(core(policy, config=CONFIG, **queues), piece)[3:] == fast[3:]
