"""Recorded games for the replay screen: sources, the moves of a game, and the solver's view.

A *source* is a path given when the server starts (``skatsim serve --replay PATH``); the
browser names sources and games by number only, never by path. :func:`open_source` reads:

- a **tournament run directory** (``skatsim tournament --out DIR``) or a tournament games
  **parquet** (``--out FILE.parquet``: its metadata keeps the configuration). The games
  table holds results, not moves, so a game is *re-played*: the same agents with the same
  seeds (each seat's stream ``seat_stream(deal_seed, seat)``) make the same game, through
  ``simulate(1, ..., start=deal_id, record_actions=True)`` for batch-engine tournaments and
  the :class:`agents.arena.play.Table` loop (time limit and forfeits as in the tournament) for
  Python-engine ones. The re-played result is compared with the stored row, and any
  difference is shown;
- a batch **simulation** run directory or parquet (``skatsim simulate --out``), re-played
  by ``simulate(1, policies, seed, start=deal_index, record_actions=True)``;
- an **ISS** game file (plain or ``.bz2``): each record replayed with :func:`skatsim.iss.replay`.
  An ISS import table (``games.parquet`` of ``skatsim import-iss``) has no card play and is
  refused with a message saying to give the ISS file.

A game's moves are a :class:`GameMoves` (deal, rules, actions). :func:`position` is the
table after ``step`` moves, all cards or one seat's :meth:`~skatsim.SkatState.observation`;
:func:`card_values` the open-hand solver's value of every legal card at a card decision
(the declarer's final card points with best play after it; in null 1/0: the declarer
still takes no trick) and what the card played lost against the best one, from the
mover's side (the declarer maximises, the defenders minimise); :func:`analyse` does it for
every card decision of a game and sums the points lost per seat.

>>> from skatsim import SkatState
>>> from agents import play_game
>>> s = play_game(["rule_based"] * 3, seed=9)          # seat 2 loses a spades game
>>> g = GameMoves.of_state(s)
>>> p = position(g, len(g.actions), "all")
>>> p["phase"], len(p["tricks"])
('done', 10)
>>> a = analyse(g)
>>> len(a["steps"]) == 30 and all(v["lost"] >= 0 for v in a["steps"].values())
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from skatsim.actions import BID_BASE, DECLARE_BASE, HAND, HOLD, KONTRA, PASS, PICKUP, action_to_string
from skatsim.cards import CardSet, card_name
from skatsim.deal import Deal
from skatsim.options import SkatRules
from skatsim.state import SEAT_NAMES, SkatState

from .names import card_label, contract_label
from .table import table_view

__all__ = ["GameMoves", "Source", "SourceError", "open_source", "position", "card_values", "analyse",
           "move_label", "move_entries", "replay_tournament_game", "replay_simulation_game", "DEFAULT_LIMIT"]

#: Games listed per source at most (the first ones of the file or run).
DEFAULT_LIMIT = 2000


class SourceError(ValueError):
    """A replay path that cannot be read (names the path and why)."""


@dataclass(frozen=True)
class GameMoves:
    """Everything needed to step through one game: the deal's masks (hands 0..2, skat), the
    rules, the actions in order and the record-level events (ISS resignations, shown cards)."""

    hands: tuple[int, int, int]
    skat: int
    rules: dict[str, Any]
    actions: tuple[int, ...]
    events: tuple[tuple[int, int, str, str], ...] = ()
    seed: int | None = None

    @classmethod
    def of_state(cls, s: SkatState) -> "GameMoves":
        h = s.deal.hands
        ev = tuple((e["at"], e["seat"], e["kind"], e["cards"]) for e in s.events())
        return cls((h[0].mask, h[1].mask, h[2].mask), s.deal.skat.mask, s.rules.to_dict(), tuple(s.history()),
                   ev, s.seed)

    def state(self, step: int | None = None) -> SkatState:
        """The game after its first ``step`` actions (all of them, with the events, when ``None``)."""
        deal = Deal(tuple(CardSet.from_mask(m) for m in self.hands), CardSet.from_mask(self.skat))  # type: ignore[arg-type]
        s = SkatState(deal, SkatRules.from_dict(self.rules), self.seed)
        n = len(self.actions) if step is None else step
        for i, a in enumerate(self.actions[:n]):
            if step is None:
                self._events_at(s, i)
            s.apply_action(a)
        if step is None:
            self._events_at(s, len(self.actions))
        return s

    def _events_at(self, s: SkatState, at: int) -> None:
        for e_at, seat, kind, cards in self.events:
            if e_at == at:
                s.apply_event(kind, seat, cards if kind == "show" else None)


# ----------------------------------------------------------------------------- words


def move_label(seat: int, phase: str, action: int, players: list[str], deck: str, state_bid: int = 0) -> str:
    """A move in words, e.g. ``'seat 1 (pimc) plays Eichel Unter'``."""
    who = f"{SEAT_NAMES[seat]} ({players[seat]})"
    if phase == "play":
        return f"{who} plays {card_label(action, deck)}"
    if phase == "discard":
        return f"{who} discards {card_label(action, deck)}"
    if BID_BASE <= action < PASS:
        return f"{who} bids {action_to_string(action)}"
    if action == PASS:
        return f"{who} {'says nothing' if phase == 'kontra' else 'passes'}"
    if action == HOLD:
        return f"{who} holds {state_bid}"
    if action == PICKUP:
        return f"{who} picks up the skat"
    if action == HAND:
        return f"{who} plays hand"
    if DECLARE_BASE <= action < KONTRA:
        return f"{who} declares {contract_label(action_to_string(action), deck)}"
    return f"{who} says {action_to_string(action).capitalize()}"


#: The phases whose decisions the analysis board judges by an agent's values (the card play
#: is judged by the open-hand solver).
_DECISIONS = ("bidding", "skat", "discard", "declare", "kontra")

#: What a move of each phase is called when the seat of a view does not know it yet.
_TO_COME = {"bidding": "bids", "skat": "picks up or plays hand", "discard": "discards", "declare": "declares",
            "kontra": "Kontra or Re", "play": "plays a card"}


def move_entries(g: "GameMoves", players: list[str], deck: str, view: str | int = "all",
                 step: int = 0) -> list[dict[str, Any]]:
    """Every move of the game for the move list: ``n``, ``seat``, ``phase``, ``card`` (a card
    play), ``action`` and ``label``. In a seat's view at ``step`` only what that seat knew
    is named: the moves before ``step`` (the others' discards as "discards a card") and its
    own move at ``step``; the rest say who moves and in which phase (``action`` ``None``)."""
    s = g.state(0)
    out = []
    for n, a in enumerate(g.actions):
        seat, phase = s.current_player(), s.phase
        known = view == "all" or (n < step and (phase != "discard" or seat == view)) or (n == step and seat == view)
        who = f"{SEAT_NAMES[seat]} ({players[seat]})"
        if known:
            label = move_label(seat, phase, a, players, deck, s.bid)
        else:
            label = f"{who} discards a card" if n < step else f"{who} {_TO_COME[phase]}"
        out.append({"n": n, "seat": seat, "phase": phase, "card": phase == "play",
                    "decision": phase in _DECISIONS, "action": action_to_string(a) if known else None,
                    "label": label})
        s.apply_action(a)
    return out


# ----------------------------------------------------------------------------- positions


def position(g: GameMoves, step: int, view: str | int = "all", players: list[str] | None = None,
             deck: str = "german") -> dict[str, Any]:
    """The table after ``step`` moves as ``view`` sees it (:func:`.table.table_view`):
    ``"all"`` every card, a seat 0..2 only what that seat knew then (its observation: the
    others' hands as counts, the skat only as far as it saw it, an ouvert hand). ``moves``:
    the move list as that view knows it (:func:`move_entries`), ``next`` the next move's
    label (``None`` at the end)."""
    if not 0 <= step <= len(g.actions):
        raise ValueError(f"step must be 0..{len(g.actions)}, got {step}")
    end = step == len(g.actions)
    out = table_view(g.state() if end else g.state(step), view)
    moves = move_entries(g, players or ["?", "?", "?"], deck, view, step)
    out.update({"step": step, "n_moves": len(g.actions), "moves": moves,
                "next": None if end else moves[step]["label"]})
    if end:
        out["to_move"] = None
    return out


# ----------------------------------------------------------------------------- the solver


_SOLVER: Any = None


def _solver() -> Any:
    global _SOLVER
    if _SOLVER is None:
        from skatsim.solver import Solver

        _SOLVER = Solver()
    return _SOLVER


#: What the solver's values mean for each kind of goal: the unit of "lost", and the words.
UNITS = {
    "points": {"unit": "card points", "legend": "Values: the declarer's card points at the end, with best play by "
               "everybody after each card (goal: {goal})."},
    "schwarz": {"unit": "games thrown", "legend": "The goal is every trick (schwarz announced or ouvert): made / "
                "fails says whether the declarer still takes every trick with best play after each card. "
                "A mistake throws the game (1)."},
    "null": {"unit": "games thrown", "legend": "Null: made / fails says whether the declarer still takes no trick "
             "with best play after each card. A mistake throws the game (1)."},
}


def card_values(g: GameMoves, step: int, solver: Any = None) -> dict[str, Any] | None:
    """The solver's verdict on the card decision before move ``step`` (``None`` when that
    move is not a card play, or in Ramsch, which the solver does not play).

    The values are in the terms of the contract's goal (:func:`skatsim.solver.target_for`):
    ``kind`` ``"points"`` (goal 61 or 90 card points): the declarer's final card points with
    best play after each card; ``"schwarz"`` (schwarz announced, suit or grand ouvert) and
    ``"null"``: 1 if the declarer still reaches the goal (every trick; no trick), else 0.
    Returns ``mover``, ``declarer``, ``kind``, ``goal``, ``values`` (card -> value), ``best``
    (the best value for the mover's side: the declarer wants the most, the defenders the
    least), ``played``, ``lost`` (what the card played gave away against the best one, from
    the mover's side, in :data:`UNITS` ``unit``: card points, or 1 game), ``best_cards``,
    and the words: ``shown`` (card -> the value as shown), ``legend``, ``wants``,
    ``lost_text``.
    """
    from skatsim.solver import describe_target, target_for

    if not 0 <= step < len(g.actions):
        return None
    s = g.state(step)
    if s.phase != "play" or s.game_type is None or s.game_type > 5 or s.declarer is None:
        return None
    solver = solver or _solver()
    c = s.contract
    assert c is not None  # verdicts are asked of declared games
    goal = target_for(c)
    if goal in ("schwarz", "null"):
        sol = solver.solve(s, mode="threshold", threshold=goal, move_values=True)
        kind = str(goal)
    else:
        sol = solver.solve(s, mode="exact", threshold=goal, move_values=True)
        kind = "points"
    values = {card_name(k): int(v) for k, v in sorted(sol.move_values.items())}
    mover = s.current_player()
    declarer_side = mover == s.declarer
    best = max(values.values()) if declarer_side else min(values.values())
    played = card_name(g.actions[step])
    lost = int((best - values[played]) if declarer_side else (values[played] - best))
    if kind == "points":
        shown = {k: str(v) for k, v in values.items()}
        wants = "wants the most points" if declarer_side else "wants the declarer to have the fewest"
        lost_text = f"{lost} card points lost"
    else:
        shown = {k: "made" if v else "fails" for k, v in values.items()}
        wants = "wants the goal made" if declarer_side else "wants it to fail"
        lost_text = "the game thrown away"
    return {"step": step, "mover": mover, "declarer": s.declarer, "kind": kind, "goal": goal, "values": values,
            "best": best, "played": played, "lost": lost, "best_cards": [k for k, v in values.items() if v == best],
            "shown": shown, "legend": UNITS[kind]["legend"].format(goal=describe_target(goal)), "wants": wants,
            "lost_text": lost_text}


def analyse(g: GameMoves, solver: Any = None) -> dict[str, Any]:
    """:func:`card_values` for every card decision of the game, and per seat what was lost
    against best play, in the one unit of the game's goal (``unit``: card points, or games
    thrown where the goal is schwarz or null) and the decisions that lost something
    (``mistakes``)."""
    solver = solver or _solver()
    steps: dict[int, dict[str, Any]] = {}
    lost = [0, 0, 0]
    mistakes = [0, 0, 0]
    kind = None
    for i in range(len(g.actions)):
        v = card_values(g, i, solver) if g.actions[i] < 32 else None
        if v is None:
            continue
        steps[i] = v
        kind = v["kind"]
        lost[v["mover"]] += v["lost"]
        mistakes[v["mover"]] += v["lost"] > 0
    unit = UNITS[kind]["unit"] if kind else None
    note = {"points": "card points given away against the best card, summed over each player's cards",
            "schwarz": "cards that threw the game away: before the card the mover's side could still get its "
                       "outcome (every trick for the declarer, one trick for the defenders), after it not",
            "null": "cards that threw the game away: before the card the mover's side could still get its "
                    "outcome (no trick for the declarer, one for the defenders), after it not"}.get(kind or "", "")
    return {"steps": steps, "kind": kind, "unit": unit, "note": note, "lost": lost, "mistakes": mistakes}


# ----------------------------------------------------------------------------- re-playing


def replay_tournament_game(cfg: dict[str, Any], deal_id: int, arrangement: str) -> tuple[GameMoves, dict[str, Any]]:
    """Play tournament game ``(deal_id, arrangement)`` again from its configuration (a
    :meth:`~agents.arena.tournament.TournamentConfig.to_dict`); returns the moves and the result
    row of the re-played game (the forfeit settlement where an agent failed)."""
    from agents.arena.play import Table
    from agents.arena.tournament import TournamentConfig
    from skatsim.bits import derive_seed

    c = TournamentConfig.from_dict(cfg)
    arr = tuple("ABC".index(ch) for ch in arrangement)
    ds = derive_seed(c.seed, deal_id)
    if c.compiled:  # every agent compiled: the simulation replays it
        return replay_simulation_game([c.agents[k].engine_policy() for k in arr], c.seed, c.rules.to_dict(), deal_id)
    agents = [c.agents[k].make() for k in arr]
    game = Table(agents, SkatState.new_game(seed=ds, rules=c.rules), ds, deal_id, time_limit=c.time_limit,
                 on_error="forfeit").run()
    row = game.result.to_row()
    return GameMoves.of_state(game.state), {"row": row, "error": game.error_text}


def replay_simulation_game(policies: list[Any], seed: int, rules: dict[str, Any],
                           deal_index: int) -> tuple[GameMoves, dict[str, Any]]:
    """Play deal ``deal_index`` of a batch simulation (``policies`` per seat) again."""
    from skatsim.simulate import simulate

    pol = [tuple(p) if isinstance(p, list) else p for p in policies]
    df = simulate(1, policy=pol, seed=seed, rules=SkatRules.from_dict(rules), start=deal_index, workers=1,
                  record_actions=True, progress=False)
    acts = df.attrs["actions"][0]
    n = int(df["n_actions"].iloc[0])
    s = SkatState.new_game(seed=int(df["deal_seed"].iloc[0]), rules=SkatRules.from_dict(rules))
    for a in acts[:n]:
        s.apply_action(int(a))
    row = {k: (v.item() if hasattr(v, "item") else v) for k, v in df.iloc[0].to_dict().items()}
    row["contract"] = str(row["contract"])
    return GameMoves.of_state(s), {"row": row, "error": ""}


# ----------------------------------------------------------------------------- sources

_CHECK = ("declarer", "contract", "won", "declarer_points", "list_score", "sf_0", "sf_1", "sf_2")


@dataclass
class Source:
    """One replay path: ``games`` (summary rows the browser lists) and how to get a game's
    moves (``job(i)``: a picklable ``(function, args)`` for the worker pool, or the moves
    at once for ISS files)."""

    path: str
    kind: str
    label: str
    games: list[dict[str, Any]]
    players: Callable[[int], list[str]]
    job: Callable[[int], tuple[Callable[..., Any], tuple[Any, ...]]] | None = None
    moves: dict[int, GameMoves] = field(default_factory=dict)
    total: int = 0

    def info(self) -> dict[str, Any]:
        agents = sorted({p for g in self.games for p in g["players"]})
        return {"label": self.label, "kind": self.kind, "games": len(self.games), "total": self.total,
                "agents": agents, "path": os.path.basename(self.path.rstrip("/")) or self.path}

    def check(self, i: int, replayed: dict[str, Any]) -> list[str]:
        """Columns where the re-played game differs from the stored row (empty: the same game)."""
        stored = self.games[i].get("row")
        if not stored:
            return []
        row = replayed.get("row", {})
        out = []
        for k in _CHECK:
            if k in stored and k in row and _norm(stored[k]) != _norm(row[k]):
                out.append(f"{k}: stored {stored[k]!r}, re-played {row[k]!r}")
        return out


def _norm(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, bool):
        return int(v)
    return str(v) if not isinstance(v, (int, float)) else v


def _summary(i: int, row: dict[str, Any], players: list[str], extra: dict[str, Any]) -> dict[str, Any]:
    contract = str(row.get("contract"))
    d = int(row.get("declarer", -1))
    return {"i": i, "players": players, "declarer": d, "contract": contract,
            "won": bool(row.get("won")) if d >= 0 else None, "list_score": int(row.get("list_score", 0)),
            "sf": [int(row.get(f"sf_{s}", 0)) for s in range(3)], "bid": int(row.get("bid", 0)),
            "declarer_points": int(row.get("declarer_points", 0)), **extra,
            "row": {k: _norm(row[k]) for k in _CHECK if k in row}}


def _rows(df: Any, limit: int) -> list[dict[str, Any]]:
    return df.head(limit).to_dict("records")


def _tournament_source(path: str, games: Any, cfg: dict[str, Any], limit: int) -> Source:
    rows = _rows(games, limit)
    out = []
    for i, r in enumerate(rows):
        players = [str(r["agent_0"]), str(r["agent_1"]), str(r["agent_2"])]
        out.append(_summary(i, r, players, {"deal_id": int(r["deal_id"]), "arrangement": str(r["arrangement"]),
                                            "deal_seed": str(int(r["deal_seed"])), "error": str(r.get("error") or "")}))
    labels = ", ".join(cfg.get("labels", []))
    src = Source(path, "tournament", f"tournament {labels} ({cfg.get('engine')} engine, seed {cfg.get('seed')})",
                 out, lambda i: out[i]["players"], total=len(games))
    src.job = lambda i: (replay_tournament_game, (cfg, out[i]["deal_id"], out[i]["arrangement"]))
    return src


def _simulation_source(path: str, df: Any, policies: list[Any], seed: int, rules: dict[str, Any],
                       limit: int) -> Source:
    def label(p: Any) -> str:
        if isinstance(p, dict):
            name, params = p.get("name"), p.get("params") or {}
        else:
            name, params = p[0], (p[1] if len(p) > 1 else {})
        return str(name) + (":" + ",".join(f"{k}={v:g}" for k, v in params.items()) if params else "")

    players = [label(p) for p in policies]
    pol = [(p["name"], p.get("params") or {}) if isinstance(p, dict) else (p[0], p[1]) for p in policies]
    rows = _rows(df, limit)
    out = [_summary(i, r, players, {"deal_id": int(r["deal_index"]), "deal_seed": str(int(r["deal_seed"]))})
           for i, r in enumerate(rows)]
    src = Source(path, "simulation", f"simulation {', '.join(players)} (seed {seed})", out, lambda i: players,
                 total=len(df))
    src.job = lambda i: (replay_simulation_game, (pol, seed, rules, out[i]["deal_id"]))
    return src


def _iss_source(path: str, limit: int) -> Source:
    from skatsim.iss import IssError, iter_iss, replay

    out: list[dict[str, Any]] = []
    moves: dict[int, GameMoves] = {}
    errors: list[IssError] = []
    n = 0
    for g in iter_iss(path, errors=errors):
        n += 1
        if len(out) >= limit:
            continue
        try:
            s = replay(g)
        except IssError as e:
            errors.append(e)
            continue
        i = len(out)
        row = s.result.to_row()
        out.append(_summary(i, row, list(g.players), {"iss_id": g.id, "date": g.date, "ending": s.ending}))
        moves[i] = GameMoves.of_state(s)
    if not out:
        why = f": {errors[0]}" if errors else ""
        raise SourceError(f"{path!r} holds no replayable ISS game{why}")
    src = Source(path, "iss", f"ISS records {os.path.basename(path)}", out, lambda i: out[i]["players"],
                 moves=moves, total=n)
    return src


def open_source(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> Source:
    """Read a replay path (see the module docstring); :class:`SourceError` says what is wrong."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise SourceError(f"replay path {p!r} does not exist")
    if os.path.isdir(p):
        from skatsim.runs import RunDir, is_run_dir

        if not is_run_dir(p):
            raise SourceError(f"{p!r} is a folder but not a run directory (no manifest.json): give a tournament "
                              "or simulation run directory, a games parquet or an ISS file")
        run = RunDir.open(p)
        if run.kind == "tournament":
            from agents.arena.tournament import load_tournament

            try:
                r = load_tournament(p, partial=True)
            except ValueError as e:
                raise SourceError(f"{p!r}: {e}") from None
            if len(r.games) == 0:
                raise SourceError(f"{p!r} holds no finished games yet")
            return _tournament_source(p, r.games, r.config.to_dict(), limit)
        if run.kind == "simulation":
            c = run.config
            df = run.read_all()
            return _simulation_source(p, df, [list(x) for x in c["policy"]], int(c["seed"]), c["rules"], limit)
        raise SourceError(f"{p!r} holds a {run.kind} run; replay reads tournament and simulation runs")
    if p.endswith(".parquet"):
        return _parquet_source(p, limit)
    return _iss_source(p, limit)


def _parquet_source(p: str, limit: int) -> Source:
    import json

    import pandas as pd
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(p).metadata or {}
    except Exception as e:  # noqa: BLE001 - any reader error becomes the user's message
        raise SourceError(f"{p!r} is not a readable parquet file: {e}") from None
    if b"skatsim" in meta:
        from skatsim.simulate import read_parquet

        info = json.loads(meta[b"skatsim"])
        if info.get("kind", "simulation") == "simulation" and "policies" in info:
            df = read_parquet(p) if "start" not in info else pd.read_parquet(p)
            return _simulation_source(p, df, info["policies"], int(info["seed"]), info["rules"], limit)
    df = pd.read_parquet(p)
    if "iss_id" in df.columns:
        raise SourceError(f"{p!r} is an ISS import table: it keeps the bidding decisions but not the card play; "
                          "give the ISS game file itself (skatsim serve --replay FILE.txt)")
    if "arrangement" in df.columns and "agents" in df.attrs:
        return _tournament_source(p, df, dict(df.attrs), limit)
    raise SourceError(f"{p!r} is neither a tournament games table (written by skatsim tournament --out "
                      "FILE.parquet) nor a simulation file (skatsim simulate --out FILE.parquet)")


def source_paths(paths: list[str]) -> list[Path]:
    """The given paths as absolute paths (what the server keeps)."""
    return [Path(p).resolve() for p in paths]
