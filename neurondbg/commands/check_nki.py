"""`neurondbg check-nki CALLS.json [--json]`: NKI-intrinsic-level legality (ref 004).

Input: a JSON list of calls `{"op": ..., "args": {...}, "gen": "trn2"}`, from a file or
stdin (`-`). Exit 0 when every call is legal, 1 when any is illegal, 2 on bad input.

Many calls at once: a call written as an earlier one (the same text; calls
that differ only in spacing are judged apart, with the same result) is parsed and judged
once, and its report, JSON or text, is rendered once and reused with the call's index, so
a list of 100,000 calls costs one judgement per distinct call. The output is byte for byte
what judging every call would print (the JSON with indent=2, by `dumps_indented`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as _esc  # json's C string encoder
from typing import TYPE_CHECKING, Any, cast

import click

from neurondbg.documents import Kind, key_text, stamp
from neurondbg.errors import InputError
from neurondbg.machine.dtypes import Gen
from neurondbg.params import GEN

if TYPE_CHECKING:
    from rich.console import Console

    from neurondbg.machine.legality.result import Verdict

# (call index, its verdict, the generation judged on): a verdict is shared by the calls
# written alike
Result = tuple[int, "Verdict", Gen]


def _load(path: str) -> tuple[list[str], dict[str, Any]]:
    """(key per call, call per key): the calls list, with a key per call that is equal for
    calls written alike; InputError (one line, exit 2) for a FIFO or other non-regular
    file, a file over MAX_JSON_BYTES, bad UTF-8 or JSON, or integers past Python's digit
    limit. The keys are each call's text (see `scan_calls`), or, should the scan not
    apply, each parsed call's repr (which tells 1, 1.0 and true apart)."""
    from neurondbg.machine.files import MAX_JSON_BYTES, InputFileError, load_json, read_file

    where = "<stdin>" if path == "-" else path
    try:
        data = sys.stdin.buffer.read(MAX_JSON_BYTES + 1) if path == "-" else read_file(
            path, what="calls file", max_bytes=MAX_JSON_BYTES)
        if len(data) > MAX_JSON_BYTES:
            raise InputError(f"{path}: more than {MAX_JSON_BYTES} bytes of calls")
        try:
            scanned = scan_calls(data.decode("utf-8"))
        except UnicodeDecodeError:
            scanned = None
        if scanned is not None:
            return scanned
        calls = load_json(data, where)  # the one statement of every bad-input error
    except OSError as exc:  # stdin's own read; a file's are mapped by machine.files
        raise InputError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except InputFileError as exc:
        raise InputError(str(exc)) from None
    if not isinstance(calls, list):
        raise InputError(f"{path}: expected a JSON list of calls, got {type(calls).__name__}")
    keys = [repr(call) for call in calls]
    return keys, dict(zip(keys, calls, strict=True))


_WS = re.compile(r"[ \t\n\r]*")  # JSON's whitespace
# it matches the empty string too: its match never returns None
_WS_MATCH = cast("Callable[[str, int], re.Match[str]]", _WS.match)
# json.loads's own scanner, one value at a time (typeshed omits the attribute)
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
PREFIX = 48  # characters of a call that pick the earlier texts it may repeat
RECENT = 4  # earlier distinct texts remembered per prefix


def scan_calls(text: str) -> tuple[list[str], dict[str, Any]] | None:
    """(text of each call, parsed call per distinct text) of a JSON list, as json.loads
    would parse it; None when `text` is not a well-formed JSON list (json.loads then
    states the error).

    Calls repeat (e.g. 100,000 calls, a few distinct): a call whose text repeats
    one of the last RECENT distinct object texts that began with the same PREFIX
    characters is recognised by comparing text, not parsed again. That is exact: an
    object's or array's text ends at its closing bracket, so identical characters
    parse to an identical value ending at the same place.
    """
    ws = _WS_MATCH
    i = ws(text, 0).end()
    if not text.startswith("[", i):
        return None
    i = ws(text, i + 1).end()
    keys: list[str] = []
    values: dict[str, Any] = {}
    recent: dict[str, list[str]] = {}
    if text.startswith("]", i):
        return (keys, values) if ws(text, i + 1).end() == len(text) else None
    while True:
        head = text[i:i + PREFIX]
        key = next((t for t in recent.get(head, ()) if text.startswith(t, i)), None)
        if key is None:
            try:
                value, end = _SCAN(text, i)
            except (StopIteration, ValueError, RecursionError):  # json.loads says what
                return None
            key = text[i:end]
            if key not in values:
                values[key] = value
                if key[0] in "{[" and len(key) > PREFIX:
                    seen = recent.setdefault(head, [])
                    seen.insert(0, key)
                    del seen[RECENT:]
        else:
            end = i + len(key)
        keys.append(key)
        i = ws(text, end).end()
        if text.startswith(",", i):
            i = ws(text, i + 1).end()
        elif text.startswith("]", i):
            return (keys, values) if ws(text, i + 1).end() == len(text) else None
        else:
            return None


