"""machine.legality re-exports its API lazily: each name is still the object it
names however the submodules were imported first, and the package alone loads none."""

from __future__ import annotations

import subprocess
import sys

import pytest

_PROBE = """
import sys
{first}
import neurondbg.machine.legality as pkg
from neurondbg.machine.legality import (ClauseResult, Provenance, Verdict, explain,
                                        explain_levels, validate)
import neurondbg.machine.legality.explain as mod
from neurondbg.machine.legality import result
print(explain.__module__, callable(explain), type(mod).__name__, validate.__name__,
      explain_levels.__name__, Verdict.__name__, Provenance is result.Provenance,
      ClauseResult is result.ClauseResult, pkg.explain is explain,
      sys.modules["neurondbg.machine.legality.explain"].explain is explain)
"""

_EXPECTED = ("neurondbg.machine.legality.explain True function validate explain_levels Verdict "
             "True True True True")


@pytest.mark.parametrize("first", [
    "",  # the package first
    # the submodule first: it would shadow the function
    "import neurondbg.machine.legality.explain",
    "from neurondbg.machine.legality.explain import explain_many",
    "import neurondbg.machine.legality.wire.bulk",
])
def test_each_reexport_is_the_object_it_names(first: str) -> None:
    r = subprocess.run([sys.executable, "-c", _PROBE.format(first=first)],
                       capture_output=True, text=True, check=True)
    assert r.stdout.strip() == _EXPECTED


def test_the_package_alone_loads_no_submodule() -> None:
    probe = ("import sys, neurondbg.machine.legality; "
             "print(sorted(m for m in sys.modules if m.startswith('neurondbg.machine.legality.')))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       check=True)
    assert r.stdout.strip() == "[]"


def test_an_unknown_name_is_an_attribute_error() -> None:
    import neurondbg.machine.legality as pkg

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pkg.nope  # noqa: B018
