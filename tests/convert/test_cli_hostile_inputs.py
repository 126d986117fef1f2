"""`.npy` headers and lane indices are judged before anything is allocated or parsed whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli


def npy_with_header(path: Path, shape: str, descr: str = "<f4", data: bytes = b"\0" * 16
                    ) -> str:
    """A .npy file whose header says `shape` (a Python tuple's text), followed by `data`."""
    head = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    head += " " * ((64 - (10 + len(head) + 1) % 64) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head.encode()
                     + data)
    return str(path)


SHAPES = [("(-1,)", "negative dimension"), ("(4, -1)", "negative dimension"),
          ("(2147483647, 2147483647)", "header promises 18446744056529682436 bytes"),
          ("(134217728,)", "header promises 536870912 bytes"),
          ("(100000, 100000, 1000)", "header promises 40000000000000 bytes"),
          ("(5,)", "header promises 20 bytes of array data, the file holds 16")]


def one_line(res, code: int = 2) -> str:
    assert res.exit_code == code, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("neurondbg: error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


@pytest.mark.parametrize("shape,needle", SHAPES)
def test_diagnose_judges_the_header(tmp_path: Path, shape: str, needle: str) -> None:
    bad = npy_with_header(tmp_path / "bad.npy", shape)
    ok = tmp_path / "ok.npy"
    np.save(ok, np.array([1.0, 2.0], np.float32))
    for args in ((bad, str(ok)), (str(ok), bad)):
        line = one_line(CliRunner().invoke(cli, ["diagnose", *args, "--from", "fp32", "--to",
                                                 "bf16"]))
        assert "bad.npy" in line and needle in line


@pytest.mark.parametrize("shape,needle", SHAPES)
def test_convert_input_judges_the_header(tmp_path: Path, shape: str, needle: str) -> None:
    bad = npy_with_header(tmp_path / "bad.npy", shape)
    line = one_line(CliRunner().invoke(cli, ["convert", "--input", bad, "--from", "fp32",
                                             "--to", "bf16"]))
    assert "bad.npy" in line and needle in line


def test_sbuf_image_judges_the_header(tmp_path: Path) -> None:
    from neurondbg.commands._npy import load_sbuf
    from neurondbg.errors import InputError

    bad = npy_with_header(tmp_path / "sb.npy", "(-3, 4)", "|u1")
    with pytest.raises(InputError, match="negative dimension"):
        load_sbuf(bad)


def test_a_header_that_fits_its_data_still_reads(tmp_path: Path) -> None:
    good = npy_with_header(tmp_path / "g.npy", "(4,)", data=np.float32([1, 2, 3, 4]).tobytes())
    res = CliRunner().invoke(cli, ["convert", "--input", good, "--from", "fp32", "--to", "bf16"])
    assert res.exit_code == 0, res.output
    assert len([ln for ln in res.output.splitlines() if not ln.startswith("#")]) == 4


@pytest.mark.parametrize("lane,needle", [
    ("9" * 5000, "outside the 4 lanes"), ("1," + "7" * 5000, "outside the 4 lanes"),
    ("-" + "1" * 4400, "outside the 4 lanes"), ("4", "outside the shape (4,)"),
    ("x" * 5000, "expected an index such as 3,17")],
    ids=["5000 digits", "two indices", "negative", "one past", "not a number"])
def test_diagnose_trace_lane_of_any_length_is_one_line(tmp_path: Path, lane: str,
                                                       needle: str) -> None:
    x, y = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(x, np.float32([1, 2, 3, 4]))
    np.save(y, np.float32([1, 2, 3, 4]))
    line = one_line(CliRunner().invoke(cli, ["diagnose", str(x), str(y), "--from", "fp32",
                                             "--to", "bf16", "--trace-lane", lane]))
    assert needle in line and len(line) < 200
