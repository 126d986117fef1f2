"""The instruction <-> intrinsic bridge: which opcode an intrinsic lowers to,
how a decoded instruction's fields become intrinsic arguments, and where the
wire-level and NKI-level rules disagree (DESIGN.md "ISA and legality").

Opcode numbers and enum meanings come from machine.isa (declared there once);
this module only names the pairing and the value mappings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

import numpy as np

from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.isa.addr import decode_addr4
from neurondbg.machine.isa.enums import AccumCmd, AluOp, ImmSrc, ReduceOp
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.structs import pair_hi, pair_lo
from neurondbg.machine.legality.nki.check import CATALOG, evaluate
from neurondbg.machine.legality.nki.vocab import FP32, NKI_DTYPES, NkiDtype, ReduceCmd, Scalar, Tile
from neurondbg.machine.legality.result import Provenance, Verdict

# how surely an opcode and an intrinsic are the same operation (Correspondence)
Confidence = Literal["HIGH", "MED", "LOW"]


@dataclass(frozen=True)
class Correspondence:
    """One instruction <-> intrinsic pairing."""

    opcode: int
    mnemonic: str
    intrinsic: str
    confidence: Confidence  # HIGH: named by DESIGN / the brief; MED: by name; LOW: by function
    note: str = ""

    @property
    def modelled(self) -> bool:
        """Whether reference 004's rules for the intrinsic are in the catalogue."""
        return self.intrinsic in CATALOG


_PAIRS: tuple[tuple[str, str, Confidence, str], ...] = (
    ("RANGE_SELECT", "range_select", "HIGH", ""),
    ("SELECT_REDUCE", "select_reduce", "HIGH", ""),
    ("COPY_PREDICATED", "tensor_copy_predicated", "HIGH", "tile src"),
    ("COPY_PREDICATED_SCALAR", "tensor_copy_predicated", "MED", "scalar src (reverse_pred)"),
    ("TENSOR_SCALAR_CACHE_REDUCE", "tensor_scalar_reduce", "MED",
     "compute half (6.4.1): no rules in ref 004"),
    ("TENSOR_SCALAR_CACHE_CUMULATIVE", "tensor_scalar_cumulative", "MED",
     "only the reduce_cmd gate is modelled"),
    ("TENSOR_REDUCE_ARITH_OP", "tensor_reduce", "MED", "arithmetic ops"),
    ("TENSOR_REDUCE_BITVEC_OP", "tensor_reduce", "MED", "bitvec ops"),
    ("CROSS_LANE_REDUCE_ARITH", "tensor_partition_reduce", "LOW", "by function"),
    ("CROSS_LANE_REDUCE_BITVEC", "tensor_partition_reduce", "LOW", "by function"),
    ("BATCH_NORM_STATS", "bn_stats", "MED", ""),
    ("BATCH_NORM_AGGREGATE", "bn_aggr", "MED", ""),
    ("MAX8", "max8", "MED", ""),
    ("FIND_INDEX8", "nc_find_index8", "MED", ""),
    ("MATCH_REPLACE8", "nc_match_replace8", "MED", ""),
    ("TENSOR_SCALAR_AFFINE_SELECT", "affine_select", "MED", ""),
    ("MEMSET", "memset", "MED", ""),
    ("IOTA", "iota", "MED", ""),
    ("DROPOUT", "dropout", "MED", ""),
    ("GET_SEQUENCE_BOUNDS", "sequence_bounds", "MED", ""),
    ("COPY", "tensor_copy", "MED", "dtypes equal: the bit-accurate copy (ref 000 §8)"),
    ("CAST", "tensor_copy", "MED", "dtypes differ: the FP32-hub cast (ref 000 §8)"),
    ("GATHER", "local_gather", "LOW", "by function"),
    ("DMA_TRANSPOSE", "dma_transpose", "MED", "plain path"),
    ("DMA_GATHER_TRANSPOSE", "dma_transpose", "MED", "indirect/gather path"),
)

