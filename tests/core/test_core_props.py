"""Properties of the core on random small two- and three-engine kernels.

Each engine owns one semaphore (a single producer) and increments it (`_READ` or
`_COMPLETE`); waits are SEM_GE on another engine's semaphore; data instructions COPY
and add small SBUF tiles. For such kernels (DESIGN.md "Races", machine/core/races.py):
- a race reported under one schedule is reported under every schedule;
- when no race is reported, every schedule ends in the same state and stop reason;
- reverse to step 0 and forward again is bit-identical, whatever the schedule.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.core.core import Core
from tests.core.conftest import core

ENGINES = ("pool", "dve", "act")
TILES = (0x000, 0x040, 0x080, 0x0C0, 0x100)
SCHEDULES = ("rr", "in-order", "random:1", "random:99")
SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _pattern(name: str, offset: int, dims: int) -> str:
    zeros = ",".join(["0"] * (dims - 1))
    ones = ",".join(["1"] * (dims - 1))
    return f"{name}=sb[0, {offset:#x}] step=[1,{zeros}] num=[4,{ones}]"


@st.composite
def operation(draw: st.DrawFn, engine: str) -> str:
    """One data or SEQ instruction without events."""
    kind = draw(st.sampled_from(["copy", "add", "alu"] if engine != "act" else ["copy", "alu"]))
    if kind == "copy":
        src, dst = draw(st.sampled_from(TILES)), draw(st.sampled_from(TILES))
        return (f"COPY in_dtype=FP32 out_dtype=FP32 nac=2 {_pattern('src', src, 4)} "
                f"{_pattern('dst', dst, 4)}")
    if kind == "add":
        a, b, d = (draw(st.sampled_from(TILES)) for _ in range(3))
        return (f"TENSOR_TENSOR_ARITH_OP in0_dtype=FP32 in1_dtype=FP32 out_dtype=FP32 op=ADD "
                f"nac=2 {_pattern('src0', a, 3)} {_pattern('src1', b, 3)} "
                f"{_pattern('dst', d, 3)}")
    k = draw(st.integers(1, 9))
    return f"ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1={k}"


@st.composite
def kernels(draw: st.DrawFn) -> dict[str, str]:
    """Bodies first, then updates of each engine's own semaphore, then waits for values
    another engine's updates reach (a wait may still be part of a cycle: deadlocks)."""
    n = draw(st.integers(2, 3))
    bodies = [draw(st.lists(operation(ENGINES[e]), min_size=1, max_size=5)) for e in range(n)]
    incs = [0] * n
    for e, body in enumerate(bodies):
        for k in range(len(body)):
            if draw(st.integers(0, 9)) < 6:
                timing = draw(st.sampled_from(["READ", "COMPLETE"]))
                body[k] += f" update_mode=SEM_INC_{timing} update_idx={e + 1}"
                incs[e] += 1
    for e, body in enumerate(bodies):
        others = [o for o in range(n) if o != e and incs[o]]
        for k in range(len(body)):
            if others and draw(st.integers(0, 9)) < 3:
                o = draw(st.sampled_from(others))
                value = draw(st.integers(1, incs[o]))
                body[k] += f" wait_mode=SEM_GE_IMM wait_idx={o + 1} semaphore_value={value}"
    data = "".join(f".data sb[0:2, {t:#x}] fp32 {k}.0 {k}.5 -{k}.0 {k}.25\n"
                   for k, t in enumerate(TILES))
    return {ENGINES[e]: (data if e == 0 else "") + "\n".join(body) + "\nHALT\n"
            for e, body in enumerate(bodies)}


def _run(queues: dict[str, str], schedule: str) -> tuple[Core, str]:
    c = core(schedule, **queues)
    stop = c.cont(max_steps=200)
    assert stop.reason in ("halt", "deadlock"), stop.detail
    return c, stop.reason


def _pairs(c: Core) -> set[frozenset]:
    return {frozenset({(r.a.engine, r.a.pc, r.a.kind), (r.b.engine, r.b.pc, r.b.kind)})
            for r in c.races}


@SETTINGS
@given(kernels())
def test_schedules_agree(queues: dict[str, str]) -> None:
    runs = {s: _run(queues, s) for s in SCHEDULES}
    races = {s: _pairs(c) for s, (c, _) in runs.items()}
    assert all(r == races["rr"] for r in races.values()), races
    if not races["rr"]:
        ends = {(c.digest(), reason) for c, reason in runs.values()}
        assert len(ends) == 1, {s: (c.to_json()["engines"], r) for s, (c, r) in runs.items()}


@SETTINGS
@given(kernels(), st.sampled_from(SCHEDULES))
def test_reverse_to_start_and_forward_is_bit_identical(queues: dict[str, str],
                                                       schedule: str) -> None:
    c, reason = _run(queues, schedule)
    end, taken, races = c.digest(), c.taken(), [r.to_dict() for r in c.races]
    fresh = core(schedule, **queues)
    assert c.reverse(c.steps).reason == "start" and c.digest() == fresh.digest()
    assert c.races == []
    assert c.cont(max_steps=200).reason == reason
    assert (c.digest(), c.taken(), [r.to_dict() for r in c.races]) == (end, taken, races)
