"""A kernel: one instruction queue per engine, and the data they start from.

    kernel = load_kernel(path, gen=None, engine="pool")
    kernel.engines          # ("pool", "dve"): ENGINE_ORDER order
    kernel.queue("dve").program.where(i)   # file:line:column of record i

Three inputs (DESIGN.md "NeuronCore: several engine queues"):
- a manifest (`.toml` with an `[engines]` table; machine.core.manifest has its schema);
- one assembly file with `.engine NAME` sections (machine.asm.sections: labels per
  section, data directives anywhere, line numbers of the whole file);
- a plain PROGRAM (binary records or assembly without `.engine`): a one-queue kernel
  on `engine`, so everything that takes a program takes it unchanged.

Generation (decided): an explicit `gen` argument wins (as a command-line option beats a
config file); otherwise the manifest's `[kernel] gen`, or the assembly's `.gen` line
(of an `.engine` file or a plain assembly program), else DEFAULT_GEN. A `.gen` line
still decides the sb[]/psum[] addresses of its own file, as in `neurondbg asm`.

`Kernel.data` holds every SBUF/PSUM initialisation in the order to apply them: an
`.engine` file's data directives in line order; for a manifest, each stream's own data
(its directives or `.data.npz` sidecar) in ENGINE_ORDER, then the `[data]` images (so an
image the manifest names wins where they overlap). Each queue's `program.data` is its
own part of that list, for display; apply `Kernel.data` once, not both.

Errors are one line and never a traceback: AsmError (`file:line:column: ...`, use
`.one_line`) for assembly, KernelError (a ValueError naming the file and key, with
line:column where known) for the rest, and the loader's UnreadableProgram /
InputFileError / IsaFormatError for a refused stream; OSError when a file cannot be
opened (the manifest reader names the manifest, the key and the path instead).

Importing this module imports neither numpy nor the assembler (the functions that use
them import them): the TUI asks `is_kernel_source` before its first frame, and a file
named as binary records is answered from its name alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.files import BINARY_SUFFIXES, InputFileError, read_input
from neurondbg.machine.isa.opcodes import QUEUE_ENGINES

if TYPE_CHECKING:
    from neurondbg.machine.asm.data import DataInit
    from neurondbg.machine.asm.loader import ProgramFile

ENGINE_ORDER: tuple[str, ...] = QUEUE_ENGINES  # ("pool", "dve", "act", "pe", "sp")
MANIFEST_SUFFIX = ".toml"
MAX_MANIFEST_BYTES = 1024 * 1024  # a manifest names files; it holds no data itself


class KernelError(ValueError):
    """A kernel input that is not one: one line naming the file (and key or position)."""


# eq=False: a kernel holds numpy arrays, which have no truth value to compare by; two
# streams are the same when their digests are (identity hashing is what remains).
@dataclass(frozen=True, eq=False)
class Queue:
    """One engine's instruction stream."""

    engine: str  # one of ENGINE_ORDER
    program: ProgramFile  # .program .data .labels .lines .where(i)
    path: Path  # the file the stream came from (the .asm itself for a section)
    digest: str  # sha256 hex of the stream's 64-byte records


@dataclass(frozen=True, eq=False)
class Kernel:
    """Every engine's queue (ENGINE_ORDER order, at most one each, at least one), the
    data they start from, and the machine settings the manifest gives."""

    gen: Gen
    queues: tuple[Queue, ...]
    data: tuple[DataInit, ...]
    machine: Mapping[str, Any]  # MachineConfig field names -> values ([machine])
    path: Path  # the manifest, the .asm, or the plain PROGRAM
    # every file it was read from: `path`, the streams, their .data.npz sidecars and the
    # [data] images (what an output must never overwrite)
    inputs: tuple[Path, ...] = ()

    @property
    def engines(self) -> tuple[str, ...]:
        return tuple(q.engine for q in self.queues)

    def queue(self, engine: str) -> Queue:
        """The queue of `engine`; KeyError naming the engines the kernel has."""
        for q in self.queues:
            if q.engine == engine:
                return q
        raise KeyError(f"the kernel has no {engine!r} queue; its engines: "
                       + ", ".join(self.engines))


def records_digest(program: ProgramFile) -> str:
    """sha256 hex of a program's 64-byte records (the bytes of its binary form)."""
    import numpy as np

    return hashlib.sha256(np.ascontiguousarray(program.program.raw).data).hexdigest()


def make_queue(engine: str, program: ProgramFile, path: Path) -> Queue:
    """A Queue of `program` on `engine`, with its digest."""
    return Queue(engine, program, path, records_digest(program))


