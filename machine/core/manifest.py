"""The kernel manifest: a TOML file naming each engine's stream.

    [kernel]
    gen = "cayman"              # optional (codename or product name, as --gen takes);
                                # an explicit gen argument / --gen wins over it
    [engines]                   # at least one; paths relative to the manifest
    pool = "pool.bin"           # binary records (its pool.bin.data.npz sidecar is read)
    dve = "dve.asm"             # or assembly of one program (no .engine sections)
    [data]                      # optional images: uint8 .npy arrays (partitions, bytes)
    sbuf = "in.npy"             #   at partition 0, byte 0, like `run --sbuf`
    psum = "acc.npy"
    [machine]                   # optional MachineConfig settings (not gen or engine)
    sbuf_bytes = 65536

`[data]` may instead be an array of tables, the keys of a session's `[[data]]`:

    [[data]]
    space = "sbuf"              # sbuf | psum
    file = "w.npy"
    partition = 0               # default 0
    offset = 0x100              # byte in each partition; default 0

The images come after the streams' own data in Kernel.data, so they win where they
overlap. Every bad manifest is one KernelError line `manifest[:line:column]: [table]
key: what was expected` (the position is tomllib's for a syntax error, else the line
where the key is written); a stream that is missing names the manifest, the key and
the path. Every file is read within the limits of machine.files.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import fields
from pathlib import Path

import numpy as np

from neurondbg.machine.asm.data import SPACES, DataInit, memory_bound
from neurondbg.machine.asm.loader import load
from neurondbg.machine.core.kernel import (
    ENGINE_ORDER,
    MANIFEST_SUFFIX,
    MAX_MANIFEST_BYTES,
    Kernel,
    KernelError,
    Queue,
    make_kernel,
    make_queue,
)
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen, parse_gen_name
from neurondbg.machine.files import (
    MAX_DATA_BYTES,
    InputFileError,
    file_problem,
    load_toml,
    open_stream,
    read_file,
    read_npy,
    size_text,
)
from neurondbg.machine.isa.addr import geometry
from neurondbg.machine.isa.codec import IsaFormatError
from neurondbg.machine.state import MachineConfig

TABLES = ("kernel", "engines", "data", "machine")
FP8_EXP4 = ("", "fp8_e4m3", "fp8_e4m3fn")  # the choices a session's fp8_exp4 takes
MAX_BASE = 1 << 48  # as sessions.schema: the PC of record 0 stays below 2**48
RECORD_BYTES = 64
# MachineConfig fields a manifest may set: the rest are the kernel's own (gen, engines)
MACHINE_KEYS = tuple(f.name for f in fields(MachineConfig) if f.name not in ("gen", "engine"))
_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(?:#.*)?$")


class _Where:
    """Names positions in one manifest for messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        # relative paths are relative to the manifest's real folder (as a session's are):
        # `asm -o` through a symlink writes the streams beside its target
        self.base = Path(os.path.realpath(path)).parent

    def position(self, table: str, key: str | None, index: int = 0) -> str:
        """`:line:column` where `key` is written in `[table]` (the `index`-th `[[table]]`),
        or of the table's header when `key` is None; "" when not found."""
        current, count = None, -1
        key_re = re.compile(rf"\s*{re.escape(key)}\s*=") if key else None
        for n, line in enumerate(self.text.splitlines(), 1):
            h = _HEADER.match(line)
            if h:
                current = h.group(2).strip("\"' ")
                if current == table:
                    count += 1
                    if key_re is None and count == index:
                        return f":{n}:{len(line) - len(line.lstrip()) + 1}"
                continue
            if current == table and count == index and key_re is not None:
                m = key_re.match(line)
                if m:
                    return f":{n}:{len(line) - len(line.lstrip()) + 1}"
        return self._top_level(table) if key is None else ""

    def _top_level(self, name: str) -> str:
        """`:line:column` of `name = ...` before the first table header, or ""."""
        key_re = re.compile(rf"\s*{re.escape(name)}\s*=")
        for n, line in enumerate(self.text.splitlines(), 1):
            if _HEADER.match(line):
                break
            if key_re.match(line):
                return f":{n}:{len(line) - len(line.lstrip()) + 1}"
        return ""

    def fail(self, table: str, key: str | None, message: str, index: int | None = None
             ) -> KernelError:
        at = self.position(table, key, index or 0)
        name = f"[[{table}]] {index}" if index is not None else f"[{table}]"
        return KernelError(f"{self.path}{at}: {name}{' ' + key if key else ''}: {message}")


