"""A NEFF in the TUI (sessions.neff_open): `tui FILE.neff` opens the kernel screen on
the subgraph's Core, five engines and a DMA queue actor per queue: the engines strip
shows each queue's head entry, the timeline a lane per queue, the semaphores pane
each semaphore's role. Synthetic NEFFs only (tests.neff.kernels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.debug.session import Session
from neurondbg.machine.neff.data import read_output
from neurondbg.machine.neff.writer import write_neff
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.neff_open import OpenedNeffKernel, open_neff_kernel
from neurondbg.views.engines import EnginesView
from neurondbg.views.semaphores import SemaphoresView
from neurondbg.views.timeline import TimelineView
from tests.neff.kernels import vector_add
from tests.ui.helpers import started


@pytest.fixture
def neff(tmp_path: Path) -> Path:
    path = tmp_path / "k.neff"
    write_neff(path, [vector_add()], target="sunda")
    return path


def _text(widget: object) -> str:
    return str(widget.render())  # type: ignore[attr-defined]


def _lane(timeline: str, name: str) -> list[str]:
    """The cells of one timeline lane (5 characters a step, after the lane's name)."""
    row = next(line for line in timeline.splitlines() if line[1:].startswith(name[:4]))
    body = row[6:]
    return [body[i:i + 5].strip() for i in range(0, len(body), 5)]


def test_open_neff_kernel_names_the_queue_head(neff: Path) -> None:
    opened = open_neff_kernel(neff)
    core = opened.core
    assert opened.warnings == ["input a, b not given: they start as zeros"]
    assert opened.dma_line("qSPIO0") == "no entry queued"
    for _ in range(3):  # SET_ORDERING_MODE and both triggers: two entries queued
        core.step("sp")
    assert core.state("sp").pc_index == 3 and opened.neff is not None
    assert opened.dma_line("qSPIO0") == (
        "qSPIO0#0 (load a) -> sem[8]: a[+0x0 8192B] -> SB[p0..127 +0x0 64B/p] copy float32, "
        "8,192 bytes; 1 more queued")
    with pytest.raises(SessionError, match="sg03"):
        open_neff_kernel(neff, "sg03")


async def test_a_neff_opens_on_the_kernel_screen_and_runs(neff: Path) -> None:
    async with started(neff) as (app, pilot):
        from neurondbg.screens.main import DebuggerScreen

        assert isinstance(app.screen, DebuggerScreen) and app.screen.kernel
        s = app.session
        assert isinstance(s, Session) and isinstance(s.opened, OpenedNeffKernel)
        assert s.core.names == ("pool", "dve", "act", "pe", "sp", "qSPIO0", "qPoolIO0")
        strip = _text(app.screen.query_one(EnginesView))
        assert strip.count("no entry queued") == 2
        # judged as NEFF records: a trigger is valid (the dispatch table lacks it)
        assert [(line.text.split()[0], line.valid) for line in s.lines_of["sp"]] == [
            ("SET_ORDERING_MODE", True), ("PSEUDO_DMATRIGGER", True),
            ("PSEUDO_DMATRIGGER", True), ("HALT", True)]
        assert app.screen.query_one("#core-top").styles.height.value == 9  # 7 rows
        start = s.core.digest()
        app.run_command("continue")
        await app.wait_loaded()
        await pilot.pause()
        assert s.core.steps == 19 and s.core.races == []
        assert s.opened.neff is not None
        out = read_output(s.opened.neff.dma, s.opened.neff.low.sub, "out")
        assert not out.any()  # the inputs were not given: zeros in, zeros out
        timeline = _text(app.screen.query_one(TimelineView))
        # qSPIO0 completes at steps 9 and 11, qPoolIO0 at 17 (the rr schedule)
        assert [n for n, c in enumerate(_lane(timeline, "qSPIO0"), 1) if c == "DMA"] == [9, 11]
        assert [n for n, c in enumerate(_lane(timeline, "qPoolIO0"), 1) if c == "DMA"] == [17]
        sems = _text(app.screen.query_one(SemaphoresView)).splitlines()
        assert sems == ["sem[6] DVE done = 1  by dve 0x80 step 14",
                        "sem[8] qSPIO0[0] = 16  by qSPIO0#0 step 9",
                        "sem[9] qSPIO0[1] = 16  by qSPIO0#1 step 11",
                        "sem[24] qPoolIO0[0] = 16  by qPoolIO0#0 step 17"]
        app.run_command("reverse 19")
        await app.wait_loaded()
        assert s.core.steps == 0 and s.core.digest() == start
        assert not any(s.core.state().sem)


def test_the_semaphores_an_engine_uses_come_from_its_bytes(neff: Path) -> None:
    """What the partner pane and the timeline's links use: waits (both of an
    EVENT_SEMAPHORE) and updates, the same as decoding every instruction gives."""
    s = Session(neff)
    got = {e: s._sem_set(e) for e in s.core.engines}
    assert got == {"pool": frozenset({6, 24}), "dve": frozenset({6, 9}), "act": frozenset(),
                   "pe": frozenset(), "sp": frozenset()}
    assert s.synchronised_with("dve") == frozenset({"pool"})
    from neurondbg.machine.core.events import plan_of, update_targets

    for e in s.core.engines:  # the generic path: decode every instruction
        m = s.core.machines[e]
        used = set(update_targets(m.program.raw))
        for k in range(len(m.program)):
            used.update(w.idx for w in plan_of(m.instruction(k)).waits)
        assert got[e] == used


async def test_the_memory_pane_says_when_values_may_be_stale(tmp_path: Path) -> None:
    """Once a MATMUL (no documented layout) has run, the SBUF pane names it; reversing
    past it clears the note."""
    import numpy as np

    from neurondbg.machine.isa.opcodes import Opcode
    from neurondbg.machine.neff.model import Engine
    from neurondbg.views.memory import MemoryView
    from tests.neff.kernels import asm

    sub = vector_add()
    pe = [asm("SET_ORDERING_MODE"), bytes([Opcode.MATMUL, 16]) + bytes(62)]
    sub.streams[Engine.PE] = np.frombuffer(b"".join(pe), np.uint8).reshape(-1, 64)
    path = tmp_path / "mm.neff"
    write_neff(path, [sub], target="sunda")
    async with started(path) as (app, pilot):
        memory = app.screen.query_one(MemoryView)
        assert "stale" not in str(memory.border_subtitle)
        app.run_command("continue")
        await app.wait_loaded()
        await pilot.pause()
        assert str(memory.border_subtitle).endswith(
            " · values may be stale: MATMUL at pe 0x40 may have written sbuf and is not "
            "modelled")
        app.run_command(f"reverse {app.session.core.steps}")
        await app.wait_loaded()
        await pilot.pause()
        assert "stale" not in str(memory.border_subtitle)


def test_the_tui_session_of_a_neff_saves_and_opens_again_at_its_step(neff: Path,
                                                                     tmp_path: Path) -> None:
    s = Session(neff)
    s.add_breakpoint("op:MEMSET@dve")
    s.arm("continue")
    s.run()
    s.step(2)
    steps, digest = s.core.steps, s.core.digest()
    assert steps > 0
    assert s.save(tmp_path / "s.toml") == f"saved {tmp_path / 's.toml'} at step {steps}"
    back = Session(tmp_path / "s.toml")
    assert back.core.steps == steps and back.core.digest() == digest
    assert [bp.text for bp in back.breakpoints()] == ["op:MEMSET@dve"]


def test_a_neff_session_keeps_a_set_edit(neff: Path, tmp_path: Path) -> None:
    s = Session(neff)
    s.step(3)
    assert s.set_value("sem[40]", "5").startswith("sem[40] = 5")
    s.step(2)
    digest = s.core.digest()
    s.save(tmp_path / "s.toml")
    back = Session(tmp_path / "s.toml")
    assert back.core.state().sem[40] == 5 and back.core.digest() == digest
