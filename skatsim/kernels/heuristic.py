"""The rule-based Skat player: heuristic decisions written once as jitted functions on a
seat's masked view (what the seat may know), for every phase of a deal.

The same compiled code runs inside batch simulation (``simulate(..., policy="rule_based")``)
and behind ``agents.RuleBasedAgent`` (through :func:`skatsim.kernels.policies.policy_act`).

Entry point: :func:`rule_based_policy` ``(view, seat, params, rng) -> (action, rng)``.
``view`` is the masked int64 state vector (:func:`skatsim.kernels.game.mask_view`);
``params`` is a float64 row whose first ``len(PARAM_NAMES)`` entries are the parameters
below (the weakened variants of the strength study are parameter settings of this one
player); ``rng`` is a SplitMix64 state, only drawn from when ``random_cards`` is on.
The policy never writes to ``view`` and reads nothing hidden (the view has no hidden cards).

Design (details in each helper's docstring):

- **Hand evaluation** (:func:`suit_strength`, :func:`grand_strength`, :func:`null_bad`):
  additive point counts from per-suit 8-bit lookup tables built at import (jacks and
  trump length, aces and tens, guarded / bare tens, voids and singletons with enough
  trumps, seat), turned into a winning chance by a logistic
  ``p = 1 / (1 + exp(-(S + gain - T) / scale))``; null hands by the number of cards that
  break the "safe suit" rule (the i-th lowest card of a suit at most at null rank 2i).
- **Expected outcome**: :func:`skatsim.valuation.expected_sf_at_bid` of the contract's
  :func:`skatsim.valuation.game_value` (``p (V + 50) - (1 - p)(2 V + 50)`` in
  Seeger-Fabian points, with the overbid charge when ``V`` is below the bid); game values,
  null values and declaration indices all come from :mod:`skatsim.valuation` and
  :mod:`skatsim.contracts`.
- **Bidding** (:func:`bid_limit`, :func:`bid_decision`): the highest game value ``V`` of
  any contract (suit / grand / null, pickup or hand) whose chance is at least
  ``bid_threshold``; bid the next ladder value while it is within the limit, hold
  while the named bid is within it, else pass.
- **Skat** (:func:`skat_decision`): hand only when the best hand game's chance is at
  least ``hand_min_p`` and its expected score beats the best pickup game's.
- **Discard** (:func:`discard_decision`): for every game type plan the two discards
  greedily (suit / grand: never trumps; make voids, push unguarded tens and points into
  the skat; null: remove the cards that break safe suits), score the resulting hand and
  discard the first card of the best game's plan.
- **Declaration** (:func:`declare_decision`): the legal declaration of highest expected
  score (null only when the bid allows it; an overbid is chosen only when forced, then the
  cheapest); schneider announced / schwarz / ouvert only for overwhelming hands.
- **Kontra/Re** (:func:`kontra_decision`): Kontra with a very strong defensive hand, Re
  when the declarer's own chance is very high.
- **Card play** (:func:`card_decision`): suit and grand (declarer draws trumps with a
  master trump or the majority, cashes unruffable masters, leads low from short suits;
  defenders cash masters, lead to the partner's void, "kurzer Weg - lange Farbe,
  langer Weg - kurze Farbe", avoid leading from tens, smear points on the partner's sure
  trick, win cheaply, trump when void, duck low otherwise), null (declarer leads and ducks
  low, discards his most dangerous card; defenders lead where the declarer must win, duck
  under his card, dump high cards) and Ramsch (duck, dump points and high cards when void).
  Outstanding cards, masters and possible holdings use ``F_PLAYED*``, ``F_VOID*``, the
  declarer's discards and an ouvert hand.

Calibration: ``suit_T``/``scale`` (known cards: hand games, after the discard) and
``pickup_gain``/``pickup_scale`` (dealt cards before the pickup) are logistic fits of the
won rate of contracts forced on random deals and played out by this player against itself
(suit hand T50 8.5 / scale 1.0; suit after the discard 8.6 / 1.0; before the pickup 7.1 /
1.4); ``grand_offset`` 0 won duplicate duels against -1.5, 0.75 and no grand at all.

Speed: bit tricks on card masks and table lookups (a tabulated logistic, shared per-suit
lookups for the five trump games); loops run over at most the 12 cards of a hand. No
allocation. About 80 ns per bidding decision, 35 ns per card, 150 ns per discard on an
idle core. Batch simulation's bid limits (:func:`bid_limit_cut`) test the chances as two
comparisons of the strength margin with cutoffs found once per run chunk
(:func:`bid_cutoffs`): the same limits without a division or a table lookup per game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import BID_BASE, DECLARE_BASE, HAND, HOLD, KONTRA, PASS, PICKUP, RE
from ..bits import assume_below, branchless, lsb, msb, popcount
from ..cards import ACES, ALL_CARDS, CARD_POINTS, CARD_POINTS_ARRAY, JACKS, SUIT_MASKS, TENS, card_points
from ..contracts import BID_VALUES, DECLARATION_INDEX
from ..rules import FOLLOW, GRAND, NULL, RAMSCH, STRENGTH, TRUMP_MASKS, legal_mask
from ..valuation import OUVERT, SCHNEIDER_ANNOUNCED, SCHWARZ_ANNOUNCED, expected_sf_at_bid, game_value, null_value
from ..valuation import HAND as HAND_GAME
from . import game as G

__all__ = ["PARAM_NAMES", "DEFAULT_PARAMS", "PARAM_DOCS", "rule_based_policy", "bid_limit",
           "bid_limit_cut", "bid_cutoffs",
           "suit_strength", "grand_strength", "null_bad", "game_chance", "greedy_discard",
           "bid_decision", "skat_decision", "discard_decision", "declare_decision",
           "kontra_decision", "card_decision", "params_array"]

# ----------------------------------------------------------------------------- parameters
_PARAMS = (
    ("bid_threshold", 0.60, "minimum winning chance of a game to bid up to its value"),
    ("scale", 1.00, "logistic scale of a known hand: strength points per unit of log-odds"),
    ("suit_T", 8.60, "strength a known 10-card suit hand (hand game, after the discard) needs for 50%"),
    ("grand_offset", 0.0, "extra strength a grand needs over a suit game"),
    ("pickup_gain", 1.60, "strength the skat pickup and the discard are worth (bidding, skat)"),
    ("pickup_scale", 1.30, "logistic scale before the pickup (the skat is unknown)"),
    ("hand_min_p", 0.80, "minimum chance of a hand game (bid, skat decision)"),
    ("max_bid", 264.0, "never bid or hold above this value (18: an 18-only bidder)"),
    ("random_cards", 0.0, "1: play cards uniformly at random (the weakened card-play variant)"),
    ("no_null", 0.0, "1: never bid or declare null"),
    ("no_grand", 0.0, "1: never bid or declare grand"),
    ("no_hand", 0.0, "1: never play hand"),
    ("forehand_bonus", 0.25, "strength bonus for forehand (first lead) in suit games"),
    ("grand_forehand", 0.60, "strength bonus for forehand in grand"),
    ("trump_length", 0.40, "strength per trump beyond four (suit games)"),
    ("void_bonus", 0.45, "strength of a side void with five or more trumps (singleton: 40%)"),
    ("skat_points", 0.035, "strength per card point pushed into the skat"),
    ("schneider_margin", 3.0, "strength above suit_T (plus hand) to announce schneider"),
    ("allow_ouvert", 1.0, "1: announce schwarz / ouvert when every trick is sure"),
    ("kontra_threshold", 8.0, "defensive count (trumps + jacks + aces + tens/2) for Kontra"),
    ("re_threshold", 0.92, "declarer's chance needed to answer Re"),
    ("null_p_pick", 0.90, "chance of a pickup null whose ten cards are safe"),
    ("null_p_hand", 0.85, "chance of a safe null hand"),
    ("random_bidding", 0.0, "1: bid, skat, discard and declare uniformly at random"),
    ("smear_min_out", 0.0, "smear before the declarer plays only if this many cards of the led suit are out"),
)
PARAM_NAMES: tuple[str, ...] = tuple(p[0] for p in _PARAMS)
DEFAULT_PARAMS: tuple[float, ...] = tuple(float(p[1]) for p in _PARAMS)
PARAM_DOCS: dict[str, str] = {p[0]: p[2] for p in _PARAMS}
_N_PARAMS = len(_PARAMS)

(P_THR, P_SCALE, P_T, P_GRAND, P_GAIN, P_PSCALE, P_HANDP, P_MAXBID, P_RANDOM, P_NONULL, P_NOGRAND,
 P_NOHAND, P_FH, P_GFH, P_TLEN, P_VOID, P_SKATPTS, P_SCHN, P_OUVERT, P_KONTRA, P_RE,
 P_NULLPICK, P_NULLHAND, P_RANDBID, P_SMEAR) = range(len(_PARAMS))


def params_array(**overrides: float) -> np.ndarray:
    """The 32-entry float64 parameter row: defaults with ``overrides`` by name."""
    row = np.zeros(32, dtype=np.float64)
    row[:len(DEFAULT_PARAMS)] = DEFAULT_PARAMS
    for k, v in overrides.items():
        if k not in PARAM_NAMES:
            raise ValueError(f"unknown rule_based parameter {k!r}; known: {', '.join(PARAM_NAMES)}")
        row[PARAM_NAMES.index(k)] = float(v)
    return row


# ----------------------------------------------------------------------------- tables
_ALL = ALL_CARDS
_JACKS = JACKS


def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


_PTS = CARD_POINTS_ARRAY
_STR = STRENGTH
_FOL = FOLLOW
_TRUMP = _ro(np.array(TRUMP_MASKS, dtype=np.int64))
_SUITM = _ro(np.array(SUIT_MASKS, dtype=np.int64))
_MIN_BID, _TOP_BID, _N_BIDS = BID_VALUES[0], BID_VALUES[-1], len(BID_VALUES)
_DECL = DECLARATION_INDEX


def _build_card_tables():
    """ABOVE/BELOW[g*32+c]: cards of c's effective suit that beat / lose to c.
    DUMP[g*32+c]: cost of throwing c away (low first); SMEAR: value of giving c to a won trick."""
    above = np.zeros(7 * 32, dtype=np.int64)
    below = np.zeros(7 * 32, dtype=np.int64)
    dump = np.zeros(7 * 32, dtype=np.int64)
    smear = np.zeros(7 * 32, dtype=np.int64)
    for g in range(7):
        tm = TRUMP_MASKS[g]
        for c in range(32):
            f = int(FOLLOW[g * 32 + c])
            s = int(STRENGTH[g * 32 + c])
            a = b = 0
            for x in range(32):
                if f >> x & 1 and x != c:
                    if STRENGTH[g * 32 + x] > s:
                        a |= 1 << x
                    else:
                        b |= 1 << x
            above[g * 32 + c] = a
            below[g * 32 + c] = b
            p = CARD_POINTS[c]
            if tm >> c & 1:
                dump[g * 32 + c] = 60 + 3 * s + p
                smear[g * 32 + c] = 3 * p - 40 - (40 if (c & 7) == 7 else 0)
            else:
                dump[g * 32 + c] = 3 * p + s
                smear[g * 32 + c] = 3 * p - (4 if (c & 7) == 6 else 0) - s // 4
    return tuple(_ro(t) for t in (above, below, dump, smear))


_ABOVE, _BELOW, _DUMP, _SMEAR = _build_card_tables()

# null rank position of each rank id (7 8 9 Q K 10 A J -> 7 8 9 10 J Q K A order)
_NULL_POS = (0, 1, 2, 5, 6, 3, 7, 4)


def _build_hand_tables():
    """Per-suit lookup tables indexed by the suit's 8-bit rank byte (bit r = rank id r)."""
    sv_suit = np.zeros(256, dtype=np.float64)   # side suit value in a suit game (7-bit index)
    sv_grand = np.zeros(256, dtype=np.float64)  # side suit value in grand
    voidish = np.zeros(256, dtype=np.float64)   # 1 void, 0.4 singleton non-ace
    tv_suit = np.zeros(256, dtype=np.float64)   # trump suit (non-jack) cards
    toprun = np.zeros(256, dtype=np.int64)      # 1 if the suit is a run from the ace down (or empty)
    null_bad = np.zeros(256, dtype=np.int64)    # cards breaking the safe-suit rule (full byte)
    for b in range(256):
        b7 = b & 0x7F
        n = bin(b7).count("1")
        A, T, K = b7 >> 6 & 1, b7 >> 5 & 1, b7 >> 4 & 1
        v = 0.0
        if A:
            v += 1.0
            if T:
                v += 0.8
                if K:
                    v += 0.25
        elif T:
            v += 0.3 if (K or n >= 3) else -0.4
        elif K and n == 1:
            v -= 0.1
        if n >= 4:
            v -= 0.15 * (n - 3)
        sv_suit[b] = v
        w = 0.0
        if A:
            w += 1.2
            if T:
                w += 1.0
                if K:
                    w += 0.5 + 0.6 * max(0, n - 3)
        elif T:
            w += 0.35 if (K or n >= 3) else -0.6
        if not A:
            w -= 0.1 * n
        sv_grand[b] = w
        voidish[b] = 1.0 if n == 0 else (0.4 if n == 1 and not A else 0.0)
        tv_suit[b] = sum((1.15, 1.05, 0.95)[6 - r] if r >= 4 else 0.85 for r in range(7) if b7 >> r & 1)
        run = True
        seen_gap = False
        for r in (6, 5, 4, 3, 2, 1, 0):
            if b7 >> r & 1:
                if seen_gap:
                    run = False
            else:
                seen_gap = True
        toprun[b] = 1 if run else 0
        pos = sorted(_NULL_POS[r] for r in range(8) if b >> r & 1)
        bad = 0
        for i, p in enumerate(pos):
            if p > 2 * i:
                bad = len(pos) - i
                break
        null_bad[b] = bad
    jv_suit = np.zeros(16, dtype=np.float64)
    jv_grand = np.zeros(16, dtype=np.float64)
    for j in range(16):
        js = [(j >> k) & 1 for k in range(4)]  # D H S C
        jv_suit[j] = 1.25 * js[0] + 1.4 * js[1] + 1.6 * js[2] + 1.8 * js[3] + (0.2 if js[3] and js[2] else 0.0)
        nj = sum(js)
        jv_grand[j] = (1.6 * js[0] + 1.8 * js[1] + 2.1 * js[2] + 2.4 * js[3]
                       + (0.5 if js[3] and js[2] else 0.0) + (0.5 if j == 15 else 0.0)
                       - 1.5 * max(0, 2 - nj))
    return tuple(_ro(t) for t in (sv_suit, sv_grand, voidish, tv_suit, toprun, null_bad, jv_suit, jv_grand))


