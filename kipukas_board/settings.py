"""The board's settings file (TOML): which map, which adapters, where the page listens.

Every key is optional; a missing file means simulation-friendly defaults. An example with every
section (``calibration/settings.example.toml`` has the commented version)::

    [board]
    map = "kipuka-8"          # a name from calibration/maps/ or a path to a .toml map file
    calibration = "default"   # <data dir>/calibration/<name>.toml, written by the walk-through

    [web]
    host = "127.0.0.1"        # a LAN bind ("0.0.0.0") is an explicit choice
    port = 8080
    names = ["table.example"] # other names the page is reached by (besides its addresses, the
                              # hostname and <hostname>.local); any other Host header is refused

    [sensors]
    adapter = "sim"           # the other keys of a section go to the adapter

    [leds]
    adapter = "sim"
    count = 180               # pixels on the strip (the strip's, not the adapter's)
    power_budget_ma = 4000    # the LEDs' share of the 5 V supply in mA: the brightness cap
    fuse_a = 5                # the LED fuse fitted (F1); the budget may be at most 80 % of it

    [voice]
    adapter = "silent"

    [[cameras]]
    seat = 1
    adapter = "sim"

    [vision]
    budget_ms = 80            # CPU ms each camera frame may cost every seat's decoding (a Pi 4: ~300)

    [fleet]                   # optional: publish to an MQTT broker (docs/admins/fleet.md)
    broker = "mqtts://fleet.local:8883"
    board_id = "table-07"     # letters, digits, - and _; the broker's ACL ties it to the username
    name = "Table 7"          # shown on the organiser's dashboard (default: board_id)
    username = "table-07"     # default: board_id, when a password file is given
    password_file = "/etc/kipukas-board/mqtt-password"
    ca_file = "/etc/kipukas-board/fleet-ca.pem"   # for mqtts:// (default: the system's CAs)
    unacked_limit_s = 60      # fleet health not ok once an event waits this long for the broker's ack

Settings are data only: :func:`load_settings` checks them and reports every problem at once.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kipukas_board.hardware import power_chain
from kipukas_board.hardware.registry import ADAPTERS, SIMULATED, adapter_options
from kipukas_board.strictjson import is_int, is_number
from kipukas_board.textfile import TextFileError, read_text

DEFAULT_MAP = "kipuka-8"
#: The largest settings file read (a settings file is a few hundred bytes).
MAX_SETTINGS_BYTES = 256 * 1024
#: Most names in ``[web] names``, and the longest (a DNS name is at most 253 characters).
MAX_NAMES, MAX_NAME_LEN = 32, 253
#: ``[vision] budget_ms``: the CPU milliseconds one camera frame may cost a seat's decoding, its
#: default (planned on an x86 development machine) and the range accepted (a Pi 4 core is some 3-4
#: times slower and wants about 300; beyond 5 s a frame is no longer a camera's).
DEFAULT_BUDGET_MS, MIN_BUDGET_MS, MAX_BUDGET_MS = 80.0, 10.0, 5000.0


class SettingsError(ValueError):
    """The settings file has mistakes; ``problems`` lists each one."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"{path}: " + "; ".join(problems))


#: Camera adapters ``--sim`` keeps: they need no Raspberry Pi (image files, a USB camera).
KEPT_IN_SIMULATION = frozenset({"files", "opencv"})

@dataclass
class AdapterChoice:
    """One port's adapter and the options passed to it."""

    adapter: str
    options: dict[str, Any] = field(default_factory=dict)


#: A board id: also a topic level (``kipukas/<board_id>/...``), so no ``/``, ``+`` or ``#``.
BOARD_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