CORRESPONDENCE: dict[Opcode, Correspondence] = {
    (op := Opcode[mn]): Correspondence(int(op), op.name, intr, conf, note)
    for mn, intr, conf, note in _PAIRS
}
_BY_CODE: dict[int, Correspondence] = {int(k): v for k, v in CORRESPONDENCE.items()}


def intrinsic_for_opcode(opcode: int) -> Correspondence | None:
    """The intrinsic an opcode corresponds to, or None."""
    return _BY_CODE.get(int(opcode))


def opcodes_for_intrinsic(name: str) -> tuple[int, ...]:
    return tuple(c.opcode for c in CORRESPONDENCE.values() if c.intrinsic == name)


# --- wire values -> NKI values ----------------------------------------------------------

# ACCUM_CMD -> reduce_cmd by name (isa-facts §6.1, MED/INFERRED).
ACCUM_TO_REDUCE_CMD: dict[AccumCmd, ReduceCmd] = {
    AccumCmd.IDLE: ReduceCmd.idle, AccumCmd.ZERO: ReduceCmd.reset,
    AccumCmd.ACCUMULATE: ReduceCmd.reduce, AccumCmd.ZERO_ACCUMULATE: ReduceCmd.reset_reduce,
    AccumCmd.LOAD_ACCUMULATE: ReduceCmd.load_reduce,
}
# Compare ALU ops -> numpy comparison ops (isa-facts §6.4 S2D2_RS comp_op).
ALU_TO_NP_COMPARE: dict[AluOp, str] = {
    AluOp.IS_EQUAL: "equal", AluOp.IS_GT: "greater", AluOp.IS_GE: "greater_equal",
    AluOp.IS_LE: "less_equal", AluOp.IS_LT: "less",
}
_ALU_TO_NP: dict[AluOp, str] = {AluOp.MAX: "max", AluOp.MIN: "min", AluOp.ADD: "add",
                                AluOp.SUBTRACT: "subtract", AluOp.MULT: "multiply"}
# Wire dtype -> NKI dtype; codes without an NKI twin (FP32R, 64-bit, MX) map to None.
WIRE_TO_NKI_DTYPE: dict[Dtype, NkiDtype] = {
    Dtype.BF16: NKI_DTYPES["bfloat16"], Dtype.FP16: NKI_DTYPES["float16"], Dtype.FP32: FP32,
    Dtype.FP8_EXP3: NKI_DTYPES["float8_e3m4"], Dtype.FP8_EXP4: NKI_DTYPES["float8_e4m3"],
    Dtype.FP8_EXP5: NKI_DTYPES["float8_e5m2"], Dtype.INT8: NKI_DTYPES["int8"],
    Dtype.UINT8: NKI_DTYPES["uint8"], Dtype.INT16: NKI_DTYPES["int16"],
    Dtype.UINT16: NKI_DTYPES["uint16"], Dtype.INT32: NKI_DTYPES["int32"],
    Dtype.UINT32: NKI_DTYPES["uint32"],
}


def _enum_name(enum: type[Enum], code: int) -> str:
    try:
        return enum(code).name
    except ValueError:
        return f"0x{code:02x}"


def _reduce_cmd(code: int) -> ReduceCmd | None:
    try:
        return ACCUM_TO_REDUCE_CMD[AccumCmd(code)]
    except ValueError:
        return None


def _np_op(code: int, table: Mapping[AluOp, str]) -> str:
    try:
        return table.get(AluOp(code)) or f"alu_{AluOp(code).name.lower()}"
    except ValueError:
        return f"alu_0x{code:02x}"


def _nki_dtype(code: int) -> NkiDtype | None:
    try:
        return WIRE_TO_NKI_DTYPE.get(Dtype(code))
    except ValueError:
        return None


def _count(value: int | tuple[int, ...] | list[int]) -> int:
    return math.prod(value) if isinstance(value, (tuple, list)) else int(value)


def _tile(fields: Mapping[str, Any], prefix: str, dtype_code: int, nac: int,
          gen: Gen) -> Tile | None:
    """A tile from a wire tensor operand: (nac partitions, num_elem free elements)."""
    dtype = _nki_dtype(dtype_code)
    if dtype is None or nac <= 0:
        return None
    free = max(1, _count(fields.get(f"{prefix}.num_elem", 1)))
    space = decode_addr4(int(fields.get(f"{prefix}.start_addr", 0)), gen).space
    return Tile(dtype, (nac, free), "psum" if space == "psum" else "sbuf")


