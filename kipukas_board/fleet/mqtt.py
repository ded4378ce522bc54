"""One way to make an MQTT client for the fleet: the board's publisher, the dashboard and the bench.

paho-mqtt does the protocol; this module only sets it up the same way everywhere: MQTT 3.1.1 (every
broker an event might run speaks it, clustered ones included), a clean session (nothing is kept for
us on the broker: the board's journal is what keeps events; a consumer may ask for a kept session),
TLS with hostname checks for ``mqtts://``, and a username with a password read from a file (never
from the settings or the command line, where it would show in ``ps`` and in backups).

Example::

    >>> from kipukas_board.settings import BrokerAddress
    >>> client = make_client("kipukas-dash", BrokerAddress.parse("mqtt://127.0.0.1:1883"))
    >>> client.connect_async("127.0.0.1", 1883); client.loop_start()      # doctest: +SKIP
"""

from __future__ import annotations

import ssl
from pathlib import Path

import paho.mqtt.client as mqtt

from kipukas_board.settings import BrokerAddress

#: A password file longer than this is not a password file.
MAX_PASSWORD_BYTES = 4096
#: Seconds between keepalive pings: a board that vanishes is marked offline (its last will) by the
#: broker after about one and a half of these.
KEEPALIVE_S = 15


class FleetConfigError(ValueError):
    """A fleet setting cannot be used (a password file missing or empty, a CA file unreadable)."""


def read_password_file(path: str | Path) -> str:
    """The password in ``path``: its first line, without the line ending.

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", delete=False); _ = f.write("s3cret\\n"); f.close()
    >>> read_password_file(f.name)
    's3cret'
    >>> os.unlink(f.name)
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_PASSWORD_BYTES + 1)
    except OSError as exc:
        raise FleetConfigError(f"password_file {str(path)!r} cannot be read: {exc.strerror or exc}") from exc
    if len(data) > MAX_PASSWORD_BYTES:
        raise FleetConfigError(f"password_file {str(path)!r} is over {MAX_PASSWORD_BYTES} bytes; "
                               f"expected one line holding the password")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FleetConfigError(f"password_file {str(path)!r} is not UTF-8 text") from exc
    password = text.splitlines()[0] if text else ""
    if not password:
        raise FleetConfigError(f"password_file {str(path)!r} is empty; expected the password on its first line")
    return password


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """A client TLS context that checks the broker's certificate and name (against ``ca_file`` if given)."""
    try:
        return ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise FleetConfigError(f"ca_file {ca_file!r} is not a readable PEM CA certificate: {exc}") from exc


def make_client(client_id: str, broker: BrokerAddress, username: str | None = None,
                password: str | None = None, ca_file: str | None = None, keep_session: bool = False) -> mqtt.Client:
    """A paho client set up for ``broker``, not yet connected (``connect_async`` + ``loop_start``).

    ``keep_session`` asks the broker to keep a subscriber's subscriptions and queue its QoS 1 messages
    while it is away (a consumer that must see every event, across its own reconnects).
    """
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not keep_session,
                         protocol=mqtt.MQTTv311)
    if username is not None:
        client.username_pw_set(username, password)
    if broker.tls:
        client.tls_set_context(tls_context(ca_file))
    # Back off from 1 s to 8 s between reconnects: a restarted broker is found again quickly.
    client.reconnect_delay_set(min_delay=1, max_delay=8)
    return client
