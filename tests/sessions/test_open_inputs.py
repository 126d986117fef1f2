"""Every input read as a stream, through its command: a trace (`replay`), an `--sbuf`
image (`run`, `replay`), a session file and its data image (`run S.toml`) and a
`diagnose` array. Each bad kind (missing, a directory, no permission, a FIFO, a device,
too large, truncated, grown while read) is one line naming the file, exit 2, and no
traceback: machine.files.open_stream words them all alike."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli, main
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.replay import read_trace
from neurondbg.sessions.store import read_session

PROGRAM = "NOP\nHALT\n"
SESSION = 'schema = 1\n[program]\npath = "p.asm"\n[machine]\ngen = "cayman"\n'
KINDS = ("missing", "directory", "no permission", "fifo", "device", "too large",
         "truncated", "grown")


@dataclass(frozen=True)
class Entry:
    """One way in: the command line naming the bad file, what the stream calls it, the
    limit (module, name) it is held to, and a good file of its kind (for `truncated`)."""

    name: str
    argv: Callable[[Path, Path], list[str]]  # (folder, bad file) -> arguments
    suffix: str
    what: str
    limit: tuple[str, str]
    good: Callable[[Path], bytes]  # folder -> a good file's bytes
    prefix: str = ""  # what the command puts before the file's line


def _trace(folder: Path) -> bytes:
    r = CliRunner().invoke(cli, ["run", str(folder / "p.asm"), "--trace",
                                 str(folder / "good.jsonl")])
    assert r.exit_code == 0, r.output
    return (folder / "good.jsonl").read_bytes()


def _image(folder: Path) -> bytes:
    np.save(folder / "img.npy", np.arange(4 * 64, dtype=np.uint8).reshape(4, 64))
    return (folder / "img.npy").read_bytes()


def _values(folder: Path) -> bytes:
    np.save(folder / "x.npy", np.linspace(-2, 2, 64, dtype=np.float32))
    return (folder / "x.npy").read_bytes()


def _with_image(folder: Path, bad: Path) -> list[str]:
    (folder / "s.toml").write_text(SESSION + f'[[data]]\nfile = "{bad}"\n')
    return ["run", str(folder / "s.toml")]


ENTRIES = [
    Entry(
        "replay trace",
        lambda f, bad: ["replay", str(bad), str(f / "p.asm")],
        ".jsonl",
        "trace file",
        ("neurondbg.sessions.replay", "MAX_TRACE_BYTES"),
        _trace,
    ),
    Entry(
        "run --sbuf",
        lambda f, bad: ["run", str(f / "p.asm"), "--sbuf", str(bad)],
        ".npy",
        ".npy image",
        ("neurondbg.commands._npy", "MAX_DATA_BYTES"),
        _image,
    ),
    Entry(
        "replay --sbuf",
        lambda f, bad: ["replay", str(f / "t.jsonl"), str(f / "p.asm"), "--sbuf", str(bad)],
        ".npy",
        ".npy image",
        ("neurondbg.commands._npy", "MAX_DATA_BYTES"),
        _image,
    ),
    Entry(
        "run session",
        lambda f, bad: ["run", str(bad)],
        ".toml",
        "session file",
        ("neurondbg.sessions.store", "MAX_SESSION_BYTES"),
        lambda f: SESSION.encode(),
    ),
    Entry(
        "run session image",
        _with_image,
        ".npy",
        "data image",
        ("neurondbg.sessions.store", "MAX_DATA_BYTES"),
        _image,
        prefix="{folder}/s.toml: data[0]: ",
    ),
    Entry(
        "diagnose",
        lambda f, bad: ["diagnose", str(bad), str(f / "x.npy"), "--from", "fp32", "--to", "fp32"],
        ".npy",
        "INPUT .npy",
        ("neurondbg.commands.diagnose", "MAX_DATA_BYTES"),
        _values,
        prefix="diagnose: ",
    ),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "p.asm").write_text(PROGRAM)
    (tmp_path / "t.jsonl").write_bytes(_trace(tmp_path))
    _values(tmp_path)
    return tmp_path


def _article(what: str) -> str:
    return f"an {what}" if what[0].lower() in "aeiou." else f"a {what}"


def _neurondbg(argv: list[str], capsys: pytest.CaptureFixture[str],
               monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the console script in-process (its main() makes
    click's usage errors one line too); any other exception escapes: a traceback."""
    monkeypatch.setattr(sys, "argv", ["neurondbg", *argv])
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main()
    out, err = capsys.readouterr()
    return e.value.code, out, err


