"""A `pause` that raced the end of a run (it saw the run going, the run then stopped by
itself) leaves the model's interrupt set; the next command must still run, not report
"pause" at once (neurondbg/dap/protocol.py `_ready`)."""

from __future__ import annotations

from tests.dap.client import EXAMPLES
from tests.dap.test_adapter import frame, launched, registers

LOOP = EXAMPLES / "loop.asm"  # R1 += 3, R2 -= 1 until R2 == 0 (lines 7, 8), HALT (line 11)


def test_a_late_pause_does_not_stop_the_next_continue_or_step() -> None:
    c = launched(LOOP)
    c.ok("setBreakpoints", source={"path": str(LOOP)}, breakpoints=[{"line": 8}])
    c.ok("configurationDone")
    assert c.event("stopped")["body"]["reason"] == "breakpoint"
    target = c.adapter.target
    assert target is not None
    target.interrupt.set()  # what the raced pause leaves behind
    c.ok("next", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "step"
    assert frame(c)["line"] == 10
    target.interrupt.set()
    c.ok("continue", threadId=1)
    assert c.event("stopped")["body"]["reason"] == "breakpoint"
    assert registers(c)["R1"] == "0x00000006 (6)"
