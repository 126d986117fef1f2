"""The plain messages start-up sends before dap_types is imported agree with the schema
and with the adapter's own declarations."""

from __future__ import annotations

from typing import Any

import dap_types as dt
import pytest

from neurondbg.dap import breakpoints
from neurondbg.dap.adapter import capabilities
from neurondbg.dap.messages import (
    CAPABILITIES,
    EXCEPTION_FILTERS,
    command_text,
    error_response,
    request_seq,
    shown,
)
from neurondbg.dap.protocol import _body


def test_capabilities_are_the_schemas_and_the_adapters() -> None:
    assert EXCEPTION_FILTERS == breakpoints.EXCEPTION_FILTERS
    assert _body(dt.Capabilities.model_validate(CAPABILITIES)) == CAPABILITIES
    assert _body(capabilities()) == CAPABILITIES


@pytest.mark.parametrize(("seq", "expected"), [
    (7, 7), (0, 0), (-3, -3), (True, 0), (1.5, 0), ("7", 0), (None, 0), ([1], 0),
    (10 ** 4000, 10 ** 4000),
])
def test_request_seq_echoes_only_integers(seq: Any, expected: int) -> None:
    assert request_seq({"seq": seq}) == expected


def test_command_text_and_shown_are_bounded_strings() -> None:
    assert command_text({"command": "next"}) == "next"
    assert command_text({"command": ["next"]}) == "" == command_text({})
    assert shown("x" * 1000) == repr("x" * 1000)[:80] + "..."
    assert shown([[[]]]) == "of type list"


def test_error_response_shape() -> None:
    r = error_response({"seq": 4, "command": "launch"}, "launch: no")
    assert r == {"type": "response", "request_seq": 4, "success": False, "command": "launch",
                 "message": "launch: no",
                 "body": {"error": {"id": 1, "format": "launch: no", "showUser": True}}}
    assert _body(dt.ErrorResponseBody.model_validate(r["body"])) == r["body"]
