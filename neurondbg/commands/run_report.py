"""What `neurondbg run` prints: the `run --json` document and the text summary, for a
PROGRAM (one queue) and for a KERNEL (a Core).

A PROGRAM's JSON (DESIGN.md `run --json`): `steps`, `stop` (reason, pc, detail; an
invalid stop's `failed` clauses and `fixes`; `source` file:line:column for assembly),
`pc`, `registers`, `gen`, `engine`, `halted`, `digest`, and `session` when it continued
a session file. Its text: the stop line (with the failing clauses of an invalid
instruction, in `validate`'s words), the steps / pc / gen / engine line, the non-zero
registers.

A KERNEL's JSON adds to the same keys: `stop.engine` (`waiting` for a deadlock), `pc` /
`registers` / `engine` of the engine the stop names (else the focused one), `engines`,
`semaphores`, `races` (Core.to_json), `schedule`, `halted` (every engine), `digest`
(Core.digest) and `kernel` (the source path). Its text: the stop line (each waiting
engine's wait for a deadlock), one line per engine, the non-zero semaphores, each race
in words, and a totals line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neurondbg.machine.stops import Stop, StopReason

if TYPE_CHECKING:
    from neurondbg.machine.core.core import Wait
    from neurondbg.machine.core.races import Race
    from neurondbg.machine.engines.record import StepRecord
    from neurondbg.sessions.cli_support import Opened, OpenedKernel


def failing_clauses(stop: Stop) -> list[str]:
    """The failing clauses of an invalid stop, in `validate`'s words (else none)."""
    rec = stop.record
    if stop.reason != StopReason.INVALID or rec is None or rec.verdict is None:
        return []
    from neurondbg.commands.validate import failing_clause_lines

    return failing_clause_lines(rec.verdict)


def add_verdict(stop: dict[str, Any], reason: str, rec: StepRecord | None) -> None:
    """An `invalid` stop's `failed` clauses and `fixes` (clause -> fix) in `run --json`."""
    if reason == StopReason.INVALID and rec is not None and rec.verdict is not None:
        stop["failed"] = list(rec.verdict.failed)
        stop["fixes"] = {c.name: c.fix for c in rec.verdict.clauses
                         if not c.passed and not c.note and c.fix}


# -- a program --------------------------------------------------------------------------
def program_where(opened: Opened, stop: Stop) -> str | None:
    """`file:line:column` of the instruction a program's stop is on (assembly only)."""
    if opened.source is None or stop.pc is None:
        return None
    i = opened.machine.index_of(stop.pc)
    return None if i is None else opened.source.where(i)


def program_json(opened: Opened, stop: Stop) -> dict[str, Any]:
    """The `run --json` document of a program or program session."""
    m, st = opened.machine, opened.machine.state
    out: dict[str, Any] = {
        "steps": st.steps, "stop": stop.to_dict(), "pc": st.pc, "registers": list(st.R),
        "gen": m.config.gen.label, "engine": m.config.engine, "halted": st.halted,
        "digest": st.digest()}
    add_verdict(out["stop"], stop.reason, stop.record)
    source = program_where(opened, stop)
    if source is not None:
        out["stop"]["source"] = source
    if opened.session is not None:
        s = opened.session
        out["session"] = {"program": str(s.program_path), "saved_steps": s.spec.steps,
                          "program_changed": s.program_changed, "digest_ok": s.digest_ok,
                          "warnings": list(s.warnings)}
    return out


def program_text(opened: Opened, stop: Stop) -> str:
    """The text `run PROGRAM` prints."""
    m = opened.machine
    st = m.state
    source = program_where(opened, stop)
    at = f" ({source})" if source else ""
    pc = "None" if stop.pc is None else f"{stop.pc:#x}"
    lines = [f"stop: {stop.reason} at pc {pc}{at}: {stop.detail}", *failing_clauses(stop)]
    lines += [f"steps: {st.steps}  pc: {st.pc:#x}  gen: {m.config.gen.label}  "
              f"engine: {m.config.engine}"]
    regs = [f"R{i}={v:#x}" for i, v in enumerate(st.R) if v]
    lines.append("registers: " + (" ".join(regs) if regs else "all zero"))
    return "\n".join(lines)


def program_interrupted(opened: Opened, stop: Stop) -> str:
    """The stderr line of a program run Ctrl+C stopped."""
    st = opened.machine.state
    source = program_where(opened, stop)
    return (f"neurondbg: interrupted at step {st.steps} (engine {opened.machine.config.engine}"
            f", pc {st.pc:#x}{', ' + source if source else ''})")


# -- a kernel ---------------------------------------------------------------------------
def stop_engine(opened: OpenedKernel, stop: Stop) -> str:
    """The engine a stop is about, else the focused one."""
    core = opened.core
    return stop.engine if stop.engine in core.engines else core.focus


def kernel_json(opened: OpenedKernel, stop: Stop) -> dict[str, Any]:
    """The `run --json` document of a kernel or kernel session."""
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
    from neurondbg.machine.core.core import race_text

    return f"race {n}: {race_text(race, lambda engine, pc: _at(opened, engine, pc))}"


def kernel_text(opened: OpenedKernel, stop: Stop) -> str:
    """The text `run KERNEL` prints (an invalid stop's failing clauses under its line)."""
    core = opened.core
    where = ""
    if stop.engine is not None and stop.pc is not None and stop.reason != StopReason.HALT:
        where = f" in {stop.engine} at {_at(opened, stop.engine, stop.pc)}"
    if stop.reason == StopReason.DEADLOCK:  # the waits below say what the detail would
        lines = [f"stop: deadlock: no engine can run and "
                 f"{', '.join(w.engine for w in stop.waiting)} have not halted"]
    else:
        lines = [f"stop: {stop.reason}{where}: {stop.detail}", *failing_clauses(stop)]
    lines += [wait_line(opened, w) for w in stop.waiting]
    for e in core.engines:
        st = core.machines[e].state
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


def kernel_interrupted(opened: OpenedKernel, stop: Stop) -> str:
    """The stderr line of a kernel run Ctrl+C stopped."""
    source = opened.where(stop.engine, stop.pc)
    at = "" if stop.pc is None else f" (engine {stop.engine}, pc {stop.pc:#x}" + (
        f", {source})" if source else ")")
    return f"neurondbg: interrupted at step {opened.core.steps}{at}"
