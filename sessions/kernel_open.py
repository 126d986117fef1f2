"""Open a kernel (machine.core) for the CLI: the source, the Core, the data it starts from.

    opened = open_kernel(path, gen=None, schedule="rr", races=True)   # SessionError
    opened.load_sbuf(array)            # `run --sbuf`: kept, so a saved session has it
    stop = opened.core.cont(max_steps)

Every bad input is one SessionError line naming the file (and line:column or key), as
sessions.program does for a PROGRAM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from machine.asm.errors import AsmError
from machine.core.core import Core
from machine.core.kernel import Kernel, load_kernel
from machine.dtypes import Gen
from machine.history import JOURNAL_BUDGET
from machine.state import RECORD_BYTES, MachineConfig
from sessions.errors import SessionError


@dataclass(frozen=True)
class Image:
    """Memory placed before the first step that the kernel's own data does not produce."""

    space: str  # sbuf | psum
    partition: int
    offset: int
    array: np.ndarray  # uint8 (partitions, bytes)


@dataclass
class OpenedKernel:
    """A Core ready to run, with what it was opened from."""

    core: Core
    kernel: Kernel
    config: MachineConfig
    images: list[Image] = field(default_factory=list)  # saved with a session
    warnings: list[str] = field(default_factory=list)
    session: Any = None  # sessions.kernel_store.LoadedKernelSession, for a session file

    @property
    def path(self) -> Path:
        return self.kernel.path

    def load_sbuf(self, array: np.ndarray) -> None:
        """Place a uint8 (partitions, bytes) array at SBUF (0, 0), shared by every engine;
        ValueError if it does not fit. Only before the first step."""
        first = self.core.machines[self.core.engines[0]]
        first.load_sbuf(array)  # one SBUF: every engine's machine sees it
        self.images.append(Image("sbuf", 0, 0, np.array(array, dtype=np.uint8, copy=True)))

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
    prefix = f"{who}: kernel " if who else ""
    try:
        return load_kernel(p, gen)
    except FileNotFoundError:
        raise SessionError(f"{prefix}{p}: no such file") from None
    except OSError as e:
        raise SessionError(f"{prefix}{p}: cannot read: {e.strerror or e}") from None
    except AsmError as e:
        raise SessionError(f"{who + ': ' if who else ''}{e.one_line}") from None
    except ValueError as e:  # KernelError, InputFileError, IsaFormatError: name the file
        msg = str(e).splitlines()[0]
        where = msg if msg.startswith(str(p)) else f"{p}: {msg}"
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


def make_core(kernel: Kernel, config: MachineConfig, *, schedule: str, races: bool,
              history: bool) -> Core:
    """The Core of `kernel`; SessionError for a kernel the machine refuses (its data does
    not fit, ...). `history=False`: no undo history (a headless run nobody reverses)."""
    try:
        return Core(kernel, config, schedule=schedule, races=races,
                    journal_budget=JOURNAL_BUDGET if history else 0)
    except ValueError as e:
        raise SessionError(f"{kernel.path}: {e}") from None


def open_kernel(path: str | Path, gen: Gen | None = None, *, schedule: str = "rr",
                races: bool = True, execute_invalid: bool = False,
                history: bool = True) -> OpenedKernel:
    """A kernel source (manifest or `.engine` file) on a fresh Core at step 0."""
    kernel = read_kernel(path, gen)
    config = kernel_config(kernel, execute_invalid)
    core = make_core(kernel, config, schedule=schedule, races=races, history=history)
    return OpenedKernel(core, kernel, config)