def _as_json(index: int, verdict: Verdict, gen: Gen) -> dict[str, object]:
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


def dumps_indented(obj: object, level: int = 0) -> str:
    """json.dumps(obj, indent=2), for dicts, lists and tuples of JSON scalars, nested.

    json.dumps with an indent runs the pure-Python encoder, which would be most of
    check-nki's time; here only the layout is Python, strings are escaped by json's own C
    function and other scalars by json.dumps itself, so the text is the same.
    """
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        pad = ",\n" + "  " * (level + 1)
        body = pad.join(f"{_esc(k) if type(k) is str else _esc(json.dumps(k))}: "
                        f"{_esc(v) if type(v) is str else dumps_indented(v, level + 1)}"
                        for k, v in obj.items())
        return "{" + pad[1:] + body + "\n" + "  " * level + "}"
    if isinstance(obj, list | tuple):
        if not obj:
            return "[]"
        pad = ",\n" + "  " * (level + 1)
        body = pad.join(_esc(v) if type(v) is str else dumps_indented(v, level + 1)
                        for v in obj)
        return "[" + pad[1:] + body + "\n" + "  " * level + "]"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    return json.dumps(obj)  # None, numbers (NaN as json writes it), or json's TypeError


def _write_json(results: list[Result], write: Callable[[str], object]) -> None:
    """json.dumps(stamp_rows(Kind.CHECK_NKI, [_as_json(...) ...]), indent=2) and a
    newline, each distinct verdict encoded once, written BLOCK calls at a time (no one
    string of the whole output)."""
    if not results:
        write("[]\n")
        return
    tails: dict[int, str] = {}  # id(verdict) -> its object's lines after "index", indented
    key = key_text(Kind.CHECK_NKI)
    parts = []
    for index, verdict, gen in results:
        tail = tails.get(id(verdict))
        if tail is None:
            body = _as_json(0, verdict, gen)
            del body["index"]
            lines = dumps_indented(body).split("\n")[1:]  # after the opening brace
            tail = tails[id(verdict)] = "\n".join("  " + ln for ln in lines)
        parts.append(f'  {{\n    {key},\n    "index": {index},\n{tail}')
        if len(parts) == BLOCK:
            write(("[\n" if index < BLOCK else ",\n") + ",\n".join(parts))
            parts.clear()
    last = results[-1][0]
    if parts:
        write(("[\n" if last < BLOCK else ",\n") + ",\n".join(parts))
    write("\n]\n")


BLOCK = 4096  # calls per write of the JSON output
_SENTINEL = 987654321987  # stands for the index in a report rendered once per verdict


def _print(results: list[Result]) -> None:
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


def _print_one(console: Console, index: int, verdict: Verdict, gen: Gen) -> None:
    """One call's report: its head line, then each failed clause and note."""
    from rich.markup import escape

    from neurondbg.machine.legality.nki.vocab import gen_label

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
    from neurondbg.machine.legality.nki.check import CATALOG

    if as_json:
        out = {name: {"engine": i.engine, "source": i.source, "doc": i.doc,
                      "params": [p.name for p in i.params],
                      "clauses": [{"name": c.name, "reads": list(c.reads), "rule": c.rule,
                                   "note": c.note, "provenance": c.provenance.to_dict()}
                                  for c in i.clauses]}
               for name, i in CATALOG.items()}
        click.echo(json.dumps(stamp(Kind.CHECK_NKI_LIST, out), indent=2))
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
    from neurondbg.machine.legality.nki.check import evaluate, parse_call
    from neurondbg.machine.legality.nki.vocab import NkiInputError

    if list_only:
        _list_intrinsics(as_json)
        return
    if calls_file is None:
        raise InputError("check-nki: expected a CALLS.json argument (or --list)")
    keys, calls = _load(calls_file)
    where = "<stdin>" if calls_file == "-" else calls_file
    results: list[Result] = []
    judged: dict[str, tuple[Verdict, Gen]] = {}  # a call's key -> (verdict, gen)
    for index, key in enumerate(keys):
        hit = judged.get(key)
        if hit is None:
            try:
                intrinsic, args, gen = parse_call(calls[key], f"call {index}", default_gen)
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
