"""The layouts of the compiled game: phases, state-vector fields, endings, result fields.

Plain int constants, with no numba in sight, so every module can name the fields of a
state vector (:mod:`skatsim.kernels.game`, the state machine that writes them) or of a
result array (:func:`skatsim.kernels.game.result_fields`, :func:`skatsim.scoring.settle_into`)
without importing the kernels. Numba freezes them as compile-time constants.

>>> PHASE_NAMES[PH_PLAY], N_FIELDS > F_SHOWN, END_NAMES[END_DECLARER_RESIGNED]
('play', True, 'declarer_resigned')
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- seats
#: Seat names by seat number: 0 forehand (leads the first trick), 1 middlehand, 2 rearhand.
SEAT_NAMES = ("forehand", "middlehand", "rearhand")

# ----------------------------------------------------------------------------- phases
PH_BID, PH_SKAT, PH_DISCARD, PH_DECLARE, PH_KONTRA, PH_PLAY, PH_DONE = range(7)
PHASE_NAMES = ("bidding", "skat", "discard", "declare", "kontra", "play", "done")

# ----------------------------------------------------------------------------- fields
(F_PHASE, F_PLAYER,
 F_HAND0, F_HAND1, F_HAND2, F_SKAT,
 F_DEALT0, F_DEALT1, F_DEALT2, F_DEALT_SKAT,
 F_BID, F_BID_IDX, F_BID_STAGE, F_BIDDER, F_RESPONDER,
 F_DECLARER, F_GAME, F_FLAGS, F_PICKED, F_DISCARDS,
 F_KONTRA, F_KSTAGE,
 F_LEADER, F_NCARDS, F_TRICK0, F_TRICK1, F_TRICK2, F_NTRICKS,
 F_POINTS0, F_POINTS1, F_POINTS2, F_TRICKS0, F_TRICKS1, F_TRICKS2,
 F_PLAYED0, F_PLAYED1, F_PLAYED2, F_LAST_WINNER, F_OPTIONS,
 F_BIDVAL0, F_BIDVAL1, F_BIDVAL2, F_PASSED, F_KONTRA_BY,
 F_VOID0, F_VOID1, F_VOID2,
 F_END, F_END_SEAT, F_RESIGNED, F_SHOWN, N_FIELDS) = range(52)

# Public history kept in the vector (so observations and jitted policies need no replay):
# F_BIDVAL*: highest bid value each seat named or held (0: none); F_PASSED: bit s once seat
# s passed in the bidding; F_KONTRA_BY: seat that said Kontra (-1: nobody; Re is always the
# declarer); F_VOID*: cards a seat has shown it cannot hold (when it did not follow suit,
# the whole follow mask of the led card).
# Record-level endings (never reached by apply_action, so normal play is unchanged; see
# "Endings" below): F_END: how the game ended (END_*; 0 while running and when played
# out); F_END_SEAT: the seat that resigned, timed out or left (-1: none); F_RESIGNED: bit s
# once seat s said RE (a defender's RE waits for his partner's); F_SHOWN: the cards the
# declarer showed (ISS ``SC``; play goes on).

# ----------------------------------------------------------------------------- endings
# How a game ended (``F_END``); see "Endings" in :mod:`skatsim.kernels.game`.
END_PLAYED, END_SCHWARZ_LOST, END_DECLARER_RESIGNED, END_DEFENDERS_RESIGNED, END_TIMEOUT, END_LEFT = range(6)
END_NAMES = ("played", "schwarz_lost", "declarer_resigned", "defenders_resigned", "timeout", "left")

# ----------------------------------------------------------------------------- results
# result_fields() layout (:func:`skatsim.kernels.game.result_fields`)
(R_DECLARER, R_GAME, R_FLAGS, R_BID, R_PICKED, R_KONTRA, R_DECL_POINTS, R_DECL_TRICKS, R_MATADORS,
 R_WON, R_SCHNEIDER, R_SCHWARZ, R_MULT, R_VALUE, R_OVERBID, R_CHARGED, R_LIST_SCORE,
 R_SCORE0, R_SCORE1, R_SCORE2, R_SF0, R_SF1, R_SF2, R_PTS0, R_PTS1, R_PTS2, N_RESULT) = range(27)
