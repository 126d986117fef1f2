"""A stand-in for `neurondbg tui` under textual-serve: it speaks the web driver's pipe
protocol (the `__GANGLION__` line, then D / M packets) without importing Textual, so the
server's tests start an app in milliseconds.

With `--wait` it is a waiting process (neurondbg.serve.waiting): it first reads the
size line from stdin. It writes `pid=N` first (`pid=N size=WxH` with `--wait`); then,
for stdin data `c` its working folder (`cwd=PATH`), for `s` it saves `saved.toml` there
(`saved`), for each meta packet its type and size (`meta=resize 120x40`); a `quit` meta
or the end of stdin ends it with an `exit` meta.
"""

from __future__ import annotations

import json
import os
import sys

out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(kind: bytes, payload: bytes) -> None:
    out.write(kind + len(payload).to_bytes(4, "big") + payload)
    out.flush()


def say(text: str) -> None:
    send(b"D", f"{text}\r\n".encode())


size = ""
if "--wait" in sys.argv:
    line = b""
    while (byte := os.read(0, 1)) not in (b"\n", b""):
        line += byte
    if not line:
        sys.exit(0)
    given = json.loads(line)
    size = f"size={given['width']}x{given['height']}"
out.write(b"__GANGLION__\n")
say(f"pid={os.getpid()} {size}")
while len(head := inp.read(5)) == 5:
    body = inp.read(int.from_bytes(head[1:], "big"))
    if head[:1] == b"M":
        meta = json.loads(body)
        if meta["type"] == "quit":
            break
        say(f"meta={meta['type']} {meta.get('width', '')}x{meta.get('height', '')}")
    elif body == b"c":
        say(f"cwd={os.getcwd()}")
    elif body == b"s":
        with open("saved.toml", "w") as f:
            f.write("saved = true\n")
        say("saved")
send(b"M", json.dumps({"type": "exit"}).encode())
