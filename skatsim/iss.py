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
  memory, collecting malformed records instead of stopping; :func:`import_iss` writes the
  parquet tables (``games``: the result schema of :mod:`skatsim.table` plus the ISS ids,
  players and server fields; ``decisions``: every bidding, skat and declaration decision
  with the seat's cards, the auction so far, the action and the game's outcome).
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
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

from .actions import (BID_BASE, DECLARE_BASE, HAND, HOLD, PASS, PICKUP, action_to_string, bid_action,
                      declare_action)
from .cards import CardSet
from .contracts import BID_VALUES, DECLARATIONS, Contract
from .contracts import HAND as HAND_FLAG
from .deal import Deal
from .kernels import game as K
from .state import SkatState

__all__ = ["IssError", "IssResult", "IssGame", "Mismatch", "ImportSummary", "parse_iss", "parse_result",
           "replay", "check", "iter_iss", "read_iss", "to_iss", "rows_to_iss", "write_iss", "import_iss",
           "main", "GAME_EXTRA_COLUMNS", "DECISION_COLUMNS", "EXAMPLE"]

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
        super().__init__(f"{where}{tok}: {reason}")

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
    ``line``: line number in its file (0 for a string)."""

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
        return tok.startswith(("TI.", "LE.")) or all(c in _CARD_OF for c in tok.split("."))
    if tok in _CARD_OF or tok in _BID_OF or tok in ("y", "p", "s", "RE", "SC"):
        return True
    parts = tok.split(".")
    head = parts[0]
    if head == "SC":
        return all(c in _CARD_OF for c in parts[1:])
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
    deck = toks[1].split(".")
    cards = []
    for c in deck:
        cid = _CARD_OF.get(c)
        if cid is None:
            raise IssError("not a card in the deal", line=line, record_id=rid, token=c)
        cards.append(cid)
    if len(cards) != 32 or len(set(cards)) != 32:
        raise IssError(f"the deal must list the 32 cards once each, got {len(cards)} cards "
                       f"({len(set(cards))} different)", line=line, record_id=rid, token=toks[1][:40])
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
    return IssGame(id=rid if rid is not None else 0, series=series, date=props.get("DT", ""),
                   place=props.get("PC", ""), players=(props.get("P0", ""), props.get("P1", ""), props.get("P2", "")),
                   ratings=(props.get("R0", ""), props.get("R1", ""), props.get("R2", "")),
                   cards=tuple(cards), moves=tuple(moves), result=result, line=line, comment=props.get("CO", ""))


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
                      f"({s._illegal_message(a).split('; ', 1)[-1]})", tok) from None


def replay(g: IssGame) -> SkatState:
    """Play the record through the rules; raises :class:`IssError` (``kind="illegal"``)
    at the first move the rules refuse, naming it. The returned state is terminal (a
    record that stops before the end, other than the server's schwarz stop, is an error)."""
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
                else:
                    s.show_cards(seat, None if tok == "SC" else " ".join(tok.split(".")[1:]))
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
            c = _CARD_OF.get(tok)
            if c is None:
                raise g.error("a card is expected in the card play", tok)
            try:
                s.apply_action(c)
            except ValueError:
                _apply(g, s, c, tok)  # raises the IssError naming the move
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
        try:
            s.end_schwarz_lost()  # the server stops after the defenders' first trick
        except ValueError:
            last = g.moves[-1][1] if g.moves else ""
            raise g.error(f"the record ends before the game is over (phase {s.phase})", last,
                          kind="unfinished") from None
    return s


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


def iter_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, str, int]]:
    """``(line number, text, bytes read so far of the file)`` for every line."""
    src, raw = _open_binary(path)
    with raw, src:
        for n, b in enumerate(src, 1):
            yield n, b.decode("utf-8", "replace"), raw.tell()


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
    events = s._events
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
    flush_events(len(s._actions))
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


