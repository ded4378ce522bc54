"""How to install one of the project's optional parts (a pip extra), in words that work.

The project is not on a package index, so asking pip for ``kipukas-board`` by name finds nothing. An
extra goes into the checkout's own venv, from the checkout (as the makers' pages say), or comes with
the script that sets that venv up. Every error that names a missing library ends with this hint.

Example::

    >>> extra_hint("parts")
    "from the checkout: .venv/bin/pip install -e '.[parts]' (scripts/run-tests installs it too)"
"""

from __future__ import annotations

#: The set-up script (in ``scripts/``) that installs each extra into the checkout's ``.venv``:
#: ``run-board`` the card decoders, ``run-tests`` everything a development machine needs.
INSTALLED_BY = {
    "vision": "scripts/run-board",
    "parts": "scripts/run-tests",
    "stickers": "scripts/run-tests",
}


def extra_hint(extra: str) -> str:
    """The command that installs ``extra`` from a checkout, and the script that installs it too."""
    hint = f"from the checkout: .venv/bin/pip install -e '.[{extra}]'"
    script = INSTALLED_BY.get(extra)
    return f"{hint} ({script} installs it too)" if script else hint
