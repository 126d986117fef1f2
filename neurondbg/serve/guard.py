"""Which requests `neurondbg serve` answers, as pure functions of header values.

    guard = Guard.for_bind("127.0.0.1", 8000, new_token())
    guard.host_ok("127.0.0.1:8000")                      # True
    guard.host_ok("evil.example:8000")                   # False: DNS rebinding
    guard.origin_ok("https://evil.example", "127.0.0.1:8000")   # False: a foreign page
    guard.token_ok(offered)                              # constant-time comparison

Three checks, each closing one way in (docs/security.md):
- Host: a page on `evil.example` whose name is re-pointed at 127.0.0.1 (DNS rebinding)
  reaches the port as its own origin, but its requests say `Host: evil.example`; only
  names and addresses that reach the bound address are answered.
- Origin: a browser lets any page open a WebSocket to any address and says which page
  asked in `Origin`; only the server's own page (same scheme, host and port as the
  request's Host) may open one. A client that sends no Origin is not a browser page.
- Token: a random secret in the URL the server prints, as Jupyter does; it keeps out
  other local users and any client that can reach the port but never saw the banner.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

TOKEN_BYTES = 24  # 192 bits, URL-safe base64 (32 characters)
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def new_token() -> str:
    """A fresh random token for one server."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def cookie_name(port: int) -> str:
    """The cookie that carries the token after the first page load. Browsers share
    cookies between the ports of one host, so the port is in the name: two servers on
    one machine keep apart."""
    return f"neurondbg-token-{port}"


def _ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def parse_authority(text: str, default_port: int) -> tuple[str, int] | None:
    """(host name lowercased, brackets off an IPv6 literal; port) of a Host header value
    such as `127.0.0.1:8000`, `[::1]:8000` or `localhost`; None when it is not one."""
    text = text.strip()
    if not text or any(c in text for c in "/?#@\\ \t"):
        return None
    try:
        parts = urlsplit("//" + text)
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, an unclosed bracket
        return None
    if not host:
        return None
    return host, default_port if port is None else port


@dataclass(frozen=True)
class Guard:
    """The checks for one server bound to `host`:`port` with `token`."""

    port: int
    token: str
    names: frozenset[str]  # host names (not addresses) that reach the bound address
    addresses: frozenset[IPAddress]  # addresses that reach it
    any_address: bool  # a wildcard bind (0.0.0.0, ::): every address of the machine

    @classmethod
    def for_bind(cls, host: str, port: int, token: str) -> Guard:
        """The guard of a server listening on (`host`, `port`), as `--host` names it."""
        h = host.strip("[]").lower()
        ip = _ip(h)
        if ip is not None and ip.is_unspecified:
            names = {"localhost", socket.gethostname().lower(), socket.getfqdn().lower()}
            return cls(port, token, frozenset(names), frozenset(), True)
        if ip is not None:
            names = {"localhost"} if ip.is_loopback else set()
            return cls(port, token, frozenset(names), frozenset({ip}), False)
        if h == "localhost":
            loop = {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")}
            return cls(port, token, frozenset({h}), frozenset(loop), False)
        return cls(port, token, frozenset({h}), frozenset(), False)

    def _reaches(self, host: str, port: int) -> bool:
        if port != self.port:
            return False
        ip = _ip(host)
        if ip is None:
            return host in self.names
        return self.any_address or ip in self.addresses

    def host_ok(self, header: str | None) -> bool:
        """Whether a request with this Host header was meant for this server."""
        where = None if header is None else parse_authority(header, 80)
        return where is not None and self._reaches(*where)

    def origin_ok(self, origin: str | None, host_header: str | None) -> bool:
        """Whether a WebSocket opened with this Origin comes from this server's own page
        (or from no page at all: a client that sends no Origin is not a browser)."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin.strip())
            where = (parts.hostname, parts.port or 80)
        except ValueError:
            return False
        if parts.scheme != "http" or where[0] is None:  # `null`, file:, https: (not served)
            return False
        here = None if host_header is None else parse_authority(host_header, 80)
        return where == here and self._reaches(where[0], where[1])

    def token_ok(self, offered: str | None) -> bool:
        """Whether `offered` is this server's token (compared in constant time)."""
        if offered is None:
            return False
        return hmac.compare_digest(offered.encode("utf-8", "replace"),
                                   self.token.encode("utf-8"))
