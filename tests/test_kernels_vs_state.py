"""The batch kernels and the Python state are one rules truth.

More than 10,000 kernel-played deals (every contract type: D H S C G N, hand, schneider and
schwarz announced, ouvert, null hand/ouvert, passed-in, Ramsch, Kontra and Re) are replayed
action by action through ``SkatState`` and every result field is compared. A pure-Python
run of the same kernel (``NUMBA_DISABLE_JIT=1``) must give identical rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from skatsim import SkatRules, SkatState
from skatsim.actions import BID_BASE, PASS
from skatsim.bits import derive_seed, nth_bit, popcount, rand_below
from skatsim.contracts import Contract
from skatsim.kernels import game as G
from skatsim.simulate import CONTRACT_CATEGORIES, iter_chunks

# row field -> result_fields index
FIELDS = {
    "declarer": G.R_DECLARER, "game": G.R_GAME, "flags": G.R_FLAGS, "bid": G.R_BID,
    "picked_up": G.R_PICKED, "kontra": G.R_KONTRA, "declarer_points": G.R_DECL_POINTS,
    "declarer_tricks": G.R_DECL_TRICKS, "matadors": G.R_MATADORS, "won": G.R_WON,
    "schneider": G.R_SCHNEIDER, "schwarz": G.R_SCHWARZ, "multiplier": G.R_MULT,
    "game_value": G.R_VALUE, "overbid": G.R_OVERBID, "charged_value": G.R_CHARGED,
    "list_score": G.R_LIST_SCORE, "score_0": G.R_SCORE0, "score_1": G.R_SCORE1, "score_2": G.R_SCORE2,
    "sf_0": G.R_SF0, "sf_1": G.R_SF1, "sf_2": G.R_SF2,
    "points_0": G.R_PTS0, "points_1": G.R_PTS1, "points_2": G.R_PTS2,
}


@njit
def low_bid_policy(st, seat, params, rng):
    """Random, but bids low: a bidder names the next bid or passes (1:1), so all-pass deals,
    null games and cheap contracts are common. Otherwise uniformly random. With
    ``params[0] == 1`` it returns an illegal action (the error test; the slow test plays it)."""
    if params[0] == 1.0:
        return 200, rng
    if st[G.F_PHASE] == G.PH_BID and st[G.F_BID_STAGE] < 2 and seat == st[G.F_BIDDER]:
        k, rng = rand_below(rng, 2)
        if k == 0 and st[G.F_BID_IDX] < 62:
            return BID_BASE + st[G.F_BID_IDX] + 1, rng
        return PASS, rng
    return G.random_action(st, rng)


def replay_and_compare(chunk, rules: SkatRules) -> set[str]:
    """Replay every row of a chunk through SkatState; return the contracts seen."""
    rows, acts = chunk.rows, chunk.actions
    seen = set()
    for i in range(len(rows)):
        row = rows[i]
        ds = int(row["deal_seed"])
        assert ds == derive_seed(chunk.seed, int(row["deal_index"]))
        state = SkatState.new_game(seed=ds, rules=rules)
        n = int(row["n_actions"])
        for a in acts[i, :n]:
            state.apply_action(int(a))
        assert state.is_terminal(), f"deal {row['deal_index']}: not over after {n} actions"
        assert (acts[i, n:] == -1).all()
        r = state._result_array()
        for name, idx in FIELDS.items():
            assert int(row[name]) == int(r[idx]), (
                f"deal {int(row['deal_index'])} seed {ds}: {name} kernel {row[name]} state {r[idx]}")
        res = state.result
        contract = CONTRACT_CATEGORIES[-1] if res.passed_in else "R" if res.ramsch else res.contract
        seen.add(contract)
        assert list(res.scores) == [int(row[f"score_{s}"]) for s in range(3)]
        assert list(res.seeger_fabian) == [int(row[f"sf_{s}"]) for s in range(3)]
        if not (res.passed_in or res.ramsch):
            assert Contract(int(row["game"]), int(row["flags"])).to_text() == res.contract
            assert res.list_score == int(row["list_score"]) and res.won == bool(row["won"])
    return seen


#: A table that bids low at one seat and at random at the others: passed-in deals, Ramsch, null
#: games and every announcement come up within a few thousand deals, on the built-in runner
#: ``skatsim warmup`` compiled (a jitted policy of a test's own compiles the runner anew: 150 s).
MIX = ["random", ("rule_based", {"max_bid": 18}), "random"]

CASES = [  # (policy, rules, n_deals, seed)
    ("random", SkatRules(), 3000, 101),
    (MIX, SkatRules(), 4000, 102),
    ("random", SkatRules(kontra=True), 1000, 103),
    (MIX, SkatRules(ramsch=True, kontra=True), 2000, 104),
    (MIX, SkatRules(ramsch=True), 500, 105),
]


def test_kernel_rows_replay_through_state_field_by_field():
    seen: set[str] = set()
    kontra_seen: set[int] = set()
    total = 0
    for policy, rules, n, seed in CASES:
        for chunk in iter_chunks(n, policy, seed=seed, rules=rules, workers=2, chunk_size=1500,
                                 record_actions=True):
            seen |= replay_and_compare(chunk, rules)
            kontra_seen |= set(np.unique(chunk.rows["kontra"]).tolist())
            total += len(chunk)
    assert total >= 10_000
    missing = set(CONTRACT_CATEGORIES) - seen
    assert not missing, f"contract types never played: {sorted(missing)}"
    assert kontra_seen == {0, 1, 2}


def test_custom_policy_illegal_action_is_reported():
    # the one test here that compiles the generic runner for a jitted policy of its own
    with pytest.raises(ValueError, match=r"illegal action \(action #1 of deal 0"):
        list(iter_chunks(3, (low_bid_policy, [1.0]), seed=1, workers=1, record_actions=True))


def test_random_action_is_uniform_over_legal_set():
    """random_action draws each legal action with equal probability (checked on a bidding state)."""
    st = np.zeros(G.N_FIELDS, np.int64)
    s = SkatState.new_game(seed=4)
    st[:] = s._st
    base, lo, hi = G.legal_set(st)
    n = popcount(int(lo)) + popcount(int(hi))
    counts: dict[int, int] = {}
    rng = 12345
    for _ in range(n * 200):
        a, rng = G.random_action(st, rng)
        counts[int(a)] = counts.get(int(a), 0) + 1
    assert len(counts) == n
    assert set(counts) == set(s.legal_actions())
    assert min(counts.values()) > 100 and max(counts.values()) < 320
    assert int(base + nth_bit(int(lo), 0)) == min(counts)


_NOJIT_SCRIPT = textwrap.dedent("""
    import hashlib, json
    from skatsim.simulate import iter_chunks
    from skatsim.options import SkatRules
    out = []
    for rules in (SkatRules(), SkatRules(ramsch=True, kontra=True)):
        for ch in iter_chunks(150, seed=5, rules=rules, workers=1, chunk_size=64, record_actions=True):
            out.append([ch.rows.tolist(), ch.actions.tolist()])
    print(hashlib.sha256(json.dumps(out).encode()).hexdigest())
""")


def test_pure_python_kernel_gives_identical_rows():
    """NUMBA_DISABLE_JIT=1 runs the same kernel source as plain Python: same rows, same actions."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = []
    for rules in (SkatRules(), SkatRules(ramsch=True, kontra=True)):
        for ch in iter_chunks(150, seed=5, rules=rules, workers=1, chunk_size=64, record_actions=True):
            out.append([ch.rows.tolist(), ch.actions.tolist()])
    assert proc.stdout.strip() == hashlib.sha256(json.dumps(out).encode()).hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("policy,rules", [("random", SkatRules()), (low_bid_policy, SkatRules(ramsch=True, kontra=True))])
def test_100k_kernel_rows_replay_through_state(policy, rules):
    seen: set[str] = set()
    for chunk in iter_chunks(100_000, policy, seed=777, rules=rules, chunk_size=10_000, record_actions=True):
        seen |= replay_and_compare(chunk, rules)
    assert len(seen) >= 25
