"""What every benchmark records about the run: CPU, versions, git commit, time (one place)."""

from __future__ import annotations

import datetime as _dt
import json
import platform
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
    """:func:`skatsim.runs.versions` (Python, platform, packages, commit), plus the outside
    references the benchmarks compare with (OpenSpiel, RLCard)."""
    from importlib.metadata import PackageNotFoundError, version

    from skatsim.runs import versions as run_versions

    out = run_versions()
    for pkg in ("open_spiel", "rlcard"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def git_commit() -> str:
    """Short hash of the checkout holding the benchmarks ('' outside a git checkout)."""
    from skatsim.runs import git_commit as commit_of

    return commit_of(Path(__file__).resolve().parent)


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def append_jsonl(path: str | Path, record: dict[str, Any]) -> Path:
    """Append one JSON line to ``path`` (folders created as needed)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a") as f:
        f.write(json.dumps(record) + "\n")
    return p


def default_output(name: str) -> Path:
    """``./runs/benchmarks/<name>.jsonl``, relative to the current folder (never the source
    tree; ``runs/`` is git-ignored)."""
    return Path("runs") / "benchmarks" / f"{name}.jsonl"


def add_output_args(ap: Any, name: str) -> None:
    """``--out PATH`` (default :func:`default_output`) and ``--no-json``."""
    ap.add_argument("--out", default=None,
                    help=f"JSON lines file to append the result to (default: ./runs/benchmarks/{name}.jsonl)")
    ap.add_argument("--no-json", action="store_true", help="print only, write no JSON line")


def output_path(args: Any, name: str) -> Path | None:
    """Where :func:`add_output_args` options send the JSON line (None: nowhere)."""
    if args.no_json:
        return None
    return Path(args.out) if args.out else default_output(name)


def write_record(args: Any, name: str, record: dict[str, Any]) -> Path | None:
    """Append ``record`` where the options say, and print where it went."""
    path = output_path(args, name)
    if path is not None:
        append_jsonl(path, record)
        print(f"result appended to {path}")
    return path


def timed(fn, seconds: float, clock=None) -> tuple[float, int, float]:
    """Call ``fn`` (returns items done) repeatedly for about ``seconds`` of ``clock`` (default
    ``time.perf_counter``, wall; ``time.process_time``: CPU seconds of this process, which
    other jobs on a shared machine disturb less): (rate, items, elapsed)."""
    import time

    clock = clock or time.perf_counter
    items, t0 = 0, clock()
    while True:
        items += fn()
        el = clock() - t0
        if el >= seconds:
            return items / el, items, el
