"""The session TOML writer: exact text for the common shapes, tomllib round trip."""

import math
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessions.toml_write import dumps, string


def test_tables_arrays_and_escapes() -> None:
    doc = {"schema": 1, "name": 'a "q"\n\\', "flag": False, "xs": [1, 2], "empty": [],
           "program": {"path": "p.asm"}, "bps": [{"spec": "op:CAST", "on": True}],
           "layout": {"pane": {"max": "memory"}, "weird key": 1.5}}
    text = dumps(doc)
    assert text.startswith('schema = 1\nname = "a \\"q\\"\\n\\\\"\nflag = false\nxs = [1, 2]\n')
    assert '[[bps]]\nspec = "op:CAST"\non = true' in text
    assert '[layout]\n"weird key" = 1.5\n\n[layout.pane]\nmax = "memory"' in text
    assert tomllib.loads(text) == doc


def test_special_floats_and_control_characters() -> None:
    text = dumps({"a": math.inf, "b": -math.inf, "c": math.nan, "d": "\x01\x7f"})
    back = tomllib.loads(text)
    assert back["a"] == math.inf and back["b"] == -math.inf and math.isnan(back["c"])
    assert back["d"] == "\x01\x7f" and string("\x01") == '"\\u0001"'


def test_unwritable_value_names_the_key() -> None:
    with pytest.raises(TypeError, match=r"layout\.x: cannot write bytes"):
        dumps({"layout": {"x": b"raw"}})


_scalars = (st.integers(-(2**63), 2**63 - 1) | st.booleans() | st.text(max_size=12)
            | st.floats(allow_nan=False))
_keys = st.text(min_size=1, max_size=8)
_values = st.recursive(_scalars | st.lists(_scalars, max_size=4),
                       lambda inner: st.dictionaries(_keys, inner, max_size=4), max_leaves=12)


@settings(deadline=None, max_examples=150)
@given(st.dictionaries(_keys, _values | st.lists(st.dictionaries(_keys, _values, max_size=3),
                                                 min_size=1, max_size=3), max_size=5))
def test_round_trip_through_tomllib(doc: dict) -> None:
    assert tomllib.loads(dumps(doc)) == doc
