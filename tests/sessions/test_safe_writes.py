"""Files are never lost: atomic writes under simulated crashes, symlinks, modes, stale
temporaries, session + image commit order, range-checked sessions, interruptible loads."""

from __future__ import annotations

import os
import stat
import threading
import tomllib
from pathlib import Path

import numpy as np
import pytest

from neurondbg.sessions import atomic
from neurondbg.sessions.atomic import (
    atomic_open,
    check_output,
    remove_stale_temporaries,
    write_atomic,
)
from neurondbg.sessions.errors import SessionError, SessionInterrupted
from neurondbg.sessions.store import load_session, read_session, save_session
from neurondbg.sessions.toml_write import dumps
from tests.helpers import aliases
from tests.sessions.conftest import make_core, sbuf_image


def _temporaries(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(".tmp"))


# -- write_atomic / atomic_open --------------------------------------------------------------
def test_crash_in_rename_keeps_old_file_and_leaves_no_temporary(tmp_path: Path,
                                                                monkeypatch) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old contents")

    def crash(src, dst):
        raise OSError(5, "simulated crash")
    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(OSError, match="simulated crash"):
        write_atomic(target, b"new contents")
    assert target.read_bytes() == b"old contents"
    assert _temporaries(tmp_path) == []


def test_crash_midway_through_a_streamed_write(tmp_path: Path) -> None:
    target = tmp_path / "run.jsonl"
    target.write_text("old\n")
    with pytest.raises(KeyboardInterrupt), atomic_open(target, "w") as fh:
        fh.write("partial line")
        raise KeyboardInterrupt  # Ctrl+C in the middle of the stream
    assert target.read_text() == "old\n" and _temporaries(tmp_path) == []
    with atomic_open(target, "w") as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n" and _temporaries(tmp_path) == []


def test_save_through_a_symlink_writes_the_link_target(tmp_path: Path) -> None:
    real = tmp_path / "real" / "s.toml"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and real.read_text() == "new"


def test_devices_folders_and_read_only_files_are_never_replaced(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="not a regular file"):
        write_atomic("/dev/null", b"x")
    (tmp_path / "d").mkdir()
    with pytest.raises(OSError, match="a folder"):
        write_atomic(tmp_path / "d", b"x")
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        write_atomic(fifo, b"x")
    ro = tmp_path / "ro.bin"
    ro.write_bytes(b"keep")
    ro.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        write_atomic(ro, b"x")
    assert ro.read_bytes() == b"keep" and _temporaries(tmp_path) == []


def test_new_files_follow_the_umask_and_replaced_files_keep_their_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.bin", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.bin").stat().st_mode) == 0o640  # not mkstemp's 0600
    kept = tmp_path / "kept.bin"
    kept.write_bytes(b"a")
    kept.chmod(0o604)
    write_atomic(kept, b"b")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604


def test_stale_temporaries_of_dead_processes_are_removed(tmp_path: Path) -> None:
    target = tmp_path / "s.toml"
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)  # a pid that is certainly gone
    stale = tmp_path / f".s.toml.{pid}.0a1b2c3d.tmp"
    live = tmp_path / f".s.toml.{os.getppid()}.0a1b2c3d.tmp"  # a running process's save
    other = tmp_path / f".t.toml.{pid}.0a1b2c3d.tmp"  # another file's temporary
    for p in (stale, live, other):
        p.write_bytes(b"half")
    write_atomic(target, b"x")
    assert not stale.exists() and live.exists() and other.exists()
    assert remove_stale_temporaries(target) == []


# -- output checks ---------------------------------------------------------------------------
def test_output_naming_an_input_is_refused(tmp_path: Path) -> None:
    prog = tmp_path / "p.asm"
    prog.write_text("HALT\n")
    for alias in aliases(prog):
        with pytest.raises(SessionError, match="would overwrite the program"):
            check_output(alias, [("the program", prog)], what="--trace")
    assert check_output(tmp_path / "t.jsonl", [("the program", prog)]) == tmp_path / "t.jsonl"
    with pytest.raises(SessionError, match="no such folder"):
        check_output(tmp_path / "nope" / "t.jsonl")
    with pytest.raises(SessionError, match="a folder"):
        check_output(tmp_path / "sub")


