"""Breakpoints on a NeuronCore: `@ENGINE`, race / deadlock / wait kinds, per-engine
registers in expressions (machine/breakpoints.py, machine/expr.py, machine/core)."""

from __future__ import annotations

import pytest

from neurondbg.machine import expr as ex
from neurondbg.machine.breakpoints import parse_spec
from neurondbg.machine.isa.programs import handshake_loops
from neurondbg.machine.state import MachineConfig, MachineState
from tests.core.conftest import core
from tests.core.test_core import CONSUMER, COPY, PRODUCER
from tests.machine.helpers import core_of

RACY_CONSUMER = f"""
    NOP
    {COPY.format(src=0x100, dst=0x200)}
    HALT
"""


def handshake() -> object:
    return core(pool=PRODUCER, dve=CONSUMER)


def test_engine_suffix_parses_on_every_kind() -> None:
    assert parse_spec("op:CAST@dve").engine == "dve"
    assert parse_spec("pc:0x80@pool").value == 0x80
    bp = parse_spec("watch:sb[0, 0:64]@pool if R3 > 2")
    assert (bp.kind, bp.engine, bp.value.b1, bp.cond.text) == ("watch", "pool", 64, "R3 > 2")
    assert parse_spec("race").engine is None and parse_spec("wait@act").engine == "act"
    assert parse_spec("op:CAST").engine is None
    with pytest.raises(ValueError, match=r"column 9: expected an engine .* found 'gpu'"):
        parse_spec("op:CAST@gpu")
    with pytest.raises(ValueError, match="'deadlock' is about the whole core"):
        parse_spec("deadlock@dve")
    with pytest.raises(ValueError, match="'race' takes no argument"):
        parse_spec("race:3")


def test_engine_registers_in_expressions() -> None:
    c = core(pool="MOVE R3=7\nHALT", dve="MOVE R3=9\nHALT")
    c.cont()
    dve, pool = c.state("dve"), c.state("pool")
    assert ex.parse("dve.R3 - pool.R3")(pool) == 2
    assert ex.parse("R3")(dve) == 9 and ex.parse("R3")(pool) == 7
    assert ex.parse("pool.PC + sem[0]")(dve) == 128
    assert ex.parse_target("dve.R3").name == "dve.R3"
    with pytest.raises(ex.EvalError, match="no act engine here"):
        ex.parse("act.R1")(pool)
    with pytest.raises(ValueError, match="column 1: sem is shared by every engine"):
        ex.parse("dve.sem[1]")
    with pytest.raises(ValueError, match=r"column 1: expected an engine .* found 'gpu'"):
        ex.parse("gpu.R1")
    with pytest.raises(ValueError, match=r"column 5: expected a register R0\.\.R63"):
        ex.parse("dve.R99")
    lone = MachineState.create(MachineConfig(engine="dve"))
    assert ex.parse("dve.R0 + 1")(lone) == 1


def test_one_queue_machine_refuses_other_engines() -> None:
    m = core_of("NOP\nMOVE R1=1\nHALT")
    m.add_breakpoint("op:MOVE@pool")
    with pytest.raises(ValueError, match="column 9: no dve queue here"):
        m.add_breakpoint("op:MOVE@dve")
    with pytest.raises(ValueError, match=r"dve.R1: no dve engine here \(engines: pool\)"):
        m.edit("dve.R1", "3")
    c = core(pool="HALT", dve="HALT")
    c.machines["pool"].check(ex.parse_target("dve.R3"))  # a core's machines know its engines
    with pytest.raises(ValueError, match=r"act.R3: no act engine here \(engines: pool, dve\)"):
        c.machines["pool"].check(ex.parse_target("act.R3"))
    with pytest.raises(ValueError, match="race never fires on one queue"):
        m.add_breakpoint("race")  # a single queue never races: refused


def test_op_breakpoint_on_one_engine() -> None:
    c = handshake()
    bp = c.add_breakpoint("op:COPY@dve")
    stop = c.cont()
    assert (stop.reason, stop.engine, stop.pc, stop.breakpoint) == ("breakpoint", "dve", 0, bp)
    assert c.engine_steps("pool") == 1 and "before dve COPY at 0x0" in stop.detail
    assert c.cont().reason == "halt" and bp.hits == 1


def test_pc_breakpoint_with_and_without_engine() -> None:
    c = handshake()
    c.add_breakpoint("pc:0x40@dve")
    stop = c.cont()
    assert (stop.engine, stop.pc) == ("dve", 0x40) and c.status("pool") == "halted"
    c = handshake()
    c.add_breakpoint("pc:0x40")
    stop = c.cont()
    assert (stop.engine, stop.pc) == ("pool", 0x40)
    stop = c.cont()
    assert (stop.engine, stop.pc) == ("dve", 0x40)
    with pytest.raises(ValueError, match="column 4: PC 0x1000 is not a record address"):
        c.add_breakpoint("pc:0x1000")
    with pytest.raises(ValueError, match=r"column 9: no act queue in this kernel "
                                         r"\(engines: pool, dve\)"):
        c.add_breakpoint("pc:0x40@act")