def _make(kind: str, entry: Entry, folder: Path, bad: Path,
          monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `bad` a bad input of `kind`; the path the message names (a session resolves
    the files it names, links too)."""
    resolved = entry.name == "run session image"
    if kind == "directory":
        bad.mkdir()
    elif kind == "fifo":
        os.mkfifo(bad)
    elif kind == "device":
        bad.symlink_to("/dev/zero")
    elif kind == "too large":
        bad.touch()
        limit = getattr(__import__(entry.limit[0], fromlist=["_"]), entry.limit[1])
        os.truncate(bad, limit + 1)  # sparse: nothing is written, nothing may be read
    elif kind == "truncated":
        bad.write_bytes(entry.good(folder)[:-10])
    elif kind == "grown":  # its size says 0 and it holds more than the limit
        bad.symlink_to("/proc/self/status")
        monkeypatch.setattr(f"{entry.limit[0]}.{entry.limit[1]}", 64)
    elif kind == "no permission":  # root is not stopped by chmod: the OS's answer, made up
        bad.write_bytes(entry.good(folder))
        real_open = os.open

        def answer(path: str | Path, flags: int, *args: int) -> int:
            if Path(path) == bad:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real_open(path, flags, *args)

        monkeypatch.setattr(os, "open", answer)
    return bad.resolve() if resolved else bad


def _expected(kind: str, entry: Entry, named: Path) -> str | None:
    """The exact line, or None where the kind's wording is the file format's own."""
    return {
        "missing": f"{named}: no such {entry.what}",
        "no permission": f"{named}: cannot read: Permission denied",
        "fifo": f"{named}: is a FIFO (named pipe); expected a regular file holding "
                f"{_article(entry.what)}",
        "device": f"{named}: is a character device; expected a regular file holding "
                  f"{_article(entry.what)}",
        "too large": {"trace file": "1024.0 GiB is over the 1024 GiB limit",
                      "session file": "4.0 MiB is over the 4 MiB limit"}.get(
            entry.what, "1.0 GiB is over the 1 GiB limit"),
        "grown": f"{named}: grew past the 64 bytes limit for {_article(entry.what)} while "
                 "being read",
    }.get(kind)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_a_bad_input_is_one_line_naming_it(folder: Path, entry: Entry, kind: str,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    bad = folder / f"bad{entry.suffix}"
    named = _make(kind, entry, folder, bad, monkeypatch)
    code, out, err = _neurondbg(entry.argv(folder, bad), capsys, monkeypatch)
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and str(named) in err, err
    line = err.removeprefix("neurondbg: error: ").rstrip("\n")
    prefix = entry.prefix.format(folder=folder)
    expected = _expected(kind, entry, named)
    if kind == "too large":
        assert line == f"{prefix}{named}: {expected} for {_article(entry.what)}"
    elif expected is not None:
        assert line == prefix + expected
    elif kind == "directory":  # the command line refuses it first (click, dir_okay=False)
        assert "is a directory" in line
    else:  # truncated: the format's reader says what is missing, where
        assert line.startswith(prefix) and str(named) in line, line
        assert any(w in line for w in ("truncated: the header promises",
                                       "expected a JSON object per line",
                                       "malformed TOML")), line


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "device", "grown"])
def test_the_library_readers_say_the_same(folder: Path, kind: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """read_trace and read_session (the TUI's way in) raise the line the CLI prints."""
    for entry, read in ((ENTRIES[0], lambda p: list(read_trace(p))),
                        (ENTRIES[3], read_session)):
        bad = folder / f"lib-{kind}{entry.suffix}"
        named = _make(kind, entry, folder, bad, monkeypatch)
        with pytest.raises(SessionError) as e:
            read(bad)
        expected = _expected(kind, entry, named) or (
            f"{named}: is a directory; expected a regular file holding "
            f"{_article(entry.what)}")
        assert str(e.value) == expected


def test_a_trace_growing_while_replayed_is_refused_where_it_grew(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A trace appended to during the replay (a run still writing it) is refused once it
    passes its limit, not read on forever."""
    trace = folder / "t.jsonl"
    size = trace.stat().st_size
    monkeypatch.setattr("neurondbg.sessions.replay.MAX_TRACE_BYTES", size)
    import neurondbg.sessions.replay as replay_module

    parse = replay_module._parse_line

    def appending(p: Path, n: int, line: str, header_ok: bool = False) -> dict:
        with trace.open("ab") as writer:  # the writer beside the reader
            writer.write(b'{"step": 9, "pc": 0}\n' * 4096)
        return parse(p, n, line, header_ok)

    monkeypatch.setattr(replay_module, "_parse_line", appending)
    with pytest.raises(SessionError) as e:
        list(read_trace(trace))
    assert str(e.value) == (f"{trace}: grew past the {size} bytes limit for a trace file "
                            "while being read")
