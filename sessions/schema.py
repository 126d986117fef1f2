"""The session file schema (version 1): dataclasses <-> the TOML document.

    schema = 1
    [program]      path (relative to the session file), sha256
    [kernel]       instead of [program], for a kernel (machine.core): path (the manifest or
                   `.engine` source, relative), schedule (rr | in-order | random:SEED),
                   races (bool), [kernel.streams] engine = sha256 of that queue's records,
                   [kernel.forced] "STEP" = engine: steps a user gave to an engine the
                   policy would not have picked (Core.forced); [kernel.neff] subgraph,
                   md5, size: the kernel is that subgraph of the NEFF at path
                   (sessions.neff_session); [kernel.neff.inputs.NAME] path, md5, size:
                   the `.npy` file input tensor NAME was loaded from (none: zeros);
                   [position] steps then counts global scheduler steps, digest = Core.digest
    [machine]      gen, engine, partitions, sbuf_bytes, psum_bytes, fp8_exp4, fp8_sat,
                   base, execute_invalid                      (= machine.state.MachineConfig)
    [position]     steps (executed), pc, digest (MachineState.digest), stop = {reason, pc, detail}
    [[data]]       space, file (.npy beside the session), partition, offset:
                   memory images applied after the program's own data directives
    [[breakpoints]] / [[watchpoints]]   spec (machine/breakpoints.py language), enabled, id
    [[edits]]      step, target, value: a `set` made when `step` steps had run, replayed
                   at that step on load (machine.edits.Edit: value = the bits stored, hex);
                   or a record edit (the TUI's "apply fix", Machine.edit_record): target
                   `record[N]`, value "0x" + 128 hex digits, the 64 bytes that replaced
                   record N, in file order
    [layout]       opaque: the UI's layout and selected panes
    [tour]         name, title, description            (tours only)
    [[notes]]      step, title, text                   (tours only: shown from `step` on)

Decision: a record edit is one more kind of `[[edits]]` target, not a new
table, so set and record edits keep one order (replay and reverse follow it) and the
schema stays version 1: files without record edits are unchanged, and an older
neurondbg refuses a record edit with its one-line "edits[N]: set record[3] ..." error.

`session_from_dict` validates every field and raises SessionError naming the
file, the key and what was expected; nothing in a session file is executed.
Sizes and addresses are range-checked before anything is allocated: a file
claiming 2**40 SBUF bytes is an error, not a memory blow-up.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

from neurondbg.machine.dtypes import Gen, parse_gen
from neurondbg.machine.edits import Edit
from neurondbg.machine.engines import ENGINES
from neurondbg.machine.isa.addr import geometry
from neurondbg.machine.state import MachineConfig
from neurondbg.sessions.errors import SessionError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

SCHEMA_VERSION = 1
_SHA256 = re.compile(r"[0-9a-f]{64}")
SPACES = ("sbuf", "psum")
WATCH_KINDS = ("watch", "change")  # breakpoint kinds saved as [[watchpoints]]
_MISSING = object()
# PC of record 0: a 48-bit byte address leaves any program's last PC far below the
# 64-bit PC the machine digests (a larger base could overflow it).
MAX_BASE = 1 << 48


@dataclass(frozen=True)
class DataImage:
    """A uint8 (partitions, bytes) .npy placed at `partition`, byte `offset` of `space`."""

    space: str
    file: str
    partition: int = 0
    offset: int = 0


@dataclass(frozen=True)
class BreakpointEntry:
    spec: str
    enabled: bool = True
    id: int = 0  # the number the user saw; loading re-adds in this order (0: file order)


@dataclass(frozen=True)
class Note:
    """A tour note, shown from step `step` until the next note's step."""

    step: int
    text: str
    title: str = ""


@dataclass(frozen=True)
class KernelEntry:
    """A kernel session's [kernel] table: the source and what it must still hold."""

    path: str  # the manifest or `.engine` source, relative to the session file
    streams: dict[str, str]  # engine -> sha256 of its queue's 64-byte records
    schedule: str = "rr"
    races: bool = True
    forced: dict[int, str] = field(default_factory=dict)  # Core.forced: step -> engine
    neff: NeffEntry | None = None  # the kernel is a NEFF's subgraph (sessions.neff_session)


@dataclass(frozen=True)
class NeffEntry:
    """A NEFF session's [kernel.neff] table: the subgraph, and the file's MD5 and size (a
    NEFF that changed since is refused)."""

    subgraph: str
    md5: str
    size: int
    inputs: dict[str, FileEntry] = field(default_factory=dict)  # --input name -> its file


@dataclass(frozen=True)
class FileEntry:
    """A file a session was opened with (a NEFF's `--input` tensor): its path relative
    to the session file, MD5 and size (a file that changed since is refused)."""

    path: str
    md5: str
    size: int


