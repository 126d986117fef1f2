"""The console's `export trace` / `export lanes`: the last Cast's lanes to a file,
atomically, never onto the program, and to the browser when served.

Run in a child interpreter: importing neurondbg.console_export registers `export` in the
console's one REGISTRY, and until neurondbg.console imports it itself the other console
tests (which compare the registry with the help) must not see it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from neurondbg.documents import Kind
from tests.json.check import errors

PROGRAM = (
    ".data sb[0:p4, 0] fp32 1.00390625 1.01171875 2.5 0.1 7 1.5 -1.00390625 3\n"
    "MOVE R3=5\n"
    "CAST src=sb[0, 0] dst=sb[0, 0x100] in_dtype=FP32 out_dtype=BF16 nac=4 "
    "src.step=[1,0,0,0] src.num=[8,1,1,1] dst.step=[1,0,0,0] dst.num=[8,1,1,1]\n"
    "HALT\n")

# The App on the program, in a Pilot; each argv line runs in the console (`web` first
# makes the App a served one); prints the console's new lines per command and what
# was delivered to the browser.
CHILD = """
import asyncio, json, sys
import neurondbg.console  # first: once it imports console_export itself, HELP lists it
import neurondbg.console_export  # noqa: F401
from neurondbg.app import NeurondbgApp
from neurondbg.views.console_view import ConsoleView

delivered = []
NeurondbgApp.deliver_binary = (
    lambda self, path, *, save_filename=None, **_: delivered.append([str(path), save_filename]))

async def main():
    app = NeurondbgApp(sys.argv[1])
    out = []
    async with app.run_test(size=(160, 50)) as pilot:
        await app.wait_loaded()
        log = app.screen.query_one(ConsoleView).messages
        for line in sys.argv[2:]:
            if line == "web":
                NeurondbgApp.is_web = property(lambda self: True)
                continue
            seen = len(log)
            app.run_command(line)
            await pilot.pause()
            out.append([str(m) for m in log[seen:]])
    print(json.dumps({"replies": out, "delivered": delivered}))

asyncio.run(main())
"""


def console(tmp_path: Path, *lines: str) -> dict:
    path = tmp_path / "cast.asm"
    path.write_text(PROGRAM)
    res = subprocess.run([sys.executable, "-c", CHILD, str(path), *lines], cwd=tmp_path,
                         capture_output=True, text=True, timeout=180, check=False)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_export_writes_the_trace_and_delivers_it_only_when_served(tmp_path: Path) -> None:
    got = console(tmp_path, "export trace early.txt", "step 2", "export trace t.txt",
                  "web", "export trace t.json 2,3", "export lanes lanes.txt")
    early, _step, text, as_json, lanes = got["replies"]
    assert "no conversion in effect" in early[0] and not (tmp_path / "early.txt").exists()
    assert text == ["exported lane p0 e0's trace of step 1 to t.txt"]
    page = (tmp_path / "t.txt").read_text()
    # `convert --trace`'s text: the row table, the trace table, the legend
    assert "step 1, lane p0 e0: fp32 -> bf16  (neuron, rint, nosat)" in page
    row = "│ 1.00390625 │ 0x3f808000 │  1.00390625 │      0x3f80 │          1.0 │ inexact tie │"
    assert row in page
    assert "trace of 1.00390625 (0x3f808000 -> 0x3f80)" in page
    assert "ties go to the even code, 0x3f80" in page
    assert page.rstrip().endswith("a long part reads 1000…(N bits)…0001")
    assert as_json == ["exported lane p2 e3's trace of step 1 to t.json"]
    (row,) = rows = json.loads((tmp_path / "t.json").read_text())
    assert row["schema"] == "neurondbg.convert/1" and errors(rows, Kind.CONVERT) == []
    assert (row["lane"], row["step"], row["input_bits"], row["output_bits"]) == \
        ([2, 3], 1, "0x3dcccccd", "0x3dcd")
    assert row["trace"]["output_bits"] == "0x3dcd" and row["flags"] == ["inexact"]
    assert [s["name"] for s in row["trace"]["steps"]][-1] == "error"
    assert lanes == ["exported all 32 lanes of step 1 to lanes.txt"]
    rows = (tmp_path / "lanes.txt").read_text().splitlines()
    assert len(rows) == 2 + 32
    assert rows[2] == "p0   e0      0x3f808000 -> 0x3f80  inexact tie"
    # the terminal run delivered nothing; served, each export reached the browser
    assert got["delivered"] == [[str(Path("t.json")), "t.json"],
                                [str(Path("lanes.txt")), "lanes.txt"]]


def test_export_lanes_json_holds_every_lane(tmp_path: Path) -> None:
    got = console(tmp_path, "step 2", "export lanes l.json")
    assert got["replies"][1] == ["exported all 32 lanes of step 1 to l.json"]
    doc = json.loads((tmp_path / "l.json").read_text())
    assert doc["schema"] == "neurondbg.lanes/1" and errors(doc, Kind.LANES) == []
    assert (doc["shape"], doc["src"], doc["dst"], doc["p0"]) == ([4, 8], "fp32", "bf16", 0)
    assert len(doc["lanes"]) == 32
    assert doc["lanes"][1] == {"lane": [0, 1], "input_bits": "0x3f818000",
                               "output_bits": "0x3f82", "written": True,
                               "flags": ["inexact", "tie"]}


def test_export_never_writes_onto_the_program_and_reports_bad_lanes(tmp_path: Path) -> None:
    got = console(tmp_path, "step 2", "export trace cast.asm", "export trace x.txt 9,9",
                  "export trace x.txt p", "export lanes x.txt 1,1", "export", "web",
                  "export trace cast.asm")
    _, program, outside, bad, extra, usage, program_web = got["replies"]
    assert program == ["error: export: cast.asm: export would overwrite the loaded program "
                       f"{tmp_path / 'cast.asm'}; choose another file"]
    assert (tmp_path / "cast.asm").read_text() == PROGRAM
    assert outside == ["error: export: lane p9 e9 is outside the Cast's 4x8 lanes "
                       "(partitions from 0)"]
    assert bad == ["error: export: expected a lane P,E (e.g. 0,0), found 'p'"]
    assert extra == ["error: export: export lanes takes no lane, found '1,1'"]
    assert usage == ["error: export: expected `export trace PATH [P,E]` or "
                     "`export lanes PATH`"]
    assert program_web == program and got["delivered"] == []  # a refused file is not sent
    assert not (tmp_path / "x.txt").exists()


def test_export_and_save_refuse_a_file_of_another_kind_unless_forced(tmp_path: Path) -> None:
    session = "schema = 1\n[program]\npath = 'cast.asm'\n"
    (tmp_path / "s.toml").write_text(session)
    (tmp_path / "k.toml").write_text("[kernel]\ngen = 'cayman'\n[engines]\npool = 'p.bin'\n")
    got = console(tmp_path, "step 2", "export trace s.toml", "export trace s.toml --force",
                  "save k.toml")
    _, refused, forced, save = got["replies"]
    assert refused == ["error: export: s.toml: cannot write: it holds a session, not "
                       "a text file: refusing to replace it (--force replaces it)"]
    assert forced == ["exported lane p0 e0's trace of step 1 to s.toml"]
    assert "step 1, lane p0 e0" in (tmp_path / "s.toml").read_text()
    # the console's save offers no --force: the hint says what to do instead
    assert len(save) == 1 and save[0].startswith("error: save: ")
    assert save[0].endswith("it holds a kernel manifest, not a session: refusing to replace "
                            "it (choose another file)")
    assert (tmp_path / "k.toml").read_text().startswith("[kernel]")
