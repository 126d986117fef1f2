"""POOL and DVE tensor instructions on small states."""

import itertools

import ml_dtypes
import numpy as np
import pytest

from neurondbg.machine.convert import convert
from neurondbg.machine.dtypes import Dtype, Gen, dtype_bytes, dtype_format

from .helpers import (
    core_of,
    fault,
    get,
    put,
    queue,
    rewind,
)

IN = ["INT8", "UINT8", "INT16", "UINT16", "BF16", "FP16", "INT32", "UINT32", "FP32",
      "FP8_EXP3", "FP8_EXP4", "FP8_EXP5"]
OUT = [*IN, "FP32R"]
N = 24


def _cast_line(src: str, dst: str, n: int = N, nac: int = 2, op: str = "CAST") -> str:
    return (f"{op} in_dtype={src} out_dtype={dst} nac={nac} src=sb[0, 0] step=[1,0,0,0] "
            f"num=[{n},1,1,1] dst=sb[0, 512] step=[1,0,0,0] num=[{n},1,1,1]\nHALT")


@pytest.mark.parametrize("src, dst", list(itertools.product(IN, OUT)))
def test_cast_equals_convert_for_every_dtype_pair(src, dst) -> None:
    m = core_of(_cast_line(src, dst))
    s, d = Dtype[src], Dtype[dst]
    sf, df = dtype_format(s, Gen.CAYMAN), dtype_format(d, Gen.CAYMAN)
    size_in = int(dtype_bytes(s))
    rng = np.random.default_rng(int(s) * 100 + int(d))
    raw = rng.integers(0, 256, size=(2, N * size_in), dtype=np.uint8)
    m.state().sbuf[0:2, 0:raw.shape[1]] = raw
    rec = m.step().record
    assert rec.fault is None and not rec.invalid
    bits = raw.view(f"<u{size_in}")
    want = convert(bits, sf, df, mode="rint", sat=False, profile="neuron")
    size_out = want.dtype.itemsize
    got = m.state().sbuf[0:2, 512:512 + N * size_out].view(f"<u{size_out}")
    np.testing.assert_array_equal(got, want)
    assert rec.lanes is not None and rec.lanes.src == sf and rec.lanes.dst == df
    for p, e in ((0, 0), (1, N - 1), (1, int(rng.integers(0, N)))):
        assert rec.lanes.trace(p, e).output_bits == int(want[p, e])  # the lane trace agrees


def test_cast_lanes_flags_and_trace() -> None:
    m = core_of(_cast_line("FP32", "BF16", n=6, nac=1))
    vals = np.array([1.0, 1 + 2.0**-8, 1 + 3 * 2.0**-8, 3.4e38, np.nan, -np.inf], np.float32)
    put(queue(m), slice(0, 1), 0, vals)
    rec = m.step().record
    f = rec.lanes.flags
    assert f["tie"].tolist() == [[False, True, True, False, False, False]]
    assert f["inexact"].tolist() == [[False, True, True, True, False, False]]
    assert f["inf"].tolist() == [[False, False, False, True, False, True]]
    assert f["nan"].tolist() == [[False, False, False, False, True, False]]
    t = rec.lanes.trace(0, 2)
    assert t.output_bits == int(get(queue(m), 0, 512, np.uint16, 6)[2])


def test_cast_to_int_saturates_and_flags() -> None:
    m = core_of(_cast_line("FP32", "INT8", n=4, nac=1))
    put(queue(m), slice(0, 1), 0, np.array([300.0, -1000.0, 2.9, -2.9], np.float32))
    rec = m.step().record
    assert get(queue(m), 0, 512, np.int8, 4).tolist() == [127, -128, 2, -2]
    assert rec.lanes.flags["saturated"].tolist() == [[True, True, False, False]]


