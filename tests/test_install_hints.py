"""The hints for a missing optional library name a command that works from a checkout: the project is
on no package index, so ``pip install 'kipukas-board[...]'`` would find nothing."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from kipukas_board.install_hints import INSTALLED_BY, extra_hint
from kipukas_board.maker.parts import cad
from kipukas_board.modes import stickers
from kipukas_board.vision.pipeline import Pipeline

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def _installs(extras: str, extra: str) -> bool:
    """Whether installing the checkout with ``extras`` brings ``extra`` (itself, or through the
    ``kipukas-board[...]`` self-references in pyproject.toml)."""
    return extras == extra or f"kipukas-board[{extra}]" in EXTRAS.get(extras, [])


def test_no_hint_sends_anyone_to_a_package_index() -> None:
    said = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "kipukas_board").rglob("*.py"))
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"pip install\s+['\"]?kipukas-board", line)]
    assert said == []


@pytest.mark.parametrize("extra", sorted(INSTALLED_BY))
def test_each_hint_names_an_extra_and_a_script_that_installs_it(extra: str) -> None:
    hint = extra_hint(extra)
    command = re.search(r"\.venv/bin/pip install -e '\.\[(\w+)\]'", hint)
    assert command is not None and command.group(1) == extra, hint
    assert extra in EXTRAS, f"pyproject.toml has no [{extra}] extra"
    script = ROOT / INSTALLED_BY[extra]
    assert INSTALLED_BY[extra] in hint and script.is_file()
    setups = re.findall(r'^ensure_venv "(\w*)"', script.read_text(), re.M)
    assert setups and all(_installs(s, extra) for s in setups), f"{script.name} installs {setups}, not {extra}"


def test_install_pi_installs_the_decoders_the_vision_hint_sends_a_pi_to() -> None:
    assert "requirements vision" in (ROOT / "scripts" / "install-pi").read_text()


def test_the_errors_carry_the_hint(monkeypatch) -> None:
    assert extra_hint("parts") in cad.INSTALL_HINT
    with pytest.raises(RuntimeError, match=re.escape(extra_hint("vision"))):
        Pipeline(decoders={})
    monkeypatch.setitem(sys.modules, "segno", None)  # as if it were not installed
    with pytest.raises(stickers.StickerError, match=re.escape(extra_hint("stickers"))):
        stickers._matrix("cct:fox-1")
    # its submodules too: imported by an earlier test, they would be found in sys.modules without it
    for name in [n for n in sys.modules if n == "reportlab" or n.startswith("reportlab.")] or ["reportlab"]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(stickers.StickerError, match=re.escape(extra_hint("stickers"))):
        stickers._pdf([], "unused.pdf")
