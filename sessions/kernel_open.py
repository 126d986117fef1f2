"""Open a kernel (machine.core) for the CLI: the source, the Core, the data it starts from.

    opened = open_kernel(path, gen=None, schedule="rr", races=True,   # SessionError
                         images=[Image("sbuf", 0, 0, array, "in.npy")])   # `run --sbuf`
    stop = opened.core.cont(max_steps)

Images (memory the kernel's own data does not produce) become part of the kernel's data
before the Core is built, so they are in its step-0 state (checkpoint 0, reverse, replay)
and a saved session keeps them.

Every bad input is one SessionError line naming the file (and line:column or key), as
sessions.program does for a PROGRAM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from neurondbg.machine.asm.data import DataInit
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.core.core import Core
from neurondbg.machine.core.kernel import Kernel, load_kernel
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.history import JOURNAL_BUDGET
from neurondbg.machine.state import RECORD_BYTES, MachineConfig
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.program import naming, open_error

if TYPE_CHECKING:  # the store builds on this module
    from neurondbg.sessions.store import LoadedKernelSession


@dataclass(frozen=True)
class Image:
    """Memory placed before the first step that the kernel's own data does not produce."""

    space: str  # sbuf | psum
    partition: int
    offset: int
    array: np.ndarray  # uint8 (partitions, bytes)
    name: str = ""  # where it came from, for messages (`--sbuf FILE`, a session's data[i])

    def init(self) -> DataInit:
        """The image as a machine.asm DataInit (applied like a data directive)."""
        a = self.array
        return DataInit(self.space, (self.partition, self.partition + a.shape[0]), self.offset,
                        a)


@dataclass
class OpenedKernel:
    """A Core ready to run, with what it was opened from."""

    core: Core
    kernel: Kernel
    config: MachineConfig
    images: list[Image] = field(default_factory=list)  # saved with a session
    warnings: list[str] = field(default_factory=list)
    session: LoadedKernelSession | None = None  # what a session file added

    @property
    def path(self) -> Path:
        return self.kernel.path

    def where(self, engine: str | None, pc: int | None) -> str | None:
        """`file:line:column` of the instruction at `pc` in `engine`'s queue (assembly)."""
        if engine is None or pc is None or engine not in self.kernel.engines:
            return None
        index, rest = divmod(pc - self.config.base, RECORD_BYTES)
        if rest or index < 0:
            return None
        return self.kernel.queue(engine).program.where(index)


def read_kernel(path: str | Path, gen: Gen | None = None, who: str = "") -> Kernel:
    """The kernel at `path` (machine.core.kernel.load_kernel); SessionError (one line,
    prefixed by `who`, e.g. the session file naming it) on any bad input."""
    p = Path(path)
    try:
        return load_kernel(p, gen)
    except OSError as e:
        raise open_error("kernel", p, e, who) from None
    except AsmError as e:
        raise SessionError(f"{who + ': ' if who else ''}{e.one_line}") from None
    except ValueError as e:  # KernelError, InputFileError, IsaFormatError: name the file
        where = naming(p, e)
        raise SessionError(f"{who}: {where}" if who else where) from None


def kernel_config(kernel: Kernel, execute_invalid: bool = False,
                  base: MachineConfig | None = None) -> MachineConfig:
    """The MachineConfig every engine of `kernel` runs under: its gen and [machine]
    settings (`base`, a saved session's config, when given)."""
    if base is not None:
        return base
    settings = {k: v for k, v in kernel.machine.items() if k not in ("gen", "engine")}
    try:
        return MachineConfig(gen=kernel.gen, execute_invalid=execute_invalid, **settings)
    except TypeError as e:  # a [machine] key MachineConfig does not have
        raise SessionError(f"{kernel.path}: [machine]: {e}") from None


def memory_shape(config: MachineConfig, space: str) -> tuple[int, int]:
    """(partitions, bytes per partition) of `space` under `config`."""
    c = config.resolved()
    return c.partitions, c.sbuf_bytes if space == "sbuf" else c.psum_bytes


def make_core(kernel: Kernel, config: MachineConfig, *, schedule: str, races: bool,
              history: bool, images: Sequence[Image] = ()) -> OpenedKernel:
    """The Core of `kernel` with `images` placed after its own data; SessionError for an
    image that does not fit or a kernel the machine refuses (its data does not fit, ...).
    `history=False`: no undo history (a headless run nobody reverses)."""
    for img in images:
        a = img.array
        rows, cols = memory_shape(config, img.space)
        if a.dtype != np.uint8 or a.ndim != 2:
            raise SessionError(f"{img.name}: expected a uint8 array of shape (partitions, "
                               f"bytes), got {a.dtype} {a.shape}")
        if img.partition + a.shape[0] > rows or img.offset + a.shape[1] > cols:
            raise SessionError(f"{img.name}: {a.shape} at partition {img.partition}, byte "
                               f"{img.offset} does not fit {img.space} ({rows}, {cols})")
    loaded = replace(kernel, data=(*kernel.data, *(img.init() for img in images)))
    try:
        core = Core(loaded, config, schedule=schedule, races=races,
                    journal_budget=JOURNAL_BUDGET if history else 0)
    except ValueError as e:
        raise SessionError(f"{kernel.path}: {e}") from None
    return OpenedKernel(core, kernel, config, list(images))


def open_kernel(path: str | Path, gen: Gen | None = None, *, schedule: str = "rr",
                races: bool = True, execute_invalid: bool = False, history: bool = True,
                images: Sequence[Image] = ()) -> OpenedKernel:
    """A kernel source (manifest or `.engine` file) on a fresh Core at step 0, with
    `images` (e.g. `run --sbuf`) placed after the kernel's own data."""
    kernel = read_kernel(path, gen)
    return make_core(kernel, kernel_config(kernel, execute_invalid), schedule=schedule,
                     races=races, history=history, images=images)
