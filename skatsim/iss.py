"""ISS (International Skat Server) game records in and out.

The format (``ISS_FORMAT.md``) is one game per line::

    (;GM[Skat]PC[International Skat Server]...ID[541932]...P0[zoot]P1[kermit]P2[foo]...
     MV[w HA.SK.... 1 p 2 18 0 p 2 s w H8.CK 2 D.ST.H8 0 SA ...]R[d:2 loss v:-54 m:-2 ...] ;)

- :func:`parse_iss` reads one line into an :class:`IssGame` (players, deal, moves, the
  server's :class:`IssResult`); a malformed line raises :class:`IssError` naming its line
  number and the bad token.
- :func:`replay` plays an :class:`IssGame` through the rules (``SkatState``: bidding, skat
  pickup or hand, the discards in the combined ``D.C7.C8`` form or split into their own
  move, the declaration with ouvert cards, every card) and the record-level endings:
  ``SC`` (shown cards, play goes on), ``RE`` (resignations, the remaining cards awarded as
  the server does), ``w TI.s`` / ``w LE.s`` (time-out, a player left: kept and flagged as a
  penalty game) and the server's stop after the defenders' first trick in an announced
  schwarz (or suit/grand ouvert) game.
- :func:`check` compares the replay with the server's result line (declarer, win/loss,
  value, matadors, overbid, points, tricks, schneider, schwarz, resigned, left, time-out)
  and returns the :class:`Mismatch` es.
- :func:`iter_iss` streams a file (plain text or ``.bz2``) record by record in flat
  memory, collecting malformed records instead of stopping; the importer to parquet
  tables is :mod:`skatsim.iss_import`.
- :func:`to_iss` writes a ``SkatState`` (or, with :func:`rows_to_iss`, simulate or
  tournament rows with recorded actions) as an ISS record that :func:`parse_iss` and
  :func:`replay` read back to the same game.

>>> g = parse_iss(EXAMPLE)
>>> g.id, g.players, g.result.value
(541932, ('zoot', 'kermit', 'foo'), -54)
>>> s = replay(g)
>>> s.result.list_score, s.result.matadors, check(g, s)
(-54, -2, [])
>>> replay(parse_iss(to_iss(s, game_id=1))).history() == s.history()
True
"""

from __future__ import annotations

import bz2
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from .actions import (BID_BASE, DECLARE_BASE, HAND, HOLD, PASS, PICKUP, bid_action,
                      declare_action)
from .cards import CardSet
from .contracts import BID_VALUES, DECLARATIONS, Contract
from .contracts import HAND as HAND_FLAG
from .deal import Deal
from .state import SkatState

__all__ = ["IssError", "IssResult", "IssGame", "Mismatch", "parse_iss", "parse_result", "replay", "replay_notes",
           "check", "check_source", "iter_iss", "iter_lines", "read_iss", "to_iss", "rows_to_iss", "write_iss",
           "EXAMPLE", "HIDDEN_CARD", "REPLAY_NOTES", "ISS_CARD_NAMES", "iss_cards"]

#: A real record (ISS_FORMAT.md §5 (a)): a diamonds game lost with 59 points.
EXAMPLE = ("(;GM[Skat]PC[International Skat Server]CO[]SE[24072]ID[541932]DT[2010-12-06/18:59:24/UTC]"
           "P0[zoot]P1[kermit]P2[foo]R0[]R1[]R2[0.0]MV[w HA.SK.SJ.SA.CQ.S8.C9.H7.H9.DQ.CJ.S9.DJ.S7.D9.SQ."
           "C8.HQ.DK.CA.D8.D7.DT.CT.ST.C7.HK.DA.HT.HJ.H8.CK 1 p 2 18 0 p 2 s w H8.CK 2 D.ST.H8 0 SA 1 S7 "
           "2 DA 2 HJ 0 SJ 1 D9 0 DQ 1 DJ 2 D7 1 CJ 2 D8 0 CQ 1 CA 2 C7 0 C9 1 S9 2 DT 0 S8 2 CT 0 H7 1 C8 "
           "2 CK 0 H9 1 HQ 2 HK 0 HA 1 SQ 0 SK 1 DK 2 HT ]R[d:2 loss v:-54 m:-2 bidok p:59 t:4 s:0 z:0 "
           "p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)")

