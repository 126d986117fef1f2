"""What `neurondbg run` needs for sessions (the lead wires these into commands/run.py).

    opened = open_program_or_session(path, gen, engine)     # SessionError -> InputError
    for w in opened.warnings: print("neurondbg: warning: " + w, file=stderr)
    ... add --break specs / --sbuf to opened.machine as for a program ...
    stop = run_opened(opened, max_steps)   # max_steps None: a session stays at its step
    print(json.dumps(result_json(opened, stop)))           # the `run --json` shape
    if save_to: save_after_run(save_to, opened, stop)       # --save-session FILE.toml
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from machine.debugger import Machine, Stop
from machine.dtypes import Gen, parse_gen
from machine.state import MachineConfig
from sessions.errors import SessionError
from sessions.program import load_program
from sessions.schema import SessionSpec
from sessions.store import LoadedSession, load_session, save_session

SESSION_SUFFIX = ".toml"
DEFAULT_MAX_STEPS = 10_000_000


@dataclass
class Opened:
    """A machine ready to run, from a program or from a session at its saved step."""

    machine: Machine
    program_path: Path
    session: LoadedSession | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def is_session(self) -> bool:
        return self.session is not None

    @property
    def layout(self) -> dict[str, Any]:
        return self.session.layout if self.session is not None else {}


def is_session_file(path: str | Path) -> bool:
    return Path(path).suffix.lower() == SESSION_SUFFIX


def open_program_or_session(path: str | Path, gen: str | Gen = "cayman", engine: str = "pool",
                            *, execute_invalid: bool = False) -> Opened:
    """A session file (.toml: its own gen/engine/config win) or a PROGRAM; SessionError
    (one line, naming the file) on bad input."""
    p = Path(path)
    if is_session_file(p):
        loaded = load_session(p)
        return Opened(loaded.machine, loaded.program_path, loaded, list(loaded.warnings))
    try:
        g = parse_gen(gen)
    except ValueError as e:
        raise SessionError(f"--gen: {e}") from None
    program, data, labels = load_program(p, g)
    config = MachineConfig(gen=g, engine=engine, execute_invalid=execute_invalid)
    try:
        m = Machine(program, config, data=data, labels=labels)
    except ValueError as e:
        raise SessionError(f"{p}: {e}") from None
    return Opened(m, p.resolve())


def run_opened(opened: Opened, max_steps: int | None = None) -> Stop:
    """Run. For a program, `max_steps` None means DEFAULT_MAX_STEPS. For a session,
    `max_steps` counts from the program's start: None (or not more than the saved
    step) stays at the saved step and returns the saved stop; more continues."""
    m = opened.machine
    if opened.session is None:
        return m.cont(max_steps=DEFAULT_MAX_STEPS if max_steps is None else max_steps)
    at = m.state.steps
    if max_steps is not None and max_steps > at:
        return m.cont(max_steps=max_steps - at)
    if opened.session.stop is not None:
        return opened.session.stop
    return Stop("max-steps", m.state.pc, f"at the saved step {at}", 0, record=m.last)


def result_json(opened: Opened, stop: Stop) -> dict[str, Any]:
    """The `run --json` document (DESIGN.md), plus `session` for a session file."""
    m, st = opened.machine, opened.machine.state
    out: dict[str, Any] = {
        "steps": st.steps, "stop": stop.to_dict(), "pc": st.pc, "registers": list(st.R),
        "gen": m.config.gen.label, "engine": m.config.engine, "halted": st.halted,
        "digest": st.digest()}
    rec = stop.record
    if stop.reason == "invalid" and rec is not None and rec.verdict is not None:
        out["stop"]["failed"] = list(rec.verdict.failed)
    if opened.session is not None:
        s = opened.session
        out["session"] = {"program": str(s.program_path), "saved_steps": s.spec.steps,
                          "program_changed": s.program_changed, "digest_ok": s.digest_ok,
                          "warnings": list(s.warnings)}
    return out


def save_after_run(path: str | Path, opened: Opened, stop: Stop | None = None,
                   layout: dict[str, Any] | None = None) -> SessionSpec:
    """`run ... --save-session FILE.toml`: the session where the run stopped."""
    keep = opened.session.spec if opened.session is not None else None
    return save_session(path, opened.machine, program_path=opened.program_path,
                        layout=layout if layout is not None else opened.layout, stop=stop,
                        tour=keep.tour if keep else None, notes=keep.notes if keep else None)
