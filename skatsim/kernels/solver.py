"""Open-hand (double-dummy) search kernels: fail-soft alpha-beta over whole tricks.

Private kernels behind :mod:`skatsim.solver`. Everything runs on ints and two
preallocated ``int64`` arrays: ``W`` (configuration, per-contract tables, killer
moves, history scores and move lists) and ``T`` (the transposition table: pairs
``key, data``, a large part and a small cache-resident part for the last tricks).

**Rank space.** Inside the search a card is not its id but its *rank index* for
the contract: the effective suits (``rules.FOLLOW`` classes) lie in contiguous bit
ranges, each ordered by ``rules.STRENGTH``, and the trump class sits on top. Then
"follow suit" is one mask, "beats" is ``x > best and (x is a trump or x is in the
led suit)``, and cards of one player with no other live card between them are
neighbours in one bit range. :func:`rank_tables` *computes* this layout from the
rules tables (one rules truth); ``tests/test_solver.py`` checks it exhaustively
against ``rules.beats`` and ``rules.legal_mask``.

**Value.** ``V`` is what the declarer gains from the current trick on: card points
(``MODE_POINTS``), tricks (``MODE_TRICKS``, schwarz) or tricks *lost* (``MODE_NULL``).
The declarer maximises ``V``, the defenders minimise it. :func:`search` is a
fail-soft alpha-beta on ``V``: a result ``<= alpha`` is an upper bound, ``>= beta`` a
lower bound, in between exact; ``(need - 1, need)`` asks "``V >= need``?".
Transposition entries store bounds on ``V`` at trick boundaries, keyed on the
cards each seat still holds, the leader and the *context* (game, declarer, mode; see
the TT layout below). ``V`` counts only what is still to come, so an entry is valid in
every position with those holdings: one table serves every threshold, every pass of
:func:`exact`, every root move, every world of a PIMC decision and every later
position of the same contract, with no epoch to bump.

**Search.** One call handles one trick as three nested move loops (leader, second,
third hand) and recurses at the next trick. Moves: one per class of equivalent
cards (:func:`reps`); staged lists (TT move or answer killer first, the full list
only when it fails to cut); leads ordered by a history score, answers by simple
rules (cheapest winner, smear on partner's trick) after a killer indexed by the
led card (second hand) or the card now winning (third hand). Bounds: trumps above
every trump of the other side win one trick each, with at least the other side's
cheapest cards in them (:func:`search`); the last trick is scored directly.

**Budget.** ``W[W_LIMIT]``: once ``W[W_NODES]`` passes it every :func:`search` returns
at once and nothing more is stored in the table, so the values of that search are
garbage but the table stays sound; :func:`batch_root_values` uses it for a per-row
node budget (rows over it read -2).

**Where the time goes** (PIMC at trick 1, threshold 61): the median world needs a few
thousand nodes, but about 3% of worlds need over a million and hold ~70% of all nodes
(up to 60M for one world). Those are threshold searches whose value lies at or next
to the threshold: the declarer's moves cut at the first try (~99%), the table does
not thrash (hit rates do not change from 2^18 to 2^24 entries), but every defender
alternative must be refuted, so the proof tree itself is large (branching ~7 per
trick, most nodes 2..4 tricks from the end, ~2/3 of them positions not seen before).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import lsb, msb, popcount
from ..cards import CARD_POINTS_ARRAY
from ..rules import FOLLOW, STRENGTH, TRUMP_MASKS

# ----------------------------------------------------------------------------- rank space

N_SOLVER_GAMES = 6  # D H S C, grand, null (Ramsch has no declarer)
MODE_POINTS, MODE_TRICKS, MODE_NULL = 0, 1, 2


def rank_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-game rank layout derived from ``rules.FOLLOW`` / ``rules.STRENGTH``.

    Returns ``(to_rank[g, card], from_rank[g, r], seg_lo[g, r], seg_mask[g, r],
    trump_start[g])``: ``seg_mask`` is the rank mask of the effective suit of ``r``
    (the cards that follow it), ``seg_lo`` its lowest rank, and ranks
    ``>= trump_start`` are the trumps (32 in null).
    """
    to_rank = np.zeros((N_SOLVER_GAMES, 32), np.int64)
    from_rank = np.zeros((N_SOLVER_GAMES, 32), np.int64)
    seg_lo = np.zeros((N_SOLVER_GAMES, 32), np.int64)
    seg_mask = np.zeros((N_SOLVER_GAMES, 32), np.int64)
    trump_start = np.zeros(N_SOLVER_GAMES, np.int64)
    for g in range(N_SOLVER_GAMES):
        classes: dict[int, list[int]] = {}
        for c in range(32):
            f = int(FOLLOW[g * 32 + c])
            if not f >> c & 1:
                raise AssertionError(f"rules.FOLLOW: card {c} does not follow itself in game {g}")
            classes.setdefault(f, []).append(c)
        tm = int(TRUMP_MASKS[g])
        order = sorted(classes, key=lambda f: (f == tm and tm != 0, min(classes[f])))
        pos = 0
        for f in order:
            cards = sorted(classes[f], key=lambda c: int(STRENGTH[g * 32 + c]))
            if len({int(STRENGTH[g * 32 + c]) for c in cards}) != len(cards):
                raise AssertionError(f"rules.STRENGTH has ties inside a suit of game {g}")
            lo, m = pos, ((1 << len(cards)) - 1) << pos
            for c in cards:
                to_rank[g, c] = pos
                from_rank[g, pos] = c
                seg_lo[g, pos] = lo
                seg_mask[g, pos] = m
                pos += 1
        trump_start[g] = 32 - bin(tm).count("1")
    for a in (to_rank, from_rank, seg_lo, seg_mask, trump_start):
        a.setflags(write=False)
    return to_rank, from_rank, seg_lo, seg_mask, trump_start


