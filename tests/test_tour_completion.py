"""Tour names complete in the shell (click's completion protocol, as the scripts that
`_NEURONDBG_COMPLETE=bash_source neurondbg` prints call it), without the model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from neurondbg.commands.tour import command, complete_names
from neurondbg.sessions.tours import list_tours

NAMES = [t.name for t in list_tours()]


def complete(shell: str, words: str, cword: int) -> list[str]:
    env = dict(os.environ, _NEURONDBG_COMPLETE=f"{shell}_complete", COMP_WORDS=words,
               COMP_CWORD=str(cword))
    out = subprocess.run([sys.executable, "-m", "neurondbg"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert (out.returncode, out.stderr) == (0, "")
    return [line for line in out.stdout.splitlines() if line]  # bash: "" for none


def test_bash_completes_every_tour_name() -> None:
    assert complete("bash", "neurondbg tour ", 2) == [f"plain,{n}" for n in NAMES]
    assert len(NAMES) >= 5


@pytest.mark.parametrize("prefix", ["c", "co", "se", "move-", "x", ""])
def test_a_prefix_completes_the_names_that_start_with_it(prefix: str) -> None:
    expected = [f"plain,{n}" for n in NAMES if n.startswith(prefix)]
    assert complete("bash", f"neurondbg tour {prefix}", 2) == expected


def test_zsh_shows_each_tours_description() -> None:
    lines = complete("zsh", "neurondbg tour cast", 2)
    (info,) = [t for t in list_tours() if t.name.startswith("cast")]
    assert lines == ["plain", info.name, info.description]


def test_the_completion_reads_what_the_listing_reads() -> None:
    ctx = command.make_context("tour", [], resilient_parsing=True)
    param = command.params[0]
    items = complete_names(ctx, param, "")
    assert [(i.value, i.help) for i in items] == [(t.name, t.description) for t in list_tours()]