@dataclass
class SessionSpec:
    """A parsed session file (no machine yet)."""

    program: str
    sha256: str
    config: MachineConfig
    steps: int = 0
    digest: str = ""
    pc: int | None = None
    stop: dict[str, Any] | None = None
    data: list[DataImage] = field(default_factory=list)
    breakpoints: list[BreakpointEntry] = field(default_factory=list)
    watchpoints: list[BreakpointEntry] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)  # in step order
    layout: dict[str, Any] = field(default_factory=dict)
    tour: dict[str, str] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    source: Path | None = None  # the session file; relative paths resolve against its folder
    kernel: KernelEntry | None = None  # a kernel session (then `program` = kernel.path)

    def resolve(self, relative: str) -> Path:
        """A path the file names, against the folder of the file itself (a session opened
        through a symlink names files beside the link's target, where save wrote them)."""
        base = Path(os.path.realpath(self.source)).parent if self.source is not None \
            else Path.cwd()
        # realpath, not Path.resolve: a symlink loop is left for opening it to report
        return Path(os.path.realpath(base / relative))

    @property
    def program_path(self) -> Path:
        return self.resolve(self.program)


# -- to dict ---------------------------------------------------------------------------------
def config_to_dict(config: MachineConfig) -> dict[str, object]:
    c = config.resolved()
    out: dict[str, object] = {}
    for f in fields(MachineConfig):
        v = getattr(c, f.name)
        out[f.name] = v.label if f.name == "gen" else v
    return out


def session_to_dict(spec: SessionSpec) -> dict[str, object]:
    """The TOML document of a session (insertion order = file order)."""
    doc: dict[str, object] = {"schema": SCHEMA_VERSION}
    if spec.kernel is not None:
        k = spec.kernel
        kernel: dict[str, object] = {"path": k.path, "schedule": k.schedule,
                                     "races": k.races, "streams": dict(k.streams)}
        if k.forced:
            kernel["forced"] = {str(s): e for s, e in sorted(k.forced.items())}
        if k.neff is not None:
            neff: dict[str, object] = {"subgraph": k.neff.subgraph, "md5": k.neff.md5,
                                       "size": k.neff.size}
            if k.neff.inputs:
                neff["inputs"] = {name: {"path": f.path, "md5": f.md5, "size": f.size}
                                  for name, f in k.neff.inputs.items()}
            kernel["neff"] = neff
        doc["kernel"] = kernel
    else:
        doc["program"] = {"path": spec.program, "sha256": spec.sha256}
    doc["machine"] = config_to_dict(spec.config)
    pos: dict[str, object] = {"steps": spec.steps, "digest": spec.digest}
    if spec.pc is not None:
        pos["pc"] = spec.pc
    if spec.stop is not None:
        pos["stop"] = dict(spec.stop)
    doc["position"] = pos
    if spec.tour:
        doc["tour"] = dict(spec.tour)
    doc["data"] = [vars_of(d) for d in spec.data]
    doc["breakpoints"] = [vars_of(b) for b in spec.breakpoints]
    doc["watchpoints"] = [vars_of(b) for b in spec.watchpoints]
    if spec.edits:
        doc["edits"] = [vars_of(e) for e in spec.edits]
    doc["layout"] = dict(spec.layout)
    if spec.notes:
        doc["notes"] = [vars_of(n) for n in spec.notes]
    # Empty arrays of tables would be written as `key = []`, which reads back the same.
    return doc


def vars_of(obj: DataclassInstance) -> dict[str, object]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


# -- from dict -------------------------------------------------------------------------------
T = TypeVar("T")  # the type a key's value must have
D = TypeVar("D")  # its default's, when the key may be missing


class _Reader:
    """Typed access to one table, with errors naming file and key."""

    def __init__(self, source: str, table: object, where: str) -> None:
        self.source, self.where = source, where
        if not isinstance(table, dict):
            self.fail("", f"expected a table, found {_kind(table)}")
        self.table: dict[str, object] = table  # a parsed TOML table

    def fail(self, key: str, problem: str) -> NoReturn:
        name = f"{self.where}.{key}" if self.where and key else (self.where or key)
        raise SessionError(f"{self.source}: {name}: {problem}")

    @overload
    def get(self, key: str, kind: type[T]) -> T: ...
    @overload
    def get(self, key: str, kind: type[T], default: D) -> T | D: ...

    def get(self, key: str, kind: type[T], default: object = _MISSING) -> object:
        """The value of `key`, of type `kind` (an int is no bool); `default` when it is
        missing, else a SessionError."""
        if key not in self.table:
            if default is _MISSING:
                self.fail(key, "missing")
            return default
        v = self.table[key]
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            self.fail(key, f"expected {_TYPE_WORDS.get(kind.__name__, kind.__name__)}, "
                           f"found {_kind(v)}")
        return v

    @overload
    def natural(self, key: str) -> int: ...
    @overload
    def natural(self, key: str, default: D) -> int | D: ...

    def natural(self, key: str, default: object = _MISSING) -> object:
        """A non-negative integer `key` (`default` when it is missing)."""
        v = self.get(key, int, default)
        if isinstance(v, int) and v < 0:
            self.fail(key, f"expected a non-negative integer, found {v}")
        return v

    def rows(self, key: str) -> list[_Reader]:
        items = self.get(key, list, [])
        return [_Reader(self.source, t, f"{key}[{i}]") for i, t in enumerate(items)]


