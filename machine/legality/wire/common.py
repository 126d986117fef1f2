"""Clauses shared by every predicate: header, events, tensors, channels, dtypes.

isa-facts §1.1-1.2 (header, events), §2.3 (tensor validity predicates), §8.1
(dtype gates), DESIGN "Gaps decided here" (start_addr_active_channels).
Each factory returns `Clause`s; the predicates in the sibling modules list them.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

import numpy as np

from neurondbg.machine.dtypes import Dtype, Gen, dtypes_of
from neurondbg.machine.isa import opcodes as isa_opcodes
from neurondbg.machine.isa.enums import AluOp, UpdateMode, WaitMode, alu_ops_of, enum_name
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.wire import gates
from neurondbg.machine.legality.wire.clause import (
    Clause,
    Ctx,
    Rows,
    Values,
    as_mask,
    composite,
    lookup,
)
from neurondbg.machine.legality.wire.operands import DtypeRef
from neurondbg.machine.legality.wire.tensors import (  # re-exported: predicates list them as c.*
    P_TENSOR,
    PARTITIONS,
    operand_valid,
    same_count,
    start_addr_active_channels,
    tensor_valid,
    tt_valid_partitions,
)

__all__ = ["PARTITIONS", "P_TENSOR", "operand_valid", "same_count", "start_addr_active_channels",
           "tensor_valid", "tt_valid_partitions"]

P_HEADER = Provenance("isa-facts", "§1.1")
P_EVENTS = Provenance("isa-facts", "§1.2")
P_DTYPE = Provenance("isa-facts", "§8.1")


def hexb(value: int) -> str:
    return f"0x{value:X}"


# -- opcode tables -----------------------------------------------------------------------

_OPCODE_TABLES: dict[Gen, np.ndarray] = {}


def opcode_table(gen: Gen) -> np.ndarray:
    """bool[256]: the opcodes of `gen`'s OPCODE enum (isa-facts §7)."""
    if gen not in _OPCODE_TABLES:
        t = np.zeros(256, dtype=bool)
        # 0xFF is the enum's INVALID sentinel, never a valid opcode (isa-facts §7)
        t[sorted(isa_opcodes.opcodes_of(gen) - {Op.INVALID})] = True
        t.flags.writeable = False
        _OPCODE_TABLES[gen] = t
    return _OPCODE_TABLES[gen]


def mnemonic(code: int) -> str:
    """The opcode's name, or OP_<hex> as the listing names a byte no generation assigns."""
    return isa_opcodes.mnemonic(code)


def enum_table(codes: Iterable[int]) -> np.ndarray:
    t = np.zeros(256, dtype=bool)
    t[[int(c) for c in codes]] = True
    t.flags.writeable = False
    return t


# -- header and events -------------------------------------------------------------------

def _opcode_check(r: Rows) -> np.ndarray:
    return lookup(opcode_table(r.ctx.gen), r["header.opcode"])


def _header_message(v: Values, ctx: Ctx, ok: bool) -> str:
    op, wl = int(v["header.opcode"]), int(v["header.inst_word_len"])
    gen = ctx.gen.label
    in_gen = bool(opcode_table(ctx.gen)[op])
    parts = [f"opcode 0x{op:02X} ({mnemonic(op)}) "
             + ("is" if in_gen else "is not") + f" in the {gen} opcode set",
             f"inst_word_len {wl} " + ("==" if wl == 16 else "!=") + " 16"]
    return "; ".join(parts) + ": the header needs a known opcode and 16 dwords"


def _header_fix(v: Values, ctx: Ctx) -> str | None:
    if int(v["header.inst_word_len"]) != 16:
        return "set inst_word_len = 16"
    return _opcode_fix(v, ctx)


def _opcode_fix(v: Values, ctx: Ctx) -> str | None:
    info = isa_opcodes.OPCODES.get(int(v["header.opcode"]))
    if info is not None:
        gens = ", ".join(g.label for g in sorted(info.gens))
        return f"{info.name} exists on: {gens}; pick one of those with --gen"
    return None


def _opcode_message(v: Values, ctx: Ctx, ok: bool) -> str:
    op = int(v["header.opcode"])
    return (f"opcode 0x{op:02X} ({mnemonic(op)}) " + ("is" if ok else "is not")
            + f" a member of the {ctx.gen.label} OPCODE enum")


