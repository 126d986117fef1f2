"""click parameter types of the NeuronCore options: `--schedule` and `--races`.

Both follow neurondbg.params: a bad value is a ParamError (one line, never a usage
block) and the accepted words are offered to shell completion.

Decisions: `--schedule` takes what machine.core.schedule.parse_policy takes (`rr`,
`in-order`, `random:SEED`), case-insensitive, returned in its canonical spelling; `--races`
takes on/off (also yes/no, true/false, 1/0, as click's booleans do) and returns a bool.
"""

from __future__ import annotations

import click

from neurondbg.params import ParamError, _NamedType

SCHEDULE_WORDS: tuple[str, ...] = ("rr", "in-order", "random:")  # completion prefixes


def parse_schedule(value: str) -> str:
    """The canonical policy text of `value` (machine.core.schedule.parse_policy, the one
    grammar of policies); ValueError (one line) if it is none."""
    from neurondbg.machine.core.schedule import parse_policy  # on first use: it imports numpy
    return parse_policy(value).text


class ScheduleType(_NamedType[str]):
    """`--schedule`: the scheduler policy of a kernel run."""

    name = "schedule"
    parse = staticmethod(parse_schedule)

    def _choices(self) -> tuple[str, ...]:
        return SCHEDULE_WORDS

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return "[rr|in-order|random:SEED]"


_SWITCH = {"on": True, "off": False, "yes": True, "no": False, "true": True,
           "false": False, "1": True, "0": False}


def parse_switch(value: str) -> bool:
    key = value.strip().lower()
    if key not in _SWITCH:
        raise ValueError(f"expected on or off, found {value!r}")
    return _SWITCH[key]


class SwitchType(_NamedType[bool]):
    """`--races on|off`: a bool."""

    name = "switch"
    parse = staticmethod(parse_switch)

    def _choices(self) -> tuple[str, ...]:
        return ("on", "off")

    def convert(self, value: str | bool, param: click.Parameter | None,
                ctx: click.Context | None) -> bool:
        if isinstance(value, bool):
            return value
        return super().convert(value, param, ctx)


SCHEDULE = ScheduleType()
SWITCH = SwitchType()
__all__ = ["SCHEDULE", "SWITCH", "ParamError", "ScheduleType", "SwitchType", "parse_schedule",
           "parse_switch"]
