"""`neurondbg check-nki CALLS.json [--json]`: NKI-intrinsic-level legality (ref 004).

Input: a JSON list of calls `{"op": ..., "args": {...}, "gen": "trn2"}`, from a file or
stdin (`-`). Exit 0 when every call is legal, 1 when any is illegal, 2 on bad input.

Many calls at once (issue 17): a call written as an earlier one (the same op, args and
gen, keys in the same order) is judged once, and its report, JSON or text, is rendered once
and reused with the call's index, so a list of 100,000 calls costs one judgement per
distinct call. The output is byte for byte what judging every call would print.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
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
        data = sys.stdin.buffer.read(MAX_JSON_BYTES + 1) if path == "-" else read_input(
            path, what="calls file", max_bytes=MAX_JSON_BYTES)
        if len(data) > MAX_JSON_BYTES:
            raise InputError(f"{path}: more than {MAX_JSON_BYTES} bytes of calls")
        calls = load_json(data, "<stdin>" if path == "-" else path)
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


def _write_json(results: list[tuple[int, Any, Any]], write: Callable[[str], Any]) -> None:
    """json.dumps([_as_json(...) ...], indent=2) and a newline, each distinct verdict
    encoded once, written BLOCK calls at a time (no one string of the whole output)."""
    if not results:
        write("[]\n")
        return
    tails: dict[int, str] = {}  # id(verdict) -> its object's lines after "index", indented
    parts = []
    for index, verdict, gen in results:
        tail = tails.get(id(verdict))
        if tail is None:
            body = _as_json(0, verdict, gen)
            del body["index"]
            lines = json.dumps(body, indent=2).split("\n")[1:]  # after the opening brace
            tail = tails[id(verdict)] = "\n".join("  " + ln for ln in lines)
        parts.append(f'  {{\n    "index": {index},\n{tail}')
        if len(parts) == BLOCK:
            write(("[\n" if index < BLOCK else ",\n") + ",\n".join(parts))
            parts.clear()
    last = results[-1][0]
    if parts:
        write(("[\n" if last < BLOCK else ",\n") + ",\n".join(parts))
    write("\n]\n")


BLOCK = 4096  # calls per write of the JSON output
_SENTINEL = 987654321987  # stands for the index in a report rendered once per verdict


def _print(results: list[tuple[int, Any, Any]]) -> None:
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    rendered: dict[int, tuple[str, str]] = {}  # id(verdict) -> text before / after index
    out = sys.stdout
    for index, verdict, gen in results:
        parts = rendered.get(id(verdict))
        if parts is None:
            with console.capture() as cap:
                _print_one(console, _SENTINEL, verdict, gen)
            before, _, after = cap.get().partition(str(_SENTINEL))
            parts = rendered[id(verdict)] = (before, after)
        out.write(f"{parts[0]}{index}{parts[1]}")
    if not results:
        console.print("no calls")
    out.flush()


def _print_one(console: Any, index: int, verdict: Any, gen: Any) -> None:
    """One call's report: its head line, then each failed clause and note."""
    from rich.markup import escape

    from machine.legality.nki.vocab import gen_label

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
    where = "<stdin>" if calls_file == "-" else calls_file
    results = []
    judged: dict[str, tuple[Any, Any]] = {}  # a call's repr -> (verdict, gen)
    for index, call in enumerate(calls):
        key = repr(call)  # JSON values: repr tells 1, 1.0 and true apart; the cheapest key
        hit = judged.get(key)
        if hit is None:
            try:
                intrinsic, args, gen = parse_call(call, f"call {index}", default_gen)
            except NkiInputError as exc:
                raise InputError(f"{where}: {exc}") from None
            hit = judged[key] = (evaluate(intrinsic, args, gen), gen)
        results.append((index, *hit))
    if as_json:
        _write_json(results, sys.stdout.write)
        sys.stdout.flush()
    else:
        _print(results)
    if not all(v.valid for _, v, _ in results):
        click.get_current_context().exit(1)
