"""Compile every numba kernel once, into the on-disk cache (``skatsim warmup``).

Numba compiles a kernel on its first call and caches the machine code (under
``~/.cache/skatsim/numba/<source hash>``, :mod:`skatsim._numba_cache`), so the first run after
an install or an edit of the engine pays the compilation: 42 min on the 2-core dev machine on a
fresh clone (2026-12-05: the batch runner 8 min, the vectorised environment 4 min, the agents'
kernels 26 min; numba's compile events put 554 s of the batch runner in ``run_chunk``, whose
prange body inlines the whole autoplay loop; the agents' 26 min are not profiled yet). ``setup.sh`` pays it
here, once, with a line per step, instead of in the first tournament, the first training step
or in every worker of the test suite. Each step is a small run of one path of the engine:
what it computes is thrown away.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

__all__ = ["STEPS", "warm_up"]


def _simulate() -> None:
    from skatsim.simulate import simulate

    for policy in ("random", "rule_based", ["rule_based", "random", ("rule_based", {"max_bid": 18})]):
        simulate(64, policy, seed=1, workers=1, progress=False)


def _state() -> None:
    from skatsim import SkatState
    from skatsim.state import random_game

    s = random_game(3)
    SkatState.from_record(s.to_record())
    s.observation(0)


def _policies() -> None:
    from skatsim.bits import seat_stream
    from skatsim.kernels import game as G
    from skatsim.kernels.heuristic import params_array
    from skatsim.kernels.policies import POLICY_RANDOM, POLICY_RULE_BASED, policy_act
    from skatsim.state import SkatState

    s = SkatState.new_game(seed=1)
    v = np.zeros(G.N_FIELDS, dtype=np.int64)
    G.mask_view(s.vector, s.current_player(), v)
    for pid in (POLICY_RULE_BASED, POLICY_RANDOM):
        policy_act(pid, v, s.current_player(), params_array(), seat_stream(1, 0))


def _vec() -> None:
    from skatsim.vec import TrajectoryBuffer, VecEnv, sample_masks

    env = VecEnv(8, seed=1, policies=[None, "rule_based", "random"])
    buf = env.record(TrajectoryBuffer(256, 8))
    assert buf is not None
    env.reset()
    rng = np.arange(8, dtype=np.int64)
    for _ in range(40):
        env.step(sample_masks(env.legal_mask, rng))
    env.policy_actions("rule_based")
    env.observe(0)
    env.random_actions()
    buf.take()
    one = VecEnv(1, auto_reset=False)
    one.reset()
    one.forfeit(0, 1)


def _solver() -> None:
    from skatsim.rollout import rollouts_from_state
    from skatsim.solver import Solver, solve
    from skatsim.state import to_play

    s = to_play(7, 0, "G")
    solve(s)
    Solver().state_values(np.stack([s.vector]))
    rollouts_from_state(s, 8, 1)


def _agents() -> None:
    from agents import list_agents
    from agents.arena.testing import agent_api_test

    cheap = {"pimc": "pimc:worlds=2", "expert": "expert:worlds=2",  # the kernels, not the search's size
             "skat_search": "skat_search:worlds=2,finalists=1,final_worlds=2,discards=2"}
    for name in list_agents():
        agent_api_test(cheap.get(name, name), n_deals=2, seed=1, hidden_deals=1, n_worlds=2)


def _tournament() -> None:
    from agents import run_tournament

    run_tournament(["rule_based", "random"], 2, seed=1, progress=False)
    run_tournament(["pimc:worlds=2", "random"], 1, seed=1, progress=False, parallel="threads")


def _labels() -> None:
    from agents.learn.bidding_data import LabelConfig, label_deal

    for labeler in ("rule_based", "solver"):
        label_deal(0, LabelConfig(n_deals=1, worlds=2, seed=1, labeler=labeler))


#: The steps, in order: (what it compiles, the call).
STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("batch simulation", _simulate), ("the state machine and records", _state),
    ("the built-in policies on a seat's view", _policies),
    ("the vectorised environment", _vec), ("the solver and rollouts", _solver),
    ("every registered agent (shared agent test)", _agents), ("tournaments", _tournament),
    ("bidding labels", _labels))


def warm_up(say: Callable[[str], None] = print) -> float:
    """Run every step of :data:`STEPS`, saying each with its time; returns the seconds in all."""
    t_all = time.perf_counter()
    say("compiling the numba kernels once into the cache (about 40 min the first time; seconds after)")
    for i, (what, step) in enumerate(STEPS, 1):
        t0 = time.perf_counter()
        step()
        say(f"  [{i}/{len(STEPS)}] {what}: {time.perf_counter() - t0:.1f} s")
    total = time.perf_counter() - t_all
    say(f"kernels ready in {total:.1f} s")
    return total