TO_RANK, FROM_RANK, SEG_LO, SEG_MASK, TRUMP_START = rank_tables()
_CARD_POINTS = CARD_POINTS_ARRAY

# ----------------------------------------------------------------------------- W layout

W_NODES = 0      # node counter
W_DECL = 1       # declarer seat
W_TB = 2         # value of a trick itself (tricks modes: 1)
W_INV = 3        # 1: the declarer gains the tricks he loses (null)
W_TSTART = 4     # lowest trump rank (32: no trumps)
W_TRUMPS = 5     # rank mask of the trumps
W_CTX = 6        # context tag (game, declarer, mode) stored in TT entries
W_TTMASK = 7     # TT slots - 1
W_ROOTBEST = 8   # move that decided the last root search (-1: none)
W_TTMIN = 9      # use the TT only with at least this many tricks left
W_HIV = 10       # rank mask of high-value cards (A, 10)
W_LOV = 11       # rank mask of zero-value cards
W_PASSES = 12    # searches run by exact()
W_TTSPLIT = 13   # positions with fewer tricks left go to the small table
W_TTMASK2 = 14   # small-table slots - 1
W_TTBASE2 = 15   # offset of the small table in T
W_PM = 16        # rank masks of the cards worth 11, 10, 4, 3, 2 (5 entries)
W_ASPW = 22      # exact(): half-width of the search windows (0: null windows, pure MTD(f))
W_LIMIT = 23     # abort the search once W_NODES exceeds this (node budget of a batch row)
W_CV = 24        # value per rank (32)
W_SEGLO = 56     # seg_lo per rank (32)
W_SEGM = 88      # seg_mask per rank (32)
W_MV = 160       # move lists [ntr 0..10][level 0..2][16]
W_HIST = W_MV + 11 * 3 * 16  # history scores [seat][rank]
W_RKILL = W_HIST + 96  # answer killers: second hand [led card], third hand [best card]
W_SAMECV = W_RKILL + 96  # rank mask of the cards with the same value, per rank
W_SIZE = W_SAMECV + 32

ALL32 = 0xFFFF_FFFF
NO_LIMIT = 1 << 62  # W_LIMIT when there is no node budget
_NEG = -1_000
_POS = 1_000

# ----------------------------------------------------------------------------- T layout
# T holds entries of two int64 words, the main table at T[0:2*slots] and the small one at
# T[W_TTBASE2:]. Hands are rank masks in leader order (ha leads, hb second, hc third).
#   key word:  ha | (hb & 0x7FFF_FFFF) << 32                       (63 bits, never negative)
#   data word: lo | hi << TT_BOUND_BITS | (move + 1) << TT_MOVE_SHIFT     (payload, 20 bits)
#              | tag << TT_TAG_SHIFT, tag = hb >> 31 | hc << 1 | leader << 33 | ctx << 35
# lo/hi: bounds on V (0..120 fit TT_BOUND_BITS = 7); move: rank of the best move, -1 none.
# ctx = 1 + game * 9 + declarer * 3 + mode (1..54; 0 marks an empty slot) takes CTX_BITS.
# Key and tag together name the whole position, so no entry is ever reused wrongly, in any
# deal or world; both words stay below 2**63, so plain Python (NUMBA_DISABLE_JIT=1) stores
# the same values.
TT_BOUND_BITS = 7
TT_BOUND_MASK = (1 << TT_BOUND_BITS) - 1
TT_MOVE_SHIFT = 2 * TT_BOUND_BITS
TT_MOVE_MASK = 63
TT_TAG_SHIFT = TT_MOVE_SHIFT + 6
CTX_BITS = 8
_LOW31 = 0x7FFF_FFFF
assert TT_TAG_SHIFT + 35 + CTX_BITS <= 63


def context_id(game: int, declarer: int, mode: int) -> int:
    """The TT context tag of a contract, declarer and mode (1..54)."""
    return 1 + game * 9 + declarer * 3 + mode


def _template(game: int, mode: int) -> np.ndarray:
    """The per-contract part of ``W`` (value and suit tables, empty killers)."""
    W = np.zeros(W_SIZE, np.int64)
    W[W_TB] = 0 if mode == MODE_POINTS else 1
    W[W_INV] = 1 if mode == MODE_NULL else 0
    ts = int(TRUMP_START[game])
    W[W_TSTART] = ts
    W[W_TRUMPS] = ALL32 & ~((1 << ts) - 1)
    W[W_ROOTBEST] = -1
    W[W_ASPW] = 12
    W[W_LIMIT] = NO_LIMIT
    cv = [int(_CARD_POINTS[FROM_RANK[game, r]]) if mode == MODE_POINTS else 0 for r in range(32)]
    for r, v in enumerate(cv):
        W[W_CV + r] = v
        if v >= 10:
            W[W_HIV] |= 1 << r
        if v == 0:
            W[W_LOV] |= 1 << r
        for j, pv in enumerate((11, 10, 4, 3, 2)):
            if v == pv:
                W[W_PM + j] |= 1 << r
        W[W_SEGLO + r] = SEG_LO[game, r]
        W[W_SEGM + r] = SEG_MASK[game, r]
        W[W_SAMECV + r] = sum(1 << q for q in range(32) if cv[q] == v)
    W[W_RKILL:W_RKILL + 96] = -1
    W.setflags(write=False)
    return W


_TEMPLATES: dict[tuple[int, int], np.ndarray] = {}


