"""The event journal: every input, appended to SQLite before its effects go out.

The board's state is never stored, only the events; on start the state is rebuilt by replaying them.
SQLite runs in WAL mode with ``synchronous=FULL``, so once :meth:`Journal.append` has returned the
event survives a power cut or ``kill -9``.

An SD card can still lose what SQLite wrote (a flipped bit in the WAL makes SQLite drop that frame and
every later one without a word; a truncated or zeroed file). So the journal also keeps a *high-water
mark*: the number of the last event it acknowledged, in a small file next to the database
(``journal.hwm``), outside anything SQLite may roll back. On open it is compared with the events the
database really holds: a shortfall is recorded as a lost range (``Journal.lost``, shown in the board's
health), and numbering carries on after the mark, so a lost number is never handed out twice.
An integrity check (``PRAGMA quick_check``) runs on open; a damaged file is one :class:`JournalError`
naming the file and the way back (``kipukas-board journal restore``, from the rolling backup of
:mod:`kipukas_board.store.backup`).

A tap from a phone (``X-Tap``, :mod:`kipukas_board.web.taps`) that journals an event is kept in a
small table beside the events, written in the same transaction as the first event it journals, with
its answer once given: a tap sent again after the board restarted is answered from there, never done
twice. A tap that journals nothing is not written at all. The table keeps the
last :data:`TAPS_KEPT` taps; of those kept in this boot of the machine, only the ones of the last
:data:`TAPS_MAX_AGE_S` seconds. The age is measured on the monotonic clock, never the wall clock: a Pi
has no real-time clock, so its wall clock can jump by years when NTP sets it after boot (forgetting
every tap at once) or back (keeping them too long), while the monotonic clock only counts seconds
since boot. A tap kept in another boot (the boot id of the kernel differs) has no age the board can
trust, so it is kept by the count alone; the phone stops sending a tap 20 s after its first sending,
well before a Pi has booted again, so such a tap is hardly ever asked for.

A write that fails (disk full, file system gone read-only) raises :class:`JournalWriteError` with the
reason, and :attr:`Journal.write_error` says so until a write succeeds again (:meth:`Journal.probe`).

Example::

    >>> from kipukas_board.store.journal import Journal
    >>> j = Journal(":memory:")
    >>> j.append({"type": "stand", "stand": "T1", "occupied": True})
    1
    >>> [e for _, e in j.events()]
    [{'occupied': True, 'stand': 'T1', 'type': 'stand'}]
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kipukas_board import strictjson
from kipukas_board.store.read_only import connect_read_only

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    ts    REAL NOT NULL,            -- wall-clock seconds when journaled (for the log, never the rules)
    event TEXT NOT NULL             -- the event as JSON
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS taps (
    ref      TEXT PRIMARY KEY,      -- a phone's tap on a path, hashed (web/taps.py)
    ts       REAL NOT NULL,         -- wall-clock seconds when it was first kept (for people, never its age)
    seq      INTEGER,               -- the first event it journaled, if it journaled one
    status   INTEGER,               -- its answer, once given
    body     BLOB,
    mimetype TEXT,
    boot     TEXT,                  -- the boot of the machine it was kept in (boot_id())
    mono     REAL                   -- monotonic seconds (since that boot) when it was kept
);
"""
#: Columns the taps table gained after it was first shipped, added to an older journal on open.
_TAPS_ADDED = (("boot", "TEXT"), ("mono", "REAL"))

#: Bytes of the high-water mark file: one decimal number, padded, rewritten in place.
HWM_WIDTH = 20
#: The most integrity problems one report lists.
MAX_PROBLEMS = 5
#: Taps kept (a long evening's last minutes at a busy table; web/taps.py remembers as many).
TAPS_KEPT = 256
#: How long a tap is kept within one boot, in seconds on the monotonic clock: far longer than a phone
#: goes on sending it (20 s) across a restart of the board (well under a minute).
TAPS_MAX_AGE_S = 600.0
#: Where Linux names the current boot (a new random id at every boot).
BOOT_ID_PATH = Path("/proc/sys/kernel/random/boot_id")
#: Bytes :meth:`Journal.probe` writes: more than a page, so it needs room a real event could need.
PROBE_BYTES = 8192

