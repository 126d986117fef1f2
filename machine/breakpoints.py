"""The breakpoint SPEC language shared by `run --break SPEC` and the UI console.

    op:CAST | op:0x47        before executing an instruction with that opcode
    pc:0x80                  before executing the instruction at that byte address
    label:loop               before executing the instruction at a label
    invalid                  before executing an instruction that fails legality
    fault                    when a step faults (faults always stop; this names it)
    if:EXPR                  after a step, when EXPR (machine/expr.py) is non-zero
    watch:TARGET             after a step that writes TARGET (R5, PC, sb[0,0:64], sem[3], acc[2])
    change:TARGET            after a step that changes TARGET's value
    saturate | tie | nan | inf   after a conversion step in which a lane saturates,
                             rounds an exact tie, or produces NaN / infinity

Any spec may end with ` if EXPR` to make it conditional, e.g. `op:CAST if R5 > 2`.
Errors are ValueError("column N: expected ...") counted in the whole spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from machine import expr as ex

STATIC_KINDS = ("op", "pc", "label", "invalid")  # checked before an instruction executes
SEMANTIC_KINDS = ("saturate", "tie", "nan", "inf")
KINDS = (*STATIC_KINDS, "fault", "if", "watch", "change", *SEMANTIC_KINDS)
# The lane flag (StepRecord.lanes.flags) each semantic breakpoint tests.
SEMANTIC_FLAG = {"saturate": "saturated", "tie": "tie", "nan": "nan", "inf": "inf"}


@dataclass
class Breakpoint:
    """One parsed spec. `value` is the opcode / pc / label / Expr / Target by kind."""

    kind: str
    value: Any
    text: str
    cond: ex.Expr | None = None
    enabled: bool = True
    hits: int = 0
    id: int = 0
    watch_old: Any = field(default=None, repr=False)  # change: the value last seen

    def describe(self) -> str:
        return f"#{self.id} {self.text}" + ("" if self.enabled else " (disabled)")


def _shift(e: ValueError, offset: int) -> ValueError:
    msg = str(e)
    if msg.startswith("column "):
        n, _, rest = msg[7:].partition(":")
        if n.isdigit():
            return ValueError(f"column {int(n) + offset}:{rest}")
    return e


def _int(text: str, col: int, what: str) -> int:
    try:
        return int(text.strip().replace("_", ""), 0)
    except ValueError:
        raise ValueError(f"column {col}: expected {what}, found {text.strip()!r}") from None


def parse_opcode(text: str, col: int,
                 by_name: Callable[[str], int] | None = None) -> int:
    """An opcode by number (0x47) or mnemonic (CAST), via machine.isa's table."""
    t = text.strip()
    if t[:1].isdigit():
        v = _int(t, col, "an opcode number 0..255 or a mnemonic")
        if not 0 <= v <= 255:
            raise ValueError(f"column {col}: expected an opcode 0..255, found {v}")
        return v
    if by_name is None:
        from machine.isa.opcodes import opcode_by_name

        def by_name(name: str) -> int:
            return opcode_by_name(name).code
    try:
        return by_name(t.upper())
    except (KeyError, ValueError):
        raise ValueError(f"column {col}: expected an opcode mnemonic such as CAST or COPY, "
                         f"found {t!r}") from None


def parse_spec(spec: str) -> Breakpoint:
    """Parse one SPEC (see the module docstring)."""
    text = spec.strip()
    lead = len(spec) - len(spec.lstrip())
    if not text:
        raise ValueError("column 1: expected a breakpoint spec such as pc:0x80, op:CAST, "
                         "if:R5>3, watch:R5, saturate")
    cond = None
    head = text
    # A trailing " if EXPR" makes any spec conditional (not for if: itself).
    if not text.startswith("if:"):
        cut = text.find(" if ")
        if cut >= 0:
            head = text[:cut].rstrip()
            try:
                cond = ex.parse(text[cut + 4:])
            except ValueError as e:
                raise _shift(e, lead + cut + 4) from None
    kind, colon, arg = head.partition(":")
    kind = kind.strip().lower()
    argcol = lead + len(kind) + 2
    if kind not in KINDS:
        raise ValueError(f"column {lead + 1}: expected one of {', '.join(KINDS)}, found {kind!r}")
    has_arg = kind in ("op", "pc", "label", "if", "watch", "change")
    if has_arg and not (colon and arg.strip()):
        raise ValueError(f"column {argcol}: expected an argument after '{kind}:'")
    if not has_arg and colon:
        raise ValueError(f"column {argcol - 1}: '{kind}' takes no argument")
    value: Any = None
    try:
        if kind == "op":
            value = parse_opcode(arg, argcol)
        elif kind == "pc":
            value = _int(arg, argcol, "a byte address such as 0x80")
            if value % 64:  # records are 64 bytes: any other address is never reached
                raise ValueError(f"column {argcol}: expected a record address (a multiple "
                                 f"of 64 such as 0x80), found {arg.strip()!r}")
        elif kind == "label":
            value = arg.strip()
        elif kind == "if":
            value = ex.parse(arg)
        elif kind in ("watch", "change"):
            value = ex.parse_target(arg)
    except ValueError as e:
        raise _shift(e, argcol - 1) if kind in ("if", "watch", "change") else e from None
    return Breakpoint(kind, value, text, cond)
