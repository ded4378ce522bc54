"""The walk-through on a running board: raw switch changes in, test frames out, progress on disk.

:func:`attach` is called once by :class:`~kipukas_board.app.BoardApp`: it loads the saved
calibration (``calibration/<board>.toml`` in the data directory) and applies it (channel map, LED
segments), and hooks the session to the raw switch changes (the routes are :mod:`kipukas_board.web.calibration_api`'s).

While a sensor walk is open, switch changes go to the walk and *not* to the game (placing tokens
stand by stand must not claim territories). That is easy to forget with the walk left open, so the
session is a health source of the board (``health.calibration``: not ok while a walk is open, with
a note the board page shows as a banner linking to ``/calibrate``). Every step is written to
``calibration-progress.json`` at once, so after a restart or a power cut the walk resumes on the
stand where it stopped (an LED walk lights its segment again). Nothing reaches the calibration file
until the player saves, and the file is checked against the map and written atomically.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kipukas_board import strictjson
from kipukas_board.calibrate import files
from kipukas_board.calibrate.camera_controls import (
    apply_controls,
    control_problem,
    limits_json,
    not_applied,
    saved_controls,
)
from kipukas_board.calibrate.files import Calibration, SavedFile
from kipukas_board.calibrate.led_walk import LedWalk
from kipukas_board.calibrate.png import frame_to_png
from kipukas_board.calibrate.sensor_walk import SensorWalk
from kipukas_board.hardware.sensors.port import SwitchChange
from kipukas_board.show.layout import LayoutError

if TYPE_CHECKING:
    from kipukas_board.calibrate.host import CalibrationHost

log = logging.getLogger(__name__)

PROGRESS = "calibration-progress.json"


class CameraUnavailable(RuntimeError):
    """A seat's camera exists but could not be read (unplugged, busy): the preview answers 503."""


class NeedsConfirmation(ValueError):
    """A step that would throw work away or save a board with open problems: the page asks first.

    ``items`` says what in words for people; the step is repeated with ``confirm`` to go ahead.
    """

    def __init__(self, message: str, items: list[str]) -> None:
        super().__init__(message)
        self.items = items


