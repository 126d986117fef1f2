"""What `neurondbg run` needs for programs and sessions (commands/run.py).

    opened = open_program_or_session(path, gen, engine)     # SessionError -> InputError
    for w in opened.warnings: print("neurondbg: warning: " + w, file=stderr)
    ... add --break specs / --sbuf to opened.machine as for a program ...
    stop = run_opened(opened, max_steps)   # a session continues from its saved step
    print(json.dumps(result_json(opened, stop)))           # the `run --json` shape
    if save_to: save_after_run(save_to, opened, stop)       # --save-session FILE.toml

Decision: `run SESSION.toml` continues to the next stop exactly as `run PROGRAM`
would from the saved step (as gdb's `continue` after loading a core of state);
`--max-steps N` counts from the saved step; `--max-steps 0` reports the saved
state without running.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from machine.debugger import Machine
from machine.dtypes import DEFAULT_GEN, Gen, parse_gen
from machine.state import MachineConfig
from machine.stops import Stop
from sessions.errors import SessionError
from sessions.program import ProgramFile, read_program
from sessions.schema import SessionSpec
from sessions.store import (
    LoadedSession,
    Progress,
    journal_options,
    load_session,
    save_session,
)

SESSION_SUFFIX = ".toml"
DEFAULT_MAX_STEPS = 10_000_000


@dataclass
class Opened:
    """A machine ready to run, from a program or from a session at its saved step."""

    machine: Machine
    program_path: Path
    session: LoadedSession | None = None
    warnings: list[str] = field(default_factory=list)
    source: ProgramFile | None = None  # the program file, for file:line:column messages

    @property
    def is_session(self) -> bool:
        return self.session is not None

    @property
    def layout(self) -> dict[str, Any]:
        return self.session.layout if self.session is not None else {}


def is_session_file(path: str | Path) -> bool:
    return Path(path).suffix.lower() == SESSION_SUFFIX


def open_program_or_session(path: str | Path, gen: str | Gen = DEFAULT_GEN, engine: str = "pool",
                            *, execute_invalid: bool = False, progress: Progress | None = None,
                            interrupt: threading.Event | None = None,
                            history: bool = True) -> Opened:
    """A session file (.toml: its own gen/engine/config win) or a PROGRAM; SessionError
    (one line, naming the file) on bad input. A session replays to its saved step with
    `progress(done, total)` reports; setting `interrupt` raises SessionInterrupted.
    `history=False`: the machine keeps no undo history (a headless run nobody reverses)."""
    p = Path(path)
    if is_session_file(p):
        loaded = load_session(p, progress=progress, interrupt=interrupt, history=history)
        return Opened(loaded.machine, loaded.program_path, loaded, list(loaded.warnings),
                      loaded.source)
    try:
        g = parse_gen(gen)
    except ValueError as e:
        raise SessionError(f"--gen: {e}") from None
    prog = read_program(p, g)
    config = MachineConfig(gen=g, engine=engine, execute_invalid=execute_invalid)
    try:
        m = Machine(prog.program, config, data=prog.data, labels=prog.labels,
                    **journal_options(history))
    except ValueError as e:
        raise SessionError(f"{p}: {e}") from None
    return Opened(m, p.resolve(), source=prog)


def run_opened(opened: Opened, max_steps: int | None = None) -> Stop:
    """Run to the next stop; at most `max_steps` steps (None: DEFAULT_MAX_STEPS) from where
    the machine is (a session: its saved step)."""
    return opened.machine.cont(max_steps=DEFAULT_MAX_STEPS if max_steps is None else max_steps)


def where(opened: Opened, stop: Stop) -> str | None:
    """`file:line:column` of the instruction a stop is on, for an assembly program."""
    if opened.source is None:
        return None
    i = opened.machine.index_of(stop.pc)
    return None if i is None else opened.source.where(i)


def result_json(opened: Opened, stop: Stop) -> dict[str, Any]:
    """The `run --json` document (DESIGN.md), plus `session` for a session file."""
    m, st = opened.machine, opened.machine.state
    out: dict[str, Any] = {
        "steps": st.steps, "stop": stop.to_dict(), "pc": st.pc, "registers": list(st.R),
        "gen": m.config.gen.label, "engine": m.config.engine, "halted": st.halted,
        "digest": st.digest()}
    add_verdict(out["stop"], stop.reason, stop.record)
    source = where(opened, stop)
    if source is not None:
        out["stop"]["source"] = source
    if opened.session is not None:
        s = opened.session
        out["session"] = {"program": str(s.program_path), "saved_steps": s.spec.steps,
                          "program_changed": s.program_changed, "digest_ok": s.digest_ok,
                          "warnings": list(s.warnings)}
    return out


def add_verdict(stop: dict[str, Any], reason: str, rec: Any) -> None:
    """An `invalid` stop's `failed` clauses and `fixes` (clause -> fix) in `run --json`."""
    if reason == "invalid" and rec is not None and rec.verdict is not None:
        stop["failed"] = list(rec.verdict.failed)
        stop["fixes"] = {c.name: c.fix for c in rec.verdict.clauses
                         if not c.passed and not c.note and c.fix}


def save_after_run(path: str | Path, opened: Opened, stop: Stop | None = None,
                   layout: dict[str, Any] | None = None) -> SessionSpec:
    """`run ... --save-session FILE.toml`: the session where the run stopped."""
    keep = opened.session.spec if opened.session is not None else None
    return save_session(path, opened.machine, program_path=opened.program_path,
                        layout=layout if layout is not None else opened.layout, stop=stop,
                        tour=keep.tour if keep else None, notes=keep.notes if keep else None)
