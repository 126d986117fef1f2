"""The listening socket `neurondbg serve` and `neurondbg dap --port` bind, and whether
an address is loopback (what their banners and warnings say).

    sock = listening_socket("::1", 0)     # IPv6 literals bind an AF_INET6 socket
"""

from __future__ import annotations

import ipaddress
import socket


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on (`host`, `port`) (0: any free port); OSError when the
    address is taken or not this machine's. `host` may be an IPv6 literal (`::1`,
    `[::1]`), which socket.create_server's default family refuses."""
    h = host.strip("[]")
    family = socket.AF_INET6 if ":" in h else socket.AF_INET
    return socket.create_server((h, port), family=family)
