"""The one place the UI touches the machine: load a program, drive the
debugger, and turn its state into a `Snapshot` for the panes.

`Session(path, gen, engine)` loads assembly or a binary, judges every record
(machine.legality), and drives machine.debugger when the model is present.
Everything here is reading and forwarding; semantics live in `machine`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from machine.dtypes import Gen, parse_gen
from sessions.examples import DEMO
from views.snapshot import ProgramLine, Snapshot, WrittenRegion

Progress = Callable[[int, float], None]  # (steps so far, steps per second)


class ModelMissing(ValueError):
    """A part of the machine model this build does not have yet."""


def _is_text(data: bytes) -> bool:
    return bool(data) and (b"\0" not in data[:4096]) and (len(data) % 64 != 0 or data.isascii())


def load_source(path: str | Path, gen: Gen) -> tuple[Any, list, dict[str, int]]:
    """(Program, data inits, labels) from assembly text or 64-byte records.

    Errors are ValueError with the CLI's one-line message (file, line:col or offset).
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"{p}: cannot read: {exc.strerror or exc}") from None
    try:
        from machine.asm.loader import looks_like_text

        is_text = looks_like_text(p, data)
    except ImportError:
        is_text = p.suffix in (".asm", ".s") or (p.suffix != ".bin" and _is_text(data))
    if is_text:
        from machine.asm.assembler import assemble

        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{p}: offset {exc.start}: expected UTF-8 assembly text") from None
        asm = assemble(text, str(p), gen)
        return asm.program(), list(asm.data), dict(asm.labels)
    from machine.isa.codec import decode_bytes

    program = decode_bytes(data, str(p))
    inits: list = []
    try:
        from machine.asm.data import data_path, load_data

        if data_path(p).exists():
            inits = load_data(data_path(p))
    except ImportError:
        pass
    return program, inits, {}


def disassemble(inst: Any) -> str:
    """One listing line: the disassembler's text where it exists, else mnemonic + fields."""
    try:
        from machine.asm.disasm import format_instruction

        return str(format_instruction(inst))
    except ImportError:
        pass
    parts = [inst.mnemonic]
    for f in inst.struct.fields:
        if f.role in ("opcode", "reserved") or f.name.startswith(("header.", "events.", "rsvd")):
            continue
        v = inst.fields.get(f.name)
        if v is None or v == 0 or (isinstance(v, tuple) and not any(v)):
            continue
        short = f.name.rsplit(".", 1)[-1]
        if f.enum is not None and not isinstance(v, tuple):
            try:
                v = f.enum(v).name
            except ValueError:
                pass
        parts.append(f"{short}={v}")
    return " ".join(str(x) for x in parts)


