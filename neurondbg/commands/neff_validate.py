"""`neurondbg validate FILE.neff [--subgraph sgNN] [--gen G] [--json | --summary]`.

Each of the subgraph's five streams is judged on its own engine (machine.neff.verdicts:
pseudo-instructions are noted "lowered by the runtime", records without a documented
layout "payload layout not in the reference"), then the whole-NEFF checks run
(machine.neff.checks: triggers, entries, semaphore owners, reachable waits).

Output follows `validate` of a kernel: text lists each invalid instruction (engine,
index, offset, failing clauses), one count line per engine, the check findings and a
total line; `--json` is `{"gen", "count", "invalid", "subgraph", "neff", "engines":
{engine: {"gen", "engine", "count", "invalid", "lowered", "opaque", "instructions":
[{"index", "offset", "opcode", "mnemonic", "valid", "predicate", "failed", "notes",
"clauses"}]}}, "checks": {"failed", "warnings", "findings": [...]}, "dma": {...}}`;
`--summary` the same without the instructions, with per-engine failure counts. Exit 0
when valid, 1 when an instruction is invalid or a check fails, 2 for bad input.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any, NoReturn

import numpy as np

from neurondbg.commands.neff_open import OpenedNeff, open_for_command
from neurondbg.documents import Kind, stamp
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.opcodes import mnemonic
from neurondbg.machine.isa.spec import RECORD_BYTES
from neurondbg.machine.neff.checks import CHECKS, Finding, Level, check_subgraph
from neurondbg.machine.neff.model import ENGINES, Engine
from neurondbg.machine.neff.roles import engine_label
from neurondbg.machine.neff.verdicts import (
    ENGINE_CLAUSE,
    HEADER_NOT_JUDGED,
    LOWERED,
    NOTE_TEXT,
    OPAQUE,
    PSEUDO,
    StreamVerdict,
    judge_subgraph,
)
from neurondbg.machine.words import counted
from neurondbg.progress import progress

SHOWN_PER_CHECK = 20  # text output: findings listed per check before "... and N more"


def validate_neff_command(path: str, subgraph: str | None, gen: Gen | None, as_json: bool,
                          summary: bool) -> int:
    """Print the verdicts of the NEFF at `path`; its exit code."""
    opened = open_for_command(path, subgraph, gen)
    with progress(None, f"validate {opened.sub.name}: {opened.sub.record_count:,} "
                        "instructions"):
        streams = judge_subgraph(opened.sub, opened.gen)
        findings = check_subgraph(opened.sub, opened.triggers, opened.gen)
    invalid = sum(v.invalid for v in streams.values())
    failed = sum(f.level is Level.FAIL for f in findings)
    if summary:
        sys.stdout.write(json.dumps(stamp(Kind.VALIDATE_SUMMARY, _document(
            opened, streams, findings, rows=False))) + "\n")
    elif as_json:
        _write_json(stamp(Kind.VALIDATE, _document(opened, streams, findings, rows=True)),
                    streams, sys.stdout)
    else:
        _text(opened, streams, findings, sys.stdout)
    return 1 if invalid or failed else 0


def _engine_doc(opened: OpenedNeff, v: StreamVerdict, rows: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"gen": opened.gen.label, "engine": v.engine.value, "count": v.count,
                           "invalid": v.invalid, "lowered": v.lowered, "opaque": v.opaque}
    if rows:  # written by _write_json in place of this marker
        doc["instructions"] = ROWS_MARK + v.engine.value
    else:
        doc["failures"], doc["notes"] = v.tally()
    return doc


ROWS_MARK = "\0rows of "  # a string no JSON value of a document holds otherwise
ROWS_PER_WRITE = 1 << 12


def _write_json(doc: dict[str, Any], streams: dict[Engine, StreamVerdict],
                out: IO[str]) -> None:
    """The `--json` document, each engine's instruction rows written a block at a time
    where its marker stands (the rows are never all held: memory stays bounded however
    long the streams). Rows of one outcome share its serialized verdict."""
    text = json.dumps(doc)
    for e in ENGINES:
        head, text = text.split(json.dumps(ROWS_MARK + e.value), 1)
        out.write(head + "[")
        v = streams[e]
        tails = [json.dumps(o)[1:-1] for o in v.outcomes]
        names = {op: json.dumps(mnemonic(op)) for op in np.flatnonzero(
            np.bincount(v.raw[:, 0], minlength=1)).tolist()}
        ops, kinds = v.raw[:, 0].tolist(), v.outcome.tolist()
        for s in range(0, v.count, ROWS_PER_WRITE):
            out.write((", " if s else "") + ", ".join(
                f'{{"index": {i}, "offset": {i * RECORD_BYTES}, "opcode": {ops[i]}, '
                f'"mnemonic": {names[ops[i]]}, {tails[kinds[i]]}}}'
                for i in range(s, min(s + ROWS_PER_WRITE, v.count))))
        out.write("]")
    out.write(text + "\n")


def _document(opened: OpenedNeff, streams: dict[Engine, StreamVerdict], findings: list[Finding],
              rows: bool) -> dict[str, Any]:
    sub, neff = opened.sub, opened.neff
    return {
        "gen": opened.gen.label,
        "count": sum(v.count for v in streams.values()),
        "invalid": sum(v.invalid for v in streams.values()),
        "subgraph": sub.name,
        "neff": {"path": neff.path, "name": neff.info.name, "target": neff.info.target,
                 "tool_version": neff.info.tool_version, "hash": neff.hash_check.value,
                 "subgraphs": [s.name for s in neff.subgraphs], "warnings": neff.warnings},
        "engines": {e.value: _engine_doc(opened, streams[e], rows) for e in ENGINES},
        "checks": {"run": list(CHECKS),
                   "failed": sum(f.level is Level.FAIL for f in findings),
                   "warnings": sum(f.level is Level.WARN for f in findings),
                   "findings": [f.to_json() for f in findings]},
        "dma": {"queues": len(sub.queues), "entries": sub.entry_count,
                "descriptors": sub.descriptor_count,
                "triggers": sum(len(t) for t in opened.triggers.values())},
    }


def _invalid_lines(v: StreamVerdict, gen: Gen) -> list[str]:
    """Per invalid instruction: engine, index, offset, mnemonic and each failing clause
    (the lowered engine clause of a pseudo-instruction left out)."""
    from neurondbg.commands.validate import failing_clause_lines
    from neurondbg.machine.legality.explain import explain_many

    bad = np.flatnonzero(~v.valid)
    if not len(bad):
        return []
    distinct: dict[bytes, str] = {}
    records = [v.raw[i].tobytes() for i in bad.tolist()]
    new = list(dict.fromkeys(records))
    raw = np.frombuffer(b"".join(new), dtype=np.uint8).reshape(-1, RECORD_BYTES)
    for rec, verdict in zip(new, explain_many(raw, gen, v.engine.value), strict=True):
        lines = [ln for ln in failing_clause_lines(verdict)
                 if not ln.lstrip().startswith(ENGINE_CLAUSE) or not _pseudo(rec[0])]
        distinct[rec] = f"{mnemonic(rec[0])} (0x{rec[0]:02X}): invalid [{verdict.predicate}]" \
            + "".join("\n" + ln for ln in lines)
    name = engine_label(v.engine)
    return [f"{name} #{i} @0x{i * RECORD_BYTES:06x} {distinct[rec]}\n"
            for i, rec in zip(bad.tolist(), records, strict=True)]


def _pseudo(op: int) -> bool:
    return bool(PSEUDO[op])


def _notes_text(v: StreamVerdict) -> str:
    """`; lowered by the runtime: 76 PSEUDO_DMATRIGGER; payload layout not in ...: 36 MATMUL`,
    then how many records' header was not judged (`; header byte 1 is not 16 ...: 3`)."""
    parts = []
    for key, counts in ((LOWERED, v.lowered), (OPAQUE, v.opaque)):
        if counts:
            parts.append(f"{NOTE_TEXT[key]}: " + ", ".join(f"{n:,} {m}"
                                                          for m, n in counts.items()))
    unjudged = v.tally()[1].get(HEADER_NOT_JUDGED, 0)
    if unjudged:
        parts.append(f"{NOTE_TEXT[HEADER_NOT_JUDGED]}: {unjudged:,}")
    return "".join(f"; {p}" for p in parts)


