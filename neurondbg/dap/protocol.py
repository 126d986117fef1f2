"""The debug adapter's machinery: messages out, dispatch in, the worker that runs.

`AdapterBase` answers no request itself: each job's requests are methods `_on_<command>`
of a class built on it (breakpoints.py, variables.py, memory.py, adapter.py), and
`handle` finds them by name. Every request gets a response; `handle` never raises (the
adapter's containment boundary, see adapter.py).

A run command's stop goes through `_settle` first: a stop at breakpoints that are all
logpoints, or whose hit conditions are not met yet, logs and runs on (neurondbg.dap.hits).
Paths and lines are shown as the editor expects them: a program's path as the `launch`
named it (symlinks kept: the editor compares strings), lines from 0 when `initialize`
said `linesStartAt1: false`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dap_types as dt
from pydantic import BaseModel, ValidationError

from neurondbg.dap.hits import HitCondition, interpolate
from neurondbg.dap.loading import Load
from neurondbg.dap.messages import error_response, response, shown
from neurondbg.dap.target import Halt, Target

BreakpointTable = dict[str, list[tuple[int, list[int]]]]  # key -> [(DAP id, model ids)]


class RequestError(ValueError):
    """A request this adapter refuses: its message is the error response's text."""


@dataclass
class ClientOptions:
    """What the client's `initialize` said about itself (DAP's defaults until it has)."""

    lines_at1: bool = True
    columns_at1: bool = True
    progress: bool = False  # progressStart / progressUpdate / progressEnd events
    invalidated: bool = False  # the `invalidated` event
    memory_event: bool = False  # the `memory` event

    @classmethod
    def of(cls, args: dict[str, object]) -> ClientOptions:
        def flag(name: str, default: bool) -> bool:
            v = args.get(name, default)
            return v if isinstance(v, bool) else default

        return cls(flag("linesStartAt1", True), flag("columnsStartAt1", True),
                   flag("supportsProgressReporting", False),
                   flag("supportsInvalidatedEvent", False),
                   flag("supportsMemoryEvent", False))


@dataclass
class BreakpointOptions:
    """What a DAP breakpoint adds to its model breakpoints: a hit condition, a log
    message (a logpoint logs and does not stop), and its hit count so far."""

    hit: HitCondition | None = None
    log: str | None = None
    spec: str = ""  # the model breakpoint's spec, as `info breakpoints` lists it
    hits: int = 0

    def stops(self) -> bool:
        """Count one hit; whether this breakpoint's condition on hits is met."""
        self.hits += 1
        return self.hit is None or self.hit(self.hits)


def _body(model: BaseModel | None) -> dict[str, object] | None:
    return None if model is None else model.model_dump(exclude_none=True, by_alias=True)


