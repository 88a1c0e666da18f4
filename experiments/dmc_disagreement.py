"""How often, and by how much, the DMC model disagrees with the rule-based card.

    python experiments/dmc_disagreement.py --games 300 --seed 10000

Plays ``--games`` rule-based self-play games (deal ``seed + g``) and at every card-play
decision with more than one legal card asks the model (``--model``, default the shipped
``dmc_v2``) for its Q values: the share of decisions whose best card is not the rule-based
card, by role, and the share where the model's card beats the rule-based card's Q by more
than ``trust`` SF points (what ``dmc:trust=T`` would play differently from rule_based), and
the median Q gap where they differ.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ROLES = ("declarer", "defender after the declarer", "defender before the declarer")


def disagreement(games: int, seed: int, model: str | None = None) -> np.ndarray:
    """Rows (role, model card != rule-based card, Q gap in SF, Q of the rule-based card in SF,
    the seat's final Seeger-Fabian score, the spread (standard deviation) of Q over the legal
    cards in SF) for every card decision with a choice."""
    from agents import make_agent
    from agents.players.dmc import _PLAY_INDEX, load_model, phase_of_rows, role_of_rows
    from skatsim import SkatState

    m = load_model(model)
    rb = make_agent("rule_based")
    rows = []
    for g in range(games):
        s = SkatState.new_game(seed=seed + g)
        rb.reset(g, 0, 1)
        game, seats = [], []
        while not s.is_terminal():
            p = s.current_player()
            o = s.observation(p)
            b = int(rb.act(o))
            x = o.tensor[None, :].astype(np.float32)
            legal = np.asarray(o.legal_mask, bool)
            if phase_of_rows(x)[0] == _PLAY_INDEX and legal.sum() > 1:
                q = m.q_rows(x)[0]
                a = int(np.argmax(np.where(legal, q, -np.inf)))
                game.append([int(role_of_rows(x)[0]), a != b, 100.0 * (q[a] - q[b]), 100.0 * q[b], 0.0,
                             100.0 * float(np.std(q[legal]))])
                seats.append(p)
            s.apply_action(b)
        sf = s.returns()  # Seeger-Fabian score of every seat
        for r, p in zip(game, seats):
            r[4] = float(sf[p])
        rows += game
    return np.array(rows, dtype=np.float64)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=10_000)
    ap.add_argument("--model", default=None, help="checkpoint stem (default agents/models/dmc_v2)")
    a = ap.parse_args(argv)
    t = time.perf_counter()
    r = disagreement(a.games, a.seed, a.model)
    trusts = (0, 5, 15, 30)
    print(f"{len(r):,} card decisions with a choice in {a.games} rule-based games ({time.perf_counter() - t:.0f} s)")
    print("| role | decisions | " + " | ".join(f"differs, gap > {x} SF" for x in trusts) + " |")
    print("|---|---:|" + "---:|" * len(trusts))
    for k, name in enumerate(ROLES):
        s = r[r[:, 0] == k]
        d = s[:, 1].astype(bool)
        print(f"| {name} | {len(s):,} | " + " | ".join(f"{np.mean(d & (s[:, 2] > x)):.1%}" for x in trusts) + " |")
    d = r[:, 1].astype(bool)
    print(f"median Q gap where the model's card differs: {np.median(r[d, 2]):.1f} SF")
    # value against noise: how much of the final score Q explains, what is left, and how far apart
    # the legal cards are in Q
    q, ret = r[:, 3], r[:, 4]
    resid = ret - q
    print(f"final score: sd {ret.std():.1f} SF; Q of the played card explains {1 - resid.var() / ret.var():.0%} of "
          f"its variance (corr {np.corrcoef(q, ret)[0, 1]:.2f}); residual sd {resid.std():.1f} SF; "
          f"median spread of Q over the legal cards {np.median(r[:, 5]):.1f} SF")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
