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

from typing import Any

import dap_types as dt

from neurondbg.dap.breakpoints import EXCEPTION_FILTERS, BreakpointRequests
from neurondbg.dap.launch import LaunchArgs, open_target
from neurondbg.dap.memory import MemoryRequests
from neurondbg.dap.messages import CAPABILITIES
from neurondbg.dap.protocol import RequestError
from neurondbg.dap.variables import VariableRequests


def capabilities() -> dt.Capabilities:
    """What `initialize` announces (messages.CAPABILITIES, which start-up sends before
    this module is imported)."""
    return dt.Capabilities.model_validate(CAPABILITIES)


class Adapter(BreakpointRequests, VariableRequests, MemoryRequests):
    """One debug session: a Target opened by `launch`, driven by requests (the session
    and running requests are here; the rest by job in breakpoints.py, variables.py and
    memory.py, on protocol.AdapterBase)."""

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
        t = self._ready()
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

    # -- running -------------------------------------------------------------------------
    def _on_continue(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        dt.ContinueArguments.model_validate(args)
        t = self._ready()
        self._respond(req, dt.ContinueResponseBody(allThreadsContinued=True))
        self._start(t.cont)

    def _on_reverseContinue(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        dt.ReverseContinueArguments.model_validate(args)
        t = self._ready()
        self._respond(req, None)
        self._start(t.reverse_continue)

    def _step(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.NextArguments.model_validate(args)
        t = self._ready()
        engine = self._engine(a.threadId)
        self._respond(req, None)
        self._report(t.step(engine))

    _on_next = _on_stepIn = _on_stepOut = _step  # one instruction each (module docstring)

    def _on_stepBack(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.StepBackArguments.model_validate(args)
        t = self._ready()
        self._engine(a.threadId)
        self._respond(req, None)
        self._report(t.reverse_step())

    def _on_pause(self, req: dict[str, Any], args: dict[str, Any]) -> None:
        a = dt.PauseArguments.model_validate(args)
        t = self._target()
        self._respond(req, None)
        if self._running.is_set():
            t.interrupt.set()  # the worker's stop reports "pause"
        else:
            self.event("stopped", dt.StoppedEventBody(
                reason="pause", threadId=a.threadId, allThreadsStopped=True))
