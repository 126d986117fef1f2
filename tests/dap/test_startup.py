"""`initialize` is answered before the model and dap_types are imported (what a request
needs is imported when it first needs it); the rest of a session still loads them."""

from __future__ import annotations

from tests.helpers import modules_after

HEAVY = {"dap_types", "pydantic", "numpy", "ml_dtypes", "machine", "sessions", "textual",
         "aiohttp"}
ANSWER = """
from neurondbg.dap.session import Session
import neurondbg.commands.dap, neurondbg.dap.server
out = []
s = Session(out.append, warm=False)
s.handle({"seq": 1, "type": "request", "command": "initialize",
          "arguments": {"adapterID": "x"}})
assert out[0]["success"] and out[0]["body"]["supportsStepBack"], out
"""


def _top(names: set[str]) -> set[str]:
    return {n.split(".")[1] if n.startswith(("neurondbg.machine", "neurondbg.sessions"))
            else n.split(".")[0] for n in names}


def test_initialize_needs_no_model_and_no_schema() -> None:
    assert _top(modules_after(ANSWER)) & HEAVY == set()


def test_the_next_request_loads_the_adapter() -> None:
    loaded = modules_after(ANSWER + """
s.handle({"seq": 2, "type": "request", "command": "threads"})
assert out[1]["message"] == "threads: nothing is launched yet (send `launch` first)", out
""")
    assert {"dap_types", "neurondbg.dap.adapter", "neurondbg.machine"} <= loaded