_TYPE_WORDS = {"str": "a string", "int": "an integer", "bool": "true or false",
               "dict": "a table", "list": "an array"}


def _kind(v: object) -> str:
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string",
            list: "an array", dict: "a table"}.get(type(v), type(v).__name__)


def session_from_dict(doc: dict[str, object], source: str | Path | None = None
                      ) -> SessionSpec:
    """Validate a parsed TOML document; SessionError (one line) on the first problem."""
    src = str(source) if source is not None else "<session>"
    top = _Reader(src, doc, "")
    version = top.get("schema", int)
    if version != SCHEMA_VERSION:
        top.fail("schema", f"unknown schema version {version}; this neurondbg reads "
                           f"version {SCHEMA_VERSION}")
    kernel = _kernel(src, top) if "kernel" in top.table else None
    if kernel is not None and "program" in top.table:
        top.fail("program", "a session names a [program] or a [kernel], not both")
    mach = _Reader(src, top.get("machine", dict), "machine")
    pos = _Reader(src, top.get("position", dict, {}), "position")
    if kernel is not None:
        spec = SessionSpec(program=kernel.path, sha256="", config=_config(mach),
                           source=Path(source) if source else None, kernel=kernel)
    else:
        prog = _Reader(src, top.get("program", dict), "program")
        spec = SessionSpec(program=prog.get("path", str), sha256=prog.get("sha256", str, ""),
                           config=_config(mach), source=Path(source) if source else None)
        if not spec.program.strip():
            prog.fail("path", "expected a program path, found an empty string")
    spec.steps = pos.natural("steps", 0)
    spec.digest = pos.get("digest", str, "")
    spec.pc = pos.natural("pc", None)
    stop = pos.get("stop", dict, None)
    if stop is not None:
        s = _Reader(src, stop, "position.stop")
        spec.stop = {"reason": s.get("reason", str), "pc": s.natural("pc", 0),
                     "detail": s.get("detail", str, "")}
    for r in top.rows("data"):
        space = r.get("space", str, "sbuf")
        if space not in SPACES:
            r.fail("space", f"expected one of {', '.join(SPACES)}, found {space!r}")
        spec.data.append(DataImage(space, r.get("file", str), r.natural("partition", 0),
                                   r.natural("offset", 0)))
    for key, out in (("breakpoints", spec.breakpoints), ("watchpoints", spec.watchpoints)):
        for r in top.rows(key):
            out.append(BreakpointEntry(r.get("spec", str), r.get("enabled", bool, True),
                                       r.natural("id", 0)))
    edits = top.rows("edits")
    if edits:  # the debugger (and its legality engine) only to read record edits: tours load
        from neurondbg.machine.debugger import bits_record, record_index  # this module at start-up
    for r in edits:
        step = r.natural("step")
        if step > spec.steps:
            r.fail("step", f"expected at most the saved step {spec.steps}, found {step}")
        target = r.get("target", str)
        if not target.strip():
            r.fail("target", "expected a target such as R5 or sb[0, 0], found an empty string")
        value = r.get("value", str)
        if record_index(target) is not None:
            try:
                bits_record(value)
            except ValueError as e:
                r.fail("value", str(e))
        else:
            try:
                int(value, 0)
            except ValueError:
                r.fail("value", f"expected the stored bits as a hex string such as "
                                f"\"0x3f800000\", found {value!r}")
        spec.edits.append(Edit(step, target, value))
    spec.edits.sort(key=lambda e: e.step)  # stable: edits at one step keep file order
    spec.layout = top.get("layout", dict, {})
    tour = _Reader(src, top.get("tour", dict, {}), "tour")
    spec.tour = {k: tour.get(k, str, "") for k in ("name", "title", "description")
                 if k in tour.table}
    for r in top.rows("notes"):
        spec.notes.append(Note(r.natural("step"), r.get("text", str), r.get("title", str, "")))
    spec.notes.sort(key=lambda n: n.step)
    return spec


