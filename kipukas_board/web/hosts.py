"""Which ``Host`` and ``Origin`` headers the board answers, so DNS rebinding cannot reach it.

A page on another site can make its own name resolve to the board's address (DNS rebinding). The
browser then sends that foreign name as ``Host`` and, being same-origin with it, the matching
``Origin``: comparing the two proves nothing. So the ``Host`` itself must be one of the board's:

- an IP address literal (``192.168.1.20:8080``, ``[fe80::1]``): a rebinding attack needs a *name*
  it controls, so a bare address is always the board as the phone dialled it;
- ``localhost``, the machine's hostname and ``<hostname>.local`` (mDNS, how phones find a Pi);
- the extra names in the settings (``[web] names``).

Any other ``Host`` is refused on every route (the page included, so its CSRF token never reaches a
foreign origin). An ``Origin`` header, when a browser sends one, must be exactly this board's
origin: the same scheme (an ``https://`` origin for an ``http://`` board is someone else) and the
same host and port.

Example::

    >>> g = HostGuard(["table.lan"], hostname="kipukas")
    >>> g.host_problem("kipukas.local:8080") is None, g.host_problem("10.0.0.5:8080") is None
    (True, True)
    >>> g.host_problem("evil.example:8080").split(" (")[0]
    "Host 'evil.example:8080' is not one of this board's names"
    >>> g.origin_problem("https://10.0.0.5:8080", "http", "10.0.0.5:8080")
    'cross-site request refused (Origin https://10.0.0.5:8080 is not http://10.0.0.5:8080)'
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

#: The longest Host header looked at (a DNS name is at most 253 characters, plus a port).
MAX_HOST_LEN = 300


def split_host(host: str) -> tuple[str, str]:
    """``("name", "port")`` of a Host header value (the port may be empty).

    >>> split_host("[::1]:8080"), split_host("Board.Local."), split_host("10.0.0.1:80")
    (('::1', '8080'), ('board.local', ''), ('10.0.0.1', '80'))
    """
    host = host.strip()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name.lower(), rest.removeprefix(":")
    name, _, port = host.partition(":") if host.count(":") == 1 else (host, "", "")
    return name.lower().rstrip("."), port


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    return True


class HostGuard:
    """Decides whether a request's ``Host`` and ``Origin`` belong to this board."""

    def __init__(self, names: Iterable[str] = (), hostname: str | None = None) -> None:
        host = (hostname if hostname is not None else socket.gethostname()).lower().rstrip(".")
        short = host.split(".", 1)[0]
        self.names = ["localhost", *dict.fromkeys(n for n in (host, short, f"{short}.local") if n)]
        for name in names:  # addresses pass anyway (allowed()); a bind such as 0.0.0.0 is no name
            name = name.lower().rstrip(".")
            if name and not is_address(name.strip("[]")) and name not in self.names:
                self.names.append(name)

    def allowed(self, name: str) -> bool:
        return is_address(name) or name in self.names

    def host_problem(self, host: str | None) -> str | None:
        """Why this ``Host`` is refused, or None."""
        if not host:
            return "a Host header is required"
        if len(host) > MAX_HOST_LEN:
            return f"Host header longer than {MAX_HOST_LEN} characters"
        name, port = split_host(host)
        if port and not port.isdigit():
            return f"Host {host[:80]!r} has a port that is not a number"
        if self.allowed(name):
            return None
        return (f"Host {host[:80]!r} is not one of this board's names (its addresses, {', '.join(self.names)}; "
                f"add others to [web] names in the settings)")

    def origin_problem(self, origin: str | None, scheme: str, host: str) -> str | None:
        """Why this ``Origin`` is refused (None: absent, ``null``, or exactly this board)."""
        if origin is None or origin == "null":
            return None  # "null" is judged by the CSRF guard, which refuses it for changes
        expected = f"{scheme}://{host}".lower()
        if origin.rstrip("/").lower() == expected:
            return None
        return f"cross-site request refused (Origin {origin[:120]} is not {expected})"
