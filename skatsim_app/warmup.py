"""Compile every numba kernel once, into the on-disk cache (``skatsim warmup``).

Numba compiles a kernel on its first call and caches the machine code (under
``~/.cache/skatsim/numba/<source hash>``, :mod:`skatsim._numba_cache`), so the first run after
an install or an edit of the engine pays the compilation. ``setup.sh`` pays it here, once,
with a line per step, instead of in the first tournament, the first training step or in every
worker of the test suite. Each step is a small run of one path of the engine: what it computes
is thrown away. The steps run on two worker processes (``--workers 1``: one after the other,
in this process), taken in the order of :data:`STEPS` as a worker comes free.

Measured with numba's compile events on the 2-core dev machine (2026-12-05, empty cache): the
batch runner ``run_chunk`` 417 s (its prange body inlines the whole autoplay loop), the
vectorised environment 262 s, ``policy_act`` 75 s for each argument layout it is called with
(writable arrays from kernels, read-only ones from agents), the agents' own kernels 37 s.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from skatsim.parallel import map_chunks

__all__ = ["STEPS", "warm_up"]


def _simulate() -> None:
    from skatsim.simulate import simulate

    for policy in ("random", "rule_based", ["rule_based", "random", ("rule_based", {"max_bid": 18})]):
        simulate(64, policy, seed=1, workers=1, progress=False)


def _policy_own_params() -> None:
    """``policy_act`` on an observation (read-only) with a parameter row of one's own (writable),
    as its docstring calls it: one compilation per combination of argument layouts."""
    from skatsim.kernels.heuristic import params_array
    from skatsim.kernels.policies import PARAMS_SIZE, POLICY_RANDOM, POLICY_RULE_BASED, policy_act
    from skatsim.state import SkatState

    obs = SkatState.new_game(seed=1).observation(1)
    policy_act(POLICY_RULE_BASED, obs.view, 1, params_array(), 12345)
    policy_act(POLICY_RANDOM, obs.view, 1, np.zeros(PARAMS_SIZE), 12345)


def _serial_twins() -> None:
    """The kernels' serial twins (:func:`skatsim.kernels.threads.kernel`), which a process
    forked after numba's threads ran uses: the web table's replays, a tournament's worker
    processes. Run here with the twin switch set, as in such a process."""
    from skatsim.kernels import threads
    from skatsim.simulate import iter_chunks, simulate
    from skatsim.vec import VecEnv, sample_masks

    old = threads._FORKED_AFTER_OMP
    threads._FORKED_AFTER_OMP = True
    try:
        simulate(16, ["rule_based", "random", ("rule_based", {"max_bid": 18})], seed=1, workers=1, progress=False)
        list(iter_chunks(16, "rule_based", seed=1, workers=1, record_actions=True, progress=False))
        env = VecEnv(2, seed=1, policies=[None, "rule_based", "random"])
        env.reset()
        rng = np.arange(2, dtype=np.int64)
        for _ in range(30):
            env.step(sample_masks(env.legal_mask, rng))
    finally:
        threads._FORKED_AFTER_OMP = old


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
    # PIMC's inference: the auction's and the card network's replays of the worlds
    agent_api_test("pimc:worlds=2,inference=true,card_eps=0.5,card_model=distilled", n_deals=2, seed=1,
                   hidden_deals=1, n_worlds=2)


def _tournament() -> None:
    from agents import run_tournament

    run_tournament(["rule_based", "random"], 2, seed=1, progress=False)
    run_tournament(["pimc:worlds=2", "random"], 1, seed=1, progress=False, parallel="threads")


def _labels() -> None:
    from agents.learn.bidding_data import LabelConfig, label_deal

    for labeler in ("rule_based", "solver"):
        label_deal(0, LabelConfig(n_deals=1, worlds=2, seed=1, labeler=labeler))


#: The steps, ``(what it compiles, the call)``, in the order two workers take them: the batch
#: runner first (the longest, about a third of the whole), the rest in an order where each step
#: finds what it shares already compiled (the state machine before the agents, the policies and
#: the solver before the labels); on the 2-core machine the two workers end within a minute of
#: each other.
STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("batch simulation", _simulate), ("the state machine and records", _state),
    ("the built-in policies on a seat's view", _policies), ("the solver and rollouts", _solver),
    ("bidding labels", _labels), ("the vectorised environment", _vec),
    ("the serial twins (processes forked after threads)", _serial_twins),
    ("every registered agent (shared agent test)", _agents),
    ("the built-in policies on an observation, with one's own parameters", _policy_own_params),
    ("tournaments", _tournament))


def _timed_step(i: int) -> float:
    t0 = time.perf_counter()
    STEPS[i][1]()
    return time.perf_counter() - t0


def warm_up(say: Callable[[str], None] = print, workers: int = 2) -> float:
    """Run every step of :data:`STEPS` on ``workers`` processes (1: here, one after the other;
    :func:`skatsim.parallel.map_chunks`), saying each as it ends with its time; returns the
    seconds in all. A step's error is raised here."""
    t_all = time.perf_counter()
    n = len(STEPS)
    say(f"compiling the numba kernels once into the cache (about {22 if workers < 2 else 11} min on 2 cores "
        "the first time; seconds after)")
    # fresh interpreters: the steps run numba's parallel kernels, which a process forked after
    # this one ran them (a test process) could not
    for k, (i, secs) in enumerate(map_chunks(_timed_step, [(i,) for i in range(n)], range(n), workers=workers,
                                             start="spawn"), 1):
        say(f"  [{k}/{n}] {STEPS[i][0]}: {secs:.1f} s")
    total = time.perf_counter() - t_all
    say(f"kernels ready in {total:.1f} s")
    return total