def _word_len_message(v: Values, ctx: Ctx, ok: bool) -> str:
    wl = int(v["header.inst_word_len"])
    return f"inst_word_len {wl} " + ("==" if ok else "!=") + " 16 (every instruction is 16 dwords)"


# Conflict (isa-facts §1.1 vs §7): the validator's 256-bit opcode bitmask of
# §1.1 (0x400082F07FBFFFFF, 0x024BC3FFFFDF3F7F, 0x7FEFFFFFE08F7FFF, 0x1001E0000003E) has
# 145 bits set, SUNDA's enumerator count, yet matches no generation's §7 opcode set (61
# codes differ even from SUNDA's). Presence comes from the §7 table per generation
# (machine.isa.opcodes); the bitmask is not used.
# tests/legality/test_listed_failures_have_fixes.py shows the mismatch.
# The two rules isa-facts §1.1 lists are the children; their names are neurondbg's (the
# reference states them as prose).
HEADER = composite("has_valid_neuron_header", (
    Clause("is_valid_enum(opcode)", ("header.opcode",), _opcode_check, _opcode_message,
           P_HEADER, fix=_opcode_fix),
    Clause("has_inst_word_len_16", ("header.inst_word_len",),
           lambda r: r["header.inst_word_len"] == 16, _word_len_message, P_HEADER,
           fix=lambda v, ctx: "set inst_word_len = 16",
           repair=lambda v, ctx: [{"header.inst_word_len": 16}]),
), P_HEADER, message=_header_message, fix=_header_fix)


# The NC-v5 header carries a tile index (isa-facts §1.1) but its byte was not recovered.
# Decision (LOW): header byte 3, the soft debug_hint byte of v2..v4, is the tile index.
TILE_IDX_FIELD = "header.debug_hint"


def tile_idx_zero(field: str = TILE_IDX_FIELD) -> Clause:
    """MAVERICK only: the header's tile index must be 0 (ref 001 §7 CORRECTION)."""
    return Clause(
        "has_tile_idx_zero", (field,),
        lambda r: r[field] == 0,
        lambda v, ctx, ok: f"tile index (header byte 3, {field}) {int(v[field])} "
        + ("==" if ok else "!=") + " 0: NC-v5 carries a tile index in the header and it "
        "must be zero (its byte position is a neurondbg decision, LOW)",
        Provenance("001", "§3.3, §7 CORRECTION; byte position LOW", "LOW"),
        fix=lambda v, ctx: f"set {field} = 0",
        gens=frozenset({Gen.MAVERICK}))


# INVALID (0xFF) is an enum member but not a valid mode (decision: a code named INVALID
# never passes is_valid_enum).
_WAIT_OK = enum_table(m for m in WaitMode if m is not WaitMode.INVALID)
_UPDATE_OK = enum_table(m for m in UpdateMode if m is not UpdateMode.INVALID)


def _events_message(v: Values, ctx: Ctx, ok: bool) -> str:
    w, u = int(v["events.wait_mode"]), int(v["events.update_mode"])
    wn = enum_name(WaitMode, w) if _WAIT_OK[w] else None
    un = enum_name(UpdateMode, u) if _UPDATE_OK[u] else None
    return (f"wait_mode {hexb(w)} ({wn or 'not a valid WAIT_MODE'}), update_mode {hexb(u)} "
            f"({un or 'not a valid UPDATE_MODE'}): both must be valid enum codes "
            "(the semaphore-consistency sub-clause was not recovered, isa-facts §10)")


def _mode_clause(field: str, enum_cls: type[WaitMode] | type[UpdateMode],
                 table: np.ndarray) -> Clause:
    """is_valid_enum(<WAIT_MODE | UPDATE_MODE>) of one events byte (isa-facts §1.2). An
    invalid mode's repair is NONE: a search nearest in bits would pick a synchronising
    mode, adding a wait or a semaphore update the program never had."""
    label = field.split(".")[-1]
    ename = "WAIT_MODE" if enum_cls is WaitMode else "UPDATE_MODE"

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        x = int(v[field])
        name = enum_name(enum_cls, x) if ok else None
        return f"{label} {hexb(x)} ({name or 'not a valid ' + ename}) " + (
            "is" if ok else "is not") + f" a valid {ename} code"

    return Clause(f"is_valid_enum({label})", (field,), lambda r: lookup(table, r[field]),
                  message, P_EVENTS,
                  fix=lambda v, ctx: f"use {label} NONE (0) if no sync is wanted",
                  repair=lambda v, ctx: [{field: 0}], frozen=(field,))


