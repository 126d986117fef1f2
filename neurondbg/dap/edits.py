"""The debug adapter's requests that change the machine: `setVariable`, `setExpression`,
`writeMemory`. Each goes through the core's journaled `set` (Core.edit / edit_record,
on any engine of a kernel, recorded at the global step it was made), so `stepBack`
undoes it as it undoes a step; a `writeMemory` of several bytes is several edits that
one `stepBack` undoes together (an edit group).

Decisions where the protocol is silent:
- `setVariable` names a row of the Registers (R0..R63, PC), Semaphores or Accumulators
  scope, or a memory cell of a range a watch or the debug console expanded (cells.py);
  the value is an expression of the expression language (`R2 + 1`, `1.5`,
  `0x3f80`), stored as the console's `set` stores it. The Instruction scope and `status`
  are read-only (change the record with `writeMemory` at the PC's address).
- `setExpression` takes any `set` target (`R5:fp32`, `sb[3, 0x40]:bf16`, `sem[2]`).
- `writeMemory` writes SBUF / PSUM bytes (one `uint8` edit per changed byte) or whole
  instruction records (one `edit_record` per record touched); `allowPartial` writes what
  fits before the end of a partition or the program, else such a write is refused.
"""

from __future__ import annotations

import dap_types as dt

from neurondbg.dap.memory import place
from neurondbg.dap.protocol import RequestError
from neurondbg.dap.variables import _REF, SCOPES, VariableRequests
from neurondbg.machine.state import RECORD_BYTES

MAX_WRITE = 1 << 16  # bytes one writeMemory changes at most (each is a journaled edit)
READ_ONLY = ("Instruction",)


class EditRequests(VariableRequests):
    """setVariable, setExpression, writeMemory, and the undo of an edit group."""

    def _edited(self, engine: str, edits: int, memory: tuple[str, int, int] | None = None
                ) -> None:
        """Bookkeeping after `edits` journaled edits: an edit group to undo as one, and
        the events that tell the editor its views are stale."""
        t = self._target()
        if edits > 1:
            self._edit_groups.append((t.state(engine).steps, t.edit_count(), edits))
        if self.client.invalidated:
            self.event("invalidated", {"areas": ["variables", "stacks"]})
        if memory is not None and self.client.memory_event:
            ref, offset, count = memory
            self.event("memory", {"memoryReference": ref, "offset": offset, "count": count})

    def _undo_group(self, engine: str) -> bool:
        """Undo the edit group on top of the journal, if one is; whether one was."""
        t = self._target()
        while self._edit_groups and self._edit_groups[-1][1] > t.edit_count():
            self._edit_groups.pop()  # undone already, one edit at a time
        if not self._edit_groups:
            return False
        steps, count, size = self._edit_groups[-1]
        if (steps, count) != (t.state(engine).steps, t.edit_count()):
            return False
        self._edit_groups.pop()
        t.undo_events(size)
        return True

    def _on_setVariable(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.SetVariableArguments.model_validate(args)
        t = self._ready()
        if a.variablesReference in self._cells:
            engine, names = self._cells[a.variablesReference]
            if a.name not in names:
                raise RequestError(f"no cell {a.name!r} in that range")
            t.set_value(engine, a.name, a.value)
            self._edited(engine, 1)
            self._respond(req, dt.SetVariableResponseBody(
                value=self._cell_row(engine, a.name).value, variablesReference=0))
            return
        thread, scope_no = divmod(a.variablesReference, _REF)
        if not 1 <= scope_no <= len(SCOPES):
            raise RequestError(f"no variables reference {a.variablesReference}")
        engine, scope = self._engine(thread), SCOPES[scope_no - 1]
        rows = {v.name: v for v in self._rows(engine, scope)}
        if a.name not in rows:
            raise RequestError(f"no variable {a.name!r} in {scope}")
        if scope in READ_ONLY or a.name == "status":
            raise RequestError(f"{a.name}: read-only (change the instruction with writeMemory "
                               "at the PC's address)")
        t.set_value(engine, a.name, a.value)
        self._edited(engine, 1)
        row = next(v for v in self._rows(engine, scope) if v.name == a.name)
        self._respond(req, dt.SetVariableResponseBody(value=row.value, type=row.type,
                                                      variablesReference=0))

    def _on_setExpression(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.SetExpressionArguments.model_validate(args)
        t = self._ready()
        engine = self._engine(a.frameId) if a.frameId else t.engines[0]
        t.set_value(engine, a.expression, a.value)
        self._edited(engine, 1)
        self._respond(req, dt.SetExpressionResponseBody(
            value=self._read(f"print {a.expression}", engine), variablesReference=0))

    def _on_writeMemory(self, req: dict[str, object], args: dict[str, object]) -> None:
        import base64
        import binascii

        a = dt.WriteMemoryArguments.model_validate(args)
        t = self._ready()
        try:
            data = base64.b64decode(a.data, validate=True)
        except (binascii.Error, ValueError):
            raise RequestError("data: expected base64") from None
        if len(data) > MAX_WRITE:
            raise RequestError(f"data: {len(data)} bytes; at most {MAX_WRITE} in one write")
        where = place(t, a.memoryReference, a.offset or 0)
        if where.space is not None:
            size = t.state(t.engines[0]).memory(where.space).shape[1]
            engine = t.engines[0]
        else:
            assert where.engine is not None
            engine = where.engine
            m = t.machine(engine)
            size = m.count * RECORD_BYTES
            where = type(where)(None, 0, engine, where.at - m.config.base)  # program byte
        fits = max(0, min(len(data), size - where.at))
        if fits < len(data) and not a.allowPartial:
            raise RequestError(f"{a.memoryReference}: {len(data)} bytes do not fit (room for "
                               f"{fits}); set allowPartial to write those")
        data = data[:fits]
        edits = (self._write_bytes(engine, where.space, where.partition, where.at, data)
                 if where.space is not None else self._write_records(engine, where.at, data))
        self._edited(engine, edits, (a.memoryReference, a.offset or 0, len(data)))
        self._respond(req, dt.WriteMemoryResponseBody(bytesWritten=len(data)))

    def _write_bytes(self, engine: str, space: str, part: int, at: int, data: bytes) -> int:
        t = self._target()
        row = t.state(engine).memory(space)[part]
        name = "sb" if space == "sbuf" else "psum"
        n = 0
        for i, b in enumerate(data):
            if row[at + i] != b:
                t.set_value(engine, f"{name}[{part}, {at + i}]", str(b))
                n += 1
        return n

    def _write_records(self, engine: str, at: int, data: bytes) -> int:
        t = self._target()
        m = t.machine(engine)
        n = 0
        if not data:
            return 0
        for index in range(at // RECORD_BYTES, (at + len(data) - 1) // RECORD_BYTES + 1):
            start = index * RECORD_BYTES
            old = m.program.record(index)
            lo, hi = max(at, start), min(at + len(data), start + RECORD_BYTES)
            new = old[:lo - start] + data[lo - at:hi - at] + old[hi - start:]
            if new != old:
                t.write_record(engine, index, new)
                n += 1
        return n
