"""What every benchmark records about the run: CPU, versions, git commit, time (one place)."""

from __future__ import annotations

import datetime as _dt
import json
import platform
import subprocess
from pathlib import Path
from typing import Any


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or what platform knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions() -> dict[str, str]:
    """Versions of Python and the libraries a figure depends on."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("skatsim", "numpy", "numba", "llvmlite", "pandas", "open_spiel"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def git_commit() -> str:
    """Short hash of the checked-out commit ('' outside a git checkout)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def append_jsonl(path: str | Path, record: dict[str, Any]) -> Path:
    """Append one JSON line to ``path`` (folders created as needed)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a") as f:
        f.write(json.dumps(record) + "\n")
    return p


RESULTS_DIR = Path(__file__).resolve().parent / "results"
RUNS_DIR = Path(__file__).resolve().parent.parent / "runs"  # gitignored


def add_output_args(ap: Any, name: str) -> None:
    """``--record`` (append to the tracked ``benchmarks/results/<name>.jsonl``), ``--out PATH``
    and ``--no-json``; by default results go to the untracked ``runs/<name>.jsonl``."""
    ap.add_argument("--record", action="store_true",
                    help=f"append the result to the tracked benchmarks/results/{name}.jsonl")
    ap.add_argument("--out", default=None, help=f"JSON lines file to append to (default: runs/{name}.jsonl, "
                                                f"which git ignores; with --record: benchmarks/results/{name}.jsonl)")
    ap.add_argument("--no-json", action="store_true", help="print only, write no JSON line")


def output_path(args: Any, name: str) -> Path | None:
    """Where :func:`add_output_args` options send the JSON line (None: nowhere)."""
    if args.no_json:
        return None
    if args.out:
        return Path(args.out)
    return (RESULTS_DIR if args.record else RUNS_DIR) / f"{name}.jsonl"


def write_record(args: Any, name: str, record: dict[str, Any]) -> Path | None:
    """Append ``record`` where the options say, and print where it went."""
    path = output_path(args, name)
    if path is not None:
        append_jsonl(path, record)
        print(f"result appended to {path}")
    return path


def timed(fn, seconds: float) -> tuple[float, int, float]:
    """Call ``fn`` (returns items done) repeatedly for about ``seconds``: (rate, items, elapsed)."""
    import time

    items, t0 = 0, time.perf_counter()
    while True:
        items += fn()
        el = time.perf_counter() - t0
        if el >= seconds:
            return items / el, items, el
