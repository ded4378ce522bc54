"""``GET /calibrate``: the calibration walk-through's page, opened on the map running, with the state
and the walk's status embedded (its actions are :mod:`kipukas_board.web.calibration_api`'s)."""

from __future__ import annotations

from typing import Protocol

from flask import Flask, render_template

from kipukas_board import strictjson
from kipukas_board.web.served import TableView, Workshop
from kipukas_board.web.svg import board_svg


class CalibrationPageBoard(TableView, Workshop, Protocol):
    """What the calibration page shows: the table (its map drawn, its state) and the walk's status."""


def register(app: Flask, board: CalibrationPageBoard) -> None:
    @app.get("/calibrate")
    def calibrate_page() -> str:
        return render_template("calibrate.html", svg=board_svg(board.state.board), sim=board.sim,
                               initial=strictjson.sent_dumps(board.state_json()),
                               calibration=strictjson.sent_dumps(board.calibration.status()))
