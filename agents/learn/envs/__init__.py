"""Standard RL interfaces on the vectorised environment (optional extra: ``pip install skatsim[rl]``).

- :class:`agents.learn.envs.pettingzoo.SkatAECEnv`: a PettingZoo AEC environment, agents
  ``"forehand"``, ``"middlehand"``, ``"rearhand"``, observations
  ``{"observation": float32 (574,), "action_mask": int8 (130,)}``;
- :class:`agents.learn.envs.gymnasium.SkatGymEnv`: a Gymnasium environment in which one seat
  learns and the other seats are registered agents (``opponents=["rule_based",
  "pimc:worlds=8"]``).

Both play through :class:`skatsim.vec.VecEnv` (one game), so their games are the games of
``SkatState`` and of the batch engine. The modules import ``pettingzoo`` / ``gymnasium``
on import; this package does not.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SkatAECEnv", "SkatGymEnv", "AGENT_NAMES"]

#: PettingZoo agent names, by seat.
AGENT_NAMES = ("forehand", "middlehand", "rearhand")


def __getattr__(name: str) -> Any:
    if name == "SkatAECEnv":
        from .pettingzoo import SkatAECEnv

        return SkatAECEnv
    if name == "SkatGymEnv":
        from .gymnasium import SkatGymEnv

        return SkatGymEnv
    raise AttributeError(f"module 'agents.learn.envs' has no attribute {name!r}")