_SV_SUIT, _SV_GRAND, _VOIDISH, _TV_SUIT, _TOPRUN, _NULL_BAD, _JV_SUIT, _JV_GRAND = _build_hand_tables()


def _drop_table(t: np.ndarray) -> np.ndarray:
    """``t[b & ~(1 << r)] - t[b]`` at index ``8 * b + r`` (b a 7-bit suit byte, r a rank):
    the change of a per-suit value when rank ``r`` leaves the suit (the discard tables)."""
    b = np.arange(128)[:, None]
    r = np.arange(8)[None, :]
    return _ro((t[b & ~(1 << r)] - t[b]).reshape(-1))


_DROP_SV_SUIT, _DROP_SV_GRAND, _DROP_VOIDISH = (_drop_table(t) for t in (_SV_SUIT, _SV_GRAND, _VOIDISH))


def _null_drop_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per 8-bit suit byte ``b``: the best null discard of the suit by :func:`greedy_discard`'s
    value (unsafe cards removed x 100 + null strength) and its rank (the lowest on ties)."""
    val = np.full(256, -np.inf)
    rank = np.full(256, -1, dtype=np.int64)
    for b in range(1, 256):
        for r in range(8):
            if b >> r & 1:
                v = float(_NULL_BAD[b] - _NULL_BAD[b & ~(1 << r)]) * 100.0 + float(_STR[NULL * 32 + r])
                if v > val[b]:
                    val[b], rank[b] = v, r
    return _ro(val), _ro(rank)


_NULL_DROP_VAL, _NULL_DROP_RANK = _null_drop_tables()
# top-run of the jacks (CJ, CJ+SJ, ...) by 4-bit jack index, and its length
_JRUN = _ro(np.array([1 if (j == 0 or (j >> 3) & 1 and all(((j >> k) & 1) <= ((j >> (k + 1)) & 1)
                                                           for k in range(3))) else 0
                      for j in range(16)], dtype=np.int64))
_NULL_P_PICK = _ro(np.array((1.0, 0.95, 0.88, 0.6, 0.35, 0.15, 0.05, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0), dtype=np.float64))
_NULL_P_HAND = _ro(np.array((1.0, 0.35, 0.12, 0.03, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0), dtype=np.float64))


# ----------------------------------------------------------------------------- hand evaluation
@njit(cache=True, inline='always')
def _jacks4(h):
    """The four jacks of ``h`` as bits 0..3 = DJ HJ SJ CJ."""
    return ((h >> 7) & 1) | ((h >> 14) & 2) | ((h >> 21) & 4) | ((h >> 28) & 8)


@njit(cache=True, inline='always')
def _mat(h, g):
    """Number of matadors (with or without) of the cards ``h`` in suit game / grand ``g``
    (the unsigned :func:`skatsim.scoring.matadors_of`, inlined)."""
    j = _jacks4(h)
    if g == GRAND:
        seq = j
        n = 4
    else:
        seq = (j << 7) | ((h >> (8 * g)) & 0x7F)
        n = 11
    full = (1 << n) - 1
    if (seq >> (n - 1)) & 1:
        gaps = ~seq & full
        return n if gaps == 0 else n - 1 - msb(gaps)
    return n if seq == 0 else n - 1 - msb(seq)


@njit(cache=True, inline='always')
def _suit_strength(h, t, seat, params):
    """The body of :func:`suit_strength`, inlined into this module's callers."""
    j = _jacks4(h)
    tb = (h >> (8 * t)) & 0x7F
    nt = popcount(j) + popcount(tb)
    s = _JV_SUIT[j] + _TV_SUIT[tb]
    if nt > 4:
        s += params[P_TLEN] * (nt - 4)
    elif nt < 4:
        s -= 0.8 * (4 - nt)
    vb = params[P_VOID] if nt >= 5 else 0.4 * params[P_VOID]
    for u in range(4):
        if u != t:
            b = (h >> (8 * u)) & 0x7F
            s += _SV_SUIT[b] + vb * _VOIDISH[b]
    if seat == 0:
        s += params[P_FH]
    return s


