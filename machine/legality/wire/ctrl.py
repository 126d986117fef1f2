"""SEQ control predicates: is_valid_ctrl_mv (ref 001 §3.3, verbatim), MOVE_SHAPE
(CTRL_MS), ALU_OP (CTRL_AL) and COMPARE_BRANCH (CTRL_BR) as far as isa-facts §4 documents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from neurondbg.machine.isa.enums import BrCmpOp, BrTargetMode, DataSrc, TensorShapeMoveType
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.legality.messages import message, quoting
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.wire import common as c
from neurondbg.machine.legality.wire import gates
from neurondbg.machine.legality.wire.clause import (
    Clause,
    Ctx,
    Predicate,
    Rows,
    Values,
    as_mask,
    composite,
    lookup,
)
from neurondbg.machine.legality.wire.operands import DtypeRef

P_MV = Provenance("001", "§3.3")
P_REG = Provenance("isa-facts", "§4.2; DESIGN Gaps decided here", "MED")
P_NOTE = Provenance("001", "§3.3 header notes")
SLOTS = 8


def register_clause(kind: str, field: str, label: str | None = None,
                    when: Callable[[Rows], np.ndarray] | None = None,
                    when_v: Callable[[Values], bool] | None = None, when_text: str = "",
                    prov: Provenance = P_REG, when_field: str | None = None) -> Clause:
    """is_valid_register_read/_write(<field>), optionally only when a mode (the byte
    `when_field`) uses it."""
    table = gates.REGISTER_READ if kind == "read" else gates.REGISTER_WRITE

    def check(r: Rows) -> np.ndarray:
        ok = lookup(table, r[field])
        return ok if when is None else ok | ~when(r)

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        if when_v is not None and not when_v(v):
            return f"{field} is not used ({when_text})"
        spec = int(v[field])
        return (f"{field} {gates.register_label(spec)} " + ("is" if ok else "is not")
                + f" a legal register {kind}: R0..R63, 128 (PC_LO), 129 (PC_HI)")

    fields = (field,) if when_field is None else (field, when_field)
    return Clause(f"is_valid_register_{kind}({label or field})", fields, check, message,
                  prov, fix=lambda v, ctx: f"use R0..R63 for {field}",
                  frozen=() if when_field is None else (when_field,))


# -- MOVE 0xa7 -----------------------------------------------------------------------------

def _unused_zero(r: Rows, idx: int) -> np.ndarray:
    """The slot is unused (num_mov <= idx) and its source is 0: its registers are not
    checked (ref 001 §3.3, the first arm of ctrl_mv_valid_register)."""
    return as_mask((r["num_mov"] <= idx) & (r["src_registers"][:, idx] == 0))


def _unused_zero_v(v: Values, idx: int) -> bool:
    return int(v["num_mov"]) <= idx and int(v["src_registers"][idx]) == 0


def _free_registers(v: Values) -> list[int]:
    """R0..R63 that neither list names: a replacement that starts no header note failing."""
    taken = set(v["src_registers"]) | set(v["dst_registers"])
    return [r for r in range(64) if r not in taken]


def _slot_read(idx: int) -> Clause:
    """is_valid_register_read(src_registers[idx]), the second arm's read: checked unless
    the slot is unused with source 0."""
    def check(r: Rows) -> np.ndarray:
        return as_mask(_unused_zero(r, idx) | gates.REGISTER_READ[r["src_registers"][:, idx]])

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        n, src = int(v["num_mov"]), int(v["src_registers"][idx])
        if _unused_zero_v(v, idx):
            return f"slot {idx} is unused (num_mov {n}) and src_registers[{idx}] is 0"
        text = (f"src_registers[{idx}] {gates.register_label(src)} "
                + ("is" if ok else "is not") + " a legal register read: R0..R63, 128 (PC_LO), "
                "129 (PC_HI)")
        if not ok and n <= idx:
            text += f"; the slot is unused (num_mov {n}), so 0 would also do"
        return text

    def fix(v: Values, ctx: Ctx) -> str:
        if int(v["num_mov"]) <= idx:
            return f"zero src_registers[{idx}] (unused slot)"
        return f"use R0..R63 for src_registers[{idx}]"

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        """An unused slot's source becomes 0, a used slot's the lowest register the lists
        do not use."""
        src = list(v["src_registers"])
        free = _free_registers(v)
        if int(v["num_mov"]) <= idx:
            src[idx] = 0
        elif free:
            src[idx] = free[0]
        else:
            return []
        return [{"src_registers": tuple(src)}]

    return Clause(f"is_valid_register_read(src_registers[{idx}])",
                  ("num_mov", "src_registers"), check, message, P_REG, fix=fix, repair=repair)


def _slot_write(idx: int) -> Clause:
    """is_valid_register_write(dst_registers[idx]), the second arm's write: checked unless
    the slot is unused with source 0."""
    def check(r: Rows) -> np.ndarray:
        return as_mask(_unused_zero(r, idx) | gates.REGISTER_WRITE[r["dst_registers"][:, idx]])

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        n, dst = int(v["num_mov"]), int(v["dst_registers"][idx])
        if _unused_zero_v(v, idx):
            return f"slot {idx} is unused (num_mov {n}) and src_registers[{idx}] is 0"
        return (f"dst_registers[{idx}] {gates.register_label(dst)} "
                + ("is" if ok else "is not") + " a legal register write: R0..R63, "
                "128 (PC_LO), 129 (PC_HI)")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        """The lowest register the lists do not use, past the one a failing read of the
        same slot takes (both may be repaired together)."""
        dst = list(v["dst_registers"])
        free = _free_registers(v)
        if not gates.REGISTER_READ[int(v["src_registers"][idx])] and int(v["num_mov"]) > idx:
            free = free[1:]
        if not free:
            return []
        dst[idx] = free[0]
        return [{"dst_registers": tuple(dst)}]

    return Clause(f"is_valid_register_write(dst_registers[{idx}])",
                  ("num_mov", "src_registers", "dst_registers"), check, message, P_REG,
                  fix=lambda v, ctx: f"use R0..R63 for dst_registers[{idx}]", repair=repair)


def _slot_register(idx: int) -> Clause:
    """ctrl_mv_valid_register(idx), verbatim (ref 001 §3.3): `(num_mov <= idx &&
    src_registers[idx] == 0) || (is_valid_register_read(src_registers[idx]) &&
    is_valid_register_write(dst_registers[idx]))`. The children are the second arm's two
    calls, each passing when the first arm holds: their conjunction is the rule."""
    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        n = int(v["num_mov"])
        src, dst = int(v["src_registers"][idx]), int(v["dst_registers"][idx])
        if _unused_zero_v(v, idx):
            return f"slot {idx} is unused (num_mov {n}) and src_registers[{idx}] is 0"
        head = f"slot {idx}: src {gates.register_label(src)} -> dst {gates.register_label(dst)}"
        if ok:
            return head + ": a legal read and a legal write"
        why = []
        if n <= idx:
            why.append(f"the slot is unused (num_mov {n}) so src_registers[{idx}] must be 0"
                       " or the pair must still be legal")
        if not gates.REGISTER_READ[src]:
            why.append("the source is not a readable register (R0..R63, 128, 129)")
        if not gates.REGISTER_WRITE[dst]:
            why.append("the destination is not a writable register (R0..R63, 128, 129)")
        return head + ": " + "; ".join(why)

    def fix(v: Values, ctx: Ctx) -> str | None:
        if int(v["num_mov"]) <= idx:
            return f"zero src_registers[{idx}] (unused slot)"
        return "use R0..R63"

    return composite(f"ctrl_mv_valid_register({idx})", (_slot_read(idx), _slot_write(idx)),
                     P_MV, message=message, fix=fix)


def _slots(r: Rows, name: str) -> np.ndarray:
    """(SLOTS, N) copy of a register list, one contiguous row per slot (memoised): the
    pairwise slot compares below read whole rows, not columns strided by the record."""
    return r.memo(("slots", name), lambda: np.ascontiguousarray(r[name].T))


def _active(r: Rows) -> list[np.ndarray]:
    """Per slot: the rows using it (slot < num_mov), memoised."""
    return r.memo("active", lambda: [r["num_mov"] > k for k in range(SLOTS)])


def _unique_dst(r: Rows) -> np.ndarray:
    # slot b repeats an earlier slot a < b; the active slots are a prefix (slot < num_mov),
    # so b active implies a active: a pair is judged when its later slot is active.
    # Slot rows compared pairwise: far cheaper than a per-row sort of 8 values
    dst, act = _slots(r, "dst_registers"), _active(r)
    dup = np.zeros(len(r), dtype=bool)
    for b in range(1, SLOTS):
        same = dst[0] == dst[b]
        for a in range(1, b):
            same |= dst[a] == dst[b]
        dup |= same & act[b]
    return ~dup


def _dst_not_in_src(r: Rows) -> np.ndarray:
    src, dst, act = _slots(r, "src_registers"), _slots(r, "dst_registers"), _active(r)
    clash = np.zeros(len(r), dtype=bool)
    for a in range(SLOTS):  # active destination a equals some active source b
        hit = np.zeros(len(r), dtype=bool)
        for b in range(SLOTS):
            hit |= (dst[a] == src[b]) & act[b]
        clash |= hit & act[a]
    return as_mask(~clash | (r["move_source"] != DataSrc.REGISTER))


def _used(v: Values, name: str) -> list[int]:
    return [int(x) for x in v[name][: min(int(v["num_mov"]), SLOTS)]]


def _unique_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    dst = _used(v, "dst_registers")
    dups = sorted({d for d in dst if dst.count(d) > 1})
    shown = ", ".join(gates.register_label(d) for d in dst)
    if ok:
        return f"destinations [{shown}] are unique"
    return f"destinations [{shown}] repeat {', '.join(gates.register_label(d) for d in dups)}:" \
        " each destination register must be unique (the last write would win)"


def _disjoint_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    if int(v["move_source"]) != DataSrc.REGISTER:
        return "immediate source: no source registers are read"
    src, dst = _used(v, "src_registers"), _used(v, "dst_registers")
    both = sorted(set(src) & set(dst))
    if ok:
        return "no destination register is also a source"
    return (f"{', '.join(gates.register_label(x) for x in both)} is both a source and a "
            "destination: no destination may appear in the source list")


MV_CLAUSES: tuple[Clause, ...] = (
    *c.header_clauses(),
    c.TILE_IDX,  # ref 001 §3.3: after the events clause, MAVERICK only
    c.fixed_opcode("has_move_opcode", Op.MOVE),
    Clause("ctrl_mv_valid_num", ("num_mov",),
           lambda r: (r["num_mov"] > 0) & (r["num_mov"] <= SLOTS),
           lambda v, ctx, ok: f"num_mov {int(v['num_mov'])} " + ("is" if ok else "is not")
           + f" in 1..{SLOTS}", P_MV, fix=lambda v, ctx: "set num_mov to 1..8"),
    c.equals("ctrl_mv_reserved_zero", "reserved0", 0, P_MV, "the reserved byte must be 0"),
    quoting(c.dtype_set_clause(
        "ctrl_mv_has_valid_dtype", DtypeRef("dtype"), gates.MOVE_DTYPES, P_MV,
        "MOVE copies whole 32-bit register words (move.cpp:41)",
        fix="set dtype to INT32, UINT32 or FP32: the dtype only labels the "
        "32-bit word (a bf16 pattern moves as UINT32)"),
        # the host decoder's assert (ref 001 §1.1): its file:line, expression and text
        message("move.cpp:41", "001 §1.1"),
        message("(ins.dtype == NEURON_ISA_TPB_DTYPE_UINT32) || (ins.dtype == "
                "NEURON_ISA_TPB_DTYPE_INT32) || (ins.dtype == NEURON_ISA_TPB_DTYPE_FP32)",
                "001 §1.1"),
        message("highest priority is full-register moves[. TODO other dtypes]", "001 §1.1")),
    c.is_valid_enum("move_source", DataSrc, P_MV),
    *(_slot_register(i) for i in range(SLOTS)),
    quoting(Clause("ctrl_mv_unique_dst_registers", ("num_mov", "dst_registers"), _unique_dst,
                   _unique_msg, P_NOTE, note=True),
            message("Each destination register must be unique[ (no duplicates)]",
                    "001 §3.3 header note")),
    quoting(Clause("ctrl_mv_dst_not_in_src_registers",
                   ("num_mov", "move_source", "src_registers", "dst_registers"),
                   _dst_not_in_src, _disjoint_msg, P_NOTE, note=True),
            message("No register used in the destination register list can be used in "
                    "[the ]source register list", "001 §3.3 header note")),
)
IS_VALID_CTRL_MV = Predicate("is_valid_ctrl_mv", "CTRL_MV", (Op.MOVE,), MV_CLAUSES, P_MV)


# -- MOVE_SHAPE 0xb2 ----------------------------------------------------------------------

P_MS = Provenance("001", "§5.2")
P_MS_INF = Provenance("001", "§5.2 (inferred from the CTRL_MV pattern)", "LOW")
IS_VALID_CTRL_MS = Predicate("is_valid_ctrl_ms", "CTRL_MS", (Op.MOVE_SHAPE,), (
    *c.header_clauses(),
    c.informational("partially documented predicate",
                    "ref 001 gives the CTRL_MS struct and move types, not its predicate "
                    "body; the count and reserved clauses are inferred (LOW)", P_MS),
    c.is_valid_enum("move_type", TensorShapeMoveType, P_MS),
    Clause("ctrl_ms_valid_num", ("num_move",),
           lambda r: (r["num_move"] >= 1) & (r["num_move"] <= 4),
           lambda v, ctx, ok: f"num_move {int(v['num_move'])} " + ("is" if ok else "is not")
           + " in 1..4 (four shape_registers slots)", P_MS_INF),
    c.zero_bytes("ctrl_ms_reserved_zero(reserved0)", "reserved0", P_MS_INF),
    c.zero_bytes("ctrl_ms_reserved_zero(reserved1)", "reserved1", P_MS_INF),
), P_MS)


# -- ALU_OP 0xa8 ----------------------------------------------------------------------------

P_AL = Provenance("isa-facts", "§4.4", "MED")


# isa-facts §4.4's own example (dword @12 = 0x00010804) is a compiler-built ALU_OP with
# dst_dtype byte 0: so 0 cannot be rejected. Decision (MED): 0 means "the result keeps
# `dtype`"; any other code must pass the _64 dtype gate.
P_AL_DST = Provenance("isa-facts", "§4.4 (example dword 0x00010804 has dst_dtype 0)", "MED")


def _al_dst_dtype_message(v: Values, ctx: Ctx, ok: bool) -> str:
    code = int(v["dst_dtype"])
    if code == 0:
        return "dst_dtype 0: the result keeps dtype (as in isa-facts §4.4's example)"
    return (f"dst_dtype {gates.dtype_label(code)} " + ("passes" if ok else "fails")
            + f" is_valid_dtype_64 on {ctx.gen.label}: 0 (keep dtype) or "
            + gates.describe_gate(ctx.gen, False, True))


def _src1_reg(r: Rows) -> np.ndarray:
    return as_mask(r["src1_datasrc"] == DataSrc.REGISTER)


IS_VALID_CTRL_AL = Predicate("is_valid_ctrl_al", "CTRL_AL", (Op.ALU_OP,), (
    *c.header_clauses(),
    c.informational("partially documented predicate",
                    "isa-facts §4.4 gives the CTRL_AL layout; the clauses are the ALU op "
                    "enum, the dtype gates and the shared register rules (MED)", P_AL),
    c.alu_enum("op", P_AL),
    c.dtype_clause(DtypeRef("dtype"), allow_fp32r=False, allow_64=True, prov=P_AL),
    Clause("ctrl_al_valid_dst_dtype", ("dst_dtype",),
           lambda r: (r["dst_dtype"] == 0)
           | lookup(gates.dtype_gate(r.ctx.gen, False, True), r["dst_dtype"]),
           _al_dst_dtype_message, P_AL_DST,
           fix=lambda v, ctx: "set dst_dtype = 0 (the result keeps dtype) or a valid dtype"),
    c.is_valid_enum("src1_datasrc", DataSrc, P_AL),
    register_clause("read", "src0_lo"),
    register_clause("read", "src0_hi"),
    register_clause("read", "src1_lo", when=_src1_reg,
                    when_v=lambda v: int(v["src1_datasrc"]) == DataSrc.REGISTER,
                    when_text="src1 is an immediate", when_field="src1_datasrc"),
    register_clause("read", "src1_hi", when=_src1_reg,
                    when_v=lambda v: int(v["src1_datasrc"]) == DataSrc.REGISTER,
                    when_text="src1 is an immediate", when_field="src1_datasrc"),
    register_clause("write", "dst_lo"),
    register_clause("write", "dst_hi"),
), P_AL)


# -- COMPARE_BRANCH 0xa9 ----------------------------------------------------------------------

P_BR = Provenance("isa-facts", "§4.5", "MED")
_REG_TARGETS = (BrTargetMode.REGISTER, BrTargetMode.REL_REGISTER)
_REG_CMPS = tuple(m for m in BrCmpOp if m.name.endswith("_REG"))


def _reg_target(r: Rows) -> np.ndarray:
    return np.isin(r["target_mode"], _REG_TARGETS)


def _reg_target_v(v: Values) -> bool:
    return int(v["target_mode"]) in _REG_TARGETS


def _rel_offset_ok(r: Rows) -> np.ndarray:
    off = r["br_immediate"]
    small = (off > -(1 << 31)) & (off < (1 << 31))
    return as_mask(small | (r["target_mode"] != BrTargetMode.REL_IMM))


def _rel_offset_msg(v: Values, ctx: Ctx, ok: bool) -> str:
    if int(v["target_mode"]) != BrTargetMode.REL_IMM:
        return "the target is not a relative immediate: br_immediate is not an offset"
    off = int(v["br_immediate"])
    return f"relative offset {off} " + ("satisfies" if ok else "violates") + " |off| < 2^31"


IS_VALID_CTRL_BR = Predicate("is_valid_ctrl_br", "CTRL_BR", (Op.COMPARE_BRANCH,), (
    *c.header_clauses(),
    c.informational("partially documented predicate",
                    "isa-facts §4.5 gives the CTRL_BR layout (MED) and only two BR_CMP_OP "
                    "codes (EQ_IMM 3, GT_IMM 6); the rest of the enum is neurondbg's (LOW)",
                    P_BR),
    c.is_valid_enum("cmp_op", BrCmpOp, Provenance("isa-facts", "§4.5; §10", "LOW")),
    c.is_valid_enum("target_mode", BrTargetMode, P_BR),
    c.dtype_clause(DtypeRef("dtype"), allow_fp32r=False, prov=P_BR),
    register_clause("read", "cmp_reg0"),
    register_clause("read", "cmp_reg1", when=lambda r: np.isin(r["cmp_op"], _REG_CMPS),
                    when_v=lambda v: int(v["cmp_op"]) in _REG_CMPS,
                    when_text="the comparison is against the immediate", when_field="cmp_op",
                    prov=Provenance("isa-facts", "§4.5 (cmp_reg1 is neurondbg's)", "LOW")),
    register_clause("read", "target_reg_lo", when=_reg_target, when_v=_reg_target_v,
                    when_text="the target is not register-held", when_field="target_mode"),
    register_clause("read", "target_reg_hi", when=_reg_target, when_v=_reg_target_v,
                    when_text="the target is not register-held", when_field="target_mode"),
    Clause("br_relative_offset_in_range", ("target_mode", "br_immediate"), _rel_offset_ok,
           _rel_offset_msg, P_BR),
), P_BR)

PREDICATES = (IS_VALID_CTRL_MV, IS_VALID_CTRL_MS, IS_VALID_CTRL_AL, IS_VALID_CTRL_BR)
