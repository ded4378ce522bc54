"""Shared fixtures. ``../shared/`` (real captures and the real catalog) is optional: tests that need
it skip with a message naming what is missing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: a property test proves what it checks, not how fast a shared 2-core machine
# ran one example (speed is the benches' business), and a deadline there fails at random under load.
settings.register_profile("kipukas", deadline=None)
settings.load_profile("kipukas")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MAPS = ROOT / "calibration" / "maps"


def shared_path(*parts: str) -> Path:
    """A path in ../shared/, or skip the test saying what was looked for."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is not here (../shared/ holds development data; tests that need it skip)")
    return p


def need_tool(tool: str, package: str) -> str:
    """The path of command ``tool``, or skip the test naming the Debian ``package`` that has it.

    Under ``KIPUKAS_REQUIRE_TOOLS=1`` (set by scripts/run-tests once the test packages are
    installed, as in CI) a missing tool fails the test instead: CI must not pass a check it skipped.
    """
    path = shutil.which(tool)
    if path is None:
        message = f"{tool} is not installed (Debian package {package}; scripts/run-tests installs it as root)"
        if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{message}, and KIPUKAS_REQUIRE_TOOLS=1 says this run must have it")
        pytest.skip(message)
    return path


@pytest.fixture(autouse=True, scope="session")
def _no_real_state(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Commands run without ``--data-dir`` or ``--settings`` (and their subprocesses) use a throwaway
    state directory and no settings file, never the developer's own board or a Pi's service files."""
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("xdg-state"))
    for name in ("STATE_DIRECTORY", "KIPUKAS_SETTINGS", "KIPUKAS_ADMIN_PIN"):
        os.environ.pop(name, None)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    return d


@pytest.fixture
def board(data_dir: Path):
    """A simulated board on ``data_dir``, started, PIN 2468 (a test file may define its own)."""
    from kipukas_board.app import BoardApp
    from kipukas_board.settings import Settings

    b = BoardApp(Settings(), data_dir, sim=True, admin_pin="2468")
    b.start()
    yield b
    b.stop()


@pytest.fixture
def client(board):
    """A Flask test client of ``board``."""
    from kipukas_board.web.server import create_app

    return create_app(board).test_client()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (the Debian package) through Playwright, one per test module.

    Missing Chromium skips the test, or fails it under ``KIPUKAS_REQUIRE_TOOLS=1`` as
    :func:`need_tool` does: CI must not pass a page check it skipped.
    """
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    from web_helpers import CHROMIUM, CHROMIUM_ARGS

    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: install the Debian package chromium (scripts/run-tests does)"
        if os.environ.get("KIPUKAS_REQUIRE_TOOLS") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A phone-sized page (390x844) that fails its test on any JavaScript error.

    ``bypass_csp``: Playwright's ``wait_for_function`` evaluates strings, which the page's CSP forbids;
    it also means an escaping test proves the escaping itself, without the CSP's help.
    """
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
