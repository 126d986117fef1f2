"""The typed contents of a NEFF: subgraphs, their five record streams, DMA queues and
entries, variables and tensors (neff-facts §2-§5).

Plain frozen dataclasses, made by machine.neff.reader from the archive and by tests
for machine.neff.writer; the reader gives back exactly what the writer was given.
Streams are (N, 64) uint8 arrays over the member's bytes (no copy); `Subgraph.program`
wraps one in the codec's Program, which decodes records lazily and per struct group.

Units are the file's: DMA offsets, innermost sizes and all steps are in bytes (neff-facts
§2.5); on the SB side an offset is partition x 0x40000 + byte offset.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple, overload

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.codec import Program
from neurondbg.machine.isa.opcodes import Opcode
from neurondbg.machine.isa.spec import RECORD_BYTES

SEMAPHORES = 256  # per subgraph (neff-facts §5.1)
RUNTIME_SEMAPHORES = 3  # def.json runtime_semaphore_count in every corpus NEFF
DMA_INCREMENT = 16  # what one completed DMA entry adds to its semaphore (neff-facts §5.3)
SB_PARTITION_STEP = 0x40000  # SB-side offsets: partition x this + byte offset
SB = "SB"  # a descriptor's from/to naming the state buffer rather than a variable


class Engine(StrEnum):
    """The five engines of a NEFF subgraph, by the project's engine names (which are also
    def.json's keys: `act`, `act_instr`, ...)."""

    ACT = "act"
    DVE = "dve"
    PE = "pe"
    POOL = "pool"
    SP = "sp"

    @property
    def file_stem(self) -> str:
        """The file name the compiler gives this engine's stream and JSON."""
        return _STEMS[self]


_STEMS = {Engine.ACT: "Activation", Engine.DVE: "DVE", Engine.PE: "PE",
          Engine.POOL: "Pool", Engine.SP: "SP"}
ENGINES: tuple[Engine, ...] = tuple(Engine)

# kelf-0.json `target` -> generation (neff-facts §0.1; isa-facts §0 codenames)
TARGETS: dict[str, Gen] = {g.label: g for g in Gen}


def gen_of_target(target: str) -> Gen | None:
    """The generation a kelf-0.json `target` names ("sunda" = Trn1, "cayman" = Trn2), or
    None when it names none the project knows."""
    return TARGETS.get(target.strip().lower())


@dataclass(frozen=True)
class DmaQueue:
    """One `def.json` `dma_queue` entry: a queue of DMA transfers an engine triggers."""

    name: str
    owner: Engine
    semaphore_set: tuple[int, ...]  # entry `id` signals semaphore_set[id % len]
    type: str = "in"  # "in" (I/O) and "data" (spill/reload) are seen
    num_queues: int = 16
    fabric_path: str = "main"


class Descriptor(NamedTuple):
    """One transfer pattern of a DMA entry (neff-facts §2.5). Sizes and steps are
    innermost first; the innermost size and every step and offset are in bytes. (A
    NamedTuple: a large NEFF has hundreds of thousands, made as its JSON is parsed.)"""

    src: str  # a var name or "SB"
    dst: str
    src_dtype: str
    dst_dtype: str
    src_off: int
    dst_off: int
    src_sizes: tuple[int, ...]
    dst_sizes: tuple[int, ...]
    src_steps: tuple[int, ...]
    dst_steps: tuple[int, ...]
    op: str | None = "copy"  # "copy" or "cast"; absent on transposes
    num_tiling_dimensions: int | None = 1  # absent in some older descriptors
    transpose_op: str | None = None
    transpose_shape: tuple[int, ...] | None = None
    transpose_element_size: int | None = None

    @property
    def src_bytes(self) -> int:
        """Bytes the source pattern covers (the product of its sizes)."""
        return int(np.prod(self.src_sizes, dtype=np.int64)) if self.src_sizes else 0

    @property
    def dst_bytes(self) -> int:
        return int(np.prod(self.dst_sizes, dtype=np.int64)) if self.dst_sizes else 0

    def summary(self) -> str:
        """One line: `X[0x0 +32768B] -> SB[p0..127 +0x0 256B/p] copy float32`."""
        what = self.op or (f"transpose {self.transpose_op}" if self.transpose_op else "move")
        dt = self.src_dtype if self.src_dtype == self.dst_dtype else (
            f"{self.src_dtype}->{self.dst_dtype}")
        return (f"{_side(self.src, self.src_off, self.src_sizes, self.src_steps)} -> "
                f"{_side(self.dst, self.dst_off, self.dst_sizes, self.dst_steps)} {what} {dt}")


