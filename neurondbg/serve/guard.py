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

Behind a reverse proxy (`--public-url https://dbg.example.org`), the browser's page is
the proxy's: its Host (when the proxy passes it on) and its Origin are the public URL's,
which the guard then answers as well as the bound address.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass
from typing import Literal, NamedTuple
from urllib.parse import urlsplit

TOKEN_BYTES = 24  # 192 bits, URL-safe base64 (32 characters)
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Scheme = Literal["http", "https"]
DEFAULT_PORTS: dict[Scheme, int] = {"http": 80, "https": 443}


class PublicURL(NamedTuple):
    """Where browsers reach the server when that is not the bound address (a proxy's URL):
    its scheme, host name (lowercased, no brackets) and port."""

    scheme: Scheme
    host: str
    port: int

    @property
    def authority(self) -> str:
        """`host[:port]` as a URL writes it (the port left out when it is the scheme's)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    @property
    def origin(self) -> str:
        """`scheme://authority`, what a browser sends as the page's Origin."""
        return f"{self.scheme}://{self.authority}"


def parse_public_url(text: str) -> PublicURL:
    """`--public-url`'s value (`https://dbg.example.org`, `http://10.0.0.5:8080/`) as a
    PublicURL; ValueError saying what was expected. Only a server at the root of its
    host is supported: textual-serve's script builds download URLs from the origin."""
    expected = "expected http://HOST[:PORT] or https://HOST[:PORT]"
    try:
        parts = urlsplit(text.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        raise ValueError(f"{text!r}: {expected}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not host:
        raise ValueError(f"{text!r}: {expected}")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{text!r}: a user name or password does not belong in it; {expected}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"{text!r}: only the root of a host can be served (no path, query "
                         f"or fragment); {expected}")
    known: Scheme = "https" if scheme == "https" else "http"
    return PublicURL(known, host.lower(), DEFAULT_PORTS[known] if port is None else port)


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
    public: PublicURL | None = None  # a proxy's URL the page is also served under

    @classmethod
    def for_bind(cls, host: str, port: int, token: str,
                 public: PublicURL | None = None) -> Guard:
        """The guard of a server listening on (`host`, `port`), as `--host` names it,
        and reached at `public` too when given (`--public-url`)."""
        h = host.strip("[]").lower()
        ip = _ip(h)
        if ip is not None and ip.is_unspecified:
            names = {"localhost", socket.gethostname().lower(), socket.getfqdn().lower()}
            return cls(port, token, frozenset(names), frozenset(), True, public)
        if ip is not None:
            names = {"localhost"} if ip.is_loopback else set()
            return cls(port, token, frozenset(names), frozenset({ip}), False, public)
        if h == "localhost":
            loop = {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")}
            return cls(port, token, frozenset({h}), frozenset(loop), False, public)
        return cls(port, token, frozenset({h}), frozenset(), False, public)

    def is_public(self, header: str | None) -> bool:
        """Whether a Host header names the public URL (`--public-url`)."""
        if self.public is None or header is None:
            return False
        where = parse_authority(header, DEFAULT_PORTS[self.public.scheme])
        return where == (self.public.host, self.public.port)

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
        return (where is not None and self._reaches(*where)) or self.is_public(header)

    def origin_ok(self, origin: str | None, host_header: str | None) -> bool:
        """Whether a WebSocket opened with this Origin comes from this server's own page
        (or from no page at all: a client that sends no Origin is not a browser). Behind
        a proxy the page is the public URL's, whatever Host the proxy passes on."""
        if origin is None:
            return True
        if self.public is not None and origin.strip().lower() == self.public.origin:
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
