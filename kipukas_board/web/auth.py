"""The admin PIN that guards every change to the game or the calibration.

Only a salted scrypt hash is stored (``admin-pin.json`` in the data directory). The PIN comes from
``--admin-pin`` or ``KIPUKAS_ADMIN_PIN``; on a first run with neither, a random 6-digit PIN is made
and printed once on the console.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

_N, _R, _P = 2**14, 8, 1


def _hash(pin: str, salt: bytes) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)


class PinStore:
    FILENAME = "admin-pin.json"

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / self.FILENAME
        self._salt: bytes | None = None
        self._hash: bytes | None = None
        if self.path.exists():
            d = json.loads(self.path.read_text())
            self._salt = bytes.fromhex(d["salt"])
            self._hash = bytes.fromhex(d["scrypt"])

    @property
    def is_set(self) -> bool:
        return self._hash is not None

    def set(self, pin: str) -> None:
        """Store ``pin`` (4 to 12 digits), replacing any earlier one; written atomically."""
        if not (pin.isdigit() and 4 <= len(pin) <= 12):
            raise ValueError("the admin PIN must be 4 to 12 digits")
        if self.check(pin):
            return
        salt = secrets.token_bytes(16)
        digest = _hash(pin, salt)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"salt": salt.hex(), "scrypt": digest.hex(), "n": _N}))
        os.replace(tmp, self.path)
        self._salt, self._hash = salt, digest

    def make_random(self) -> str:
        pin = f"{secrets.randbelow(10**6):06d}"
        self.set(pin)
        return pin

    def check(self, pin: str | None) -> bool:
        if not pin or self._hash is None or self._salt is None:
            return False
        return hmac.compare_digest(_hash(pin, self._salt), self._hash)
