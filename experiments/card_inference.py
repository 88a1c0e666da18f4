"""Study: how much a card network's policy knows about the hidden cards (policy-based inference).

    .venv/bin/python experiments/card_inference.py --config experiments/configs/card_inference.json

Plays ``n_games`` self-play games of ``player`` (every seat) and, at the card decisions after
``cards`` cards of the play (6, 9, ... 18: tricks 3 to 7 begin), scores the true deal and
``worlds`` worlds sampled uniformly from the mover's information by the card network's
likelihood of the other seats' cards (:func:`agents.players.pimc_inference.card_log_likelihoods`,
the weights ``pimc:card_model=...`` draws its worlds by). Per trick and role of the mover: the
spread (standard deviation) of the sampled worlds' log-likelihoods, the effective number of
worlds left by the weights ``exp(alpha * ll)`` (``alpha`` 1 and 0.5) out of ``worlds``, and the
true deal's percentile among the sampled worlds (0.5: the network knows nothing; 1: the true
deal is the likeliest); with ``rb_priors`` also that percentile when each other seat is a
mixture of the network and the rule-based player with that prior (``pimc:card_rb=...``).
Writes ``results.parquet`` (one row per position) and ``summary.md``
to ``runs/card_inference__<seed>__<time>/``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from experiments._runs import make_run_dir, study_main, write_config, write_summary  # noqa: E402


@dataclass
class Config:
    study: str = "card_inference"
    n_games: int = 200
    seed: int = 0
    player: str = "pimc:worlds=8"
    card_model: str = "distilled"
    worlds: int = 128
    cards: list[int] = field(default_factory=lambda: [6, 9, 12, 15, 18])
    rb_priors: list[float] = field(default_factory=list)


def _ess(ll, alpha: float) -> float:
    import numpy as np

    e = np.exp(alpha * (ll - ll.max()))
    return float(e.sum() ** 2 / (e ** 2).sum())


def _pct(ll) -> float:
    """The true deal's (``ll[0]``) percentile among the sampled worlds (``ll[1:]``)."""
    rest = ll[1:]
    return float((ll[0] > rest).mean() + 0.5 * (ll[0] == rest).mean())


def run(cfg: Config, root: str | None = None) -> Path:
    import numpy as np
    import pandas as pd

    from agents import make_agent, play_game
    from agents.players.pimc import card_network
    from agents.players.pimc_inference import card_log_likelihoods
    from agents.players.rule_based import RuleBasedAgent
    from skatsim.bits import derive_seed
    from skatsim.infostate import InfoState, sample_worlds

    run_dir = make_run_dir(cfg.study, cfg.seed, root)
    write_config(run_dir, cfg)
    net = card_network(cfg.card_model)
    params = RuleBasedAgent().param_row
    rows = []
    for i in range(cfg.n_games):
        s = play_game([make_agent(cfg.player) for _ in range(3)], seed=derive_seed(cfg.seed, i))
        if s.contract is None or s.game_type is None or s.game_type > 5:
            continue
        moves = s.history()
        first = next(k for k, (_, _, ph) in enumerate(s.phase_history()) if ph == "play")
        t = type(s).new_game(seed=s.seed)
        for k, a in enumerate(moves):
            if k - first in cfg.cards and len(t.legal_actions()) > 1:
                me = t.current_player()
                o = t.observation(me)
                true = np.array([[t.hand_mask(0), t.hand_mask(1), t.hand_mask(2), t.skat_mask()]])
                w = sample_worlds(InfoState.from_observation(o), cfg.worlds, derive_seed(derive_seed(cfg.seed, i), k))
                ll = card_log_likelihoods(o, np.concatenate([true, w]), net, params)
                rest = ll[1:]
                row = {"game": i, "trick": (k - first) // 3 + 1,
                       "role": "declarer" if me == t.declarer else "defender",
                       "ll_std": float(rest.std()), "ess_1": _ess(rest, 1.0), "ess_half": _ess(rest, 0.5),
                       "true_pct": _pct(ll)}
                for prior in cfg.rb_priors:
                    row[f"true_pct_rb{prior:g}"] = _pct(card_log_likelihoods(o, np.concatenate([true, w]), net,
                                                                             params, rb_prior=prior))
                rows.append(row)
            t.apply_action(a)
    df = pd.DataFrame(rows)
    df.to_parquet(run_dir / "results.parquet")
    g = df.groupby(["trick", "role"])
    table = pd.DataFrame({"positions": g.size(), "ll_std": g["ll_std"].mean(), "ess_alpha1": g["ess_1"].mean(),
                          "ess_alpha0.5": g["ess_half"].mean(), "true_pct": g["true_pct"].mean()})
    for prior in cfg.rb_priors:
        table[f"true_pct_rb{prior:g}"] = g[f"true_pct_rb{prior:g}"].mean()
    text = table.to_string(float_format=lambda x: f"{x:.2f}") + (
        f"\n(effective worlds out of {cfg.worlds}; true_pct: the true deal's percentile among them)")
    write_summary(run_dir, f"What {cfg.card_model} knows of the hidden cards ({cfg.player} self-play)", text)
    return run_dir


def main(argv: list[str] | None = None) -> int:
    return study_main(Config, run, __doc__, argv, ("n_games",))


if __name__ == "__main__":
    sys.exit(main())
