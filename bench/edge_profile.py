"""Where the edge's time goes: py-spy samples the edge while wrk drives chat load.

py-spy comes from its own venv (CACHE/tools, `uv pip install py-spy`) or PATH. The raw
collapsed stacks are kept beside the report (docs/benchmarks/edge-profile.txt) and
summarised as the functions with the most self and inclusive samples.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections import Counter
from pathlib import Path

from .load import run_wrk
from .procs import listeners
from .targets import CACHE

_LINE = re.compile(r"\s*\(([^()]*?)(?::\d+)?\)$")


def py_spy() -> str | None:
    local = CACHE / "tools/bin/py-spy"
    if local.exists():
        return str(local)
    return shutil.which("py-spy")


def install_py_spy() -> str | None:
    uv = shutil.which("uv")
    if not uv:
        return None
    venv = CACHE / "tools"
    subprocess.run([uv, "venv", "--python", "3.11", str(venv)], capture_output=True)
    subprocess.run(
        [uv, "pip", "install", "--python", str(venv / "bin/python"), "py-spy==0.4.3"], capture_output=True
    )
    return py_spy()


def _frame_name(frame: str) -> str:
    """'handle (tollway_edge/app.py:42)' -> 'handle (tollway_edge/app.py)'."""
    m = _LINE.search(frame)
    if not m:
        return frame.strip()
    path = m.group(1)
    # keep the package-relative part of the file path
    for marker in ("site-packages/", "/src/", "lib/python3.11/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return frame[: m.start()].strip() + f" ({path})"


def summarise(collapsed: str, top: int = 15) -> dict:
    """Self and inclusive sample shares per function from py-spy's raw (collapsed) output."""
    self_c: Counter[str] = Counter()
    incl_c: Counter[str] = Counter()
    pkg_c: Counter[str] = Counter()
    total = 0
    for line in collapsed.splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        frames = [_frame_name(f) for f in stack.split(";")]
        # the first frame is the thread (e.g. "process 123:..."/"thread ..."); drop non-code frames
        frames = [f for f in frames if "(" in f]
        if not frames:
            continue
        total += count
        self_c[frames[-1]] += count
        leaf_path = frames[-1].rsplit("(", 1)[1].rstrip(")")
        pkg_c[leaf_path.split("/", 1)[0] if "/" in leaf_path else leaf_path] += count
        for f in set(frames):
            incl_c[f] += count
    share = lambda c: [{"function": f, "share": round(v / total, 4)} for f, v in c.most_common(top)]  # noqa: E731
    return {"samples": total, "self": share(self_c), "inclusive": share(incl_c), "by_package": share(pkg_c)}


def profile_edge(edge, body: bytes, duration: float, out_dir: Path) -> dict:
    """Profile the edge's first listening process for `duration` s under chat load at c=16."""
    exe = py_spy() or install_py_spy()
    if not exe:
        return {"skipped": "py-spy not available (uv pip install py-spy into ~/.cache/tollway/bench/tools)"}
    port = int(edge.base.rsplit(":", 1)[1])
    pids = listeners(port)
    if not pids:
        return {"skipped": "edge not listening"}
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = out_dir / "edge-profile.txt"
    argv = [
        exe,
        "record",
        "--pid",
        str(pids[0]),
        "--duration",
        f"{int(duration)}",
        "--rate",
        "250",
        "--format",
        "raw",
        "--output",
        str(raw),
        "--nonblocking",
    ]
    holder: dict = {}

    def load() -> None:
        holder["wrk"] = run_wrk(
            edge.base + edge.chat_path,
            method="POST",
            body=body,
            headers={**edge.headers, "content-type": "application/json"},
            concurrency=16,
            duration_s=duration + 1,
        )

    th = threading.Thread(target=load)
    th.start()
    p = subprocess.run(argv, capture_output=True, text=True)
    th.join()
    if p.returncode != 0 or not raw.exists():
        return {"skipped": f"py-spy failed ({p.returncode}): {(p.stderr or p.stdout).strip()[-400:]}"}
    s = summarise(raw.read_text())
    s["pid"] = pids[0]
    s["file"] = str(raw.relative_to(out_dir.parent)) if out_dir.parent in raw.parents else str(raw)
    s["command"] = " ".join(argv[1:]).replace(str(raw), raw.name)
    w = holder.get("wrk")
    s["load_rps"] = w.rps if w else None
    return s
