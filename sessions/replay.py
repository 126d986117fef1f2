"""Golden-model diff: re-run a program and find the first step that differs from a trace.

    result = replay("run.jsonl", "prog.asm", gen="cayman", engine="pool")
    result.divergence      # None, or Divergence(step, line, field, expected, actual)

Each trace line is compared with the line this machine produces for the same
step (sessions.trace.step_to_json): every key the trace has must match, and a
fault / refusal / halt the trace does not have is a divergence too. A trace that
starts at step k > 0 (exported mid-session) is reached by running k steps first.

A kernel's trace (sessions.trace: a header with `engines`, lines naming their
engine) replays with `replay_kernel`: each line's engine takes the next global step
(the journaled schedule is followed, whatever the policy would pick), so the engine
is compared like any other key and a divergence is reported the same way. A trace
starting at global step k > 0 is reached by k steps of the header's schedule policy.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from neurondbg.machine.core.core import Core
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen
from neurondbg.machine.files import InputFileError, load_json, open_stream
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions.errors import SessionError, SessionInterrupted
from neurondbg.sessions.program import load_program
from neurondbg.sessions.store import Progress, run_until
from neurondbg.sessions.trace import HEADER_KEY, step_to_json

EVENT_KEYS = ("fault", "invalid", "halted", "failed")  # must not appear unannounced
MAX_TRACE_BYTES = 1 << 40  # read line by line: the bound only keeps a claim sane
MAX_TRACE_LINE = 16 << 20  # a step's line (writes as hex or sha256) is far smaller
PROGRESS_STEPS = 1024  # steps between progress reports (a step costs far more than a call)
COUNT_CHUNK = 1 << 20  # bytes counted between interrupt checks: about a millisecond
CHECK_LINES = 256  # lines parsed between interrupt checks after a divergence (well < 100 ms)


@dataclass(frozen=True)
class Divergence:
    step: int
    line: int  # 1-based line of the trace file
    field: str  # e.g. "pc", "writes[0].new"
    expected: Any  # the trace's JSON value and the re-run's, as compared
    actual: Any

    def describe(self) -> str:
        return (f"step {self.step} (trace line {self.line}): {self.field}: expected "
                f"{json.dumps(self.expected)}, actual {json.dumps(self.actual)}")

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "line": self.line, "field": self.field,
                "expected": self.expected, "actual": self.actual}


@dataclass(frozen=True)
class ReplayResult:
    steps: int  # trace lines compared
    divergence: Divergence | None

    @property
    def diverged(self) -> bool:
        return self.divergence is not None

    def to_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "diverged": self.diverged,
                "divergence": None if self.divergence is None else self.divergence.to_dict()}


@contextmanager
def _open_trace(p: Path) -> Iterator[IO[bytes]]:
    """The trace as a stream (machine.files.open_stream: a FIFO or device is refused,
    never read forever); every failure opening or reading it is a SessionError line."""
    try:
        with open_stream(p, what="trace file", max_bytes=MAX_TRACE_BYTES) as fh:
            yield fh
    except InputFileError as e:  # raised by the stream's reads: _parse_line words its own
        raise SessionError(str(e)) from None


def _lines(p: Path, fh: IO[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, each at most MAX_TRACE_LINE bytes."""
    for n, raw in enumerate(iter(lambda: fh.readline(MAX_TRACE_LINE + 1), b""), 1):
        if len(raw) > MAX_TRACE_LINE:
            raise SessionError(f"{p}:{n}: a line longer than {MAX_TRACE_LINE} bytes; expected "
                               f"one JSON object per line")
        try:
            yield n, raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SessionError(f"{p}:{n}: expected UTF-8 JSON lines: {e.reason}") from None


