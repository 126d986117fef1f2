"""Properties of kernel sessions and traces over random small kernels: a session saved at
any step reloads to the same state under any schedule, and a trace replays without
divergence."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.sessions.cli_support import open_kernel
from neurondbg.sessions.replay import replay_kernel
from neurondbg.sessions.store import load_kernel_session, read_session, save_kernel_session
from neurondbg.sessions.trace import trace_core

TILES = (0x100, 0x140, 0x180)  # 16 bf16 lanes (32 bytes) each, in 4 partitions


def _cast(src: int, dst: int, events: str) -> str:
    return (f"CAST in_dtype=BF16 out_dtype=BF16 nac=4 src=sb[0, {src:#x}] step=[1,0,0,0] "
            f"num=[16,1,1,1] dst=sb[0, {dst:#x}] step=[1,0,0,0] num=[16,1,1,1] {events}")


@st.composite
def instruction(draw: st.DrawFn, reg: int) -> str:
    kind = draw(st.sampled_from(["move", "alu", "cast", "sem"]))
    if kind == "move":
        return f"MOVE R{reg}={draw(st.integers(0, 9))}"
    if kind == "alu":
        return (f"ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R{reg} src0=R{reg} "
                f"src1={draw(st.integers(1, 5))}")
    events = []
    if draw(st.booleans()):
        events.append(f"events.wait_mode=SEM_GE_IMM events.wait_idx={draw(st.integers(0, 1))} "
                      f"events.semaphore_value={draw(st.integers(1, 2))}")
    if kind == "sem" or draw(st.booleans()):
        mode = draw(st.sampled_from(["SEM_INC_READ", "SEM_INC_COMPLETE"]))
        events.append(f"events.update_mode={mode} events.update_idx={draw(st.integers(0, 1))}")
    src, dst = draw(st.sampled_from([(a, b) for a in TILES for b in TILES if a != b]))
    return _cast(src, dst, " ".join(events))


@st.composite
def kernels(draw: st.DrawFn) -> str:
    engines = draw(st.sampled_from([("pool", "dve"), ("pool", "dve", "act")]))
    parts = [".data sb[0:4, 0x100] bf16 " + " ".join(str(i) for i in range(1, 49))]
    for k, e in enumerate(engines):
        body = draw(st.lists(instruction(k + 1), min_size=1, max_size=6))
        parts += [f".engine {e}", *(f"    {x}" for x in body), "    HALT"]
    return "\n".join(parts) + "\n"


SCHEDULE = st.sampled_from(["rr", "in-order", "random:0", "random:11"])
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(kernels(), SCHEDULE, st.integers(0, 20))
def test_a_session_saved_at_any_step_reloads_and_continues_identically(
        text: str, schedule: str, at: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "k.asm"
        src.write_text(text)
        opened = open_kernel(src, schedule=schedule)
        opened.core.cont(max_steps=at)
        save_kernel_session(Path(tmp) / "s.toml", opened)
        back = load_kernel_session(read_session(Path(tmp) / "s.toml"))
        assert not back.warnings
        assert back.core.steps == opened.core.steps
        assert back.core.digest() == opened.core.digest()
        a, b = opened.core.cont(), back.core.cont()
        assert (a.reason, a.engine, a.pc) == (b.reason, b.engine, b.pc)
        assert back.core.digest() == opened.core.digest()
        assert [r.to_dict() for r in back.core.races] == [r.to_dict() for r in
                                                          opened.core.races]


@SETTINGS
@given(kernels(), SCHEDULE)
def test_a_kernel_trace_replays_without_divergence(text: str, schedule: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src, trace = Path(tmp) / "k.asm", Path(tmp) / "t.jsonl"
        src.write_text(text)
        opened = open_kernel(src, schedule=schedule)
        with trace_core(trace, opened):
            opened.core.cont()
        result = replay_kernel(trace, src)
        assert result.divergence is None and result.steps == opened.core.steps
