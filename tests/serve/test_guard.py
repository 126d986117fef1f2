"""The serve guard's three checks as functions of header values: Host (DNS rebinding),
Origin (foreign pages), token."""

from __future__ import annotations

import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neurondbg.serve.guard import Guard, cookie_name, new_token, parse_authority, parse_public_url

TOKEN = "t0ken-for-tests"
LOOP4 = Guard.for_bind("127.0.0.1", 8123, TOKEN)


@pytest.mark.parametrize(("text", "expected"), [
    ("127.0.0.1:8000", ("127.0.0.1", 8000)),
    ("[::1]:8000", ("::1", 8000)),
    ("LocalHost:8000", ("localhost", 8000)),
    ("localhost", ("localhost", 80)),
    ("[::1]", ("::1", 80)),
    ("", None), ("   ", None), (":8000", None), ("host:port", None), ("[::1:8000", None),
    ("a/b:80", None), ("user@127.0.0.1:80", None), ("127.0.0.1:99999", None),
    ("evil.example:8000", ("evil.example", 8000)),
])
def test_parse_authority(text: str, expected: tuple[str, int] | None) -> None:
    assert parse_authority(text, 80) == expected


@pytest.mark.parametrize(("header", "ok"), [
    ("127.0.0.1:8123", True), ("localhost:8123", True), ("LOCALHOST:8123", True),
    ("127.0.0.1:8124", False),  # another port: another server's page
    ("127.0.0.1", False),  # port 80
    ("evil.example:8123", False), ("127.0.0.1.nip.io:8123", False),
    ("[::1]:8123", False),  # bound to 127.0.0.1 only: ::1 does not reach it
    ("127.0.0.2:8123", False), ("0.0.0.0:8123", False), ("", False), (None, False),
])
def test_host_of_a_loopback_bind(header: str | None, ok: bool) -> None:
    assert LOOP4.host_ok(header) is ok


def test_host_of_other_binds() -> None:
    six = Guard.for_bind("::1", 9000, TOKEN)
    assert six.host_ok("[::1]:9000") and six.host_ok("localhost:9000")
    assert not six.host_ok("127.0.0.1:9000")
    named = Guard.for_bind("localhost", 9000, TOKEN)
    assert all(map(named.host_ok, ["localhost:9000", "127.0.0.1:9000", "[::1]:9000"]))
    lan = Guard.for_bind("192.168.1.4", 9000, TOKEN)
    assert lan.host_ok("192.168.1.4:9000")
    assert not lan.host_ok("localhost:9000") and not lan.host_ok("evil.example:9000")
    anywhere = Guard.for_bind("0.0.0.0", 9000, TOKEN)
    for ok in ["10.1.2.3:9000", "[fe80::1]:9000", "localhost:9000",
               f"{socket.gethostname()}:9000"]:
        assert anywhere.host_ok(ok), ok
    assert not anywhere.host_ok("evil.example:9000")
    assert not anywhere.host_ok("10.1.2.3:9001")


@pytest.mark.parametrize(("origin", "host", "ok"), [
    (None, "127.0.0.1:8123", True),  # not a browser page: the token decides
    ("http://127.0.0.1:8123", "127.0.0.1:8123", True),
    ("http://localhost:8123", "localhost:8123", True),
    ("http://localhost:8123", "127.0.0.1:8123", False),  # another origin than the page's host
    ("https://127.0.0.1:8123", "127.0.0.1:8123", False),  # not served over https
    ("http://127.0.0.1:8124", "127.0.0.1:8123", False),
    ("http://evil.example", "127.0.0.1:8123", False),
    ("https://evil.example", "127.0.0.1:8123", False),
    ("http://evil.example:8123", "evil.example:8123", False),  # rebinding: same origin, bad host
    ("null", "127.0.0.1:8123", False),  # sandboxed frames, file: pages
    ("file://", "127.0.0.1:8123", False),
    ("http://127.0.0.1:8123", None, False),
    ("http://[::1", "127.0.0.1:8123", False),
])
def test_origin(origin: str | None, host: str | None, ok: bool) -> None:
    assert LOOP4.origin_ok(origin, host) is ok


def test_token() -> None:
    assert LOOP4.token_ok(TOKEN)
    for bad in [None, "", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), "\udcff"]:
        assert not LOOP4.token_ok(bad), bad


@given(st.text(max_size=64))
def test_only_the_token_passes(offered: str) -> None:
    assert LOOP4.token_ok(offered) is (offered == TOKEN)


def test_new_tokens_are_long_and_fresh() -> None:
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(t) == 32 and t.replace("-", "").replace("_", "").isalnum() for t in tokens)


def test_cookie_names_keep_servers_apart() -> None:
    assert cookie_name(8000) == "neurondbg-token-8000" != cookie_name(8001)


PROXIED = Guard.for_bind("127.0.0.1", 8123, TOKEN, parse_public_url("https://dbg.example.org"))


@pytest.mark.parametrize(("header", "ok"), [
    ("dbg.example.org", True), ("DBG.example.org:443", True),  # the public name, its port
    ("127.0.0.1:8123", True), ("localhost:8123", True),  # a proxy that rewrites Host
    ("dbg.example.org:80", False), ("dbg.example.org:8123", False),
    ("evil.example", False), ("example.org", False), (None, False),
])
def test_host_behind_a_proxy(header: str | None, ok: bool) -> None:
    assert PROXIED.host_ok(header) is ok


@pytest.mark.parametrize(("origin", "host", "ok"), [
    ("https://dbg.example.org", "127.0.0.1:8123", True),  # Host rewritten by the proxy
    ("https://dbg.example.org", "dbg.example.org", True),
    ("https://DBG.example.org", "dbg.example.org", True),
    ("https://dbg.example.org:443", "dbg.example.org", False),  # browsers omit it
    ("http://dbg.example.org", "dbg.example.org", False),
    ("https://evil.example", "dbg.example.org", False),
    ("http://127.0.0.1:8123", "127.0.0.1:8123", True),  # the bound address, direct
])
def test_origin_behind_a_proxy(origin: str, host: str, ok: bool) -> None:
    assert PROXIED.origin_ok(origin, host) is ok
