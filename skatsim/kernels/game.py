"""The compiled game state machine: one rules truth for the state API and the batch kernels.

A game state is a flat ``int64`` array (the *state vector*) with the named fields
below. :func:`legal_set` and :func:`apply_action` implement bidding (ISkO §3.3),
the skat, the declaration, Kontra/Re (option), card play and the end of the game;
:func:`result_fields` settles a finished game with :mod:`skatsim.scoring`.
``SkatState`` wraps one vector; ``simulate`` runs millions of them in jitted loops.

Legal actions come as ``(base, lo, hi)``: action ``base + i`` is legal when bit
``i`` of the 64-bit set ``lo | hi << 32`` is on (two 32-bit words keep the kernels
free of unsigned arithmetic).

Performance: the per-action functions are ``inline='always'`` (numba IR inlining), so a
batch loop compiles ``random_action`` + ``apply_action`` into one function body with no
calls; this took random full games from ~1.2M to ~1.9M per second on one core. They stay
callable from Python like any other jitted function.
"""

from __future__ import annotations

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from ..actions import BID_BASE, DECLARE_BASE, HOLD, KONTRA, PASS, PICKUP, RE
from ..bits import assume_below, branchless, nth_bit, popcount, rand_below
from ..cards import CARD_POINTS_ARRAY, card_points
from ..contracts import BID_ARRAY, DECLARABLE_BITS, DECLARATION_ARRAY, OUVERT, SCHWARZ_ANNOUNCED
from ..options import OPT_KONTRA, OPT_RAMSCH
from ..rules import FOLLOW, GRAND, NULL, RAMSCH, legal_mask, trick_winner_pos
from ..scoring import GOAL_61, GOAL_EDGES, goal_of, matadors_of, settle_into
from ..valuation import HAND, game_value
from ..layout import (  # noqa: F401  (re-exported: K.F_HAND0, K.R_WON, K.PH_PLAY ...)
    PH_BID, PH_SKAT, PH_DISCARD, PH_DECLARE, PH_KONTRA, PH_PLAY, PH_DONE, PHASE_NAMES, F_PHASE, F_PLAYER,
    F_HAND0, F_HAND1, F_HAND2, F_SKAT, F_DEALT0, F_DEALT1, F_DEALT2, F_DEALT_SKAT, F_BID, F_BID_IDX,
    F_BID_STAGE, F_BIDDER, F_RESPONDER, F_DECLARER, F_GAME, F_FLAGS, F_PICKED, F_DISCARDS, F_KONTRA, F_KSTAGE,
    F_LEADER, F_NCARDS, F_TRICK0, F_TRICK1, F_TRICK2, F_NTRICKS, F_POINTS0, F_POINTS1, F_POINTS2, F_TRICKS0,
    F_TRICKS1, F_TRICKS2, F_PLAYED0, F_PLAYED1, F_PLAYED2, F_LAST_WINNER, F_OPTIONS, F_BIDVAL0, F_BIDVAL1,
    F_BIDVAL2, F_PASSED, F_KONTRA_BY, F_VOID0, F_VOID1, F_VOID2, F_END, F_END_SEAT, F_RESIGNED, F_SHOWN,
    N_FIELDS, END_PLAYED, END_SCHWARZ_LOST, END_DECLARER_RESIGNED, END_DEFENDERS_RESIGNED,
    END_TIMEOUT, END_LEFT, END_NAMES, R_DECLARER, R_GAME, R_FLAGS, R_BID, R_PICKED, R_KONTRA, R_DECL_POINTS,
    R_DECL_TRICKS, R_MATADORS, R_WON, R_SCHNEIDER, R_SCHWARZ, R_MULT, R_VALUE, R_OVERBID, R_CHARGED,
    R_LIST_SCORE, R_SCORE0, R_SCORE1, R_SCORE2, R_SF0, R_SF1, R_SF2, R_PTS0, R_PTS1, R_PTS2, N_RESULT)

_PTS = CARD_POINTS_ARRAY
_LO32 = 0xFFFF_FFFF