def _parse(path: Path) -> tuple[dict[str, object], _Where]:
    try:
        doc, text = load_toml(read_file(path, what="kernel manifest",
                                        max_bytes=MAX_MANIFEST_BYTES), path)
    except InputFileError as e:
        raise KernelError(str(e)) from None
    return doc, _Where(path, text)


def looks_like_manifest(raw: bytes) -> bool:
    """Is this TOML a kernel manifest (it has `[engines]`, or `[kernel]` and no session
    `schema`)? Unparsable text is one when a line opens such a table, so that loading it
    reports the syntax error as a manifest's."""
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):
        return (re.search(rb"(?m)^[ \t]*\[[ \t]*(?:engines|kernel)[ \t]*\]", raw) is not None
                and re.search(rb"(?m)^[ \t]*schema[ \t]*=", raw) is None)
    return "engines" in doc or ("kernel" in doc and "schema" not in doc)


def _table(doc: dict[str, object], name: str, where: _Where) -> dict[str, object]:
    value = doc.get(name, {})
    if not isinstance(value, dict):
        raise where.fail(name, None, f"expected a table [{name}], found {type(value).__name__}")
    return value


def _gen(kernel: dict[str, object], gen: Gen | None, where: _Where) -> Gen:
    for key in kernel:
        if key != "gen":
            raise where.fail("kernel", key, "unknown key; [kernel] takes: gen")
    if "gen" not in kernel:
        return DEFAULT_GEN if gen is None else gen
    value = kernel["gen"]
    if not isinstance(value, str):
        raise where.fail("kernel", "gen", f"expected a generation name, found {value!r}")
    try:
        named = parse_gen_name(value)
    except ValueError as e:
        raise where.fail("kernel", "gen", str(e)) from None
    return named if gen is None else gen


def _file(base: Path, value: object, where: _Where, table: str, key: str,
          index: int | None = None) -> Path:
    """The path a manifest value names (relative to the manifest), which must exist."""
    if not isinstance(value, str) or not value:
        raise where.fail(table, key, f"expected a file path string, found {value!r}", index)
    path = Path(value) if Path(value).is_absolute() else base / value
    problem = file_problem(path)
    if problem is not None:
        raise where.fail(table, key, f"{path}: {problem}", index)
    return path


def _queues(engines: dict[str, object], gen: Gen, where: _Where) -> list[Queue]:
    """Each stream through the one loader; the data they carry held to MAX_DATA_BYTES in
    all (judged after each stream, so at most one stream's worth is read past it)."""
    if not engines:
        raise where.fail("engines", None, "names no engine; expected lines like pool = "
                         "\"pool.bin\" (engines: " + ", ".join(ENGINE_ORDER) + ")")
    out = []
    total = 0
    for engine, value in engines.items():
        if engine not in ENGINE_ORDER:
            raise where.fail("engines", engine, "unknown engine; expected one of "
                             + ", ".join(ENGINE_ORDER))
        path = _file(where.base, value, where, "engines", engine)
        if path.suffix.lower() == MANIFEST_SUFFIX:
            raise where.fail("engines", engine, f"{path}: a stream is one engine's program "
                             "(binary records or assembly), not a manifest")
        try:
            prog = load(path, gen)
        except OSError as e:
            raise where.fail("engines", engine, f"{path}: cannot read: {e.strerror or e}"
                             ) from None
        except (InputFileError, IsaFormatError) as e:  # they name the stream; add the key
            raise where.fail("engines", engine, str(e)) from None
        total += sum(d.data.size for d in prog.data)
        if total > MAX_DATA_BYTES:
            raise where.fail("engines", engine, f"the streams' data is over the "
                             f"{size_text(MAX_DATA_BYTES)} limit for a kernel's data")
        out.append(make_queue(engine, prog, path))
    return out


