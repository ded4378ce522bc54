"""A missing QR decoder is said: in the board's health, in /healthz and by ``scan``, with what to install."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from _qrgen import qr_tile

from kipukas_board.cli import main
from kipukas_board.vision import decoders
from kipukas_board.vision.decoders import DecoderUnavailable, decoder_health

P = "kpks.us/RrDC#0001?DmFz33"


def _no_zbar() -> None:
    raise DecoderUnavailable("pyzbar needs the pyzbar package and the libzbar0 library (libzbar.so.0 not found)")


@pytest.fixture
def without_zbar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(decoders.DECODERS, "pyzbar", _no_zbar)


def test_health_names_the_missing_decoder_and_the_package(without_zbar: None) -> None:
    h = decoder_health()
    assert not h.ok and "pyzbar" not in h.available and "zxing" in h.available
    (line,) = h.lines()
    assert line.startswith("the pyzbar decoder is missing (pyzbar needs")
    assert "apt-get install libzbar0" in line
    assert h.to_json()["missing"] == [{"decoder": "pyzbar", "problem": str(h.missing["pyzbar"]),
                                       "install": decoders.INSTALL["pyzbar"]}]


def test_no_decoder_at_all_is_said_first() -> None:
    h = decoder_health({"zxing": _no_zbar})
    assert h.available == () and h.lines()[0] == "no QR decoder is installed: no card can be read"


def test_every_decoder_has_an_install_hint() -> None:
    assert set(decoders.INSTALL) == set(decoders.DECODERS)


def test_board_health_and_healthz_name_it(without_zbar: None, client) -> None:
    health = client.get("/api/state").get_json()["health"]["decoders"]
    assert health["ok"] is False and [m["decoder"] for m in health["missing"]] == ["pyzbar"]
    assert "libzbar0" in health["note"]
    doc = client.get("/healthz").get_json()
    assert doc["decoders_missing"] == ["pyzbar"] and doc["ok"] is True  # it reads fewer cards, but runs


def test_board_health_with_every_decoder(client) -> None:
    assert client.get("/healthz").get_json()["decoders_missing"] == []


def test_scan_says_which_decoder_is_missing(without_zbar: None, tmp_path: Path, capsys) -> None:
    img = tmp_path / "card.png"
    canvas = np.full((720, 1280, 3), 230, np.uint8)
    tile = qr_tile(P)
    canvas[100:100 + tile.shape[0], 100:100 + tile.shape[1]] = tile
    cv2.imwrite(str(img), canvas)
    rc = main(["scan", str(img), "--json"])
    out = capsys.readouterr()
    assert rc == 0
    assert "the pyzbar decoder is missing" in out.err and "apt-get install libzbar0" in out.err
    doc = json.loads(out.out.strip().splitlines()[-1])
    assert doc["decoders_missing"] == ["pyzbar"] and doc["images"]["card.png"]["codes"] == [P]


def test_scan_without_any_decoder_stops(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    for name in list(decoders.DECODERS):
        monkeypatch.setitem(decoders.DECODERS, name, _no_zbar)
    assert main(["scan", str(tmp_path / "x.png")]) == 1
    assert "no QR decoder is installed" in capsys.readouterr().err


def test_run_board_installs_what_the_scanner_needs() -> None:
    root = Path(__file__).resolve().parents[2]
    script = (root / "scripts" / "run-board").read_text()
    assert 'ensure_venv "vision"' in script  # zxing-cpp, pyzbar, OpenCV with the WeChat reader
    assert 'install_apt "$ROOT/scripts/apt-board-packages.txt"' in script
    packages = (root / "scripts" / "apt-board-packages.txt").read_text().splitlines()
    listed = [line.split("#")[0].strip() for line in packages]
    assert "libzbar0" in listed


def test_the_page_says_a_decoder_is_missing_and_what_to_install(without_zbar: None, browser, tmp_path: Path) -> None:
    import os

    from web_helpers import serve_board

    with serve_board(tmp_path) as srv:
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + "/")
        row = page.locator('#health [data-part="decoders"]')
        row.wait_for(timeout=5000)
        assert "bad" in (row.get_attribute("class") or "")
        summary = row.locator("summary").text_content() or ""
        assert summary.startswith("a card decoder is missing: the pyzbar decoder is missing")
        assert "apt-get install libzbar0" in summary
        row.locator("summary").click()
        row.scroll_into_view_if_needed()
        shots = os.environ.get("KIPUKAS_SCREENSHOTS", str(tmp_path))
        page.screenshot(path=os.path.join(shots, "health-decoder-missing-390x844.png"))
        ctx.close()
        assert errors == []


def test_the_page_says_the_decoders_are_installed(browser, tmp_path: Path) -> None:
    from web_helpers import serve_board

    with serve_board(tmp_path) as srv:
        page = browser.new_page()
        page.goto(srv.url + "/")
        row = page.locator('#health [data-part="decoders"]')
        row.wait_for(timeout=5000)
        assert row.locator("summary").text_content() == "card decoders installed"
        page.close()