@njit(cache=True)
def init_state(st, h0: int, h1: int, h2: int, skat: int, options: int) -> None:
    """Reset ``st`` to the start of bidding for a deal (seat 0 forehand, 1 middle, 2 rear)."""
    st[:] = 0
    st[F_HAND0] = h0
    st[F_HAND1] = h1
    st[F_HAND2] = h2
    st[F_SKAT] = skat
    st[F_DEALT0] = h0
    st[F_DEALT1] = h1
    st[F_DEALT2] = h2
    st[F_DEALT_SKAT] = skat
    st[F_OPTIONS] = options
    st[F_PHASE] = PH_BID
    st[F_BID_IDX] = -1
    st[F_BID_STAGE] = 0
    st[F_BIDDER] = 1  # middlehand bids to forehand
    st[F_RESPONDER] = 0
    st[F_PLAYER] = 1
    st[F_DECLARER] = -1
    st[F_GAME] = -1
    st[F_LEADER] = 0
    st[F_LAST_WINNER] = -1
    st[F_KONTRA_BY] = -1
    st[F_END_SEAT] = -1


@njit(cache=True, inline='always')
def declaration_bits(picked: int, bid_index: int) -> int:
    """29-bit set of legal declarations (see ``contracts.DECLARATIONS``) at bid
    ``BID_VALUES[bid_index]``: one lookup in ``contracts.DECLARABLE_BITS``.

    After a pickup: the 5 suit/grand games, null (23) and null ouvert (46); in a hand
    game: 20 suit/grand hand variants, null hand (35), null ouvert hand (59). A null
    game worth less than the bid is not declarable (ISKO.md §16).
    """
    return DECLARABLE_BITS[picked, bid_index]


@njit(cache=True, inline='always')
def legal_set(st):
    """Legal actions of the player to move as ``(base, lo, hi)`` (module docstring)."""
    ph = st[F_PHASE]
    if ph == PH_PLAY:
        hand = st[F_HAND0 + assume_below(st[F_PLAYER], 3)]
        if st[F_NCARDS] == 0:
            return 0, hand, 0
        return 0, legal_mask(hand, assume_below(st[F_TRICK0], 32), assume_below(st[F_GAME], 7)), 0
    if ph == PH_BID:
        if st[F_BID_STAGE] == 2:  # forehand alone: play at 18 or pass
            return BID_BASE, 1, 1 << 31
        if st[F_PLAYER] == st[F_RESPONDER]:
            return PASS, 3, 0
        j = st[F_BID_IDX] + 1  # bidder: any higher value, or pass (bit 63)
        lo = (_LO32 >> j) << j if j < 32 else 0
        hi = ((0x7FFF_FFFF >> (j - 32)) << (j - 32)) if j > 32 else 0x7FFF_FFFF
        return BID_BASE, lo, hi | (1 << 31)
    if ph == PH_DISCARD:
        return 0, st[F_HAND0 + st[F_DECLARER]], 0
    if ph == PH_SKAT:
        return PICKUP, 3, 0
    if ph == PH_DECLARE:
        return DECLARE_BASE, declaration_bits(st[F_PICKED], st[F_BID_IDX]), 0
    if ph == PH_KONTRA:
        if st[F_KSTAGE] == 2:
            return PASS, 1, 1 << (RE - PASS - 32)
        return PASS, 1, 1 << (KONTRA - PASS - 32)
    return 0, 0, 0


@njit(cache=True)
def is_legal(st, action: int) -> bool:
    base, lo, hi = legal_set(st)
    i = action - base
    if i < 0 or i >= 64:
        return False
    if i < 32:
        return (lo >> i) & 1 == 1
    return (hi >> (i - 32)) & 1 == 1


@njit(cache=True)
def n_legal(st) -> int:
    _, lo, hi = legal_set(st)
    return popcount(lo) + popcount(hi)


@njit(cache=True, inline='always')
def _start_play(st) -> None:
    st[F_PHASE] = PH_PLAY
    st[F_PLAYER] = 0  # forehand leads the first trick
    st[F_LEADER] = 0
    st[F_NCARDS] = 0


@njit(cache=True, inline='always')
def _finish(st) -> None:
    st[F_PHASE] = PH_DONE
    st[F_PLAYER] = -1


