"""Plain DAP messages (dicts ready for wire.frame) that need no schema models, and the
capabilities `initialize` announces: what the adapter can answer before the model and
dap_types are imported (start-up answers `initialize` from here).

A request's `seq` and `command` come from the client: `request_seq` and `command_text`
give what a response may echo (an int, a bounded string), whatever the client sent.
"""

from __future__ import annotations

MAX_ECHO = 80  # characters of a client's command name an error message repeats

# The kernel's exception filters (filter, label, description, default), as
# neurondbg.dap.breakpoints.EXCEPTION_FILTERS declares them (a test holds them equal).
# A program has none: `initialize` offers none, and launching a kernel sends them in a
# `capabilities` event before `initialized`.
EXCEPTION_FILTERS = (
    ("race", "Races", "stop after a step in which the race detector finds a race", True),
    ("wait", "Semaphore waits", "stop when an engine newly blocks on a semaphore wait", False),
)

CAPABILITIES: dict[str, object] = {
    "supportsConfigurationDoneRequest": True,
    "supportsFunctionBreakpoints": True,
    "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True,
    "supportsEvaluateForHovers": True,
    "supportsStepBack": True,
    "supportsSetVariable": True,
    "supportsTerminateRequest": True,
    "supportsDataBreakpoints": True,
    "supportsReadMemoryRequest": True,
    "supportsDisassembleRequest": True,
    "supportsSteppingGranularity": True,
    "supportsInstructionBreakpoints": True,
    "supportsLogPoints": True,
    "supportsSetExpression": True,
    "supportsWriteMemoryRequest": True,
    "supportsCancelRequest": True,
}


def kernel_capabilities() -> dict[str, object]:
    """The `capabilities` event's body after a kernel's launch: its exception filters."""
    return {"capabilities": {"exceptionBreakpointFilters": [
        {"filter": f, "label": label, "description": text, "default": default}
        for f, label, text, default in EXCEPTION_FILTERS]}}


def request_seq(req: dict[str, object]) -> int:
    """The `seq` a response to `req` echoes: the client's, when it is an integer (DAP's
    type; JSON's bool is not one), else 0."""
    seq = req.get("seq", 0)
    return seq if type(seq) is int else 0


def command_text(req: dict[str, object]) -> str:
    """The request's command as a response echoes it ('' when it is not a string)."""
    command = req.get("command")
    return command if isinstance(command, str) else ""


def shown(command: object) -> str:
    """A client's command name as an error message quotes it (bounded)."""
    text = repr(command) if isinstance(command, str) else f"of type {type(command).__name__}"
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + "..."


def response(req: dict[str, object], body: dict[str, object] | None = None) -> dict[str, object]:
    """A success response to `req`."""
    msg: dict[str, object] = {"type": "response", "request_seq": request_seq(req),
                           "success": True, "command": command_text(req)}
    if body is not None:
        msg["body"] = body
    return msg


def error_response(req: dict[str, object], text: str) -> dict[str, object]:
    """A failure response to `req` whose one line is `text` (message and error body)."""
    return {"type": "response", "request_seq": request_seq(req), "success": False,
            "command": command_text(req), "message": text,
            "body": {"error": {"id": 1, "format": text, "showUser": True}}}


def output_event(text: str, category: str = "console") -> dict[str, object]:
    """An `output` event: one line of `text` in the editor's debug console."""
    return {"type": "event", "event": "output",
            "body": {"category": category, "output": text + "\n"}}