class DescriptorTable:
    """Descriptors held as columns: descriptor i is `kinds[kind[i]]` with its offsets
    `src_off[i]` and `dst_off[i]` (machine.neff.descscan makes one per engine JSON: a
    large NEFF's 10^5 descriptors are a few kinds at many offsets). Rows are made into
    Descriptors only when asked for (DescriptorRange)."""

    __slots__ = ("_lists", "dst_off", "kind", "kinds", "src_off")

    def __init__(self, kinds: tuple[Descriptor, ...], kind: np.ndarray, src_off: np.ndarray,
                 dst_off: np.ndarray) -> None:
        if not len(kind) == len(src_off) == len(dst_off):
            raise ValueError("a DescriptorTable's columns have one length")
        self.kinds, self.kind, self.src_off, self.dst_off = kinds, kind, src_off, dst_off
        self._lists: tuple[list[Descriptor], list[int], list[int]] | None = None

    def __len__(self) -> int:
        return len(self.kind)

    def row(self, i: int) -> Descriptor:
        t = self.kinds[int(self.kind[i])]
        return Descriptor(t[0], t[1], t[2], t[3], int(self.src_off[i]), int(self.dst_off[i]),
                          *t[6:])

    def rows(self, start: int, stop: int) -> Iterator[Descriptor]:
        """Rows start..stop-1 made into Descriptors (the columns are made Python lists
        the first time: a run walks every entry's descriptors)."""
        if self._lists is None:
            self._lists = ([self.kinds[k] for k in self.kind.tolist()], self.src_off.tolist(),
                           self.dst_off.tolist())
        kinds, src, dst = self._lists
        new = tuple.__new__
        return iter([new(Descriptor, (t[0], t[1], t[2], t[3], so, do, t[6], t[7], t[8], t[9],
                                      t[10], t[11], t[12], t[13], t[14]))
                     for t, so, do in zip(kinds[start:stop], src[start:stop], dst[start:stop],
                                          strict=True)])


class DescriptorRange(Sequence[Descriptor]):
    """Rows start..stop-1 of a DescriptorTable as a sequence of Descriptors: a DMA
    entry's descriptors as the reader gives them (equal to the tuple of the same
    Descriptors, and hashed alike)."""

    __slots__ = ("start", "stop", "table")

    def __init__(self, table: DescriptorTable, start: int, stop: int) -> None:
        if not 0 <= start <= stop <= len(table):
            raise ValueError(f"rows {start}..{stop} of a table of {len(table)}")
        self.table, self.start, self.stop = table, start, stop

    def __len__(self) -> int:
        return self.stop - self.start

    @overload
    def __getitem__(self, i: int) -> Descriptor: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Descriptor, ...]: ...

    def __getitem__(self, i: int | slice) -> Descriptor | tuple[Descriptor, ...]:
        if isinstance(i, slice):
            return tuple(self)[i]
        n = len(self)
        if not -n <= i < n:
            raise IndexError("descriptor index out of range")
        return self.table.row(self.start + (i + n if i < 0 else i))

    def __iter__(self) -> Iterator[Descriptor]:
        return self.table.rows(self.start, self.stop)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DescriptorRange | tuple | list):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"DescriptorRange({list(self)!r})"