class Session:
    """A loaded program and, when machine.debugger exists, a machine running it."""

    def __init__(self, path: str | Path | None = None, gen: str | Gen = "cayman",
                 engine: str = "pool") -> None:
        self.path = Path(path) if path is not None else DEMO
        self.gen = parse_gen(gen)
        self.engine = engine
        self.name = self.path.name
        self.notes: list[Any] = []  # tour notes (sessions.schema.Note), by step
        self.layout: dict[str, Any] = {}  # a session's saved layout, e.g. {"focus": "lanes"}
        self.warnings: list[str] = []
        machine = None
        self.program_path = self.path  # the program file (a session names its own)
        if self.path.suffix.lower() == ".toml":
            machine = self._open_session()
        else:
            self.program, self.data, self.labels = load_source(self.path, self.gen)
        self.lines = self._listing()
        self.last_lanes: tuple[Any, int] | None = None  # (Lanes, step) of the last conversion
        self.dbg = self._make_debugger(machine)
        self.last: Any = None  # last StepRecord
        self.prev_regs: list[int] | None = None
        self.stop_text = "loaded" if machine is None else f"session at step {self.state.steps}"
        self._by_opcode: dict[int, Any] = {}
        self._judged: dict[int, tuple[Any, Any, list[Any]]] = {}
        self.interrupt = threading.Event()

    def _open_session(self) -> Any:
        """A session file (or tour): its machine at the saved step; SessionError is a
        ValueError with the one-line message of the CLI."""
        from sessions.cli_support import open_program_or_session

        opened = open_program_or_session(self.path, self.gen, self.engine)
        machine = opened.machine
        self.program = machine.program
        self.data = []
        self.labels = dict(opened.session.labels) if opened.session else {}
        self.gen = machine.config.gen
        self.engine = machine.config.engine
        self.notes = list(opened.session.notes) if opened.session else []
        self.layout = dict(opened.layout)
        self.warnings = list(opened.warnings)
        self.program_path = Path(opened.program_path)
        return machine

    def save(self, path: str | Path, layout: dict[str, Any] | None = None) -> str:
        """Write a session file (sessions.save_session: atomic) at the current step."""
        from sessions import save_session

        m = self.require()
        save_session(path, m, program_path=self.program_path, layout=layout or {},
                     notes=self.notes or None)
        return f"saved {path} at step {self.state.steps}"

    def note(self) -> Any | None:
        """The tour note for the current step (the last one at or before it)."""
        here = [n for n in self.notes if n.step <= self.state.steps]
        return here[-1] if here else None

    # -- loading ---------------------------------------------------------------
    def _listing(self) -> list[ProgramLine]:
        """The listing, each record judged once by the vectorized validator."""
        by_offset = {off: name for name, off in self.labels.items()}
        valid = np.ones(len(self.program), bool)
        failed: list[tuple[str, ...]] = [()] * len(self.program)
        try:
            from machine.legality.explain import validate

            bulk = validate(self.program, self.gen, self.engine)
            valid = np.asarray(bulk.valid, bool)
        except ImportError:
            valid = None  # type: ignore[assignment]
        try:  # the disassembler's bulk path: one text per record, re-assemblable
            from machine.asm.disasm import disassemble_lines

            texts = [t.strip() for t in disassemble_lines(self.program, self.gen)]
        except ImportError:
            texts = []
        if len(texts) != len(self.program):
            texts = [disassemble(self.program.instruction(i)) for i in range(len(self.program))]
        lines = []
        for i in range(len(self.program)):
            offset = i * 64
            lines.append(ProgramLine(i, offset, texts[i],
                                     None if valid is None else bool(valid[i]),
                                     by_offset.get(offset), failed[i]))
        return lines

    def _make_debugger(self, machine: Any = None) -> Any:
        if machine is not None:
            m = machine
        else:
            try:
                from machine.debugger import Machine
                from machine.state import MachineConfig
            except ImportError:
                return None
            m = Machine(self.program, MachineConfig(gen=self.gen, engine=self.engine),
                        data=self.data, labels=self.labels)
        # Keep the lanes of the last conversion even when `continue` runs past it.
        # Wrapping `step` (not setting `on_step`) keeps the SEQ fast path of `cont`:
        # conversions never take that path, they always go through `step`.
        inner = m.step

        def step_keeping_lanes() -> Any:
            rec = inner()
            if rec.lanes is not None:
                self.last_lanes = (rec.lanes, rec.step)
            return rec

        m.step = step_keeping_lanes
        return m

    def require(self) -> Any:
        if self.dbg is None:
            raise ModelMissing("the machine model (machine.debugger) is not in this build: "
                               "stepping is unavailable; the listing, struct and legality "
                               "views still work")
        return self.dbg

    @property
    def state(self) -> Any:
        if self.dbg is not None:
            return self.dbg.state
        if not hasattr(self, "_state"):
            from machine.state import MachineConfig, MachineState

            self._state = MachineState.create(MachineConfig(gen=self.gen, engine=self.engine))
        return self._state

    # -- driving ----------------------------------------------------------------
    def _regs(self) -> list[int]:
        return list(self.state.R)

    def _remember(self, record: Any) -> None:
        inst = getattr(record, "instruction", None)
        if inst is not None and getattr(record, "executed", True):
            self._by_opcode[inst.opcode] = inst

    def step(self, n: int = 1) -> str:
        """One step always moves (like gdb's stepi); N steps stop early at breakpoints."""
        m = self.require()
        self.prev_regs = self._regs()
        if n == 1:
            rec = m.step()
            self._remember(rec)
            self.last = rec
            self.stop_text = describe_record(rec, m)
        else:
            stop = m.step_n(n)
            self.last = m.last
            self._remember(m.last)
            self.stop_text = describe_stop(stop)
        return self.stop_text

    def reverse(self, n: int = 1) -> str:
        m = self.require()
        self.prev_regs = self._regs()
        done = 0
        while done < n and m.reverse_step():
            done += 1
        self.last = None
        if self.last_lanes is not None and self.last_lanes[1] >= self.state.steps:
            self.last_lanes = None  # that conversion has been undone
        self.stop_text = (f"reversed {done} step(s) to pc {self.state.pc:#x}" if done
                          else "at the start of history: nothing to reverse")
        return self.stop_text

    def stop(self) -> None:
        """Ask a running `run` to stop at the next step boundary (any thread)."""
        self.interrupt.set()
        if self.dbg is not None:
            self.dbg.interrupt.set()

    def run(self, progress: Progress | None = None, slice_s: float = 0.05) -> str:
        """Continue until a stop reason or `stop()`; progress every ~`slice_s` seconds.

        Runs in slices of steps sized to take ~slice_s each, so progress and
        interrupts are timely whatever the speed of the program's instructions.
        """
        m = self.require()
        self.interrupt.clear()
        self.prev_regs = self._regs()
        start = time.perf_counter()
        done, budget = 0, 256
        while True:
            t0 = time.perf_counter()
            stop = m.cont(max_steps=budget)
            done += stop.steps
            if stop.reason != "max-steps":
                break
            if self.interrupt.is_set():
                stop.reason, stop.detail = "interrupt", "stopped by the user"
                break
            took = max(time.perf_counter() - t0, 1e-6)
            budget = max(16, min(1 << 20, int(budget * slice_s / took)))
            if progress is not None:
                progress(done, done / max(time.perf_counter() - start, 1e-9))
        self.last = m.last
        self._remember(m.last)
        self.stop_text = f"{describe_stop(stop)} after {done:,} steps"
        return self.stop_text

    # -- breakpoints ---------------------------------------------------------------
    def breakpoints(self) -> list[Any]:
        return list(self.dbg.breakpoints) if self.dbg is not None else []

    def add_breakpoint(self, spec: str) -> Any:
        return self.require().add_breakpoint(spec)

    def delete_breakpoint(self, ident: int | None) -> int:
        """Delete breakpoint #ident (all when None); ValueError if there is no such one."""
        m = self.require()
        if ident is None:
            ids = [bp.id for bp in m.breakpoints]
            for i in ids:
                m.delete_breakpoint(i)
            return len(ids)
        if not m.delete_breakpoint(ident):
            raise ValueError(f"no breakpoint #{ident}")
        return 1

    def toggle_breakpoint(self, index: int) -> str:
        """Breakpoint at record `index` on or off; returns what happened."""
        m = self.require()
        if not 0 <= index < len(self.lines):
            raise ValueError("no record under the cursor")
        pc = self.lines[index].offset + self.state.config.base
        for bp in m.breakpoints:
            if bp.kind == "pc" and bp.value == pc:
                m.delete_breakpoint(bp.id)
                return f"deleted breakpoint #{bp.id} at {pc:#x}"
        bp = m.add_breakpoint(f"pc:{pc:#x}")
        return f"breakpoint {bp.describe()}"

    def breakpoint_indices(self) -> frozenset[int]:
        base = self.state.config.base
        return frozenset((bp.value - base) // 64 for bp in self.breakpoints()
                         if bp.kind == "pc" and bp.enabled)

    # -- inspecting ------------------------------------------------------------------
    def who(self, target: str) -> str:
        from machine import expr

        t = expr.parse_target(target)
        state = self.state
        if t.kind == "reg":
            hit = state.who_wrote(f"R{t.index}")
        elif t.kind == "mem":
            hit = state.who_wrote(t.space, t.index, t.b0)
        elif t.kind in ("acc", "idx"):
            hit = state.who_wrote(t.kind, t.index)
        else:
            hit = state.who_wrote(f"{t.kind}[{t.index}]")
        if hit is None:
            return f"{target}: not written since the start"
        step, pc = hit
        return f"{target}: last written by step {step} at pc {pc:#x}"

    def set_value(self, target: str, value: str) -> None:
        from machine import expr

        t = expr.parse_target(target)
        v = expr.parse(value)(self.state)
        state = self.state
        if t.kind == "reg":
            state.R[t.index] = int(v) & 0xFFFFFFFF
        elif t.kind == "pc":
            pc, base = int(v), state.config.base
            if (pc - base) % 64 or not 0 <= (pc - base) // 64 <= len(self.lines):
                raise ValueError(f"cannot set PC = {pc:#x}: expected a record address "
                                 f"{base:#x} + 64*i within the program (0..{len(self.lines)})")
            state.pc = pc
        elif t.kind == "mem":
            fmt = t.fmt or "uint8"
            dt = np.dtype(_numpy_type(fmt))
            raw = np.array([v]).astype(dt).view(np.uint8)
            state.memory(t.space)[t.index, t.b0:t.b0 + raw.size] = raw
        else:
            raise ValueError(f"cannot set {target!r}: expected R5, PC or sb[P, BYTE]:FMT")

    def snapshot(self) -> Snapshot:
        state = self.state
        n = len(self.lines)
        pc_index = state.pc_index if 0 <= state.pc_index < n else None
        source = self.dbg if self.dbg is not None else self.program  # the machine caches them
        inst = source.instruction(pc_index) if pc_index is not None else None
        verdict = nki = None
        split: list[Any] = []
        if inst is not None:  # a record's verdicts never change: judge it once
            if pc_index not in self._judged:
                self._judged[pc_index] = judge(inst, self.gen, self.engine)
            verdict, nki, split = self._judged[pc_index]
        record = self.last
        previous = self._by_opcode.get(inst.opcode) if inst is not None else None
        return Snapshot(
            program_name=self.name, gen=self.gen.label, engine=self.engine, lines=self.lines,
            pc=state.pc, pc_index=pc_index, steps=state.steps, registers=self._regs(),
            prev_registers=self.prev_regs, breakpoints=self.breakpoint_indices(),
            instruction=inst, previous_same=previous if previous is not inst else None,
            verdict=verdict, nki_verdict=nki, sbuf=state.sbuf, psum=state.psum, acc=state.acc,
            idx=state.idx, written=written_regions(record), record=record,
            lanes=self.last_lanes[0] if self.last_lanes else None, stop=self.stop_text,
            fault=getattr(record, "fault", None), halted=bool(getattr(state, "halted", False)),
            extra={"disagreements": split,
                   "lanes_step": self.last_lanes[1] if self.last_lanes else None})


