"""machine.files.load_toml / read_file: every bad input is one InputFileError line naming the
file."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.machine.files import InputFileError, load_toml, read_file


def test_a_document_and_its_text() -> None:
    doc, text = load_toml(b"[kernel]\nname = 'k'\n", "k.toml")
    assert doc == {"kernel": {"name": "k"}}
    assert text == "[kernel]\nname = 'k'\n"


@pytest.mark.parametrize(("raw", "message"), [
    (b"a = 1\n\xff\n", "k.toml: offset 6: expected UTF-8 TOML text"),
    (b"a = 1\nb = = 2\n", "k.toml:2:5: invalid TOML: Invalid value"),
    (b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
     "k.toml: invalid TOML: nested too deeply or a number too large"),
])
def test_bad_toml_is_one_line(raw: bytes, message: str) -> None:
    with pytest.raises(InputFileError) as e:
        load_toml(raw, "k.toml")
    assert str(e.value) == message


def test_the_caller_names_the_problem() -> None:
    with pytest.raises(InputFileError, match=r"^s\.toml:1:4: malformed TOML: "):
        load_toml(b"a =\n", "s.toml", what="malformed TOML")


def test_read_file_names_a_missing_or_refused_file(tmp_path: Path) -> None:
    missing = tmp_path / "k.toml"
    with pytest.raises(InputFileError) as e:
        read_file(missing, what="kernel manifest", max_bytes=10)
    assert str(e.value) == f"{missing}: no such kernel manifest"
    missing.write_bytes(b"x" * 11)
    with pytest.raises(InputFileError) as e:
        read_file(missing, what="kernel manifest", max_bytes=10)
    assert str(e.value) == f"{missing}: 11 bytes is over the 10 bytes limit for a kernel manifest"
    missing.write_bytes(b"a = 1\n")
    assert read_file(missing, what="kernel manifest", max_bytes=10) == b"a = 1\n"
