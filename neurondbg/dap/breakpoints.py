"""The debug adapter's breakpoint requests: source lines, instructions, functions
(labels and breakpoint specs), data (watches) and the kernel's exception filters.

Each DAP breakpoint is one or more model breakpoints (machine.breakpoints specs); a
`set*Breakpoints` request replaces that kind's whole set, as the protocol says. Its
`condition` joins the spec (`... if EXPR`); its `hitCondition` and a source breakpoint's
`logMessage` are the adapter's (protocol.BreakpointOptions, neurondbg.dap.hits). Under a
`noDebug` launch every breakpoint is answered unverified: nothing stops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import dap_types as dt

from neurondbg.dap.hits import parse_hit_condition
from neurondbg.dap.protocol import (
    AdapterBase,
    BreakpointOptions,
    BreakpointTable,
    RequestError,
    address_int,
    resolved,
)
from neurondbg.dap.target import address, split_address
from neurondbg.dap.variables import _REF, SCOPES
from neurondbg.machine.state import RECORD_BYTES

T = TypeVar("T")  # one DAP breakpoint of a `set*Breakpoints` request

# Exception filters: the kernel stops a breakpoint kind names (machine.breakpoints);
# faults, invalid instructions and deadlocks always stop and need no filter.
EXCEPTION_FILTERS = (
    ("race", "Races", "stop after a step in which the race detector finds a race", True),
    ("wait", "Semaphore waits", "stop when an engine newly blocks on a semaphore wait", False),
)


class BreakpointRequests(AdapterBase):
    """setBreakpoints, setInstructionBreakpoints, setFunctionBreakpoints,
    dataBreakpointInfo, setDataBreakpoints, setExceptionBreakpoints."""

    # -- breakpoints ---------------------------------------------------------------------
    def _replace(self, table: BreakpointTable, key: str) -> None:
        t = self._target()
        for dap_id, ids in table.pop(key, []):
            self._bp_options.pop(dap_id, None)
            for i in ids:
                t.delete_breakpoint(i)
                self._dap_of.pop(i, None)

    def _add(self, table: BreakpointTable, key: str, specs: list[str],
             hit_condition: str | None = None, log: str | None = None) -> int:
        """Add model breakpoints for one DAP breakpoint; its DAP id. ValueError (nothing
        added) for a spec or hit condition that does not parse."""
        t = self._target()
        opts = BreakpointOptions(parse_hit_condition(hit_condition) if hit_condition else None,
                                 log if log else None, ", ".join(specs))
        ids: list[int] = []
        try:
            for s in specs:
                ids.append(t.add_breakpoint(s).id)
        except ValueError:
            for i in ids:
                t.delete_breakpoint(i)
            raise
        dap_id = self._next_id
        self._next_id += 1
        for i in ids:
            self._dap_of[i] = dap_id
        self._bp_options[dap_id] = opts
        table.setdefault(key, []).append((dap_id, ids))
        return dap_id

    NO_DEBUG = "not debugging: this launch has noDebug set, so nothing stops"

    def _unverified(self, n: int) -> list[dt.Breakpoint]:
        return [dt.Breakpoint(verified=False, reason="failed", message=self.NO_DEBUG)] * n

    @staticmethod
    def _cond(condition: str | None) -> str:
        return f" if {condition.strip()}" if condition and condition.strip() else ""

    def _line_targets(self, path: Path, line: int) -> tuple[int, list[tuple[str, int]]]:
        """(the line used, [(engine, PC)]) of the first instruction at or after `line`."""
        t = self._target()
        best: int | None = None
        found: list[tuple[str, int]] = []
        for e in t.engines:
            prog = t.program(e)
            if prog is None or prog.lines is None or resolved(prog.path) != path:
                continue
            after = [(ln, i) for i, ln in enumerate(prog.lines) if ln >= line]
            if not after:
                continue
            ln, i = min(after)
            base = t.machine(e).config.base
            if best is None or ln < best:
                best, found = ln, [(e, base + i * RECORD_BYTES)]
            elif ln == best:
                found.append((e, base + i * RECORD_BYTES))
        return (best or line), found

    def _on_setBreakpoints(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.SetBreakpointsArguments.model_validate(args)
        self._idle()
        if not a.source.path:
            raise RequestError("source.path: expected the assembly file's path")
        path = resolved(Path(a.source.path))
        key = str(path)
        self._replace(self._source_bps, key)
        wanted = a.breakpoints or [dt.SourceBreakpoint(line=n) for n in a.lines or []]
        if self._no_debug:
            self._respond(req, dt.SetBreakpointsResponseBody(
                breakpoints=self._unverified(len(wanted))))
            return
        out = []
        for sb in wanted:
            asked = self._line_in(sb.line)
            line, where = self._line_targets(path, asked)
            if not where:
                out.append(dt.Breakpoint(verified=False, line=sb.line, reason="failed",
                                         message=f"no instruction at or after line {sb.line}"))
                continue
            specs = [f"pc:{pc:#x}@{e}{self._cond(sb.condition)}" for e, pc in where]
            try:
                dap_id = self._add(self._source_bps, key, specs, sb.hitCondition, sb.logMessage)
            except ValueError as e:  # a condition or hit condition that does not parse
                out.append(dt.Breakpoint(verified=False, line=sb.line, reason="failed",
                                         message=str(e)))
                continue
            e0, pc0 = where[0]
            out.append(dt.Breakpoint(id=dap_id, verified=True, line=self._line_out(line),
                                     source=a.source,
                                     instructionReference=f"{address(e0, pc0):#x}"))
        self._respond(req, dt.SetBreakpointsResponseBody(breakpoints=out))

    def _set_kind(self, kind: str, items: Sequence[T], spec: Callable[[T], str],
                  extra: Callable[[T], dict[str, object]] = lambda item: {}
                  ) -> list[dt.Breakpoint]:
        """Replace every `kind` breakpoint by one per item, the model breakpoint
        `spec(item)` with the item's `hitCondition`; an item refused (ValueError from
        `spec`, the model or the hit condition) becomes an unverified breakpoint saying
        why. `extra(item)`: more fields of a verified one."""
        self._idle()
        if self._no_debug:
            return self._unverified(len(items))
        self._replace(self._other_bps, kind)
        out = []
        for item in items:
            try:
                dap_id = self._add(self._other_bps, kind, [spec(item)],
                                   getattr(item, "hitCondition", None))
            except ValueError as e:
                out.append(dt.Breakpoint(verified=False, reason="failed", message=str(e)))
                continue
            out.append(dt.Breakpoint(id=dap_id, verified=True, **extra(item)))
        return out

    def _on_setInstructionBreakpoints(self, req: dict[str, object],
                                      args: dict[str, object]) -> None:
        a = dt.SetInstructionBreakpointsArguments.model_validate(args)

        def spec(ib: dt.InstructionBreakpoint) -> str:
            engine, pc = split_address(address_int(ib.instructionReference) + (ib.offset or 0))
            return f"pc:{pc:#x}@{engine}{self._cond(ib.condition)}"

        out = self._set_kind("instruction", a.breakpoints, spec, lambda ib: {
            "instructionReference": ib.instructionReference, "offset": ib.offset})
        self._respond(req, dt.SetInstructionBreakpointsResponseBody(breakpoints=out))

    def _set_filters(self, filters: list[str]) -> list[dt.Breakpoint]:
        if self._no_debug:
            return self._unverified(len(filters))
        self._replace(self._other_bps, "exception")
        known = [f for f, *_ in EXCEPTION_FILTERS]
        out = []
        for f in filters:
            if f not in known:
                out.append(dt.Breakpoint(verified=False, reason="failed", message=(
                    f"unknown filter {f!r}; expected one of {', '.join(known)}")))
            elif not self._target().is_kernel:
                out.append(dt.Breakpoint(verified=False, reason="failed",
                                         message=f"{f}: only a kernel has it"))
            else:
                out.append(dt.Breakpoint(id=self._add(self._other_bps, "exception", [f]),
                                         verified=True))
        return out

    def _on_setExceptionBreakpoints(self, req: dict[str, object],
                                    args: dict[str, object]) -> None:
        a = dt.SetExceptionBreakpointsArguments.model_validate(args)
        self._idle()
        out = self._set_filters(list(a.filters))
        self._respond(req, dt.SetExceptionBreakpointsResponseBody(breakpoints=out))

    def _on_setFunctionBreakpoints(self, req: dict[str, object],
                                   args: dict[str, object]) -> None:
        from neurondbg.machine.breakpoints import KINDS

        a = dt.SetFunctionBreakpointsArguments.model_validate(args)

        def spec(fb: dt.FunctionBreakpoint) -> str:
            name = fb.name.strip()
            word = name.split()[0].split("@")[0].lower() if name else ""
            return (name if ":" in name or word in KINDS else f"label:{name}") + \
                self._cond(fb.condition)

        out = self._set_kind("function", a.breakpoints, spec)
        self._respond(req, dt.SetFunctionBreakpointsResponseBody(breakpoints=out))

    def _on_dataBreakpointInfo(self, req: dict[str, object], args: dict[str, object]) -> None:
        from neurondbg.machine.expr import parse_target

        a = dt.DataBreakpointInfoArguments.model_validate(args)
        t = self._target()
        name = a.name.strip()
        engine = ""
        if a.variablesReference:
            thread, scope = divmod(a.variablesReference, _REF)
            engine = self._engine(thread)
            if SCOPES[scope - 1] != "Registers" or not (name.startswith("R") or name == "PC"):
                self._respond(req, dt.DataBreakpointInfoResponseBody(
                    dataId=None, description=f"{name}: only registers can be watched here"))
                return
        try:
            parse_target(name)
        except ValueError as e:
            self._respond(req, dt.DataBreakpointInfoResponseBody(
                dataId=None, description=f"{name}: not a watch target: {e}"))
            return
        # the text as typed: a spec `watch:` parses back (Target.name spells sb as sbuf)
        data_id = f"{name}@{engine}" if engine and t.is_kernel else name
        self._respond(req, dt.DataBreakpointInfoResponseBody(
            dataId=data_id, description=f"writes to {data_id}",
            accessTypes=[dt.DataBreakpointAccessType("write")]))

    def _on_setDataBreakpoints(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.SetDataBreakpointsArguments.model_validate(args)

        def spec(db: dt.DataBreakpoint) -> str:
            access = db.accessType.root if db.accessType is not None else "write"
            if access != "write":
                raise ValueError(f"{db.dataId}: only writes can be watched")
            return f"watch:{db.dataId}{self._cond(db.condition)}"

        out = self._set_kind("data", a.breakpoints, spec)
        self._respond(req, dt.SetDataBreakpointsResponseBody(breakpoints=out))
