"""The console's `diagnose`: the last Cast's destination held the device's output.

Run in a child interpreter: importing neurondbg.console_diagnose registers `diagnose` in
the console's one REGISTRY, and until neurondbg.console imports it itself the other
console tests (which compare the registry with the help) must not see it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# the destination is loaded with what a ties-away device wrote: 1.00390625 -> 0x3f81
PROGRAM = (
    ".data sb[0:p4, 0] fp32 1.00390625 1.01171875 2.5 0.1 7 1.5 -1.00390625 3\n"
    ".data sb[0:p4, 0x100] bf16 1.0078125 1.015625 2.5 0.10009765625 7 1.5 -1.0078125 3\n"
    "MOVE R3=5\n"
    "CAST src=sb[0, 0] dst=sb[0, 0x100] in_dtype=FP32 out_dtype=BF16 nac=4 "
    "src.step=[1,0,0,0] src.num=[8,1,1,1] dst.step=[1,0,0,0] dst.num=[8,1,1,1]\n"
    "HALT\n")

CHILD = """
import json, sys
import neurondbg.console_diagnose  # noqa: F401
from neurondbg.console import execute
from neurondbg.debug.session import Session
s = Session(sys.argv[1])
print(json.dumps([[t for t, _ in execute(line, s).lines] for line in sys.argv[2:]]))
"""


def console(tmp_path: Path, *lines: str) -> list[list[str]]:
    path = tmp_path / "device.asm"
    path.write_text(PROGRAM)
    res = subprocess.run([sys.executable, "-c", CHILD, str(path), *lines],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_diagnose_names_the_devices_rule(tmp_path: Path) -> None:
    before, _step, lines, lane, bad = console(tmp_path, "diagnose", "step 2", "diagnose",
                                              "diagnose 0,0", "diagnose 9,9")
    assert "no conversion in effect" in before[0]
    assert lines[1].startswith("32 lanes: all match neuron rint (nearest, ties to even) except "
                               "8 ties, which match ieee round (nearest, ties away from zero)")
    assert "e.g. lane [0, 0]: 1.00390625 → 0x3f81, expected 0x3f80" in lines[1]
    assert any("lane p0 e6: -1.00390625 -> 0xbf81, expected 0xbf80" in ln for ln in lines)
    assert "expected: neuron rint" in lane and "explained by: ieee round" in lane
    assert any("ties go to the even code, 0x3f80" in ln for ln in lane)
    assert any("ties go away from zero, to 0x3f81" in ln for ln in lane)
    assert len(bad) == 1 and "outside the Cast's 4x8 lanes" in bad[0]
