"""Study: where does a bidder gain or lose against the rule-based bidder? Each seat-game is
played twice on the same deal: once with the bidder in the seat, once with the rule-based
player there (rule-based players in the other seats and the same random streams in both).

    .venv/bin/python experiments/bidding_decisions.py --config experiments/configs/bidding_decisions.json

The seat's relative Seeger-Fabian score (its points minus the mean of the other two seats')
is compared game by game and grouped by what the two decided: both declare the same
contract, both declare different contracts, only one of them declares, neither. For the
same pickup contract it also says whether the discards differed. Writes
``runs/bidding_decisions__<seed>__<time>/`` with ``results.parquet`` (one row per
seat-game) and ``summary.md`` (the tables, including the contract pairs of "different").
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    study: str = "bidding_decisions"
    #: the bidder (registry spec) compared with the rule-based player
    agent: str = "neural_bidder"
    agent_params: dict = field(default_factory=dict)
    n_games: int = 3000
    seed: int = 99


def _kind(c: str) -> str:
    if not c:
        return "-"
    k = "null" if c.startswith("N") else ("grand" if c.startswith("G") else "suit")
    return k + (" hand" if "H" in c[1:] else "")


def run(cfg: Config, root: str | None = None) -> Path:
    import numpy as np
    import pandas as pd

    from agents import make_agent
    from agents.arena.play import play
    from agents.players.rule_based import RuleBasedAgent
    from skatsim.actions import PICKUP
    from skatsim.bits import derive_seed

    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    me = make_agent(cfg.agent, **cfg.agent_params)
    rbs = [RuleBasedAgent() for _ in range(3)]

    def rel(res, s):
        v = res.seeger_fabian
        return v[s] - (sum(v) - v[s]) / 2

    def discard(hist):
        h = list(hist)
        return tuple(sorted(h[h.index(PICKUP) + 1:h.index(PICKUP) + 3])) if PICKUP in h else ()

    rows = []
    for i in range(cfg.n_games):
        ds, seat = derive_seed(cfg.seed, i), i % 3
        table = list(rbs)
        table[seat] = me
        pa, pb = play(table, ds).state, play(list(rbs), ds).state
        a, b = pa.result, pb.result
        ca = a.contract if a.declarer == seat else ""
        cb = b.contract if b.declarer == seat else ""
        if ca and cb:
            cat = "both declare, same contract" if ca == cb else "both declare, different contracts"
        else:
            cat = "only the bidder declares" if ca else ("only rule-based declares" if cb else "neither declares")
        rows.append({"game": i, "deal_seed": ds, "seat": seat, "bidder": rel(a, seat), "rule_based": rel(b, seat),
                     "category": cat, "contract_bidder": ca, "contract_rule_based": cb,
                     "same_discard": discard(pa.history()) == discard(pb.history())})
    df = pd.DataFrame(rows)
    df["diff"] = df["bidder"] - df["rule_based"]
    df.to_parquet(run_dir / "results.parquet")
    m, h = df["diff"].mean(), 1.96 * df["diff"].std() / np.sqrt(len(df))
    by = df.groupby("category").agg(games=("diff", "size"), bidder=("bidder", "mean"),
                                    rule_based=("rule_based", "mean"), diff=("diff", "mean"), total=("diff", "sum"))
    same = df[df["category"] == "both declare, same contract"]
    disc = same.groupby("same_discard").agg(games=("diff", "size"), diff=("diff", "mean"))
    dif = df[df["category"] == "both declare, different contracts"].assign(
        pair=lambda x: x["contract_bidder"].map(_kind) + " vs " + x["contract_rule_based"].map(_kind))
    pairs = dif.groupby("pair").agg(games=("diff", "size"), diff=("diff", "mean"), total=("diff", "sum"))
    pairs = pairs.sort_values("games", ascending=False)
    text = "\n\n".join([
        f"{cfg.agent} {cfg.agent_params} vs rule_based, {len(df)} seat-games, seed {cfg.seed}: "
        f"relative SF difference {m:+.2f} ± {h:.2f} per seat-game (95% CI, games independent)",
        by.round(2).to_string(), "same contract, by whether the discards were the same:\n" + disc.round(2).to_string(),
        "different contracts (bidder vs rule-based):\n" + pairs.round(2).to_string()])
    write_summary(run_dir, cfg.study, text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("n_games", "seed"))


if __name__ == "__main__":
    sys.exit(main())
