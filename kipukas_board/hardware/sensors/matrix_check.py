"""What the sensor board's wiring check means, position by position: a pure reading of a SELFTEST.

The firmware reports what it read (:class:`~kipukas_board.hardware.sensors.protocol.SelfTest`);
this module says what is wrong, by channel, in words a maker can act on. Two faults show only with
the help of the people at the table, so :func:`diagnose` takes what it knows of the tokens:

- ``expect_open``: channels that must read open (the board is empty, or those stands are): one
  that reads closed is a reed **stuck closed**;
- ``expect_closed``: channels whose token stands on them now: one that reads open (and does not
  conduct backwards) is an **open reed** or a diode missing altogether.

The rest needs nobody: a position that conducts backwards has a **missing or shorted diode** (when
it also reads closed) or a **reversed diode** (when it does not); lines that pull each other low
are **touching** (or joined by a missing diode through closed reeds).

Example::

    >>> from kipukas_board.hardware.sensors.protocol import SelfTest
    >>> t = SelfTest(0, 2, 2, closed=frozenset({0, 3}), reverse=frozenset({3}), rows=frozenset(), cols=frozenset())
    >>> [(f.channel, f.kind) for f in diagnose(t, expect_open={0})]
    [(0, 'stuck-closed'), (3, 'diode-missing')]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kipukas_board.hardware.sensors.protocol import SelfTest, channel_name

#: Every kind of finding, and what to check for it.
ADVICE = {
    "diode-missing": "conducts both ways: its diode is missing or shorted (or the row wire touches the column "
                     "wire there); fit a 1N4148, band towards the row",
    "diode-reversed": "conducts only backwards: its diode is the wrong way round (band towards the column), or "
                      "the row wire touches the column wire; turn the diode round",
    "stuck-closed": "reads closed with no token on it: a reed welded shut or a magnet or steel near it; tap it, "
                    "or replace the reed",
    "open": "stays open under its token: the reed does not close (magnet too far or too weak, cracked glass, a dry "
            "joint) or its diode is missing; check the joint, then the one-reed test (hardware/magnets.md)",
    "rows-touching": "pulled low by another row: two row wires touch, or a missing diode joins them through closed "
                     "reeds",
    "columns-touching": "pulled low by another column: two column wires touch, or a missing diode joins them "
                        "through closed reeds",
}


@dataclass(frozen=True)
class Finding:
    """One wiring fault: ``channel`` (or the row or column number for a line), its kind, in words."""

    kind: str
    channel: int | None
    line: int | None
    text: str

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "channel": self.channel, "line": self.line, "text": self.text}


def diagnose(test: SelfTest, expect_open: Iterable[int] = (), expect_closed: Iterable[int] = ()) -> list[Finding]:
    """Every fault the readings show, positions first (in channel order), then lines."""
    cols = test.ncols
    found: dict[int, str] = {}
    for ch in sorted(test.reverse):
        found[ch] = "diode-missing" if ch in test.closed else "diode-reversed"
    for ch in sorted(set(expect_open) & test.closed):
        found.setdefault(ch, "stuck-closed")
    for ch in sorted(set(expect_closed) - test.closed - test.reverse):
        found.setdefault(ch, "open")
    out = [Finding(kind, ch, None, f"{channel_name(ch, cols)} {ADVICE[kind]}") for ch, kind in sorted(found.items())]
    out += [Finding("rows-touching", None, r, f"row {r} (ROW{r}) {ADVICE['rows-touching']}") for r in sorted(test.rows)]
    out += [Finding("columns-touching", None, c, f"column {c} (COL{c}) {ADVICE['columns-touching']}")
            for c in sorted(test.cols)]
    return out
