"""The debug adapter: one DAP request in, its response and any events out.

    adapter = Adapter(writer.send)
    while (msg := read_message(stdin)) is not None and adapter.handle(msg): ...

Requests are parsed and answers built with `dap_types` (the pydantic models of the
official schema). Every request gets a response: a bad one (unknown command, arguments
the schema refuses, a path that does not load, a breakpoint spec the model refuses) an
error response with one line saying what was expected; `handle` never raises (it is the
adapter's containment boundary: an adapter bug becomes an error response naming it, and
the session goes on). `continue` and `reverseContinue` run in a worker thread so `pause`
stops them at the next step boundary (the model's `interrupt`).

Decisions where the issue is silent (as gdb / lldb-dap do them):
- threads are engines (id = place in the target's engine list + 1); each has one
  stack frame, the instruction at its PC (frame id = thread id);
- a source breakpoint on a line with no instruction moves to the next line that has
  one (gdb); none after it: unverified, with a message;
- `next` / `stepIn` / `stepOut` all step one instruction of the thread's engine;
- `evaluate` runs the console's `print EXPR` on the frame's engine (an `x/NF ADDR`
  line runs `x`), so the editor shows what the TUI console would;
- addresses (disassembly, instruction breakpoints) are target.address(engine, pc);
- `readMemory` reads SBUF / PSUM by partition (memoryReference `sbuf[P]`, `psum[P]`;
  offset = byte in the partition) or a queue's instruction records (an address);
- a function breakpoint's name is a label (`loop`: gdb's `break loop`) or any breakpoint
  SPEC of machine.breakpoints (`op:CAST@dve`, `saturate`, `race`), so the editor's
  function-breakpoint box reaches the whole breakpoint language;
- data breakpoints watch writes (`watch:TARGET`): registers from the Registers scope
  (that engine's), or any watch target typed as an expression (`sb[0, 0:64]`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dap_types as dt
from pydantic import BaseModel, ValidationError

from machine.state import RECORD_BYTES
from neurondbg.dap.launch import LaunchArgs, open_target
from neurondbg.dap.target import Halt, Target, address, split_address

SCOPES = ("Registers", "Semaphores", "Accumulators", "Instruction")
_REF = 8  # variablesReference = thread id * _REF + scope number (1-based)
NO_INSTRUCTION = "??"  # a disassembly slot outside the program
MAX_READ = 1 << 20  # bytes one readMemory returns at most
# Exception filters: the kernel stops a breakpoint kind names (machine.breakpoints);
# faults, invalid instructions and deadlocks always stop and need no filter.
EXCEPTION_FILTERS = (
    ("race", "Races", "stop after a step in which the race detector finds a race", True),
    ("wait", "Semaphore waits", "stop when an engine newly blocks on a semaphore wait", False),
)


class RequestError(ValueError):
    """A request this adapter refuses: its message is the error response's text."""


def _body(model: BaseModel | None) -> dict[str, Any] | None:
    return None if model is None else model.model_dump(exclude_none=True, by_alias=True)


def capabilities() -> dt.Capabilities:
    """What `initialize` announces (the issue's list)."""
    return dt.Capabilities(
        supportsConfigurationDoneRequest=True, supportsConditionalBreakpoints=True,
        supportsStepBack=True, supportsDataBreakpoints=True,
        supportsInstructionBreakpoints=True, supportsDisassembleRequest=True,
        supportsEvaluateForHovers=True, supportsTerminateRequest=True,
        supportsReadMemoryRequest=True, supportsFunctionBreakpoints=True,
        supportsSteppingGranularity=True, exceptionBreakpointFilters=[
            dt.ExceptionBreakpointsFilter(filter=f, label=label, description=text,
                                          default=default)
            for f, label, text, default in EXCEPTION_FILTERS])


