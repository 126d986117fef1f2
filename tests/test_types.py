"""mypy over the tree, with the options of pyproject.toml [tool.mypy]: the parts at 0
errors stay at 0 and every other part's error count only ever goes down.

The counts are in tests/mypy_baseline.txt, one `part count` a line. A part is a
top-level package, except that machine/'s subpackages and modules count apart
(machine/isa, machine/expr.py): machine/ is to reach 0 part by part. When a change
lowers a count, the test asks for the file to be lowered too, so the count cannot
creep back up. mypy caches in .mypy_cache: a cold run costs ~20 s of CPU, a warm
one ~1 s (benchmarks are not asserted here).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import typing
from collections import Counter
from pathlib import Path

from neurondbg.machine.convert.formats import FORMATS, FloatFormat, HiF8Format, IntFormat

ROOT = Path(__file__).resolve().parents[1]
BASELINE = Path(__file__).resolve().parent / "mypy_baseline.txt"
_ERROR = re.compile(r"^(?P<path>[\w./-]+\.py):\d+(?::\d+)?: error: ", re.M)


def part(path: str) -> str:
    """The part a source file's errors count towards."""
    if path.startswith(("neurondbg/machine/", "neurondbg/sessions/", "neurondbg/debug/",
                           "neurondbg/views/")):
        path = path.removeprefix("neurondbg/")  # mypy reads them through the links
    top, *rest = path.split("/")
    return f"{top}/{rest[0]}" if top == "machine" and rest else top


def error_counts(output: str) -> Counter[str]:
    """Errors per part in mypy's output (notes and the summary line are not errors)."""
    return Counter(part(m["path"]) for m in _ERROR.finditer(output))


def read_baseline(text: str) -> dict[str, int]:
    """`part count` lines; `#` starts a comment."""
    out: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            name, count = line.split()
            assert name not in out, f"mypy_baseline.txt:{n}: {name} listed twice"
            out[name] = int(count)
    return out


def test_part_names() -> None:
    assert part("machine/isa/opcodes.py") == "machine/isa"
    assert part("machine/legality/wire/dve.py") == "machine/legality"
    assert part("machine/expr.py") == "machine/expr.py"
    assert part("views/app.py") == part("views/panes/regs.py") == "views"
    assert part("sessions/__init__.py") == "sessions"


def test_error_lines_are_counted_and_notes_are_not() -> None:
    output = ("machine/expr.py:3: error: Missing type arguments  [type-arg]\n"
              "machine/expr.py:3: note: see the docs\n"
              "machine/core/core.py:10:4: error: Returning Any  [no-any-return]\n"
              "views/app.py:1: error: x  [misc]\n"
              "Found 3 errors in 3 files (checked 9 source files)\n")
    assert error_counts(output) == {"machine/expr.py": 1, "machine/core": 1, "views": 1}


def test_the_baseline_names_only_parts_of_the_tree() -> None:
    parts = {part(p.relative_to(ROOT).as_posix())
             for top in ("machine", "sessions", "debug", "views", "neurondbg")
             for p in (ROOT / top).rglob("*.py")}
    assert set(read_baseline(BASELINE.read_text(encoding="utf-8"))) <= parts


def test_mypy_error_counts_never_rise() -> None:
    assert importlib.util.find_spec("mypy") is not None, "mypy is in the `test` extra"
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                         text=True)
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 2: mypy itself failed
    counts = error_counts(run.stdout)
    assert sum(counts.values()) == run.stdout.count(": error: "), run.stdout
    baseline = read_baseline(BASELINE.read_text(encoding="utf-8"))
    rose = sorted(p for p, n in counts.items() if n > baseline.get(p, 0))
    lines = [ln for ln in run.stdout.splitlines() if ": error: " in ln
             and part(ln.split(":", 1)[0]) in rose]
    assert not rose, ("mypy errors rose in " + ", ".join(
        f"{p} ({baseline.get(p, 0)} -> {counts[p]})" for p in rose) + ":\n" + "\n".join(lines))
    fell = sorted(p for p, n in baseline.items() if counts.get(p, 0) < n)
    assert not fell, ("fewer mypy errors: lower tests/mypy_baseline.txt to " + ", ".join(
        f"{p} {counts.get(p, 0)}" for p in fell))


def test_format_kind_flags_are_literal_tags_that_agree_with_isinstance() -> None:
    # mypy narrows `Format` on these flags only because each class declares them as
    # Literal class constants; the values must then be what isinstance says.
    tags = {"is_float": FloatFormat, "is_hif8": HiF8Format, "is_int": IntFormat}
    for cls in (FloatFormat, HiF8Format, IntFormat):
        hints = typing.get_type_hints(cls)
        for flag, owner in tags.items():
            assert hints[flag] == typing.ClassVar[typing.Literal[cls is owner]], (cls, flag)
    for name, fmt in FORMATS.items():
        assert {flag for flag in tags if getattr(fmt, flag)} == {
            flag for flag, owner in tags.items() if isinstance(fmt, owner)}, name
