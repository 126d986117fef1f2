"""The debug adapter's memory requests: `readMemory` (SBUF / PSUM partitions, a queue's
instruction records) and `disassemble`.
"""

from __future__ import annotations

from typing import Any

import dap_types as dt

from machine.state import RECORD_BYTES
from neurondbg.dap.protocol import AdapterBase, RequestError, address_int
from neurondbg.dap.target import address, split_address

NO_INSTRUCTION = "??"  # a disassembly slot outside the program
MAX_READ = 1 << 20  # bytes one readMemory returns at most


class MemoryRequests(AdapterBase):
    """readMemory, disassemble."""

    def _on_readMemory(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        import base64

        a = dt.ReadMemoryArguments.model_validate(args)
        t = self._idle()
        ref = a.memoryReference.strip()
        count = max(0, min(a.count, MAX_READ))
        if ref.startswith(("sbuf[", "psum[")) and ref.endswith("]"):
            space, part = ref[:4], address_int(ref[5:-1])
            mem = t.state(t.engines[0]).memory(space)
            if not 0 <= part < mem.shape[0]:
                raise RequestError(f"{ref}: expected a partition 0..{mem.shape[0] - 1}")
            row, start = mem[part], a.offset or 0
            data = bytes(row[max(0, start):max(0, start + count)])
            base = f"{ref}+{start:#x}"
        else:
            engine, pc = split_address(address_int(ref) + (a.offset or 0))
            if engine not in t.engines:
                raise RequestError(f"memoryReference {ref}: no {engine} queue here")
            m = t.machine(engine)
            raw = m.program.raw.tobytes()
            start = pc - m.config.base
            data = raw[max(0, start):max(0, start + count)] if start >= 0 else b""
            base = f"{address(engine, pc):#x}"
        self._respond(req, dt.ReadMemoryResponseBody(
            address=base, data=base64.b64encode(data).decode(),
            unreadableBytes=count - len(data) or None))

    def _on_disassemble(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        from machine.asm.disasm import format_instruction

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
            ref = f"{address(engine, at):#x}" if at >= 0 else "0x0"
            if not 0 <= i < m.count:
                out.append(dt.DisassembledInstruction(address=ref, instruction=NO_INSTRUCTION,
                                                      presentationHint="invalid"))
                continue
            inst = m.instruction(i)
            src, line, col = self._source(engine, at)
            out.append(dt.DisassembledInstruction(
                address=ref, instruction=format_instruction(inst, m.config.gen),
                instructionBytes=inst.raw.hex(" "), location=src, line=line or None,
                column=col or None))
        self._respond(req, dt.DisassembleResponseBody(instructions=out))
