"""Built-in jitted policies and their one compiled dispatcher.

A policy is ``policy(view, seat, params, rng) -> (action, rng)`` (see
:mod:`skatsim.kernels.simulate`): ``view`` is the seat's masked state vector
(:func:`skatsim.kernels.game.mask_view`), ``params`` a ``float64[PARAMS_SIZE]`` row,
``rng`` the seat's SplitMix64 state (:func:`skatsim.bits.seat_stream`). Built-in policies
are identified by an int id so that the batch runner, compiled and cached once, can seat
any mix of them with any parameters (data, not code: no recompilation).

:func:`policy_act` is the same dispatcher callable from Python: agents of the
``agents`` package call it on ``Observation.view``, so a game through the agent protocol
and the same game in batch simulation are identical.

>>> import numpy as np
>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=1)
>>> obs = s.observation(1)
>>> a, rng = policy_act(POLICY_RANDOM, obs.view, 1, np.zeros(PARAMS_SIZE), 12345)
>>> a in s.legal_actions()
True
"""

from __future__ import annotations

from numba import njit

from . import game as G
from .heuristic import DEFAULT_PARAMS as _RB_DEFAULTS
from .heuristic import PARAM_NAMES as _RB_NAMES
from .heuristic import rule_based_policy

__all__ = ["POLICY_RANDOM", "POLICY_RULE_BASED", "POLICY_CUSTOM", "PARAMS_SIZE", "BUILTIN",
           "policy_act", "act"]

POLICY_CUSTOM = -1  # a user's @njit policy, run by kernels.simulate.run_chunk_generic
POLICY_RANDOM = 0
POLICY_RULE_BASED = 1

#: Length of a policy's parameter row.
PARAMS_SIZE = 32

#: Built-in policies: name -> (id, parameter names, default values).
BUILTIN: dict[str, tuple[int, tuple[str, ...], tuple[float, ...]]] = {
    "random": (POLICY_RANDOM, (), ()),
    "rule_based": (POLICY_RULE_BASED, tuple(_RB_NAMES), tuple(float(v) for v in _RB_DEFAULTS)),
}
assert all(len(names) <= PARAMS_SIZE and len(names) == len(vals) for _, names, vals in BUILTIN.values())


@njit(cache=True, inline='always')
def act(pid, view, seat, params, rng):
    """Dispatch to built-in policy ``pid`` (inlined into the batch runners)."""
    if pid == POLICY_RULE_BASED:
        return rule_based_policy(view, seat, params, rng)
    return G.random_action(view, rng)


@njit(cache=True)
def policy_act(pid, view, seat, params, rng):
    """Built-in policy ``pid``'s action for ``seat`` on its masked ``view``: ``(action, rng)``."""
    return act(pid, view, seat, params, rng)
