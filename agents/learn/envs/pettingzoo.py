"""``SkatAECEnv``: one game of Skat as a PettingZoo AEC environment (needs ``pettingzoo``).

Agents ``"forehand"``, ``"middlehand"``, ``"rearhand"`` (seats 0, 1, 2); the agent to act
is ``agent_selection``. An observation is a dict: ``"observation"`` the seat's float32
tensor (:data:`skatsim.observation.OBS_LAYOUT`, 574 values in [0, 1], from its masked
view) and ``"action_mask"`` int8 (130,) (all zero unless the agent is to act). Rewards
come at the end of the game, per seat, of the kind ``reward=`` (``"sf"`` Seeger-Fabian,
``"zero_sum"`` or ``"list"``: :meth:`skatsim.SkatState.returns`). ``reset(seed=s)``
deals deal 0 of the run seed ``s`` (``simulate(seed=s)`` row 0); a ``reset()`` without a
seed deals the next deal of the stream. An illegal action raises
:class:`skatsim.vec.IllegalActionError`.

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
from pettingzoo import AECEnv

from skatsim.actions import NUM_ACTIONS
from skatsim.kernels.observe import OBS_SIZE
from skatsim.options import ISKO, SkatRules
from skatsim.vec import VecEnv

from . import AGENT_NAMES

__all__ = ["SkatAECEnv", "env"]


class SkatAECEnv(AECEnv):
    """Skat for three learning agents (PettingZoo AEC API); see the module docstring."""

    metadata: dict[str, Any] = {"name": "skat_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, rules: SkatRules = ISKO, reward: str = "sf", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENT_NAMES)
        self._env = VecEnv(1, rules=rules, reward=reward, auto_reset=False)
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
        self._act_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    @property
    def vec(self) -> VecEnv:
        """The one-game :class:`~skatsim.vec.VecEnv` underneath."""
        return self._env

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
        seat = AGENT_NAMES.index(agent)
        obs = self._env.observe(seat)[0]
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if int(self._env.to_move[0]) == seat:
            mask[self._env.legal_mask[0]] = 1
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        out = self._env.step(np.array([action], dtype=np.int64))
        if out.done[0]:
            for s, a in enumerate(AGENT_NAMES):
                self.rewards[a] = float(out.rewards[0, s])
                self.terminations[a] = True
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


def env(**kw: Any) -> SkatAECEnv:
    """PettingZoo-style constructor: ``agents.learn.envs.pettingzoo.env()``."""
    return SkatAECEnv(**kw)