class Adapter:
    """One debug session: a Target opened by `launch`, driven by requests."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self.target: Target | None = None
        self._stop_on_entry = False
        self._stop_on_halt = False
        self._worker: threading.Thread | None = None
        self._running = threading.Event()  # cleared before the stop is sent
        self._source_bps: dict[str, list[tuple[int, list[int]]]] = {}  # path -> (dap id, ids)
        self._other_bps: dict[str, list[tuple[int, list[int]]]] = {}  # "data"/"instruction"
        self._dap_of: dict[int, int] = {}  # model breakpoint id -> DAP breakpoint id
        self._next_id = 1
        self.ended = False

    # -- messages ------------------------------------------------------------------------
    def event(self, name: str, body: BaseModel | dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"type": "event", "event": name}
        b = body if isinstance(body, dict) or body is None else _body(body)
        if b is not None:
            msg["body"] = b
        self._send(msg)

    def _respond(self, req: dict[str, Any], body: BaseModel | dict[str, Any] | None) -> None:
        msg: dict[str, Any] = {"type": "response", "request_seq": req.get("seq", 0),
                               "success": True, "command": str(req.get("command", ""))}
        b = body if isinstance(body, dict) or body is None else _body(body)
        if b is not None:
            msg["body"] = b
        self._send(msg)

    def _error(self, req: dict[str, Any], text: str) -> None:
        err = dt.ErrorResponseBody(error=dt.Message(id=1, format=text, showUser=True))
        self._send({"type": "response", "request_seq": req.get("seq", 0), "success": False,
                    "command": str(req.get("command", "")), "message": text,
                    "body": _body(err)})

    def output(self, text: str, category: str = "console") -> None:
        self.event("output", dt.OutputEventBody(category=category, output=text + "\n"))

    # -- dispatch ------------------------------------------------------------------------
    def handle(self, message: dict[str, Any]) -> bool:
        """Answer one message; False once the session has ended (disconnect)."""
        if message.get("type") != "request":
            return not self.ended  # responses to reverse requests, stray events: ignored
        command = message.get("command")
        handler = getattr(self, f"_on_{command}", None) if isinstance(command, str) else None
        if handler is None:
            self._error(message, f"unsupported request {command!r}")
            return not self.ended
        args = message.get("arguments")
        try:
            if args is not None and not isinstance(args, dict):
                raise RequestError(f"arguments: expected an object, found {type(args).__name__}")
            handler(message, args or {})
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "arguments"
            self._error(message, f"{command}: {where}: {first['msg']}")
        except (RequestError, ValueError, KeyError, IndexError) as e:
            self._error(message, f"{command}: {e.args[0] if e.args else e}")
        except Exception as e:  # the containment boundary: a bug answers, the adapter lives
            self._error(message, f"{command}: internal error: {type(e).__name__}: {e}")
        return not self.ended

    # -- helpers -------------------------------------------------------------------------
    def _target(self) -> Target:
        if self.target is None:
            raise RequestError("nothing is launched yet (send `launch` first)")
        return self.target

    def _idle(self) -> Target:
        t = self._target()
        if self._running.is_set():
            raise RequestError("the target is running (send `pause` first)")
        return t

    def _engine(self, thread_id: int) -> str:
        t = self._target()
        if not 1 <= thread_id <= len(t.engines):
            raise RequestError(f"no thread {thread_id}; threads: 1..{len(t.engines)} "
                               f"({', '.join(t.engines)})")
        return t.engines[thread_id - 1]

    def _thread(self, engine: str) -> int:
        return self._target().engines.index(engine) + 1

    def _report(self, halt: Halt) -> None:
        """The event(s) a command's end sends."""
        if halt.reason == "exited" and self._stop_on_halt:
            halt.reason = "halt"  # stays a stop: the editor can step back from here
        if halt.reason == "exited":
            self.output(halt.description)
            if halt.text and halt.text != halt.description:  # e.g. the races a run found
                self.output(halt.text, "stderr")
            self.event("exited", dt.ExitedEventBody(exitCode=0))
            self.event("terminated", dt.TerminatedEventBody())
            return
        ids = sorted({self._dap_of[b.id] for b in halt.breakpoints if b.id in self._dap_of})
        reason = halt.reason
        if ids and set(ids) <= {d for d, _ in self._other_bps.get("instruction", [])}:
            reason = "instruction breakpoint"
        elif ids and set(ids) <= {d for d, _ in self._other_bps.get("function", [])}:
            reason = "function breakpoint"
        self.event("stopped", dt.StoppedEventBody(
            reason=reason, description=halt.description, text=halt.text or None,
            threadId=self._thread(halt.engine), allThreadsStopped=True,
            hitBreakpointIds=ids or None))

    def _start(self, run: Callable[[], Halt]) -> None:
        """Run a long command in the worker thread; its end sends the stop."""
        def work() -> None:
            try:
                halt = run()
            except Exception as e:  # containment boundary: the model is not expected to
                # raise (faults are state); if it does, the editor hears it and stays alive
                t = self.target
                engine = t.engines[0] if t is not None else "pool"
                halt = Halt("exception", engine, f"internal error: {type(e).__name__}: {e}")
            self._running.clear()  # the editor asks for the stack as soon as it hears
            self._report(halt)

        self._running.set()

        self._worker = threading.Thread(target=work, name="neurondbg-dap-run", daemon=True)
        self._worker.start()

    @property
    def running(self) -> bool:
        """Whether a `continue` / `reverseContinue` is under way."""
        return self._running.is_set()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a running command to end (tests, disconnect)."""
        w = self._worker
        if w is not None:
            w.join(timeout)

    # -- session -------------------------------------------------------------------------
    def _on_initialize(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        dt.InitializeRequestArguments.model_validate(args)
        self._respond(req, capabilities())

    def _on_launch(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        if self.target is not None:
            raise RequestError("already launched")
        la = LaunchArgs.model_validate(args)
        target, warnings = open_target(la)
        self.target = target
        self._stop_on_entry = la.stopOnEntry
        self._stop_on_halt = la.stopOnHalt
        if target.is_kernel:  # the filters' defaults, until setExceptionBreakpoints
            self._set_filters([f for f, *_, default in EXCEPTION_FILTERS if default])
        self._respond(req, None)
        for w in warnings:
            self.output(f"warning: {w}", "stderr")
        self.event("initialized")

    def _on_configurationDone(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        t = self._idle()
        self._respond(req, None)
        if self._stop_on_entry:
            self.event("stopped", dt.StoppedEventBody(reason="entry", threadId=1,
                                                      allThreadsStopped=True))
        else:
            self._start(t.cont)

    def _on_disconnect(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        if self.target is not None:
            self.target.interrupt.set()
            self.wait(5)
        self._respond(req, None)
        self.ended = True

    def _on_terminate(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        if self.target is not None:
            self.target.interrupt.set()
            self.wait(5)
        self._respond(req, None)
        self.event("terminated", dt.TerminatedEventBody())

    # -- breakpoints ---------------------------------------------------------------------
    def _replace(self, table: dict[str, list[tuple[int, list[int]]]], key: str) -> None:
        t = self._target()
        for _, ids in table.pop(key, []):
            for i in ids:
                t.delete_breakpoint(i)
                self._dap_of.pop(i, None)

    def _add(self, table: dict[str, list[tuple[int, list[int]]]], key: str,
             specs: list[str]) -> int:
        """Add model breakpoints for one DAP breakpoint; its DAP id."""
        t = self._target()
        ids = [t.add_breakpoint(s).id for s in specs]
        dap_id = self._next_id
        self._next_id += 1
        for i in ids:
            self._dap_of[i] = dap_id
        table.setdefault(key, []).append((dap_id, ids))
        return dap_id

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
            if prog is None or prog.lines is None or _resolved(prog.path) != path:
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

    def _on_setBreakpoints(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.SetBreakpointsArguments.model_validate(args)
        self._idle()
        if not a.source.path:
            raise RequestError("source.path: expected the assembly file's path")
        path = _resolved(Path(a.source.path))
        key = str(path)
        self._replace(self._source_bps, key)
        wanted = a.breakpoints or [dt.SourceBreakpoint(line=n) for n in a.lines or []]
        out = []
        for sb in wanted:
            line, where = self._line_targets(path, sb.line)
            if not where:
                out.append(dt.Breakpoint(verified=False, line=sb.line, reason="failed",
                                         message=f"no instruction at or after line {sb.line}"))
                continue
            specs = [f"pc:{pc:#x}@{e}{self._cond(sb.condition)}" for e, pc in where]
            try:
                dap_id = self._add(self._source_bps, key, specs)
            except ValueError as e:  # a condition that does not parse
                out.append(dt.Breakpoint(verified=False, line=sb.line, reason="failed",
                                         message=str(e)))
                continue
            e0, pc0 = where[0]
            out.append(dt.Breakpoint(id=dap_id, verified=True, line=line, source=a.source,
                                     instructionReference=f"{address(e0, pc0):#x}"))
        self._respond(req, dt.SetBreakpointsResponseBody(breakpoints=out))

    def _on_setInstructionBreakpoints(self, req: dict[str, Any],
                                      args: dict[str, Any]) -> None:
        a = dt.SetInstructionBreakpointsArguments.model_validate(args)
        self._idle()
        self._replace(self._other_bps, "instruction")
        out = []
        for ib in a.breakpoints:
            try:
                engine, pc = split_address(_int(ib.instructionReference) + (ib.offset or 0))
                spec = f"pc:{pc:#x}@{engine}{self._cond(ib.condition)}"
                dap_id = self._add(self._other_bps, "instruction", [spec])
            except ValueError as e:
                out.append(dt.Breakpoint(verified=False, reason="failed", message=str(e)))
                continue
            out.append(dt.Breakpoint(id=dap_id, verified=True,
                                     instructionReference=ib.instructionReference,
                                     offset=ib.offset))
        self._respond(req, dt.SetInstructionBreakpointsResponseBody(breakpoints=out))

    def _set_filters(self, filters: list[str]) -> list[dt.Breakpoint]:
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

    def _on_setExceptionBreakpoints(self, req: dict[str, Any],
                                    args: dict[str, Any]) -> None:
        a = dt.SetExceptionBreakpointsArguments.model_validate(args)
        self._idle()
        out = self._set_filters(list(a.filters))
        self._respond(req, dt.SetExceptionBreakpointsResponseBody(breakpoints=out))

    def _on_setFunctionBreakpoints(self, req: dict[str, Any],
                                   args: dict[str, Any]) -> None:
        from machine.breakpoints import KINDS

        a = dt.SetFunctionBreakpointsArguments.model_validate(args)
        self._idle()
        self._replace(self._other_bps, "function")
        out = []
        for fb in a.breakpoints:
            name = fb.name.strip()
            word = name.split()[0].split("@")[0].lower() if name else ""
            spec = name if ":" in name or word in KINDS else f"label:{name}"
            try:
                dap_id = self._add(self._other_bps, "function", [spec + self._cond(fb.condition)])
            except ValueError as e:
                out.append(dt.Breakpoint(verified=False, reason="failed", message=str(e)))
                continue
            out.append(dt.Breakpoint(id=dap_id, verified=True))
        self._respond(req, dt.SetFunctionBreakpointsResponseBody(breakpoints=out))

    def _on_dataBreakpointInfo(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        from machine.expr import parse_target

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

    def _on_setDataBreakpoints(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.SetDataBreakpointsArguments.model_validate(args)
        self._idle()
        self._replace(self._other_bps, "data")
        out = []
        for db in a.breakpoints:
            access = db.accessType.root if db.accessType is not None else "write"
            if access != "write":
                out.append(dt.Breakpoint(verified=False, reason="failed",
                                         message=f"{db.dataId}: only writes can be watched"))
                continue
            try:
                dap_id = self._add(self._other_bps, "data",
                                   [f"watch:{db.dataId}{self._cond(db.condition)}"])
            except ValueError as e:
                out.append(dt.Breakpoint(verified=False, reason="failed", message=str(e)))
                continue
            out.append(dt.Breakpoint(id=dap_id, verified=True))
        self._respond(req, dt.SetDataBreakpointsResponseBody(breakpoints=out))

    # -- running -------------------------------------------------------------------------
    def _on_continue(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        dt.ContinueArguments.model_validate(args)
        t = self._idle()
        self._respond(req, dt.ContinueResponseBody(allThreadsContinued=True))
        self._start(t.cont)

    def _on_reverseContinue(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        dt.ReverseContinueArguments.model_validate(args)
        t = self._idle()
        self._respond(req, None)
        self._start(t.reverse_continue)

    def _step(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.NextArguments.model_validate(args)
        t = self._idle()
        engine = self._engine(a.threadId)
        self._respond(req, None)
        self._report(t.step(engine))

    _on_next = _on_stepIn = _on_stepOut = _step  # one instruction each (module docstring)

    def _on_stepBack(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.StepBackArguments.model_validate(args)
        t = self._idle()
        self._engine(a.threadId)
        self._respond(req, None)
        self._report(t.reverse_step())

    def _on_pause(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        dt.PauseArguments.model_validate(args)
        t = self._target()
        self._respond(req, None)
        if self._running.is_set():
            t.interrupt.set()  # the worker's stop reports "pause"
        else:
            self.event("stopped", dt.StoppedEventBody(
                reason="pause", threadId=args.get("threadId", 1), allThreadsStopped=True))

    # -- reading -------------------------------------------------------------------------
    def _on_threads(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        t = self._target()
        threads = [dt.Thread(id=i + 1, name=e) for i, e in enumerate(t.engines)]
        self._respond(req, dt.ThreadsResponseBody(threads=threads))

    def _source(self, engine: str, pc: int) -> tuple[dt.Source | None, int, int]:
        """(Source, line, column) of `engine`'s instruction at `pc` (None: no source)."""
        t = self._target()
        prog = t.program(engine)
        i = t.machine(engine).index_of(pc)
        if prog is None or i is None:
            return None, 0, 0
        where = prog.where(i)
        if where is None:
            return None, 0, 0
        _, line, col = where.rsplit(":", 2)
        return dt.Source(name=prog.path.name, path=str(_resolved(prog.path))), int(line), int(col)

    def _on_stackTrace(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.StackTraceArguments.model_validate(args)
        t = self._idle()
        engine = self._engine(a.threadId)
        m = t.machine(engine)
        pc = m.state.pc
        i = m.index_of(pc)
        name = m.instruction(i).mnemonic if i is not None else "(outside the program)"
        src, line, col = self._source(engine, pc)
        frame = dt.StackFrame(id=a.threadId, name=f"{engine}: {name} @ {pc:#x}", source=src,
                              line=line, column=col,
                              instructionPointerReference=f"{address(engine, pc):#x}")
        frames = [frame] if (a.startFrame or 0) == 0 else []
        self._respond(req, dt.StackTraceResponseBody(stackFrames=frames, totalFrames=1))

    def _on_scopes(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.ScopesArguments.model_validate(args)
        t = self._idle()
        engine = self._engine(a.frameId)
        shown = ["Registers"]
        if t.is_kernel:
            shown.append("Semaphores")
        if engine == "dve":
            shown.append("Accumulators")
        shown.append("Instruction")
        scopes = [dt.Scope(name=s, variablesReference=a.frameId * _REF + SCOPES.index(s) + 1,
                           expensive=False, presentationHint="registers" if s == "Registers"
                           else None) for s in shown]
        self._respond(req, dt.ScopesResponseBody(scopes=scopes))

    def _on_variables(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.VariablesArguments.model_validate(args)
        self._idle()
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

    def _on_evaluate(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        from neurondbg import console

        a = dt.EvaluateArguments.model_validate(args)
        t = self._idle()
        engine = self._engine(a.frameId) if a.frameId else t.engines[0]
        text = a.expression.strip()
        if text.startswith(("print ", "p ")):
            text = text.split(" ", 1)[1].strip()
        line = text if text.startswith(("x/", "x ")) else f"print {text}"
        reply = console.execute(line, t.machine(engine))
        out = "\n".join(s for s, _ in reply.lines)
        if out.startswith("error: "):
            raise RequestError(out.removeprefix("error: "))
        if line.startswith("print ") and " = " in out:
            out = out.split(" = ", 1)[1]  # the value alone, as a watch shows it
        self._respond(req, dt.EvaluateResponseBody(result=out, variablesReference=0))

    def _on_readMemory(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        import base64

        a = dt.ReadMemoryArguments.model_validate(args)
        t = self._idle()
        ref = a.memoryReference.strip()
        count = max(0, min(a.count, MAX_READ))
        if ref.startswith(("sbuf[", "psum[")) and ref.endswith("]"):
            space, part = ref[:4], _int(ref[5:-1])
            mem = t.state(t.engines[0]).memory(space)
            if not 0 <= part < mem.shape[0]:
                raise RequestError(f"{ref}: expected a partition 0..{mem.shape[0] - 1}")
            row, start = mem[part], a.offset or 0
            data = bytes(row[max(0, start):max(0, start + count)])
            base = f"{ref}+{start:#x}"
        else:
            engine, pc = split_address(_int(ref) + (a.offset or 0))
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
        engine, pc = split_address(_int(a.memoryReference) + (a.offset or 0))
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


def _int(text: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise ValueError(f"expected an address such as 0x80, found {text!r}") from None


def _resolved(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p
