"""sessions.cli_support.open_path: every kind of path the CLI takes, opened one way."""

from __future__ import annotations

from pathlib import Path

import pytest

from neurondbg.machine.isa.programs import kernel_text, spin
from neurondbg.sessions import examples
from neurondbg.sessions.cli_support import Opened, OpenedKernel, open_path, save_opened
from neurondbg.sessions.errors import SessionError

EX = examples.folder()


def test_a_program_opens_on_a_machine_with_its_engine_and_gen() -> None:
    o = open_path(EX / "loop.asm", None, "dve")
    assert isinstance(o, Opened) and not o.is_session
    assert (o.machine.config.engine, o.machine.config.gen.label) == ("dve", "cayman")


def test_a_kernel_source_opens_on_a_core_with_its_schedule() -> None:
    o = open_path(EX / "kernels" / "producer_consumer.asm", schedule="in-order", races=False)
    assert isinstance(o, OpenedKernel)
    assert o.core.engines == ("pool", "dve")
    assert o.core.schedule == "in-order" and o.core.detector is None


def test_sessions_of_both_kinds_save_and_reopen_at_their_step(tmp_path: Path) -> None:
    prog = open_path(EX / "loop.asm")
    assert isinstance(prog, Opened)
    prog.core.cont(max_steps=7)
    save_opened(tmp_path / "p.toml", prog)
    kern = open_path(EX / "kernels" / "double_buffer.asm")
    assert isinstance(kern, OpenedKernel)
    kern.core.cont(max_steps=9)
    save_opened(tmp_path / "k.toml", kern)
    again_p = open_path(tmp_path / "p.toml", None, "act")  # the session's engine wins
    again_k = open_path(tmp_path / "k.toml", schedule="random:3")  # its schedule wins
    assert isinstance(again_p, Opened) and again_p.is_session
    assert again_p.machine.state.steps == 7 and again_p.machine.config.engine == "pool"
    assert again_p.machine.state.digest() == prog.machine.state.digest()
    assert isinstance(again_k, OpenedKernel) and again_k.session is not None
    assert again_k.core.steps == 9 and again_k.core.schedule == "rr"
    assert again_k.core.digest() == kern.core.digest()


@pytest.mark.parametrize("text", ["junk !!\n", kernel_text(pool=spin(1), dve="junk !!\n")],
                         ids=["program", "kernel"])
def test_bad_input_is_one_session_error_naming_the_file(tmp_path: Path, text: str) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text(text)
    with pytest.raises(SessionError) as e:
        open_path(bad)
    assert str(e.value).startswith(str(bad)) and "\n" not in str(e.value)