EVENTS = composite("has_valid_neuron_events", (
    _mode_clause("events.wait_mode", WaitMode, _WAIT_OK),
    _mode_clause("events.update_mode", UpdateMode, _UPDATE_OK),
), P_EVENTS, message=_events_message,
    fix=lambda v, ctx: "use wait_mode NONE (0) / update_mode NONE (0) if no sync is wanted")


TILE_IDX = tile_idx_zero()


def header_clauses() -> list[Clause]:
    """has_valid_neuron_header, has_valid_neuron_events.

    has_tile_idx_zero is not here: reference 001 §7 finds it in MAVERICK's
    is_valid_ctrl_mv only (rg count 0/0/0/1 over ctrl_mv.h), so only MOVE adds it.
    Applying it to every opcode would, with the LOW byte choice above, reject every
    relative branch (builders put debug_hint = 2 there, isa-facts §1.1).
    """
    return [HEADER, EVENTS]


_ALU_TABLES: dict[Gen, np.ndarray] = {}


def alu_table(gen: Gen) -> np.ndarray:
    """bool[256]: the ALU_OP codes of `gen` (isa-facts §3)."""
    if gen not in _ALU_TABLES:
        _ALU_TABLES[gen] = enum_table(alu_ops_of(gen))
    return _ALU_TABLES[gen]


def alu_name(code: int) -> str:
    n = enum_name(AluOp, code)
    return f"{n} (0x{code:02X})" if n else f"0x{code:02X}"


def alu_equals(name: str, field: str, op: AluOp, prov: Provenance, rule: str) -> Clause:
    return Clause(
        name, (field,), lambda r: r[field] == op,
        lambda v, ctx, ok: f"{field} {alu_name(int(v[field]))} " + ("==" if ok else "!=")
        + f" {op.name} (0x{int(op):02X}): {rule}",
        prov, fix=lambda v, ctx: f"set {field} = {op.name} (0x{int(op):02X})")


def alu_enum(field: str, prov: Provenance, label: str | None = None) -> Clause:
    """is_valid_enum(<op>): the byte is an ALU_OP of the generation."""
    return Clause(
        f"is_valid_enum({label or field})", (field,),
        lambda r: lookup(alu_table(r.ctx.gen), r[field]),
        lambda v, ctx, ok: f"{field} {alu_name(int(v[field]))} " + ("is" if ok else "is not")
        + f" an ALU_OP of {ctx.gen.label}", prov)


def fixed_opcode(name: str, code: int) -> Clause:
    """has_copy_opcode-style clause: fails only when a predicate is forced on another opcode."""
    return Clause(
        name, ("header.opcode",),
        lambda r: r["header.opcode"] == code,
        lambda v, ctx, ok: f"opcode 0x{int(v['header.opcode']):02X} "
        f"({mnemonic(int(v['header.opcode']))}) " + ("==" if ok else "!=")
        + f" 0x{code:02X} ({mnemonic(code)})",
        Provenance("000" if code in (Op.COPY, Op.CAST) else "001", "§3.3"),
        fix=lambda v, ctx: f"set the opcode to 0x{code:02X}")


def informational(name: str, text: str, prov: Provenance) -> Clause:
    """A note that always passes and states a fact about the predicate."""
    return Clause(name, (), lambda r: r.true(), lambda v, ctx, ok: text, prov,
                  note=True, informational=True)


# -- generic value clauses ---------------------------------------------------------------

def equals(name: str, field: str, want: int, prov: Provenance, rule: str,
           label: str | None = None) -> Clause:
    """`field == want`."""
    return Clause(
        name, (field,), lambda r: r[field] == want,
        lambda v, ctx, ok: f"{field} {_show(v[field], label)} " + ("==" if ok else "!=")
        + f" {_show(want, label)}: {rule}",
        prov, fix=lambda v, ctx: f"set {field} = {_show(want, label)}",
        repair=lambda v, ctx: [{field: want}])


