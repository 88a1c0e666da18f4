"""The players (bots), each made by name through the registry (``make_agent("pimc", worlds=32)``):

- :mod:`~agents.players.random_agent`: uniformly random legal actions;
- :mod:`~agents.players.rule_based`: the heuristic player (its rules compiled in
  :mod:`skatsim.kernels.heuristic`);
- :mod:`~agents.players.pimc` (with :mod:`~agents.players.pimc_bidding` and
  :mod:`~agents.players.pimc_inference`): Perfect-Information Monte Carlo search;
- :mod:`~agents.players.neural_bidding`: the bidding network with a delegated card play;
- :mod:`~agents.players.dmc`: the Deep Monte-Carlo Q network;
- :mod:`~agents.players.human`: a person at the terminal.

Players build on :mod:`agents.arena` (the protocol) and on the networks' shared code
(:mod:`agents.learn.nets`).
"""

from pathlib import Path

#: The shipped checkpoints (``agents/models``: package data).
MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
