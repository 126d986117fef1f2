"""The console command language against a real Session, and the console widget."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.console import COMMANDS, execute
from neurondbg.debug.session import Session
from neurondbg.views.console_view import ConsoleInput, ConsoleView, complete
from tests.ui.helpers import started

STEPS = Path(__file__).parent / "data" / "steps.asm"


@pytest.fixture
def session() -> Session:
    return Session(STEPS)


def out(reply) -> str:
    return "\n".join(text for text, _ in reply.lines)


def test_step_next_reverse(session: Session) -> None:
    assert "stepped MOVE" in out(execute("step", session))
    assert session.state.R[3] == 5
    r = execute("next 2", session)
    assert r.action == "refresh" and session.state.pc_index == 3
    assert "stopped after 2 steps (pc 0xc0)" in out(r)
    assert "invalid: COPY" in out(execute("s", session))  # record 3 is refused
    assert "reversed 2 step" in out(execute("reverse 2", session))
    assert session.state.pc_index == 1
    stepped = out(execute("step", session))
    execute("reverse", session)
    assert out(execute("next", session)) == stepped and session.state.pc_index == 2
    assert out(execute("n", session)) != stepped and session.state.pc_index == 3
    assert "positive" in out(execute("step 0", session))


def test_break_info_delete_watch(session: Session) -> None:
    assert "breakpoint #1 pc:0x80" in out(execute("break pc:0x80", session))
    assert "#2 pc:0xc0" in out(execute("break 0xc0", session))
    assert "#3 watch:R5" in out(execute("watch R5", session))
    info = out(execute("info breakpoints", session))
    assert "#1 pc:0x80" in info and "#3 watch:R5" in info
    assert "deleted breakpoint #2" in out(execute("delete 2", session))
    assert "error: delete: no breakpoint #9" in out(execute("delete 9", session))
    assert "deleted 2 breakpoint(s)" in out(execute("delete", session))
    assert out(execute("info b", session)) == "no breakpoints"
    assert execute("break", session).action == "break-cursor"
    bad = out(execute("break op:NOSUCH", session))
    assert bad.startswith("error: break: column 4: expected an opcode mnemonic")


def test_continue_is_a_ui_action(session: Session) -> None:
    assert execute("continue", session).action == "continue"
    assert execute("c", session).action == "continue"


def test_print_x_set_who(session: Session) -> None:
    execute("step", session)
    assert out(execute("print R3 + 1", session)) == "R3 + 1 = 6 (0x6)"
    assert out(execute("p sb[0, 0]:fp32", session)) == "sb[0, 0]:fp32 = 1.00390625"
    x = out(execute("x/4f sb[0, 0]", session))
    assert x == "sbuf[0, 0x0000]  1.00391  1.01172  3.4e+38  -2.5"
    assert out(execute("x/4x sb[1, 0]", session)) == "sbuf[1, 0x0000]  0x00  0x80  0x80  0x3f"
    assert "outside" in out(execute("x/8f sb[0, 0x37fff]", session))
    assert "expected sb[P, BYTE]" in out(execute("x/2f R5", session))
    assert "unknown format" in out(execute("x/2q sb[0, 0]", session))
    execute("set R7 = 9", session)
    assert session.state.R[7] == 9
    execute("set sb[2, 4]:fp32 = 1.5", session)
    assert out(execute("p sb[2, 4]:fp32", session)) == "sb[2, 4]:fp32 = 1.5"
    assert out(execute("who R3", session)) == "R3: last written by step 0 at pc 0x0"
    assert out(execute("who R9", session)) == "R9: not written since the start"
    assert "expected TARGET = VALUE" in out(execute("set R7 9", session))


def test_ui_actions_help_and_errors(session: Session) -> None:
    assert execute("lab 1.5 fp32 fp8_e4m3", session).args == ("1.5", "fp32", "fp8_e4m3")
    assert execute("goto 3 0x40 psum", session).args == (3, 0x40, "psum")
    assert execute("dtype bf16", session).args == ("bf16",)
    assert "expected one of" in out(execute("dtype nope", session))
    assert execute("pane struct", session).action == "pane"
    assert execute("quit", session).action == "quit"
    assert len(execute("help", session).lines) == len(COMMANDS) + 1
    assert out(execute("help who", session)).startswith("who TARGET")
    assert out(execute("frobnicate", session)).startswith("error: unknown command 'frobnicate'")
    assert execute("", session).lines == []


def test_completion() -> None:
    assert complete("co", COMMANDS) == "continue"
    assert complete("d", COMMANDS) in ("d", "de")  # delete / dtype share only "d"
    assert complete("zz", COMMANDS) == "zz"


async def test_console_widget_history_and_completion() -> None:
    async with started(STEPS, size=(160, 50)) as (app, pilot):
        box = app.screen.query_one(ConsoleInput)
        box.focus()
        await pilot.press(*"ste")
        await pilot.press("tab")
        assert box.value == "step "
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.state.pc_index == 1
        await pilot.press(*"print R3", "enter")
        await pilot.pause()
        log = "\n".join(app.screen.query_one(ConsoleView).messages)
        assert "> step" in log and "R3 = 5 (0x5)" in log
        await pilot.press("up")
        assert box.value == "print R3"
        await pilot.press("up")
        assert box.value == "step"
        await pilot.press("down", "down")
        assert box.value == ""
        box.value = "pane registers"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.maximized is app.screen.query_one("#pane-registers")
        box.value = "goto 5 0x100"
        await pilot.press("enter")
        await pilot.pause()