def _show(value: int, label: str | None) -> str:
    if label == "hex":
        return f"0x{int(value):X}"
    return str(int(value))


def zero_bytes(name: str, field: str, prov: Provenance) -> Clause:
    """Every byte of a reserved field is 0."""
    def check(r: Rows) -> np.ndarray:
        col = r[field]
        return as_mask((col == 0) if col.ndim == 1 else ~np.any(col != 0, axis=1))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        val = v[field]
        vals = [int(val)] if isinstance(val, int) else [int(x) for x in val]
        shown = " ".join(f"{x:02X}" for x in vals)
        return f"{field} = [{shown}]: reserved bytes must all be 0"

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        val = v[field]
        return [{field: 0 if isinstance(val, int) else (0,) * len(val)}]

    return Clause(name, (field,), check, message, prov, fix=lambda v, ctx: f"zero {field}",
                  repair=repair)


def in_set(name: str, field: str, codes: Iterable[int], prov: Provenance, rule: str,
           names: dict[int, str] | None = None, fix: str | None = None) -> Clause:
    """`field` is one of `codes` (a 256-entry table lookup)."""
    codes = frozenset(int(c) for c in codes)
    table = enum_table(codes)

    def show(x: int) -> str:
        n = (names or {}).get(x)
        return f"{n} ({x})" if n else str(x)

    allowed = "{" + ", ".join(show(c) for c in sorted(codes)) + "}"
    return Clause(
        name, (field,), lambda r: lookup(table, r[field]),
        lambda v, ctx, ok: f"{field} {show(int(v[field]))} " + ("is" if ok else "is not")
        + f" in {allowed}: {rule}",
        prov, fix=(lambda v, ctx: fix) if fix else None)


def is_valid_enum(field: str, enum_cls: type[IntEnum], prov: Provenance, label: str | None = None,
                  members: Iterable[int] | None = None) -> Clause:
    """is_valid_enum(<label>): the byte is a member of the enum."""
    codes = frozenset(int(m) for m in (members if members is not None else enum_cls))
    table = enum_table(codes)
    ename = enum_cls.__name__

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        x = int(v[field])
        n = enum_name(enum_cls, x)
        shown = f"{n} ({x})" if n and ok else str(x)
        verdict = "is a member" if ok else "is not a member"
        return f"{field} {shown} {verdict} of {ename} " \
            "{" + ", ".join(f"{enum_cls(c).name} {c}" for c in sorted(codes)) + "}"

    return Clause(f"is_valid_enum({label or field.split('.')[-1]})", (field,),
                  lambda r: lookup(table, r[field]), message, prov)


# -- dtype gates --------------------------------------------------------------------------

