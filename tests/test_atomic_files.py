"""Every file the board writes goes through one writer (textfile.atomic_path): a failure anywhere
leaves the old file whole and no temporary file behind, and the new file is fsynced before the
rename and the folder after it."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from kipukas_board import textfile
from kipukas_board.textfile import atomic_path, write_bytes_atomic, write_text_atomic


def test_a_failure_while_writing_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    write_text_atomic(path, "old")
    with pytest.raises(RuntimeError), atomic_path(path) as tmp:
        tmp.write_text("half")
        raise RuntimeError("the writer failed")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["keys.json"]


def test_a_failed_fsync_leaves_the_old_file(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "pin.json"
    write_text_atomic(path, "old")

    def refuse(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(textfile.os, "fsync", refuse)
    with pytest.raises(OSError, match="No space"):
        write_text_atomic(path, "new")
    monkeypatch.undo()
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["pin.json"]


def test_the_file_and_then_its_folder_are_fsynced_around_the_rename(tmp_path: Path, monkeypatch) -> None:
    order: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        order.append("fsync dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync file")
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        order.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(textfile.os, "fsync", fsync)
    monkeypatch.setattr(textfile.os, "replace", replace)
    write_bytes_atomic(tmp_path / "sub" / "x.bin", b"\x00\x01")
    assert order == ["fsync file", "rename", "fsync dir"]
    assert (tmp_path / "sub" / "x.bin").read_bytes() == b"\x00\x01"


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_the_mode_is_the_callers(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "f"
    write_text_atomic(path, "x", mode=mode)
    assert path.stat().st_mode & 0o777 == mode


def test_no_module_replaces_a_file_by_itself() -> None:
    """Only textfile renames a file over another (atomic_path, replace_durably)."""
    root = Path(__file__).resolve().parents[1] / "kipukas_board"
    allowed = {root / "textfile.py"}
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p not in allowed and ("os.replace(" in p.read_text() or "os.rename(" in p.read_text())]
    assert offenders == []


def test_no_module_renames_a_path_over_another_by_itself() -> None:
    """Nor through pathlib: ``tmp.replace(path)`` or ``tmp.rename(path)`` (one argument; a string's
    ``replace`` takes two) outside textfile is a second atomic writer without its fsyncs."""
    root = Path(__file__).resolve().parents[1] / "kipukas_board"
    offenders = []
    for p in root.rglob("*.py"):
        if p == root / "textfile.py":
            continue
        for node in ast.walk(ast.parse(p.read_text(), str(p))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("replace", "rename") and len(node.args) == 1 and not node.keywords:
                offenders.append(f"{p.relative_to(root)}:{node.lineno}")
    assert offenders == [], f"write these through kipukas_board.textfile (write_text_atomic, atomic_path): {offenders}"