def setup(W: np.ndarray, game: int, declarer: int, mode: int, tt_slots: int,
          small_slots: int, tt_min: int = 2, tt_split: int = 5) -> None:
    """Fill ``W`` for one contract, declarer and mode (Python side, once per solve)."""
    t = _TEMPLATES.get((game, mode))
    if t is None:
        t = _TEMPLATES[(game, mode)] = _template(game, mode)
    W[:] = t
    W[W_DECL] = declarer
    W[W_CTX] = context_id(game, declarer, mode)
    W[W_TTMASK] = tt_slots - 1
    W[W_TTMIN] = tt_min
    W[W_TTSPLIT] = tt_split
    W[W_TTMASK2] = small_slots - 1
    W[W_TTBASE2] = 2 * tt_slots


@njit(cache=True)
def _relabel(mask: int, table) -> int:
    """Move bit ``i`` of ``mask`` to bit ``table[i]``."""
    out = 0
    m = mask
    while m:
        i = lsb(m)
        m ^= 1 << i
        out |= 1 << table[i]
    return out


@njit(cache=True)
def to_rank_mask(mask: int, game: int) -> int:
    """Card-id mask to rank mask."""
    return _relabel(mask, TO_RANK[game])


@njit(cache=True)
def from_rank_mask(mask: int, game: int) -> int:
    """Rank mask to card-id mask."""
    return _relabel(mask, FROM_RANK[game])


# ----------------------------------------------------------------------------- move lists


@njit(cache=True)
def reps(W, legal: int, sep: int) -> int:
    """One representative per class of equivalent cards in ``legal``.

    Cards of one hand are equivalent when no card of ``sep`` (the live cards held by
    the others or lying in the current trick) ranks between them in their suit and
    they have the same value: exchanging them changes no trick and no score. The
    strongest card of each (run, value) class represents it.
    """
    out = 0
    prev = -1
    seen = 0
    x = legal
    while x:
        c = msb(x)
        x ^= 1 << c
        if prev < 0 or c < W[W_SEGLO + prev] or (sep & ((1 << prev) - (2 << c))) != 0:
            seen = 0
        v = W[W_CV + c]
        if not (seen >> v) & 1:
            seen |= 1 << v
            out |= 1 << c
        prev = c
    return out


@njit(cache=True)
def rep_of(W, legal: int, sep: int, c: int) -> int:
    """The representative (see :func:`reps`) of card ``c`` of ``legal``."""
    segm = W[W_SEGM + c]
    above = segm & ~((2 << c) - 1)
    sa = sep & above
    if sa != 0:
        above &= (1 << lsb(sa)) - 1
    same = legal & above & W[W_SAMECV + c]
    return msb(same) if same != 0 else c


@njit(cache=True)
def rep_map(W, legal: int, sep: int, out) -> int:
    """Like :func:`reps`, and ``out[r]`` = the representative of each card ``r`` of ``legal``."""
    res = 0
    prev = -1
    seen = 0
    x = legal
    run_rep = np.full(16, -1, np.int64)
    while x:
        c = msb(x)
        x ^= 1 << c
        if prev < 0 or c < W[W_SEGLO + prev] or (sep & ((1 << prev) - (2 << c))) != 0:
            seen = 0
            run_rep[:] = -1
        v = W[W_CV + c]
        if not (seen >> v) & 1:
            seen |= 1 << v
            res |= 1 << c
            run_rep[v] = c
        out[c] = run_rep[v]
        prev = c
    return res


@njit(cache=True, inline="always")
def _first_answer(W, off: int, legal: int, sep: int, killer: int):
    """Stage the first answer to try before generating the full list: the only legal card,
    else the killer if legal (as its class representative). Returns ``(first or -1, moves
    staged at W[off], whether the list is already complete)``."""
    done = False
    if legal & (legal - 1) == 0:  # a single legal card
        killer = lsb(legal)
        done = True
    if killer >= 0 and (legal >> killer) & 1:
        first = rep_of(W, legal, sep, killer)
        W[off] = first
        return first, 1, done
    return -1, 0, done


@njit(cache=True)
def trick_result(W, ca: int, cb: int, cc: int, leader: int):
    """A complete trick in rank space: ``(winner position 0..2, declarer's gain, card values)``."""
    ts = W[W_TSTART]
    segm = W[W_SEGM + ca]
    best = ca
    w = 0
    if cb > best and (cb >= ts or (segm >> cb) & 1):
        best = cb
        w = 1
    if cc > best and (cc >= ts or (segm >> cc) & 1):
        w = 2
    p = leader + w
    if p >= 3:
        p -= 3
    pts = W[W_CV + ca] + W[W_CV + cb] + W[W_CV + cc]
    if (p == W[W_DECL]) != (W[W_INV] != 0):
        return w, pts + W[W_TB], pts
    return w, 0, pts


@njit(cache=True)
def _emit(W, off: int, n: int, mask: int, desc: bool) -> int:
    while mask:
        c = msb(mask) if desc else lsb(mask)
        mask ^= 1 << c
        W[off + n] = c
        n += 1
    return n


@njit(cache=True)
def _gen_lead(W, off: int, n: int, hand: int, sep: int, skip: int, seat: int) -> int:
    """Append the lead candidates except ``skip`` to the list at ``off`` (``n`` so far),
    strong cards first (null: low first), then stably sorted by history score."""
    r = reps(W, hand, sep)
    if skip >= 0:
        r &= ~(1 << skip)
    start = n
    n = _emit(W, off, n, r, W[W_INV] == 0)
    hb = W_HIST + seat * 32
    for i in range(start + 1, n):
        c = W[off + i]
        sc = W[hb + c]
        j = i
        while j > start and W[hb + W[off + j - 1]] < sc:
            W[off + j] = W[off + j - 1]
            j -= 1
        W[off + j] = c
    return n


