"""The front ends of skatsim: the command line (:mod:`skatsim_app.cli`, the ``skatsim``
command) and the browser table (:mod:`skatsim_app.web`, ``skatsim serve``).

This package sits above both layers: it imports :mod:`skatsim` (the game and its
engine) and :mod:`agents` (the players, tournaments and training), and neither of
them imports it.
"""
