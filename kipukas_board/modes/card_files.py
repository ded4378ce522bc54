"""Importing a card file, from the command line or from the page: one set of checks, one set of messages.

A board knows two kinds of card file: the Kipukas card catalog (the JSON list of the official
snapshot, :mod:`kipukas_board.cards.catalog`) and a game mode's deck (a TOML file whose tables say
which mode it is for: ``[[creature]]`` and ``[[land]]`` for Creature Combat, ``[[card]]`` for the
duel). ``kipukas-board catalog import`` and the page's upload (``POST /api/cards/import``) both go
through :func:`import_card_file`, so a file the command refuses the page refuses in the same words.
Both imports are all-or-nothing.

Example::

    >>> from kipukas_board.cards.catalog import Catalog
    >>> from kipukas_board.cards.mode_catalog import ModeCards
    >>> from kipukas_board.cards.store import CardStore
    >>> store = CardStore(":memory:")
    >>> catalog, decks = Catalog(store), ModeCards(store)
    >>> import_card_file("cards.json", b'[{"code": "RrDC"}]', catalog, decks).summary
    Traceback (most recent call last):
    ...
    kipukas_board.modes.card_files.CardFileRefused: cards.json: catalog not imported, 6 problem(s):
      - record 0 ('RrDC'): field 'slug' is missing
      - record 0 ('RrDC'): field 'title' is missing
      - record 0 ('RrDC'): field 'type' is missing
      - record 0 ('RrDC'): field 'injury_tolerance' is missing
      - record 0 ('RrDC'): field 'movement' is missing
      - record 0 ('RrDC'): field 'keal_means' is missing
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from kipukas_board.cards.catalog import MAX_CATALOG_BYTES, Catalog, CatalogError, parse_catalog
from kipukas_board.cards.mode_catalog import ModeCards

#: Largest TOML card file read (a deck of a few hundred cards is far smaller).
MAX_CARD_FILE = 1024 * 1024
#: Largest file either kind of import reads: the catalog's limit, the larger of the two.
MAX_UPLOAD = max(MAX_CATALOG_BYTES, MAX_CARD_FILE)


class CardFileRefused(ValueError):
    """A card file that was not imported; the message names the file, what was wrong and what was expected."""


@dataclass(frozen=True)
class Imported:
    """What an import put on the board: ``summary`` is the one line the command prints and the page shows."""

    kind: str  # "catalog" or "deck"
    count: int
    summary: str
    notes: list[str] = field(default_factory=list)
    game: str | None = None
    deck: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count, "summary": self.summary, "notes": list(self.notes),
                "game": self.game, "deck": self.deck}


def is_deck_file(name: str) -> bool:
    """A game mode's TOML deck (by its name), rather than the JSON catalog."""
    return name.lower().endswith(".toml")


def read_deck(name: str, data: bytes) -> tuple[Any, Any]:
    """The game mode a TOML deck is for, and the deck checked by that mode; :class:`CardFileRefused`
    saying what is wrong otherwise."""
    from kipukas_board.modes import MODES, mode_for_card_file
    from kipukas_board.modes.base import CardFileError

    if len(data) > MAX_CARD_FILE:
        raise CardFileRefused(f"{name}: larger than {MAX_CARD_FILE} bytes; a card file is one deck")
    try:
        text = data.decode("utf-8")
        tables = set(tomllib.loads(text))
    except UnicodeDecodeError as exc:
        raise CardFileRefused(f"{name}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CardFileRefused(f"{name}: not valid TOML: {exc}") from None
    mode = mode_for_card_file(tables)
    if mode is None:
        kinds = "; ".join(f"{m.title}: {', '.join(f'[[{t}]]' for t in m.card_tables)}" for m in MODES.values()
                          if m.card_tables)
        raise CardFileRefused(f"{name}: not a card file of any game mode (expected {kinds})")
    try:
        return mode, mode.parse_card_file(text, name)
    except CardFileError as exc:
        raise CardFileRefused(str(exc)) from None


def import_deck(name: str, data: bytes, decks: ModeCards) -> Imported:
    """Check a game mode's TOML deck and replace that deck on the board with it."""
    mode, cards = read_deck(name, data)
    records = cards.records()
    try:
        decks.import_deck(mode.name, cards.deck, records, source=name)
    except CatalogError as exc:
        raise CardFileRefused(str(exc)) from None
    if hasattr(cards, "summary"):  # a mode's card file may say what it holds
        held = cards.summary()
    else:
        held = (f"{len(cards.creatures)} creatures (total cost {sum(c['cost'] for c in cards.creatures)}), "
                f"{len(cards.lands)} lands")
    return Imported("deck", len(records), f"imported {mode.title} deck {cards.deck!r} from {name}: {held}",
                    notes=list(cards.warnings), game=mode.name, deck=cards.deck)


def import_catalog(name: str, data: bytes, catalog: Catalog) -> Imported:
    """Check the Kipukas card catalog (JSON) and replace the board's with it."""
    if len(data) > MAX_CATALOG_BYTES:
        raise CardFileRefused(str(CatalogError(name, [f"larger than {MAX_CATALOG_BYTES} bytes"])))
    try:
        n = catalog.import_records(parse_catalog(name, data), source=name)
    except CatalogError as exc:
        raise CardFileRefused(str(exc)) from None
    return Imported("catalog", n, f"imported {n} card{'' if n == 1 else 's'} from {name} into the card catalog",
                    game="kipukas")


def import_card_file(name: str, data: bytes, catalog: Catalog, decks: ModeCards) -> Imported:
    """Import ``data`` (a file called ``name``): a ``.toml`` deck into ``decks``, a ``.json`` catalog into
    ``catalog``; anything else, or a file either check refuses, raises :class:`CardFileRefused`."""
    if is_deck_file(name):
        return import_deck(name, data, decks)
    if name.lower().endswith(".json"):
        return import_catalog(name, data, catalog)
    raise CardFileRefused(f"{name}: not a card file (expected the card catalog, a .json file, or a game mode's "
                          f"deck, a .toml file)")