def read_trace(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, step dict) per non-blank line; SessionError `file:line: ...` if bad."""
    p = Path(path)
    with _open_trace(p) as fh:
        for n, line in _lines(p, fh):
            if line.strip():
                d = _parse_line(p, n, line, header_ok=n == 1)
                if HEADER_KEY not in d:
                    yield n, d


def read_header(path: str | Path) -> dict[str, Any] | None:
    """The trace's header line (gen, engine, execute_invalid), or None for a trace
    written without one; SessionError for a header with bad values."""
    p = Path(path)
    with _open_trace(p) as fh:
        try:
            first = next(_lines(p, fh), (1, ""))[1]
        except SessionError:
            return None  # read_trace reports the problem with its line number
    try:
        d = json.loads(first)
    except (ValueError, RecursionError):  # bad JSON: read_trace reports it with its position
        return None
    if not isinstance(d, dict) or HEADER_KEY not in d:
        return None
    if not isinstance(d.get("engine"), str) or not isinstance(d.get("gen"), str):
        raise SessionError(f"{p}:1: expected a header with \"gen\" and \"engine\" strings")
    return d


def _parse_line(p: Path, n: int, line: str, header_ok: bool = False) -> dict[str, Any]:
    text = line.rstrip("\r\n")
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise SessionError(f"{p}:{n}:{e.colno}: expected a JSON object per line: {e.msg}") \
            from None
    except (ValueError, RecursionError):  # a digit-limit integer, nesting too deep
        try:
            load_json(text, str(p), first_line=n)  # words it as file:line:column
        except InputFileError as e:
            raise SessionError(str(e)) from None
        raise
    if not isinstance(d, dict):
        raise SessionError(f"{p}:{n}: expected a JSON object per line, found "
                           f"{type(d).__name__}")
    if HEADER_KEY in d:
        if not header_ok:
            raise SessionError(f"{p}:{n}: a trace header belongs on the first line only")
        return d
    step = d.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise SessionError(f"{p}:{n}: expected \"step\": a non-negative integer, found "
                           f"{json.dumps(step)}")
    return d


def first_difference(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """(field path, expected, actual) of the first difference, in the trace's key order."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return path, expected, actual
        for k, v in expected.items():
            sub = f"{path}.{k}" if path else k
            if k not in actual:
                return sub, v, None
            d = first_difference(v, actual[k], sub)
            if d is not None:
                return d
        if not path:
            for k in EVENT_KEYS:
                if k in actual and k not in expected:
                    return k, None, actual[k]
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return path, expected, actual
        for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
            d = first_difference(e, a, f"{path}[{i}]")
            if d is not None:
                return d
        if len(expected) != len(actual):
            i = min(len(expected), len(actual))
            return (f"{path}[{i}]", expected[i] if i < len(expected) else None,
                    actual[i] if i < len(actual) else None)
        return None
    return None if expected == actual else (path, expected, actual)


def _count_steps(trace: Path, interrupt: threading.Event | None) -> int:
    """The trace's step lines (non-blank lines, the header not counted), for the bar's
    total: newlines counted in COUNT_CHUNK blocks, `interrupt` checked between blocks
    (SessionInterrupted), no line parsed (the replay checks each as it reads it)."""
    lines, first, carry = 0, b"", b""
    with _open_trace(trace) as fh:
        while block := fh.read(COUNT_CHUNK):
            _check_interrupt(interrupt, trace, "counting the trace's steps", 0, 0)
            data = carry + block
            cut = data.rfind(b"\n") + 1
            whole, carry = data[:cut], data[cut:]
            if not first and whole:
                first = whole[:whole.find(b"\n")]
            lines += _nonblank_lines(whole)
            if len(carry) > MAX_TRACE_LINE:  # read_trace refuses it: no need to count on
                return lines + 1
    lines += 0 if carry.isspace() or not carry else 1
    first = first or carry
    return lines - 1 if _is_header(first) else lines


_MAYBE_BLANK = tuple(b"\n" + bytes([w]) for w in b"\n\r\t\x0b\x0c ")