# --------------------------------------------------------------------------- import to parquet
#: Columns of the ``games`` table after :data:`skatsim.table.RESULT_COLUMNS`.
GAME_EXTRA_COLUMNS: tuple[str, ...] = (
    "iss_id", "line", "series", "date", "player_0", "player_1", "player_2", "ending", "ending_seat",
    "hand_0", "hand_1", "hand_2", "skat", "discard", "auction",
    "server_outcome", "server_value", "server_points", "server_tricks", "server_matadors", "mismatch")
#: Columns of the ``decisions`` table.
DECISION_COLUMNS: tuple[str, ...] = (
    "iss_id", "seat", "player", "phase", "hand", "auction", "bid", "action", "action_text",
    "declarer", "contract", "won", "list_score", "declarer_points", "ending")


def _schemas() -> tuple[Any, Any]:
    import pyarrow as pa

    from .simulate import RESULT_DTYPE
    from .table import RESULT_COLUMNS

    def np2pa(dt: Any) -> Any:
        return pa.from_numpy_dtype(dt)

    g = []
    for c in RESULT_COLUMNS:
        if c == "contract":
            g.append(pa.field(c, pa.string()))
        else:
            g.append(pa.field(c, np2pa(RESULT_DTYPE[c])))
    text = {"date", "player_0", "player_1", "player_2", "ending", "discard", "auction", "server_outcome", "mismatch"}
    i64 = {"iss_id", "hand_0", "hand_1", "hand_2", "skat"}
    for c in GAME_EXTRA_COLUMNS:
        g.append(pa.field(c, pa.string() if c in text else pa.int64() if c in i64 else pa.int32()))
    d_types = {"iss_id": pa.int64(), "seat": pa.int8(), "player": pa.string(), "phase": pa.string(),
               "hand": pa.int64(), "auction": pa.string(), "bid": pa.int16(), "action": pa.int16(),
               "action_text": pa.string(), "declarer": pa.int8(), "contract": pa.string(), "won": pa.bool_(),
               "list_score": pa.int32(), "declarer_points": pa.int16(), "ending": pa.string()}
    return pa.schema(g), pa.schema([pa.field(c, d_types[c]) for c in DECISION_COLUMNS])


def _call(p: int, a: int) -> str:
    return f"{p}:" + ("y" if a == HOLD else "p" if a == PASS else str(BID_VALUES[a - BID_BASE]))


def _game_rows(g: IssGame, s: SkatState, r: Any, index: int, mism: list[Mismatch]) -> tuple[dict[str, Any], list[dict]]:
    row = r.to_row(deal_index=index, deal_seed=None, n_actions=len(s._actions))
    if row["points_0"] is None:
        pts = s.points()
        for q in range(3):
            row[f"points_{q}"] = pts[q] if not r.passed_in else 0
    hands = [h.mask for h in s.deal.hands]
    skat = s.deal.skat.mask
    row.update({"iss_id": g.id, "line": g.line, "series": g.series, "date": g.date, "player_0": g.players[0],
                "player_1": g.players[1], "player_2": g.players[2], "ending": s.ending,
                "ending_seat": -1 if s.ending_seat is None else s.ending_seat,
                "hand_0": hands[0], "hand_1": hands[1], "hand_2": hands[2], "skat": skat,
                "discard": iss_cards(s.skat_mask()) if s.skat_picked_up else "",
                "server_outcome": g.result.outcome, "server_value": g.result.value,
                "server_points": g.result.points, "server_tricks": g.result.tricks,
                "server_matadors": g.result.matadors, "mismatch": " ".join(m.field for m in mism)})
    # decisions: every bidding, skat and declaration action with the state before it
    dec = []
    calls: list[str] = []
    bid = 0
    outcome = (row["declarer"], row["contract"], row["won"], row["list_score"], row["declarer_points"], s.ending)
    for p, a, ph in zip(s._players, s._actions, s._phases):
        if ph > K.PH_DECLARE:
            break
        dec.append((g.id, p, g.players[p], K.PHASE_NAMES[ph], hands[p], " ".join(calls), bid, a,
                    action_to_string(a)) + outcome)
        if ph == K.PH_BID:
            calls.append(_call(p, a))
            if BID_BASE <= a < PASS:
                bid = BID_VALUES[a - BID_BASE]
        elif a == PICKUP:
            hands[p] |= skat
        elif ph == K.PH_DISCARD:
            hands[p] &= ~(1 << a)
    row["auction"] = " ".join(calls)
    return row, dec


