"""The console's `export`: the last Cast's lanes to a file, and to the browser.

    export trace PATH [P,E]   one lane's bit-level trace, as `neurondbg convert --trace`
                              prints it (JSON, as `convert --json --trace`, for PATH.json)
    export lanes PATH         every lane: input and output encodings and flags (a table,
                              or JSON for PATH.json)

The file is written atomically (sessions.atomic) and never onto the loaded program or
its data sidecar. Served in a browser (`neurondbg serve`), the file is also handed to the
browser as a download, as `save` does for a session.

Decisions where the specification is silent:
- Without P,E the trace is of the Cast's first lane (its first partition, element 0),
  as `diagnose` numbers lanes: P is the SBUF partition, E the element in it.
- A lane a predicated Cast did not write is refused: its destination holds no result.
- The trace's text is exactly `convert --trace`'s piped output (plain, 160 columns),
  the input column naming the lane's input value; JSON rows are `convert --json
  --trace`'s, with the step and the lane added.

Active once neurondbg.console imports this module (`from neurondbg import
console_export  # noqa: F401`, after REGISTRY is defined). numpy is imported by the
writer: the declaration is read before the App's first frame, which needs no model.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neurondbg.console import REGISTRY, Action, Reply
from neurondbg.debug.controller import DebugSession
from neurondbg.documents import Kind, stamp, stamp_rows
from neurondbg.registry import Arg, Args, Flag, shell_words, text

if TYPE_CHECKING:  # numpy is imported when lanes are written, not with the declaration
    import numpy as np

JSON_SUFFIX = ".json"
PAGE_WIDTH = 160  # the width `convert` gives piped output: bit strings are not folded
LANES_PER_WRITE = 1 << 14  # `export lanes` formats this many rows at a time
KINDS = ("trace", "lanes")


USAGE = "expected `export trace PATH [P,E]` or `export lanes PATH`"


def _kind(word: str) -> str:
    if word not in KINDS:
        raise ValueError(USAGE)
    return word


KIND = Arg("trace|lanes", "one lane's trace, or every lane", _kind,
           complete=lambda session, word: KINDS, missing=USAGE)
PATH = Arg("PATH", "the file to write (.json: JSON; quoted as in a shell)", text,
           missing=USAGE)
LANE = Arg("P,E", "the lane of a trace: partition P, element E (default: the first)", text,
           optional=True)
FORCE = Flag("--force", "replace a file of another kind")


@REGISTRY.command("export", "write the last Cast's lane P,E trace (as convert --trace) or "
                  "every lane (lanes) to PATH; .json: JSON; served: also a browser download; "
                  "--force: replace a file of another kind", args=(KIND, PATH, LANE),
                  flags=(FORCE,), split=shell_words)
def _export(session: DebugSession, args: Args) -> Reply:
    kind, path_text, lane_text = args[KIND], args[PATH], args[LANE]
    force = FORCE.name in args.flags  # replace a file of another kind (sessions.atomic)
    last = session.last_lanes
    if last is None:
        raise ValueError("no conversion in effect: step a Cast first")
    lanes, step = last
    as_json = path_text.lower().endswith(JSON_SUFFIX)
    if kind == "trace":
        page, what = _trace(lanes, step, lane_text.strip(), as_json)
        chunks: Iterable[str] = [page]
    else:
        if lane_text.strip():
            raise ValueError(f"export lanes takes no lane, found {lane_text.strip()!r}")
        chunks, what = _lanes(lanes, step, as_json), f"all {lanes.in_bits.size} lanes"
    path = _write(session, Path(path_text), chunks, force)
    # Action.DELIVER: served in a browser (neurondbg serve), the App hands it a copy
    return Reply(action=Action.DELIVER, args=(str(path),)).say(
        f"exported {what} of step {step} to {path_text}", "green")


# -- what is written ------------------------------------------------------------------------
def _lane(lanes: Any, text: str) -> tuple[int, int]:
    """(partition, element) of `P,E` (default: the first lane); ValueError if outside."""
    rows, cols = lanes.shape
    if not text:
        return lanes.p0, 0
    try:
        p, e = (int(v, 0) for v in text.replace(" ", "").strip("[]").split(","))
    except ValueError:
        raise ValueError(f"expected a lane P,E (e.g. {lanes.p0},0), found {text!r}") from None
    if not (0 <= p - lanes.p0 < rows and 0 <= e < cols):
        raise ValueError(f"lane p{p} e{e} is outside the Cast's {rows}x{cols} lanes "
                         f"(partitions from {lanes.p0})")
    return p, e


def _trace(lanes: Any, step: int, lane_text: str, as_json: bool) -> tuple[str, str]:
    """(the file's text, what it holds) for one lane's trace."""
    from neurondbg.commands.convert import _emit, _fmt, _row, _value
    from neurondbg.machine.convert.formats import parse_format
    from neurondbg.machine.convert.options import applied_mode, resolve

    p, e = _lane(lanes, lane_text)
    if lanes.mask is not None and not lanes.mask[p - lanes.p0, e]:
        raise ValueError(f"lane p{p} e{e} was not written: the Cast's predicate is off there")
    src, dst = parse_format(lanes.src), parse_format(lanes.dst)
    opt = resolve(src, dst, "rint", bool(lanes.sat), lanes.profile)
    tr = lanes.trace(p, e)
    row = _row(_fmt(_value(tr.input_bits, src)), tr.input_bits, tr.output_bits, opt, tr)
    if as_json:
        row |= {"step": step, "lane": [p, e], "trace": tr.to_dict()}
        return json.dumps(stamp_rows(Kind.CONVERT, [row]), indent=2) + "\n", \
            f"lane p{p} e{e}'s trace"
    sat = "sat" if opt.sat else "nosat"
    title = (f"step {step}, lane p{p} e{e}: {src.name} -> {dst.name}  ({opt.profile}, "
             f"{applied_mode(opt)}, {sat})")
    console = _page()
    _emit([row], [tr], False, console, title)
    return console.file.getvalue(), f"lane p{p} e{e}'s trace"


def _page() -> Any:
    """A plain console into a string, as `convert` prints to a pipe."""
    from rich.console import Console

    return Console(file=io.StringIO(), highlight=False, width=PAGE_WIDTH, color_system=None,
                   no_color=True)


def _lanes(lanes: Any, step: int, as_json: bool) -> Iterator[str]:
    """Every lane's partition, element, input and output encodings and flags, in chunks
    of LANES_PER_WRITE lanes (a 128x4096 Cast is never one string in memory)."""
    import numpy as np

    rows, cols = lanes.shape
    src_digits, dst_digits = (_digits(lanes.in_bits), _digits(lanes.out_bits))
    flags = lanes.flags
    names = list(flags)
    written = lanes.mask if lanes.mask is not None else np.ones(lanes.shape, bool)
    if as_json:
        head = stamp(Kind.LANES, {"step": step, "src": lanes.src, "dst": lanes.dst,
                                  "profile": lanes.profile, "sat": bool(lanes.sat),
                                  "p0": lanes.p0, "shape": [rows, cols], "lanes": []})
        yield json.dumps(head)[:-2]  # up to and including the list's "["
    else:
        yield (f"# step {step}: {lanes.src} -> {lanes.dst} ({lanes.profile}, "
               f"{'sat' if lanes.sat else 'nosat'}), {rows}x{cols} lanes from partition "
               f"{lanes.p0}\n# lane        input -> output  flags\n")
    flat = [a.reshape(-1) for a in (lanes.in_bits, lanes.out_bits, written)]
    raised_all = np.stack([flags[n].reshape(-1) for n in names], axis=1)
    for start in range(0, rows * cols, LANES_PER_WRITE):
        block = slice(start, start + LANES_PER_WRITE)
        ins, outs, wrote = (a[block].tolist() for a in flat)
        raised = raised_all[block].tolist()
        parts: list[str] = []
        for k in range(len(ins)):
            p, e = divmod(start + k, cols)
            on = [n for n, f in zip(names, raised[k], strict=True) if f]
            if as_json:
                parts.append(("" if start + k == 0 else ", ") + json.dumps(
                    {"lane": [p + lanes.p0, e], "input_bits": f"0x{ins[k]:0{src_digits}x}",
                     "output_bits": f"0x{outs[k]:0{dst_digits}x}", "written": wrote[k],
                     "flags": on}))
            else:
                out = f"0x{outs[k]:0{dst_digits}x}" if wrote[k] else "(not written)"
                parts.append(f"p{p + lanes.p0:<3} e{e:<6} 0x{ins[k]:0{src_digits}x} -> "
                             f"{out}  {' '.join(on)}".rstrip() + "\n")
        yield "".join(parts)
    if as_json:
        yield "]}\n"


def _digits(bits: np.ndarray) -> int:
    return bits.dtype.itemsize * 2


# -- where it goes --------------------------------------------------------------------------
def _write(session: DebugSession, path: Path, chunks: Iterable[str], force: bool) -> Path:
    """Write `chunks` to `path` atomically, refusing the loaded program and its data, and
    a file of another kind unless `force`."""
    from neurondbg.machine.asm.data import data_path
    from neurondbg.sessions.atomic import allow_replacing, atomic_open, check_output
    from neurondbg.sessions.errors import SessionError

    program = Path(session.program_path)
    try:
        with allow_replacing(force):  # a refusal's hint names export's --force
            check_output(path, [("the loaded program", program),
                                ("the loaded program's data", data_path(program))],
                         what="export")
            with atomic_open(path, "w") as fh:
                for text in chunks:
                    fh.write(text)
    except SessionError as e:
        raise ValueError(str(e)) from None
    except OSError as e:
        raise ValueError(f"{path}: cannot write: {e.strerror or e}") from None
    return path
