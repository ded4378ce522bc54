"""The shipped maps a new game can pick: ``GET /api/maps``, and the same list for the new-game form.

Each map says whether it is the one running, whether it has a calibration of its own the board applies
(``calibrated``; ``refused``, short, when its file exists but the loader refuses it), how many
territories can be held and how many players each of Kipukas's play styles allows on it (and why);
``busy`` says why the board may not change its map now (a game under way, a calibration walk open).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol

from flask import Flask, Response, jsonify

from kipukas_board.board.mapfile import BoardMap, MapError, available_maps, load_map, resolve_map_path
from kipukas_board.calibrate.files import SavedFile, read_saved
from kipukas_board.show.layout import map_calibration_path, map_key
from kipukas_board.textfile import FileMemo
from kipukas_board.web.served import Files, Games, MapChoice, TableView

#: The shipped maps and each map's calibration file as last read: the list is asked for on every visit
#: to the new-game form, and a file is read again only when it was written (an edit, a calibration walk).
_MAPS: FileMemo[BoardMap] = FileMemo()
_SAVED: FileMemo[SavedFile] = FileMemo()


class MapsShown(TableView, Games, Files, Protocol):
    """What the list of maps reads: the map running, Kipukas's setup options, and where each map's
    calibration would be (the settings and the data directory)."""


class MapListBoard(MapsShown, MapChoice, Protocol):
    """What ``GET /api/maps`` uses: the list, and why the map may not change now."""


def shipped_maps(board: MapsShown) -> list[dict[str, Any]]:
    """Every shipped map for the new-game form: which runs now, which has a calibration of its own
    yet (its file read as the board reads it when the map is picked: a refused file is no calibration,
    and ``refused`` says why), and how many players each play style allows on it (and why). A map's
    file and its calibration file are read again only when written (:class:`~kipukas_board.textfile.FileMemo`)."""
    running = board.state.board
    out = []
    for key in available_maps():
        try:
            m = running if key == map_key(running) else _MAPS.get(resolve_map_path(key), partial(load_map, key))
        except MapError:
            continue  # a shipped map always loads (tests/board/test_mapfile.py); never offer one that does not
        path = map_calibration_path(board.settings.calibration, board.data_dir, m)
        saved = _SAVED.get(path, partial(read_saved, path, m), extra=(key, m.revision))
        out.append({"key": key, "name": m.name, "current": m is running,
                    "calibrated": saved.calibration is not None, "refused": saved.summary,
                    "holdable": len(m.holdable),
                    "player_limits": board.modes["kipukas"].setup_options(m).get("player_limits", {})})
    return out


def register(app: Flask, board: MapListBoard) -> None:
    @app.get("/api/maps")
    def maps() -> Response:
        """The shipped maps new game can pick (``POST /api/actions/map``), and why the board may not
        change its map now (``busy``: a game under way, a calibration walk open; None when it may)."""
        return jsonify({"maps": shipped_maps(board), "busy": board.map_busy()})
