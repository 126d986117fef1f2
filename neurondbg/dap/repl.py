"""`evaluate`: an expression (watch, hover: the console's `print`) or, with context
`repl`, a line of the TUI console (neurondbg.console) typed in the editor's debug console.

The debug console runs the console commands that make sense beside an editor, on the
frame's engine: `print` / `x` / `explain` (read only), `set` (journaled: stepBack undoes
it), `step [N]` / `next N`, `reverse [N]`, `continue`, `reverse-continue` (these answer at
once and the run's end is a `stopped` event, as the editor's buttons are), `break SPEC` /
`watch TARGET` (a `breakpoint` event tells the editor), `delete [N|all]` (the
breakpoints the console made), `info breakpoints|registers` and `help`. A line that is
no command is an expression. The TUI's own commands (panes, tours, files, quit) answer
with an error saying so.
"""

from __future__ import annotations

import dap_types as dt

from neurondbg.dap.breakpoints import BreakpointRequests
from neurondbg.dap.edits import EditRequests
from neurondbg.dap.protocol import RequestError
from neurondbg.dap.target import Halt, Target

READING = ("print", "x", "explain")  # console commands that only read: run as they are
RUNNING = ("step", "next", "reverse", "continue", "reverse-continue")
CONSOLE = "console"  # the breakpoint table of breakpoints the debug console made
MAX_COUNT = 1 << 40  # a step count; more is refused rather than queued


def _count(rest: str, default: int | None = 1) -> int:
    if not rest:
        if default is None:
            raise ValueError("expected a count: next N")
        return default
    try:
        n = int(rest, 0)
    except ValueError:
        raise ValueError(f"expected a count, found {rest[:40]!r}") from None
    if not 1 <= n <= MAX_COUNT:
        raise ValueError(f"expected a count 1..{MAX_COUNT}, found {n}")
    return n