def _numpy_type(fmt: str) -> Any:
    from machine.convert.formats import parse_format

    f = parse_format(fmt)
    return getattr(f, "ml_dtype", None) or getattr(f, "value_dtype", None) or f.container


def judge(inst: Any, gen: Gen, engine: str) -> tuple[Any, Any, list[Any]]:
    """(wire verdict, NKI verdict, disagreements) of one instruction; None / [] where the
    legality engine or the instruction<->intrinsic bridge has nothing to say."""
    try:
        from machine.legality.explain import explain
    except ImportError:
        return None, None, []
    try:
        verdict = explain(inst, gen, engine)
    except ValueError:
        verdict = None
    try:
        from machine.legality.nki import bridge

        nki = bridge.check_fields(inst.opcode, inst.fields, gen)
        split = list(bridge.disagreements(inst.opcode, inst.fields, gen)) if nki else []
    except (ImportError, AttributeError, ValueError, KeyError):
        nki, split = None, []
    return verdict, nki, split


def written_regions(record: Any) -> tuple[WrittenRegion, ...]:
    """The SBUF/PSUM cells a StepRecord wrote."""
    out = []
    lanes = getattr(record, "lanes", None)
    fmt = getattr(lanes, "dst", None)  # a conversion writes elements of its target format
    for w in getattr(record, "writes", None) or ():
        region = getattr(w, "region", None)
        if region is None:
            continue
        out.append(WrittenRegion(region.space, region.p0, region.p1, region.byte_index, fmt))
    return tuple(out)


