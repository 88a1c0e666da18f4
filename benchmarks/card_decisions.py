"""Card-decision time: the distilled network against PIMC and the rule-based player, on the
same positions, one thread; and the network's batched rate.

    python benchmarks/card_decisions.py [--games 30] [--seed 2024] [--agents distilled pimc:worlds=32 rule_based]

Positions: every card decision with more than one legal card of seat 0 in ``--games``
games of rule-based self-play (seeded). Each agent (a registry spec) is reset for the deal
and asked ``act`` on each position in order, timed in CPU seconds of this process
(``time.process_time``) with torch and numba on one thread; compile time is excluded (one
untimed game first). Then the distilled model's forward pass on ``--batch`` positions at
once (features encoded beforehand), positions per CPU second. Prints one table and appends
one JSON line to ``./runs/benchmarks/card_decisions.jsonl`` (``--out``, ``--no-json``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _env  # noqa: E402


def positions(games: int, seed: int) -> list[tuple[int, int, object]]:
    """``(game, seed of the deal, observation)`` of seat 0's card decisions with a choice."""
    from agents import make_agent
    from skatsim import SkatState
    from skatsim.bits import derive_seed, seat_stream

    out = []
    for g in range(games):
        s = derive_seed(seed, g)
        state = SkatState.new_game(seed=s)
        players = [make_agent("rule_based") for _ in range(3)]
        for p, a in enumerate(players):
            a.reset(g, p, seat_stream(s, p))
        while not state.is_terminal():
            p = state.current_player()
            obs = state.observation(p)
            if p == 0 and obs.phase == "play" and len(obs.legal_actions) > 1:
                out.append((g, s, obs))
            state.apply_action(players[p].act(obs))
    return out


def time_agent(spec: str, pos: list[tuple[int, int, object]]) -> float:
    """Mean CPU seconds of ``act`` per position (the agent reset at each new deal)."""
    from agents import make_agent
    from skatsim.bits import seat_stream

    agent = make_agent(spec)
    g0, s0, o0 = pos[0]
    agent.reset(g0, 0, seat_stream(s0, 0))
    agent.act(o0)  # compile / load outside the timing
    total, last = 0.0, None
    for g, s, obs in pos:
        if g != last:
            agent.reset(g, 0, seat_stream(s, 0))
            last = g
        t0 = time.process_time()
        agent.act(obs)
        total += time.process_time() - t0
    return total / len(pos)


def batched_rate(pos: list[tuple[int, int, object]], batch: int) -> float:
    """Positions per CPU second of the shipped model's forward pass, ``batch`` at a time."""
    import numpy as np

    from agents.players.distilled import encode_observation, load_card_model

    model = load_card_model(None)
    feats = [encode_observation(o) for _, _, o in pos]
    reps = max(1, batch // len(feats) + 1)
    flat = np.concatenate([f for f, _ in feats] * reps)[:batch]
    tok = np.concatenate([t for _, t in feats] * reps)[:batch]
    model.outputs(flat[:8], tok[:8])
    t0 = time.process_time()
    model.outputs(flat, tok)
    return batch / (time.process_time() - t0)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="games of rule-based self-play (default 30)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--agents", nargs="+", default=["distilled", "pimc:worlds=32", "rule_based"])
    ap.add_argument("--batch", type=int, default=4096, help="positions per batched forward pass (default 4096)")
    _env.add_output_args(ap, "card_decisions")
    a = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    pos = positions(a.games, a.seed)
    rows = {spec: time_agent(spec, pos) for spec in a.agents}
    rate = batched_rate(pos, a.batch)
    print(f"card decisions with a choice: {len(pos)} positions of seat 0 in {a.games} games (seed {a.seed}), "
          f"1 thread, CPU time")
    print(f"{'agent':<24} {'ms per decision':>16}")
    for spec, t in rows.items():
        print(f"{spec:<24} {t * 1000:>16.3f}")
    print(f"distilled model, batched forward pass ({a.batch} positions): {rate:,.0f} positions per CPU second")
    rec = {"benchmark": "card_decisions", "time": _env.now_utc(), "cpu": _env.cpu_model(),
           "commit": _env.git_commit(), "versions": _env.versions(), "config": vars(a), "positions": len(pos),
           "ms_per_decision": {k: v * 1000 for k, v in rows.items()}, "batched_positions_per_cpu_s": rate}
    _env.write_record(a, "card_decisions", rec)
    return rec


if __name__ == "__main__":
    main()
