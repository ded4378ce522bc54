"""The fleet over TLS with a password, and the example ACL: each board writes only under its own id.

A throwaway CA and a broker certificate for 127.0.0.1 are made here with ``cryptography``; the broker is
a real Mosquitto on a free loopback port with the project's example ACL file.
"""

from __future__ import annotations

import datetime
import ipaddress
import subprocess
import time
from importlib import resources
from pathlib import Path

import pytest
from conftest import need_tool
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mqtt_broker import Mosquitto
from test_fleet_publish import Collector, assert_all_in_order, fleet_board, toggle, wait_for

from kipukas_board.fleet.mqtt import FleetConfigError, make_client
from kipukas_board.settings import BrokerAddress


def make_certs(where: Path) -> tuple[Path, Path, Path]:
    """(ca.pem, broker.pem, broker.key): a CA, and a certificate it signed for 127.0.0.1 and localhost."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kipukas test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    where.mkdir(parents=True, exist_ok=True)
    paths = (where / "ca.pem", where / "broker.pem", where / "broker.key")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    paths[2].chmod(0o600)
    return paths


def password_db(where: Path, users: dict[str, str]) -> Path:
    """A Mosquitto password file made by mosquitto_passwd (hashed, as on an event's broker)."""
    exe = need_tool("mosquitto_passwd", "mosquitto")
    db = where / "passwd"
    db.touch()
    for user, password in users.items():
        subprocess.run([exe, "-b", str(db), user, password], check=True, capture_output=True)
    return db


def secret(where: Path, name: str, password: str) -> str:
    p = where / f"{name}.password"
    p.write_text(password + "\n")
    return str(p)


def test_over_tls_with_a_password_the_board_publishes_and_a_wrong_ca_is_refused(tmp_path, data_dir) -> None:
    ca, cert, key = make_certs(tmp_path / "certs")
    users = password_db(tmp_path, {"table-01": "pw-one", "dashboard": "pw-dash"})
    with Mosquitto(tmp_path / "broker", tls=(ca, cert, key), password_file=users) as broker:
        url = f"mqtts://127.0.0.1:{broker.port}"
        col = Collector(url, ca_file=str(ca), username="dashboard", password="pw-dash")
        board = fleet_board(data_dir, url, password_file=secret(tmp_path, "one", "pw-one"), ca_file=str(ca))
        board.start()
        try:
            toggle(board, 5)
            assert_all_in_order(col, "table-01", data_dir)
        finally:
            board.stop()
            col.close()
        # The same board trusting only the system's CAs must not talk to a broker our CA signed.
        other = fleet_board(tmp_path / "other", url, password_file=secret(tmp_path, "one", "pw-one"))
        other.start()
        try:
            wait_for(lambda: other.health()["fleet"]["last_error"], why="a TLS failure to be reported")
            time.sleep(1.0)
            assert other.health()["fleet"]["connected"] is False
        finally:
            other.stop()
        log = broker.log()
    assert "table-01" in log


def test_the_example_acl_lets_a_board_write_only_under_its_own_id(tmp_path, data_dir) -> None:
    acl = tmp_path / "kipukas.acl"
    acl.write_text((resources.files("kipukas_board.fleet") / "examples" / "kipukas.acl").read_text())
    users = password_db(tmp_path, {"table-01": "pw-one", "table-02": "pw-two", "dashboard": "pw-dash"})
    with Mosquitto(tmp_path / "broker", password_file=users, acl_file=acl) as broker:
        col = Collector(broker.url, username="dashboard", password="pw-dash")
        board = fleet_board(data_dir, broker.url, password_file=secret(tmp_path, "one", "pw-one"))
        board.start()
        try:
            toggle(board, 3)
            assert_all_in_order(col, "table-01", data_dir)
            # Logged in as table-01, a client tries to write as table-02, then as itself.
            rogue = make_client("rogue", BrokerAddress.parse(broker.url), "table-01", "pw-one")
            rogue.connect("127.0.0.1", broker.port)
            rogue.loop_start()
            try:
                rogue.publish("kipukas/table-02/events", b'{"seq": 1, "event": {"type": "forged"}}', qos=1)
                rogue.publish("kipukas/table-02/state", b'{"phase": "over"}', qos=1, retain=True)
                marker = rogue.publish("kipukas/table-01/marker-not-a-fleet-topic", b"x", qos=1)
                marker.wait_for_publish(5)
                last = rogue.publish("kipukas/table-01/health", b'{"online": true, "name": "marker"}', qos=1)
                last.wait_for_publish(5)
            finally:
                rogue.disconnect()
                rogue.loop_stop()
            wait_for(lambda: col.latest.get("table-01/health", {}).get("name") == "marker", why="the marker")
            assert "table-02" not in col.events and "table-02/state" not in col.latest
        finally:
            board.stop()
            col.close()
        # Without a password nothing gets in.
        anon = make_client("anon", BrokerAddress.parse(broker.url))
        assert anon.connect("127.0.0.1", broker.port) == 0  # the CONNECT goes out; the CONNACK says no
        got: list[object] = []
        anon.on_connect = lambda c, u, f, reason, p: got.append(reason)
        anon.loop_start()
        try:
            wait_for(lambda: got, timeout=5, why="the broker's answer")
        finally:
            anon.loop_stop()
        assert got[0].is_failure


def test_an_unreadable_password_file_is_named(tmp_path, data_dir) -> None:
    with pytest.raises(FleetConfigError, match="nope.password"):
        fleet_board(data_dir, "mqtt://127.0.0.1:1", password_file=str(tmp_path / "nope.password"))
    empty = tmp_path / "empty.password"
    empty.write_text("\n")
    with pytest.raises(FleetConfigError, match="empty"):
        fleet_board(data_dir, "mqtt://127.0.0.1:1", password_file=str(empty))


def test_the_example_mosquitto_config_serves_boards_over_tls(tmp_path, data_dir) -> None:
    """The README's broker: the example config as shipped, only its paths and port pointed at this test."""
    ca, cert, key = make_certs(tmp_path / "certs")
    users = password_db(tmp_path, {"table-01": "pw-one", "dashboard": "pw-dash"})
    acl = tmp_path / "kipukas.acl"
    acl.write_text((resources.files("kipukas_board.fleet") / "examples" / "kipukas.acl").read_text())
    conf = (resources.files("kipukas_board.fleet") / "examples" / "mosquitto.conf").read_text()
    for old, new in {"listener 8883": "listener {port} 127.0.0.1", "/etc/mosquitto/certs/kipukas-ca.pem": str(ca),
                     "/etc/mosquitto/certs/broker.pem": str(cert), "/etc/mosquitto/certs/broker.key": str(key),
                     "/etc/mosquitto/kipukas.passwd": str(users), "/etc/mosquitto/kipukas.acl": str(acl)}.items():
        assert old in conf, f"the example config no longer has {old!r}: update this test and the README"
        conf = conf.replace(old, new)
    with Mosquitto(tmp_path / "broker", conf_text=conf) as broker:
        url = f"mqtts://127.0.0.1:{broker.port}"
        col = Collector(url, ca_file=str(ca), username="dashboard", password="pw-dash")
        board = fleet_board(data_dir, url, password_file=secret(tmp_path, "one", "pw-one"), ca_file=str(ca))
        board.start()
        try:
            toggle(board, 3)
            assert_all_in_order(col, "table-01", data_dir)
        finally:
            board.stop()
            col.close()
