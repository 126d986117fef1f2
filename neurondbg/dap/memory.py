"""The debug adapter's memory requests: `readMemory` (SBUF / PSUM partitions, a queue's
instruction records) and `disassemble`, and the memory references both take.

A memory reference is a number (hex `0x...` or decimal), as `readMemory` answers it:
- a queue's instruction records: target.address(engine, PC) (the engine in bits 48 and up);
- an SBUF / PSUM byte: ((SPACE_TAG + space) << 48) | (partition << 32) | byte, space 0 for
  SBUF and 1 for PSUM; `sbuf[P]` / `psum[P]` name the partition's byte 0 (what the
  Variables pane offers).
Disassembly slots outside the program are `invalid` with their own address; one before
address 0 (no hex number is negative) is written as a negative decimal, which DAP reads
as a decimal address: every slot keeps a distinct, ordered address.
"""

from __future__ import annotations

from dataclasses import dataclass

import dap_types as dt

from neurondbg.dap.protocol import AdapterBase, RequestError, address_int
from neurondbg.dap.target import ADDRESS_SHIFT, Target, address, split_address
from neurondbg.machine.state import RECORD_BYTES

NO_INSTRUCTION = "??"  # a disassembly slot outside the program
MAX_READ = 1 << 20  # bytes one readMemory returns at most
SPACES = ("sbuf", "psum")
SPACE_TAG = 0x10  # SBUF's number in bits 48 and up: clear of every engine's
PART_SHIFT = 32  # partition bits: a partition's bytes fit below


@dataclass(frozen=True)
class Place:
    """Where a memory reference points: an SBUF / PSUM byte (`space` set) or a queue's
    record byte (`engine` set; `at` is the PC of the byte)."""

    space: str | None
    partition: int
    engine: str | None
    at: int

    def number(self) -> int:
        if self.space is not None:
            return ((SPACE_TAG + SPACES.index(self.space)) << ADDRESS_SHIFT) | \
                (self.partition << PART_SHIFT) | self.at
        assert self.engine is not None
        return address(self.engine, self.at)


def place(t: Target, ref: str, offset: int = 0) -> Place:
    """The Place `ref` + `offset` names; RequestError saying what was expected."""
    ref = ref.strip()
    for s in SPACES:
        if ref.startswith(f"{s}[") and ref.endswith("]"):
            return _memory_place(t, s, address_int(ref[5:-1]), offset, ref)
    value = address_int(ref) + offset
    tag = value >> ADDRESS_SHIFT
    if SPACE_TAG <= tag < SPACE_TAG + len(SPACES):
        low = value & ((1 << ADDRESS_SHIFT) - 1)
        return _memory_place(t, SPACES[tag - SPACE_TAG], low >> PART_SHIFT,
                             low & ((1 << PART_SHIFT) - 1), ref)
    engine, pc = split_address(value)
    if engine not in t.engines:
        raise RequestError(f"memoryReference {ref}: no {engine} queue here")
    return Place(None, 0, engine, pc)


def _memory_place(t: Target, space: str, part: int, byte: int, ref: str) -> Place:
    mem = t.state(t.engines[0]).memory(space)
    if not 0 <= part < mem.shape[0]:
        raise RequestError(f"{ref}: expected a partition 0..{mem.shape[0] - 1}")
    if byte < 0:
        raise RequestError(f"{ref}: byte {byte}: before the partition's start")
    return Place(space, part, None, byte)


def slot_address(engine: str, at: int) -> str:
    """A disassembly slot's address text (module docstring: negative slots in decimal)."""
    return f"{address(engine, at):#x}" if address(engine, at) >= 0 else str(address(engine, at))


class MemoryRequests(AdapterBase):
    """readMemory, disassemble."""

    def _on_readMemory(self, req: dict[str, object], args: dict[str, object]) -> None:
        import base64

        a = dt.ReadMemoryArguments.model_validate(args)
        t = self._idle()
        where = place(t, a.memoryReference, a.offset or 0)
        count = max(0, min(a.count, MAX_READ))
        if where.space is not None:
            row = t.state(t.engines[0]).memory(where.space)[where.partition]
            data = bytes(row[where.at:where.at + count])
        else:
            assert where.engine is not None
            m = t.machine(where.engine)
            raw = m.program.raw.tobytes()
            start = where.at - m.config.base
            data = raw[max(0, start):max(0, start + count)] if start >= 0 else b""
        self._respond(req, dt.ReadMemoryResponseBody(
            address=f"{where.number():#x}", data=base64.b64encode(data).decode(),
            unreadableBytes=count - len(data) or None))

    def _on_disassemble(self, req: dict[str, object], args: dict[str, object]) -> None:
        from neurondbg.machine.asm.disasm import format_instruction

        a = dt.DisassembleArguments.model_validate(args)
        t = self._idle()
        engine, pc = split_address(address_int(a.memoryReference) + (a.offset or 0))
        if engine not in t.engines:
            raise RequestError(f"memoryReference {a.memoryReference}: no {engine} queue here")
        m = t.machine(engine)
        first = (pc - m.config.base) // RECORD_BYTES + (a.instructionOffset or 0)
        out = []
        for i in range(first, first + max(0, min(a.instructionCount, 4096))):
            at = m.config.base + i * RECORD_BYTES
            ref = slot_address(engine, at)
            if not 0 <= i < m.count:
                out.append(dt.DisassembledInstruction(address=ref, instruction=NO_INSTRUCTION,
                                                      presentationHint="invalid"))
                continue
            inst = m.instruction(i)
            src, line, col = self._source(engine, at)
            out.append(dt.DisassembledInstruction(
                address=ref, instruction=format_instruction(inst, m.config.gen),
                instructionBytes=inst.raw.hex(" "), location=src,
                line=self._line_out(line) if src else None,
                column=self._col_out(col) if src else None))
        self._respond(req, dt.DisassembleResponseBody(instructions=out))
