"""The debug adapter: one DAP request in, its response and any events out.

    adapter = Adapter(writer.send)
    while (msg := read_message(stdin)) is not None and adapter.handle(msg): ...

Requests are parsed and answers built with `dap_types` (the pydantic models of the
official schema); docs/dap.md is the user's and contributor's account of it all. Every
request gets a response: a bad one (unknown command, arguments
the schema refuses, a path that does not load, a breakpoint spec the model refuses) an
error response with one line saying what was expected; `handle` never raises (it is the
adapter's containment boundary: an adapter bug becomes an error response naming it, and
the session goes on). `continue` and `reverseContinue` run in a worker thread so `pause`
stops them at the next step boundary (the model's `interrupt`); `launch` loads in a
thread of its own (neurondbg.dap.loading), so a long replay can be paused, cancelled,
terminated or disconnected.

Decisions where the specification is silent (as gdb / lldb-dap do them):
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
- `pause` during a launch's load stops the load: the launch fails saying at which step
  (a partly replayed session is not the saved one, so nothing is shown as if it were);
- after `terminated` the run requests are refused; the state can still be inspected;
- `exited` carries `neurondbg run`'s exit code: 1 for a fault, an invalid instruction,
  a deadlock or a race found (also when the session is terminated at such a stop),
  0 for a clean halt; `noDebug` runs to the first stop and exits with its code;
- a function breakpoint's name is a label (`loop`: gdb's `break loop`) or any breakpoint
  SPEC of machine.breakpoints (`op:CAST@dve`, `saturate`, `race`), so the editor's
  function-breakpoint box reaches the whole breakpoint language;
- data breakpoints watch writes (`watch:TARGET`): registers from the Registers scope
  (that engine's), or any watch target typed as an expression (`sb[0, 0:64]`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import dap_types as dt

from neurondbg.dap.breakpoints import EXCEPTION_FILTERS
from neurondbg.dap.launch import LaunchArgs, open_target
from neurondbg.dap.loading import Load, Opened, Progress
from neurondbg.dap.memory import MemoryRequests
from neurondbg.dap.messages import CAPABILITIES, kernel_capabilities, request_seq
from neurondbg.dap.protocol import ClientOptions, RequestError
from neurondbg.dap.repl import ReplRequests
from neurondbg.dap.target import Halt

STOP_WAIT = 5.0  # seconds disconnect / terminate wait for a run or load to stop
PARSE_GRACE = 60.0  # seconds a load still reading its files may finish after the client left
CONTROL = ("pause", "cancel", "terminate", "disconnect")  # answered while a replay loads


def capabilities() -> dt.Capabilities:
    """What `initialize` announces (messages.CAPABILITIES, which start-up sends before
    this module is imported)."""
    return dt.Capabilities.model_validate(CAPABILITIES)


class Adapter(ReplRequests, MemoryRequests):
    """One debug session: a Target opened by `launch`, driven by requests (the session
    and running requests are here; the rest by job in breakpoints.py, variables.py,
    edits.py, repl.py and memory.py, on protocol.AdapterBase)."""

    def __init__(self, send: Callable[[dict[str, object]], None]) -> None:
        super().__init__(send)
        self._gate = threading.Lock()  # orders requests with the end of a launch's load
        self._pending: list[dict[str, object]] = []  # requests that came during the load
        self._loading = False

    def handle(self, message: dict[str, object]) -> bool:
        """Answer one message (AdapterBase.handle). While a launch loads, the requests
        after it wait, in order, for its end, as if it had been answered at once; once
        the load is replaying a session (its progress has started: it may take long),
        the CONTROL requests are answered meanwhile (they stop the replay)."""
        command = message.get("command") if message.get("type") == "request" else None
        with self._gate:
            if not self._loading:
                return super().handle(message)
            load = self._load
            replaying = load is not None and load.progress is not None and \
                load.progress.started
            if command not in CONTROL or not replaying:
                self._pending.append(message)
                return not self.ended
        return super().handle(message)  # outside the gate: the load's end takes it

    # -- session -------------------------------------------------------------------------
    def configure_client(self, args: dict[str, object]) -> None:
        """Take what `initialize` said about the client (lines from 0, progress events);
        start-up answers `initialize` itself and hands its arguments on here."""
        self.client = ClientOptions.of(args)

    def _on_initialize(self, req: dict[str, object], args: dict[str, object]) -> None:
        dt.InitializeRequestArguments.model_validate(args)
        self.configure_client(args)
        self._respond(req, capabilities())

    def _on_launch(self, req: dict[str, object], args: dict[str, object]) -> None:
        if self.target is not None or self._load is not None:
            raise RequestError("already launched")
        la = LaunchArgs.model_validate(args)
        self._launched = Path(os.path.abspath(Path(la.program).expanduser()))
        self._no_debug = la.noDebug
        self._stop_on_entry = la.stopOnEntry and not la.noDebug
        self._stop_on_halt = la.stopOnHalt

        def send(name: str, body: dict[str, object]) -> None:
            self.event(name, body)

        progress = Progress(send, f"launch-{request_seq(req)}", f"loading {self._launched.name}",
                            self.client.progress, request_seq(req))

        def open_it(p: Progress | None, interrupt: threading.Event) -> Opened:
            return open_target(la, p, interrupt)

        self._load = Load(open_it, progress, lambda result: self._loaded(req, result))
        self._loading = True
        self._load.start()

    def _loaded(self, req: dict[str, object], result: Opened | BaseException) -> None:
        """On the load's thread once it ends: answer the launch, then the requests that
        waited for it."""
        with self._gate:
            try:
                self._launched_or_not(req, result)
            finally:
                self._loading = False
                pending, self._pending = self._pending, []
                for message in pending:
                    if not super().handle(message):
                        break

    def _launched_or_not(self, req: dict[str, object], result: Opened | BaseException) -> None:
        """The launch's answer."""
        load = self._load
        assert load is not None and load.progress is not None
        if isinstance(result, BaseException):
            load.progress.end("stopped" if load.stopped_by else "failed")
            text = result.args[0] if isinstance(result, ValueError) and result.args else \
                f"internal error: {type(result).__name__}: {result}"
            if load.stopped_by:
                text = f"{text} ({load.stopped_by})"
            self._load = None  # a launch that failed may be sent again
            self._error(req, f"launch: {text}")
            return
        load.progress.end("loaded")
        target, warnings = result
        if load.stopped_by:  # stopped as it finished: the stop wins
            self._load = None
            self._error(req, f"launch: stopped ({load.stopped_by})")
            return
        self.target = target
        if target.is_kernel:
            self.event("capabilities", kernel_capabilities())
            if not self._no_debug:  # the filters' defaults, until setExceptionBreakpoints
                self._set_filters([f for f, *_, default in EXCEPTION_FILTERS if default])
        self._respond(req, None)
        for w in warnings:
            self.output(f"warning: {w}", "stderr")
        self.event("initialized")

    def _stop_load(self, by: str) -> bool:
        """Stop a load under way (waiting for its answer); whether one was."""
        load = self._load
        if load is None or not load.alive:
            return False
        load.stop(by)
        load.join(STOP_WAIT)
        return True

    def stop(self) -> None:
        """The client is gone: stop whatever runs and wait for it a little. A load still
        reading its files ends first (bounded work; the requests queued behind it are
        answered, for a client that wrote them all and closed), a replay is stopped."""
        load, waited = self._load, 0.0
        while load is not None and load.alive and waited < PARSE_GRACE and not (
                load.progress and load.progress.started):
            load.join(0.05)
            waited += 0.05
        self._stop_load("the client went away")
        if self.target is not None:
            self.target.interrupt.set()
        self.wait(STOP_WAIT)

    def _on_configurationDone(self, req: dict[str, object], args: dict[str, object]) -> None:
        t = self._ready()
        self._respond(req, None)
        if self._stop_on_entry:
            self.event("stopped", dt.StoppedEventBody(reason="entry", threadId=1,
                                                      allThreadsStopped=True))
        else:
            self._start(t.cont)

    def _on_disconnect(self, req: dict[str, object], args: dict[str, object]) -> None:
        self.stop()
        self._respond(req, None)
        self.ended = True

    def _on_terminate(self, req: dict[str, object], args: dict[str, object]) -> None:
        if self._stop_load("terminated"):
            self._respond(req, None)
            self._end(None)
            return
        if self.target is not None:
            self.target.interrupt.set()
            self.wait(STOP_WAIT)
        self._respond(req, None)
        if not self.terminated:
            last = self._last_halt
            ended = last is not None and last.reason == "exception"
            self._end(self._exit_code(last) if ended and last is not None else None)

    def _on_cancel(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.CancelArguments.model_validate(args)
        load = self._load
        if load is not None and load.alive and load.progress is not None and (
                a.progressId == load.progress.id or a.requestId is not None):
            load.stop("cancelled")
        self._respond(req, None)

    # -- running -------------------------------------------------------------------------
    def _on_continue(self, req: dict[str, object], args: dict[str, object]) -> None:
        dt.ContinueArguments.model_validate(args)
        t = self._ready()
        self._respond(req, dt.ContinueResponseBody(allThreadsContinued=True))
        self._start(t.cont)

    def _on_reverseContinue(self, req: dict[str, object], args: dict[str, object]) -> None:
        dt.ReverseContinueArguments.model_validate(args)
        t = self._ready()
        self._respond(req, None)
        self._start(t.reverse_continue)

    def _step(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.NextArguments.model_validate(args)
        t = self._ready()
        engine = self._engine(a.threadId)
        self._respond(req, None)
        self._report(self._until_stop(lambda: t.step(engine), resume=False))

    _on_next = _on_stepIn = _on_stepOut = _step  # one instruction each (module docstring)

    def _on_stepBack(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.StepBackArguments.model_validate(args)
        t = self._ready()
        engine = self._engine(a.threadId)
        self._respond(req, None)
        if self._undo_group(engine):  # a writeMemory of several bytes: undone as one
            self._report(Halt("step", engine, "undid a memory write"))
        else:
            self._report(t.reverse_step())

    def _on_pause(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.PauseArguments.model_validate(args)
        load = self._load
        if load is not None and load.alive:
            load.stop("paused")  # the launch's error response says where it stopped
            self._respond(req, None)
            return
        t = self._target()
        self._respond(req, None)
        if self._running.is_set():
            t.interrupt.set()  # the worker's stop reports "pause"
        else:
            self.event("stopped", dt.StoppedEventBody(
                reason="pause", threadId=a.threadId, allThreadsStopped=True))