def test_fp8_configuration_follows_generation_and_override() -> None:
    line = _cast_line("FP32", "FP8_EXP4", n=1, nac=1)
    for gen, fmt in ((Gen.CAYMAN, "fp8_e4m3"), (Gen.MARIANA, "fp8_e4m3fn")):
        m = core_of(line, gen=gen)
        put(queue(m), slice(0, 1), 0, np.array([300.0], np.float32))
        rec = m.step().record
        assert rec.lanes.dst == fmt
        want = np.array([300.0], np.float32).astype(getattr(ml_dtypes, "float8_" + fmt[4:]))
        assert m.state().sbuf[0, 512] == want.view(np.uint8)[0]
    m = core_of(line, fp8_exp4="fp8_e4m3fn", fp8_sat=True)
    put(queue(m), slice(0, 1), 0, np.array([1e6], np.float32))
    rec = m.step().record
    assert m.state().sbuf[0, 512] == 0x7E and rec.lanes.flags["saturated"][0, 0]  # 448


def test_copy_is_bit_exact_with_strides_and_broadcast() -> None:
    m = core_of("COPY in_dtype=UINT16 out_dtype=UINT16 nac=3 src=sb[1, 0] step=[2,8,0,0] "
                "num=[3,2,1,1] dst=sb[1, 256] step=[1,0,0,0] num=[6,1,1,1]\nHALT")
    data = np.arange(3 * 16, dtype=np.uint16).reshape(3, 16)
    put(queue(m), slice(1, 4), 0, data)
    m.step()
    for p in range(3):
        assert get(queue(m), 1 + p, 256, np.uint16, 6).tolist() == [
            data[p, k] for k in (0, 2, 4, 8, 10, 12)]
    assert not m.state().sbuf[0].any() and not m.state().sbuf[4:].any()


def test_pool_psum_operand_faults_dve_allows_it() -> None:
    text = ("COPY in_dtype=FP32 out_dtype=FP32 nac=1 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] "
            "dst=psum[0, 0] step=[1,0,0,0] num=[4,1,1,1]\nHALT")
    stop = core_of(text).cont()
    assert stop.reason == "fault" and "GPSIMD cannot access PSUM" in stop.detail
    m = core_of(text, engine="dve")
    put(queue(m), slice(0, 1), 0, np.array([1, 2, 3, 4], np.float32))
    assert m.cont().reason == "halt"
    assert m.state().psum[0, :16].view(np.float32).tolist() == [1, 2, 3, 4]


def test_out_of_range_operand_faults_without_changing_state() -> None:
    m = core_of("COPY in_dtype=FP32 out_dtype=FP32 nac=1 src=sb[0, 4000] step=[1,0,0,0] "
                "num=[64,1,1,1] dst=sb[0, 0] step=[1,0,0,0] num=[64,1,1,1]\nHALT")
    d = m.state().digest()
    stop = m.cont()
    assert stop.reason == "fault" and "outside sbuf" in stop.detail
    assert m.state().digest() == d and m.state().steps == 0


def test_register_mode_address() -> None:
    m = core_of("MOVE R5=0x40\nCOPY in_dtype=UINT8 out_dtype=UINT8 nac=1 src=reg[R5] "
                "step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[4,1,1,1]\nHALT")
    put(queue(m), slice(0, 1), 0x40, np.array([9, 8, 7, 6], np.uint8))
    assert m.cont().reason == "halt"
    assert get(queue(m), 0, 0x100, np.uint8, 4).tolist() == [9, 8, 7, 6]