def test_label_breakpoints_are_per_section() -> None:
    c = core(pool=handshake_loops(3, 1), dve="NOP\nHALT")
    c.add_breakpoint("label:again")
    stop = c.cont()
    assert stop.engine == "pool" and stop.pc == 0x40 * 6
    with pytest.raises(ValueError, match="unknown label 'nowhere'; labels: pool: again, loop; "
                                         "dve: none"):
        c.add_breakpoint("label:nowhere")
    with pytest.raises(ValueError, match="unknown label 'loop'"):
        c.add_breakpoint("label:loop@dve")


def test_watch_memory_written_by_one_engine() -> None:
    c = handshake()
    c.add_breakpoint("watch:sb[0, 0x200:0x210]@pool")  # only DVE writes there
    assert c.cont().reason == "halt"
    c = handshake()
    bp = c.add_breakpoint("watch:sb[0, 0x200:0x210]")
    stop = c.cont()
    assert stop.reason == "breakpoint" and stop.engine == "dve" and stop.breakpoint is bp
    assert "sbuf[0:1, 512:528] written: 00 00" in stop.detail


def test_watch_and_if_on_engine_registers() -> None:
    c = core(pool="MOVE R1=4\nMOVE R1=5\nHALT", dve="MOVE R1=6\nMOVE R1=7\nHALT")
    c.add_breakpoint("watch:R1@dve")
    stop = c.cont()
    assert stop.engine == "dve" and c.state("dve").R[1] == 6 and "R1 written: 0 -> 6" in \
        stop.detail
    c = core(pool="MOVE R1=4\nMOVE R1=5\nHALT", dve="MOVE R1=6\nMOVE R1=7\nHALT")
    bp = c.add_breakpoint("watch:pool.R1")
    assert c.cont().engine == "pool" and c.steps == 1
    c.delete_breakpoint(bp.id)
    c.focus = "dve"
    c.add_breakpoint("if:R1 == 7")  # bare R1: the focused engine's
    stop = c.cont()
    assert c.state("dve").R[1] == 7 and stop.reason == "breakpoint" and "R1 == 7 became true" \
        in stop.detail


def test_condition_reads_the_engine_at_the_location() -> None:
    c = core(pool=handshake_loops(12, 1), dve=handshake_loops(3, 1))
    c.focus = "dve"  # never has R2 == 6: the condition reads POOL, at the location
    bp = c.add_breakpoint("op:COMPARE_BRANCH if R2 == 6")
    stop = c.cont()
    assert stop.engine == "pool" and c.state("pool").R[2] == 6
    c.delete_breakpoint(bp.id)
    c.add_breakpoint("op:NOP@pool if dve.R1 == 6")  # another engine's register
    stop = c.cont()
    assert stop.engine == "pool" and stop.pc == 0x100 and c.state("dve").R[1] == 6
    assert c.status("dve") == "halted"


def test_race_breakpoint_stops_after_the_racing_step() -> None:
    c = core(pool=PRODUCER.replace("update_mode=SEM_INC_COMPLETE update_idx=3", ""),
             dve=RACY_CONSUMER)
    bp = c.add_breakpoint("race")
    stop = c.cont()
    assert stop.reason == "race" and stop.breakpoint is bp and stop.engine == "dve"
    assert c.engine_steps("dve") == 2 and len(stop.races) == 1
    assert stop.races[0].to_dict()["bytes"] == [256, 272]
    assert "race: pool COPY at pc 0x0 writes and dve COPY at pc 0x40 reads sbuf partitions " \
        "[0, 4) bytes [0x100, 0x110) with nothing ordering them: a semaphore update in POOL" \
        in stop.detail
    c = core(pool=PRODUCER.replace("update_mode=SEM_INC_COMPLETE update_idx=3", ""),
             dve=RACY_CONSUMER)
    with pytest.raises(ValueError, match="column 6: no act queue"):
        c.add_breakpoint("race@act")
    assert c.cont().reason == "halt" and len(c.races) == 1


def test_race_breakpoint_on_another_engine_does_not_stop() -> None:
    c = core(pool=PRODUCER.replace("update_mode=SEM_INC_COMPLETE update_idx=3", ""),
             dve=RACY_CONSUMER, act="NOP\nHALT")
    c.add_breakpoint("race@act")
    assert c.cont().reason == "halt" and len(c.races) == 1


def test_deadlock_and_wait_breakpoints() -> None:
    c = core(pool="NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1\nHALT",
             dve="NOP\nNOP wait_mode=SEM_GE_IMM wait_idx=2 semaphore_value=1\nHALT")
    dl = c.add_breakpoint("deadlock")
    w = c.add_breakpoint("wait@dve")
    stop = c.cont()
    assert (stop.reason, stop.engine, stop.breakpoint) == ("wait", "dve", w)
    assert "dve waits at 0x40 for sem[2] >= 1" in stop.detail and c.steps == 1
    stop = c.cont()
    assert (stop.reason, stop.breakpoint, dl.hits) == ("deadlock", dl, 1)