@njit(cache=True)
def _gen_follow(W, off: int, n: int, legal: int, sep: int, best: int, segm: int, good: bool,
                level: int, skip: int) -> int:
    """Append the answers except ``skip`` to a trick whose best card so far is ``best``.

    ``good``: the card now winning suits the mover (partner's, or in null the one
    the mover wants to win the trick).
    """
    r = reps(W, legal, sep)
    if skip >= 0:
        r &= ~(1 << skip)
    beat = r & ~((2 << best) - 1) & (segm | W[W_TRUMPS])
    nob = r & ~beat
    if W[W_INV] != 0:
        if good:
            n = _emit(W, off, n, nob, True)
            return _emit(W, off, n, beat, False)
        n = _emit(W, off, n, nob, False)
        return _emit(W, off, n, beat, False)
    hiv = W[W_HIV]
    lov = W[W_LOV]
    mid = ~(hiv | lov)
    if level == 2:
        if good:  # the trick is ours: add the most points
            n = _emit(W, off, n, r & hiv, True)
            n = _emit(W, off, n, r & mid, True)
            return _emit(W, off, n, r & lov, False)
        n = _emit(W, off, n, beat & hiv, True)
        n = _emit(W, off, n, beat & mid, True)
        n = _emit(W, off, n, beat & lov, False)
        n = _emit(W, off, n, nob & lov, False)
        n = _emit(W, off, n, nob & mid, False)
        return _emit(W, off, n, nob & hiv, False)
    if good:
        n = _emit(W, off, n, nob & lov, False)
        n = _emit(W, off, n, nob & mid, False)
        n = _emit(W, off, n, nob & hiv, False)
        return _emit(W, off, n, beat, False)
    n = _emit(W, off, n, beat, True)
    n = _emit(W, off, n, nob & lov, False)
    n = _emit(W, off, n, nob & mid, False)
    return _emit(W, off, n, nob & hiv, False)


# ----------------------------------------------------------------------------- search


@njit(cache=True)
def value_of(W, m: int) -> int:
    """Sum of the values of the cards in rank mask ``m``."""
    return (11 * popcount(m & W[W_PM]) + 10 * popcount(m & W[W_PM + 1]) + 4 * popcount(m & W[W_PM + 2])
            + 3 * popcount(m & W[W_PM + 3]) + 2 * popcount(m & W[W_PM + 4]))


@njit(cache=True, inline="always")
def _cheapest(W, h: int, k: int) -> int:
    """Sum of the ``k`` lowest card values in rank mask ``h`` (``k <= popcount(h)``)."""
    k -= popcount(h & W[W_LOV])
    out = 0
    for j, v in ((4, 2), (3, 3), (2, 4), (1, 10), (0, 11)):
        if k <= 0:
            break
        c = popcount(h & W[W_PM + j])
        if c > k:
            c = k
        out += c * v
        k -= c
    return out


@njit(cache=True, inline="always")
def _tt_index(ha: int, hb: int, hc: int, leader: int, mask: int) -> int:
    """Table slot of a position: a multiplicative hash of the three hands and the leader
    that stays below 2**63, so numba and plain Python (``NUMBA_DISABLE_JIT=1``) compute
    the same slot."""
    x = ha ^ (((hb << 11) | (hb >> 21)) & ALL32) ^ (((hc << 22) | (hc >> 10)) & ALL32)
    h = (x ^ (leader << 30)) * 0x2545F491  # < 2**33 * 2**30
    h ^= h >> 27
    h = (h & ALL32) * 0x2545F491 + (h >> 32)
    h ^= h >> 31
    return h & mask


@njit(cache=True, inline="always")
def _narrow(v: int, a: int, b: int, is_max: bool):
    """The window ``(a, b)`` of the next child once the best value so far is ``v``:
    a maximiser raises ``a``, a minimiser lowers ``b``."""
    if is_max:
        if v > a:
            a = v
    elif v < b:
        b = v
    return a, b


@njit(cache=True, inline="always")
def _update(v: int, best: int, mv: int, bestmv: int, is_max: bool):
    """Fold child value ``v`` of move ``mv`` into ``(best, bestmv)`` (max or min)."""
    if (v > best) if is_max else (v < best):
        return v, mv
    return best, bestmv


@njit(cache=True, inline="always")
def _cuts(v: int, a: int, b: int, is_max: bool) -> bool:
    """Does the best value ``v`` so far end the loop over window ``(a, b)``?"""
    return v >= b if is_max else v <= a


@njit(cache=True)
def last_trick(W, x: int, y: int, z: int, leader: int) -> int:
    """Declarer's gain from the forced last trick (one card in each hand, ``x`` leads)."""
    return trick_result(W, lsb(x), lsb(y), lsb(z), leader)[1]


@njit(cache=True)
def two_tricks(W, ha: int, hb: int, hc: int, leader: int) -> int:
    """Exact ``V`` of the last two tricks (two cards in each hand, ``ha`` leads): plain
    minimax over the at most 8 ways to play the first one, cheaper than a table probe."""
    drel = W[W_DECL] - leader
    if drel < 0:
        drel += 3
    amax = drel == 0
    bmax = drel == 1
    cmax = drel == 2
    va = _NEG if amax else _POS
    xa = ha
    while xa:
        ca = lsb(xa)
        xa ^= 1 << ca
        segm = W[W_SEGM + ca]
        lb = hb & segm
        if lb == 0:
            lb = hb
        lc = hc & segm
        if lc == 0:
            lc = hc
        vb = _NEG if bmax else _POS
        xb = lb
        while xb:
            cb = lsb(xb)
            xb ^= 1 << cb
            vc = _NEG if cmax else _POS
            xc = lc
            while xc:
                cc = lsb(xc)
                xc ^= 1 << cc
                w, g, _ = trick_result(W, ca, cb, cc, leader)
                ra = ha ^ (1 << ca)
                rb = hb ^ (1 << cb)
                rc = hc ^ (1 << cc)
                nl = leader + w
                if nl >= 3:
                    nl -= 3
                if w == 0:
                    v = g + last_trick(W, ra, rb, rc, nl)
                elif w == 1:
                    v = g + last_trick(W, rb, rc, ra, nl)
                else:
                    v = g + last_trick(W, rc, ra, rb, nl)
                if (v > vc) if cmax else (v < vc):
                    vc = v
            if (vc > vb) if bmax else (vc < vb):
                vb = vc
        if (vb > va) if amax else (vb < va):
            va = vb
    return va


