"""Waiting in tests for what a thread, a process or a server does by itself: poll, never sleep a fixed time.

A fixed sleep is either too short on a loaded machine (a flaky test) or too long everywhere (a slow
suite); polling returns as soon as the thing is there, and its timeout is only a ceiling.

Example::

    >>> import itertools
    >>> n = itertools.count()
    >>> wait_for(lambda: next(n) >= 3, timeout=1.0)
    True
    >>> wait_for(lambda: None, timeout=0.02) is None
    True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_for(cond: Callable[[], T], timeout: float = 10.0, every: float = 0.01) -> T:
    """``cond()``'s value as soon as it is truthy, or its value at ``timeout`` seconds (a ceiling for
    a loaded machine, not a time the test expects to take)."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got or time.monotonic() >= deadline:
            return got
        time.sleep(every)
