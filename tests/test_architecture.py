"""The package's shape: no import circles between modules, and the layers of pyproject.toml kept.

``lint-imports`` (run by scripts/run-tests) checks the layer contract; this test adds what a layers
contract cannot see: a circle between two modules of the same package (``rules.state`` importing
``game.playstyles`` inside a function while ``playstyles`` imports ``state``), which still makes the
pair impossible to understand, test or move apart.
"""

from __future__ import annotations

import grimp
import pytest


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
    """Every import, those under ``typing.TYPE_CHECKING`` included, but one kind: a module below
    the assembled board naming :class:`~kipukas_board.app.BoardApp` in a signature only (route plugins
    and the calibration session are handed the board they serve). That import never runs, and the
    board is what they plug into; any other type-only import must follow the layers too."""
    full = grimp.build_graph("kipukas_board", exclude_type_checking_imports=False, cache_dir=None)
    runtime = grimp.build_graph("kipukas_board", exclude_type_checking_imports=True, cache_dir=None)
    for importer in full.find_modules_that_directly_import("kipukas_board.app"):
        if not runtime.direct_import_exists(importer=importer, imported="kipukas_board.app"):
            full.remove_import(importer=importer, imported="kipukas_board.app")
    return full


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