@dataclass
class ImportSummary:
    """What :func:`import_iss` read: records, games written, skipped (by reason, with the
    first examples), replay mismatches by field, decisions, time and rate."""

    path: str
    out_dir: str
    records: int = 0
    games: int = 0
    decisions: int = 0
    skipped: Counter = field(default_factory=Counter)
    mismatches: Counter = field(default_factory=Counter)
    mismatched_games: int = 0
    endings: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "out_dir": self.out_dir, "records": self.records, "games": self.games,
                "decisions": self.decisions, "skipped": dict(self.skipped), "mismatches": dict(self.mismatches),
                "mismatched_games": self.mismatched_games, "endings": dict(self.endings),
                "examples": self.examples, "seconds": round(self.seconds, 3),
                "records_per_second": round(self.records_per_second, 1)}

    def __str__(self) -> str:
        lines = [f"{self.path}: {self.records} records in {self.seconds:.1f} s ({self.records_per_second:,.0f}/s)",
                 f"  games written: {self.games} -> {os.path.join(self.out_dir, 'games.parquet')}",
                 f"  decisions written: {self.decisions} -> {os.path.join(self.out_dir, 'decisions.parquet')}",
                 "  endings: " + (", ".join(f"{k} {v}" for k, v in self.endings.most_common()) or "-")]
        n_skip = sum(self.skipped.values())
        lines.append(f"  skipped: {n_skip}" + (" (" + ", ".join(f"{k} {v}" for k, v in self.skipped.most_common())
                                                + f"; details in {os.path.join(self.out_dir, 'errors.jsonl')})"
                                                if n_skip else ""))
        for e in self.examples[:5]:
            lines.append(f"    {e}")
        lines.append(f"  games that differ from the server's result: {self.mismatched_games}"
                     + (" (fields: " + ", ".join(f"{k} {v}" for k, v in self.mismatches.most_common()) + ")"
                        if self.mismatches else ""))
        return "\n".join(lines)


