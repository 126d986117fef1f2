"""Console commands for what the debugger has (rc, until/advance, continue N,
enable/disable, who PC), one bounds check everywhere, `set` that stores what it
reports, and the Session's interruptible long commands."""

from __future__ import annotations

import struct
import threading
from pathlib import Path

import pytest

from neurondbg.console import COMMANDS, HELP, execute
from neurondbg.debug.session import Session
from neurondbg.sessions.errors import SessionInterrupted
from neurondbg.views.console_view import complete
from tests.ui.helpers import started

DATA = Path(__file__).parent / "data"
STEPS = DATA / "steps.asm"  # MOVE @0x0, CAST @0x40, MOVE R5=7 @0x80, COPY (invalid), HALT
LOOP = DATA / "loop.asm"  # ADD R1 += 1 @0x0, branch to 0x0 while R1 > 0 @0x40, HALT


def out(reply) -> str:
    return "\n".join(text for text, _ in reply.lines)


def run(session: Session, line: str) -> str:
    """A console line as the App carries it out: the reply, then the armed run."""
    reply = execute(line, session)
    assert reply.action == "continue", out(reply)
    return out(reply) + "|" + session.run()


@pytest.fixture
def steps() -> Session:
    return Session(STEPS)


@pytest.fixture
def loop() -> Session:
    return Session(LOOP)


def test_reverse_continue_goes_back_to_the_breakpoint(steps: Session) -> None:
    execute("break pc:0x80", steps)
    assert "breakpoint: #1 pc:0x80" in run(steps, "continue")
    assert steps.state.pc == 0x80 and steps.state.steps == 2
    execute("step", steps)
    assert steps.state.pc == 0xC0
    text = run(steps, "rc")
    assert steps.state.pc == 0x80 and steps.state.steps == 2
    assert "#1 pc:0x80" in text and "after 1 step back" in text
    assert "start" in run(steps, "reverse-continue") and steps.state.steps == 0
    assert "takes no argument" in out(execute("rc 3", steps))


def test_until_and_advance_run_to_a_pc_or_label(steps: Session, loop: Session) -> None:
    text = run(steps, "until 0x80")
    assert steps.state.pc == 0x80 and "reached" in text and "0x80" in text
    steps.reverse(2)
    run(steps, "advance loop")  # the label of record 2
    assert steps.state.pc == 0x80
    execute("break pc:0x40", loop)
    run(loop, "u 0x80")  # a breakpoint on the way still stops
    assert loop.state.pc == 0x40 and loop.state.R[1] == 1
    assert execute("until", steps).action == "until-cursor"
    assert "is not a record address" in out(execute("until 0x44", steps))
    assert "labels: loop, start" in out(execute("advance nowhere", steps))
    assert "expected an address" in out(execute("advance", steps))


def test_continue_n_passes_the_breakpoint_n_minus_1_more_times(loop: Session) -> None:
    execute("break 0x40", loop)
    run(loop, "continue")
    assert loop.state.R[1] == 1
    text = run(loop, "continue 3")
    assert "will ignore the next 2 crossing(s) of breakpoint #1" in text
    assert loop.state.pc == 0x40 and loop.state.R[1] == 4
    run(loop, "continue")  # the count was used up: the next crossing stops
    assert loop.state.R[1] == 5
    execute("step", loop)
    assert "not stopped at a breakpoint" in run(loop, "continue 5")
    assert loop.state.R[1] == 6
    assert "positive" in out(execute("continue 0", loop))


def test_info_shows_an_unused_ignore_count(loop: Session) -> None:
    execute("break 0x40", loop)
    run(loop, "continue")
    loop.ignore_current(4)
    assert "will ignore the next 3 crossing(s)" in out(execute("info breakpoints", loop))


def test_enable_disable(loop: Session) -> None:
    execute("break 0x40", loop)
    execute("break 0x0", loop)
    assert out(execute("disable 2", loop)) == "disabled #2"
    assert "(disabled)" in out(execute("info b", loop))
    run(loop, "continue")
    assert loop.state.pc == 0x40
    assert out(execute("disable", loop)) == "disabled #1, #2"
    assert out(execute("enable 1 2", loop)) == "enabled #1, #2"
    assert "no breakpoint #7" in out(execute("enable 7", loop))
    assert "expected breakpoint numbers" in out(execute("enable x", loop))
    run(loop, "continue")
    assert loop.state.pc == 0x0


