"""A trace printed narrower than its table wraps its sentences at words, never cuts them."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from neurondbg.cli import cli
from neurondbg.commands.convert import _print_trace
from neurondbg.machine.convert import trace

BOX = re.compile(r"[│┃┏┓┗┛┡┩┢┪╇╈┳┻━─└┘┌┐├┤┼┬┴╭╮╰╯]")


def f32(x: float) -> int:
    return int(np.array([x], np.float32).view(np.uint32)[0])


def words(text: str) -> str:
    return " ".join(BOX.sub(" ", text).split())


TRACES = [(f32(70000.0), "fp32", "fp16", "ieee"), (f32(0.001), "fp32", "fp8_e4m3fn", "ieee"),
          (f32(1e10), "fp32", "int64", "neuron"), (f32(1.3), "fp32", "hif8", "ieee")]


@pytest.mark.parametrize("width", [50, 80, 100, 120, 160])
@pytest.mark.parametrize("bits,src,dst,profile", TRACES)
def test_every_sentence_is_printed_whole(width: int, bits: int, src: str, dst: str,
                                         profile: str) -> None:
    t = trace(bits, src, dst, "rint", False, profile)
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, no_color=True, highlight=False)
    _print_trace({"input": "x", "input_bits": hex(bits), "output_bits": hex(t.output_bits)},
                 t, console)
    out = buf.getvalue()
    assert all(len(line) <= width for line in out.splitlines()), out
    flat = words(out)
    for s in t.steps:
        assert words(s.text) in flat, (width, s.text)
    assert "…" not in out.replace("…(", "").replace(")…", "")  # only elided bit strings


def test_piped_cli_trace_fits_160_columns_and_keeps_its_sentences() -> None:
    res = CliRunner().invoke(cli, ["convert", "70000", "--from", "fp32", "--to", "fp16",
                                   "--trace"])
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) <= 160
    assert words("no ulp error (the output is not a rounding of the value)") in \
        words(res.output)
