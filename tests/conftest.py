"""Suite-wide hooks: `async def` tests (Pilot) run with asyncio, in every folder (no async
plugin is installed); the long tests are collected first."""

from __future__ import annotations

import asyncio
import inspect

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


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**args))
    return True
