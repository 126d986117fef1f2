"""The console's `diagnose`: rounding forensics on the last Cast.

ACTUAL, the output another device or library produced, is given one of two ways:
`diagnose ACTUAL.npy` (the Cast's lanes as values of its destination format, shaped
partitions x elements, as `neurondbg diagnose` reads them), or loaded into the Cast's
destination before the Cast runs (a `.data` line of the program): the destination's
bytes from before the Cast (the step's journaled write) are then ACTUAL. When neither
was given (the destination held only zeros before the Cast: nothing was loaded
there), `diagnose` says how to give one instead of explaining zeros. The Cast's
inputs are INPUT, and the answer is `neurondbg diagnose`'s
(machine.convert.diagnose), with the machine's own rule (the neuron Cast, rint into
floats, trunc into integers, its FP8 saturation) as the expected one. `diagnose
LANE` (e.g. `diagnose 3,17`) adds that lane's two traces' rounding steps. A slow
command (its work runs in the console's thread worker; Esc
stops it): the machine's diagnose has no stop check of its own yet, so a stop ends
the work before or after it and drops its result.

Active once neurondbg.console imports this module (`from neurondbg import
console_diagnose  # noqa: F401`, after REGISTRY is defined). Its functions import
numpy and machine.convert when they run: the declaration is read before the App's first
frame, which needs no model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neurondbg.console import REGISTRY, Cancelled, Reply, path_completer
from neurondbg.debug.controller import DebugSession
from neurondbg.registry import Arg, Args, text

if TYPE_CHECKING:
    import numpy as np

MAX_LINES = 8  # example lanes printed


def destination_before(rec: Any) -> np.ndarray:
    """The Cast destination's encodings from before the step (what was loaded there),
    shaped like the lanes' outputs; ValueError when the step wrote no such block."""
    import numpy as np

    lanes = rec.lanes
    out = np.asarray(lanes.out_bits)
    size = out.size * out.dtype.itemsize
    for w in reversed(rec.writes):
        if w.region is not None and np.asarray(w.old).size == size:
            old = np.ascontiguousarray(np.asarray(w.old, dtype=np.uint8))
            return old.reshape(-1).view(out.dtype).reshape(out.shape)
    raise ValueError("the last Cast's step has no destination write of its size to compare")


def no_actual(rec: Any, src: str, dst: str) -> str:
    """What to say when nothing was loaded as the device's output: how to give one."""
    region = rec.lanes.dest if rec.lanes.dest is not None else None
    where = "the Cast's destination"
    if region is not None:
        short = "sb" if region.space == "sbuf" else region.space
        where = f"{short}[{region.p0}:{region.p1}, {region.start:#x}]"
    return (f"no device output to compare: {where} held only zeros before the Cast. Give "
            f"the device's {dst} output as `diagnose ACTUAL.npy` (the lanes' values, "
            f"partitions x elements), or load it there before the Cast (`.data {where} "
            f"{dst} ...` in the program) and step the Cast again")