def _nonblank_lines(whole: bytes) -> int:
    """Lines of `whole` (whole lines, each ending in a newline) with more than whitespace;
    only a block where a line may start with whitespace is split to look."""
    if not whole[:1].isspace() and not any(w in whole for w in _MAYBE_BLANK):
        return whole.count(b"\n")
    return sum(1 for line in whole.split(b"\n")[:-1] if line and not line.isspace())


def _is_header(line: bytes) -> bool:
    try:
        d = json.loads(line)
    except (ValueError, RecursionError):  # read_trace reports it with its position
        return False
    return isinstance(d, dict) and HEADER_KEY in d


def _check_interrupt(interrupt: threading.Event | None, trace: Path, doing: str, step: int,
                     compared: int) -> None:
    """SessionInterrupted (`TRACE: replay interrupted while DOING ...`) once `interrupt`
    is set."""
    if interrupt is not None and interrupt.is_set():
        raise SessionInterrupted(f"{trace}: replay interrupted while {doing} (at step {step}; "
                                 f"{compared} steps matched)", step)


def _diverged(result: ReplayResult, rest: Iterator[tuple[int, dict[str, Any]]], trace: Path,
              interrupt: threading.Event | None, progress: Progress | None,
              total: int) -> ReplayResult:
    """`result` (a divergence) once the trace's remaining lines are checked too: a bad line
    is reported (SessionError) whatever the replay found, as when the trace matches."""
    for i, (n, _) in enumerate(rest):
        if i % CHECK_LINES == 0:
            _check_interrupt(interrupt, trace, "checking the trace's lines after the "
                             f"divergence (line {n})", result.steps, result.steps)
    return _ended(result, progress, total)


def _reporter(progress: Progress | None, total: int) -> Callable[[int], None]:
    """`report(compared)`: progress(compared, total) every PROGRESS_STEPS steps and at
    0; the replays call `progress` themselves once they end."""
    if progress is None:
        return _no_report
    progress(0, total)

    def report(compared: int) -> None:
        if compared % PROGRESS_STEPS == 0:
            progress(compared, total)
    return report


def _no_report(compared: int) -> None:
    """The report of a replay nobody watches."""


def _ended(result: ReplayResult, progress: Progress | None, total: int) -> ReplayResult:
    """`result`, once `progress` has its final count: `total` when every step matched,
    the steps compared when one diverged."""
    if progress is not None:
        progress(result.steps if result.diverged else total, total)
    return result


def replay(trace_path: str | Path, program_path: str | Path, *, gen: str | Gen = DEFAULT_GEN,
           engine: str = "pool", config: MachineConfig | None = None,
           sbuf: np.ndarray | None = None, interrupt: threading.Event | None = None,
           progress: Progress | None = None) -> ReplayResult:
    """Re-run `program_path` step by step against the trace; the first divergence or none.

    `config` (when given) overrides gen/engine; `sbuf` is an initial SBUF image
    (as `run --sbuf`). Bad input raises SessionError; each line is checked as it is
    read, and the lines after a divergence are checked too, so a bad line is reported
    whatever the replay finds. Setting `interrupt` stops within a millisecond or a step
    with SessionInterrupted (the step reached, and the lines compared so far in its
    message), also while the trace's steps are counted. `progress(steps compared, steps
    in the trace)` is called once they are counted, every PROGRESS_STEPS steps and at
    the end (steps a mid-session trace runs before its first line are not counted).
    """
    trace = Path(trace_path)
    total = _count_steps(trace, interrupt)
    cfg = config or MachineConfig(gen=parse_gen(gen), engine=engine)
    program, data, labels = load_program(Path(program_path), cfg.gen)
    try:
        m = Machine(program, cfg, data=data, labels=labels)
        if sbuf is not None:
            m.load_sbuf(sbuf)
    except ValueError as e:
        raise SessionError(f"{program_path}: {e}") from None
    core = Core.of_program(m, Path(program_path), journal_budget=0)
    report = _reporter(progress, total)
    compared = 0
    lines = read_trace(trace)
    for n, expected in lines:
        if compared == 0 and expected["step"] > 0:  # a trace exported mid-session
            k = expected["step"]
            run_until(core, k, k, None, interrupt, str(trace), "replay")
        if interrupt is not None and interrupt.is_set():
            raise SessionInterrupted(f"{trace}: replay interrupted at step {m.state.steps} "
                                     f"(trace line {n}; {compared} steps matched)",
                                     m.state.steps)
        rec = core.step().record  # None once halted: the queue says so itself
        actual = json.loads(json.dumps(step_to_json(rec if rec is not None else m.step())))
        compared += 1
        report(compared)
        d = first_difference(expected, actual)
        if d is not None:
            return _diverged(ReplayResult(compared, Divergence(expected["step"], n, *d)),
                             lines, trace, interrupt, progress, total)
    return _ended(ReplayResult(compared, None), progress, total)


