"""Learning: algorithms and their infrastructure.

- :mod:`agents.learn.envs`: Gymnasium and PettingZoo wrappers on :class:`skatsim.vec.VecEnv`;
- :mod:`agents.learn.nets`: what the learned players' networks share (MLP body, checkpoints,
  the compiled dense layer);
- :mod:`agents.learn.bidding_data`: bidding labels for the neural bidder
  (``python -m agents.learn.bidding_data --help``);
- the trainers, one module per algorithm: :mod:`agents.learn.dmc` (Deep Monte-Carlo
  self-play of the ``dmc`` player, ``skatsim train-dmc``) and :mod:`agents.learn.bidding`
  (the neural bidder's network, ``skatsim train-bidding``), :mod:`agents.learn.distil`
  (PIMC's card play distilled into a network, ``skatsim train-distil``) with its labels
  :mod:`agents.learn.card_labels` (``skatsim card-labels``), and :mod:`agents.learn.calibrate`
  (a bidder's win probabilities fitted to its card player, ``skatsim calibrate-bidder``);
- :mod:`agents.learn.evaluation`: the duplicate margin of a learned agent and where its
  points go (declarer, defence);
- :mod:`agents.learn.runs`: what the trainers share (nested JSON configs, TensorBoard logs,
  shipping a model into ``agents/models``).

A new algorithm goes in a module of its own beside ``dmc``, using ``evaluation`` and ``runs``.

Learning may import the arena and the players; of the rest of ``agents`` only the players
import from here, and only :mod:`agents.learn.nets`.
"""
