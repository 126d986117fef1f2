"""`validate --fix` / explain's checked fix: every field kind searched, minimal and
meaning-preserving (docs/legality.md "Fixes"), fixable clauses fixed beside unfixable
ones, and the restore property over random corruptions."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import DTYPE_INFO, Dtype, Gen
from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.explain import explain, explain_many
from neurondbg.machine.legality.lookup import GEN_ORDER
from neurondbg.machine.legality.wire.registry import BY_NAME
from neurondbg.machine.legality.wire.repair import apply
from neurondbg.machine.legality.wire.samples import EXAMPLES, example


def record(name: str) -> np.ndarray:
    return np.frombuffer(example(name), dtype=STRUCTS[BY_NAME[name].struct].dtype).copy()


def fixed_of(rec: np.ndarray, gen: Gen | str = Gen.CAYMAN, engine: str | None = None):
    v = explain(rec.tobytes(), gen, engine)
    assert not v.valid
    return v


# -- meaning: synchronisation, opcode, dtype kind, access-pattern dimensions -------------------

WAIT_OK = {int(m) for m in WaitMode if m is not WaitMode.INVALID}
UPDATE_OK = {int(m) for m in UpdateMode if m is not UpdateMode.INVALID}


@pytest.mark.parametrize(("field", "valid"), [("events.wait_mode", WAIT_OK),
                                              ("events.update_mode", UPDATE_OK)])
def test_every_invalid_sync_mode_becomes_none(field: str, valid: set[int]) -> None:
    """Exhaustive over the byte: an invalid mode is fixed to NONE, never to a mode that
    waits or updates a semaphore (nearest in bits, it mostly would)."""
    bad = [c for c in range(256) if c not in valid]
    recs = np.repeat(record("is_valid_copy"), len(bad))
    recs[field] = bad
    for code, v in zip(bad, explain_many(recs, Gen.CAYMAN), strict=True):
        assert v.fix_fields == {field: 0}, code


def test_a_copy_with_two_dtypes_stays_a_copy() -> None:
    rec = record("is_valid_copy")
    rec["out_dtype"] = Dtype.BF16
    v = fixed_of(rec)
    assert v.fix_fields == {"out_dtype": int(Dtype.FP32)}


def test_no_dtype_pair_of_a_copy_is_fixed_by_making_it_a_cast() -> None:
    """Exhaustive over the plain dtype codes: where a fix exists that keeps COPY (both
    dtypes set to one valid input), it is chosen over COPY -> CAST of the same size."""
    pairs = [(a, b) for a in range(16) for b in range(16)]
    recs = np.repeat(record("is_valid_copy"), len(pairs))
    recs["in_dtype"] = [a for a, _ in pairs]
    recs["out_dtype"] = [b for _, b in pairs]
    changed = [(a, b, v.fix_fields) for (a, b), v in zip(pairs, explain_many(recs, Gen.CAYMAN),
                                                          strict=True)
               if not v.valid and "header.opcode" in (v.fix_fields or {})]
    assert changed == []


@pytest.mark.parametrize("field", ["in_dtype", "out_dtype"])
def test_a_dtype_becomes_the_nearest_of_its_kind_and_width(field: str) -> None:
    """FP4 on Cast (plain dtypes only): an 8-bit float, not INT8."""
    rec = record("is_valid_cast")
    rec[field] = Dtype.FP4_EXP2
    v = fixed_of(rec, Gen.MARIANA)
    new = DTYPE_INFO[Dtype(v.fix_fields[field])]
    assert list(v.fix_fields) == [field] and new.kind == "float" and new.bits == 8


def test_a_dtype_pair_and_its_out_dtype_both_wrong_are_repaired_together() -> None:
    """Both nibbles of the dtype pair invalid and out_dtype invalid too, where src1's
    dtype must equal out_dtype: no value of the pair passes with out_dtype as it is, so
    the two fields are searched together (restoring both is a two-field fix)."""
    name = "is_valid_copy_cast_predicated"
    rec = record(name)
    rec["in0_in1_dtype"] = 0
    rec["out_dtype"] = Dtype.UINT64
    v = explain(rec.tobytes(), Gen.CAYMAN)
    assert not v.valid and v.fix_fields is not None, v.no_fix
    assert sorted(v.fix_fields) == ["in0_in1_dtype", "out_dtype"]
    assert v.fix_fields["in0_in1_dtype"] >> 4 == v.fix_fields["out_dtype"]  # src1 == out
    out = apply(STRUCTS[BY_NAME[name].struct], rec, v.fix_fields)
    assert explain(out.tobytes(), Gen.CAYMAN, fixes=False).valid


def test_a_dtype_fix_that_uncovers_a_misaligned_address_keeps_the_opcode() -> None:
    """An invalid in_dtype on COPY and a source address off by one byte (which the
    invalid dtype hid): restoring FP32 uncovers the misalignment, so the fix of both
    fields is found by the second round, not COPY -> CAST of the same size."""
    rec = record("is_valid_copy")
    rec["in_dtype"] = 0
    rec["src_mem_pattern.start_addr"] = 1
    v = explain(rec.tobytes(), Gen.CAYMAN)
    assert v.fix_fields == {"in_dtype": int(Dtype.FP32), "src_mem_pattern.start_addr": 0}


def test_an_access_pattern_fix_changes_only_the_wrong_dimension() -> None:
    rec = record("is_valid_copy")
    rec["src_mem_pattern.num_elem"] = (2, 2, 1, 1)  # 4 elements, another shape than dst's
    rec["dst_mem_pattern.num_elem"] = (4, 3, 1, 1)
    assert fixed_of(rec).fix_fields == {"dst_mem_pattern.num_elem": (4, 1, 1, 1)}


# -- every field kind ---------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "field", "value"), [
    ("is_valid_copy", "reserved1", (0, 0, 7, 0, 0)),  # reserved bytes
    ("is_valid_ctrl_mv", "src_registers", (1, 200, 0, 0, 0, 0, 0, 0)),  # register list
    ("is_valid_ctrl_mv", "dst_registers", (3, 99, 0, 0, 0, 0, 0, 0)),
    ("is_valid_read_accumulator", "rsvd12", (0,) * 10 + (5,) + (0,) * 5),
    ("is_valid_d4_mr", "dst.num_elem", (4, 0, 1, 1)),  # u16 array
    ("is_valid_read_indices", "dst_element_count", 77),  # u32
    ("is_valid_read_accumulator", "dst_element_count", 5),
    ("is_valid_range_select", "fill_val", 0x12345678),  # u32 with a stated value
    ("is_valid_range_select", "base", 0x7FFFFFFF),
    ("is_valid_copy", "dst_mem_pattern.start_addr", 0x401),  # ADDR4
])
def test_each_field_kind_is_searched(name: str, field: str, value) -> None:
    rec = record(name)
    rec[field] = value
    v = fixed_of(rec)
    assert v.fix_fields is not None and list(v.fix_fields) == [field], v.no_fix
    assert explain(apply(STRUCTS[BY_NAME[name].struct], rec, v.fix_fields).tobytes(),
                   Gen.CAYMAN).valid


def test_the_stated_value_is_the_fix() -> None:
    rec = record("is_valid_range_select")
    rec["fill_val"] = 0
    assert fixed_of(rec).fix_fields == {"fill_val": 0xFF7FFFFF}  # -FLT_MAX


# -- fixable clauses are fixed when another is not ---------------------------------------------

def test_fixable_clauses_are_fixed_beside_an_unfixable_one() -> None:
    rec = record("is_valid_copy")
    rec["reserved1"] = (0, 0, 7, 0, 0)
    v = fixed_of(rec, Gen.CAYMAN, "pe")  # COPY is not in PE's dispatch table
    assert v.fix_fields is None and v.partial_fix == {"reserved1": (0,) * 5}
    assert "engine_has_opcode(pe) cannot be fixed" in v.no_fix
    assert v.clause("s4d4_tr_reserved_zero").fix_fields == {"reserved1": (0,) * 5}
    fixed = explain(apply(STRUCTS["S4D4_TR"], rec, v.partial_fix).tobytes(), Gen.CAYMAN, "pe")
    assert fixed.failed == ("engine_has_opcode(pe)",)


def test_validate_fix_writes_the_partial_fix_and_says_why_not_the_rest() -> None:
    from types import SimpleNamespace

    from neurondbg.commands.validate_fix import repair

    rec = record("is_valid_copy")
    rec["reserved1"] = (0, 0, 7, 0, 0)
    raw = np.frombuffer(rec.tobytes(), np.uint8).reshape(1, 64)
    result = SimpleNamespace(valid=np.array([False]), gen=Gen.CAYMAN, engine="pe")
    fixed, lines, changed, unfixed = repair(raw, result)
    assert unfixed == 1 and list(changed) == [0]
    assert lines[0].startswith("#0 @0x000000: partly fixed: set reserved1 = [0, 0, 0, 0, 0]; "
                               "no fix for the rest: ")
    assert fixed[0, 39:44].tolist() == [0] * 5


# -- the restore property -------------------------------------------------------------------------

TRIALS = int(os.environ.get("NEURONDBG_FIX_TRIALS", "150"))  # benchmarks run more
GENS = {name: next(g for g in GEN_ORDER if explain(example(name), g, fixes=False).valid)
        for name in EXAMPLES}


def _corrupt(data, rec: np.ndarray, f) -> None:
    lo, hi = f.bounds
    if f.count == 1:
        rec[f.name] = data.draw(st.integers(lo, hi))
    elif data.draw(st.booleans()):  # one element, or the whole array
        k = data.draw(st.integers(0, f.count - 1))
        rec[f.name][0, k] = data.draw(st.integers(lo, hi))
    else:
        rec[f.name] = tuple(data.draw(st.integers(lo, hi)) for _ in range(f.count))


@settings(max_examples=TRIALS, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                     HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(EXAMPLES)), data=st.data())
def test_a_corruption_of_one_or_two_fields_is_repaired(name: str, data) -> None:
    """For a valid record and a corruption of one or two fields (restoring them is a
    fix), a fix exists, passes, changes no more fields than were corrupted, keeps the
    opcode and adds no synchronisation."""
    struct = STRUCTS[BY_NAME[name].struct]
    gen = GENS[name]
    rec = record(name)
    fields = [f for f in struct.fields if f.name != "header.opcode"]
    chosen = data.draw(st.lists(st.sampled_from(fields), min_size=1, max_size=2,
                                unique_by=lambda f: f.name))
    for f in chosen:
        _corrupt(data, rec, f)
    v = explain(rec.tobytes(), gen)
    assume(not v.valid)
    assert v.fix_fields is not None, (name, [f.name for f in chosen], v.no_fix)
    out = apply(struct, rec, v.fix_fields)
    assert explain(out.tobytes(), gen, fixes=False).valid
    assert len(v.fix_fields) <= len(chosen)
    assert "header.opcode" not in v.fix_fields
    for mode in ("events.wait_mode", "events.update_mode"):
        assert v.fix_fields.get(mode, 0) == 0
