"""machine.files.load_toml bounds every array and table: at the limit it loads, one
entry more is one InputFileError line, judged from the text where it can be."""

from __future__ import annotations

import pytest

from neurondbg.machine.files import InputFileError, load_toml

LIMIT = 8


def _load(text: str) -> dict[str, object]:
    return load_toml(text.encode(), "f.toml", max_items=LIMIT)[0]


@pytest.mark.parametrize("n", range(LIMIT + 1))
def test_arrays_and_tables_up_to_the_limit_load(n: int) -> None:
    items = ", ".join(f'"x,{i}"' for i in range(n))
    keys = "".join(f"k{i} = '[{i}' # ,\n" for i in range(n))
    tables = "".join(f"[[t]]\nv = {i}\n" for i in range(n))
    subs = "".join(f"[s.k{i}]\n" for i in range(n))
    doc = _load(f"a = [{items}]\nb = {{{', '.join(f'k{i} = 0' for i in range(n))}}}\n"
                f"[c]\n{keys}{tables}{subs}")
    assert doc["a"] == [f"x,{i}" for i in range(n)]
    assert doc["b"] == {f"k{i}": 0 for i in range(n)}
    assert doc["c"] == {f"k{i}": f"[{i}" for i in range(n)}
    assert doc.get("t", []) == [{"v": i} for i in range(n)]
    assert doc.get("s", {}) == {f"k{i}": {} for i in range(n)}


@pytest.mark.parametrize("text,message", [
    ("a = [" + "0," * LIMIT + "0]\n", f"f.toml:1: an array or inline table of more than "
     f"{LIMIT} entries"),
    ("x = 1\na = [\n" + "[0],\n" * LIMIT + "[0]]\n", "f.toml:2: an array or inline table"),
    ("b = {" + ", ".join(f"k{i} = 0" for i in range(LIMIT + 1)) + "}\n",
     "f.toml:1: an array or inline table"),
    ("[c]\n" + "".join(f"k{i} = 0\n" for i in range(LIMIT + 1)), "f.toml:1: a table of more"),
    ("[[t]]\n" * (LIMIT + 1), f"f.toml: [[t]]: {LIMIT + 1} tables"),
    ("".join(f"[s.k{i}]\n" for i in range(LIMIT + 1)), f"f.toml: s: {LIMIT + 1} entries"),
])
def test_one_entry_more_is_refused(text: str, message: str) -> None:
    with pytest.raises(InputFileError) as e:
        _load(text)
    assert str(e.value).startswith(message), str(e.value)
    assert str(e.value).endswith(f"expected at most {LIMIT} in one array or table")
