"""Run a command as a user would (in process) and check its JSON against its schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from click.testing import CliRunner, Result

from neurondbg.cli import cli
from neurondbg.documents import Kind
from neurondbg.schemas import schema

Doc = dict[str, Any] | list[dict[str, Any]]


def invoke(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input)


def errors(doc: Doc, kind: Kind) -> list[str]:
    """What is wrong with `doc` as a document of `kind` (empty: nothing)."""
    validator = jsonschema.Draft202012Validator(schema(kind))
    return [f"{list(e.absolute_path)}: {e.message[:300]}" for e in validator.iter_errors(doc)]


def assert_document(text: str, kind: Kind) -> Doc:
    """`text` is one JSON document of `kind`: it names its schema (each element of an
    array does) and its schema accepts it."""
    doc: Doc = json.loads(text)
    named = [doc] if isinstance(doc, dict) else doc
    assert named, "an empty array names no schema"
    assert {d["schema"] for d in named} == {kind.schema_id}
    if isinstance(doc, dict):
        assert next(iter(doc)) == "schema"  # first, where a reader looks
    assert errors(doc, kind) == []
    return doc


def assert_lines(text: str, kind: Kind) -> list[Doc]:
    """JSON Lines: every line is a document of `kind`."""
    lines = text.splitlines()
    assert lines
    return [assert_document(line, kind) for line in lines]
