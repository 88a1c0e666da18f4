"""Study: does a variant beat the same opponent by more than the baseline does? Two
duplicate tournaments on the same boards, compared board by board.

    .venv/bin/python experiments/compare_margins.py --config experiments/configs/pimc_inference.json

``variant`` and ``baseline`` are each a pair of agent specs (the player, then the
opponent) and a tournament run directory (``agents.arena.tournament``: resumable, so an
interrupted study continues where it stopped; an existing finished directory is reused).
Both play ``n_deals`` boards of ``seed``: board ``i`` is the same deal in both, so the
difference of the two margins is paired by board (:func:`agents.arena.tournament.margin_difference`),
which removes the luck of the cards from the comparison. Writes
``runs/<study>__<seed>__<time>/`` with ``results.parquet`` (one row: both margins and
their difference, each with a 95% half-width) and ``summary.md``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    study: str = "compare_margins"
    #: {"agents": [player, opponent], "out": run directory}
    variant: dict = field(default_factory=lambda: {"agents": ["pimc:worlds=32,inference=1", "rule_based"],
                                                   "out": "runs/pimc32_inference_vs_rule_based"})
    baseline: dict = field(default_factory=lambda: {"agents": ["pimc:worlds=32", "rule_based"],
                                                    "out": "runs/pimc32_vs_rule_based"})
    n_deals: int = 1000
    seed: int = 1
    workers: int = 2


def _tournament(side: dict, cfg: Config):
    from agents import load_tournament, run_tournament
    from skatsim.runs import is_run_dir

    out = Path(side["out"])
    if not out.is_absolute():
        out = Path(__file__).resolve().parents[1] / out
    if is_run_dir(out):
        try:
            res = load_tournament(out)
            if len(res.games) >= 6 * cfg.n_deals:
                return res
        except ValueError:
            pass  # unfinished: run_tournament resumes it
    return run_tournament(side["agents"], cfg.n_deals, seed=cfg.seed, workers=cfg.workers, out=out, progress=True)


def run(cfg: Config, root: str | None = None) -> Path:
    import pandas as pd

    from agents.arena.tournament import margin_difference

    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    a = _tournament(cfg.variant, cfg)
    b = _tournament(cfg.baseline, cfg)
    la, lb = a.labels, b.labels
    d = margin_difference(a.games[a.games["deal_id"] < cfg.n_deals], b.games[b.games["deal_id"] < cfg.n_deals],
                          la[:2], lb[:2])
    row = {"variant": f"{la[0]} - {la[1]}", "baseline": f"{lb[0]} - {lb[1]}", **d}
    pd.DataFrame([row]).to_parquet(run_dir / "results.parquet")
    text = (f"{d['boards']} boards, seed {cfg.seed} (Seeger-Fabian points per game, 95% CI)\n"
            f"variant   {row['variant']}: {d['margin_a']:+.2f} ± {d['margin_a_ci']:.2f}\n"
            f"baseline  {row['baseline']}: {d['margin_b']:+.2f} ± {d['margin_b_ci']:.2f}\n"
            f"variant - baseline (paired by board): {d['diff']:+.2f} ± {d['diff_ci']:.2f}")
    write_summary(run_dir, f"{cfg.study}", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("n_deals", "seed", "workers"))


if __name__ == "__main__":
    sys.exit(main())