def make_kernel(gen: Gen, queues: list[Queue], data: list[DataInit],
                machine: Mapping[str, Any], path: Path, images: Iterable[Path] = ()) -> Kernel:
    """A Kernel with the queues put in ENGINE_ORDER (each engine at most once); its
    inputs are `path`, each stream and the sidecar beside it, and the `images`."""
    from neurondbg.machine.asm.data import data_path

    ordered = sorted(queues, key=lambda q: ENGINE_ORDER.index(q.engine))
    engines = [q.engine for q in ordered]
    assert ordered and len(set(engines)) == len(engines), engines
    inputs = [path]
    for q in ordered:
        side = data_path(q.path)  # read for a binary stream only (machine.asm.loader)
        binary = q.program.lines is None
        inputs += [q.path, side] if binary and side.exists() else [q.path]
    inputs += images
    unique = tuple(dict.fromkeys(inputs))  # a file named twice is one input, first place
    return Kernel(gen, tuple(ordered), tuple(data), MappingProxyType(dict(machine)), path,
                  unique)


def _check_engine(engine: str) -> None:
    if engine not in ENGINE_ORDER:
        raise KernelError(f"unknown engine {engine!r}; expected one of "
                          + ", ".join(ENGINE_ORDER))


def _from_sections(path: Path, text: str, gen: Gen | None) -> Kernel:
    from neurondbg.machine.asm.loader import ProgramFile
    from neurondbg.machine.asm.sections import assemble_sections

    sa = assemble_sections(text, str(path), DEFAULT_GEN if gen is None else gen)
    queues = [make_queue(s.engine, ProgramFile(path, s.assembly.program(),
                                               list(s.assembly.data), dict(s.assembly.labels),
                                               list(s.assembly.lines), text, sa.gen), path)
              for s in sa.sections]
    return make_kernel(sa.gen if gen is None else gen, queues, sa.all_data, {}, path)


def load_kernel(path: str | Path, gen: Gen | None = None, engine: str = "pool") -> Kernel:
    """The kernel at `path`: a manifest, an `.engine` assembly file, or a plain PROGRAM
    as one queue on `engine` (see the module docstring for gen and errors)."""
    p = Path(path)
    _check_engine(engine)
    if p.suffix.lower() == MANIFEST_SUFFIX:
        from neurondbg.machine.core.manifest import load_manifest  # it builds on this module
        return load_manifest(p, gen)
    from neurondbg.machine.asm.loader import from_binary, from_text, read_program
    from neurondbg.machine.asm.sections import has_sections

    raw, is_text = read_program(p)
    if is_text:
        text = raw.decode("utf-8", errors="replace")
        sectioned = has_sections(raw)
        del raw  # the text is a copy: do not hold both while assembling a large source
        if sectioned:
            return _from_sections(p, text, gen)
        prog = from_text(p, text, DEFAULT_GEN if gen is None else gen)
    else:
        prog = from_binary(p, raw)
    kgen = gen if gen is not None else prog.gen if prog.gen is not None else DEFAULT_GEN
    return make_kernel(kgen, [make_queue(engine, prog, p)], prog.data, {}, p)


def is_kernel_source(path: str | Path) -> bool:
    """Is `path` a kernel manifest or an assembly file with `.engine` sections (rather
    than a plain PROGRAM, or a session file)? Decided from the file's name and text;
    a file that cannot be read is not one (the loader that opens it reports why).
    A name that says binary records imports nothing; any other imports the assembler's
    `.engine` check (machine.asm.sections) or the manifest's, and numpy with them."""
    p = Path(path)
    if p.suffix.lower() in BINARY_SUFFIXES:
        return False  # records by name (machine.files.looks_like_text): no need to read them
    from neurondbg.machine.asm.loader import read_program
    from neurondbg.machine.asm.sections import has_sections

    try:
        if p.suffix.lower() == MANIFEST_SUFFIX:
            from neurondbg.machine.core.manifest import (
                looks_like_manifest,  # it builds on this module
            )
            return looks_like_manifest(read_input(p, what="kernel manifest",
                                                  max_bytes=MAX_MANIFEST_BYTES))
        raw, is_text = read_program(p)
    except (OSError, InputFileError):  # a refusal is the loader's to report, not ours
        return False
    return is_text and has_sections(raw)


def kernel_wide_data(kernel: Kernel) -> list[DataInit]:
    """The kernel's data that no queue carries as its own (an `.engine` file's data
    before the first section, a manifest's [data] images)."""
    own = {id(d) for q in kernel.queues for d in q.program.data}
    return [d for d in kernel.data if id(d) not in own]


def disassemble_kernel(kernel: Kernel) -> str:
    """The `.engine` form of a kernel: it re-assembles to the same records per engine
    (machine.asm.sections.disassemble_sections). A manifest's [machine] settings have no
    assembly spelling: they are shown in leading `#` comments."""
    from neurondbg.machine.asm.sections import disassemble_sections

    notes = "".join(f"# [machine] {k} = {json.dumps(v)}\n" for k, v in kernel.machine.items())
    return notes + disassemble_sections(((q.engine, q.program.program, q.program.data)
                                         for q in kernel.queues), kernel.gen,
                                        kernel_wide_data(kernel))


def kernel_json(kernel: Kernel) -> dict[str, Any]:
    """`disasm --json` of a kernel: `{"engines": {"pool": [...], ...}}`, each engine's
    list in the one-program shape of machine.asm.to_json, in ENGINE_ORDER."""
    from neurondbg.machine.asm.disasm import to_json

    return {"engines": {q.engine: to_json(q.program.program) for q in kernel.queues}}
