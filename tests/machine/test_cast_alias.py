"""SBUF/PSUM moved into one memfd mapped twice at the first disjoint bulk CAST,
which then writes through the second mapping (MachineState.write_alias, machine.memfd).
Plain memory (no memfd, or the system refusing one) is a real path: both must give the
same bits, records, journal and undo."""

from __future__ import annotations

import copy
import gc
import os
import pickle
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neurondbg.machine.engines.tensor as tensor
import neurondbg.machine.memfd as memfd
from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import Dtype
from neurondbg.machine.memfd import PAGE, alias_memory
from neurondbg.machine.state import MachineConfig, MachineState, Region
from tests.core.conftest import core
from tests.machine.helpers import machine

linux = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="memfd is Linux only")

P, SB, PS = 16, 8192, 8192  # destinations of 1 KiB+ per partition reach OldBytes' zero check
# (in, out, element bytes in, out): pairs cast_into converts straight into memory
PAIRS = [("FP32", "BF16", 4, 2), ("FP32", "FP16", 4, 2), ("BF16", "FP32", 2, 4),
         ("FP32", "FP8_EXP4", 4, 1), ("BF16", "FP8_EXP5", 2, 1), ("FP32", "INT8", 4, 1),
         ("FP32", "FP32", 4, 4), ("FP16", "BF16", 2, 2)]
SPACES = {"sb": SB, "psum": PS}