def _image(base: Path, where: _Where, space: object, file: object, partition_value: object,
           offset_value: object, table: str, key: str, index: int | None
           ) -> tuple[DataInit, Path]:
    """One uint8 (partitions, bytes) .npy image at (partition, offset) of `space`."""
    if not isinstance(space, str) or space not in SPACES:
        raise where.fail(table, "space" if index is not None else key,
                         f"expected one of {', '.join(SPACES)}, found {space!r}", index)
    parts, window = memory_bound(space)
    partition = _at_most(where, table, "partition", partition_value, parts - 1, index)
    offset = _at_most(where, table, "offset", offset_value, window - 1, index)
    path = _file(base, file, where, table, "file" if index is not None else key, index)
    try:
        with open_stream(path, what=".npy image", max_bytes=MAX_DATA_BYTES) as fh:
            arr = read_npy(fh, str(path), what="a uint8 array of shape (partitions, bytes)",
                           dtypes=(np.dtype(np.uint8),),
                           max_shape=(parts - partition, window - offset))
    except InputFileError as e:  # it names the image; say which key of the manifest too
        raise where.fail(table, key, str(e), index) from None
    if arr.size == 0:
        raise where.fail(table, key, f"{path}: an empty image {arr.shape}; expected at least "
                         "one partition and one byte", index)
    return DataInit(space, (partition, partition + arr.shape[0]), offset,
                    np.ascontiguousarray(arr), "", 0), path


def _at_most(where: _Where, table: str, name: str, v: object, most: int, index: int | None
             ) -> int:
    """`v`, an integer 0..most (a bool is none)."""
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= most:
        raise where.fail(table, name, f"expected an integer 0..{most}, found {v!r}", index)
    return v


def _images(doc: dict[str, object], where: _Where,
            streams_bytes: int) -> list[tuple[DataInit, Path]]:
    """The [data] images with the files they came from."""
    value = doc.get("data")
    base = where.base
    out: list[tuple[DataInit, Path]] = []
    if value is None:
        return out
    if isinstance(value, dict):
        for key, file in value.items():
            if key not in SPACES:
                raise where.fail("data", key, "unknown key; [data] takes: sbuf, psum (an "
                                 "image at partition 0, byte 0), or use [[data]] tables")
            out.append(_image(base, where, key, file, 0, 0, "data", key, None))
            _held(where, streams_bytes, out)
    elif isinstance(value, list):
        for i, row in enumerate(value):
            if not isinstance(row, dict):
                raise where.fail("data", None, "expected [[data]] tables of space, file, "
                                 "partition, offset", i)
            for key in row:
                if key not in ("space", "file", "partition", "offset"):
                    raise where.fail("data", key, "unknown key; [[data]] takes: space, "
                                     "file, partition, offset", i)
            out.append(_image(base, where, row.get("space"), row.get("file"),
                              row.get("partition", 0), row.get("offset", 0), "data", "file", i))
            _held(where, streams_bytes, out)
    else:
        raise where.fail("data", None, f"expected a table or [[data]] tables, found {value!r}")
    return out


def _held(where: _Where, streams_bytes: int, images: list[tuple[DataInit, Path]]) -> None:
    """The kernel's data so far (the streams' and these images) is within MAX_DATA_BYTES."""
    total = streams_bytes + sum(d.data.size for d, _ in images)
    if total > MAX_DATA_BYTES:
        raise where.fail("data", None, f"the kernel's data would hold {size_text(total)}; at "
                         f"most {size_text(MAX_DATA_BYTES)} in all")


