"""skatsim: Skat under the International Skat Order, for AI research.

The public API in one place:

- cards: :class:`CardSet`, mask constants in :mod:`skatsim.cards`
- rules: :mod:`skatsim.rules` (trumps, following suit, trick winners)
- contracts and bids: :class:`Contract`, :data:`BID_VALUES`
- settlement: :func:`settle`, :class:`GameResult`
- the game: :class:`SkatState`, :func:`deal`, :class:`SkatRules`
- batch simulation: :func:`simulate`, :func:`iter_simulate`, :func:`summarize`,
  :func:`simulate_to_parquet` / :func:`read_parquet` (the module is ``skatsim.simulate``'s
  namesake, so its other names are here too); card-play rollouts: :func:`rollouts`,
  :func:`rollouts_from_state`
- the bounds of a run: :data:`MAX_DEALS`, a 64-bit run seed (:mod:`skatsim._random`)
"""

from ._numba_cache import configure as _configure_numba_cache

_configure_numba_cache()

from .kernels import threads as _threads  # noqa: E402,F401  (registers the fork hook before any fork)

from .actions import NUM_ACTIONS, action_to_string, string_to_action
from .cards import CardSet
from .contracts import BID_VALUES, Contract
from .deal import Deal, deal, deal_from_hands, deal_from_order
from .options import ISKO, RULES_VERSION, SkatRules
from .scoring import GameResult, settle
from .state import TERMINAL_PLAYER, RecordError, SkatState
from .rollout import RolloutResult, rollouts, rollouts_from_state
from .simulate import SimSummary, iter_simulate, read_parquet, simulate, simulate_to_parquet, summarize
from ._random import MAX_DEALS

__version__ = "0.1.0"

__all__ = [
    "BID_VALUES", "CardSet", "Contract", "Deal", "GameResult", "ISKO", "NUM_ACTIONS", "RULES_VERSION",
    "RecordError", "SkatRules", "SkatState", "TERMINAL_PLAYER", "action_to_string", "deal",
    "deal_from_hands", "deal_from_order", "settle", "string_to_action", "__version__",
    "simulate", "iter_simulate", "summarize", "SimSummary", "simulate_to_parquet", "read_parquet", "MAX_DEALS",
    "rollouts", "rollouts_from_state", "RolloutResult",
]

from .solver import Solver, solve  # noqa: E402  (open-hand solver, see skatsim.solver)

__all__ += ["solve", "Solver"]

from .state import to_play  # noqa: E402  (put a deal into the card play: to_play(seed, declarer, "CH"))

__all__ += ["to_play"]
