"""The kinds of JSON document and their schema files: one per kind, well formed, shipped."""

from __future__ import annotations

import copy
import fnmatch
import json
import tomllib
from pathlib import Path

import jsonschema
import pytest

from neurondbg.documents import SCHEMA_KEY, Kind, key_text, stamp, stamp_rows
from neurondbg.schemas import for_document, schema
from tests.json.check import errors

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "neurondbg" / "schemas"


def test_the_schema_id_names_the_kind_and_version() -> None:
    assert {k: k.schema_id for k in Kind} == {k: f"neurondbg.{k.value}/1" for k in Kind}
    assert Kind.VALIDATE.schema_id == "neurondbg.validate/1"
    assert Kind.ERROR.schema_file == "error.schema.json"


def test_stamp_puts_the_key_first_and_keeps_every_other() -> None:
    doc = {"steps": 3, "schema_like": 1, "stop": {"reason": "halt"}}
    out = stamp(Kind.RUN, doc)
    assert list(out) == ["schema", "steps", "schema_like", "stop"]
    assert out == {"schema": "neurondbg.run/1", **doc}
    assert doc == {"steps": 3, "schema_like": 1, "stop": {"reason": "halt"}}  # not changed


def test_stamp_rows_stamps_each_element() -> None:
    rows = stamp_rows(Kind.DISASM, [{"index": 0}, {"index": 1}])
    assert rows == [{"schema": "neurondbg.disasm/1", "index": i} for i in (0, 1)]
    assert stamp_rows(Kind.DISASM, []) == []


@pytest.mark.parametrize("separator", [": ", ":"])
def test_key_text_is_what_json_writes(separator: str) -> None:
    for kind in Kind:
        text = json.dumps({SCHEMA_KEY: kind.schema_id}, separators=(",", separator))
        assert text == "{" + key_text(kind, separator) + "}"


def test_one_schema_file_per_kind() -> None:
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(k.schema_file for k in Kind)


@pytest.mark.parametrize("kind", list(Kind))
def test_each_schema_is_draft_2020_12_and_names_its_kind(kind: Kind) -> None:
    s = schema(kind)
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["title"] == kind.schema_id
    assert kind.schema_id in json.dumps(s)  # the "schema" key's const


def test_the_schemas_are_package_data() -> None:
    """What pyproject ships in the package covers every schema file (an installed
    neurondbg has them: .ci/run loads each from the wheel)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"]["neurondbg.schemas"]
    for kind in Kind:
        assert any(fnmatch.fnmatch(kind.schema_file, g) for g in globs), kind


def test_for_document_finds_the_named_schema() -> None:
    assert for_document({"schema": "neurondbg.replay/1"}) == schema(Kind.REPLAY)
    assert for_document([{"schema": "neurondbg.convert/1"}]) == schema(Kind.CONVERT)
    with pytest.raises(KeyError):
        for_document({"schema": "neurondbg.nothing/1"})
    with pytest.raises(KeyError):
        for_document([])


ERROR = {"schema": "neurondbg.error/1", "error": "x.asm:2:1: unknown mnemonic", "file": "x.asm",
         "line": 2, "column": 1, "exit": 2}
REPLAY = {"schema": "neurondbg.replay/1", "steps": 3, "diverged": False, "divergence": None}


@pytest.mark.parametrize(("kind", "doc"), [(Kind.ERROR, ERROR), (Kind.REPLAY, REPLAY)])
def test_a_schema_rejects_a_document_missing_any_required_key(kind: Kind, doc: dict) -> None:
    assert errors(doc, kind) == []
    for key in schema(kind)["required"]:
        broken = copy.deepcopy(doc)
        del broken[key]
        assert errors(broken, kind), f"{kind}: accepted without {key!r}"


def test_a_schema_rejects_another_kinds_name_and_a_wrong_type() -> None:
    assert errors({**REPLAY, "schema": "neurondbg.run/1"}, Kind.REPLAY)
    assert errors({**REPLAY, "steps": "3"}, Kind.REPLAY)
    assert errors({**REPLAY, "diverged": True}, Kind.REPLAY)  # then a divergence is given
