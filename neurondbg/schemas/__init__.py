"""The JSON Schema (draft 2020-12) of each kind of `--json` document (docs/json.md).

One file per `neurondbg.documents.Kind`, `<kind>.schema.json`, shipped inside the package
(pyproject package-data) so a user of an installed neurondbg can check its output:

    from neurondbg.documents import Kind
    from neurondbg.schemas import schema
    jsonschema.validate(doc, schema(Kind.RUN))
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from neurondbg.documents import Kind


def schema(kind: Kind) -> dict[str, Any]:
    """The JSON Schema of documents of `kind`, as a dict."""
    text = files(__name__).joinpath(kind.schema_file).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def for_document(doc: dict[str, Any] | list[dict[str, Any]]) -> dict[str, Any]:
    """The schema a document names in its `"schema"` key (an array's first element's);
    KeyError when it names none (an empty array names none) or no known kind."""
    named = doc[0]["schema"] if isinstance(doc, list) and doc else (
        doc["schema"] if isinstance(doc, dict) else None)
    for kind in Kind:
        if kind.schema_id == named:
            return schema(kind)
    raise KeyError(f"no neurondbg schema named {named!r}")
