"""ADDR4 decode (scalar and vectorized) and per-generation geometry (isa-facts §2.2, §2.4)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.addr import (
    SPACE_NONE,
    SPACE_PSUM,
    SPACE_SBUF,
    decode_addr4,
    decode_addr4_array,
    encode_address,
    encode_register,
    geometry,
)


def test_geometry_table() -> None:
    assert geometry(Gen.CAYMAN).sbuf_bytes == 224 * 1024
    assert geometry(Gen.SUNDA).psum_banks == 16
    assert geometry(Gen.MARIANA).sbuf_span == 0x2000000
    assert geometry(Gen.MAVERICK).sbuf_stride == 1 << 20 and geometry(Gen.MAVERICK).psum_bytes == 0


def test_modes_and_spaces() -> None:
    a = decode_addr4(0x80000005, Gen.CAYMAN)
    assert (a.mode, a.register, a.space) == ("register", 5, None)
    a = decode_addr4(3 * 256 * 1024 + 0x100, Gen.CAYMAN)
    assert (a.mode, a.space, a.partition, a.offset) == ("immediate", "sbuf", 3, 0x100)
    a = decode_addr4(0x2000000 + 5 * 16384 + 8, Gen.CAYMAN)
    assert (a.space, a.partition, a.offset) == ("psum", 5, 8)
    assert decode_addr4(0x2000000 + 5 * 32768, Gen.SUNDA).partition == 5
    assert decode_addr4(0x40000010, Gen.CAYMAN).mode == "shape"
    assert decode_addr4(0x20000010, Gen.CAYMAN).marker_name == "INDIRECT_IMM"
    assert decode_addr4(0x1FFFFFFF, Gen.CAYMAN).space is None
    assert decode_addr4(0x2000000, Gen.MAVERICK).space == "sbuf"  # 128 MiB SBUF, no PSUM


@settings(deadline=None, max_examples=200)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=40), st.sampled_from(list(Gen)))
def test_vectorized_agrees_with_scalar(words: list[int], gen: Gen) -> None:
    arr = decode_addr4_array(np.array(words, dtype=np.uint32), gen)
    for i, w in enumerate(words):
        a = decode_addr4(w, gen)
        assert bool(arr.is_register[i]) == (a.register is not None)
        code = {"sbuf": SPACE_SBUF, "psum": SPACE_PSUM, None: SPACE_NONE}[a.space]
        assert arr.space[i] == code
        assert arr.partition[i] == (-1 if a.partition is None else a.partition)
        assert arr.offset[i] == (-1 if a.offset is None else a.offset)


def test_encode_round_trip() -> None:
    for gen in (Gen.SUNDA, Gen.CAYMAN):
        w = encode_address("psum", 7, 100, gen)
        a = decode_addr4(w, gen)
        assert (a.space, a.partition, a.offset) == ("psum", 7, 100)
    assert decode_addr4(encode_register(9), Gen.CAYMAN).register == 9
