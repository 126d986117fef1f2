"""machine.legality re-exports its API lazily (issue 17): each name is still the object it
names however the submodules were imported first, and the package alone loads none."""

from __future__ import annotations

import subprocess
import sys

import pytest

_PROBE = """
import sys
{first}
import machine.legality as pkg
from machine.legality import ClauseResult, Provenance, Verdict, explain, explain_levels, validate
import machine.legality.explain as mod
from machine.legality import result
print(explain.__module__, callable(explain), type(mod).__name__, validate.__name__,
      explain_levels.__name__, Verdict.__name__, Provenance is result.Provenance,
      ClauseResult is result.ClauseResult, pkg.explain is explain,
      sys.modules["machine.legality.explain"].explain is explain)
"""

_EXPECTED = ("machine.legality.explain True function validate explain_levels Verdict "
             "True True True True")


@pytest.mark.parametrize("first", [
    "",  # the package first
    "import machine.legality.explain",  # the submodule first: it would shadow the function
    "from machine.legality.explain import explain_many",
    "import machine.legality.wire.bulk",
])
def test_each_reexport_is_the_object_it_names(first: str) -> None:
    r = subprocess.run([sys.executable, "-c", _PROBE.format(first=first)],
                       capture_output=True, text=True, check=True)
    assert r.stdout.strip() == _EXPECTED


def test_the_package_alone_loads_no_submodule() -> None:
    probe = ("import sys, machine.legality; "
             "print(sorted(m for m in sys.modules if m.startswith('machine.legality.')))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       check=True)
    assert r.stdout.strip() == "[]"


def test_an_unknown_name_is_an_attribute_error() -> None:
    import machine.legality as pkg

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pkg.nope  # noqa: B018
