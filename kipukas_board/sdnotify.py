"""Talk to systemd's service manager: ``READY=1``, ``WATCHDOG=1``, ``STATUS=...``, ``STOPPING=1``.

systemd passes a Unix datagram socket in ``$NOTIFY_SOCKET`` to a ``Type=notify`` service; each
datagram is newline-separated ``KEY=VALUE`` lines (``man sd_notify``). This is that protocol in a
few lines, with no extra dependency: a path names a socket file, a leading ``@`` names a socket in
the abstract namespace (written with a leading NUL byte on the wire). Outside systemd there is no
``$NOTIFY_SOCKET`` and every call is a no-op that returns False, so the same code runs on a laptop.

``$WATCHDOG_USEC`` (set by ``WatchdogSec=``) says how often systemd wants ``WATCHDOG=1``; when
``$WATCHDOG_PID`` is set and is not this process, the watchdog belongs to someone else.

Example::

    >>> from kipukas_board.sdnotify import Notifier
    >>> Notifier(address=None, environ={}).ready()   # not under systemd: nothing to tell
    False

Under systemd, ``Notifier()`` reads ``$NOTIFY_SOCKET`` and ``ready("serving on :8080")`` answers True
once systemd has the datagram (``tests/install/test_service_notify.py`` runs it against a pretend systemd).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def socket_address(address: str) -> str | bytes:
    """``$NOTIFY_SOCKET`` as :mod:`socket` wants it: ``@name`` → ``b"\\0name"``, a path as is.

    >>> socket_address("@/org/freedesktop/systemd1/notify")
    b'\\x00/org/freedesktop/systemd1/notify'
    >>> socket_address("/run/systemd/notify")
    '/run/systemd/notify'
    """
    if address.startswith("@"):
        return b"\0" + address[1:].encode()
    if not address.startswith("/"):
        raise ValueError(f"NOTIFY_SOCKET={address!r} is neither an absolute path nor an @abstract name")
    return address


def watchdog_interval(environ: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """Seconds between the deadlines systemd enforces (``WatchdogSec=``), or None if there is none.

    >>> watchdog_interval({"WATCHDOG_USEC": "30000000"})
    30.0
    >>> watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, pid=2) is None
    True
    """
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    wpid = env.get("WATCHDOG_PID", "")
    if wpid and wpid != str(os.getpid() if pid is None else pid):
        return None  # another process's watchdog (or a value that names no process)
    try:
        value = int(usec)
    except ValueError:
        log.warning("WATCHDOG_USEC=%r is not a whole number of microseconds; no watchdog", usec)
        return None
    return value / 1e6 if value > 0 else None


def _one_line(text: str) -> str:
    return " ".join(text.split())


class Notifier:
    """Sends notifications to ``address`` (default ``$NOTIFY_SOCKET``).

    Sending never raises: a service must not die because its manager went away; failures are
    logged once and reported by the False return value.
    """

    def __init__(self, address: str | None = "", environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        if address == "":
            address = env.get("NOTIFY_SOCKET") or None
        self.address = address
        self._sock: socket.socket | None = None
        self._warned = False

    @property
    def enabled(self) -> bool:
        """True when there is a service manager to talk to."""
        return self.address is not None

    def notify(self, *lines: str) -> bool:
        """Send ``KEY=VALUE`` lines in one datagram; True if it was sent."""
        if self.address is None:
            return False
        payload = "\n".join(lines).encode()
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(payload, socket_address(self.address))
            return True
        except (OSError, ValueError) as exc:
            if not self._warned:
                log.warning("cannot notify systemd at %s: %s", self.address, exc)
                self._warned = True
            return False

    def ready(self, status: str | None = None) -> bool:
        """Start-up is complete (``Type=notify`` units count as started from here)."""
        return self.notify("READY=1", *([f"STATUS={_one_line(status)}"] if status else []))

    def watchdog(self) -> bool:
        """Still alive: resets systemd's ``WatchdogSec=`` timer."""
        return self.notify("WATCHDOG=1")

    def status(self, text: str) -> bool:
        """A one-line status shown by ``systemctl status``."""
        return self.notify(f"STATUS={_one_line(text)}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
