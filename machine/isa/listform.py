"""The Program listing's one-line form of an instruction, built from its decoded fields.

    from machine.isa import listing, listing_lines
    listing(program.instruction(3), Gen.CAYMAN, labels={0x40: "loop"})
    # 'CAST FP32→BF16 sb[0,0x0]×8 → sb[0,0x40]×8 nac=4'
    listing_lines(program, Gen.CAYMAN, labels)     # every record, read in bulk

The full disassembly (re-assemblable, every field) is 100-250 characters; the
listing shows the mnemonic and the operands a reader scans for, and the Struct
pane has every field. It takes the fields the disassembler would write (those
that differ from the assembler's defaults, in struct order, spelled as in
machine.isa.text) and compacts them:
- the dtypes become one `IN→OUT` (just `OUT` when they agree);
- an access pattern shows its shape: `sb[0,0x0]×8`, `×8x2/1,16` when the steps
  are not unit, and `→ ` before a destination;
- a relative branch shows its target, by label where there is one;
- MOVE immediates show as `R1=0 R2=3`; array slots past the last nonzero are
  dropped (`[7,0]` -> `7`); a partial `nac=` comes last, 128 is not shown;
- fields a reader does not scan for (debug_hint, sources' data kinds, counts
  restated by the shape) are left out.
An opcode no generation assigns shows as its `.raw` disassembly line (decision:
the text-parsing listing showed it with a stray `=` appended; that is not kept).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from neurondbg.machine.dtypes import DEFAULT_GEN, Dtype, Gen
from neurondbg.machine.isa.codec import Instruction, Program
from neurondbg.machine.isa.opcodes import OPCODES, mnemonic
from neurondbg.machine.isa.spec import RECORD_BYTES, Field
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.isa.text import (
    INST_WORD_LEN,
    OPERAND_ALIASES,
    PAIR_KEYS,
    SHORT_NAMES,
    field_key,
    format_addr4,
    format_element,
    format_value,
)

RENAME = {"src0_lo": "src0", "src1_lo": "src1",
          "dst_lo": "dst", "immediate": "imm", "cmp_immediate": "imm", "cmp_reg0": "reg"}
DROP = frozenset({"debug_hint", "src1_datasrc", "move_source", "target_mode", "num_mov",
                  "dst_registers", "step", "num"})
DTYPE_KEYS = ("in_dtype", "in0_dtype", "in1_dtype", "dtype", "dst_dtype", "out_dtype")
_PATTERN_SPACES = ("sb[", "ps[", "psum[", "sbuf[")

Token = tuple[str, str]  # (key, value) as the disassembler writes them


# How each field of a struct is written: (field, kind, key, default); kinds: "pair"
# (a DTYPE_PAIR's two nibbles), "operand" (an access pattern's address), "shape" (its
# step / num arrays), "array", "scalar". Built once per struct: field_key is costly.
Plan = tuple[tuple[Field, str, str, int], ...]


@cache
def _plan(struct_name: str) -> Plan:
    struct = STRUCTS[struct_name]
    out = []
    for f in struct.fields:
        if f.role == "opcode":
            continue
        if f.role == "dtype_pair":
            out.append((f, "pair", "", 0))
        elif f.role == "addr4":
            prefix = f.name[: -len(".start_addr")]
            out.append((f, "operand", prefix, 0))
        elif f.role in ("step", "count") and f.count > 1 and f.name.endswith(
                (".step_elem", ".num_elem")):
            out.append((f, "shape", SHORT_NAMES[0 if f.name.endswith(".step_elem") else 1], 0))
        else:
            default = INST_WORD_LEN if f.name == "header.inst_word_len" else 0
            out.append((f, "array" if f.count > 1 else "scalar", field_key(struct, f), default))
    return tuple(out)


def _tokens(struct_name: str, fields: Mapping[str, Any], gen: Gen) -> list[Token]:
    """The disassembler's `key=value` pairs of one instruction, in struct order."""
    out: list[Token] = []
    for f, kind, key, default in _plan(struct_name):
        v = fields[f.name]
        if kind == "scalar":
            if v != default:
                out.append((key, format_element(f, v)))
        elif kind == "pair":
            for pkey, code in zip(PAIR_KEYS[f.name], (v & 0xF, v >> 4), strict=True):
                if code:
                    out.append((pkey, Dtype(code).name))
        elif kind == "operand":
            step, num = fields[f"{key}.step_elem"], fields[f"{key}.num_elem"]
            if v or any(_flat(step)) or any(_flat(num)):
                out.append((OPERAND_ALIASES.get(key, key), format_addr4(v, gen)))
        elif any(v):  # "shape" and "array": written when any element is set
            out.append((key, format_value(f, v)))
    return out


