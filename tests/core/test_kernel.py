"""machine.core.kernel: `.engine` assembly files and plain programs as kernels."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.asm import AsmError, assemble, save_data
from neurondbg.machine.asm.data import data_path
from neurondbg.machine.asm.sections import has_sections
from neurondbg.machine.core.kernel import (
    ENGINE_ORDER,
    Kernel,
    KernelError,
    is_kernel_source,
    load_kernel,
)
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.isa.opcodes import OPCODES, QUEUE_ENGINES

DATA = Path(__file__).parent / "data"
TWO = DATA / "two_engines.asm"


def _write(tmp_path: Path, text: str, name: str = "k.asm") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_engine_order_is_the_isa_queue_engines() -> None:
    assert ENGINE_ORDER == QUEUE_ENGINES == ("pool", "dve", "act", "pe", "sp")


def test_sections_load_in_engine_order_with_their_own_labels() -> None:
    k = load_kernel(TWO)
    assert isinstance(k, Kernel)
    assert k.engines == ("pool", "dve")
    assert k.path == TWO
    pool, dve = k.queue("pool"), k.queue("dve")
    assert pool.path == dve.path == TWO
    assert pool.program.labels == {"loop": 0}
    assert dve.program.labels == {"loop": 64}  # per section: after DVE's NOP
    assert len(pool.program.program) == 3 and len(dve.program.program) == 4


def test_a_section_assembles_to_the_bytes_of_the_same_lines_alone() -> None:
    k = load_kernel(TWO)
    for engine, alone in (("pool", "pool_part.asm"), ("dve", "dve_part.asm")):
        want = assemble((DATA / alone).read_text(), alone).records
        q = k.queue(engine)
        assert q.program.program.tobytes() == want
        assert q.digest == hashlib.sha256(want).hexdigest()


def test_records_keep_the_line_numbers_of_the_whole_file() -> None:
    k = load_kernel(TWO)
    assert k.queue("dve").program.lines == [6, 8, 9, 10]
    assert k.queue("pool").program.lines == [15, 16, 17]
    assert k.queue("pool").program.where(1) == f"{TWO}:16:5"
    assert k.queue("dve").program.where(0) == f"{TWO}:6:5"


def test_data_directives_anywhere_are_the_kernels_in_line_order() -> None:
    k = load_kernel(TWO)
    assert [d.line for d in k.data] == [3, 13]
    assert k.data[0].data[0].view(np.float32).tolist() == [1.0, 2.0]
    assert k.data[1].data[0].view(np.int32).tolist() == [7]
    assert [d.line for d in k.queue("pool").program.data] == [13]  # the section's own
    assert k.queue("dve").program.data == []
    assert dict(k.machine) == {}


def test_gen_explicit_wins_else_the_gen_line(tmp_path: Path) -> None:
    src = TWO.read_text().replace(".gen cayman", ".gen mariana")
    f = _write(tmp_path, src)
    assert load_kernel(f).gen == Gen.MARIANA
    assert load_kernel(f, Gen.SUNDA).gen == Gen.SUNDA
    f2 = _write(tmp_path, src.replace(".gen mariana", ""), "nogen.asm")
    assert load_kernel(f2).gen == DEFAULT_GEN
    assert load_kernel(f2, Gen.MAVERICK).gen == Gen.MAVERICK


def test_a_gen_line_still_decides_the_addresses_of_its_file(tmp_path: Path) -> None:
    src = ".gen {g}\n.engine pool\n COPY in_dtype=FP32 out_dtype=FP32 src=sb[1, 0] dst=sb[2, 0]\n"
    for g in ("cayman", "maverick"):
        k = load_kernel(_write(tmp_path, src.format(g=g)), Gen.MARIANA)
        want = assemble(src.format(g=g).replace(".engine pool\n", ""), "x").records
        assert k.queue("pool").program.program.tobytes() == want
    assert (load_kernel(_write(tmp_path, src.format(g="cayman"))).queue("pool").digest
            != load_kernel(_write(tmp_path, src.format(g="maverick"))).queue("pool").digest)


def test_a_section_may_be_empty(tmp_path: Path) -> None:
    k = load_kernel(_write(tmp_path, ".engine pool\n HALT\n.engine sp\n# nothing yet\n"))
    assert k.engines == ("pool", "sp")
    assert len(k.queue("sp").program.program) == 0
    assert k.queue("sp").digest == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("text, where, words", [
    ("NOP\n.engine pool\nHALT\n", "1:1", "instruction before the first .engine"),
    ("# c\n  .raw 0x" + "00" * 64 + "\n.engine pool\n", "2:3", "before the first .engine"),
    ("top:\n.engine pool\nHALT\n", "1:1", "label 'top' before the first .engine"),
    (".engine pool\nHALT\n.engine dve\nHALT\n.engine pool\n", "5:9",
     "engine 'pool' has a section already (line 1)"),
    (".engine gpsimd\n", "1:9", "unknown engine 'gpsimd'; expected one of pool, dve"),
    (".engine\n", "1:1", "expected: .engine NAME"),
    (".engine pool dve\n", "1:14", "expected: .engine NAME"),
    (".engine pool\n.gen sunda\n", "2:1", ".gen inside an .engine section"),
    ("x: .engine pool\n", "1:1", "a label cannot stand on an .engine line"),
    (".engine pool\nHALT\n.engine dve\nCOMPARE_BRANCH cmp_op=GT_IMM target=loop\n"
     ".engine act\nloop: HALT\n", "4:37", "expected a label"),
])
def test_bad_sections_are_one_line_errors_at_their_position(
        tmp_path: Path, text: str, where: str, words: str) -> None:
    f = _write(tmp_path, text)
    with pytest.raises(AsmError) as e:
        load_kernel(f)
    assert e.value.one_line.startswith(f"{f}:{where}")
    assert words in e.value.one_line
    assert "\n" not in e.value.one_line


def test_one_program_reader_refuses_engine_sections(tmp_path: Path) -> None:
    with pytest.raises(AsmError) as e:
        assemble(".engine pool\nHALT\n", "k.asm")
    assert e.value.one_line.startswith("k.asm:1:1: .engine starts an engine's section")


def test_a_plain_program_is_a_one_queue_kernel(tmp_path: Path) -> None:
    asm = assemble((DATA / "pool_part.asm").read_text() + ".data sb[0, 0] int8 1 2\n", "p")
    binary = tmp_path / "p.bin"
    binary.write_bytes(asm.records)
    save_data(data_path(binary), asm.data)
    k = load_kernel(binary, engine="dve")
    assert k.engines == ("dve",) and k.gen == DEFAULT_GEN and k.path == binary
    q = k.queue("dve")
    assert q.program.program.tobytes() == asm.records and q.program.lines is None
    assert q.digest == hashlib.sha256(asm.records).hexdigest()
    assert [d.data.tolist() for d in k.data] == [[[1, 2]]]
    k2 = load_kernel(DATA / "pool_part.asm", Gen.SUNDA)
    assert k2.engines == ("pool",) and k2.gen == Gen.SUNDA
    assert k2.queue("pool").program.where(0) == f"{DATA / 'pool_part.asm'}:2:5"


def test_a_bad_engine_name_for_a_plain_program() -> None:
    with pytest.raises(KernelError, match="unknown engine 'seq'"):
        load_kernel(DATA / "pool_part.asm", engine="seq")


def test_queue_of_a_missing_engine_names_the_kernels_engines() -> None:
    with pytest.raises(KeyError, match="no 'act' queue; its engines: pool, dve"):
        load_kernel(TWO).queue("act")


def test_is_kernel_source(tmp_path: Path) -> None:
    assert is_kernel_source(TWO)
    assert not is_kernel_source(DATA / "pool_part.asm")
    assert not is_kernel_source(tmp_path / "missing.asm")
    assert not is_kernel_source(tmp_path)  # a directory: the loader says why
    assert not is_kernel_source(_write(tmp_path, "# .engine pool\nHALT\n", "c.asm"))
    assert is_kernel_source(_write(tmp_path, "\t.ENGINE dve\n", "u.asm"))
    assert is_kernel_source(_write(tmp_path, "HALT\r  .engine dve\r", "r.asm"))
    b = tmp_path / "p.bin"
    b.write_bytes(assemble("HALT\n").records)
    assert not is_kernel_source(b)


def test_has_sections_reads_bytes_or_text() -> None:
    assert has_sections(".engine pool\n") and has_sections(b"x\n .engine pool")
    assert not has_sections(".engines\n") and not has_sections("  x .engine pool\n")


def test_a_plain_assembly_programs_gen_line_is_the_kernels_unless_one_is_given(
        tmp_path: Path) -> None:
    f = _write(tmp_path, ".gen sunda\nHALT\n", "p.asm")
    assert load_kernel(f).gen == Gen.SUNDA
    assert load_kernel(f, Gen.MARIANA).gen == Gen.MARIANA
    assert load_kernel(f).queue("pool").program.gen == Gen.SUNDA


@settings(deadline=None, max_examples=40)
@given(st.lists(st.sampled_from(ENGINE_ORDER), min_size=1, max_size=5, unique=True),
       st.lists(st.tuples(st.sampled_from(sorted(OPCODES)), st.binary(min_size=63,
                                                                       max_size=63)),
                min_size=0, max_size=6),
       st.sampled_from(list(Gen)))
def test_the_engine_form_of_any_kernel_reassembles_to_its_streams(
        engines: list[str], recs: list[tuple[int, bytes]], gen: Gen) -> None:
    """disassemble_kernel -> assemble_sections gives every engine's records back."""
    from neurondbg.machine.asm.loader import ProgramFile
    from neurondbg.machine.asm.sections import assemble_sections
    from neurondbg.machine.core.kernel import disassemble_kernel, make_kernel, make_queue
    from neurondbg.machine.isa.codec import decode_bytes

    queues = []
    for k, e in enumerate(engines):
        data = b"".join(bytes([c]) + r for c, r in recs[k:])  # a different stream each
        path = Path(f"{e}.bin")
        queues.append(make_queue(e, ProgramFile(path, decode_bytes(data), []), path))
    kernel = make_kernel(gen, queues, [], {}, Path("k.toml"))
    back = assemble_sections(disassemble_kernel(kernel), "back.asm")
    assert back.gen == gen
    assert {s.engine: s.assembly.records for s in back.sections} == {
        q.engine: q.program.program.tobytes() for q in kernel.queues}
