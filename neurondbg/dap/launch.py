"""Open what a `launch` request names: a PROGRAM, a session file, a KERNEL or a NEFF.

    target, warnings = open_target(LaunchArgs.model_validate(arguments))

Launch arguments: DAP's own `noDebug` (run to the end, nothing stops; `__restart` is
ignored), `program` (the path; required), `gen`, `engine` (a PROGRAM's queue), `schedule`
(a kernel's: rr, in-order, random:SEED), `races` (bool, default true), `stopOnEntry`
(bool, default false), `stopOnHalt` (bool, default false: when every engine has halted
the session ends, as gdb's does when the inferior exits; true keeps it stopped there
so the user can step back, as rr does at the end of a recording). A session file's own
gen / engine / schedule win, as in `neurondbg run SESSION`. A NEFF (sessions.neff_open,
as `neurondbg tui FILE.neff` opens it) runs its `subgraph` (default: the first that has
work) on the generation its `kelf-0.json` names, with `inputs` ({tensor name: `.npy`
path}, read as `run --input` reads them; the rest start as zeros); a `gen` naming another
is refused (the launch opens a NEFF as `tui` does, on its own generation only), as are
`subgraph` and `inputs` for anything but a NEFF. Errors are one-line ValueErrors naming
the file. A session replays to its saved step with `progress(done, total)` reports, and
setting `interrupt` stops it with SessionInterrupted.
"""

from __future__ import annotations

import threading
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from neurondbg.dap.target import Target
from neurondbg.machine.dtypes import Gen, parse_gen_name
from neurondbg.sessions.store import Progress


class LaunchArgs(BaseModel):
    """The `launch` request's arguments this adapter reads."""

    model_config = ConfigDict(extra="allow")
    program: str = Field(..., min_length=1)
    gen: str | None = None
    engine: str = "pool"
    schedule: str = "rr"
    races: bool = True
    stopOnEntry: bool = False  # DAP spells it so
    stopOnHalt: bool = False  # a halt stops (reason "halt") instead of ending the session
    noDebug: bool = False  # run to the end: no breakpoint, no exception stop, no entry stop
    subgraph: str | None = None  # a NEFF's subgraph (sg00, ...)
    inputs: dict[str, str] = Field(default_factory=dict)  # a NEFF's: tensor name -> .npy


def open_target(args: LaunchArgs, progress: Progress | None = None,
                interrupt: threading.Event | None = None) -> tuple[Target, list[str]]:
    """The Target at `args.program` with the warnings its loader gave."""
    from neurondbg.machine.core.schedule import parse_policy
    from neurondbg.machine.isa.opcodes import QUEUE_ENGINES
    from neurondbg.sessions.cli_support import Opened, open_path

    path = Path(args.program).expanduser()
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    gen = parse_gen_name(args.gen) if args.gen else None
    if args.engine not in QUEUE_ENGINES:
        raise ValueError(f"engine: expected one of {', '.join(QUEUE_ENGINES)}, found "
                         f"{args.engine!r}")
    schedule = parse_policy(args.schedule).text
    from neurondbg.sessions.kernel_kind import is_neff

    if is_neff(path):
        return _open_neff(path, args, gen, schedule)
    if args.subgraph is not None:
        raise ValueError(f"{path}: subgraph {args.subgraph!r}: only a NEFF has subgraphs")
    if args.inputs:
        raise ValueError(f"{path}: inputs: only a NEFF has input tensors")
    o = open_path(path, gen, args.engine, schedule=schedule, races=args.races,
                  progress=progress, interrupt=interrupt)
    if isinstance(o, Opened):
        return Target(o.core, o.program_path), list(o.warnings)
    return Target(o.core, o.path.resolve()), list(o.warnings)


def _open_neff(path: Path, args: LaunchArgs, gen: Gen | None,
               schedule: str) -> tuple[Target, list[str]]:
    """A NEFF's subgraph on its Core (sessions.neff_open), with its reader's warnings."""
    from neurondbg.sessions.neff_open import open_neff_kernel

    inputs = [(name, Path(file).expanduser()) for name, file in args.inputs.items()]
    o = open_neff_kernel(path, args.subgraph, schedule=schedule, races=args.races,
                         inputs=inputs)
    own = o.config.gen
    if gen is not None and gen != own:
        raise ValueError(f"{path}: gen {gen.label}: this NEFF was built for {own.label} "
                         f"(its kelf-0.json target); launch it without gen")
    return Target(o.core, path.resolve()), list(o.warnings)
