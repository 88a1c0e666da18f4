"""Study: PIMC's card play distilled into a network, from labels to the held-out figures.

    .venv/bin/python experiments/distil_card_play.py --config experiments/configs/distil_card_play.json

Three steps, each a library call: card labels (:func:`agents.learn.card_labels.generate_card_labels`,
a resumable run directory shared by every study of the same label config, ``labels_dir``),
the network (:func:`agents.learn.distil.train`, checkpoints every epoch, ``--resume RUN`` goes
on), and the held-out table (:func:`agents.learn.distil.tie_table`: regret, share of the label's
best cards and of PIMC's own card, per ``tie`` of the decision rule ``value + tie x policy``,
beside the rule-based card and the policy alone). Writes
``runs/distil_card_play__<seed>__<time>/`` with ``train/`` (the model: ``train/model``),
``results.parquet`` (the table) and ``summary.md``. How the model plays is measured by
duplicate tournaments (``skatsim tournament "agents.players.distilled:DistilledAgent:model=RUN/train/model" ...``),
never by this table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    study: str = "distil_card_play"
    seed: int = 32  # the label run's seed (game i deals derive_seed(seed, i))
    games: int = 20000
    worlds: int = 8
    early: list[str] = field(default_factory=lambda: ["rule_based", "neural_bidder"])
    shard_size: int = 20
    workers: int = 2
    labels_dir: str = ""  # default: runs/card_labels__<seed>__w<worlds>__g<games>
    train: dict[str, Any] = field(default_factory=dict)  # agents.learn.distil.DistilConfig fields
    ties: list[float] = field(default_factory=lambda: [0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0])


def run(cfg: Config, root: str | None = None, resume: str | None = None) -> Path:
    import pandas as pd

    from agents.learn.card_labels import CardLabelConfig, generate_card_labels
    from agents.learn.distil import DistilConfig, tie_table, train

    labels = Path(cfg.labels_dir or Path(root or "runs") / f"card_labels__{cfg.seed}__w{cfg.worlds}__g{cfg.games}")
    generate_card_labels(labels, CardLabelConfig(n_games=cfg.games, seed=cfg.seed, worlds=cfg.worlds,
                                                 early=tuple(cfg.early), shard_size=cfg.shard_size),
                         workers=cfg.workers)
    run_dir = Path(resume) if resume else make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    dcfg = DistilConfig(labels=(str(labels),), **{k: tuple(v) if isinstance(v, list) else v
                                                  for k, v in cfg.train.items()})
    train(dcfg, run_dir / "train")
    rows = tie_table(run_dir / "train" / "model", cfg.ties)
    df = pd.DataFrame(rows)
    df.to_parquet(run_dir / "results.parquet")
    text = (f"labels: {labels} ({cfg.games:,} games, PIMC {cfg.worlds} worlds); held-out rows: {rows[0]['rows']:,}\n"
            + df[["rule", "regret", "best", "teacher"]].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    write_summary(run_dir, "PIMC card play distilled: held-out figures by decision rule", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__ or "", argv, ("games",), resume=True)


if __name__ == "__main__":
    raise SystemExit(main())
