"""The console's `diagnose`: rounding forensics on the last Cast.

Load the output another device or library produced (ACTUAL) into the Cast's
destination, run the Cast, then `diagnose`: the destination's bytes from before the
Cast (the step's journaled write) are ACTUAL, the Cast's inputs are INPUT, and the
answer is `neurondbg diagnose`'s (machine.convert.diagnose), with the machine's own
rule (the neuron Cast, rint into floats, trunc into integers, its FP8 saturation) as
the expected one. `diagnose LANE` (e.g. `diagnose 3,17`) adds that lane's two traces'
rounding steps. A slow command (its work runs in the console's thread worker; Esc
stops it): the machine's diagnose has no stop check of its own yet, so a stop ends
the work before or after it and drops its result.

Active once neurondbg.console imports this module (`from neurondbg import
console_diagnose  # noqa: F401`, after REGISTRY is defined). Its functions import
numpy and machine.convert when they run: the declaration is read before the App's first
frame, which needs no model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neurondbg.console import REGISTRY, Cancelled, Reply

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


@REGISTRY.command("diagnose", "diagnose [LANE]",
                  "which conversion rule explains the values loaded in the last Cast's "
                  "destination (the device output), lane by lane; LANE (p,e): its rounding",
                  slow=True)
def _diagnose(session: Any, rest: str) -> Reply:
    """Reads the last Cast here (the caller's thread); the diagnosis is the Reply's work,
    on copies, so it may run in the console's worker while the machine steps on."""
    import numpy as np

    from machine.convert.diagnose import Rule, Stopped, diagnose
    from machine.convert.formats import parse_format
    from machine.convert.options import applied_mode, resolve

    last = session.last_lanes
    if last is None:
        raise ValueError("no conversion in effect: step a Cast whose destination holds the "
                         "values to explain")
    lanes, step = last
    rec = session.require().last_conversion
    src, dst = parse_format(lanes.src), parse_format(lanes.dst)
    opt = resolve(src, dst, "rint", bool(lanes.sat), lanes.profile)
    expected = Rule(opt.profile, applied_mode(opt), opt.sat)
    actual = destination_before(rec).copy()
    x = np.array(lanes.in_bits)
    p0 = lanes.p0
    lane = _lane_index(rest.strip(), x.shape, p0) if rest.strip() else None

    def work(cancelled: Cancelled) -> Reply:
        try:  # Esc asks between two rules' conversions
            d = diagnose(x, actual, src, dst, expected, cancelled=cancelled)
        except Stopped:
            return Reply()
        reply = Reply().say(f"step {step}: {src.name} -> {dst.name}, the destination's old "
                            "contents as ACTUAL", "bold")
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
    from machine.convert.diagnose import explaining_rule
    from machine.convert.roles import plain_bits

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
