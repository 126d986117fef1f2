"""Same schedule, same run: the interleaving a policy gives is a function of the kernel
and the policy alone. Turning the fast path off (`on_step`, as `run --trace` does; an
`if:` breakpoint that never fires) or cutting the run into pieces does not change it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.cli import cli
from neurondbg.machine.core.core import Core
from tests.core.conftest import core

ENGINES = ("pool", "dve", "act")
instruction = st.one_of(
    st.just("NOP"),
    st.integers(1, 9).map(lambda k: f"MOVE R1={k}"),
    st.integers(0, 1).map(lambda s: f"NOP update_mode=SEM_INC_READ update_idx={s}"),
    st.tuples(st.integers(0, 1), st.integers(1, 2)).map(
        lambda t: f"NOP wait_mode=SEM_GE_IMM wait_idx={t[0]} semaphore_value={t[1]}"),
)


@st.composite
def kernels(draw: st.DrawFn) -> dict[str, str]:
    n = draw(st.integers(2, 3))
    return {e: "\n".join(draw(st.lists(instruction, min_size=1, max_size=8))) + "\nHALT"
            for e in ENGINES[:n]}


def schedule_of(c: Core) -> tuple[str, int, list[str], str]:
    stop = c.cont()
    return stop.reason, c.steps, c.taken()[1], c.digest()


POLICIES = st.one_of(st.sampled_from(["rr", "in-order"]),
                     st.integers(0, 2**64 - 1).map(lambda s: f"random:{s}"))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(), POLICIES, st.integers(1, 5))
def test_the_slow_path_and_pieces_take_the_fast_paths_schedule(
        queues: dict[str, str], policy: str, piece: int) -> None:
    fast = schedule_of(core(policy, **queues))
    traced = core(policy, **queues)
    seen: list[str] = []
    traced.on_step = lambda cs: seen.append(cs.engine)
    assert schedule_of(traced) == fast
    assert seen == fast[2]
    watched = core(policy, **queues)
    watched.add_breakpoint("if:R63 == 12345")  # never true: it only turns batching off
    assert schedule_of(watched) == fast
    cut = core(policy, **queues)
    while cut.cont(max_steps=piece).reason == "max-steps":
        pass
    assert (cut.steps, cut.taken()[1], cut.digest()) == fast[1:]


def test_a_random_schedule_skips_an_engine_blocked_after_its_fast_steps() -> None:
    """pool runs four fast steps, then blocks for good: with the fast path on, the picks
    after its last NOP are made over {dve, act}, as one step at a time makes them."""
    queues = {"pool": "NOP\nNOP\nNOP\nNOP\nNOP wait_mode=SEM_GE_IMM wait_idx=0 "
              "semaphore_value=1\nHALT", "dve": "NOP\nNOP\nNOP\nHALT", "act": "NOP\nHALT"}
    for seed in range(40):
        fast = schedule_of(core(f"random:{seed}", **queues))
        slow = core(f"random:{seed}", **queues)
        slow.on_step = lambda cs: None
        assert schedule_of(slow) == fast, seed


def test_run_with_trace_or_an_if_breakpoint_keeps_the_seeds_schedule(tmp_path: Path) -> None:
    """Through the CLI: `--trace` and an `if:` breakpoint that never fires leave a random
    schedule's run as it was (engines, semaphores, steps, races)."""
    src = tmp_path / "k.asm"
    src.write_text(".engine pool\nNOP\nNOP\nNOP\nNOP\nNOP wait_mode=SEM_GE_IMM wait_idx=0 "
                   "semaphore_value=1\nHALT\n.engine dve\nNOP\nNOP\nMOVE R1=2\n"
                   "NOP update_mode=SEM_INC_READ update_idx=0\nHALT\n"
                   ".engine act\nNOP\nMOVE R1=3\nNOP\nHALT\n")

    def result(*extra: str) -> dict:
        r = CliRunner().invoke(cli, ["run", str(src), "--json", *extra])
        assert r.exit_code == 0, r.stderr
        return json.loads(r.stdout)

    for seed in range(40):
        plain = result("--schedule", f"random:{seed}")
        assert plain["stop"]["reason"] == "halt"
        traced = result("--schedule", f"random:{seed}", "--trace", str(tmp_path / "t.jsonl"))
        lines = (tmp_path / "t.jsonl").read_text().splitlines()[1:]
        watched = result("--schedule", f"random:{seed}", "--break", "if:R63 == 12345")
        for other in (traced, watched):
            assert {k: other[k] for k in plain} == plain, seed
        assert len(lines) == sum(e["steps"] for e in plain["engines"].values())