def test_memset_reduce_tensor_tensor() -> None:
    m = core_of("""
        MEMSET dtype=INT16 nac=2 set_value=0xFFFE dst=sb[0, 0x300] step=[1,0,0,0] num=[3,1,1,1]
        TENSOR_REDUCE_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=2 op=MAX op_dim=X \
            src=sb[0,0] step=[1,4,0,0] num=[4,2,1,1] dst=sb[0,0x200] step=[1,0,0,0] num=[2,1,1,1]
        TENSOR_REDUCE_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=2 op=ADD op_dim=XY \
            src=sb[0,0] step=[1,4,0,0] num=[4,2,1,1] dst=sb[0,0x210] step=[1,0,0,0] num=[1,1,1,1]
        TENSOR_TENSOR_ARITH_OP in0_dtype=FP32 in1_dtype=BF16 out_dtype=FP32 op=MULT nac=2 \
            src0=sb[0,0] step=[1,0,0] num=[2,1,1] src1=sb[0,0x100] step=[1,0,0] num=[2,1,1] \
            dst=sb[0,0x220] step=[1,0,0] num=[2,1,1]
        TENSOR_TENSOR_BITVEC_OP in0_dtype=INT16 in1_dtype=INT16 out_dtype=INT16 \
            op=BITWISE_AND nac=2 src0=sb[0,0x300] step=[1,0,0] num=[3,1,1] \
            src1=sb[0,0x300] step=[1,0,0] num=[3,1,1] dst=sb[0,0x310] step=[1,0,0] num=[3,1,1]
        HALT
    """)
    put(queue(m), slice(0, 2), 0, np.array([1, 5, -2, 3, 10, 20, 30, -40], np.float32))
    put(queue(m), slice(0, 2), 0x100, np.array([0.5, 4], ml_dtypes.bfloat16))
    stop = m.cont()
    assert stop.reason == "halt", stop.detail
    assert get(queue(m), 1, 0x300, np.int16, 3).tolist() == [-2, -2, -2]
    assert get(queue(m), 1, 0x200, np.float32, 2).tolist() == [5, 30]
    assert get(queue(m), 0, 0x210, np.float32, 1).tolist() == [27]
    assert get(queue(m), 0, 0x220, np.float32, 2).tolist() == [0.5, 20]
    assert get(queue(m), 0, 0x310, np.int16, 3).tolist() == [-2, -2, -2]


DVE = """
TENSOR_SCALAR_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=2 op0=MULT imm0=2.0 op1=ADD imm1=1.0 \
    src=sb[0,0] step=[1,0,0] num=[4,1,1] dst=sb[0,48] step=[1,0,0] num=[4,1,1]
RANGE_SELECT nac=2 in_dtype=FP32 out_dtype=FP32 reduce_cmd=ZERO_ACCUMULATE reduce_op=MAX \
    fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.0 bound1=3.5 \
    src=sb[0,0] step=[1,0] num=[4,1] dst=sb[0,64] step=[1,0] num=[4,1]
DVE_READ_ACCUMULATOR dst_element_count=1 dtype=FP32 nac=2 negated=1 dst=sb[0,80] step=1 num=1
SELECT_REDUCE in0_dtype=INT32 in1_dtype=FP32 out_dtype=FP32 nac=2 op0=BYPASS op1=MAX \
    imm0=-5.0 imm0_dtype=FP32 accumulator_cmd=ZERO_ACCUMULATE src0=sb[0,96] step=[1,0] \
    num=[4,1] src1=sb[0,0] step=[1,0] num=[4,1] dst=sb[0,112] step=[1,0] num=[4,1]
CAST_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=BF16 op=BYPASS nac=2 \
    src0=sb[0,96] step=[1,0,0] num=[4,1,1] src1=sb[0,0] step=[1,0,0] num=[4,1,1] \
    dst=sb[0,128] step=[1,0,0] num=[4,1,1]
TENSOR_SCALAR_CACHE_CUMULATIVE in_dtype=FP32 out_dtype=FP32 nac=2 \
    accumulator_cmd=ZERO_ACCUMULATE op0=BYPASS op1=ADD \
    src=sb[0,0] step=[1,0,0] num=[4,1,1] dst=sb[0,160] step=[1,0,0] num=[4,1,1]
TENSOR_SCALAR_CACHE_REDUCE in_dtype=FP32 out_dtype=FP32 nac=2 accumulator_cmd=LOAD_ACCUMULATE \
    op0=MULT imm0=2.0 op1=MAX imm1=7.5 src=sb[0,0] step=[1,0,0] num=[4,1,1] \
    dst=sb[0,176] step=[1,0,0] num=[4,1,1]
HALT
"""


