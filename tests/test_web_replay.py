"""Replay: reading tournament runs, parquet tables and ISS files; re-played games equal the
stored rows (the tournament's same-seed guarantee); positions and seat views; the solver's
card values against independent solves; the replay API."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import play_game
from agents.arena.tournament import run_tournament
from skatsim import solve
from skatsim.cards import card_name
from skatsim.simulate import simulate_to_parquet
from skatsim.state import to_play
from skatsim_app.web.replay import (GameMoves, SourceError, analyse, card_values, open_source, position,
                                    replay_simulation_game, replay_tournament_game)

DATA = Path(__file__).parent / "data"


def _replays_match(src) -> int:
    n = 0
    for i, g in enumerate(src.games):
        fn, args = src.job(i)
        moves, replayed = fn(*args)
        assert src.check(i, replayed) == [], (i, g)
        assert moves.seed is None or str(moves.seed) == g["deal_seed"]
        state = moves.state()
        if not replayed.get("error"):
            assert state.is_terminal()
            assert state.result.list_score == g["list_score"] and list(state.result.seeger_fabian) == g["sf"]
        n += 1
    return n


def test_python_engine_tournament_games_replay_exactly(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = run_tournament(["random", "rule_based"], 2, seed=3, parallel="processes", out=out, progress=False)
    src = open_source(out)
    assert src.kind == "tournament" and len(src.games) == len(r.games) == 12
    assert _replays_match(src) == 12


def test_pimc_tournament_games_replay_exactly(tmp_path: Path) -> None:
    """PIMC draws its worlds from the seat's stream: the same seed gives the same game."""
    out = tmp_path / "run"
    run_tournament(["pimc:worlds=4", "rule_based"], 1, seed=11, out=out, progress=False)
    src = open_source(out)
    assert _replays_match(src) == 6


def test_batch_engine_tournament_parquet_replays_exactly(tmp_path: Path) -> None:
    r = run_tournament(["rule_based", "random"], 3, seed=4, progress=False)
    path = tmp_path / "games.parquet"
    r.games.to_parquet(path, index=False)   # what skatsim tournament --out FILE.parquet writes
    src = open_source(path)
    assert src.kind == "tournament" and len(src.games) == 18
    assert _replays_match(src) == 18
    # and the batch re-play is the Python agents' game too
    g = src.games[5]
    moves, _ = replay_tournament_game({**r.config.to_dict(), "engine": "python"}, g["deal_id"], g["arrangement"])
    assert moves == src.job(5)[0](*src.job(5)[1])[0]


def test_simulation_parquet_replays_exactly(tmp_path: Path) -> None:
    path = tmp_path / "sim.parquet"
    simulate_to_parquet(path, 15, policy="rule_based", seed=5, progress=False, workers=1)
    src = open_source(path)
    assert src.kind == "simulation" and src.players(0) == ["rule_based"] * 3
    assert _replays_match(src) == 15
    moves, rep = replay_simulation_game(["rule_based"] * 3, 5, src_rules(src), src.games[3]["deal_id"])
    assert rep["row"]["deal_index"] == 3


def src_rules(src) -> dict:
    return src.job(0)[1][2]


def test_iss_files_replay_and_bad_sources_are_refused(tmp_path: Path) -> None:
    from skatsim.iss import read_iss, replay

    src = open_source(DATA / "iss_records.txt")
    games = read_iss(DATA / "iss_records.txt")
    assert src.kind == "iss" and len(src.games) == len(games)
    for i, g in enumerate(games):
        s = replay(g)
        assert src.moves[i].state().history() == s.history()
        assert src.games[i]["players"] == list(g.players) and src.games[i]["iss_id"] == g.id
        p = position(src.moves[i], len(s.history()), "all")
        assert p["points"] == s.points()
    with pytest.raises(SourceError, match="does not exist"):
        open_source(tmp_path / "nothing")
    with pytest.raises(SourceError, match="not a run directory"):
        open_source(tmp_path)
    import pandas as pd

    pd.DataFrame({"iss_id": [1], "declarer": [0]}).to_parquet(tmp_path / "games.parquet")
    with pytest.raises(SourceError, match="ISS import table"):
        open_source(tmp_path / "games.parquet")
    (tmp_path / "junk.txt").write_text("hello\n")
    with pytest.raises(SourceError, match="no replayable ISS game"):
        open_source(tmp_path / "junk.txt")


def _game(seed: int = 9) -> GameMoves:
    return GameMoves.of_state(play_game(["rule_based", "pimc:worlds=4", "rule_based"], seed=seed))