@njit(cache=True, inline="always")
def _rotate(a: int, b: int, c: int, k: int):
    """The three hands ``a, b, c`` (in seat order from some seat) from the ``k``-th of them on
    (``k`` in 0..2): ``(a, b, c)``, ``(b, c, a)`` or ``(c, a, b)``."""
    if k == 0:
        return a, b, c
    if k == 1:
        return b, c, a
    return c, a, b


@njit(cache=True, inline="always")
def _sure_trick_bound(W, ha: int, hb: int, hc: int, drel: int, rem: int, alpha: int, beta: int):
    """``(True, bound)`` when master trumps alone answer the window of a trick's start, else
    ``(False, 0)``. Trumps above every trump of the other side win their tricks, one trick
    each (the defenders' two hands may put two of theirs into one trick); the other side
    adds a card to each of those tricks, at least its cheapest ones. ``drel``: the
    declarer's seat relative to the leader of ``ha``."""
    tr = W[W_TRUMPS]
    tb = W[W_TB]
    hx, hd1, hd2 = _rotate(ha, hb, hc, drel)
    xt = hx & tr
    dt = (hd1 | hd2) & tr
    if dt != 0:
        sure_d = dt & ~((2 << msb(xt)) - 1) if xt != 0 else dt
        if sure_d != 0:
            k1 = popcount(sure_d & hd1)
            k2 = popcount(sure_d & hd2)
            kd = k1 if k1 > k2 else k2
            ub = rem - value_of(W, sure_d) - tb * kd - _cheapest(W, hx, kd)
            if alpha >= ub:
                return True, ub
    if xt != 0:
        sure_x = xt & ~((2 << msb(dt)) - 1) if dt != 0 else xt
        if sure_x != 0:
            kx = popcount(sure_x)
            lb0 = value_of(W, sure_x) + tb * kx + _cheapest(W, hd1, kx) + _cheapest(W, hd2, kx)
            if beta <= lb0:
                return True, lb0
    return False, 0


@njit(cache=True, inline="always")
def _tt_slot(W, ha: int, hb: int, hc: int, leader: int, ntr: int):
    """``(key, tag, index)`` of a trick-start position in the table ``T``: the key holds
    ``ha`` and the low bits of ``hb``, the tag the rest, the leader and the context; deep
    positions (``ntr >= W_TTSPLIT``) and shallow ones have their own regions."""
    key = ha | ((hb & _LOW31) << 32)
    tag = (hb >> 31) | (hc << 1) | (leader << 33) | (W[W_CTX] << 35)
    if ntr >= W[W_TTSPLIT]:
        idx = 2 * _tt_index(ha, hb, hc, leader, W[W_TTMASK])
    else:
        idx = W[W_TTBASE2] + 2 * _tt_index(ha, hb, hc, leader, W[W_TTMASK2])
    return key, tag, idx


@njit(cache=True, inline="always")
def _tt_probe(T, idx: int, key: int, tag: int, rem: int):
    """``(hit, lo, hi, move)``: the stored bounds of ``V`` and best move at slot ``idx`` if
    it holds this position, else ``(False, 0, rem, -1)``."""
    d = T[idx + 1]
    if T[idx] == key and (d >> TT_TAG_SHIFT) == tag:
        return (True, d & TT_BOUND_MASK, (d >> TT_BOUND_BITS) & TT_BOUND_MASK,
                ((d >> TT_MOVE_SHIFT) & TT_MOVE_MASK) - 1)
    return False, 0, rem, -1


@njit(cache=True, inline="always")
def _tt_store(T, idx: int, key: int, tag: int, va: int, alpha: int, beta: int, lo: int, hi: int,
              mv: int) -> None:
    """Store the search result ``va`` of window ``(alpha, beta)`` at slot ``idx``: it narrows
    the slot's bounds ``(lo, hi)`` (a lower bound, an upper bound, or exact) with move ``mv``."""
    if va >= beta:
        if va > lo:
            lo = va
    elif va <= alpha:
        if va < hi:
            hi = va
    else:
        lo = va
        hi = va
    T[idx] = key
    T[idx + 1] = lo | (hi << TT_BOUND_BITS) | ((mv + 1) << TT_MOVE_SHIFT) | (tag << TT_TAG_SHIFT)