# -- sessions --------------------------------------------------------------------------------
def _saved(program: Path, path: Path, image: np.ndarray) -> None:
    m = make_core(program, sbuf=image)
    m.cont(max_steps=3)
    save_session(path, m, program_path=program)


def test_session_images_are_committed_with_the_toml(program: Path, tmp_path: Path,
                                                    monkeypatch) -> None:
    path = tmp_path / "s.toml"
    _saved(program, path, sbuf_image())
    first = read_session(path).data[0].file
    assert (tmp_path / first).exists()
    changed = sbuf_image() + 1
    real_replace = os.replace

    def crash_on_toml(src, dst):  # images land, the TOML rename does not
        if str(dst).endswith(".toml"):
            raise OSError(5, "simulated crash")
        real_replace(src, dst)
    monkeypatch.setattr(atomic.os, "replace", crash_on_toml)
    with pytest.raises(SessionError, match="simulated crash"):
        _saved(program, path, changed)
    monkeypatch.setattr(atomic.os, "replace", real_replace)
    loaded = load_session(path)  # the old session and its old image, intact
    assert loaded.digest_ok and np.array_equal(loaded.machine.state.sbuf[:3, :40], sbuf_image())
    assert _temporaries(tmp_path) == []
    assert sorted(tmp_path.glob("s.*.npy")) == [tmp_path / first]  # no orphan new image
    _saved(program, path, changed)
    second = read_session(path).data[0].file
    assert second != first and not (tmp_path / first).exists()  # removed after the commit
    assert np.array_equal(load_session(path).machine.state.sbuf[:3, :40], changed)


def test_saving_over_the_program_is_refused(program: Path) -> None:
    m = make_core(program)
    before = program.read_bytes()
    with pytest.raises(SessionError, match="it is the program"):
        save_session(program, m, program_path=program)
    assert program.read_bytes() == before


def test_a_session_saved_through_a_symlink_loads_through_it(program: Path,
                                                            tmp_path: Path) -> None:
    real = tmp_path / "store" / "s.toml"
    real.parent.mkdir()
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    _saved(program, link, sbuf_image())
    assert link.is_symlink() and real.is_file()
    assert load_session(link).digest_ok


def _edited(path: Path, table: str, **values: int) -> None:
    """Rewrite the session at `path` with `values` set in `table` (as a user's editor would)."""
    doc = tomllib.loads(path.read_text())
    doc[table].update(values)
    path.write_text(dumps(doc))


@pytest.mark.parametrize(("key", "value", "message"), [
    ("sbuf_bytes", 2**40, "machine.sbuf_bytes: expected at most 262144, found 1099511627776"),
    ("psum_bytes", 2**40, "machine.psum_bytes: expected at most 16384"),
    ("base", 2**60, "machine.base: expected at most"),
    ("partitions", 129, "machine.partitions: expected at most 128"),
])
def test_session_sizes_are_range_checked(program: Path, tmp_path: Path, key: str, value: int,
                                         message: str) -> None:
    path = tmp_path / "s.toml"
    save_session(path, make_core(program), program_path=program)
    _edited(path, "machine", **{key: value})
    with pytest.raises(SessionError, match=message) as e:
        load_session(path)  # fails on reading: nothing is allocated
    assert "\n" not in str(e.value)


SPIN = ("top:\n    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1\n"
        "    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=-1 target=top\n")


def _long_session(tmp_path: Path, steps: int) -> Path:
    """A session claiming `steps` steps of an endless loop (no digest to check)."""
    prog = tmp_path / "spin.asm"
    prog.write_text(SPIN)
    path = tmp_path / "long.toml"
    save_session(path, make_core(prog), program_path=prog)
    _edited(path, "position", steps=steps)
    doc = tomllib.loads(path.read_text())
    del doc["position"]["digest"]
    path.write_text(dumps(doc))
    return path


