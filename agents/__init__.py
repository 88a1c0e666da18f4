"""Agents for skatsim (random, rule-based, PIMC, neural bidding) arrive with the agents issue.

They build on :mod:`skatsim` and act on ``SkatState.observation(player)``; the core
never imports this package.
"""
