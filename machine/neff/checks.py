"""Whole-NEFF static checks of one subgraph: DMA triggers, semaphore owners, reachable
waits (neff-facts §5).

    findings = check_subgraph(sub, triggers)   # triggers: machine.neff.triggers

Checks (each Finding names its check, its level, where and why):
- `trigger_from_owner` (fail): a trigger comes from the engine that owns its queue
  (`def.json` `dma_queue[q].owner`; neff-facts §5.3).
- `entry_triggered_once` (fail): every DMA entry of every engine JSON is triggered exactly
  once (§5.3).
- `semaphore_owner`: semaphores are used as §5.1 assigns them: a wait on a runtime
  semaphore (0..2) is a warning, an update of one a failure; an instruction raising a DMA
  queue's semaphore (only completions should) and an entry whose semaphore is not
  `semaphore_set[id % 16]` of its queue are warnings; two queues sharing a semaphore is a
  warning.
- `wait_reachable` (fail): the static check of §5.4: every semaphore wait's threshold can
  be reached by all the increments that exist: +1 per SEM_INC update, +value per
  SEM_ADD_IMM, +16 per triggered DMA entry on that semaphore. A semaphore that something
  lowers or overwrites (DEC, SUB, WR) is not monotone, so its waits are noted as not
  checked; so are event and register-valued waits, and, when the subgraph holds records
  whose effect is not modelled (machine.neff.unmodelled: PSEUDO_DMA_DIRECT2D, ...),
  the waits only such records could satisfy.
- `dma_in_bounds` (warning): every descriptor side names SB or a def.json var and stays
  inside it (machine.neff.footprint extents); transposes are noted as not checked, and
  so is a var's `backing_variable_off` (each var is its own storage: one note, naming
  the first var, machine.neff.unmodelled.backing_note).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import numpy as np

from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa.addr import geometry
from neurondbg.machine.isa.enums import UpdateMode, WaitMode
from neurondbg.machine.isa.opcodes import mnemonic
from neurondbg.machine.neff.events import (
    ADDS,
    EVENT_UPDATES,
    INCREMENTS,
    SEM_WAITS,
    Updates,
    Waits,
    updates,
    waits,
)
from neurondbg.machine.neff.footprint import extent, sb_partitions
from neurondbg.machine.neff.model import (
    DMA_INCREMENT,
    ENGINES,
    SB,
    SB_PARTITION_STEP,
    SEMAPHORES,
    DescriptorRange,
    DescriptorTable,
    Engine,
    Subgraph,
)
from neurondbg.machine.neff.roles import engine_label, semaphore_roles
from neurondbg.machine.neff.triggers import Trigger
from neurondbg.machine.neff.unmodelled import backing_note, describe, tally
from neurondbg.machine.words import plural


class Level(Enum):
    FAIL = "fail"
    WARN = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Finding:
    """One outcome of a check: `where` is "SP #12" (engine, record) or a JSON place."""

    check: str
    level: Level
    message: str
    engine: Engine | None = None
    index: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"check": self.check, "level": self.level.value, "message": self.message,
                "engine": self.engine.value if self.engine else None, "index": self.index}


CHECKS = ("trigger_from_owner", "entry_triggered_once", "semaphore_owner", "wait_reachable",
          "dma_in_bounds")
_SHOWN = 4  # sources named in a starved wait's message
PARTITIONS = 128


def _distinct(values: np.ndarray) -> list[int]:
    """The distinct values of a uint8 array, ascending (as np.unique gives them, which
    for a plain call imports numpy.ma: 30 ms of every command's start)."""
    return np.flatnonzero(np.bincount(values, minlength=256)).tolist()


def _at(engine: Engine, index: int, stream: np.ndarray) -> str:
    return f"{engine_label(engine)} #{index} ({mnemonic(int(stream[index, 0]))})"


def _trigger_checks(sub: Subgraph, triggers: dict[Engine, list[Trigger]]) -> list[Finding]:
    out: list[Finding] = []
    counts: Counter[tuple[Engine, str, int]] = Counter()
    for e in ENGINES:
        stream = sub.stream(e)
        for t in triggers.get(e, []):
            counts[(e, t.entry.queue, t.entry.id)] += 1
            owner = sub.queues[t.entry.queue].owner
            if owner is not e:
                out.append(Finding("trigger_from_owner", Level.FAIL,
                                   f"{_at(e, t.index, stream)} triggers {t.entry.label}, but "
                                   f"queue {t.entry.queue} belongs to {engine_label(owner)}",
                                   e, t.index))
    for e in ENGINES:
        for x in sub.engine_entries(e):
            n = counts[(e, x.queue, x.id)]
            if n != 1:
                said = "never triggered" if n == 0 else f"triggered {n} times"
                note = f" ({x.comment})" if x.comment else ""
                out.append(Finding("entry_triggered_once", Level.FAIL,
                                   f"{e.file_stem}.json entry {x.label}{note} is {said}; "
                                   "each entry is triggered exactly once", e))
    return out


def _events(sub: Subgraph) -> dict[Engine, tuple[Waits, Updates]]:
    """Each stream's waits and updates, read once for all the checks."""
    return {e: (waits(sub.stream(e)), updates(sub.stream(e))) for e in ENGINES}


def _owner_checks(sub: Subgraph, events: dict[Engine, tuple[Waits, Updates]]
                  ) -> list[Finding]:
    out: list[Finding] = []
    roles = semaphore_roles(sub)
    runtime = sub.runtime_semaphore_count
    is_dma = np.array([roles.kind(s) == "dma" for s in range(SEMAPHORES)], dtype=bool)
    for e in ENGINES:
        stream = sub.stream(e)
        w, u = events[e]
        pick = w.sem < runtime
        for i, s in zip(w.index[pick].tolist(), w.sem[pick].tolist(), strict=True):
            if s < runtime:
                out.append(Finding("semaphore_owner", Level.WARN,
                                   f"{_at(e, i, stream)} waits on sem[{s}], a runtime "
                                   f"semaphore (0..{runtime - 1} belong to the runtime, "
                                   "neff-facts §5.1)", e, i))
        pick = (u.sem < runtime) | is_dma[u.sem]
        for i, s in zip(u.index[pick].tolist(), u.sem[pick].tolist(), strict=True):
            if s < runtime:
                out.append(Finding("semaphore_owner", Level.FAIL,
                                   f"{_at(e, i, stream)} updates sem[{s}], a runtime "
                                   "semaphore the compiler never names (neff-facts §5.1)",
                                   e, i))
            elif roles.kind(s) == "dma":
                out.append(Finding("semaphore_owner", Level.WARN,
                                   f"{_at(e, i, stream)} updates sem[{s}] ({roles.role(s)}), "
                                   "which only DMA completions raise (neff-facts §5.1)", e, i))
    seen: dict[int, str] = {}
    for q in sub.queues.values():
        for s in q.semaphore_set:
            if s < runtime:
                out.append(Finding("semaphore_owner", Level.FAIL,
                                   f"queue {q.name}'s semaphore_set holds sem[{s}], a runtime "
                                   "semaphore"))
            elif s in seen and seen[s] != q.name:
                out.append(Finding("semaphore_owner", Level.WARN,
                                   f"queues {seen[s]} and {q.name} share sem[{s}]"))
            seen.setdefault(s, q.name)
    for e in ENGINES:
        for x in sub.engine_entries(e):
            sems = sub.queues[x.queue].semaphore_set
            want = sems[x.id % len(sems)]
            if x.semaphore != want:
                out.append(Finding("semaphore_owner", Level.WARN,
                                   f"{e.file_stem}.json entry {x.label} signals sem"
                                   f"[{x.semaphore}], not {x.queue}'s set[{x.id % len(sems)}] "
                                   f"= sem[{want}] (neff-facts §2.5)", e))
    return out


def _reach_checks(sub: Subgraph, triggers: dict[Engine, list[Trigger]],
                  events: dict[Engine, tuple[Waits, Updates]]) -> list[Finding]:
    out: list[Finding] = []
    total = np.zeros(SEMAPHORES, dtype=np.int64)
    unordered: dict[int, str] = {}  # semaphore -> what makes it not monotone
    raisers: dict[int, list[str]] = {}
    for e in ENGINES:
        u = events[e][1]
        for mode in _distinct(u.mode):
            pick = u.mode == mode
            sems = u.sem[pick]
            if mode in INCREMENTS:
                total += np.bincount(sems, minlength=SEMAPHORES)
            elif mode in ADDS:
                total += np.bincount(sems, weights=u.value[pick],
                                     minlength=SEMAPHORES).astype(np.int64)
            elif mode not in EVENT_UPDATES:
                for s in _distinct(sems):
                    unordered.setdefault(s, f"{engine_label(e)} "
                                            f"{_mode_name(UpdateMode, mode)}")
        counts = np.bincount(u.sem, minlength=SEMAPHORES)
        for s in np.flatnonzero(counts).tolist():
            n = int(counts[s])
            raisers.setdefault(s, []).append(f"{n} {engine_label(e)} update"
                                             f"{'s' if n > 1 else ''}")
    entries: dict[int, list[str]] = {}
    for e in ENGINES:
        for t in triggers.get(e, []):
            total[t.entry.semaphore] += DMA_INCREMENT
            entries.setdefault(t.entry.semaphore, []).append(t.entry.label)
    # what goes before and after the word "wait(s)" -> how many waits it covers
    not_checked: Counter[tuple[str, str]] = Counter()
    odd = tally(sub.stream(e) for e in ENGINES)
    # what such records raise is not known: a wait they might satisfy is not judged
    unknown = ("", f" beyond what the modelled records add ({describe(odd)} records "
                   "are not modelled and may raise semaphores)") if odd else None
    for e in ENGINES:
        stream = sub.stream(e)
        w = events[e][0]
        # only the waits that may fail or are not checked are looked at one by one
        ge = w.mode == WaitMode.SEM_GE_IMM
        monotone = ~np.isin(w.sem, np.array(sorted(unordered), dtype=np.uint8))
        easy = ge & monotone & (w.value.astype(np.int64) <= total[w.sem])
        look = ~easy
        for i, second, mode, s, v in zip(w.index[look].tolist(), w.second[look].tolist(),
                                          w.mode[look].tolist(), w.sem[look].tolist(),
                                          w.value[look].tolist(), strict=True):
            if mode not in SEM_WAITS:
                not_checked[f"{_mode_name(WaitMode, mode)} ", ""] += 1
                continue
            if s in unordered:
                not_checked["", f" on sem[{s}] ({unordered[s]} makes it non-monotone)"] += 1
                continue
            need = v + 1 if mode == WaitMode.SEM_GT_IMM else v
            if mode in (WaitMode.SEM_LT_IMM, WaitMode.SEM_LE_IMM) or need <= total[s]:
                continue
            if unknown is not None:
                not_checked[unknown] += 1
                continue
            slot = " (its second wait, at 0x20)" if second else ""
            out.append(Finding("wait_reachable", Level.FAIL,
                               f"{_at(e, i, stream)}{slot} waits for sem[{s}] "
                               f"{_mode_name(WaitMode, mode)} {v}: everything that exists "
                               f"adds at most {int(total[s])} "
                               f"({_sources(raisers.get(s, []), entries.get(s, []))})", e, i))
    out += [Finding("wait_reachable", Level.NOTE,
                    f"{n:,} {before}{plural(n, 'wait')}{after}: not checked")
            for (before, after), n in sorted(not_checked.items(),
                                             key=lambda kv: f"{kv[0][0]}waits{kv[0][1]}")]
    return out


def _sources(engine_updates: list[str], entry_labels: list[str]) -> str:
    parts = list(engine_updates)
    if entry_labels:
        shown = ", ".join(entry_labels[:_SHOWN])
        more = len(entry_labels) - _SHOWN
        parts.append(f"{len(entry_labels)} DMA entr{'ies' if len(entry_labels) > 1 else 'y'} "
                     f"x {DMA_INCREMENT}: {shown}" + (f" and {more} more" if more > 0 else ""))
    return "; ".join(parts) if parts else "nothing raises it"


def _mode_name(enum: type[WaitMode] | type[UpdateMode], mode: int) -> str:
    try:
        name = enum(mode).name
    except ValueError:
        return f"mode 0x{mode:02x}"
    return {"SEM_GE_IMM": ">=", "SEM_GT_IMM": ">", "SEM_EQ_IMM": "==", "SEM_LT_IMM": "<",
            "SEM_LE_IMM": "<="}.get(name, name)


@lru_cache(maxsize=4096)
def _sb_shape(sizes: tuple[int, ...], steps: tuple[int, ...]
              ) -> tuple[int, int, int, int]:
    """(first partition and partitions relative to the offset's, lowest and one past the
    highest byte relative to its byte) of an SB side's shape: descriptors of a NEFF
    share a few shapes at many offsets."""
    first, parts, _, rest = sb_partitions(0, sizes, steps)
    lo, hi = extent(0, tuple(n for n, _ in rest), tuple(s for _, s in rest))
    return first, parts, lo, hi


@lru_cache(maxsize=4096)
def _shape_extent(sizes: tuple[int, ...], steps: tuple[int, ...]) -> tuple[int, int]:
    return extent(0, sizes, steps)


def _side_problem(sub: Subgraph, name: str, off: int, sizes: tuple[int, ...],
                  steps: tuple[int, ...], sbuf_bytes: int) -> str | None:
    """Why one side of a descriptor leaves its buffer, or None."""
    if name == SB:
        p0, byte = divmod(off, SB_PARTITION_STEP)
        first, parts, rel_lo, rel_hi = _sb_shape(sizes, steps)
        lo, hi = byte + rel_lo, byte + rel_hi
        p0 += first
        if p0 < 0 or p0 + parts > PARTITIONS:
            return f"SB partitions {p0}..{p0 + parts - 1} (there are {PARTITIONS})"
        if lo < 0 or hi > sbuf_bytes:
            return (f"SB bytes 0x{lo:x}..0x{hi:x} of a partition (the modelled SBUF has "
                    f"0x{sbuf_bytes:x})")
        return None
    var = sub.vars.get(name)
    if var is None:
        return f"{name!r}, which is not a def.json var"
    rel_lo, rel_hi = _shape_extent(sizes, steps)
    lo, hi = off + rel_lo, off + rel_hi
    if var.size is not None and (lo < 0 or hi > var.size):
        return f"{name} bytes {lo:,}..{hi:,} (the var holds {var.size:,})"
    return None


_RECKONED = 1 << 52  # offsets and extents _flagged reckons with (int64 sums stay exact)


def _flagged(sub: Subgraph, table: DescriptorTable, sbuf_bytes: int) -> np.ndarray | None:
    """Per row of `table`: whether a side of its descriptor may leave its buffer, as
    numpy operations over the rows with each kind's shape reckoned once (the rows flagged
    are then worded by _side_problem). None when the table is not for this: a transpose
    among its kinds, or numbers too large to reckon with exactly."""
    kinds = table.kinds
    if any(k.transpose_op is not None for k in kinds):
        return None
    n = len(kinds)
    bad = np.zeros(len(table), dtype=bool)
    sides = ([(k.src, k.src_sizes, k.src_steps) for k in kinds], table.src_off), \
        ([(k.dst, k.dst_sizes, k.dst_steps) for k in kinds], table.dst_off)
    for shapes, offsets in sides:
        # per kind: SB side?, partition first/count, byte extent, var missing, var size
        sb, missing, sized = (np.zeros(n, dtype=bool) for _ in range(3))
        first, parts, lo, hi, size = (np.zeros(n, dtype=np.int64) for _ in range(5))
        try:
            for j, (name, sizes, steps) in enumerate(shapes):
                if name == SB:
                    sb[j] = True
                    first[j], parts[j], lo[j], hi[j] = _sb_shape(sizes, steps)
                    continue
                var = sub.vars.get(name)
                if var is None:
                    missing[j] = True
                    continue
                lo[j], hi[j] = _shape_extent(sizes, steps)
                if var.size is not None:
                    sized[j], size[j] = True, var.size
        except (OverflowError, ValueError):  # (the per-descriptor check words it)
            return None
        if len(offsets) and max(int(np.abs(offsets).max()), *(int(np.abs(a).max()) for a in (
                first, parts, lo, hi, size))) >= _RECKONED:
            return None
        kind = table.kind
        p0 = offsets // SB_PARTITION_STEP + first[kind]
        byte = offsets % SB_PARTITION_STEP
        sb_bad = ((p0 < 0) | (p0 + parts[kind] > PARTITIONS) | (byte + lo[kind] < 0)
                  | (byte + hi[kind] > sbuf_bytes))
        var_bad = missing[kind] | (sized[kind] & ((offsets + lo[kind] < 0)
                                                  | (offsets + hi[kind] > size[kind])))
        bad |= np.where(sb[kind], sb_bad, var_bad)
    return bad


def _bounds_checks(sub: Subgraph, gen: Gen) -> list[Finding]:
    """`dma_in_bounds` (warning): each descriptor side names SB or a def.json var and
    stays inside it (the SB side inside 128 partitions of the generation's modelled
    SBUF, neff-facts §6.4; a var side inside its `size`). One finding per entry. The
    reader's descriptor tables are screened by _flagged; only the rows it flags, and
    descriptors held otherwise, are looked at one by one."""
    out: list[Finding] = []
    sbuf = geometry(gen).sbuf_bytes
    transposes = 0
    # per table (by id, the table kept alive beside it): its flagged rows, in order
    flagged: dict[int, tuple[DescriptorTable, list[int] | None]] = {}
    for e in ENGINES:
        for x in sub.engine_entries(e):
            descs = x.descriptors
            rows: Iterable[int] = range(len(descs))
            if type(descs) is DescriptorRange:
                table = descs.table
                if id(table) not in flagged:
                    bad = _flagged(sub, table, sbuf)
                    flagged[id(table)] = (table, None if bad is None
                                          else np.flatnonzero(bad).tolist())
                marked = flagged[id(table)][1]
                if marked is not None:
                    rows = [r - descs.start for r in marked[bisect_left(marked, descs.start):
                                                            bisect_left(marked, descs.stop)]]
            for k in rows:
                d = descs[k]
                if d.transpose_op is not None:  # their layout is not known (neff-facts §11)
                    transposes += 1
                    continue
                why = (_side_problem(sub, d.src, d.src_off, d.src_sizes, d.src_steps, sbuf)
                       or _side_problem(sub, d.dst, d.dst_off, d.dst_sizes, d.dst_steps, sbuf))
                if why is not None:
                    out.append(Finding("dma_in_bounds", Level.WARN,
                                       f"{e.file_stem}.json entry {x.label} descriptor {k} "
                                       f"reaches {why}", e))
                    break
    if transposes:
        out.append(Finding("dma_in_bounds", Level.NOTE,
                           f"{transposes} transpose descriptor{'s' if transposes > 1 else ''}"
                           ": not checked (transpose semantics are not known)"))
    backing = backing_note(sub)
    if backing is not None:
        out.append(Finding("dma_in_bounds", Level.NOTE, backing))
    return out


def check_subgraph(sub: Subgraph, triggers: dict[Engine, list[Trigger]],
                   gen: Gen | None = None) -> list[Finding]:
    """Every finding of the module's checks, in CHECKS order (`dma_in_bounds` only with
    a generation, whose SBUF size it needs)."""
    events = _events(sub)
    return (_trigger_checks(sub, triggers) + _owner_checks(sub, events)
            + _reach_checks(sub, triggers, events)
            + (_bounds_checks(sub, gen) if gen is not None else []))