def _f32(bits: int) -> float:
    return float(np.uint32(bits & 0xFFFFFFFF).view(np.float32))


def _put(args: dict[str, Any], name: str, value: object) -> None:
    if value is not None:
        args[name] = value


def _range_select_args(f: Mapping[str, Any], gen: Gen) -> dict[str, Any]:
    nac, pair = int(f["nac"]), int(f["in_out_dtype"])
    args: dict[str, Any] = {"comp_op0": _np_op(int(f["comp_op0"]), ALU_TO_NP_COMPARE),
                            "comp_op1": _np_op(int(f["comp_op1"]), ALU_TO_NP_COMPARE),
                            "range_start": int(f["base"]),  # validated as u32 (isa-facts §6.4)
                            "on_false_value": Scalar(_f32(int(f["fill_val"])), FP32)}
    _put(args, "reduce_cmd", _reduce_cmd(int(f["reduce_cmd"])))
    op = int(f["reduce_op"])
    args["reduce_op"] = ("max" if op == ReduceOp.MAX
                         else f"reduce_op_{_enum_name(ReduceOp, op).lower()}")
    _put(args, "on_true_tile", _tile(f, "src", pair_lo(pair), nac, gen))
    _put(args, "dtype", _nki_dtype(pair_hi(pair)))
    if nac > 0:  # bounds are always fp32 per-partition scalars on the wire
        args["bound0"] = args["bound1"] = Tile(FP32, (nac, 1))
    return args


def _select_reduce_args(f: Mapping[str, Any], gen: Gen) -> dict[str, Any]:
    # Operand roles by analogy with COPY_PREDICATED: src0 = predicate, src1 = on_true (MED).
    nac, pair = int(f["nac"]), int(f["in0_in1_dtype"])
    args: dict[str, Any] = {"reduce_op": _np_op(int(f["op1"]), _ALU_TO_NP)}
    _put(args, "reduce_cmd", _reduce_cmd(int(f["accumulator_cmd"])))
    _put(args, "predicate", _tile(f, "src0", pair_lo(pair), nac, gen))
    _put(args, "on_true", _tile(f, "src1", pair_hi(pair), nac, gen))
    _put(args, "dst", _tile(f, "dst", int(f["out_dtype"]), nac, gen))
    imm_dtype = _nki_dtype(int(f["imm0_dtype"]))
    if imm_dtype is not None and int(f["imm0_src"]) == ImmSrc.INSTRUCTION_IMMEDIATE:
        bits = int(f["imm0"])
        args["on_false"] = Scalar(_f32(bits) if imm_dtype == FP32 else bits, imm_dtype)
    elif imm_dtype is not None and nac > 0:
        args["on_false"] = Tile(imm_dtype, (nac, 1))
    return args


def _copy_predicated_args(f: Mapping[str, Any], gen: Gen) -> dict[str, Any]:
    nac, pair = int(f["num_active_channels"]), int(f["in0_in1_dtype"])
    args: dict[str, Any] = {}
    _put(args, "predicate", _tile(f, "src0", pair_lo(pair), nac, gen))
    _put(args, "src", _tile(f, "src1", pair_hi(pair), nac, gen))
    _put(args, "dst", _tile(f, "dst", int(f["out_dtype"]), nac, gen))
    return args


def _tensor_copy_args(f: Mapping[str, Any], gen: Gen) -> dict[str, Any]:
    # ref 000 §8: one tensor_copy lowers to COPY (same dtypes) or CAST (they differ)
    nac = int(f["num_active_channels"])
    args: dict[str, Any] = {}
    _put(args, "src", _tile(f, "src_mem_pattern", int(f["in_dtype"]), nac, gen))
    _put(args, "dtype", _nki_dtype(int(f["out_dtype"])))
    # the output tile (tensor_copy returns it, no parameter names it): no clause reads
    # it, the GpSimd-and-PSUM disagreement below does
    _put(args, OUTPUT, _tile(f, "dst_mem_pattern", int(f["out_dtype"]), nac, gen))
    return args