# --------------------------------------------------------------------------- cards
_SUITS = "DHSC"  # card id = suit * 8 + rank (skatsim.cards)
_RANKS = "789QKTAJ"
ISS_CARD_NAMES: tuple[str, ...] = tuple(_SUITS[c >> 3] + _RANKS[c & 7] for c in range(32))
_CARD_OF: dict[str, int] = {n: c for c, n in enumerate(ISS_CARD_NAMES)}
#: A hidden card (``??``): the server did not reveal it. In the deal it is reconstructed
#: from the moves (:func:`parse_iss`), in a server reveal or a shown hand it is skipped.
HIDDEN_CARD = "??"
_BID_OF: dict[str, int] = {str(v): bid_action(v) for v in BID_VALUES}
_PROP_RE = re.compile(r"(\w+)\[([^\]]*)\]")
_SEATS = {"0": 0, "1": 1, "2": 2}


def iss_cards(mask: int) -> str:
    """ISS text of a card mask, ``.``-joined (ten is ``T``), in display order."""
    return ".".join(ISS_CARD_NAMES[c] for c in CardSet.from_mask(mask))


class IssError(ValueError):
    """A record that cannot be read or replayed: names the line, the record id, the bad
    token and why. ``kind`` is a short category for import summaries."""

    def __init__(self, reason: str, *, line: int = 0, record_id: int | None = None, token: str | None = None,
                 kind: str = "malformed") -> None:
        self.reason, self.line, self.record_id, self.token, self.kind = reason, line, record_id, token, kind
        where = f"line {line}" if line else "ISS record"
        if record_id is not None:
            where += f" (ID {record_id})"
        tok = f": bad token {token!r}" if token is not None else ""
        # a file that cannot be read at all is not about a record
        super().__init__(reason if kind == "file" and not line else f"{where}{tok}: {reason}")

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "id": self.record_id, "kind": self.kind, "token": self.token,
                "reason": self.reason}


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class IssResult:
    """The server's ``R[...]`` line. ``declarer`` -1 when nobody played (passed, penalty);
    ``outcome`` ``"win"``, ``"loss"``, ``"penalty"`` or ``"passed"``; ``value`` the signed
    list score (``v:``); ``matadors`` signed (``m:``); ``resigned`` ``None`` when the
    record leaves ``r:`` out. ``extra``: tokens the importer does not know."""

    text: str
    outcome: str
    declarer: int = -1
    value: int = 0
    matadors: int = 0
    overbid: bool = False
    points: int = 0
    tricks: int = 0
    schneider: bool = False
    schwarz: bool = False
    penalties: tuple[int, int, int] = (0, 0, 0)
    left: int = -1
    timeout: int = -1
    resigned: bool | None = None
    extra: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