def test_who_pc_is_the_previous_step(steps: Session) -> None:
    assert out(execute("who PC", steps)) == "PC: not set since the start"
    execute("step", steps)
    execute("step", steps)
    assert out(execute("who PC", steps)) == "PC: last set by step 1 at pc 0x40"


def test_who_past_the_journal_budget_says_history_was_folded() -> None:
    loop = Session(LOOP, journal_budget=64 * 1024)  # a small budget: most steps get folded
    loop.step(200_000)
    assert loop.state.journal.origin > 0
    assert out(execute("who R9", loop)) == \
        "R9: not written within the kept history (older steps are folded into checkpoints)"
    assert out(execute("who R1", loop)) == "R1: last written by step 199998 at pc 0x0"


@pytest.mark.parametrize("line, message", [
    ("watch sb[200, 0]", "sbuf partition 200 does not exist (0..127)"),
    ("watch sem[999]", "sem[999] does not exist (sem[0]..sem[255])"),
    ("break pc:0x1000", "PC 0x1000 is not a record address of the program"),
    ("break 0x140", "PC 0x140 is not a record address of the program (expected 0x0 + 64*i "
                    "for i in 0..4)"),
    ("until 0x140", "PC 0x140 is not a record address of the program"),
    ("break op:CAST if sb[0, 0x40000] > 1", "sbuf bytes 262144..262144 are outside the "
                                            "partition (0..229375)"),
    ("break if:acc[128] > 0", "acc[128]: partition 128 does not exist (0..127)"),
    ("print sb[128, 0]", "sbuf partition 128 does not exist (0..127)"),
    ("print idx[0, 9]", "idx[0, 9]: index register 9 does not exist (0..7)"),
    ("x/8f sb[0, 0x37fff]", "sbuf bytes 229375..229406 are outside the partition"),
    ("set sb[0, 0x40000] = 1", "sbuf bytes 262144..262144 are outside the partition"),
    ("goto 128 0", "sbuf partition 128 does not exist (0..127)"),
    ("goto 0 0x4000 psum", "psum bytes 16384..16384 are outside the partition (0..16383)"),
    ("who sb[500, 0]", "sbuf partition 500 does not exist (0..127)"),
])
def test_bounds_are_checked_the_same_way_everywhere(steps: Session, line: str,
                                                    message: str) -> None:
    text = out(execute(line, steps))
    assert text.startswith("error: ") and message in text and "\n" not in text
    assert steps.breakpoints() == []


def test_print_reports_evaluation_errors(steps: Session) -> None:
    assert out(execute("print R3 / 0", steps)) == "error: print: division by zero"
    assert out(execute("print 1 + 2 << 1", steps)) == "1 + 2 << 1 = 6 (0x6)"
    assert "levels of nesting" in out(execute("print " + "(" * 141 + "1" + ")" * 141, steps))
    assert "at most 64 bits" in out(execute("print " + "9" * 1000, steps))


def test_set_stores_what_it_reports_or_refuses(steps: Session) -> None:
    state = steps.state
    assert out(execute("set R5 = 1.5", steps)).startswith(
        "error: set: R5 holds integers; 1.5 is not one")
    assert state.R[5] == 0
    assert out(execute("set R5:fp32 = 1.5", steps)) == "R5:fp32 = 1.5 (0x3fc00000)"
    assert state.R[5] == struct.unpack("<I", struct.pack("<f", 1.5))[0]
    assert out(execute("set R5 = -1", steps)) == "R5 = 4294967295 (0xffffffff)"
    assert state.R[5] == 0xFFFFFFFF
    assert "does not fit" in out(execute("set R5 = 1 << 32", steps))
    assert state.R[5] == 0xFFFFFFFF
    assert "does not fit" in out(execute("set sb[0, 0] = 300", steps))
    assert state.sbuf[0, 0] == 0x00  # (the .data fp32 1.00390625 starts 0x00 0x80 0x80 0x3f)
    text = out(execute("set sb[2, 4]:bf16 = 1.1", steps))
    assert text == "sb[2, 4]:bf16 = 1.1015625 (0x3f8d; rounded from 1.1)"
    assert bytes(state.sbuf[2, 4:6]) == b"\x8d\x3f"
    assert out(execute("p sb[2, 4]:bf16", steps)) == "sb[2, 4]:bf16 = 1.1015625"
    assert out(execute("set PC = 0x80", steps)) == "PC = 0x80" and state.pc == 0x80
    assert "is not a record address" in out(execute("set PC = 0x7", steps))
    assert "division by zero" in out(execute("set R6 = R5 / 0", steps))


