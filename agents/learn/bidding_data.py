"""Bidding labels: what each candidate contract is worth for a dealt hand.

A generator deals hands and labels every seat's ten cards with the outcome of each
candidate contract, estimated over ``worlds`` sampled worlds (the other 22 cards dealt
uniformly to the two other hands and the skat):

- ``labeler="solver"`` (default): the open-hand solver (threshold searches: 61, then 90
  when won; null: no trick). Adaptive: after ``min_worlds`` worlds a contract that has
  won none is not solved further (its label rests on those worlds; ``n_<c>`` says how many).
- ``labeler="rule_based"``: the contract is played out by the rule-based player
  (:mod:`skatsim.kernels.heuristic`) in all three seats, information-safe (each seat
  plays from its masked view): the labels match rule-based card play.

Worlds (``condition``): ``"none"`` deals the 22 unseen cards uniformly. ``"auction"``
conditions them on the auction a declarer actually wins: each row gets a bid level ``b``
(``bid_level``, drawn from :data:`BID_LEVELS` with :data:`BID_LEVEL_WEIGHTS`) and keeps only
the worlds in which both other seats, bidding as the rule-based player (their
:func:`~skatsim.kernels.heuristic.bid_limit`), would let this seat win the auction at ``b``:
an opponent later in the bidding order must have a limit below ``b``, an earlier one (who
holds at equal values) a limit of at most ``b``. Rejection sampling, at most
``max_tries x worlds`` draws (``n_worlds`` says how many were kept). Such labels answer the
question a bidder asks: "if I win the auction at ``b``, what is each contract worth?"
(the opponents who passed are weaker than random hands). By default both other seats bid as
the default rule-based player; ``opponents`` (rule-based ``bid_threshold`` values) makes them
a pool instead: per drawn world each of the two other seats bids as a pool member drawn
uniformly (from the row's generator, like the world), and the world is kept if those two
bidders let this seat win at ``b``. The kept worlds then also condition on who the
opponents are (a cautious bidder passes more often, so it is kept more often).

Pickups: the declarer takes the world's skat and discards with the rule-based player's
greedy discard for that game (:func:`discard_for`, the same code as its real discard).
Hand games: the dealt ten play, the skat's points and jacks count for the declarer.

Candidate contracts :data:`CONTRACTS` (ISS tokens): ``D H S C G N`` after a pickup and
``DH HH SH CH GH NH`` hand. Announcements are derivable from the stored per-world
outcomes: a hand game with schneider announced is won in the worlds with outcome >= 2
(:func:`expected_at_bid` with ``schneider_announced=True``). Schwarz announcements and
suit ouvert are not labelled (the threshold searches stop at 90 points).

Seeds: deal ``i`` has the seed ``derive_seed(seed, i)`` and is dealt by
:func:`skatsim.deal.deal`; the worlds of seat ``s`` come from
``numpy.random.default_rng([deal_seed, s])``. A row depends only on (config, deal index,
seat), not on shards, workers or the order of work.

Storage: :func:`generate` writes a run directory (:class:`skatsim.runs.RunDir`, kind
``bidding_labels``): a shard per ``shard_size`` deals, written atomically, and
``manifest.json`` (the generating config, the schema version, package versions, the
labelling time). Run it again on the same directory to resume: finished shards are
skipped; a different config is refused. :func:`read_labels` loads a directory.

Schema (one row per dealt hand and seat; ``<c>`` is a contract token, ``<g>`` a game
letter ``D H S C G``):

==================  ==============  ======================================================
column              type            meaning
==================  ==============  ======================================================
source              string          ``"solver"``, ``"rule_based"`` (later ``"iss"``: human
                                    records, one contract observed per row)
deal_index          int64           index of the deal in the run
deal_seed           int64           ``derive_seed(seed, deal_index)``
seat                int8            0 forehand, 1 middlehand, 2 rearhand (the declarer)
hand                int64           the ten dealt cards (card mask, :mod:`skatsim.cards`)
bid_level           int16           the bid the worlds are conditioned on (0: unconditioned)
auction             string          the bidding before the seat's decision ("" here; ISS)
declared            string          contract actually played (null here; ISS)
n_worlds            int16           worlds sampled for the row
p_<c>               float32         win probability (fraction of solved worlds won)
e_list_<c>          float32         expected list score at the contract's own value
                                    (no overbid: value = base x (matadors + 1 [+ hand]
                                    [+ schneider] [+ schwarz]), lost: -2 x value)
e_sf_<c>            float32         expected Seeger-Fabian score of the declarer
                                    (``e_list + 50 (2p - 1)``; defenders' +40 not included)
n_<c>               int16           worlds in which the contract was solved / played
res_<c>             list<int8>      outcome per solved world: -1 lost schneidered (<= 30,
                                    rule-based only), 0 lost, 1 won, 2 won schneider
                                    (>= 90), 3 won schwarz (rule-based only); null: 0/1
mat_<g>             list<int8>      per world (all ``n_worlds``): matadors (absolute) of the
                                    ten cards + the world's skat in game ``g``
==================  ==============  ======================================================

The value at any bid follows: world ``w`` of contract ``c`` is worth ``base x
(mat_<g>[w] + 1 + hand + levels(res_<c>[w]))`` (null: 23 / 35); below the bid it is an
overbid (lost, charged the bid rounded up to a multiple of the base).
:func:`expected_at_bid` computes it.

>>> cfg = LabelConfig(n_deals=1, worlds=4, seed=3, labeler="rule_based")
>>> rows = label_deal(0, cfg)
>>> len(rows), sorted(rows[0])[:3], rows[0]["n_worlds"]
(3, ['auction', 'bid_level', 'deal_index'], 4)
>>> all(0.0 <= r["p_G"] <= 1.0 for r in rows)
True
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
from numba import njit

from skatsim.bits import derive_seed, popcount
from skatsim.contracts import BID_VALUES
from skatsim.deal import deal as _deal
from skatsim.interrupt import ctrl_c
from skatsim.kernels import game as G
from skatsim.kernels import policies as P
from skatsim.kernels.heuristic import bid_limit, greedy_discard, params_array
from skatsim.rules import NULL
from skatsim.scoring import matadors_of, settle_core
from skatsim.valuation import HAND as HAND_FLAG
from skatsim.valuation import SCHNEIDER_ANNOUNCED, expected_sf_array, game_value, game_value_array

from ..players.card_playouts import declarer_result
from ..players.neural_bidding import CONTRACT_GAME, CONTRACT_HAND, CONTRACTS, GAME_LETTERS, discard_for
from ..players.rule_based import PARAM_CHECKS

__all__ = [
    "CONTRACTS", "CONTRACT_GAME", "CONTRACT_HAND", "GAME_LETTERS", "SCHEMA_VERSION", "LabelConfig",
    "BID_LEVELS", "BID_LEVEL_WEIGHTS", "label_hand", "label_deal", "auction_worlds", "generate",
    "read_labels", "expected_at_bid", "contract_value",
    "discard_for", "sample_worlds_for_hand", "label_columns", "config_hash", "data_hash", "main", "RUN_KIND",
    "opponent_params",
]

SCHEMA_VERSION = 2
_CONDITIONS = ("none", "auction")
#: Bid levels of ``condition="auction"`` rows and their sampling weights: the low levels,
#: where most bidding decisions fall, more often.
BID_LEVELS: tuple[int, ...] = tuple(v for v in BID_VALUES if v <= 60 or v in (66, 72, 77, 84, 96, 108, 120))
BID_LEVEL_WEIGHTS: tuple[float, ...] = (6, 4, 4, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1.5, 1.5, 1.5, 1.5, 1, 1, 1, 1,
                                        1, 1, .5, .5, .5, .5, .5)
_LABELERS = ("solver", "rule_based", "distilled")
#: the card network of ``labeler="distilled"`` when the config names none
DISTILLED_LABEL_MODEL = "distilled_v2"
assert len(BID_LEVEL_WEIGHTS) == len(BID_LEVELS)
_LEVEL_P = np.array(BID_LEVEL_WEIGHTS) / sum(BID_LEVEL_WEIGHTS)
_RB_PARAMS = params_array()


@dataclass(frozen=True)
class LabelConfig:
    """What :func:`generate` labels and how.

    Args:
        n_deals: deals (each gives ``len(seats)`` rows).
        seed: master seed (deal ``i``: ``derive_seed(seed, i)``).
        worlds: worlds sampled per hand.
        labeler: ``"solver"`` (open-hand threshold searches), ``"rule_based"`` (play-outs by
            the rule-based player) or ``"distilled"`` (play-outs by the card network ``card_model``).
        min_worlds: solver only: a contract that won none of its first ``min_worlds``
            worlds is not solved further (0: always all worlds).
        schneider: solver only: also ask for 90 points in the worlds that are won.
        seats: the seats labelled per deal.
        shard_size: deals per parquet shard (the unit of work and of resuming).
        tt_bits: the solver's transposition-table size (log2 entries).
        condition: ``"none"`` (uniform worlds) or ``"auction"`` (worlds in which the other
            seats, bidding as the rule-based player, let this seat win at the row's bid level).
        max_tries: ``"auction"`` only: at most ``max_tries x worlds`` worlds are drawn per row.
        opponents: ``"auction"`` only: the ``bid_threshold`` values of a pool of rule-based
            bidders (the other parameters at their defaults); per drawn world each other seat
            bids as a member drawn uniformly. Empty (default): both bid as the default
            rule-based player (and the config hash is that of a config without the field).
        card_model: ``labeler="distilled"`` only: the card network that plays every seat (a
            shipped name or a path, :func:`agents.players.distilled.model_path`); empty: the
            first shipped network trained on 32-world labels, ``"distilled_v2"`` (written
            into the config, so a later default does not change what it means).
    """

    n_deals: int = 1000
    seed: int = 0
    worlds: int = 16
    labeler: str = "solver"
    min_worlds: int = 4
    schneider: bool = True
    seats: tuple[int, ...] = (0, 1, 2)
    shard_size: int = 50
    tt_bits: int = 18
    condition: str = "none"
    max_tries: int = 20
    opponents: tuple[float, ...] = ()
    card_model: str = ""

    def __post_init__(self) -> None:
        if self.labeler not in _LABELERS:
            raise ValueError(f"labeler must be one of {_LABELERS}, got {self.labeler!r}")
        if self.condition not in _CONDITIONS:
            raise ValueError(f"condition must be one of {_CONDITIONS}, got {self.condition!r}")
        for name in ("n_deals", "worlds", "shard_size", "max_tries"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        if not self.seats or any(s not in (0, 1, 2) for s in self.seats):
            raise ValueError(f"seats must be a non-empty subset of (0, 1, 2), got {self.seats!r}")
        object.__setattr__(self, "seats", tuple(int(s) for s in self.seats))
        opponents = tuple(self.opponents)
        for t in opponents:
            why = "a number" if isinstance(t, bool) or not isinstance(t, (int, float, np.number)) \
                else PARAM_CHECKS["bid_threshold"](float(t))
            if why:
                raise ValueError(f"opponents: every bid_threshold must be {why}, got {t!r}")
        if opponents and self.condition != "auction":
            raise ValueError("opponents are the bidders of condition='auction'; "
                             f"got condition={self.condition!r}")
        object.__setattr__(self, "opponents", tuple(float(t) for t in opponents))
        if not isinstance(self.card_model, str):
            raise ValueError(f"card_model must be a model name or path, got {self.card_model!r}")
        if self.card_model and self.labeler != "distilled":
            raise ValueError(f"card_model is the card network of labeler='distilled'; got labeler={self.labeler!r}")
        if self.labeler == "distilled" and not self.card_model:
            object.__setattr__(self, "card_model", DISTILLED_LABEL_MODEL)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["seats"] = list(self.seats)
        if self.condition == "none" and self.max_tries == 20:  # schema-1 configs keep their hash
            del d["condition"], d["max_tries"]
        if self.opponents:
            d["opponents"] = list(self.opponents)
        else:  # configs from before the field keep their hash
            del d["opponents"]
        if not self.card_model:  # (set for, and only for, labeler="distilled")
            del d["card_model"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LabelConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown label config key(s) {unknown}; known: {sorted(known)}")
        d = dict(d)
        for k in ("seats", "opponents"):
            if k in d:
                d[k] = tuple(d[k])
        return cls(**d)


def config_hash(cfg: LabelConfig) -> str:
    """A short hash of the generating config (what makes the rows)."""
    return hashlib.sha256(json.dumps(cfg.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


def label_columns() -> list[str]:
    """The column names of a label table, in order."""
    cols = ["source", "deal_index", "deal_seed", "seat", "hand", "bid_level", "auction", "declared", "n_worlds"]
    for c in CONTRACTS:
        cols += [f"p_{c}", f"e_list_{c}", f"e_sf_{c}", f"n_{c}", f"res_{c}"]
    cols += [f"mat_{g}" for g in GAME_LETTERS[:5]]
    return cols


# ----------------------------------------------------------------------------- helpers


def contract_value(game: int, hand: bool, mat: int, level: int = 0) -> int:
    """Game value of a won contract (:func:`skatsim.valuation.game_value`): ``base x (mat + 1
    + hand + level)`` (``level``: 1 schneider, 2 schneider and schwarz), or the null value
    (23, 35 hand)."""
    return int(game_value(game, HAND_FLAG if hand else 0, int(mat), level >= 1, level >= 2))


def _world_values(game: int, hand: bool, res: np.ndarray, mat: np.ndarray | int) -> np.ndarray:
    """The value of the contract in each world from its outcome code (``res_<c>``: a
    schneider level when won with 90 or lost schneidered, schwarz when won with every
    trick) and matadors."""
    res = np.ascontiguousarray(res, np.int64)
    m = np.ascontiguousarray(np.broadcast_to(np.asarray(mat, np.int64), res.shape))
    return game_value_array(game, HAND_FLAG if hand else 0, m, (res >= 2) | (res == -1), res >= 3)


def sample_worlds_for_hand(hand: int, seat: int, n: int, gen: np.random.Generator) -> np.ndarray:
    """``int64 (n, 4)``: hands of seats 0, 1, 2 and the skat per world; ``seat`` holds
    ``hand``, the other 22 cards are dealt uniformly."""
    unseen = np.array([c for c in range(32) if not (hand >> c) & 1], dtype=np.int64)
    if len(unseen) != 22:
        raise ValueError(f"a hand has 10 cards, got {popcount(hand)}")
    bits = np.left_shift(np.int64(1), unseen)
    out = np.zeros((n, 4), np.int64)
    others = [(seat + 1) % 3, (seat + 2) % 3]
    for w in range(n):
        perm = gen.permutation(22)
        out[w, seat] = hand
        out[w, others[0]] = bits[perm[:10]].sum()
        out[w, others[1]] = bits[perm[10:20]].sum()
        out[w, 3] = bits[perm[20:]].sum()
    return out


@functools.lru_cache(maxsize=16)
def _opponent_params_cached(thresholds: tuple[float, ...]) -> np.ndarray:
    rows = np.array([params_array(bid_threshold=t) for t in thresholds], np.float64)
    rows.setflags(write=False)
    return rows


def opponent_params(thresholds: Sequence[float]) -> np.ndarray:
    """``float64 (k, 32)``, read-only: the rule-based parameter rows
    (:func:`~skatsim.kernels.heuristic.params_array`) of a pool of bidders, the defaults with
    each of these ``bid_threshold`` values.

    >>> opponent_params([0.45, 0.75])[:, 0].tolist()
    [0.45, 0.75]
    """
    return _opponent_params_cached(tuple(float(t) for t in thresholds))


def _wins_auction(seat: int, limits: tuple[int, int], others: tuple[int, int], bid: int) -> bool:
    """Whether ``seat`` wins the auction at ``bid`` against rule-based bidders with these
    limits: an earlier seat holds at equal values, a later one must go above."""
    return all((lim <= bid) if seat < o else (lim < bid) for lim, o in zip(limits, others))


def auction_worlds(hand: int, seat: int, n: int, bid: int, gen: np.random.Generator,
                   max_tries: int = 20, opponents: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Up to ``n`` worlds (as :func:`sample_worlds_for_hand`) in which the two other seats,
    bidding as the rule-based player, let ``seat`` win the auction at ``bid``; at most
    ``max_tries x n`` draws. Returns ``(worlds, draws)``.

    ``opponents``: parameter rows ``(k, 32)`` of a pool of rule-based bidders
    (:func:`opponent_params`); each drawn world draws the bidder of each other seat
    uniformly from them (after the batch of worlds, from ``gen``). ``None``: both bid with
    the default parameters, and no bidder is drawn (the draws of ``gen`` are the worlds').

    >>> w, draws = auction_worlds(0x00FF03, 0, 8, 18, np.random.default_rng(1))
    >>> from skatsim.kernels.heuristic import bid_limit
    >>> all(bid_limit(int(x[q]), q, _RB_PARAMS) <= 18 for x in w for q in (1, 2))
    True
    """
    worlds, draws, _ = _auction_worlds(hand, seat, n, bid, gen, max_tries, opponents)
    return worlds, draws


def _auction_worlds(hand: int, seat: int, n: int, bid: int, gen: np.random.Generator, max_tries: int,
                    opponents: np.ndarray | None) -> tuple[np.ndarray, int, np.ndarray]:
    """:func:`auction_worlds` and, per kept world, the pool indexes of the bidders of seats
    ``(seat + 1) % 3`` and ``(seat + 2) % 3`` (``int64 (kept, 2)``; zeros without a pool)."""
    others = ((seat + 1) % 3, (seat + 2) % 3)
    pool = _RB_PARAMS[None, :] if opponents is None else np.asarray(opponents, np.float64)
    if pool.ndim != 2 or len(pool) == 0:
        raise ValueError(f"opponents must be a non-empty (k, params) array, got shape {pool.shape}")
    kept: list[np.ndarray] = []
    who: list[tuple[int, int]] = []
    draws = 0
    while len(kept) < n and draws < max_tries * n:
        batch = sample_worlds_for_hand(hand, seat, n, gen)
        picks = np.zeros((n, 2), np.int64) if opponents is None else gen.integers(len(pool), size=(n, 2))
        for w, (i, j) in zip(batch, picks.tolist()):
            draws += 1
            lims = (int(bid_limit(int(w[others[0]]), others[0], pool[i])),
                    int(bid_limit(int(w[others[1]]), others[1], pool[j])))
            if _wins_auction(seat, lims, others, bid):
                kept.append(w)
                who.append((i, j))
                if len(kept) == n:
                    break
    out = np.array(kept, np.int64).reshape(-1, 4)
    return out, draws, np.array(who, np.int64).reshape(-1, 2)


@njit(cache=True)
def _start_world(st, worlds, w, seat, game, hand_game, params) -> None:
    """``st`` (zeroed) := world ``w``'s contract at its first card: ``seat`` declares ``game``
    at 18, forehand leads; after a pickup the declarer discards with the rule-based
    player's greedy discard. The skat pile (discards, or the dealt skat in a hand game) is
    ``st[F_SKAT]``."""
    h0, h1, h2, sk = worlds[w, 0], worlds[w, 1], worlds[w, 2], worlds[w, 3]
    st[G.F_HAND0] = h0
    st[G.F_HAND1] = h1
    st[G.F_HAND2] = h2
    st[G.F_DEALT0] = h0
    st[G.F_DEALT1] = h1
    st[G.F_DEALT2] = h2
    st[G.F_DEALT_SKAT] = sk
    pile = sk
    if not hand_game:
        twelve = worlds[w, seat] | sk
        c1 = greedy_discard(twelve, game, params)
        c2 = greedy_discard(twelve & ~(1 << c1), game, params)
        pile = (1 << c1) | (1 << c2)
        st[G.F_HAND0 + seat] = twelve & ~pile
        st[G.F_PICKED] = 1
        st[G.F_DISCARDS] = 2
    st[G.F_SKAT] = pile
    st[G.F_PHASE] = G.PH_PLAY
    st[G.F_GAME] = game
    st[G.F_FLAGS] = 1 if hand_game else 0
    st[G.F_DECLARER] = seat
    st[G.F_BID_IDX] = 0
    st[G.F_BID] = 18
    st[G.F_LEADER] = 0
    st[G.F_PLAYER] = 0
    st[G.F_LAST_WINNER] = -1
    st[G.F_KONTRA_BY] = -1


@njit(cache=True)
def _rb_playouts(worlds, seat, game, hand_game, params, out_points, out_tricks):
    """Play each world's contract out with the rule-based player in every seat (each
    from its masked view). Writes the declarer's card points (skat included) and tricks."""
    st = np.zeros(G.N_FIELDS, np.int64)
    view = np.zeros(G.N_FIELDS, np.int64)
    for w in range(worlds.shape[0]):
        st[:] = 0
        _start_world(st, worlds, w, seat, game, hand_game, params)
        rng = np.int64(w + 1)
        while st[G.F_PHASE] == G.PH_PLAY:
            p = st[G.F_PLAYER]
            G.mask_view(st, p, view)
            # the compiled policy_act, linked, on the argument types skatsim warmup compiles
            # (inlining P.act here compiled the whole heuristic again: 98 s)
            a, rng = P.policy_act(np.int64(P.POLICY_RULE_BASED), view, p, params, rng)
            G._apply_play(st, a)
        out_points[w], out_tricks[w] = declarer_result(st)


@njit(cache=True)
def _outcomes_kernel(game, points, tricks, out):
    for w in range(points.shape[0]):
        won, schneider, schwarz, _, _, _, _, _ = settle_core(game, 0, 1, 0, points[w], tricks[w], 0)
        if won:
            out[w] = 3 if schwarz else (2 if schneider else 1)
        else:
            out[w] = -1 if schneider else 0


def _outcomes(game: int, points: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    """Per-world outcomes (the ``res_<c>`` codes) of the declarer's card points (skat
    included) and tricks, as :func:`skatsim.scoring.settle_core` settles them: -1 lost
    schneidered, 0 lost, 1 won, 2 won schneider, 3 won schwarz (null: 0 lost, 1 won)."""
    out = np.empty(len(points), np.int64)
    _outcomes_kernel(int(game), np.ascontiguousarray(points, np.int64), np.ascontiguousarray(tricks, np.int64), out)
    return out


def _summaries(game: int, hand: bool, res: np.ndarray, mat: np.ndarray) -> tuple[float, float, float]:
    """``(p, e_list, e_sf)`` of one contract from its per-world outcomes."""
    if len(res) == 0:
        return 0.0, 0.0, 0.0
    won = res >= 1
    v = _world_values(game, hand, res, 0 if game == NULL else mat[:len(res)])
    lst = np.where(won, v, -2 * v)
    p = float(won.mean())
    e = float(lst.mean())
    return p, e, e + 50.0 * (2 * p - 1)


# ----------------------------------------------------------------------------- labelling


def label_hand(hand: int, seat: int, worlds: np.ndarray, cfg: LabelConfig, solver: Any = None) -> dict[str, Any]:
    """The label columns (``n_worlds``, ``p_* e_list_* e_sf_* n_* res_* mat_*``) of ``seat``
    holding ``hand`` over ``worlds`` (``(n, 4)`` as :func:`sample_worlds_for_hand`)."""
    n = len(worlds)
    row: dict[str, Any] = {"n_worlds": n}
    mats = {}
    for g in range(5):
        mats[g] = np.array([abs(int(matadors_of(int(hand | worlds[w, 3]), g))) for w in range(n)], np.int64)
        row[f"mat_{GAME_LETTERS[g]}"] = mats[g].astype(np.int8).tolist()
    if cfg.labeler == "solver" and solver is None:
        from skatsim.solver import Solver

        solver = Solver(tt_bits=cfg.tt_bits)
    pts = np.zeros(n, np.int64)
    trk = np.zeros(n, np.int64)
    if cfg.labeler == "distilled":
        net_pts, net_trk = _net_playouts(worlds, seat, cfg.card_model)
    for k, (c, g, hg) in enumerate(zip(CONTRACTS, CONTRACT_GAME, CONTRACT_HAND)):
        if cfg.labeler == "rule_based":
            _rb_playouts(worlds, seat, g, hg, _RB_PARAMS, pts, trk)
            res = _outcomes(g, pts[:n], trk[:n])
        elif cfg.labeler == "distilled":
            res = _outcomes(g, net_pts[k], net_trk[k])
        else:
            res = _solve_contract(hand, seat, g, hg, worlds, cfg, solver)
        p, e, sf = _summaries(g, hg, res, mats.get(g, np.zeros(n, np.int64)))
        row[f"p_{c}"], row[f"e_list_{c}"], row[f"e_sf_{c}"] = p, e, sf
        row[f"n_{c}"] = len(res)
        row[f"res_{c}"] = res.astype(np.int8).tolist()
    return row


@njit(cache=True)
def _start_contracts(worlds, seat, games, hands, params, out) -> None:
    """``out[k * n + w]`` := world ``w``'s contract ``k`` (``games[k]``, ``hands[k]``) at its first card."""
    n = worlds.shape[0]
    for k in range(games.shape[0]):
        for w in range(n):
            out[k * n + w, :] = 0
            _start_world(out[k * n + w], worlds, w, seat, games[k], hands[k], params)


_GAMES = np.array(CONTRACT_GAME, np.int64)
_HANDS = np.array(CONTRACT_HAND, np.bool_)


def _net_playouts(worlds: np.ndarray, seat: int, card_model: str) -> tuple[np.ndarray, np.ndarray]:
    """Every contract of :data:`CONTRACTS` in every world, played out by the card network in
    all three seats (:func:`agents.players.card_playouts.play_out`, one batch): the declarer's
    card points (skat included) and tricks, ``(len(CONTRACTS), n)`` each."""
    from ..players.distilled import card_network
    from ..players.card_playouts import declarer_results, play_out

    n = len(worlds)
    states = np.zeros((len(CONTRACTS) * n, G.N_FIELDS), np.int64)
    _start_contracts(np.ascontiguousarray(worlds, np.int64), seat, _GAMES, _HANDS, _RB_PARAMS, states)
    pts, trk = declarer_results(play_out(states, card_network(card_model)))
    return pts.reshape(len(CONTRACTS), n), trk.reshape(len(CONTRACTS), n)


def _solve_contract(hand: int, seat: int, game: int, hand_game: bool, worlds: np.ndarray, cfg: LabelConfig,
                    solver: Any) -> np.ndarray:
    from skatsim.solver import Position

    out = []
    wins = 0
    for w in range(len(worlds)):
        if cfg.min_worlds and w == cfg.min_worlds and wins == 0:
            break
        hs = [int(worlds[w, 0]), int(worlds[w, 1]), int(worlds[w, 2])]
        pile = int(worlds[w, 3])
        if not hand_game:
            twelve = hand | pile
            pile = discard_for(twelve, game)
            hs[seat] = twelve & ~pile
        pos = Position((hs[0], hs[1], hs[2]), pile, game, seat, (), 0, 0, 0)
        if game == NULL:
            r = int(bool(solver.solve(pos, mode="threshold", threshold="null").declarer_wins))
        else:
            r = int(bool(solver.solve(pos, mode="threshold", threshold=61).declarer_wins))
            if r and cfg.schneider and solver.solve(pos, mode="threshold", threshold=90).declarer_wins:
                r = 2
        wins += r > 0
        out.append(r)
    return np.array(out, np.int64)


def label_deal(deal_index: int, cfg: LabelConfig, solver: Any = None) -> list[dict[str, Any]]:
    """The rows of deal ``deal_index`` (one per seat in ``cfg.seats``)."""
    ds = derive_seed(cfg.seed, deal_index)
    masks = _deal(ds).masks()
    rows = []
    for s in cfg.seats:
        gen = np.random.default_rng([ds, s])
        bid = 0
        if cfg.condition == "auction":
            bid = int(gen.choice(BID_LEVELS, p=_LEVEL_P))
            pool = opponent_params(cfg.opponents) if cfg.opponents else None
            worlds, _ = auction_worlds(masks[s], s, cfg.worlds, bid, gen, cfg.max_tries, pool)
            if len(worlds) == 0:  # no world lets this seat win at that level: label uniform worlds
                worlds = sample_worlds_for_hand(masks[s], s, cfg.worlds, gen)
        else:
            worlds = sample_worlds_for_hand(masks[s], s, cfg.worlds, gen)
        row = {"source": cfg.labeler, "deal_index": int(deal_index), "deal_seed": int(ds), "seat": int(s),
               "hand": int(masks[s]), "bid_level": bid, "auction": "", "declared": None}
        row.update(label_hand(masks[s], s, worlds, cfg, solver))
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- storage


def _arrow_schema() -> Any:
    import pyarrow as pa

    fields = [("source", pa.string()), ("deal_index", pa.int64()), ("deal_seed", pa.int64()), ("seat", pa.int8()),
              ("hand", pa.int64()), ("bid_level", pa.int16()), ("auction", pa.string()), ("declared", pa.string()),
              ("n_worlds", pa.int16())]
    for c in CONTRACTS:
        fields += [(f"p_{c}", pa.float32()), (f"e_list_{c}", pa.float32()), (f"e_sf_{c}", pa.float32()),
                   (f"n_{c}", pa.int16()), (f"res_{c}", pa.list_(pa.int8()))]
    fields += [(f"mat_{g}", pa.list_(pa.int8())) for g in GAME_LETTERS[:5]]
    return pa.schema(fields, metadata={"skatsim.bidding_schema": str(SCHEMA_VERSION)})


def _label_chunk(cfg: LabelConfig, a: int, b: int) -> tuple[float, Any]:
    """The rows of deals ``a ... b - 1`` as an Arrow table: ``(seconds, table)`` (the unit of
    work of every backend; the driver writes it into the run directory)."""
    import pyarrow as pa

    t0 = time.perf_counter()
    solver = None
    if cfg.labeler == "solver":
        from skatsim.solver import Solver

        solver = Solver(tt_bits=cfg.tt_bits)
    rows: list[dict[str, Any]] = []
    for i in range(a, b):
        rows += label_deal(i, cfg, solver)
    table = pa.Table.from_pylist(rows, schema=_arrow_schema())
    return time.perf_counter() - t0, table


def _warm_up(cfg: LabelConfig) -> None:
    small = dataclasses.replace(cfg, worlds=1, min_worlds=0)
    label_deal(0, small)


#: ``kind`` of a label run directory (:class:`skatsim.runs.RunDir`).
RUN_KIND = "bidding_labels"


def generate(out_dir: str | os.PathLike, cfg: LabelConfig, *, workers: int = 1, progress: bool = True,
             backend: str = "local", address: str | None = None) -> Path:
    """Label ``cfg.n_deals`` deals into the run directory ``out_dir`` (:class:`skatsim.runs.RunDir`:
    a shard per ``cfg.shard_size`` deals + ``manifest.json``), resuming a partial run of the
    same config (a different config is refused). ``backend="local"``: ``workers`` local
    processes; ``"ray"``: one Ray task per shard (:func:`skatsim.parallel.map_chunks`;
    ``address`` of an existing cluster, else a local Ray with ``workers`` CPUs); the driver
    writes every shard, so the rows are the same whatever the backend. Returns the directory."""
    from skatsim.parallel import BACKENDS, map_chunks
    from skatsim.runs import RunDir, is_run_dir

    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    out = Path(out_dir)
    config = cfg.to_dict()
    if is_run_dir(out):
        run = RunDir.open(out)
        if run.kind != RUN_KIND:
            raise ValueError(f"{os.fspath(out)!r} holds a {run.kind} run, not bidding labels: choose a new directory")
        if run.config != config:
            diff = "; ".join(f"{k}: {run.config.get(k)!r} there, {config.get(k)!r} here"
                             for k in sorted(set(config) | set(run.config)) if run.config.get(k) != config.get(k))
            raise ValueError(f"{os.fspath(out)!r} holds labels of another config ({diff}); use a new directory, "
                             "or the same config to resume")
    else:
        run = RunDir.create(out, kind=RUN_KIND, config=config, n_units=cfg.n_deals, chunk_size=cfg.shard_size,
                            extra={"config_hash": config_hash(cfg), "schema_version": SCHEMA_VERSION,
                                   "columns": label_columns(), "label_seconds": 0.0})
    todo = run.todo()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.n_deals, initial=cfg.n_deals - sum(b - a for a, b in todo), unit="deal",
                   desc=f"labels ({cfg.labeler})")
    try:
        with ctrl_c():  # a Ctrl-C that code in a chunk drops is raised again
            if backend == "local" and workers > 1 and len(todo) > 1:
                _warm_up(cfg)  # compile once here: forked workers inherit the machine code
            for (a, b), (secs, table) in map_chunks(_label_chunk, [(cfg, a, b) for a, b in todo], todo,
                                                     workers=workers, backend=backend, address=address):
                run.write_shard(a, b, table, {"seconds": round(secs, 3)})
                run.update(label_seconds=round(float(run.manifest.get("label_seconds", 0.0)) + secs, 3))
                if bar is not None:
                    bar.update(b - a)
    finally:
        if bar is not None:
            bar.close()
    run.mark_complete(None, rows=int(sum(_shard_rows(p) for p in run.done().values())))
    return out


def _shard_rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return int(pq.read_metadata(path).num_rows)


def read_labels(path: str | os.PathLike | Iterable[str | os.PathLike], columns: Sequence[str] | None = None) -> Any:
    """A label directory (or several) as one pandas DataFrame, sorted by deal and seat
    (``columns``: only these, e.g. without the per-world lists). ``ValueError`` names a
    folder that is not a label run or holds no finished shard."""
    import pandas as pd
    import pyarrow.parquet as pq

    from skatsim.runs import RunDir

    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    cols = None if columns is None else list(dict.fromkeys([*columns, "source", "deal_index", "seat"]))
    parts = []
    for p in paths:
        run = RunDir.open(p)
        if run.kind != RUN_KIND:
            raise ValueError(f"{os.fspath(p)!r} holds a {run.kind} run, not bidding labels")
        done = run.done()
        if not done:
            raise ValueError(f"{os.fspath(p)!r} holds no finished label shard yet")
        parts += [pq.read_table(done[k], columns=cols).to_pandas() for k in sorted(done)]
    df = pd.concat(parts, ignore_index=True)
    return df.sort_values(["source", "deal_index", "seat"], kind="stable").reset_index(drop=True)


def data_hash(df: Any) -> str:
    """A content hash of a label table (hands and summary labels), for checkpoints."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(df["hand"].to_numpy(np.int64)).tobytes())
    for c in CONTRACTS:
        h.update(np.ascontiguousarray(df[f"p_{c}"].to_numpy(np.float32)).tobytes())
    return h.hexdigest()[:16]


# ----------------------------------------------------------------------------- derived values


def expected_at_bid(row: Any, contract: str, bid: int, *, schneider_announced: bool = False,
                    defender_bonus: float = 0.0) -> float:
    """Expected Seeger-Fabian score of the declarer playing ``contract`` at ``bid``, from a
    row's per-world outcomes (``res_<c>``, ``mat_<g>``). An overbid world is lost and
    charged the bid rounded up to the base. ``schneider_announced`` (hand suit / grand):
    won needs 90 (outcome >= 2) and adds two levels. ``defender_bonus``: subtract this
    per defender point of a lost game (40 x 2 = 80 for the declarer's relative score)."""
    i = CONTRACTS.index(contract)
    g, hg = CONTRACT_GAME[i], CONTRACT_HAND[i]
    res = np.asarray(row[f"res_{contract}"], np.int64)
    if len(res) == 0:
        return float("nan")
    flags = HAND_FLAG if hg else 0
    if g == NULL:
        won = res >= 1
        v = _world_values(g, hg, res, 0)
    else:
        mat = np.asarray(row[f"mat_{GAME_LETTERS[g]}"], np.int64)[:len(res)]
        if schneider_announced:
            if not hg:
                raise ValueError("schneider can only be announced in a hand game")
            flags |= SCHNEIDER_ANNOUNCED
            won = res >= 2
            v = game_value_array(g, flags, np.ascontiguousarray(mat), np.ones(len(res), np.bool_), res >= 3)
        else:
            won = res >= 1
            v = _world_values(g, hg, res, mat)
    sf = expected_sf_array(won.astype(np.float64), v, g, flags, bid, defender_bonus)
    return float(sf.mean())


# ----------------------------------------------------------------------------- command line


def _thresholds(text: str) -> tuple[float, ...]:
    """``"0.45,0.6,0.75"`` -> ``(0.45, 0.6, 0.75)`` (argparse type of ``--opponents``)."""
    import argparse

    try:
        return tuple(float(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"comma-separated numbers expected, got {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.learn.bidding_data --out DIR [--deals N --worlds W --labeler L ...]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m agents.learn.bidding_data",
                                 description="Label dealt hands with the outcome of every candidate contract "
                                             "(parquet shards + manifest.json; resumable).")
    ap.add_argument("--out", required=True, help="output directory (resumed if it holds the same config)")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--labeler", choices=_LABELERS, default="solver")
    ap.add_argument("--min-worlds", type=int, default=4)
    ap.add_argument("--shard-size", type=int, default=50)
    ap.add_argument("--condition", choices=_CONDITIONS, default="none",
                    help="auction: worlds in which rule-based opponents let the seat win at the row's bid level")
    ap.add_argument("--opponents", type=_thresholds, default=(), metavar="T1,T2,...",
                    help="with --condition auction: the bid_threshold values of a pool of rule-based "
                         "bidders, one drawn per other seat and world (default: the default rule-based bidder)")
    ap.add_argument("--card-model", default="", metavar="MODEL",
                    help=f"with --labeler distilled: the card network playing every seat (a shipped name or a "
                         f"path; default {DISTILLED_LABEL_MODEL})")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local processes or Ray tasks (pip install 'skatsim[ray]')")
    ap.add_argument("--address", default=None, help="with --backend ray: an existing cluster ('auto', 'ray://...')")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    cfg = LabelConfig(n_deals=a.deals, seed=a.seed, worlds=a.worlds, labeler=a.labeler, min_worlds=a.min_worlds,
                      shard_size=a.shard_size, condition=a.condition, opponents=a.opponents,
                      card_model=a.card_model)
    t0 = time.perf_counter()
    out = generate(a.out, cfg, workers=a.workers, progress=not a.no_progress, backend=a.backend, address=a.address)
    man = json.loads((out / "manifest.json").read_text())
    dt = time.perf_counter() - t0
    print(f"{man['rows']} labelled hands in {out} ({man['label_seconds']:.1f} s of labelling, "
          f"{man['rows'] / max(man['label_seconds'], 1e-9):.1f} hands/s/core; wall {dt:.1f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
