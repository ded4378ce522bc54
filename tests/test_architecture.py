"""The package's shape: no import circles between modules, the layers of pyproject.toml kept, the
assembled board named by nobody below it, and no module reaching into another's private members.

``lint-imports`` (run by scripts/run-tests) checks the layer contract; this test adds what a layers
contract cannot see: a circle between two modules of the same package (``rules.state`` importing
``game.playstyles`` inside a function while ``playstyles`` imports ``state``), which still makes the
pair impossible to understand, test or move apart, counting imports made only for type checking;
and the narrow seams: the parts of the board (calibration, fleet, routes) see the small protocols
they use, never :class:`~kipukas_board.app.BoardApp`.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Protocol

import grimp
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kipukas_board"
#: The modules above the assembled board: they build it, serve it or measure it.
ABOVE_THE_BOARD = ("kipukas_board.__main__", "kipukas_board.cli", "kipukas_board.commands", "kipukas_board.bench",
                   "kipukas_board.service")


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """Every import, those under ``typing.TYPE_CHECKING`` included."""
    return grimp.build_graph("kipukas_board", exclude_type_checking_imports=False, cache_dir=None)


def test_nothing_below_the_board_names_it(graph: grimp.ImportGraph) -> None:
    """The calibration, the fleet and the routes are handed the board as a protocol of what they use
    (calibrate/host.py, fleet/board.py, web/served.py), not even importing it for type checking."""
    importers = graph.find_modules_that_directly_import("kipukas_board.app")
    below = sorted(m for m in importers if not m.startswith(ABOVE_THE_BOARD))
    assert below == [], f"modules below the assembled board import kipukas_board.app: {below}"


#: The layers below the game modes (pyproject.toml's layers contract): what every game shares.
BELOW_THE_GAMES = ("kipukas_board.web", "kipukas_board.calibrate", "kipukas_board.show", "kipukas_board.vision",
                   "kipukas_board.core_loop", "kipukas_board.cards", "kipukas_board.table", "kipukas_board.board",
                   "kipukas_board.store", "kipukas_board.settings", "kipukas_board.sdnotify", "kipukas_board.hardware")


def test_nothing_below_the_games_names_one(graph: grimp.ImportGraph) -> None:
    """The layers contract skips imports made only for type checking; a protocol below the games
    declares what it uses of one (web/served.py's Dice) instead of importing a game's module."""
    games = graph.find_descendants("kipukas_board.modes") | {"kipukas_board.modes"}
    found = sorted(f"{importer} -> {game}" for game in games
                   for importer in graph.find_modules_that_directly_import(game)
                   if importer.startswith(BELOW_THE_GAMES))
    assert found == [], f"modules below the game modes import a game: {found}"


def private_reaches(root: Path) -> list[str]:
    """``obj._name`` (or ``from module import _name``) in one module of ``root`` where ``_name`` is a
    private member only another module defines: a function, class, attribute or module name starting
    with one underscore. ``self._x`` and ``cls._x`` are a class's own; names defined nowhere in the
    package (``sys._getframe``, a namedtuple's ``_replace``) are other libraries' business."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))}

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    defined: dict[Path, set[str]] = {}
    for path, tree in trees.items():
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
        defined[path] = {n for n in names if private(n)}
    anywhere = set().union(*defined.values())
    found = []
    for path, tree in trees.items():
        where = path.relative_to(root.parent)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and private(node.attr):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    continue
                if node.attr in anywhere and node.attr not in defined[path]:
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(root.name):
                found += [f"{where}:{node.lineno}: from {node.module} import {a.name}"
                          for a in node.names if private(a.name)]
    return found


def test_no_module_reaches_into_another_modules_private_members() -> None:
    found = private_reaches(PACKAGE)
    assert found == [], "private members reached from outside their module:\n" + "\n".join(found)


def test_the_private_member_check_finds_a_reach(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("class A:\n    def _sync(self):\n        self._x = 1\n")
    (pkg / "b.py").write_text("from pkg.a import A\n\ndef f(a: A):\n    a._sync()\n    return a._x, a._own\n"
                              "\nclass B:\n    _own = 2\n")
    (pkg / "c.py").write_text("from pkg.a import _helper\n")
    assert private_reaches(pkg) == ["pkg/b.py:4: a._sync", "pkg/b.py:5: a._x", "pkg/c.py:1: from pkg.a import _helper"]


def test_no_module_imports_itself_through_others(graph: grimp.ImportGraph) -> None:
    found = circles(graph)
    described = [" -> ".join(graph.find_shortest_chain(c[0], c[1]) or c) for c in found]
    assert not found, "import circles: " + "; ".join(described)


def test_the_circle_finder_finds_a_circle() -> None:
    g = grimp.ImportGraph()
    for m in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        g.add_module(m)
    g.add_import(importer="pkg.a", imported="pkg.b")
    g.add_import(importer="pkg.b", imported="pkg.a")
    g.add_import(importer="pkg.c", imported="pkg.a")
    assert circles(g) == [["pkg.a", "pkg.b"]]


def test_calibration_and_rules_import_no_web_framework(graph: grimp.ImportGraph) -> None:
    for package in ("kipukas_board.calibrate", "kipukas_board.modes.kipukas.rules", "kipukas_board.board"):
        modules = graph.find_children(package) | {package}
        for module in modules:
            imported = graph.find_modules_directly_imported_by(module)
            assert not any(m.startswith("kipukas_board.web") for m in imported), (module, imported)


def test_the_rules_and_the_core_loop_take_no_dice() -> None:
    """Whoever writes an event rolls its dice into it (a route through the board's dice, the
    simulator through its own); the loop that applies events and every rules core never roll."""
    import inspect

    from kipukas_board import modes
    from kipukas_board.core_loop import CoreLoop
    from kipukas_board.modes.kipukas.rules import core

    for fn in (CoreLoop.__init__, core.apply, modes.apply, *(m.apply for m in modes.MODES.values())):
        assert "dice" not in inspect.signature(fn).parameters, fn
    assert not hasattr(CoreLoop, "dice")


def test_the_board_has_everything_its_parts_protocols_name(board) -> None:
    """The assembled board implements the three protocols its parts see (a member a protocol names
    and the board lacks would fail only when that route or walk runs)."""
    from kipukas_board.calibrate.host import CalibrationHost
    from kipukas_board.fleet.board import FleetHost
    from kipukas_board.web.served import ServedBoard

    for protocol in (CalibrationHost, FleetHost, ServedBoard):
        # ServedBoard is built from the routes' groups (web/served.py): their members count too
        names: set[str] = set()
        for part in protocol.__mro__:
            if getattr(part, "_is_protocol", False) and part is not Protocol:
                names |= set(part.__dict__.get("__annotations__", {}))
                names |= {n for n in vars(part) if not n.startswith("_")}
        missing = sorted(n for n in names if not hasattr(board, n))
        assert missing == [], f"BoardApp lacks {protocol.__name__}'s {missing}"
