"""Study: a duplicate tournament between registered agents (one config per question).

    .venv/bin/python experiments/tournament.py --config experiments/configs/rule_based_vs_random.json

Writes ``runs/<study>__<seed>__<time>/`` with ``manifest.json``, ``results.parquet`` (one row
per game, the columns of ``agents.arena.tournament``), ``summary.parquet`` and ``summary.md``
(the printed summary: per-agent Seeger-Fabian points per game with 95% confidence
intervals on the paired boards, and the head-to-head difference).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    """A tournament study."""

    study: str = "tournament"
    #: agent specs as the registry writes them (``"rule_based"``, ``"pimc:worlds=32"``)
    agents: list[str] = field(default_factory=lambda: ["rule_based", "random"])
    #: boards (deals); every deal is played under all 6 seat arrangements
    n_deals: int = 1000
    seed: int = 1
    #: processes for agents that run through the Python protocol
    workers: int = 2
    #: "threads" or "processes"; "" follows the agents (threads when every agent is compiled)
    parallel: str = ""
    #: rule options: {"ramsch": bool, "kontra": bool}
    rules: dict = field(default_factory=dict)


def run(cfg: Config, root: str | None = None) -> Path:
    from agents import run_tournament
    from skatsim import SkatRules

    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    t0 = time.perf_counter()
    res = run_tournament(cfg.agents, cfg.n_deals, seed=cfg.seed, rules=SkatRules(**cfg.rules),
                         workers=cfg.workers, parallel=cfg.parallel or None, progress=True)
    dt = time.perf_counter() - t0
    res.games.to_parquet(run_dir / "results.parquet")
    res.summary().to_parquet(run_dir / "summary.parquet")
    text = f"{res}\n\n{cfg.n_deals} boards, {len(res.games)} games in {dt:.1f} s"
    write_summary(run_dir, f"{cfg.study}: {' vs '.join(cfg.agents)}", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("n_deals", "seed", "workers"))


if __name__ == "__main__":
    sys.exit(main())
