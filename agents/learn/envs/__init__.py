"""Skat in the interfaces of Gymnasium, PettingZoo and OpenSpiel (optional extras:
``pip install "skatsim[rl]"`` for Gymnasium and PettingZoo, ``"skatsim[crosscheck]"`` for
OpenSpiel).

- Gymnasium: :class:`agents.learn.envs.gymnasium.SkatGymEnv`, one seat learns and the other
  seats are registered agents (``opponents=["rule_based", "pimc:worlds=8"]``). Importing this
  package registers it as ``"skatsim/Skat-v0"`` (an ``EnvSpec`` whose entry point is
  ``agents.learn.envs.gymnasium:SkatGymEnv``), so ``gymnasium.make("skatsim/Skat-v0",
  seat=1, observation="dict")`` works, and so does ``gymnasium.make(
  "agents.learn.envs:skatsim/Skat-v0")`` without the import (Gymnasium imports the module
  named before the colon).
- PettingZoo: :class:`~agents.learn.envs.pettingzoo.SkatAECEnv` (the AEC API) and
  :class:`~agents.learn.envs.pettingzoo.SkatParallelEnv` (the parallel API), agents
  ``"player_0"``, ``"player_1"``, ``"player_2"`` (:data:`AGENT_NAMES`: seats 0 forehand,
  1 middlehand, 2 rearhand of the deal), observations ``{"observation": float32 (574,),
  "action_mask": int8 (130,)}``; ``pettingzoo.env()`` / ``pettingzoo.parallel_env()``.
- OpenSpiel: importing :mod:`agents.learn.envs.openspiel` registers the game ``"skatsim"``
  with ``pyspiel`` (chance nodes for the deal, information states, OpenSpiel's bots and
  algorithms run on it).

All of them play skatsim's rules move by move (:class:`skatsim.vec.VecEnv`, one game, or
:class:`skatsim.SkatState`), so their games are the games of ``SkatState`` and of the batch
engine. The modules import ``gymnasium`` / ``pettingzoo`` / ``pyspiel`` on import; this
package imports only ``gymnasium``, where it is installed, to register the environment.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SkatAECEnv", "SkatParallelEnv", "SkatGymEnv", "AGENT_NAMES", "GYM_ID", "game_result"]

#: PettingZoo agent names, by seat (``player_0`` is forehand).
AGENT_NAMES = ("player_0", "player_1", "player_2")
#: The Gymnasium id of :class:`~agents.learn.envs.gymnasium.SkatGymEnv`.
GYM_ID = "skatsim/Skat-v0"


def game_result(row: Any) -> dict[str, Any]:
    """A finished game's result as the final ``info["result"]`` of the environments: the
    columns of the result schema (:data:`skatsim.table.RESULT_COLUMNS`: ``contract`` (an
    ISS token such as ``"CH"``, ``"passed"``), ``declarer`` (-1: nobody), ``won``,
    ``declarer_points``, ``game_value``, ``list_score``, ``score_0..2``, ``sf_0..2``,
    ``points_0..2`` ...) as plain Python values, from a ``VecEnv.last_results`` row or a
    :meth:`skatsim.scoring.GameResult.to_row` dict."""
    from skatsim.table import RESULT_COLUMNS, contract_category

    if isinstance(row, dict):
        return dict(row)
    out = {c: (contract_category(int(row["game"]), int(row["flags"])) if c == "contract" else row[c].item())
           for c in RESULT_COLUMNS}
    out["won"] = bool(out["won"])
    return out


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - the rl extra is not installed
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="agents.learn.envs.gymnasium:SkatGymEnv")


_register_gymnasium()


def __getattr__(name: str) -> Any:
    if name in ("SkatAECEnv", "SkatParallelEnv"):
        from . import pettingzoo

        return getattr(pettingzoo, name)
    if name == "SkatGymEnv":
        from .gymnasium import SkatGymEnv

        return SkatGymEnv
    raise AttributeError(f"module 'agents.learn.envs' has no attribute {name!r}")
