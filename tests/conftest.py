"""Suite-wide hooks: `async def` tests (Pilot) run with asyncio, in every folder (no async
plugin is installed); the long tests are collected first, and under `-n N` the workers
share the tests by work stealing."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

# xdist's default `load` schedule hands tests out in collection order and leaves each worker
# a few queued when the rest are gone: with the long tests (mypy, the interleaving oracle,
# the App under Pilot: tests/ui sorts last by name) at the end, one worker idles while the
# other works through them. Collected first, they overlap with everything else and the tail
# is quick tests. This is an order only: every test stays independent of what ran before it.
LONG_FIRST = ("tests/test_types.py", "tests/core/test_race_explore.py", "tests/ui/")


def _rank(item: pytest.Item) -> int:
    return next((n for n, prefix in enumerate(LONG_FIRST) if item.nodeid.startswith(prefix)),
                len(LONG_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: each group keeps its files' order


@pytest.hookimpl(optionalhook=True)  # only with xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`-n N`'s default schedule (`load`) as work stealing: `load` hands each worker a
    contiguous first chunk (an eighth of the suite with 2 workers: all of the long tests
    above for the first) and never takes it back; an idle worker steals from a busy one's
    queue instead. An explicit other --dist is kept."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling
    return WorkStealingScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**args))
    return True
