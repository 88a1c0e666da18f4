"""Study: where PIMC's margin over the rule-based player comes from (a finished tournament).

    .venv/bin/python experiments/pimc_analysis.py --config experiments/configs/pimc_analysis.json

Reads a PIMC vs rule-based tournament run directory whose two agents share the rule-based
bidding (so every arrangement of a board has the same auction, skat decision, discard and
contract), and splits the Seeger-Fabian margin by role: the declarer seat played by PIMC or
by the rule-based player, the two defenders played by PIMC or by the rule-based player (the
six arrangements cover every combination). For every board it also solves the declarer's
contract open-handed from the first lead (true cards, the contract's goal): the double-dummy
verdict bounds what any card play can do. Writes ``runs/pimc_analysis__<seed>__<time>/``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    study: str = "pimc_analysis"
    #: the tournament run directory (agents: pimc with rule-based bidding, and rule_based)
    run: str = "/root/skatsim-runs/pimc32_vs_rule_based"
    seed: int = 1
    #: boards to solve open-handed (0: all)
    solve_boards: int = 0


def _play_start(deal_seed: int, rules):
    """The first lead of the deal with rule-based bidding, skat and declaration (the
    auction both agents of the tournament share)."""
    from agents.arena.play import Table
    from agents.players.rule_based import RuleBasedAgent
    from skatsim import SkatState

    t = Table([RuleBasedAgent(), RuleBasedAgent(), RuleBasedAgent()], SkatState.new_game(seed=deal_seed, rules=rules),
              deal_seed, 0)
    while t.state.phase not in ("play", "done"):
        t.step()
    return t.state


def run(cfg: Config, root: str | None = None) -> Path:
    import numpy as np

    from agents.arena.tournament import load_tournament
    from skatsim import SkatRules
    from skatsim.solver import Solver, target_for

    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    res = load_tournament(cfg.run, partial=True)
    g = res.games[res.games["declarer"] >= 0].copy()
    labels = list(res.config.labels) if hasattr(res.config, "labels") else sorted(set(g["agent_0"]))
    pimc = next(x for x in labels if x.startswith("pimc"))
    d = g["declarer"].to_numpy()
    agents = g[["agent_0", "agent_1", "agent_2"]].to_numpy()
    sf = g[["sf_0", "sf_1", "sf_2"]].to_numpy()
    rows = np.arange(len(g))
    g["decl_agent"] = np.where(agents[rows, d] == pimc, "pimc", "rule_based")
    n_def_pimc = sum((agents[rows, (d + k) % 3] == pimc).astype(int) for k in (1, 2))
    g["defenders"] = np.select([n_def_pimc == 2, n_def_pimc == 0], ["pimc, pimc", "rb, rb"], "pimc, rb")
    g["decl_sf"] = sf[rows, d]
    g["def_sf"] = sf.sum(axis=1) - sf[rows, d]
    by = g.groupby(["decl_agent", "defenders"]).agg(games=("won", "size"), declarer_win_rate=("won", "mean"),
                                                     declarer_sf=("decl_sf", "mean"), defenders_sf=("def_sf", "mean"))
    # double-dummy verdicts of the declared contracts
    boards = g.drop_duplicates("deal_id")
    if cfg.solve_boards:
        boards = boards.head(cfg.solve_boards)
    rules = SkatRules(**res.config.rules) if isinstance(res.config.rules, dict) else res.config.rules
    solver = Solver()
    verdict = {}
    for ds, did in zip(boards["deal_seed"], boards["deal_id"]):
        s = _play_start(int(ds), rules)
        if s.phase != "play" or s.contract is None:
            continue
        verdict[int(did)] = bool(solver.solve(s, mode="threshold", threshold=target_for(s.contract)).declarer_wins)
    g["open_hand_win"] = g["deal_id"].map(verdict)
    solved = g[g["open_hand_win"].notna()]
    dd = solved.groupby("decl_agent").agg(games=("won", "size"), won=("won", "mean"),
                                          open_hand_winnable=("open_hand_win", "mean"))
    lost_winnable = solved[solved["open_hand_win"].astype(bool) & ~solved["won"]].groupby("decl_agent").size()
    won_unwinnable = solved[~solved["open_hand_win"].astype(bool) & solved["won"]].groupby("decl_agent").size()
    dd["lost_though_winnable"] = lost_winnable.reindex(dd.index).fillna(0).astype(int) / dd["games"]
    dd["won_though_unwinnable"] = won_unwinnable.reindex(dd.index).fillna(0).astype(int) / dd["games"]
    g.to_parquet(run_dir / "results.parquet")
    text = (f"{cfg.run}: {res.games['deal_id'].nunique()} boards, {len(g)} games with a declarer\n\n"
            f"by role (declarer seat's agent, the two defenders' agents):\n{by.round(3).to_string()}\n\n"
            f"double-dummy verdict of the declared contract (true cards, first lead), by declarer agent:\n"
            f"{dd.round(3).to_string()}")
    write_summary(run_dir, "Where PIMC's margin comes from", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("seed", "solve_boards"))


if __name__ == "__main__":
    sys.exit(main())
