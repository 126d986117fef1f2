"""DMA ops: dma_copy and dma_transpose (ref 004 "DMA Ops").

Both gate Hardware DGE on NeuronCore-v3+ (`err_min_arch_support_for_hwdge`).
dma_transpose splits into a plain path (dge_mode unknown/hwdge) and an
indirect/gather path (unknown/swdge); the HWDGE column rule is a multiple of
128 (CORRECTION DMA-1), though the diagnostic text says "<=128 columns".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.messages import message, quoting
from neurondbg.machine.legality.nki.common import clause, intrinsic, ref004
from neurondbg.machine.legality.nki.spec import ClauseSpec, Intrinsic, Param
from neurondbg.machine.legality.nki.vocab import gen_label

# dma_transpose permutation per src rank (CONFIRMED docstring).
TRANSPOSE_AXES: dict[int, tuple[int, ...]] = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}
HWDGE_COLUMN_MULTIPLE = 128
PLAIN_DGE_MODES: tuple[str, ...] = ("unknown", "hwdge")
INDIRECT_DGE_MODES: tuple[str, ...] = ("unknown", "swdge")
DMA_RMW_OPS: tuple[str, ...] = ("add",)


def _hwdge_arch(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    mode = args["dge_mode"]
    if mode == "hwdge" and gen < Gen.CAYMAN:
        return False, (f"dge_mode hwdge on {gen_label(gen)}: Hardware DGE is NeuronCore-v3+ only "
                       "(get_nc_version() >= gen3)")
    return True, f"dge_mode {mode} on {gen_label(gen)}"


def hwdge_gate(section: str) -> ClauseSpec:
    return clause("err_min_arch_support_for_hwdge", "dge_mode", "dge_mode hwdge needs trn2+",
                  _hwdge_arch, ref004(section),
                  fix="use dge_mode unknown (compiler decides) or swdge on trn1")


def _rmw_op(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op = args.get("dst_rmw_op")
    if op is None or op in DMA_RMW_OPS:
        return True, f"dst_rmw_op {'None (overwrite)' if op is None else 'np.' + op}"
    return False, f"dst_rmw_op np.{op}: only np.add is supported (None = overwrite)"


def _rmw_oob(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    op, oob = args.get("dst_rmw_op"), args["oob_mode"]
    if op is None or oob == "error":
        return True, f"oob_mode {oob} with dst_rmw_op {op}"
    return False, f"oob_mode {oob} with dst_rmw_op np.{op}: with dst_rmw_op only oob_mode.error"


def _sbuf_to_sbuf(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, dst = args.get("src"), args.get("dst")
    if src is not None and dst is not None and src.buffer == dst.buffer == "sbuf":
        return False, "src and dst are both in SBUF: an on-chip copy is cheaper with tensor_copy"
    return True, (f"{None if src is None else src.buffer} -> "
                  f"{None if dst is None else dst.buffer}")


_DC_PARAMS = (Param("dst", "tile", required=True), Param("src", "tile", required=True),
              Param("mask", "any"), Param("dst_rmw_op", "op"),
              Param("oob_mode", "oob_mode", default="error"),
              Param("dge_mode", "dge_mode", default="unknown"))
DMA_COPY = intrinsic(
    "dma_copy", "DMA", _DC_PARAMS, "neuron_isa.py:2428",
    "HBM <-> SBUF copy; casts when dtypes differ",
    ref004("dma_copy signature (CONFIRMED stub L414)"),
    hwdge_gate("dma_copy: HWDGE gate"),
    clause("dst_rmw_op_add_only", "dst_rmw_op", "dst_rmw_op in {None, np.add}", _rmw_op,
           ref004("dma_copy: dst_rmw_op"), fix="use dst_rmw_op=np.add or None"),
    clause("dst_rmw_op_oob_mode_error", ("dst_rmw_op", "oob_mode"),
           "dst_rmw_op set => oob_mode == error", _rmw_oob, ref004("dma_copy: oob_mode"),
           fix="use oob_mode=oob_mode.error with dst_rmw_op"),
    clause("prefer_tensor_copy_sbuf_to_sbuf", ("src", "dst"),
           "SBUF -> SBUF copies are better done by tensor_copy (advice)", _sbuf_to_sbuf,
           ref004("tensor_copy: for SBUF->SBUF prefer this over dma_copy"), note=True,
           fix="use nisa.tensor_copy"),
    asserted=("dst", "src"),
)


def _axes(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, axes = args.get("src"), args.get("axes")
    if src is None:
        return True, "src not given"
    rank = len(src.shape)
    if rank not in TRANSPOSE_AXES:
        return False, f"src {src} is {rank}-D; dma_transpose takes 2-D, 3-D or 4-D"
    want = TRANSPOSE_AXES[rank]
    if axes is None or tuple(axes) == want:
        return True, f"{rank}-D src transposes with axes {want}"
    return False, (f"axes {tuple(axes)} for a {rank}-D src; the legal permutation is {want} "
                   "(legal: (1,0), (2,1,0), (3,1,2,0))")


def _dge_path(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, mode = args.get("src"), args["dge_mode"]
    indirect = src is not None and src.indirect
    path, legal = (("indirect/gather", INDIRECT_DGE_MODES) if indirect
                   else ("plain", PLAIN_DGE_MODES))
    if mode in legal:
        # in the table's order: a set of strings would print in a per-process hash order
        shown = "{" + ", ".join(repr(m) for m in legal) + "}"
        return True, f"dge_mode {mode} is legal on the {path} path {shown}"
    return False, (f"dge_mode {mode} on the {path} transpose path: legal are "
                   f"{{{', '.join(legal)}}} (hwdge only plain, swdge only indirect)")


def _hwdge_columns(args: Mapping[str, Any], gen: Gen) -> tuple[bool, str]:
    src, mode = args.get("src"), args["dge_mode"]
    if src is None or mode != "hwdge":
        return True, f"dge_mode {mode}: no HWDGE column rule"
    cols = src.shape[-1]
    if cols % HWDGE_COLUMN_MULTIPLE == 0:
        return True, f"src.shape[-1] = {cols} is a multiple of 128"
    return False, (f"src.shape[-1] = {cols} is not a multiple of 128 (binary diagnostic: "
                   "\"must have <=128 columns\"; the predicate is the modulo, ref 004 DMA-1)")


_DT_PARAMS = (Param("src", "tile", required=True), Param("axes", "int_list"),
              Param("dge_mode", "dge_mode", default="unknown"), Param("mask", "any"),
              Param("dtype", "dtype"), Param("oob_mode", "oob_mode", default="error"))
_DT_TABLE = "dma_transpose legality table (CONFIRMED literals, body 0x3e8e0)"
DMA_TRANSPOSE = intrinsic(
    "dma_transpose", "DMA", _DT_PARAMS, "neuron_isa.py:2003",
    "transpose via the DMA engine; plain (HWDGE) and indirect (SWDGE) paths",
    ref004("dma_transpose signature (CONFIRMED stub L477)"),
    clause("dma_transpose_axes", ("src", "axes"), "axes (1,0) / (2,1,0) / (3,1,2,0) by rank",
           _axes, ref004("dma_transpose permutations (CONFIRMED docstring)"),
           fix="leave axes=None or pass the rank's permutation"),
    clause("dge_mode_for_path", ("dge_mode", "src"),
           "plain: {unknown, hwdge}; indirect: {unknown, swdge}", _dge_path,
           ref004(_DT_TABLE + "; GOTCHA: disjoint whitelists"),
           fix="use dge_mode unknown (legal on both paths)"),
    hwdge_gate("dma_transpose: HWDGE gate (same >= gen3 rule as dma_copy)"),
    quoting(clause("hwdge_columns_multiple_of_128", ("src", "dge_mode"),
                   "hwdge => src.shape[-1] % 128 == 0", _hwdge_columns,
                   ref004("dma_transpose CORRECTION DMA-1 (docstring rule stub L492)"),
                   fix="pad the last dim to a multiple of 128"),
            # the binary's text; the check behind it is the modulo (DMA-1)
            message("must have <=128 columns", "004 dma_transpose CORRECTION DMA-1")),
    asserted=("src",),
)

INTRINSICS: tuple[Intrinsic, ...] = (DMA_COPY, DMA_TRANSPOSE)
