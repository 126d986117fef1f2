"""`neurondbg check-nki CALLS.json [--json]`: NKI-intrinsic-level legality (ref 004).

Input: a JSON list of calls `{"op": ..., "args": {...}, "gen": "trn2"}`.
Exit 0 when every call is legal, 1 when any is illegal, 2 on bad input.
"""

from __future__ import annotations

import json
from typing import Any

import click

from machine.dtypes import Gen
from neurondbg.errors import InputError
from neurondbg.params import GEN


def _load(path: str) -> list[Any]:
    """The calls list; InputError (one line, exit 2) for a FIFO or other non-regular file,
    a file over MAX_JSON_BYTES, bad UTF-8 or JSON, or integers past Python's digit limit."""
    from machine.files import MAX_JSON_BYTES, InputFileError, load_json, read_input

    try:
        calls = load_json(read_input(path, what="calls file", max_bytes=MAX_JSON_BYTES), path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except InputFileError as exc:
        raise InputError(str(exc)) from None
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


def _list_intrinsics(as_json: bool) -> None:
    """Every intrinsic with its parameters and clauses (rule and provenance)."""
    from machine.legality.nki.check import CATALOG

    if as_json:
        out = {name: {"engine": i.engine, "source": i.source, "doc": i.doc,
                      "params": [p.name for p in i.params],
                      "clauses": [{"name": c.name, "reads": list(c.reads), "rule": c.rule,
                                   "note": c.note, "provenance": c.provenance.to_dict()}
                                  for c in i.clauses]}
               for name, i in CATALOG.items()}
        click.echo(json.dumps(out, indent=2))
        return
    for name, i in CATALOG.items():
        click.echo(f"{name}({', '.join(p.name for p in i.params)})  [{i.engine}] {i.doc}")
        for c in i.clauses:
            tag = " (note)" if c.note else ""
            click.echo(f"    {c.name}{tag}: {c.rule}  -- {c.provenance}")


@click.command("check-nki")
@click.argument("calls_file", metavar="CALLS.json", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per call.")
@click.option("--gen", "default_gen", type=GEN, default=None, metavar="GEN",
              help="Generation for calls without \"gen\" (trn1, trn2, trn3, or a codename).")
@click.option("--list", "list_only", is_flag=True, help="List the intrinsics and their clauses.")
def command(calls_file: str | None, as_json: bool, default_gen: Gen | None,
            list_only: bool) -> None:
    """Check NKI intrinsic calls (a JSON list) against reference 004's legality rules."""
    from machine.legality.nki.check import evaluate, parse_call
    from machine.legality.nki.vocab import NkiInputError

    if list_only:
        _list_intrinsics(as_json)
        return
    if calls_file is None:
        raise InputError("check-nki: expected a CALLS.json argument (or --list)")
    calls = _load(calls_file)
    results = []
    for index, call in enumerate(calls):
        try:
            intrinsic, args, gen = parse_call(call, f"call {index}", default_gen)
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
