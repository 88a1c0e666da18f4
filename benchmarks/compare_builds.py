"""Rule-based self-play speed of two checkouts of skatsim, measured at the same moment.

    python benchmarks/compare_builds.py OLD_CHECKOUT NEW_CHECKOUT [--runs 6] [--seconds 8]
                                        [--seed 2024] [--out PATH]

For a speed change that must not change a game (the engine regression digests check that),
this measures what the change bought. Each run starts one process per checkout (its own
``PYTHONPATH`` and numba cache), both pinned to the same core and time-sliced by the
operating system, each counting ``simulate(50_000, policy="rule_based", workers=1)`` games
per CPU second of its own process (``time.process_time``) for ``--seconds``. The drift of a
shared VM, which moves two sequential measurements by up to a third, then hits both alike:
on the 2-core development VM the ratio of six such runs spread over 1.138-1.153 where
sequential pairs spread over 0.83-1.29. Runs alternate the cores; both checkouts are
compiled (cached) before the first run. Prints one row per run and the median ratio
NEW / OLD, and appends one JSON line to ``./runs/benchmarks/compare_builds.jsonl`` (or
``--out``).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_env", _HERE / "_env.py")
_env = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(_env)  # type: ignore[union-attr]

#: The measuring child: pin to a core, compile, then count games per CPU second.
_CHILD = """
import os, sys, time
core, secs, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
if core >= 0:
    os.sched_setaffinity(0, {core})
from skatsim.simulate import simulate
simulate(2000, policy="rule_based", seed=seed, workers=1, progress=False)
n, c = 0, time.process_time()
while time.process_time() - c < secs:
    simulate(50_000, policy="rule_based", seed=seed, workers=1, start=n, progress=False)
    n += 50_000
print(n / max(time.process_time() - c, 1e-9))
"""


def _start(checkout: Path, cache: str, core: int, seconds: float, seed: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "NUMBA_CACHE_DIR": cache, "NUMBA_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-c", _CHILD, str(core), str(seconds), str(seed)],
                            cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(p: subprocess.Popen[str], name: str) -> float:
    out, err = p.communicate()
    if p.returncode != 0:
        raise SystemExit(f"compare_builds: the {name} checkout failed:\n{err.strip()[-2000:]}")
    return float(out.strip().splitlines()[-1])


def _commit(checkout: Path) -> str | None:
    """The checkout's commit (``+`` when it has uncommitted changes), None outside git."""
    try:
        head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path, help="checkout of the old build (a folder holding skatsim/)")
    ap.add_argument("new", type=Path, help="checkout of the new build")
    ap.add_argument("--runs", type=int, default=6, help="runs (default 6; cores alternate)")
    ap.add_argument("--seconds", type=float, default=8.0, help="CPU seconds each process measures (default 8)")
    ap.add_argument("--seed", type=int, default=2024, help="run seed (default 2024)")
    _env.add_output_args(ap, "compare_builds")
    a = ap.parse_args(argv)
    for d in (a.old, a.new):
        if not (d / "skatsim" / "__init__.py").is_file():
            ap.error(f"{d} is not a skatsim checkout (no skatsim/__init__.py)")
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [-1]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="compare_builds_") as tmp:
        caches = {"old": os.path.join(tmp, "old"), "new": os.path.join(tmp, "new")}
        for name, d in (("old", a.old), ("new", a.new)):  # compile both, nothing measured
            _finish(_start(d.resolve(), caches[name], -1, 0.0, a.seed), name)
        print(f"{'run':>3} {'core':>4} {'old games/CPU s':>16} {'new games/CPU s':>16} {'new/old':>8}")
        for i in range(a.runs):
            core = cores[i % len(cores)]
            po = _start(a.old.resolve(), caches["old"], core, a.seconds, a.seed)
            pn = _start(a.new.resolve(), caches["new"], core, a.seconds, a.seed)
            old, new = _finish(po, "old"), _finish(pn, "new")
            rows.append({"core": core, "old": old, "new": new, "ratio": new / old})
            print(f"{i + 1:>3} {core:>4} {old:>16,.0f} {new:>16,.0f} {new / old:>8.3f}")
    print(f"old: {a.old} at {_commit(a.old)}; new: {a.new} at {_commit(a.new)}")
    ratios = sorted(r["ratio"] for r in rows)
    med = float(np.median(ratios))
    print(f"new / old, median of {len(rows)} runs: {med:.3f} (range {ratios[0]:.3f} .. {ratios[-1]:.3f})")
    _env.write_record(a, "compare_builds", {
        "benchmark": "compare_builds", "time": _env.now_utc(), "cpu": _env.cpu_model(),
        "cpu_count": os.cpu_count(), "old": str(a.old.resolve()), "new": str(a.new.resolve()),
        "old_commit": _commit(a.old), "new_commit": _commit(a.new),
        "seconds": a.seconds, "seed": a.seed, "runs": rows, "median_ratio": med})
    return 0


if __name__ == "__main__":
    sys.exit(main())