@njit(cache=True, inline='always')
def _end_duel(st, survivor: int) -> None:
    if st[F_BID_STAGE] == 0:  # rearhand now bids to the survivor
        st[F_BID_STAGE] = 1
        st[F_BIDDER] = 2
        st[F_RESPONDER] = survivor
        st[F_PLAYER] = 2
    elif st[F_BID_IDX] >= 0:  # the survivor holds the highest bid
        st[F_DECLARER] = survivor
        st[F_PHASE] = PH_SKAT
        st[F_PLAYER] = survivor
    else:  # middlehand and rearhand passed without a bid: forehand may play at 18
        st[F_BID_STAGE] = 2
        st[F_PLAYER] = 0


@njit(cache=True, inline='always')
def _apply_bid(st, a: int) -> None:
    p = st[F_PLAYER]
    if a == PASS:
        st[F_PASSED] |= 1 << p
    if st[F_BID_STAGE] == 2:
        if a == PASS:  # all three passed
            if st[F_OPTIONS] & OPT_RAMSCH:
                st[F_GAME] = RAMSCH
                _start_play(st)
            else:
                _finish(st)
        else:
            st[F_BID_IDX] = 0
            st[F_BID] = 18
            st[F_BIDVAL0] = 18
            st[F_DECLARER] = 0
            st[F_PHASE] = PH_SKAT
        return
    if p == st[F_BIDDER]:
        if a == PASS:
            _end_duel(st, st[F_RESPONDER])
        else:
            st[F_BID_IDX] = a - BID_BASE
            st[F_BID] = BID_ARRAY[a - BID_BASE]
            st[F_BIDVAL0 + p] = st[F_BID]
            st[F_PLAYER] = st[F_RESPONDER]
    else:
        if a == HOLD:
            st[F_BIDVAL0 + p] = st[F_BID]
            st[F_PLAYER] = st[F_BIDDER]
        else:
            _end_duel(st, st[F_BIDDER])


@njit(cache=True, inline='always')
def _apply_declare(st, a: int) -> None:
    code = DECLARATION_ARRAY[a - DECLARE_BASE]
    st[F_GAME] = code >> 4
    st[F_FLAGS] = code & 15
    if st[F_OPTIONS] & OPT_KONTRA:
        st[F_PHASE] = PH_KONTRA
        st[F_KSTAGE] = 0
        d = st[F_DECLARER]
        st[F_PLAYER] = 1 if d == 0 else 0  # first defender in seat order
    else:
        _start_play(st)


@njit(cache=True, inline='always')
def _apply_kontra(st, a: int) -> None:
    d = st[F_DECLARER]
    if a == KONTRA:
        st[F_KONTRA_BY] = st[F_PLAYER]
        st[F_KONTRA] = 1
        st[F_KSTAGE] = 2
        st[F_PLAYER] = d
    elif a == RE:
        st[F_KONTRA] = 2
        _start_play(st)
    elif st[F_KSTAGE] == 0:  # first defender passed: ask the second one
        st[F_KSTAGE] = 1
        st[F_PLAYER] = 2 if d != 2 else 1
    else:
        _start_play(st)


@njit(cache=True, inline='always')
def _apply_play(st, card: int) -> None:
    # assume_below: the seat, trick position, game and cards of the play phase are in
    # range, so the compiled indexing needs no negative-index wrap-around
    p = assume_below(st[F_PLAYER], 3)
    card = assume_below(card, 32)
    bit = 1 << card
    st[F_HAND0 + p] ^= bit
    st[F_PLAYED0 + p] |= bit
    k = assume_below(st[F_NCARDS], 3)
    if k == 0:
        st[F_TRICK0] = card
        st[F_NCARDS] = 1
        st[F_PLAYER] = p + 1 if p < 2 else 0
        return
    g = assume_below(st[F_GAME], 7)
    t0 = assume_below(st[F_TRICK0], 32)
    st[F_TRICK0 + k] = card
    fm = FOLLOW[g * 32 + t0]
    # did not follow: void in the led (effective) suit (no jump: it is unpredictable)
    st[F_VOID0 + p] |= branchless((fm >> card) & 1 == 0, fm, 0)
    if k == 1:
        st[F_NCARDS] = 2
        st[F_PLAYER] = p + 1 if p < 2 else 0
        return
    t1 = assume_below(st[F_TRICK1], 32)
    w = assume_below(st[F_LEADER], 3) + trick_winner_pos(t0, t1, card, g)
    if w >= 3:
        w -= 3
    st[F_POINTS0 + w] += _PTS[t0] + _PTS[t1] + _PTS[card]
    st[F_TRICKS0 + w] += 1
    st[F_NTRICKS] += 1
    st[F_LAST_WINNER] = w
    st[F_NCARDS] = 0
    st[F_LEADER] = w
    st[F_PLAYER] = w
    if st[F_NTRICKS] == 10 or (g == NULL and w == st[F_DECLARER]):
        _finish(st)


