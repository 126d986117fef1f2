"""Hostile NEFFs are refused by one line naming the file and what is wrong, read in
memory only (nothing is written beside them)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.model import DmaQueue, Engine
from neurondbg.machine.neff.reader import open_neff
from neurondbg.machine.neff.triggers import resolve_triggers, trigger_record
from neurondbg.machine.neff.writer import neff_bytes
from tests.neff import hostile
from tests.neff.synth import QUEUE, stream, vector_add


def refusal(tmp_path: Path, data: bytes) -> str:
    path = hostile.write(tmp_path, "h.neff", data)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(NeffError) as e:
        sub = open_neff(path).subgraph()
        resolve_triggers(sub, str(path))
    assert sorted(os.listdir(tmp_path)) == before
    text = str(e.value)
    assert "\n" not in text and text.startswith(str(path))
    return text


def good() -> bytes:
    return neff_bytes([vector_add()])


def test_a_data_size_past_the_end(tmp_path: Path) -> None:
    data = good()
    text = refusal(tmp_path, hostile.lying_sizes(data, data_size=len(data)))
    assert "offset 0x10: data_size" in text and "larger than" in text


def test_a_header_size_past_the_end(tmp_path: Path) -> None:
    text = refusal(tmp_path, hostile.lying_sizes(good(), header_size=1 << 40))
    assert "header_size" in text


def test_a_data_size_too_short_truncates_the_gzip(tmp_path: Path) -> None:
    text = refusal(tmp_path, hostile.lying_sizes(good(), data_size=100))
    assert "truncated" in text


def test_a_gzip_bomb(tmp_path: Path) -> None:
    text = refusal(tmp_path, hostile.gzip_bomb())
    assert "inflates to more than 256 MiB" in text


@pytest.mark.parametrize(("name", "kind", "said"), [
    ("../x", tarfile.REGTYPE, "a path with '..'"),
    ("sg00/../../x", tarfile.REGTYPE, "a path with '..'"),
    ("/etc/x", tarfile.REGTYPE, "an absolute path"),
    ("sg00/link", tarfile.SYMTYPE, "is a symbolic link"),
    ("sg00/hard", tarfile.LNKTYPE, "is a hard link"),
    ("sg00/fifo", tarfile.FIFOTYPE, "is a FIFO"),
    ("sg00/dev", tarfile.CHRTYPE, "is a character device"),
    ("sg00/blk", tarfile.BLKTYPE, "is a block device"),
])
def test_members_that_could_escape(tmp_path: Path, name: str, kind: bytes, said: str) -> None:
    block = hostile.header_block(name, 0, kind, "/etc/passwd" if kind in (
        tarfile.SYMTYPE, tarfile.LNKTYPE) else "")
    text = refusal(tmp_path, hostile.with_members(block))
    assert f"member {name!r}" in text and said in text


def test_a_million_members(tmp_path: Path) -> None:
    text = refusal(tmp_path, hostile.million_members())
    assert "more than 4,096 members" in text


def test_a_100_mb_json(tmp_path: Path) -> None:
    text = refusal(tmp_path, hostile.big_json())
    assert "'sg00/def.json' is 95.4 MiB, over the 64 MiB limit" in text


def test_deep_json(tmp_path: Path) -> None:
    from neurondbg.machine.neff.writer import archive_members, neff_from_members
    members = archive_members([vector_add()], "sunda", "h", "t")
    members["kelf-0.json"] = b"[" * 5000 + b"]" * 5000
    text = refusal(tmp_path, neff_from_members(members))
    assert "kelf-0.json: JSON nested 5000 levels deep; the limit is 64" in text


def test_a_duplicate_member(tmp_path: Path) -> None:
    text = refusal(tmp_path, hostile.with_members(hostile.header_block("info.json")))
    assert "member 'info.json' appears twice" in text


def test_a_trigger_naming_a_missing_queue(tmp_path: Path) -> None:
    sub = vector_add()
    sub.streams[Engine.SP] = stream(trigger_record("qNope", 0))
    text = refusal(tmp_path, neff_bytes([sub]))
    assert ("sg00/SP.bin record #0 (offset 0x0): PSEUDO_DMATRIGGER names queue 'qNope', "
            "which the engine's dma list does not name") in text


def test_a_trigger_naming_a_missing_id(tmp_path: Path) -> None:
    sub = vector_add()
    sub.streams[Engine.SP] = stream(trigger_record(QUEUE, 0), trigger_record(QUEUE, 7))
    text = refusal(tmp_path, neff_bytes([sub]))
    assert "record #1 (offset 0x40): PSEUDO_DMATRIGGER names id 7 of queue 'qSPIO0'" in text


def test_a_semaphore_index_past_255(tmp_path: Path) -> None:
    sub = vector_add()
    sub.queues[QUEUE] = DmaQueue(QUEUE, Engine.SP, tuple(range(250, 266)))
    text = refusal(tmp_path, neff_bytes([sub]))
    assert "dma_queue.qSPIO0.semaphore_set: semaphore index 256; expected 0..255" in text


def test_an_entry_semaphore_past_255(tmp_path: Path) -> None:
    from dataclasses import replace
    sub = vector_add()
    sub.entries[Engine.SP] = (replace(sub.entries[Engine.SP][0], semaphore=300),)
    text = refusal(tmp_path, neff_bytes([sub]))
    assert "sg00/SP.json: dma[0].semaphore: 300; expected an integer in 0..255" in text


def test_an_entry_naming_a_missing_queue(tmp_path: Path) -> None:
    from dataclasses import replace
    sub = vector_add()
    sub.entries[Engine.SP] = (replace(sub.entries[Engine.SP][0], queue="qGone"),)
    text = refusal(tmp_path, neff_bytes([sub]))
    assert "dma[0].queue: queue 'qGone' is not in def.json dma_queue" in text
