"""`examples --copy` over files already there: a file of another size is told apart
without reading it, one of the same size is compared in chunks up to the first
difference; the same contents are skipped, other contents refused, nothing written."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.commands.examples import CHUNK, same_contents
from neurondbg.sessions import examples


def _first_example() -> str:
    return sorted(examples.files())[0].name


def test_a_huge_file_in_the_way_is_refused_without_reading_it(tmp_path: Path) -> None:
    name = _first_example()
    big = tmp_path / name
    big.touch()
    os.truncate(big, 2 << 30)  # sparse 2 GiB: reading it would take 2 GiB of memory
    tracemalloc.start()
    try:
        r = CliRunner().invoke(cli, ["examples", "--copy", str(tmp_path)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (f"neurondbg: error: {big}: exists with other contents; nothing "
                                "copied (move it away, copy into another folder, or --force)")
    assert peak < 64 << 20, peak
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # nothing written


@pytest.mark.parametrize("size", [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5])
def test_same_contents_compares_every_byte(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256 + 1)
    data = data[:size]
    p = tmp_path / "f"
    p.write_bytes(data)
    assert same_contents(p, data)
    assert not same_contents(p, data + b"x")
    if size == 0:
        return
    assert not same_contents(p, data[:-1])
    for at in sorted({0, size // 2, size - 1}):
        changed = bytearray(data)
        changed[at] ^= 0xFF
        assert not same_contents(p, bytes(changed))


class _Counting:
    """A file object that counts what was read from it."""

    def __init__(self, path: Path) -> None:
        self.fh = open(path, "rb")  # closed by __exit__
        self.read_bytes = 0

    def __enter__(self) -> _Counting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()

    def fileno(self) -> int:
        return self.fh.fileno()

    def read(self, n: int) -> bytes:
        b = self.fh.read(n)
        self.read_bytes += len(b)
        return b


def test_comparison_stops_at_the_first_different_chunk(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"\0" * (10 * CHUNK)
    p = tmp_path / "f"
    p.write_bytes(b"\1" + data[1:])
    opened: list[_Counting] = []

    def counting(path: Path) -> _Counting:
        opened.append(_Counting(path))
        return opened[-1]

    monkeypatch.setattr("neurondbg.commands.examples._open_existing", counting)
    assert not same_contents(p, data)
    assert opened[0].read_bytes == CHUNK
