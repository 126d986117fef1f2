"""`neurondbg serve` without a browser: what it binds, what it says, what it refuses."""

from __future__ import annotations

import re
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from neurondbg.commands.serve import banner_url, command, is_loopback, visitor_command
from tests.dap.client import EXAMPLES, REPO


def test_loopback_hosts() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "192.168.1.4", "::", "example.org"]))


def test_each_visitor_runs_the_tui_on_the_resolved_program() -> None:
    words = shlex.split(visitor_command(EXAMPLES / "loop.asm", None, "dve"))
    assert words[:4] == [sys.executable, "-m", "neurondbg", "tui"]
    assert words[4:] == [str((EXAMPLES / "loop.asm").resolve()), "--engine", "dve"]
    assert shlex.split(visitor_command(None, None, None))[4:] == []  # the demo


def test_a_visitor_opens_the_neff_subgraph_and_inputs_given(tmp_path: Path) -> None:
    a = tmp_path / "a.npy"
    words = shlex.split(visitor_command(tmp_path / "k.neff", None, None, subgraph="sg01",
                                        inputs=[("a", a)], waiting=True))
    assert words[4:] == [str(tmp_path / "k.neff"), "--subgraph", "sg01", "--input",
                         f"a={a.resolve()}"]


def test_neff_options_on_what_is_no_neff_are_one_line_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(command, ["--input", "a=a.npy", "--port", "0"])
    assert (r.exit_code, r.output.strip()) == (
        2, "neurondbg: error: --input applies to a NEFF only")
    r = CliRunner().invoke(command, [str(EXAMPLES / "loop.asm"), "--subgraph", "sg00",
                                     "--port", "0"])
    assert (r.exit_code, r.output.strip()) == (
        2, f"neurondbg: error: {EXAMPLES / 'loop.asm'}: --subgraph applies to a NEFF only")


def test_missing_program_is_one_line_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(command, [str(tmp_path / "nope.asm"), "--port", "0"])
    assert r.exit_code == 2
    assert r.output.strip() == f"neurondbg: error: {tmp_path / 'nope.asm'}: no such file"


def _first_lines(*args: str, n: int) -> list[str]:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg.commands.serve", *args],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        return [proc.stderr.readline().rstrip("\n") for _ in range(n)]
    finally:
        proc.terminate()
        proc.wait(30)


def test_loopback_by_default_and_says_so_with_the_token_in_the_url() -> None:
    (line,) = _first_lines("--port", "0", n=1)
    assert re.fullmatch(r"neurondbg serve: http://127\.0\.0\.1:\d+/\?token=[\w-]{32} "
                        r"\(loopback only: this machine's browsers\)", line), line


def test_each_server_has_its_own_token() -> None:
    (a,) = _first_lines("--port", "0", n=1)
    (b,) = _first_lines("--port", "0", n=1)
    assert a.split("token=")[1] != b.split("token=")[1]


def test_another_host_warns_who_can_reach_it_at_a_url_that_works_from_there() -> None:
    first, warning, _ = _first_lines("--port", "0", "--host", "0.0.0.0", n=3)
    assert first.startswith(f"neurondbg serve: http://{socket.gethostname()}:")
    assert "0.0.0.0" not in first
    assert first.endswith("(all who can reach this address)")
    assert warning.startswith("neurondbg: warning: --host 0.0.0.0: anyone who reaches port ")
    assert "learns the token (sent in clear over http) runs neurondbg as you" in warning


def test_banner_url() -> None:
    from neurondbg.serve.guard import parse_public_url

    assert banner_url("127.0.0.1", 8000, "T", None) == "http://127.0.0.1:8000/?token=T"
    assert banner_url("::1", 8000, "T", None) == "http://[::1]:8000/?token=T"
    for wildcard in ("0.0.0.0", "::"):
        assert banner_url(wildcard, 81, "T", None) == (
            f"http://{socket.gethostname()}:81/?token=T")
    public = parse_public_url("https://dbg.example.org/")
    assert banner_url("127.0.0.1", 8000, "T", public) == "https://dbg.example.org/?token=T"


def test_behind_a_proxy_the_banner_gives_the_public_url_and_binds_loopback() -> None:
    first, files = _first_lines("--port", "0", "--public-url", "https://dbg.example.org:8443",
                                n=2)
    assert re.fullmatch(r"neurondbg serve: https://dbg\.example\.org:8443/\?token=[\w-]{32} "
                        r"\(through the proxy at --public-url\)", first), first
    assert files.startswith("neurondbg serve: each page's files go to a folder of its own in ")


def test_a_bad_public_url_or_save_dir_is_one_line_exit_2(tmp_path: Path) -> None:
    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "neurondbg", "serve", "--port", "0", *args],
                              cwd=REPO, capture_output=True, text=True, timeout=60)

    r = serve("--public-url", "dbg.example.org/x")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("neurondbg: error: ") and "'--public-url'" in r.stderr
    assert "expected http://HOST[:PORT]" in r.stderr and len(r.stderr.splitlines()) == 1
    afile = tmp_path / "f"
    afile.write_text("")
    r = serve("--save-dir", str(afile))
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("neurondbg: error: ") and "--save-dir" in r.stderr


def test_requests_are_logged_only_with_verbose(tmp_path: Path) -> None:
    import urllib.request

    for verbose in (False, True):
        proc = subprocess.Popen([sys.executable, "-m", "neurondbg", "serve", "--port", "0",
                                 "--warm", "0", "--save-dir", str(tmp_path),
                                 *(["--verbose"] if verbose else [])],
                                cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        try:
            assert proc.stderr is not None
            url = proc.stderr.readline().split()[2]
            with urllib.request.urlopen(url, timeout=60) as r:
                assert r.status == 200
        finally:
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        logged = [line for line in (out + err).splitlines() if "GET /?token=" in line]
        assert len(logged) == (1 if verbose else 0), (verbose, out, err)


def test_a_taken_port_is_one_line_exit_2() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        r = CliRunner().invoke(command, ["--port", str(port)])
    assert r.exit_code == 2
    assert r.output.startswith(f"neurondbg: error: --port {port}: cannot listen on 127.0.0.1: ")


def test_ctrl_c_stops_the_server_exit_130() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "neurondbg", "serve", "--port", "0"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().startswith("neurondbg serve: http://")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
        assert proc.stderr.read().strip().endswith("neurondbg: interrupted")
    finally:
        if proc.poll() is None:
            proc.kill()
