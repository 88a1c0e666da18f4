"""Game records: a finished (or running) game as a JSON-ready dict, and back through the rules.

:func:`to_record` writes what a game was (the deal, every move, the derived summary, the
record-level events and the result; format :data:`RECORD_FORMAT`); :func:`from_record`
replays a record through the rules and checks every field, raising
:class:`~skatsim.state.RecordError` that names the first bad move or field.
``SkatState.to_record`` / ``to_json`` / ``from_record`` call these.

>>> from skatsim import SkatState
>>> s = SkatState.new_game(seed=3)
>>> while not s.is_terminal():
...     s.apply_action(s.legal_actions()[0])
>>> from_record(to_record(s)).result == s.result
True
"""

from __future__ import annotations

import json
from typing import Any

from .actions import DECLARE_BASE, HAND, KONTRA, PICKUP, RE, action_to_string, string_to_action
from .cards import CardSet, card_name
from .deal import deal as deal_of_seed
from .deal import deal_from_hands
from .layout import SEAT_NAMES
from .options import SkatRules
from .state import RecordError, SkatState

__all__ = ["to_record", "from_record", "RECORD_FORMAT", "READABLE_FORMATS", "RECORD_FIELDS"]

#: Format of :func:`to_record`. Format 2: ``result.matadors`` is signed and
#: ``with_matadors`` is gone; format-1 records still load.
RECORD_FORMAT = "skatsim-record/2"
#: The formats :func:`from_record` reads.
READABLE_FORMATS = ("skatsim-record/1", RECORD_FORMAT)
_READABLE_FORMATS = READABLE_FORMATS


def to_record(state: SkatState) -> dict[str, Any]:
    """The game as a JSON-ready dict: format, rules and their version, seed, deal, moves,
    the derived summary (bids, declarer, bid, skat choice, discard, contract, Kontra/Re,
    cards), the record-level events and the result.

    >>> from skatsim import to_play
    >>> rec = to_record(to_play(7, 0, "C"))
    >>> rec["format"], rec["bids"], rec["contract"], rec["result"]
    ('skatsim-record/2', [[1, '18'], [0, 'yes'], [1, 'pass'], [2, 'pass']], 'C', None)
    """
    actions = state.history()
    moves = [[p, action_to_string(a)] for p, a in state.history_with_players()]
    bids = [[p, action_to_string(a)] for p, a in state.bidding_history()]
    skat_choice = None
    discard: list[str] = []
    contract = None
    for a in actions:
        if a == PICKUP:
            skat_choice = "pickup"
        elif a == HAND:
            skat_choice = "hand"
        elif DECLARE_BASE <= a < KONTRA:
            contract = action_to_string(a)
    if state.skat_picked_up and state.phase != "discard":
        discard = CardSet.from_mask(state.skat_mask()).to_text().split()
    cards = [card_name(a) for _, a, ph in state.phase_history() if ph == "play"]
    kontra = [action_to_string(a) for a in actions if a in (KONTRA, RE)]
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "rules": state.rules.to_dict(),
        "rules_version": state.rules.version,
        "seed": state.seed,
        "deal": {
            "forehand": state.deal.hands[0].to_text(),
            "middlehand": state.deal.hands[1].to_text(),
            "rearhand": state.deal.hands[2].to_text(),
            "skat": state.deal.skat.to_text(),
        },
        "moves": moves,
        "bids": bids,
        "declarer": state.declarer,
        "bid": state.bid,
        "skat_choice": skat_choice,
        "discard": discard,
        "contract": contract,
        "kontra": kontra,
        "cards": cards,
        "result": state.result.to_dict() if state.is_terminal() else None,
    }
    if state.events():  # record-level events (ISS SC/RE/TI/LE, the schwarz stop) and the ending
        rec["events"] = [[e["at"], e["seat"], e["kind"], e["cards"]] for e in state.events()]
        rec["ending"] = state.ending
    return rec


