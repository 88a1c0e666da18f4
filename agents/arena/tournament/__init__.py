"""Duplicate tournaments: every deal under every seat arrangement, one tidy row per game.

>>> r = run_tournament(["random", "random"], n_deals=20, seed=1, progress=False)
>>> len(r.games), sorted(set(r.games["arrangement"]))
(120, ['AAB', 'ABA', 'ABB', 'BAA', 'BAB', 'BBA'])
>>> float(r.head_to_head()["sf_diff_per_game"].iloc[0])    # an agent against itself
0.0

Format
------
A *board* is one deal (``deal_id`` ``i``, deal seed ``derive_seed(seed, i)``, the deal of
``simulate(..., seed=seed)``'s row ``i``) played under every seat arrangement:

- three distinct agents A, B, C: the 6 permutations (``ABC ACB BAC BCA CAB CBA``);
- two agents A, B: the 6 arrangements of A,A,B and A,B,B (``AAB ABA BAA ABB BAB BBA``),
  so each agent sits 9 times per board, 3 times in each seat;
- two agents with ``one_seat=True`` (``skatsim tournament A B --one-seat``): ``ABB BAB BBA``
  only, A in one seat and the field B in the two others (the shape of a measurement against a
  field, at half the games).

Randomness is common: the agent in seat ``s`` of deal ``i`` draws from
``seat_stream(deal_seed, s)`` whoever it is, so two arrangements differ only by who
decides, not by luck.

One engine: every game is played by :func:`agents.arena.vecplay.play_boards` on a
:class:`skatsim.vec.VecEnv` — agents with a compiled policy (``random``, ``rule_based``
with any parameters) inside the compiled step, batch agents (``act_batch``) once per step
for all games, Python agents one observation at a time with the table's checks. When every
agent is compiled a chunk runs in this process on ``workers`` numba threads
(``parallel="threads"``); otherwise the chunks go to ``workers`` processes (or Ray,
``parallel="processes"``): :func:`plan`. The table depends on neither (except the measured
``time_*`` columns: a Python agent's CPU seconds per seat, NaN for compiled agents).

Rows (:data:`GAME_COLUMNS`)
---------------------------
``deal_id``, ``arrangement`` (``"AAB"`` ...: the agent letter per seat), ``agent_0..2``
(agent label per seat), the result columns of :mod:`skatsim.table` (``RESULT_COLUMNS``:
deal_index, deal_seed, declarer, bid, contract, game, flags, picked_up, kontra,
declarer_points, declarer_tricks, matadors, won, schneider, schwarz, multiplier,
game_value, overbid, charged_value, list_score, score_0..2, sf_0..2, points_0..2,
n_actions), ``auction`` (the bidding as ``seat:call`` words, e.g. ``"1:18 0:yes 1:pass
2:pass"``), ``time_0..2`` (CPU seconds the seat's agent spent deciding; NaN for compiled
agents), ``error`` (empty: the game ended normally), ``error_seats`` and ``traceback``. ``attrs``: the configuration
(agents, labels, seed, n_deals, rules, rules_version, time_limit) and package versions.

Summary (:meth:`TournamentResult.summary`)
------------------------------------------
Per agent, over its seat-games (an agent in two seats of a game counts twice): ``games``,
``declarer_rate``, ``declarer_win_rate``, ``sf_per_game`` (Seeger-Fabian points),
``sf_per_list`` (x 36, a standard list), ``list_score_per_game``, each with ``*_ci``: the
half-width of a 95% confidence interval computed on the boards. The agent's mean on each
board is the unit (the arrangements of a deal are paired, not independent), so for a
mean ``m = mean_b x_b`` the interval is ``m ± z * sd_b(x_b) / sqrt(B)`` (``z`` = 1.96,
``sd`` with ``ddof=1``, ``B`` boards); the declarer win rate is a ratio ``R = Σ w_b / Σ
d_b`` (wins / declarations per board) with the board-clustered (linearised) standard
error ``sqrt(Σ (w_b - R d_b)^2 / (B (B - 1))) / mean_b d_b``.
:meth:`TournamentResult.head_to_head`: for each pair, the per-board difference
``x_b^A - x_b^B`` of Seeger-Fabian points per game (and per list, and list score per game)
with the same interval.
"""

from __future__ import annotations

from skatsim.table import auction_text

from .charts import contract_rates, plot_tournament
from .config import GAME_COLUMNS, TOURNAMENT_FORMAT, TournamentConfig, arrangements, make_config
from .engine import BACKENDS, PARALLEL, default_chunk_size, iter_chunks, plan, play_chunk
from .league import LeagueResult, load_league, run_league
from .result import TournamentResult
from .runner import load_tournament, resume_tournament, run_tournament
from .stats import (LIST_GAMES, Z95, agent_summary, board_margins, head_to_head, margin_difference,
                    pooled_head_to_head, seat_games)

__all__ = ["run_tournament", "resume_tournament", "load_tournament", "make_config", "default_chunk_size",
           "BACKENDS", "PARALLEL", "plan", "TournamentResult", "TournamentConfig", "arrangements", "play_chunk",
           "iter_chunks",
           "agent_summary", "head_to_head", "margin_difference", "pooled_head_to_head", "board_margins",
           "seat_games", "auction_text", "contract_rates", "plot_tournament", "GAME_COLUMNS", "Z95", "LIST_GAMES",
           "TOURNAMENT_FORMAT", "run_league", "load_league", "LeagueResult"]
