"""`validate`'s fast paths: each fast path equals a plain statement of its rule.

The lazy ADDR4 columns against machine.isa.addr's decode, the pairwise ctrl_mv register
checks against a per-record Python reading of the rule, block-by-block summaries against
the whole-array summary, and the memory-mapped blocks of `validate --summary` against the
file's bytes.
"""

from __future__ import annotations

import mmap

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.commands import validate as validate_cmd
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa import addr as isa_addr
from neurondbg.machine.isa.enums import DataSrc
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.legality.wire import bulk
from neurondbg.machine.legality.wire.clause import Ctx, Rows
from neurondbg.machine.legality.wire.ctrl import _dst_not_in_src, _unique_dst
from neurondbg.machine.legality.wire.operands import OFF_CHIP, PSUM, SBUF, decode_words
from neurondbg.machine.legality.wire.registry import BY_NAME

WORDS = st.lists(st.one_of(st.integers(0, 2**32 - 1),  # any word, and words near the
                           st.integers(0, 0x2400000)),  # SBUF and PSUM ranges
                 min_size=1, max_size=64)


@settings(deadline=None, max_examples=80)
@given(WORDS, st.sampled_from(list(Gen)))
def test_addr_columns_equal_the_isa_decode(words: list[int], gen: Gen) -> None:
    w = np.array(words, dtype=np.uint32)
    ref = isa_addr.decode_addr4_array(w, gen)
    g = isa_addr.geometry(gen)
    mine = decode_words(w, gen)
    np.testing.assert_array_equal(mine.space, ref.space)
    np.testing.assert_array_equal(mine.partition, ref.partition)
    np.testing.assert_array_equal(mine.offset, ref.offset)
    np.testing.assert_array_equal(mine.plain, ~ref.is_register & ~ref.is_shape
                                  & ~ref.is_indirect)
    np.testing.assert_array_equal(mine.immediate, ~ref.is_register & ~ref.is_shape)
    active = np.where(ref.space == SBUF, g.sbuf_bytes, g.psum_bytes)
    np.testing.assert_array_equal(mine.backed, (ref.space != OFF_CHIP) & (ref.offset < active))


def test_addr_columns_cover_each_space() -> None:
    """Words in SBUF (backed and not), in PSUM and off-chip, on a generation with PSUM."""
    g = isa_addr.geometry(Gen.CAYMAN)
    words = [0, g.sbuf_bytes, g.sbuf_stride + 8, g.psum_base + g.psum_stride + 4,
             g.psum_base + g.psum_span, isa_addr.REGISTER_BIT | 3]
    a = decode_words(np.array(words, dtype=np.uint32), Gen.CAYMAN)
    assert a.space.tolist() == [SBUF, SBUF, SBUF, PSUM, OFF_CHIP, OFF_CHIP]
    assert a.partition.tolist() == [0, 0, 1, 1, -1, -1]
    assert a.offset.tolist() == [0, g.sbuf_bytes, 8, 4, -1, -1]
    assert a.backed.tolist() == [True, False, True, True, False, False]


def _mv_rows(num: list[int], src: list[list[int]], dst: list[list[int]],
             source: list[int]) -> Rows:
    rec = np.zeros(len(num), dtype=STRUCTS["CTRL_MV"].dtype)
    rec["num_mov"] = num
    rec["src_registers"] = src
    rec["dst_registers"] = dst
    rec["move_source"] = source
    return Rows(rec, Ctx(Gen.CAYMAN))


MV = st.tuples(st.integers(0, 12), st.lists(st.integers(0, 9), min_size=8, max_size=8),
               st.lists(st.integers(0, 9), min_size=8, max_size=8),
               st.sampled_from([int(DataSrc.REGISTER), 0, 1, 7]))