@njit(cache=True, inline='always')
def apply_card(st, card: int) -> None:
    """Apply a legal card in phase ``PH_PLAY``: :func:`apply_action`'s play branch, for a
    loop that already knows the phase (no phase dispatch)."""
    _apply_play(st, card)


@njit(cache=True, inline='always')
def apply_action(st, a: int) -> None:
    """Apply a legal action (callers check legality with :func:`is_legal`)."""
    ph = st[F_PHASE]
    if ph == PH_PLAY:
        _apply_play(st, a)
    elif ph == PH_BID:
        _apply_bid(st, a)
    elif ph == PH_SKAT:
        d = st[F_DECLARER]
        if a == PICKUP:
            st[F_HAND0 + d] |= st[F_SKAT]
            st[F_SKAT] = 0
            st[F_PICKED] = 1
            st[F_DISCARDS] = 0
            st[F_PHASE] = PH_DISCARD
        else:
            st[F_PHASE] = PH_DECLARE
    elif ph == PH_DISCARD:
        d = st[F_DECLARER]
        st[F_HAND0 + d] ^= 1 << a
        st[F_SKAT] |= 1 << a
        st[F_DISCARDS] += 1
        if st[F_DISCARDS] == 2:
            st[F_PHASE] = PH_DECLARE
    elif ph == PH_DECLARE:
        _apply_declare(st, a)
    elif ph == PH_KONTRA:
        _apply_kontra(st, a)


@njit(cache=True, inline='always')
def random_action(st, rng: int):
    """A uniformly random legal action: ``(action, new_rng_state)``."""
    base, lo, hi = legal_set(st)
    nlo = popcount(lo)
    k, rng = rand_below(rng, nlo + popcount(hi))
    if k < nlo:
        return base + nth_bit(lo, k), rng
    return base + 32 + nth_bit(hi, k - nlo), rng


# ----------------------------------------------------------------------------- endings
# Ways a real (ISS) game ends besides being played out. They are record-level events:
# the functions below are called by ``SkatState`` (and so by the ISS importer) and never by
# ``apply_action``, so normal play and the batch kernels are unchanged. Each checks that
# the event is possible and returns False (or -1) without touching ``st`` if not.


@njit(cache=True, inline='always')
def _declared_play(st) -> bool:
    """A declared game between the declaration and the end (Kontra phase or card play)."""
    ph = st[F_PHASE]
    return (ph == PH_PLAY or ph == PH_KONTRA) and st[F_DECLARER] >= 0 and st[F_GAME] != RAMSCH


@njit(cache=True, inline='always')
def _award_rest(st, seat: int) -> None:
    """Give ``seat`` every card not yet in a completed trick (the hands and the trick in
    progress) and every trick not yet played; ``F_NTRICKS`` keeps the tricks played."""
    rest = st[F_HAND0] | st[F_HAND1] | st[F_HAND2]
    for i in range(st[F_NCARDS]):
        rest |= 1 << st[F_TRICK0 + i]
    st[F_POINTS0 + seat] += card_points(rest)
    st[F_TRICKS0 + seat] += 10 - st[F_NTRICKS]


@njit(cache=True)
def end_schwarz_lost(st) -> bool:
    """End an announced-schwarz game (so every suit/grand ouvert game) right after the
    defenders' first trick, as the ISS server does: the game is lost whatever follows and
    its value cannot change (every level is announced). Settled without schneider/schwarz
    flags (server: ``s:0 z:0``), with the points and tricks so far."""
    if st[F_PHASE] != PH_PLAY or st[F_GAME] == NULL or st[F_GAME] == RAMSCH or st[F_NCARDS] != 0:
        return False
    d = st[F_DECLARER]
    if d < 0 or (st[F_FLAGS] & SCHWARZ_ANNOUNCED) == 0:
        return False
    if st[F_NTRICKS] - st[F_TRICKS0 + d] != 1 or st[F_LAST_WINNER] == d:
        return False  # not right after the defenders' first trick
    st[F_END] = END_SCHWARZ_LOST
    _finish(st)
    return True