def _kernel(src: str, top: _Reader) -> KernelEntry:
    """The [kernel] table: path, schedule, races and one sha256 per engine stream."""
    from neurondbg.machine.core.kernel import ENGINE_ORDER  # the core is only needed for kernels
    from neurondbg.machine.core.schedule import parse_policy

    k = _Reader(src, top.get("kernel", dict), "kernel")
    path = k.get("path", str)
    if not path.strip():
        k.fail("path", "expected a kernel path, found an empty string")
    try:
        schedule = parse_policy(k.get("schedule", str, "rr")).text
    except ValueError as e:
        k.fail("schedule", str(e))
    streams = _Reader(src, k.get("streams", dict), "kernel.streams")
    if not streams.table:
        streams.fail("", "expected the sha256 of at least one engine's stream")
    digests: dict[str, str] = {}
    for engine in streams.table:
        if engine not in ENGINE_ORDER:
            streams.fail(engine, f"expected an engine ({', '.join(ENGINE_ORDER)})")
        digest = streams.get(engine, str)
        if not _SHA256.fullmatch(digest):
            streams.fail(engine, f"expected a sha256 (64 hex digits), found {digest!r}")
        digests[engine] = digest
    forced: dict[int, str] = {}
    table = _Reader(src, k.get("forced", dict, {}), "kernel.forced")
    for key in table.table:
        engine = table.get(key, str)
        if not key.isdecimal() or not key.isascii():
            table.fail(key, "expected a global step number as the key")
        if engine not in digests:
            table.fail(key, f"expected one of the kernel's engines ({', '.join(digests)}), "
                            f"found {engine!r}")
        forced[int(key)] = engine
    neff = None
    if "neff" in k.table:
        n = _Reader(src, k.get("neff", dict), "kernel.neff")
        inputs = _Reader(src, n.get("inputs", dict, {}), "kernel.neff.inputs")
        neff = NeffEntry(n.get("subgraph", str), _md5(n), n.natural("size"), {
            name: _file_entry(_Reader(src, inputs.get(name, dict), f"kernel.neff.inputs.{name}"))
            for name in inputs.table})
    return KernelEntry(path, digests, schedule, k.get("races", bool, True), forced, neff)


def _md5(r: _Reader) -> str:
    md5 = r.get("md5", str)
    if not re.fullmatch(r"[0-9a-f]{32}", md5):
        r.fail("md5", f"expected an MD5 (32 hex digits), found {md5!r}")
    return md5


def _file_entry(r: _Reader) -> FileEntry:
    return FileEntry(r.get("path", str), _md5(r), r.natural("size"))


def _config(r: _Reader) -> MachineConfig:
    try:
        gen = parse_gen(r.get("gen", str))
    except ValueError as e:
        r.fail("gen", str(e))
    engine = r.get("engine", str, "pool")
    if engine not in ENGINES:
        r.fail("engine", f"expected one of {', '.join(ENGINES)}, found {engine!r}")
    fp8 = r.get("fp8_exp4", str, "")
    if fp8 not in ("", "fp8_e4m3", "fp8_e4m3fn"):
        r.fail("fp8_exp4", f"expected fp8_e4m3 or fp8_e4m3fn, found {fp8!r}")
    sbuf_max, psum_max = memory_limits(gen)
    return MachineConfig(gen=gen, engine=engine, partitions=_bounded(r, "partitions", 128),
                         sbuf_bytes=_bounded(r, "sbuf_bytes", sbuf_max),
                         psum_bytes=_bounded(r, "psum_bytes", psum_max), fp8_exp4=fp8,
                         fp8_sat=r.get("fp8_sat", bool, False),
                         base=_bounded(r, "base", MAX_BASE - 1),
                         execute_invalid=r.get("execute_invalid", bool, False))


def check_base(spec: SessionSpec, records: int) -> None:
    """SessionError unless machine.base leaves every PC of a program of `records` records
    below 2**48 (machine.core.manifest.base_most): the schema bounds base alone, this
    once the program's length is known."""
    from neurondbg.machine.core.manifest import (
        base_most,  # the loaders' alone: tours start without it
    )

    most = base_most(records)
    if spec.config.base > most:
        src = str(spec.source) if spec.source is not None else "<session>"
        raise SessionError(f"{src}: machine.base: expected at most {most} for a program of "
                           f"{records} records, found {spec.config.base}")


def memory_limits(gen: Gen) -> tuple[int, int]:
    """The largest SBUF / PSUM bytes per partition a session may configure: the window the
    generation's address map gives each partition (a larger memory is not addressable)."""
    g = geometry(gen)
    sbuf = max(g.sbuf_stride, g.sbuf_bytes)
    psum = max(g.psum_stride, g.psum_bytes, MachineConfig(gen=gen).resolved().psum_bytes)
    return sbuf, psum


def _bounded(r: _Reader, key: str, most: int) -> int:
    v = r.natural(key, 0)
    if v > most:
        r.fail(key, f"expected at most {most}, found {v}")
    return v
