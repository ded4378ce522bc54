"""A game mode's page and actions as one Flask blueprint: what every mode's routes have in common.

Each mode serves ``/<slug>`` (its page, from its own ``templates/`` and ``static/``), ``GET
/api/<slug>/decks`` (the decks imported for it) and ``POST /api/actions/<slug>/<action>`` for each
action it declares (:func:`register_resume` adds the table's ``POST /api/actions/resume``); an
action is refused with a 409 while another game runs, and otherwise becomes
an event journaled through the same :class:`~kipukas_board.web.submit.Submitter` as the board's
own actions.

Example, in a mode's ``register``::

    app.register_blueprint(mode_blueprint(board, name="duel", slug="duel", here=HERE,
                                          template="duel.html", title="card duel",
                                          actions=ACTIONS, event_type=lambda a: "duel_" + a))
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, jsonify, render_template

from kipukas_board import strictjson
from kipukas_board.web.server import error, json_body, require_pin
from kipukas_board.web.submit import Submitter, only_fields, undo_guard

if TYPE_CHECKING:
    from kipukas_board.web.served import GameRoutes


def mode_blueprint(board: GameRoutes, *, name: str, slug: str, here: Path, template: str, title: str,
                   actions: dict[str, set[str]], event_type: Callable[[str], str]) -> Blueprint:
    """The blueprint of game mode ``name`` (see the module docs); ``event_type`` names the event an
    action becomes (``undo`` is always the board's own undo)."""
    submit = Submitter(board)
    pin = require_pin(board)
    bp = Blueprint(name.replace("-", "_"), __name__, template_folder=str(here / "templates"),
                   static_folder=str(here / "static"), static_url_path=f"/{slug}/static")

    @bp.get(f"/{slug}")
    def page() -> str:
        return render_template(template, sim=board.sim, initial=strictjson.sent_dumps(board.state_json()),
                               asset=bp.name)

    @bp.get(f"/api/{slug}/decks")
    def decks() -> Response:
        return jsonify({"decks": board.mode_cards.decks(name)})

    def action(act: str, allowed: set[str]) -> Any:
        @pin
        def run() -> Response | tuple[Response, int]:
            body = json_body(required=False)
            only_fields(body, allowed)
            if board.state.game != name:
                held = board.state.paused
                if held is not None and held.game == name:
                    now = board.modes.get(board.state.game) or board.modes["kipukas"]
                    return error(409, f"no {title} is running: the {title} is paused while {now.title} is on the "
                                      f"table; Resume (on any page) brings it back")
                return error(409, f"no {title} is running (start one with POST /api/actions/new-game "
                                  f"{{\"game\": \"{name}\", ...}})")
            event = {"type": "undo" if act == "undo" else event_type(act), **body}
            back = board.state.paused
            if act == "undo" and back is not None:  # nothing of this game to undo yet: Resume takes it back
                why = board.modes[name].why_not(board.state, event)
                if why is not None:
                    was = board.modes.get(back.game) or board.modes["kipukas"]
                    return error(409, f"{why} in this {title} yet; {was.title} is paused: Resume (on any "
                                      f"page) brings it back and pauses this {title}")
            if act == "undo":  # one at a time, with the table's own undo: see OneUndoAtATime
                return undo_guard().run("undo", lambda: submit.unless_refused(event, board.modes[name].why_not))
            return submit.unless_refused(event, board.modes[name].why_not)

        run.__name__ = f"{slug.replace('-', '_')}_{act.replace('-', '_')}"
        return run

    for act, allowed in actions.items():
        bp.add_url_rule(f"/api/actions/{slug}/{act}", view_func=action(act, allowed), methods=["POST"])
    return bp


def register_resume(app: Any, board: GameRoutes) -> None:
    """``POST /api/actions/resume`` ``{}``: the paused game back on the table (PIN); the game it
    replaces is paused in its turn. A 409 says so when no game is paused."""
    submit = Submitter(board)

    @app.post("/api/actions/resume")
    @require_pin(board)
    def resume() -> Response | tuple[Response, int]:
        only_fields(json_body(required=False), set())
        return submit({"type": "resume"})
