"""What one step returns: StepRecord, and the lazy per-lane handle of a conversion."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from neurondbg.machine.convert.formats import FloatFormat, IntFormat, parse_format
from neurondbg.machine.state import MachineState, Region, Write

if TYPE_CHECKING:  # the trace module loads with the first trace
    from neurondbg.machine.convert.trace import Trace
    from neurondbg.machine.legality.result import Verdict


class Fault(Exception):
    """A condition that stops the machine at the faulting instruction (never escapes a step)."""


Side = Literal["in", "out"]  # of a conversion's lanes: its inputs or its outputs


@dataclass(eq=False)  # identity semantics: MachineState.views holds it in a WeakSet
class Lanes:
    """The lanes of one conversion: inputs and outputs as bit patterns, (partitions, elements).

    `trace(p, e)` builds the bit-level trace of one lane on demand; `flags`
    classifies every lane at once (vectorized): inexact, tie, saturated, nan, inf.
    """

    src: str  # convert format names
    dst: str
    sat: bool
    p0: int  # first partition
    in_bits: np.ndarray = field(repr=False)
    out_bits: np.ndarray = field(repr=False)
    mask: np.ndarray | None = field(default=None, repr=False)  # predicated: lanes written
    profile: str = "neuron"
    # the src Region while in_bits views memory
    source: Region | None = field(default=None, repr=False)
    # the dst Region while out_bits views memory
    dest: Region | None = field(default=None, repr=False)
    write: Write | None = field(default=None, repr=False)  # the step's Write whose `new` is it

    _watches: list[_Watch] = field(default_factory=list, init=False, repr=False)

    def watch(self, state: MachineState) -> None:
        """Have MachineState copy each side still viewing memory before that memory changes.

        Each side is watched on its own, so overwriting the destination (the next step,
        an undo) copies only the outputs, and the inputs stay a view while their bytes do.
        """
        sides: tuple[tuple[Side, Region | None], ...] = (("in", self.source),
                                                         ("out", self.dest))
        for side, region in sides:
            if region is not None:
                w = _Watch(region, self, side)
                self._watches.append(w)  # the state holds it weakly: it lives with the lanes
                state.watch(w)

    def overlaps(self, region: Region) -> bool:
        return ((self.source is not None and self.source.overlaps(region))
                or (self.dest is not None and self.dest.overlaps(region)))

    def materialize(self) -> None:
        """Own copies of whatever still views memory (both sides)."""
        self.own("in")
        self.own("out")

    def own(self, side: Side) -> None:
        """Copy one side ("in" / "out") if it still views memory."""
        if side == "in" and self.source is not None:
            self.in_bits = self.in_bits.copy()
            self.source = None
        elif side == "out" and self.dest is not None:
            self.out_bits = self.out_bits.copy()
            self.dest = None
            if self.write is not None:
                # Write is frozen (records are values); its `new` was this same memory view
                # and must now show the copy, so the step's record stays what it wrote.
                object.__setattr__(self.write, "new", self.out_bits.view(np.uint8))
                self.write = None

    @property
    def shape(self) -> tuple[int, int]:
        p, e = self.in_bits.shape
        return p, e

    def trace(self, partition: int, element: int) -> Trace:
        from neurondbg.machine.convert.trace import trace

        bits = int(self.in_bits[partition - self.p0, element])
        return trace(bits, self.src, self.dst, mode="rint", sat=self.sat, profile=self.profile)

    @cached_property
    def values(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(input, output) values as float64 (the fp32 hub value for the input)."""
        return decode_values(self.in_bits, self.src), decode_values(self.out_bits, self.dst)

    @cached_property
    def flags(self) -> dict[str, np.ndarray]:
        """Per-lane booleans: inexact, tie, saturated, nan, inf (masked-off lanes: False)."""
        from neurondbg.machine.convert import convert

        x, y = self.values
        d = parse_format(self.dst)
        if parse_format(self.src) == d and self.profile == "neuron":
            # Same dtype: the Copy bit move (ref 000 §6.1), nothing rounds or saturates.
            none = np.zeros(x.shape, bool)
            out = {"inexact": none, "tie": none, "saturated": none, "nan": np.isnan(y),
                   "inf": np.isinf(y)}
            return {k: v & self.mask for k, v in out.items()} if self.mask is not None else out
        hub_bits = convert(self.in_bits, self.src, "fp32", "rint", self.sat, self.profile)
        h = hub_bits.astype(np.uint32).view(np.float32).astype(np.float64)
        finite_h = np.isfinite(h)
        with np.errstate(all="ignore"):
            # End to end: a lane is inexact when its output differs from the exact input,
            # whichever leg lost the bits (int32 beyond 2^24 loses them entering the hub).
            inexact = np.isfinite(x) & (x != y)
            tie = self._hub_ties(x)
            if isinstance(d, IntFormat):
                sat = ~np.isnan(h) & ((h < d.min_value) | (h > d.max_value))
            else:
                lo, hi = (decode_values(convert(hub_bits, "fp32", self.dst, m, False, "ieee"),
                                        self.dst) for m in ("floor", "ceil"))
                tie |= finite_h & (lo != hi) & np.isfinite(lo) & np.isfinite(hi) & (
                    (h - lo) == (hi - h))
                # Saturated: IEEE rounding would overflow (to inf / NaN), yet the lane is finite.
                ov = decode_values(convert(hub_bits, "fp32", self.dst, "rint", False, "ieee"),
                                   self.dst)
                sat = ~np.isnan(h) & ~np.isfinite(ov) & np.isfinite(y)
            nan = np.isnan(y)
            inf = np.isinf(y)
        out = {"inexact": inexact, "tie": tie, "saturated": sat, "nan": nan, "inf": inf}
        if self.mask is not None:
            out = {k: v & self.mask for k, v in out.items()}
        return out

    def _hub_ties(self, x: npt.NDArray[np.float64]) -> np.ndarray:
        """Lanes whose entry into the fp32 hub is itself a tie (integers beyond 2^24)."""
        if not isinstance(parse_format(self.src), IntFormat):
            return np.zeros(x.shape, bool)  # every float source widens to fp32 exactly
        from neurondbg.machine.convert import convert

        lo, hi = (decode_values(convert(self.in_bits, self.src, "fp32", m, False, "ieee"),
                                "fp32") for m in ("floor", "ceil"))
        return np.logical_and(np.not_equal(lo, hi), np.equal(x - lo, hi - x))

    def counts(self) -> dict[str, int]:
        return {k: int(v.sum()) for k, v in self.flags.items()}