def sb_dims(sizes: tuple[int, ...], steps: tuple[int, ...]
            ) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """An SB side's partition reach and its byte dimensions: ((lowest, highest)
    partition relative to the offset's, [(size, step)] of the other dimensions).

    A partition dimension is one whose step is a non-zero multiple of
    SB_PARTITION_STEP: 0x40000 itself (neff-facts §2.5), or k x 0x40000 where a
    transposing descriptor tiles the partitions (sizes (512, 64, 2), steps (1, 0x40000,
    0x1000000): 2 x 64 partitions, 0..127). A byte offset cannot be that large: a
    partition holds far fewer bytes than 0x40000."""
    lo = hi = 0
    rest: list[tuple[int, int]] = []
    for size, step in zip(sizes, steps, strict=False):
        if step and step % SB_PARTITION_STEP == 0:
            reach = (size - 1) * (step // SB_PARTITION_STEP) if size else 0
            lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
        else:
            rest.append((size, step))
    return (lo, hi), rest


def _prod64(values: Sequence[int]) -> int:
    """The product as numpy's int64 product gives it (wrapping), without numpy's cost
    per call: `disasm` words every DMA entry's first descriptor."""
    return (math.prod(values) + (1 << 63)) % (1 << 64) - (1 << 63)


def _side(name: str, off: int, sizes: tuple[int, ...], steps: tuple[int, ...]) -> str:
    if name == SB:
        (lo, hi), rest = sb_dims(sizes, steps)
        per = _prod64([n for n, _ in rest]) if rest else 1
        p0, byte = divmod(off, SB_PARTITION_STEP)
        return f"SB[p{p0 + lo}..{p0 + hi} +0x{byte:x} {per}B/p]"
    total = _prod64(sizes) if sizes else 0
    return f"{name}[+0x{off:x} {total}B]"


@dataclass(frozen=True)
class DmaEntry:
    """One entry of an engine JSON's `dma` list: what a PSEUDO_DMATRIGGER naming
    (`queue`, `id`) starts; on completion `semaphore` rises by DMA_INCREMENT."""

    queue: str
    id: int
    semaphore: int
    descriptors: Sequence[Descriptor] = ()  # a tuple, or a DescriptorRange from the reader
    comment: str = ""  # the compiler's instruction name ("#comment")

    @property
    def label(self) -> str:
        """`qSPIO0#17`: how reports name the entry."""
        return f"{self.queue}#{self.id}"

    def summary(self) -> str:
        """One line for all descriptors: the first one's, and how many more there are."""
        if not self.descriptors:
            return "no descriptors"
        first = self.descriptors[0].summary()
        more = len(self.descriptors) - 1
        return first + (f" (+{more} more descriptor{'s' if more > 1 else ''})" if more else "")


@dataclass(frozen=True)
class Var:
    """One `def.json` `var`: the SB itself, an input/output tensor, a constant file or a
    compiler scratch buffer in DRAM ("virtual"). `size` is in bytes."""

    name: str
    type: str  # "state-buffer", "input", "output", "file", "virtual" are seen
    var_id: int | None = None
    size: int | None = None
    file_name: str | None = None
    # not in the reference and not modelled (machine.neff.unmodelled.backing_note)
    backing_variable_off: int | None = None


@dataclass(frozen=True)
class Tensor:
    """One `tensor_map.json` entry: an input, output or constant tensor."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    kind: str | None = None  # "input" / "output"; None on constants
    is_const: bool = False
    format: str | None = None  # "NCHW", ... (tf_format)
    file: str | None = None  # tf_file: a real .npy only for constants


def empty_stream() -> np.ndarray:
    return np.zeros((0, RECORD_BYTES), dtype=np.uint8)


@dataclass(frozen=True, eq=False)
class Subgraph:
    """One subgraph (`sgNN`) of a NEFF: five streams and what they name."""

    name: str
    streams: dict[Engine, np.ndarray] = field(default_factory=dict)  # (N, 64) uint8
    queues: dict[str, DmaQueue] = field(default_factory=dict)
    entries: dict[Engine, tuple[DmaEntry, ...]] = field(default_factory=dict)
    vars: dict[str, Var] = field(default_factory=dict)
    tensors: dict[str, Tensor] = field(default_factory=dict)
    runtime_semaphore_count: int = RUNTIME_SEMAPHORES
    # the constants (`var` type "file"): member bytes by var name (a .npy each)
    files: dict[str, bytes | bytearray] = field(default_factory=dict)

    def stream(self, engine: Engine) -> np.ndarray:
        """The engine's records, (N, 64) uint8 (empty when it has none)."""
        s = self.streams.get(engine)
        return empty_stream() if s is None else s

    def program(self, engine: Engine) -> Program:
        """The engine's stream as a codec Program (decoded lazily, per struct group)."""
        return Program(self.stream(engine), f"{self.name}/{engine.file_stem}.bin")

    def engine_entries(self, engine: Engine) -> tuple[DmaEntry, ...]:
        return self.entries.get(engine, ())

    @property
    def record_count(self) -> int:
        return sum(len(self.stream(e)) for e in ENGINES)

    @property
    def entry_count(self) -> int:
        return sum(len(self.engine_entries(e)) for e in ENGINES)

    @property
    def descriptor_count(self) -> int:
        return sum(len(x.descriptors) for e in ENGINES for x in self.engine_entries(e))

    @property
    def has_work(self) -> bool:
        """Whether anything runs here: a DMA entry, or a record other than the prologue's
        SET_ORDERING_MODE / PSEUDO_BRANCH_LABEL (an idle cayman sg01 has only those)."""
        idle = np.array([Opcode.SET_ORDERING_MODE, Opcode.PSEUDO_BRANCH_LABEL], np.uint8)
        return self.entry_count > 0 or any(
            not np.isin(self.stream(e)[:, 0], idle).all() for e in ENGINES)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Subgraph):
            return NotImplemented
        return (self.name == other.name and self.queues == other.queues
                and self.vars == other.vars and self.tensors == other.tensors
                and self.runtime_semaphore_count == other.runtime_semaphore_count
                and self.files == other.files
                and all(self.engine_entries(e) == other.engine_entries(e) for e in ENGINES)
                and all(np.array_equal(self.stream(e), other.stream(e)) for e in ENGINES))

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class NeffInfo:
    """What a NEFF says of itself: header name, compiler version, target."""

    name: str
    target: str
    tool_version: str | None = None