def test_set_is_undone_by_reverse(steps: Session) -> None:
    execute("step", steps)
    execute("set R3 = 42", steps)
    assert steps.state.R[3] == 42 and steps.state.steps == 1
    assert out(execute("reverse", steps)) == "reversed 1 step to pc 0x40"
    assert steps.state.R[3] == 5 and steps.state.steps == 1  # the edit, not the step
    execute("reverse", steps)
    assert steps.state.R[3] == 0 and steps.state.steps == 0


def test_x_count_is_bounded(steps: Session) -> None:
    assert "expected a count 1..1024" in out(execute("x/0x sb[0, 0]", steps))
    assert "expected a count 1..1024" in out(execute("x/99999999999999x sb[0, 0]", steps))
    assert len(execute("x/1024x sb[0, 0]", steps).lines) == 128


def test_help_and_completion_know_the_new_commands() -> None:
    for name in ("reverse-continue", "until", "advance", "enable", "disable"):
        assert name in COMMANDS and HELP[name].startswith(name.split("-")[0])
    assert complete("reverse-", COMMANDS) == "reverse-continue"
    assert complete("adv", COMMANDS) == "advance"
    assert complete("en", COMMANDS) == "enable"
    assert complete("dis", COMMANDS) == "disable"
    assert complete("di", COMMANDS) == "di"  # diagnose, disable: only the common prefix
    assert complete("un", COMMANDS) == "until"


def test_reverse_many_steps_and_past_the_start(loop: Session) -> None:
    loop.step(1000)
    assert loop.reverse(401) == "reversed 401 steps to pc 0x40"
    assert loop.state.steps == 599 and loop.state.R[1] == 300
    assert loop.reverse(10**9) == "reversed 599 steps to pc 0x0: the start of history"
    assert loop.reverse(1) == "at the start of history: nothing to reverse"


def test_a_long_run_reports_progress_and_stops(loop: Session) -> None:
    reports: list[int] = []
    timer = threading.Timer(0.3, loop.stop)
    timer.start()
    text = loop.run(lambda steps, rate: reports.append(steps), slice_s=0.02)
    timer.join()
    assert text.startswith("interrupt: stopped by the user")
    assert reports and reports == sorted(reports) and reports[-1] <= loop.state.steps
    assert not loop.busy


def test_loading_a_session_reports_progress_and_can_be_interrupted(tmp_path: Path) -> None:
    s = Session(LOOP)
    s.step(5000)
    s.save(tmp_path / "at5000.toml")
    seen: list[tuple[int, int]] = []
    again = Session(tmp_path / "at5000.toml", progress=lambda d, n: seen.append((d, n)))
    assert again.state.steps == 5000 and again.state.R[1] == s.state.R[1]
    assert seen and seen[-1][1] == 5000
    stop = threading.Event()
    stop.set()
    with pytest.raises(SessionInterrupted):
        Session(tmp_path / "at5000.toml", interrupt=stop)


def test_arming_while_running_is_refused(loop: Session) -> None:
    loop.busy = True
    assert "running: Esc or Ctrl+C stops it first" in out(execute("until 0x40", loop))
    assert "running" in out(execute("rc", loop))


async def test_the_app_carries_out_an_armed_until() -> None:
    async with started(STEPS, size=(160, 50)) as (app, pilot):
        await app.run_command_async("until 0x80")
        await pilot.pause()
        assert app.session.state.pc == 0x80 and not app.running
        await app.run_command_async("break 0x40")
        await app.run_command_async("rc")
        await pilot.pause()
        assert app.session.state.pc == 0x40 and app.session.state.steps == 1


@pytest.mark.parametrize(("flag", "line"), [("loading", "loading the program…"),
                                            ("running", "running: Esc or Ctrl+C stops")])
async def test_keys_pressed_while_busy_say_why_once(flag: str, line: str) -> None:
    async with started(STEPS, size=(160, 50)) as (app, pilot):
        console = app.query_one("ConsoleView")
        setattr(app, flag, True)
        try:
            await pilot.press("s", "s", "s")
            await pilot.pause()
            assert console.messages[-1] == line
            assert console.messages.count(line) == 1
            app.say("something else")
            await pilot.press("s")
            await pilot.pause()
            assert console.messages.count(line) == 2  # said again after another line
        finally:
            setattr(app, flag, False)
