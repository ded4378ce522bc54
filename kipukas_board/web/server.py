"""The Flask application: the table's page and the JSON API of docs/reference/http-api.md.

Served by waitress (:func:`~kipukas_board.web.serving.make_server`), never by Flask's development
server. Reads are open to anyone on the table's network; changes need the admin PIN
(``X-Admin-Pin``), except the simulation endpoints, which stand in for a hand on a token, which
needs no PIN either.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.http import parse_cookie

from kipukas_board import strictjson
from kipukas_board.store.journal import JournalWriteError
from kipukas_board.web import taps
from kipukas_board.web.hosts import HostGuard
from kipukas_board.web.presence import NoChallenge, PresenceCheck
from kipukas_board.web.sessions import COOKIE, WebKeys
from kipukas_board.web.sse import StreamsFull
from kipukas_board.web.svg import board_svg

if TYPE_CHECKING:
    from kipukas_board.web.served import Files, Guarded, ServedBoard

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
#: WSGI environ keys by which the server tells a stream how many bytes it still holds for the client
#: (a callable returning an int) and whether the client went away (a callable returning a bool).
UNSENT_KEY = "kipukas.unsent"
GONE_KEY = "kipukas.gone"
#: Deepest nesting of arrays and objects a request body may have (the API's bodies use 3 or 4).
MAX_JSON_DEPTH = 32
#: Seconds a page refused an event stream (too many open) is told to wait before trying again.
STREAM_RETRY_AFTER_S = 10


#: ``app.extensions`` key of ``{path: bytes}``: the routes whose body may be larger than :data:`MAX_BODY`
#: (the server reads it too, so it lets those bodies in and no other).
BODY_LIMITS = "kipukas_body_limits"


#: ``app.extensions`` key of the check the server asks, once a request's headers are in, whether the
#: larger body it may send is kept (:func:`may_send_large_body`); a body not kept is read and dropped.
BODY_ADMITS = "kipukas_body_admits"
#: WSGI environ key: why the server read this request's body and dropped it (see :func:`body_dropped`).
BODY_DROPPED_KEY = "kipukas.body_dropped"
#: Why a large body was dropped: the request came with no PIN the board had checked and no session ...
BODY_UNCHECKED = "unchecked"
#: ... or as many large bodies as the board keeps at once were already arriving.
BODY_CROWDED = "crowded"


def allow_larger_body(app: Flask, path: str, limit: int) -> None:
    """Let requests to ``path`` carry a body of up to ``limit`` bytes (a card file upload); the route
    sets ``request.max_content_length`` to the same limit before it reads the body.

    Such a body is kept only for a request that :func:`may_send_large_body`; any other body over
    :data:`MAX_BODY` is read and dropped as it arrives, so guests without the PIN sending large
    bodies slowly on many connections hold no memory and no temporary files; and only a few are kept
    at once (``LARGE_BODIES_AT_ONCE`` in :mod:`kipukas_board.web.serving`), so not even a player with
    the PIN can have hundreds kept. The route, once it has let the request in, asks :func:`body_dropped`."""
    app.extensions.setdefault(BODY_LIMITS, {})[path] = limit


def may_send_large_body(app: Flask, board: Guarded, headers: Any) -> bool:
    """May a request with these ``headers`` (waitress's names: ``X_ADMIN_PIN``, ``COOKIE``,
    ``X_CSRF_TOKEN``) have a body over :data:`MAX_BODY` kept? Asked once the headers are in, before
    the body, so only what costs no hash: a PIN the board checked already
    (:meth:`~kipukas_board.web.auth.PinStore.known`), or, without ``X-Admin-Pin``, a device session
    with the page's token (as :func:`require_pin` takes them). The route still decides, as for every
    request, whether the request may do what it asks: a wrong PIN is counted there as always, so
    this check tells a guesser nothing."""
    pin = headers.get("X_ADMIN_PIN")
    if pin:
        return board.pins.known(pin)
    keys = app.extensions.get(KEYS)
    if keys is None:
        return False
    cookie = parse_cookie(headers.get("COOKIE", "")).get(COOKIE)
    return keys.csrf_ok(headers.get("X_CSRF_TOKEN")) and keys.session_ok(cookie, board.pins.fingerprint)


def body_dropped() -> str | None:
    """Why the server dropped this request's body (over :data:`MAX_BODY`), or None: kept.
    :data:`BODY_UNCHECKED` when :func:`may_send_large_body` did not admit it, :data:`BODY_CROWDED`
    when as many large bodies as the server keeps at once were already arriving. A route of
    :func:`allow_larger_body` asks once the request passed its PIN check: the body must then be sent
    again (the PIN is known by then, or another upload has ended)."""
    why = request.environ.get(BODY_DROPPED_KEY)
    return str(why) if why else None


def error(status: int, message: str, **extra: Any) -> tuple[Response, int]:
    """A JSON error: ``{"error": message, ...}`` with an HTTP status."""
    return jsonify({"error": message, **extra}), status


def json_depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in the JSON text ``raw`` (brackets in strings not counted),
    found without parsing, so a body nested 30,000 deep is refused before the parser recurses.

    >>> json_depth(b'{"a": [1, {"b": "[[["}]}'), json_depth(b'"x"')
    (3, 0)
    """
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def json_body(required: bool = True, fields: frozenset[str] | None = None) -> dict[str, Any]:
    """The request's JSON object, or raise :class:`BadRequest` naming what was wrong.

    Every route reads its body here, so every body is parsed the same strict way
    (:func:`kipukas_board.strictjson.loads`: no NaN, no Infinity, no number out of range). With
    ``fields``, a key outside them is refused too, naming it and the fields the route takes.
    """
    raw = request.get_data(cache=True)
    if not required and not raw:
        return {}
    if not request.is_json:
        raise BadRequest("expected a JSON object in the body (Content-Type: application/json)")
    if json_depth(raw) > MAX_JSON_DEPTH:
        raise BadRequest(f"the JSON body nests arrays and objects more than {MAX_JSON_DEPTH} deep")
    try:
        data = strictjson.loads(raw.decode("utf-8"))
    except strictjson.JSONValueError as exc:
        raise BadRequest(str(exc)) from None
    except UnicodeDecodeError:
        raise BadRequest("the JSON body is not UTF-8 text") from None
    except ValueError as exc:
        raise BadRequest(f"the body is not valid JSON ({exc}); expected a JSON object "
                         f"(Content-Type: application/json)") from None
    if not isinstance(data, dict):
        raise BadRequest(f"expected a JSON object in the body, got {type(data).__name__}")
    extra = sorted(set(data) - fields) if fields is not None else []
    if extra:
        taken = ", ".join(sorted(fields or ())) or "none"
        raise BadRequest(f"unknown field(s) {', '.join(extra)[:120]}; expected {taken}")
    return data