def describe_record(rec: Any, machine: Any) -> str:
    """One step's outcome as one line."""
    where = f"{rec.mnemonic or 'record'} at pc {rec.pc:#x}"
    if rec.fault:
        return f"fault: {rec.fault}"
    if rec.invalid:
        failed = ", ".join(rec.verdict.failed) if rec.verdict is not None else "legality"
        return f"invalid: {where} refused (fails {failed}); the machine stays before it"
    if rec.halted:
        return "halt" if rec.executed else "the machine is halted"
    flags = ""
    if rec.lanes is not None:
        counts = {k: v for k, v in rec.lanes.counts().items() if v}
        flags = "  lanes: " + (", ".join(f"{k} {v}" for k, v in counts.items()) or "exact")
    return f"stepped {where}{flags}"


def describe_stop(stop: Any) -> str:
    """A stop reason as one line: 'breakpoint #1 pc:0x80 at 0x80', 'halt', ..."""
    if stop is None:
        return ""
    if isinstance(stop, str):
        return stop
    reason = getattr(stop, "reason", str(stop))
    detail = getattr(stop, "detail", "")
    pc = getattr(stop, "pc", None)
    text = str(reason)
    if detail:
        text += f": {detail}"
    if pc is not None:
        text += f" (pc {pc:#x})"
    return text
