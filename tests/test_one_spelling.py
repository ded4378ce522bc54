"""Things the package spells in one place only, checked in its source: the card catalog's file name
(``CATALOG_FILE`` in cards/store.py) and the "whole number, never a bool" check
(:func:`kipukas_board.strictjson.is_int`). A second spelling drifts from the first unseen.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kipukas_board"


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (they may name the file for a reader)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def literal_spellings(text: str, needle: str) -> list[int]:
    """Lines where a string in the code (not a docstring) holds ``needle``."""
    tree = ast.parse(text)
    docs = _docstrings(tree)
    return sorted(node.lineno for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and needle in node.value and id(node) not in docs)


def test_the_catalog_file_is_named_once() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for line in literal_spellings(path.read_text(encoding="utf-8"), "cards.sqlite"):
            if (rel, line) != ("cards/store.py", _catalog_file_line()):
                found.append(f"{rel}:{line}")
    assert not found, f"spell the catalog's file name as cards.store.CATALOG_FILE, not 'cards.sqlite': {found}"


def _catalog_file_line() -> int:
    text = (PACKAGE / "cards" / "store.py").read_text(encoding="utf-8")
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("CATALOG_FILE = "))


def test_the_literal_finder_finds_a_literal_and_skips_a_docstring() -> None:
    text = '"""Opens cards.sqlite."""\n\ndef f():\n    """cards.sqlite"""\n    return "x/cards.sqlite"\n'
    assert literal_spellings(text, "cards.sqlite") == [5]