class ReplRequests(BreakpointRequests, EditRequests):
    """evaluate (expressions and the debug console's commands)."""

    def _on_evaluate(self, req: dict[str, object], args: dict[str, object]) -> None:
        a = dt.EvaluateArguments.model_validate(args)
        t = self._idle()
        engine = self._engine(a.frameId) if a.frameId else t.engines[0]
        text = a.expression.strip()
        if a.context == "repl":
            result = self._command(req, text, engine)
            if result is None:
                return  # a run command: answered, its stop follows
        else:
            result = self._print(text, engine)
        if isinstance(result, tuple):  # a range of memory cells: expandable
            self._respond(req, dt.EvaluateResponseBody(result=result[0],
                                                       variablesReference=result[1]))
            return
        self._respond(req, dt.EvaluateResponseBody(result=result, variablesReference=0))


    def _command(self, req: dict[str, object], text: str, engine: str
                 ) -> str | tuple[str, int] | None:
        """Run one debug-console line; its text (or memory cells to expand), or None when
        a run was started (and the request answered)."""
        from neurondbg import console

        _, cmd, rest = console.REGISTRY.split(text)
        if cmd is None:
            return self._print(text, engine)
        name = cmd.name
        if name == "print":
            return self._print(rest, engine)
        if name in READING:
            return self._read(f"{name}{'' if rest.startswith('/') else ' '}{rest}", engine)
        if name in RUNNING:
            self._run(req, name, rest, engine)
            return None
        t = self._target()
        if name == "set":
            left, eq, right = rest.partition("=")
            if not eq:
                raise ValueError("expected TARGET = VALUE, e.g. set R5 = 3")
            out = t.set_value(engine, left.strip(), right.strip())
            self._edited(engine, 1)
            return out
        if name in ("break", "watch"):
            return self._break(rest if name == "break" else f"watch:{rest}", name)
        if name == "delete":
            return self._delete(rest)
        if name == "info":
            return self._info(t, rest, engine)
        if name == "help":
            return ("the debug console runs: print EXPR, x/NF ADDR, explain TEXT, "
                    "set TARGET = VALUE, step [N], next N, reverse [N], continue, "
                    "reverse-continue, break SPEC, watch TARGET, delete [N|all], "
                    "info breakpoints|registers; anything else is an expression")
        raise RequestError(f"{name}: a command of the TUI; the debug console runs print, x, "
                           "explain, set, step, next, reverse, continue, break, watch, "
                           "delete and info (help lists them)")

    def _run(self, req: dict[str, object], name: str, rest: str, engine: str) -> None:
        t = self._ready()
        n = _count(rest, None if name == "next" else 1) if name in ("step", "next",
                                                                     "reverse") else 1
        if name in ("continue", "reverse-continue") and rest:
            raise ValueError(f"{name} takes no argument here (use a hitCondition)")

        def steps() -> Halt:
            halt = Halt("step", engine, "step")
            for _ in range(n):
                if t.interrupt.is_set():
                    return Halt("pause", engine, "interrupted")
                halt = t.step(engine) if name != "reverse" else t.reverse_step()
                if halt.reason != "step":
                    break
            return halt

        self._respond(req, dt.EvaluateResponseBody(result="", variablesReference=0))
        if name == "continue":
            self._start(t.cont)
        elif name == "reverse-continue":
            self._start(t.reverse_continue)
        else:
            self._start(steps, resume=False)

    def _break(self, spec: str, name: str) -> str:
        if not spec or spec == "watch:":
            raise ValueError(f"expected a spec: {name} "
                             + ("label:loop / pc:0x80 / op:CAST" if name == "break" else "R5"))
        if spec[:1].isdigit():  # a bare address: gdb's `break *0x80`
            spec = f"pc:{spec}"
        self._idle()
        dap_id = self._add(self._other_bps, CONSOLE, [spec])
        self.event("breakpoint", dt.BreakpointEventBody(
            reason="new", breakpoint=dt.Breakpoint(id=dap_id, verified=True,
                                                   message=spec)))
        return f"breakpoint #{dap_id}: {spec}"

    def _delete(self, rest: str) -> str:
        made = self._other_bps.get(CONSOLE, [])
        if rest in ("", "all"):
            gone = [d for d, _ in made]
        else:
            try:
                gone = [int(rest.lstrip("#"), 0)]
            except ValueError:
                raise ValueError(f"expected a breakpoint number or 'all', found "
                                 f"{rest[:40]!r}") from None
            if gone[0] not in {d for d, _ in made}:
                raise ValueError(f"no breakpoint #{gone[0]} made in the debug console "
                                 "(the editor's own are removed in the editor)")
        t = self._target()
        kept = []
        for dap_id, ids in made:
            if dap_id in gone:
                for i in ids:
                    t.delete_breakpoint(i)
                    self._dap_of.pop(i, None)
                self._bp_options.pop(dap_id, None)
                self.event("breakpoint", dt.BreakpointEventBody(
                    reason="removed", breakpoint=dt.Breakpoint(id=dap_id, verified=False)))
            else:
                kept.append((dap_id, ids))
        self._other_bps[CONSOLE] = kept
        return f"deleted {len(gone)} breakpoint(s)"

    def _info(self, t: Target, rest: str, engine: str) -> str:
        what = rest or "breakpoints"
        if "breakpoints".startswith(what):
            lines = []
            for table in (self._source_bps, self._other_bps):
                for ids in table.values():
                    for dap_id, _ in ids:
                        o = self._bp_options.get(dap_id)
                        if o is None:
                            continue
                        lines.append(f"#{dap_id} {o.spec}  hits {o.hits}"
                                     + (f"  hitCondition {o.hit}" if o.hit else "")
                                     + (f"  log {o.log!r}" if o.log else ""))
            return "\n".join(sorted(lines, key=lambda s: int(s[1:].split()[0]))) or \
                "no breakpoints"
        if "registers".startswith(what):
            st = t.state(engine)
            return "\n".join(f"R{r:<2} = {v:#010x} ({v})" for r, v in enumerate(st.R) if v) \
                or "every register is 0"
        raise ValueError(f"expected 'info breakpoints' or 'info registers', found {what!r}")