def test_dve_ops_and_accumulators() -> None:
    m = core_of(DVE, engine="dve")
    put(queue(m), slice(0, 2), 0, np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    put(queue(m), slice(0, 2), 96, np.array([1, 0, 5, 0], np.int32))
    put(queue(m), slice(0, 2), 128, np.full(4, 0x7777, np.uint16))
    f32 = np.float32
    assert m.step().record.fault is None
    assert get(queue(m), 0, 48, f32, 4).tolist() == [3, 5, 7, 9]
    m.step()
    assert get(queue(m), 1, 64, f32, 4).tolist() == [1, 2, 3, float(np.finfo(f32).min)]
    assert m.state().acc[:2].tolist() == [3, 3]
    m.step()
    assert get(queue(m), 1, 80, f32, 1).tolist() == [-3]
    m.step()
    assert get(queue(m), 0, 112, f32, 4).tolist() == [1, -5, 3, -5] and m.state().acc[0] == 3
    rec = m.step().record
    assert get(queue(m), 0, 128, np.uint16, 4).tolist() == [0x3F80, 0x7777, 0x4040, 0x7777]  # merge
    assert rec.lanes.mask.tolist()[0] == [True, False, True, False]
    m.step()
    assert get(queue(m), 0, 160, f32, 4).tolist() == [1, 3, 6, 10] and m.state().acc[0] == 10
    m.step()
    assert get(queue(m), 0, 176, f32, 4).tolist() == [2, 4, 6, 8] and m.state().acc[1] == 8
    assert m.cont().reason == "halt"
    assert m.state().who_wrote("acc", 1) == (6, 6 * 64)


def test_range_select_load_accumulate_is_invalid_and_faults_when_forced() -> None:
    text = ("RANGE_SELECT nac=1 in_dtype=FP32 out_dtype=FP32 reduce_cmd=LOAD_ACCUMULATE "
            "reduce_op=MAX fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.0 "
            "bound1=3.5 src=sb[0,0] step=[1,0] num=[4,1] dst=sb[0,64] step=[1,0] num=[4,1]\nHALT")
    stop = core_of(text, engine="dve").cont()
    assert stop.reason == "invalid" and "RANGE_SELECT" in stop.detail
    assert "LOAD_ACCUMULATE" in fault(text, engine="dve")


def test_lanes_keep_their_input_when_the_source_is_overwritten_later() -> None:
    m = core_of("CAST in_dtype=FP32 out_dtype=BF16 nac=1 src=sb[0, 0] step=[1,0,0,0] "
                "num=[2,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[2,1,1,1]\n"
                "MEMSET dtype=FP32 nac=1 set_value=0x40000000 dst=sb[0, 0] step=[1,0,0,0] "
                "num=[2,1,1,1]\nHALT")
    put(queue(m), slice(0, 1), 0, np.array([1.5, -3.0], np.float32))
    cast = m.step().record
    before = cast.lanes.in_bits.copy()
    m.step()  # overwrites the cast's source
    assert get(queue(m), 0, 0, np.float32, 2).tolist() == [2.0, 2.0]
    np.testing.assert_array_equal(cast.lanes.in_bits, before)
    assert cast.lanes.trace(0, 1).output_bits == 0xC040
    m.reverse_step()  # undo writes the memory back: the lanes must not see it either
    np.testing.assert_array_equal(cast.lanes.in_bits, before)


def test_in_place_cast_and_overlapping_copy() -> None:
    m = core_of("CAST in_dtype=FP32 out_dtype=FP32R nac=1 src=sb[0, 0] step=[1,0,0,0] "
                "num=[2,1,1,1] dst=sb[0, 0] step=[1,0,0,0] num=[2,1,1,1]\n"
                "COPY in_dtype=UINT8 out_dtype=UINT8 nac=1 src=sb[0, 0] step=[1,0,0,0] "
                "num=[8,1,1,1] dst=sb[0, 4] step=[1,0,0,0] num=[8,1,1,1]\nHALT")
    vals = np.array([1 + 2.0**-20, 3.0], np.float32)
    put(queue(m), slice(0, 1), 0, vals)
    rec = m.step().record
    assert rec.lanes.in_bits.view(np.float32)[0].tolist() == [float(vals[0]), 3.0]
    assert get(queue(m), 0, 0, np.float32, 2).tolist() == [1.0, 3.0]
    before = m.state().sbuf[0, :8].copy()
    rec = m.step().record
    assert m.state().sbuf[0, 4:12].tolist() == before.tolist()
    np.testing.assert_array_equal(rec.writes[0].new.ravel(), before)


def test_copy_predicated_and_tensor_scalar_forms() -> None:
    m = core_of("""
        COPY_PREDICATED in0_dtype=UINT8 in1_dtype=UINT16 out_dtype=UINT16 op=BYPASS nac=1 \
            src0=sb[0,0] step=[1,0,0] num=[4,1,1] src1=sb[0,16] step=[1,0,0] num=[4,1,1] \
            dst=sb[0,32] step=[1,0,0] num=[4,1,1]
        TENSOR_SCALAR_BITVEC_OP in_dtype=UINT16 out_dtype=UINT16 nac=1 op0=LOGICAL_SHIFT_LEFT \
            imm0=4 op1=BITWISE_OR imm1=0x8000 src=sb[0,16] step=[1,0,0] num=[4,1,1] \
            dst=sb[0,48] step=[1,0,0] num=[4,1,1]
        TENSOR_SCALAR_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=2 op0=SUBTRACT imm0=10.0 \
            op1=DIVIDE imm1_src=POINTER_IMMEDIATE imm1=0x200 reverse_operands=BOTH \
            src=sb[0,0x100] step=[1,0,0] num=[2,1,1] dst=sb[0,0x120] step=[1,0,0] num=[2,1,1]
        HALT
    """, engine="dve", execute_invalid=True)
    put(queue(m), slice(0, 1), 0, np.array([1, 0, 2, 0], np.uint8))
    put(queue(m), slice(0, 1), 16, np.array([0x111, 0x222, 0x333, 0x444], np.uint16))
    put(queue(m), slice(0, 1), 32, np.full(4, 0xAAAA, np.uint16))
    put(queue(m), slice(0, 2), 0x100, np.array([4.0, 6.0], np.float32))
    put(queue(m), slice(0, 1), 0x200, np.array([12.0], np.float32))  # a per-partition imm1
    put(queue(m), slice(1, 2), 0x200, np.array([-24.0], np.float32))
    stop = m.cont()
    assert stop.reason == "halt", stop.detail
    assert get(queue(m), 0, 32, np.uint16, 4).tolist() == [0x111, 0xAAAA, 0x333, 0xAAAA]
    assert get(queue(m), 0, 48, np.uint16, 4).tolist() == [0x9110, 0xA220, 0xB330, 0xC440]
    # reverse BOTH: (imm0 - x), then imm1 / that
    assert get(queue(m), 0, 0x120, np.float32, 2).tolist() == [2.0, 3.0]
    assert get(queue(m), 1, 0x120, np.float32, 2).tolist() == [-4.0, -6.0]


def test_test_event_sem_on_mariana() -> None:
    m = core_of("""
        MOVE R4=11 R5=22
        TEST_EVENT_SEM mode=UPDATE_SEM num_evt_sem=2 evt_sem_ids=[3,9,0,0,0,0,0,0,0,0,0,0,0,0,0,0] \
            value_registers=[4,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
        TEST_EVENT_SEM mode=READ_SEM num_evt_sem=1 evt_sem_ids=[9,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] \
            value_registers=[7,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
        HALT
    """, gen=Gen.MARIANA, execute_invalid=True)
    assert m.cont().reason == "halt"
    assert (m.state().sem[3], m.state().sem[9], m.state().R[7]) == (11, 22, 22)
    assert rewind(m) == 4 and m.state().sem[3] == 0 and m.state().R[7] == 0


@pytest.mark.parametrize("op", ["ADD", "SUBTRACT", "MAX", "MULT"])
def test_tensor_reduce_folds_sequentially_in_fp32(op) -> None:
    m = core_of(f"TENSOR_REDUCE_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=3 op={op} op_dim=X "
                "src=sb[0,0] step=[1,37,0,0] num=[37,2,1,1] dst=sb[0,0x400] step=[1,0,0,0] "
                "num=[2,1,1,1]\nHALT")
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 74)) * 1e4).astype(np.float32)
    put(queue(m), slice(0, 3), 0, x)
    assert m.cont().reason == "halt"
    fn = {"ADD": np.add, "SUBTRACT": np.subtract, "MAX": np.maximum, "MULT": np.multiply}[op]
    for p in range(3):
        for row in range(2):
            acc = x[p, 37 * row]
            for v in x[p, 37 * row + 1:37 * row + 37]:
                with np.errstate(all="ignore"):
                    acc = np.float32(fn(acc, v))
            got = get(queue(m), p, 0x400 + 4 * row, np.float32, 1)[0]
            assert got == acc or (np.isnan(got) and np.isnan(acc)) or (
                np.isinf(got) and got == acc)


