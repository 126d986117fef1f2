"""The debug adapter's inspection requests: threads (engines), the one stack frame,
scopes (registers, semaphores, accumulators, the decoded instruction) and variables.
"""

from __future__ import annotations

import dap_types as dt

from neurondbg.dap.cells import CELLS_BASE, MAX_GROUPS, cell_names
from neurondbg.dap.protocol import AdapterBase, RequestError
from neurondbg.dap.target import address

SCOPES = ("Registers", "Semaphores", "Accumulators", "Instruction")
_REF = 8  # variablesReference = thread id * _REF + scope number (1-based)


class VariableRequests(AdapterBase):
    """threads, stackTrace, scopes, variables."""

    def _on_threads(self, req: dict[str, object], args: dict[str, object]) -> None:
        t = self._target()
        threads = [dt.Thread(id=i + 1, name=e) for i, e in enumerate(t.engines)]
        self._respond(req, dt.ThreadsResponseBody(threads=threads))

    def _on_stackTrace(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.StackTraceArguments.model_validate(args)
        t = self._idle()
        engine = self._engine(a.threadId)
        m = t.machine(engine)
        pc = m.state.pc
        i = m.index_of(pc)
        name = m.instruction(i).mnemonic if i is not None else "(outside the program)"
        src, line, col = self._source(engine, pc)
        frame = dt.StackFrame(id=a.threadId, name=f"{engine}: {name} @ {pc:#x}", source=src,
                              line=self._line_out(line) if src else 0,
                              column=self._col_out(col) if src else 0,
                              instructionPointerReference=f"{address(engine, pc):#x}")
        frames = [frame] if (a.startFrame or 0) == 0 else []
        self._respond(req, dt.StackTraceResponseBody(stackFrames=frames, totalFrames=1))

    def _on_scopes(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.ScopesArguments.model_validate(args)
        self._idle()
        engine = self._engine(a.frameId)
        shown = ["Registers", "Semaphores"]  # a program's queue has its semaphores too
        if engine == "dve":
            shown.append("Accumulators")
        shown.append("Instruction")
        scopes = [dt.Scope(name=s, variablesReference=a.frameId * _REF + SCOPES.index(s) + 1,
                           expensive=False, presentationHint="registers" if s == "Registers"
                           else None) for s in shown]
        self._respond(req, dt.ScopesResponseBody(scopes=scopes))

    def _on_variables(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.VariablesArguments.model_validate(args)
        self._idle()
        if a.variablesReference in self._cells:
            engine, names = self._cells[a.variablesReference]
            rows = [self._cell_row(engine, n) for n in names]
        else:
            thread, scope = divmod(a.variablesReference, _REF)
            if not 1 <= scope <= len(SCOPES):
                raise RequestError(f"no variables reference {a.variablesReference}")
            engine = self._engine(thread)
            rows = self._rows(engine, SCOPES[scope - 1])
        start = a.start or 0
        rows = rows[start:start + a.count] if a.count else rows[start:]
        self._respond(req, dt.VariablesResponseBody(variables=rows))

    def _rows(self, engine: str, scope: str) -> list[dt.Variable]:
        t = self._target()
        st = t.state(engine)
        prefix = f"{engine}." if t.is_kernel else ""
        if scope == "Registers":
            rows = [dt.Variable(name=f"R{r}", value=f"{v:#010x} ({v})", type="uint32",
                                evaluateName=f"{prefix}R{r}", variablesReference=0)
                    for r, v in enumerate(st.R)]
            rows.insert(0, dt.Variable(name="PC", value=f"{st.pc:#x}", type="pc",
                                       evaluateName=f"{prefix}PC", variablesReference=0,
                                       memoryReference=f"{address(engine, st.pc):#x}"))
            rows.append(dt.Variable(name="status", value=t.status(engine),
                                    variablesReference=0))
            return rows
        if scope == "Semaphores":
            return [dt.Variable(name=f"sem[{i}]", value=str(v), evaluateName=f"sem[{i}]",
                                variablesReference=0) for i, v in enumerate(st.sem)]
        if scope == "Accumulators":
            return [dt.Variable(name=f"acc[{p}]", value=f"{float(v):g}", type="fp32",
                                evaluateName=f"{prefix}acc[{p}]", variablesReference=0)
                    for p, v in enumerate(st.acc)]
        m = t.machine(engine)
        i = m.index_of(st.pc)
        if i is None:
            return []
        inst = m.instruction(i)
        rows = [dt.Variable(name="mnemonic", value=inst.mnemonic, variablesReference=0)]
        rows += [dt.Variable(name=k, value=str(v), variablesReference=0)
                 for k, v in inst.fields.items()]
        return rows

    def _read(self, line: str, engine: str) -> str:
        """A read-only console line's text (`print`'s value alone, as a watch shows it)."""
        from neurondbg import console

        reply = console.execute(line, self._target().machine(engine))
        out = "\n".join(s for s, _ in reply.lines)
        if out.startswith("error: "):
            raise RequestError(out.removeprefix("error: "))
        if line.startswith("print ") and " = " in out:
            out = out.split(" = ", 1)[1]
        return out

    # -- memory cells (cells.py) ---------------------------------------------------------
    def _print(self, text: str, engine: str) -> str | tuple[str, int]:
        """An expression's value, or a memory range's cells to expand: (summary,
        variablesReference); a range of one cell is that cell's value."""
        names = cell_names(text, self._target().machine(engine))
        if names is None or len(names) == 1:
            return self._read(f"print {names[0] if names else text}", engine)
        ref = CELLS_BASE + self._next_cells % (2 * MAX_GROUPS)  # bounded, never a live one
        self._next_cells += 1
        self._cells.pop(ref, None)
        self._cells[ref] = (engine, names)
        while len(self._cells) > MAX_GROUPS:  # the oldest first (insertion order)
            del self._cells[next(iter(self._cells))]
        return f"{len(names)} cells", ref

    def _cell_row(self, engine: str, name: str) -> dt.Variable:
        return dt.Variable(name=name, value=self._read(f"print {name}", engine),
                           evaluateName=name, variablesReference=0)
