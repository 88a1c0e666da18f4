"""Card choices judged by the open-hand solver on the true deal: DMC models, the rule-based
player, and the ``trust`` hybrids of the two.

    .venv/bin/python experiments/dmc_solver_agreement.py --games 2000 --seed 31 \
        --models agents/models/dmc_v1 runs/<run>/model --trust 0 2 5 10

Plays ``--games`` rule-based self-play games on a :class:`skatsim.vec.VecEnv` and keeps
every card decision with a choice; the solver values every legal card of each against the
contract's announced goal with all cards visible (:meth:`skatsim.solver.Solver.state_values`),
settled as the mover's Seeger-Fabian score (:func:`agents.learn.dmc.solver_labels`).
Over the positions whose legal cards differ in that value it prints, per player and role,
the share of open-hand optimal choices and the mean loss against the best card (SF per
decision). A ``trust`` hybrid plays the model's card only where its Q beats the rule-based
card's by more than ``trust`` SF (as ``make_agent("dmc", trust=...)``). The positions come
from rule-based games, so this is a diagnostic of card choice, not a match: the strength of
a player is its duplicate margin (``experiments/dmc_pool.py``).
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


def labelled_positions(games: int, seed: int, node_limit: int = 300_000) -> dict[str, np.ndarray]:
    """Card decisions with a choice in ``games`` rule-based self-play games: raw observations,
    legal masks, solver labels (mover's SF per legal card), the rule-based card and the role."""
    from agents.players.dmc import role_of_rows, rule_based_actions
    from skatsim.layout import F_PHASE, PH_PLAY
    from skatsim.solver import Solver
    from skatsim.vec import VecEnv

    from agents.learn.dmc import solver_labels

    env = VecEnv(games, seed=seed, policies=[[None, None, None]] * games, auto_reset=False)
    env.reset()
    acts = np.empty(games, np.int64)
    obs, mask, st, rb = [], [], [], []
    phases = ("bidding", "skat", "discard", "declare", "kontra", "play")
    while (env.to_move >= 0).any():
        rule_based_actions(env, phases, out=acts)
        sel = (env.to_move >= 0) & (env.state[:, F_PHASE] == PH_PLAY) & (env.legal_mask.sum(axis=1) > 1)
        if sel.any():
            obs.append(env.obs[sel])
            mask.append(env.legal_mask[sel])
            st.append(env.state[sel].copy())
            rb.append(acts[sel].copy())
        env.step(acts)
    o, m, s, r = (np.concatenate(x) for x in (obs, mask, st, rb))
    vals = Solver().state_values(s, node_limit=node_limit)
    ok = ~(vals == -2).any(axis=1)
    target = np.zeros((int(ok.sum()), m.shape[1]), np.float32)
    solver_labels(s[ok], vals[ok], target)
    return {"obs": o[ok], "mask": m[ok], "target": target, "rule_based": r[ok], "role": role_of_rows(o[ok]),
            "dropped": np.array([int((~ok).sum())])}


def choices(q: np.ndarray, mask: np.ndarray, rb: np.ndarray, trust: float | None) -> np.ndarray:
    """The greedy legal card of ``q`` per row; with ``trust`` (SF) the rule-based card unless
    the model's beats it by more than ``trust`` (as :class:`agents.players.dmc.DMCAgent`)."""
    from agents.players.dmc import greedy

    a = greedy(q, mask)
    if trust is None:
        return a
    i = np.arange(len(a))
    keep_rb = (a != rb) & (q[i, a] - q[i, rb] <= trust / 100.0)
    return np.where(keep_rb, rb, a)


def score(pick: np.ndarray, target: np.ndarray, mask: np.ndarray,
          role: np.ndarray) -> list[tuple[str, int, float, float]]:
    """(role, positions, share optimal, mean loss SF) over the positions whose cards differ."""
    best = np.where(mask, target, -np.inf).max(axis=1)
    differ = np.where(mask, target, np.inf).min(axis=1) < best
    got = target[np.arange(len(pick)), pick]
    rows = []
    for name, sel in [("all", differ)] + [(ROLES[k], differ & (role == k)) for k in range(3)]:
        n = int(sel.sum())
        rows.append((name, n, float((got == best)[sel].mean()) if n else float("nan"),
                     float((best - got)[sel].mean()) if n else float("nan")))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="rule-based games to take positions from")
    ap.add_argument("--seed", type=int, default=31, help="VecEnv seed of those games")
    ap.add_argument("--models", nargs="*", default=[], help="DMC checkpoints (stems) to judge")
    ap.add_argument("--trust", type=float, nargs="*", default=[], help="trust thresholds (SF) of hybrids to judge")
    a = ap.parse_args(argv)
    from agents.players.dmc import load_model

    t = time.perf_counter()
    data = labelled_positions(a.games, a.seed)
    differ = int(score(data["rule_based"], data["target"], data["mask"], data["role"])[0][1])
    print(f"{len(data['target']):,} card decisions with a choice in {a.games:,} rule-based games, {differ:,} whose "
          f"cards differ in open-hand value ({data['dropped'][0]} over the node limit dropped; "
          f"{time.perf_counter() - t:.0f} s)\n")
    players: list[tuple[str, np.ndarray]] = [("rule_based", data["rule_based"])]
    for path in a.models:
        q = load_model(path).q_rows(data["obs"])
        players.append((f"{path}", choices(q, data["mask"], data["rule_based"], None)))
        for tr in a.trust:
            players.append((f"{path} trust={tr:g}", choices(q, data["mask"], data["rule_based"], tr)))
    print("| player | role | positions | open-hand optimal | mean loss (SF) |")
    print("|---|---|---:|---:|---:|")
    for name, pick in players:
        for role, n, share, loss in score(pick, data["target"], data["mask"], data["role"]):
            print(f"| {name} | {role} | {n:,} | {share:.1%} | {loss:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
