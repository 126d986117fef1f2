"""The console's `explain TEXT` (neurondbg.console_explain) prints the CLI's report.

Run in a fresh interpreter: importing the module registers the command in the global
console registry, which other tests enumerate (it is not imported by neurondbg.console
yet: see the module docstring)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
from neurondbg import console, console_explain
from neurondbg.commands.explain import explain_text
out = {t: [line for line, _ in console.execute(t, None).lines] for t in sys.argv[1:]}
out["cli"] = explain_text("s4d4_tr_same_src_dst_type")[0]
print(json.dumps(out))
"""


def test_console_explain_prints_the_cli_report() -> None:
    texts = ["explain s4d4_tr_same_src_dst_type", "explain"]
    done = subprocess.run([sys.executable, "-c", SCRIPT, *texts], capture_output=True,
                          text=True, check=True)
    out = json.loads(done.stdout)
    assert out[texts[0]] == out["cli"]
    assert out[texts[0]][0].startswith("s4d4_tr_same_src_dst_type  [wire clause of "
                                       "is_valid_copy]")
    assert out["explain"][0].startswith("error: explain: expected a clause or predicate name")