OUTPUT = "dst"  # the mapped args' key of an intrinsic's output tile


def _cumulative_args(f: Mapping[str, Any], gen: Gen) -> dict[str, Any]:
    args: dict[str, Any] = {}
    _put(args, "reduce_cmd", _reduce_cmd(int(f["accumulator_cmd"])))
    return args


_FIELD_MAPPERS: dict[str, Callable[[Mapping[str, Any], Gen], dict[str, Any]]] = {
    "RANGE_SELECT": _range_select_args,
    "SELECT_REDUCE": _select_reduce_args,
    "COPY_PREDICATED": _copy_predicated_args,
    "TENSOR_SCALAR_CACHE_CUMULATIVE": _cumulative_args,
    "COPY": _tensor_copy_args,
    "CAST": _tensor_copy_args,
}
# The queue engine an instruction runs on, as NKI names it (ref 000 §8: tensor_copy's
# engine in {vector, scalar, gpsimd}; POOL is the GpSimd engine).
QUEUE_TO_NKI_ENGINE: dict[str, str] = {"pool": "gpsimd", "act": "scalar", "dve": "vector"}


def args_from_fields(opcode: int, fields: Mapping[str, Any], gen: Gen,
                     engine: str | None = None) -> dict[str, Any] | None:
    """The intrinsic arguments a decoded instruction determines (partial), or None.

    `fields` is the decoded field dict (flat dotted names, machine.isa). Only the
    arguments the wire encodes are present (and `engine`, the queue engine the
    instruction runs on, where the intrinsic takes one); check_fields evaluates
    just the clauses those arguments decide.
    """
    corr = intrinsic_for_opcode(opcode)
    mapper = _FIELD_MAPPERS.get(corr.mnemonic) if corr else None
    if corr is None or mapper is None:
        return None
    try:
        args = mapper(fields, gen)
    except (KeyError, TypeError, ValueError):
        return None  # fields of another struct: nothing to say at the NKI level
    takes_engine = any(p.name == "engine" for p in CATALOG[corr.intrinsic].params)
    if takes_engine and engine in QUEUE_TO_NKI_ENGINE:
        args["engine"] = QUEUE_TO_NKI_ENGINE[engine]
    return args


def check_fields(opcode: int, fields: Mapping[str, Any], gen: Gen,
                 engine: str | None = None) -> Verdict | None:
    """The NKI-level verdict of a decoded instruction (clauses its fields decide)."""
    corr = intrinsic_for_opcode(opcode)
    args = args_from_fields(opcode, fields, gen, engine)
    if corr is None or args is None:  # (args is None whenever corr is)
        return None
    return evaluate(CATALOG[corr.intrinsic], args, gen, partial=True)


# --- where the two levels disagree -----------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """A point where the wire-level rule and the NKI-level rule differ."""

    opcode: int
    intrinsic: str
    topic: str
    wire: str  # the wire-level rule
    nki: str  # the NKI-level rule
    provenance: tuple[Provenance, ...]
    applies: Callable[[Mapping[str, Any]], bool]  # over the mapped intrinsic args

    def to_dict(self) -> dict[str, Any]:
        return {"opcode": self.opcode, "intrinsic": self.intrinsic, "topic": self.topic,
                "wire": self.wire, "nki": self.nki,
                "provenance": [p.to_dict() for p in self.provenance]}


def _signed_predicate(args: Mapping[str, Any]) -> bool:
    pred = args.get("predicate")
    return pred is not None and pred.dtype.is_int and pred.dtype.signed


def _both_psum(*names: str) -> Callable[[Mapping[str, Any]], bool]:
    def applies(args: Mapping[str, Any]) -> bool:
        return all(getattr(args.get(n), "buffer", None) == "psum" for n in names)
    return applies


def _range_start_edge(args: Mapping[str, Any]) -> bool:
    tile = args.get("on_true_tile")
    n = tile.free_size if tile is not None else 1
    return bool(args.get("range_start", 0) + n == 2 ** 24 + 1)