def test_load_reports_progress_and_stops_when_interrupted(tmp_path: Path) -> None:
    path = _long_session(tmp_path, 10**12)
    stop = threading.Event()
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if done >= 5000:
            stop.set()  # what the UI's Esc does from another thread
    with pytest.raises(SessionInterrupted, match="loading interrupted at step") as e:
        load_session(path, progress=progress, interrupt=stop)
    assert e.value.total == 10**12 and 5000 <= e.value.step < 10**12
    assert seen[0] == (0, 10**12) and seen[-1][0] == e.value.step
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_load_with_progress_reaches_the_saved_step(tmp_path: Path) -> None:
    path = _long_session(tmp_path, 20_001)
    seen: list[int] = []
    loaded = load_session(path, progress=lambda d, t: seen.append(d))
    assert loaded.machine.state.steps == 20_001 and seen[-1] == 20_001


# -- set edits ---------------------------------------------------------------------------------
def test_set_edits_are_saved_and_replayed_at_their_step(program: Path, tmp_path: Path) -> None:
    m = make_core(program)
    m.edit("sb[1, 0]:fp32", "2.5")  # before the first step: not part of the data image
    m.cont(max_steps=2)
    m.edit("R5", "7")
    m.cont(max_steps=3)
    path = tmp_path / "s.toml"
    save_session(path, m, program_path=program)
    doc = tomllib.loads(path.read_text())
    assert [e["step"] for e in doc["edits"]] == [0, 2] and doc["edits"][1]["target"] == "R5"
    assert "data" not in doc or doc["data"] == []  # the edit is replayed, not imaged
    loaded = load_session(path)
    assert loaded.digest_ok and loaded.machine.state.steps == 5
    assert loaded.core.saved_edits() == m.saved_edits() and loaded.machine.state.R[5] == 7
    assert loaded.machine.state.sbuf[1, :4].view(np.float32)[0] == 2.5


def test_a_bad_saved_edit_is_a_one_line_error(program: Path, tmp_path: Path) -> None:
    m = make_core(program)
    m.edit("R5", "7")
    path = tmp_path / "s.toml"
    save_session(path, m, program_path=program)
    doc = tomllib.loads(path.read_text())
    doc["edits"][0]["value"] = "seven"
    path.write_text(dumps(doc))
    with pytest.raises(SessionError, match=r"edits\[0\]\.value: expected the stored bits"):
        load_session(path)
    doc["edits"][0].update(value="0x1", target="R99")
    path.write_text(dumps(doc))
    with pytest.raises(SessionError, match=r"edits\[0\]: set R99 = 0x1: "):
        load_session(path)


def test_headless_machines_keep_no_history(program: Path) -> None:
    from neurondbg.sessions.cli_support import open_program_or_session

    headless = open_program_or_session(program, journal_budget=0).core
    headless.step()
    assert not headless.reverse_step()
    kept = open_program_or_session(program).core
    kept.step()
    assert kept.reverse_step()


# -- inputs that are not regular files are refused, never read forever ---------------------
def test_fifo_inputs_are_refused(program: Path, tmp_path: Path) -> None:
    from neurondbg.sessions.replay import replay

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(SessionError, match="pipe: is a FIFO"):
        read_session(fifo)
    with pytest.raises(SessionError, match="pipe: is a FIFO"):
        replay(fifo, program)
    path = tmp_path / "s.toml"
    m = make_core(program, sbuf=sbuf_image())
    save_session(path, m, program_path=program)
    image = tmp_path / read_session(path).data[0].file
    image.unlink()
    os.mkfifo(image)
    with pytest.raises(SessionError, match=r"data\[0\]: .*is a FIFO"):
        load_session(path)


def test_a_trace_line_without_end_is_refused(program: Path, tmp_path: Path) -> None:
    from neurondbg.sessions.replay import MAX_TRACE_LINE, replay

    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b"{" + b" " * (MAX_TRACE_LINE + 1))
    with pytest.raises(SessionError, match=r"t\.jsonl:1: a line longer than"):
        replay(trace, program)


def test_a_data_image_claiming_a_huge_shape_is_refused_before_allocating(
        program: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    m = make_core(program, sbuf=sbuf_image())
    save_session(path, m, program_path=program)
    image = tmp_path / read_session(path).data[0].file
    header = np.lib.format
    with image.open("wb") as fh:  # a header promising 128 x 2**40 bytes, and no data
        header.write_array_header_1_0(fh, {"descr": "|u1", "fortran_order": False,
                                           "shape": (128, 2**40)})
    with pytest.raises(SessionError, match=r"data\[0\]: data file .*larger than"):
        load_session(path)