@njit(cache=True, _nrt=False)
def suit_strength(h, t, seat, params):
    """Strength points of hand ``h`` for a suit game with trump suit ``t`` (0 D .. 3 C).

    Jacks (1.25 .. 1.8, +0.2 for CJ+SJ), trump-suit cards (A 1.15, 10 1.05, K 0.95,
    others 0.85), ``trump_length`` per trump beyond four (-0.8 per trump short of four),
    side suits from the table (ace 1, ace-ten +0.8, guarded ten +0.3, bare ten -0.4, long
    side suits lose), voids and singletons worth ``void_bonus`` with five or more trumps,
    and ``forehand_bonus`` for seat 0.
    """
    return _suit_strength(h, t, seat, params)


@njit(cache=True, inline='always')
def _grand_strength(h, seat, params):
    """The body of :func:`grand_strength`, inlined into this module's callers."""
    s = _JV_GRAND[_jacks4(h)] - params[P_GRAND]
    for u in range(4):
        s += _SV_GRAND[(h >> (8 * u)) & 0x7F]
    if seat == 0:
        s += params[P_GFH]
    return s


@njit(cache=True, _nrt=False)
def grand_strength(h, seat, params):
    """Strength points of ``h`` for grand: jacks (1.6 .. 2.4, +0.5 CJ+SJ, +0.5 all four,
    -1.5 per jack short of two),
    side suits from the grand table (ace 1.2, ace-ten +1, A-10-K +0.5 and +0.6 per further
    card, guarded ten +0.35, bare ten -0.6, -0.1 per card of a suit without its ace) and
    ``grand_forehand`` for seat 0; ``grand_offset`` is subtracted (grand is harder)."""
    return _grand_strength(h, seat, params)


@njit(cache=True, _nrt=False)
def null_bad(h):
    """Cards of ``h`` that break the safe-suit rule of null, summed over the suits.

    A suit is safe when its i-th lowest card (null order 7 8 9 10 J Q K A, 0-based i) is at
    most the (2i)-th rank: the declarer can then always duck. ``null_bad`` counts, per
    suit, the cards from the first violation upwards (what a discard would have to remove).
    """
    return (_NULL_BAD[h & 0xFF] + _NULL_BAD[(h >> 8) & 0xFF] + _NULL_BAD[(h >> 16) & 0xFF]
            + _NULL_BAD[(h >> 24) & 0xFF])


# logistic function tabulated on [-8, 8) in steps of 1/64 (error < 0.004; no exp() per call)
_LOGISTIC = _ro(1.0 / (1.0 + np.exp(-((np.arange(1024) + 0.5) / 64.0 - 8.0))))


@njit(cache=True, inline='always')
def _logistic(x):
    """``1 / (1 + exp(-x))`` from the table (clamped to the ends outside [-8, 8))."""
    i = int((x + 8.0) * 64.0) if x > -8.0 else 0
    return _LOGISTIC[min(i, 1023)]


@njit(cache=True, inline='always')
def _strengths(h, seat, params):
    """:func:`suit_strength` for the four suits and :func:`grand_strength`, sharing the
    per-suit lookups: ``(S_D, S_H, S_S, S_C, S_G)``."""
    j = _jacks4(h)
    nj = popcount(j)
    b0 = h & 0x7F
    b1 = (h >> 8) & 0x7F
    b2 = (h >> 16) & 0x7F
    b3 = (h >> 24) & 0x7F
    sv = _SV_SUIT[b0] + _SV_SUIT[b1] + _SV_SUIT[b2] + _SV_SUIT[b3]
    vd = _VOIDISH[b0] + _VOIDISH[b1] + _VOIDISH[b2] + _VOIDISH[b3]
    c = _JV_SUIT[j] + (params[P_FH] if seat == 0 else 0.0)
    tl = params[P_TLEN]
    vb = params[P_VOID]
    out0 = 0.0
    out1 = 0.0
    out2 = 0.0
    out3 = 0.0
    for t in range(4):
        b = b0 if t == 0 else (b1 if t == 1 else (b2 if t == 2 else b3))
        nt = nj + popcount(b)
        x = (c + _TV_SUIT[b] + sv - _SV_SUIT[b] + (vb if nt >= 5 else 0.4 * vb) * (vd - _VOIDISH[b])
             + tl * max(nt - 4, 0) - 0.8 * max(4 - nt, 0))
        if t == 0:
            out0 = x
        elif t == 1:
            out1 = x
        elif t == 2:
            out2 = x
        else:
            out3 = x
    sg = (_JV_GRAND[j] - params[P_GRAND] + _SV_GRAND[b0] + _SV_GRAND[b1] + _SV_GRAND[b2] + _SV_GRAND[b3]
          + (params[P_GFH] if seat == 0 else 0.0))
    return out0, out1, out2, out3, sg


@njit(cache=True, inline='always')
def _game_chance(h, g, seat, params, extra, pickup):
    """The body of :func:`game_chance`, inlined into this module's callers."""
    if g == GRAND:
        s = _grand_strength(h, seat, params)
    else:
        s = _suit_strength(h, g, seat, params)
    if pickup:
        return _logistic((s + extra + params[P_GAIN] - params[P_T]) / params[P_PSCALE])
    return _logistic((s + extra - params[P_T]) / params[P_SCALE])


@njit(cache=True, _nrt=False)
def game_chance(h, g, seat, params, extra, pickup):
    """Winning chance of ten cards ``h`` in game ``g`` (0..4) with ``extra`` strength
    points (pushed skat points). ``pickup``: before the pickup (bidding, skat decision),
    with ``pickup_gain`` and the wider ``pickup_scale``; else the cards are the final ones."""
    return _game_chance(h, g, seat, params, extra, pickup)


