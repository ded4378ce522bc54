"""The LEDs follow a real game: /api/leds after events that went through the rules core, and
capitals that read as capitals whatever the segment length."""

from __future__ import annotations

from rules_table import COLORS, Table, play

from kipukas_board.board.mapfile import load_map
from kipukas_board.modes.kipukas import lights as L
from kipukas_board.modes.kipukas.lights import render
from kipukas_board.modes.kipukas.rules.state import Player, TerritoryState, initial_state
from kipukas_board.show.colors import blend, hex_to_rgb
from kipukas_board.show.layout import LedLayout

P1, P2 = hex_to_rgb(COLORS[0]), hex_to_rgb(COLORS[1])
WHITE = (255, 255, 255)


def leds(t: Table) -> dict[int, list[tuple[int, int, int]]]:
    doc = t.client.get("/api/leds").get_json()
    pixels = [tuple(p) for p in doc["pixels"]]
    return {int(n): [pixels[i] for i in px] for n, px in doc["layout"]["territories"].items()}


def test_api_leds_follow_the_game_through_the_core(data_dir) -> None:
    with Table(data_dir) as t:
        play(t)  # seat 1: capital T1, base camps T2, T5; seat 2: capital T8, base camps T7, T4
        lit = leds(t)
        crown1, crown2 = blend(P1, WHITE, 0.5), blend(P2, WHITE, 0.5)
        assert lit[1] == [P1, crown1, P1] and lit[8] == [P2, crown2, P2]  # capitals are crowned
        assert lit[2] == lit[5] == [P1] * 3 and lit[7] == lit[4] == [P2] * 3
        assert lit[3] == lit[6] == [L.UNCLAIMED_DAY] * 3  # day 1: unclaimed glows warm
        t.roll()  # night: held territories dim, unclaimed turn cool
        lit = leds(t)
        assert lit[2] == [tuple(round(c * L.NIGHT_LEVEL) for c in P1)] * 3
        assert lit[3][0][2] > lit[3][0][0]  # blue above red: a cool glow
        t.roll()  # day 3: seat 1 walks into seat 2's T4: contention between the two colours
        t.put("M5b")
        t.move("M5b", "M4a")
        assert t.territory(4)["contention"] is True
        (c,) = set(leds(t)[4])
        assert c not in (L.UNCLAIMED_DAY, (0, 0, 0))
        between = all(min(a, b) - 1 <= x <= max(a, b) + 1 for x, a, b in zip(c, P1, P2, strict=True))
        assert between, f"{c} is not between {P1} and {P2}"


def test_a_one_pixel_capital_differs_from_a_base_camp() -> None:
    board = load_map("kipuka-8")
    lay = LedLayout(territories={n: [n - 1] for n in board.territories})
    terr = dict(initial_state(board).territories)
    terr[1] = TerritoryState(owner=1, claim="capital")
    terr[2] = TerritoryState(owner=1, claim="base_camp")
    s = initial_state(board).evolve(players=(Player(1, "A", "#ff0000"), Player(2, "B", "#0000ff")),
                                    territories=terr, phase="play", started=True, diel_phase="day")
    frame = render(s, lay, 0.0)
    assert frame[1] == (255, 0, 0) and frame[0] != frame[1]
    assert frame[0] == blend((255, 0, 0), WHITE, L.SINGLE_PIXEL_CROWN)
