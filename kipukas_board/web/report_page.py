"""``GET /report``: the report of the game on the table, as a page (the game mode writes the report;
:mod:`kipukas_board.web.report` draws its chart)."""

from __future__ import annotations

from typing import Protocol

from flask import Flask, render_template

from kipukas_board.web.served import Records


class ReportPageBoard(Records, Protocol):
    """What the report page uses: the game's report, from what the board recorded."""


def register(app: Flask, board: ReportPageBoard) -> None:
    @app.get("/report")
    def report_page() -> str:
        return render_template("report.html", report=board.game_report())