@njit(cache=True, inline='always')
def _ev(p, game, flags, matadors, bid):
    """Expected Seeger-Fabian score of declaring ``(game, flags)`` with ``matadors`` at
    ``bid``, won with chance ``p`` (:mod:`skatsim.valuation`: value and overbid charge)."""
    return expected_sf_at_bid(p, game_value(game, flags, matadors), game, flags, bid)


@njit(cache=True, inline='always')
def _null_chance(bad, hand, ouvert, params):
    """Chance of a null game from the unsafe-card count ``bad`` of ten known cards
    (a hand game, or the cards kept after the discard); ``hand`` picks the factor."""
    p = (params[P_NULLHAND] if hand else params[P_NULLPICK]) * _NULL_P_HAND[min(bad, 12)]
    if ouvert:
        p = p * 0.85 if bad == 0 else p * 0.4
    return p


@njit(cache=True, inline='always')
def _null_pick_chance(bad, ouvert, params):
    """Chance of a pickup null bid on ten dealt cards with ``bad`` unsafe cards (two of
    them can go into the skat, the skat may bring new ones)."""
    p = params[P_NULLPICK] * _NULL_P_PICK[min(bad + (1 if ouvert else 0), 12)]
    return p * 0.85 if ouvert else p


@njit(cache=True, inline='always')
def _hand_threshold(params):
    """The chance a hand game needs in :func:`bid_limit`: ``bid_threshold``, at least
    ``hand_min_p``."""
    return max(params[P_THR], params[P_HANDP])


@njit(cache=True, inline='always')
def _chance_ok(x, params, thr, hand):
    """:func:`bid_limit`'s chance test at the strength margin ``x`` (strength minus
    ``suit_T``): the chance after a pickup (``hand`` False: with ``pickup_gain``, at
    ``pickup_scale``) or of a hand game is at least ``thr``."""
    if hand:
        return _logistic(x / params[P_SCALE]) >= thr
    return _logistic((x + params[P_GAIN]) / params[P_PSCALE]) >= thr


@njit(cache=True, inline='always')
def _bid_limit(h, seat, params, xp, xh, cut):
    """The body of :func:`bid_limit` (``cut`` False) and :func:`bid_limit_cut` (``cut``
    True: the chance tests as ``x >= xp`` / ``x >= xh``, see :func:`bid_cutoffs`); ``cut`` is
    a constant at each call site."""
    thr = params[P_THR]
    hthr = _hand_threshold(params)
    nohand = params[P_NOHAND] != 0.0
    nogrand = params[P_NOGRAND] != 0.0
    st = _strengths(h, seat, params)
    best = 0
    for g in range(5):  # without jumps: the chance tests depend on random cards
        x = st[g] - params[P_T]
        if cut:
            okp = x >= xp
            okh = (x >= xh) & (not nohand)
        else:
            okp = _chance_ok(x, params, thr, False)
            okh = _chance_ok(x, params, hthr, True) & (not nohand)
        v = game_value(g, branchless(okh, HAND_GAME, 0), _mat(h, g))
        best = max(best, branchless((okp | okh) & (not (g == GRAND and nogrand)), v, 0))
    if params[P_NONULL] == 0.0:
        bad = null_bad(h)
        if _null_pick_chance(bad, False, params) >= thr:
            best = max(best, null_value(0))
        if _null_pick_chance(bad, True, params) >= thr:
            best = max(best, null_value(OUVERT))
        if not nohand:
            if _null_chance(bad, True, False, params) >= hthr:
                best = max(best, null_value(HAND_GAME))
            if _null_chance(bad, True, True, params) >= hthr:
                best = max(best, null_value(HAND_GAME | OUVERT))
    return min(best, int(min(params[P_MAXBID], _TOP_BID)))


@njit(cache=True, _nrt=False)
def bid_limit(h, seat, params):
    """Highest game value the seat bids or holds with its ten cards ``h``.

    Every contract is considered: the four suits and grand after a pickup (chance with
    ``pickup_gain``) and as hand games (one more multiplier, chance >= ``hand_min_p``),
    null, null hand, null ouvert and null ouvert hand; the value uses the matadors of the
    ten cards. The limit is the highest value with chance >= ``bid_threshold``, capped at
    ``max_bid`` (``inf``: no cap). 0 means pass.
    """
    return _bid_limit(h, seat, params, 0.0, 0.0, False)


@njit(cache=True, _nrt=False)
def bid_limit_cut(h, seat, params, xp, xh):
    """:func:`bid_limit` with its chance tests as two comparisons of the strength margin,
    ``x >= xp`` (pickup) and ``x >= xh`` (hand), for the cutoffs ``(xp, xh)`` that
    :func:`bid_cutoffs` found for ``params``: no division or table lookup per game (the
    bidding of batch simulation)."""
    return _bid_limit(h, seat, params, xp, xh, True)


# bid_cutoffs answers for parameter rows within these bounds; a strength margin then stays
# far inside +-_X_MAX, where the chance tests are well defined (no overflow in the logistic's
# table index) and non-decreasing
_CUT_PARAM_MAX = 1e6
_CUT_SCALE_MIN = 1e-3
_X_MAX = 1e12
_SIGN = -(1 << 63)


@njit(cache=True, inline='always')
def _key_double(k, ibuf, fbuf):
    """The double whose order key is ``k`` (the int64 that sorts like the double; ``ibuf``/
    ``fbuf``: one int64 viewed as a float64)."""
    ibuf[0] = k if k >= 0 else (-k) | _SIGN
    return fbuf[0]


@njit(cache=True, inline='always')
def _double_key(x, ibuf, fbuf):
    """The order key of the double ``x`` (the inverse of :func:`_key_double`)."""
    fbuf[0] = x
    k = ibuf[0]
    return k if k >= 0 else -(k & ~_SIGN)


@njit(cache=True)
def _chance_cutoff(params, thr, hand):
    """The smallest double ``x`` in ``[-_X_MAX, _X_MAX]`` with ``_chance_ok(x, params, thr,
    hand)`` (-inf: all of them; nan: none): a bisection on the order keys of doubles."""
    ibuf = np.zeros(1, dtype=np.int64)
    fbuf = ibuf.view(np.float64)
    lo = _double_key(-_X_MAX, ibuf, fbuf)
    hi = _double_key(_X_MAX, ibuf, fbuf)
    if _chance_ok(-_X_MAX, params, thr, hand):
        return -np.inf
    if not _chance_ok(_X_MAX, params, thr, hand):
        return np.nan
    while lo < hi - 1:  # the test is false at lo and true at hi (hi - lo would overflow)
        mid = (lo & hi) + ((lo ^ hi) >> 1)  # floor((lo + hi) / 2) without overflow
        if _chance_ok(_key_double(mid, ibuf, fbuf), params, thr, hand):
            hi = mid
        else:
            lo = mid
    return _key_double(hi, ibuf, fbuf)


@njit(cache=True)
def bid_cutoffs(params):
    """``(xp, xh, ok)`` for :func:`bid_limit_cut`: the smallest strength margins ``x`` at which
    :func:`bid_limit`'s pickup and hand chance tests pass (``-inf``: always, ``nan``: never).

    Each test is a non-decreasing function of ``x`` when ``pickup_scale`` and ``scale`` are
    positive (rounding, division by a positive number and the tabulated logistic keep the
    order), so it is exactly ``x >= cutoff``. ``ok`` is False for a row outside the bounds
    that guarantee this (a scale below 0.001, a parameter beyond 1e6 in size, ``max_bid``
    aside); :func:`bid_limit` serves such rows.
    """
    ok = params[P_PSCALE] >= _CUT_SCALE_MIN and params[P_SCALE] >= _CUT_SCALE_MIN
    for i in range(_N_PARAMS):
        if i != P_MAXBID and not abs(params[i]) <= _CUT_PARAM_MAX:
            ok = False
    if not ok:
        return np.nan, np.nan, False
    thr = params[P_THR]
    hthr = _hand_threshold(params)
    return _chance_cutoff(params, thr, False), _chance_cutoff(params, hthr, True), True


# ----------------------------------------------------------------------------- small helpers
@njit(cache=True, inline='always')
def _min_of(mask, table, off):
    """Card of ``mask`` with the smallest ``table[off + c]`` (lowest id on ties); -1 if empty."""
    best = -1
    bv = 1 << 40
    m = mask
    while m:
        c = lsb(m)
        m &= m - 1
        v = table[off + c]
        if v < bv:
            bv = v
            best = c
    return best


