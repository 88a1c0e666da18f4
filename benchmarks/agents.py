"""Agent throughput: rule-based self-play in the batch engine and through the agent protocol,
with XSkat's heuristic self-play (``xskat -auto N``) as the outside reference.

    python benchmarks/agents.py [--seconds 3] [--seed 2024] [--record]

Paths, measured in the same run, time-boxed, compile time excluded (every compiled path
is called once before timing):

1. rule-based self-play full games, numba batch engine, 1 thread
   (``simulate(n, policy="rule_based", workers=1)``);
2. the same on all cores (``workers=None``), and the scaling over path 1;
3. rule-based decisions per second through the Python protocol (``agents.play_game``
   with three ``make_agent("rule_based")``: observation, ``act``, validation, apply);
4. XSkat's computer players playing each other (``xskat -auto N -list /dev/null``, Debian
   package ``xskat``; runs headless, no X display needed), wall-clock and CPU time, when
   ``xskat`` is installed (``apt-get install xskat``); skipped with a note otherwise.

Prints one table and appends one JSON line (config, versions, CPU, threading layer, seed,
figures, targets) to ``runs/benchmarks/agents.jsonl``, or with ``--record`` to the tracked
``benchmarks/results/agents.jsonl``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numba
import pandas as pd

# This file is named like the ``agents`` package: take its folder off the path so that
# ``import agents`` finds the package, and load benchmarks/_env.py by file name.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
_spec = importlib.util.spec_from_file_location("_env", _HERE / "_env.py")
_env = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(_env)  # type: ignore[union-attr]
append_jsonl, cpu_model, git_commit, now_utc, timed, versions = (
    _env.append_jsonl, _env.cpu_model, _env.git_commit, _env.now_utc, _env.timed, _env.versions)

from agents import make_agent, play  # noqa: E402
from skatsim.bits import derive_seed  # noqa: E402
from skatsim.simulate import simulate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "1_rule_based_numba_1_thread": ">= 10x path 4 (XSkat, per core)",
    "2_rule_based_numba_all_cores": ">= 1.8x path 1 on 2 cores",
}


def engine_rate(seconds: float, seed: int, workers: int | None, batch: int) -> tuple[float, int, float]:
    simulate(2000, policy="rule_based", seed=seed, workers=workers)  # compile / load the cache
    start = [0]

    def run() -> int:
        simulate(batch, policy="rule_based", seed=seed, workers=workers, start=start[0])
        start[0] += batch
        return batch

    return timed(run, seconds)


def protocol_rate(seconds: float, seed: int) -> tuple[float, float, int, float]:
    """(decisions/s, games/s, decisions, elapsed) through agents.play with three rule-based agents."""
    play([make_agent("rule_based") for _ in range(3)], seed=seed)  # compile the policy dispatcher
    i, decisions, games, t0 = 0, 0, 0, time.perf_counter()
    while True:
        g = play([make_agent("rule_based") for _ in range(3)], seed=derive_seed(seed, i))
        decisions += sum(g.decisions)
        games += 1
        i += 1
        el = time.perf_counter() - t0
        if el >= seconds:
            return decisions / el, games / el, decisions, el


def xskat_rate(seconds: float) -> dict[str, float | int | str] | None:
    exe = shutil.which("xskat") or ("/usr/games/xskat" if os.path.exists("/usr/games/xskat") else None)
    if exe is None:
        return None
    n = 2000
    while True:  # grow the batch until one run takes about `seconds`
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([exe, "-auto", str(n), "-list", os.devnull], check=True, capture_output=True,
                       timeout=600, env={**os.environ, "DISPLAY": ""})
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if wall >= seconds or n >= 10_000_000:
            return {"games": n, "wall_s": wall, "cpu_s": cpu, "games_per_s_wall": n / wall,
                    "games_per_s_cpu": n / max(cpu, 1e-9), "exe": exe}
        n = int(n * max(2.0, min(10.0, 1.2 * seconds / max(wall, 1e-3))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time box per path (default 3)")
    ap.add_argument("--seed", type=int, default=2024, help="run seed (default 2024)")
    ap.add_argument("--batch", type=int, default=50_000, help="deals per simulate() call (default 50,000)")
    ap.add_argument("--record", action="store_true",
                    help="append to the tracked benchmarks/results/agents.jsonl (default: runs/benchmarks/)")
    ap.add_argument("--out", default=None, help="explicit JSON-lines output path")
    a = ap.parse_args(argv)

    load0 = os.getloadavg()
    rows = []
    r1, n1, e1 = engine_rate(a.seconds, a.seed, 1, a.batch)
    rows.append(("1_rule_based_numba_1_thread", "games/s", r1, n1, e1))
    threads = numba.config.NUMBA_NUM_THREADS
    r2, n2, e2 = engine_rate(a.seconds, a.seed, None, a.batch)
    rows.append((f"2_rule_based_numba_all_cores ({threads} threads)", "games/s", r2, n2, e2))
    d3, g3, n3, e3 = protocol_rate(a.seconds, a.seed)
    rows.append(("3_rule_based_python_protocol", "decisions/s", d3, n3, e3))
    rows.append(("3_rule_based_python_protocol", "games/s", g3, int(g3 * e3), e3))
    xs = xskat_rate(a.seconds)
    if xs is not None:
        rows.append(("4_xskat_auto (wall)", "games/s", xs["games_per_s_wall"], xs["games"], xs["wall_s"]))
        rows.append(("4_xskat_auto (cpu)", "games/s", xs["games_per_s_cpu"], xs["games"], xs["cpu_s"]))
    table = pd.DataFrame(rows, columns=["path", "unit", "rate", "items", "seconds"])
    pd.set_option("display.width", 120)
    print(table.to_string(index=False, formatters={"rate": "{:,.0f}".format, "items": "{:,}".format,
                                                   "seconds": "{:.2f}".format}))
    print(f"all cores / 1 thread: {r2 / r1:.2f}x (load average before/after: {load0[0]:.1f} / "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; other jobs on the machine lower the scaling)")
    if xs is not None:
        print(f"numba 1 thread / XSkat per CPU second: {r1 / xs['games_per_s_cpu']:.1f}x "
              f"(per wall second: {r1 / xs['games_per_s_wall']:.1f}x)")
    else:
        print("xskat not installed (apt-get install xskat): XSkat reference skipped")
    rec = {"benchmark": "agents", "time": now_utc(), "commit": git_commit(), "cpu": cpu_model(),
           "versions": versions(), "threading_layer": _layer(), "threads": threads, "seed": a.seed,
           "seconds": a.seconds, "batch": a.batch, "loadavg_1_5_15": list(os.getloadavg()),
           "figures": {r[0] + " " + r[1]: r[2] for r in rows}, "xskat": xs, "targets": TARGETS}
    out = a.out or (ROOT / "benchmarks/results/agents.jsonl" if a.record else ROOT / "runs/benchmarks/agents.jsonl")
    append_jsonl(out, rec)
    print(f"appended to {out}")
    return 0


def _layer() -> str:
    try:
        return str(numba.threading_layer())
    except ValueError:  # no parallel region has run
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