def _gpsimd_psum(operand: str) -> Callable[[Mapping[str, Any]], bool]:
    def applies(args: Mapping[str, Any]) -> bool:
        return args.get("engine") == "gpsimd" and _both_psum(operand)(args)
    return applies


_RS, _SR, _CP = Opcode.RANGE_SELECT, Opcode.SELECT_REDUCE, Opcode.COPY_PREDICATED
_GPSIMD_PSUM = tuple(Disagreement(
    op, "tensor_copy", "GpSimd and PSUM" + ("" if operand == "src" else " (dst)"),
    f"{op.name} may name PSUM operands (both tensor4d_valid calls pass AllowedInPSUM::True); "
    "on POOL the machine faults at run time",
    ("tensor_copy on engine gpsimd may not read PSUM" if operand == "src" else
     "tensor_copy on engine gpsimd is SBUF-only: its output may not be in PSUM either")
    + ": \"GpSimd engine cannot access PSUM\"",
    (Provenance("000", "§3.3 GOTCHA"), Provenance("000", "§8 (GpSimd path asserts SBUF-only)")),
    _gpsimd_psum(operand)) for op in (Opcode.COPY, Opcode.CAST) for operand in ("src", OUTPUT))
_FACTS_63 = Provenance("isa-facts", "§6.3", "HIGH")
DISAGREEMENTS: tuple[Disagreement, ...] = (
    Disagreement(
        _RS, "range_select", "reduce_cmd reset",
        "RANGE_SELECT accepts ACCUM_CMD {IDLE 0, ACCUMULATE 2, ZERO_ACCUMULATE 3}: ZERO (1) "
        "is illegal", "range_select accepts reduce_cmd {idle, reset, reduce, reset_reduce}: "
        "reset is legal",
        (_FACTS_63, Provenance("004", "reduce_cmd: _check_range_select_supported_reduce_cmd"),
         Provenance("isa-facts", "§6.1 reduce_cmd <-> ACCUM_CMD by name", "MED")),
        lambda a: a.get("reduce_cmd") is ReduceCmd.reset),
    Disagreement(
        _CP, "tensor_copy_predicated", "signed predicate dtype",
        "COPY_PREDICATED's predicate (src0) may be any integer datapath dtype "
        "{INT8, INT16, INT32, UINT8, UINT16, UINT32}",
        "tensor_copy_predicated's predicate must be uint8/uint16/uint32",
        (Provenance("isa-facts", "§5.2 item 3", "HIGH"),
         Provenance("004", "tensor_copy_predicated (CONFIRMED literal)")),
        _signed_predicate),
    # (no "both inputs in PSUM" entry for COPY_PREDICATED: the wire level agrees, through
    # tt_valid_partitions(src0, src1), isa-facts §5.2 item 9)
    Disagreement(
        _RS, "range_select", "index range edge",
        "RANGE_SELECT requires base + element_count <= 2^24 (unless the shape comes from a "
        "register)", "range_select requires range_start + free_index <= 2^24, i.e. "
        "range_start + count - 1 <= 2^24: one element more is legal",
        (Provenance("isa-facts", "§6.4 S2D2_RS base", "HIGH"),
         Provenance("004", "range_select GOTCHA: fp32 exact-integer range", "MED")),
        _range_start_edge),
    Disagreement(
        _SR, "select_reduce", "both inputs in PSUM",
        "no wire-level rule on SELECT_REDUCE operand memory is documented",
        "select_reduce allows at most one of on_true / predicate in PSUM",
        (Provenance("004", "select_reduce MEMORY (CONFIRMED docstring)"),),
        _both_psum("on_true", "predicate")),
    *_GPSIMD_PSUM,
)


def disagreements(opcode: int, fields: Mapping[str, Any], gen: Gen,
                  engine: str | None = None) -> list[Disagreement]:
    """The known wire/NKI disagreements this decoded instruction runs into (on `engine`)."""
    args = args_from_fields(opcode, fields, gen, engine)
    if args is None:
        return []
    return [d for d in DISAGREEMENTS if d.opcode == opcode and d.applies(args)]