def from_record(record: dict[str, Any] | str) -> SkatState:
    """Replay a record (a dict or its JSON text) through the rules.

    Every field is checked: the format (``skatsim-record/2``, or ``/1`` whose unsigned
    matadors are converted), the rules and their version, the seed (the deal must be
    ``deal(seed)``), the deal, each move (a seat 0..2 that is to move and an action
    text), and every summary and result field against the replay. Raises
    :class:`RecordError` naming the first problem: malformed JSON, a wrong type, a
    bad move, or a field that does not match.
    """
    if isinstance(record, (str, bytes, bytearray)):
        try:
            rec = json.loads(record)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise RecordError(f"a game record must be valid JSON: {e}") from None
    else:
        rec = record
    if not isinstance(rec, dict) or "deal" not in rec or "moves" not in rec:
        raise RecordError("a game record is a dict with at least 'deal' and 'moves'")
    unknown = sorted(map(str, set(rec) - set(_RECORD_FIELDS)))
    if unknown:
        raise RecordError(f"record has unknown field(s) {unknown}; known: {', '.join(_RECORD_FIELDS)}")
    fmt = rec.get("format", RECORD_FORMAT)
    if fmt not in _READABLE_FORMATS:
        raise RecordError(f"unknown record format {fmt!r}; expected {RECORD_FORMAT!r} "
                          f"(or {_READABLE_FORMATS[0]!r})")
    try:
        rules = SkatRules.from_dict(rec.get("rules", {}))
    except (TypeError, ValueError) as e:
        raise RecordError(f"bad rules in record: {e}") from None
    if "rules_version" in rec and rec["rules_version"] != rules.version:
        raise RecordError(f"record field 'rules_version' is {rec['rules_version']!r} but its rules "
                          f"{rules.to_dict()} are version {rules.version!r}")
    d = rec["deal"]
    if not isinstance(d, dict) or set(d) != {*SEAT_NAMES, "skat"} or \
            not all(isinstance(v, str) for v in d.values()):
        raise RecordError(f"record field 'deal' must map forehand, middlehand, rearhand and skat to card "
                          f"strings, got {d!r}")
    try:
        deal = deal_from_hands(d["forehand"], d["middlehand"], d["rearhand"], d["skat"])
    except (ValueError, TypeError) as e:
        raise RecordError(f"bad deal in record: {e}") from None
    seed = rec.get("seed")
    if seed is not None:
        if type(seed) is not int:
            raise RecordError(f"record field 'seed' must be an int or null, got {type(seed).__name__} {seed!r}")

        if deal_of_seed(seed) != deal:
            raise RecordError(f"record field 'seed' is {seed} but the deal is not deal({seed})")
    moves = rec["moves"]
    if not isinstance(moves, list):
        raise RecordError(f"record field 'moves' must be a list of [seat, action] pairs, got "
                          f"{type(moves).__name__} {moves!r}")
    state = SkatState(deal, rules, seed)
    events = _record_events(rec.get("events", []))
    ev = 0
    for i, mv in enumerate(moves):
        ev = _apply_record_events(state, events, ev, i)
        if not isinstance(mv, (list, tuple)) or len(mv) != 2 or type(mv[0]) is not int \
                or not 0 <= mv[0] <= 2 or not isinstance(mv[1], str):
            raise RecordError(f"move {i + 1}: expected [seat, action] with a seat 0, 1 or 2 and an action "
                              f"text, got {mv!r}")
        seat, text = mv
        where = f"move {i + 1} (seat {seat} {text!r})"
        if state.is_terminal():
            raise RecordError(f"{where}: the game is already over")
        if seat != state.current_player():
            raise RecordError(f"{where}: it is seat {state.current_player()}'s turn in phase {state.phase}")
        try:
            state.apply_action(string_to_action(text))
        except ValueError as e:
            raise RecordError(f"{where}: {e}") from None
    ev = _apply_record_events(state, events, ev, len(moves))
    if ev < len(events):
        raise RecordError(f"record event {ev + 1} {events[ev]!r} is at action {events[ev][0]}, "
                          f"after the {len(moves)} moves")
    _check_record_summary(state, rec, fmt)
    return state


