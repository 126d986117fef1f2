"""click parameter types shared by the subcommands: generation, engine, format, mode, profile.

Each type accepts what the model's own parser accepts (one declaration of the names, in
`machine`), offers those names to shell completion, and turns a bad value into a
`ParamError`: under `neurondbg` (cli.main) it is a usage error printed as one line,
`neurondbg: error: neurondbg run: Invalid value for '--gen': unknown generation ...`;
invoked standalone (click's own error display, as tests and embedders do) it prints
one line too, `neurondbg: error: run: --gen: unknown generation ...`, never a usage block.

Decisions: `--gen` takes codenames, product names (trn1, inf2, trn2, trn3, as
`check-nki` does) and "genN", case-insensitive, everywhere; completion lists codenames
then products, each product with its codename as help. `--format` values stay names
(FP8_EXP4 resolves under `--gen`, which click may parse later): the type checks the name.
Importing this module loads neither numpy nor ml_dtypes: each type's choices and parser
come from `machine` on first use (the CLI starts without them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

from neurondbg.errors import usage_line

if TYPE_CHECKING:  # imported by shell_complete: a command that runs never completes
    from click.shell_completion import CompletionItem

    from neurondbg.machine.convert.modes import Mode
    from neurondbg.machine.dtypes import Gen

T = TypeVar("T")

# The model's names are imported when a type first needs them (a value to parse, a
# completion, a command's --help), never at import: `neurondbg --help` imports this
# module's users' tables only by name, and numpy / ml_dtypes stay unloaded.


class ParamError(click.BadParameter):
    """A bad option value: one line wherever click shows it."""

    def show(self, file: IO[Any] | None = None) -> None:
        # the same line as the entry point prints (neurondbg.cli.main), however invoked
        where = self.ctx.command_path if self.ctx is not None else "neurondbg"
        click.echo(usage_line(where, self.format_message()), err=True, file=file)


class _NamedType(click.ParamType[T, "str | T"]):
    """A value of type T parsed by `parse` (ValueError -> ParamError), completed from
    `choices`; a value already parsed (a default given as one) is kept."""

    parse: Callable[[str], T]

    def _choices(self) -> Sequence[str]:
        """The accepted names, from the model (called once, on first use)."""
        raise NotImplementedError

    def _helps(self) -> dict[str, str]:
        """Completion help per name (called once, on first use)."""
        return {}

    @cached_property
    def choices(self) -> tuple[str, ...]:
        return tuple(self._choices())

    @cached_property
    def helps(self) -> dict[str, str]:
        return self._helps()

    def convert(self, value: str | T, param: click.Parameter | None,
                ctx: click.Context | None) -> T:
        if not isinstance(value, str):
            return value  # already converted (a default given as the parsed value)
        try:
            return type(self).parse(value)
        except ValueError as e:
            raise ParamError(str(e), ctx, param) from None

    def shell_complete(self, ctx: click.Context, param: click.Parameter,
                       incomplete: str) -> list[CompletionItem]:
        from click.shell_completion import CompletionItem

        low = incomplete.lower()
        return [CompletionItem(c, help=self.helps.get(c)) for c in self.choices
                if c.lower().startswith(low)]

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        """The choices, as click.Choice shows them, when they fit; else the kind."""
        few = len(self.choices) <= 8
        return f"[{'|'.join(self.choices)}]" if few else self.name.upper()


class GenType(_NamedType["Gen"]):
    """`--gen`: a Gen from a codename, product name or "genN"."""

    name = "gen"

    @staticmethod
    def parse(value: str) -> Gen:
        from neurondbg.machine.dtypes import parse_gen_name
        return parse_gen_name(value)

    def _choices(self) -> Sequence[str]:
        from neurondbg.machine.dtypes import GEN_NAMES, PRODUCT_GENS
        return (*GEN_NAMES, *PRODUCT_GENS)

    def _helps(self) -> dict[str, str]:
        from neurondbg.machine.dtypes import PRODUCT_GENS
        return {p: g.label for p, g in PRODUCT_GENS.items()}


class EngineType(_NamedType[str]):
    """`--engine`: an engine queue name (machine.isa.opcodes), plus `extra` words a command
    gives a meaning of its own (validate's `any`); case-insensitive, returned lower-case."""

    name = "engine"

    def __init__(self, extra: Sequence[str] = ()) -> None:
        self.extra = tuple(extra)

    def _choices(self) -> Sequence[str]:
        from neurondbg.machine.isa.queues import QUEUE_ENGINES
        return (*QUEUE_ENGINES, *self.extra)

    def convert(self, value: str, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        key = str(value).strip().lower()
        if key not in self.choices:
            raise ParamError(f"unknown engine {value!r}; expected one of: "
                             f"{', '.join(self.choices)}", ctx, param)
        return key


class FormatType(_NamedType[str]):
    """`--from` / `--to`: a convert format name or a Neuron dtype name (checked; the
    name is returned, resolved by the command under its `--gen`)."""

    name = "fmt"

    def _choices(self) -> Sequence[str]:
        from neurondbg.machine.convert.formats import FORMAT_NAMES
        return FORMAT_NAMES

    @staticmethod
    def parse(value: str) -> str:
        from neurondbg.machine.convert.formats import parse_format
        parse_format(value)
        return value


class ModeType(_NamedType["Mode"]):
    """`--mode`: a rounding Mode."""

    name = "mode"

    @staticmethod
    def parse(value: str) -> Mode:
        from neurondbg.machine.convert.options import parse_mode
        return parse_mode(value)

    def _choices(self) -> Sequence[str]:
        from neurondbg.machine.convert.modes import Mode
        return tuple(Mode)


class ProfileType(_NamedType[str]):
    """`--profile`: a conversion profile name."""

    name = "profile"

    @staticmethod
    def parse(value: str) -> str:
        from neurondbg.machine.convert.options import parse_profile
        return parse_profile(value)

    def _choices(self) -> Sequence[str]:
        from neurondbg.machine.convert.options import PROFILES
        return PROFILES


def __getattr__(name: str) -> str:
    """DEFAULT_ENGINE, the queue a machine runs unless told otherwise (machine.isa.opcodes's,
    read on first use so that importing this module does not import the model's tables)."""
    if name == "DEFAULT_ENGINE":
        from neurondbg.machine.isa.queues import DEFAULT_ENGINE
        return DEFAULT_ENGINE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


GEN = GenType()
ENGINE = EngineType()
FORMAT = FormatType()
MODE = ModeType()
PROFILE = ProfileType()