def read_actual(path: str, dst: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The encodings of the device output in `path` (values of `dst`), shaped `shape`;
    ValueError (one line: the file, the lane, what was expected) otherwise."""
    import numpy as np

    from neurondbg.commands.diagnose import load_lanes
    from neurondbg.errors import InputError

    try:
        arr = load_lanes(path, dst, False, "ACTUAL")
    except InputError as exc:
        raise ValueError(str(exc.format_message()).removeprefix("diagnose: ")) from None
    if arr.size != int(np.prod(shape)):
        raise ValueError(f"{path}: {arr.size:,} lanes, expected the Cast's "
                         f"{' x '.join(str(n) for n in shape)} lanes")
    return arr.reshape(shape)


def _split(rest: str, n: int) -> list[str]:
    """[LANE, ACTUAL.npy path] from `diagnose`'s words, in either order (either may be
    absent): the path is the word ending in .npy."""
    words = rest.split()
    paths = [w for w in words if w.lower().endswith(".npy")]
    if len(paths) > 1:
        raise ValueError(f"expected one ACTUAL.npy, found {len(paths)}: {' '.join(paths)}")
    lane = " ".join(w for w in words if w not in paths)
    return [lane, paths[0] if paths else ""]


LANE = Arg("LANE", "a lane p,e (e.g. 3,17): add its rounding steps", text, optional=True)
ACTUAL = Arg("ACTUAL.npy", "the device's output: the lanes' values, partitions x elements "
             "(none: what was loaded in the Cast's destination)", text,
             complete=path_completer((".npy",)), optional=True)


@REGISTRY.command("diagnose", "which conversion rule explains the device's output (ACTUAL.npy, "
                  "or what was loaded in the last Cast's destination), lane by lane; LANE "
                  "(p,e): its rounding", args=(LANE, ACTUAL), split=_split, positional=False,
                  slow=True)
def _diagnose(session: DebugSession, args: Args) -> Reply:
    """Reads the last Cast here (the caller's thread); the diagnosis is the Reply's work,
    on copies, so it may run in the console's worker while the machine steps on."""
    import numpy as np

    from neurondbg.machine.convert.diagnose import Rule, Stopped, diagnose
    from neurondbg.machine.convert.formats import parse_format
    from neurondbg.machine.convert.options import applied_mode, resolve

    last = session.last_lanes
    if last is None:
        raise ValueError("no conversion in effect: step a Cast whose destination holds the "
                         "values to explain")
    lanes, step = last
    rec = session.require().last_conversion
    src, dst = parse_format(lanes.src), parse_format(lanes.dst)
    opt = resolve(src, dst, "rint", bool(lanes.sat), lanes.profile)
    expected = Rule(opt.profile, applied_mode(opt), opt.sat)
    x = np.array(lanes.in_bits)
    p0 = lanes.p0
    lane_text, path = args[LANE], args[ACTUAL]
    lane = _lane_index(lane_text, x.shape, p0) if lane_text else None
    if path:
        actual, told = read_actual(path, dst, x.shape), f"{path} as ACTUAL"
    else:
        actual, told = destination_before(rec).copy(), "the destination's old contents as ACTUAL"
        if not actual.any():
            raise ValueError(no_actual(rec, src.name, dst.name))

    def work(cancelled: Cancelled) -> Reply:
        try:  # Esc asks between two rules' conversions
            d = diagnose(x, actual, src, dst, expected, cancelled=cancelled)
        except Stopped:
            return Reply()
        reply = Reply().say(f"step {step}: {src.name} -> {dst.name}, {told}", "bold")
        reply.say(d.summary())
        for (rule, n), equal in zip(d.explained_by, d.alternatives, strict=True):
            reply.say(f"  {n:>10,}  {rule.name}")
            for other in equal:
                reply.say(f"  {'':>10}  equally good for these lanes: {other.name}", "dim")
        if d.unexplained:
            reply.say(f"  {d.unexplained:>10,}  unexplained", "yellow")
        for ex in d.examples[:MAX_LINES]:
            p, e = ex["index"]
            reply.say(f"  lane p{p + p0} e{e}: {ex['input']} -> {ex['actual_bits']}, "
                      f"expected {ex['expected_bits']}", "dim")
        if lane is not None and not cancelled():
            _lane(reply, d, int(x[lane]), int(actual[lane]), src, dst)
        return reply

    return Reply(work=work)


def _lane_index(text: str, shape: tuple[int, ...], p0: int) -> tuple[int, int]:
    """The (row, element) of the Cast's lanes that `p,e` names."""
    try:
        p, e = (int(v) for v in text.replace(" ", "").strip("[]").split(","))
    except ValueError:
        raise ValueError(f"expected a lane p,e (e.g. diagnose {p0},0), found {text!r}") from None
    row = p - p0
    if not (0 <= row < shape[0] and 0 <= e < shape[1]):
        raise ValueError(f"lane p{p} e{e} is outside the Cast's {shape[0]}x{shape[1]} "
                         f"lanes (partitions from {p0})")
    return row, e


def _lane(reply: Reply, d: Any, bits: int, got: int, src: Any, dst: Any) -> None:
    """The rounding step of one lane under the expected and the explaining rule."""
    from neurondbg.machine.convert.diagnose import explaining_rule
    from neurondbg.machine.convert.roles import plain_bits

    why = explaining_rule(d, bits, got, src, dst)
    for label, rule in (("expected", d.baseline), ("explained by", why)):
        if rule is None:
            reply.say(f"{label}: no rule reproduces 0x{got:x}", "yellow")
            continue
        reply.say(f"{label}: {rule.name}", "bold")
        for name, step in rule.steps(bits, src, dst):
            if step is not None and step.name in ("grs", "round", "encode"):
                bits_text = plain_bits(step.bits_after, step.marks, 24)
                reply.say(f"  {name:<18} {bits_text}  {step.text}")
