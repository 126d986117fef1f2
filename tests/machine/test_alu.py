"""ALU fp32 fidelity (review P6 M3, L1, L2): BYPASS is a bit move, NaN bits come from
IEEE/numpy float32, and the scalar (SEQ) form equals the vector (tensor) form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.engines.alu import FOLD_UFUNCS, alu32, alu_vec, vector_kind
from neurondbg.machine.isa.enums import AluOp as A

F32, I32, U32 = Dtype.FP32, Dtype.INT32, Dtype.UINT32
POS_INF, NEG_INF, POS_ZERO, NEG_ZERO = 0x7F800000, 0xFF800000, 0x00000000, 0x80000000


def fb(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


SNAN, SNAN_NEG, QNAN_PAYLOAD = 0x7F800001, 0xFF800123, 0x7FC12345
SPECIALS = [POS_ZERO, NEG_ZERO, fb(1.0), fb(-1.0), POS_INF, NEG_INF, SNAN, SNAN_NEG,
            QNAN_PAYLOAD, 0x00000001, 0x80000001, 0x7F7FFFFF, fb(-1e30), fb(11.0), fb(0.5),
            fb(3.0), fb(-8.0), fb(1 / 3)]
FP_OPS = [op for op in A if vector_kind(op) == "fp"] + [A.BYPASS]


def vector_bits(op: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The vector form on uint32 patterns: fp ops see float32 lanes, BYPASS the bits."""
    if vector_kind(op) == "bits":
        return alu_vec(op, a, b)
    return alu_vec(op, a.view(np.float32), b.view(np.float32)).view(np.uint32)


@pytest.mark.parametrize("word", SPECIALS)
def test_bypass_is_a_bit_move(word: int) -> None:
    # ref 000 §7 / isa-facts §3.1: BYPASS passes src0 through; sNaN stays signalling
    assert alu32(A.BYPASS, word, fb(2.0), F32) == word
    assert alu32(A.BYPASS, word, 0, F32, F32) == word


def test_bypass_converts_only_when_the_dtypes_differ() -> None:
    assert alu32(A.BYPASS, fb(-2.9), 0, F32, I32) == (-2) & 0xFFFFFFFF
    assert alu32(A.BYPASS, SNAN, 0, F32, I32) == 0  # NaN -> int is 0 (neuron Cast rule)
    assert alu32(A.BYPASS, 0xFFFFFFFF, 0, I32, F32) == fb(-1.0)


@pytest.mark.parametrize("op", sorted(set(FP_OPS)), ids=lambda op: A(op).name)
def test_scalar_equals_vector_on_every_pair_of_specials(op: int) -> None:
    """Exhaustive over SPECIALS x SPECIALS: SEQ's alu32 == the tensor engines' alu_vec."""
    pairs = np.array([(a, b) for a in SPECIALS for b in SPECIALS], dtype=np.uint32)
    want = vector_bits(op, pairs[:, 0].copy(), pairs[:, 1].copy())
    got = np.array([alu32(op, int(a), int(b), F32) for a, b in pairs], dtype=np.uint32)
    bad = [(hex(a), hex(b), hex(g), hex(w)) for (a, b), g, w in zip(pairs, got, want,
                                                                     strict=True) if g != w]
    assert not bad, bad[:5]


@settings(deadline=None, max_examples=150)
@given(st.sampled_from(sorted(set(FP_OPS))), st.integers(0, 2**32 - 1),
       st.integers(0, 2**32 - 1))
def test_scalar_equals_vector_on_random_bits(op: int, a: int, b: int) -> None:
    want = vector_bits(op, np.array([a], np.uint32), np.array([b], np.uint32))[0]
    assert alu32(op, a, b, F32) == int(want)


def test_nan_results_keep_numpy_float32_bits() -> None:
    # an input NaN is propagated quieted with its payload (x86 / numpy float32)
    assert alu32(A.ADD, SNAN, fb(1.0), F32) == 0x7FC00001
    assert alu32(A.MULT, fb(2.0), QNAN_PAYLOAD, F32) == QNAN_PAYLOAD
    # MAX/MIN return the NaN operand as numpy does (no canonical math.nan invented)
    assert alu32(A.MAX, QNAN_PAYLOAD, fb(1.0), F32) == QNAN_PAYLOAD
    assert alu32(A.MIN, fb(1.0), QNAN_PAYLOAD, F32) == QNAN_PAYLOAD
    # invalid operations give numpy's default NaN, the same in both forms
    inv = vector_bits(A.SUBTRACT, np.array([POS_INF], np.uint32), np.array([POS_INF],
                                                                            np.uint32))[0]
    assert alu32(A.SUBTRACT, POS_INF, POS_INF, F32) == int(inv)
    assert alu32(A.DIVIDE, POS_ZERO, POS_ZERO, F32) == int(inv)
    # a NaN into an integer destination is still 0
    assert alu32(A.ADD, SNAN, fb(1.0), F32, I32) == 0


def test_pow_c_semantics() -> None:
    assert alu32(A.POW, fb(-1e30), fb(11.0), F32) == NEG_INF  # odd exponent: -inf, not NaN
    assert alu32(A.POW, fb(-1e30), fb(12.0), F32) == POS_INF
    assert alu32(A.POW, NEG_ZERO, fb(-1.0), F32) == NEG_INF  # C: pow(-0, -1) = -inf
    assert alu32(A.POW, POS_ZERO, fb(-1.0), F32) == POS_INF
    assert alu32(A.POW, fb(2.0), fb(10.0), F32) == fb(1024.0)
    nan = alu32(A.POW, fb(-8.0), fb(1 / 3), F32)
    assert np.isnan(np.uint32(nan).view(np.float32))
    # the integer domain: C pow in double, then truncate and saturate
    assert alu32(A.POW, (-2) & 0xFFFFFFFF, 3, I32) == (-8) & 0xFFFFFFFF
    assert alu32(A.POW, (-10) & 0xFFFFFFFF, 400, I32) == 0x7FFFFFFF  # +inf saturates
    assert alu32(A.POW, (-10) & 0xFFFFFFFF, 401, I32) == 0x80000000  # -inf saturates
    assert alu32(A.POW, 0, (-1) & 0xFFFFFFFF, I32) == 0x7FFFFFFF


def test_max_min_of_signed_zeros_give_the_second_operand() -> None:
    """The decision in alu.py: numpy's order, in both forms and in the folds."""
    assert alu32(A.MAX, NEG_ZERO, POS_ZERO, F32) == POS_ZERO
    assert alu32(A.MAX, POS_ZERO, NEG_ZERO, F32) == NEG_ZERO
    assert alu32(A.MIN, NEG_ZERO, POS_ZERO, F32) == POS_ZERO
    assert alu32(A.MIN, POS_ZERO, NEG_ZERO, F32) == NEG_ZERO
    assert alu32(A.MAX, fb(-1.0), NEG_ZERO, F32) == NEG_ZERO


@settings(deadline=None, max_examples=60)
@given(st.sampled_from([A.MAX, A.MIN]),
       st.lists(st.sampled_from(SPECIALS), min_size=1, max_size=12))
def test_ufunc_folds_equal_the_scalar_left_fold(op: int, words: list[int]) -> None:
    """pool's FOLD_UFUNCS (ufunc.accumulate) agree with folding alu32 left to right."""
    acc = words[0]
    want = [acc]
    for w in words[1:]:
        acc = alu32(op, acc, w, F32)
        want.append(acc)
    got = FOLD_UFUNCS[op].accumulate(np.array(words, np.uint32).view(np.float32))
    assert got.view(np.uint32).tolist() == want
