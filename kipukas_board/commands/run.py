"""``kipukas-board run``: start the board and serve its page with waitress.

    kipukas-board run --sim [--host H] [--port P] [--data-dir DIR] [--map NAME_OR_PATH]
                      [--admin-pin PIN] [--settings FILE] [--threads N] [--max-streams M]

Each open page holds a waitress thread for its event stream; at most ``--max-streams`` (default
``--threads`` - 8) are open at once, so the rest of the API always has threads left
(``kipukas_board/web/serving.py``).

A map or settings file with mistakes is reported in full and the command exits with code 2 before
anything is served.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipukas_board.board.mapfile import MapError
from kipukas_board.commands import argtypes
from kipukas_board.settings import SettingsError, default_data_dir, load_settings

log = logging.getLogger("kipukas_board")

SYSTEM_SETTINGS = Path("/etc/kipukas-board/settings.toml")
#: The service's data directory (systemd's StateDirectory=kipukas-board): its journal and calibration.
SERVICE_DATA_DIR = Path("/var/lib/kipukas-board")
#: ``--data-dir``'s help for the commands that find it with :func:`find_data_dir`.
DATA_DIR_HELP = "the board's data directory (default: the installed service's, else your own state directory)"


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run the board (add --sim for simulated hardware)",
                       description="Run the board: sensors, lights, voice, cameras and the page.")
    p.add_argument("--sim", action="store_true", help="simulate every piece of hardware")
    p.add_argument("--host", help="address to serve the page on (default 127.0.0.1; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=argtypes.port, help="port to serve the page on (default 8080)")
    p.add_argument("--data-dir", type=Path, help=f"where the journal lives (default {default_data_dir()})")
    p.add_argument("--map", help="map name in calibration/maps/ or a path to a map file")
    p.add_argument("--admin-pin", help="the admin PIN (or set KIPUKAS_ADMIN_PIN)")
    p.add_argument("--settings", type=Path, help=f"settings file (default $KIPUKAS_SETTINGS or {SYSTEM_SETTINGS})")
    p.add_argument("--threads", type=argtypes.at_least(2), default=48,
                   help="waitress worker threads; each open page holds one for its event stream")
    p.add_argument("--max-streams", type=argtypes.at_least(1),
                   help="open pages (event streams) allowed at once; more get 503 (default: threads - 8)")
    p.set_defaults(func=run)


def settings_path(arg: Path | None) -> Path | None:
    if arg is not None:
        return arg
    env = os.environ.get("KIPUKAS_SETTINGS")
    if env:
        return Path(env)
    return SYSTEM_SETTINGS if SYSTEM_SETTINGS.exists() else None


def board_data_dir(arg: Path | None, spath: Path | None) -> Path:
    """The board's data directory for a command run by hand: ``--data-dir``, else the service's when
    the command reads the same (system) settings file, so a command run by the Pi's first user reads
    and writes the very journal, calibration and cards the service uses, else the default (a
    development machine, where no service is installed).

    Raises ValueError naming the fix when the service's directory is there but not readable (the
    first user is put in the ``kipukas`` group by ``scripts/install-pi``; a new group needs a new
    login).
    """
    if arg is not None:
        return arg
    if spath is not None and spath == SYSTEM_SETTINGS and SERVICE_DATA_DIR.exists():
        if not os.access(SERVICE_DATA_DIR, os.R_OK | os.X_OK):
            raise ValueError(f"cannot read {SERVICE_DATA_DIR}, where the service keeps its calibration: "
                             f"join the kipukas group (sudo usermod -aG kipukas $USER), log in again, "
                             f"or pass --data-dir")
        return SERVICE_DATA_DIR
    return default_data_dir()


@dataclass(frozen=True)
class DataDir:
    """The data directory a command uses and how it was chosen, so that the command can say which one
    it used and refuse to write where the running board never looks.

    Example::

        >>> d = DataDir(Path("/home/me/state"), given=True, service=Path("/var/lib/kipukas-board"))
        >>> d.line()
        'data directory: /home/me/state (given with --data-dir; the installed service uses /var/lib/kipukas-board)'
        >>> d.write_problem("catalog import") is None, d.write_note() is not None
        (True, True)
    """

    path: Path
    given: bool  #: named with ``--data-dir``
    service: Path | None  #: the installed service's data directory, when there is one

    @property
    def is_service(self) -> bool:
        return self.service is not None and self.path == self.service

    def line(self) -> str:
        """One line saying which directory the command uses, and whose it is."""
        whose = self.whose()
        return f"data directory: {self.path}" + (f" ({whose})" if whose else "")

    def whose(self) -> str:
        """Whose directory it is, where that is known: the installed service's, or how it was chosen
        beside the service's; empty with no service installed."""
        if self.is_service:
            return "the installed service's"
        if self.service is None:
            return ""
        how = "given with --data-dir" if self.given else "not the installed service's"
        return f"{how}; the installed service uses {self.service}"

    def write_problem(self, command: str) -> str | None:
        """Why ``command`` must not write here, with the way to go on; None when it may.

        It refuses a directory the running board never reads unless ``--data-dir`` named it, and the
        service's directory to anyone but its owner: a file written there by root or the first user
        is one the service cannot write afterwards.
        """
        if self.service is not None and not self.is_service and not self.given:
            return (f"{self.path} is not the data directory of the installed service, which uses {self.service}: "
                    f"{command} would write where the running board never looks. Pass --data-dir "
                    f"{self.service} (as the service's user: sudo -u kipukas kipukas-board {command} ...), "
                    f"or --data-dir {self.path} if you mean this one")
        if self.is_service and self.path.exists():
            owner = self.path.stat().st_uid
            if owner != os.geteuid():
                name = _user_name(owner)
                return (f"{self.path} belongs to the service's user {name}: run {command} as that user so "
                        f"what it writes stays the service's (sudo -u {name} kipukas-board {command} ...)")
        return None

    def write_note(self) -> str | None:
        """A warning for a write into a directory named with ``--data-dir`` that is not the service's."""
        if self.given and self.service is not None and not self.is_service:
            return (f"note: {self.path} is not the installed service's data directory ({self.service}); "
                    f"the running board will not see what this writes")
        return None


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def find_data_dir(arg: Path | None) -> DataDir:
    """The data directory of a command without a ``--settings`` of its own (``journal``, ``catalog``,
    ``export``): as :func:`board_data_dir` finds it for the settings file the service reads.

    Raises ValueError as :func:`board_data_dir` does.
    """
    path = board_data_dir(arg, settings_path(None))
    service = SERVICE_DATA_DIR if SERVICE_DATA_DIR.is_dir() else None
    return DataDir(path, given=arg is not None, service=service)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    spath = settings_path(args.settings)
    if spath is not None and not spath.exists():
        print(f"kipukas-board: settings file {spath} does not exist", file=sys.stderr)
        return 2
    try:
        settings = load_settings(spath)
    except SettingsError as exc:
        print(f"kipukas-board: {exc.path}: {len(exc.problems)} problem(s) in the settings file:", file=sys.stderr)
        for p in exc.problems:
            print(f"  - {p}", file=sys.stderr)
        return 2
    if args.map:
        settings.map = args.map
    if args.host:
        settings.host = args.host
    if args.port is not None:
        settings.port = args.port
    pin = args.admin_pin or os.environ.get("KIPUKAS_ADMIN_PIN") or None
    data_dir = args.data_dir or default_data_dir()

    from kipukas_board.app import BoardApp  # after argument checks: keeps --help fast

    if not args.sim and settings.all_simulated():
        # Say so plainly; but without --sim the simulation endpoints (no PIN, by design) stay off: a
        # Pi's first settings file is all simulated and listens on the table's network.
        where = spath if spath is not None else "no settings file"
        print(f"kipukas-board: every adapter is simulated ({where}): nothing senses, lights or speaks until "
              f"real adapters are chosen in the settings (hardware/bring-up.md); run with --sim to drive "
              f"the simulation from the page", file=sys.stderr)
    from kipukas_board.store.dir_lock import DirectoryBusy, hold_while_running
    from kipukas_board.store.journal import JournalError

    try:
        # Held until the process ends: another board and journal restore refuse meanwhile (store/dir_lock.py).
        # A directory not made yet has no one in it; it is held once the board has made it.
        held = hold_while_running(data_dir) if data_dir.is_dir() else None
    except DirectoryBusy as exc:
        print(f"kipukas-board: {exc}", file=sys.stderr)
        return 1
    try:
        try:
            board = BoardApp(settings, data_dir, sim=args.sim, admin_pin=pin, map_given=bool(args.map))
        except MapError as exc:
            print(exc.report(), file=sys.stderr)
            return 2
        except JournalError as exc:  # damaged or unreadable journal: named, with the way back
            print(f"kipukas-board: {exc}", file=sys.stderr)
            return 2
        except ValueError as exc:  # a bad PIN or adapter option
            print(f"kipukas-board: {exc}", file=sys.stderr)
            return 2
        if held is None:
            try:
                held = hold_while_running(board.data_dir)
            except DirectoryBusy as exc:
                print(f"kipukas-board: {exc}", file=sys.stderr)
                board.stop()
                return 1
        return serve(board, args.threads, args.max_streams)
    finally:
        if held is not None:
            held.close()