def test_card_values_agree_with_independent_solves() -> None:
    g = _game()
    s = g.state()
    card_steps = [i for i, (p, a, ph) in enumerate(s.phase_history()) if ph == "play"]
    for step in card_steps[::7]:
        v = card_values(g, step)
        before = g.state(step)
        legal = before.legal_actions()
        assert sorted(v["values"]) == sorted(card_name(a) for a in legal)
        for a in legal:  # the declarer's points with best play after each card, solved from the child
            child = before.child(a)
            if child.phase == "play":
                assert v["values"][card_name(a)] == solve(child, mode="exact").declarer_points
        mine = v["mover"] == v["declarer"]
        best = (max if mine else min)(v["values"].values())
        assert v["best"] == best and v["played"] == card_name(g.actions[step])
        assert v["lost"] == abs(best - v["values"][v["played"]])
    assert card_values(g, 0) is None  # a bid is not a card decision


def test_analysis_sums_the_points_lost_per_seat() -> None:
    g = _game(6)
    a = analyse(g)
    assert a["kind"] == "points" and len(a["steps"]) == 30
    for seat in range(3):
        mine = [v for v in a["steps"].values() if v["mover"] == seat]
        assert a["lost"][seat] == sum(v["lost"] for v in mine)
        assert a["mistakes"][seat] == sum(v["lost"] > 0 for v in mine)
    # the last card of the game has one legal move: nothing to lose
    assert a["steps"][max(a["steps"])]["lost"] == 0 and len(a["steps"][max(a["steps"])]["values"]) == 1


def test_null_games_are_judged_by_their_outcome() -> None:
    s = to_play(21, 1, "N")
    while not s.is_terminal():  # the lowest legal card every time
        s.apply_action(s.legal_actions()[0])
    a = analyse(GameMoves.of_state(s))
    assert a["kind"] == "null" and a["steps"]
    for step, v in a["steps"].items():
        assert set(v["values"].values()) <= {0, 1} and v["lost"] in (0, 1)
        before = GameMoves.of_state(s).state(step)
        for c, val in v["values"].items():  # 1: the declarer still takes no trick after that card
            from skatsim.cards import parse_card

            child = before.child(parse_card(c))
            if child.phase == "play":
                assert val == int(solve(child, mode="threshold", threshold="null").declarer_wins)


@pytest.mark.parametrize("contract", ["CHZ", "SO", "GO"])
def test_a_schwarz_goal_is_judged_in_games_not_points(contract: str) -> None:
    """browser-pass-1, problem 4: schwarz announced (and ouvert, which implies it) was
    valued 0/1 but labelled as the declarer's card points; the unit is now the goal's."""
    from skatsim.solver import target_for

    s = to_play(12, 0, contract)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[-1])
    g = GameMoves.of_state(s)
    a = analyse(g)
    assert target_for(contract) == "schwarz" and a["kind"] == "schwarz" and a["unit"] == "games thrown"
    for step, v in a["steps"].items():
        assert set(v["values"].values()) <= {0, 1} and v["lost"] in (0, 1) and v["goal"] == "schwarz"
        assert set(v["shown"].values()) <= {"made", "fails"} and "every trick" in v["legend"]
        before = g.state(step)
        for c, val in v["values"].items():  # 1: the declarer still takes every trick after that card
            from skatsim.cards import parse_card

            child = before.child(parse_card(c))
            if child.phase == "play":
                assert val == int(solve(child, mode="threshold", threshold="schwarz").declarer_wins)
    assert sum(a["lost"]) == sum(v["lost"] for v in a["steps"].values())


def test_points_games_keep_card_points_with_their_goal() -> None:
    s = to_play(12, 0, "CHS")  # schneider announced: card points, against 90
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    a = analyse(GameMoves.of_state(s))
    v = next(iter(a["steps"].values()))
    assert a["kind"] == "points" and a["unit"] == "card points" and v["goal"] == 90 and "90 card points" in v["legend"]
    assert v["shown"] == {c: str(x) for c, x in v["values"].items()}


def test_seat_views_show_only_what_the_seat_knew() -> None:
    g = _game()
    s = g.state()
    d = s.declarer
    first_card = next(i for i, (p, a, ph) in enumerate(s.phase_history()) if ph == "play")
    for seat in range(3):
        p = position(g, first_card + 4, seat)
        for other in range(3):
            if other == seat:
                assert isinstance(p["hands"][other], list)
            else:
                assert isinstance(p["hands"][other], int)  # a count, no cards
        if seat != d:
            assert p["skat"] == 2 and p["skat_found"] is None
    every = position(g, first_card + 4, "all")
    assert all(isinstance(h, list) for h in every["hands"]) and len(every["skat"]) == 2