_REASONS = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_READONLY": "the file or its file system is read-only",
    "SQLITE_READONLY_DIRECTORY": "the data directory is read-only",
    "SQLITE_IOERR": "the storage reported an input/output error",
    "SQLITE_CANTOPEN": "the file cannot be opened",
    "SQLITE_CORRUPT": "the file is damaged",
    "SQLITE_NOTADB": "the file is not an SQLite database",
    "SQLITE_BUSY": "another program holds the journal",
    "SQLITE_PERM": "permission denied",
}


def sqlite_reason(exc: BaseException) -> str:
    """A plain reason for an SQLite failure, e.g. ``"the disk is full (database or disk is full)"``."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    reason = _REASONS.get(name)
    if reason is None:
        for key, text in _REASONS.items():
            if name.startswith(key):
                reason = text
                break
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return f"{reason} ({exc})" if reason else str(exc)


def boot_id(path: Path = BOOT_ID_PATH) -> str:
    """The id of this boot of the machine, which the monotonic clock counts from; where the kernel
    does not say (not Linux), a new id for this process, so every start counts as a new boot and a
    kept tap's age is never compared across clocks that do not share a start.

    Example::

        >>> boot_id(Path("/nonexistent")).startswith("process-")
        True
    """
    try:
        with open(path, "rb") as f:
            text = f.read(64).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return text if text and text.isprintable() else f"process-{uuid.uuid4().hex}"


class JournalError(RuntimeError):
    """The journal file cannot be opened, is damaged, or is not a kipukas-board journal."""


class JournalWriteError(JournalError):
    """An event could not be written: it was not journaled, so nothing may act on it."""


def restore_hint(path: str | Path) -> str:
    """What to do about a damaged journal, with the range at stake when its high-water mark says."""
    data_dir = Path(path).parent
    at_stake = ""
    try:
        mark = Journal.read_high_water(data_dir / Journal.HWM_FILENAME)
    except JournalError:
        mark = None
    if mark:
        at_stake = f"events 1 to {mark} had been acknowledged ({data_dir / Journal.HWM_FILENAME}); "
    return (f"{at_stake}`kipukas-board journal check --data-dir {data_dir}` shows what is readable and "
            f"`kipukas-board journal restore --data-dir {data_dir}` rebuilds it from the last backup")


#: The events naming a type, newest first, that may be of it: SQLite's own JSON reading settles those it
#: can read (the ``type`` at the top, not one nested in another event); a row it refuses (a NaN, as
#: :func:`~kipukas_board.strictjson.repair_loads` reads, or damage) comes through for Python to judge.
#: ``LIKE`` first, so the JSON of an event that does not even say the type is never parsed.
_LAST_OF = ("SELECT seq, event FROM events WHERE event LIKE ? ESCAPE '\\' "
            "AND CASE WHEN json_valid(event) THEN json_extract(event, '$.type') = ? ELSE 1 END "
            "ORDER BY seq DESC")


def last_event_of(path: str | Path, kind: str) -> tuple[int, dict[str, Any]] | None:
    """The last event of type ``kind`` in the journal file at ``path``, as ``(seq, event)``, or None
    (no such event, no file, or a file that does not read: the board's own open reports that).

    For a decision taken before the board opens its journal (which map it starts on): one query
    through :mod:`~kipukas_board.store.read_only`, which creates and changes nothing beside the file
    (whoever may read the data directory may ask) and reads what a power cut left in the WAL. It goes
    back as far as it must, newest first, stopping at the first event of ``kind``; rows that do not
    parse are passed over.

    Example::

        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / Journal.FILENAME
        >>> last_event_of(p, "map") is None and not p.exists()
        True
        >>> j = Journal(p); _ = j.append({"type": "map", "name": "A", "toml": ""})
        >>> _ = j.append({"type": "stand", "stand": "T1", "occupied": True}); j.close()
        >>> last_event_of(p, "map")
        (1, {'name': 'A', 'toml': '', 'type': 'map'})
    """
    if not Path(path).is_file():
        return None
    needle = "%" + json.dumps(kind).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    try:
        db = connect_read_only(path, isolation_level=None)
        try:
            for seq, text in db.execute(_LAST_OF, (needle, kind)):
                try:
                    event, _repaired = strictjson.repair_loads(text)
                except (ValueError, TypeError, RecursionError):
                    continue
                if isinstance(event, dict) and event.get("type") == kind:
                    return int(seq), event
        finally:
            db.close()
    except sqlite3.Error as exc:
        log.debug("%s: not read before the start (%s)", path, sqlite_reason(exc))
    return None


class Journal:
    """An append-only log of events in one SQLite file (``":memory:"`` for tests).

    Safe to share between threads: writes are serialised by a lock.
    """

    FILENAME = "journal.sqlite"
    HWM_FILENAME = "journal.hwm"

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time, check: bool = True,
                 monotonic: Callable[[], float] = time.monotonic, boot: str | None = None,
                 read_only: bool = False) -> None:
        """``read_only``: for a command that only reads (``export``): the file is opened through
        :mod:`~kipukas_board.store.read_only` and nothing is set, checked against the mark, recorded or
        created, so whoever may read the data directory may run it, and it leaves no file behind."""
        self.path = str(path)
        self._clock = clock
        #: Measures a kept tap's age (see the module's docstring); ``boot`` names the boot it counts from.
        self._monotonic = monotonic
        self.boot = boot if boot is not None else boot_id()
        self._lock = threading.Lock()
        self.memory = self.path == ":memory:"
        #: Why the last write failed (None while writes succeed): the board cannot record.
        self.write_error: str | None = None
        #: Lost ranges found so far, each ``{"first", "last", "found"}`` (seq numbers, wall-clock time).
        self.lost: list[dict[str, Any]] = []
        self._hwm_fd: int | None = None
        #: Things found at open that the board carries on with but must say (an unreadable mark).
        self.problems: list[str] = []
        self._hwm = 0
        self._repaired_seqs: set[int] = set()
        try:
            self._db = (connect_read_only(self.path, check_same_thread=False, isolation_level=None) if read_only
                        else sqlite3.connect(self.path, check_same_thread=False, isolation_level=None))
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: not a usable journal: {sqlite_reason(exc)}") from None
        try:
            if read_only:
                self._open_read_only(check)
            else:
                self._open(check)
        except JournalError:
            self._db.close()
            raise
        except sqlite3.Error as exc:
            self._db.close()
            raise JournalError(f"{self.path}: not a usable journal: {sqlite_reason(exc)}; "
                               f"{restore_hint(self.path)}") from None

    def _open_read_only(self, check: bool) -> None:
        """What :meth:`_open` reads of the file (its integrity, its schema version, the ranges recorded
        as lost), and nothing of what it writes."""
        if check:
            problems = [r[0] for r in self._db.execute(f"PRAGMA quick_check({MAX_PROBLEMS})").fetchall()]
            if problems != ["ok"]:
                raise JournalError(f"{self.path}: the journal is damaged (SQLite's integrity check: "
                                   f"{'; '.join(problems)}); {restore_hint(self.path)}")
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is not None and int(row[0]) != SCHEMA_VERSION:
            raise JournalError(f"{self.path}: journal schema {row[0]}, this version reads {SCHEMA_VERSION}")
        lost = self._db.execute("SELECT value FROM meta WHERE key='lost'").fetchone()
        self.lost = json.loads(lost[0]) if lost else []

    def _open(self, check: bool) -> None:
        mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        self._db.execute("PRAGMA synchronous=FULL")
        if check and not self.memory:
            problems = [r[0] for r in self._db.execute(f"PRAGMA quick_check({MAX_PROBLEMS})").fetchall()]
            if problems != ["ok"]:
                raise JournalError(f"{self.path}: the journal is damaged (SQLite's integrity check: "
                                   f"{'; '.join(problems)}); {restore_hint(self.path)}")
        self._db.executescript(_SCHEMA)
        have = {r[1] for r in self._db.execute("PRAGMA table_info(taps)")}
        for column, kind in _TAPS_ADDED:  # a journal from before the column: its taps have no boot (count only)
            if column not in have:
                self._db.execute(f"ALTER TABLE taps ADD COLUMN {column} {kind}")
        row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if mode.lower() not in ("wal", "memory"):  # some filesystems (network shares) refuse WAL quietly
            raise JournalError(f"{self.path}: the filesystem refused SQLite's WAL mode (journal_mode is {mode!r}); "
                               f"put the data directory on a local disk")
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise JournalError(f"{self.path}: journal schema {row[0]}, this version reads {SCHEMA_VERSION}")
        lost = self._db.execute("SELECT value FROM meta WHERE key='lost'").fetchone()
        self.lost = json.loads(lost[0]) if lost else []
        if not self.memory:
            self._check_high_water()

    # -- the high-water mark ---------------------------------------------------------------------
    @property
    def hwm_path(self) -> Path:
        return Path(self.path).with_name(self.HWM_FILENAME)

    @staticmethod
    def read_high_water(path: Path) -> int | None:
        """The mark in ``path`` (None: no file); raises :class:`JournalError` if it is unreadable."""
        try:
            with open(path, "rb") as f:
                raw = f.read(HWM_WIDTH + 2)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise JournalError(f"{path}: the journal's high-water mark cannot be read: {exc.strerror}") from None
        text = raw.decode("ascii", "replace").strip()
        if not text.isascii() or not text.isdigit():
            raise JournalError(f"{path}: the journal's high-water mark is damaged ({raw[:24]!r}, expected a "
                               f"number)")
        return int(text)

    def _check_high_water(self) -> None:
        """Compare the mark with the events held; record a shortfall as lost and never reuse it."""
        try:
            mark = self.read_high_water(self.hwm_path) or 0
        except JournalError as exc:
            # The journal itself opened sound: carry on, say so, and write a new mark from it.
            self.problems.append(f"{exc}; loss before this start could not be checked")
            log.error("%s", self.problems[-1])
            mark = 0
        last = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        row = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name='events'").fetchone()
        issued = max(last, row[0] if row else 0)
        if mark > issued:
            gap = {"first": issued + 1, "last": mark, "found": self._clock()}
            self.lost.append(gap)
            log.error("%s: events %d to %d were acknowledged (high-water mark in %s) but are not in the "
                      "journal: they are lost; numbering carries on at %d. %s", self.path, gap["first"],
                      gap["last"], self.hwm_path, mark + 1, restore_hint(self.path))
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('lost', ?)", (json.dumps(self.lost),))
                if row is None:
                    self._db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)", (mark,))
                else:
                    self._db.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'events'", (mark,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            issued = mark
        try:
            self._hwm_fd = os.open(self.hwm_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JournalError(f"{self.hwm_path}: cannot write the journal's high-water mark: "
                               f"{exc.strerror}") from None
        os.ftruncate(self._hwm_fd, HWM_WIDTH + 1)  # whatever stood after the mark goes
        self._write_mark(issued, sync=True)

    def _write_mark(self, seq: int, sync: bool = False) -> None:
        if self._hwm_fd is None:
            return
        # One short write in place: no rename, no new blocks, so a full disk cannot refuse it.
        os.pwrite(self._hwm_fd, f"{seq:0{HWM_WIDTH}d}\n".encode(), 0)
        if sync:
            os.fsync(self._hwm_fd)
        self._hwm = seq

    # -- writing ---------------------------------------------------------------------------------
    @classmethod
    def in_dir(cls, data_dir: str | Path) -> Journal:
        """Open (creating if needed) the journal in ``data_dir``."""
        d = Path(data_dir)
        d.mkdir(parents=True, exist_ok=True)
        return cls(d / cls.FILENAME)

    def append(self, event: dict[str, Any], tap: str | None = None) -> int:
        """Write ``event`` durably; returns its sequence number (1, 2, ...). ``tap``: the phone's tap
        that sent it (see :meth:`tap`), kept in the same transaction, so a tap is never found done
        without its event nor its event without it.

        Raises :class:`JournalWriteError` (with the reason) when it could not be written.
        """
        text = strictjson.dumps(event, separators=(",", ":"), sort_keys=True)  # never NaN: pages read it back
        with self._lock:
            now = self._clock()
            try:
                if tap is None:
                    cur = self._db.execute("INSERT INTO events (ts, event) VALUES (?, ?)", (now, text))
                else:
                    self._db.execute("BEGIN IMMEDIATE")
                    try:
                        cur = self._db.execute("INSERT INTO events (ts, event) VALUES (?, ?)", (now, text))
                        # a tap that journals more than one event keeps the first
                        mono = self._monotonic()
                        self._db.execute("INSERT OR IGNORE INTO taps (ref, ts, seq, boot, mono) "
                                         "VALUES (?, ?, ?, ?, ?)", (tap, now, cur.lastrowid, self.boot, mono))
                        self._prune_taps(mono)
                        self._db.execute("COMMIT")
                    except BaseException:  # a failed COMMIT (a full disk) too: nothing of it stays
                        if self._db.in_transaction:
                            with contextlib.suppress(sqlite3.Error):
                                self._db.execute("ROLLBACK")
                        raise
            except sqlite3.Error as exc:
                self.write_error = f"the journal {self.path} cannot be written: {sqlite_reason(exc)}"
                raise JournalWriteError(self.write_error) from None
            seq = int(cur.lastrowid or 0)
            try:
                self._write_mark(seq)
            except OSError as exc:  # the event is durable; only the loss detection is weakened
                self.write_error = f"the journal's high-water mark {self.hwm_path} cannot be written: {exc.strerror}"
                log.error("%s", self.write_error)
            else:
                self.write_error = None
            return seq

    def probe(self) -> bool:
        """Try a write as large as a big event (then take it back); True, and :attr:`write_error`
        cleared, if it went through. A small one could fit in a page already there even on a full disk.
        """
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('probe', ?)", ("x" * PROBE_BYTES,))
                self._db.execute("DELETE FROM meta WHERE key = 'probe'")
                self._db.execute("COMMIT")
                self._write_mark(max(self._hwm, 0))
            except (sqlite3.Error, OSError) as exc:
                if self._db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                self.write_error = f"the journal {self.path} cannot be written: {sqlite_reason(exc)}"
                return False
            self.write_error = None
            return True

    # -- taps ------------------------------------------------------------------------------------
    def tap(self, ref: str) -> tuple[int | None, tuple[int, bytes, str] | None] | None:
        """What was kept of tap ``ref``: ``(seq, answer)``, the first event it journaled (or None) and
        its answer ``(status, body, mimetype)`` (None when the board stopped before answering); None
        for a tap not kept (new, pushed out by newer ones, or kept in this boot more than
        :data:`TAPS_MAX_AGE_S` seconds ago by the monotonic clock)."""
        rows = self._read("SELECT seq, status, body, mimetype FROM taps WHERE ref = ? "
                          "AND NOT (boot IS ? AND mono < ?)",
                          (ref, self.boot, self._monotonic() - TAPS_MAX_AGE_S))
        if not rows:
            return None
        seq, status, body, mimetype = rows[0]
        return seq, (None if status is None else (int(status), bytes(body or b""), str(mimetype or "")))

    def keep_tap_answer(self, ref: str, status: int, body: bytes, mimetype: str) -> None:
        """Keep the answer tap ``ref`` was given beside the event it journaled. A tap that journaled
        no event (a refusal before the rules, a route that changes nothing the journal holds) is not
        written: doing it again after a restart changes nothing, and a guest without the PIN could
        otherwise make the board write to its card for every request. Raises
        :class:`JournalWriteError` when it cannot be written."""
        with self._lock:
            try:  # one statement, its own transaction; it writes nothing when the tap journaled nothing
                self._db.execute("UPDATE taps SET status = ?, body = ?, mimetype = ? WHERE ref = ?",
                                 (status, body, mimetype, ref))
            except sqlite3.Error as exc:
                raise JournalWriteError(f"the journal {self.path} cannot be written: {sqlite_reason(exc)}") from None

    def _prune_taps(self, mono: float) -> None:
        """Inside a write: forget taps kept in this boot more than :data:`TAPS_MAX_AGE_S` seconds ago
        (monotonic ``mono`` is now) and all but the newest :data:`TAPS_KEPT` (the only bound on taps
        of other boots, whose age no clock here can tell)."""
        self._db.execute("DELETE FROM taps WHERE boot IS ? AND mono < ?", (self.boot, mono - TAPS_MAX_AGE_S))
        self._db.execute("DELETE FROM taps WHERE rowid NOT IN (SELECT rowid FROM taps ORDER BY rowid DESC LIMIT ?)",
                         (TAPS_KEPT,))

    def set_note(self, key: str, value: Any) -> None:
        """Keep ``value`` (JSON) under ``key`` beside the events, durably; None deletes it.

        For what the board must remember across a restart that is not an input, such as what undo
        took back and redo may bring again. Raises :class:`JournalWriteError` when it cannot be written.
        """
        with self._lock:
            try:
                if value is None:
                    self._db.execute("DELETE FROM meta WHERE key = ?", (f"note:{key}",))
                else:
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                     (f"note:{key}", json.dumps(value, separators=(",", ":"))))
            except sqlite3.Error as exc:
                raise JournalWriteError(f"the journal {self.path} cannot be written: {sqlite_reason(exc)}") from None

    def note(self, key: str) -> Any:
        """What :meth:`set_note` kept under ``key`` (None if nothing, or if it does not read as JSON)."""
        rows = self._read("SELECT value FROM meta WHERE key = ?", (f"note:{key}",))
        if not rows:
            return None
        try:
            return json.loads(rows[0][0])
        except (ValueError, RecursionError):
            log.error("%s: note %r is not readable JSON; ignored", self.path, key)
            return None

    # -- reading ---------------------------------------------------------------------------------
    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as exc:
                raise JournalError(f"{self.path}: the journal cannot be read: {sqlite_reason(exc)}; "
                                   f"{restore_hint(self.path)}") from None

    def events(self, after: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(seq, event)`` in order, from just after ``after``."""
        for seq, _ts, event in self.rows(after):
            yield seq, event

    def rows(self, after: int = 0, limit: int | None = None) -> Iterator[tuple[int, float, dict[str, Any]]]:
        """``(seq, ts, event)``: the same as :meth:`events` with the time each was journaled; at most
        ``limit`` of them (a reader that pages through a long journal keeps its memory bounded)."""
        for seq, ts, text in self._read("SELECT seq, ts, event FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                                        (after, -1 if limit is None else limit)):
            try:
                event, repaired = strictjson.repair_loads(text)
            except (ValueError, RecursionError):
                raise JournalError(f"{self.path}: event {seq} is not readable JSON; "
                                   f"{restore_hint(self.path)}") from None
            if repaired:
                self._repaired(seq, repaired)
            yield seq, ts, event

    def note_problem(self, text: str) -> None:
        """Name a problem of the journal's contents in its health (``problems``), and log it; for
        what its readers find in stored events (a replay that had to mend one)."""
        log.warning("%s: %s", self.path, text)
        if len(self.problems) < 20:
            self.problems.append(f"{self.path}: {text}")

    def _repaired(self, seq: int, paths: list[str]) -> None:
        """Say (once per event) that stored event ``seq`` held values JSON cannot carry, read as null.

        Such an event was journaled before the board refused NaN, Infinity and numbers out of range;
        read as it stands it would put them in the state and every page would fail to parse it.
        """
        if seq in self._repaired_seqs:
            return
        self._repaired_seqs.add(seq)
        note = (f"{self.path}: event {seq} held {', '.join(paths[:5])} as NaN, Infinity or a number out of range "
                f"(not JSON); read as null")
        log.warning("%s", note)
        if len(self.problems) < 20:
            self.problems.append(note)

    def last_seq(self) -> int:
        return int(self._read("SELECT COALESCE(MAX(seq), 0) FROM events")[0][0])

    def health(self) -> dict[str, Any]:
        """For the board's health: can it record, and has anything been lost?"""
        return {"ok": self.write_error is None, "recording": self.write_error is None,
                "error": self.write_error, "lost": [dict(g) for g in self.lost], "problems": list(self.problems)}

    def backup_to(self, dest: str | Path) -> int:
        """Copy the journal into ``dest`` with SQLite's online backup; returns the last seq copied."""
        with self._lock:
            last = int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
            target = sqlite3.connect(str(dest))
            try:
                self._db.backup(target)
                target.execute("PRAGMA journal_mode=DELETE")
            finally:
                target.close()
        return last

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._hwm_fd is not None:
                with contextlib.suppress(OSError):
                    os.fsync(self._hwm_fd)
                os.close(self._hwm_fd)
                self._hwm_fd = None