@njit(cache=True)
def resign(st, seat: int) -> int:
    """Seat ``seat`` resigns (ISS ``RE``): 1 the game ended, 0 noted (a defender; the game
    ends when his partner resigns too), -1 not possible (no declared game in progress, or
    said twice).

    The declarer resigning loses; the cards still out and the tricks not yet played go to
    the defenders (to the seat after the declarer; the server reports only the declarer's
    side). In the first trick there is no schneider/schwarz against him (ISS rule, see
    ``result_fields``). Both defenders resigning give all of them to the declarer (in null:
    to the defenders, the declarer takes no trick) and the game is settled from the cards.
    """
    if not _declared_play(st) or seat < 0 or seat > 2 or (st[F_RESIGNED] >> seat) & 1:
        return -1
    d = st[F_DECLARER]
    st[F_RESIGNED] |= 1 << seat
    if seat == d:
        st[F_END] = END_DECLARER_RESIGNED
        st[F_END_SEAT] = d
        _award_rest(st, d + 1 if d < 2 else 0)
    elif st[F_RESIGNED] | (1 << d) == 7:
        st[F_END] = END_DEFENDERS_RESIGNED
        st[F_END_SEAT] = -1
        _award_rest(st, (d + 1 if d < 2 else 0) if st[F_GAME] == NULL else d)
    else:
        return 0
    _finish(st)
    return 1


@njit(cache=True)
def show_cards(st, seat: int, cards: int) -> bool:
    """The declarer shows ``cards`` (a subset of his hand; ISS ``SC``): recorded in
    ``F_SHOWN``, play goes on."""
    if not _declared_play(st) or seat != st[F_DECLARER] or cards & ~st[F_HAND0 + seat]:
        return False
    st[F_SHOWN] |= cards
    return True


@njit(cache=True)
def abandon(st, seat: int, reason: int) -> bool:
    """Seat ``seat`` timed out (``reason`` END_TIMEOUT, ISS ``w TI.s``) or left the table
    (END_LEFT, ``w LE.s``): the game ends at once and is not scored (a penalty game, the
    server's ``d:-1 penalty v:0``)."""
    if st[F_PHASE] == PH_DONE or seat < 0 or seat > 2 or (reason != END_TIMEOUT and reason != END_LEFT):
        return False
    st[F_END] = reason
    st[F_END_SEAT] = seat
    _finish(st)
    return True


# ----------------------------------------------------------------------------- results


@njit(cache=True, _nrt=False)  # no allocation: no reference counting of ``out`` per deal
def result_fields(st, out) -> None:
    """Settle a finished game into ``out`` (int64[N_RESULT]).

    Card points per seat (``R_PTS*``) are trick points; the skat is added to the
    declarer in ``R_DECL_POINTS`` and, in Ramsch, to the winner of the last trick.
    Passed-in games have declarer -1 and all scores 0, and so have the penalty endings
    (time-out, a player left: no game is scored). A resigned or stopped game
    (``F_END``, see "Endings") is settled from the points and tricks it was given.
    """
    out[:] = 0
    end = st[F_END]
    if end >= END_TIMEOUT:
        out[R_DECLARER] = -1
        out[R_GAME] = -1
        return
    d = st[F_DECLARER]
    g = st[F_GAME]
    out[R_DECLARER] = d
    out[R_GAME] = g
    out[R_FLAGS] = st[F_FLAGS]
    out[R_BID] = st[F_BID]
    out[R_PICKED] = st[F_PICKED]
    out[R_KONTRA] = st[F_KONTRA]
    for s in range(3):
        out[R_PTS0 + s] = st[F_POINTS0 + s]
    skat_pts = card_points(st[F_SKAT])
    if g == RAMSCH:
        out[R_PTS0 + st[F_LAST_WINNER]] += skat_pts
        top = max(out[R_PTS0], max(out[R_PTS1], out[R_PTS2]))
        for s in range(3):
            if out[R_PTS0 + s] == top:
                out[R_SCORE0 + s] = -top
                out[R_SF0 + s] = -top
        out[R_LIST_SCORE] = 0
        return
    if d < 0:  # passed in
        return
    dpts = st[F_POINTS0 + d] + skat_pts
    dtr = st[F_TRICKS0 + d]
    mat = matadors_of(st[F_DEALT0 + d] | st[F_DEALT_SKAT], g)
    lp, lt = dpts, dtr  # the points and tricks that decide the levels
    if end == END_SCHWARZ_LOST or (end == END_DECLARER_RESIGNED and st[F_NTRICKS] == 0):
        lp, lt = 60, 1  # neither side schneider or schwarz (the announced levels still count)
    settle_into(out, d, g, st[F_FLAGS], st[F_BID], st[F_PICKED], st[F_KONTRA], mat, dpts, dtr, lp, lt,
                end == END_DECLARER_RESIGNED)