def dtype_clause(ref: DtypeRef, allow_fp32r: bool = False, allow_64: bool = False,
                 label: str | None = None, prov: Provenance = P_DTYPE,
                 plain: bool = False) -> Clause:
    """is_valid_dtype(<operand>) / is_valid_dtype_64(<operand>) for one dtype byte/nibble.

    `plain` narrows the gate to the codes below 0x10 (Copy/Cast, ref 000 §6.2).
    """
    name = "is_valid_dtype_64" if allow_64 else "is_valid_dtype"
    label = label or ref.label

    def check(r: Rows) -> np.ndarray:
        return lookup(gates.dtype_gate(r.ctx.gen, allow_fp32r, allow_64, plain), ref.column(r))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        code = ref.value(v)
        rule = "allowed" if allow_fp32r else "not allowed"
        text = (f"{label} {gates.dtype_label(code)} " + ("passes" if ok else "fails")
                + f" {name} on {ctx.gen.label} (FP32R {rule}): "
                + gates.describe_gate(ctx.gen, allow_fp32r, allow_64, plain))
        if plain and code >= gates.PLAIN_LIMIT:
            text += (f"; Copy/Cast consume only the 12 plain dtypes (+FP32R out): the "
                     f"extended 0x{gates.PLAIN_LIMIT:X}..0x1F codes never reach Copy/Cast "
                     "on any generation (ref 000 §1 fact 7, §4 NOTE, §6.2)")
        return text

    def fix(v: Values, ctx: Ctx) -> str | None:
        code = ref.value(v)
        if code == Dtype.FP32R and not allow_fp32r:
            return f"FP32R is output-only; use FP32 (0xA) for {label}"
        if code in (Dtype.UINT64, Dtype.INT64) and not allow_64:
            return f"64-bit dtypes need an opcode with the _64 gate; use INT32/UINT32 for {label}"
        if plain and code >= gates.PLAIN_LIMIT:
            return (f"use a plain dtype (code < 0x{gates.PLAIN_LIMIT:X}) for {label}; "
                    "extended dtypes are decoded by their own opcodes, not by Copy/Cast")
        return None

    def base_check(r: Rows) -> np.ndarray:
        return lookup(gates.dtype_base_gate(r.ctx.gen, allow_fp32r, allow_64, plain),
                      ref.column(r))

    def base_message(v: Values, ctx: Ctx, ok: bool) -> str:
        code = ref.value(v)
        return (f"{label} {gates.dtype_label(code)} " + ("is" if ok else "is not")
                + f" one of the {ctx.gen.label} codes the gate admits before its 4-bit and "
                "scale checks: "
                + gates.describe_gate(ctx.gen, allow_fp32r, allow_64, plain, base=True))

    # the gate's sub-rules (ref 000 §4 NOTE), on the generations whose enum has such codes;
    # where it has neither, the gate is one rule (a leaf: its base check)
    subs = tuple(_illegal_check(rule, ref, label, codes, kind)
                 for rule, codes, kind in (
                     ("dtype_4bit_illegal_check", gates.REJECTED_4BIT, "4-bit"),
                     ("dtype_scale_illegal_check", gates.REJECTED_SCALE, "scale")))
    with_subs = frozenset().union(*(sub.gens or frozenset() for sub in subs))
    base = Clause("dtype_base_check", ref.fields, base_check, base_message, prov, fix=fix,
                  gens=with_subs)
    return composite(f"{name}({label})", (base, *subs), prov, message=message, fix=fix,
                     alone=base_check)


P_SUB_RULE = Provenance("000", "§4 NOTE; isa-facts §8.1")


def _illegal_check(rule: str, ref: DtypeRef, label: str, codes: frozenset[Dtype],
                   kind: str) -> Clause:
    """One sub-rule of is_valid_dtype: none of `codes` (present where the enum has one)."""
    table = ~gates.set_gate(codes)
    gens = frozenset(g for g in Gen if codes & set(dtypes_of(g)))
    shown = gates.set_label(codes)

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        code = ref.value(v)
        return (f"{label} {gates.dtype_label(code)} " + ("is not" if ok else "is")
                + f" a {kind} dtype {shown}: is_valid_dtype rejects them")

    return Clause(rule, ref.fields, lambda r: lookup(table, ref.column(r)), message, P_SUB_RULE,
                  fix=lambda v, ctx: f"use a dtype other than the {kind} ones for {label}",
                  gens=gens)


def dtype_set_clause(name: str, ref: DtypeRef, codes: frozenset[int], prov: Provenance,
                     rule: str, label: str | None = None, fix: str | None = None) -> Clause:
    """The dtype is one of a fixed set (datapath sets, MOVE's gate, ...)."""
    table = gates.set_gate(codes)
    label = label or ref.label
    return Clause(
        name, ref.fields, lambda r: lookup(table, ref.column(r)),
        lambda v, ctx, ok: f"{label} {gates.dtype_label(ref.value(v))} "
        + ("is" if ok else "is not") + f" in {gates.set_label(codes)}: {rule}",
        prov, fix=(lambda v, ctx: fix) if fix else None)


# -- channels -----------------------------------------------------------------------------

def active_channels(nac_field: str, name: str = "check_active_channels",
                    prov: Provenance = P_TENSOR) -> Clause:
    """1 <= nac <= 128 (check_active_channels / has_valid_active_channel_range)."""
    return Clause(
        name, (nac_field,),
        lambda r: (r[nac_field] >= 1) & (r[nac_field] <= PARTITIONS),
        lambda v, ctx, ok: f"{nac_field} {int(v[nac_field])} "
        + ("is" if ok else "is not") + f" in 1..{PARTITIONS}: the active-channel count "
        "must name at least one and at most all 128 partitions",
        prov, fix=lambda v, ctx: f"set {nac_field} to 1..{PARTITIONS}")
