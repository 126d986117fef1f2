"""How fast (and in how little memory) bad inputs are refused, and what the limits cost
on good ones ("Inputs have sane limits"; limits in machine/files.py).

Usage: python benchmarks/input_limits_bench.py   (prints figures; not part of the tests)

Each case runs in a fresh subprocess so its peak RSS is its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

CASE = r"""
import resource, sys, time
from click import ClickException
kind, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
try:
    if kind == "load_any":
        from neurondbg.machine.asm import load_any
        load_any(path)
    elif kind == "assemble":
        from neurondbg.machine.asm import assemble
        assemble(open(path, encoding="utf-8").read(), path)
    elif kind == "npy":
        from neurondbg.commands._npy import load_sbuf
        load_sbuf(path)
    outcome = "accepted"
except (ValueError, ClickException) as e:  # the model's refusals, and the CLI's InputError
    outcome = "refused: " + str(e).splitlines()[0][:90]
dt = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{dt:8.3f} s {rss:8.0f} MB  {outcome}")
"""


def run(label: str, kind: str, path: Path) -> None:
    r = subprocess.run([sys.executable, "-c", CASE, kind, str(path)], capture_output=True,
                       text=True, timeout=600)
    print(f"{label:<44} {(r.stdout or r.stderr).strip().splitlines()[-1]}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        nul = d / "zeros.bin"
        with nul.open("wb") as f:
            f.truncate(2 * 1024**3)  # sparse
        run("2 GiB of NUL bytes as a program", "load_any", nul)
        nul_asm = d / "zeros.asm"
        with nul_asm.open("wb") as f:
            f.truncate(200 * 1024**2)  # under the size limit: the text check must be fast
        run("200 MiB of NUL bytes named .asm", "load_any", nul_asm)
        fifo = d / "fifo.bin"
        os.mkfifo(fifo)
        run("a FIFO as a program", "load_any", fifo)
        feeds = d / "feeds.asm"
        feeds.write_text("\x0c" * (2 * 1024 * 1024 + 1))
        run("2,097,153 form feeds (lines over the limit)", "assemble", feeds)
        long_line = d / "long.asm"
        long_line.write_text(".data sb[0, 0] int8 " + "1 " * 2_000_000 + "\n")
        run("a 4 MB line", "assemble", long_line)
        wide = d / "wide.asm"
        wide.write_text(".bytes sb[0:128, 0] 0x" + "ab" * 200_000 + "\n")
        run(".bytes line of 200 KB x 128 partitions (ok)", "assemble", wide)
        fill = d / "fill.asm"
        fill.write_text(".fill sb[0:128, 0] int8 count=229376 step=0\n"
                        ".fill sb[0:128, 0] fp32 count=1000000000000\n")
        run(".fill int8 over all of SBUF, then 10**12", "assemble", fill)
        huge = d / "huge.npy"
        header = "{'descr': '|u1', 'fortran_order': False, 'shape': (1000000, 1000000), }"
        header += " " * (-(10 + len(header) + 1) % 64) + "\n"
        huge.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
                         + header.encode())
        run(".npy header claiming (10**6, 10**6)", "npy", huge)


if __name__ == "__main__":
    main()
