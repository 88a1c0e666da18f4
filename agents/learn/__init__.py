"""Learning: algorithms and their infrastructure.

- :mod:`agents.learn.envs`: Gymnasium and PettingZoo wrappers on :class:`skatsim.vec.VecEnv`;
- :mod:`agents.learn.nets`: what the learned players' networks share (MLP body, checkpoints,
  the compiled dense layer);
- :mod:`agents.learn.bidding_data`: bidding labels for the neural bidder
  (``python -m agents.learn.bidding_data --help``).

Learning may import the arena and the players; of the rest of ``agents`` only the players
import from here, and only :mod:`agents.learn.nets`.
"""
