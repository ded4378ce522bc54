"""What every game mode's card file shares: one TOML file is one deck, its cards are arrays of tables,
and each card names itself by an ``id`` that its sticker's QR payload carries, so no two cards may
share one. Each mode checks its cards' own fields; this reads the file around them and names every
problem the same way in every mode (``creature 'fox'``, ``cards[3]``, ...).

Example::

    >>> import re
    >>> f = read_deck_file('[[cards]]\\nid = "punch"\\n', "ana.toml", ("cards",), re.compile(r"\\w+"), "duel:")
    >>> f.deck, [(where, card["id"]) for _, where, card in f.cards], f.problems
    ('ana', [("card 'punch'", 'punch')], [])
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.modes.base import CardFileError

#: Longest deck name or text field a card file may hold.
MAX_TEXT = 400
#: What an ``id`` may hold, for the messages (each mode's ``ID_RE`` says it in a pattern).
ID_RULE = "1 to 40 letters, digits, '-', '_' or '.', starting with a letter or digit"


def is_text(v: Any, required: bool = True) -> bool:
    """A text field: a string of at most :data:`MAX_TEXT` characters (not blank, when ``required``)."""
    return isinstance(v, str) and (bool(v.strip()) or not required) and len(v) <= MAX_TEXT


@dataclass
class DeckTables:
    """A card file read as far as every mode reads it: the deck's name, each card table with its
    array's name and a ``where`` for messages, and the problems found so far."""

    deck: str
    cards: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (array, where, table)
    problems: list[str] = field(default_factory=list)


def read_deck_file(text: str, source: str, arrays: tuple[str, ...], id_re: re.Pattern[str], prefix: str,
                   repeat_hint: str = "") -> DeckTables:
    """Parse ``text`` (from ``source``) as a deck with the card arrays ``arrays`` (``("cards",)``).

    Raises :class:`CardFileError` only when the text is not TOML; every other problem is listed in
    the result, so a mode can add its own and report them all at once. Cards whose ``id`` is bad or
    repeated are still returned (their fields are worth checking too); ``prefix`` is the QR payload's
    (``"cct:"``), named when an id repeats, with ``repeat_hint`` after it.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardFileError(source, [f"not valid TOML: {exc}"]) from None
    out = DeckTables(deck=Path(source).stem)
    deck = data.get("deck", out.deck)
    if is_text(deck):
        out.deck = str(deck)
    else:
        out.problems.append(f"'deck' must be the deck's name, got {deck!r:.40}")
    unknown = set(data) - {"deck", *arrays}
    if unknown:
        out.problems.append(f"unknown top-level key(s) {', '.join(sorted(unknown))} "
                            f"(expected deck, {', '.join(f'[[{a}]]' for a in arrays)})")
    seen: dict[str, str] = {}
    for kind in arrays:
        cards = data.get(kind, [])
        if not isinstance(cards, list):
            out.problems.append(f"'{kind}' must be an array of tables ([[{kind}]])")
            continue
        for i, c in enumerate(cards):
            if not isinstance(c, dict):
                out.problems.append(f"{kind}[{i}]: expected a table")
                continue
            cid = c.get("id")
            where = f"{kind[:-1]} {cid!r}" if isinstance(cid, str) else f"{kind}[{i}]"
            if not isinstance(cid, str) or not id_re.fullmatch(cid):
                out.problems.append(f"{where}: field 'id' must be {ID_RULE}, got {cid!r:.40}")
            elif cid in seen:
                out.problems.append(f"{where}: field 'id' is already taken by {seen[cid]} above "
                                    f"(the QR payload {prefix}{cid} must name one card{repeat_hint})")
            else:
                seen[cid] = where
            out.cards.append((kind, where, c))
    return out
