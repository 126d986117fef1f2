"""A NEFF subgraph lowered to what the model runs: one record stream per engine, each
judged as a NEFF stream is (machine.neff.verdicts), and its DMA state.

    low = lower(neff, subgraph=None, gen=None)   # first subgraph with work; kelf target
    low.programs[Engine.PE]                       # codec Program: the stream + a HALT

A NEFF stream has no HALT: the program ends at the end of the file (neff-facts §0.3).
The model's engines end by halting, so the lowering appends one HALT record to each
stream (record index = the stream's length; shown as such, never part of the NEFF).
The generation is the kelf-0.json `target`'s; `gen` overrides it (the caller warns).
A subgraph holding records whose effect is not modelled (machine.neff.unmodelled) gets
a note saying how many (a run stops at the first), and one naming a var whose
`backing_variable_off` is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import Program
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.model import ENGINES, Engine, Subgraph, gen_of_target
from neurondbg.machine.neff.reader import Neff
from neurondbg.machine.neff.unmodelled import backing_note, describe, tally
from neurondbg.machine.neff.verdicts import judge_stream


def halt_record() -> np.ndarray:
    rec = np.zeros((1, RECORD_BYTES), dtype=np.uint8)
    rec[0, 0], rec[0, 1] = Opcode.HALT, 16
    return rec


@dataclass(frozen=True, eq=False)
class Lowered:
    """A subgraph ready to run: per engine, its program (stream + HALT), how many records
    the NEFF stream has, and each record's validity as a NEFF record."""

    sub: Subgraph
    gen: Gen
    programs: dict[Engine, Program] = field(default_factory=dict)
    lengths: dict[Engine, int] = field(default_factory=dict)
    valid: dict[Engine, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def records(self) -> int:
        return sum(self.lengths.values())


def neff_gen(neff: Neff, gen: Gen | None) -> tuple[Gen, list[str]]:
    """The generation to run under and the warnings to print: `gen` wins over the
    kelf-0.json target; NeffError when neither names one."""
    target = gen_of_target(neff.info.target)
    if gen is not None:
        warn = [] if gen == target else [
            f"{neff.path}: --gen {gen.label} overrides the NEFF's target "
            f"{neff.info.target!r}"]
        return gen, warn
    if target is None:
        raise NeffError(f"{neff.path}: kelf-0.json target {neff.info.target!r} is not a "
                        "generation neurondbg knows; give --gen")
    return target, []


def lower_subgraph(sub: Subgraph, gen: Gen) -> Lowered:
    """`sub`'s streams with a HALT appended, judged on their engines."""
    programs: dict[Engine, Program] = {}
    lengths: dict[Engine, int] = {}
    valid: dict[Engine, np.ndarray] = {}
    for e in ENGINES:
        raw = sub.stream(e)
        full = np.concatenate([raw, halt_record()])
        full.flags.writeable = False
        programs[e] = Program(full, f"{sub.name}/{e.file_stem}.bin")
        lengths[e] = len(raw)
        ok = judge_stream(raw, gen, e).valid if len(raw) else np.zeros(0, dtype=bool)
        valid[e] = np.concatenate([ok, [True]])
    odd = tally(sub.stream(e) for e in ENGINES)
    notes = [f"{sub.name} holds records whose effect is not modelled ({describe(odd)}): a "
             "run stops at the first it reaches"] if odd else []
    backing = backing_note(sub)
    if backing is not None:
        notes.append(backing)
    return Lowered(sub, gen, programs, lengths, valid, tuple(notes))


def lower(neff: Neff, subgraph: str | None = None, gen: Gen | None = None) -> Lowered:
    """The subgraph to run (`subgraph`, else the first with work) under the NEFF's
    generation (or `gen`); the generation's warnings are the result's notes."""
    g, warn = neff_gen(neff, gen)
    low = lower_subgraph(neff.subgraph(subgraph), g)
    return Lowered(low.sub, low.gen, low.programs, low.lengths, low.valid,
                   (*warn, *low.notes))
