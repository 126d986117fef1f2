"""State + journal: every write undoes exactly; who-wrote; digest; geometry."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.journal import MEM_UNDO_BYTES
from neurondbg.machine.state import MachineConfig, MachineState, Region

SMALL = MachineConfig(partitions=8, sbuf_bytes=256, psum_bytes=64)


def test_geometry_per_generation() -> None:
    for gen, sb in ((Gen.SUNDA, 192 * 1024), (Gen.CAYMAN, 224 * 1024), (Gen.MARIANA, 256 * 1024)):
        c = MachineConfig(gen=gen).resolved()
        assert (c.partitions, c.sbuf_bytes, c.psum_bytes) == (128, sb, 16 * 1024)
    assert MachineConfig(gen=Gen.CAYMAN).resolved().fp8_exp4 == "fp8_e4m3"
    assert MachineConfig(gen=Gen.MARIANA).resolved().fp8_exp4 == "fp8_e4m3fn"
    assert MachineConfig(gen=Gen.MARIANA, fp8_exp4="fp8_e4m3").resolved().fp8_exp4 == "fp8_e4m3"


def test_pc_halves_and_ignored_writes() -> None:
    s = MachineState.create(MachineConfig(partitions=1, sbuf_bytes=8, psum_bytes=8,
                                          base=0x1_2345_6780))
    assert s.read_reg(128) == 0x2345_6780 and s.read_reg(129) == 1
    s.begin_step()
    s.write_reg(128, 5)
    s.write_reg(3, -1)
    s.end_step()
    assert s.pc == 0x1_2345_6780 and s.R[3] == 0xFFFFFFFF


def test_region_offsets_dim0_fastest() -> None:
    r = Region("sbuf", 0, 1, 4, 2, (1, 8, 0, 0), (2, 3, 1, 1))
    assert r.elem_offsets.tolist() == [4, 6, 20, 22, 36, 38]
    assert not r.contiguous
    assert r.byte_index.tolist()[:4] == [4, 5, 6, 7]
    c = Region("sbuf", 0, 1, 8, 4, (1, 4, 0, 0), (4, 2, 1, 1))
    assert c.contiguous and c.byte_index == slice(8, 40)
    assert c.covers(0, 39) and not c.covers(0, 40) and not c.covers(1, 8)


def test_reverse_is_exact_and_who_wrote() -> None:
    s = MachineState.create(SMALL)
    s.pc = 0x40
    d0 = s.digest()
    r = Region("sbuf", 2, 5, 16, 4, (2, 0, 0, 0), (4, 1, 1, 1))
    s.begin_step()
    s.write_reg(5, 7)
    s.write_block(r, np.full((3, 16), 0xAB, np.uint8))
    s.write_scalar("sem", 3, 9)
    s.write_array("acc", slice(0, 8), np.ones(8, np.float32))
    s.set_pc(0x80)
    s.end_step()
    assert s.sbuf[3, 16] == 0xAB and s.sbuf[3, 20] == 0 and s.sbuf[3, 24] == 0xAB
    assert s.who_wrote("R5") == (0, 0x40)
    assert s.who_wrote("sbuf", 3, 27) == (0, 0x40)
    assert s.who_wrote("sbuf", 3, 20) is None
    assert s.who_wrote("sem[3]") == (0, 0x40) and s.who_wrote("acc", 7) == (0, 0x40)
    assert s.who_wrote("R6") is None
    assert s.undo_step() == 0x40
    assert s.digest() == d0 and s.steps == 0


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 63), st.integers(0, 2**32 - 1),
                          st.integers(0, 7), st.integers(0, 200), st.integers(0, 255)),
                min_size=1, max_size=30))
def test_random_writes_undo_to_every_earlier_digest(ops) -> None:
    s = MachineState.create(SMALL)
    digests = [s.digest()]
    for reg, val, p, off, byte in ops:
        s.begin_step()
        s.write_reg(reg, val)
        s.write_block(Region("sbuf", p, min(p + 2, 8), off, 1, (3, 0, 0, 0), (5, 1, 1, 1)),
                      np.full((min(p + 2, 8) - p, 5), byte, np.uint8))
        s.set_pc(s.pc + 64)
        s.end_step()
        digests.append(s.digest())
    while s.steps:
        digests.pop()
        s.undo_step()
        assert s.digest() == digests[-1]


def test_journal_bytes_proportional_to_writes() -> None:
    s = MachineState.create(MachineConfig(partitions=128, sbuf_bytes=64 * 1024, psum_bytes=64))
    r = Region("sbuf", 0, 128, 0, 4, (1, 0, 0, 0), (4096, 1, 1, 1))
    s.begin_step()
    s.write_block(r, np.ones((128, 4 * 4096), np.uint8))
    s.end_step()
    assert 128 * 4 * 4096 <= s.journal.nbytes <= 128 * 4 * 4096 + MEM_UNDO_BYTES + 256


def test_journal_keeps_bare_descriptors_not_index_arrays() -> None:
    s = MachineState.create(SMALL)
    # strided, elements overlapping (step 0): written through an index array
    r = Region("sbuf", 0, 8, 0, 2, (3, 0, 0, 0), (40, 2, 1, 1))
    s.begin_step()
    s.write_block(r, np.ones((8, 160), np.uint8))
    s.end_step()
    kept = s.journal.others[-1].key
    assert kept == r and "byte_index" not in vars(kept) and "byte_index" in vars(r)
    s.undo_step()
    assert not s.sbuf.any()
