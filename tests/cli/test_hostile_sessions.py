"""Session files and kernel manifests that name symlink loops or a record-0 PC too high
for the program: one line naming the file and what was expected, exit 2, no traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from neurondbg.cli import cli

PROGRAM = "    MOVE R1=1\n    MOVE R2=2\n    HALT\n"  # 3 records
KERNEL = ".engine pool\n    MOVE R1=1\n    HALT\n.engine dve\n    MOVE R2=2\n    HALT\n"
TOP = 1 << 48  # every record's PC and the one past the last stay below it


def _loop(folder: Path) -> str:
    """A symlink loop `loop` -> `loop2` -> `loop`."""
    os.symlink("loop2", folder / "loop")
    os.symlink("loop", folder / "loop2")
    return "loop"


def _invoke(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.output


def _save(tmp_path: Path, source: str, text: str) -> Path:
    src = tmp_path / source
    src.write_text(text)
    session = tmp_path / "s.toml"
    _, out = _invoke("run", str(src), "--max-steps", "0", "--save-session", str(session))
    assert session.is_file(), out
    return session


def _edit(session: Path, old: str, new: str) -> None:
    text = session.read_text()
    assert old in text
    session.write_text(text.replace(old, new, 1))


def _refused(*args: str) -> str:
    code, out = _invoke(*args)
    assert code == 2, out
    assert "Traceback" not in out
    line, = out.strip().splitlines()
    return line


@pytest.mark.parametrize("source,text,key", [("p.asm", PROGRAM, 'path = "p.asm"'),
                                             ("k.asm", KERNEL, 'path = "k.asm"')])
def test_session_naming_a_symlink_loop(tmp_path: Path, source: str, text: str,
                                       key: str) -> None:
    session = _save(tmp_path, source, text)
    _edit(session, key, f'path = "{_loop(tmp_path)}"')
    line = _refused("run", str(session))
    assert str(session) in line and "symbolic links" in line, line


@pytest.mark.parametrize("source,text", [("p.asm", PROGRAM), ("k.asm", KERNEL)])
def test_session_data_image_a_symlink_loop(tmp_path: Path, source: str, text: str) -> None:
    session = _save(tmp_path, source, text)
    _edit(session, "data = []\n", "")
    session.write_text(session.read_text() + f'\n[[data]]\nspace = "sbuf"\nfile = '
                       f'"{_loop(tmp_path)}"\n')
    line = _refused("run", str(session))
    assert line.startswith(f"neurondbg: error: {session}: data[0]") and "symbolic links" in line


def test_manifest_data_image_a_symlink_loop(tmp_path: Path) -> None:
    (tmp_path / "p.asm").write_text(PROGRAM)
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[engines]\npool = "p.asm"\n[[data]]\nspace = "sbuf"\nfile = '
                        f'"{_loop(tmp_path)}"\n')
    line = _refused("run", str(manifest))
    assert f"{manifest}:5:1: [[data]] 0 file:" in line and "symbolic links" in line, line


@pytest.mark.parametrize("base,ok", [(TOP - 1 - 3 * 64, True), (TOP - 3 * 64, False),
                                     (TOP - 1, False), (TOP, False), (1 << 70, False)])
def test_manifest_base_within_the_program(tmp_path: Path, base: int, ok: bool) -> None:
    (tmp_path / "p.asm").write_text(PROGRAM)
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[engines]\npool = "p.asm"\n[machine]\nbase = {base}\n')
    if ok:
        code, out = _invoke("run", str(manifest))
        assert code == 0 and "Traceback" not in out, out
        return
    line = _refused("run", str(manifest))
    assert f"{manifest}:4:1: [machine] base: expected an integer 0.." in line, line


@pytest.mark.parametrize("source,text,records", [("p.asm", PROGRAM, 3), ("k.asm", KERNEL, 2)])
@pytest.mark.parametrize("over", [0, 1, 64])
def test_session_base_within_the_program(tmp_path: Path, source: str, text: str,
                                         records: int, over: int) -> None:
    session = _save(tmp_path, source, text)
    most = TOP - 1 - 64 * records
    _edit(session, "base = 0\n", f"base = {most}\n")
    _edit(session, "steps = 0\n", "steps = 1\n")
    code, out = _invoke("run", str(session))
    assert "Traceback" not in out and code in (0, 1), out
    _edit(session, f"base = {most}\n", f"base = {most + over + 1}\n")
    line = _refused("run", str(session))
    assert line == (f"neurondbg: error: {session}: machine.base: expected at most {most} "
                    f"for a program of {records} records, found {most + over + 1}"), line


@pytest.mark.parametrize("key,row", [("breakpoints", '{spec = "pc:0"}'),
                                     ("data", '{file = "x.npy"}'),
                                     ("layout.panes", "0"), ("layout.panes", '"a,b"')])
def test_session_with_an_array_too_long(tmp_path: Path, key: str, row: str) -> None:
    from neurondbg.machine.files import MAX_TOML_ITEMS

    session = _save(tmp_path, "p.asm", PROGRAM)
    table, _, name = key.rpartition(".")
    text = session.read_text().replace(f"{key} = []\n", "")
    head = f"{name} = [{', '.join([row] * (MAX_TOML_ITEMS + 1))}]\n"
    text = text.replace(f"[{table}]\n", f"[{table}]\n{head}") if table else head + text
    session.write_text(text)
    line = _refused("run", str(session))
    at = text.splitlines().index(head.strip()) + 1
    assert line == (f"neurondbg: error: {session}:{at}: an array or inline table of more "
                    f"than {MAX_TOML_ITEMS} entries; expected at most {MAX_TOML_ITEMS} in one "
                    "array or table"), line


@pytest.mark.parametrize("extra", [0, 1])
def test_session_with_many_tables(tmp_path: Path, extra: int) -> None:
    """[[breakpoints]] tables up to the limit load; one more is refused."""
    from neurondbg.machine.files import MAX_TOML_ITEMS

    session = _save(tmp_path, "p.asm", PROGRAM)
    n = MAX_TOML_ITEMS + extra
    text = session.read_text().replace("breakpoints = []\n", "")
    session.write_text(text + '[[breakpoints]]\nspec = "pc:0x40"\nenabled = false\n' * n)
    if not extra:
        code, out = _invoke("run", str(session))
        assert code == 0 and "Traceback" not in out, out[-500:]
        return
    line = _refused("run", str(session))
    assert line == (f"neurondbg: error: {session}: [[breakpoints]]: {n} tables; expected at "
                    f"most {MAX_TOML_ITEMS} in one array or table"), line


def test_session_file_too_large_is_refused_unread(tmp_path: Path) -> None:
    session = _save(tmp_path, "p.asm", PROGRAM)
    from neurondbg.sessions.store import MAX_SESSION_BYTES

    os.truncate(session, MAX_SESSION_BYTES + 1)  # sparse: a parse would take seconds
    line = _refused("run", str(session))
    assert line.endswith("4.0 MiB is over the 4 MiB limit for a session file"), line


def test_manifest_with_a_table_too_large(tmp_path: Path) -> None:
    from neurondbg.machine.files import MAX_TOML_ITEMS

    (tmp_path / "p.asm").write_text(PROGRAM)
    manifest = tmp_path / "m.toml"
    rows = "\n".join(f"k{i} = 0" for i in range(MAX_TOML_ITEMS + 1))
    manifest.write_text(f'[engines]\npool = "p.asm"\n[machine]\n{rows}\n')
    line = _refused("run", str(manifest))
    assert line == (f"neurondbg: error: {manifest}:3: a table of more than {MAX_TOML_ITEMS} "
                    f"keys; expected at most {MAX_TOML_ITEMS} in one array or table"), line
