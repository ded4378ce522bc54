"""Cards of the other game modes (imported from their TOML card files), beside the Kipukas catalog.

They live in the same SQLite file as the Kipukas catalog (``cards.sqlite`` in the data directory),
in a table of their own keyed by mode and card id, grouped by deck (one card file is one deck). A
deck is replaced whole and all-or-nothing; a card id another deck of the same mode already uses is
refused, because the id is the card's QR payload (``cct:fox-1``) and must name one card.

Example::

    >>> from kipukas_board.cards.store import CardStore
    >>> cards = ModeCards(CardStore(":memory:"))
    >>> cards.import_deck("creature-combat", "ana", [{"id": "fox-1", "kind": "creature"}])
    1
    >>> cards.card("creature-combat", "fox-1")["kind"]
    'creature'
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kipukas_board.cards.catalog import CatalogError, UnknownCard
from kipukas_board.cards.payload import MAX_PAYLOAD, CardPayload
from kipukas_board.cards.store import CardStore

#: ``prefix:id``: a mode card's QR payload.
MODE_PAYLOAD_RE = re.compile(r"(?P<prefix>[a-z]{2,8}):(?P<id>[A-Za-z0-9][A-Za-z0-9_.-]{0,39})")


def parse_mode_payload(text: Any, prefixes: dict[str, str]) -> tuple[str, str] | None:
    """``(mode, id)`` when ``text`` is one of the modes' card payloads (``prefixes``: prefix → mode)."""
    if not isinstance(text, str) or len(text) > MAX_PAYLOAD:
        return None
    m = MODE_PAYLOAD_RE.fullmatch(text)
    if m is None or m["prefix"] not in prefixes:
        return None
    return prefixes[m["prefix"]], m["id"]


def mode_card_payload(text: str) -> CardPayload:
    """A scanned mode card as the scan sessions carry it (the whole payload is its code)."""
    return CardPayload(text=text, code=text)


class ModeCards:
    """The imported mode cards: the ``mode_cards`` table of the board's :class:`~.store.CardStore`."""

    def __init__(self, store: CardStore) -> None:
        self.store = store

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> ModeCards:
        """The decks in ``data_dir``'s card file, on a store of their own (a command, a test)."""
        return cls(CardStore.in_dir(data_dir))

    def close(self) -> None:
        self.store.close()

    def import_deck(self, mode: str, deck: str, records: list[dict[str, Any]], source: str = "card file") -> int:
        """Replace ``deck``'s cards with ``records``; raises ``CatalogError`` naming every id another
        deck of ``mode`` already uses (nothing is changed then)."""
        ids = [r["id"] for r in records]
        with self.store.transaction() as db:
            clash = db.execute(
                f"SELECT id, deck FROM mode_cards WHERE mode = ? AND deck != ? AND id IN ({','.join('?' * len(ids))})",
                (mode, deck, *ids)).fetchall() if ids else []
            if clash:
                raise CatalogError(source, [f"card {cid!r}: id already used by deck {other!r} (each card's id is "
                                            f"its QR payload and must be unique on the board)" for cid, other in clash])
            db.execute("DELETE FROM mode_cards WHERE mode = ? AND deck = ?", (mode, deck))
            db.executemany(
                "INSERT INTO mode_cards (mode, id, deck, kind, data) VALUES (?, ?, ?, ?, ?)",
                [(mode, r["id"], deck, r.get("kind", ""), json.dumps(r, ensure_ascii=False)) for r in records])
        return len(records)

    def card(self, mode: str, cid: str) -> dict[str, Any]:
        row = self.store.one("SELECT data FROM mode_cards WHERE mode = ? AND id = ?", (mode, cid))
        if row is None:
            raise UnknownCard(f"{mode} card {cid!r}")
        return json.loads(row[0])

    def deck(self, mode: str, deck: str) -> list[dict[str, Any]]:
        rows = self.store.all("SELECT data FROM mode_cards WHERE mode = ? AND deck = ? ORDER BY kind, id",
                              (mode, deck))
        return [json.loads(r[0]) for r in rows]

    def cards(self, limit: int) -> list[tuple[str, str, dict[str, Any]]]:
        """The first ``limit`` cards of every mode, as ``(mode, id, record)`` by mode and id."""
        rows = self.store.all("SELECT mode, id, data FROM mode_cards ORDER BY mode, id LIMIT ?", (limit,))
        return [(mode, cid, json.loads(data)) for mode, cid, data in rows]

    def decks(self, mode: str) -> dict[str, dict[str, int]]:
        """``{deck: {"creature": n, "land": m}}`` for every deck of ``mode``."""
        rows = self.store.all("SELECT deck, kind, COUNT(*) FROM mode_cards WHERE mode = ? GROUP BY deck, kind",
                              (mode,))
        out: dict[str, dict[str, int]] = {}
        for deck, kind, n in rows:
            out.setdefault(deck, {})[kind] = n
        return out
