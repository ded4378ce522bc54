"""A decoder in a worker process of its own, stopped once it has used up its CPU deadline.

A decoder library call cannot be interrupted from Python: OpenCV's WeChat reader, on a frame where it
finds no code, tries binariser after binariser for hundreds of milliseconds (seconds on sensor
noise), and a thread cannot be stopped meanwhile. So the decoder runs in a child process that
serves one image at a time; the caller waits for the answer while watching the CPU time the child
has used (Linux ``/proc/PID/schedstat``, nanoseconds), and kills it when that passes the deadline.
The next call starts a fresh child (started at once, so it is ready by the next heavy pass).

Counting the child's CPU time rather than wall time keeps the deadline fair on a busy machine: a
child that waited for a core has not used its time. Where ``/proc`` is missing the wall time since
the image was sent is used instead (never less than the CPU time of a single-threaded child).

Each :class:`IsolatedDecoder` has its own process, so two seats never wait for each other.

Example (not run as a doctest: it starts a decoder process and needs an image;
``tests/vision/test_vision_pipeline.py`` runs it)::

    >>> dec = IsolatedDecoder("wechat")                 # doctest: +SKIP
    >>> dec(grey_image, deadline_ms=60.0)               # doctest: +SKIP
    [Decoded(text='kpks.us/RrDC#0001?DmFz33', points=(...))]
    >>> dec.last_cpu_ms                                 # doctest: +SKIP
    12.4
    >>> dec.close()                                     # doctest: +SKIP
"""

from __future__ import annotations

import math
import multiprocessing
import time
from typing import Any

from kipukas_board.vision.decoders import Decoded, DecoderTimeout, DecoderUnavailable


def process_cpu_ms(pid: int) -> float | None:
    """CPU time process ``pid`` has used, in ms (Linux ``/proc/PID/schedstat``), or None."""
    try:
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as f:
            return int(f.read().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        return None


def fork_server_pid() -> int | None:
    """The process id of the fork server this process's worker processes come from (see
    :func:`_context`: a child of this process), or None where there is none yet, none at all (no
    fork server on this system) or no ``/proc`` to find it in. Its CPU time
    (:func:`process_cpu_ms`) is what starting the workers cost, about 1.5 ms a fork on the
    development machine: no worker's own CPU counts it."""
    import os

    me = os.getpid()
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return None
    for pid in entries:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])  # after the name, which may hold spaces
            if ppid != me:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"multiprocessing.forkserver" in f.read():
                    return int(pid)
        except (OSError, ValueError, IndexError):
            continue
    return None


def _context() -> Any:
    """Children come from a fork server that has imported OpenCV once, so replacing a killed child
    costs a fork (milliseconds), not a Python start and an OpenCV import (a third of a second).
    The board itself is never forked: it runs threads."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["cv2", "numpy", "kipukas_board.vision.decoders"])
    return ctx


def _serve(name: str, conn: Any) -> None:
    """The child: make the decoder, then answer one image after another until the pipe closes."""
    import cv2
    import numpy as np

    from kipukas_board.vision.decoders import make_decoder

    cv2.setNumThreads(1)  # one core per decoder: the deadline counts this process's CPU time
    try:
        dec = make_decoder(name)
    except Exception as exc:
        conn.send(("unavailable", str(exc)))
        return
    conn.send(("ready", None))
    while True:
        try:
            shape, dtype = conn.recv()
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            img = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)
            # reads only: a place located but not decoded is of use to the strategies in this process
            conn.send(("ok", [(d.text, d.points) for d in dec(img) if not d.located]))
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class IsolatedDecoder:
    """Decoder ``name`` (see :mod:`kipukas_board.vision.decoders`) in a worker process.

    Call it as ``dec(image, deadline_ms=...)``; it raises :class:`DecoderTimeout` when the child
    used ``deadline_ms`` of CPU without answering (the child is then killed and replaced).
    ``last_cpu_ms`` is the child's CPU time for the last call; :meth:`cpu_ms` the total of every
    child so far, start-up included (what this decoder has cost the machine).
    """

    interruptible = True

    def __init__(self, name: str, ready_timeout_s: float = 120.0) -> None:
        self.name = name
        self.ready_timeout_s = ready_timeout_s
        self.last_cpu_ms = 0.0
        self.kills = 0
        self._spent_by_dead = 0.0
        self._proc: Any = None
        self._conn: Any = None
        self._ready = False
        self._start()

    # -- life of the child -----------------------------------------------------------------------
    def _start(self) -> None:
        ctx = _context()
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_serve, args=(self.name, child), name=f"kipukas-{self.name}", daemon=True)
        proc.start()
        child.close()
        self._proc, self._conn, self._ready = proc, parent, False

    def _stop(self) -> None:
        if self._proc is None:
            return
        used = process_cpu_ms(self._proc.pid)
        self._spent_by_dead += used or 0.0
        self._conn.close()
        self._proc.kill()
        self._proc.join(5)
        self._proc = self._conn = None
        self._ready = False

    def _wait_ready(self) -> None:
        if self._ready:
            return
        try:
            if not self._conn.poll(self.ready_timeout_s):
                raise DecoderUnavailable(f"the {self.name} worker process did not start within "
                                         f"{self.ready_timeout_s:.0f} s")
            kind, detail = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._stop()
            raise DecoderUnavailable(f"the {self.name} worker process ended while starting ({exc})") from exc
        if kind != "ready":
            self._stop()
            raise DecoderUnavailable(str(detail))
        self._ready = True

    def ready(self) -> None:
        """Wait until the worker process can take an image (it starts in the background)."""
        if self._proc is None:
            self._start()
        self._wait_ready()

    def close(self) -> None:
        """End the worker process (a later call starts a new one)."""
        self._stop()

    def cpu_ms(self) -> float:
        """CPU time used by every worker process of this decoder so far, in ms."""
        now = process_cpu_ms(self._proc.pid) if self._proc is not None else None
        return self._spent_by_dead + (now or 0.0)

    # -- one image ---------------------------------------------------------------------------------
    def __call__(self, image: Any, deadline_ms: float | None = None) -> list[Decoded]:
        import numpy as np

        self.last_cpu_ms = 0.0
        if self._proc is None:
            self._start()
        self._wait_ready()
        img = np.ascontiguousarray(image)
        pid = self._proc.pid
        c0 = process_cpu_ms(pid)
        w0 = time.perf_counter()

        def used() -> float:
            c = process_cpu_ms(pid) if c0 is not None else None
            return c - c0 if c is not None and c0 is not None else (time.perf_counter() - w0) * 1000

        try:
            self._conn.send((img.shape, img.dtype.str))
            self._conn.send_bytes(memoryview(img).cast("B"))
            while True:
                left = math.inf if deadline_ms is None else deadline_ms - used()
                if left <= 0:
                    self.last_cpu_ms = used()
                    self.kills += 1
                    self._stop()
                    self._start()  # warms up while the caller goes on
                    raise DecoderTimeout(f"{self.name} stopped after {self.last_cpu_ms:.0f} ms of CPU "
                                         f"(deadline {deadline_ms:.0f} ms)")
                # a single-threaded child cannot use more CPU than the wall time waited
                if self._conn.poll(min(left / 1000, 1.0)):
                    break
            kind, payload = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._stop()
            raise RuntimeError(f"the {self.name} worker process died ({exc}); "
                               "a new one starts on the next call") from exc
        self.last_cpu_ms = used()
        if kind != "ok":
            raise RuntimeError(str(payload))
        return [Decoded(text, tuple(tuple(p) for p in pts) if pts else None) for text, pts in payload]
