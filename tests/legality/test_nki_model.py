"""The result model, the call vocabulary, messages, and robustness of check_call."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.legality.nki import (
    CATALOG,
    INTRINSICS,
    NkiInputError,
    check_call,
    check_calls,
)
from neurondbg.machine.legality.nki.select import (
    RANGE_SELECT_REDUCE_CMDS,
    REDUCE_CMD_VALIDATORS,
    SELECT_REDUCE_REDUCE_CMDS,
)
from neurondbg.machine.legality.nki.vocab import (
    FP32_MIN_BITS,
    NKI_DTYPES,
    ReduceCmd,
    fp32_bits,
    parse_call_gen,
    parse_nki_dtype,
)
from neurondbg.machine.legality.result import ClauseResult, Provenance, Verdict

# --- result model ------------------------------------------------------------------------


def _clause(name: str, passed: bool, note: bool = False) -> ClauseResult:
    return ClauseResult(name, passed, f"{name} message", None if passed else "fix it",
                        Provenance("004", "§x", "MED"), ("a", "b"), note)


def test_verdict_valid_failed_notes() -> None:
    v = Verdict("p", "nki", (_clause("a", True), _clause("b", False), _clause("c", False, True)))
    assert not v.valid
    assert v.failed == ("b",)
    assert v.notes == ("c",)
    assert v.clause("c").note
    with pytest.raises(KeyError):
        v.clause("zzz")
    only_note = Verdict("p", "wire", (_clause("a", True), _clause("c", False, True)))
    assert only_note.valid and only_note.failed == ()


def test_verdict_to_dict_is_json() -> None:
    v = Verdict("p", "nki", (_clause("a", True), _clause("b", False)))
    d = json.loads(json.dumps(v.to_dict()))
    assert d["predicate"] == "p" and d["level"] == "nki" and d["valid"] is False
    assert d["failed"] == ["b"]
    assert d["clauses"][1] == {"name": "b", "passed": False, "message": "b message",
                               "fix": "fix it", "note": False, "fields": ["a", "b"],
                               "provenance": {"ref": "004", "section": "§x", "confidence": "MED"}}


def test_model_rejects_unknown_tags() -> None:
    with pytest.raises(ValueError):
        Provenance("005", "§1", "HIGH")
    with pytest.raises(ValueError):
        Provenance("004", "§1", "SURE")
    with pytest.raises(ValueError):
        Verdict("p", "asm", ())
    assert str(Provenance("isa-facts", "§6.3", "HIGH")) == "isa-facts §6.3 (HIGH)"
    assert str(Provenance("004", "GOTCHA", "MED")) == "ref 004 GOTCHA (MED)"


# --- vocabulary --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "gen"), [
    ("trn1", Gen.SUNDA), ("inf2", Gen.SUNDA), ("trn2", Gen.CAYMAN), ("trn3", Gen.MARIANA),
    ("sunda", Gen.SUNDA), ("Cayman", Gen.CAYMAN), ("mariana", Gen.MARIANA),
    ("maverick", Gen.MAVERICK), ("gen2", Gen.SUNDA), ("gen3", Gen.CAYMAN), (None, Gen.CAYMAN),
])
def test_generation_spellings(name: str | None, gen: Gen) -> None:
    assert parse_call_gen(name, "gen") is gen


@pytest.mark.parametrize("bad", ["trn4", "gen9", 3, "", "tonga"])
def test_bad_generation(bad: Any) -> None:
    with pytest.raises(NkiInputError, match="gen: unknown generation"):
        parse_call_gen(bad, "gen")


@pytest.mark.parametrize(("text", "name"), [
    ("np.float32", "float32"), ("nl.bfloat16", "bfloat16"), ("bf16", "bfloat16"),
    ("FP16", "float16"), ("fp8_e4m3", "float8_e4m3"), ("FP8_EXP5", "float8_e5m2"),
    ("bool_", "uint8"), ("nl.uint32", "uint32"), ("tfloat32", "tfloat32"),
])
def test_dtype_spellings(text: str, name: str) -> None:
    assert parse_nki_dtype(text, "x").name == name


def test_fp32_min_pattern() -> None:
    assert fp32_bits(-3.4028234663852886e38) == FP32_MIN_BITS == 0xFF7FFFFF
    assert fp32_bits(float("-inf")) == 0xFF800000


# --- the reduce_cmd sets (the traps) ---------------------------------------------------------


def test_reduce_cmd_enum_values() -> None:
    assert [(c.name, int(c)) for c in ReduceCmd] == [
        ("idle", 0), ("reset", 1), ("reduce", 2), ("reset_reduce", 3), ("load_reduce", 4)]


def test_select_reduce_strictly_narrower_than_range_select() -> None:
    """GOTCHA: select_reduce has no bare reset; REDUCE-1: neither has load_reduce."""
    assert SELECT_REDUCE_REDUCE_CMDS < RANGE_SELECT_REDUCE_CMDS
    assert RANGE_SELECT_REDUCE_CMDS - SELECT_REDUCE_REDUCE_CMDS == {ReduceCmd.reset}
    assert ReduceCmd.load_reduce not in RANGE_SELECT_REDUCE_CMDS | SELECT_REDUCE_REDUCE_CMDS


def test_reduce_2_misspelled_validator_name() -> None:
    """CORRECTION REDUCE-2: the activation wrapper is spelled "activiation" in the binary."""
    assert REDUCE_CMD_VALIDATORS["activation"] == "_check_activiation_supported_reduce_cmd"
    names = {c.name for specs in INTRINSICS.values() for c in specs}
    assert REDUCE_CMD_VALIDATORS["range_select"] in names
    assert REDUCE_CMD_VALIDATORS["select_reduce"] in names


def _tile(dtype: str, *shape: int, buffer: str = "sbuf") -> dict[str, Any]:
    return {"dtype": dtype, "shape": list(shape), "buffer": buffer}


def _select_reduce(cmd: Any) -> dict[str, Any]:
    return {"op": "select_reduce", "gen": "trn2", "args": {
        "dst": _tile("float32", 128, 64), "predicate": _tile("uint8", 128, 64),
        "on_true": _tile("float32", 128, 64), "on_false": 0.0, "reduce_cmd": cmd}}


def _range_select(cmd: Any, **extra: Any) -> dict[str, Any]:
    args = {"on_true_tile": _tile("float32", 128, 64), "comp_op0": "np.greater",
            "comp_op1": "np.less_equal", "bound0": _tile("float32", 128, 1),
            "bound1": _tile("float32", 128, 1), "reduce_cmd": cmd, **extra}
    return {"op": "range_select", "gen": "trn2", "args": args}


@pytest.mark.parametrize("cmd", list(ReduceCmd))
def test_shared_whitelist_would_be_wrong(cmd: ReduceCmd) -> None:
    """Every reduce_cmd value against both ops: exactly the documented sets."""
    rs = check_call(_range_select(cmd.name)).valid
    sr = check_call(_select_reduce(int(cmd))).valid
    assert rs == (cmd in {ReduceCmd.idle, ReduceCmd.reset, ReduceCmd.reduce,
                          ReduceCmd.reset_reduce})
    assert sr == (cmd in {ReduceCmd.idle, ReduceCmd.reduce, ReduceCmd.reset_reduce})


def test_messages_state_values_and_rule() -> None:
    c = check_call(_select_reduce("reset")).clause("_check_select_reduce_supported_reduce_cmd")
    assert "reset (1)" in c.message and "{idle, reduce, reset_reduce}" in c.message
    assert c.fix and "reset_reduce" in c.fix
    c = check_call(_range_select("load_reduce")).clause(
        "_check_range_select_supported_reduce_cmd")
    assert "load_reduce (4)" in c.message and "REDUCE-1" in c.message
    c = check_call(_range_select("idle", on_false_value=0.0)).clause("on_false_value_fp32_min")
    assert "0x00000000" in c.message and "0xff7fffff" in c.message


def test_bitvec_int32_gotcha_contrast() -> None:
    """int32 is a legal bitvec dtype for tensor_reduce, not for tensor_partition_reduce."""
    data = _tile("int32", 128, 64)
    free = check_call({"op": "tensor_reduce", "args": {"op": "np.bitwise_and", "data": data,
                                                        "axis": [1]}})
    part = check_call({"op": "tensor_partition_reduce",
                       "args": {"op": "np.bitwise_and", "data": data}})
    assert free.valid
    assert part.failed == ("err_par_reduce_bitvec_op_invalid_dtype",)
    assert "int32" in part.clause("err_par_reduce_bitvec_op_invalid_dtype").message


def test_range_select_reduce_res_note() -> None:
    """GOTCHA: keep reduce_res FP32 — advisory, so the call stays legal."""
    v = check_call(_range_select("reduce", reduce_res=_tile("bfloat16", 128, 1),
                                 dtype="bfloat16"))
    assert v.valid and v.notes == ("reduce_res_fp32",)
    assert "-INF" in v.clause("reduce_res_fp32").message
    assert check_call(_range_select("reduce", reduce_res=_tile("float32", 128, 1))).notes == ()


def test_dma_1_modulo_not_upper_bound() -> None:
    """CORRECTION DMA-1: hwdge needs columns % 128 == 0, not columns <= 128."""
    def ok(cols: int) -> bool:
        return check_call({"op": "dma_transpose", "gen": "trn2", "args": {
            "src": _tile("bfloat16", 32, cols), "dge_mode": "hwdge"}}).valid
    assert [ok(c) for c in (64, 127, 128, 129, 256, 384, 1024)] == [
        False, False, True, False, True, True, True]


def test_trn1_scalar_dynamic_copy_is_an_equality_on_gen2() -> None:
    def ok(gen: str, engine: str) -> bool:
        return check_call({"op": "tensor_copy_dynamic_src", "gen": gen, "args": {
            "src": _tile("float32", 128, 8), "engine": engine}}).valid
    assert [ok(g, "scalar") for g in ("trn1", "inf2", "trn2", "trn3", "maverick")] == [
        False, False, True, True, True]
    assert all(ok("trn1", e) for e in ("vector", "gpsimd", "unknown"))


# --- input errors ------------------------------------------------------------------------

BASE_OK = _select_reduce("idle")


@pytest.mark.parametrize("op", sorted(CATALOG))
def test_a_call_missing_required_arguments_is_judged_illegal(op: str) -> None:
    """Every intrinsic: no argument at all is that call's error, named by its signature
    clause, never an input error for the whole list."""
    required = [p.name for p in CATALOG[op].params if p.required]
    v = check_call({"op": op, "args": {}})
    assert v.valid is (not required)
    if required:
        assert "signature" in v.failed
        message = v.clause("signature").message
        assert message.startswith(f"{op}() missing required argument(s) ")
        assert all(repr(name) in message for name in required)


@pytest.mark.parametrize(("calls", "fragment"), [
    ({"op": "x"}, "expected a list of calls"),
    ([5], "call 0: expected an object"),
    ([{"op": "nope"}], "call 0.op: unknown intrinsic 'nope'"),
    ([BASE_OK, {"args": {}}], "call 1.op: expected an intrinsic name"),
    ([{"op": "max8", "args": []}], "call 0.args: expected an object"),
    ([{"op": "max8", "args": {"src": {"shape": [1]}}}], "call 0.args.src: tile has no \"dtype\""),
    ([{"op": "max8", "args": {"src": {"dtype": "f99", "shape": [1]}}}],
     "call 0.args.src.dtype: unknown dtype 'f99'"),
    ([{"op": "max8", "args": {"src": {"dtype": "float32", "shape": [0]}}}],
     "call 0.args.src.shape: expected a non-empty list of positive integers"),
    ([{"op": "max8", "args": {"src": {"dtype": "float32", "shape": [1], "buffer": "dram"}}}],
     "call 0.args.src.buffer"),
    ([{"op": "max8", "args": {"src": 3}}], "call 0.args.src: expected a tile object"),
    ([{"op": "max8", "gen": "trn9", "args": {}}], "call 0.gen: unknown generation"),
    ([{"op": "max8", "args": {}, "extra": 1}], "call 0: unknown key 'extra'"),
    ([dict(BASE_OK, args=dict(BASE_OK["args"], reduce_cmd="zero"))],
     "call 0.args.reduce_cmd: expected one of idle, reset"),
    ([dict(BASE_OK, args=dict(BASE_OK["args"], reverse_pred=1))],
     "call 0.args.reverse_pred: expected true or false"),
    ([dict(BASE_OK, args=dict(BASE_OK["args"], on_false="zero"))],
     "call 0.args.on_false: expected a number"),
    ([dict(BASE_OK, args=dict(BASE_OK["args"], reduce_op=7))],
     "call 0.args.reduce_op: expected an op name"),
])
def test_input_errors_name_the_call_and_path(calls: Any, fragment: str) -> None:
    with pytest.raises(NkiInputError) as info:
        check_calls(calls)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


# --- robustness: any well-typed call is judged, never crashes ----------------------------

_DTYPES = st.sampled_from(sorted(NKI_DTYPES))
_SHAPES = st.lists(st.integers(1, 300), min_size=1, max_size=6)
_TILES = st.builds(lambda d, s, b, i: {"dtype": d, "shape": s, "buffer": b, "indirect": i},
                   _DTYPES, _SHAPES, st.sampled_from(["sbuf", "psum", "hbm"]), st.booleans())
_SCALARS = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, width=32),
                     st.builds(lambda v, d: {"value": v, "dtype": d}, st.floats(-4, 4), _DTYPES))
_BY_KIND: dict[str, st.SearchStrategy[Any]] = {
    "tile": st.one_of(st.none(), _TILES),
    "tile_or_scalar": st.one_of(_TILES, _SCALARS),
    "scalar": _SCALARS,
    "fp32_value": st.one_of(_SCALARS, st.just("fp32.min")),
    "dtype": st.one_of(st.none(), _DTYPES),
    "reduce_cmd": st.sampled_from([c.name for c in ReduceCmd]),
    "op": st.sampled_from(["np.add", "np.max", "np.bitwise_and", "np.equal", "np.less",
                           "np.subtract", "np.bitwise_xor", "np.power"]),
    "engine": st.sampled_from(["vector", "scalar", "gpsimd", "unknown"]),
    "dge_mode": st.sampled_from(["unknown", "swdge", "hwdge"]),
    "oob_mode": st.sampled_from(["error", "skip"]),
    "bool": st.booleans(),
    "int": st.one_of(st.none(), st.integers(-3, 5000)),
    "number": st.one_of(st.integers(-2**25, 2**25), st.floats(allow_nan=False)),
    "int_list": st.one_of(st.none(), st.lists(st.integers(-3, 6), max_size=5)),
    "expr": st.one_of(st.just("i_p - i_f"), st.just("a & b"), _TILES),
    "any": st.one_of(st.none(), st.integers(), st.text(max_size=3)),
}


@st.composite
def _calls(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(sorted(CATALOG)))
    params = CATALOG[name].params
    args = {p.name: draw(_BY_KIND[p.kind]) for p in params
            if p.required or draw(st.booleans())}
    gen = draw(st.sampled_from(["trn1", "trn2", "trn3", "maverick"]))
    return {"op": name, "gen": gen, "args": args}


@settings(deadline=None, max_examples=400)
@given(_calls())
def test_random_well_typed_calls_are_judged(call: dict[str, Any]) -> None:
    verdict = check_call(call)
    assert verdict.predicate == call["op"]
    # the generation gate of float8_e4m3fn joins the calls that use it (isa-facts §8.2)
    gated = ["dtype_native_on_gen"] if "float8_e4m3fn" in repr(call["args"]) else []
    assert [c.name for c in verdict.clauses] == [c.name for c in INTRINSICS[call["op"]]] + gated
    for c in verdict.clauses:
        assert "could not evaluate" not in c.message
        assert c.message
        assert (c.fix is None) or not c.passed
    assert verdict.valid == all(c.passed for c in verdict.clauses if not c.note)


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(sorted(CATALOG)),
       st.dictionaries(st.sampled_from(["src", "data", "dtype", "axis", "reduce_cmd", "engine",
                                        "on_false", "index", "shape", "prob", "dst"]),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.floats()
                                    | st.text(max_size=4),
                                    lambda kids: st.lists(kids, max_size=3)
                                    | st.dictionaries(st.text(max_size=5), kids, max_size=3),
                                    max_leaves=6), max_size=4))
def test_junk_args_raise_input_error_or_judge(op: str, args: dict[str, Any]) -> None:
    try:
        verdict = check_call({"op": op, "args": args})
    except NkiInputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("call")
    else:
        assert all("could not evaluate" not in c.message for c in verdict.clauses)


def test_dma_copy_sbuf_to_sbuf_note() -> None:
    v = check_call({"op": "dma_copy", "args": {"src": _tile("float32", 128, 8),
                                                "dst": _tile("float32", 128, 8)}})
    assert v.valid and v.notes == ("prefer_tensor_copy_sbuf_to_sbuf",)
    assert v.clause("prefer_tensor_copy_sbuf_to_sbuf").fix == "use nisa.tensor_copy"
