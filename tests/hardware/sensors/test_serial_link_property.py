"""The host's resync logic against the real firmware, with any damage on the wire (no threads, no clock).

Hypothesis draws magnet moves, sub-debounce flickers and damage (lost chunks, bit flips, dropped
bytes, garbage, in both directions). Whatever it draws: every change the host reports (plus what the
app's start-up reconcile takes from the first snapshot) is one the firmware really settled on, in
order, never twice; and once the wire is clean again the host's view equals the switches.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kipukas_board.bench.firmware_sim import SimMatrix, firmware_modules
from kipukas_board.hardware.sensors.channel_health import ChannelHealth
from kipukas_board.hardware.sensors.link_policy import Action, LinkPolicy, Report, Send
from kipukas_board.hardware.sensors.port import SwitchChange

FW = firmware_modules()
ROWS, COLS = 3, 3


class Clock:
    def __init__(self) -> None:
        self.ms = 0

    def ticks_ms(self) -> int:
        return self.ms

    def ticks_us(self) -> int:
        return self.ms * 1000

    def seconds(self) -> float:
        return self.ms / 1000


class Pipe:
    """The firmware's port and the host's serial port at once."""

    def __init__(self) -> None:
        self.to_host = b""
        self.to_board = b""

    # firmware side
    def read(self) -> bytes:
        data, self.to_board = self.to_board, b""
        return data

    def write(self, data: bytes) -> None:
        self.to_host += data


def damage(data: bytes, kind: int, where: int, bit: int) -> bytes:
    if not data or kind == 0:
        return data
    i = where % len(data)
    if kind == 1:
        return b""                                             # the whole chunk lost
    if kind == 2:
        return data[:i] + bytes([data[i] ^ (1 << bit)]) + data[i + 1:]  # a bit flipped
    if kind == 3:
        return data[:i] + data[i + 1:]                         # a byte dropped
    return data[:i] + bytes([where & 0xFF, 0x41, 0x00, 0x13]) + data[i:]  # garbage


events = st.lists(st.tuples(st.integers(0, 60), st.integers(0, ROWS * COLS - 1),
                            st.sampled_from(["move", "flicker"])), min_size=1, max_size=25)
damages = st.lists(st.tuples(st.integers(0, 600), st.integers(0, 4), st.integers(0, 255), st.integers(0, 7),
                             st.booleans()), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events, damages)
def test_no_phantom_no_duplicate_and_in_sync_after_any_damage(moves, wire_damage) -> None:
    clock = Clock()
    kb_fw = FW["kb_firmware"]
    saved = kb_fw.ticks_ms, kb_fw.ticks_us
    kb_fw.ticks_ms, kb_fw.ticks_us = clock.ticks_ms, clock.ticks_us
    rows, cols = [2, 3, 4], [10, 11, 12]
    sim = SimMatrix(rows, cols, clock=clock.seconds)
    FW["machine"].attach(sim)
    try:
        pipe = Pipe()
        fw = kb_fw.SensorFirmware(FW["kb_matrix"].Matrix(rows, cols, settle_us=0), pipe, debounce_ms=10,
                                  scan_us=1000, snapshot_ms=1000, heartbeat_ms=100)
        host = LinkPolicy(channels=ChannelHealth(chatter_changes=1000))
        got: list[tuple[int, SwitchChange]] = []

        def carry_out(actions: list[Action]) -> None:
            """What the adapter does: write to the board, report to the game."""
            for a in actions:
                if isinstance(a, Send):
                    pipe.to_board += a.data
                elif isinstance(a, Report):
                    got.append((clock.ms, a.change))

        host.starting = True  # as in start(): the app reconciles with the first snapshot itself
        carry_out(host.connect(0.0))
        carry_out(host.greeted(0.0))

        # the firmware's settled history per channel: [(time ms, state)]
        history: dict[int, list[tuple[int, bool]]] = {c: [(0, False)] for c in range(ROWS * COLS)}
        schedule: dict[int, list[tuple[int, str]]] = {}
        t = 5
        for gap, ch, what in moves:
            t += gap
            schedule.setdefault(t, []).append((ch, what))
        hits = {d[0]: d for d in wire_damage}
        end_damage = max([*hits, t]) + 1
        for ms in range(end_damage + 1300):
            clock.ms = ms
            for ch, what in schedule.get(ms, []):
                if what == "move":
                    sim.set(ch, not sim.state(ch), bounce_s=0.002)
                else:
                    sim.glitch(ch, 0.006)  # shorter than the 10 ms debounce
            before = bytes(fw.deb.stable)
            fw.step()
            for c in range(ROWS * COLS):
                if fw.deb.stable[c] != before[c]:
                    history[c].append((ms, bool(fw.deb.stable[c])))
            if ms == end_damage + 1200:
                carry_out(host.request_snapshot("asked", clock.seconds()))
            data, pipe.to_host = pipe.to_host, b""
            if ms in hits:
                _, kind, where, bit, to_board = hits[ms]
                if to_board:
                    pipe.to_board = damage(pipe.to_board, kind, where, bit)
                else:
                    data = damage(data, kind, where, bit)
            if data:
                carry_out(host.feed(data, clock.seconds()))
            carry_out(host.tick(clock.seconds()))
            if host.starting and host.synced_once:
                # what BoardApp does after start(): submit what differs from the snapshot
                host.starting = False
                told = {ch.channel: ch.closed for _, ch in got}
                for channel, closed in host.view().items():
                    if told.get(channel, False) != closed:
                        got.append((clock.ms, SwitchChange(channel, closed)))

        name = {c: f"r{c // COLS}c{c % COLS}" for c in range(ROWS * COLS)}
        for c in range(ROWS * COLS):
            mine = [(when, ch.closed) for when, ch in got if ch.channel == name[c]]
            # never twice the same state in a row, and each report matches a settled change, in order
            states = [False] + [s for _, s in mine]
            assert all(a != b for a, b in zip(states, states[1:], strict=False)), (c, mine)
            k = 1
            for when, s in mine:
                while k < len(history[c]) and not (history[c][k][1] == s and history[c][k][0] <= when):
                    k += 1
                assert k < len(history[c]), f"phantom on channel {c}: {mine} vs {history[c]}"
                k += 1
            assert host.view()[name[c]] == sim.state(c)
            assert fw.deb.stable[c] == sim.state(c)
    finally:
        FW["machine"].attach(None)
        kb_fw.ticks_ms, kb_fw.ticks_us = saved
