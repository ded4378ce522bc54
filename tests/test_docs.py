"""The documentation: it builds without a warning, its HTTP reference lists every route the board
serves, the README stays a front page, and nothing sends a reader outside the repository."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    """Broken internal links, pages in no table of contents and unreadable docstrings all fail here.

    Built with Sphinx's plain ``basic`` theme: none of those depends on the theme, and the site's
    own (furo, which ``scripts/build-docs`` uses) copies the whole navigation tree into each of
    some 270 pages, which took 115 s of a 2-core machine against 46 s for the same checks."""
    pytest.importorskip("sphinx", reason="Sphinx is in the test extra (scripts/run-tests installs it)")
    # autosummary writes a stub per module here; stale ones (a module moved since) would fail the build.
    shutil.rmtree(DOCS / "reference" / "_api", ignore_errors=True)
    run = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html",
                          "-D", "html_theme=basic", "-c", str(DOCS), "-d", str(tmp_path / "doctrees"),
                          str(ROOT), str(tmp_path / "html")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-6000:]
    assert (tmp_path / "html" / "docs" / "reference" / "http-api.html").exists()


def _shape(path: str) -> str:
    """A route's path with every variable part written the same way (``<seat>``, ``<int:seat>`` ...)."""
    return re.sub(r"<[^>]*>", "<*>", path)


def test_the_http_reference_lists_every_route(board) -> None:
    from kipukas_board.web.server import create_app

    app = create_app(board)
    served = {(method, _shape(rule.rule)) for rule in app.url_map.iter_rules()
              for method in rule.methods - {"HEAD", "OPTIONS"}}
    text = (DOCS / "reference" / "http-api.md").read_text()
    listed = {(m, _shape(p)) for m, p in re.findall(r"`(GET|POST|PUT|DELETE|PATCH) (/[^`\s]*)`", text)}
    missing = sorted(f"{m} {p}" for m, p in served - listed)
    assert not missing, f"routes the board serves that docs/reference/http-api.md does not list: {missing}"
    gone = sorted(f"{m} {p}" for m, p in listed - served)
    assert not gone, f"docs/reference/http-api.md lists routes the board does not serve: {gone}"


def test_the_readme_is_a_front_page() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines: the details belong in docs/"
    assert "scripts/run-board" in "\n".join(lines) and "scripts/run-tests" in "\n".join(lines)