@dataclass(frozen=True)
class IssGame:
    """One ISS record. ``players``: P0 P1 P2 (forehand, middlehand, rearhand of this game);
    ``cards``: the 32 dealt cards in record order (10 per seat, then the skat);
    ``moves``: ``(who, token)`` after the deal (``who`` ``"w"``, ``"0"``, ``"1"``, ``"2"``);
    ``line``: line number in its file (0 for a string); ``hidden``: cards of the deal the
    record hides (``??``), filled in from the moves; ``guessed``: how many of those the
    moves do not determine (given the unseen cards in card order: the replay may then differ
    from the server's result, which :func:`check` reports)."""

    id: int
    series: int | None
    date: str
    place: str
    players: tuple[str, str, str]
    ratings: tuple[str, str, str]
    cards: tuple[int, ...]
    moves: tuple[tuple[str, str], ...]
    result: IssResult
    line: int = 0
    comment: str = ""
    hidden: int = 0
    guessed: int = 0

    @property
    def deal(self) -> Deal:
        m = [0, 0, 0, 0]
        for i, c in enumerate(self.cards):
            m[min(i // 10, 3)] |= 1 << c
        return Deal((CardSet.from_mask(m[0]), CardSet.from_mask(m[1]), CardSet.from_mask(m[2])),
                    CardSet.from_mask(m[3]))

    def error(self, reason: str, token: str | None = None, kind: str = "illegal") -> IssError:
        return IssError(reason, line=self.line, record_id=self.id, token=token, kind=kind)


def _int(text: str, what: str, line: int, rid: int | None) -> int:
    try:
        return int(text)
    except ValueError:
        raise IssError(f"{what} must be an integer", line=line, record_id=rid, token=text) from None


def parse_result(text: str, *, line: int = 0, record_id: int | None = None) -> IssResult:
    """Parse the ``R[...]`` value (``"passed"`` or ``d:2 loss v:-54 ...``)."""
    t = text.strip()
    if t == "passed":
        return IssResult(text=t, outcome="passed")
    kv: dict[str, str] = {}
    outcome = ""
    overbid = False
    extra = []
    for tok in t.split():
        k, sep, v = tok.partition(":")
        if sep:
            kv[k] = v
        elif tok in ("win", "loss", "penalty"):
            outcome = tok
        elif tok in ("bidok", "overbid"):
            overbid = tok == "overbid"
        else:
            extra.append(tok)
    if not outcome:
        raise IssError("the result names no outcome (win, loss, penalty or passed)", line=line,
                       record_id=record_id, token=t[:60], kind="malformed")
    for need in ("d", "v"):
        if need not in kv:
            raise IssError(f"the result lacks {need}:", line=line, record_id=record_id, token=t[:60])

    def num(k: str, default: int = 0) -> int:
        return _int(kv[k], f"result field {k}:", line, record_id) if k in kv else default

    def flag(k: str) -> bool:
        return num(k) != 0

    return IssResult(text=t, outcome=outcome, declarer=num("d", -1), value=num("v"), matadors=num("m"),
                     overbid=overbid, points=num("p"), tricks=num("t"), schneider=flag("s"), schwarz=flag("z"),
                     penalties=(num("p0"), num("p1"), num("p2")), left=num("l", -1), timeout=num("to", -1),
                     resigned=None if "r" not in kv else flag("r"),
                     extra=tuple(extra) + tuple(f"{k}:{v}" for k, v in kv.items()
                                                if k not in _RESULT_KEYS))


_RESULT_KEYS = frozenset(("d", "v", "m", "p", "t", "s", "z", "p0", "p1", "p2", "l", "to", "r"))


def _check_move_token(who: str, tok: str) -> bool:
    """Cheap syntax check of one move (the replay checks the rules)."""
    if who == "w":
        return tok.startswith(("TI.", "LE.")) or all(c in _CARD_OF or c == HIDDEN_CARD for c in tok.split("."))
    if tok in _CARD_OF or tok in _BID_OF or tok in ("y", "p", "s", "RE", "SC"):
        return True
    parts = tok.split(".")
    head = parts[0]
    if head == "SC":
        return all(c in _CARD_OF or c == HIDDEN_CARD for c in parts[1:])
    if head in _CARD_OF:  # split-form discards
        return len(parts) == 2 and parts[1] in _CARD_OF
    return head[:1] in "DHSCGN" and all(ch in "HSZO" for ch in head[1:]) and all(c in _CARD_OF for c in parts[1:])


def parse_iss(text: str, line: int = 0) -> IssGame:
    """Parse one ISS record line; :class:`IssError` names the line and the bad token."""
    s = text.strip()
    if not s.startswith("(;") or not s.endswith(")"):
        raise IssError("an ISS record starts with '(;' and ends with ';)'", line=line, token=s[:30])
    props: dict[str, str] = {}
    for m in _PROP_RE.finditer(s):
        props.setdefault(m.group(1), m.group(2))
    rid = None
    if "ID" in props:
        rid = _int(props["ID"], "ID", line, None)
    for key in ("MV", "R"):
        if key not in props:
            raise IssError(f"the record has no {key}[...]", line=line, record_id=rid, token=s[:40])
    if props.get("GM", "Skat") != "Skat":
        raise IssError("GM must be Skat", line=line, record_id=rid, token=props["GM"])
    toks = props["MV"].split()
    if len(toks) % 2:
        raise IssError("MV holds an odd number of tokens (moves are '<who> <action>' pairs)", line=line,
                       record_id=rid, token=toks[-1] if toks else "")
    if len(toks) < 2 or toks[0] != "w":
        raise IssError("MV must open with the deal 'w <32 cards>'", line=line, record_id=rid,
                       token=" ".join(toks[:2]))
    deck = toks[1].replace("|", ".").split(".")
    cards = []
    for c in deck:
        cid = -1 if c == HIDDEN_CARD else _CARD_OF.get(c)
        if cid is None:
            raise IssError("not a card in the deal (a card is a suit C S H D and a rank A K Q J T 9 8 7, "
                           "or ?? for a hidden card)", line=line, record_id=rid, token=c)
        cards.append(cid)
    known = [c for c in cards if c >= 0]
    if len(cards) != 32 or len(set(known)) != len(known):
        raise IssError(f"the deal must list the 32 cards once each, got {len(cards)} cards "
                       f"({len(set(known))} different, {len(cards) - len(known)} hidden)", line=line,
                       record_id=rid, token=toks[1][:40])
    moves = []
    for i in range(2, len(toks), 2):
        who, tok = toks[i], toks[i + 1]
        if who not in ("w", "0", "1", "2"):
            raise IssError(f"move {i // 2}: the mover must be w, 0, 1 or 2", line=line, record_id=rid, token=who)
        if not _check_move_token(who, tok):
            raise IssError(f"move {i // 2} ({who} ...): not an ISS action", line=line, record_id=rid, token=tok)
        moves.append((who, tok))
    series = _int(props["SE"], "SE", line, rid) if props.get("SE") else None
    result = parse_result(props["R"], line=line, record_id=rid)
    hidden = len(cards) - len(known)
    guessed = 0
    if hidden:
        cards, guessed = _fill_hidden(cards, moves, line, rid)
    return IssGame(id=rid if rid is not None else 0, series=series, date=props.get("DT", ""),
                   place=props.get("PC", ""), players=(props.get("P0", ""), props.get("P1", ""), props.get("P2", "")),
                   ratings=(props.get("R0", ""), props.get("R1", ""), props.get("R2", "")),
                   cards=tuple(cards), moves=tuple(moves), result=result, line=line, comment=props.get("CO", ""),
                   hidden=hidden, guessed=guessed)


def _cards_in(tok: str) -> list[int]:
    """The cards a move token names (a card, split discards, a contract's discards and open
    cards, shown cards, a server reveal); hidden ``??`` left out."""
    return [_CARD_OF[c] for c in tok.split(".") if c in _CARD_OF]


def _fill_hidden(cards: list[int], moves: list[tuple[str, str]], line: int,
                 rid: int | None) -> tuple[list[int], int]:
    """Fill the hidden (-1) cards of a deal from the moves: a seat's hidden slots take the
    unseen cards it plays, discards, lists or shows; the declarer's (who picked up) also come
    from the skat reveal; the rest of the unseen cards fill what is left in card order.
    Returns the deal and how many cards were guessed that way."""
    slot_of = [min(i // 10, 3) for i in range(32)]  # 0..2 the seats, 3 the skat
    unseen = sorted(set(range(32)) - {c for c in cards if c >= 0})
    free = set(unseen)
    by_owner: list[list[int]] = [[], [], [], []]
    picked = False
    for who, tok in moves:
        if who == "w":
            if not tok.startswith(("TI.", "LE.")) and picked:
                by_owner[3] += _cards_in(tok)  # the skat shown to the declarer
            continue
        if tok == "s":
            picked = True
            continue
        by_owner[int(who)] += _cards_in(tok[3:] if tok.startswith("SC.") else tok)
    out = list(cards)
    for owner in (3, 0, 1, 2):
        for c in by_owner[owner]:
            if c not in free:
                continue
            holes = [i for i in range(32) if out[i] < 0 and slot_of[i] == owner]
            if not holes and owner != 3 and picked:  # a declarer's card from the skat
                holes = [i for i in range(32) if out[i] < 0 and slot_of[i] == 3]
            if not holes:
                raise IssError(f"the record hides cards but seat {owner} shows more unseen cards than it has hidden",
                               line=line, record_id=rid, token=ISS_CARD_NAMES[c], kind="illegal")
            out[holes[0]] = c
            free.discard(c)
    rest = sorted(free)
    guessed = 0
    for i in range(32):
        if out[i] < 0:
            out[i] = rest[guessed]
            guessed += 1
    return out, guessed


# --------------------------------------------------------------------------- replay
def _open_cards(g: IssGame, cards: list[str], tok: str) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << _CARD_OF[c]
    if len(cards) != 10 or bin(mask).count("1") != 10:
        raise g.error("an ouvert declaration lists the declarer's 10 cards", tok)
    return mask


def _declare(g: IssGame, s: SkatState, head: str, tok: str, hand: bool) -> None:
    try:
        c = Contract.parse(head)
    except ValueError as e:
        raise g.error(str(e), tok) from None
    if hand:
        c = Contract(c.game, c.flags | HAND_FLAG)
    a = declare_action(c)
    if not s.is_legal(a):
        why = "after a skat pickup" if not hand else "as a hand game"
        raise g.error(f"{c.to_text()} ({c.describe()}) is not a legal declaration {why} at bid {s.bid}", tok)
    s.apply_action(a)


def _apply(g: IssGame, s: SkatState, a: int, tok: str) -> None:
    try:
        s.apply_action(a)
    except ValueError:
        raise g.error(f"illegal in phase {s.phase} for seat {s.current_player()} "
                      f"(legal: {s.legal_text()})", tok) from None


def replay(g: IssGame) -> SkatState:
    """Play the record through the rules; raises :class:`IssError` (``kind="illegal"``)
    at the first move the rules refuse, naming it. The returned state is terminal (a
    record that stops before the end, other than the server's schwarz stop and a single
    defender's resignation, is an error). :func:`replay_notes` says what was unusual."""
    return replay_notes(g)[0]


#: Notes :func:`replay_notes` can give a record (the ``notes`` column of an import).
REPLAY_NOTES = ("hidden_cards", "guessed_cards", "single_resignation")


def replay_notes(g: IssGame) -> tuple[SkatState, tuple[str, ...]]:
    """:func:`replay`, and what was unusual about the record (:data:`REPLAY_NOTES`):
    ``hidden_cards`` (the deal hid cards, filled in from the moves), ``guessed_cards`` (some
    of them the moves do not determine), ``single_resignation`` (the record ends after one
    defender's ``RE``, which the second ISS server accepts alone: the game is settled as a
    resignation of both defenders, the declarer taking every card still out).

    >>> g = parse_iss(EXAMPLE.replace("w HA.SK.SJ", "w ??.SK.SJ"))
    >>> s, notes = replay_notes(g)
    >>> g.hidden, g.guessed, notes, s.result.list_score
    (1, 0, ('hidden_cards',), -54)
    """
    notes: list[str] = []
    if g.hidden:
        notes.append("hidden_cards")
    if g.guessed:
        notes.append("guessed_cards")
    last_resign = -1
    s = SkatState.new_game(deal=g.deal)
    pending: str | None = None  # a contract announced before its split-form discards
    pending_open = 0
    for i, (who, tok) in enumerate(g.moves):
        if who == "w":
            if tok.startswith(("TI.", "LE.")):
                seat = _SEATS.get(tok[3:])
                if seat is None or s.is_terminal():
                    raise g.error("a time-out/left event needs a seat 0..2 and a game in progress", tok)
                s.abandon(seat, "timeout" if tok[0] == "T" else "left")
            elif s.phase == "discard" and s.declarer is not None:
                if HIDDEN_CARD in tok.split("."):
                    continue  # the server did not reveal the skat to the archive
                shown = 0
                for c in tok.split("."):
                    shown |= 1 << _CARD_OF[c]
                if shown != s.deal.skat.mask:
                    raise g.error(f"the server shows the skat {iss_cards(shown)} but the dealt skat is "
                                  f"{iss_cards(s.deal.skat.mask)}", tok)
            else:
                raise g.error(f"a server move in phase {s.phase}", tok)
            continue
        seat = _SEATS[who]
        if tok == "RE" or tok == "SC" or tok.startswith("SC."):
            try:
                if tok == "RE":
                    s.resign(seat)
                    last_resign = seat
                else:
                    named = [c for c in tok.split(".")[1:] if c != HIDDEN_CARD]
                    s.show_cards(seat, None if tok == "SC" or not named else " ".join(named))
            except ValueError as e:
                raise g.error(str(e), tok) from None
            continue
        if s.is_terminal():
            raise g.error(f"move {i + 1} comes after the end of the game ({s.ending})", tok)
        if seat != s.current_player():
            raise g.error(f"move {i + 1}: seat {seat} moves but it is seat {s.current_player()}'s turn "
                          f"(phase {s.phase})", tok)
        ph = s.phase
        if ph == "play":
            card = _CARD_OF.get(tok)
            if card is None:
                raise g.error("a card is expected in the card play", tok)
            try:
                s.apply_action(card)
            except ValueError:
                _apply(g, s, card, tok)  # raises the IssError naming the move
        elif ph == "bidding":
            a = _BID_OF.get(tok)
            if a is None:
                a = HOLD if tok == "y" else PASS if tok == "p" else -1
            if a < 0:
                raise g.error("a bid, 'y' or 'p' is expected in the bidding", tok)
            _apply(g, s, a, tok)
        elif ph == "skat":
            if tok == "s":
                _apply(g, s, PICKUP, tok)
            else:
                parts = tok.split(".")
                _apply(g, s, HAND, tok)
                _declare(g, s, parts[0], tok, hand=True)
                if len(parts) > 1:
                    _check_open(g, s, _open_cards(g, parts[1:], tok), tok)
        elif ph in ("discard", "declare"):
            parts = tok.split(".")
            if parts[0] in _CARD_OF:  # discards as their own move (after or before the contract)
                if ph != "discard":
                    raise g.error("the discards are already made", tok)
                for c in parts:
                    _apply(g, s, _CARD_OF[c], tok)
                if pending is not None:
                    _declare(g, s, pending, tok, hand=False)
                    if pending_open:
                        _check_open(g, s, pending_open, tok)
                    pending, pending_open = None, 0
            elif ph == "declare":
                _declare(g, s, parts[0], tok, hand=False)
                if len(parts) > 1:
                    _check_open(g, s, _open_cards(g, parts[1:], tok), tok)
            elif len(parts) == 1 or len(parts) == 11:  # contract first, discards follow as a move
                if pending is not None:
                    raise g.error("a second contract before the discards", tok)
                pending = parts[0]
                pending_open = _open_cards(g, parts[1:], tok) if len(parts) == 11 else 0
            else:
                if len(parts) not in (3, 13):
                    raise g.error("a declaration after the pickup is '<game>.<d1>.<d2>' (null ouvert: and "
                                  "the 10 open cards)", tok)
                for c in parts[1:3]:
                    _apply(g, s, _CARD_OF[c], tok)
                _declare(g, s, parts[0], tok, hand=False)
                if len(parts) == 13:
                    _check_open(g, s, _open_cards(g, parts[3:], tok), tok)
        else:  # kontra: not in ISS records
            raise g.error(f"unexpected move in phase {ph}", tok)
    if not s.is_terminal():
        d = s.declarer
        if last_resign >= 0 and d is not None and last_resign != d and g.moves and g.moves[-1][1] == "RE":
            s.resign(3 - d - last_resign)  # one defender's RE ends it (the second server's rule)
            notes.append("single_resignation")
        else:
            try:
                s.end_schwarz_lost()  # the server stops after the defenders' first trick
            except ValueError:
                last = g.moves[-1][1] if g.moves else ""
                raise g.error(f"the record ends before the game is over (phase {s.phase})", last,
                              kind="unfinished") from None
    return s, tuple(notes)


def _check_open(g: IssGame, s: SkatState, mask: int, tok: str) -> None:
    d = s.declarer
    if d is None or mask != s.hand_mask(d):
        raise g.error("the open cards are not the declarer's hand "
                      f"({iss_cards(s.hand_mask(d)) if d is not None else '-'})", tok)


# --------------------------------------------------------------------------- validation
@dataclass(frozen=True)
class Mismatch:
    """A field of the server's result line that the replay does not reproduce."""

    record_id: int
    field: str
    server: Any
    ours: Any
    line: int = 0

    def __str__(self) -> str:
        return f"ID {self.record_id} (line {self.line}): {self.field} server {self.server!r}, replay {self.ours!r}"


def _ours(s: SkatState, r: Any = None) -> dict[str, Any]:
    r = s.result if r is None else r
    end = s.ending
    penalty = end in ("timeout", "left")
    if r.passed_in and not penalty:
        outcome = "passed"
    else:
        outcome = "penalty" if penalty else ("win" if r.won else "loss")
    return {"outcome": outcome, "declarer": -1 if r.declarer is None else r.declarer, "value": r.list_score,
            "matadors": r.matadors, "overbid": r.overbid, "points": r.declarer_points,
            "tricks": r.declarer_tricks, "schneider": r.schneider, "schwarz": r.schwarz,
            "resigned": end in ("declarer_resigned", "defenders_resigned"),
            "left": s.ending_seat if end == "left" else -1,
            "timeout": s.ending_seat if end == "timeout" else -1}


_ISS_KEY = {"outcome": "win/loss", "declarer": "d", "value": "v", "matadors": "m", "overbid": "bidok/overbid",
            "points": "p", "tricks": "t", "schneider": "s", "schwarz": "z", "resigned": "r", "left": "l",
            "timeout": "to"}


def check(g: IssGame, s: SkatState, result: Any = None) -> list[Mismatch]:
    """Compare the replayed game ``s`` with the server's result line of ``g``: the outcome
    (win/loss/penalty/passed), declarer, signed value, signed matadors, overbid, the
    declarer's points and tricks, schneider, schwarz, resigned, left and time-out seats.
    Returns the fields that differ (empty: the replay reproduces the server). ``result``:
    ``s.result`` if already computed."""
    res = g.result
    ours = _ours(s, result)
    fields = ["outcome"] if res.passed else list(_ISS_KEY)
    out = []
    for f in fields:
        theirs = getattr(res, f)
        if f == "resigned" and theirs is None:
            continue
        if theirs != ours[f]:
            out.append(Mismatch(g.id, _ISS_KEY[f], theirs, ours[f], g.line))
    return out


# --------------------------------------------------------------------------- streaming
def _open_binary(path: str | os.PathLike[str]) -> tuple[Any, Any]:
    """(line source, raw file for progress): ``.bz2`` by suffix or magic bytes."""
    raw = open(path, "rb")
    head = raw.read(3)
    raw.seek(0)
    if os.fspath(path).endswith(".bz2") or head == b"BZh":
        return bz2.BZ2File(raw), raw
    return raw, raw


def check_source(path: str | os.PathLike[str]) -> str:
    """``path`` as text when it is a regular file; else :class:`IssError` (``kind="file"``)
    saying what it is: a folder, missing, or a device, pipe or socket.

    >>> check_source("/dev/null")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    skatsim.iss.IssError: '/dev/null' is not a regular file (a device, a pipe or a socket); give an ISS file ...
    """
    p = os.fspath(path)
    want = "give an ISS file (one record per line, .sgf, .txt or .bz2)"
    if os.path.isdir(p):
        raise IssError(f"{p!r} is a folder; {want}", kind="file")
    if not os.path.exists(p):
        raise IssError(f"no such file: {p!r}", kind="file")
    if not os.path.isfile(p):
        raise IssError(f"{p!r} is not a regular file (a device, a pipe or a socket); {want}", kind="file")
    return p


def iter_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str, int]]:
    """``(line number, text, bytes read so far of the file)`` for every line. A folder, a
    missing file (:func:`check_source`) or a compressed file that ends early raise
    :class:`IssError` (``kind="file"``) naming the file."""
    p = check_source(path)
    src, raw = _open_binary(path)
    n = 0
    with raw, src:
        try:
            for n, b in enumerate(src, 1):
                yield n, b.decode("utf-8", "replace"), raw.tell()
        except (EOFError, OSError) as e:
            raise IssError(f"{p!r} ends early after line {n}: the compressed data is truncated or damaged ({e})",
                           line=n, kind="file") from None


def iter_iss(source: str | os.PathLike[str] | Iterable[str], *, errors: list[IssError] | None = None,
             replayed: bool = False) -> Iterator[Any]:
    """Stream the records of a file (plain or ``.bz2``; or any iterable of lines).

    Blank lines and ``#`` comments are skipped. A malformed record is appended to
    ``errors`` (when given) and skipped: the stream goes on. With ``replayed=True`` it
    yields ``(IssGame, SkatState)`` pairs and a record the rules refuse is handled the
    same way. Memory stays flat: one record at a time.
    """
    if isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and source.startswith("(;")):
        lines: Iterable[tuple[int, str]] = ((n, t) for n, t, _ in iter_lines(source))
    else:
        lines = enumerate([source] if isinstance(source, str) else source, 1)
    for n, text in lines:
        t = text.strip()
        if not t or t.startswith("#"):
            continue
        try:
            g = parse_iss(t, n)
            if replayed:
                yield g, replay(g)
            else:
                yield g
        except IssError as e:
            if errors is not None:
                errors.append(e)


def read_iss(source: str | os.PathLike[str] | Iterable[str]) -> list[IssGame]:
    """All records of a file as a list (raises at the first malformed one)."""
    errs: list[IssError] = []
    out = list(iter_iss(source, errors=errs))
    if errs:
        raise errs[0]
    return out


# --------------------------------------------------------------------------- export
def _iss_move_tokens(s: SkatState) -> list[str]:
    """The ``MV`` moves (after the deal) of a game, events interleaved."""
    toks: list[str] = []
    events = [(e["at"], e["seat"], e["kind"], CardSet(e["cards"]).mask if e["cards"] else 0) for e in s.events()]
    ev = 0
    discards: list[int] = []
    hands = [h.mask for h in s.deal.hands]

    def flush_events(at: int) -> None:
        nonlocal ev
        while ev < len(events) and events[ev][0] == at:
            _, p, kind, mask = events[ev]
            if kind == "show":
                toks.append(f"{p} SC." + iss_cards(mask) if mask else f"{p} SC")
            elif kind == "resign":
                toks.append(f"{p} RE")
            elif kind == "timeout":
                toks.append(f"w TI.{p}")
            elif kind == "left":
                toks.append(f"w LE.{p}")
            ev += 1

    for i, (p, a, ph) in enumerate(s.phase_history()):
        flush_events(i)
        if ph == "bidding":
            toks.append(f"{p} " + ("y" if a == HOLD else "p" if a == PASS else str(BID_VALUES[a - BID_BASE])))
        elif ph == "skat":
            if a == PICKUP:
                toks.append(f"{p} s")
                toks.append("w " + iss_cards(s.deal.skat.mask))
                hands[p] |= s.deal.skat.mask
        elif ph == "discard":
            discards.append(a)
            hands[p] &= ~(1 << a)
        elif ph == "declare":
            c = Contract.from_code(DECLARATIONS[a - DECLARE_BASE])
            tok = c.to_text()
            if discards:
                tok += "." + ".".join(ISS_CARD_NAMES[x] for x in discards)
            if c.ouvert:
                tok += "." + iss_cards(hands[p])
            toks.append(f"{p} {tok}")
        elif ph == "kontra":
            raise ValueError("ISS records have no Kontra/Re")
        else:
            toks.append(f"{p} {ISS_CARD_NAMES[a]}")
            hands[p] &= ~(1 << a)
    flush_events(len(s.history()))
    return toks


def _iss_result_text(s: SkatState) -> str:
    o = _ours(s)
    if o["outcome"] == "passed":
        return "passed"
    pen = [0, 0, 0]
    if o["outcome"] == "penalty" and s.ending_seat is not None:
        pen[s.ending_seat] = 1
    return (f"d:{o['declarer']} {o['outcome']} v:{o['value']} m:{o['matadors']} "
            f"{'overbid' if o['overbid'] else 'bidok'} p:{o['points']} t:{o['tricks']} s:{int(o['schneider'])} "
            f"z:{int(o['schwarz'])} p0:{pen[0]} p1:{pen[1]} p2:{pen[2]} l:{o['left']} to:{o['timeout']} "
            f"r:{int(o['resigned'])}")


def _name(x: Any, what: str) -> str:
    t = str(x)
    if "]" in t or "[" in t or "\n" in t:
        raise ValueError(f"{what} {t!r} cannot hold '[', ']' or a newline in an ISS record")
    return t


def to_iss(state: SkatState, *, game_id: int = 0, players: Sequence[str] = ("P0", "P1", "P2"),
           date: str = "1970-01-01/00:00:00/UTC", series: int = 0, place: str = "skatsim") -> str:
    """One finished game as an ISS record line. Kontra/Re and Ramsch are not in the ISS
    format (``ValueError``). :func:`parse_iss` + :func:`replay` give the same game back."""
    if not state.is_terminal():
        raise ValueError(f"only a finished game can be written as an ISS record (phase {state.phase})")
    if state.rules.ramsch or state.rules.kontra:
        raise ValueError(f"ISS records have no Ramsch or Kontra/Re (rules {state.rules})")
    if len(players) != 3:
        raise ValueError(f"players must name the 3 seats, got {players!r}")
    deck = ".".join(iss_cards(h.mask) for h in state.deal.hands) + "." + iss_cards(state.deal.skat.mask)
    mv = " ".join(["w " + deck] + _iss_move_tokens(state))
    p0, p1, p2 = (_name(p, "player name") for p in players)
    return (f"(;GM[Skat]PC[{_name(place, 'place')}]CO[]SE[{int(series)}]ID[{int(game_id)}]DT[{_name(date, 'date')}]"
            f"P0[{p0}]P1[{p1}]P2[{p2}]R0[]R1[]R2[]MV[{mv} ]R[{_iss_result_text(state)}] ;)")


def rows_to_iss(df: Any, actions: Any = None, *, players: Sequence[str] | None = None,
                first_id: int = 1) -> Iterator[str]:
    """ISS records of simulate or tournament rows with their recorded actions.

    ``df``: rows with ``deal_seed`` (a ``simulate(..., record_actions=True)`` frame, whose
    ``attrs["actions"]`` are used when ``actions`` is None, or tournament rows with an
    ``actions`` array given). Players: ``agent_0..2`` columns when present, else the
    policy per seat from ``attrs["policies"]``, else ``players``. Each game is replayed
    through ``SkatState`` (so a row whose actions are not legal raises).
    """
    from .options import SkatRules

    acts = actions if actions is not None else df.attrs.get("actions")
    if acts is None:
        raise ValueError("rows_to_iss needs the actions of each deal: simulate(..., record_actions=True) "
                         "or actions=")
    rules = SkatRules.from_dict(df.attrs.get("rules", {})) if hasattr(df, "attrs") else SkatRules()
    pol = df.attrs.get("policies") if hasattr(df, "attrs") else None
    has_agents = all(f"agent_{s}" in df.columns for s in range(3))
    seeds = df["deal_seed"].to_numpy()
    idx = df["deal_index"].to_numpy() if "deal_index" in df.columns else range(len(df))
    for k in range(len(df)):
        s = SkatState.new_game(seed=int(seeds[k]), rules=rules)
        for a in acts[k]:
            if a < 0:
                break
            s.apply_action(int(a))
        if has_agents:
            names = [str(df[f"agent_{q}"].iloc[k]) for q in range(3)]
        elif players is not None:
            names = list(players)
        elif pol:
            names = [f"{pol[q]['name']}:{q}" for q in range(3)]
        else:
            names = ["P0", "P1", "P2"]
        yield to_iss(s, game_id=first_id + k, players=names, series=int(idx[k]))


def write_iss(records: Iterable[str | SkatState], path: str | os.PathLike[str]) -> int:
    """Write records (lines, or finished ``SkatState`` s) to ``path`` (``.bz2``: compressed);
    returns how many."""
    p = os.fspath(path)
    f = bz2.open(p, "wt", encoding="utf-8") if p.endswith(".bz2") else open(p, "w", encoding="utf-8")
    n = 0
    with f:
        for r in records:
            f.write((to_iss(r, game_id=n + 1) if isinstance(r, SkatState) else r) + "\n")
            n += 1
    return n
