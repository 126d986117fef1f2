"""What a `key=` on an instruction line refers to, per struct (syntax: machine/asm).

The answer depends only on (struct, key), so it is computed once and cached; the
assembler's builder and its fast path both act on the same `KeyPlan`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from neurondbg.machine.asm.errors import did_you_mean
from neurondbg.machine.asm.semaphores import EVENTS as SEM_EVENTS
from neurondbg.machine.asm.semaphores import KEYS as SEM_KEYS
from neurondbg.machine.asm.values import register_number, register_range_error
from neurondbg.machine.isa.opcodes import OPCODES, opcode_by_name
from neurondbg.machine.isa.spec import Struct
from neurondbg.machine.isa.structs import STRUCTS, tensor_operands
from neurondbg.machine.isa.text import OPERAND_ALIASES, PAIR_KEYS

FIELD_ALIASES = {"nac": "num_active_channels", "num_active_channels": "nac"}
_RAW_MNEMONIC = re.compile(r"OP_([0-9A-Fa-f]{2})$")


class Kind(StrEnum):
    """What a KeyPlan does."""

    FIELD = "field"  # set `name`; `operand`, when given, becomes the line's last operand
    NIBBLE = "nibble"  # set nibble `slot` of DTYPE_PAIR field `name`
    RELATIVE = "relative"  # set `<last operand>.<name>` (step=/num= without an operand)
    SHORTHAND = "shorthand"  # a struct-specific shorthand (MOVE R3=, ALU dst=, BR target=)
    ERROR = "error"  # `message`, reported at the key's column


@dataclass(frozen=True)
class KeyPlan:
    kind: Kind
    name: str = ""
    operand: str | None = None
    slot: int = 0
    message: str = ""


def operand_names(struct: Struct) -> dict[str, str]:
    """Every name a tensor operand is written by (alias or prefix) -> its field prefix."""
    ops = tensor_operands(struct)
    return {**{OPERAND_ALIASES.get(p, p): p for p in ops}, **{p: p for p in ops}}


def _is_shorthand(struct: Struct, key: str) -> bool:
    name = struct.name
    return ((key in SEM_KEYS and struct.has(f"{SEM_EVENTS}.wait_mode"))
            or (name == "CTRL_MV" and register_number(key) is not None)
            or (name == "CTRL_AL" and key in ("dst", "src0", "src1"))
            or (name == "CTRL_BR" and key == "target"))


@lru_cache(maxsize=4096)
def resolve_key(struct_name: str, key: str) -> KeyPlan:
    """The plan for `key=` in a struct named `struct_name` (first rule that applies wins)."""
    s = STRUCTS[struct_name]
    if s.has(key):
        op = key[: -len(".start_addr")] if s.field(key).role == "addr4" else None
        return KeyPlan(Kind.FIELD, key, op)
    for pair, (lo_key, hi_key) in PAIR_KEYS.items():
        if s.has(pair) and key in (lo_key, hi_key):
            return KeyPlan(Kind.NIBBLE, pair, slot=0 if key == lo_key else 1)
    operands = operand_names(s)
    if key in operands:
        prefix = operands[key]
        return KeyPlan(Kind.FIELD, f"{prefix}.start_addr", prefix)
    head, _, tail = key.rpartition(".")
    if tail in ("step", "num") and (head in operands or not head):
        elem = "step_elem" if tail == "step" else "num_elem"
        if head:
            return KeyPlan(Kind.FIELD, f"{operands[head]}.{elem}")
        return KeyPlan(Kind.RELATIVE, elem, message=(
            f"{tail}= needs a tensor operand before it on the line (or write <operand>.{tail}=)"))
    if _is_shorthand(s, key):
        return KeyPlan(Kind.SHORTHAND)
    alias = FIELD_ALIASES.get(key)
    if alias and s.has(alias):
        return KeyPlan(Kind.FIELD, alias)
    matches = [f.name for f in s.fields if f.name.endswith("." + key)]
    if len(matches) == 1:
        return KeyPlan(Kind.FIELD, matches[0])
    if len(matches) > 1:
        return KeyPlan(Kind.ERROR, message=f"ambiguous field {key!r} for {s.name}; write one of: "
                       + ", ".join(matches))
    out_of_range = register_range_error(key) if s.name == "CTRL_MV" else None
    if out_of_range is not None:
        return KeyPlan(Kind.ERROR, message=out_of_range)
    names = [f.name for f in s.fields if f.name != "header.opcode"]
    hint = did_you_mean(key, known_keys(s))
    return KeyPlan(Kind.ERROR, message=f"unknown field {key!r} for {s.name}" + (
        hint or "; expected one of: " + ", ".join(names)))


def known_keys(s: Struct) -> list[str]:
    """Every key resolve_key reads for struct `s` (for did-you-mean hints), but the
    register keys of MOVE."""
    names = [f.name for f in s.fields if f.name != "header.opcode"]
    lasts = [n.rpartition(".")[2] for n in names]
    keys = names + [t for t in lasts if lasts.count(t) == 1]
    operands = operand_names(s)
    keys += [*operands, *(f"{o}.{t}" for o in operands for t in ("step", "num"))]
    if operands:
        keys += ["step", "num"]
    keys += [k for pair, ks in PAIR_KEYS.items() if s.has(pair) for k in ks]
    keys += [a for a, name in FIELD_ALIASES.items() if s.has(name)]
    keys += [k for k in (*SEM_KEYS, "dst", "src0", "src1", "target") if _is_shorthand(s, k)]
    return keys


@lru_cache(maxsize=1024)
def lookup_mnemonic(text: str) -> tuple[int, str] | None:
    """(opcode byte, struct name) of a mnemonic or `OP_xx`; None if it names no opcode."""
    m = _RAW_MNEMONIC.match(text)
    if m:
        code = int(m.group(1), 16)
        info = OPCODES.get(code)
        return code, info.struct if info else "RAW"
    try:
        info = opcode_by_name(text)
    except KeyError:
        return None
    return info.code, info.struct
