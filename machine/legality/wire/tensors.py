"""The tensor validity predicates of isa-facts §2.3, as the reference's clause tree.

`tensorNd_valid(<operand>)` (`memNd_valid` where the operand is a MEM_PATTERN) is
the conjunction of `num_elem_valid` (every num >= 1, or shape-register mode), the
sub-predicate `tensor_start_addr_valid`, whose numbered rules are its children:
1 `addr_aligned_dtype`, 2 `addr_on_chip`, 3 `allow_psum` / `allow_sbuf`,
4 `psum_write_4byte_dtype`, and the MEM_PATTERN rule `indirect_mem_pattern` (§2.1),
and beside it `addr_register_encoding` (§2.2: the check §2.3 skips in register mode).
The child names the reference does not spell (num_elem_valid, addr_on_chip, ...)
are neurondbg's. Every leaf declares a `repair`: candidate edits that
machine.legality.wire.repair checks on the whole predicate.

Decision ("beyond PSUM"): isa-facts §2.2 gives the PSUM window as
PSUM_BUF_SZ = 0x400000 bytes from 0x2000000, §2.4 gives cayman/mariana 16 KiB
of PSUM per partition (and the MED aperture 0x2000000..0x2203FFF agrees with a
16 KiB stride). neurondbg keeps the 128 x 16 KiB geometry of machine.isa.addr;
an address inside the window but past that geometry is invalid and reported as
"beyond PSUM", not "off-chip". Likewise an SBUF offset past the active bytes of
a partition is "beyond the active SBUF bytes", not "not in SBUF or PSUM".
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import numpy as np

from neurondbg.machine.dtypes import Dtype, Gen, dtype_name
from neurondbg.machine.isa import addr as isa_addr
from neurondbg.machine.legality.messages import quoting
from neurondbg.machine.legality.provenance import Provenance
from neurondbg.machine.legality.wire import gates
from neurondbg.machine.legality.wire.clause import (
    Clause,
    Ctx,
    Message,
    Rows,
    Values,
    as_mask,
    composite,
    lookup,
)
from neurondbg.machine.legality.wire.operands import (
    OFF_CHIP,
    PSUM,
    PSUM_WINDOW,
    SBUF,
    SPACE_NAMES,
    AddrCols,
    Tensor,
    addr_cols,
    decode_words,
    element_count,
    value_count,
)

PARTITIONS = 128  # POOLING_NUM_CHANNELS = DVE_NUM_CHANNELS (isa-facts §2.3)
QUADRANT = 32  # isa-facts §2.2
P_TENSOR = Provenance("isa-facts", "§2.3")
P_GAP_SAAC = Provenance("DESIGN", "Gaps decided here (isa-facts §10)", "LOW")
P_NUM = Provenance("isa-facts", "§2.1, §2.3 tensorNd_valid")
P_RULE = {n: Provenance("isa-facts", f"§2.3 tensor_start_addr_valid rule {n}")
          for n in (1, 2, 3, 4)}
P_ENCODING = Provenance("isa-facts", "§2.2 ADDR4 register mode")
P_INDIRECT = Provenance("isa-facts", "§2.1 MEM_PATTERN")

# isa-facts §2.2, ADDR_REG4 { u8 regnum; u8 rsvd[2]; u8 marker }: a register-mode word
# names R[byte 0] (< 64); the bits between byte 0 and the marker's mode bits (8..28) are
# zero. Bit 30 (0xC0 ADDR_SHAPE_REG) and bit 29 (0xA0 INDIRECT_REG) are listed markers,
# not address bits; 0xE0 (all three) is not a listed marker.
REG_RESERVED_BITS = isa_addr.ADDRESS_MASK & ~0xFF
REG_MARKERS = (0x80, 0xC0, 0xA0)
MODE_BITS = 0xFFFFFFFF & ~isa_addr.ADDRESS_MASK


@functools.lru_cache(maxsize=1 << 10)
def _one(word: int, gen: Gen) -> AddrCols:
    """One word decoded. Memoised: an explanation's messages decode each operand's address
    several times (read only: the arrays are never written)."""
    return decode_words(np.array([word], dtype=np.uint32), gen)


def _with_address(word: int, address: int) -> int:
    return (word & MODE_BITS) | (address & isa_addr.ADDRESS_MASK)


def _indirect_allowed(t: Tensor, gen: Gen) -> bool:
    """INDIRECT operands only where the struct has a MEM_PATTERN operand (isa-facts §2.1)."""
    return t.mem_pattern_from is not None and gen >= t.mem_pattern_from


def where_text(word: int, gen: Gen) -> str:
    """Where an immediate address lies, in the words a user reads (SBUF/PSUM/beyond)."""
    a = _one(word, gen)
    g = isa_addr.geometry(gen)
    address = word & isa_addr.ADDRESS_MASK
    space = int(a.space[0])
    if space != OFF_CHIP:
        name = SPACE_NAMES[space]
        where = f"{name} partition {int(a.partition[0])} byte {int(a.offset[0])}"
        if not a.backed[0]:
            active = g.sbuf_bytes if space == SBUF else g.psum_bytes
            where += (f", beyond the {active} active {name} bytes per partition on "
                      f"{gen.label}")
        return where
    if g.psum_base <= address < g.psum_base + PSUM_WINDOW:
        if not g.psum_stride:
            return (f"the PSUM window (0x{g.psum_base:X}..0x{g.psum_base + PSUM_WINDOW - 1:X}), "
                    f"but {gen.label} has no PSUM (PSUM_BUF_SZ = 0, isa-facts §9)")
        end = g.psum_base + g.psum_span - 1
        return (f"beyond PSUM: inside the PSUM window (PSUM_BUF_SZ 0x{PSUM_WINDOW:X} from "
                f"0x{g.psum_base:X}, isa-facts §2.2) but past the {g.partitions} x "
                f"{g.psum_stride // 1024} KiB PSUM of {gen.label} (ends at 0x{end:X})")
    return (f"off-chip: neither SBUF (0..0x{g.sbuf_span - 1:X}) nor the PSUM window "
            f"(0x{g.psum_base:X}..0x{g.psum_base + PSUM_WINDOW - 1:X})")


# -- tensorNd_valid: num >= 1 --------------------------------------------------------------

def num_elem_valid(t: Tensor) -> Clause:
    """Every num_elem >= 1 (unused outer dims are num 1), unless the shape is in registers."""
    def check(r: Rows) -> np.ndarray:
        # counts are unsigned and 4 x 16 bits cannot overflow int64: every num >= 1
        # exactly when their product is nonzero (the product is shared, memoised)
        return as_mask((element_count(r, t) != 0) | addr_cols(r, t.addr_field).shape)

    def nums(v: Values) -> list[int]:
        num = v[t.num_field]
        return [int(num)] if isinstance(num, int) else [int(n) for n in num]

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        if int(v[t.addr_field]) & isa_addr.SHAPE_BIT:
            return f"{t.label} takes its shape from the shape registers (SHAPE_REG): " \
                "num_elem is not checked here"
        return f"{t.num_field} = {nums(v)}: every count must be >= 1 " \
            "(unused outer dims are num 1)"

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        num = v[t.num_field]
        if isinstance(num, int):
            return [{t.num_field: 1}]
        return [{t.num_field: tuple(n or 1 for n in num)}]

    return Clause("num_elem_valid", (t.num_field, t.addr_field), check, message, P_NUM,
                  fix=lambda v, ctx: f"set unused {t.num_field} entries to 1", repair=repair)


# -- tensor_start_addr_valid rules ----------------------------------------------------------

def _aligned(t: Tensor) -> Clause:
    def check(r: Rows) -> np.ndarray:
        a = addr_cols(r, t.addr_field)
        # element sizes are 1, 2, 4 or 8 bytes: aligned <=> the low bits are clear
        low = lookup(gates.align_mask_table(), t.dtype.column(r))
        return as_mask(~a.plain | ((a.word & low) == 0))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        word = int(v[t.addr_field])
        if not _one(word, ctx.gen).plain[0]:
            return f"{t.addr_field} 0x{word:08X} is not a plain immediate: not checked here"
        dtype = t.dtype.value(v)
        size = gates.element_size(dtype)
        return (f"{t.addr_field} 0x{word:08X} " + ("is" if ok else "is not")
                + f" aligned to the {size}-byte element of {t.dtype.label} {dtype_name(dtype)}")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        word = int(v[t.addr_field])
        size = gates.element_size(t.dtype.value(v))
        down = word & ~(size - 1)
        out: list[dict[str, Any]] = [{t.addr_field: down}]
        if (word & isa_addr.ADDRESS_MASK) + size <= isa_addr.ADDRESS_MASK:
            out.append({t.addr_field: down + size})
        a = _one(down, ctx.gen)
        if a.plain[0] and a.space[0] != OFF_CHIP and int(a.partition[0]):
            # the same aligned offset from partition 0: the active channels then fit
            g = isa_addr.geometry(ctx.gen)
            base = g.psum_base if a.space[0] == PSUM else 0
            out.append({t.addr_field: _with_address(down, base + int(a.offset[0]))})
        return out

    return Clause("addr_aligned_dtype", (t.addr_field, *t.dtype.fields), check, message,
                  P_RULE[1], fix=lambda v, ctx: f"align {t.addr_field} to "
                  f"{gates.element_size(t.dtype.value(v))} bytes", repair=repair)


def _on_chip(t: Tensor) -> Clause:
    def check(r: Rows) -> np.ndarray:
        a = addr_cols(r, t.addr_field)
        descriptor = a.indirect & ~a.register  # an INDIRECT descriptor's own address
        return as_mask((~a.plain | a.backed) & (~descriptor | (a.space != OFF_CHIP)))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        word = int(v[t.addr_field])
        a = _one(word, ctx.gen)
        if a.register[0] or (a.shape[0] and not a.indirect[0]):
            return f"{t.addr_field} 0x{word:08X} is register/shape mode: checked at run time"
        where = where_text(word, ctx.gen)
        return f"{t.addr_field} 0x{word:08X} = {where}" + (
            "" if ok else ": the address must be on-chip, in SBUF or PSUM")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        word = int(v[t.addr_field])
        g = isa_addr.geometry(ctx.gen)
        a = _one(word, ctx.gen)
        out = []
        if a.space[0] != OFF_CHIP:  # the start of the same partition
            base = g.psum_base + int(a.partition[0]) * g.psum_stride \
                if a.space[0] == PSUM else int(a.partition[0]) * g.sbuf_stride
            out.append({t.addr_field: _with_address(word, base)})
        elif g.psum_stride and (word & isa_addr.ADDRESS_MASK) >= g.psum_base:
            out.append({t.addr_field: _with_address(word, g.psum_base)})
        out.append({t.addr_field: _with_address(word, 0)})
        return out

    return Clause("addr_on_chip", (t.addr_field,), check, message, P_RULE[2],
                  fix=lambda v, ctx: f"point {t.addr_field} into SBUF or PSUM", repair=repair)


def _space_allowed(t: Tensor, space: int) -> Clause:
    """Rule 3: allow_psum || !is_psum (space PSUM), allow_sbuf || !is_sbuf (SBUF).

    Decision: the references pass allow_psum = allow_sbuf = true for every
    wire operand they document (ref 000 §3.3 GOTCHA: "Both tensor4d_valid calls pass
    AllowedInPSUM::True, AllowedInSBUF::True"; isa-facts §5.2 item 7 likewise), so the
    rule is declared and evaluated for every operand but only a `Tensor` declared with
    allow_psum/allow_sbuf False can fail it. GpSimd's PSUM limit is engine-physical:
    a run-time fault, and the NKI tensor_copy rule."""
    name = SPACE_NAMES[space]
    other = SBUF if space == PSUM else PSUM

    def allowed(ctx: Ctx) -> bool:
        return t.allow_sbuf if space == SBUF else t.allow_psum

    def check(r: Rows) -> np.ndarray:
        if allowed(r.ctx):
            return np.ones(len(r), dtype=bool)
        a = addr_cols(r, t.addr_field)
        return as_mask(~a.plain | (a.space != space))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        if allowed(ctx):
            return f"{name} is allowed for {t.label}"
        word = int(v[t.addr_field])
        here = int(_one(word, ctx.gen).space[0]) == space
        return (f"{t.label} may not be in {name}; {t.addr_field} 0x{word:08X} "
                + ("is" if here else "is not") + f" in {name}")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        word = int(v[t.addr_field])
        g = isa_addr.geometry(ctx.gen)
        a = _one(word, ctx.gen)
        p, off = int(a.partition[0]), int(a.offset[0])
        if other == SBUF:
            return [{t.addr_field: _with_address(word, p * g.sbuf_stride + off)},
                    {t.addr_field: _with_address(word, p * g.sbuf_stride)}]
        if not g.psum_stride:
            return []
        return [{t.addr_field: _with_address(word, g.psum_base + p * g.psum_stride + off)},
                {t.addr_field: _with_address(word, g.psum_base + p * g.psum_stride)}]

    return Clause(f"allow_{name.lower()}", (t.addr_field,), check, message, P_RULE[3],
                  fix=lambda v, ctx: f"move {t.label} into {SPACE_NAMES[other]}",
                  repair=repair)


def _psum_write(t: Tensor) -> Clause:
    four = gates.set_gate(gates.FOUR_BYTE)

    def check(r: Rows) -> np.ndarray:
        if not t.write:
            return np.ones(len(r), dtype=bool)
        a = addr_cols(r, t.addr_field)
        return as_mask(~a.plain | (a.space != PSUM) | lookup(four, t.dtype.column(r)))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        if not t.write:
            return f"{t.label} is read, not written: rule 4 does not apply"
        word = int(v[t.addr_field])
        if int(_one(word, ctx.gen).space[0]) != PSUM or not _one(word, ctx.gen).plain[0]:
            return f"{t.label} is not written to PSUM: any dtype"
        dtype = t.dtype.value(v)
        return (f"{t.label} is written to PSUM, which needs a 4-byte dtype: {t.dtype.label} "
                f"is {gates.dtype_label(dtype)}")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        dtype = t.dtype.value(v)
        out = []
        prefer = ((Dtype.INT32, Dtype.UINT32, Dtype.FP32) if dtype in gates.INT_DATAPATH
                  and dtype in (Dtype.INT8, Dtype.INT16) else
                  (Dtype.UINT32, Dtype.INT32, Dtype.FP32) if dtype in gates.INT_DATAPATH
                  else (Dtype.FP32, Dtype.INT32, Dtype.UINT32))
        for code in prefer:
            edit = t.dtype.edit(v, int(code))
            if edit is not None:
                out.append(edit)
        g = isa_addr.geometry(ctx.gen)
        a = _one(int(v[t.addr_field]), ctx.gen)
        if t.allow_sbuf and a.space[0] == PSUM:
            out.append({t.addr_field: _with_address(int(v[t.addr_field]),
                                                    int(a.partition[0]) * g.sbuf_stride)})
        return out

    return Clause("psum_write_4byte_dtype", (t.addr_field, *t.dtype.fields), check, message,
                  P_RULE[4], fix=lambda v, ctx: f"use a 4-byte {t.dtype.label} (INT32, UINT32, "
                  f"FP32) or write {t.label} to SBUF", repair=repair)


def _register_word_ok(word: np.ndarray) -> np.ndarray:
    marker = (word >> np.uint32(24)) & np.uint32(isa_addr.MARKER_MASK)
    listed = (marker == 0x80) | (marker == 0xC0) | (marker == 0xA0)
    return as_mask(((word & 0xFF) < 64) & ((word & np.uint32(REG_RESERVED_BITS)) == 0) & listed)


def _register_problems(word: int) -> list[str]:
    """Why a register-mode ADDR4 word fails its encoding checks (empty when it passes)."""
    problems = []
    marker = (word >> 24) & isa_addr.MARKER_MASK
    if marker not in REG_MARKERS:
        problems.append(f"marker 0x{marker:02X} is not an ADDR4 register marker "
                        "(0x80 ADDR_REG, 0xC0 ADDR_SHAPE_REG, 0xA0 INDIRECT_REG)")
    if (word & 0xFF) >= 64:
        problems.append(f"register {word & 0xFF} is not a GP register R0..R63")
    if word & REG_RESERVED_BITS:
        problems.append("bits 8..28 are not zero")
    return problems


def _register_encoding(t: Tensor) -> Clause:
    def check(r: Rows) -> np.ndarray:
        a = addr_cols(r, t.addr_field)
        return as_mask(~a.register | _register_word_ok(a.word))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        word = int(v[t.addr_field])
        if not word & isa_addr.REGISTER_BIT:
            return f"{t.addr_field} 0x{word:08X} is not register mode"
        problems = _register_problems(word)
        return (f"{t.addr_field} 0x{word:08X}: register mode (R{word & 0xFF}); the runtime "
                "address is not checked here, only the encoding: "
                + ("; ".join(problems) if problems else "the encoding is valid"))

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        word = int(v[t.addr_field])
        marker = (word >> 24) & isa_addr.MARKER_MASK
        marker = marker if marker in REG_MARKERS else 0x80
        return [{t.addr_field: (marker << 24) | ((word & 0xFF) % 64)}]

    def fix(v: Values, ctx: Ctx) -> str:
        word, field = int(v[t.addr_field]), t.addr_field
        if ((word >> 24) & isa_addr.MARKER_MASK) not in REG_MARKERS:
            return f"use marker 0x80 (ADDR_REG) in the top byte of {field}"
        if (word & 0xFF) >= 64:
            return f"name a GP register R0..R63 in byte 0 of {field}"
        return f"clear bits 8..28 of {field} (register mode holds R# and the marker)"

    return Clause("addr_register_encoding", (t.addr_field,), check, message, P_ENCODING,
                  fix=fix, repair=repair)


def _indirect(t: Tensor) -> Clause:
    def check(r: Rows) -> np.ndarray:
        a = addr_cols(r, t.addr_field)
        return ~a.indirect | _indirect_allowed(t, r.ctx.gen)

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        word = int(v[t.addr_field])
        if not word & isa_addr.INDIRECT_BIT:
            return f"{t.addr_field} 0x{word:08X} is not INDIRECT"
        return (f"{t.addr_field} 0x{word:08X} is INDIRECT; {t.label} "
                + ("is" if ok else "is not") + f" a MEM_PATTERN operand on {ctx.gen.label}")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        return [{t.addr_field: int(v[t.addr_field]) & ~isa_addr.INDIRECT_BIT}]

    return Clause("indirect_mem_pattern", (t.addr_field,), check, message, P_INDIRECT,
                  fix=lambda v, ctx: f"use ADDR_REG (0x80) or an immediate address for "
                  f"{t.addr_field} (no INDIRECT on {ctx.gen.label})",
                  repair=repair)


def _start_addr_message(t: Tensor) -> Message:
    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        word = int(v[t.addr_field])
        a = _one(word, ctx.gen)
        head = f"{t.addr_field} 0x{word:08X}"
        if a.register[0]:
            mode = "INDIRECT_REG" if a.indirect[0] else "register mode"
            text = (f"{head}: {mode} (R{word & 0xFF}), the check is skipped (isa-facts §2.3): "
                    "the runtime address is not checked here")
            if a.indirect[0] and not _indirect_allowed(t, ctx.gen):
                text += (f"; INDIRECT, but {t.label} is not a MEM_PATTERN operand on "
                         f"{ctx.gen.label} (isa-facts §2.1)")
            return text
        if a.shape[0] and not a.indirect[0]:
            return f"{head}: shape-register mode, the check is skipped (isa-facts §2.3)"
        where = where_text(word, ctx.gen)
        if a.indirect[0]:
            allowed = _indirect_allowed(t, ctx.gen)
            return (f"{head}: INDIRECT ({where}); {t.label} " + ("is" if allowed else "is not")
                    + f" a MEM_PATTERN operand on {ctx.gen.label} (isa-facts §2.1)")
        return f"{head} = {where}: " + ("aligned, on-chip and allowed" if ok else
                                        "see the failing rules")
    return message


def tensor_start_addr_valid(t: Tensor, prov: Provenance = P_TENSOR) -> Clause:
    """tensor_start_addr_valid(addr, dtype, allow_psum, allow_sbuf, is_write): rules 1-4
    of isa-facts §2.3 and the MEM_PATTERN rule for INDIRECT operands (§2.1), as children.
    The register-mode encoding is not among them: §2.3 skips this check in register mode
    (`addr_register_encoding` is its own clause, beside it)."""
    return composite("tensor_start_addr_valid", (
        _aligned(t), _on_chip(t), _space_allowed(t, PSUM), _space_allowed(t, SBUF),
        _psum_write(t), _indirect(t),
    ), prov, message=_start_addr_message(t))


def tensor_valid(t: Tensor, prov: Provenance = P_TENSOR, gens: frozenset[Gen] | None = None,
                 name: str | None = None) -> Clause:
    """tensorNd_valid(<operand>) = num_elem_valid && tensor_start_addr_valid, and the
    ADDR4 register encoding (isa-facts §2.2) beside the start-address check."""
    # isa-facts §2.3 states the rule once for every rank, as tensorNd_valid
    cl = composite(name or f"tensor{t.ndim}d_valid({t.label})",
                   (num_elem_valid(t), tensor_start_addr_valid(t, prov),
                    _register_encoding(t)), prov)
    if gens is not None:
        cl = replace(cl, gens=gens)
    return quoting(cl, aliases=("tensorNd_valid",))


def operand_valid(t: Tensor, prov: Provenance = P_TENSOR) -> tuple[Clause, ...]:
    """The validity clause of an operand: tensorNd_valid(<operand>), and for an operand
    that is a MEM_PATTERN from some generation on, memNd_valid(<operand>) on those
    generations, as isa-facts §2.3 names the MEM_PATTERN version (`mem3d_valid`). The two
    check the same rules (the indirect arm is `indirect_mem_pattern`)."""
    since = t.mem_pattern_from
    if since is None:
        return (tensor_valid(t, prov),)
    before = frozenset(g for g in Gen if g < since)
    return (tensor_valid(t, prov, gens=before),
            tensor_valid(t, prov, gens=frozenset(Gen) - before,
                         name=f"mem{t.ndim}d_valid({t.label})"))


# -- the other operand predicates -----------------------------------------------------------

def start_addr_active_channels(t: Tensor, nac_field: str,
                               prov: Provenance = P_GAP_SAAC) -> Clause:
    """start partition + nac <= 128 (DESIGN decision for the unrecovered body)."""
    def check(r: Rows) -> np.ndarray:
        a = addr_cols(r, t.addr_field)
        # off-chip, register, shape and indirect addresses have no start partition here
        # (tensor_start_addr_valid judges them, or the run time does)
        fits = a.partition + r[nac_field] <= PARTITIONS
        # ~plain: register, shape or indirect
        return as_mask(fits | (a.space == OFF_CHIP) | ~a.plain)

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        word = int(v[t.addr_field])
        a = _one(word, ctx.gen)
        nac = int(v[nac_field])
        if not a.immediate[0] or a.space[0] == OFF_CHIP or a.indirect[0]:
            return f"{t.addr_field} 0x{word:08X} is not an on-chip immediate address: " \
                "nothing to check here"
        p = int(a.partition[0])
        return (f"start partition {p} + {nac_field} {nac} = {p + nac} "
                + ("<=" if ok else ">") + f" {PARTITIONS}: the active channels must stay "
                "within the partition array")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        word = int(v[t.addr_field])
        a = _one(word, ctx.gen)
        p, off = int(a.partition[0]), int(a.offset[0])
        g = isa_addr.geometry(ctx.gen)
        base = g.psum_base if a.space[0] == PSUM else 0
        stride = g.psum_stride if a.space[0] == PSUM else g.sbuf_stride
        nac = int(v[nac_field])
        out: list[dict[str, Any]] = [{nac_field: max(1, PARTITIONS - p)}]
        if nac <= PARTITIONS:
            out.append({t.addr_field: _with_address(word, base + (PARTITIONS - nac) * stride
                                                    + off)})
            out.append({t.addr_field: _with_address(word, base + off)})
        return out

    return Clause(f"start_addr_active_channels({t.label})", (t.addr_field, nac_field),
                  check, message, prov,
                  fix=lambda v, ctx: f"lower {nac_field} or start at a lower partition",
                  repair=repair)


def same_count(name: str, a: Tensor, b: Tensor, prov: Provenance,
               c: Tensor | None = None) -> Clause:
    """Equal element counts, evaluated on its own: a zero count is compared like any other
    (the reference's conjunction evaluates this clause; tensorNd_valid reports the zero).
    Skipped only when a shape comes from the shape registers (known at run time)."""
    ops = [x for x in (a, b, c) if x is not None]

    def check(r: Rows) -> np.ndarray:
        counts = [element_count(r, x) for x in ops]
        ok = np.ones(len(r), dtype=bool)
        for cnt in counts[1:]:
            ok &= cnt == counts[0]
        for x in ops:
            ok |= addr_cols(r, x.addr_field).shape
        return ok

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        if any(int(v[x.addr_field]) & isa_addr.SHAPE_BIT for x in ops):
            return "a shape comes from the shape registers: counts are checked at run time"
        shown = ", ".join(f"{x.label} {value_count(v, x)}" for x in ops)
        return f"element counts {shown}: " + ("equal" if ok else "must be equal")

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        return _one_dim(v) + _whole_shape(v)

    def _one_dim(v: Values) -> list[dict[str, Any]]:
        """Change one dimension of one operand's count so its element count is the
        others' (the dimension that is wrong), the other dimensions kept."""
        out: list[dict[str, Any]] = []
        for x in reversed(ops):  # the destination conforms to its sources first
            want = {value_count(v, y) for y in ops if y is not x}
            num = v[x.num_field]
            if len(want) != 1 or isinstance(num, int):
                continue
            n = want.pop()
            for k in range(x.ndim):
                rest = int(np.prod([int(d) for j, d in enumerate(num) if j != k]))
                if rest and n % rest == 0 and 1 <= n // rest < 1 << 16 \
                        and n // rest != int(num[k]):
                    out.append({x.num_field: tuple(n // rest if j == k else int(d)
                                                   for j, d in enumerate(num))})
        return out

    def _whole_shape(v: Values) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for src in ops:  # copy one operand's shape onto the others (same rank), or flatten
            edit: dict[str, Any] = {}
            n = value_count(v, src)
            for x in ops:
                if x is src:
                    continue
                if x.ndim == src.ndim:
                    edit[x.num_field] = v[src.num_field]
                elif n < 1 << 16:
                    edit[x.num_field] = n if x.ndim == 1 else (n,) + (1,) * (x.ndim - 1)
            if edit:
                out.append(edit)
        return out

    fields = tuple(f for x in ops for f in (x.num_field, x.addr_field))
    return Clause(name, fields, check, message, prov,
                  fix=lambda v, ctx: "give the operands the same shape", repair=repair)


def tt_valid_partitions(a: Tensor, b: Tensor, prov: Provenance = P_TENSOR) -> Clause:
    """At most one of two sources in PSUM; both in SBUF -> same quadrant."""
    def check(r: Rows) -> np.ndarray:
        x, y = addr_cols(r, a.addr_field), addr_cols(r, b.addr_field)
        known = x.plain & y.plain  # immediate, not indirect
        both_psum = (x.space == PSUM) & (y.space == PSUM)
        both_sbuf = (x.space == SBUF) & (y.space == SBUF)
        quad = (x.partition // QUADRANT) == (y.partition // QUADRANT)
        return as_mask(~known | (~both_psum & (~both_sbuf | quad)))

    def message(v: Values, ctx: Ctx, ok: bool) -> str:
        words = np.array([int(v[a.addr_field]), int(v[b.addr_field])], dtype=np.uint32)
        d = decode_words(words, ctx.gen)
        if not (d.immediate.all() and not d.indirect.any()):
            return "an operand address is register/shape/indirect: checked at run time"
        sp = [SPACE_NAMES[int(s)] for s in d.space]
        parts = [int(p) for p in d.partition]
        desc = (f"{a.label} in {sp[0]} partition {parts[0]}, "
                f"{b.label} in {sp[1]} partition {parts[1]}")
        return desc + ": at most one source may be in PSUM, and two SBUF sources must " \
            "start in the same 32-partition quadrant"

    def repair(v: Values, ctx: Ctx) -> list[dict[str, Any]]:
        g = isa_addr.geometry(ctx.gen)
        words = [int(v[a.addr_field]), int(v[b.addr_field])]
        d = decode_words(np.array(words, dtype=np.uint32), ctx.gen)
        out: list[dict[str, Any]] = []
        for k, x in ((1, b), (0, a)):  # move one source next to the other, in SBUF
            other = 1 - k
            p = int(d.partition[other]) if d.space[other] == SBUF else int(d.partition[k])
            off = max(int(d.offset[k]), 0) % g.sbuf_bytes
            out.append({x.addr_field: _with_address(words[k], max(p, 0) * g.sbuf_stride + off)})
        return out

    return Clause(f"tt_valid_partitions({a.label}, {b.label})", (a.addr_field, b.addr_field),
                  check, message, prov,
                  fix=lambda v, ctx: f"keep at most one of {a.label}, {b.label} in PSUM and "
                  "two SBUF sources in one quadrant", repair=repair)


def tensor_clauses(t: Tensor, nac_field: str | None) -> list[Clause]:
    """tensorNd_valid / memNd_valid (+ start_addr_active_channels)."""
    out = list(operand_valid(t))
    if nac_field is not None:
        out.append(start_addr_active_channels(t, nac_field))
    return out
