"""The arena: how games are played and measured.

- :mod:`agents.arena.base`: the agent protocol, the registry (:func:`~agents.arena.base.register`,
  :func:`~agents.arena.base.make_agent`) and :class:`~agents.arena.base.AgentSpec`;
- :mod:`agents.arena.play`: one game at a :class:`~agents.arena.play.Table`, the failure rule;
- :mod:`agents.arena.vecplay`: many games at once on a :class:`skatsim.vec.VecEnv` (the
  tournaments' board runner);
- :mod:`agents.arena.tournament`: duplicate tournaments and leagues, their statistics;
- :mod:`agents.arena.testing`: :func:`~agents.arena.testing.agent_api_test`, the test every
  agent passes.

The arena knows players only by the registry's ``"module:Class"`` strings, imported on first
use; the public names are on the package face :mod:`agents`.
"""
