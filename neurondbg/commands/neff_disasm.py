"""`neurondbg disasm FILE.neff [--subgraph sgNN] [--gen G] [--json]`.

Text: the subgraph as a sectioned kernel, the `.engine NAME` form of `disasm KERNEL`
(machine.asm.sections), preceded by `#` comment lines naming the NEFF and its DMA queues;
each PSEUDO_DMATRIGGER line ends with a comment giving its queue entry, the semaphore it
raises and a one-line summary of its descriptors. Comments aside, the text assembles to
the subgraph's records, engine by engine.

`--json`: `{"neff", "subgraph", "gen", "engines": {engine: [the one-program `disasm
--json` rows; a trigger's row adds "dma": {"queue", "id", "semaphore", "comment",
"summary"}]}, "dma": {"queues": {name: {...}}, "entries": {engine: [entry]}},
"semaphores": {index: role}}`, an entry as the engine JSON spells it (`queue`, `id`,
`semaphore`, `#comment`, `desc`) plus `triggered_at` (the record index).
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from neurondbg.commands.neff_open import OpenedNeff, open_for_command
from neurondbg.documents import Kind, stamp
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.neff.model import ENGINES, DmaEntry, DmaQueue
from neurondbg.machine.neff.roles import semaphore_roles
from neurondbg.machine.neff.writer import entry_json


def disasm_neff_command(path: str, subgraph: str | None, gen: Gen | None,
                        as_json: bool) -> None:
    """Print the NEFF at `path` (module docstring)."""
    opened = open_for_command(path, subgraph, gen)
    if as_json:
        sys.stdout.write(json.dumps(stamp(Kind.DISASM, _document(opened)),
                                    separators=(",", ":")) + "\n")
    else:
        _text(opened, sys.stdout)


def _trigger_comment(entry: DmaEntry) -> str:
    note = f" [{entry.comment}]" if entry.comment else ""
    return f"  # {entry.label} -> sem[{entry.semaphore}]{note}: {entry.summary()}"


def _queue_line(q: DmaQueue) -> str:
    sems = q.semaphore_set
    span = (f"{sems[0]}..{sems[-1]}" if list(sems) == list(range(sems[0], sems[0] + len(sems)))
            else ",".join(map(str, sems)))
    return f"# queue {q.name}: owner {q.owner.value}, type {q.type}, semaphores {span}"


def _text(opened: OpenedNeff, out: IO[str]) -> None:
    from neurondbg.machine.asm.disasm import disassemble_lines
    from neurondbg.machine.asm.sections import SECTION_DIRECTIVE

    sub = opened.sub
    lines = [f"# {opened.head()}"]
    lines += [_queue_line(q) for q in sub.queues.values()]
    lines += [] if opened.gen == DEFAULT_GEN else [f".gen {opened.gen.label}"]
    for e in ENGINES:
        lines.append(f"{SECTION_DIRECTIVE} {e.value}")
        body = disassemble_lines(sub.program(e), opened.gen)
        for t in opened.triggers.get(e, []):
            body[t.index] += _trigger_comment(t.entry)
        lines += body
    out.write("\n".join(lines) + "\n")


def _document(opened: OpenedNeff) -> dict[str, Any]:
    from neurondbg.machine.asm.disasm import to_json

    sub, neff = opened.sub, opened.neff
    engines: dict[str, list[dict[str, Any]]] = {}
    entries: dict[str, list[dict[str, Any]]] = {}
    for e in ENGINES:
        rows = to_json(sub.program(e))
        at: dict[tuple[str, int], int] = {}
        for t in opened.triggers.get(e, []):
            x = t.entry
            rows[t.index]["dma"] = {"queue": x.queue, "id": x.id, "semaphore": x.semaphore,
                                    "comment": x.comment, "summary": x.summary()}
            at[(x.queue, x.id)] = t.index
        engines[e.value] = rows
        entries[e.value] = [{**entry_json(x), "triggered_at": at.get((x.queue, x.id))}
                            for x in sub.engine_entries(e)]
    roles = semaphore_roles(sub)
    used = sorted({s for q in sub.queues.values() for s in q.semaphore_set}
                  | set(roles.counter_of) | set(range(sub.runtime_semaphore_count)))
    return {
        "neff": {"path": neff.path, "name": neff.info.name, "target": neff.info.target,
                 "tool_version": neff.info.tool_version, "hash": neff.hash_check.value,
                 "subgraphs": [s.name for s in neff.subgraphs]},
        "subgraph": sub.name, "gen": opened.gen.label, "engines": engines,
        "dma": {"queues": {q.name: _queue_json(q) for q in sub.queues.values()},
                "entries": entries},
        "semaphores": {str(s): roles.role(s) for s in used},
    }


def _queue_json(q: DmaQueue) -> dict[str, Any]:
    return {"owner": q.owner.value, "type": q.type, "num_queues": q.num_queues,
            "semaphore_set": list(q.semaphore_set), "fabric_path": q.fabric_path}

