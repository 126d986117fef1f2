"""Which predicate judges which opcode, and the engine dispatch clause.

Opcodes with a documented struct get their predicate; every other opcode
(undocumented layout, unknown byte) gets the header + events clauses and a
note that no predicate is documented.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from neurondbg.machine.isa.opcodes import OPCODES, QUEUE_ENGINES
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.wire import common as c
from neurondbg.machine.legality.wire import ctrl, dve, s4d4_tr
from neurondbg.machine.legality.wire.clause import Clause, Ctx, Predicate, Values, lookup

PREDICATES: tuple[Predicate, ...] = (*s4d4_tr.PREDICATES, *ctrl.PREDICATES, *dve.PREDICATES)

HEADER_ONLY = Predicate(
    "header_and_events_only", "RAW", (), (
        *c.header_clauses(),
        c.informational("no documented predicate",
                        "the references document no validity predicate for this opcode: "
                        "only the header and events are checked",
                        Provenance("isa-facts", "§1, §7", "HIGH")),
    ), Provenance("isa-facts", "§1"))

ALL_PREDICATES: tuple[Predicate, ...] = (*PREDICATES, HEADER_ONLY)
BY_NAME: dict[str, Predicate] = {p.name: p for p in ALL_PREDICATES}


def _build_index() -> np.ndarray:
    index = np.full(256, len(PREDICATES), dtype=np.uint8)  # default: HEADER_ONLY
    for i, p in enumerate(PREDICATES):
        for code in p.opcodes:
            assert index[code] == len(PREDICATES), f"opcode 0x{code:02X} has two predicates"
            assert OPCODES[code].struct == p.struct, f"0x{code:02X}: struct mismatch"
            index[code] = i
    index.flags.writeable = False
    return index


PREDICATE_INDEX = _build_index()  # opcode byte -> index into ALL_PREDICATES


def predicate_for(opcode: int) -> Predicate:
    """The predicate that judges an opcode byte."""
    return ALL_PREDICATES[int(PREDICATE_INDEX[opcode & 0xFF])]


ENGINE_CHOICES: tuple[str, ...] = QUEUE_ENGINES
P_ENGINE = Provenance("000", "§2.2, §7; 001 §7.2; DESIGN Machine", "MED")
# Dispatch-table entries neurondbg decided rather than read: ref 000 names POOL (pool_copy,
# pool_cast) and ACT (the native Cast/Copy) for COPY/CAST; DVE is the project's choice.
DECIDED: frozenset[tuple[int, str]] = frozenset({(Op.COPY, "dve"), (Op.CAST, "dve")})


@cache
def engine_table(engine: str) -> np.ndarray:
    """bool[256]: the opcodes `engine`'s dispatch table holds (SEQ control runs everywhere)."""
    t = np.zeros(256, dtype=bool)
    for code, info in OPCODES.items():
        if engine in info.engines or "seq" in info.engines:
            t[code] = True
    t.flags.writeable = False
    return t


@cache
def engine_clause(engine: str) -> Clause:
    """engine_has_opcode(<engine>): the engine's dispatch table has the opcode."""
    if engine not in ENGINE_CHOICES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINE_CHOICES)}")
    table = engine_table(engine)

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        code = int(v["header.opcode"])
        info = OPCODES.get(code)
        where = ", ".join(sorted(info.engines)) if info and info.engines else "no engine"
        decided = (f"; {info.name} on {engine} is a neurondbg decision (LOW): ref 000 §7-8 "
                   "names POOL and ACT" if (code, engine) in DECIDED and info else "")
        return (f"{c.mnemonic(code)} (0x{code:02X}) " + ("is" if ok else "is not")
                + f" in the {engine} dispatch table (it runs on: {where}){decided}")

    return Clause(f"engine_has_opcode({engine})", ("header.opcode",),
                  lambda r: lookup(table, r["header.opcode"]), message, P_ENGINE,
                  fix=_engine_fix)


def _engine_fix(v: Values, ctx: Ctx) -> str:
    """What to change instead of a field: the engine (no field edit adds an opcode)."""
    info = OPCODES.get(int(v["header.opcode"]))
    where = ", ".join(sorted(info.engines)) if info and info.engines else ""
    return "run the program on an engine that has this opcode" + (
        f" (--engine {where})" if where else "")
