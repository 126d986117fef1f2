"""Records -> assembly text that re-assembles to identical bytes.

Each line is the mnemonic followed by every field that differs from what the
assembler fills in by default (0, and inst_word_len 16), in struct order, using
the shorthands the assembler reads (`src=sb[p, off] step=[..] num=[..]`,
register and enum names, dtype-pair nibbles). Unknown opcodes become `.raw`.

Bulk formatting is vectorized per struct group: every field becomes a column
of ready-made tokens (a lookup table for byte fields, one format call per
distinct value otherwise; an array field formats each distinct element value
once and joins them per distinct row), then each line is one `str.join`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import numpy as np

from neurondbg.machine.asm.data import DataInit
from neurondbg.machine.asm.semaphores import EVENTS as SEM_EVENTS
from neurondbg.machine.asm.semaphores import events_text
from neurondbg.machine.dtypes import DEFAULT_GEN, Dtype, Gen
from neurondbg.machine.isa.codec import STRUCT_ORDER, Instruction, Program, decode_bytes
from neurondbg.machine.isa.opcodes import OPCODES, mnemonic
from neurondbg.machine.isa.spec import Field, Struct
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.isa.text import (
    INST_WORD_LEN,
    OPERAND_ALIASES,
    PAIR_KEYS,
    ascii_text,
    field_key,
    format_addr4,
    format_element,
    format_value,
)

__all__ = ["EVENT_FIELDS", "data_lines", "disassemble", "disassemble_lines", "events_tokens",
           "format_addr4", "format_element", "format_instruction", "format_value", "to_json"]

Column = Callable[[np.ndarray], np.ndarray]  # structured records -> object array of tokens


def _table_column(name: str, table: np.ndarray) -> Column:
    def col(recs: np.ndarray) -> np.ndarray:
        tokens: np.ndarray = table[recs[name]]
        return tokens
    return col


def _unique_column(name: str, fmt: Callable[[int], str]) -> Column:
    """A scalar field: each distinct value formatted once."""
    def col(recs: np.ndarray) -> np.ndarray:
        uniq, inv = np.unique(recs[name], return_inverse=True)
        toks = np.array([fmt(int(u)) for u in uniq.tolist()], dtype=object)
        return toks[inv.reshape(-1)]
    return col


def _array_column(name: str, key: str, f: Field) -> Column:
    """An array field as ` key=[a,b,...]` (format_value's spelling), "" where all zero.

    Vectorised: the distinct rows are found by numpy, each distinct element value is
    formatted once (format_element), and a row is one `str.join` of ready tokens;
    only ASCII fields (a name when the bytes spell one) are formatted row by row.
    """
    def col(recs: np.ndarray) -> np.ndarray:
        v = recs[name]
        n = len(v)
        flat = v.reshape(n, -1)
        out = np.full(n, "", dtype=object)
        nz = flat.any(axis=1)
        if not nz.any():
            return out
        rows, inv = _unique_rows(np.ascontiguousarray(flat[nz]))
        out[nz] = _row_tokens(rows, key, f)[inv]
        return out
    return col


def _unique_rows(sub: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, index of each row of `sub` among them), by the rows' bytes."""
    width = sub.dtype.itemsize * sub.shape[1]
    keys = sub.view(np.uint8).reshape(len(sub), width)
    if width <= 8:  # one uint64 per row sorts fastest
        packed = np.zeros((len(sub), 8), np.uint8)
        packed[:, :width] = keys
        _, first, inv = np.unique(packed.view(np.uint64).ravel(), return_index=True,
                                  return_inverse=True)
    else:
        _, first, inv = np.unique(keys.view(f"V{width}").ravel(), return_index=True,
                                  return_inverse=True)
    return sub[first], inv.reshape(-1)


def _row_tokens(rows: np.ndarray, key: str, f: Field) -> np.ndarray:
    """` key=[...]` per row of `rows` (no row all zero), as an object array."""
    values, inv = np.unique(rows, return_inverse=True)
    elems = np.array([format_element(f, v) for v in values.tolist()], dtype=object)
    table = elems[inv.reshape(rows.shape)].tolist()
    head = f" {key}=["
    toks = [head + ",".join(t) + "]" for t in table]
    if f.role == "ascii":
        for i, row in enumerate(rows.tolist()):
            text = ascii_text(tuple(row))
            if text is not None:
                toks[i] = f" {key}={text}"
    return np.array(toks, dtype=object)


def _scalar_token(key: str, f: Field, default: int) -> Callable[[int], str]:
    def fmt(v: int) -> str:
        return "" if v == default else f" {key}={format_element(f, v)}"
    return fmt


def _operand_column(op_key: str, prefix: str, gen: Gen) -> Column:
    """The operand token, present when its address, steps or counts are nonzero."""
    addr, step, num = (f"{prefix}.start_addr", f"{prefix}.step_elem", f"{prefix}.num_elem")

    def col(recs: np.ndarray) -> np.ndarray:
        words = recs[addr]
        uniq, inv = np.unique(words, return_inverse=True)
        toks = np.array([f" {op_key}={format_addr4(int(w), gen)}" for w in uniq], dtype=object)
        out = toks[inv.reshape(-1)]
        n = len(words)
        used = ((words != 0) | recs[step].reshape(n, -1).any(axis=1)
                | recs[num].reshape(n, -1).any(axis=1))
        out[~used] = ""
        return out
    return col


def _pair_columns(struct: Struct, f: Field) -> list[Column]:
    lo_key, hi_key = PAIR_KEYS[f.name]
    lo = np.array([f" {lo_key}={Dtype(b & 0xF).name}" if b & 0xF else "" for b in range(256)],
                  dtype=object)
    hi = np.array([f" {hi_key}={Dtype(b >> 4).name}" if b >> 4 else "" for b in range(256)],
                  dtype=object)
    return [_table_column(f.name, lo), _table_column(f.name, hi)]


@cache
def _plan(struct_name: str, gen: Gen) -> tuple[Column, ...]:
    """Token columns of one struct, in field order."""
    struct = STRUCTS[struct_name]
    cols: list[Column] = []
    for f in struct.fields:
        if f.role == "opcode":
            continue
        if f.name.startswith(EVENTS_PREFIX):
            if f.name == f"{EVENTS_PREFIX}wait_mode":  # the five fields make one column
                cols.append(_events_column(struct))
            continue
        if f.role == "dtype_pair":
            cols.extend(_pair_columns(struct, f))
            continue
        if f.role == "addr4":
            prefix = f.name[: -len(".start_addr")]
            cols.append(_operand_column(OPERAND_ALIASES.get(prefix, prefix), prefix, gen))
            continue
        if f.role in ("step", "count") and f.count > 1 and f.name.endswith(
                (".step_elem", ".num_elem")):
            key = "step" if f.name.endswith(".step_elem") else "num"
            cols.append(_array_column(f.name, key, f))
            continue
        key = field_key(struct, f)
        default = INST_WORD_LEN if f.name == "header.inst_word_len" else 0
        if f.count > 1:
            cols.append(_array_column(f.name, key, f))
        elif f.itemsize == 1:
            fmt = _scalar_token(key, f, default)
            lo, _ = f.bounds
            table = np.array([fmt(v) for v in range(256)], dtype=object)
            if lo < 0:  # i1: index by the unsigned byte
                table = np.array([fmt(v - 256 if v > 127 else v) for v in range(256)],
                                 dtype=object)
                cols.append(_signed_byte_column(f.name, table))
                continue
            cols.append(_table_column(f.name, table))
        else:
            cols.append(_unique_column(f.name, _scalar_token(key, f, default)))
    return tuple(cols)


EVENTS_PREFIX = f"{SEM_EVENTS}."
_EVENT_FIELDS = ("wait_mode", "wait_idx", "update_mode", "update_idx", "semaphore_value")
EVENT_FIELDS = tuple(EVENTS_PREFIX + n for n in _EVENT_FIELDS)  # what events_tokens writes


def _events_column(struct: Struct) -> Column:
    """The header events as `wait=` / `signal=` shorthands where they round-trip, else
    their fields (machine.asm.semaphores); formatted once per distinct events value."""
    names = [EVENTS_PREFIX + n for n in _EVENT_FIELDS]
    raw_tokens = {n: _scalar_token(field_key(struct, struct.field(n)), struct.field(n), 0)
                  for n in names}

    def raw(name: str, value: int) -> str:
        return raw_tokens[name](value)

    def col(recs: np.ndarray) -> np.ndarray:
        wm, wi, um, ui = (recs[n].astype(np.uint64) for n in names[:4])
        key = wm | (wi << 8) | (um << 16) | (ui << 24) | (recs[names[4]].astype(np.uint64) << 32)
        uniq, inv = np.unique(key, return_inverse=True)
        toks = np.array([events_text(k & 0xFF, (k >> 8) & 0xFF, (k >> 16) & 0xFF,
                                     (k >> 24) & 0xFF, k >> 32, raw)
                         for k in uniq.tolist()], dtype=object)
        tokens: np.ndarray = toks[inv.reshape(-1)]
        return tokens
    return col


def _signed_byte_column(name: str, table: np.ndarray) -> Column:
    def col(recs: np.ndarray) -> np.ndarray:
        return table[recs[name].view(np.uint8)]
    return col


_MNEMONICS = np.array([mnemonic(c) for c in range(256)], dtype=object)
_KNOWN = np.zeros(256, dtype=bool)  # opcode byte -> has a mnemonic (else the record is .raw)
_KNOWN[list(OPCODES)] = True


def _raw_lines(raw: np.ndarray) -> list[str]:
    text = raw.tobytes().hex()
    n = 2 * raw.shape[1]
    return [".raw 0x" + text[i:i + n] for i in range(0, len(text), n)]


# ------------------------------------------------------------ public API

def disassemble_lines(program: Program, gen: Gen = DEFAULT_GEN) -> list[str]:
    """One assembly line per record, in program order."""
    n = len(program)
    out = np.empty(n, dtype=object)
    for name in STRUCT_ORDER:
        idx, recs = program.records_for(name)
        if not len(idx):
            continue
        is_known = _KNOWN[program.opcodes[idx]]
        cols = [_MNEMONICS[recs["header.opcode"]]]
        for make in _plan(name, gen):
            tok = make(recs)
            if tok.any():  # skip columns with no token at all
                cols.append(tok)
        lines = ["".join(t) for t in zip(*(c.tolist() for c in cols), strict=True)]
        arr = np.array(lines, dtype=object)
        if not is_known.all():
            unknown = ~is_known
            arr[unknown] = _raw_lines(program.raw[idx[unknown]])
        out[idx] = arr
    return out.tolist()


def events_tokens(program: Program) -> list[str]:
    """Per record, its header events (EVENT_FIELDS) as `disassemble_lines` writes them:
    the `wait=` / `signal=` shorthand where it round-trips, else the fields; "" where
    they are all zero or the record is written as `.raw`. For the Program listing, which
    shows the events as the disassembler does."""
    out = np.full(len(program), "", dtype=object)
    for name in STRUCT_ORDER:
        idx, recs = program.records_for(name)
        if not len(idx):
            continue
        toks = _events_column(STRUCTS[name])(recs)
        toks[~_KNOWN[program.opcodes[idx]]] = ""
        out[idx] = toks
    return [t.strip() for t in out.tolist()]


def data_lines(inits: Iterable[DataInit]) -> list[str]:
    """`.bytes` directives that reproduce data initialisations exactly."""
    lines = []
    for d in inits:
        sp = "sb" if d.space == "sbuf" else "psum"
        p0, p1 = d.partitions
        if d.data.shape[1] == 0:
            continue
        if (d.data == d.data[:1]).all():
            lines.append(f".bytes {sp}[p{p0}:p{p1}, 0x{d.offset:x}] 0x{d.data[0].tobytes().hex()}")
        else:
            lines.extend(f".bytes {sp}[p{p0 + i}, 0x{d.offset:x}] 0x{row.tobytes().hex()}"
                         for i, row in enumerate(d.data))
    return lines


def disassemble(program: Program, gen: Gen = DEFAULT_GEN,
                data: Iterable[DataInit] = ()) -> str:
    """The whole program as assembly text (ends with a newline when non-empty)."""
    head = [] if gen == DEFAULT_GEN else [f".gen {gen.label}"]
    lines = head + data_lines(data) + disassemble_lines(program, gen)
    return "\n".join(lines) + ("\n" if lines else "")


def format_instruction(inst: Instruction, gen: Gen = DEFAULT_GEN) -> str:
    """One instruction as an assembly line."""
    return disassemble_lines(decode_bytes(inst.raw), gen)[0]


def to_json(program: Program, base: int = 0) -> list[dict[str, Any]]:
    """The `disasm --json` shape (DESIGN.md): every field by its reference name. `base`
    is the index of the program's first record in a longer one (a block of a streamed
    file): each row's index and offset count from there."""
    out = []
    for name in STRUCT_ORDER:
        idx, recs = program.records_for(name)
        if not len(idx):
            continue
        struct = STRUCTS[name]
        cols = {f.name: recs[f.name].tolist() for f in struct.fields}
        for j, i in enumerate((idx + base).tolist()):
            out.append((i, {"index": i, "offset": 64 * i, "opcode": cols["header.opcode"][j],
                            "mnemonic": mnemonic(cols["header.opcode"][j]), "struct": name,
                            "fields": {k: v[j] for k, v in cols.items()}}))
    out.sort(key=lambda t: t[0])
    return [d for _, d in out]