@contextmanager
def plain_memory() -> Iterator[None]:
    """States created inside have np.zeros memory, as where os.memfd_create is missing."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delattr(os, "memfd_create", raising=False)
        yield


def _program(pair: tuple[str, str, int, int], n: int, src: tuple[str, int, int],
             dst: tuple[str, int]) -> str:
    i, o, _, _ = pair
    (ss, so, step), (ds, do) = src, dst
    return (f"CAST in_dtype={i} out_dtype={o} nac={P} src={ss}[0, {so:#x}] "
            f"step=[{step},0,0,0] num=[{n},1,1,1] dst={ds}[0, {do:#x}] step=[1,0,0,0] "
            f"num=[{n},1,1,1]\nHALT")


def _machine(text: str, fill: np.ndarray) -> Machine:
    # dve reaches PSUM; execute_invalid: legality's layout rules are not what is tested
    m = machine(text, "dve", partitions=P, sbuf_bytes=SB, psum_bytes=PS, execute_invalid=True)
    m.state.sbuf[...] = fill[:, :SB]
    m.state.psum[...] = fill[:, SB:]
    return m


def _up4(n: int) -> int:
    return -(-n // 4) * 4


@st.composite
def casts(draw: st.DrawFn) -> tuple[str, np.ndarray]:
    """A CAST taking the direct path (disjoint, contiguous destination) and the memory
    it starts from (random bytes; the destination all zero or not)."""
    pair = draw(st.sampled_from(PAIRS))
    _, _, si, so = pair
    step = draw(st.sampled_from([1, 1, 2]))  # 2: a strided source (gathered)
    ss, ds = draw(st.sampled_from(list(SPACES))), draw(st.sampled_from(list(SPACES)))
    top = min(SB, PS) // (si * step + so) - 4
    n = draw(st.one_of(st.integers(1, 64), st.integers(top // 2, top)))
    src_len, dst_len = _up4(si * (step * (n - 1) + 1)), _up4(so * n)
    src_first = draw(st.booleans())
    first = src_len if src_first else dst_len
    room = (SPACES[ss] - src_len - dst_len) // 4 if ss == ds else 0
    gap0 = 4 * draw(st.integers(0, room))
    gap1 = 4 * draw(st.integers(0, room - gap0 // 4))
    o1, o2 = gap0, gap0 + first + gap1
    s0, d0 = (o1, o2) if src_first else (o2, o1)
    if ss != ds:  # each anywhere in its own space
        s0 = 4 * draw(st.integers(0, (SPACES[ss] - src_len) // 4))
        d0 = 4 * draw(st.integers(0, (SPACES[ds] - dst_len) // 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    fill = rng.integers(0, 256, (P, SB + PS), dtype=np.uint8)
    if draw(st.booleans()):  # untouched (zero) destination memory
        at = (0 if ds == "sb" else SB) + d0
        fill[:, at:at + so * n] = 0
    return _program(pair, n, (ss, s0, step), (ds, d0)), fill


def _writes(rec) -> list[tuple[dict, bytes, bytes]]:
    return [(w.to_dict(), np.asarray(w.old).tobytes(), np.asarray(w.new).tobytes())
            for w in rec.writes]


@pytest.fixture(autouse=True)
def _small_casts_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """These casts are small (cheap tests): let them move memory as a large one does."""
    monkeypatch.setattr(tensor, "MOVE_MIN_BYTES", 0)


@linux
@settings(deadline=None, max_examples=30,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the same patch
@given(casts())
def test_the_alias_path_and_plain_memory_give_the_same_bits(case) -> None:
    text, fill = case
    a = _machine(text, fill)
    with plain_memory():
        b = _machine(text, fill)
    start = a.state.digest()
    assert b.state.digest() == start and a.state._alias is None  # moved at the first cast
    for _ in range(2):  # the step that moves memory, then one that finds it moved
        ra, rb = a.step(), b.step()
        assert ra.executed and rb.executed, (ra.fault, rb.fault)
        assert a.state._alias is not None and b.state._alias is None
        assert ra.lanes is not None and ra.lanes.dest is not None  # the direct path
        assert rb.lanes is not None and rb.lanes.dest is not None
        assert a.state.digest() == b.state.digest()
        assert _writes(ra) == _writes(rb)
        assert np.array_equal(ra.lanes.out_bits, rb.lanes.out_bits)
        assert np.array_equal(ra.lanes.in_bits, rb.lanes.in_bits)
        assert a.state.journal.nbytes == b.state.journal.nbytes
        assert np.asarray(a.state.journal.others[-1].old).tobytes() == \
            np.asarray(b.state.journal.others[-1].old).tobytes()
        a.state.undo_step()
        b.state.undo_step()
        assert a.state.digest() == b.state.digest() == start
        assert _writes(ra) == _writes(rb)  # the records stay what the step wrote


CAST = _program(PAIRS[0], 1024, ("sb", 0, 1), ("sb", 0x1000))
ONES = np.full((P, 1024), 1.0, np.float32).view(np.uint8)  # bf16 0x3F80


def _dst() -> Region:
    return Region("sbuf", 0, P, 0x1000, 2, (1, 0, 0, 0), (1024, 1, 1, 1))


def _cast_machine() -> Machine:
    m = machine(CAST, partitions=P, sbuf_bytes=SB, psum_bytes=PS)
    m.state.sbuf[:, :0x1000] = ONES
    return m


@linux
def test_the_cast_writes_through_the_second_mapping(monkeypatch) -> None:
    m = machine(CAST, partitions=P, sbuf_bytes=SB, psum_bytes=PS)
    vals = (np.arange(P * 1024) % 256).astype(np.float32).reshape(P, -1)  # exact in bf16
    m.state.sbuf[:, :0x1000] = vals.view(np.uint8)
    m.state.psum[3, 5] = 9
    plain = m.state.sbuf
    targets = []
    real = tensor.cast_rows  # fp32 -> bf16 is one numpy cast, decided with the CAST's plan

    def spy(bits, out, cast, before):
        targets.append(out)
        return real(bits, out, cast, before)

    monkeypatch.setattr(tensor, "cast_rows", spy)
    rec = m.step()
    (out,) = targets
    assert m.state.sbuf is not plain and m.state.psum[3, 5] == 9  # moved, bytes and all
    assert not np.may_share_memory(out, m.state.sbuf)  # other addresses, the same bytes:
    assert np.array_equal(out, rec.lanes.out_bits)
    assert np.array_equal(m.state.sbuf[:, 0x1000:0x1800].view(np.uint16),
                          vals.view(np.uint32) >> 16)
    assert np.array_equal(m.state.sbuf[:, :0x1000], plain[:, :0x1000])
    alias = m.state.write_alias(_dst())
    alias[3, 5] = 0xEE
    assert m.state.sbuf[3, 0x1005] == 0xEE


@linux
def test_only_a_large_cast_moves_memory(monkeypatch) -> None:
    monkeypatch.undo()  # the default MOVE_MIN_BYTES
    m = _cast_machine()  # 16 x 2 KiB of bf16
    plain = m.state.sbuf
    assert P * 2048 < tensor.MOVE_MIN_BYTES
    assert m.step().executed and m.state.sbuf is plain and m.state._alias is None
    big = tensor.MOVE_MIN_BYTES // (2 * 8)  # bf16 elements in each of 8 partitions
    text = (f"CAST in_dtype=FP32 out_dtype=BF16 nac=8 src=sb[0, 0] step=[1,0,0,0] "
            f"num=[{big},1,1,1] dst=sb[0, {4 * big:#x}] step=[1,0,0,0] num=[{big},1,1,1]")
    m = machine(text, partitions=8, sbuf_bytes=6 * big, psum_bytes=PS, execute_invalid=True)
    plain = m.state.sbuf
    plain[:, :4 * big] = np.full((8, big), 0.5, np.float32).view(np.uint8)
    rec = m.step()
    assert rec.executed and rec.lanes.dest is not None, rec.fault
    assert m.state.sbuf is not plain and m.state._alias is not None
    assert (m.state.sbuf[:, 4 * big:].view(np.uint16) == 0x3F00).all()


@linux
def test_memory_moves_once_and_only_while_it_is_the_array_create_made() -> None:
    m = _cast_machine()
    st_ = m.state
    st_.sbuf = st_.sbuf.copy()  # code and tests may give the state another array
    assert st_.write_alias(_dst()) is None and st_._movable is None  # never moved now
    mine = st_.sbuf
    assert m.step().executed  # the scratch path, into the array the state has
    assert st_.sbuf is mine and (mine[:, 0x1000:0x1800].view(np.uint16) == 0x3F80).all()
    m2 = _cast_machine()
    assert m2.state.write_alias(_dst()) is not None  # moved
    m2.state.sbuf = m2.state.sbuf.copy()
    assert m2.state.write_alias(_dst()) is None  # the alias belongs to the old array


@linux
def test_views_of_memory_taken_before_the_move_stay_what_they_showed() -> None:
    """A CAST into a strided destination (no direct path) leaves lanes viewing its source
    in memory; the next, direct CAST moves memory: the lanes copy first, and undo
    restores the moved memory."""
    text = (f"CAST in_dtype=FP32 out_dtype=BF16 nac={P} src=sb[0, 0] step=[1,0,0,0] "
            "num=[256,1,1,1] dst=sb[0, 0x1800] step=[2,0,0,0] num=[256,1,1,1]\n" + CAST)
    m = machine(text, partitions=P, sbuf_bytes=SB, psum_bytes=PS)
    m.state.sbuf[:, :0x1000] = ONES
    start = m.state.digest()
    r1 = m.step()
    assert r1.lanes is not None and r1.lanes.source is not None  # a view of memory
    seen = r1.lanes.in_bits.copy()
    r2 = m.step()
    assert m.state._alias is not None and r2.lanes.dest is not None
    assert r1.lanes.source is None and np.array_equal(r1.lanes.in_bits, seen)  # copied
    m.state.undo_step()
    m.state.undo_step()
    assert m.state.digest() == start


@linux
@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_copied_state_casts_into_its_own_memory(how: str) -> None:
    """Without dropping the alias, an unpickled state's cast would write a copy of the
    second mapping, not the memory the state reads (its SBUF would keep the old bytes)."""
    m = _cast_machine()
    m.step()
    m.state.undo_step()  # memory has moved: the state holds its alias
    m.state.release_views()  # weak references to the lanes do not pickle (nor did they)
    st_ = {"pickle": lambda s: pickle.loads(pickle.dumps(s)), "deepcopy": copy.deepcopy,
           "copy": copy.copy}[how](m.state)
    assert st_._alias is None and st_._movable is None and m.state._alias is not None
    if how == "copy":
        st_.sbuf = st_.sbuf.copy()  # a shallow copy shares the array: give it its own
    tensor.cast_into(st_, Region("sbuf", 0, P, 0, 4, (1, 0, 0, 0), (1024, 1, 1, 1)), _dst(),
                     Dtype.FP32, Dtype.BF16)
    assert (st_.sbuf[:, 0x1000:0x1800].view(np.uint16) == 0x3F80).all()
    assert not m.state.sbuf[:, 0x1000:0x1800].any()  # the original is untouched


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@linux
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_moved_memory_holds_two_file_descriptors_freed_with_it() -> None:
    gc.collect()
    before = _fds()
    s = MachineState.create(MachineConfig(partitions=P, sbuf_bytes=SB, psum_bytes=PS))
    peers = [MachineState.create(MachineConfig(engine=e, partitions=P, sbuf_bytes=SB,
                                               psum_bytes=PS), shared=s) for e in ("act", "dve")]
    assert _fds() == before  # plain memory until a cast moves it
    assert peers[1].write_alias(_dst()) is not None
    assert _fds() == before + 2  # one dup per mapping; the memfd itself is closed
    assert all(p._alias is s._alias and p.sbuf is s.sbuf for p in peers)  # moved for all
    del s, peers
    gc.collect()  # the peers dict is a cycle
    assert _fds() == before


@linux
def test_engines_of_a_core_share_the_moved_memory() -> None:
    text = _program(PAIRS[0], 256, ("sb", 0, 1), ("sb", 0x800))
    c = core(pool=text, act="HALT")
    act, pool = c.machines["act"].state, c.machines["pool"].state
    pool.sbuf[:P, :0x400] = np.full((P, 256), -3.0, np.float32).view(np.uint8)
    rec = c.machines["pool"].step()
    assert rec.executed and rec.lanes.dest is not None, rec.fault
    assert act._alias is pool._alias is not None and act.sbuf is pool.sbuf
    assert (act.sbuf[:P, 0x800:0xA00].view(np.uint16) == 0xC040).all()


@pytest.mark.parametrize("refusal", ["missing", "EMFILE", "mmap"])
def test_without_memfd_memory_stays_plain_and_casts_still_work(refusal, monkeypatch) -> None:
    if refusal == "missing":
        monkeypatch.delattr(os, "memfd_create", raising=False)
    elif refusal == "EMFILE":
        def emfile(*_a: object) -> int:
            raise OSError(24, "Too many open files")
        monkeypatch.setattr(os, "memfd_create", emfile, raising=False)
    else:
        if not hasattr(os, "memfd_create"):
            pytest.skip("memfd is Linux only")

        def no_map(*_a: object) -> None:
            raise OSError(12, "Cannot allocate memory")
        monkeypatch.setattr(memfd.mmap, "mmap", no_map)
    before = _fds() if os.path.isdir("/proc/self/fd") else None
    assert alias_memory(np.zeros((P, SB), np.uint8), np.zeros((P, PS), np.uint8)) is None
    assert before is None or _fds() == before  # a refused memfd is closed, not leaked
    m = _cast_machine()
    plain = m.state.sbuf
    assert m.state.write_alias(_dst()) is None and m.state._movable is None  # asked once
    rec = m.step()
    assert rec.executed and rec.lanes.dest is not None and m.state.sbuf is plain
    assert (plain[:, 0x1000:0x1800].view(np.uint16) == 0x3F80).all()


@linux
def test_moved_memory_has_the_same_bytes_and_psum_pages_of_its_own() -> None:
    rng = np.random.default_rng(4)
    sbuf = np.zeros((3, 3000), np.uint8)  # 9000 bytes: pages and a tail
    psum = np.zeros((3, 100), np.uint8)
    sbuf[0, 5], sbuf[2, 2999], sbuf[1, PAGE - 3000 + 1] = 1, 2, 3  # first, tail, 2nd page
    psum[...] = rng.integers(0, 256, psum.shape, dtype=np.uint8)
    a = alias_memory(sbuf, psum)
    assert a is not None and np.array_equal(a.sbuf, sbuf) and np.array_equal(a.psum, psum)
    assert np.array_equal(a.sbuf_alias, sbuf) and np.array_equal(a.psum_alias, psum)
    assert a.sbuf.flags.writeable and a.sbuf.flags.c_contiguous and a.psum.flags.c_contiguous
    a.sbuf[...] = 0xAB
    assert np.array_equal(a.psum, psum) and (a.sbuf_alias == 0xAB).all()
    a.psum_alias[2, 99] = 7
    assert a.psum[2, 99] == 7
