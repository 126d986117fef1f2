"""One client's debug session as the server runs it: the token check, `initialize`, and
the Adapter, imported when a request first needs it.

    session = Session(writer.send, token=None)
    while (msg := reader.next()) is not None and session.handle(msg): ...
    session.close()

Start-up: the Adapter pulls in dap_types (pydantic models of the whole schema) and the
model (numpy, the ISA tables): seconds. An editor waits for `initialize` before it sends
anything else, so `initialize` is answered here from messages.CAPABILITIES, and the
Adapter's import starts in the background as soon as it has been answered (the editor's
`launch` then finds it loaded or nearly). Every other request goes to the Adapter.

The token (`neurondbg dap --port N --token`): until a request has carried it, only
`initialize` and `disconnect` are answered; a `launch`, `attach` or `initialize` whose
`token` argument is the token admits the client; a wrong token is answered with an
error and ends the connection; any other request is refused with an error naming the
argument to pass.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from neurondbg.dap.messages import (
    CAPABILITIES,
    command_text,
    error_response,
    output_event,
    response,
)

if TYPE_CHECKING:
    from neurondbg.dap.adapter import Adapter

Send = Callable[[dict[str, object]], None]
ADMITTING = ("initialize", "launch", "attach")  # requests that may carry the token
OPEN = ("initialize", "disconnect")  # requests answered without it


def _import_adapter() -> None:
    import neurondbg.dap.adapter  # noqa: F401  (loads dap_types and the model)


class Session:
    """One client: requests in through `handle`, responses and events out through `send`."""

    def __init__(self, send: Send, token: str | None = None, *, warm: bool = True) -> None:
        self._send = send
        self._warm = warm  # import the Adapter in the background once initialize is answered
        self._token = token
        self._admitted = token is None
        self._adapter: Adapter | None = None
        self._warming: threading.Thread | None = None
        self._client: dict[str, object] = {}  # initialize's arguments, for the Adapter
        self.ended = False
        self.end_reason = "disconnected"  # what the server's log says when `ended`

    def output(self, text: str, category: str = "console") -> None:
        """One line in the editor's debug console."""
        self._send(output_event(text, category))

    def adapter(self) -> Adapter:
        """The Adapter, imported and made on first need (the warm-up import, if one is
        under way, is waited for: two threads importing one module graph at once can see
        each other's half-made modules)."""
        if self._adapter is None:
            if self._warming is not None:
                self._warming.join()
            from neurondbg.dap.adapter import Adapter

            self._adapter = Adapter(self._send)
            self._adapter.configure_client(self._client)
        return self._adapter

    def handle(self, message: dict[str, object]) -> bool:
        """Answer one message; False once the session has ended."""
        if self.ended:
            return False
        if message.get("type") == "request":
            admitted = self._admit(message)
            if admitted is None:
                return not self.ended
            message = admitted
            if self._adapter is None and message.get("command") in OPEN:
                return self._answer_early(message)
        elif self._adapter is None:
            return True  # a response or event before any request: nothing to route
        try:
            adapter = self.adapter()
        except Exception as e:  # the containment boundary: an install broken under us
            self._send(error_response(message, f"{command_text(message)}: internal error: "
                                      f"cannot load the adapter: {type(e).__name__}: {e}"))
            return True
        self.ended = not adapter.handle(message)
        return not self.ended

    def _answer_early(self, req: dict[str, object]) -> bool:
        """`initialize` and `disconnect` before the Adapter exists."""
        args = req.get("arguments")
        command = command_text(req)
        if command == "disconnect":
            self._send(response(req))
            self.ended = True
            return False
        if args is not None and not isinstance(args, dict):
            self._send(error_response(req, f"initialize: arguments: expected an object, "
                                      f"found {type(args).__name__}"))
            return True
        adapter_id = (args or {}).get("adapterID")
        if not isinstance(adapter_id, str):
            self._send(error_response(req, "initialize: adapterID: expected a string, found "
                                      + ("nothing" if adapter_id is None
                                         else type(adapter_id).__name__)))
            return True
        self._client = args or {}
        self._send(response(req, CAPABILITIES))
        if self._warm and self._warming is None:
            self._warming = threading.Thread(target=_import_adapter, daemon=True,
                                             name="neurondbg-dap-import")
            self._warming.start()
        return True

    def _admit(self, req: dict[str, object]) -> dict[str, object] | None:
        """`req` as the Adapter may see it (its `token` argument taken out), or None when
        it is answered here (refused)."""
        command = req.get("command")
        args = req.get("arguments")
        offered = args.get("token") if isinstance(args, dict) else None
        if offered is not None and command in ADMITTING:
            assert isinstance(args, dict)
            req = {**req, "arguments": {k: v for k, v in args.items() if k != "token"}}
        if self._admitted or self._token is None:
            return req
        if offered is not None and command in ADMITTING:
            import hmac

            if isinstance(offered, str) and hmac.compare_digest(
                    offered.encode("utf-8", "replace"), self._token.encode("utf-8")):
                self._admitted = True
                return req
            self._send(error_response(req, f"{command}: token: not this adapter's token "
                                      "(the one `neurondbg dap --token` printed); closing"))
            self.ended = True
            self.end_reason = f"closed: a wrong token in {command}"
            return None
        if command in OPEN:
            return req
        self._send(error_response(req, f"{command_text(req) or 'request'}: this adapter "
                                  "needs its token first: pass the token `neurondbg dap "
                                  "--token` printed as the `token` argument of `launch`"))
        return None

    def close(self) -> None:
        """Stop what the session runs (a load or a `continue` under way) and wait for it a
        little."""
        if self._adapter is not None:
            self._adapter.stop()
