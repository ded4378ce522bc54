"""Every route module sees the board through the protocol it declares, and uses nothing else of it.

A route's ``register(app, board)`` (and every helper it hands ``board`` to) names a protocol built
from the groups of ``kipukas_board/web/served.py``. A member a route uses but its protocol lacks
would still work (the running board has it), so only this check finds it: with ``ast``, every
``board.<name>`` in a function whose ``board`` is such a protocol (and ``self.<attr>.<name>`` where
a class keeps the board), and every call handing ``board`` on, whose callee's protocol must be
covered by the caller's. The app hands every route the whole :class:`ServedBoard`, so each
protocol a route declares must be covered by it too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import kipukas_board
from kipukas_board.web.served import ServedBoard

PACKAGE = Path(kipukas_board.__file__).parent
#: Where the routes live: the web layer and the game modes (their actions, pages and helpers).
ROUTE_DIRS = ("web", "modes")
#: Route plugins outside them (the simulated faults that ``kipukas-board run --sim`` adds).
ROUTE_FILES = ("service.py",)
#: Calls handing ``board`` to something chosen at run time, and the test below that checks them.
DYNAMIC_CALLS = {
    ("kipukas_board.web.server", "register"): "test_every_route_protocol_is_covered_by_the_served_board",
    ("kipukas_board.web.table_actions", "mode.new_game_event"): "test_each_games_new_game_event_fits_the_table_actions",
}


def is_protocol(obj: Any) -> bool:
    return isinstance(obj, type) and bool(getattr(obj, "_is_protocol", False)) and obj is not typing.Protocol


def members(protocol: type) -> set[str]:
    """The attributes, properties and methods ``protocol`` names, its bases' included."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (object, typing.Protocol, typing.Generic) or not is_protocol(cls):
            continue
        names |= set(cls.__dict__.get("__annotations__", {}))
        names |= {n for n in vars(cls) if not n.startswith("_")}
    return names


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def imported_names(tree: ast.Module, module: str) -> dict[str, str]:
    """Every name the module imports anywhere (type-checking and function-local imports too) →
    the dotted path it comes from."""
    out: dict[str, str] = {}
    here = module.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            # a relative import (``from .routes import x``) counts from the module's package
            base = ".".join([*here[: len(here) - node.level], *([node.module] if node.module else [])]) \
                if node.level else node.module or ""
            for alias in node.names:
                out[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                out[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
    return out


def resolve(module: ModuleType, tree: ast.Module, dotted: str) -> Any:
    """The object ``dotted`` names in ``module`` (its namespace first, then any import it makes)."""
    head, *rest = dotted.split(".")
    obj: Any = getattr(module, head, None)
    if obj is None:
        source = imported_names(tree, module.__name__).get(head)
        if source is None:
            return None
        try:
            obj = importlib.import_module(source)
        except ImportError:
            owner, _, name = source.rpartition(".")
            obj = getattr(importlib.import_module(owner), name, None)
    for part in rest:
        obj = getattr(obj, part, None)
    return obj


def board_protocol(fn: Any) -> type | None:
    """The protocol a function (or a class's ``__init__``) declares for its ``board`` parameter."""
    target = fn.__init__ if isinstance(fn, type) else fn
    try:
        param = inspect.signature(target).parameters.get("board")
    except (TypeError, ValueError):
        return None
    if param is None or not isinstance(param.annotation, str):
        return None
    module = importlib.import_module(target.__module__)
    tree = ast.parse(inspect.getsource(module))
    found = resolve(module, tree, param.annotation)
    return found if is_protocol(found) else None


def board_functions(tree: ast.Module) -> list[tuple[ast.FunctionDef, ast.ClassDef | None]]:
    """Top-level functions and methods with a ``board`` parameter."""
    out: list[tuple[ast.FunctionDef, ast.ClassDef | None]] = []
    for node in tree.body:
        fns = [(node, None)] if isinstance(node, ast.FunctionDef) else (
            [(f, node) for f in node.body if isinstance(f, ast.FunctionDef)] if isinstance(node, ast.ClassDef) else [])
        for fn, cls in fns:
            if any(a.arg == "board" for a in fn.args.args + fn.args.kwonlyargs):
                out.append((fn, cls))
    return out


def uses_and_calls(fn: ast.FunctionDef, cls: ast.ClassDef | None) -> tuple[set[str], list[str]]:
    """The board's members ``fn`` uses (its class's too, where it keeps the board as ``self.<attr>``)
    and the callees it hands ``board`` to."""
    kept = {t.attr for node in ast.walk(fn) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name) and node.value.id == "board"
            for t in node.targets if isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name) and t.value.id == "self"}
    scopes: list[ast.AST] = [fn] + ([cls] if cls is not None and kept else [])
    used: set[str] = set()
    calls: list[str] = []
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.Attribute):
                inner = node.value
                direct = scope is fn and isinstance(inner, ast.Name) and inner.id == "board"
                kept_board = (isinstance(inner, ast.Attribute) and inner.attr in kept
                              and isinstance(inner.value, ast.Name) and inner.value.id == "self")
                if direct or kept_board:
                    used.add(node.attr)
            elif isinstance(node, ast.Call) and scope is fn:
                if (isinstance(node.func, ast.Name) and node.func.id == "getattr" and node.args
                        and isinstance(node.args[0], ast.Name) and node.args[0].id == "board"):
                    used.add(ast.unparse(node.args[1]).strip("'\""))
                elif any(isinstance(a, ast.Name) and a.id == "board"
                         for a in [*node.args, *(k.value for k in node.keywords)]):
                    calls.append(ast.unparse(node.func))
    return used, calls


