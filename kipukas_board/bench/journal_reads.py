"""``kipukas-board bench-journal``: the readings of a long journal a Pi makes at a start and in ``journal check``.

:func:`run_journal_bench` writes a generated game (seeded: the same game every run) into a journal
file, its map event first and, every ``say_map_every`` events after it, an event that names "map"
without being one (a player so named), then times each reading, best of ``repeat``, against the
other ways it could be done:

- which map a start loads, :func:`~kipukas_board.store.journal.last_event_of` ``(path, "map")``:
  against SQLite's JSON functions alone, ``LIKE`` then Python's JSON for every row it lets through,
  and the last 200 rows naming "map" (the reading before, which misses a pick further back);
- ``journal check``'s reading of the file, :func:`~kipukas_board.store.backup.inspect`: with every
  number held (the pass over the numbering skipped), then with a hole every 10,000 events; and that
  pass alone against SQLite's ``LAG`` window.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kipukas_board import strictjson
from kipukas_board.board.mapfile import BoardMap
from kipukas_board.modes.kipukas.rules.dice import SeededDice
from kipukas_board.modes.kipukas.rules.simulate import random_game
from kipukas_board.store import backup
from kipukas_board.store.journal import Journal, last_event_of
from kipukas_board.store.read_only import connect_read_only

#: An event whose text says "map" without being one.
NAMED_MAP = {"type": "new_game", "players": [{"seat": 1, "name": "map", "color": "#d7263d"}]}
#: A hole is made at every multiple of this for the second ``journal check`` reading.
HOLE_EVERY = 10_000

Reading = Callable[[Path, str], "tuple[int, dict[str, Any]] | None"]


def _scan(sql: str, with_needle: bool) -> Reading:
    """A reading of the last event of a type that runs ``sql`` (newest first) and takes the first
    row Python's JSON reads as one of that type."""

    def read(path: Path, kind: str) -> tuple[int, dict[str, Any]] | None:
        db = connect_read_only(path, isolation_level=None)
        try:
            args: tuple[str, ...] = (f'%"{kind}"%',) if with_needle else (kind,)
            for seq, text in db.execute(sql, args):
                try:
                    event, _ = strictjson.repair_loads(text)
                except (ValueError, RecursionError):
                    continue
                if isinstance(event, dict) and event.get("type") == kind:
                    return int(seq), event
            return None
        finally:
            db.close()

    return read


#: The readings compared, the one the board uses first.
READINGS: dict[str, Reading] = {
    "LIKE, then SQLite's JSON (the board's)": last_event_of,
    "SQLite's JSON alone": _scan("SELECT seq, event FROM events WHERE CASE WHEN json_valid(event) "
                                 "THEN json_extract(event, '$.type') = ? ELSE 1 END ORDER BY seq DESC", False),
    "LIKE, then Python's JSON for each": _scan("SELECT seq, event FROM events WHERE event LIKE ? "
                                               "ORDER BY seq DESC", True),
    "the last 200 naming it (before)": _scan("SELECT seq, event FROM events WHERE event LIKE ? "
                                             "ORDER BY seq DESC LIMIT 200", True),
}

_LAG = ("SELECT prev + 1, seq - 1 FROM (SELECT seq, LAG(seq, 1, 0) OVER (ORDER BY seq) AS prev FROM events) "
        "WHERE seq > prev + 1")


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The shortest of ``repeat`` runs of ``fn``, in ms, and what it returned."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return round(best * 1000, 2), out


def _write(path: Path, board: BoardMap, events: int, say_map_every: int, seed: int) -> tuple[int, int]:
    """The journal at ``path``: the generated game with ``NAMED_MAP`` every ``say_map_every`` events
    (0: none); returns the number of rows and the journal number of its last map event."""
    Journal(path).close()
    game = random_game(board, events, SeededDice(seed), players=3, play_style="mass_contention")
    rows = [NAMED_MAP if say_map_every and i and i % say_map_every == 0 else e for i, e in enumerate(game)]
    last_map = max(i for i, e in enumerate(rows, start=1) if e.get("type") == "map")
    db = sqlite3.connect(path)
    with db:
        db.executemany("INSERT INTO events (ts, event) VALUES (0, ?)",
                       ((json.dumps(e, sort_keys=True, separators=(",", ":")),) for e in rows))
    db.close()
    return len(rows), last_map


def run_journal_bench(board: BoardMap, events: int, say_map_every: int, seed: int, repeat: int) -> dict[str, Any]:
    """Each reading's best time (ms) and what it found; see the module's docs."""
    with tempfile.TemporaryDirectory(prefix="kipukas-bench-journal-") as tmp:
        path = Path(tmp) / Journal.FILENAME
        n, last_map = _write(path, board, events, say_map_every, seed)
        size = path.stat().st_size
        last_of = []
        for name, read in READINGS.items():
            ms, found = _best(lambda read=read: read(path, "map"), repeat)  # type: ignore[misc]
            seq = found[0] if found else None
            last_of.append({"reading": name, "ms": ms, "found": seq, "right": seq == last_map})
        check = []
        ms, rep = _best(lambda: backup.inspect(path), repeat)
        check.append({"reading": "inspect(), every number held", "ms": ms, "missing": rep.missing_events})
        db = sqlite3.connect(path)
        with db:
            db.execute("DELETE FROM events WHERE seq % ? = 0 AND seq < ?", (HOLE_EVERY, n))
        db.close()
        ms, rep = _best(lambda: backup.inspect(path), repeat)
        check.append({"reading": f"inspect(), a hole every {HOLE_EVERY:,}", "ms": ms, "missing": rep.missing_events})
        ro = connect_read_only(path, isolation_level=None)
        try:
            ms, holes = _best(lambda: list(backup.numbering_holes(ro)), repeat)
            check.append({"reading": "of it: the pass over the numbering (Python, ordered)", "ms": ms,
                          "missing": sum(b - a + 1 for a, b in holes)})
            ms, holes = _best(lambda: [tuple(r) for r in ro.execute(_LAG)], repeat)
            check.append({"reading": "the same pass with SQLite's LAG window", "ms": ms,
                          "missing": sum(b - a + 1 for a, b in holes)})
        finally:
            ro.close()
    return {"events": n, "bytes": size, "say_map_every": say_map_every, "last_map": last_map,
            "last_event_of": last_of, "check": check}
