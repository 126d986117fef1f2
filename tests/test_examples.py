"""The bundled demo session matches its program, and opens where the TUI expects."""

import hashlib
import tomllib

from sessions import examples
from sessions.store import load_session

EXAMPLES = examples.folder()


def test_demo_session_names_the_current_program() -> None:
    doc = tomllib.loads((EXAMPLES / "demo.toml").read_text())
    program = EXAMPLES / doc["program"]["path"]
    assert doc["program"]["sha256"] == hashlib.sha256(program.read_bytes()).hexdigest()


def test_demo_session_stops_at_each_invalid_instruction() -> None:
    loaded = load_session(EXAMPLES / "demo.toml")
    m = loaded.machine
    assert not loaded.warnings and m.config.engine == "dve"
    stops = []
    for _ in range(4):
        stop = m.cont()
        stops.append((stop.reason, m.instruction(m.state.pc // 64).mnemonic, m.state.steps))
        if stop.reason != "breakpoint":
            break
    assert stops == [("breakpoint", "MOVE", 18), ("breakpoint", "COPY", 19),
                     ("fault", "COPY", 19)]


def test_nki_calls_example_has_one_legal_and_one_illegal_call() -> None:
    import json

    from machine.legality.nki import check_calls

    calls = json.loads((EXAMPLES / "nki_calls.json").read_text())
    verdicts = check_calls(calls)
    assert [v.valid for v in verdicts] == [True, False]
    assert verdicts[1].failed == ("_check_select_reduce_supported_reduce_cmd",)
