"""Build the `Snapshot` the panes render from the machine at one stop.

Reading only: every value comes from the machine (its state, its records, its
legality verdicts); nothing is recomputed here but the per-record judgement, which
is cached because a record's verdicts never change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from neurondbg.debug.snapshot import ProgramLine, Snapshot, WrittenRegion
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.engines.record import Lanes, StepRecord
from neurondbg.machine.isa.codec import Instruction
from neurondbg.machine.legality.explain import explain
from neurondbg.machine.legality.nki import bridge
from neurondbg.machine.legality.nki.bridge import Disagreement
from neurondbg.machine.legality.result import Verdict


class Judgement(NamedTuple):
    """Both legality levels of one instruction."""

    verdict: Verdict | None  # wire level; None when no predicate judges the opcode
    nki: Verdict | None  # None where the instruction<->intrinsic bridge has nothing to say
    disagreements: tuple[Disagreement, ...]


def judge(inst: Instruction, gen: Gen, engine: str) -> Judgement:
    """The wire verdict, the NKI verdict and their disagreements of one instruction."""
    try:
        verdict: Verdict | None = explain(inst, gen, engine)
    except ValueError:
        verdict = None
    try:  # the bridge judges fields it may not know: its refusal means "nothing to say"
        nki = bridge.check_fields(inst.opcode, inst.fields, gen, engine)
        split = tuple(bridge.disagreements(inst.opcode, inst.fields, gen, engine)) if nki else ()
    except (AttributeError, ValueError, KeyError):
        nki, split = None, ()
    return Judgement(verdict, nki, split)


def written_regions(record: StepRecord | None) -> tuple[WrittenRegion, ...]:
    """The SBUF/PSUM cells a StepRecord wrote (register writes have no region)."""
    if record is None:
        return ()
    fmt = record.lanes.dst if record.lanes is not None else None  # elements of the target
    return tuple(WrittenRegion(w.region.space, w.region.p0, w.region.p1, w.region.byte_index,
                               fmt)
                 for w in record.writes if w.region is not None)


def last_executed(m: Machine) -> Instruction | None:
    """The instruction of the machine's newest journaled step (a run's fast steps are
    journaled too, unlike its StepRecords); None when none ran or it was folded away."""
    journal = m.state.journal
    pc = journal.pc_of(len(journal) - 1) if len(journal) else None
    index = m.index_of(pc) if pc is not None else None
    return m.instruction(index) if index is not None else None


class SnapshotBuilder:
    """Snapshots of one loaded program: its listing and name are fixed, each record is
    judged the first time the PC reaches it."""

    def __init__(self, name: str, gen: Gen, engine: str,
                 lines: Sequence[ProgramLine]) -> None:
        self.name, self.gen, self.engine, self.lines = name, gen, engine, lines
        self._judged: dict[int, Judgement] = {}

    def judgement(self, index: int, inst: Instruction) -> Judgement:
        if index not in self._judged:
            self._judged[index] = judge(inst, self.gen, self.engine)
        return self._judged[index]

    def build(self, m: Machine, *, record: StepRecord | None,
              previous: dict[int, Instruction], prev_registers: Sequence[int] | None,
              breakpoints: frozenset[int], lanes: tuple[Lanes, int] | None,
              stop: str) -> Snapshot:
        """The machine `m` now: `record` is the last step's, `previous` the last executed
        instruction of each opcode, `lanes` the last conversion and its step."""
        state = m.state
        n = len(self.lines)
        pc_index = state.pc_index if 0 <= state.pc_index < n else None
        inst = m.instruction(pc_index) if pc_index is not None else None  # the machine caches
        judged = self.judgement(pc_index, inst) if inst is not None and pc_index is not None \
            else Judgement(None, None, ())
        same = previous.get(inst.opcode) if inst is not None else None
        last_run = last_executed(m) if inst is None else None
        return Snapshot(
            program_name=self.name, gen=self.gen.label, engine=self.engine, lines=self.lines,
            pc=state.pc, pc_index=pc_index, steps=state.steps, registers=list(state.R),
            prev_registers=prev_registers, breakpoints=breakpoints,
            instruction=inst, previous_same=same if same is not inst else None,
            last_run=last_run,
            verdict=judged.verdict, nki_verdict=judged.nki,
            disagreements=judged.disagreements, sbuf=state.sbuf, psum=state.psum,
            acc=state.acc, idx=state.idx, written=written_regions(record), record=record,
            lanes=lanes[0] if lanes else None, lanes_step=lanes[1] if lanes else None,
            stop=stop, fault=record.fault if record is not None else None,
            halted=bool(state.halted))
