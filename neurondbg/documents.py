"""The JSON documents the command line prints, by kind, and their `"schema"` key.

Every `--json` output names its shape: `"schema": "neurondbg.<kind>/1"`, the first key
of the document. The kinds are the members of `Kind`; each has a JSON Schema (draft
2020-12) shipped in `neurondbg/schemas/<kind>.schema.json` and described in
`docs/json.md`. A command adds the key through one call here and never spells it:

    click.echo(json.dumps(stamp(Kind.RUN, result_json(opened, stop))))

A document that DESIGN.md fixes as a JSON array (`disasm --json` of one program,
`convert --json`, `check-nki --json`) stays an array, and each element carries the key
(`stamp_rows`): wrapping the array in an object would break every reader of it. JSON
Lines output (`convert` of many values) is one document per line, each stamped.

The version after the slash changes only when a key is renamed or removed or its meaning
changes; new keys are added freely (DESIGN.md, Public interfaces) without a new version.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from enum import StrEnum

SCHEMA_KEY = "schema"
VERSION = 1


class Kind(StrEnum):
    """Each kind of JSON document the command line prints (docs/json.md)."""

    RUN = "run"                            # run PROGRAM | SESSION.toml | KERNEL
    RUN_NEFF = "run-neff"                  # run FILE.neff
    VALIDATE = "validate"                  # validate --json: program, kernel, NEFF
    VALIDATE_SUMMARY = "validate-summary"  # validate --summary: program, kernel, NEFF
    DISASM = "disasm"                      # disasm --json: program (array), kernel, NEFF
    CONVERT = "convert"                    # convert --json (array), or a line of JSON Lines
    CONVERT_ISS = "convert-iss"            # convert --iss NAME --json (array)
    CONVERT_COMPARE = "convert-compare"    # convert --compare --json (array)
    DIAGNOSE = "diagnose"                  # diagnose --json
    CHECK_NKI = "check-nki"                # check-nki CALLS.json --json (array)
    CHECK_NKI_LIST = "check-nki-list"      # check-nki --list --json
    REPLAY = "replay"                      # replay --json
    LANES = "lanes"                        # the console's `export lanes PATH.json`
    ERROR = "error"                        # any bad input under --json, on stderr

    @property
    def schema_id(self) -> str:
        """The value of the document's `"schema"` key: `neurondbg.<kind>/1`."""
        return f"neurondbg.{self.value}/{VERSION}"

    @property
    def schema_file(self) -> str:
        """The name of its JSON Schema under neurondbg/schemas/."""
        return f"{self.value}.schema.json"


def stamp(kind: Kind, doc: Mapping[str, object]) -> dict[str, object]:
    """`doc` with `"schema"` as its first key (a reader of the text sees it first)."""
    return {SCHEMA_KEY: kind.schema_id, **doc}


def stamp_rows(kind: Kind, rows: Iterable[Mapping[str, object]]) -> list[dict[str, object]]:
    """An array document: every element stamped (module docstring)."""
    head = {SCHEMA_KEY: kind.schema_id}
    return [{**head, **row} for row in rows]


def key_text(kind: Kind, separator: str = ": ") -> str:
    """`"schema": "neurondbg.<kind>/1"`, for a writer that streams a document as text
    without building it: the pair, as json.dumps writes it with `separator`."""
    return f"{json.dumps(SCHEMA_KEY)}{separator}{json.dumps(kind.schema_id)}"
