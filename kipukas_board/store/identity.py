"""Which board a journal belongs to, so another board's journal is never carried on by mistake.

Every board has an identity: a random id made on its first start and a name (the fleet's board id
when it has one, else the machine's host name), kept in ``board-identity.json`` in its data directory.
Its journal is stamped with it (a note beside the events). At every start the two are compared:

- a journal with no stamp (a new one, or one from before stamps) is stamped with this board's identity;
- a data directory with no identity file (a board rebuilt from a backup of its journal alone) takes
  the identity its journal was stamped with;
- a journal stamped by *another* board is refused (:class:`ForeignJournal`), with a message that names
  both boards and the two ways on: move the journal aside, or move the identity file aside so this
  board carries on the other's games.

Before stamps, only the journal's high-water mark could notice a foreign journal, and only when that
journal was shorter than this board's.

Example::

    >>> import tempfile
    >>> from kipukas_board.store.journal import Journal
    >>> d = tempfile.mkdtemp()
    >>> j = Journal.in_dir(d)
    >>> me = claim_journal(j, d, name="table-07")
    >>> me.name, j.note("board")["id"] == me.id
    ('table-07', True)
    >>> j.close()
"""

from __future__ import annotations

import json
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from kipukas_board.store.journal import Journal, JournalError
from kipukas_board.textfile import write_text_atomic

FILENAME = "board-identity.json"
#: The identity file is a few dozen bytes; anything larger is not one.
MAX_FILE = 4096


class ForeignJournal(JournalError):
    """The journal was stamped by another board; the message names both and what to do."""


@dataclass(frozen=True)
class BoardIdentity:
    id: str
    name: str

    def label(self) -> str:
        return f"{self.name!r} (id {self.id})"

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name}

    @classmethod
    def from_json(cls, doc: object) -> BoardIdentity | None:
        if isinstance(doc, dict) and isinstance(doc.get("id"), str) and isinstance(doc.get("name"), str) \
                and 0 < len(doc["id"]) <= 64 and len(doc["name"]) <= 120:
            return cls(doc["id"], doc["name"])
        return None


def _read(path: Path) -> BoardIdentity | None:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(f"{path}: this board's identity cannot be read: {exc.strerror}") from None
    try:
        ident = BoardIdentity.from_json(json.loads(raw.decode("utf-8"))) if len(raw) <= MAX_FILE else None
    except (ValueError, RecursionError):
        ident = None
    if ident is None:
        raise JournalError(f"{path}: this board's identity file is damaged (expected {{\"id\": ..., \"name\": ...}}); "
                           f"move it aside and the board takes the identity its journal was stamped with")
    return ident


def _write(path: Path, ident: BoardIdentity) -> None:
    write_text_atomic(path, json.dumps(ident.to_json()) + "\n")


def claim_journal(journal: Journal, data_dir: str | Path, name: str | None = None) -> BoardIdentity:
    """This board's identity, checked against (or stamped on) ``journal``; see the module docs.

    Raises :class:`ForeignJournal` for a journal another board stamped.
    """
    path = Path(data_dir) / FILENAME
    mine = _read(path)
    stamp = BoardIdentity.from_json(journal.note("board"))
    if mine is None:
        mine = stamp or BoardIdentity(secrets.token_hex(8), name or socket.gethostname() or "kipukas-board")
        _write(path, mine)
    if stamp is None:
        journal.set_note("board", mine.to_json())
    elif stamp.id != mine.id:
        raise ForeignJournal(
            f"{journal.path} belongs to board {stamp.label()}, but this is board {mine.label()} ({path}): "
            f"a journal from another board is not carried on. To play on with this board's own games, move "
            f"that journal aside (and restore this board's: `kipukas-board journal restore`); to carry on the "
            f"other board's games here, move {path} aside and start again (this board then takes its identity)")
    return mine