def import_iss(path: str | os.PathLike[str], out_dir: str | os.PathLike[str], *, progress: bool = True,
               chunk: int = 20_000, limit: int | None = None) -> ImportSummary:
    """Import an ISS file (plain or ``.bz2``) into ``out_dir``: ``games.parquet`` (one row
    per game: :data:`skatsim.table.RESULT_COLUMNS` then :data:`GAME_EXTRA_COLUMNS`),
    ``decisions.parquet`` (:data:`DECISION_COLUMNS`), ``errors.jsonl`` (one line per
    skipped record: line, id, kind, token, reason) and ``summary.json``.

    Streams in chunks of ``chunk`` records (flat memory); a malformed record or one the
    rules refuse is skipped and counted by kind (``malformed``, ``illegal``,
    ``unfinished``); a replay that differs from the server's result line is kept, with the
    differing fields in ``mismatch``. ``progress``: a tqdm bar over the file's bytes.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    out = os.fspath(out_dir)
    os.makedirs(out, exist_ok=True)
    summ = ImportSummary(path=os.fspath(path), out_dir=out)
    gschema, dschema = _schemas()
    paths = {k: os.path.join(out, f"{k}.parquet") for k in ("games", "decisions")}
    tmp = {k: v + ".partial" for k, v in paths.items()}
    gw = pq.ParquetWriter(tmp["games"], gschema)
    dw = pq.ParquetWriter(tmp["decisions"], dschema)
    errf = open(os.path.join(out, "errors.jsonl"), "w", encoding="utf-8")
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=os.path.getsize(path), unit="B", unit_scale=True, desc="import-iss", file=sys.stderr)
    gnames = gschema.names
    gcols: dict[str, list] = {c: [] for c in gnames}
    dcols: list[list] = [[] for _ in DECISION_COLUMNS]

    def flush() -> None:
        if gcols[gnames[0]]:
            gw.write_table(pa.Table.from_pydict(gcols, schema=gschema))
            summ.games += len(gcols[gnames[0]])
            for v in gcols.values():
                v.clear()
        if dcols[0]:
            dw.write_table(pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(dcols, dschema)],
                                                schema=dschema))
            summ.decisions += len(dcols[0])
            for v in dcols:
                v.clear()

    def skip(e: IssError) -> None:
        summ.skipped[e.kind] += 1
        errf.write(json.dumps(e.to_dict()) + "\n")
        if len(summ.examples) < 20:
            summ.examples.append(str(e))

    done = 0
    try:
        for n, text, pos in iter_lines(path):
            if bar is not None and (n & 1023) == 0:
                bar.update(pos - done)
                done = pos
            t = text.strip()
            if not t or t.startswith("#"):
                continue
            if limit is not None and summ.records >= limit:
                break
            summ.records += 1
            try:
                g = parse_iss(t, n)
                s = replay(g)
            except IssError as e:
                skip(e)
                continue
            except Exception as e:  # a bug must not end a million-record import: record it
                skip(IssError(f"{type(e).__name__}: {e}", line=n, kind="internal"))
                continue
            r = s.result
            mism = check(g, s, r)
            if mism:
                summ.mismatched_games += 1
                for m in mism:
                    summ.mismatches[m.field] += 1
            summ.endings[s.ending or "?"] += 1
            row, dec = _game_rows(g, s, r, summ.records - 1, mism)
            for c in gnames:
                gcols[c].append(row[c])
            for d in dec:
                for col, v in zip(dcols, d):
                    col.append(v)
            if len(gcols[gnames[0]]) >= chunk:
                flush()
        flush()
    finally:
        gw.close()
        dw.close()
        errf.close()
        if bar is not None:
            bar.update(max(0, os.path.getsize(path) - done))
            bar.close()
    for k in paths:
        os.replace(tmp[k], paths[k])
    summ.seconds = time.perf_counter() - t0
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summ.to_dict(), f, indent=1)
    return summ


def add_import_arguments(ap: Any) -> None:
    """The arguments of ``skatsim import-iss`` on an ``argparse`` parser (shared by the CLI)."""
    ap.add_argument("file", help="ISS records, one game per line (.sgf, .txt or .bz2)")
    ap.add_argument("--out", required=True, help="output folder (games.parquet, decisions.parquet, errors.jsonl, "
                                                 "summary.json)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--limit", type=int, default=None, help="read at most N records")
    ap.add_argument("--chunk", type=int, default=20_000, help="records per parquet row group (memory bound)")


def run_import(args: Any) -> int:
    """Run ``skatsim import-iss`` for parsed ``args``: print the summary; 0, or 2 for a missing file."""
    if not os.path.isfile(args.file):
        print(f"skatsim import-iss: no such file: {args.file}", file=sys.stderr)
        return 2
    summ = import_iss(args.file, args.out, progress=not args.no_progress, chunk=args.chunk, limit=args.limit)
    print(summ)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``skatsim import-iss FILE --out DIR [--no-progress] [--limit N] [--chunk N]``:
    import, print the summary; exit code 0 (also when records were skipped: they are
    counted and listed), 2 on a usage error or a missing file."""
    import argparse

    ap = argparse.ArgumentParser(prog="skatsim import-iss",
                                 description="Import ISS game records (plain or .bz2) into parquet tables.")
    add_import_arguments(ap)
    return run_import(ap.parse_args(list(argv) if argv is not None else None))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