@njit(cache=True)
def search(W, T, ha: int, hb: int, hc: int, leader: int, alpha: int, beta: int, rem: int, ntr: int,
           nfix: int, fa: int, fb: int, root: int) -> int:
    """Fail-soft alpha-beta value of ``V`` for the trick led by ``leader``.

    A result ``<= alpha`` is an upper bound of ``V``, one ``>= beta`` a lower bound,
    one in between is exact; ``(need - 1, need)`` asks "``V >= need``?".
    ``ha, hb, hc``: rank masks of the leader, second and third hand. ``rem``: the
    largest possible ``V`` (values of the live cards, trick cards included, plus
    ``ntr`` times the trick value). ``ntr``: tricks left including this one.
    ``nfix`` cards of this trick are already played (``fa``, ``fb``; not in the
    hands). ``root`` (0/1): do not stop at a TT bound, and record in ``W[W_ROOTBEST]``
    the mover's card that decided the search.

    Numba note: every call passes run-time ints, never literals. A literal argument
    makes numba compile a second, ``Literal``-typed specialisation for the recursive
    call, and that one crashes when loaded back from the on-disk cache (numba 0.68).
    """
    W[W_NODES] += 1
    if W[W_NODES] > W[W_LIMIT]:
        return 0  # over budget: the caller discards the result (and nothing is stored)
    if beta <= 0:
        return 0
    if alpha >= rem:
        return rem
    if ntr == 1 and nfix == 0:
        return last_trick(W, ha, hb, hc, leader)
    if ntr == 2 and nfix == 0 and root == 0:
        return two_tricks(W, ha, hb, hc, leader)
    drel = W[W_DECL] - leader
    if drel < 0:
        drel += 3
    inv = W[W_INV] != 0
    tb = W[W_TB]
    ts = W[W_TSTART]
    amax = drel == 0
    bmax = drel == 1
    cmax = drel == 2
    if nfix == 0 and not inv:
        hit, v = _sure_trick_bound(W, ha, hb, hc, drel, rem, alpha, beta)
        if hit:
            return v

    nz = ntr - ntr  # a run-time 0 (see the numba note)
    usett = nfix == 0 and ntr >= W[W_TTMIN]
    ttmove = -1
    lo = 0
    hi = rem
    key = 0
    tag = 0
    idx = 0
    if usett:
        key, tag, idx = _tt_slot(W, ha, hb, hc, leader, ntr)
        hit, lo, hi, ttmove = _tt_probe(T, idx, key, tag, rem)
        if hit:
            if root == 0:
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                # the stored bounds narrow the window (it stays non-empty here)
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi

    offa = W_MV + ntr * 48
    offb = offa + 16
    offc = offa + 32
    # staged move lists: the TT move / killer first, the full list only if needed. The three
    # seats' loops below are written out one inside the other on purpose (a twin per seat, not
    # a shared helper): a whole trick is one node, which is where the solver's speed comes from.
    if nfix >= 1:
        W[offa] = fa
        na = 1
        gena = True
        firsta = -1
    else:
        firsta = rep_of(W, ha, hb | hc, ttmove) if ttmove >= 0 and (ha >> ttmove) & 1 else -1
        na = 0
        if firsta >= 0:
            W[offa] = firsta
            na = 1
        gena = False
    va = _NEG if amax else _POS
    bestmove = -1
    cb = -1
    cc = -1
    ia = 0
    while True:
        if ia == na:
            if gena:
                break
            na = _gen_lead(W, offa, na, ha, hb | hc, firsta, leader)
            gena = True
            if ia == na:
                break
        ca = W[offa + ia]
        ia += 1
        bita = 1 << ca
        ha2 = ha & ~bita
        segm = W[W_SEGM + ca]
        aa, ba = _narrow(va, alpha, beta, amax)  # window of this branch
        if nfix >= 2:
            W[offb] = fb
            nb = 1
            genb = True
            firstb = -1
            lb = 0
        else:
            lb = hb & segm
            if lb == 0:
                lb = hb
            firstb, nb, genb = _first_answer(W, offb, lb, ha2 | hc | bita, W[W_RKILL + ca])
        vb = _NEG if bmax else _POS
        bestb = -1
        ib = 0
        while True:
            if ib == nb:
                if genb:
                    break
                nb = _gen_follow(W, offb, nb, lb, ha2 | hc | bita, ca, segm, (amax == bmax) != inv, 1,
                                 firstb)
                genb = True
                if ib == nb:
                    break
            cb = W[offb + ib]
            ib += 1
            bitb = 1 << cb
            hb2 = hb & ~bitb
            ab, bb = _narrow(vb, aa, ba, bmax)
            if cb > ca and (cb >= ts or (segm >> cb) & 1):
                best = cb
                wb = 1
                wmax = bmax
            else:
                best = ca
                wb = 0
                wmax = amax
            lc = hc & segm
            if lc == 0:
                lc = hc
            firstc, nc, genc = _first_answer(W, offc, lc, ha2 | hb2 | bita | bitb, W[W_RKILL + 64 + best])
            vc = _NEG if cmax else _POS
            bestc = -1
            ic = 0
            while True:
                if ic == nc:
                    if genc:
                        break
                    nc = _gen_follow(W, offc, nc, lc, ha2 | hb2 | bita | bitb, best, segm,
                                     (wmax == cmax) != inv, 2, firstc)
                    genc = True
                    if ic == nc:
                        break
                cc = W[offc + ic]
                ic += 1
                hc2 = hc & ~(1 << cc)
                w = wb
                if cc > best and (cc >= ts or (segm >> cc) & 1):
                    w = 2
                pts = W[W_CV + ca] + W[W_CV + cb] + W[W_CV + cc]
                g = pts + tb if (w == drel) != inv else 0
                nl = leader + w
                if nl >= 3:
                    nl -= 3
                x, y, z = _rotate(ha2, hb2, hc2, w)
                ac, bc = _narrow(vc, ab, bb, cmax)
                crem = rem - pts - tb
                if ntr == 2:
                    W[W_NODES] += 1
                    v = g + last_trick(W, x, y, z, nl)
                else:
                    v = g + search(W, T, x, y, z, nl, ac - g, bc - g, crem, ntr - 1, nz, nz, nz, nz)
                vc, bestc = _update(v, vc, cc, bestc, cmax)
                if _cuts(vc, ac, bc, cmax):
                    break
            cut = _cuts(vc, ab, bb, cmax)
            if cut and cc != firstc and nc > 1:
                W[W_RKILL + 64 + best] = cc
            if root != 0 and nfix == 2:
                W[W_ROOTBEST] = bestc
            vb, bestb = _update(vc, vb, cb, bestb, bmax)
            if _cuts(vb, aa, ba, bmax):
                break
        cut = _cuts(vb, aa, ba, bmax)
        if cut and cb != firstb and nb > 1:
            W[W_RKILL + ca] = cb
        if root != 0 and nfix == 1:
            W[W_ROOTBEST] = bestb
        va, bestmove = _update(vb, va, ca, bestmove, amax)
        if _cuts(va, alpha, beta, amax):
            break
    if root != 0 and nfix == 0:
        W[W_ROOTBEST] = bestmove
    cut = _cuts(va, alpha, beta, amax)
    if cut and ia > 1 and nfix == 0:
        W[W_HIST + leader * 32 + bestmove] += ntr * ntr

    if usett and W[W_NODES] <= W[W_LIMIT]:
        _tt_store(T, idx, key, tag, va, alpha, beta, lo, hi, bestmove if bestmove >= 0 else ttmove)
    return va


