"""Trace export: one JSON line per step (pc, opcode, mnemonic, verdict, writes with old/new).

    with open("run.jsonl", "w") as fp:
        machine.on_step = trace_hook(fp)        # or write_trace(records, fp)

A line is `StepRecord.to_dict()` (so a `run --trace` file replays too) with every
write made comparable: registers and scalars keep their old/new values; memory
writes add offset and length (bytes per partition) and the old/new bytes as hex
when small, else their sha256; accumulator rows likewise.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any, TextIO

import numpy as np

from machine.engines.record import StepRecord
from machine.state import Write

HEX_LIMIT = 32  # bytes: larger blocks are written as "sha256:<hex>"


def blob(data: Any) -> str:
    """Bytes of an array as hex (small) or `sha256:...` (large): compact and comparable."""
    raw = np.ascontiguousarray(data).tobytes()
    if len(raw) <= HEX_LIMIT:
        return raw.hex()
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def write_to_json(w: Write) -> dict[str, Any]:
    """`Write.to_dict()` (the keys `run --trace` writes) plus comparable old/new values."""
    d = w.to_dict()
    if w.region is not None:
        new = np.asarray(w.new)
        d.update(offset=w.region.start, length=int(new.shape[-1]), old=blob(w.old),
                 new=blob(new))
    elif isinstance(w.new, np.ndarray):  # acc / idx rows
        d.update(old=blob(w.old), new=blob(w.new))
    else:
        d.update(old=_scalar(w.old), new=_scalar(w.new))
    return d


def _scalar(v: Any) -> Any:
    if isinstance(v, bool | int | str) or v is None:
        return v
    if isinstance(v, float):
        return v if np.isfinite(v) else repr(v)  # JSON has no inf/nan
    if isinstance(v, np.generic):
        return _scalar(v.item())
    return repr(v)


def step_to_json(rec: StepRecord) -> dict[str, Any]:
    """One trace line (a dict; see the module docstring)."""
    d = rec.to_dict()
    d["writes"] = [write_to_json(w) for w in rec.writes]
    return d


HEADER_KEY = "neurondbg_trace"  # the first line of a trace: how the run was configured


def trace_header(config: Any) -> dict[str, Any]:
    """The header line: the settings a replay needs to re-run the same way."""
    return {HEADER_KEY: 1, "gen": config.gen.label, "engine": config.engine,
            "execute_invalid": bool(config.execute_invalid)}


def write_header(config: Any, fp: TextIO) -> None:
    fp.write(json.dumps(trace_header(config), separators=(",", ":")) + "\n")


def write_trace(records: Iterable[StepRecord], fp: TextIO) -> int:
    """Write one JSON line per record; returns how many."""
    n = 0
    for rec in records:
        fp.write(json.dumps(step_to_json(rec), separators=(",", ":")) + "\n")
        n += 1
    return n


def trace_hook(fp: TextIO) -> Callable[[StepRecord], None]:
    """A `Machine.on_step` callback writing each step to `fp` as it happens."""

    def on_step(rec: StepRecord) -> None:
        fp.write(json.dumps(step_to_json(rec), separators=(",", ":")) + "\n")

    return on_step
