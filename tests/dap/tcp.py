"""`neurondbg dap --port 0` as the tests run it: the process, and DAP clients over TCP."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading

from tests.dap.client import REPO, WAIT, Client, decode_stream


class SocketClient(Client):
    """A DAP client on a TCP connection, read by a thread of its own; `closed` is set
    when the adapter closes the connection."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        super().__init__()
        self.sock = socket.create_connection((host, port), timeout=WAIT)
        self.file = self.sock.makefile("rb")
        self.closed = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while (m := decode_stream(self.file)) is not None:
                self.inbox.put(m)
        except OSError:
            pass
        self.closed.set()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def close(self) -> None:
        self.sock.close()


class Adapter:
    """`python -m neurondbg dap --port 0 ARGS...` (the CLI: Ctrl+C exits 130); `lines`
    are its stderr lines before the first client (the banner)."""

    def __init__(self, *args: str, banner: int = 1) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "neurondbg", "dap", "--port", "0",
                                      *args], cwd=REPO, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        assert self.proc.stderr is not None
        self.lines = [self.proc.stderr.readline().rstrip("\n") for _ in range(banner)]
        self.port = int(self.lines[0].rsplit(":", 1)[1])

    def client(self, host: str = "127.0.0.1") -> SocketClient:
        return SocketClient(self.port, host)

    def interrupt(self) -> tuple[int, str]:
        """Ctrl+C: (exit code, the rest of stderr)."""
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(WAIT)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(WAIT)