@njit(cache=True)
def exact(W, T, ha: int, hb: int, hc: int, leader: int, rem: int, ntr: int, nfix: int, fa: int,
          fb: int, guess: int, lo: int, hi: int):
    """Minimax ``V`` in ``[lo, hi]``: ``(V, best_move)``.

    Repeated :func:`search` passes with a window of half-width ``W[W_ASPW]``: the
    first around ``guess``, each next one re-centred beyond the fail-soft bound of
    the last (MTD(f) with wider windows), all sharing the transposition table.
    ``best_move`` (rank) is a move of the player to move that achieves ``V``, or -1
    when every move does.
    """
    g = guess
    best_hi = -1  # move proving a lower bound (maximiser)
    best_lo = -1  # move proving an upper bound (minimiser)
    hw = W[W_ASPW]
    while lo < hi:
        # window (a, b) around the guess, inside what is already known
        a = g - hw
        b = g + hw + 1
        if a < lo:
            a = lo
        if b > hi:
            b = hi
        if a >= b:
            a = b - 1
        W[W_ROOTBEST] = -1
        W[W_PASSES] += 1
        v = search(W, T, ha, hb, hc, leader, a, b, rem, ntr, nfix, fa, fb, nfix - nfix + 1)
        if W[W_NODES] > W[W_LIMIT]:
            break  # over budget: the values are unknown
        if v >= b:
            lo = v
            best_hi = W[W_ROOTBEST]
            g = v + hw
        elif v <= a:
            hi = v
            best_lo = W[W_ROOTBEST]
            g = v - hw
        else:
            lo = v
            hi = v
            best_hi = W[W_ROOTBEST]
            best_lo = W[W_ROOTBEST]
    # the mover maximises iff it is the declarer
    p = leader + nfix
    if p >= 3:
        p -= 3
    mover_max = p == W[W_DECL]
    return lo, (best_hi if mover_max else best_lo)


# ----------------------------------------------------------------------------- root move values


@njit(cache=True)
def root_move_values(W, T, ha: int, hb: int, hc: int, leader: int, rem: int, ntr: int, nfix: int,
                     fa: int, fb: int, need: int, exact_values: bool, guess: int, out) -> int:
    """Value of every legal move of the player to move, written to ``out[rank]`` (-1: illegal).

    One child search per class of equivalent cards (:func:`rep_map`), all on one table.
    ``exact_values``: ``out`` holds ``V`` after the move (the gain of a trick it
    completes included; ``guess`` seeds the first :func:`exact`, each value the next);
    otherwise 1 if ``V >= need`` after the move, else 0. Returns the legal rank mask.
    """
    nz = ntr - ntr  # a run-time 0 (see the numba note of search)
    if nfix == 0:
        mover = ha
        legal = ha
        sep = hb | hc
    else:
        mover = hb if nfix == 1 else hc
        legal = mover & W[W_SEGM + fa]
        if legal == 0:
            legal = mover
        sep = ((ha | hb | hc) & ~mover) | (1 << fa)
        if nfix == 2:
            sep |= 1 << fb
    repmap = np.full(32, -1, np.int64)
    rep_map(W, legal, sep, repmap)
    for r in range(32):
        out[r] = -1
    tb = W[W_TB]
    for r in range(32):
        if not (legal >> r) & 1 or repmap[r] != r:
            continue
        bit = 1 << r
        x = ha & ~bit if nfix == 0 else ha
        y = hb & ~bit if nfix == 1 else hb
        z = hc & ~bit if nfix == 2 else hc
        if nfix < 2:  # the trick goes on: the move becomes a fixed card of it
            cfa = r if nfix == 0 else fa
            cfb = r if nfix == 1 else fb
            if exact_values:
                v, _ = exact(W, T, x, y, z, leader, rem, ntr, nfix + 1, cfa, cfb, guess, nz, rem)
                guess = v
                out[r] = v
            else:
                v = search(W, T, x, y, z, leader, need - 1, need, rem, ntr, nfix + 1, cfa, cfb, nz)
                out[r] = 1 if v >= need else 0
            continue
        # the move completes the trick
        w, gain, pts = trick_result(W, fa, fb, r, leader)
        if w == 0:
            a1, b1, c1 = x, y, z
        elif w == 1:
            a1, b1, c1 = y, z, x
        else:
            a1, b1, c1 = z, x, y
        nl = leader + w
        if nl >= 3:
            nl -= 3
        crem = rem - pts - tb
        if exact_values:
            v = nz
            if ntr > 1:
                v, _ = exact(W, T, a1, b1, c1, nl, crem, ntr - 1, nz, nz, nz, guess - gain, nz, crem)
            out[r] = gain + v
            guess = gain + v
        else:
            sub = nz
            if ntr > 1:
                sub = search(W, T, a1, b1, c1, nl, need - gain - 1, need - gain, crem, ntr - 1, nz, nz, nz, nz)
            out[r] = 1 if gain + sub >= need else 0
    for r in range(32):
        if (legal >> r) & 1:
            out[r] = out[repmap[r]]
    return legal


# rows of batch_root_values: the cards as they lie and the public part, card ids
(B_H0, B_H1, B_H2, B_SKAT, B_LEADER, B_NTRICK, B_T0, B_T1, B_DPOINTS, B_DTRICKS, B_DECL, B_COLS) = range(12)


