"""Fleet health tells the truth: a broker that takes events and never acknowledges them is not ok.

The broker here is a few lines of TCP: it answers CONNECT with CONNACK and PINGREQ with PINGRESP, and
never sends a PUBACK.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

from waiting import wait_for

from kipukas_board.app import BoardApp
from kipukas_board.settings import BrokerAddress, FleetSettings, Settings


class SilentBroker(threading.Thread):
    """Accepts MQTT 3.1.1 connections and every PUBLISH, acknowledges none."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.publishes = 0
        self._conns: list[socket.socket] = []

    def run(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.sock.accept()
                self._conns.append(conn)
                threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _read(conn: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def _serve(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while True:
                kind = self._read(conn, 1)[0] >> 4
                length, shift = 0, 0
                while True:  # the remaining length, 7 bits a byte
                    b = self._read(conn, 1)[0]
                    length |= (b & 0x7F) << shift
                    shift += 7
                    if not b & 0x80:
                        break
                self._read(conn, length)
                if kind == 1:  # CONNECT
                    conn.sendall(b"\x20\x02\x00\x00")
                elif kind == 12:  # PINGREQ
                    conn.sendall(b"\xd0\x00")
                elif kind == 3:  # PUBLISH: taken, never acknowledged
                    self.publishes += 1

    def close(self) -> None:
        self.sock.close()
        for c in self._conns:
            c.close()


def test_a_broker_that_never_acknowledges_makes_the_fleet_not_ok(data_dir: Path) -> None:
    broker = SilentBroker()
    broker.start()
    fleet = FleetSettings(BrokerAddress.parse(f"mqtt://127.0.0.1:{broker.port}"), "table-09", "Table 9",
                          unacked_limit_s=2.0)  # [fleet] unacked_limit_s; 60 s by default
    board = BoardApp(Settings(fleet=fleet), data_dir, sim=True, admin_pin="2468")
    board.start()
    try:
        assert wait_for(lambda: board.health()["fleet"]["connected"], 10), "never connected to the fake broker"
        board.sim_set_stand("T1", True)
        assert wait_for(lambda: broker.publishes > 0, 10)
        assert board.health()["fleet"]["ok"] is True  # just sent: not yet overdue
        fleet_health = wait_for(lambda: (h := board.health()["fleet"]) and not h["ok"] and h, 10)
        assert fleet_health, "fleet health stayed ok with nothing acknowledged"
        assert fleet_health["connected"] is True and fleet_health["backlog"] >= 1
        assert fleet_health["oldest_unacked_s"] >= 2.0 and fleet_health["unacked_limit_s"] == 2.0
        assert "acknowledgement" in fleet_health["last_error"]
    finally:
        board.stop()
        broker.close()
