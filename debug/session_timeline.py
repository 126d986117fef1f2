"""The global-step bookkeeping behind a kernel's timeline and `who`: which engine took
each kept step (`StepIndex`, kept up to date in O(1) per step) and the timeline's
cells and semaphore edges of any step range (`TimelineCells`, read from the engines'
journals)."""

from __future__ import annotations

from bisect import bisect_left

from neurondbg.debug.snapshot import Cell, Edge
from neurondbg.machine.core.core import Core, Wait
from neurondbg.machine.core.events import WaitSpec, plan_of
from neurondbg.machine.engines.record import StepRecord
from neurondbg.machine.isa.codec import Instruction
from neurondbg.machine.state import MachineState

CELL_CACHE = 200_000  # timeline cells kept (past steps never change); then start afresh


class StepIndex:
    """Global-step bookkeeping of the kept history: the engine of each step, each
    engine's global steps, every semaphore write (global step, value before). One step
    forward or back updates it in O(1) (the App's per-step render must not grow with
    the run, DESIGN "UI"); anything else (a run, a travel, a fold) rebuilds it from the
    core's schedule and the engines' journals."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.checked = 0  # Session._sync_path: the path is known equal up to here
        self._hint: tuple[str, str] | None = None
        self.mark: tuple[int, tuple[int, ...]] = (-1, ())  # the core when last synced
        self.rebuild()

    def _mark(self) -> tuple[int, tuple[int, ...]]:
        core = self.core
        return core.steps, tuple(core.state(e).journal.origin for e in core.names)

    def hint(self, engine: str, rec: StepRecord | None) -> None:
        """`engine` just took one executed step (else nothing moved)."""
        if rec is not None and rec.executed:
            self._hint = (engine, "step") if self._hint is None else ("", "many")

    def hint_back(self) -> None:
        self._hint = ("", "back") if self._hint is None else ("", "many")

    def sync(self) -> StepIndex:
        mark = self._mark()
        hint, self._hint = self._hint, None
        if mark == self.mark:
            return self
        steps, origins = mark
        if hint is not None and origins == self.mark[1]:
            if hint[1] == "step" and steps == self.mark[0] + 1:
                self._forward(hint[0])
                self.mark = mark
                return self
            if hint[1] == "back" and steps == self.mark[0] - 1 and self.names:
                self._back()
                self.mark = mark
                return self
        self.rebuild()
        return self

    def rebuild(self) -> None:
        core = self.core
        origin, names = core.taken()
        order = {e: i for i, e in enumerate(core.names)}
        self.origin = origin
        self.names = [order[n] for n in names]
        self.pos: dict[str, list[int]] = {e: [] for e in core.names}
        for j, i in enumerate(self.names):
            self.pos[core.names[i]].append(origin + j)
        self.base = {e: core.engine_steps(e) - len(p) for e, p in self.pos.items()}
        writes: list[tuple[int, int, int, int]] = []
        for e in core.names:
            for n, u in enumerate(core.state(e).journal.others):
                if u.target == "sem":
                    g = self.global_step(e, u.step)
                    if g is not None:
                        writes.append((g, n, *u.slot))
        writes.sort()
        self.sems: dict[int, tuple[list[int], list[int]]] = {}
        for g, _, i, old in writes:
            steps, olds = self.sems.setdefault(i, ([], []))
            steps.append(g)
            olds.append(old)
        self.checked = min(self.checked, origin + len(self.names))
        self.cells: dict[tuple[str, int], Cell] = {}  # _Cells' final cells
        self.edges: dict[tuple[str, int], list[Edge]] = {}  # the edges into a past step
        self.mark = self._mark()

    def _forward(self, engine: str) -> None:
        g = self.origin + len(self.names)
        self.names.append(self.core.names.index(engine))
        self.pos[engine].append(g)
        journal = self.core.state(engine).journal
        local = len(journal) - 1
        mine = []
        for u in reversed(journal.others):
            if u.step != local:
                break
            if u.target == "sem":
                mine.append(u.slot)
        for i, old in reversed(mine):
            steps, olds = self.sems.setdefault(i, ([], []))
            steps.append(g)
            olds.append(old)

    def _back(self) -> None:
        g = self.origin + len(self.names) - 1
        self.pos[self.core.names[self.names.pop()]].pop()
        for steps, olds in self.sems.values():
            while steps and steps[-1] == g:
                steps.pop()
                olds.pop()
        self.checked = min(self.checked, g)
        self.cells.clear()
        self.edges.clear()

    def global_step(self, engine: str, local: int) -> int | None:
        p = self.pos[engine]
        k = local - self.base[engine]
        return p[k] if 0 <= k < len(p) else None


def shown_step(g: int | None) -> str:
    """A global step index as the UI numbers steps: the N-th step taken is step N."""
    return "?" if g is None else str(g + 1)


def waits_of(core: Core) -> list[Wait]:
    """Why each blocked engine queue waits (engine order)."""
    return [w for e in core.engines if (w := core.waiting(e)) is not None]


class TimelineCells:
    """Timeline cells of any step range, from the engines' journals (exact within the
    kept history): run cells name the instruction; an engine that did not run at a step
    is `wait` when its next instruction's semaphore wait did not hold on the value the
    semaphore had then (the journals' old values give it), else `ready`; `halted` after
    its HALT. Register-operand waits compare with the register's value now."""

    def __init__(self, core: Core, index: StepIndex, path: list[int],
                 plans: dict[int, tuple[Instruction, tuple[WaitSpec, ...]]]) -> None:
        """`path`: the engine of every step known (read only while this frame draws);
        `plans`: the waits of each decoded instruction, by id (kept across frames)."""
        self.core = core
        ix = index.sync()
        self.origin, self.pos, self.base = ix.origin, ix.pos, ix.base
        self.path = path
        self.plans = plans
        self.steps = core.steps
        self._ix = ix

    def _sem_history(self) -> dict[int, tuple[list[int], list[int]]]:
        return self._ix.sems

    def sem_at(self, i: int, g: int) -> int:
        """The value of sem[i] before global step g."""
        steps, olds = self._sem_history().get(i, ([], []))
        k = bisect_left(steps, g)
        return olds[k] if k < len(steps) else int(self.core.state().sem[i])

    def _pc(self, e: str, k: int) -> int | None:
        """The PC of `e`'s k-th global issue in the window (its own step base + k)."""
        return self.core.state(e).journal.pc_of(self.base[e] + k)

    def _inst(self, e: str, pc: int) -> Instruction | None:
        m = self.core.machines.get(e)  # None: a DMA queue's lane (no instructions)
        if m is None:
            return None
        k = m.index_of(pc)
        return m.instruction(k) if k is not None else None

    def columns(self, lo: int, hi: int) -> list[list[Cell]]:
        out = []
        cache = self._ix.cells
        for e in self.core.names:
            p = self.pos[e]
            st = self.core.state(e)
            row = []
            for g in range(lo, hi):
                cell = cache.get((e, g))
                if cell is None:
                    cell, final = self._cell(e, p, st, g)
                    if final:
                        cache[(e, g)] = cell
                row.append(cell)
            out.append(row)
        if len(cache) > CELL_CACHE:
            cache.clear()
        return out

    def _cell(self, e: str, p: list[int], st: MachineState, g: int) -> tuple[Cell, bool]:
        """The cell of `e` at step g, and whether it is final: a past step after which
        the engine issued again never changes (until the index moves back)."""
        if g >= self.steps or g < self.origin:
            path = self.path
            mine = 0 <= g < len(path) and path[g] >= 0 and self.core.names[path[g]] == e
            return Cell("future" if mine else "ready"), False
        k = bisect_left(p, g)
        if k < len(p) and p[k] == g:
            ran = self._pc(e, k)
            inst = self._inst(e, ran) if ran is not None else None
            what = "DMA" if e not in self.core.machines else "?"
            return Cell("run", inst.mnemonic if inst is not None else what), True
        pc: int | None
        if k == len(p):
            if st.halted:
                return Cell("halted"), False
            pc = st.pc
        else:
            pc = self._pc(e, k)
        inst = self._inst(e, pc) if pc is not None else None
        kind = "wait" if inst is not None and self._blocked(inst, st, g) else "ready"
        return Cell(kind), k < len(p)

    def _blocked(self, inst: Instruction, st: MachineState, g: int) -> bool:
        return any(not w.predicate(st)(self.sem_at(w.idx, g)) for w in self._waits(inst))

    def _waits(self, inst: Instruction) -> tuple[WaitSpec, ...]:
        plans = self.plans
        key = id(inst)  # the machines cache their decoded instructions
        if key not in plans:
            plans[key] = (inst, plan_of(inst).waits)
        return plans[key][1]

    def edges(self, lo: int, hi: int) -> list[Edge]:
        out: list[Edge] = []
        cache = self._ix.edges  # a past step's edges never change (until the index moves back)
        for e in self.core.engines:
            p = self.pos[e]
            for k in range(bisect_left(p, lo), bisect_left(p, hi)):
                found = cache.get((e, p[k]))
                if found is None:
                    found = cache[(e, p[k])] = self._edges_into(e, k)
                out += found
        if len(cache) > CELL_CACHE:
            cache.clear()
        return out

    def _edges_into(self, e: str, k: int) -> list[Edge]:
        """The edges whose wait passed at `e`'s k-th issue in the window."""
        g = self.pos[e][k]
        pc = self._pc(e, k)
        inst = self._inst(e, pc) if pc is not None else None
        if inst is None:
            return []
        hist = self._sem_history()
        out = []
        for w in self._waits(inst):
            steps = hist.get(w.idx, ([], []))[0]
            j = bisect_left(steps, g) - 1
            if j >= 0:
                src = steps[j]
                by = self.core.names[self.path[src]] if 0 <= src < len(
                    self.path) and self.path[src] >= 0 else "?"
                out.append(Edge(w.idx, src, by, g, e))
        return out