def base_most(records: int) -> int:
    """The largest PC of record 0 (`base`) for a program of `records` records: every
    record's PC and the PC past the last stay below 2**48, the PCs the machine's journal
    holds (a larger one would overflow it mid-step)."""
    return MAX_BASE - 1 - RECORD_BYTES * records


def records_of(kernel: Kernel) -> int:
    """The records of the kernel's longest stream (every stream starts at `base`)."""
    return max(len(q.program.program) for q in kernel.queues)


def _machine(table: dict[str, object], gen: Gen, where: _Where) -> dict[str, int | str]:
    """[machine] settings, judged as a session's [machine] is (sessions.schema)."""
    g = geometry(gen)
    most = {"partitions": g.partitions, "sbuf_bytes": max(g.sbuf_stride, g.sbuf_bytes),
            "psum_bytes": max(g.psum_stride, g.psum_bytes,
                              MachineConfig(gen=gen).resolved().psum_bytes),
            "base": MAX_BASE - 1}
    out: dict[str, int | str] = {}  # (a bool is an int)
    for key, value in table.items():
        if key in ("gen", "engine"):
            raise where.fail("machine", key, "a kernel sets this elsewhere: [kernel] gen, "
                             "and its engines in [engines]")
        if key not in MACHINE_KEYS:
            raise where.fail("machine", key, "unknown key; [machine] takes: "
                             + ", ".join(MACHINE_KEYS))
        default = getattr(MachineConfig(), key)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise where.fail("machine", key, f"expected true or false, found {value!r}")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or not (
                    0 <= value <= most[key]):
                raise where.fail("machine", key, f"expected an integer 0..{most[key]}, found "
                                 f"{value!r}")
        elif not isinstance(value, str) or value not in FP8_EXP4:
            raise where.fail("machine", key, "expected " + " or ".join(
                repr(v) for v in FP8_EXP4 if v) + f", found {value!r}")
        out[key] = value
    return out


def load_manifest(path: Path, gen: Gen | None = None) -> Kernel:
    """The kernel a manifest names (schema and errors: the module docstring)."""
    doc, where = _parse(path)
    for key in doc:
        if key not in TABLES:
            raise KernelError(f"{path}{where.position(key, None)}: unknown table or key "
                              f"{key!r}; a manifest has: " + ", ".join(f"[{t}]" for t in TABLES))
    kgen = _gen(_table(doc, "kernel", where), gen, where)
    if "engines" not in doc:
        raise KernelError(f"{path}: no [engines] table; expected lines like pool = "
                          "\"pool.bin\" under [engines]")
    settings = _machine(_table(doc, "machine", where), kgen, where)
    queues = _queues(_table(doc, "engines", where), kgen, where)
    records = max(len(q.program.program) for q in queues)
    base = settings.get("base", 0)  # an int: _machine judged it
    if isinstance(base, int) and base > base_most(records):
        raise where.fail("machine", "base", f"expected an integer 0..{base_most(records)} "
                         f"for streams of up to {records} records, found {base}")
    own = [d for q in sorted(queues, key=lambda q: ENGINE_ORDER.index(q.engine))
           for d in q.program.data]
    images = _images(doc, where, sum(d.data.size for d in own))
    return make_kernel(kgen, queues, own + [d for d, _ in images], settings, path,
                       [p for _, p in images])


def manifest_text(gen: Gen, streams: dict[str, str], source: str = "") -> str:
    """A manifest naming `streams` (engine -> path relative to the manifest) on `gen`,
    in ENGINE_ORDER; `source` names what it was made from, in a comment."""
    # the name as a quoted string: a newline in it cannot end the comment
    head = [f"# kernel manifest written by neurondbg asm from {_toml_string(source)}"
            ] if source else []
    lines = [*head, "[kernel]", f"gen = {_toml_string(gen.label)}", "", "[engines]"]
    lines += [f"{e} = {_toml_string(streams[e])}" for e in ENGINE_ORDER if e in streams]
    return "\n".join(lines) + "\n"


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (\\" \\\\ \\n \\uXXXX)."""
    return json.dumps(text)
