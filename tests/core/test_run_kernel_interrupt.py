"""Ctrl+C during `run KERNEL`: stops at a global step boundary, writes the outputs, exits 130."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from neurondbg.machine.isa.programs import kernel_text, spin
from tests.helpers import interrupted_run, interrupted_spin

SPIN = kernel_text(pool=spin(1), dve=spin(2))  # each engine counts in its own register
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The CPU time a child has used (Linux /proc): a readiness clock that a loaded host
    does not stretch, unlike the wall clock."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def test_ctrl_c_stops_a_kernel_saves_it_and_exits_130(tmp_path: Path) -> None:
    d, err, spin = interrupted_spin(tmp_path, SPIN)
    steps = d["steps"]
    assert f"interrupted at step {steps} (engine " in err and f"{spin}:" in err
    # both engines ran, in turn (rr), and the two counters add up to the global steps
    regs = d["engines"]["pool"]["registers"][1] + d["engines"]["dve"]["registers"][2]
    assert abs(d["engines"]["pool"]["steps"] - d["engines"]["dve"]["steps"]) <= 1
    assert d["engines"]["pool"]["steps"] + d["engines"]["dve"]["steps"] == steps
    # rr: pool ALU_OP, dve ALU_OP, pool branch, dve branch, ...
    assert regs == steps // 4 * 2 + min(steps % 4, 2)


def test_ctrl_c_stops_a_fast_kernel_run(tmp_path: Path) -> None:
    """Without a trace the core batches SEQ fast steps; Ctrl+C still stops it."""
    spin = tmp_path / "spin.asm"
    spin.write_text(SPIN)
    sess = tmp_path / "s.toml"
    # let it get going: import + load take ~0.5 s of CPU, so 1.5 s of CPU is inside the run
    # however slow the host (a wall-clock wait let Ctrl+C land during start-up under load)
    code, out, err = interrupted_run([str(spin), "--max-steps", str(10**12), "--save-session",
                                      str(sess), "--json"], lambda pid: cpu_seconds(pid) > 1.5)
    assert code == 130, err
    d = json.loads(out)
    assert d["stop"]["reason"] == "interrupt"
    assert tomllib.loads(sess.read_text())["position"]["steps"] == d["steps"]
    # the saved state is exact: reloading it (replaying that many steps) gives its digest
    again = subprocess.run([sys.executable, "-m", "neurondbg", "run", str(sess), "--max-steps",
                            "0", "--json"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["digest"] == d["digest"]
