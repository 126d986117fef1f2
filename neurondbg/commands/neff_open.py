"""Opening a NEFF for a command: the subgraph, its generation, warnings on stderr.

`validate` and `disasm` hand a NEFF here (machine.neff.sniff.is_neff_file decides):

    opened = open_for_command(path, subgraph, gen, gen_given)

The generation is the one `kelf-0.json` `target` names ("sunda" = Trn1, "cayman" =
Trn2); an explicit `--gen` wins, with a one-line warning when it differs. Every reader
warning (an unverifiable header hash, ignored trailing bytes) is one stderr line. Any
NeffError is the one-line InputError (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from neurondbg.errors import InputError
from neurondbg.machine.dtypes import GEN_NAMES, Gen
from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.model import Engine, Subgraph, gen_of_target
from neurondbg.machine.neff.reader import Neff, open_neff
from neurondbg.machine.neff.triggers import Trigger, resolve_triggers


@dataclass(frozen=True)
class OpenedNeff:
    """What a command works on."""

    neff: Neff
    sub: Subgraph
    gen: Gen
    triggers: dict[Engine, list[Trigger]]

    def head(self) -> str:
        """`file: NEFF 'name' (tool), subgraph sg00 of sg00, sg01, cayman; header hash MD5
        verified` (or `not verified`)."""
        n = self.neff
        tool = f" ({n.info.tool_version})" if n.info.tool_version else ""
        names = ", ".join(s.name for s in n.subgraphs)
        return (f"{n.path}: NEFF {n.info.name!r}{tool}, subgraph {self.sub.name} of {names}, "
                f"{self.gen.label}; header hash {n.hash_check.value}")


def warn(text: str) -> None:
    click.echo(f"neurondbg: warning: {text}", err=True)


def open_for_command(path: str, subgraph: str | None, gen: Gen | None) -> OpenedNeff:
    """The NEFF at `path` and its subgraph (`subgraph`, else the first with work); `gen`
    given overrides the target's generation."""
    from neurondbg.cli import frozen_imports

    try:
        # the NEFF lives as long as the command: in the command's own process it is
        # frozen as imports are, so no later full collection walks its hundreds of
        # thousands of descriptors (a third of a large run's time otherwise)
        with frozen_imports():
            neff = open_neff(path)
        sub = neff.subgraph(subgraph)
        triggers = resolve_triggers(sub, path)
    except NeffError as e:
        raise InputError(str(e)) from None
    for w in neff.warnings:
        warn(w)
    target = neff.info.target
    own = gen_of_target(target)
    if gen is None:
        if own is None:
            raise InputError(f"{path}: kelf-0.json target {target!r} names no generation "
                             f"neurondbg knows ({', '.join(GEN_NAMES)}); pass --gen")
        gen = own
    elif gen != own:
        warn(f"{path}: --gen {gen.label} overrides the NEFF's target {target!r}"
             + (f" ({own.label})" if own else ""))
    return OpenedNeff(neff, sub, gen, triggers)
