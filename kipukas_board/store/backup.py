"""Rolling online backups of the journal, and the checks and restore behind ``kipukas-board journal``.

:class:`RollingBackup` copies the live journal with SQLite's online backup API (no pause for the
board) into ``journal-backup.sqlite`` every few minutes when something new was journaled, after
moving the previous copy to ``journal-backup.1.sqlite``: two generations, so a backup that an SD card
damaged still leaves one. Each copy is checked (``PRAGMA quick_check``) before it replaces one.

:func:`check` reads a data directory without changing it or adding a file to it (every file is
opened through :mod:`~kipukas_board.store.read_only`, so anyone who may read them may check them);
:func:`restore` moves a damaged journal aside (never deletes it), starts a new one from the newest
sound backup, and carries over every event of the damaged journal that is still readable and newer
than the backup. What neither holds is recorded as lost, so the numbers are never handed out again.

The journal's ``taps`` table (the phones' taps that journaled an event, with their answers:
:mod:`kipukas_board.web.taps`) comes back with the events: the backup holds the taps of its time, and
the damaged journal's readable taps are carried over for every event the restored journal holds (a
newer tap, or an answer given after the backup). A tap whose event did not come back is left out: its
event is not in the journal, so the tap, sent again, is done again rather than answered as done.
Without them a phone that sent a tap again just after a restore would have it done twice.
:func:`check` counts each file's taps and reports a tap whose event the file does not hold (only
damage leaves one: a tap and its event are written in one transaction) as a problem, in the journal
since sent again it would be answered as done, in a backup as a sign of damage (a restore leaves such
taps out: the backup's as the damaged journal's). A hole
in a file's numbering that its record of lost events does not cover (events gone without a word) is a
problem too.

Example::

    kipukas-board journal check        # the installed service's journal, else your own
    kipukas-board journal restore --data-dir ~/.local/state/kipukas-board
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.store.journal import MAX_PROBLEMS, TAPS_KEPT, Journal, JournalError, sqlite_reason
from kipukas_board.store.read_only import connect_read_only
from kipukas_board.strictjson import is_int
from kipukas_board.textfile import atomic_path, replace_durably

log = logging.getLogger(__name__)

BACKUP_NAMES = ("journal-backup.sqlite", "journal-backup.1.sqlite")
#: Seconds between backups while events keep coming.
BACKUP_EVERY_S = 300.0


@dataclass
class FileReport:
    """What one journal or backup file holds, as far as it can be read."""

    path: Path
    exists: bool = False
    sound: bool = False
    problem: str | None = None
    events: int = 0
    first: int = 0
    last: int = 0
    lost: list[dict[str, Any]] = field(default_factory=list)
    modified: float | None = None
    #: Rows of the ``taps`` table (None: the file has none, a journal from before taps were kept).
    taps: int | None = None
    #: Of those, the rows that point at an event the file does not hold (each tap is written in one
    #: transaction with its event, so only damage or a bad copy leaves one): the tap, sent again,
    #: would be answered "done" though its event is gone.
    taps_astray: int = 0
    #: The journal numbers of the first :data:`~kipukas_board.store.journal.MAX_PROBLEMS` of them.
    taps_astray_seqs: list[int] = field(default_factory=list)
    #: Why the ``taps`` table could not be read, if it could not.
    taps_problem: str | None = None
    #: Holes in the numbering up to :attr:`last` that no range of :attr:`lost` records, the first
    #: :data:`~kipukas_board.store.journal.MAX_PROBLEMS` of them (``first``, ``last``): events gone
    #: without a word, which only damage or a hand edit leaves.
    missing: list[dict[str, int]] = field(default_factory=list)
    #: How many event numbers those holes hold in all.
    missing_events: int = 0

    def line(self) -> str:
        if not self.exists:
            return f"{self.path}: none"
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.modified)) if self.modified else "?"
        if not self.sound:
            return f"{self.path}: DAMAGED ({self.problem}); written {when}"
        held = f"events {self.first} to {self.last}" if self.events else "no events"
        return f"{self.path}: sound, {held} ({self.events} rows){self._taps_words()}; written {when}"

    def _taps_words(self) -> str:
        if self.taps_problem is not None:
            return f", its phone taps unreadable ({self.taps_problem})"
        if self.taps is None:
            return ", no table of phone taps"
        words = f", {self.taps} phone tap(s) kept"
        if self.taps_astray:
            more = ", ..." if self.taps_astray > len(self.taps_astray_seqs) else ""
            words += (f" ({self.taps_astray} of them for events it does not hold: "
                      f"{', '.join(map(str, self.taps_astray_seqs))}{more})")
        return words

    def taps_trouble(self, backup: bool = False) -> str | None:
        """What is wrong with the file's taps, for ``journal check`` to report as a problem; None if
        nothing. ``backup``: the file is a backup, which ``journal restore`` would bring back whole."""
        if self.taps_problem is not None:
            return f"TAPS: {self.path}: the phones' taps cannot be read ({self.taps_problem})"
        if not self.taps_astray:
            return None
        if backup:
            return (f"TAPS: {self.path}: {self.taps_astray} phone tap(s) point at events this backup does not "
                    f"hold: damage or a hand edit (a restore from it leaves them out, and records the events "
                    f"neither file holds as lost)")
        return (f"TAPS: {self.path}: {self.taps_astray} phone tap(s) point at events the journal does not hold: "
                f"sent again, such a tap would be answered as done though its event is gone. "
                f"`kipukas-board journal restore` keeps only the taps of the events it brings back")

    def missing_trouble(self, backup: bool = False) -> str | None:
        """The events missing from the file's numbering and not recorded as lost, for ``journal
        check`` to report as a problem; None if none. ``backup``: as for :meth:`taps_trouble`."""
        if not self.missing_events:
            return None
        spans = [f"event {g['first']}" if g["first"] == g["last"] else f"events {g['first']} to {g['last']}"
                 for g in self.missing]
        more = self.missing_events > sum(g["last"] - g["first"] + 1 for g in self.missing)
        words = ", ".join(spans[:-1]) + (" and " if len(spans) > 1 else "") + spans[-1] + (" and more" if more else "")
        verb = "is" if len(spans) == 1 and spans[0].startswith("event ") and not more else "are"
        why = ("restored from it, the journal would lack them" if backup else
               "a backup may still hold them (`kipukas-board journal restore` rebuilds from the newest sound "
               "one and records what neither holds as lost)")
        return (f"MISSING: {self.path}: {words} {verb} missing ({self.missing_events} in all), not recorded "
                f"as lost: damage or a hand edit took them; {why}")

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "exists": self.exists, "sound": self.sound, "problem": self.problem,
                "events": self.events, "first": self.first, "last": self.last, "lost": self.lost,
                "modified": self.modified, "taps": self.taps, "taps_astray": self.taps_astray,
                "taps_astray_seqs": self.taps_astray_seqs, "taps_problem": self.taps_problem,
                "missing": self.missing, "missing_events": self.missing_events}


def inspect(path: Path) -> FileReport:
    """Open ``path`` read-only and report on it (never raises for a bad file)."""
    rep = FileReport(path)
    if not path.exists():
        return rep
    rep.exists = True
    rep.modified = path.stat().st_mtime
    if not path.is_file():
        rep.problem = "not a file"
        return rep
    try:
        db = connect_read_only(path)
    except sqlite3.Error as exc:
        rep.problem = sqlite_reason(exc)
        return rep
    try:
        problems = [r[0] for r in db.execute(f"PRAGMA quick_check({MAX_PROBLEMS})").fetchall()]
        if problems != ["ok"]:
            rep.problem = "integrity check: " + "; ".join(problems)
            return rep
        n, first, last = db.execute("SELECT COUNT(*), COALESCE(MIN(seq), 0), COALESCE(MAX(seq), 0) "
                                    "FROM events").fetchone()
        rep.events, rep.first, rep.last = int(n), int(first), int(last)
        row = db.execute("SELECT value FROM meta WHERE key='lost'").fetchone()
        rep.lost = json.loads(row[0]) if row else []
        _inspect_holes(db, rep)
        rep.sound = True
        _inspect_taps(db, rep)
    except (sqlite3.Error, ValueError) as exc:
        rep.problem = sqlite_reason(exc)
    finally:
        db.close()
    return rep


def numbering_holes(db: sqlite3.Connection) -> Iterator[tuple[int, int]]:
    """Every hole in ``db``'s numbering (the first number missing, the last), the one before the first
    event too: one ordered pass over the table's key (``seq`` is its rowid), however long the journal.
    (SQLite's ``LAG`` window does the same three times slower.)"""
    prev = 0
    for (seq,) in db.execute("SELECT seq FROM events ORDER BY seq"):
        if seq > prev + 1:
            yield prev + 1, seq - 1
        prev = seq


def unrecorded(first: int, last: int, lost: list[Any]) -> list[tuple[int, int]]:
    """The parts of the hole ``first`` to ``last`` that no range of ``lost`` (the journal's record of
    lost events, ``{"first", "last", ...}`` each) covers; an entry not of that shape covers nothing.

    Example::

        >>> unrecorded(3, 9, [{"first": 4, "last": 5}, {"first": 8, "last": 20}])
        [(3, 3), (6, 7)]
        >>> unrecorded(3, 4, [{"first": 1, "last": 4}])
        []
    """
    ranges = sorted((g["first"], g["last"]) for g in lost
                    if isinstance(g, dict) and is_int(g.get("first")) and is_int(g.get("last")))
    parts: list[tuple[int, int]] = []
    at = first
    for a, b in ranges:
        if b < at:
            continue
        if a > last:
            break
        if a > at:
            parts.append((at, a - 1))
        at = max(at, b + 1)
    if at <= last:
        parts.append((at, last))
    return parts


def _inspect_holes(db: sqlite3.Connection, rep: FileReport) -> None:
    """Put the holes in ``db``'s numbering that ``rep.lost`` does not record into ``rep``; no pass at
    all when its events are 1 to ``rep.last``, every one of them (a journal never restored)."""
    if rep.events == rep.last and rep.first >= 1:  # distinct numbers from 1, as many as the last: no hole
        return
    lost = rep.lost if isinstance(rep.lost, list) else []
    for first, last in numbering_holes(db):
        for a, b in unrecorded(int(first), int(last), lost):
            rep.missing_events += b - a + 1
            if len(rep.missing) < MAX_PROBLEMS:
                rep.missing.append({"first": a, "last": b})


def _inspect_taps(db: sqlite3.Connection, rep: FileReport) -> None:
    """Count the ``taps`` rows of ``db`` into ``rep``, and those whose event it does not hold; a table
    that cannot be read is said in ``rep.taps_problem``, never raised (the events are what matters).
    A row without an event (``seq`` NULL: a tap that journaled nothing, as an older version kept
    them) points at none and is fine."""
    try:
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'taps'").fetchone() is None:
            return
        rep.taps = int(db.execute("SELECT COUNT(*) FROM taps").fetchone()[0])
        astray = "FROM taps WHERE seq IS NOT NULL AND seq NOT IN (SELECT seq FROM events)"
        rep.taps_astray = int(db.execute(f"SELECT COUNT(*) {astray}").fetchone()[0])
        rep.taps_astray_seqs = [r[0] for r in db.execute(f"SELECT seq {astray} ORDER BY seq LIMIT ?",
                                                         (MAX_PROBLEMS,))]
    except sqlite3.Error as exc:
        rep.taps, rep.taps_astray, rep.taps_astray_seqs = None, 0, []
        rep.taps_problem = sqlite_reason(exc)


def backups(data_dir: Path) -> list[Path]:
    return [data_dir / name for name in BACKUP_NAMES]


def take_backup(journal: Journal, data_dir: Path) -> FileReport:
    """One rolling backup of ``journal`` into ``data_dir``; raises :class:`JournalError` if it fails."""
    newest, older = backups(data_dir)
    try:
        with atomic_path(newest) as tmp:
            journal.backup_to(tmp)
            rep = inspect(tmp)
            if not rep.sound:
                raise JournalError(f"{newest}: the fresh backup failed its check ({rep.problem}); "
                                   f"the older ones are kept")
            if newest.exists():
                replace_durably(newest, older)
    except (sqlite3.Error, OSError) as exc:
        raise JournalError(f"{newest}: the journal backup could not be written: {sqlite_reason(exc)}") from None
    rep.path = newest
    return rep


class RollingBackup:
    """A thread that backs the journal up every ``every_s`` seconds when it has grown, and once at stop."""

    def __init__(self, journal: Journal, data_dir: Path, every_s: float = BACKUP_EVERY_S) -> None:
        self.journal, self.data_dir, self.every_s = journal, Path(data_dir), every_s
        self.last: FileReport | None = None
        self.error: str | None = None
        self._backed_up = -1
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="journal-backup", daemon=True)

    def start(self) -> None:
        if not self.journal.memory:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5.0)

    def run_once(self) -> None:
        """Back up now if anything was journaled since the last backup."""
        try:
            if self.journal.last_seq() == self._backed_up:
                return
            self.last = take_backup(self.journal, self.data_dir)
            self._backed_up = self.last.last
            self.error = None
        except JournalError as exc:
            if self.error != str(exc):
                log.error("%s", exc)
            self.error = str(exc)

    def _run(self) -> None:
        self.run_once()
        while not self._stop.wait(self.every_s):
            self.run_once()

    def health(self) -> dict[str, Any]:
        last = self.last
        return {"ok": self.error is None, "error": self.error,
                "last_seq": last.last if last else None, "taken": last.modified if last else None}