@njit(cache=True, inline='always')
def _max_of(mask, table, off):
    """Card of ``mask`` with the largest ``table[off + c]`` (highest id on ties); -1 if empty."""
    best = -1
    bv = -(1 << 40)
    m = mask
    while m:
        c = lsb(m)
        m &= m - 1
        v = table[off + c]
        if v >= bv:
            bv = v
            best = c
    return best


@njit(cache=True, inline='always')
def _poss(view, q, out, dh):
    """Cards seat ``q`` may hold: exact for a visible (ouvert) declarer hand, else the
    outstanding cards minus the suits ``q`` showed void in."""
    if dh != 0 and q == view[G.F_DECLARER]:
        return dh
    return out & ~view[G.F_VOID0 + q]


@njit(cache=True, inline='always')
def _can_beat(x, led, g, poss, void_q):
    """Might a later player with possible cards ``poss`` and shown voids ``void_q`` beat
    ``x`` (the card that would then be winning the trick led with ``led``)?"""
    tm = _TRUMP[g]
    fol = _FOL[g * 32 + led]
    ab = _ABOVE[g * 32 + x] & poss
    if (tm >> x) & 1:
        if (tm >> led) & 1:
            return ab != 0
        return (void_q & fol) != 0 and ab != 0
    if ab != 0:
        return True
    return (void_q & fol) != 0 and (poss & tm) != 0


@njit(cache=True, inline='always')
def _choose_win(S, g):
    """Card to win a trick with from the winning cards ``S``: in the led suit the card of
    most points but keeping the highest (the master stays in hand) when there is a choice;
    otherwise the lowest trump."""
    tm = _TRUMP[g]
    plain = S & ~tm
    if plain:
        if popcount(plain) >= 2:
            plain &= ~(1 << _max_of(plain, _STR, g * 32))
        return _max_of(plain, _PTS, 0)
    return _min_of(S, _STR, g * 32)


@njit(cache=True, inline='always')
def _dump(hand, legal, g):
    """Cheapest card to throw away: low points and rank, trumps last, short suits first."""
    best = -1
    bv = 1 << 40
    m = legal
    tm = _TRUMP[g]
    while m:
        c = lsb(m)
        m &= m - 1
        v = _DUMP[g * 32 + c] * 4
        if not (tm >> c) & 1:
            v += popcount(hand & _FOL[g * 32 + c]) * 3
        if v < bv:
            bv = v
            best = c
    return best


# ----------------------------------------------------------------------------- card play
@njit(cache=True, inline='always')
def _suit_lead(view, me, g, d, hand, out, dh):
    """Lead in a suit or grand game (declarer or defender)."""
    tm = _TRUMP[g]
    T = hand & tm
    side = hand & ~tm
    off = g * 32
    if me == d:
        opT = out & tm
        if T != 0 and opT != 0:
            top = _max_of(T, _STR, off)
            if (_ABOVE[off + top] & out) == 0:
                return top  # draw trumps with a master
        # cash side masters that cannot be ruffed
        masters = 0
        m = side
        while m:
            c = lsb(m)
            m &= m - 1
            if (_ABOVE[off + c] & out) == 0:
                fol = _FOL[off + c]
                ok = True
                if opT != 0:
                    if (out & fol) == 0:
                        ok = False
                    for q in range(3):
                        if q != me and (view[G.F_VOID0 + q] & fol) != 0 and (_poss(view, q, out, dh) & tm) != 0:
                            ok = False
                if ok:
                    masters |= 1 << c
        if masters:
            return _max_of(masters, _PTS, 0)
        if T != 0 and opT != 0 and popcount(T) > popcount(opT):
            return _min_of(T, _DUMP, off)
        if side:
            return _dump(hand, side, g)
        return _max_of(T, _STR, off)
    # defender
    p = 3 - me - d
    kurz = ((me + 1) % 3) == d
    poss_d = _poss(view, d, out, dh)
    poss_p = _poss(view, p, out, dh) & ~dh
    dT = poss_d & tm
    best_sc = -(1 << 40)
    best_c = -1
    for u in range(4):
        sm = _SUITM[u] & ~tm
        mine = hand & sm
        if sm == 0 or mine == 0:
            continue
        top = msb(mine)
        low = lsb(mine)
        dvoid = (poss_d & sm) == 0
        pvoid = (view[G.F_VOID0 + p] & sm) != 0
        ncnt = popcount(mine)
        if (_ABOVE[off + top] & out) == 0 and (not dvoid or dT == 0):
            sc = 100 + _PTS[top]
            card = top
        elif pvoid and not dvoid and (poss_p & tm) != 0:
            sc = 80 - _PTS[low]
            card = low
        elif dvoid and dT != 0:
            sc = -20 - _PTS[low]
            card = low
        else:
            sc = 10 * ncnt if kurz else 10 * (8 - ncnt)
            card = low
            ten = (mine >> (8 * u + 5)) & 1
            ace_out = (out >> (8 * u + 6)) & 1
            if ten and ace_out:
                sc -= 25
                if card == 8 * u + 5:
                    sc -= 30
            sc -= _PTS[card]
        if sc > best_sc:
            best_sc = sc
            best_c = card
    if best_c >= 0:
        return best_c
    top = _max_of(T, _STR, off)
    if (_ABOVE[off + top] & out) == 0:
        return top
    return _min_of(T, _DUMP, off)


@njit(cache=True, inline='always')
def _suit_follow(view, me, g, d, hand, legal, out, dh, n, params):
    """Second or third card in a suit or grand game. A defender smears (points on the
    partner's trick) when last, or second when the declarer cannot beat the partner's card
    as far as the seat knows and at least ``smear_min_out`` cards of the led suit are out
    (the declarer is then unlikely to ruff)."""
    tm = _TRUMP[g]
    off = g * 32
    c0 = view[G.F_TRICK0]
    led = c0
    best = c0
    wpos = 0
    pts = _PTS[c0]
    if n == 2:
        c1 = view[G.F_TRICK1]
        pts += _PTS[c1]
        s1 = _STR[off + c1]
        if s1 > _STR[off + best] and (s1 >= 16 or (c1 >> 3) == (best >> 3)):
            best = c1
            wpos = 1
    leader = view[G.F_LEADER]
    wseat = (leader + wpos) % 3
    friend = (me == d) == (wseat == d)
    last = n == 2
    nxt = (me + 1) % 3
    poss_n = _poss(view, nxt, out, dh)
    void_n = view[G.F_VOID0 + nxt]
    if (tm >> best) & 1:
        B = legal & _ABOVE[off + best]
    else:
        B = legal & (_ABOVE[off + best] | tm)
    if friend:
        if last or (not _can_beat(best, led, g, poss_n, void_n)
                    and (popcount(poss_n & _FOL[off + led]) >= params[P_SMEAR] or (poss_n & tm) == 0)):
            return _max_of(legal, _SMEAR, off)
        sure = 0
        m = B
        while m:
            x = lsb(m)
            m &= m - 1
            if not _can_beat(x, led, g, poss_n, void_n):
                sure |= 1 << x
        if sure:
            return _choose_win(sure, g)
        return _dump(hand, legal, g)
    if B:
        if last:
            return _choose_win(B, g)
        nxt_friend = (nxt == d) == (me == d)
        if nxt_friend:
            return _choose_win(B, g)
        sure = 0
        m = B
        while m:
            x = lsb(m)
            m &= m - 1
            if not _can_beat(x, led, g, poss_n, void_n):
                sure |= 1 << x
        if sure:
            return _choose_win(sure, g)
        if pts >= 10 and (B & tm) != 0:
            return _max_of(B & tm, _STR, off)
    return _dump(hand, legal, g)


