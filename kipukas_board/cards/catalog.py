"""The card catalog: every card design by its code, kept in SQLite in the board's data directory.

Card data is updated after sale, so a board does not ship a catalog; it imports one in the JSON
format of the official snapshot (a list of objects, each with ``code``, ``slug``, ``title``,
``type``, ``movement``, ``injury_tolerance``, ``keal_means`` ...). An import is all-or-nothing:
every record is checked first, every problem is reported by record index and field, and only a
fully valid catalog replaces the old one, in one transaction.

Example (not run as a doctest: the official catalog is imported at run time and not shipped;
``tests/cards/test_cards_catalog.py`` imports one the test writes)::

    >>> from kipukas_board.cards.catalog import Catalog
    >>> cat = Catalog.in_dir("/tmp/kb")                             # doctest: +SKIP
    >>> cat.import_records(json.load(open("cards.json")))           # doctest: +SKIP
    56
    >>> cat.card("RrDC")["title"]                                   # doctest: +SKIP
    'Allele Sect Explorer'
    >>> cat.card("ZZZZ")                                            # doctest: +SKIP
    UnknownCard: unknown card ZZZZ
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from kipukas_board.cards.payload import CODE_RE, CardPayload
from kipukas_board.cards.store import CardStore
from kipukas_board.strictjson import is_int

#: Largest catalog accepted (the real one is about 100 kB).
MAX_CATALOG_BYTES = 5 * 1024 * 1024
URL_TIMEOUT_S = 15.0

_STR, _OPT_STR, _INT, _OPT_INT = "a string", "a string or null", "an integer", "an integer or null"
#: Field → what it must be. Fields not named here are kept as they are.
FIELDS: dict[str, str] = {
    "code": _STR, "slug": _STR, "title": _STR, "type": _STR,
    "variation": _OPT_STR, "genetic_disposition": _OPT_STR, "motivation": _OPT_STR, "habitat": _OPT_STR,
    "injury_tolerance": _INT, "movement": _INT, "tamability": _OPT_INT,
    "die": _OPT_STR, "brawl_sequence": _OPT_STR, "scarcity": _OPT_STR, "tags": _OPT_STR,
    "description": _OPT_STR, "play_style": _OPT_STR, "url": _OPT_STR,
}
REQUIRED = ("code", "slug", "title", "type", "injury_tolerance", "movement", "keal_means")


class CatalogError(ValueError):
    """A catalog that cannot be imported; ``problems`` lists each one (record index and field)."""

    def __init__(self, source: str, problems: list[str]) -> None:
        shown = "\n".join(f"  - {p}" for p in problems[:50])
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"{source}: catalog not imported, {len(problems)} problem(s):\n{shown}{more}")
        self.source = source
        self.problems = problems


class UnknownCard(LookupError):
    """A code (or slug) that is not in the catalog."""

    def __init__(self, code: str) -> None:
        super().__init__(f"unknown card {code}")
        self.code = code

    def __str__(self) -> str:  # KeyError-style quoting would hide the plain message
        return str(self.args[0])


def _kind_ok(value: Any, kind: str) -> bool:
    if kind in (_OPT_STR, _OPT_INT) and value is None:
        return True
    if kind in (_STR, _OPT_STR):
        return isinstance(value, str)
    return is_int(value)


def check_records(records: Any) -> list[str]:
    """Every problem in a catalog document, each naming the record index and field."""
    if not isinstance(records, list):
        return [f"a catalog is a JSON list of card objects, got {type(records).__name__}"]
    if not records:
        return ["the catalog holds no cards"]
    problems: list[str] = []
    seen: dict[str, int] = {}
    seen_slugs: dict[str, int] = {}
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            problems.append(f"record {i}: expected an object, got {type(rec).__name__}")
            continue
        where = f"record {i}" + (f" ({rec['code']!r})" if isinstance(rec.get("code"), str) else "")
        for name in REQUIRED:
            if name not in rec:
                problems.append(f"{where}: field {name!r} is missing")
        for name, kind in FIELDS.items():
            if name in rec and not _kind_ok(rec[name], kind):
                problems.append(f"{where}: field {name!r} must be {kind}, got {rec[name]!r:.40}")
        slug = rec.get("slug")
        if isinstance(slug, str):
            key = slug.lower()
            if key in seen_slugs:
                problems.append(f"{where}: field 'slug' repeats record {seen_slugs[key]}'s slug {slug!r} "
                                f"(slugs name cards in kipukas.cards URLs, case-insensitively)")
            else:
                seen_slugs[key] = i
        code = rec.get("code")
        if isinstance(code, str):
            if not CODE_RE.fullmatch(code):
                problems.append(f"{where}: field 'code' must be 4 letters, digits, '-' or '_', got {code!r}")
            elif code in seen:
                problems.append(f"{where}: field 'code' repeats record {seen[code]}'s code {code!r}")
            else:
                seen[code] = i
        for name in ("injury_tolerance", "movement"):
            v = rec.get(name)
            if is_int(v) and v < 0:
                problems.append(f"{where}: field {name!r} must not be negative, got {v}")
        if "keal_means" in rec:
            problems.extend(_check_keal(where, rec["keal_means"]))
    return problems


def _check_keal(where: str, value: Any) -> list[str]:
    if not isinstance(value, list):
        return [f"{where}: field 'keal_means' must be a list, got {value!r:.40}"]
    out = []
    for j, km in enumerate(value):
        f = f"{where}: field 'keal_means[{j}]"
        if not isinstance(km, dict):
            out.append(f"{f}' must be an object, got {km!r:.40}")
            continue
        if not isinstance(km.get("name"), str):
            out.append(f"{f}.name' must be a string, got {km.get('name')!r:.40}")
        c = km.get("count")
        if not is_int(c) or c < 0:
            out.append(f"{f}.count' must be a whole number, got {c!r:.40}")
        g = km.get("genetics", [])
        if not isinstance(g, list) or not all(isinstance(x, str) for x in g):
            out.append(f"{f}.genetics' must be a list of strings, got {g!r:.40}")
    return out


class _HttpsOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to another https:// URL (urllib would follow one down to plain http)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        scheme = urllib.parse.urlparse(newurl).scheme
        if scheme != "https":
            raise urllib.error.URLError(f"refused a redirect to {scheme}:// ({newurl[:80]}): only https is fetched")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def https_opener() -> Any:
    """``urlopen``-like function that never leaves https, even through a redirect."""
    return urllib.request.build_opener(_HttpsOnlyRedirects).open


def read_source(source: str, opener: Any = None) -> tuple[str, bytes]:
    """The bytes of a catalog file or https URL (never plain http, not even by a redirect; size and
    time limited)."""
    parsed = urllib.parse.urlparse(source)
    if parsed.scheme in ("http", "https", "ftp", "file"):
        if parsed.scheme != "https":
            raise CatalogError(source, [f"only https:// URLs are fetched, not {parsed.scheme}://"])
        opener = opener or https_opener()
        try:
            with opener(urllib.request.Request(source, headers={"Accept": "application/json"}),
                        timeout=URL_TIMEOUT_S) as resp:
                data = resp.read(MAX_CATALOG_BYTES + 1)
        except OSError as exc:
            raise CatalogError(source, [f"could not fetch: {exc}"]) from exc
    else:
        path = Path(source)
        try:
            if path.exists() and not path.is_file():
                raise CatalogError(source, ["not a regular file (expected a JSON catalog file or an https:// URL)"])
            if path.stat().st_size > MAX_CATALOG_BYTES:
                raise CatalogError(source, [f"file larger than {MAX_CATALOG_BYTES} bytes"])
            with path.open("rb") as fh:
                data = fh.read(MAX_CATALOG_BYTES + 1)
        except OSError as exc:
            raise CatalogError(source, [f"cannot read: {exc.strerror or exc}"]) from exc
    if len(data) > MAX_CATALOG_BYTES:
        raise CatalogError(source, [f"larger than {MAX_CATALOG_BYTES} bytes"])
    return source, data


def parse_catalog(source: str, data: bytes) -> list[dict[str, Any]]:
    """Decode and check a catalog document; raise :class:`CatalogError` listing every problem."""
    try:
        records = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CatalogError(source, [f"not valid UTF-8 JSON: {exc}"]) from exc
    except RecursionError:
        raise CatalogError(source, ["JSON nested too deeply to be a catalog"]) from None
    problems = check_records(records)
    if problems:
        raise CatalogError(source, problems)
    return records


class Catalog:
    """Kipukas's imported cards: the ``cards`` table of the board's :class:`~.store.CardStore`."""

    def __init__(self, store: CardStore) -> None:
        self.store = store

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> Catalog:
        """The catalog in ``data_dir``'s card file, on a store of its own (a command, a test)."""
        return cls(CardStore.in_dir(data_dir))

    def close(self) -> None:
        self.store.close()

    def import_records(self, records: Any, source: str = "catalog") -> int:
        """Replace the catalog with ``records`` (checked first); returns the number of cards."""
        problems = check_records(records)
        if problems:
            raise CatalogError(source, problems)
        rows = [(r["code"], r["slug"].lower(), json.dumps(r, ensure_ascii=False)) for r in records]
        with self.store.transaction() as db:
            db.execute("DELETE FROM cards")
            db.executemany("INSERT INTO cards (code, slug, data) VALUES (?, ?, ?)", rows)
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('source', ?)", (source,))
        return len(rows)

    def import_source(self, source: str, opener: Any = None) -> int:
        """Import a catalog file path or https URL (all-or-nothing)."""
        src, data = read_source(source, opener)
        return self.import_records(parse_catalog(src, data), source=src)

    def __len__(self) -> int:
        row = self.store.one("SELECT COUNT(*) FROM cards")
        return int(row[0]) if row else 0

    def card(self, code: str) -> dict[str, Any]:
        """The card with ``code``; raises :class:`UnknownCard` ("unknown card CODE")."""
        row = self.store.one("SELECT data FROM cards WHERE code = ?", (code,))
        if row is None:
            raise UnknownCard(code)
        return json.loads(row[0])

    def cards(self, limit: int) -> list[tuple[str, dict[str, Any]]]:
        """The first ``limit`` cards by code, as ``(code, record)`` (the page's simulated camera
        lists them; a whole catalog is a few hundred)."""
        rows = self.store.all("SELECT code, data FROM cards ORDER BY code LIMIT ?", (limit,))
        return [(code, json.loads(data)) for code, data in rows]

    def by_slug(self, slug: str) -> dict[str, Any]:
        row = self.store.one("SELECT data FROM cards WHERE slug = ?", (slug.lower(),))
        if row is None:
            raise UnknownCard(slug)
        return json.loads(row[0])

    def resolve(self, payload: CardPayload) -> dict[str, Any]:
        """The card a parsed payload names (by code, or by slug for kipukas.cards URLs)."""
        if payload.code is not None:
            return self.card(payload.code)
        return self.by_slug(payload.slug or "")