def _check_record_summary(state: SkatState, rec: dict[str, Any], fmt: str = RECORD_FORMAT) -> None:
    mine = to_record(state)
    for key in _SUMMARY_FIELDS:
        if key in rec and _jsonable(rec[key]) != mine[key]:
            raise RecordError(f"record field {key!r} is {rec[key]!r} but the moves give {mine[key]!r}")
    if "ending" in rec and rec["ending"] != mine.get("ending"):
        raise RecordError(f"record field 'ending' is {rec['ending']!r} but the moves and events give "
                          f"{mine.get('ending')!r}")
    if "result" not in rec:
        return
    theirs = rec["result"]
    if theirs is None:
        if mine["result"] is not None:
            raise RecordError("record field 'result' is null but its moves finish the game")
        return
    if not isinstance(theirs, dict):
        raise RecordError(f"record field 'result' must be a dict or null, got {type(theirs).__name__} {theirs!r}")
    if mine["result"] is None:
        raise RecordError("record has a result but its moves do not finish the game")
    theirs = dict(theirs)
    if fmt == _READABLE_FORMATS[0] and "with_matadors" in theirs:  # format 1: unsigned matadors
        w = theirs.pop("with_matadors")
        if type(theirs.get("matadors")) is int:
            theirs["matadors"] = abs(theirs["matadors"]) * (1 if w else -1)
    unknown = sorted(map(str, set(theirs) - set(mine["result"])))
    if unknown:
        raise RecordError(f"record result has unknown field(s) {unknown}")
    missing = [k for k in mine["result"] if k not in theirs]
    if missing:
        raise RecordError(f"record result lacks field(s) {missing}")
    for key, value in mine["result"].items():
        if _jsonable(theirs[key]) != value or type(theirs[key]) is not type(value):
            raise RecordError(f"result field {key!r} is {theirs[key]!r} in the record but replaying gives "
                              f"{value!r}")


#: The fields of a record.
RECORD_FIELDS = _RECORD_FIELDS = ("format", "rules", "rules_version", "seed", "deal", "moves", "bids", "declarer",
                                  "bid", "skat_choice", "discard", "contract", "kontra", "cards", "result", "events",
                                  "ending")
_EVENT_KINDS = ("show", "resign", "timeout", "left", "schwarz_lost")


def _record_events(events: Any) -> list[tuple[int, int, str, str]]:
    """The ``events`` field of a record: ``[at, seat, kind, cards]`` lists, ``at`` ascending."""
    if not isinstance(events, list):
        raise RecordError(f"record field 'events' must be a list of [at, seat, kind, cards], got {events!r}")
    out: list[tuple[int, int, str, str]] = []
    for i, e in enumerate(events):
        if not (isinstance(e, (list, tuple)) and len(e) == 4 and type(e[0]) is int and type(e[1]) is int
                and e[2] in _EVENT_KINDS and isinstance(e[3], str)) or (out and e[0] < out[-1][0]):
            raise RecordError(f"record event {i + 1}: expected [at, seat, kind, cards] with kind one of "
                              f"{', '.join(_EVENT_KINDS)} and 'at' not decreasing, got {e!r}")
        out.append((e[0], e[1], e[2], e[3]))
    return out


def _apply_record_events(state: "SkatState", events: list[tuple[int, int, str, str]], ev: int, at: int) -> int:
    """Apply the events recorded before action ``at``; returns the index of the next one."""
    while ev < len(events) and events[ev][0] == at:
        _, seat, kind, cards = events[ev]
        try:
            state.apply_event(kind, seat, cards if kind == "show" else None)
        except ValueError as e:
            raise RecordError(f"record event {ev + 1} ({kind} by seat {seat} before move {at + 1}): {e}") from None
        ev += 1
    return ev
_SUMMARY_FIELDS = ("bids", "declarer", "bid", "skat_choice", "discard", "contract", "kontra", "cards")


def _jsonable(x: Any) -> Any:
    """Tuples as lists (what a JSON round trip does), for comparing a dict record."""
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    return x
