"""`neurondbg check-nki CALLS.json [--json]`: NKI-intrinsic-level legality (ref 004).

Input: a JSON list of calls `{"op": ..., "args": {...}, "gen": "trn2"}`.
Exit 0 when every call is legal, 1 when any is illegal, 2 on bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from neurondbg.errors import InputError


def _load(path: str) -> list[Any]:
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: offset {exc.start}: expected UTF-8 JSON text") from None
    try:
        calls = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply") from None
    if not isinstance(calls, list):
        raise InputError(f"{path}: expected a JSON list of calls, got {type(calls).__name__}")
    return calls


def _as_json(index: int, verdict: Any, gen: Any) -> dict[str, Any]:
    return {
        "index": index,
        "op": verdict.predicate,
        "gen": gen.label,
        "valid": verdict.valid,
        "failed": list(verdict.failed),
        "notes": list(verdict.notes),
        "clauses": {c.name: c.passed for c in verdict.clauses},
        "messages": {c.name: c.message for c in verdict.clauses},
        "fixes": {c.name: c.fix for c in verdict.clauses if not c.passed and c.fix},
    }


def _print(results: list[tuple[int, Any, Any]]) -> None:
    from rich.console import Console
    from rich.markup import escape

    from machine.legality.nki.vocab import gen_label

    console = Console(highlight=False, soft_wrap=True)
    for index, verdict, gen in results:
        head = f"call {index}: {verdict.predicate} on {gen_label(gen)}:"
        if verdict.valid:
            console.print(f"{head} [green]legal[/green]")
        else:
            console.print(f"{head} [bold red]illegal[/bold red] "
                          f"({len(verdict.failed)} clause(s) failed)")
        for c in verdict.clauses:
            if c.passed:
                continue
            tag = "[yellow]note[/yellow]" if c.note else "[red]FAIL[/red]"
            console.print(f"  {tag} [bold]{escape(c.name)}[/bold]: {escape(c.message)}")
            if c.fix:
                console.print(f"       fix: {escape(c.fix)}")
            console.print(f"       [dim]{escape(str(c.provenance))}[/dim]")
    if not results:
        console.print("no calls")


@click.command("check-nki")
@click.argument("calls_file", metavar="CALLS.json")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per call.")
def command(calls_file: str, as_json: bool) -> None:
    """Check NKI intrinsic calls against reference 004's legality rules."""
    from machine.legality.nki.check import evaluate, parse_call
    from machine.legality.nki.vocab import NkiInputError

    calls = _load(calls_file)
    results = []
    for index, call in enumerate(calls):
        try:
            intrinsic, args, gen = parse_call(call, f"call {index}")
        except NkiInputError as exc:
            raise InputError(f"{calls_file}: {exc}") from None
        results.append((index, evaluate(intrinsic, args, gen), gen))
    if as_json:
        out = [_as_json(i, v, g) for i, v, g in results]
        click.echo(json.dumps(out, indent=2))
    else:
        _print(results)
    if not all(v.valid for _, v, _ in results):
        click.get_current_context().exit(1)