def test_replay_api(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from web_helpers import SMALL_ANALYSIS, client

    from skatsim_app.web import create_app

    out = tmp_path / "run"
    run_tournament(["random", "rule_based"], 2, seed=3, parallel="processes", out=out, progress=False)
    app = create_app(replay=[str(out), str(DATA / "iss_records.txt")], opponents=["random", "random"],
                     analysis_agent=SMALL_ANALYSIS)
    with client(app) as c:
        srcs = c.get("/api/config").json()["sources"]
        assert [s["kind"] for s in srcs] == ["tournament", "iss"] and srcs[0]["games"] == 12
        all_games = c.get("/api/replay/games?source=0").json()
        assert all_games["count"] == 12
        won = c.get("/api/replay/games?source=0&won=yes").json()["games"]
        assert won and all(g["won"] for g in won)
        rb = c.get("/api/replay/games?source=0&agent=rule_based").json()
        assert rb["count"] == sum("rule_based" in g["players"] for g in all_games["games"])
        k = next(g for g in all_games["games"] if g["contract"] not in ("passed", "R"))
        first = k["contract"][0]
        byc = c.get(f"/api/replay/games?source=0&contract={first}").json()["games"]
        assert byc and all(g["contract"][0] == first for g in byc)
        i = k["i"]
        game = c.get(f"/api/replay/game?source=0&game={i}").json()
        assert game["mismatch"] == [] and game["n_moves"] == len(game["moves"]) and game["card_steps"]
        assert "Result:" in game["explanation"]
        step = game["card_steps"][4]
        pos = c.get(f"/api/replay/position?source=0&game={i}&step={step}&view=1").json()
        assert pos["step"] == step and isinstance(pos["hands"][0], int)
        vals = c.get(f"/api/replay/values?source=0&game={i}&step={step}").json()["values"]
        assert vals["played"] == game["moves"][step]["action"]
        a = c.get(f"/api/replay/analysis?source=0&game={i}").json()
        assert len(a["steps"]) == len(game["card_steps"]) and a["steps"][str(step)]["lost"] == vals["lost"]
        assert c.get(f"/api/replay/values?source=0&game={i}&step={step}").json()["values"] == vals  # cached
        iss = c.get("/api/replay/game?source=1&game=0&deck=french").json()
        assert iss["players"] and iss["moves"]
        for bad, status in [("/api/replay/games?source=7", 404), ("/api/replay/games?source=x", 400),
                            ("/api/replay/game?source=0&game=99", 404), ("/api/replay/game?source=0", 400),
                            (f"/api/replay/position?source=0&game={i}&step=999", 400),
                            (f"/api/replay/position?source=0&game={i}&view=4", 400),
                            ("/api/replay/games?source=0&won=maybe", 400),
                            ("/api/replay/games?source=../../etc/passwd", 400)]:
            r = c.get(bad)
            assert r.status_code == status and r.json()["error"], (bad, r.status_code, r.text)
    with client(create_app(opponents=["random", "random"])) as c:
        r = c.get("/api/replay/games")
        assert r.status_code == 404 and "--replay" in r.json()["error"]


def test_the_settlement_in_words_adds_up_and_names_no_raw_tokens() -> None:
    """web/settle.py says the core's figures with the table's names: the parts of the
    multiplier it lists add up to the core's multiplier, for every kind of game."""
    import re

    from skatsim.contracts import Contract
    from skatsim_app.web.names import contract_label
    from skatsim_app.web.settle import explain

    names = ["You", "pimc (left)", "rule_based (right)"]
    kinds = set()
    for seed in range(40):
        s = play_game(["rule_based"] * 3, seed=seed)
        text = explain(s, names, "german")
        r = s.result
        if r.passed_in or r.ramsch:
            continue
        c = Contract.parse(r.contract)
        kinds.add(c.game)
        assert contract_label(c, "german") in text.splitlines()[0] and f" {c.to_text()} (" not in text
        assert "seat " not in text and f"Result: {names[r.declarer]} {'won' if r.won else 'lost'}" in text
        m = re.search(r"Multiplier (\d+) = ([^;]+);", text)
        if c.is_null:
            assert m is None
        else:
            parts = [int(x.split()[-1]) for x in m.group(2).split(" + ")]
            assert int(m.group(1)) == r.multiplier == sum(parts), text
    assert len(kinds) >= 3