class BadRequest(ValueError):
    pass


def wants_page() -> bool:
    """Is this a browser asking for a page (not a script asking the API)?"""
    return (request.method == "GET" and not request.path.startswith("/api/")
            and request.accept_mimetypes.accept_html and "text/html" in request.headers.get("Accept", ""))


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, never with NaN or Infinity: such a value (a bug upstream) is sent as ``null`` and
    logged (:func:`kipukas_board.strictjson.sent_dumps`), rather than reach a page as text no page
    can parse."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("default", self.default)
        kwargs.setdefault("ensure_ascii", self.ensure_ascii)
        kwargs.setdefault("sort_keys", self.sort_keys)
        return strictjson.sent_dumps(obj, **kwargs)


def create_app(board: ServedBoard) -> Flask:
    app = Flask(__name__)
    app.json = StrictJSONProvider(app)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY, DEBUG=False)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["kipukas"] = board
    presence = PresenceCheck()
    app.extensions["kipukas_presence"] = presence
    board.health_sources["presence"] = presence.stats
    board.subscribe(lambda state, effects: presence.observe(
        dict(state.switches)))
    hosts = HostGuard([*board.settings.names, board.settings.host])
    app.extensions["kipukas_hosts"] = hosts

    @app.before_request
    def _host_and_origin() -> tuple[Response, int] | None:
        # Before everything else, the page included: a foreign name must not get the page's token.
        why = hosts.host_problem(request.headers.get("Host"))
        if why:
            return error(421, why)
        why = hosts.origin_problem(request.headers.get("Origin"), request.scheme, request.host)
        return error(403, why) if why else None

    app.extensions[BODY_ADMITS] = lambda headers: may_send_large_body(app, board, headers)

    # A tap the page sends again because the board did not answer is done once (web/taps.py).
    app.extensions["kipukas_taps"] = taps.register(app, COOKIE, board.journal)

    @app.errorhandler(JournalWriteError)
    def _not_recorded(exc: JournalWriteError) -> tuple[Response, int]:
        resp, status = error(503, f"not done: the board cannot record changes right now ({exc})", recording=False)
        resp.headers["Retry-After"] = "10"
        return resp, status

    @app.errorhandler(RecursionError)
    def _too_deep(exc: RecursionError) -> tuple[Response, int]:
        return error(400, f"the request nests too deeply (at most {MAX_JSON_DEPTH} levels)")

    @app.errorhandler(BadRequest)
    def _bad_request(exc: BadRequest) -> tuple[Response, int]:
        return error(400, str(exc))

    @app.errorhandler(413)
    def _too_big(exc: Exception) -> tuple[Response, int]:
        # a route may allow more than an action's body (a card file upload sets its own limit)
        return error(413, f"request body too large (limit {request.max_content_length or MAX_BODY} bytes)")

    @app.errorhandler(404)
    def _not_found(exc: Exception) -> tuple[Response | str, int]:
        if wants_page():
            return render_template("error.html", title="Page not found",
                                   text=f"This board has no page at {request.path}."), 404
        return error(404, f"no such endpoint: {request.method} {request.path}")

    @app.errorhandler(500)
    def _failed(exc: Exception) -> tuple[Response | str, int]:
        log.error("request %s %s failed: %s", request.method, request.path, exc)
        if wants_page():
            return render_template("error.html", title="Something went wrong",
                                   text="The board could not show this page. Try again; if it keeps "
                                        "happening, restart the board."), 500
        return error(500, "the board failed to answer this request (see its log)")

    @app.errorhandler(405)
    def _not_allowed(exc: Exception) -> tuple[Response, int]:
        allowed = sorted(set(getattr(exc, "valid_methods", None) or ()) - {"HEAD", "OPTIONS"})
        resp, status = error(405, f"{request.method} is not allowed on {request.path}"
                                  + (f"; use {' or '.join(allowed)}" if allowed else ""))
        if allowed:
            resp.headers["Allow"] = ", ".join(allowed)  # HTTP asks a 405 to name what is allowed
        return resp, status

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        return resp

    @app.get("/")
    def index() -> str:
        return render_template("index.html", svg=board_svg(board.state.board), sim=board.sim,
                               initial=strictjson.sent_dumps(board.state_json()))

    @app.get("/board.svg")
    def board_drawing() -> Response:
        """The map as the page draws it, for a page that sees the map's ``revision`` change under it
        (the board restarted on a redrawn file of the same name) and draws it again in place."""
        resp = Response(board_svg(board.state.board), mimetype="image/svg+xml")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.get("/healthz")
    def healthz() -> tuple[Response, int]:
        # ok only while the core runs *and* the journal takes writes: a board that cannot record
        # would acknowledge nothing, so it is not healthy even though it still answers.
        core = board.core_alive()
        journal = board.journal_health()
        # Nor is a board whose state lacks a stored event it could not apply.
        unapplied = list(board.unapplied)
        ok = core and journal["recording"] and not unapplied
        # a missing QR decoder leaves the board running (it reads fewer cards), so it is named, not failed
        missing = [m["decoder"] for m in board.card_desk.decoders()["missing"]]
        return jsonify({"ok": ok, "core": core, "recording": journal["recording"], "journal_error": journal["error"],
                        "lost": journal["lost"], "unapplied": unapplied, "decoders_missing": missing}), \
            200 if ok else 503

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(board.state_json())

    @app.get("/api/leds")
    def leds() -> Response:
        return jsonify({"pixels": [list(p) for p in board.lighting.frame()],
                        "layout": board.lighting.layout.to_json()})

    @app.get("/api/stream")
    def stream() -> Response | tuple[Response, int]:
        try:
            # register first, so no change slips past the snapshot
            sub = board.broadcaster.open(request.remote_addr or "?")
        except StreamsFull as exc:
            resp, status = error(503, f"{exc}; close a page or try again shortly")
            resp.headers["Retry-After"] = str(STREAM_RETRY_AFTER_S)
            return resp, status
        try:
            state = board.state
            first = board.broadcaster.message("state", strictjson.sent_dumps(board.state_json(state)), state.seq)
        except BaseException:
            sub.close()
            raise
        env = request.environ  # the server's view of this connection (kipukas_board/web/serving.py)
        resp = Response(sub.body(first, unsent=env.get(UNSENT_KEY),
                                 gone=env.get(GONE_KEY) or env.get("waitress.client_disconnected")),
                        mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    @app.post("/api/sim/stands/<stand_id>")
    def sim_stand(stand_id: str) -> tuple[Response, int] | Response:
        if not board.sim:
            return error(404, "simulation endpoints exist only when the board runs with --sim")
        if stand_id not in board.state.board.stands:
            return error(404, f"unknown stand {stand_id!r}", stands=sorted(board.state.board.stands))
        body = json_body(fields=frozenset({"occupied"}))
        occupied = body.get("occupied")
        if not isinstance(occupied, bool):
            raise BadRequest(f'expected {{"occupied": true|false}}, got occupied = {occupied!r}')
        changed = board.sim_set_stand(stand_id, occupied)  # waits submit.WAIT_S for a busy core, as every action
        return jsonify({"ok": True, "stand": stand_id, "occupied": occupied, "changed": changed,
                        "seq": board.state.seq})

    @app.post("/api/pin/presence")
    def presence_challenge() -> tuple[Response, int] | Response:
        """A stand to put a token on and lift again: then this phone may try the PIN (web/presence.py)."""
        json_body(required=False, fields=frozenset())
        state = board.state
        try:
            c = presence.challenge(request.remote_addr or "?", dict(state.switches))
        except NoChallenge as exc:
            return error(409, str(exc))
        return jsonify({"token": c.token, **c.to_json(c.issued)})

    @app.get("/api/pin/presence")
    def presence_status() -> tuple[Response, int] | Response:
        """How far the challenge in ``X-Presence`` has come (404 once it expired)."""
        status = presence.status(request.headers.get("X-Presence"))
        if status is None:
            return error(404, "no such presence challenge (they last a few minutes); ask for a new one with "
                              "POST /api/pin/presence")
        return jsonify(status)

    for register in board.route_plugins:
        register(app, board)

    return app


#: ``app.extensions`` key of the app's :class:`~kipukas_board.web.sessions.WebKeys` (see :func:`web_keys`).
KEYS = "kipukas_keys"


def web_keys(app: Flask, board: Files) -> WebKeys:
    """The app's page keys (the CSRF token, the device sessions), kept in ``board.data_dir``: made on
    the first ask, so the CSRF guard and the PIN routes share them whichever registers first."""
    keys = app.extensions.get(KEYS)
    if keys is None:
        keys = app.extensions[KEYS] = WebKeys(board.data_dir)
    return keys


def device_trusted(board: Guarded) -> bool:
    """Does this request come from a phone that entered the right PIN (a device session)?

    The session cookie alone is not enough: the request must also carry the page's ``X-CSRF-Token``,
    which a page of another site cannot send (the cookie is ``SameSite=Strict`` as well).
    """
    keys = current_app.extensions.get(KEYS)
    if keys is None:
        return False
    return (keys.csrf_ok(request.headers.get("X-CSRF-Token"))
            and keys.session_ok(request.cookies.get(COOKIE), board.pins.fingerprint))


def require_pin(board: Guarded) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator for routes that change the game: refuse without the right ``X-Admin-Pin`` or a
    device session (:func:`device_trusted`)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not request.headers.get("X-Admin-Pin") and device_trusted(board):
                return fn(*args, **kwargs)
            # Wrong PINs are counted per client address and rate-limited (web/auth.py); past the
            # board-wide limit only a phone that showed presence at the table may try (web/presence.py).
            client = request.remote_addr or "?"
            token = request.headers.get("X-Presence")
            presence = current_app.extensions.get("kipukas_presence")
            present = presence is not None and presence.admits(token)
            if present:
                presence.spend(token)
                client = f"presence:{str(token)[:16]}"
            verdict = board.pins.verify(request.headers.get("X-Admin-Pin"), client, present=present)
            if not verdict.ok:
                resp, status = error(verdict.status, verdict.message)
                if verdict.retry_after:
                    resp.headers["Retry-After"] = str(max(1, round(verdict.retry_after)))
                return resp, status
            return fn(*args, **kwargs)

        return wrapper

    return deco