@njit(cache=True, _nrt=False)
def settle_forfeit(st, offender: int, out) -> None:
    """Settle into ``out`` (int64[N_RESULT]) the game ``st`` when it ends because seat
    ``offender`` broke the rules (its agent raised, returned an illegal action or ran out of
    time), as ISkO 4.1.4/4.1.5 rule a violation: the guilty side loses at the simple level.

    - **Ramsch**: the offender alone loses, charged as if it had taken every card (-120,
      Seeger-Fabian -120); the others score 0;
    - **declarer**, after the declaration: the game is lost at its declared value at the
      simple level, settled at the edge just missing its goal
      (:data:`skatsim.scoring.GOAL_EDGES`: the announced levels count, schneider or schwarz
      against him do not; null: lost);
    - **declarer**, before declaring (the skat decision, the discard, the declaration): the
      game is lost at the bid, recorded as the cheapest suit or grand game (hand when he has
      not picked up the skat in the declaration) whose value with his matadors reaches the bid
      (the lowest game id on a tie), or, when none does, the most valuable one, charged as
      overbid (ISkO 3.4.2 / 4.1.4);
    - **defender**: the declarer wins at the simple level, settled at the edge reaching his
      goal (61 card points; 90 with schneider announced; every trick with schwarz announced
      or ouvert; null: no trick); an overbid declarer still loses;
    - nobody has declared yet (a failure in the bidding where no pass can stand in): no game
      (declarer and game -1).

    The trick points per seat and the declarer's points (with the skat) and tricks are those
    taken so far. A failure in the bidding or at Kontra/Re is not settled here: the table
    substitutes a pass (:class:`agents.arena.seat.Seat` holds that part of the rule).
    """
    out[:] = 0
    for s in range(3):
        out[R_PTS0 + s] = st[F_POINTS0 + s]
    g = st[F_GAME]
    d = st[F_DECLARER]
    if g == RAMSCH:
        out[R_DECLARER] = -1
        out[R_GAME] = RAMSCH
        out[R_SCORE0 + offender] = -120
        out[R_SF0 + offender] = -120
        return
    if d < 0:
        out[R_DECLARER] = -1
        out[R_GAME] = -1
        return
    cards = st[F_DEALT0 + d] | st[F_DEALT_SKAT]
    picked = st[F_PICKED]
    bid = st[F_BID]
    if g < 0:  # before the declaration: lost at the bid, as the cheapest game reaching it
        flags = HAND if st[F_PHASE] == PH_DECLARE and picked == 0 else 0
        reach_g, reach_v, top_g, top_v = -1, 0, -1, -1
        for game in range(GRAND + 1):
            v = game_value(game, flags, matadors_of(cards, game))
            if v >= bid and (reach_g < 0 or v < reach_v):
                reach_g, reach_v = game, v
            if v > top_v:
                top_g, top_v = game, v
        g = reach_g if reach_g >= 0 else top_g
        picked = 0 if flags & HAND else 1  # recorded as the contract reads: not hand, so picked up
        goal, lost = GOAL_61, True
    else:
        flags = st[F_FLAGS]
        goal, lost = goal_of(g, flags), offender == d
    e = 2 if lost else 0  # the miss or the reach edge of the goal
    settle_into(out, d, g, flags, bid, picked, st[F_KONTRA], matadors_of(cards, g),
                st[F_POINTS0 + d] + card_points(st[F_SKAT]), st[F_TRICKS0 + d], GOAL_EDGES[goal, e],
                GOAL_EDGES[goal, e + 1], False)


