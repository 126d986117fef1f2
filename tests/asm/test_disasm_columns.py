"""The disassembler's vectorised array columns spell every row as format_value does."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm.disasm import _array_column
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.isa.text import field_key, format_value

# every array field of every struct (step/num lists, registers, immediates, reserved
# bytes, the opaque payload, the ASCII queue name of a DMA trigger)
ARRAY_FIELDS = [(s, f) for s in STRUCTS.values() for f in s.fields if f.count > 1]


def _expected(key: str, f, row: tuple[int, ...]) -> str:
    return "" if not any(row) else f" {key}={format_value(f, row)}"


@settings(max_examples=60, deadline=None)
@given(which=st.integers(0, len(ARRAY_FIELDS) - 1), data=st.data())
def test_array_column_matches_format_value(which: int, data: st.DataObject) -> None:
    struct, f = ARRAY_FIELDS[which]
    n = data.draw(st.integers(1, 40))
    raw = np.frombuffer(data.draw(st.binary(min_size=64 * n, max_size=64 * n)), np.uint8)
    raw = raw.reshape(n, 64).copy()
    # repeated rows, all-zero rows and small values (enum and register names) are common
    for i in range(n):
        shape = data.draw(st.sampled_from(["random", "zero", "small", "copy", "ascii"]))
        span = slice(f.offset, f.end)
        if shape == "zero":
            raw[i, span] = 0
        elif shape == "small":
            raw[i, span] = np.frombuffer(
                data.draw(st.binary(min_size=f.size, max_size=f.size)), np.uint8) % 12
        elif shape == "copy" and i:
            raw[i, span] = raw[data.draw(st.integers(0, i - 1)), span]
        elif shape == "ascii":
            name = data.draw(st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,6}", fullmatch=True))
            padded = name.encode()[: f.size].ljust(f.size, b"\0")
            raw[i, span] = np.frombuffer(padded, np.uint8)
    recs = raw.view(struct.dtype).reshape(-1)
    key = field_key(struct, f)
    got = _array_column(f.name, key, f)(recs).tolist()
    rows = recs[f.name].reshape(n, -1).tolist()
    assert got == [_expected(key, f, tuple(r)) for r in rows]


def test_array_column_of_all_zero_rows_is_empty() -> None:
    struct = STRUCTS["RAW"]
    f = struct.field("raw")
    recs = np.zeros((5, 64), np.uint8).view(struct.dtype).reshape(-1)
    assert _array_column(f.name, "raw", f)(recs).tolist() == [""] * 5
