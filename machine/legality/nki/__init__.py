"""NKI-intrinsic-level legality (reference 004): rules as data, per intrinsic.

    check_call({"op": "select_reduce", "args": {...}, "gen": "trn2"}) -> Verdict
    check_calls([...]) -> list[Verdict]
    INTRINSICS: {name: clause specs};  CATALOG: {name: Intrinsic}
    CORRESPONDENCE / intrinsic_for_opcode / args_from_fields / check_fields /
    DISAGREEMENTS: the instruction <-> intrinsic bridge for the wire level.
"""

from neurondbg.machine.legality.nki.bridge import (
    CORRESPONDENCE,
    DISAGREEMENTS,
    Correspondence,
    Disagreement,
    args_from_fields,
    check_fields,
    disagreements,
    intrinsic_for_opcode,
)
from neurondbg.machine.legality.nki.check import (
    CATALOG,
    INTRINSICS,
    check_call,
    check_calls,
    evaluate,
    parse_call,
)
from neurondbg.machine.legality.nki.vocab import NkiInputError, ReduceCmd

__all__ = ["CATALOG", "CORRESPONDENCE", "DISAGREEMENTS", "INTRINSICS", "Correspondence",
           "Disagreement", "NkiInputError", "ReduceCmd", "args_from_fields", "check_call",
           "check_calls", "check_fields", "disagreements", "evaluate", "intrinsic_for_opcode",
           "parse_call"]
