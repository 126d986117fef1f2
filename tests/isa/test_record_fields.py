"""record_fields reads a record in one `tolist`: the same Python values, of the same
types, as reading each field on its own, for every struct."""

from __future__ import annotations

import numpy as np
import pytest

from neurondbg.machine.isa.codec import decode, record_fields
from neurondbg.machine.isa.spec import Struct
from neurondbg.machine.isa.structs import STRUCTS


def field_by_field(struct: Struct, record: np.void) -> dict[str, object]:
    return {f.name: tuple(int(x) for x in record[f.name]) if f.count > 1
            else int(record[f.name]) for f in struct.fields}


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_fields_in_one_read_equal_fields_read_one_by_one(name: str) -> None:
    struct = STRUCTS[name]
    rng = np.random.default_rng(len(name))
    for raw in rng.integers(0, 256, size=(20, 64), dtype=np.uint8):
        record = np.frombuffer(raw.tobytes(), dtype=struct.dtype)[0]
        got = record_fields(struct, record)
        want = field_by_field(struct, record)
        assert got == want
        assert list(got) == [f.name for f in struct.fields]
        for v in got.values():  # Python ints (not numpy scalars, not bools)
            assert type(v) is int or (type(v) is tuple and all(type(x) is int for x in v))


def test_decode_gives_the_fields_of_the_opcode_struct() -> None:
    rng = np.random.default_rng(3)
    for raw in rng.integers(0, 256, size=(200, 64), dtype=np.uint8):
        inst = decode(raw.tobytes())
        record = np.frombuffer(raw.tobytes(), dtype=inst.struct.dtype)[0]
        assert inst.fields == field_by_field(inst.struct, record)