@dataclass(frozen=True)
class BrokerAddress:
    """Where an MQTT broker listens: ``mqtt://HOST[:PORT]`` (1883) or ``mqtts://HOST[:PORT]`` (TLS, 8883)."""

    host: str
    port: int
    tls: bool

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        """Raises ``ValueError`` naming what is wrong.

        >>> BrokerAddress.parse("mqtts://fleet.local")
        BrokerAddress(host='fleet.local', port=8883, tls=True)
        """
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError(f"broker {url!r} is not a broker address; expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        if parts.path not in ("", "/") or parts.query or parts.username:
            raise ValueError(f"broker {url!r}: expected only mqtt(s)://HOST[:PORT] (the username and password "
                             f"go in username and password_file)")
        try:
            port = parts.port
        except ValueError:
            port = -1
        if port is not None and not 0 < port < 65536:
            raise ValueError(f"broker {url!r}: the port must be a whole number from 1 to 65535")
        tls = parts.scheme == "mqtts"
        return cls(parts.hostname, port or (8883 if tls else 1883), tls)

    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


@dataclass
class FleetSettings:
    """The ``[fleet]`` section: the broker this board publishes to, and who it is there."""

    broker: BrokerAddress
    board_id: str
    name: str
    username: str | None = None
    password_file: str | None = None
    ca_file: str | None = None
    #: Seconds the oldest event may wait for the broker's acknowledgement before the fleet's health
    #: is not ok (a broker that takes events and never acknowledges them still looks connected).
    unacked_limit_s: float = 60.0


#: ``[fleet] unacked_limit_s`` at least and at most: below a second a broker's normal lag would
#: flap the health, over a day nobody would be told.
MIN_UNACKED_S, MAX_UNACKED_S = 1.0, 86400.0


@dataclass
class Settings:
    map: str = DEFAULT_MAP
    calibration: str = "default"
    host: str = "127.0.0.1"
    port: int = 8080
    #: Extra host names the page answers to (web/hosts.py).
    names: list[str] = field(default_factory=list)
    sensors: AdapterChoice = field(default_factory=lambda: AdapterChoice("sim"))
    leds: AdapterChoice = field(default_factory=lambda: AdapterChoice("sim"))
    voice: AdapterChoice = field(default_factory=lambda: AdapterChoice("silent"))
    cameras: list[AdapterChoice] = field(default_factory=list)
    fleet: FleetSettings | None = None
    #: ``[leds] count`` and ``power_budget_ma``: the strip's length and the LEDs' share of the supply,
    #: applied over the calibration (:func:`kipukas_board.show.layout.with_strip_settings`); None: not set.
    led_count: int | None = None
    led_power_budget_ma: float | None = None
    #: ``[leds] fuse_a``: the LED fuse fitted; the budget (the settings' or the calibration's) may be
    #: at most 80 % of it, and the fuse at most what the wiring behind it carries (5.45 A with the
    #: strip's copper and 18 AWG wire: :func:`kipukas_board.hardware.power_chain.fuse_problem`).
    led_fuse_a: float = power_chain.DEFAULT_FUSE_A
    #: ``[vision] budget_ms``: every seat's decode budget, in CPU ms a frame.
    budget_ms: float = DEFAULT_BUDGET_MS

    def all_simulated(self) -> bool:
        """Is every port on its simulated adapter (the defaults, or the Pi's first settings file)?"""
        return (self.sensors.adapter == SIMULATED["sensors"] and self.leds.adapter == SIMULATED["leds"]
                and self.voice.adapter == SIMULATED["voice"]
                and all(c.adapter == SIMULATED["cameras"] for c in self.cameras))

    def simulated(self) -> Settings:
        """These settings with every port on its simulated adapter (``--sim``).

        Cameras that need no Pi keep their adapter: a ``files`` camera plays images (the way to walk
        the camera step in simulation) and an ``opencv`` one is a USB camera on this machine. Any
        other camera is simulated, and says which adapter it stands in for (health ``stands_in_for``).
        """
        cams = [c if c.adapter in KEPT_IN_SIMULATION else
                AdapterChoice(SIMULATED["cameras"], {"seat": c.options.get("seat", i + 1), "stands_in_for": c.adapter})
                for i, c in enumerate(self.cameras)]
        return Settings(
            map=self.map, calibration=self.calibration, host=self.host, port=self.port, names=list(self.names),
            led_count=self.led_count, led_power_budget_ma=self.led_power_budget_ma, led_fuse_a=self.led_fuse_a,
            budget_ms=self.budget_ms,
            # A simulated sensor section keeps its options (channels = "matrix" for calibration).
            sensors=AdapterChoice(SIMULATED["sensors"], dict(self.sensors.options)
                                  if self.sensors.adapter == SIMULATED["sensors"] else {}),
            leds=AdapterChoice(SIMULATED["leds"]),
            voice=AdapterChoice(SIMULATED["voice"]), cameras=cams, fleet=self.fleet,
        )


def default_data_dir() -> Path:
    """Where the journal lives unless ``--data-dir`` says otherwise.

    systemd's ``StateDirectory=`` sets ``$STATE_DIRECTORY``; otherwise the XDG per-user state dir.
    """
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "kipukas-board"


def _choice(section: Any, port: str, where: str, problems: list[str]) -> AdapterChoice:
    """One port's section: a known adapter, and only options that adapter takes (a misspelt option
    would otherwise be ignored without a word)."""
    if not isinstance(section, dict):
        problems.append(f"[{where}] must be a table, got {type(section).__name__}")
        return AdapterChoice(SIMULATED[port])
    opts = dict(section)
    name = opts.pop("adapter", SIMULATED[port])
    if not isinstance(name, str) or name not in ADAPTERS[port]:
        problems.append(
            f"[{where}] adapter = {name!r} is not known; expected one of {', '.join(sorted(ADAPTERS[port]))}"
        )
        return AdapterChoice(SIMULATED[port])
    if name == SIMULATED[port]:
        # Falling back to simulation during bring-up leaves the real adapter's options in place:
        # the simulated adapter takes (and ignores) any option some adapter of this port has.
        each = [adapter_options(port, n) for n in ADAPTERS[port]]
        allowed = None if any(o is None for o in each) else sorted({k for o in each for k in o or ()})
    else:
        allowed = adapter_options(port, name)
    if allowed is not None:
        for key in sorted(set(opts) - set(allowed)):
            problems.append(f"[{where}] {key} = {opts[key]!r}: the {name!r} {port} adapter has no option {key!r}; "
                            f"expected one of {', '.join(['adapter', *allowed])}")
    return AdapterChoice(name, opts)


def _table(data: dict[str, Any], name: str, keys: tuple[str, ...], problems: list[str]) -> dict[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, dict):
        problems.append(f"[{name}] must be a table, got {section!r:.40}")
        return {}
    for key in section:
        if key not in keys:
            problems.append(f"[{name}] unknown key {key!r}; expected one of {', '.join(keys)}")
    return section


def _text(section: dict[str, Any], where: str, key: str, default: str, problems: list[str]) -> str:
    value = section.get(key, default)
    if not isinstance(value, str) or not value:
        problems.append(f"[{where}] {key} = {value!r} must be a non-empty string")
        return default
    return value


def _fleet(data: dict[str, Any], problems: list[str]) -> FleetSettings | None:
    keys = ("broker", "board_id", "name", "username", "password_file", "ca_file")
    section = _table(data, "fleet", (*keys, "unacked_limit_s"), problems)
    if "fleet" not in data or not isinstance(data["fleet"], dict):
        return None
    for key in ("broker", "board_id"):
        if key not in section:
            problems.append(f"[fleet] {key} is missing; a board that joins a fleet needs a broker and a board_id")
    texts = {k: _text(section, "fleet", k, "-", problems) for k in keys if k in section}
    try:
        broker = BrokerAddress.parse(texts.get("broker", "mqtt://-"))
    except ValueError as exc:
        problems.append(f"[fleet] {exc}")
        broker = BrokerAddress("-", 1883, False)
    board_id = texts.get("board_id", "-")
    if not BOARD_ID_RE.fullmatch(board_id):
        problems.append(f"[fleet] board_id = {board_id!r}: expected 1 to 64 letters, digits, '-' or '_' "
                        f"(it is a topic level: kipukas/<board_id>/...)")
    if "ca_file" in texts and not broker.tls:
        problems.append("[fleet] ca_file is for a TLS broker; use an mqtts:// address")
    limit = section.get("unacked_limit_s", FleetSettings.unacked_limit_s)
    if not is_number(limit) or not MIN_UNACKED_S <= limit <= MAX_UNACKED_S:
        problems.append(f"[fleet] unacked_limit_s = {limit!r}: expected the seconds the oldest event may wait "
                        f"for the broker's acknowledgement, a number from {MIN_UNACKED_S:g} to {MAX_UNACKED_S:g} "
                        f"(default {FleetSettings.unacked_limit_s:g})")
        limit = FleetSettings.unacked_limit_s
    return FleetSettings(broker, board_id, texts.get("name", board_id), texts.get("username"),
                         texts.get("password_file"), texts.get("ca_file"), float(limit))


def _strip_number(value: Any, key: str, lo: int, hi: int, whole: bool, problems: list[str]) -> Any:
    if value is None:
        return None
    ok = is_int(value) if whole else is_number(value)
    if not ok or not lo <= value <= hi:
        kind = "a whole number" if whole else "a number"
        problems.append(f"[leds] {key} = {value!r}: expected {kind} from {lo} to {hi}")
        return None
    return value


def load_settings(path: str | os.PathLike[str] | None) -> Settings:
    """Read a settings file (None or a missing file → defaults). Raises :class:`SettingsError`."""
    if path is None or not Path(path).exists():
        return Settings()
    path = str(path)
    try:
        text = read_text(path, MAX_SETTINGS_BYTES)
    except TextFileError as exc:
        raise SettingsError(path, [exc.reason]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(path, [f"not valid TOML: {exc}"]) from None
    except RecursionError:
        raise SettingsError(path, ["nested too deeply to be settings"]) from None
    problems: list[str] = []
    known = {"board", "web", "sensors", "leds", "voice", "cameras", "vision", "fleet"}
    for key in data:
        if key not in known:
            problems.append(f"unknown section [{key}]; expected one of {', '.join(sorted(known))}")
    s = Settings()
    board = _table(data, "board", ("map", "calibration"), problems)
    s.map = _text(board, "board", "map", s.map, problems)
    s.calibration = _text(board, "board", "calibration", s.calibration, problems)
    web = _table(data, "web", ("host", "port", "names"), problems)
    s.host = _text(web, "web", "host", s.host, problems)
    names = web.get("names", [])
    if (not isinstance(names, list) or len(names) > MAX_NAMES
            or not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME_LEN and n.isascii() and " " not in n
                       for n in names)):
        problems.append(f"[web] names = {names!r:.80} must be a list of at most {MAX_NAMES} host names "
                        f"(ASCII, no spaces, no port)")
    else:
        s.names = [n.lower().rstrip(".") for n in names]
    port = web.get("port", s.port)
    if not is_int(port) or not 0 < port < 65536:
        problems.append(f"[web] port = {port!r} must be a whole number from 1 to 65535")
    else:
        s.port = port
    leds = data.get("leds")
    if isinstance(leds, dict):
        leds = dict(leds)  # the strip's own keys are not the adapter's options
        s.led_count = _strip_number(leds.pop("count", None), "count", 1, 10_000, True, problems)
        s.led_power_budget_ma = _strip_number(leds.pop("power_budget_ma", None), "power_budget_ma", 100, 100_000,
                                              False, problems)
        given_fuse = leds.pop("fuse_a", None)
        fuse = _strip_number(given_fuse, "fuse_a", 1, 30, False, problems)
        if fuse is not None:
            s.led_fuse_a = float(fuse)
            unprotected = power_chain.fuse_problem(s.led_fuse_a)
            if unprotected:
                problems.append(f"[leds] fuse_a = {fuse:g}: {unprotected} (hardware/bom.md, 'The power chain')")
        budget = s.led_power_budget_ma
        # A refused fuse is named above; weighing the budget against the default would name a fuse
        # the file never gave.
        if budget is not None and (given_fuse is None or fuse is not None) \
                and budget > power_chain.max_budget_ma(s.led_fuse_a):
            problems.append(f"[leds] power_budget_ma = {budget:g} mA is more than 80 % of the {s.led_fuse_a:g} A "
                            f"LED fuse ([leds] fuse_a): at most {power_chain.max_budget_ma(s.led_fuse_a):g} mA, or "
                            f"the fuse runs near its rating in play (hardware/bom.md, 'The power chain')")
        data = {**data, "leds": leds}
    for name in ("sensors", "leds", "voice"):
        if name in data:
            setattr(s, name, _choice(data[name], name, name, problems))
    cams = data.get("cameras", [])
    if not isinstance(cams, list):
        problems.append("cameras must be an array of tables: [[cameras]]")
        cams = []
    seats: dict[int, int] = {}
    for i, cam in enumerate(cams):
        choice = _choice(cam, "cameras", f"cameras[{i}]", problems)
        seat = choice.options.get("seat")
        if not is_int(seat) or seat < 1:
            problems.append(f"[cameras[{i}]] seat = {seat!r} must be a seat number (1, 2, ...)")
        elif seat in seats:
            problems.append(f"[cameras[{i}]] seat = {seat} is served by cameras[{seats[seat]}] already; "
                            f"one camera per seat")
        else:
            seats[seat] = i
        s.cameras.append(choice)
    vision = _table(data, "vision", ("budget_ms",), problems)
    budget = vision.get("budget_ms", s.budget_ms)
    if not is_number(budget) or not MIN_BUDGET_MS <= budget <= MAX_BUDGET_MS:
        problems.append(f"[vision] budget_ms = {budget!r}: expected the CPU milliseconds a camera frame may cost, "
                        f"a number from {MIN_BUDGET_MS:g} to {MAX_BUDGET_MS:g} (default {DEFAULT_BUDGET_MS:g}; "
                        f"a Raspberry Pi 4 wants about 300)")
    else:
        s.budget_ms = float(budget)
    s.fleet = _fleet(data, problems)
    if problems:
        raise SettingsError(path, problems)
    return s