@njit(cache=True)
def _row_start(W, row, game: int, mode: int, node_limit: int):
    """Set ``W`` up for one ``B_*`` row (its budget, declarer and context) and give the
    search's arguments: ``(leader, cards in the trick, the three hands from the leader on as
    rank masks, tricks left, the trick's first two cards, card points still to be won)``."""
    start = W[W_NODES]
    W[W_LIMIT] = start + node_limit if node_limit > 0 else NO_LIMIT
    W[W_DECL] = row[B_DECL]
    W[W_CTX] = 1 + game * 9 + row[B_DECL] * 3 + mode  # context_id
    leader = row[B_LEADER]
    k = row[B_NTRICK]
    p1 = leader + 1 if leader < 2 else 0
    p2 = p1 + 1 if p1 < 2 else 0
    ha = to_rank_mask(row[B_H0 + leader], game)
    hb = to_rank_mask(row[B_H0 + p1], game)
    hc = to_rank_mask(row[B_H0 + p2], game)
    ntr = popcount(hc)
    fa = TO_RANK[game, row[B_T0]] if k >= 1 else 0
    fb = TO_RANK[game, row[B_T1]] if k >= 2 else 0
    live = ha | hb | hc
    if k >= 1:
        live |= 1 << fa
    if k >= 2:
        live |= 1 << fb
    return leader, k, ha, hb, hc, ntr, fa, fb, value_of(W, live) + W[W_TB] * ntr


@njit(cache=True)
def batch_position_wins(W, T, rows, game: int, mode: int, target: int, out, node_limit: int, row_nodes) -> None:
    """Does the declarer reach his goal with best play from each position? ``out[i]``: 1 or
    0, or -2 when row ``i`` needed more than ``node_limit`` nodes (``<= 0``: no budget).

    One null-window search per row (cheaper than :func:`batch_root_values`, which values
    every root move); rows, ``mode``, ``target``, the table and the budget as there.
    """
    for i in range(rows.shape[0]):
        start = W[W_NODES]
        leader, k, ha, hb, hc, ntr, fa, fb, rem = _row_start(W, rows[i], game, mode, node_limit)
        if mode == MODE_POINTS:
            need = target - rows[i, B_DPOINTS] - value_of(W, to_rank_mask(rows[i, B_SKAT], game))
        elif mode == MODE_TRICKS:
            need = ntr if rows[i, B_DTRICKS] == 10 - ntr else rem + 1
        else:
            need = ntr
        row_nodes[i] = 0
        if ntr == 0:
            out[i] = 1 if need <= 0 else 0
            continue
        W[W_ROOTBEST] = -1
        W[W_PASSES] = 1
        v = search(W, T, ha, hb, hc, leader, need - 1, need, rem, ntr, k, fa, fb, ntr - ntr + 1)  # run-time 1
        row_nodes[i] = W[W_NODES] - start
        if W[W_NODES] > W[W_LIMIT]:
            out[i] = -2
        else:
            out[i] = 1 if v >= need else 0
    W[W_LIMIT] = NO_LIMIT


@njit(cache=True)
def batch_root_values(W, T, rows, game: int, mode: int, target: int, exact_values: bool, out,
                      node_limit: int, row_nodes) -> None:
    """Root move values of many positions of one contract in one call: ``out[i, card]``.

    ``rows[i]`` (``B_*`` columns, card ids): hands of seats 0..2, the skat (its points
    count for the declarer in suit and grand), the trick leader, the number of cards in
    the trick and the first two, the declarer's trick points and tricks so far, the
    declarer's seat (``W`` is set up for the game and mode; the declarer is set per row).
    ``mode`` (``MODE_*``) as set up in ``W``; ``target``: card points the declarer must
    reach (``MODE_POINTS`` threshold). ``out[i, c]``: -1 for a card the mover may not
    play; else, with ``exact_values`` (``MODE_POINTS`` only), the declarer's final card
    points after ``c``; otherwise 1 if the declarer then reaches his goal (``target``
    points, every trick, or no trick in null), 0 if not. The transposition table in
    ``T`` is shared by all rows (sound: its entries name the whole position).

    **Node budget.** ``node_limit > 0``: a row whose searches visit more than
    ``node_limit`` nodes is abandoned; its legal cards get ``out[i, c] = -2`` (unknown)
    and the next row starts with the full budget. An abandoned search stores nothing in
    the table (entries written before the budget ran out are sound), so later rows and
    solves stay exact. ``node_limit <= 0``: no budget. ``row_nodes[i]``: the nodes row
    ``i`` visited (``W[W_NODES]`` is the total).
    """
    tmp = np.empty(32, np.int64)
    for i in range(rows.shape[0]):
        start = W[W_NODES]
        leader, k, ha, hb, hc, ntr, fa, fb, rem = _row_start(W, rows[i], game, mode, node_limit)
        base = 0
        if mode == MODE_POINTS:
            base = rows[i, B_DPOINTS] + value_of(W, to_rank_mask(rows[i, B_SKAT], game))
            need = target - base
        elif mode == MODE_TRICKS:
            need = ntr if rows[i, B_DTRICKS] == 10 - ntr else rem + 1
        else:
            need = ntr
        for c in range(32):
            out[i, c] = -1
        row_nodes[i] = 0
        if ntr == 0:
            continue
        legal = root_move_values(W, T, ha, hb, hc, leader, rem, ntr, k, fa, fb, need, exact_values,
                                 60 - base, tmp)
        over = W[W_NODES] > W[W_LIMIT]
        row_nodes[i] = W[W_NODES] - start
        for r in range(32):
            if (legal >> r) & 1:
                out[i, FROM_RANK[game, r]] = -2 if over else (base + tmp[r] if exact_values else tmp[r])
    W[W_LIMIT] = NO_LIMIT