def misuses(path: Path, module: ModuleType) -> tuple[list[str], int]:
    """What ``module`` (at ``path``) uses of the board beyond the protocols it declares, and how
    many functions it checked."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module.__name__
    defines_routes = any(isinstance(n, ast.FunctionDef) and n.name in ("register", "blueprint")
                         for n in tree.body)
    problems: list[str] = []
    checked = 0
    for fn, cls in board_functions(tree):
        where = f"{name}.{cls.name + '.' if cls else ''}{fn.name}"
        param = next(a for a in fn.args.args + fn.args.kwonlyargs if a.arg == "board")
        annotation = ast.unparse(param.annotation) if param.annotation is not None else None
        protocol = resolve(module, tree, annotation) if annotation else None
        if not is_protocol(protocol):
            if defines_routes:
                problems.append(f"{where}: 'board' is {annotation or 'not annotated'}, not a protocol of what it uses")
            continue
        checked += 1
        has = members(protocol)
        used, calls = uses_and_calls(fn, cls)
        for member in sorted(used - has):
            problems.append(f"{where} uses board.{member}, which {protocol.__name__} lacks")
        for callee in calls:
            if (name, callee) in DYNAMIC_CALLS:
                continue
            target = resolve(module, tree, callee)
            if target is None:
                problems.append(f"{where} hands board to {callee}, which this test cannot find; "
                                f"check it and list it in DYNAMIC_CALLS")
                continue
            wanted = board_protocol(target)
            if wanted is None:
                problems.append(f"{where} hands board to {callee}, whose 'board' is not a protocol")
                continue
            for member in sorted(members(wanted) - has):
                problems.append(f"{where} hands board to {callee}, which needs board.{member} "
                                f"({wanted.__name__}); {protocol.__name__} lacks it")
    return problems, checked


def route_files() -> list[Path]:
    return sorted([*(p for d in ROUTE_DIRS for p in (PACKAGE / d).rglob("*.py")), *(PACKAGE / f for f in ROUTE_FILES)])


def test_no_route_uses_a_member_its_protocol_lacks() -> None:
    problems: list[str] = []
    checked = 0
    for path in route_files():
        found, n = misuses(path, importlib.import_module(module_name(path)))
        problems += found
        checked += n
    assert problems == [], "\n".join(problems)
    # the routes the board registers, each mode's and every helper they hand the board to
    assert checked >= 20, f"only {checked} functions checked: is the scan still finding the routes?"


def test_the_check_finds_a_member_the_protocol_lacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A route reaching past its protocol, directly or through a helper, is named."""
    source = textwrap.dedent('''
        from __future__ import annotations
        from typing import Any, Protocol

        from kipukas_board.web.served import Guarded, Table
        from kipukas_board.web.submit import Submitter


        class PinOnly(Guarded, Protocol):
            """Only the PIN."""


        def register(app: Any, board: PinOnly) -> None:
            board.pins.verify("1", "x")
            Submitter(board)
            return board.journal


        def blueprint(board: Any) -> None:
            return None
    ''')
    (tmp_path / "reaching_route.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("reaching_route")
    problems, checked = misuses(tmp_path / "reaching_route.py", module)
    assert checked == 1
    assert "reaching_route.register uses board.journal, which PinOnly lacks" in problems
    assert any("hands board to Submitter, which needs board.submit (Table); PinOnly lacks it" in p
               for p in problems)
    assert "reaching_route.blueprint: 'board' is Any, not a protocol of what it uses" in problems
    assert not any("pins" in p for p in problems)


def declared_protocols() -> list[type]:
    """Every protocol a route module declares or names for its board."""
    found: dict[str, type] = {}
    for path in route_files():
        module = importlib.import_module(module_name(path))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn, _cls in board_functions(tree):
            param = next(a for a in fn.args.args + fn.args.kwonlyargs if a.arg == "board")
            if param.annotation is not None:
                protocol = resolve(module, tree, ast.unparse(param.annotation))
                if is_protocol(protocol):
                    found[f"{protocol.__module__}.{protocol.__qualname__}"] = protocol
    return list(found.values())


def test_every_route_protocol_is_covered_by_the_served_board() -> None:
    """The app hands every route plugin and mode the whole ServedBoard (what BoardApp has, checked in
    tests/test_architecture.py), so each route's protocol must ask no more than it."""
    protocols = declared_protocols()
    assert len(protocols) >= 8
    served = members(ServedBoard)
    for protocol in protocols:
        assert members(protocol) <= served, (protocol.__name__, sorted(members(protocol) - served))


def test_each_games_new_game_event_fits_the_table_actions() -> None:
    """``POST /api/actions/new-game`` hands its board to the chosen mode's ``new_game_event``."""
    from kipukas_board import modes
    from kipukas_board.web.table_actions import TableActionsBoard

    has = members(TableActionsBoard)
    for mode in modes.MODES.values():
        method = type(mode).new_game_event
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
        sources = [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   for a in n.names if a.name == "new_game_event"]
        assert sources, f"{mode.name}'s new_game_event imports no new_game_event: look at it"
        owner, _, fn = sources[0].rpartition(".")
        wanted = board_protocol(getattr(importlib.import_module(owner), fn))
        assert wanted is not None, f"{sources[0]} does not say what it uses of the board"
        assert members(wanted) <= has, (mode.name, sorted(members(wanted) - has))