@njit(cache=True, _nrt=False)
def _null_lead(view, me, d, hand, out, dh):
    """Lead in null: the declarer leads the card fewest outstanding cards can duck under;
    a defender leads low where the declarer (not void) must take or is likely to."""
    off = NULL * 32
    best = -1
    bv = 1 << 40
    m = hand
    if me == d:
        while m:
            c = lsb(m)
            m &= m - 1
            fol = _FOL[off + c]
            if (out & fol) == 0:
                v = 1000 + _STR[off + c]
            else:
                v = popcount(out & _BELOW[off + c]) * 16 - popcount(out & _ABOVE[off + c])
            if v < bv:
                bv = v
                best = c
        return best
    poss_d = _poss(view, d, out, dh)
    while m:
        c = lsb(m)
        m &= m - 1
        fol = _FOL[off + c]
        dsuit = poss_d & fol
        if dsuit == 0:
            v = 500 + _STR[off + c]
        elif dh != 0:
            # the declarer must play above c unless he holds a lower card of the suit
            v = popcount(dsuit & _BELOW[off + c]) * 40 + _STR[off + c]
        else:
            v = popcount(out & _BELOW[off + c]) * 16 + _STR[off + c]
        if v < bv:
            bv = v
            best = c
    return best


@njit(cache=True, _nrt=False)
def _null_follow(view, me, d, hand, legal, out, n):
    """Follow in null: the declarer ducks with his highest card under the best, a defender
    ducks under a winning declarer card and otherwise dumps high cards."""
    off = NULL * 32
    led = view[G.F_TRICK0]
    leader = view[G.F_LEADER]
    best = led
    bseat = leader
    if n == 2:
        c1 = view[G.F_TRICK1]
        if (c1 >> 3) == (led >> 3) and _STR[off + c1] > _STR[off + best]:
            best = c1
            bseat = (leader + 1) % 3
    fol = legal & _FOL[off + led]
    if me == d:
        if fol:
            under = fol & _BELOW[off + best]
            if under:
                return _max_of(under, _STR, off)
            if n == 2:
                return _max_of(fol, _STR, off)
            return _min_of(fol, _STR, off)
        # discard the most dangerous card: most outstanding cards below it
        bestc = -1
        bv = -(1 << 40)
        m = legal
        while m:
            c = lsb(m)
            m &= m - 1
            v = popcount(out & _BELOW[off + c]) * 16 + _STR[off + c]
            if v > bv:
                bv = v
                bestc = c
        return bestc
    declarer_played = leader == d or (n == 2 and (leader + 1) % 3 == d)
    if declarer_played and bseat == d:
        if fol:
            under = fol & _BELOW[off + best]
            if under:
                return _max_of(under, _STR, off)
            return _max_of(fol, _STR, off)
        return _max_of(legal, _STR, off)
    if declarer_played:
        return _max_of(legal, _STR, off)
    # declarer still to play: keep the trick low
    if fol:
        return _min_of(fol, _STR, off)
    return _max_of(legal, _STR, off)


@njit(cache=True, _nrt=False)
def _ramsch_play(view, me, hand, legal, out, n):
    """Ramsch (jacks trumps, everyone alone): lead cards that can hardly win, duck with the
    highest card that loses while dumping points, take unavoidable tricks cheaply."""
    g = RAMSCH
    off = g * 32
    tm = _TRUMP[g]
    if n == 0:
        best = -1
        bv = 1 << 40
        m = legal
        while m:
            c = lsb(m)
            m &= m - 1
            fol = _FOL[off + c]
            if (out & fol) == 0:
                v = 1000 + _PTS[c]
            else:
                v = popcount(out & _BELOW[off + c]) * 16 + _PTS[c] + (20 if (tm >> c) & 1 else 0)
            if v < bv:
                bv = v
                best = c
        return best
    c0 = view[G.F_TRICK0]
    best = c0
    if n == 2:
        c1 = view[G.F_TRICK1]
        s1 = _STR[off + c1]
        if s1 > _STR[off + best] and (s1 >= 16 or (c1 >> 3) == (best >> 3)):
            best = c1
    if (tm >> best) & 1:
        B = legal & _ABOVE[off + best]
    else:
        B = legal & (_ABOVE[off + best] | tm)
    lose = legal & ~B
    if lose:
        bestc = -1
        bv = -(1 << 40)
        m = lose
        while m:
            c = lsb(m)
            m &= m - 1
            v = _PTS[c] * 4 + _STR[off + c] + (30 if (tm >> c) & 1 else 0)
            if v > bv:
                bv = v
                bestc = c
        return bestc
    if n == 2:
        bestc = -1
        bv = 1 << 40
        m = B
        while m:
            c = lsb(m)
            m &= m - 1
            v = _PTS[c] * 4 - _STR[off + c]
            if v < bv:
                bv = v
                bestc = c
        return bestc
    return _min_of(B, _STR, off)


@njit(cache=True, inline='always')
def _legal_cards(view, me):
    """The mover's legal cards in phase PH_PLAY: :func:`skatsim.rules.legal_mask` on the
    view, as ``game.legal_set`` computes them."""
    hand = view[G.F_HAND0 + me]
    if view[G.F_NCARDS] == 0:
        return hand
    return legal_mask(hand, assume_below(view[G.F_TRICK0], 32), assume_below(view[G.F_GAME], 7))


@njit(cache=True, _nrt=False)
def card_decision(view, me, params):
    """The card to play (phase PH_PLAY) for every contract and seat role."""
    return _card_decision(view, me, params, _legal_cards(view, me))


@njit(cache=True, inline='always')
def _card_decision(view, me, params, legal):
    """:func:`card_decision` given the mover's ``legal`` cards (:func:`_legal_cards`; inlined
    into its callers: one call less per card)."""
    g = view[G.F_GAME]
    d = view[G.F_DECLARER]
    hand = view[G.F_HAND0 + me]
    n = view[G.F_NCARDS]
    if legal & (legal - 1) == 0:
        return lsb(legal)
    known = hand | view[G.F_PLAYED0] | view[G.F_PLAYED1] | view[G.F_PLAYED2] | view[G.F_SKAT]
    dh = 0
    if d >= 0 and d != me:
        dh = view[G.F_HAND0 + d]  # non-zero only for an open (ouvert) declarer
        known |= dh
    out = _ALL & ~known
    if g == RAMSCH:
        return _ramsch_play(view, me, hand, legal, out, n)
    if g == NULL:
        if n == 0:
            return _null_lead(view, me, d, hand, out, dh)
        return _null_follow(view, me, d, hand, legal, out, n)
    if n == 0:
        return _suit_lead(view, me, g, d, hand, out, dh)
    return _suit_follow(view, me, g, d, hand, legal, out, dh, n, params)


# ----------------------------------------------------------------------------- bidding, skat
@njit(cache=True, _nrt=False)
def bid_decision(view, me, params):
    """Bid the next ladder value while it is within :func:`bid_limit`, hold while the named
    bid is within it (the responder), forehand alone plays at 18 when it can; else pass."""
    return _bid_from_limit(view, me, bid_limit(view[G.F_HAND0 + me], me, params))


@njit(cache=True, inline='always')
def _bid_from_limit(view, me, limit):
    """:func:`bid_decision` given the seat's :func:`bid_limit` (reads public fields only)."""
    if view[G.F_BID_STAGE] == 2:
        return BID_BASE if limit >= _MIN_BID else PASS
    if me == view[G.F_RESPONDER]:
        return HOLD if view[G.F_BID] <= limit else PASS
    j = view[G.F_BID_IDX] + 1
    if j < _N_BIDS and G.BID_ARRAY[j] <= limit:
        return BID_BASE + j
    return PASS


@njit(cache=True, _nrt=False)
def _best_plain(h, seat, params, bid):
    """Best suit/grand game of the ten cards ``h`` at ``bid``, after a pickup and as a hand
    game (one more level), in one pass over the five games (strengths and matadors shared):
    ``(expected score after a pickup, expected score and chance of the best hand game)``."""
    best_pick = -1e18
    best_hand = -1e18
    best_p = 0.0
    st = _strengths(h, seat, params)
    for g in range(5):
        if g == GRAND and params[P_NOGRAND] != 0.0:
            continue
        m = _mat(h, g)
        ev = _ev(_logistic((st[g] + params[P_GAIN] - params[P_T]) / params[P_PSCALE]), g, 0, m, bid)
        if ev > best_pick:
            best_pick = ev
        p = _logistic((st[g] + 0.0 - params[P_T]) / params[P_SCALE])
        ev = _ev(p, g, HAND_GAME, m, bid)
        if ev > best_hand:
            best_hand = ev
            best_p = p
    return best_pick, best_hand, best_p


