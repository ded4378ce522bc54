#!/usr/bin/env python3
"""The LED power budget for the shipped maps: how many pixels, and how many amps in each case.

    python3 hardware/led_budget.py            # the table in hardware/README.md
    python3 hardware/led_budget.py --json     # the same numbers, one JSON object on the last line

Planning figures for a WS2812B pixel at 5 V (the usual ones; measure yours at bring-up):
20 mA per colour channel at full value (so 60 mA for full white) and 1 mA when dark. Current is
linear in the channel value, so a frame's current is ``1 mA * pixels + 20 mA * sum(values) / 255``.
They are the defaults of ``[leds] ma_per_channel`` and ``idle_ma`` (kipukas_board/show/layout.py).

Layouts: "default" is the foundation's (3 pixels per territory, 1 per stand;
kipukas_board/show/layout.py); "full" is a build with a 12-pixel ring under each territory.
Cases: "dark" (all off), "play" (every territory in one full-value player colour such as
(230, 25, 75), half of the stands holding a token shown white), "white" (everything full white, the
worst case the supply and fuse must survive unless the software power cap is on).

Power feeds: up to 80 pixels one feed at the strip's input is enough; above that the strip gets
power at both ends and every 60 pixels (every metre of 60/m strip) between, each an 18 AWG pair
from the distribution block behind the one 5 A fuse F1 (hardware/README.md, "LED power budget").
``feeds`` counts them; the BOM must hold wire for every feed of the biggest build
(tests/maker/test_hardware_docs.py checks it). The software power cap may be at most ``CAP_MAX_A``:
80 % of the fuse, well inside the 6 A supply.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as ``python3 hardware/led_budget.py``: the package is beside it
    sys.path.insert(0, str(ROOT))

# The figures come from the package, which the board, its settings check and the BOM use too, so the
# table cannot drift from them; the package needs only the standard library to import. feeds(): 1 up
# to 80 pixels, else one every 60 and one at the far end; PIXELS_PER_M: the BOM's strip.
from kipukas_board.hardware import power_chain  # noqa: E402
from kipukas_board.maker.bom import FUSE_A, PIXELS_PER_M, feeds  # noqa: E402, F401
from kipukas_board.maker.bom import PSU_A as SUPPLY_A  # noqa: E402  a closed 5 V 6 A brick
from kipukas_board.show.layout import LedLayout  # noqa: E402

MAPS = ROOT / "calibration" / "maps"
MA_PER_CHANNEL = LedLayout.ma_per_channel
MA_IDLE = LedLayout.idle_ma
PLAYER = (230, 25, 75)
LAYOUTS = {"default": 3, "full": 12}   # pixels per territory; every stand has one pixel
CAP_MAX_A = power_chain.max_budget_ma(FUSE_A) / 1000  # the highest [leds] power_budget_ma to set: 80 % of F1


def pixel_ma(rgb: tuple[int, int, int]) -> float:
    """Current of one pixel showing ``rgb``, in mA."""
    return MA_IDLE + MA_PER_CHANNEL * sum(rgb) / 255


def budget(territories: int, stands: int, per_territory: int) -> dict[str, float]:
    t_px = territories * per_territory
    n = t_px + stands
    occupied = stands // 2
    play = t_px * pixel_ma(PLAYER) + occupied * pixel_ma((255, 255, 255)) + (stands - occupied) * MA_IDLE
    return {"pixels": n, "dark_a": round(n * MA_IDLE / 1000, 2), "play_a": round(play / 1000, 2),
            "white_a": round(n * pixel_ma((255, 255, 255)) / 1000, 2), "feeds": feeds(n)}


def table() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in sorted(MAPS.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        t, s = len(data.get("territories", [])), len(data.get("stands", []))
        for layout, per in LAYOUTS.items():
            rows.append({"map": path.stem, "territories": t, "stands": s, "layout": layout,
                         **budget(t, s, per)})
    return rows


def main(argv: list[str]) -> int:
    rows = table()
    print(f"{'map':<10} {'layout':<8} {'pixels':>6} {'dark A':>7} {'play A':>7} {'white A':>8} {'feeds':>5}  "
          f"full white within the {CAP_MAX_A:g} A cap?")
    for r in rows:
        fits = "yes" if float(r["white_a"]) <= CAP_MAX_A else "no: the cap dims it"  # type: ignore[arg-type]
        print(f"{r['map']:<10} {r['layout']:<8} {r['pixels']:>6} {r['dark_a']:>7} {r['play_a']:>7} "
              f"{r['white_a']:>8} {r['feeds']:>5}  {fits}")
    if "--json" in argv:
        print(json.dumps({"ma_per_channel": MA_PER_CHANNEL, "ma_idle": MA_IDLE, "supply_a": SUPPLY_A,
                          "fuse_a": FUSE_A, "cap_max_a": CAP_MAX_A, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