def _text(opened: OpenedNeff, streams: dict[Engine, StreamVerdict], findings: list[Finding],
          out: IO[str]) -> None:
    out.write(opened.head() + "\n")
    for e in ENGINES:
        v = streams[e]
        out.write("".join(_invalid_lines(v, opened.gen)))
        out.write(f"{engine_label(e)}: {counted(v.count, 'instruction')}, {v.invalid:,} invalid"
                  f"{_notes_text(v)}\n")
    by_check: dict[str, list[Finding]] = {c: [] for c in CHECKS}
    for f in findings:
        by_check.setdefault(f.check, []).append(f)
    for check, found in by_check.items():
        fails = sum(f.level is Level.FAIL for f in found)
        warns = sum(f.level is Level.WARN for f in found)
        state = "ok" if not fails and not warns else f"{fails} failed, {warns} warnings"
        out.write(f"check {check}: {state}\n")
        for f in found[:SHOWN_PER_CHECK]:
            out.write(f"  {f.level.value}: {f.message}\n")
        if len(found) > SHOWN_PER_CHECK:
            out.write(f"  ... and {len(found) - SHOWN_PER_CHECK} more (--json lists all)\n")
    sub = opened.sub
    count = sum(v.count for v in streams.values())
    invalid = sum(v.invalid for v in streams.values())
    failed = sum(f.level is Level.FAIL for f in findings)
    warned = sum(f.level is Level.WARN for f in findings)
    triggers = sum(len(t) for t in opened.triggers.values())
    out.write(f"{counted(count, 'instruction')}, {invalid:,} invalid; {triggers:,} DMA triggers, "
              f"{sub.entry_count:,} entries, {sub.descriptor_count:,} descriptors; "
              f"{failed} check failures, {warned} warnings ({opened.gen.label}, "
              f"{sub.name})\n")


def from_validate(path: str, gen: Gen, as_json: bool, summary: bool, fix_out: str | None,
                  subgraph: str | None) -> NoReturn:
    """The `validate` command's hand-over for a NEFF: `--engine` and `--fix` do not apply
    (each stream has its engine), `--gen` counts only when given; exits."""
    from neurondbg.commands.validate import several_streams_options

    given = several_streams_options("NEFF", "stream", fix_out)
    sys.exit(validate_neff_command(path, subgraph, gen if given else None, as_json, summary))
