"""The bundled demo session matches its program, and opens where the TUI expects."""

import hashlib
import subprocess
import sys
import tomllib

from neurondbg.sessions import examples
from neurondbg.sessions.store import load_session

EXAMPLES = examples.folder()


def test_demo_session_names_the_current_program() -> None:
    doc = tomllib.loads((EXAMPLES / "demo.toml").read_text())
    program = EXAMPLES / doc["program"]["path"]
    assert doc["program"]["sha256"] == hashlib.sha256(program.read_bytes()).hexdigest()


def test_demo_session_stops_at_each_invalid_instruction() -> None:
    loaded = load_session(EXAMPLES / "demo.toml")
    m = loaded.machine
    assert not loaded.warnings and m.config.engine == "dve"
    stops = []
    for _ in range(4):
        stop = loaded.core.cont()
        stops.append((stop.reason, m.instruction(m.state.pc // 64).mnemonic, m.state.steps))
        if stop.reason != "breakpoint":
            break
    assert stops == [("breakpoint", "MOVE", 18), ("breakpoint", "COPY", 19),
                     ("fault", "COPY", 19)]


def test_nki_calls_example_has_one_legal_and_one_illegal_call() -> None:
    import json

    from neurondbg.machine.legality.nki import check_calls

    calls = json.loads((EXAMPLES / "nki_calls.json").read_text())
    verdicts = check_calls(calls)
    assert [v.valid for v in verdicts] == [True, False]
    assert verdicts[1].failed == ("_check_select_reduce_supported_reduce_cmd",)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "neurondbg", *args], capture_output=True,
                          text=True, timeout=120)


def test_examples_lists_every_bundled_file() -> None:
    out = _cli("examples")
    assert out.returncode == 0, out.stderr
    for p in examples.files():
        assert p.name in out.stdout
    assert "demo.toml" in out.stdout and "__init__" not in out.stdout
    assert [p.stem for p in examples.kernels()] == sorted(examples.KERNEL_DESCRIPTIONS)
    for p in examples.kernels():
        assert f"kernels/{p.name}" in out.stdout
        assert examples.KERNEL_DESCRIPTIONS[p.stem] in out.stdout


def test_examples_copy_writes_identical_files_and_never_overwrites(tmp_path) -> None:
    dest = tmp_path / "mine"
    out = _cli("examples", "--copy", str(dest))
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in dest.iterdir() if p.is_file())
    assert names == sorted(p.name for p in examples.files())
    for p in examples.files():
        assert (dest / p.name).read_bytes() == p.read_bytes()
    kernels = examples.kernels()
    assert sorted(p.name for p in (dest / "kernels").iterdir()) == [p.name for p in kernels]
    for p in kernels:
        assert (dest / "kernels" / p.name).read_bytes() == p.read_bytes()
    # a second copy is a no-op; an edited file is never replaced, and nothing is written
    assert _cli("examples", "--copy", str(dest)).returncode == 0
    (dest / "loop.asm").write_text("# my edits\n")
    (dest / "demo.asm").unlink()
    again = _cli("examples", "--copy", str(dest))
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1 and "loop.asm" in again.stderr
    assert (dest / "loop.asm").read_text() == "# my edits\n"
    assert not (dest / "demo.asm").exists()


def test_examples_copy_refuses_a_kernels_file_before_writing(tmp_path) -> None:
    (tmp_path / "kernels").write_text("mine\n")
    out = _cli("examples", "--copy", str(tmp_path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "kernels: exists and is not a folder" in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernels"]  # nothing written
    assert (tmp_path / "kernels").read_text() == "mine\n"


def test_copied_demo_session_opens_from_its_new_folder(tmp_path) -> None:
    assert _cli("examples", "--copy", str(tmp_path)).returncode == 0
    loaded = load_session(tmp_path / "demo.toml")
    assert not loaded.warnings and loaded.machine.config.engine == "dve"


def test_every_example_kernel_is_described_and_loads() -> None:
    from neurondbg.machine.core.kernel import is_kernel_source, load_kernel

    names = [p.stem for p in examples.kernels()]
    assert names == sorted(examples.KERNEL_DESCRIPTIONS)
    for name in names:
        path = examples.kernel(name)
        assert is_kernel_source(path)
        assert load_kernel(path).engines == ("pool", "dve")
