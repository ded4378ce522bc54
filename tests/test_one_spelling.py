"""Things the package spells in one place only, checked in its source: the card catalog's file name
(``CATALOG_FILE`` in cards/store.py), the "whole number, never a bool" check
(:func:`kipukas_board.strictjson.is_int`) and the "finite number, never a bool" one
(:func:`kipukas_board.strictjson.is_number`). A second spelling drifts from the first unseen.
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


def _type_names(node: ast.AST) -> frozenset[str] | None:
    """The type names in ``int``, ``int | float`` or ``(int, float)``; None for anything else."""
    if isinstance(node, ast.Name):
        return frozenset({node.id})
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _type_names(node.left), _type_names(node.right)
        return left | right if left is not None and right is not None else None
    if isinstance(node, ast.Tuple):
        parts = [_type_names(e) for e in node.elts]
        return frozenset().union(*parts) if all(p is not None for p in parts) else None
    return None


def _isinstance_of(node: ast.AST) -> tuple[str, frozenset[str]] | None:
    """``(dump of the value, type names)`` for ``isinstance(value, types)`` or ``not isinstance(...)``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
            and len(node.args) == 2):
        kinds = _type_names(node.args[1])
        if kinds is not None:
            return ast.dump(node.args[0]), kinds
    return None


def _hand_made_checks(text: str, kinds: frozenset[str]) -> list[int]:
    """Lines where one ``and``/``or`` checks a value against exactly ``kinds`` and against ``bool``."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.BoolOp):
            checks = [c for c in map(_isinstance_of, node.values) if c]
            values = {v for v, k in checks if k == kinds}
            if any(v in values for v, k in checks if k == {"bool"}):
                found.append(node.lineno)
    return sorted(found)


def hand_made_int_checks(text: str) -> list[int]:
    """Lines that check "an int but not a bool" by hand: ``isinstance(v, int)`` and ``isinstance(v, bool)``
    side by side in one ``and``/``or``."""
    return _hand_made_checks(text, frozenset({"int"}))


def hand_made_number_checks(text: str) -> list[int]:
    """Lines that check "a number but not a bool" by hand: ``isinstance(v, int | float)`` (or
    ``(int, float)``) and ``isinstance(v, bool)`` side by side in one ``and``/``or``."""
    return _hand_made_checks(text, frozenset({"int", "float"}))


def _found_in_package(finder, helper_file: str, helpers: int) -> list[str]:
    """Every line ``finder`` reports in the package, less the first ``helpers`` of ``helper_file``
    (where the helpers themselves are written)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        lines = finder(path.read_text(encoding="utf-8"))
        if rel == helper_file:
            lines = lines[helpers:]
        found += [f"{rel}:{line}" for line in lines]
    return found


def test_whole_numbers_are_checked_by_strictjson_is_int() -> None:
    found = _found_in_package(hand_made_int_checks, "strictjson.py", 1)  # is_int itself
    assert not found, f"check 'an int, never a bool' with strictjson.is_int, not by hand: {found}"


def test_numbers_are_checked_by_strictjson_is_number() -> None:
    found = _found_in_package(hand_made_number_checks, "strictjson.py", 0)
    assert not found, f"check 'a number, never a bool' with strictjson.is_number, not by hand: {found}"


def test_the_int_check_finder_finds_both_spellings() -> None:
    text = ("a = isinstance(v, int) and not isinstance(v, bool)\n"
            "b = not isinstance(v, int) or isinstance(v, bool) or v < 0\n"
            "c = isinstance(v, bool) or not isinstance(w, int)\n"
            "d = isinstance(v, int | float) and not isinstance(v, bool)\n")
    assert hand_made_int_checks(text) == [1, 2]


def test_the_number_check_finder_finds_every_spelling() -> None:
    text = ("a = isinstance(v, int | float) and not isinstance(v, bool)\n"
            "b = isinstance(v, bool) or not isinstance(v, (float, int)) or not 0 <= v <= 1\n"
            "c = not isinstance(v.x, float | int) or isinstance(v.x, bool)\n"
            "d = isinstance(v, bool) or not isinstance(w, int | float)\n"
            "e = isinstance(v, int) and not isinstance(v, bool)\n"
            "f = isinstance(v, int | float | str) and not isinstance(v, bool)\n")
    assert hand_made_number_checks(text) == [1, 2, 3]


def test_keal_means_is_written_as_the_kipukas_web_rules_write_it() -> None:
    """"KEAL means" (the Kipukas web rules write it so, 45 times; the December 2023 rule book once, as
    "Keal means", heading a list): the voice's lines, the log, the captions and the page spell it alike
    (espeak-ng says "KEAL" as the word, not letter by letter). Quotes of a rule book's heading in
    docstrings and comments keep its capitals."""
    import re

    other = re.compile(r"keal means", re.IGNORECASE)
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        rel = path.relative_to(PACKAGE).as_posix()
        if path.suffix == ".py":
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
            docs = _docstrings(tree)
            texts = [(node.lineno, node.value) for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]
        elif path.suffix in (".js", ".html"):
            texts = list(enumerate(path.read_text(encoding="utf-8").splitlines(), 1))
        else:
            continue
        found += [f"{rel}:{line}: {m.group(0)!r}" for line, value in texts for m in other.finditer(value)
                  if m.group(0) != "KEAL means"]
    assert not found, f"write 'KEAL means' as the Kipukas web rules do: {found}"