def _flat(v: int | tuple[int, ...]) -> tuple[int, ...]:
    return v if isinstance(v, tuple) else (v,)


def _items(value: str) -> list[str]:
    return [v.strip() for v in value.strip("[]").split(",")]


def _shape(num: str | None, step: str | None) -> str:
    """`×8` for num=[8,1,1,1] step=[1,0,0,0]; the step only when it is not unit."""
    if num is None:
        return ""
    dims = _items(num)
    while len(dims) > 1 and dims[-1] == "1":
        dims.pop()
    out = "×" + "x".join(dims)
    if step is not None:
        steps = _items(step)[:len(dims)]
        if steps != ["1"] + ["0"] * (len(dims) - 1):
            out += "/" + ",".join(steps)
    return out


def listing(inst: Instruction, gen: Gen = DEFAULT_GEN,
            labels: Mapping[int, str] | None = None) -> str:
    """The listing line of a decoded Instruction (see the module docstring).

    `labels` maps a record's byte offset in the program to its label, for branch
    targets; `gen` decides how addresses decode (partition geometry).
    """
    if inst.opcode not in OPCODES:
        return ".raw 0x" + bytes(inst.raw).hex()
    return _line(inst.opcode, inst.offset, inst.struct.name, inst.fields, gen, labels or {})


def listing_lines(program: Program, gen: Gen = DEFAULT_GEN,
                  labels: Mapping[int, str] | None = None) -> list[str]:
    """`listing` of every record of a Program, in order; the fields of each struct group
    are read from the record array at once (no Instruction per record)."""
    out: list[str] = [""] * len(program)
    labels = labels or {}
    for name in program.struct_names():
        idx, recs = program.records_for(name)
        cols = {f.name: recs[f.name].tolist() for f in STRUCTS[name].fields}
        arrays = [f.name for f in STRUCTS[name].fields if f.count > 1]
        for j, i in enumerate(idx.tolist()):
            fields = {k: v[j] for k, v in cols.items()}
            for k in arrays:
                fields[k] = tuple(fields[k])
            code = fields["header.opcode"]
            out[i] = (_line(code, i * RECORD_BYTES, name, fields, gen, labels)
                      if code in OPCODES else ".raw 0x" + program.raw[i].tobytes().hex())
    return out


def _line(code: int, offset: int, struct_name: str, fields: Mapping[str, Any], gen: Gen,
          labels: Mapping[int, str]) -> str:
    pairs = [(k.rsplit(".", 1)[-1], v) for k, v in _tokens(struct_name, fields, gen)]
    keys = dict(pairs)
    out, tail = [mnemonic(code)], []
    dtypes = [keys[k] for k in DTYPE_KEYS if k in keys]
    if dtypes:  # in_dtype=FP32 out_dtype=BF16 -> FP32→BF16
        ins, res = dtypes[:-1], dtypes[-1]
        out.append(res if all(d == res for d in ins) else ",".join(dict.fromkeys(ins)) + "→" + res)
    if "dst_registers" in keys and "immediate" in keys:  # MOVE R1=0 R2=3
        count = int(keys.get("num_mov", "8"), 0)
        regs, imms = _items(keys["dst_registers"]), _items(keys["immediate"])
        out += [f"{r}={v}" for r, v in list(zip(regs, imms, strict=False))[:count]]
        keys.pop("immediate")
    for i, (key, value) in enumerate(pairs):
        if key in DROP or key in DTYPE_KEYS or key not in keys:
            continue
        if value.startswith(_PATTERN_SPACES):  # an access pattern
            after = dict(pairs[i + 1:i + 3])
            pattern = value.replace(", ", ",") + _shape(after.get("num"), after.get("step"))
            out.append(("→ " if key.startswith("dst") else "") + pattern)
        elif key == "br_immediate" and keys.get("target_mode") == "REL_IMM":
            target = offset + int(value, 0)
            out.append("→" + labels.get(target, f"{target:#x}"))
        elif key == "op" or key.endswith("_op") or key[:-1] == "op":
            out.append(value)
        elif key in ("num_active_channels", "nac"):  # the field is spelt both ways (isa-facts)
            if value != "128":  # all partitions is the usual case: only a partial count shows
                tail.append(f"nac={value}")
        else:
            if value.startswith("["):  # [7,0] -> 7: trailing zeros are unused slots
                items = _items(value)
                while len(items) > 1 and items[-1] == "0":
                    items.pop()
                value = items[0] if len(items) == 1 else "[" + ",".join(items) + "]"
            out.append(f"{RENAME.get(key, key)}={value}")
    return " ".join(out + tail)