@pytest.mark.parametrize("fmt", ["bf16", "fp16", "fp8_e4m3", "fp8_e4m3fn", "fp8_e5m2", "int8",
                                 "uint16", "int32", "fp32"])
def test_lane_values_agree_with_the_exact_decoder(fmt) -> None:
    from neurondbg.machine.convert.formats import parse_format
    from neurondbg.machine.convert.kernels import decode_value
    from neurondbg.machine.engines.record import decode_values

    f = parse_format(fmt)
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 1 << f.bits, size=(4, 500), dtype=np.uint64).astype(f.container)
    np.testing.assert_array_equal(decode_values(bits, fmt), decode_value(bits, fmt))


def test_huge_broadcast_pattern_faults_instead_of_allocating() -> None:
    assert "at most" in fault("COPY in_dtype=FP32 out_dtype=FP32 nac=1 src=sb[0, 0] "
                              "step=[0,0,0,0] num=[65535,65535,65535,65535] dst=sb[0, 0] "
                              "step=[0,0,0,0] num=[65535,65535,65535,65535]\nHALT")


def test_tensor_cumulative_prefix_per_row() -> None:
    m = core_of("""
        TENSOR_CUMULATIVE_ARITH_OP in_dtype=FP32 out_dtype=FP32 nac=1 op=ADD op_dim=X \
            src=sb[0,0] step=[1,3,0,0] num=[3,2,1,1] dst=sb[0,64] step=[1,3,0,0] num=[3,2,1,1]
        TENSOR_CUMULATIVE_BITVEC_OP in_dtype=UINT8 out_dtype=UINT8 nac=1 op=BITWISE_OR \
            op_dim=XY src=sb[0,128] step=[1,2,0,0] num=[2,2,1,1] dst=sb[0,136] \
            step=[1,2,0,0] num=[2,2,1,1]
        HALT
    """, execute_invalid=True)
    put(queue(m), slice(0, 1), 0, np.array([1, 2, 3, 10, 20, 30], np.float32))
    put(queue(m), slice(0, 1), 128, np.array([1, 2, 4, 8], np.uint8))
    assert m.cont().reason == "halt"
    assert get(queue(m), 0, 64, np.float32, 6).tolist() == [1, 3, 6, 10, 30, 60]
    assert get(queue(m), 0, 136, np.uint8, 4).tolist() == [1, 3, 7, 15]


def test_dve_read_indices() -> None:
    m = core_of("DVE_READ_INDICES dtype=UINT16 nac=2 dst=sb[0, 0] step=[1,0,0,0] "
                "num=[8,1,1,1]\nHALT", engine="dve", execute_invalid=True)
    m.state().idx[0:2] = np.arange(16, dtype=np.uint32).reshape(2, 8) + 0x10000
    assert m.cont().reason == "halt"
    assert get(queue(m), 1, 0, np.uint16, 8).tolist() == list(range(8, 16))