def test_expressions_naming_a_missing_engine_are_refused() -> None:
    c = handshake()
    with pytest.raises(ValueError, match=r"column 4: no act queue in this kernel \(engines: "
                                         r"pool, dve\)"):
        c.add_breakpoint("if:act.R1 > 0")
    with pytest.raises(ValueError, match="column 17: no pe queue"):
        c.add_breakpoint("op:COPY if R1 + pe.R2 > 0")
    with pytest.raises(ValueError, match="column 7: no sp queue"):
        c.add_breakpoint("watch:sp.R3")
    assert c.breakpoints == []
    c.add_breakpoint("if:dve.R1 > 0 or pool.PC > 0x1000")


def test_run_to_a_pc_of_one_engine() -> None:
    c = core(pool=handshake_loops(3, 1), dve=handshake_loops(5, 1))
    stop = c.run_to(0x100, "dve")
    assert (stop.reason, stop.engine, stop.pc, stop.breakpoint) == ("breakpoint", "dve", 0x100,
                                                                    None)
    assert stop.detail == "reached dve NOP at 0x100" and c.breakpoints == []
    assert c.state("dve").R[2] == 0 and c.add_breakpoint("op:HALT").id == 1


@pytest.mark.parametrize(("n", "budget"), [(30, None), (3000, 40_000)])
def test_reverse_continue_to_breakpoints_and_watches(n: int, budget: int | None) -> None:
    """Back to the last time an engine was at a breakpoint or wrote a watched target;
    with a small budget the window before the kept one is rebuilt from a checkpoint."""
    c = core(journal_budget=budget, pool=handshake_loops(n, 1),
             dve=handshake_loops(n + 10, 2))
    assert c.cont().reason == "halt"
    assert (c._timeline.origin > 0) == (budget is not None)
    end = c.steps
    bp = c.add_breakpoint("label:again@pool")
    stop = c.reverse_continue()
    assert (stop.reason, stop.engine, stop.pc, stop.breakpoint) == ("breakpoint", "pool",
                                                                    0x180, bp)
    assert stop.detail.endswith("(reverse)") and c.state("pool").R[2] == 1
    c.delete_breakpoint(bp.id)
    w = c.add_breakpoint("watch:R1@dve")
    before = c.state("dve").R[1]
    stop = c.reverse_continue()
    assert stop.breakpoint is w and stop.engine == "dve" and c.state("dve").R[1] == before - 1
    c.delete_breakpoint(w.id)
    stop = c.reverse_continue()
    assert stop.reason == "start" and c.steps == 0
    assert c.cont().reason == "halt" and c.steps == end


@pytest.mark.parametrize("spec", ["op:MOVE", "watch:R1", "change:R1"])
def test_an_ignore_count_passes_that_many_stops_both_ways(spec: str) -> None:
    text = "\n".join(f"MOVE R1={k}" for k in range(1, 7)) + "\nHALT"
    every = core(pool=text, dve="NOP\nHALT")
    every.add_breakpoint(spec)
    steps = []
    while (stop := every.cont()).reason == "breakpoint":
        steps.append(stop.steps + (steps[-1] if steps else 0))
    assert len(steps) >= 5
    c = core(pool=text, dve="NOP\nHALT")
    bp = c.add_breakpoint(spec)
    assert c.ignore(bp.id, 2) is bp
    stop = c.cont()  # the first two stops are passed, the third is made
    assert (stop.reason, c.steps, bp.ignore) == ("breakpoint", steps[2], 0)
    assert bp.hits == 3
    assert c.cont().reason == "breakpoint" and c.steps == steps[3]  # not ignored now
    while every.steps > c.steps:
        every.reverse(every.steps - c.steps)
    every.reverse_continue()
    every.reverse_continue()
    second = every.steps  # where reverse-continue stops the second time
    c.ignore(bp.id, 1)
    back = c.reverse_continue()  # in reverse too: the newest stop is passed
    assert back.reason == "breakpoint" and bp.ignore == 0 and c.steps == second
    with pytest.raises(ValueError, match="no breakpoint #9"):
        c.ignore(9, 1)
    with pytest.raises(ValueError, match="a count of 0 or more"):
        c.ignore(bp.id, -1)


def test_a_once_breakpoint_is_deleted_by_its_first_stop() -> None:
    c = core(pool="MOVE R1=1\nMOVE R1=2\nMOVE R1=3\nHALT", dve="NOP\nHALT")
    keep = c.add_breakpoint("op:MOVE@pool")
    once = c.add_breakpoint("watch:R1@pool", once=True)
    stop = c.cont()  # after the first MOVE (its own op:MOVE was stepped over at the start)
    assert [b.id for b in stop.breakpoints] == [once.id]  # its stop still names it
    assert [b.id for b in c.breakpoints] == [keep.id]
    assert [b.id for b in c.cont().breakpoints] == [keep.id]
    assert [b.id for b in c.cont().breakpoints] == [keep.id]  # the third MOVE: no watch
