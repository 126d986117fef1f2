"""The bulk CAST step without extra passes: convert_into writes rows in blocks
and tells the journal before each one (MachineState.open_write / OldBytes), the neuron
Cast as one numpy cast where the hub is its source or target. Every fast path must give
the slow path's bits, and undo must stay exact at every point of the write."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

import neurondbg.machine.convert.kernels as kernels
import neurondbg.machine.engines.tensor as tensor
import neurondbg.machine.state as state_mod
from neurondbg.machine.convert import convert
from neurondbg.machine.convert.formats import FORMATS
from neurondbg.machine.convert.kernels import convert_into
from neurondbg.machine.convert.options import resolve
from neurondbg.machine.journal import MEM_UNDO_BYTES
from neurondbg.machine.state import ZERO_MIN_BYTES, zeros
from tests.machine.helpers import machine, put

SPECIALS32 = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF,
              0x00000001, 0x807FFFFF, 0x3F808000, 0x3F818000, 0x7F7FFFFF, 0x477FF000]


def _bits(fmt: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    f = FORMATS[fmt]
    b = rng.integers(0, 1 << f.bits, shape, dtype=np.uint64).astype(f.container)
    if f.bits == 32:
        b.flat[:len(SPECIALS32)] = SPECIALS32
    return b


@pytest.mark.parametrize(("s", "d", "rows", "cols", "one_buffer"), [
    ("fp32", "bf16", 24, 64, True),  # numpy cast, out and bits views of one buffer: scratch
    ("fp32", "fp8_e4m3fn", 24, 64, False),  # numpy cast straight into out
    ("bf16", "fp32", 24, 16, True),  # widening numpy cast (few lanes: no table)
    ("bf16", "fp8_e5m2", 24, 256, False),  # the table of every bf16 code
    ("fp32", "int8", 24, 64, True),  # whole result first, then one copy
    ("fp32", "fp32", 24, 64, True),  # same dtype: the bit move
])
def test_convert_into_tells_before_each_block_in_order_before_writing_it(
        s: str, d: str, rows: int, cols: int, one_buffer: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "SCRATCH_BYTES", 256)  # a few rows a block: several blocks
    monkeypatch.setattr(kernels, "_LUTS", {})  # no table another test built (bf16 -> fp32)
    rng = np.random.default_rng(17)
    fs, fd = FORMATS[s], FORMATS[d]
    bits = _bits(s, (rows, cols), rng)
    want = convert(bits, s, d, "rint", False, "neuron")
    sentinel = fd.container.type(0x5A)
    if one_buffer:
        width = cols * (fs.container.itemsize + fd.container.itemsize) + 8
        mem = np.zeros((rows, width), np.uint8)
        src = mem[:, :cols * fs.container.itemsize].view(fs.container)
        src[...] = bits
        out = mem[:, width - cols * fd.container.itemsize:].view(fd.container)
    else:
        src, out = bits, np.empty((rows, cols), fd.container)
    out[...] = sentinel
    calls: list[tuple[int, int]] = []

    def before(lo: int, hi: int) -> None:
        assert (out[lo:hi] == sentinel).all(), "rows written before `before` saw them"
        calls.append((lo, hi))

    got = convert_into(src, resolve(s, d, "rint", False, "neuron"), out, before)
    assert got is out and np.array_equal(out, want)
    assert calls[0][0] == 0 and calls[-1][1] == rows
    assert all(a[1] == b[0] for a, b in pairwise(calls))  # in order, each row once
    # numpy-cast paths over one buffer go block by block (scratch); disjoint arrays: one cast
    assert (len(calls) > 1) == (one_buffer and d not in ("int8", "fp8_e5m2"))


def _neuron_pairs() -> list[tuple[str, str]]:
    return [(s, d) for s in FORMATS if not FORMATS[s].output_only for d in FORMATS
            if kernels._cast_dtypes(resolve(s, d, "rint", False, "neuron")) is not None]


@pytest.mark.parametrize(("s", "d"), _neuron_pairs())
def test_one_numpy_cast_equals_the_fp32_hub_path(s: str, d: str) -> None:
    """The fast path (one cast) against the hub path it replaces, bit for bit: bare, and
    into a strided view of a buffer it shares with the input."""
    opt = resolve(s, d, "rint", False, "neuron")
    rng = np.random.default_rng(3)
    b = _bits(s, (4, 300), rng)
    with np.errstate(over="ignore", invalid="ignore"):
        slow = kernels._neuron_hub(b, opt)
    assert np.array_equal(convert(b, s, d, "rint", False, "neuron"), slow), (s, d)
    fs, fd = FORMATS[s].container, FORMATS[d].container
    mem = np.zeros((4, 300 * (fs.itemsize + fd.itemsize)), np.uint8)
    src = mem[:, :300 * fs.itemsize].view(fs)
    src[...] = b
    out = mem[:, 300 * fs.itemsize:].view(fd)
    convert(src, s, d, "rint", False, "neuron", out=out)
    assert np.array_equal(out, slow), (s, d)


# 16 partitions x 2048 bf16 = 64 KiB of destination, in 4-row blocks (scratch 16 KiB)
P, N = 16, 2048
DST = 4 * N
CAST = (f"CAST in_dtype=FP32 out_dtype=BF16 nac={P} src=sb[0, 0] step=[1,0,0,0] "
        f"num=[{N},1,1,1] dst=sb[0, {DST:#x}] step=[1,0,0,0] num=[{N},1,1,1]\nHALT")


def _cast_machine(monkeypatch: pytest.MonkeyPatch, alias: bool = True):
    """alias: even this small a cast moves memory into a memfd and writes through its
    second mapping (MachineState.write_alias); else SBUF is replaced by a copy, so the
    cast goes block by block through a scratch block."""
    monkeypatch.setattr(kernels, "SCRATCH_BYTES", 4 * 2 * N)
    monkeypatch.setattr(tensor, "MOVE_MIN_BYTES", 0)
    m = machine(CAST, partitions=P, sbuf_bytes=DST + 2 * N)
    if not alias:
        m.state.sbuf = m.state.sbuf.copy()
    put(m, slice(0, P), 0, np.random.default_rng(9).standard_normal((P, N)).astype(np.float32))
    return m


@pytest.mark.parametrize("alias", [True, False])
@pytest.mark.parametrize("poke", [None, (0, 0), (5, 77), (9, 0), (P - 1, 2 * N - 1)])
def test_cast_step_journals_exactly_what_was_there(poke, alias, monkeypatch) -> None:
    """All zero: a shared zero block, no copy. A non-zero byte in the first, a middle or
    the last block: the real old bytes. Either way the same journal size, exact undo."""
    m = _cast_machine(monkeypatch, alias)
    assert P * 2 * N >= ZERO_MIN_BYTES
    if poke is not None:
        m.state.sbuf[poke[0], DST + poke[1]] = 0xA7
    before, old = m.state.digest(), m.state.sbuf[:, DST:].copy()
    want = convert(m.state.sbuf[:, :4 * N].view(np.uint32), "fp32", "bf16", "rint", False,
                   "neuron")
    rec = m.step()
    assert rec.executed and rec.lanes is not None and rec.lanes.dest is not None  # direct path
    assert np.array_equal(m.state.sbuf[:, DST:].view(np.uint16), want)
    (w,) = [w for w in rec.writes if w.target == "sbuf"]
    kept = m.state.journal.others[-1].old
    assert kept is w.old and np.array_equal(w.old, old)
    assert (w.old.strides == (0, 0)) == (poke is None)
    # the step word and one block with its objects
    assert m.state.journal.nbytes == 8 + P * 2 * N + MEM_UNDO_BYTES
    m.state.undo_step()
    assert m.state.digest() == before


@pytest.mark.parametrize("first_non_zero_row", [None, 0, 6, 13])
def test_undo_is_exact_when_the_write_stops_between_blocks(first_non_zero_row,
                                                           monkeypatch) -> None:
    """A step interrupted after two of its four blocks were written (here: an error in
    the journal's hook, which the step turns into a fault and undoes). Blocks are the
    scratch path's: memory without its second mapping."""
    m = _cast_machine(monkeypatch, alias=False)
    if first_non_zero_row is not None:
        m.state.sbuf[first_non_zero_row:, DST:] = 0x3C
    before = m.state.digest()
    calls = []
    hook = state_mod.OldBytes.__call__

    def interrupted(self, lo: int, hi: int) -> None:
        calls.append(lo)
        if len(calls) == 3:
            raise RuntimeError("interrupted")
        hook(self, lo, hi)

    monkeypatch.setattr(state_mod.OldBytes, "__call__", interrupted)
    rec = m.step()
    # Rows 0..7 written, then the stop. While the rows passed were all zero, `settle`
    # has rows 8.. checked (a non-zero one among them is copied) before the undo.
    zero_so_far = first_non_zero_row is None or first_non_zero_row >= 8
    assert calls == [0, 4, 8] + [8] * zero_so_far
    assert rec.fault is not None and "interrupted" in rec.fault
    assert m.state.digest() == before and m.state.steps == 0


def test_zeros_is_one_read_only_byte_of_any_shape() -> None:
    z = zeros((128, 8192))
    assert z.shape == (128, 8192) and z.strides == (0, 0) and not z.flags.writeable
    assert z.nbytes == 128 * 8192 and not z.any()
    with pytest.raises(ValueError, match="read-only"):
        z[0, 0] = 1
