"""What is knowingly missing for an opcode that has a documented struct.

Every such opcode is either fully registered — an engine handler
(machine.engines: `HANDLERS`, keyed by `Opcode`), a wire predicate
(machine.legality.wire: `Predicate.opcodes`) and its listing form
(machine.isa.listform, built from any struct's fields) — or named here with the
reason the piece is absent. tests/isa/test_opcode_registry.py holds the two
sides together, so adding an opcode without one of them fails a test rather
than a user's session ("decoded but not modelled yet").
"""

from __future__ import annotations

from neurondbg.machine.isa.opcodes import Opcode as Op

_UNDOCUMENTED = "the references give its layout and legality, not its arithmetic"

# Struct opcodes no engine executes; running one faults "decoded but not modelled yet".
NOT_MODELLED: dict[Op, str] = {
    Op.ACTIVATION_READ_ACCUMULATOR: "runs on ACT, whose datapath and accumulators are not "
                                    "modelled (an `act` queue runs SEQ control only)",
    Op.EXPONENTIAL: f"{_UNDOCUMENTED}: the precision of the hardware exp is not given, so "
                    "no bit-exact model can be written",
    Op.RECIPROCAL: f"{_UNDOCUMENTED}: the precision of the hardware reciprocal is not given",
    Op.REG_STORE: f"{_UNDOCUMENTED}: which register file it stores, in what layout",
    Op.RNG: f"{_UNDOCUMENTED}: the generator's algorithm and state",
    Op.BATCH_NORM_BACK_PROP: f"{_UNDOCUMENTED}: the batch-norm gradient formula",
    Op.STREAM_SHUFFLE: f"{_UNDOCUMENTED}: the shuffle's mapping of partitions",
    Op.STREAM_TRANSPOSE: f"{_UNDOCUMENTED}: the transpose's block geometry",
    Op.TRANSPOSE_TENSOR_REDUCE_ARITH_OP: f"{_UNDOCUMENTED}: the transpose's block geometry",
    Op.TRANSPOSE_TENSOR_REDUCE_BITVEC_OP: f"{_UNDOCUMENTED}: the transpose's block geometry",
    Op.TRANSPOSE_TENSOR_SCALAR_ARITH_OP: f"{_UNDOCUMENTED}: the transpose's block geometry",
    Op.SCALAR_TENSOR_TENSOR_ARITH: f"{_UNDOCUMENTED}: how the scalar and the two tensors "
                                   "combine (operand order of op0 / op1)",
    Op.SCALAR_TENSOR_TENSOR_BITVEC: f"{_UNDOCUMENTED}: how the scalar and the two tensors "
                                    "combine (operand order of op0 / op1)",
    Op.TENSOR_TENSOR_SCAN_ARITH: f"{_UNDOCUMENTED}: the scan's order and seed",
}

# Struct opcodes the references give no validity predicate for: legality judges them
# by the header and events clauses only (machine.legality.wire.registry.HEADER_ONLY).
NO_PREDICATE: dict[Op, str] = {
    Op.BATCH_NORM_BACK_PROP: "isa-facts §5.1 lists it under S3S3D3_TT; no predicate is "
                             "documented for it",
    Op.EVENT_SEMAPHORE: "isa-facts §4.1 documents its EVENTS_EXTENDED fields, no predicate",
    Op.TEST_EVENT_SEM: "isa-facts §4.6 documents its fields, no predicate",
    Op.PSEUDO_DMATRIGGER: "neff-facts §5.3 gives its payload; no engine's dispatch table "
                          "holds it, so there is no wire predicate",
}