def short_pin_warning(host: str, digits: int | None) -> str | None:
    """A warning when a PIN of fewer than 6 digits guards a board that listens beyond loopback.

    >>> short_pin_warning("0.0.0.0", 4) is not None, short_pin_warning("127.0.0.1", 4), short_pin_warning("::", 6)
    (True, None, None)
    """
    from kipukas_board.web.auth import RANDOM_PIN_DIGITS

    if digits is None or digits >= RANDOM_PIN_DIGITS or is_loopback(host):
        return None
    return (f"the admin PIN has only {digits} digits and the page listens on {host}, beyond this machine: "
            f"anyone on the network can try PINs (slowly: wrong ones are limited); use {RANDOM_PIN_DIGITS} or "
            f"more digits")


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve(board: Any, threads: int, max_streams: int | None = None) -> int:
    from kipukas_board.service import BoardService, register_sim_faults
    from kipukas_board.web.serving import make_server

    host, port = board.settings.host, board.settings.port
    if board.sim:
        board.route_plugins.append(register_sim_faults)
    try:
        # Bodies over 64 KiB refused on arrival; event streams capped below the threads (web/serving.py).
        server = make_server(board, host, port, threads=threads, max_streams=max_streams, ident="kipukas-board")
    except ValueError as exc:  # --threads / --max-streams that would starve the page
        print(f"kipukas-board: {exc}", file=sys.stderr)
        board.stop()
        return 2
    except OSError as exc:
        print(f"kipukas-board: cannot listen on {host}:{port}: {exc.strerror or exc} "
              f"(is another board running? try --port)", file=sys.stderr)
        board.stop()
        return 1
    board.start()
    service = BoardService(board)  # READY=1 and watchdog pings when run by systemd
    mode = "simulation" if board.sim else ("hardware, every adapter simulated" if board.settings.all_simulated()
                                           else "hardware")
    print(f"Kipukas board ({mode}, map {board.loop.state.board.name!r}) at http://{host}:{port}/ "
          f"- journal in {board.data_dir}", flush=True)
    if board.generated_pin:
        print(f"Admin PIN for this board: {board.generated_pin} (change it with --admin-pin)", flush=True)
    warning = short_pin_warning(host, board.pins.length)
    if warning:
        log.warning("%s", warning)
    for problem in board.journal.problems:
        print(f"kipukas-board: WARNING: {problem}", file=sys.stderr, flush=True)
    for gap in board.journal.lost:
        print(f"kipukas-board: WARNING: events {gap['first']} to {gap['last']} of {board.journal.path} were "
              f"acknowledged but are lost (see `kipukas-board journal check`)", file=sys.stderr, flush=True)

    def _stop(signum: int, frame: Any) -> None:
        # End the open pages' event streams first: waitress waits (up to 5 s) for its threads,
        # and each stream holds one until its next keepalive.
        board.broadcaster.close()
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        service.started(f"{mode}, page on {host}:{port}")
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        service.stopping()
        board.stop()
        server.close()
    return 0
