"""A seat camera's calibrated focus and exposure: read from the calibration file and put on the camera.

The calibration walk's camera step keeps a seat's focus (dioptres) and exposure (µs) in the map's
calibration file (``[[cameras]]``, only the ones set by hand: a missing key means auto). The running
board puts them on its cameras (:meth:`~kipukas_board.calibrate.session.CalibrationSession.apply`),
and the maker's tools that read a seat's camera (``kipukas-board bench-pi --cameras``) do the same
through these functions, so they measure what the board sees.

Example::

    >>> from kipukas_board.calibrate.files import Calibration
    >>> cal = Calibration(board="Kipuka of Eight", cameras={1: {"test_scan": True, "exposure_us": 8000}})
    >>> saved_controls(cal, 1), saved_controls(cal, 2), saved_controls(None, 1)
    ({'exposure_us': 8000}, {}, {})
    >>> class Camera:
    ...     def set_controls(self, focus=None, exposure_us=None):
    ...         print(f"focus {focus}, exposure {exposure_us}")
    ...     def automatic(self):
    ...         print("automatic")
    ...         return True
    >>> apply_controls(Camera(), {"exposure_us": 8000})
    focus None, exposure 8000
    True
    >>> apply_controls(Camera(), {})   # nothing calibrated for the seat: back to automatic
    automatic
    True
    >>> apply_controls(object(), {"exposure_us": 8000})   # an adapter that cannot set them
    False
    >>> describe({"exposure_us": 8000})
    'focus auto, exposure 8000 µs'
    >>> describe({})
    'not calibrated: automatic exposure, continuous autofocus where the camera has a focus motor'
    >>> print(describe({}, refused="focus = 99: expected ..."))  # doctest: +NORMALIZE_WHITESPACE
    automatic exposure, continuous autofocus where the camera has a focus motor;
    the calibration file was not applied: focus = 99: expected ...
    >>> control_problem("focus", 99, "or null for auto")
    'focus = 99: expected dioptres from 0 (far) to 15 (close), or null for auto'
    >>> control_problem("exposure_us", 8000, "or null for auto") is None
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, Protocol

from kipukas_board.strictjson import is_int, is_number


class SavedCameras(Protocol):
    """What :func:`saved_controls` reads of a calibration (a
    :class:`~kipukas_board.calibrate.files.Calibration`): its ``[[cameras]]`` by seat. A protocol,
    not the class, since ``files.py`` checks those entries with the limits below."""

    @property
    def cameras(self) -> Mapping[int, Mapping[str, Any]]: ...

#: The camera settings the walk keeps per seat, as ``set_controls`` names them.
CONTROLS = ("focus", "exposure_us")

#: The focus a seat camera may be given, in dioptres (1 / distance in metres): 0 is infinity (far),
#: 15 is about 7 cm (close).
FOCUS_DIOPTRES = (0.0, 15.0)

#: The exposure a seat camera may be given, in microseconds: 0.1 ms to 1 s.
EXPOSURE_US = (100, 1_000_000)


def limits_json() -> dict[str, dict[str, float]]:
    """The limits above as the calibration page's inputs take them (their ``min`` and ``max``), so the
    page offers what the board accepts and states them nowhere else.

    Example::

        >>> limits_json()["exposure_us"]
        {'min': 100, 'max': 1000000}
    """
    return {"focus": {"min": FOCUS_DIOPTRES[0], "max": FOCUS_DIOPTRES[1]},
            "exposure_us": {"min": EXPOSURE_US[0], "max": EXPOSURE_US[1]}}


def control_problem(name: str, value: Any, auto: str) -> str | None:
    """Why ``value`` cannot be the camera setting ``name`` (None: it can); ``auto`` says how the
    caller's input asks for auto instead ("or null for auto" in a request, "or leave it out for auto"
    in a file). The one check of both the calibration walk's request and the calibration file."""
    if name == "focus":
        lo, hi = FOCUS_DIOPTRES
        if not is_number(value) or not lo <= value <= hi:
            return f"focus = {value!r}: expected dioptres from {lo:g} (far) to {hi:g} (close), {auto}"
        return None
    if name == "exposure_us":
        lo, hi = EXPOSURE_US
        if not is_int(value) or not lo <= value <= hi:
            return f"exposure_us = {value!r}: expected a whole number of microseconds from {lo} to {hi}, {auto}"
        return None
    return f"{name!r} is not a camera setting; expected one of {', '.join(CONTROLS)}"