# -- the journal command -------------------------------------------------------------------------
def check(data_dir: Path) -> tuple[bool, list[str], dict[str, Any]]:
    """Read the journal, its mark and its backups; ``(all sound, report lines, details)``."""
    path = data_dir / Journal.FILENAME
    main = inspect(path)
    lines = [main.line()]
    ok = main.sound or not main.exists
    mark: int | None = None
    try:
        mark = Journal.read_high_water(data_dir / Journal.HWM_FILENAME)
    except JournalError as exc:
        lines.append(str(exc))
        ok = False
    held = max(main.last, max((g["last"] for g in main.lost), default=0))
    if mark is not None:
        lines.append(f"{data_dir / Journal.HWM_FILENAME}: the last acknowledged event was {mark}")
        if mark > held and main.sound:
            lines.append(f"LOST: events {held + 1} to {mark} were acknowledged but are not in the journal")
            ok = False
        elif not main.exists and mark > 0:
            lines.append(f"LOST: the journal is missing; events 1 to {mark} were acknowledged")
            ok = False
    for gap in main.lost:
        lines.append(f"recorded as lost: events {gap['first']} to {gap['last']}")
    for trouble in (main.missing_trouble(), main.taps_trouble()) if main.sound else ():
        if trouble is not None:
            lines.append(trouble)
            ok = False
    reports = [inspect(p) for p in backups(data_dir)]
    for rep in reports:
        lines.append(rep.line())
        for trouble in (rep.missing_trouble(backup=True), rep.taps_trouble(backup=True)) if rep.sound else ():
            if trouble is not None:
                lines.append(trouble)
                ok = False
    return ok, lines, {"journal": main.to_json(), "high_water": mark, "backups": [r.to_json() for r in reports]}


