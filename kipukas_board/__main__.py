"""``python -m kipukas_board`` does what the ``kipukas-board`` command does."""

from kipukas_board.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