@settings(deadline=None, max_examples=60)
@given(st.lists(MV, min_size=1, max_size=40))
def test_ctrl_mv_register_lists_equal_the_rule(rows: list[tuple]) -> None:
    """Small register numbers make repeats and clashes common."""
    num, src, dst, source = (list(x) for x in zip(*rows, strict=True))
    r = _mv_rows(num, src, dst, source)
    unique, disjoint = _unique_dst(r), _dst_not_in_src(r)
    for k, (n, s, d, m) in enumerate(rows):
        used_d, used_s = d[:min(n, 8)], s[:min(n, 8)]
        assert unique[k] == (len(set(used_d)) == len(used_d))
        assert disjoint[k] == (m != DataSrc.REGISTER or not set(used_d) & set(used_s))


def test_ctrl_mv_clauses_are_the_registered_ones() -> None:
    """The functions tested above are the ones the predicate runs."""
    checks = {c.name: c.check for c in BY_NAME["is_valid_ctrl_mv"].clauses}
    assert checks["ctrl_mv_unique_dst_registers"] is _unique_dst
    assert checks["ctrl_mv_dst_not_in_src_registers"] is _dst_not_in_src


def _records(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, (n, 64), dtype=np.uint8)
    opcodes = sorted({code for p in BY_NAME.values() for code in p.opcodes})
    raw[:, 0] = rng.choice(opcodes, n)
    raw[n // 2:] = raw[:n - n // 2]  # repeats: a block may be deduplicated
    return raw


def test_summary_by_blocks_equals_the_whole_summary() -> None:
    raw = _records(3000, 1)
    whole = bulk.summarize_raw(raw, Gen.CAYMAN, "pool")
    for size in (1, 7, 1000, 2999, 5000):
        blocks = (raw[s:s + size] for s in range(0, len(raw), size))
        assert bulk.summarize_chunks(blocks, Gen.CAYMAN, "pool") == whole
    assert whole.count == 3000 and whole.invalid > 0
    empty = bulk.summarize_chunks(iter(()), Gen.SUNDA, None)
    assert (empty.count, empty.invalid, empty.failures) == (0, 0, {})


def test_summary_blocks_are_the_file(tmp_path) -> None:
    """Blocks smaller than the file (and not a multiple of the mapping granularity) give
    the file's records in order, each block a mapping of its own."""
    raw = _records(1000, 2)
    path = tmp_path / "p.bin"
    raw.tofile(path)
    records = mmap.ALLOCATIONGRANULARITY // 64 + 3  # rounded up to whole map units
    with open(path, "rb") as f:
        blocks = list(validate_cmd._blocks(f, path.stat().st_size, str(path), records))
    assert len(blocks) > 1
    assert [len(b) for b in blocks[:-1]] == [len(blocks[0])] * (len(blocks) - 1)
    np.testing.assert_array_equal(np.concatenate(blocks), raw)


_PROBE = """
import runpy, sys
sys.argv = ["neurondbg", "validate", sys.argv[1], "--summary"]
try:
    runpy.run_module("neurondbg", run_name="__main__")
except SystemExit:
    pass
print(" ".join(sorted(sys.modules)))
"""


def test_summary_imports_only_the_judging(tmp_path) -> None:
    """`validate --summary` of records loads neither the machine model, the listing form,
    the codec nor the explanation API (a 1M-record summary is mostly start-up)."""
    import subprocess
    import sys

    path = tmp_path / "p.bin"
    _records(10, 3).tofile(path)
    out = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    assert out[0].startswith("{") and '"count": 10' in out[0]  # it did judge the file
    loaded = set(out[-2].split())
    assert "neurondbg.machine.legality.wire.bulk" in loaded
    for name in (
        "neurondbg.machine.state",
        "neurondbg.machine.isa.listform",
        "neurondbg.machine.isa.codec",
        "neurondbg.machine.legality.wire.repair",
        "neurondbg.machine.core",
        "sessions",
        "neurondbg.machine.legality.explain",
        "neurondbg.machine.legality.result",
    ):
        assert name not in loaded, name


def test_summary_of_an_empty_program_builds_no_predicate_table(tmp_path) -> None:
    """With nothing to judge (`validate --summary` refuses an empty program), none of the
    clause modules is imported (machine.legality.wire.bulk loads them on the first
    records it judges)."""
    import subprocess
    import sys

    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    done = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True,
                          text=True, check=True)
    assert done.stderr.strip() == (f"neurondbg: error: {path}: empty program: 0 bytes; "
                                   "expected at least one 64-byte record")
    out = done.stdout.split("\n")
    loaded = set(out[-2].split())
    for name in (
        "neurondbg.machine.legality.wire.registry",
        "neurondbg.machine.legality.wire.clause",
        "neurondbg.machine.legality.wire.dve",
        "neurondbg.machine.isa.structs",
        "neurondbg.machine.isa.enums",
        "neurondbg.machine.isa.opcodes",
        "neurondbg.machine.isa.spec",  # the queues and record size
        "neurondbg.machine.legality.explain",
        "neurondbg.machine.legality.result",
        "dataclasses",
        "click.shell_completion",
    ):
        assert name not in loaded, name


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(0, 255), max_size=40), st.booleans(), st.booleans())
def test_lookup_equals_indexing(codes: list[int], constant: bool, long: bool) -> None:
    """Both paths of clause.lookup (a long constant column, any column) give table[col]."""
    import pytest

    from neurondbg.machine.legality.wire.clause import LOOKUP_RUN, lookup
    from neurondbg.machine.legality.wire.gates import align_mask_table, dtype_gate

    col = np.array(codes[:1] * len(codes) if constant else codes, dtype=np.uint8)
    if long and len(col):  # at least LOOKUP_RUN codes: the one-value test applies
        col = np.tile(col, -(-LOOKUP_RUN // len(col)))
    for table in (dtype_gate(Gen.CAYMAN, True, False), align_mask_table()):
        got = lookup(table, col)
        np.testing.assert_array_equal(got, table[col])
        assert got.dtype == table.dtype and got.shape == col.shape
    for beyond in ([5, 5], [1, 5]):  # a code beyond the table is refused on both paths
        for reps in (1, LOOKUP_RUN):
            with pytest.raises(IndexError):
                lookup(np.zeros(4, dtype=bool), np.array(beyond * reps, dtype=np.uint8))


def test_summary_blocks_of_a_shrunk_file_are_one_error(tmp_path) -> None:
    """A file shorter than its size when stat'ed (it shrank meanwhile) is a one-line
    InputError naming it, not a crash: the block that cannot be mapped is read, short."""
    import pytest

    from neurondbg.errors import InputError

    path = tmp_path / "p.bin"
    _records(10, 4).tofile(path)
    with open(path, "rb") as f, pytest.raises(InputError) as e:
        list(validate_cmd._blocks(f, 20 * 64, str(path), 1 << 20))
    assert str(e.value) == f"{path}: the file changed while it was read (expected 1280 bytes)"


def test_text_report_equals_one_explanation_per_record(monkeypatch, capsys) -> None:
    """`validate`'s text report explains a block's new records together (explain_many):
    every line is the one-record explanation's, across blocks and for repeated records,
    whether the program was deduplicated or not."""
    from neurondbg.machine.isa.opcodes import mnemonic
    from neurondbg.machine.legality.explain import explain, validate

    monkeypatch.setattr(validate_cmd, "TEXT_BLOCK", 7)
    for raw in (_records(60, 5), np.unique(_records(60, 5), axis=0)):
        result = validate(raw, Gen.CAYMAN, "pool")
        validate_cmd._text(result, raw)
        want = []
        for i in np.flatnonzero(~result.valid).tolist():
            v = explain(raw[i].tobytes(), Gen.CAYMAN, "pool")
            op = int(raw[i, 0])
            head = f"{mnemonic(op)} (0x{op:02X}): invalid [{v.predicate}]"
            body = "\n".join([head, *validate_cmd.failing_clause_lines(v)])
            want.append(f"#{i} @0x{i * 64:06x} {body}\n")
        want.append(f"{len(raw)} instructions, {result.invalid} invalid (cayman, engine pool)\n")
        assert capsys.readouterr().out == "".join(want)
        assert result.invalid > 10