class AdapterBase:
    """One debug session's state and plumbing: a Target opened by `launch`."""

    def __init__(self, send: Callable[[dict[str, object]], None]) -> None:
        self._send = send
        self.target: Target | None = None
        self._stop_on_entry = False
        self._stop_on_halt = False
        self._worker: threading.Thread | None = None
        self._running = threading.Event()  # cleared before the stop is sent
        self._source_bps: BreakpointTable = {}  # path -> (dap id, ids)
        self._other_bps: BreakpointTable = {}  # "data"/"instruction"
        self._dap_of: dict[int, int] = {}  # model breakpoint id -> DAP breakpoint id
        self._bp_options: dict[int, BreakpointOptions] = {}  # DAP id -> its options
        self._next_id = 1
        self.client = ClientOptions()
        self._load: Load | None = None  # the launch's load (loading.py)
        self._launched: Path | None = None  # the program as `launch` named it (absolute)
        self._no_debug = False
        self.terminated = False  # `terminated` was sent: run requests are refused
        self._last_halt: Halt | None = None  # the last stop reported
        self._edit_groups: list[tuple[int, int, int]] = []  # (steps, edits after, size)
        self._cells: dict[int, tuple[str, list[str]]] = {}  # ref -> (engine, cells.py names)
        self._next_cells = 0
        self.ended = False

    # -- messages ------------------------------------------------------------------------
    def event(self, name: str, body: BaseModel | dict[str, object] | None = None) -> None:
        msg: dict[str, object] = {"type": "event", "event": name}
        b = body if isinstance(body, dict) or body is None else _body(body)
        if b is not None:
            msg["body"] = b
        self._send(msg)

    def _respond(self, req: dict[str, object], body: BaseModel | dict[str, object] | None) -> None:
        self._send(response(req, body if isinstance(body, dict) or body is None
                            else _body(body)))

    def _error(self, req: dict[str, object], text: str) -> None:
        self._send(error_response(req, text))

    def output(self, text: str, category: str = "console") -> None:
        self.event("output", dt.OutputEventBody(category=category, output=text + "\n"))

    # -- dispatch ------------------------------------------------------------------------
    def handle(self, message: dict[str, object]) -> bool:
        """Answer one message; False once the session has ended (disconnect)."""
        if message.get("type") != "request":
            return not self.ended  # responses to reverse requests, stray events: ignored
        command = message.get("command")
        handler = getattr(self, f"_on_{command}", None) if isinstance(command, str) else None
        if handler is None:
            self._error(message, f"unsupported request {shown(command)}")
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

    def _ready(self) -> Target:
        """The idle target, about to run a command: a `pause` that raced the end of the
        last run (the model's run entries never clear `interrupt`, machine/core/core.py)
        is dropped here, on the adapter's thread, so it cannot stop this one at once."""
        if self.terminated:
            raise RequestError("the debug session has terminated; start a new one to run "
                               "again")
        t = self._idle()
        t.interrupt.clear()
        return t

    def _engine(self, thread_id: int) -> str:
        t = self._target()
        if not 1 <= thread_id <= len(t.engines):
            raise RequestError(f"no thread {thread_id}; threads: 1..{len(t.engines)} "
                               f"({', '.join(t.engines)})")
        return t.engines[thread_id - 1]

    def _thread(self, engine: str) -> int:
        return self._target().engines.index(engine) + 1

    # -- stops ---------------------------------------------------------------------------
    def _settle(self, halt: Halt) -> bool:
        """Count the hits of the breakpoints `halt` stopped at and write their logpoints'
        messages; True when none of them stops (all logpoints, or hit conditions not met
        yet), so a run goes on."""
        ids = sorted({self._dap_of[b.id] for b in halt.breakpoints if b.id in self._dap_of})
        if not ids or halt.reason not in ("breakpoint", "data breakpoint"):
            return False
        go_on = True
        for i in ids:
            opts = self._bp_options.get(i)
            if opts is None:
                go_on = False
            elif opts.stops():
                if opts.log is None:
                    go_on = False
                else:
                    self._log(halt.engine, opts.log)
        return go_on

    def _log(self, engine: str, message: str) -> None:
        """A logpoint's message, its `{EXPR}`s evaluated on `engine`, with its source line."""
        from neurondbg.machine import expr
        from neurondbg.machine.debugger import CONDITION_ERRORS

        t = self._target()
        state = t.state(engine)

        def value(text: str) -> str:
            try:
                v = expr.parse(text)(state)
            except CONDITION_ERRORS as e:
                raise ValueError(str(e)) from None
            return str(v)

        src, line, col = self._source(engine, state.pc)
        body = dt.OutputEventBody(category="console", output=interpolate(message, value) + "\n",
                                  source=src, line=self._line_out(line) if src else None,
                                  column=self._col_out(col) if src else None)
        self.event("output", body)

    def _until_stop(self, run: Callable[[], Halt], resume: bool = True) -> Halt:
        """`run()`'s halt; with `resume`, run again past stops `_settle` lets through."""
        halt = run()
        while self._settle(halt) and resume:
            halt = run()
        return halt

    def _exit_code(self, halt: Halt) -> int:
        """The code `neurondbg run` would exit with at this stop: 1 for a fault, an invalid
        instruction, a deadlock or any race found, 130 for an interrupt, else 0."""
        if halt.reason == "exception" or self._target().race_count():
            return 1
        return 130 if halt.reason == "pause" else 0

    def _end(self, code: int | None) -> None:
        """`exited` (when the debuggee ended, with its exit code) and `terminated`."""
        if code is not None:
            self.event("exited", dt.ExitedEventBody(exitCode=code))
        self.event("terminated", dt.TerminatedEventBody())
        self.terminated = True

    def _report(self, halt: Halt) -> None:
        """The event(s) a command's end sends."""
        if halt.reason == "exited" and self._stop_on_halt and not self._no_debug:
            halt.reason = "halt"  # stays a stop: the editor can step back from here
        if halt.reason == "exited" or self._no_debug:
            self.output(halt.description)
            if halt.text and halt.text != halt.description:  # e.g. the races a run found
                self.output(halt.text, "stderr")
            self._end(self._exit_code(halt))
            return
        self._last_halt = halt
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

    # -- what the editor sees ------------------------------------------------------------
    def _line_out(self, line: int) -> int:
        return line if self.client.lines_at1 else line - 1

    def _line_in(self, line: int) -> int:
        return line if self.client.lines_at1 else line + 1

    def _col_out(self, col: int) -> int:
        return col if self.client.columns_at1 else col - 1

    def _shown_path(self, p: Path) -> Path:
        """`p` as the editor knows it: the launched path itself, or a file beside it
        through the same folder (a symlinked clone stays symlinked), else `p` absolute."""
        launch, real = self._launched, resolved(p)
        if launch is not None:
            if resolved(launch) == real:
                return launch
            try:
                return launch.parent / real.relative_to(resolved(launch.parent))
            except ValueError:
                pass
        return Path(os.path.abspath(p))

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
        return dt.Source(name=prog.path.name, path=str(self._shown_path(prog.path))), \
            int(line), int(col)

    def _start(self, run: Callable[[], Halt], resume: bool = True) -> None:
        """Run a long command in the worker thread; its end sends the stop. With `resume`,
        stops at logpoints and unmet hit conditions run on (`_settle`)."""
        def work() -> None:
            try:
                halt = self._until_stop(run, resume)
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


def address_int(text: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise ValueError(f"expected an address such as 0x80, found {text!r}") from None


def resolved(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p