def replay_kernel(trace_path: str | Path, kernel_path: str | Path, *, gen: Gen | None = None,
                  sbuf: np.ndarray | None = None, interrupt: threading.Event | None = None,
                  progress: Progress | None = None) -> ReplayResult:
    """Re-run the kernel at `kernel_path` following the engines a kernel trace names;
    the first divergence or none. `gen` (given) wins over the kernel's own; errors,
    `interrupt` and `progress` (global steps compared) as `replay`."""
    from neurondbg.sessions.cli_support import Image, open_kernel
    from neurondbg.sessions.trace import core_step_to_json

    trace = Path(trace_path)
    total = _count_steps(trace, interrupt)
    header = read_header(trace) or {}
    schedule = header.get("schedule", "rr")
    images = [] if sbuf is None else [Image("sbuf", 0, 0, sbuf, "--sbuf")]
    opened = open_kernel(kernel_path, gen, schedule=schedule if isinstance(schedule, str)
                         else "rr", races=False,
                         execute_invalid=bool(header.get("execute_invalid", False)),
                         journal_budget=0, images=images)
    core = opened.core
    report = _reporter(progress, total)
    compared = 0
    lines = read_trace(trace)
    for n, expected in lines:
        if compared == 0 and expected["step"] > 0:  # a trace exported mid-session
            _run_core_to(core, expected["step"], interrupt, trace)
        if interrupt is not None and interrupt.is_set():
            raise SessionInterrupted(f"{trace}: replay interrupted at step {core.steps} "
                                     f"(trace line {n}; {compared} steps matched)", core.steps)
        engine = expected.get("engine")
        if engine not in core.engines:
            return _diverged(ReplayResult(compared + 1, Divergence(expected["step"], n, "engine",
                                                                   engine, None)),
                             lines, trace, interrupt, progress, total)
        step = core.steps  # the global step this line's engine takes
        actual = json.loads(json.dumps(core_step_to_json(core.step(engine), step, True)))
        compared += 1
        report(compared)
        if "waiting" in actual and "waiting" not in expected:  # it could not issue here
            return _diverged(ReplayResult(compared, Divergence(expected["step"], n, "waiting",
                                                               None, actual["waiting"])),
                             lines, trace, interrupt, progress, total)
        d = first_difference(expected, actual)
        if d is not None:
            return _diverged(ReplayResult(compared, Divergence(expected["step"], n, *d)),
                             lines, trace, interrupt, progress, total)
    return _ended(ReplayResult(compared, None), progress, total)


def _run_core_to(core: Core, step: int, interrupt: threading.Event | None, trace: Path) -> None:
    """Advance `core` under its policy to global step `step`, checking `interrupt`."""
    while core.steps < step:
        if interrupt is not None and interrupt.is_set():
            raise SessionInterrupted(f"{trace}: replay interrupted at step {core.steps} of "
                                     f"{step}", core.steps, step)
        stop = core.cont(max_steps=min(1 << 16, step - core.steps))
        if stop.reason != "max-steps" and core.steps < step:
            raise SessionError(f"{trace}: the trace starts at step {step}, but the kernel "
                               f"stops at step {core.steps}: {stop.reason}")
