"""One game of Skat as a PettingZoo environment (needs ``pettingzoo``): ``SkatAECEnv`` (the AEC
API, ``env()``) and ``SkatParallelEnv`` (the parallel API, ``parallel_env()``).

Agents ``"player_0"``, ``"player_1"``, ``"player_2"``: seats 0 (forehand), 1 (middlehand), 2
(rearhand) of the deal; in the AEC API the agent to act is ``agent_selection``. An
observation is a dict: ``"observation"`` the seat's float32
tensor (:data:`skatsim.observation.OBS_LAYOUT`, 574 values in [0, 1], from its masked
view) and ``"action_mask"`` int8 (130,) (all zero unless the agent is to act). Rewards
come at the end of the game, per seat, of the kind ``reward=`` (``"sf"`` Seeger-Fabian,
``"zero_sum"`` or ``"list"``: :meth:`skatsim.SkatState.returns`). ``reset(seed=s)``
deals deal 0 of the run seed ``s`` (``simulate(seed=s)`` row 0); a ``reset()`` without a
seed deals the next deal of the stream. An illegal action raises
:class:`skatsim.vec.IllegalActionError`. When the game ends every agent's ``info["result"]``
holds its result (:func:`agents.learn.envs.game_result`: contract, declarer, won, card
points, scores).

In the parallel API every live agent gets an observation each step; the one whose action
mask is not all zero is to act, and ``step(actions)`` applies its action (the others' are
ignored and may be left out): Skat is played in turn, as PettingZoo's turn-based games are.

>>> env = SkatAECEnv()
>>> env.reset(seed=1)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated else int(np.flatnonzero(obs["action_mask"])[0])
...     env.step(action)
>>> sorted(env.rewards) == [] and env.agents == []      # everybody has left the table
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from skatsim.actions import NUM_ACTIONS
from skatsim.kernels.observe import OBS_SIZE
from skatsim.options import ISKO, SkatRules
from skatsim.vec import VecEnv

from . import AGENT_NAMES, game_result

__all__ = ["SkatAECEnv", "SkatParallelEnv", "env", "parallel_env"]


def _spaces() -> tuple[spaces.Dict, spaces.Discrete]:
    return (spaces.Dict({"observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                         "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)}),
            spaces.Discrete(NUM_ACTIONS))


def _observe(env: VecEnv, seat: int) -> dict[str, np.ndarray]:
    """Seat ``seat``'s observation and action mask (all zero unless it is to act)."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    if int(env.to_move[0]) == seat:
        mask[env.legal_mask[0]] = 1
    return {"observation": env.observe(seat)[0], "action_mask": mask}


class _OneGame:
    """What both environments share: one game of a :class:`~skatsim.vec.VecEnv`, the spaces
    and the render mode."""

    metadata: dict[str, Any]

    def _one_game(self, rules: SkatRules, reward: str, render_mode: str | None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENT_NAMES)
        self._env = VecEnv(1, rules=rules, reward=reward, auto_reset=False)
        self._obs_space, self._act_space = _spaces()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    @property
    def vec(self) -> VecEnv:
        """The one-game :class:`~skatsim.vec.VecEnv` underneath."""
        return self._env


class SkatAECEnv(_OneGame, AECEnv):
    """Skat for three learning agents (PettingZoo AEC API); see the module docstring."""

    metadata: dict[str, Any] = {"name": "skat_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: SkatRules = ISKO, reward: str = "sf", render_mode: str | None = None) -> None:
        super().__init__()
        self._one_game(rules, reward, render_mode)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._env.reset(seed=seed)
        else:
            self._env.reset()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = AGENT_NAMES[int(self._env.to_move[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return _observe(self._env, AGENT_NAMES.index(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        out = self._env.step(np.array([action], dtype=np.int64))
        if out.done[0]:
            result = game_result(self._env.last_results[0])
            for s, a in enumerate(AGENT_NAMES):
                self.rewards[a] = float(out.rewards[0, s])
                self.terminations[a] = True
                self.infos[a] = {"result": result}
        else:
            self.agent_selection = AGENT_NAMES[int(out.to_move[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The table as text: each seat's observation (the ``ansi`` mode returns it)."""
        if self.render_mode is None:
            return None
        return "\n".join(str(self._env.observation(0, s)) for s in range(3))

    def close(self) -> None:
        self._env.close()


class SkatParallelEnv(_OneGame, ParallelEnv):
    """Skat for three learning agents (PettingZoo parallel API); see the module docstring.

    >>> env = SkatParallelEnv()
    >>> obs, infos = env.reset(seed=1)
    >>> while env.agents:
    ...     actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items() if o["action_mask"].any()}
    ...     obs, rewards, terms, truncs, infos = env.step(actions)
    >>> sorted(rewards) == sorted(AGENT_NAMES), sorted(infos["player_0"]["result"])[:3]
    (True, ['bid', 'charged_value', 'contract'])
    """

    metadata: dict[str, Any] = {"name": "skat_v0", "render_modes": ["ansi"]}

    def __init__(self, rules: SkatRules = ISKO, reward: str = "sf", render_mode: str | None = None) -> None:
        self._one_game(rules, reward, render_mode)
        self.agents: list[str] = []

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: _observe(self._env, s) for s, a in enumerate(AGENT_NAMES) if a in self.agents}

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._env.reset(seed=seed)
        else:
            self._env.reset()
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        mover = AGENT_NAMES[int(self._env.to_move[0])]
        if actions.get(mover) is None:
            raise ValueError(f"{mover} is to act: actions must hold its action (got actions for {sorted(actions)})")
        out = self._env.step(np.array([actions[mover]], dtype=np.int64))
        done = bool(out.done[0])
        rewards = {a: float(out.rewards[0, s]) if done else 0.0 for s, a in enumerate(AGENT_NAMES)}
        info = {"result": game_result(self._env.last_results[0])} if done else {}
        terms = {a: done for a in self.agents}
        truncs = {a: False for a in self.agents}
        infos = {a: dict(info) for a in self.agents}
        obs = self._observations()
        if done:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        """The table as text: each seat's observation (the ``ansi`` mode returns it)."""
        if self.render_mode is None:
            return None
        return "\n".join(str(self._env.observation(0, s)) for s in range(3))

    def close(self) -> None:
        self._env.close()


def env(**kw: Any) -> SkatAECEnv:
    """PettingZoo-style constructor: ``agents.learn.envs.pettingzoo.env()``."""
    return SkatAECEnv(**kw)


def parallel_env(**kw: Any) -> SkatParallelEnv:
    """The parallel API's constructor: ``agents.learn.envs.pettingzoo.parallel_env()``."""
    return SkatParallelEnv(**kw)