class CalibrationSession:
    def __init__(self, board: CalibrationHost, saved: SavedFile | None = None) -> None:
        self.board = board
        self.path = saved.path if saved is not None else files.map_calibration_path(
            board.settings.calibration, board.data_dir, board.state.board)
        self.progress_path = Path(board.data_dir) / PROGRESS
        self._lock = threading.RLock()
        self.sensors: SensorWalk | None = None
        self.leds: LedWalk | None = None
        #: seat → {"cards_before": [...], "ok": bool, "payload": ...} for the per-seat test scan.
        self.cameras: dict[int, dict[str, Any]] = {}
        self.saved: Calibration | None = None
        self.problem: str | None = None
        #: Why the map's file was refused, short (:attr:`SavedFile.summary
        #: <kipukas_board.calibrate.files.SavedFile.summary>`), for the page's map note; None when it was
        #: applied or there is none. ``problem`` says it whole, and says other things too.
        self.refused: str | None = None
        self._frame_lock = threading.Lock()
        self._load_saved(saved)
        self._resume()

    # -- the saved file ------------------------------------------------------------------------
    def _load_saved(self, saved: SavedFile | None = None) -> None:
        """Apply the map's calibration file: ``saved``, the reading the board sized its strip by, or a
        fresh one. A file the loader refused is applied in nothing (channels, cameras and LEDs alike);
        its reason is the session's ``problem``, shown on the page and in ``health.calibration``."""
        if saved is None:  # a file the board read is logged by the board
            saved = files.read_saved(self.path, self.board.state.board)
            if saved.problem is not None:
                log.error("calibration not applied: %s", saved.problem)
        self.problem = saved.problem
        self.refused = saved.summary
        self.saved = saved.calibration
        if self.saved is not None:
            self.apply(self.saved)
        else:  # no file, or one refused: no seat keeps the focus and exposure of the map before
            self._apply_cameras(None)

    def apply(self, cal: Calibration) -> None:
        """Make the running board use ``cal``: channel map, LED segments and stand pixels, cameras.

        The board took the LED layout from this same reading at start (:meth:`SavedFile.strip_layout
        <kipukas_board.calibrate.files.SavedFile.strip_layout>`); this puts a layout saved since into
        the running lights. A layout the settings' strip cannot hold (segments past its ``count``, a
        power budget over the fuse's) is not lit: the lights keep theirs and ``problem`` says why. The
        strip's length cannot change while the board runs, so the new layout keeps it as its
        ``length`` even when its segments end earlier (a segment shrunk in the walk): a layout
        counting fewer pixels than the strip would make every frame too short for it. The layout is
        swapped whole under the lighting's lock (:meth:`~kipukas_board.show.lighting.Lighting.set_layout`):
        the lighting thread renders the old one until then and never sees one being edited.
        """
        b = self.board
        if cal.channels:
            b.channel_map = dict(cal.channels)
            b.unmapped_channels.clear()
        if cal.led_territories:
            self._apply_layout(cal)
        self._apply_cameras(cal)

    def _apply_cameras(self, cal: Calibration | None) -> None:
        """Each seat's camera gets the focus and exposure ``cal`` keeps for it; a seat it keeps none
        for, or every seat when there is no ``cal`` (no file, or one refused), goes back to the camera's
        automatic settings (:meth:`~kipukas_board.hardware.cameras.port.Camera.automatic`), so a map
        picked after a calibrated one does not keep that map's manual focus and exposure. A seat whose
        focus and exposure the walk is trying (set on the page, not saved yet) keeps them: saving
        another step must not undo what the player sees in the preview."""
        for cam in self.board.cameras:
            seat = getattr(cam, "seat", 0)
            if "controls" in self.cameras.get(seat, {}):
                continue
            controls = saved_controls(cal, seat)
            try:
                apply_controls(cam, controls)
            except (ValueError, OSError, RuntimeError) as exc:  # a camera swapped since, or unplugged
                if controls:
                    self.problem = f"{self.path}: seat {seat}'s camera settings not applied: {exc}"
                else:  # the camera's own health says it is failing; the calibration is not at fault
                    log.warning("seat %s's camera not put back on automatic: %s", seat, exc)

    def _apply_layout(self, cal: Calibration) -> None:
        b = self.board
        try:
            lay = SavedFile(self.path, cal).strip_layout(b.state.board, b.settings)
        except LayoutError as exc:  # the settings' strip: the board started on the default layout
            self.problem = f"LED layout not applied (the LEDs keep the layout they have): {exc}"
            return
        strip = b.lighting.strip.count
        if lay.count <= strip:
            b.lighting.set_layout(replace(lay, length=strip, source=str(self.path)))
        else:
            self.problem = (f"{self.path}: the LED layout needs {lay.count} pixels; the strip was started "
                            f"with {strip} (restart the board to use it)")

    def follow_map(self, saved: SavedFile | None = None) -> None:
        """Another map was put on the table (new game, no game running): apply that map's own calibration
        file (``saved``, the reading the board took its layout from, or a fresh one), or none yet (the
        channels then are the stands, the LEDs the default layout; health says the map is not
        calibrated). No walk is open: the board refuses a map change while one is."""
        with self._lock:
            self.path = saved.path if saved is not None else files.map_calibration_path(
                self.board.settings.calibration, self.board.data_dir, self.board.state.board)
            self.saved, self.problem = None, None
            self.cameras.clear()
            self._load_saved(saved)
        self.board.publish("calibration", strictjson.sent_dumps(self.status()))

    # -- progress (resumable) --------------------------------------------------------------------
    def _resume(self) -> None:
        if not self.progress_path.exists():
            return
        try:
            d = json.loads(self.progress_path.read_text())
            if d.get("board") != self.board.state.board.name:
                log.warning("calibration progress was for map %r; starting afresh", d.get("board"))
                return
            if d.get("sensors"):
                self.sensors = SensorWalk.from_json(d["sensors"])
            if d.get("leds"):
                self.leds = LedWalk.from_json(d["leds"])
        except (ValueError, KeyError, TypeError) as exc:
            self.sensors = self.leds = None
            log.error("%s is unreadable (%s); starting the walk-through afresh", self.progress_path, exc)
        if self.leds is not None:
            try:
                self._show(self.leds.frame())  # the strip shows the segment the page asks about
            except ValueError as exc:  # the strip's length changed since (another calibration file)
                log.error("the LED walk in %s does not fit the strip (%s); start it again", self.progress_path, exc)
                self.leds = None

    def _changed(self) -> None:
        """Save the progress and tell every open page (SSE event ``calibration``)."""
        d = {"board": self.board.state.board.name,
             "sensors": self.sensors.to_json() if self.sensors else None,
             "leds": self.leds.to_json() if self.leds else None}
        if d["sensors"] is None and d["leds"] is None:
            self.progress_path.unlink(missing_ok=True)
        else:
            files.atomic_write(self.progress_path, json.dumps(d))
        self.board.publish("calibration", strictjson.sent_dumps(self.status()))

    def health(self) -> dict[str, Any]:
        """``health.calibration`` for the pages: is a walk holding the switches or the lights?

        Not ok while a walk is open (a sensor walk keeps every token move from the game, an LED walk
        keeps the game off the strip) or when the saved file could not be applied. Read without the
        session's lock: it is called from the core thread while the lock may wait on the core.
        """
        walks = [name for name, walk in (("sensors", self.sensors), ("leds", self.leds)) if walk is not None]
        notes = []
        if self.sensors is not None:
            notes.append("token moves are not reaching the game while the sensor walk is open")
        if self.leds is not None:
            notes.append("the LEDs show the LED walk, not the game")
        faults = self.saved_faults()
        calibrated = self.saved is not None
        if not calibrated and not walks and self.problem is not None:
            notes.append(f"the calibration file of map {self.board.state.board.name} was not applied (the error "
                         f"says why): each sensor channel is taken as its stand and the LEDs light the default "
                         f"layout until it is fixed and the board restarted")
        elif not calibrated and not walks:
            notes.append(f"map {self.board.state.board.name} is not calibrated yet: each sensor channel is "
                         f"taken as its stand and the LEDs light the default layout (fine in simulation; on a "
                         f"real board walk the calibration)")
        error = self.problem or self.board.map_led_problem
        return {"ok": not walks and error is None and not faults, "active": "+".join(walks) or None,
                "calibrated": calibrated, "refused": self.refused,
                "refused_note": None if self.refused is None else not_applied(self.refused),
                "note": "; ".join(notes) or None, "error": error,
                "faults": faults or None, "page": "/calibrate"}

    def saved_faults(self) -> list[str]:
        """What the saved calibration leaves the game blind to, in words for people: stands with no
        sensor, sensors answering for two stands, and sensors of no stand that have closed (a token
        there is not seen where it stands)."""
        cal = self.saved
        out = []
        if cal is not None and cal.dead:
            out.append(f"no sensor for {', '.join(cal.dead)}")
        if cal is not None and cal.duplicate:
            out.append(f"{len(cal.duplicate)} sensor(s) answer for two stands")
        unmapped = set(cal.unmapped if cal is not None else ())
        if self.board.channel_map is not None:  # before any calibration every channel is unmapped
            unmapped |= {ch for ch, closed in self.board.unmapped_channels.items() if closed}
        if unmapped:
            out.append(f"{len(unmapped)} sensor(s) belong to no stand (channels {', '.join(sorted(unmapped))})")
        return out

    def status(self) -> dict[str, Any]:
        with self._lock:
            b = self.board
            return {
                "file": str(self.path), "saved": self.saved.to_json() if self.saved else None,
                "problem": self.problem,
                "sensors": self.sensors.status() if self.sensors else None,
                "leds": self.leds.status() if self.leds else None,
                "cameras": {str(seat): self._camera_status(seat) for seat in self._seats()},
                "camera_limits": limits_json(),
                "channel_map": "identity" if b.channel_map is None else "calibrated",
                "unmapped_channels": sorted(b.unmapped_channels),
                "faults": self.saved_faults(),
                "strip": {"count": b.lighting.strip.count, "resizable": b.lighting.can_resize()},
            }

    # -- sensors ---------------------------------------------------------------------------------
    def on_switch(self, change: SwitchChange) -> bool:
        """Listener for raw switch changes; True (consumed) while a sensor walk is open.

        The walk is given the time the adapter saw the change (``change.at``), not the time it gets
        here: an adapter delivers the changes of one read one after another, each after the previous
        one's progress was written (and fsynced), which would push two reeds that opened together
        more than ``TOGETHER_S`` apart.
        """
        with self._lock:
            if self.sensors is None:
                return False
            # The start-up resync repeats many known states: only a real change is saved and sent.
            if self.sensors.on_change(change.channel, change.closed, change.at):
                self._changed()
            return True

    def sensors_start(self, mode: str = "lift", restart: bool = False) -> dict[str, Any]:
        """Begin a sensor walk; one already open (finished or not, saved or not) is thrown away
        only with ``restart``, since a 36-stand walk is a quarter of an hour of someone's evening."""
        with self._lock:
            self._writable()
            old = self.sensors
            if old is not None and not restart:
                where = ("finished and not saved" if old.done
                         else f"at {old.current}, {len(old.channels)} of {len(old.stands)} stands found")
                raise NeedsConfirmation(f"a sensor walk is open ({where}); start again to throw it away",
                                        [f"the open walk ({where}) is lost"])
            stands = list(self.board.state.board.stands)
            self.sensors = SensorWalk(stands, closed_at_start=self.board.sensors.snapshot(), mode=mode)
            self._changed()
            return self.status()

    def sensors_do(self, what: str, stand: str | None = None, confirm: bool = False) -> dict[str, Any]:
        """One step of the open walk; ``cancel`` throws away what it found only with ``confirm``."""
        with self._lock:
            walk = self._need(self.sensors, "sensor")
            if what == "skip":
                walk.skip()
            elif what == "back":
                walk.back()
            elif what == "resolve":
                walk.resolve()
            elif what == "redo":
                if stand is None:
                    raise ValueError("say which stand to walk again")
                walk.redo(stand)
            elif what == "cancel":
                if walk.channels and not confirm:
                    raise NeedsConfirmation("cancel the sensor walk?",
                                            [f"the {len(walk.channels)} stands found so far are lost"])
                self.sensors = None
                self.board.resync()  # the switches go back to the game
            else:
                raise ValueError(f"unknown sensor step {what!r}; expected skip, back, resolve, redo or cancel")
            self._changed()
            return self.status()

    def sensors_save(self, confirm: bool = False) -> dict[str, Any]:
        """Write the walk's channels; with anything still open (dead, stuck, duplicate or stray
        sensors, stands the read-back has not touched) only once the player has seen it (``confirm``)."""
        with self._lock:
            walk = self._need(self.sensors, "sensor")
            if not walk.done:
                raise ValueError(f"the sensor walk is at stand {walk.current} ({walk.index + 1} of "
                                 f"{len(walk.stands)}); finish or skip the remaining stands first")
            items = walk.open_items()
            unchecked = [s for s, v in walk.by_stand().items() if v == "mapped"]
            if unchecked:
                items.append(f"{len(unchecked)} of {len(walk.stands)} stands not touched in the read-back yet")
            if items and not confirm:
                raise NeedsConfirmation("the walk has open problems: save anyway?", items)
            cal = self._base()
            cal.channels, cal.dead = dict(walk.channels), list(walk.dead)
            cal.stuck, cal.duplicate = list(walk.stuck), list(walk.duplicate)
            cal.unmapped = list(walk.strays)
            self._save(cal)
            self.sensors = None
            self.board.resync()  # the game follows the switches again, under the new channel map
            self._changed()
            return self.status()

    # -- LEDs ------------------------------------------------------------------------------------
    def _show(self, frame: list[tuple[int, int, int]]) -> None:
        """Hold a test frame on the strip through the lighting thread (the one that talks to it)."""
        self.board.lighting.show_test_frame(list(frame))

    def _end_show(self) -> None:
        self.board.lighting.end_test_frame()

    def leds_start(self, count: int | None = None) -> dict[str, Any]:
        """Begin the LED walk on a strip of ``count`` pixels (the owner's count of the real strip;
        by default the length the board runs). A longer strip than the board was started with is
        driven from now on where the adapter allows it (:meth:`Lighting.set_length`)."""
        with self._lock:
            self._writable()
            lay = self.board.layout
            used = max((i for seg in (*lay.territories.values(), *lay.stands.values()) for i in seg), default=-1) + 1
            if count is not None and count != self.board.lighting.strip.count:
                if count < used:
                    raise ValueError(f"the layout lights pixels up to {used}; a strip of {count} is shorter than "
                                     f"that: count the pixels again, or start from a calibration file that fits")
                self.board.lighting.set_length(count)
            self.leds = LedWalk(lay.territories, self.board.lighting.strip.count, lay.stands)
            self._show(self.leds.frame())
            self._changed()
            return self.status()

    def leds_do(self, what: str, by: int = 0) -> dict[str, Any]:
        with self._lock:
            walk = self._need(self.leds, "LED")
            if what in ("shift", "resize"):
                if by and not (walk.shift(by) if what == "shift" else walk.resize(by)):
                    raise ValueError(f"cannot {what} by {by}: {walk.blocked(by, what == 'resize')}")
            elif what == "confirm":
                walk.confirm()
            elif what == "back":
                walk.back()
            elif what == "cancel":
                self.leds = None
                self._end_show()
                self._changed()
                return self.status()
            else:
                raise ValueError(f"unknown LED step {what!r}; expected shift, resize, confirm, back or cancel")
            self._show(walk.frame())
            self._changed()
            return self.status()

    def leds_save(self) -> dict[str, Any]:
        with self._lock:
            walk = self._need(self.leds, "LED")
            if not walk.done:
                raise ValueError(f"the LED walk is at territory {walk.current}; confirm every territory first")
            cal = self._base()
            cal.led_territories = {n: list(px) for n, px in walk.territories.items()}
            if walk.stands:  # measured along (they move with the segments before them); without them
                cal.leds["stands"] = {sid: list(px) for sid, px in walk.stands.items()}  # stands go dark
            cal.leds["count"] = walk.count  # the strip it was walked on, even if the end is unused
            self._save(cal)
            self.leds = None
            self._end_show()
            self._changed()
            return self.status()

    # -- cameras: a test scan per seat -----------------------------------------------------------
    def _seats(self) -> list[int]:
        seats = {getattr(c, "seat", i + 1) for i, c in enumerate(self.board.cameras)}
        return sorted(seats | set(self.cameras))

    def _last_card(self, seat: int) -> dict[str, Any] | None:
        return next((c for c in reversed(self.board.state.cards)
                     if isinstance(c, dict) and c.get("seat") == seat), None)

    @staticmethod
    def _showing(card: dict[str, Any] | None) -> Any:
        """What tells one showing of a card from the next: the card event's journal number.

        The same card shown again is an equal entry but a new event; an entry without ``seq``
        (a rules engine that does not number them) falls back to its content.
        """
        if card is None:
            return None
        return card["seq"] if "seq" in card else json.dumps(card, sort_keys=True)

    def _camera_status(self, seat: int) -> dict[str, Any]:
        check = self.cameras.get(seat)
        cam = next((c for c in self.board.cameras if getattr(c, "seat", None) == seat), None)
        out: dict[str, Any] = {"seat": seat, "health": cam.health() if cam else None, "testing": False}
        if self.saved and seat in self.saved.cameras:
            out["saved"] = self.saved.cameras[seat]
        if check:
            card = self._last_card(seat)
            new = card is not None and self._showing(card) != check["before"]
            if not new and "started" in check:  # a card held up since before the test, read again since
                held = self.board.card_desk.sessions.seen_since(seat, check["started"])
                if held:
                    new, card = True, {"seat": seat, "code": held[0].code, "payload": held[0].text}
            out.update(testing=not new, ok=new, card=card if new else None,
                       controls=check.get("controls"), applied=check.get("applied"))
        return out

    def camera_start(self, seat: int) -> dict[str, Any]:
        with self._lock:
            check = self.cameras.setdefault(seat, {})
            check["before"] = self._showing(self._last_card(seat))  # focus/exposure set earlier are kept
            check["started"] = self.board.card_desk.clock()
            self._changed()
            return self.status()

    def camera_save(self, seat: int) -> dict[str, Any]:
        with self._lock:
            st = self._camera_status(seat)
            if not st.get("ok"):
                raise ValueError(f"seat {seat} has not read a card since its test scan started; "
                                 f"show a card to that seat's camera first")
            cal = self._base()
            controls = {k: v for k, v in self.cameras[seat].get("controls", {}).items() if v is not None}
            cal.cameras[seat] = {"test_scan": True, **controls}
            self._save(cal)
            del self.cameras[seat]
            self._changed()
            return self.status()

    def _camera(self, seat: int) -> Any:
        cam = next((c for c in self.board.cameras if getattr(c, "seat", None) == seat), None)
        if cam is None:
            seats = ", ".join(str(s) for s in self._seats()) or "none"
            raise LookupError(f"no camera serves seat {seat} (seats with cameras: {seats})")
        return cam

    def camera_frame(self, seat: int) -> bytes:
        """The camera's current view as a PNG, for the live preview.

        Raises LookupError when no camera serves the seat (or it gives no frames at all), and
        :class:`CameraUnavailable` when the seat's camera failed to read (unplugged, busy): the page
        must say the camera is there but failing, not that there is none.
        """
        cam = self._camera(seat)
        with self._frame_lock:
            try:
                frame = cam.read()
            except OSError as exc:
                raise CameraUnavailable(f"seat {seat}'s camera cannot be read right now: {exc}") from exc
        if frame is None:
            why = " (a simulated camera: cards arrive by POST /api/sim/cards)" if self.board.sim else ""
            raise LookupError(f"seat {seat}'s camera gives no frames right now{why}")
        return frame_to_png(frame)

    def camera_controls(self, seat: int, focus: float | None, exposure_us: int | None) -> dict[str, Any]:
        """Set focus (dioptres, None = auto) and exposure (µs, None = auto) for the seat's camera.

        Applied at once when the camera adapter offers ``set_controls(focus=..., exposure_us=...)``;
        kept for the calibration file either way (saved with the seat's test scan).
        """
        for name, value in (("focus", focus), ("exposure_us", exposure_us)):
            why = None if value is None else control_problem(name, value, "or null for auto")
            if why:
                raise ValueError(why)
        with self._lock:
            cam = self._camera(seat)
            applied = apply_controls(cam, {"focus": focus, "exposure_us": exposure_us})
            check = self.cameras.setdefault(seat, {"before": self._showing(self._last_card(seat))})
            check["controls"] = {"focus": focus, "exposure_us": exposure_us}
            check["applied"] = applied
            self._changed()
            return self.status()

    # -- helpers ---------------------------------------------------------------------------------
    @staticmethod
    def _need(walk: Any, what: str) -> Any:
        if walk is None:
            raise ValueError(f"no {what} walk is open; start one first")
        return walk

    def _base(self) -> Calibration:
        name = self.board.state.board.name
        if self.saved is not None and self.saved.board == name:
            c = self.saved
            return Calibration(board=name, channels=dict(c.channels), dead=list(c.dead), stuck=list(c.stuck),
                               duplicate=list(c.duplicate), unmapped=list(c.unmapped),
                               led_territories=dict(c.led_territories), cameras=dict(c.cameras),
                               leds=json.loads(json.dumps(c.leds)))
        self._writable()
        return Calibration(board=name)

    def _writable(self) -> None:
        """Refuse to start over a file that exists but did not load: saving would drop what it holds
        (hand-set ``[leds]`` keys, other walks' results) without a word."""
        if self.saved is None and self.path.exists():
            raise ValueError(f"{self.path} exists but was not applied ({self.problem}); fix it and restart "
                             f"the board, or move it away to start a new calibration")

    def _save(self, cal: Calibration) -> None:
        files.save(self.path, cal, self.board.state.board)
        self.saved = cal
        self.problem = self.refused = None
        self.apply(cal)


def attach(board: CalibrationHost, saved: SavedFile | None = None) -> CalibrationSession:
    """Give ``board`` its calibration: apply the saved file (``saved``, when the board has read it
    already; otherwise it is read here) and listen to raw switches.

    The page's and the walk's routes are the web layer's (:mod:`kipukas_board.web.calibration_api`);
    the board lists them with its other route plugins."""
    session = CalibrationSession(board, saved)
    board.switch_listeners.append(session.on_switch)
    board.health_sources["calibration"] = session.health
    return session
