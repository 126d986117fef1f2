"""Compiler and assert messages as patterns: a rule declares the messages the references
quote for it, and `explain` recognises them in pasted text.

A pattern is written as the reference quotes it, with three marks for its variable parts:

    "on_false must be float32 when provided as a scalar[, got …]"
    "<inst> is not supported on trn1 Scalar Engine."

`…` (or `...`) stands for any words, `<name>` for a word the compiler fills in (an
intrinsic, a dtype), and `[text]` for text that may be missing (the pasted line may stop
before the variable part). Matching is on words: both sides are lower-cased and cut into
identifiers, numbers and comparison operators, so quotes, backticks, punctuation, a
`file.py:123:` prefix and the surrounding compiler log do not matter.
"""

from __future__ import annotations

import re
from dataclasses import Field, dataclass, field, replace
from typing import Any, ClassVar, Protocol, TypeVar

_TOKEN = re.compile(r"[a-z0-9_]+|<=|>=|==|!=|\|\||&&")
_MARKS = re.compile(r"(\.\.\.|…|<[A-Za-z_][A-Za-z_ ]*>|\[|\])")
_ANY = r"(?:\S+ )*?"  # any words, fewest first


def words(text: str) -> list[str]:
    """The words a message is matched on (lower case)."""
    return _TOKEN.findall(text.lower())


def _compile(pattern: str) -> re.Pattern[str]:
    rx = [" "]
    depth = 0
    for part in _MARKS.split(pattern):
        if not part:
            continue
        if part in ("...", "…") or (part.startswith("<") and part.endswith(">")):
            rx.append(_ANY)
        elif part == "[":
            rx.append("(?:")
            depth += 1
        elif part == "]":
            if depth == 0:
                raise ValueError(f"unbalanced ']' in message pattern {pattern!r}")
            rx.append(")?")
            depth -= 1
        else:
            rx.append("".join(re.escape(w) + " " for w in words(part)))
    if depth:
        raise ValueError(f"unbalanced '[' in message pattern {pattern!r}")
    if not any(words(p) for p in _MARKS.split(pattern) if not _MARKS.fullmatch(p)):
        raise ValueError(f"message pattern {pattern!r} has no literal words")
    return re.compile("".join(rx))


@dataclass(frozen=True)
class MessagePattern:
    """One message a reference quotes for a rule, and where it quotes it."""

    text: str  # as quoted, with the variable marks of the module docstring
    source: str  # where the reference quotes it: "004 select_reduce", "001 §1.1"
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", _compile(self.text))

    def matches(self, text: str) -> bool:
        """The pasted `text` contains this message (variable parts filled in or not)."""
        return self.regex.search(" " + " ".join(words(text)) + " ") is not None


def message(text: str, source: str) -> MessagePattern:
    return MessagePattern(text, source)


class _Quotable(Protocol):
    """A dataclass (frozen or not: the fields are read-only here) with the two fields."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def messages(self) -> tuple[MessagePattern, ...]: ...

    @property
    def aliases(self) -> tuple[str, ...]: ...


R = TypeVar("R", bound=_Quotable)


def quoting(rule: R, *messages: MessagePattern, aliases: tuple[str, ...] = ()) -> R:
    """`rule` (a wire Clause or an NKI ClauseSpec) declaring the messages the references
    quote for it and the other names they give it (a sema helper it raises through, a
    misspelling)."""
    return replace(rule, messages=rule.messages + messages, aliases=rule.aliases + aliases)
