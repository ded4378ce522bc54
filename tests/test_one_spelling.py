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


def _isinstance_of(node: ast.AST) -> tuple[str, str] | None:
    """``(dump of the value, type name)`` for ``isinstance(value, name)`` or ``not isinstance(...)``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
            and len(node.args) == 2 and isinstance(node.args[1], ast.Name)):
        return ast.dump(node.args[0]), node.args[1].id
    return None


def hand_made_int_checks(text: str) -> list[int]:
    """Lines that check "an int but not a bool" by hand: ``isinstance(v, int)`` and ``isinstance(v, bool)``
    side by side in one ``and``/``or``."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.BoolOp):
            checks = [c for c in map(_isinstance_of, node.values) if c]
            ints = {v for v, kind in checks if kind == "int"}
            if any(v in ints for v, kind in checks if kind == "bool"):
                found.append(node.lineno)
    return sorted(found)


def test_whole_numbers_are_checked_by_strictjson_is_int() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = hand_made_int_checks(text)
        if rel == "strictjson.py":  # where is_int itself is written
            lines = lines[1:]
        found += [f"{rel}:{line}" for line in lines]
    assert not found, f"check 'an int, never a bool' with strictjson.is_int, not by hand: {found}"


def test_the_int_check_finder_finds_both_spellings() -> None:
    text = ("a = isinstance(v, int) and not isinstance(v, bool)\n"
            "b = not isinstance(v, int) or isinstance(v, bool) or v < 0\n"
            "c = isinstance(v, bool) or not isinstance(w, int)\n"
            "d = isinstance(v, int | float) and not isinstance(v, bool)\n")
    assert hand_made_int_checks(text) == [1, 2]