@njit(cache=True, _nrt=False)
def skat_decision(view, me, params):
    """Pickup or hand: hand only if the best hand game (suit, grand or null hand) has a
    chance >= ``hand_min_p`` and a higher expected score than the best pickup game."""
    h = view[G.F_HAND0 + me]
    if params[P_NOHAND] != 0.0:
        return PICKUP
    bid = view[G.F_BID]
    ev_pick, ev_hand, p_hand = _best_plain(h, me, params, bid)
    if params[P_NONULL] == 0.0:
        bad = null_bad(h)
        p_np = _null_pick_chance(bad, False, params)
        if bid <= null_value(0):
            ev_pick = max(ev_pick, _ev(p_np, NULL, 0, 0, bid))
        p_nh = _null_chance(bad, True, False, params)
        if bid <= null_value(HAND_GAME) and p_nh >= params[P_HANDP]:
            ev = _ev(p_nh, NULL, HAND_GAME, 0, bid)
            if ev > ev_hand:
                ev_hand = ev
                p_hand = p_nh
    if p_hand >= params[P_HANDP] and ev_hand > ev_pick:
        return HAND
    return PICKUP


@njit(cache=True, inline='always')
def _greedy_discard(h, g, params):
    """The body of :func:`greedy_discard`, inlined into this module's callers."""
    if g == NULL:  # the best card of each suit from the table, the lowest card on ties
        best = -1
        bv = -1e18
        for u in range(4):
            b = (h >> (8 * u)) & 0xFF
            if b != 0 and _NULL_DROP_VAL[b] > bv:
                bv = _NULL_DROP_VAL[b]
                best = 8 * u + _NULL_DROP_RANK[b]
        return best
    tm = _TRUMP[g]
    cand = h & ~tm
    if cand == 0:
        return _min_of(h, _DUMP, g * 32)
    nt = popcount(h & tm)
    vb = params[P_VOID] if nt >= 5 else 0.4 * params[P_VOID]
    wp = params[P_SKATPTS]
    best = -1
    bv = -1e18
    m = cand
    while m:
        c = lsb(m)
        m &= m - 1
        i = (((h >> (c & 0x18)) & 0x7F) << 3) | (c & 7)  # 8 * (the card's suit byte) + its rank
        if g == GRAND:
            v = _DROP_SV_GRAND[i]
        else:
            v = _DROP_SV_SUIT[i] + vb * _DROP_VOIDISH[i]
        v += wp * _PTS[c]
        if v > bv:
            bv = v
            best = c
    return best


@njit(cache=True, _nrt=False)
def greedy_discard(h, g, params):
    """The card a declarer planning game ``g`` discards next from ``h``.

    Suit / grand: never a trump (unless only trumps are left): the side card whose removal
    improves the side-suit value most (voids, bare tens) plus ``skat_points`` per point
    saved. Null: the card whose removal cuts the unsafe count most, the highest on ties.
    """
    return _greedy_discard(h, g, params)


@njit(cache=True, _nrt=False)
def _plan_after_pickup(view, me, params, k):
    """For each game: discard ``k`` cards greedily, then score the ten cards. Returns
    ``(game, first discard, expected score)`` of the best plan; null as null or null ouvert."""
    h = view[G.F_HAND0 + me]
    bid = view[G.F_BID]
    all12 = h | view[G.F_SKAT]
    # plan only the two strongest trump games on the 11-12 cards (and null if plausible)
    st = _strengths(h, me, params)
    s1 = -1e18
    s2 = -1e18
    g1 = -1
    g2 = -1
    for g in range(5):
        if g == GRAND and params[P_NOGRAND] != 0.0:
            continue
        x = st[g]
        if x > s1:
            s2, g2 = s1, g1
            s1, g1 = x, g
        elif x > s2:
            s2, g2 = x, g
    best_g = -1
    best_c = -1
    best_ev = -1e18
    for g in range(6):
        if g < NULL and g != g1 and g != g2:
            continue
        if g == NULL and (params[P_NONULL] != 0.0 or bid > null_value(OUVERT) or null_bad(h) > k + 2):
            continue
        hh = h
        first = -1
        for _ in range(k):
            c = _greedy_discard(hh, g, params)
            if first < 0:
                first = c
            hh &= ~(1 << c)
        skat = all12 & ~hh
        if g == NULL:
            bad = null_bad(hh)
            ev = -1e18
            if bid <= null_value(0):
                ev = _ev(_null_chance(bad, False, False, params), NULL, 0, 0, bid)
            ev = max(ev, _ev(_null_chance(bad, False, True, params), NULL, OUVERT, 0, bid))
        else:
            p = _game_chance(hh, g, me, params, params[P_SKATPTS] * (
                card_points(skat & ~_JACKS)), False)
            ev = _ev(p, g, 0, _mat(all12, g), bid)
        if ev > best_ev:
            best_ev = ev
            best_g = g
            best_c = first
    return best_g, best_c, best_ev


@njit(cache=True, _nrt=False)
def discard_decision(view, me, params):
    """Discard (12 or 11 cards in hand): the first card of the best game's discard plan."""
    k = 2 if view[G.F_DISCARDS] == 0 else 1
    _, c, _ = _plan_after_pickup(view, me, params, k)
    return c


@njit(cache=True, _nrt=False)
def _sure_all(h, g, seat):
    """Does ``h`` take every trick for sure (schwarz / ouvert): forehand, trumps a top run
    at least as long as the trumps out, every side suit a run from its ace down?"""
    if seat != 0:
        return False
    j = _jacks4(h)
    if g == GRAND:
        if _JRUN[j] == 0:
            return False
        if popcount(j) < 4 - popcount(j):
            return False
        for u in range(4):
            if _TOPRUN[(h >> (8 * u)) & 0x7F] == 0:
                return False
        return True
    # suit game: trumps CJ SJ HJ DJ A 10 K Q 9 8 7 must be a top run
    seq = (j << 7) | ((h >> (8 * g)) & 0x7F)
    nt = popcount(seq)
    if nt == 0 or (seq >> 10) & 1 == 0:
        return False
    gaps = ~seq & 0x7FF
    if gaps != 0 and (seq & ((1 << (msb(gaps) + 1)) - 1)) != 0:
        return False  # not a run from the top
    if nt < 11 - nt:
        return False
    for u in range(4):
        if u != g and _TOPRUN[(h >> (8 * u)) & 0x7F] == 0:
            return False
    return True


@njit(cache=True, _nrt=False)
def declare_decision(view, me, params):
    """The declaration of highest expected score among the legal ones (bits of
    :func:`skatsim.kernels.game.declaration_bits`), after a pickup and in a hand game
    alike: per suit game and grand the plain game (after a pickup with the pushed skat
    points), in a hand game also schneider announced (chance above one half with
    ``schneider_margin`` more strength) and ouvert (every trick sure); then null and null
    ouvert when the bid allows them. Ties keep the lower declaration index."""
    h = view[G.F_HAND0 + me]
    bid = view[G.F_BID]
    _, lo, _ = G.legal_set(view)
    hand = view[G.F_PICKED] == 0
    hf = HAND_GAME if hand else 0
    skat = 0 if hand else view[G.F_SKAT]
    extra = 0.0 if hand else params[P_SKATPTS] * card_points(skat & ~_JACKS)
    all12 = h | skat
    best_a = -1
    best_ev = -1e18
    for g in range(5):
        if g == GRAND and params[P_NOGRAND] != 0.0:
            continue
        if g == GRAND:
            s = _grand_strength(h, me, params)
        else:
            s = _suit_strength(h, g, me, params)
        x = (s + extra - params[P_T]) / params[P_SCALE]
        m = _mat(all12, g)
        ev = _ev(_logistic(x), g, hf, m, bid)
        if ev > best_ev:
            best_ev = ev
            best_a = _DECL[g * 16 + hf]
        if not hand:
            continue
        ps = _logistic(x - params[P_SCHN] / params[P_SCALE])
        if ps > 0.5:
            f = HAND_GAME | SCHNEIDER_ANNOUNCED
            ev = _ev(ps, g, f, m, bid)
            if ev > best_ev:
                best_ev = ev
                best_a = _DECL[g * 16 + f]
        if params[P_OUVERT] != 0.0 and _sure_all(h, g, me):
            f = HAND_GAME | SCHNEIDER_ANNOUNCED | SCHWARZ_ANNOUNCED | OUVERT
            ev = _ev(0.97, g, f, m, bid)
            if ev > best_ev:
                best_ev = ev
                best_a = _DECL[g * 16 + f]
    if params[P_NONULL] == 0.0:
        bad = null_bad(h)
        for ouvert in (False, True):
            f = hf | (OUVERT if ouvert else 0)
            i = _DECL[NULL * 16 + f]
            if (lo >> i) & 1:
                ev = _ev(_null_chance(bad, hand, ouvert, params), NULL, f, 0, bid)
                if ev > best_ev:
                    best_ev = ev
                    best_a = i
    if best_a < 0:
        best_a = lsb(lo)
    return DECLARE_BASE + best_a