def saved_controls(cal: SavedCameras | None, seat: int) -> dict[str, Any]:
    """The focus and exposure ``cal`` keeps for ``seat``'s camera: only those set by hand ({} for none,
    or no calibration file)."""
    if cal is None:
        return {}
    saved = cal.cameras.get(seat, {})
    return {k: saved[k] for k in CONTROLS if k in saved}


def apply_controls(cam: Any, controls: dict[str, Any]) -> bool:
    """Put ``controls`` on ``cam`` when its adapter offers ``set_controls`` (a key left out means auto);
    False when it cannot set them (recorded files). No ``controls`` (a seat the calibration keeps
    nothing for, or no calibration) puts the camera back on automatic
    (:meth:`~kipukas_board.hardware.cameras.port.Camera.automatic`), so it never keeps another map's
    manual settings. An adapter that refuses a value (a fixed-focus lens asked for a focus) raises
    ValueError after the camera was put on automatic; an unplugged one raises OSError or
    RuntimeError. The caller says so and goes on."""
    if not controls:
        automatic = getattr(cam, "automatic", None)
        if automatic is not None:
            return bool(automatic())
    setter = getattr(cam, "set_controls", None)
    if setter is None:
        return False
    try:
        setter(**controls)
    except ValueError:  # a value this camera refuses: none of the seat's settings, its automatic ones
        with contextlib.suppress(ValueError, OSError, RuntimeError):
            apply_controls(cam, {})
        raise
    return True


#: What a seat's camera runs on with no calibrated focus or exposure, in words for makers.
AUTOMATIC = "automatic exposure, continuous autofocus where the camera has a focus motor"
#: What it runs on then when its adapter cannot put it on automatic (recorded images, an adapter
#: without ``automatic`` or ``set_controls``): whatever it was left on.
DEFAULTS = "camera defaults (this camera cannot be put on automatic settings)"


def not_applied(refused: str) -> str:
    """The one sentence that says a map's calibration file was refused, with why (``refused``:
    :attr:`~kipukas_board.calibrate.files.SavedFile.summary`): the board's page shows it in the
    new-game form's map note (``health.calibration.refused_note``), and ``scan`` and ``bench-pi`` on
    each seat's line (:func:`describe`), so the three cannot say it differently.

    Example::

        >>> not_applied("focus = 99: expected ...")
        'the calibration file was not applied: focus = 99: expected ...'
    """
    return f"the calibration file was not applied: {refused}"


def describe(controls: dict[str, Any], refused: str | None = None, automatic: bool = True) -> str:
    """``controls`` in words, for a table's head or a log line. ``refused``: why the map's calibration
    file was not applied (:attr:`~kipukas_board.calibrate.files.SavedFile.summary`), said in the
    board page's sentence (:func:`not_applied`). ``automatic``: False for a camera that could not be
    put on automatic (:func:`apply_controls` gave False with no ``controls``), which keeps its
    defaults.

    Example::

        >>> describe({}, automatic=False)
        'not calibrated: camera defaults (this camera cannot be put on automatic settings)'
    """
    fallback = AUTOMATIC if automatic else DEFAULTS
    if refused is not None:
        return f"{fallback}; {not_applied(refused)}"
    if not controls:
        return f"not calibrated: {fallback}"
    focus = controls.get("focus")
    exposure = controls.get("exposure_us")
    return (("focus auto" if focus is None else f"focus {focus} dioptres") + ", "
            + ("exposure auto" if exposure is None else f"exposure {exposure} µs"))