def copy_state(dst, src) -> None:
    """``dst[:N_FIELDS] = src[:N_FIELDS]``: copy a state vector into another one.

    Compiled for two C-contiguous int64 vectors it is one fixed-size ``memcpy`` that LLVM
    turns into a few vector moves (numba compiles ``dst[:] = src`` as a broadcasting loop
    with an overlap test, and a plain loop as 52 scalar moves). ``dst`` and ``src`` are
    distinct vectors.
    """
    dst[:N_FIELDS] = src[:N_FIELDS]


@intrinsic
def _memcpy_state(typingctx, dst, src):
    sig = types.void(dst, src)

    def codegen(context, builder, signature, args):
        d = context.make_array(signature.args[0])(context, builder, args[0])
        s = context.make_array(signature.args[1])(context, builder, args[1])
        cgutils.raw_memcpy(builder, d.data, s.data, context.get_constant(types.intp, N_FIELDS), 8)
        return context.get_dummy_value()

    return sig, codegen


@overload(copy_state, inline='always')
def _copy_state_ol(dst, src):
    if (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.layout == 'C'
            and src.layout == 'C' and dst.dtype == types.int64 and src.dtype == types.int64):
        return lambda dst, src: _memcpy_state(dst, src)

    def impl(dst, src):
        for f in range(N_FIELDS):
            dst[f] = src[f]

    return impl


@njit(cache=True, inline='always')
def _hide_unseen(view, st, seat: int) -> None:
    """Zero in ``view`` the fields of ``st`` that ``seat`` cannot see (``view`` may be ``st``:
    the fields it reads are never hidden)."""
    d = st[F_DECLARER]
    open_hand = d >= 0 and (st[F_FLAGS] & OUVERT) != 0 and st[F_PHASE] >= PH_KONTRA
    for q in range(3):
        if q != seat:
            view[F_DEALT0 + q] = 0
            if not (open_hand and q == d):
                view[F_HAND0 + q] = 0
    if not (seat == d and st[F_PICKED] != 0):
        view[F_SKAT] = 0
        view[F_DEALT_SKAT] = 0


@njit(cache=True, inline='always')
def mask_view(st, seat: int, view) -> None:
    """Copy into ``view`` what ``seat`` may know of ``st``; hidden fields are zeroed.

    Hidden: the other seats' hands (except an ouvert declarer's once declared), their dealt
    hands, and the skat (its dealt cards and the discards), which only a declarer who
    picked it up has seen. Everything else in the vector is public. A jitted policy gets
    only this view; ``legal_set(view)`` is the mover's legal set.
    """
    copy_state(view, st)
    _hide_unseen(view, st, seat)


@njit(cache=True, inline='always')
def mask_in_place(st, seat: int):
    """:func:`mask_view` without the copy: hide in ``st`` itself what ``seat`` cannot see
    and return the hidden fields for :func:`unmask`. Between the two calls ``st`` *is* the
    seat's view, for a trusted built-in policy that does not write to its view (the batch
    engine's rule-based seats: 8 stores and loads instead of a 52-field copy)."""
    saved = (st[F_HAND0], st[F_HAND1], st[F_HAND2], st[F_SKAT],
             st[F_DEALT0], st[F_DEALT1], st[F_DEALT2], st[F_DEALT_SKAT])
    _hide_unseen(st, st, seat)
    return saved


@njit(cache=True, inline='always')
def unmask(st, saved) -> None:
    """Undo :func:`mask_in_place` (``saved``: what it returned)."""
    st[F_HAND0], st[F_HAND1], st[F_HAND2], st[F_SKAT] = saved[0], saved[1], saved[2], saved[3]
    st[F_DEALT0], st[F_DEALT1], st[F_DEALT2], st[F_DEALT_SKAT] = saved[4], saved[5], saved[6], saved[7]


@njit(cache=True)
def step(st, a: int):
    """Apply ``a`` if legal: ``(seat that acted or -1 if illegal, new phase, *legal_set)``.

    An illegal action leaves the state unchanged. Returning the next legal set saves the
    Python state a second call into compiled code per move.
    """
    p = -1
    if is_legal(st, a):
        p = st[F_PLAYER]
        apply_action(st, a)
    base, lo, hi = legal_set(st)
    return p, st[F_PHASE], base, lo, hi