@njit(cache=True, _nrt=False)
def kontra_decision(view, me, params):
    """Kontra: a defender whose count (trumps + jacks + side aces + side tens with their ace
    / 2) reaches ``kontra_threshold`` (never against null). Re: the declarer whose own
    chance is at least ``re_threshold``."""
    g = view[G.F_GAME]
    d = view[G.F_DECLARER]
    h = view[G.F_HAND0 + me]
    if me == d:
        if g == NULL:
            return PASS
        if game_chance(h, g, me, params, 0.0, False) >= params[P_RE]:
            return RE
        return PASS
    if g == NULL:
        return PASS
    tm = _TRUMP[g]
    side = h & ~tm
    aces = side & ACES
    tens = side & TENS & (aces >> 1)
    cnt = popcount(h & tm) + popcount(h & _JACKS) + popcount(aces) + 0.5 * popcount(tens)
    if cnt >= params[P_KONTRA]:
        return KONTRA
    return PASS


# ----------------------------------------------------------------------------- entry point
@njit(cache=True, inline='always')
def _in_or_lowest(a, base, lo, hi):
    """``a`` if it is in the action set ``(base, lo, hi)`` (``game.legal_set``'s form:
    actions ``base + i`` for the bits ``i`` of ``lo`` and ``32 + i`` of ``hi``), else the
    set's lowest action: every built-in decision is checked by this one rule."""
    i = a - base
    ok = False
    if 0 <= i < 32:
        ok = ((lo >> i) & 1) == 1
    elif 32 <= i < 64:
        ok = ((hi >> (i - 32)) & 1) == 1
    if ok:
        return a
    if lo != 0:
        return base + lsb(lo)
    return base + 32 + lsb(hi)


@njit(cache=True, inline='always')
def _checked_card(a, legal):
    """``a`` if it is one of the ``legal`` cards (phase PH_PLAY), else the lowest legal card."""
    return _in_or_lowest(a, 0, legal, 0)


@njit(cache=True, _nrt=False)
def _card_in_place(st, seat, params, legal):
    """:func:`rule_based_policy`'s card for ``seat`` decided on ``st`` masked in place
    (:func:`skatsim.kernels.game.mask_in_place`: the seat's view), restored after.
    ``params``: the three seats' rows; the seat's row is taken here, compiled without
    reference counting (a row taken in the deal loop costs two atomic updates per card)."""
    saved = G.mask_in_place(st, seat)
    a = _card_decision(st, seat, params[seat], legal)
    G.unmask(st, saved)
    return _checked_card(a, legal)


@njit(cache=True, _nrt=False)
def _seat_limit(st, seat, params, cuts):
    """:func:`bid_limit` of ``seat``'s cards in ``st`` with its row of the three seats'
    ``params`` (taken here, without reference counting, as in :func:`_card_in_place`): by
    :func:`bid_limit_cut` with the seat's row of ``cuts`` (:func:`seat_cutoffs`) where its
    ``ok`` column allows."""
    h = st[G.F_HAND0 + seat]
    if cuts[seat, 2] != 0.0:
        return bid_limit_cut(h, seat, params[seat], cuts[seat, 0], cuts[seat, 1])
    return bid_limit(h, seat, params[seat])


@njit(cache=True)
def seat_cutoffs(params):
    """The three seats' :func:`bid_cutoffs` as a float64 ``(3, 3)`` array (``xp, xh, ok``;
    ``params``: the three seats' rows), computed once per run chunk for :func:`on_state`."""
    cuts = np.zeros((3, 3), dtype=np.float64)
    for s in range(3):
        xp, xh, ok = bid_cutoffs(params[s])
        cuts[s, 0] = xp
        cuts[s, 1] = xh
        cuts[s, 2] = 1.0 if ok else 0.0
    return cuts


@njit(cache=True, inline='always')
def decides_cards(params):
    """Does a rule-based seat with the parameter row ``params`` choose its cards with the
    heuristic (not ``random_cards``)? Then :func:`card_on_state` is its card."""
    return params[P_RANDOM] == 0.0


@njit(cache=True, inline='always')
def card_on_state(st, seat, params):
    """The rule-based card of ``seat`` (phase PH_PLAY, :func:`decides_cards`) taken on the
    true state ``st``: the only legal card, else the card decision on ``st`` masked in place
    for the call (the seat sees only its view). ``params``: the three seats' rows."""
    legal = _legal_cards(st, seat)
    if legal & (legal - 1) == 0:
        return lsb(legal)
    return _card_in_place(st, seat, params, legal)


@njit(cache=True, inline='always')
def on_state(st, seat, params, limits, cuts):
    """The rule-based action for ``seat`` taken on the true state ``st`` by batch simulation,
    else -1 (then call :func:`rule_based_policy` on the seat's view). The same action as the
    policy's, and its ``rng`` is untouched. ``params``: the three seats' parameter rows.

    - card play (not ``random_cards``): the mover's only legal card, else the card decision
      on ``st`` masked in place for the call (the seat sees only its view);
    - bidding (not ``random_bidding``): :func:`bid_decision` with the seat's
      :func:`bid_limit` kept in ``limits[seat]`` (int64 scratch, -1 at the start of a deal:
      the limit depends only on the seat's ten cards and ``params``; computed with the
      seats' :func:`seat_cutoffs` ``cuts``), which reads only the mover's hand and public
      fields.
    """
    ph = st[G.F_PHASE]
    if ph == G.PH_PLAY:
        if not decides_cards(params[seat]):
            return -1
        return card_on_state(st, seat, params)
    if ph == G.PH_BID and params[seat, P_RANDBID] == 0.0:
        if limits[seat] < 0:
            limits[seat] = _seat_limit(st, seat, params, cuts)
        return _legal_or_lowest(st, _bid_from_limit(st, seat, limits[seat]))
    return -1


@njit(cache=True, inline='always')
def _legal_or_lowest(view, a):
    """``a`` if it is in ``legal_set(view)``, else the lowest legal action."""
    base, lo, hi = G.legal_set(view)
    return _in_or_lowest(a, base, lo, hi)


@njit(cache=True, inline='always')
def rule_based_policy(view, seat, params, rng):
    """The rule-based player's action for ``seat`` on its masked ``view``: ``(action, rng)``.

    Dispatches by phase to the decision helpers; the result is checked against
    ``legal_set(view)`` and replaced by the lowest legal action should it ever be illegal.
    ``rng`` is only drawn from in the random variants (``random_cards``, ``random_bidding``).
    """
    ph = view[G.F_PHASE]
    if ph == G.PH_PLAY:
        if params[P_RANDOM] != 0.0:
            return G.random_action(view, rng)
        legal = _legal_cards(view, seat)  # once, for the decision and for the check
        return _checked_card(_card_decision(view, seat, params, legal), legal), rng
    elif ph != G.PH_KONTRA and params[P_RANDBID] != 0.0:
        return G.random_action(view, rng)
    elif ph == G.PH_BID:
        a = bid_decision(view, seat, params)
    elif ph == G.PH_SKAT:
        a = skat_decision(view, seat, params)
    elif ph == G.PH_DISCARD:
        a = discard_decision(view, seat, params)
    elif ph == G.PH_DECLARE:
        a = declare_decision(view, seat, params)
    else:
        a = kontra_decision(view, seat, params)
    return _legal_or_lowest(view, a), rng
