"""Study: the distilled card player relabelled where it goes (DAgger), round by round.

    .venv/bin/python experiments/dagger_card_play.py --config experiments/configs/dagger_card_play.json

A network distilled from PIMC's self-play (``experiments/distil_card_play.py``) only saw the
positions PIMC reaches; its own mistakes take it elsewhere, where it was never taught. DAgger
(Ross, Gordon & Bagnell 2011) labels those positions too: round ``r`` plays
``games`` games with the round ``r - 1`` network's cards (``student`` for round 1) while PIMC
searches and labels every card decision (:class:`agents.learn.card_labels.CardLabelConfig`,
``play=``), then trains a new network on every round's labels and the base labels together
(:func:`agents.learn.distil.train`, the base run last so its last ``val_games`` games are
the held-out games of the base model: the held-out figures compare). Round ``r``'s labels use the
seed ``seed + r - 1`` (deals no other round or the base run has).

Writes ``runs/dagger_card_play__<seed>__<time>/`` with ``round_<r>/train/model`` (the network),
``results.parquet`` (each round's held-out table by decision rule, on the base run's held-out
games) and ``summary.md``. Whether a round plays better
is measured by a duplicate tournament against the network it started from, never by this table::

    skatsim tournament "distilled:model=RUN/round_1/train/model" distilled --deals 1000 --seed S
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
    study: str = "dagger_card_play"
    base_labels: str = "runs/card_labels__32__w8__g20000"  # the base model's label run (PIMC self-play)
    student: str = "distilled"  # the card player of round 1 (an agent spec)
    rounds: int = 1
    seed: int = 33  # round r's labels deal derive_seed(seed + r - 1, i)
    games: int = 10000  # games per round
    worlds: int = 8
    early: list[str] = field(default_factory=lambda: ["rule_based", "neural_bidder"])
    shard_size: int = 20
    workers: int = 2
    labels_root: str = ""  # where round label runs go (default: the folder of base_labels)
    train: dict[str, Any] = field(default_factory=dict)  # agents.learn.distil.DistilConfig fields
    ties: list[float] = field(default_factory=lambda: [0.0, 0.05, 0.1, 0.2, 0.5])


def _student_spec(model: Path, tie: float) -> str:
    return f"distilled:model={model},tie={tie:g}"


def run(cfg: Config, root: str | None = None, resume: str | None = None) -> Path:
    import pandas as pd

    from agents.learn.card_labels import CardLabelConfig, generate_card_labels
    from agents.learn.distil import DistilConfig, tie_table, train
    from agents.players.distilled import DEFAULT_TIE

    base = Path(cfg.base_labels)
    if not base.is_dir():
        raise SystemExit(f"no base label run at {base}: make it with experiments/distil_card_play.py or "
                         "`skatsim card-labels` first")
    run_dir = Path(resume) if resume else make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    labels_root = Path(cfg.labels_root) if cfg.labels_root else base.parent
    student, label_runs, tables = cfg.student, [], []
    for r in range(1, cfg.rounds + 1):
        seed = cfg.seed + r - 1
        lab = labels_root / f"card_labels_dagger__{seed}__w{cfg.worlds}__g{cfg.games}"
        generate_card_labels(lab, CardLabelConfig(n_games=cfg.games, seed=seed, worlds=cfg.worlds,
                                                  early=tuple(cfg.early), shard_size=cfg.shard_size, play=student),
                             workers=cfg.workers)
        label_runs.insert(0, str(lab))
        dcfg = DistilConfig(labels=(*label_runs, str(base)), **{k: tuple(v) if isinstance(v, list) else v
                                                                for k, v in cfg.train.items()})
        model = run_dir / f"round_{r}" / "train"
        train(dcfg, model)
        for rule in tie_table(model / "model", cfg.ties):
            tables.append({"round": r, "positions": "base held-out", **rule})
        student = _student_spec(model / "model", DEFAULT_TIE)
    df = pd.DataFrame(tables)
    df.to_parquet(run_dir / "results.parquet")
    text = (f"base labels: {base}; rounds: {cfg.rounds} x {cfg.games:,} games played by the last network, "
            f"labelled by PIMC ({cfg.worlds} worlds); the last network: {student}\n"
            + df[["round", "rule", "regret", "best", "teacher"]].to_string(index=False,
                                                                          float_format=lambda x: f"{x:.4f}"))
    write_summary(run_dir, "The distilled card player relabelled where it goes (DAgger)", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__ or "", argv, ("games",), resume=True)


if __name__ == "__main__":
    raise SystemExit(main())
