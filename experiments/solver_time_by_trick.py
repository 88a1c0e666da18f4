"""Study: open-hand solver time by trick (how the cost falls as the hand is played out).

    .venv/bin/python experiments/solver_time_by_trick.py --config experiments/configs/solver_time_by_trick.json

The deal set and contract rule of ``benchmarks/solver.py`` (forehand declares: null for
every fifth deal, grand with 3+ jacks, else his longest suit; hand game), positions after
``k`` tricks of seeded random play for every ``k`` in the config, each solved from an empty
table on one core: threshold (the contract's goal) and, for suit and grand, exact card
points. Writes ``runs/solver_time_by_trick__<seed>__<time>/results.parquet`` (one row per
solve) and ``summary.md`` (median / p90 / mean milliseconds and nodes per trick and mode).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    study: str = "solver_time_by_trick"
    n_deals: int = 60
    seed: int = 2024
    tricks: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 4, 5, 6, 7, 8])
    modes: list[str] = field(default_factory=lambda: ["threshold", "exact"])


def run(cfg: Config, root: str | None = None) -> Path:
    import numpy as np
    import pandas as pd

    from solver import choose_contract, measure, null_deal, play_random  # benchmarks/solver.py
    from skatsim import deal
    from skatsim.bits import derive_seed
    from skatsim.rules import GAME_NAMES, NULL
    from skatsim.solver import Position, Solver

    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    solver = Solver()
    warm = Position(deal(1).masks()[:3], deal(1).skat.mask, 4, 0)
    for mode in cfg.modes:
        measure(solver, warm, mode)  # compile outside the timing
    rows = []
    for i in range(cfg.n_deals):
        masks = null_deal(cfg.seed, i) if i % 5 == 4 else deal(derive_seed(cfg.seed, i)).masks()
        g = choose_contract(i, masks[0])
        start = Position(masks[:3], masks[3], g, 0)
        for k in cfg.tricks:
            pos = start if k == 0 else play_random(start, k, np.random.default_rng([cfg.seed, i, k]))
            if pos is None:
                continue
            for mode in cfg.modes:
                if mode == "exact" and g == NULL:
                    continue
                cpu, wall, nodes, _ = measure(solver, pos, mode)
                rows.append({"deal": i, "game": GAME_NAMES[g], "trick": k + 1, "mode": mode,
                             "cpu_ms": cpu * 1000, "wall_ms": wall * 1000, "nodes": nodes})
    df = pd.DataFrame(rows)
    df.to_parquet(run_dir / "results.parquet")
    g = df.groupby(["mode", "trick"])
    table = pd.DataFrame({"solves": g.size(), "median_ms": g["cpu_ms"].median(),
                          "p90_ms": g["cpu_ms"].quantile(0.9), "mean_ms": g["cpu_ms"].mean(),
                          "median_nodes": g["nodes"].median()})
    text = table.to_string(float_format=lambda x: f"{x:.3f}")
    write_summary(run_dir, "Solver time by trick (CPU ms per solve, empty table, 1 core)", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("n_deals",))


if __name__ == "__main__":
    sys.exit(main())