class _Watch:
    """One side of a Lanes viewing memory, as MachineState.watch wants it."""

    __slots__ = ("__weakref__", "lanes", "region", "side")

    def __init__(self, region: Region, lanes: Lanes, side: Side) -> None:
        self.region = region
        self.lanes = weakref.ref(lanes)  # no cycle: the lanes keep their watches alive
        self.side = side

    def overlaps(self, region: Region) -> bool:
        return self.region.overlaps(region)

    def materialize(self) -> None:
        lanes = self.lanes()
        if lanes is not None:
            lanes.own(self.side)


@lru_cache(maxsize=32)
def _table(fmt: str) -> np.ndarray:
    """Value of every code of a format of <= 16 bits (machine.convert's exact decoder)."""
    from neurondbg.machine.convert.kernels import decode_value

    f = parse_format(fmt)
    return decode_value(np.arange(1 << f.bits, dtype=f.container), fmt)


def decode_values(bits: np.ndarray, fmt: str) -> npt.NDArray[np.float64]:
    """Values of encodings as float64: a table lookup up to 16 bits, views for 32 bits."""
    f = parse_format(fmt)
    with np.errstate(all="ignore"):
        if isinstance(f, FloatFormat) and f.bits == 16 and f.ml_dtype is not None:
            return bits.astype(f.container).view(f.ml_dtype).astype(np.float64)  # exact widening
        if f.bits <= 16:
            return _table(fmt)[bits.astype(np.intp)]
        if isinstance(f, IntFormat):
            return bits.astype(f.container).view(f.value_dtype).astype(np.float64)
        if f.bits == 32:  # fp32 and fp32r share the fp32 container
            return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    from neurondbg.machine.convert.kernels import decode_value

    return decode_value(bits, fmt)


class LazyVerdict:
    """A legality Verdict computed when first read: explaining a record costs ~1 ms, and
    a step needs only the precomputed bulk validity flag to run or refuse."""

    __slots__ = ("compute",)

    def __init__(self, compute: Callable[[], Verdict | None]) -> None:
        self.compute = compute


@dataclass
class StepRecord:
    """One executed (or refused) step. `writes` are also what the journal undoes.

    `verdict` (the legality Verdict, or None without a legality engine) may be given
    as a LazyVerdict: it is computed on first read and kept.
    """

    step: int  # 0-based number of this step (= steps executed before it)
    pc: int
    index: int  # record index in the program
    instruction: Any = field(default=None, repr=False)  # an Instruction, a NEFF DmaOp, or None
    _verdict: Verdict | LazyVerdict | None = field(default=None, repr=False)
    writes: list[Write] = field(default_factory=list)
    fault: str | None = None
    invalid: bool = False  # refused: failed legality (nothing executed)
    halted: bool = False
    next_pc: int = 0
    lanes: Lanes | None = None

    @property
    def verdict(self) -> Verdict | None:
        v = self._verdict
        if isinstance(v, LazyVerdict):
            v = self._verdict = v.compute()
        return v

    @verdict.setter
    def verdict(self, value: Verdict | LazyVerdict | None) -> None:
        self._verdict = value

    @property
    def executed(self) -> bool:
        """The instruction ran (not refused, not faulted, not already halted)."""
        return self.instruction is not None and self.fault is None and not self.invalid

    @property
    def opcode(self) -> int | None:
        return None if self.instruction is None else self.instruction.opcode

    @property
    def mnemonic(self) -> str:
        return "" if self.instruction is None else self.instruction.mnemonic

    def to_dict(self) -> dict[str, Any]:
        """One `--trace` JSON line: pc, opcode, mnemonic, verdict, writes, fault."""
        verdict = self.verdict
        d: dict[str, Any] = {
            "step": self.step, "pc": self.pc, "index": self.index, "opcode": self.opcode,
            "mnemonic": self.mnemonic,
            "verdict": None if verdict is None else ("valid" if verdict.valid else "failed"),
            "writes": [w.to_dict() for w in self.writes],
        }
        if verdict is not None and not verdict.valid:
            d["failed"] = list(verdict.failed)
        if self.fault:
            d["fault"] = self.fault
        if self.invalid:
            d["invalid"] = True
        if self.halted:
            d["halted"] = True
        if self.lanes is not None:
            d["lanes"] = {"src": self.lanes.src, "dst": self.lanes.dst,
                          "shape": list(self.lanes.shape), **self.lanes.counts()}
        return d
