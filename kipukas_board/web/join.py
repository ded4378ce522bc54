"""The address other phones use to join: this board on the table's network, as text and a QR code.

A page opened on the board itself (``localhost``) would hand other phones an address that points at
themselves, so a loopback host is swapped for the machine's own LAN address (the one its default
route leaves by; found without sending anything).

Example::

    >>> join_url("192.168.1.20:8080")
    'http://192.168.1.20:8080/'
"""

from __future__ import annotations

import io
import ipaddress
import socket

import segno


def lan_address() -> str | None:
    """This machine's address on its network (None when it has none but loopback)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # a UDP "connect" only picks the route; no packet is sent
        addr = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if ipaddress.ip_address(addr).is_loopback else addr


def join_url(host: str, scheme: str = "http") -> str:
    """The URL for another phone, from the ``Host`` this page was opened with."""
    name, _, port = host.rpartition(":") if host.count(":") == 1 else (host, "", "")
    name = name or host
    if name in ("localhost", "127.0.0.1", "[::1]", "::1"):
        name = lan_address() or name
    return f"{scheme}://{name}{':' + port if port else ''}/"


def qr_svg(url: str) -> bytes:
    """``url`` as an SVG QR code (dark modules on white, with the quiet zone phones need)."""
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=4, border=4, dark="#000", light="#fff",
                                     xmldecl=False, title=f"Join: {url}")
    return buf.getvalue()
