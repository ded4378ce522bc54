"""The map picked on the page, kept in the data directory so a restart comes back on it.

New game on the page may switch the board to another shipped map while no game runs
(:meth:`kipukas_board.app.BoardApp.pick_map`); the pick is journaled first, as a ``map`` event that
names it (``picked``), then written here, ``map-choice.json``. The journal is the truth: a board
stopped between the two (a power cut, ``kill -9``) holds the pick only in the journal, so a start
reads the journal's last ``map`` event (:func:`journaled_pick`) and, when it is a pick, takes it over
whatever this file says (the file is written again once the board is up). At start :func:`start_map`
decides which map the board loads:

* a ``--map`` given on the command line wins (it is the operator's word for this start), and the
  log says when it overrides a map picked on the page; once the start has journaled it, it becomes
  the map to come back to (:func:`write_choice`), since a game may now be played on it and a later
  start without ``--map`` (the service's) must find that game's map;
* otherwise the map picked on the page (the journal's last ``map`` event when it is a pick, else this
  file: the map picked or last given with ``--map``) wins over the settings file's ``[board] map``
  (the later word; the log says so);
* otherwise the settings' map (a first start, a journal whose last map came from a start, or one
  journaled by an earlier version, which did not name picks).

Example::

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> write_choice(d, "kipuka-12")
    >>> start_map("kipuka-8", d, given=False)[0]
    'kipuka-12'
    >>> start_map("kipuka-13", d, given=True)[0]
    'kipuka-13'
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kipukas_board.store.journal import Journal, last_event_of
from kipukas_board.textfile import TextFileError, read_text, write_text_atomic

log = logging.getLogger(__name__)

CHOICE_FILE = "map-choice.json"
#: The file holds one short name; anything larger is not ours.
MAX_CHOICE_BYTES = 4096


def choice_path(data_dir: str | os.PathLike[str]) -> Path:
    return Path(data_dir) / CHOICE_FILE


def read_choice(data_dir: str | os.PathLike[str]) -> str | None:
    """The map picked on the page, or None (no pick yet; a file that does not read is logged and ignored)."""
    path = choice_path(data_dir)
    if not path.exists():
        return None
    try:
        doc = json.loads(read_text(path, max_bytes=MAX_CHOICE_BYTES))
    except (TextFileError, ValueError) as exc:
        log.error("%s is unreadable (%s); using the configured map", path, exc)
        return None
    name = doc.get("map") if isinstance(doc, dict) else None
    if not isinstance(name, str) or not name:
        log.error('%s holds no map name (expected {"map": "kipuka-12"}); using the configured map', path)
        return None
    return name


def write_choice(data_dir: str | os.PathLike[str], name: str) -> None:
    """Keep ``name`` as the map to start on (atomically: a power cut leaves the old pick or the new)."""
    write_text_atomic(choice_path(data_dir), json.dumps({"map": name}) + "\n")


@dataclass(frozen=True)
class JournaledPick:
    """A map picked on the page as the journal holds it: its event's number, the shipped map's short
    name, and the map file's text and path as they were when it was picked."""

    seq: int
    key: str
    toml: str
    path: str | None


def journaled_pick(data_dir: str | os.PathLike[str]) -> JournaledPick | None:
    """The pick the journal's last ``map`` event holds, or None: no journal yet, or its last map came
    from a start (or from an earlier version, which did not name picks), so it says nothing new.

    Example::

        >>> import tempfile
        >>> from kipukas_board.table.events import map_event
        >>> d = tempfile.mkdtemp()
        >>> journaled_pick(d) is None
        True
        >>> j = Journal.in_dir(d); _ = j.append(map_event("Kipuka of Twelve", "", picked="kipuka-12")); j.close()
        >>> journaled_pick(d).key
        'kipuka-12'
    """
    found = last_event_of(Path(data_dir) / Journal.FILENAME, "map")
    if found is None:
        return None
    seq, event = found
    key, toml, path = event.get("picked"), event.get("toml"), event.get("path")
    if not isinstance(key, str) or not key or not isinstance(toml, str):
        return None
    return JournaledPick(seq, key, toml, path if isinstance(path, str) and path else None)


def start_map(configured: str, data_dir: str | os.PathLike[str], given: bool,
              exists: Callable[[str], bool] = lambda name: True,
              journaled: str | None = None) -> tuple[str, str | None]:
    """The map to start on and, when that is not simply ``configured``, a sentence for the log.

    ``configured`` is the settings' map, or ``--map``'s when ``given``; ``exists`` says whether a
    picked map can still be loaded (a map no longer shipped falls back to ``configured``);
    ``journaled``: the map the journal's last ``map`` event picked (:func:`journaled_pick`), which
    wins over this file's.

    Example (the board stopped before the pick was written here)::

        >>> import tempfile
        >>> d = tempfile.mkdtemp()
        >>> start_map("kipuka-8", d, given=False, journaled="kipuka-12")[0]
        'kipuka-12'
    """
    kept = read_choice(data_dir)
    picked = journaled if journaled is not None else kept
    where = (f"the journal; {choice_path(data_dir)} said {kept or 'nothing'}" if picked != kept
             else str(choice_path(data_dir)))
    if picked is None or picked == configured:
        return configured, None
    if not exists(picked):
        return configured, f"map {picked} picked earlier is no longer there; starting on {configured}"
    if given:
        return configured, (f"--map {configured} given: starting on it, not on {picked} picked on the page; "
                            f"a start without --map comes back to {configured}")
    return picked, f"starting on map {picked} picked on the page ({where}), not the settings' {configured}"


def started_map(configured: str, data_dir: str | os.PathLike[str],
                exists: Callable[[str], bool] = lambda name: True) -> str:
    """The map a board whose settings name ``configured`` starts on, chosen as the board chooses it
    (the journal's pick, else this file's, else the settings'), for a command that tests, lights or
    scans that board by hand: after a map picked on the page it must use that map's layout and
    calibration, not the settings'. A pick whose map is no longer there (``exists``) gives
    ``configured``: such a command has no game to carry on.

    Example::

        >>> import tempfile
        >>> d = tempfile.mkdtemp()
        >>> started_map("kipuka-8", d)
        'kipuka-8'
        >>> write_choice(d, "kipuka-12"); started_map("kipuka-8", d)
        'kipuka-12'
    """
    pick = journaled_pick(data_dir)
    return start_map(configured, data_dir, given=False, exists=exists,
                     journaled=pick.key if pick is not None else None)[0]
