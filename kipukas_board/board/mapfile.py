"""Map files: one kipuka (the 3D terrain map) as a human-editable TOML file.

A map has numbered **territories**, **stands** (square territory stands that hold a capital or base
camp token, round movement stands that hold soul tokens), **paths** between two stands along which
souls move, and **docks** (movement stands where boats launch onto water paths). The format is
documented for map makers in ``calibration/maps/README.md``; a short one::

    name = "Example"

    [[territories]]
    number = 1
    name = "Ember Ridge"      # optional
    geography = "volcanic"   # mountain | forest | plains | volcanic | water
    transit = false          # a transit territory (e.g. water) has only movement stands
    coastline = 2            # coastline units, for the Coastal War play style

    [[stands]]
    id = "T1"
    kind = "territory"       # territory | movement
    territory = 1
    x = 120                  # where the page draws it (any units; the page scales)
    y = 80

    [physical]               # optional: the printed map this file was measured on
    width_mm = 480           # its outline, left to right
    depth_mm = 300           # front to back
    mm_per_unit = 0.5        # a stand's x, y times this is its centre in mm from the top-left corner
                             # (or give a stand its own measured x_mm, y_mm)

    [[paths]]
    a = "T1"
    b = "M1a"
    kind = "land"            # land | water | tunnel

    [[docks]]
    stand = "M3a"

:func:`load_map` reads and checks a file and reports *every* mistake at once, each naming the file,
the entry and the field, so a map maker fixes them in one pass::

    >>> from kipukas_board.board.mapfile import load_map
    >>> board = load_map("kipuka-8")          # a shipped map by name, or a path to a file
    >>> board.stand("T1").territory
    1
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kipukas_board.resources import shipped_dir
from kipukas_board.strictjson import is_int, is_number
from kipukas_board.textfile import TextFileError, read_text

GEOGRAPHIES = ("mountain", "forest", "plains", "volcanic", "water")
STAND_KINDS = ("territory", "movement")
PATH_KINDS = ("land", "water", "tunnel")
MIN_TERRITORIES = 8
MAX_TERRITORIES = 12  # that can be held; transit territories (water) come on top
#: All territories, transit ones included: a random territory is a D20 roll re-rolled until it fits.
MAX_ALL_TERRITORIES = 20
_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
#: The outline a ``[physical]`` section may give, in mm: a tabletop map, not a room or a coin.
MAP_SIZE_MM = (50.0, 3000.0)
#: How many millimetres one page unit may be (``mm_per_unit``), at most.
MAX_MM_PER_UNIT = 100.0

#: The longest territory name a map brought to the board may give, in characters: the page shows it
#: beside the number in a phone's lists and options ("Grey Peaks (4)") and the voice says it, often two
#: in one sentence ("the stand in Ember Ridge towards Fern Hollow"); as long as a player's name.
MAX_TERRITORY_NAME = 40
#: The longest name a map brought to the board may give itself, in characters: the page shows it in the
#: new-game form ("Map: Kipuka of Eight") and in the map picker's options on a phone, the game report's
#: one-line summary ("Mass Contention on Kipuka of Eight.") and the calibration file's ``board`` line;
#: as long as a player's or a territory's name (the shipped maps' longest is 18).
MAX_MAP_NAME = 40
#: The longest description a map brought to the board may give, in characters: ``kipukas-board map
#: list`` prints it on the map's line, and it goes to every phone with the map's drawing in the state
#: the page follows (the page does not show it); two sentences (the shipped maps' longest is 160).
MAX_MAP_DESCRIPTION = 300

#: The folder of maps shipped with the project (in the checkout or the installed package); ``--map NAME`` looks here.
MAPS_DIR = shipped_dir("maps")


@dataclass(frozen=True)
class Territory:
    number: int
    geography: str
    transit: bool = False
    coastline: int = 0
    name: str = ""


@dataclass(frozen=True)
class Stand:
    id: str
    kind: str  # "territory" | "movement"
    territory: int
    x: float
    y: float
    #: The centre measured on the printed map, in mm from its top-left corner (None: not measured).
    x_mm: float | None = None
    y_mm: float | None = None


@dataclass(frozen=True)
class Physical:
    """The printed map a file was measured on: its outline in mm and, when the page's ``x``, ``y``
    were drawn to scale, how many mm one unit is (a stand's own ``x_mm``, ``y_mm`` win over it)."""

    width_mm: float
    depth_mm: float
    mm_per_unit: float | None = None


@dataclass(frozen=True)
class Path_:
    """A path between stands ``a`` and ``b`` (undirected)."""

    a: str
    b: str
    kind: str  # "land" | "water" | "tunnel"


@dataclass
class BoardMap:
    """A checked map. Build one with :func:`load_map` or :func:`parse_map`."""

    name: str
    territories: dict[int, Territory]
    stands: dict[str, Stand]
    paths: list[Path_]
    docks: frozenset[str] = frozenset()
    source: str = ""
    description: str = ""
    source_text: str = ""
    physical: Physical | None = None
    _adjacency: dict[str, list[tuple[str, str]]] = field(default_factory=dict, repr=False)
    #: A short hash of what the page draws and names (see :meth:`drawing_revision`), made once here.
    revision: str = field(init=False, default="", compare=False)
    #: :meth:`to_json` as made for ``revision``: every state sent to the page carries the map.
    _json: tuple[str, dict[str, Any]] | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        adj: dict[str, list[tuple[str, str]]] = {sid: [] for sid in self.stands}
        for p in self.paths:
            adj[p.a].append((p.b, p.kind))
            adj[p.b].append((p.a, p.kind))
        self._adjacency = adj
        self.revision = self.drawing_revision()

    def drawing_revision(self) -> str:
        """12 hex digits that change whenever the drawing does: a stand moved, a territory renamed,
        a path or dock added, the name or description changed. A page open across a board restart on a
        redrawn file of the same name compares it with the one it drew, and draws the map again.
        Comments and the file's layout do not count; nor does ``[physical]``, which the page never shows.

        Example::

            >>> from kipukas_board.board.mapfile import load_map
            >>> a, b = load_map("kipuka-8"), load_map("kipuka-8")
            >>> a.revision == b.revision and len(a.revision)
            12
            >>> b.stands["T1"] = Stand("T1", "territory", 1, b.stands["T1"].x + 5, b.stands["T1"].y)
            >>> b.drawing_revision() == a.revision
            False
        """
        drawn = [
            self.name, self.description,
            sorted((t.number, t.name, t.geography, t.transit, t.coastline) for t in self.territories.values()),
            [(s.id, s.kind, s.territory, s.x, s.y) for s in self.stands.values()],
            [(p.a, p.b, p.kind) for p in self.paths],
            sorted(self.docks),
        ]
        return hashlib.sha256(json.dumps(drawn, ensure_ascii=False).encode()).hexdigest()[:12]

    # -- lookups ---------------------------------------------------------------------------------
    def stand(self, stand_id: str) -> Stand:
        return self.stands[stand_id]

    def territory_stand(self, number: int) -> Stand | None:
        """The square stand of territory ``number`` (None for a transit territory)."""
        for s in self.stands.values():
            if s.territory == number and s.kind == "territory":
                return s
        return None

    def stands_in(self, number: int) -> list[Stand]:
        return [s for s in self.stands.values() if s.territory == number]

    def edges(self, stand_id: str) -> list[tuple[str, str]]:
        """``(neighbour, path kind)`` for every path touching ``stand_id``."""
        return self._adjacency[stand_id]

    def position_mm(self, stand_id: str) -> tuple[float, float] | None:
        """Where a stand's centre is on the printed map, in mm from its top-left corner: the
        measured ``x_mm``, ``y_mm``, else ``x``, ``y`` scaled by ``[physical] mm_per_unit``; None for
        a map without a ``[physical]`` section. The checker made sure every stand has one when the
        map has that section."""
        s = self.stands[stand_id]
        if self.physical is None:
            return None
        if s.x_mm is not None and s.y_mm is not None:
            return (s.x_mm, s.y_mm)
        if self.physical.mm_per_unit is None:
            return None
        return (s.x * self.physical.mm_per_unit, s.y * self.physical.mm_per_unit)

    @property
    def highest_territory(self) -> int:
        return max(self.territories)

    def structure(self) -> tuple[Any, ...]:
        """What the rules see of the map: territories, stands, paths and docks, without the drawing
        (positions, names, description). Two maps with the same structure play the same game."""
        return (
            tuple(sorted((t.number, t.geography, t.transit, t.coastline) for t in self.territories.values())),
            tuple(sorted((st.id, st.kind, st.territory) for st in self.stands.values())),
            tuple(sorted((*sorted((p.a, p.b)), p.kind) for p in self.paths)),
            tuple(sorted(self.docks)),
        )

    @property
    def holdable(self) -> list[int]:
        """Territories a player can hold: those with a territory stand (not transit), in order."""
        return sorted(n for n, t in self.territories.items() if not t.transit)

    def to_json(self) -> dict[str, Any]:
        """The map as the page and ``GET /api/state`` show it (each stand with its ``place`` in words).

        Made once per :attr:`revision` (everything here is part of the drawing the revision hashes),
        since every state sent to the page carries it: the outer dict is the caller's own, the lists
        inside are shared and must not be changed.

        Example::

            >>> m = load_map("kipuka-8")
            >>> m.to_json()["revision"] == m.revision, m.to_json() is m.to_json()
            (True, False)
        """
        if self._json is None or self._json[0] != self.revision:
            self._json = (self.revision, self._drawing_json())
        return dict(self._json[1])

    def _drawing_json(self) -> dict[str, Any]:
        from kipukas_board.board.places import place_names

        places = place_names(self)
        return {
            "name": self.name,
            "revision": self.revision,
            "description": self.description,
            "territories": [
                {"number": t.number, "name": t.name, "geography": t.geography,
                 "transit": t.transit, "coastline": t.coastline}
                for t in sorted(self.territories.values(), key=lambda t: t.number)
            ],
            "stands": [
                {"id": s.id, "kind": s.kind, "territory": s.territory, "x": s.x, "y": s.y,
                 "dock": s.id in self.docks, "place": places[s.id]}
                for s in self.stands.values()
            ],
            "paths": [{"a": p.a, "b": p.b, "kind": p.kind} for p in self.paths],
            "docks": sorted(self.docks),
        }


class MapError(ValueError):
    """A map file with mistakes. ``problems`` holds one line per mistake, each naming the file,
    the entry and the field."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(self.report())

    def report(self) -> str:
        n = len(self.problems)
        head = f"{self.source}: {n} problem{'s' if n != 1 else ''} in the map file:"
        return "\n".join([head, *(f"  - {p}" for p in self.problems)])


def resolve_map_path(name_or_path: str) -> Path:
    """``kipuka-8`` → ``calibration/maps/kipuka-8.toml``; anything with a slash or ``.toml`` is a path."""
    if "/" in name_or_path or name_or_path.endswith(".toml") or Path(name_or_path).exists():
        return Path(name_or_path)
    return MAPS_DIR / f"{name_or_path}.toml"


def available_maps() -> list[str]:
    return sorted(p.stem for p in MAPS_DIR.glob("*.toml"))


def map_exists(name_or_path: str) -> bool:
    """Whether :func:`load_map` would find a file for ``name_or_path`` (a shipped name or a path)."""
    return resolve_map_path(name_or_path).is_file()


def load_map(name_or_path: str | Path, *, new: bool = True) -> BoardMap:
    """Read and check a map file by name or path. Raises :class:`MapError` listing every problem.
    ``new=False`` leaves out the limits of :func:`new_map_problems` (see :func:`parse_map`)."""
    path = resolve_map_path(str(name_or_path))
    if not path.exists():
        raise MapError(str(path), [
            f"no such map file; shipped maps are: {', '.join(available_maps()) or '(none)'}"
        ])
    try:
        text = read_text(path)
    except TextFileError as exc:
        raise MapError(str(path), [f"cannot read the file: {exc.reason}"]) from None
    return parse_map(text, source=str(path), new=new)


def parse_map(text: str, source: str = "<map>", *, new: bool = True) -> BoardMap:
    """Check map TOML ``text``; ``source`` names it in error messages.

    ``new``: the map is coming to the board (a file read to be played, ``kipukas-board map check``),
    so the limits added after maps were first journaled apply too (:func:`new_map_problems`). A map
    read back from the journal passes ``new=False``: it was taken when it came, and a board that
    played on it must replay it as it was, not lose its game to a newer limit."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MapError(source, [f"not valid TOML: {exc}"]) from None
    except RecursionError:
        raise MapError(source, ["nested too deeply to be a map"]) from None
    return _Checker(source, data, text, new).check()


def new_map_problems(territories: dict[int, Territory], name: str = "", description: str = "") -> list[str]:
    """What keeps a map from coming to the board that a journaled one may still hold: a territory
    name longer than :data:`MAX_TERRITORY_NAME` characters, which a phone's lists and the voice
    cannot carry, a map ``name`` longer than :data:`MAX_MAP_NAME` or a ``description`` longer than
    :data:`MAX_MAP_DESCRIPTION` (text is data: quoted in part, never whole).

    Example::

        >>> new_map_problems({4: Territory(4, "plains", False, 0, "x" * 41)})[0].split(":")[0]
        'territory 4'
        >>> new_map_problems({}, name="y" * 41)[0][:44]
        "top level: field 'name' is 41 characters ('y"
    """
    problems = [f"territory {n}: field 'name' is {len(t.name)} characters ({t.name[:MAX_TERRITORY_NAME]!r}...); "
                f"a territory's name may be at most {MAX_TERRITORY_NAME} characters (the page shows it beside the "
                f"number and the voice says it); shorten it"
                for n, t in sorted(territories.items()) if len(t.name) > MAX_TERRITORY_NAME]
    if len(name) > MAX_MAP_NAME:
        problems.append(f"top level: field 'name' is {len(name)} characters ({name[:MAX_MAP_NAME]!r}...); a map's "
                        f"name may be at most {MAX_MAP_NAME} characters (the page shows it in the map picker and "
                        f"the game report's summary); shorten it")
    if len(description) > MAX_MAP_DESCRIPTION:
        problems.append(f"top level: field 'description' is {len(description)} characters "
                        f"({description[:40]!r}...); a map's description may be at most {MAX_MAP_DESCRIPTION} "
                        f"characters (a line or two: 'kipukas-board map list' prints it, every phone gets it "
                        f"with the map); shorten it")
    return problems


class _Checker:
    """Collects every problem in a parsed map instead of stopping at the first."""

    TOP_KEYS = {"name", "description", "territories", "stands", "paths", "docks", "physical"}
    TERRITORY_KEYS = {"number", "name", "geography", "transit", "coastline"}
    STAND_KEYS = {"id", "kind", "territory", "x", "y", "x_mm", "y_mm"}
    PHYSICAL_KEYS = {"width_mm", "depth_mm", "mm_per_unit"}
    PATH_KEYS = {"a", "b", "kind"}
    DOCK_KEYS = {"stand"}

    def __init__(self, source: str, data: dict[str, Any], text: str = "", new: bool = True) -> None:
        self.source = source
        self.new = new
        self.text = text
        self.data = data
        self.problems: list[str] = []

    def bad(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def _table_list(self, key: str) -> list[Any]:
        value = self.data.get(key, [])
        if not isinstance(value, list):
            self.bad(key, f"must be an array of tables ([[{key}]]), got {type(value).__name__}")
            return []
        return value

    def _unknown_keys(self, where: str, entry: dict[str, Any], allowed: set[str]) -> None:
        for k in entry:
            if k not in allowed:
                self.bad(where, f"unknown field {k!r}; expected one of {', '.join(sorted(allowed))}")

    def check(self) -> BoardMap:
        d = self.data
        for k in d:
            if k not in self.TOP_KEYS:
                self.bad("top level", f"unknown key {k!r}; expected one of {', '.join(sorted(self.TOP_KEYS))}")
        name = d.get("name")
        if not isinstance(name, str) or not name.strip():
            self.bad("top level", "field 'name' must be a non-empty string (the map's name)")
            name = Path(self.source).stem
        territories = self._territories()
        description = d.get("description", "")
        if self.new and not isinstance(description, str):
            self.bad("top level", f"field 'description' must be text (a line or two about the map), got "
                                  f"{type(description).__name__}")
        if self.new:
            self.problems += new_map_problems(territories, name, description if isinstance(description, str) else "")
        stands = self._stands(territories)
        paths = self._paths(stands)
        docks = self._docks(stands, paths, territories)
        self._structure(territories, stands, paths)
        physical = self._physical(stands)
        if self.problems:
            raise MapError(self.source, self.problems)
        return BoardMap(name=name, territories=territories, stands=stands, paths=paths,
                        docks=frozenset(docks), source=self.source,
                        description=str(description), source_text=self.text,
                        physical=physical)

    def _mm(self, where: str, entry: dict[str, Any], key: str, low: float, high: float) -> float | None:
        """A length in mm from ``entry[key]``: a finite number from ``low`` to ``high`` (reported if not)."""
        v = entry.get(key)
        if v is None:
            return None
        if not is_number(v) or not low <= v <= high:
            self.bad(where, f"field {key!r} must be a number of millimetres from {low:g} to {high:g}, got {v!r}")
            return None
        return float(v)

    def _physical(self, stands: dict[str, Stand]) -> Physical | None:
        """The optional ``[physical]`` section, and every stand's measured position inside it."""
        measured = sorted(sid for sid, s in stands.items() if s.x_mm is not None)
        raw = self.data.get("physical")
        if raw is None:
            if measured:
                self.bad("top level", f"stands {', '.join(measured[:5])} have x_mm, y_mm but the map has no "
                                      "[physical] section; add one with width_mm and depth_mm (the printed map's "
                                      "outline)")
            return None
        where = "physical"
        if not isinstance(raw, dict):
            self.bad(where, "must be a table ([physical]) with width_mm, depth_mm and optionally mm_per_unit")
            return None
        self._unknown_keys(where, raw, self.PHYSICAL_KEYS)
        low, high = MAP_SIZE_MM
        width = self._mm(where, raw, "width_mm", low, high)
        depth = self._mm(where, raw, "depth_mm", low, high)
        for key, v in (("width_mm", width), ("depth_mm", depth)):
            if v is None and key not in raw:
                self.bad(where, f"field {key!r} is missing: the printed map's outline in mm")
        scale = None
        if "mm_per_unit" in raw:
            v = raw["mm_per_unit"]
            if not is_number(v) or not 0 < v <= MAX_MM_PER_UNIT:
                self.bad(where, f"field 'mm_per_unit' must be a number above 0 and at most {MAX_MM_PER_UNIT:g} "
                                f"(millimetres per page unit), got {v!r}")
            else:
                scale = float(v)
        if width is None or depth is None:
            return None
        physical = Physical(width, depth, scale)
        unplaced = []
        for sid, s in stands.items():
            if s.x_mm is not None and s.y_mm is not None:
                x, y = s.x_mm, s.y_mm
            elif scale is not None:
                x, y = s.x * scale, s.y * scale
            else:
                unplaced.append(sid)
                continue
            if not (0 <= x <= width and 0 <= y <= depth):
                self.bad(f"stand {sid!r}", f"is at ({x:g}, {y:g}) mm, outside the map's {width:g} x {depth:g} mm "
                                           "outline (x from the left edge, y from the top edge)")
        if unplaced:
            self.bad(where, f"stands {', '.join(unplaced[:5])}{' ...' if len(unplaced) > 5 else ''} have no "
                            "position in mm: give each x_mm and y_mm, or give [physical] an mm_per_unit")
        return physical

    # -- entries ---------------------------------------------------------------------------------
    def _territories(self) -> dict[int, Territory]:
        out: dict[int, Territory] = {}
        for i, t in enumerate(self._table_list("territories")):
            where = f"territories[{i}]"
            if not isinstance(t, dict):
                self.bad(where, "must be a table")
                continue
            num = t.get("number")
            if is_int(num):
                where = f"territories[{i}] (number {num})"
            self._unknown_keys(where, t, self.TERRITORY_KEYS)
            # Only the number decides whether the entry counts: a territory with a wrong geography
            # is still territory N, so stands in it are not reported again.
            ok = True
            if not is_int(num) or num < 1:
                self.bad(where, f"field 'number' must be a whole number from 1 up, got {num!r}")
                ok = False
            elif num in out:
                self.bad(where, f"field 'number': duplicate territory number {num}")
                ok = False
            geo = t.get("geography")
            if geo not in GEOGRAPHIES:
                self.bad(where, f"field 'geography' is {geo!r}; expected one of {', '.join(GEOGRAPHIES)}")
                geo = "plains"
            transit = t.get("transit", False)
            if not isinstance(transit, bool):
                self.bad(where, f"field 'transit' must be true or false, got {transit!r}")
                transit = False
            coast = t.get("coastline", 0)
            if not is_int(coast) or coast < 0:
                self.bad(where, f"field 'coastline' must be a whole number from 0 up, got {coast!r}")
                coast = 0
            tname = t.get("name", "")
            if not isinstance(tname, str):
                self.bad(where, f"field 'name' must be a string, got {tname!r}")
                tname = ""
            tname = " ".join(tname.split())  # as it is said and shown: blanks alone are no name
            if ok:
                out[num] = Territory(num, geo, transit, coast, tname)
        numbers = sorted(out)
        if numbers:
            missing = [n for n in range(1, numbers[-1] + 1) if n not in out]
            if missing:
                self.bad("territories", f"numbering has gaps: no territory {', '.join(map(str, missing))} "
                                        f"(territories are numbered 1 to N without gaps)")
        count = sum(1 for t in out.values() if not t.transit)
        if not MIN_TERRITORIES <= count <= MAX_TERRITORIES:
            self.bad("territories", f"a kipuka has {MIN_TERRITORIES} to {MAX_TERRITORIES} territories that can be "
                                    f"held (transit territories come on top), this map has {count}")
        if len(out) > MAX_ALL_TERRITORIES:
            self.bad("territories", f"a kipuka has at most {MAX_ALL_TERRITORIES} territories in all (a D20 picks a "
                                    f"random one), this map has {len(out)}")
        return out

    def _stands(self, territories: dict[int, Territory]) -> dict[str, Stand]:
        out: dict[str, Stand] = {}
        for i, s in enumerate(self._table_list("stands")):
            where = f"stands[{i}]"
            if not isinstance(s, dict):
                self.bad(where, "must be a table")
                continue
            sid = s.get("id")
            if isinstance(sid, str):
                where = f"stands[{i}] (id {sid!r})"
            self._unknown_keys(where, s, self.STAND_KEYS)
            # As for territories, only the id decides whether the entry counts (paths to it resolve).
            ok = True
            if not isinstance(sid, str) or not _ID_RE.match(sid):
                self.bad(where, f"field 'id' must be 1-16 letters, digits, '-' or '_', got {sid!r}")
                ok = False
            elif sid in out:
                self.bad(where, f"field 'id': duplicate stand id {sid!r}")
                ok = False
            kind = s.get("kind")
            if kind not in STAND_KINDS:
                self.bad(where, f"field 'kind' is {kind!r}; expected one of {', '.join(STAND_KINDS)}")
                kind = "movement"
            terr = s.get("territory")
            if not is_int(terr):
                self.bad(where, f"field 'territory' must be a territory number, got {terr!r}")
                terr = 0
            elif terr not in territories:
                self.bad(where, f"field 'territory': there is no territory {terr}")
                terr = 0
            elif kind == "territory" and territories[terr].transit:
                self.bad(where, f"field 'kind': territory {terr} is a transit territory, "
                                "which has only movement stands")
            xy = []
            for axis in ("x", "y"):
                v = s.get(axis)
                if not is_number(v):
                    self.bad(where, f"field {axis!r} must be a number (where the page draws the stand), got {v!r}")
                    v = 0.0
                xy.append(float(v))
            low, high = 0.0, MAP_SIZE_MM[1]
            x_mm = self._mm(where, s, "x_mm", low, high)
            y_mm = self._mm(where, s, "y_mm", low, high)
            if ("x_mm" in s) != ("y_mm" in s):
                self.bad(where, "give both x_mm and y_mm (the stand's centre measured on the printed map) or neither")
            if x_mm is None or y_mm is None:
                x_mm = y_mm = None
            if ok:
                out[sid] = Stand(sid, kind, terr, xy[0], xy[1], x_mm, y_mm)
        return out

    def _paths(self, stands: dict[str, Stand]) -> list[Path_]:
        out: list[Path_] = []
        seen: set[frozenset[str]] = set()
        for i, p in enumerate(self._table_list("paths")):
            where = f"paths[{i}]"
            if not isinstance(p, dict):
                self.bad(where, "must be a table")
                continue
            a, b = p.get("a"), p.get("b")
            where = f"paths[{i}] ({a!r} to {b!r})"
            self._unknown_keys(where, p, self.PATH_KEYS)
            ok = True
            for end, v in (("a", a), ("b", b)):
                if not isinstance(v, str):
                    self.bad(where, f"field {end!r} must be a stand id, got {v!r}")
                    ok = False
                elif v not in stands:
                    self.bad(where, f"field {end!r}: path to unknown stand {v!r}")
                    ok = False
            kind = p.get("kind", "land")
            if kind not in PATH_KINDS:
                self.bad(where, f"field 'kind' is {kind!r}; expected one of {', '.join(PATH_KINDS)}")
                ok = False
            if ok and a == b:
                self.bad(where, f"a path from stand {a!r} to itself")
                ok = False
            if ok:
                key = frozenset((a, b))
                if key in seen:
                    self.bad(where, f"duplicate path between {a!r} and {b!r}")
                    continue
                seen.add(key)
                out.append(Path_(a, b, kind))
        return out

    def _docks(self, stands: dict[str, Stand], paths: list[Path_],
               territories: dict[int, Territory]) -> set[str]:
        out: set[str] = set()
        for i, dk in enumerate(self._table_list("docks")):
            where = f"docks[{i}]"
            if not isinstance(dk, dict):
                self.bad(where, "must be a table")
                continue
            sid = dk.get("stand")
            where = f"docks[{i}] (stand {sid!r})"
            self._unknown_keys(where, dk, self.DOCK_KEYS)
            if not isinstance(sid, str) or sid not in stands:
                self.bad(where, f"field 'stand': dock at unknown stand {sid!r}")
                continue
            if sid in out:
                self.bad(where, f"duplicate dock at {sid!r}")
                continue
            if stands[sid].kind != "movement":
                self.bad(where, f"field 'stand': {sid!r} is a territory stand; docks are movement stands")
                continue
            if not any(p.kind == "water" and sid in (p.a, p.b) for p in paths):
                self.bad(where, f"dock {sid!r} has no water path to launch onto")
            out.add(sid)
        # A water path leaves land only from a dock; a stand on water is reached only over water.
        for p in paths:
            if p.kind != "water":
                for end in (p.a, p.b):
                    t = territories.get(stands[end].territory)
                    if t is not None and t.geography == "water":
                        self.bad(f"paths ({p.a!r} to {p.b!r})",
                                 f"field 'kind' is {p.kind!r}, but {end!r} is on water (territory {t.number}); "
                                 f"expected kind = \"water\" (souls cross water by boat or swimming)")
                continue
            for end in (p.a, p.b):
                t = territories.get(stands[end].territory)
                on_water = t is not None and (t.geography == "water" or t.transit)
                if not on_water and end not in out:
                    self.bad(f"paths ({p.a!r} to {p.b!r})",
                             f"water path leaves land at {end!r}, which is not a dock "
                             f"(add [[docks]] stand = {end!r}, or make it a land path)")
        return out

    def _structure(self, territories: dict[int, Territory], stands: dict[str, Stand],
                   paths: list[Path_]) -> None:
        by_terr: dict[int, list[Stand]] = {n: [] for n in territories}
        for s in stands.values():
            if s.territory in by_terr:  # a stand in an unknown territory was reported already
                by_terr[s.territory].append(s)
        for n, t in sorted(territories.items()):
            square = [s.id for s in by_terr.get(n, []) if s.kind == "territory"]
            where = f"territory {n}"
            if not by_terr.get(n):
                self.bad(where, "has no stand (every territory needs at least one)")
            elif not t.transit and not square:
                self.bad(where, "has no territory stand (kind = \"territory\"); "
                                "only transit territories go without one")
            if len(square) > 1:
                self.bad(where, f"has {len(square)} territory stands ({', '.join(square)}); expected one")
        touched: set[str] = set()
        for p in paths:
            touched.update((p.a, p.b))
        for sid in stands:
            if sid not in touched:
                self.bad(f"stand {sid!r}", "no path reaches it (add a [[paths]] entry with a or b = "
                                           f"{sid!r})")
        # The whole map must be one piece, over any kind of path (stands no path reaches at all were
        # reported above; the rest must still hang together).
        if touched:
            adj: dict[str, set[str]] = {sid: set() for sid in touched}
            for p in paths:
                adj[p.a].add(p.b)
                adj[p.b].add(p.a)
            start = next(sid for sid in stands if sid in touched)
            seen = _flood(start, adj)
            cut = sorted(touched - seen)
            if cut:
                self.bad("paths", f"the map is in pieces: {', '.join(cut)} cannot be reached from "
                                  f"{start!r} by any path")


def _flood(start: str, adj: dict[str, set[str]]) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for n in adj[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen

