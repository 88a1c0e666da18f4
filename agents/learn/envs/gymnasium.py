"""``SkatGymEnv``: one seat of Skat as a Gymnasium environment; the others are registered agents.

The learner plays ``seat`` (0 forehand, 1 middlehand, 2 rearhand); the other two seats
are agents of the registry, given as specs (``opponents=["rule_based",
"pimc:worlds=8"]``): compiled ones (``random``, ``rule_based``) play inside the compiled
step, others through the agent protocol, seated as at :class:`agents.arena.play.Table`
(:class:`agents.arena.seat.SlotSeats`). An
episode is one deal: ``reset(seed=s)`` deals deal 0 of the run seed ``s`` (a ``reset()``
without seed the next deal of the stream), and the observation is the learner's float32
tensor (574 values in [0, 1]). The reward (on the last step) is the learner's return of
kind ``reward`` (:meth:`skatsim.SkatState.returns`); the last step's ``info["result"]`` is
the game's result (:func:`agents.learn.envs.game_result`: contract, declarer, won, card
points, scores).

The legal actions, where each library looks for them: ``info["action_mask"]`` (int8, 130;
all zero once the game is over) after every ``reset`` and ``step``; the method
``action_masks()`` (bool, 130: what sb3-contrib's ``MaskablePPO`` calls); and with
``observation="dict"`` the observation itself, ``{"observation": float32 (574,),
"action_mask": int8 (130,)}`` (as in the PettingZoo environments and RLlib's masked
models). Registered as ``gymnasium.make("skatsim/Skat-v0", ...)`` (see
:mod:`agents.learn.envs`).

An illegal action (``Discrete(130)`` allows any id) is handled by the failure rule of a
tournament table (``illegal="forfeit"``, the default; :func:`agents.arena.seat.failure_action`):
a pass in the bidding and Kontra/Re, otherwise the game ends and is settled against the
learner by the core's forfeit rule (:meth:`skatsim.vec.VecEnv.forfeit`), with
``info["illegal_action"]`` set; ``illegal="raise"`` raises
:class:`skatsim.vec.IllegalActionError` instead.

>>> env = SkatGymEnv(seat=0, opponents=["rule_based", "random"])
>>> obs, info = env.reset(seed=3)
>>> obs.shape, bool(info["action_mask"].sum() > 0)
((574,), True)
>>> done = False
>>> while not done:
...     obs, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
>>> isinstance(reward, float)
True
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from skatsim.actions import NUM_ACTIONS, PASS
from skatsim.kernels import game as K
from skatsim.kernels.observe import OBS_SIZE
from skatsim.options import ISKO, SkatRules
from skatsim.state import RETURN_KINDS
from skatsim.vec import VecEnv

from ...arena.base import AgentSpec
from ...arena.seat import FORFEIT, AgentError, SlotSeats, failure_action
from . import game_result

__all__ = ["SkatGymEnv"]

_ILLEGAL = ("forfeit", "raise")


class SkatGymEnv(gym.Env):
    """One learning seat against registered agents (Gymnasium API); see the module docstring.

    Args:
        seat: the learner's seat.
        opponents: two agent specs for the other seats, in seat order.
        rules: :class:`~skatsim.SkatRules`.
        reward: ``"sf"``, ``"zero_sum"`` or ``"list"``.
        illegal: ``"forfeit"`` or ``"raise"`` (see the module docstring).
        time_limit: seconds per decision of a Python opponent (``None``: none).
        observation: ``"array"`` (the 574 floats) or ``"dict"`` (with the action mask).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, seat: int = 0, opponents: Sequence[Any] = ("rule_based", "rule_based"),
                 rules: SkatRules = ISKO, reward: str = "sf", illegal: str = "forfeit",
                 time_limit: float | None = None, render_mode: str | None = None,
                 observation: str = "array") -> None:
        if isinstance(seat, bool) or seat not in (0, 1, 2):
            raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
        if isinstance(opponents, (str, AgentSpec)) or len(opponents) != 2:
            raise ValueError(f"opponents must be two agent specs (the other seats in order), got {opponents!r}")
        if illegal not in _ILLEGAL:
            raise ValueError(f"illegal must be one of {_ILLEGAL}, got {illegal!r}")
        if reward not in RETURN_KINDS:
            raise ValueError(f"reward must be one of {RETURN_KINDS}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.seat = int(seat)
        self.reward_kind = reward
        self.illegal = illegal
        self.time_limit = time_limit
        others = [s for s in range(3) if s != self.seat]
        self._specs: list[AgentSpec | None] = [None, None, None]
        for s, spec in zip(others, opponents):
            self._specs[s] = AgentSpec.coerce(spec)
        self.opponents = tuple(self._specs[s] for s in others)
        policies = [None if sp is None else sp.engine_policy() for sp in self._specs]
        # the opponents that decide through the agent protocol
        self._python = [sp is not None and p is None for sp, p in zip(self._specs, policies)]
        self._env = VecEnv(1, rules=rules, reward=reward, auto_reset=False, policies=policies)
        if observation not in ("array", "dict"):
            raise ValueError(f"observation must be 'array' or 'dict', got {observation!r}")
        self.observation_kind = observation
        self.observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
        if observation == "dict":
            self.observation_space = spaces.Dict({"observation": self.observation_space,
                                                  "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._seats: SlotSeats | None = None
        self._over = True

    @property
    def vec(self) -> VecEnv:
        """The one-game :class:`~skatsim.vec.VecEnv` underneath."""
        return self._env

    def _result(self, reward: float, info: dict[str, Any]) -> tuple[Any, float, bool, bool, dict]:
        info["action_mask"] = mask = self._mask()
        if self._over and "result" not in info:
            info["result"] = game_result(self._env.last_results[0])
        obs = self._env.observe(self.seat)[0].copy()
        return ({"observation": obs, "action_mask": mask} if self.observation_kind == "dict" else obs,
                reward, self._over, False, info)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, a bool array of 130 (sb3-contrib's ``MaskablePPO``
        asks the environment this)."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, np.int8)
        if not self._over and int(self._env.to_move[0]) == self.seat:
            m[self._env.legal_mask[0]] = 1
        return m

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        env = self._env
        if seed is not None:
            env.reset(seed=seed)
        else:
            env.reset()
        self._seats = SlotSeats(env, 0, self._python)
        for s, sp in enumerate(self._specs):
            if self._python[s]:
                assert sp is not None
                self._seats.sit(s, sp.make())
        self._over = False
        reward = self._advance()
        obs, _, _, _, info = self._result(reward, {})
        return obs, info

    def _advance(self) -> float:
        """Play the opponents until the learner is to move or the game ends; the learner's reward."""
        env, seats = self._env, self._seats
        while not self._over:
            if env.done[0]:
                self._over = True
                return float(env.rewards[0, self.seat])
            p = int(env.to_move[0])
            if p == self.seat:
                return 0.0
            assert seats is not None  # a game is open between reset and its end
            env.step(np.array([seats.act(p, self.time_limit)], dtype=np.int64))
        return 0.0

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        env = self._env
        info: dict[str, Any] = {}
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else -1
        if not (0 <= a < NUM_ACTIONS and env.legal_mask[0, a]):
            if self.illegal == "raise":
                env.step(np.array([a], dtype=np.int64))  # raises IllegalActionError
            info["illegal_action"] = True
            phase = K.PHASE_NAMES[int(env.state[0, K.F_PHASE])]
            error = AgentError(f"the learner (seat {self.seat}) took the illegal action {action!r} in phase {phase}",
                               agent="learner", seat=self.seat, phase=phase, action=action)
            a = failure_action(error, bool(env.legal_mask[0, PASS]))
            if a == FORFEIT:  # settled against the learner, as at a tournament table
                env.forfeit(0, self.seat)
                self._over = True
                return self._result(float(env.rewards[0, self.seat]), info)
        env.step(np.array([a], dtype=np.int64))
        return self._result(self._advance(), info)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return str(self._env.observation(0, self.seat))

    def close(self) -> None:
        self._env.close()