def _readable_rows(path: Path, after: int) -> tuple[list[tuple[int, float, str]], str | None]:
    """Rows of a (possibly damaged) journal with seq > ``after``, as far as they can be read."""
    rows: list[tuple[int, float, str]] = []
    try:
        db = connect_read_only(path)
    except sqlite3.Error as exc:
        return rows, sqlite_reason(exc)
    try:
        cur = db.execute("SELECT seq, ts, event FROM events WHERE seq > ? ORDER BY seq", (after,))
        while True:
            try:
                row = cur.fetchone()
            except sqlite3.Error as exc:
                return rows, sqlite_reason(exc)
            if row is None:
                return rows, None
            try:
                json.loads(row[2])
            except (ValueError, TypeError, RecursionError):
                continue
            rows.append((int(row[0]), float(row[1]), row[2]))
    except sqlite3.Error as exc:
        return rows, sqlite_reason(exc)
    finally:
        db.close()


def _readable_taps(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The rows of a (possibly damaged) journal's ``taps`` table, each a dict by column, as far as
    they can be read (none from a journal older than the table)."""
    taps: list[dict[str, Any]] = []
    try:
        db = connect_read_only(path)
    except sqlite3.Error as exc:
        return taps, sqlite_reason(exc)
    try:
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'taps'").fetchone() is None:
            return taps, None
        cur = db.execute("SELECT * FROM taps ORDER BY rowid")
        names = [d[0] for d in cur.description]
        while True:
            try:
                row = cur.fetchone()
            except sqlite3.Error as exc:
                return taps, sqlite_reason(exc)
            if row is None:
                return taps, None
            taps.append(dict(zip(names, row, strict=True)))
    except sqlite3.Error as exc:
        return taps, sqlite_reason(exc)
    finally:
        db.close()


def _carry_taps(dst: sqlite3.Connection, taps: list[dict[str, Any]]) -> int:
    """Inside ``dst``'s write: put in the ``taps`` of the damaged journal whose event ``dst`` holds
    (over the backup's row of the same tap, which may lack the answer given since), then keep the
    newest :data:`TAPS_KEPT`. Returns how many were carried."""
    if not taps:
        return 0
    dst.execute("CREATE TABLE IF NOT EXISTS taps (ref TEXT PRIMARY KEY, ts REAL NOT NULL, seq INTEGER, "
                "status INTEGER, body BLOB, mimetype TEXT)")  # a backup older than the table
    columns = [r[1] for r in dst.execute("PRAGMA table_info(taps)")]
    carried = 0
    for tap in taps:
        seq = tap.get("seq")
        if not isinstance(tap.get("ref"), str) or not isinstance(seq, int) or dst.execute(
                "SELECT 1 FROM events WHERE seq = ?", (seq,)).fetchone() is None:
            continue  # its event did not come back: sent again, the tap is done again
        names = [c for c in columns if c in tap]
        dst.execute(f"INSERT OR REPLACE INTO taps ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                    [tap[c] for c in names])
        carried += 1
    dst.execute("DELETE FROM taps WHERE rowid NOT IN (SELECT rowid FROM taps ORDER BY seq DESC LIMIT ?)",
                (TAPS_KEPT,))
    return carried


def _drop_taps_astray(dst: sqlite3.Connection) -> int:
    """Inside ``dst``'s write: remove the taps whose event ``dst`` does not hold (a damaged backup's),
    so a tap sent again after the restore is done again, not answered as done. Returns how many."""
    if dst.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'taps'").fetchone() is None:
        return 0
    return dst.execute("DELETE FROM taps WHERE seq IS NOT NULL AND seq NOT IN (SELECT seq FROM events)").rowcount


def _restored_copy(source: Path, dest: Path, newer: list[tuple[Any, ...]],
                   taps: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], int, int, int]:
    """Fill ``dest`` with the backup ``source`` plus the ``newer`` rows and the ``taps`` carried over
    from the damaged journal; returns the gaps in its numbering (the events lost, as its meta table
    records them), its last event number, how many taps were carried over and how many of the
    backup's were left out (their event is in neither file)."""
    src = connect_read_only(source)
    dst = sqlite3.connect(str(dest), isolation_level=None)
    try:
        src.backup(dst)
        dst.execute("BEGIN IMMEDIATE")
        dst.executemany("INSERT INTO events (seq, ts, event) VALUES (?, ?, ?)", newer)
        carried = _carry_taps(dst, taps or [])
        dropped = _drop_taps_astray(dst)
        seqs = [r[0] for r in dst.execute("SELECT seq FROM events ORDER BY seq")]
        row = dst.execute("SELECT value FROM meta WHERE key='lost'").fetchone()
        lost: list[dict[str, Any]] = json.loads(row[0]) if row else []
        known = {(g["first"], g["last"]) for g in lost}
        prev = 0
        for s in seqs:
            if s > prev + 1 and not any(a <= prev + 1 and s - 1 <= b for a, b in known):
                lost.append({"first": prev + 1, "last": s - 1, "found": time.time()})
            prev = s
        dst.execute("INSERT OR REPLACE INTO meta VALUES ('lost', ?)", (json.dumps(lost),))
        top = max(seqs, default=0)
        dst.execute("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'events'", (top,))
        dst.execute("COMMIT")
        dst.execute("PRAGMA journal_mode=WAL")
    finally:
        src.close()
        dst.close()
    return lost, top, carried, dropped


def restore(data_dir: Path, source: Path | None = None) -> list[str]:
    """Rebuild the journal from ``source`` (default: the newest sound backup). Returns report lines.

    Stop the board first. Raises :class:`JournalError` when no sound backup exists.
    """
    path = data_dir / Journal.FILENAME
    candidates = [source] if source is not None else backups(data_dir)
    chosen = None
    for cand in candidates:
        rep = inspect(cand)
        if rep.sound:
            chosen = rep
            break
    if chosen is None:
        why = "; ".join(inspect(c).line() for c in candidates)
        raise JournalError(f"no sound backup to restore from ({why})")
    lines = [f"restoring from {chosen.path} (events {chosen.first} to {chosen.last})"]
    newer, problem = _readable_rows(path, chosen.last) if path.exists() else ([], None)
    taps, tap_problem = _readable_taps(path) if path.exists() else ([], None)
    if path.exists():
        stamp = time.strftime("%Y%m%dT%H%M%S")
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(path) + suffix)
            if part.exists():
                aside = Path(f"{path}.damaged-{stamp}{suffix}")
                replace_durably(part, aside)
                lines.append(f"moved {part} aside to {aside}")
    if problem:
        lines.append(f"the old journal was readable only in part ({problem})")
    if tap_problem:
        lines.append(f"the old journal's taps were readable only in part ({tap_problem})")
    with atomic_path(path, suffix=".restoring") as tmp:
        lost, top, carried, dropped = _restored_copy(chosen.path, tmp, newer, taps)
    lines.append(f"carried over {len(newer)} newer event(s) from the old journal" if newer else
                 "no newer events could be carried over from the old journal")
    lines.append(f"carried over {carried} phone tap(s) of those events, so a tap sent again is not done twice"
                 if carried else "no phone taps were carried over from the old journal (the backup's are kept)")
    if dropped:
        lines.append(f"left out {dropped} phone tap(s) of the backup whose event is lost: sent again, such a tap "
                     f"is done again")
    for gap in lost:
        lines.append(f"lost: events {gap['first']} to {gap['last']}")
    lines.append(f"{path} now holds events up to {top}; the board numbers on from its high-water mark")
    return lines