def test_the_readmes_links_lead_somewhere() -> None:
    """The README is read on the forge, not in the site: its relative links must name files that exist."""
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)[^)]*\)", text) + re.findall(r'<img src="([^"]+)"', text)
    local = [t for t in targets if not t.startswith(("http://", "https://"))]
    assert local, "the README links no page of the docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_nothing_sends_a_reader_outside_the_repository() -> None:
    """Rule books are cited by name and edition; the project's contracts live in docs/."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    offenders = []
    for name in tracked:
        if name.startswith("tests/") or not name.endswith((".py", ".md", ".toml", ".txt", ".html", ".js", ".sh")):
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "DESIGN.md" in line or "../shared" in line or "shared/seeds" in line:
                offenders.append(f"{name}:{n}: {line.strip()[:100]}")
    assert not offenders, "cite the rule books by name and the docs by page:\n" + "\n".join(offenders)


def _doc_files() -> list[Path]:
    found = [ROOT / "README.md"]
    for folder in ("docs", "hardware", "firmware", "systemd", "calibration"):
        found += [p for p in (ROOT / folder).rglob("*.md") if "_build" not in p.parts and "_api" not in p.parts]
    return found


def _command_lines(text: str) -> list[tuple[int, str]]:
    """Every piece of a page that is code: whole lines inside fenced blocks, else the inline code spans."""
    out, fenced = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        out += [(n, line)] if fenced or line.startswith("    ") else [(n, s) for s in re.findall(r"`([^`]+)`", line)]
    return out


def test_every_command_in_the_docs_exists_with_its_options() -> None:
    """A maker types what the page says: each ``kipukas-board ACTION ... --option`` written in code must
    be one the command's own parser knows (a renamed option fails here, not at the table)."""
    import argparse

    from kipukas_board.cli import build_parser

    def actions(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        return next((a.choices for a in p._actions if isinstance(a, argparse._SubParsersAction)), {})

    root = build_parser()
    wrong, checked = [], 0
    for path in _doc_files():
        for n, code in _command_lines(path.read_text()):
            for m in re.finditer(r"kipukas-board(?![-\w/.\[])((?:[^|;&>#`]|#(?!\s))*)", code):
                words = m.group(1).split()
                parser, said = root, []
                while words and words[0] in actions(parser):
                    parser = actions(parser)[words[0]]
                    said.append(words.pop(0))
                if not said:
                    continue
                checked += 1
                known = {s for a in parser._actions for s in a.option_strings}
                for word in words:
                    for flag in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", word):
                        if flag not in known:
                            wrong.append(f"{path.relative_to(ROOT)}:{n}: kipukas-board {' '.join(said)} has no {flag}")
                if actions(parser) and words and re.fullmatch(r"[a-z][a-z-]+", words[0]):
                    wrong.append(f"{path.relative_to(ROOT)}:{n}: kipukas-board {' '.join(said)} has no action "
                                 f"{words[0]!r} (it has {', '.join(sorted(actions(parser)))})")
    assert checked > 50, f"only {checked} commands found in the docs: is the search still finding them?"
    assert not wrong, "commands in the docs that the command line does not have:\n" + "\n".join(wrong)


def test_every_settings_example_in_the_docs_is_one_the_board_takes(tmp_path: Path) -> None:
    """A settings block copied from a page into settings.toml must start the board: each ```toml block
    with a settings section ([sensors], [leds], [[cameras]] ...) goes through the board's own checks."""
    from kipukas_board.settings import SettingsError, load_settings

    sections = re.compile(r"^\[\[?(board|web|sensors|leds|voice|vision|fleet|cameras)\]\]?\s*(#.*)?$", re.M)
    refused, checked = [], 0
    for path in _doc_files():
        for n, block in enumerate(re.findall(r"^```toml\n(.*?)^```", path.read_text(), re.M | re.S), 1):
            if not sections.search(block):
                continue  # a map, a card file or a calibration file, not settings
            checked += 1
            file = tmp_path / f"{path.stem}-{n}.toml"
            file.write_text(block)
            try:
                load_settings(file)
            except SettingsError as exc:
                refused.append(f"{path.relative_to(ROOT)}, settings block {n}: {exc.problems}")
    assert checked >= 3, f"only {checked} settings blocks found in the docs: is the search still finding them?"
    assert not refused, "settings in the docs that the board refuses:\n" + "\n".join(refused)


def test_every_repository_path_in_the_docs_exists() -> None:
    """Files move: a path written in code in a page (``kipukas_board/show/layout.py``, ``tests/maker/``,
    ``modes/duel/effects.py`` inside the package, ``scripts/flash-pico``) must still name something."""
    tops = ("kipukas_board/", "tests/", "scripts/", "hardware/", "firmware/", "calibration/", "systemd/", "docs/")
    inside = ("board/", "bench/", "calibrate/", "cards/", "fleet/", "maker/", "modes/", "show/", "store/", "table/",
              "vision/", "web/")
    # made by setup.py inside the wheel only (docs/admins/install.md says so)
    built = {"kipukas_board/data/"}
    missing, checked = [], 0
    for path in _doc_files():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for name in re.findall(r"`([^`\s]+)`", line):
                name = name.rstrip(".,:;").split(":")[0]
                if not name.startswith(tops + inside) or name in built or re.search(r"[<*]|\.\.\.|/[A-Z]/", name):
                    continue
                checked += 1
                # a package path may be written from inside the package (hardware/ is both)
                places = [ROOT / name, path.parent / name, ROOT / "kipukas_board" / name]
                if not any(p.exists() for p in places):
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {name}")
    assert checked > 100, f"only {checked} paths found in the docs: is the search still finding them?"
    assert not missing, "paths in the docs that name nothing in the repository:\n" + "\n".join(missing)
