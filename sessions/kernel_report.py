"""What `run KERNEL` prints: the `run --json` document of a Core and its text summary.

JSON (DESIGN.md `run --json`, plus the kernel keys of issue 14): `steps` (global
scheduler steps), `stop` (Stop.to_dict(): reason, engine, pc, detail; `waiting` for
a deadlock; `source` file:line:column for assembly), `pc` / `registers` / `engine` of
the engine the stop names (else the focused one: the keys a one-queue run has),
`engines`, `semaphores`, `races` (Core.to_json), `gen`, `schedule`, `halted` (every
engine), `digest` (Core.digest) and `kernel` (the source path).

Text: the stop line (with each waiting engine's wait for a deadlock), one line per
engine, the non-zero semaphores, each race in words, and a totals line.
"""

from __future__ import annotations

from typing import Any

from machine.core.core import Wait, race_text
from machine.core.races import Race
from machine.stops import Stop
from sessions.cli_support import add_verdict
from sessions.kernel_open import OpenedKernel


def stop_engine(opened: OpenedKernel, stop: Stop) -> str:
    """The engine a stop is about, else the focused one."""
    core = opened.core
    return stop.engine if stop.engine in core.engines else core.focus


def result_json(opened: OpenedKernel, stop: Stop) -> dict[str, Any]:
    """The `run --json` document of a kernel run (see the module docstring)."""
    core = opened.core
    engine = stop_engine(opened, stop)
    st = core.machines[engine].state
    stop_d = stop.to_dict()
    add_verdict(stop_d, stop.reason, stop.record)
    source = opened.where(stop.engine, stop.pc)
    if source is not None:
        stop_d["source"] = source
    out: dict[str, Any] = {
        "steps": core.steps, "stop": stop_d, "pc": st.pc, "registers": list(st.R),
        "engine": engine, "gen": opened.config.gen.label, "schedule": core.schedule,
        "halted": all(core.status(e) == "halted" for e in core.engines),
        "digest": core.digest(), "kernel": str(opened.path)}
    out.update(core.to_json())
    for w in stop_d.get("waiting", []):
        _add_source(opened, w)
    for r in out["races"]:
        _add_source(opened, r["a"])
        _add_source(opened, r["b"])
    if opened.session is not None:
        s = opened.session
        out["session"] = {"kernel": str(opened.path), "saved_steps": s.spec.steps,
                          "digest_ok": s.digest_ok, "warnings": list(s.warnings)}
    return out


def _add_source(opened: OpenedKernel, d: dict[str, Any]) -> None:
    """`source` (file:line:column) beside an engine + pc of the JSON, for assembly."""
    source = opened.where(d["engine"], d["pc"])
    if source is not None:
        d["source"] = source


def _at(opened: OpenedKernel, engine: str, pc: int) -> str:
    source = opened.where(engine, pc)
    return f"pc {pc:#x}" + (f" ({source})" if source else "")


def wait_line(opened: OpenedKernel, w: Wait) -> str:
    """One waiting engine, in words."""
    hope = ("an instruction left in a queue can still update it" if w.can_be_updated
            else "no instruction left in any queue updates it")
    return (f"  {w.engine} waits at {_at(opened, w.engine, w.pc)}: {w.condition}, "
            f"sem[{w.semaphore}] = {w.value}; {hope}")


def race_line(opened: OpenedKernel, n: int, race: Race) -> str:
    """One race, in words (machine.core.core.race_text, with source positions)."""
    return f"race {n}: {race_text(race, lambda engine, pc: _at(opened, engine, pc))}"


def summary(opened: OpenedKernel, stop: Stop, why: list[str] | None = None) -> str:
    """The text `run KERNEL` prints; `why`: lines to show under the stop line (the
    failing clauses of an invalid instruction, as `run PROGRAM` shows them)."""
    core = opened.core
    where = ""
    if stop.engine is not None and stop.pc is not None and stop.reason != "halt":
        where = f" in {stop.engine} at {_at(opened, stop.engine, stop.pc)}"
    if stop.reason == "deadlock":  # the waits below say what the detail would
        lines = [f"stop: deadlock: no engine can run and "
                 f"{', '.join(w.engine for w in stop.waiting)} have not halted"]
    else:
        lines = [f"stop: {stop.reason}{where}: {stop.detail}", *(why or [])]
    lines += [wait_line(opened, w) for w in stop.waiting]
    for e in core.engines:
        m = core.machines[e]
        st = m.state
        regs = [f"R{i}={v:#x}" for i, v in enumerate(st.R) if v]
        lines.append(f"{e}: {core.status(e)} at {_at(opened, e, st.pc)}, "
                     f"{core.engine_steps(e)} steps; "
                     f"registers: {' '.join(regs) if regs else 'all zero'}")
    sems = core.to_json().get("semaphores", {})
    lines.append("semaphores: " + (" ".join(f"sem[{i}]={v}" for i, v in sems.items())
                                   if sems else "all zero"))
    races = core.races
    lines += [race_line(opened, i, r) for i, r in enumerate(races, 1)]
    checked = f"{len(races)} race{'s' if len(races) != 1 else ''}" \
        if core.detector is not None else "races not checked"
    lines.append(f"steps: {core.steps}  gen: {opened.config.gen.label}  schedule: "
                 f"{core.schedule}  {checked}")
    return "\n".join(lines)
