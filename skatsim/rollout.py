"""Random card-play rollouts from a position: the inner loop of sampling-based agents.

>>> from skatsim import deal
>>> from skatsim.solver import Position
>>> h0, h1, h2, sk = deal(5).masks()
>>> r = rollouts(Position((h0, h1, h2), sk, game=4, declarer=0), 10_000, seed=1)
>>> len(r.points), 0 <= r.mean_points <= 120, 0.0 <= r.win_rate <= 1.0
(10000, True, True)

The card form (hands, skat, contract, declarer, n, seed) gives the same rollouts:

>>> d = deal(5)
>>> bool((rollouts(d.hands, d.skat, "G", 0, 10_000, 1).points == r.points).all())
True

From a ``SkatState`` in the play phase (the hidden cards are taken as they lie, so use a
sampled world for an agent's view):

>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=11)
>>> for a in ("18", "yes", "pass", "pass", "hand", "CH"):
...     s.apply_action(s.string_to_action(a))
>>> rollouts_from_state(s, 1000, seed=2, record=True).actions.shape
(1000, 30)

Rollouts run on the compiled state machine (:mod:`skatsim.kernels.rollout`, numba, one
thread). Positions are validated by :meth:`skatsim.solver.Position.validate`, as for the
solver.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from .cards import CardsLike
from .contracts import Contract
from .kernels import game as K
from .kernels.rollout import POLICY_RANDOM, rollout_kernel
from .kernels.simulate import seed_mul
from .solver import Position, as_contract

try:
    from ._random import to_seed
except ImportError:  # pragma: no cover
    from .infostate import to_seed

__all__ = ["rollouts", "rollouts_from_state", "RolloutResult", "position_state"]

_POLICIES = {"random": POLICY_RANDOM, POLICY_RANDOM: POLICY_RANDOM}


class RolloutResult(NamedTuple):
    """Per rollout: the declarer's final card points (skat included),
    tricks, and whether the contract is won (ignoring overbidding); ``actions`` holds the
    cards played (int8, -1 padded) when recorded."""

    points: np.ndarray
    tricks: np.ndarray
    won: np.ndarray
    actions: np.ndarray | None

    @property
    def mean_points(self) -> float:
        """Mean of ``points`` (NaN for no rollouts)."""
        return float(self.points.mean()) if len(self.points) else float("nan")

    @property
    def win_rate(self) -> float:
        """Fraction of rollouts the declarer wins (NaN for none)."""
        return float(self.won.mean()) if len(self.won) else float("nan")

    @property
    def win_rate_se(self) -> float:
        """Standard error of ``win_rate``."""
        p, n = self.win_rate, len(self.won)
        return float(np.sqrt(p * (1 - p) / n)) if n else float("nan")


def position_state(position: Position, contract: Contract | str | int | None = None) -> np.ndarray:
    """A play-phase state vector (``kernels.game`` fields) for ``position``: the scratch
    start of a rollout. ``contract`` adds announcement flags (default: none)."""
    position.validate()
    c = Contract(position.game) if contract is None else as_contract(contract)
    if c.game != position.game:
        raise ValueError(f"contract {c.to_text()} is not game {position.game} of the position")
    st = np.zeros(K.N_FIELDS, np.int64)
    d, k = position.declarer, len(position.trick)
    st[K.F_PHASE] = K.PH_PLAY
    for q in range(3):
        st[K.F_HAND0 + q] = position.hands[q]
    st[K.F_SKAT] = position.skat
    st[K.F_GAME] = c.game
    st[K.F_FLAGS] = c.flags
    st[K.F_DECLARER] = d
    st[K.F_BID_IDX] = -1
    st[K.F_LEADER] = position.leader
    st[K.F_NCARDS] = k
    for i, card in enumerate(position.trick):
        st[K.F_TRICK0 + i] = card
        st[K.F_PLAYED0 + (position.leader + i) % 3] |= 1 << card
    st[K.F_PLAYER] = position.player
    st[K.F_NTRICKS] = 10 - position.tricks_left
    st[K.F_POINTS0 + d] = position.declarer_points
    st[K.F_TRICKS0 + d] = position.declarer_tricks
    st[K.F_LAST_WINNER] = -1
    if hasattr(K, "F_KONTRA_BY"):
        st[K.F_KONTRA_BY] = -1
    return st


def rollouts(position: Any, *args: Any, **kwargs: Any) -> RolloutResult:
    """Play a position out ``n`` times with uniformly random legal cards for all seats.

    Two forms::

        rollouts(position, n, seed, *, contract=None, record=False, policy="random")
        rollouts(hands, skat, contract, declarer, n, seed, *, trick=(), leader=0,
                 declarer_points=0, declarer_tricks=0, record=False, policy="random")

    Args:
        position: a :class:`~skatsim.solver.Position` (validated as for the solver).
        hands, skat, trick, leader, declarer_points, declarer_tricks: the same position
            as cards (see :meth:`Position.make`): three hands (0 forehand, 1 middlehand,
            2 rearhand), the skat (its points count for the declarer), the trick in
            progress led by ``leader``, the declarer's trick points and tricks so far.
        contract: a :class:`Contract`, an ISS token (``"C"``, ``"GH"``, ``"NO"``) or a
            game type 0..5; its announcements decide ``won`` (schneider announced: 90).
        n: number of rollouts; seed: an int (or Generator / None, the package's
            convention); rollout ``r`` uses ``derive_seed(seed, r)``.
        record: also return the cards played.
        policy: ``"random"`` (the only built-in playout policy so far).
    """
    if isinstance(position, Position):
        return _rollouts(position, *args, **kwargs)
    return _rollouts_cards(position, *args, **kwargs)


def _rollouts_cards(hands: Sequence[CardsLike], skat: CardsLike, contract: Contract | str | int, declarer: int,
                    n: int, seed: Any, *, trick: Sequence[int | str] = (), leader: int = 0,
                    declarer_points: int = 0, declarer_tricks: int = 0, record: bool = False,
                    policy: Any = "random") -> RolloutResult:
    c = as_contract(contract)
    pos = Position.make(hands=list(hands), skat=skat, game=c.game, declarer=declarer, trick=list(trick), leader=leader,
                        declarer_points=declarer_points, declarer_tricks=declarer_tricks)
    return _rollouts(pos, n, seed, contract=c, record=record, policy=policy)


def _rollouts(position: Position, n: int, seed: Any, *, contract: Contract | str | int | None = None,
              record: bool = False, policy: Any = "random") -> RolloutResult:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    if policy not in _POLICIES:
        raise ValueError(f"unknown rollout policy {policy!r}: only 'random' so far")
    st = position_state(position, contract)
    return _run(st, int(n), to_seed(seed), _POLICIES[policy], bool(record))


def _run(st: np.ndarray, n: int, seed: int, policy: int, record: bool) -> RolloutResult:
    pts = np.empty(n, dtype=np.int16)
    tricks = np.empty(n, dtype=np.int8)
    won = np.empty(n, dtype=np.bool_)
    acts = np.full((n, 30), -1, dtype=np.int8) if record else np.zeros((0, 30), dtype=np.int8)
    params = np.zeros(32, np.float64)
    rollout_kernel(st, policy, params, seed_mul(seed), pts, tricks, won, acts, record)
    return RolloutResult(pts, tricks, won, acts if record else None)


def rollouts_from_state(state: Any, n: int, seed: Any, *, record: bool = False,
                        policy: Any = "random") -> RolloutResult:
    """:func:`rollouts` from a :class:`~skatsim.state.SkatState` in the play phase
    (suit, grand or null; not Ramsch), its contract's announcements included. Uses the
    cards as they lie in ``state``."""
    if state.phase != "play" or state.contract is None:
        raise ValueError(f"rollouts need a suit, grand or null game in the play phase, got phase {state.phase!r}")
    return _rollouts(Position.from_state(state), n, seed, contract=state.contract, record=record, policy=policy)
