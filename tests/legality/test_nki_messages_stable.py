"""An NKI verdict's messages are the same in every process (no hash-ordered sets in them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CALL = {"op": "dma_transpose", "args": {"src": {"dtype": "float32", "shape": [128, 256]}},
        "gen": "trn2"}
SCRIPT = ("import json, sys; from neurondbg.machine.legality.nki import check_call; "
          "v = check_call(json.loads(sys.argv[1])); "
          "print(json.dumps([c.message for c in v.clauses]))")


def _messages(seed: int) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    out = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CALL)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_dma_transpose_messages_do_not_depend_on_the_hash_seed() -> None:
    runs = [_messages(seed) for seed in (0, 1, 2, 3)]
    assert all(r == runs[0] for r in runs)
    assert ("dge_mode unknown is legal on the plain path {'unknown', 'hwdge'}"
            in runs[0])
