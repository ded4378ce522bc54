"""How soon the table's page shows the holders again after a storm and after a win.

Runs real boards (waitress, simulation) and headless Chromium at 390x844; for each run it rolls a
storm, then ends the game with a winner, and times from the action's HTTP request until the page's
passing overlay has ended and territory 1 shows its holder's colour. Prints a table; ``--json`` adds
one JSON object as the last line. Usage::

    .venv/bin/python tests/bench/page_effects_bench.py [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402
from web_helpers import CHROMIUM, CHROMIUM_ARGS, PIN, serve_board  # noqa: E402

HOLDER = "rgb(215, 38, 61)"  # seat 1's colour, territory 1 is its capital
ENDED = ("c => document.getElementById('fx').className === '' && "
         "getComputedStyle(document.querySelector('[data-territory=\"1\"]')).fill === c")
#: (overlay, action body, action): a physical storm roll, then the game ended with seat 1 the winner.
EFFECTS = (("storm", {"phase": "storm"}, "roll-diel"), ("won", {"winner": 1}, "end-game"))
PLAYERS = [{"seat": 1, "name": "Ana", "color": "#d7263d"}, {"seat": 2, "name": "Ben", "color": "#1b98e0"}]


def post(url: str, path: str, body: dict) -> None:
    import urllib.request

    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Admin-Pin": PIN})
    urllib.request.urlopen(req, timeout=10).read()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    times: dict[str, list[float]] = {"storm": [], "won": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(args.runs):
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
            page = ctx.new_page()
            with tempfile.TemporaryDirectory() as tmp, serve_board(pathlib.Path(tmp)) as srv:
                page.goto(srv.url + "/")
                page.wait_for_selector("#link.up")
                post(srv.url, "/api/actions/new-game", {"players": PLAYERS, "first_placer": 1})
                for sid in ("T1", "T8", "T2", "T7", "T5", "T4"):
                    srv.board.sim_set_stand(sid, True)
                for _ in range(2):  # the rest of the fixed opening
                    post(srv.url, "/api/actions/roll-diel", {})
                for kind, body, path in EFFECTS:
                    t0 = time.monotonic()
                    post(srv.url, f"/api/actions/{path}", body)
                    page.wait_for_selector(f"#fx.fx-{kind}", timeout=5000)
                    page.wait_for_function(ENDED, arg=HOLDER, timeout=10000)
                    times[kind].append(time.monotonic() - t0)
            ctx.close()
        browser.close()
    print(f"{'effect':8} {'runs':>4} {'min s':>6} {'max s':>6}")
    for kind, ts in times.items():
        print(f"{kind:8} {len(ts):>4} {min(ts):6.2f} {max(ts):6.2f}")
    if args.json:
        print(json.dumps({k: {"runs": len(v), "min_s": round(min(v), 3), "max_s": round(max(v), 3)}
                          for k, v in times.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
