"""Pinned outcomes of batch simulation: speed work must not change a single game.

Each case plays a fixed batch (random and rule-based self-play, mixed tables and parameter
variants, both rule options, card-play rollouts) and compares a SHA-256 digest of every
result field and every action with a constant. The constants were computed on ``main``
at commit ``fbe1402`` (before the engine and heuristic speed-ups of issue 16), so a change
that alters any deal seed, random stream, decision or settlement fails here. A deliberate
change of the rules, the random streams or the rule-based player updates them (print the
new digests with ``python tests/test_engine_regression.py``).
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import pytest
from numba import njit

from skatsim import deal
from skatsim.kernels import simulate as KS
from skatsim.kernels.rollout import POLICY_RANDOM, rollout_kernel
from skatsim.options import SkatRules
from skatsim.rules import beats, trick_winner_pos
from skatsim.rollout import position_state
from skatsim.simulate import iter_chunks
from skatsim.solver import Position

RK = SkatRules(ramsch=True, kontra=True)

#: name -> (iter_chunks keyword arguments, digest)
GAMES = {
    "random": (dict(n_deals=50_000, policy="random", seed=2024), "1492a3fb83b5250f"),
    "random_ramsch_kontra": (dict(n_deals=20_000, policy="random", seed=7, rules=RK), "822e7d0bf06f9b56"),
    "rule_based": (dict(n_deals=20_000, policy="rule_based", seed=2024), "4f52984e7d9100b8"),
    "rule_based_ramsch_kontra": (dict(n_deals=10_000, policy="rule_based", seed=11, rules=RK), "2918f18a320e624c"),
    "rule_based_variants": (dict(n_deals=10_000, seed=5, policy=[
        "rule_based", ("rule_based", {"random_cards": 1.0}),
        ("rule_based", {"smear_min_out": 2.0, "no_null": 1.0})]), "ca4d1ddbbc96ed5e"),
    "mixed_table_kontra": (dict(n_deals=10_000, seed=6, rules=SkatRules(kontra=True), policy=[
        ("rule_based", {"random_bidding": 1.0}), "random",
        ("rule_based", {"max_bid": 18.0, "no_grand": 1.0, "no_hand": 1.0})]), "e1bafd17493824fb"),
}
ROLLOUTS = "3ed6c526858a652e"


def games_digest(kw: dict) -> str:
    """Digest of every field of every result row and every recorded action, in order."""
    m = hashlib.sha256()
    for chunk in iter_chunks(record_actions=True, progress=False, workers=1, chunk_size=1 << 14, **kw):
        for name in chunk.rows.dtype.names:
            m.update(np.ascontiguousarray(chunk.rows[name]).tobytes())
        m.update(np.ascontiguousarray(chunk.actions).tobytes())
    return m.hexdigest()[:16]


def rollouts_digest(n: int = 20_000) -> str:
    """Digest of 20,000 recorded rollouts of one deal in each of the six contracts."""
    h0, h1, h2, sk = deal(2024).masks()
    m = hashlib.sha256()
    for g in (4, 3, 0, 2, 1, 5):
        st = position_state(Position((h0, h1, h2), sk, g, 0))
        pts, tricks, won = np.empty(n, np.int16), np.empty(n, np.int8), np.empty(n, np.bool_)
        acts = np.full((n, 30), -1, np.int8)
        rollout_kernel(st, POLICY_RANDOM, np.zeros(32), KS.seed_mul(99 + g), pts, tricks, won, acts, True)
        for a in (pts, tricks, won, acts):
            m.update(a.tobytes())
    return m.hexdigest()[:16]


def test_trick_winner_is_beats_card_by_card():
    """The branch-free ``trick_winner_pos`` against its definition by :func:`beats`, for
    every game type and every trick of three distinct cards (208,320 tricks)."""
    bad = _trick_winner_mismatches()
    assert bad == 0


@njit(cache=True)
def _trick_winner_mismatches() -> int:
    bad = 0
    for g in range(7):
        for c0 in range(32):
            for c1 in range(32):
                for c2 in range(32):
                    if c0 == c1 or c1 == c2 or c0 == c2:
                        continue
                    w, best = 0, c0
                    if beats(c1, best, g):
                        w, best = 1, c1
                    if beats(c2, best, g):
                        w = 2
                    bad += w != trick_winner_pos(c0, c1, c2, g)
    return bad


@pytest.mark.parametrize("name", list(GAMES))
def test_games_unchanged(name):
    kw, digest = GAMES[name]
    assert games_digest(kw) == digest


def test_rollouts_unchanged():
    assert rollouts_digest() == ROLLOUTS


if __name__ == "__main__":  # print the digests (to pin a deliberate change)
    for name, (kw, _) in GAMES.items():
        print(name, games_digest(kw), flush=True)
    print("rollouts", rollouts_digest())
    sys.exit(0)
