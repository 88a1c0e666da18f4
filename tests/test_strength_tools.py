"""The strength work's tools: where the points go (agents/arena/compare.py and ``skatsim
compare``), win-probability calibration (agents/players/calibration.py), the solver's batch
win search (``Solver.wins_many``) and resumable run directories (``RunDir.resume_or_create``
and ``RunDir.fill`` in skatsim/runs.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import run_tournament
from agents.arena.compare import (CATEGORIES, decision_breakdown, format_breakdown, format_outcomes, outcome_changes,
                                  pairs_of)
from agents.players.calibration import (calibrated, calibrated_array, fit_calibration, format_calibration,
                                        parse_calibration)
from skatsim.cards import card_points
from skatsim.rules import CLUBS, GRAND, NULL
from skatsim.runs import RunDir
from skatsim.solver import Position, Solver
from skatsim_app.cli import main
from test_cli import _err  # a usage error's last stderr line (exit status 2, no traceback)

# ----------------------------------------------------------------------------- where the points go


def _row(deal: int, arr: str, declarer: int | None, contract: str, sf: tuple[int, int, int]) -> dict[str, Any]:
    names = {"A": "a", "B": "b", "F": "f"}
    return dict(deal_id=deal, arrangement=arr, agent_0=names[arr[0]], agent_1=names[arr[1]], agent_2=names[arr[2]],
                declarer=-1 if declarer is None else declarer, contract=contract, sf_0=sf[0], sf_1=sf[1], sf_2=sf[2])


def test_each_category_by_what_the_swapped_seat_did() -> None:
    """One pair per category, seat 0 swapped (a in ABB, b in BBB), known scores."""
    rows = []
    cases = [  # (a's game: declarer, contract, sf_0), (b's game: ...)
        ((0, "G", 120), (1, "C", -40), CATEGORIES[0]),      # declares with a only
        ((2, "S", -30), (0, "H", 70), CATEGORIES[1]),       # declares with b only
        ((0, "N", 73), (0, "D", -90), CATEGORIES[2]),       # other contract
        ((0, "C", 84), (0, "C", -116), CATEGORIES[3]),      # same contract
        ((1, "G", 40), (2, "S", 10), CATEGORIES[4]),        # defence
        ((None, "passed", 0), (None, "passed", 0), CATEGORIES[5]),  # passed in
    ]
    for d, (ga, gb, _) in enumerate(cases):
        rows.append(_row(d, "ABB", ga[0], ga[1], (ga[2], 0, 0)))
        rows.append(_row(d, "BBB", gb[0], gb[1], (gb[2], 0, 0)))
    df = pd.DataFrame(rows)
    p = pairs_of(df, "a", "b").set_index("deal_id")
    assert list(p["category"]) == [c for *_, c in cases]
    assert list(p["diff"]) == [ga[2] - gb[2] for ga, gb, _ in cases]
    assert set(p["seat"]) == {0}
    t = decision_breakdown(df, "a", "b")
    assert list(t.index) == [*CATEGORIES, "total"]
    assert (t.loc[list(CATEGORIES), "pairs"] == 1).all() and t.loc["total", "pairs"] == 6
    diffs = [ga[2] - gb[2] for ga, gb, _ in cases]
    assert t.loc["total", "mean"] == pytest.approx(np.mean(diffs))
    for cat, x in zip(CATEGORIES, diffs):
        assert t.loc[cat, "mean"] == x and t.loc[cat, "per_pair"] == pytest.approx(x / 6)
        assert t.loc[cat, "share"] == pytest.approx(1 / 6)


@pytest.fixture(scope="module")
def rb_vs_random() -> pd.DataFrame:
    return run_tournament(["rule_based", "random"], n_deals=30, seed=11, progress=False).games


def _sums_to_total(t: pd.DataFrame) -> None:
    cats = t.loc[list(CATEGORIES)]
    assert cats["pairs"].sum() == t.loc["total", "pairs"]
    assert cats["per_pair"].sum() == pytest.approx(t.loc["total", "per_pair"], abs=1e-9)
    assert t.loc["total", "per_pair"] == pytest.approx(t.loc["total", "mean"], abs=1e-9)
    used = cats[cats["pairs"] > 0]
    assert used["share"].sum() == pytest.approx(1.0)
    assert (used["mean"] * used["share"]).sum() == pytest.approx(t.loc["total", "mean"])


def test_breakdown_of_a_tournament_adds_up_to_the_total(rb_vs_random: pd.DataFrame) -> None:
    t = decision_breakdown(rb_vs_random, "rule_based", "random")
    _sums_to_total(t)
    assert t.loc["total", "pairs"] == 6 * 30  # per board: AAB/BAB, AAB/ABB, ABA/BBA, ABA/ABB, BAA/BBA, BAA/BAB
    assert t.loc["total", "mean"] > 0 and t.loc["total", "ci"] > 0
    # the total is the mean difference of the swapped seat's score, computed directly
    g = rb_vs_random.set_index(["deal_id", "arrangement"])
    diffs = [g.loc[(d, arr), f"sf_{s}"] - g.loc[(d, arr[:s] + "B" + arr[s + 1:]), f"sf_{s}"]
             for d in range(30) for arr in ("AAB", "ABA", "BAA") for s in range(3) if arr[s] == "A"]
    assert t.loc["total", "mean"] == pytest.approx(np.mean(diffs))
    # the same pairs seen from the other side: the mirror image
    r = decision_breakdown(rb_vs_random, "random", "rule_based")
    assert r.loc["total", "pairs"] == t.loc["total", "pairs"]
    assert r.loc["total", "mean"] == pytest.approx(-t.loc["total", "mean"])
    assert r.loc[CATEGORIES[0], "pairs"] == t.loc[CATEGORIES[1], "pairs"]
    assert r.loc[CATEGORIES[1], "pairs"] == t.loc[CATEGORIES[0], "pairs"]
    for cat in CATEGORIES[2:]:
        assert r.loc[cat, "pairs"] == t.loc[cat, "pairs"]


def test_a_player_against_itself_differs_nowhere() -> None:
    games = run_tournament(["rule_based", "rule_based"], n_deals=12, seed=3, progress=False).games
    t = decision_breakdown(games, "rule_based", "rule_based#2")
    assert t.loc["total", "pairs"] == 6 * 12
    assert (t["per_pair"] == 0).all() and (t["ci"] == 0).all()
    for cat in CATEGORIES[:3]:  # the same decisions: never one declares and the other not
        assert t.loc[cat, "pairs"] == 0
    assert (t.loc[t["pairs"] > 0, "mean"] == 0).all()


def test_a_three_player_run_pairs_the_two_players_trading_seats() -> None:
    """ABC and BAC: seat 0 compares a with b (seat 1 the reverse); the third keeps its seat."""
    games = run_tournament(["rule_based", "random", "rule_based:max_bid=18"], n_deals=4, seed=5,
                           progress=False).games
    p = pairs_of(games, "rule_based", "random")
    assert len(p) == 6 * 4  # every game holds both players once: one pair per game
    assert (p["diff"] == p["sf_a"] - p["sf_b"]).all()
    # each game with a in seat s: its partner has a and b traded, the third agent in place
    by = {(int(g.deal_id), (g.agent_0, g.agent_1, g.agent_2)): g for g in games.itertuples()}
    want = []
    for (deal, agents), g in by.items():
        s, q = agents.index("rule_based"), agents.index("random")
        traded = list(agents)
        traded[s], traded[q] = "random", "rule_based"
        want.append((deal, s, float(getattr(g, f"sf_{s}")), float(getattr(by[(deal, tuple(traded))], f"sf_{s}"))))
    assert sorted(want) == sorted(zip(p["deal_id"], p["seat"], p["sf_a"], p["sf_b"]))
    # the mean difference per pair is the difference of the two players' mean scores
    t = decision_breakdown(games, "rule_based", "random")
    mean = {x: np.mean([getattr(g, f"sf_{s}") for g in games.itertuples() for s in range(3)
                        if getattr(g, f"agent_{s}") == x]) for x in ("rule_based", "random")}
    assert t.loc["total", "pairs"] == 24
    assert t.loc["total", "per_pair"] == pytest.approx(mean["rule_based"] - mean["random"])


def test_two_run_mode_pairs_the_player_against_the_same_field(rb_vs_random: pd.DataFrame) -> None:
    other = run_tournament(["rule_based:max_bid=18", "random"], n_deals=30, seed=11, progress=False).games
    t = decision_breakdown(rb_vs_random, "rule_based", "rule_based:max_bid=18", other)
    _sums_to_total(t)
    assert t.loc["total", "pairs"] == 3 * 30  # ABB, BAB, BBA: the player in one seat
    assert t.loc["declares, other passes", "pairs"] > 0  # it bids above 18 where the other may not
    a = rb_vs_random.set_index(["deal_id", "arrangement"])
    b = other.set_index(["deal_id", "arrangement"])
    diffs = [a.loc[(d, arr), f"sf_{s}"] - b.loc[(d, arr), f"sf_{s}"]
             for d in range(30) for s, arr in enumerate(("ABB", "BAB", "BBA"))]
    assert t.loc["total", "mean"] == pytest.approx(np.mean(diffs))
    same = decision_breakdown(rb_vs_random, "rule_based", "rule_based", rb_vs_random)
    assert same.loc["total", "pairs"] == 90 and (same["per_pair"] == 0).all()


def test_two_runs_on_other_deals_are_refused(rb_vs_random: pd.DataFrame) -> None:
    other = run_tournament(["rule_based", "random"], n_deals=30, seed=12, progress=False).games
    with pytest.raises(ValueError, match="different seeds"):
        decision_breakdown(rb_vs_random, "rule_based", "rule_based", other)


def test_format_breakdown_has_a_line_per_category(rb_vs_random: pd.DataFrame) -> None:
    t = decision_breakdown(rb_vs_random, "rule_based", "random")
    text = format_breakdown(t, "rule_based", "random")
    lines = text.splitlines()
    assert lines[0] == ("where the points go: rule_based - random, Seeger-Fabian points of the swapped seat "
                        "(180 pairs)")
    assert len(lines) == 2 + len(CATEGORIES) + 2
    assert [ln.split("  ")[0].strip() for ln in lines[2:2 + len(CATEGORIES)]] == list(CATEGORIES)
    assert lines[-2] == "-" * 74 and lines[-1].startswith("total")
    assert f"{t.loc['total', 'per_pair']:+.2f} ± {t.loc['total', 'ci']:.2f}" in lines[-1]


def test_outcome_changes_count_the_flipped_games(rb_vs_random: pd.DataFrame) -> None:
    """The flips recounted by hand from the games table: the declarer's side won when ``won``,
    the defenders' when not; a pair is a seat of ``rule_based`` and the same seat of ``random``
    with the other two seats alike; a flip changes the seat's score."""
    by = {(int(r["deal_id"]), r["arrangement"]): r for _, r in rb_vs_random.iterrows()}
    flips, n = [0, 0], 0
    for (deal, arr), r in by.items():
        for s in range(3):
            other = by.get((deal, arr[:s] + "B" + arr[s + 1:])) if r[f"agent_{s}"] == "rule_based" else None
            if other is None or other[f"agent_{s}"] != "random":
                continue
            n += 1
            wins = [None if int(g["declarer"]) < 0 or g["contract"] in ("passed", "R")
                    else bool(g["won"]) == (int(g["declarer"]) == s) for g in (r, other)]
            flips[0] += wins == [True, False]
            flips[1] += wins == [False, True]
    t = outcome_changes(rb_vs_random, "rule_based", "random")
    assert t.loc["total", "pairs"] == n == len(pairs_of(rb_vs_random, "rule_based", "random")) == 180
    assert [t.loc["total", "won with a only"], t.loc["total", "won with b only"]] == flips
    assert flips[0] > flips[1]  # rule_based beats random
    for c in CATEGORIES:
        assert t.loc[c, "won with a only"] + t.loc[c, "won with b only"] <= t.loc[c, "score differs"] <= t.loc[c, "pairs"]
    assert t.loc["passed in", "score differs"] == 0
    assert (t.loc[list(CATEGORIES)].sum() == t.loc["total"]).all()
    text = format_outcomes(t, "rule_based", "random").splitlines()
    assert text[0].startswith("outcomes: a = rule_based, b = random")
    assert len(text) == 2 + len(CATEGORIES) + 2 and text[-1].startswith("total")


# ----------------------------------------------------------------------------- skatsim compare


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("compare")
    out = {}
    for name, agents, seed in (("ab", ["rule_based", "random"], 5), ("cb", ["rule_based:max_bid=18", "random"], 5),
                               ("cr", ["rule_based:max_bid=18", "rule_based"], 5),
                               ("other_seed", ["rule_based:max_bid=18", "random"], 6),
                               ("two_opts", ["rule_based:max_bid=18,bid_threshold=0.5", "random"], 5)):
        run_tournament(agents, n_deals=6, seed=seed, progress=False, out=root / name)
        out[name] = str(root / name)
    out["missing"] = str(root / "missing")
    return out


def test_compare_prints_the_table(runs: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", runs["ab"]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("where the points go: rule_based - random") and "(36 pairs)" in out
    assert main(["compare", runs["ab"], runs["cb"]]) == 0  # the players told apart by the runs
    out = capsys.readouterr().out
    assert out.startswith("where the points go: rule_based - rule_based:max_bid=18") and "(18 pairs)" in out
    assert main(["compare", runs["ab"], "--outcomes"]) == 0
    out = capsys.readouterr().out
    assert "\noutcomes: a = rule_based, b = random" in out and out.rstrip().splitlines()[-1].startswith("total")


def test_one_seat_runs_pair_as_the_full_tournaments_do(runs: dict[str, str], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``skatsim tournament A B --one-seat`` plays only the games where A sits alone (ABB BAB BBA):
    ``compare`` of two such runs, or of one with a full run, prints what the full runs give."""
    one = {}
    for name, player in (("ab1", "rule_based"), ("cb1", "rule_based:max_bid=18")):
        one[name] = str(tmp_path / name)
        assert main(["tournament", player, "random", "--deals", "6", "--seed", "5", "--one-seat", "--no-progress",
                     "--out", one[name]]) == 0
        out = capsys.readouterr().out
        assert f"6 boards x 3 arrangements ({player} in one seat, random in the two others) = 18 games" in out
    texts = []
    for pair in ((runs["ab"], runs["cb"]), (one["ab1"], one["cb1"]), (one["ab1"], runs["cb"])):
        assert main(["compare", *pair]) == 0
        texts.append(capsys.readouterr().out)
    assert texts[0] == texts[1] == texts[2] and "(18 pairs)" in texts[0]
    line = _err(["tournament", "rule_based", "random", "random", "--one-seat", "--deals", "2"], capsys)
    assert "--one-seat seats the first of two agents against the second in the two other seats; got 3" in line
    line = _err(["tournament", "--resume", one["ab1"], "--one-seat"], capsys)
    assert "--one-seat is the resumed run's" in line


def test_compare_reads_players_as_written_in_any_option_order(runs: dict[str, str],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``--players`` takes a spec as the tournament's command wrote it; the run labels it in canonical form
    (options sorted), and both name the same agent."""
    assert main(["compare", runs["two_opts"], "--players", "rule_based:max_bid=18,bid_threshold=0.5", "random"]) == 0
    assert capsys.readouterr().out.startswith("where the points go: rule_based:bid_threshold=0.5,max_bid=18 - random")


@pytest.mark.parametrize("args, message", [
    (["ab", "ab", "ab"], "give one tournament of A against B, or two runs (A and B against the same field)"),
    (["ab", "--players", "rule_based", "pimc"], "--players must name two of the tournament's agents: "
                                                "rule_based, random"),
    (["ab", "ab"], "cannot tell the two players apart: give --players A B"),
    (["ab", "cb", "--players", "rule_based:max_bid=18", "random"],
     "'rule_based:max_bid=18' must be an agent of the first run and 'random' of the second"),
    (["ab", "cr", "--players", "rule_based", "rule_based:max_bid=18"],
     "the runs' fields differ (random against rule_based)"),
    (["ab", "other_seed"], "do not share their boards (different seeds)"),
    (["missing"], "is not a skatsim run directory: it does not exist"),
])
def test_compare_errors_are_one_line(runs: dict[str, str], args: list[str], message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare"] + [runs.get(a, a) for a in args]
    line = _err(argv, capsys)  # one line: the message follows the command's name on the last line
    assert line.startswith("skatsim compare: ") and message in line, line


# ----------------------------------------------------------------------------- calibration

pairs = st.tuples(st.floats(-20, 20, allow_nan=False), st.floats(-20, 20, allow_nan=False))


@given(cal=st.tuples(pairs, pairs, pairs))
def test_calibration_text_round_trips(cal: Any) -> None:
    text = format_calibration(cal)
    back = parse_calibration(text)
    assert back is not None and format_calibration(back) == text
    for (a, b), (x, y) in zip(cal, back):
        assert x == pytest.approx(a, rel=1e-3, abs=1e-3) and y == pytest.approx(b, rel=1e-3, abs=1e-3)
    assert parse_calibration(text.strip("()")) == back  # parentheses are optional


def test_no_calibration_is_the_identity() -> None:
    for text in ("none", "", None, "()", " none "):
        assert parse_calibration(text) is None
    assert format_calibration(None) == "none"
    p = np.array([0.0, 0.2, 0.5, 0.97, 1.0])
    assert all(calibrated(float(x), g, None) == x for x in p for g in range(6))
    assert calibrated_array(p, [CLUBS] * 5, None) is not None
    assert np.array_equal(calibrated_array(p, [CLUBS] * 5, None), p)
    ident = parse_calibration("0,1;0,1;0,1")
    q = np.linspace(0.01, 0.99, 9)
    assert np.allclose(calibrated_array(q, np.full(9, GRAND), ident), q)


def test_calibration_is_per_class_of_game() -> None:
    cal = parse_calibration("(1,1;-1,1;0,2)")
    assert calibrated(0.5, CLUBS, cal) == pytest.approx(1 / (1 + math.exp(-1)))
    assert calibrated(0.5, GRAND, cal) == pytest.approx(1 / (1 + math.exp(1)))
    assert calibrated(0.5, NULL, cal) == pytest.approx(0.5)
    assert calibrated(0.75, NULL, cal) == pytest.approx(0.9)  # logit doubled: 3:1 -> 9:1
    games = np.array([0, 1, 2, 3, GRAND, NULL])
    arr = calibrated_array(np.full(6, 0.3), games, cal)
    assert np.allclose(arr, [calibrated(0.3, int(g), cal) for g in games])


@pytest.mark.parametrize("text", ["1,2;3", "1,2;3,4", "a,b;c,d;e,f", "1,2;3,4;5,inf", "1,2,3;4,5;6,7"])
def test_bad_calibration_text_names_the_form(text: str) -> None:
    with pytest.raises(ValueError, match=r"a calibration is 'none' or three 'a,b' pairs"):
        parse_calibration(text)


def test_fit_recovers_known_lines_per_class() -> None:
    rng = np.random.default_rng(5)
    truth = {0: (0.6, 1.4), 1: (-0.4, 0.7)}
    ps, gs, won = [], [], []
    for game, (a, b) in ((CLUBS, truth[0]), (GRAND, truth[1])):
        p = rng.uniform(0.03, 0.97, 20_000)
        q = 1 / (1 + np.exp(-(a + b * np.log(p / (1 - p)))))
        ps.append(p)
        gs.append(np.full(len(p), game))
        won.append(rng.uniform(size=len(p)) < q)
    ps.append(rng.uniform(0.1, 0.9, 20))  # too few null games: the identity
    gs.append(np.full(20, NULL))
    won.append(np.ones(20, bool))
    cal = fit_calibration(np.concatenate(ps), np.concatenate(gs), np.concatenate(won))
    for c in (0, 1):
        assert cal[c][0] == pytest.approx(truth[c][0], abs=0.1)
        assert cal[c][1] == pytest.approx(truth[c][1], abs=0.1)
    assert cal[2] == (0.0, 1.0)
    assert parse_calibration(format_calibration(cal)) is not None


# ----------------------------------------------------------------------------- Solver.wins_many


def _random_positions(gen: np.random.Generator, game: int, declarer: int, n: int, cards: int,
                      swept: bool = False) -> list[Position]:
    """``n`` random positions at a trick boundary, ``cards`` cards a hand, the card points and
    tricks of the declarer so far drawn (``swept``: he took every trick so far)."""
    out = []
    for _ in range(n):
        perm = gen.permutation(32)
        hands = tuple(sum(1 << int(c) for c in perm[i * cards:(i + 1) * cards]) for i in range(3))
        skat = (1 << int(perm[3 * cards])) | (1 << int(perm[3 * cards + 1]))
        played = perm[3 * cards + 2:]
        pts = int(card_points(sum(1 << int(c) for c in played))) if len(played) else 0
        dp = int(gen.integers(0, pts + 1))
        dt = 0 if game == NULL else int(gen.choice([0, int(gen.integers(0, 10 - cards + 1)), 10 - cards]))
        if swept and game != NULL:
            dt, dp = 10 - cards, pts
        if dt == 0 and game != NULL:
            dp = 0
        out.append(Position(hands, skat, game, declarer, (), int(gen.integers(0, 3)), dp, dt))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("game, threshold", [(CLUBS, 61), (0, 90), (GRAND, 61), (GRAND, "schwarz"),
                                             (NULL, "null")])
def test_wins_many_equals_one_search_per_position(game: int, threshold: Any) -> None:
    gen = np.random.default_rng(game * 7 + len(str(threshold)))
    d = int(gen.integers(0, 3))
    positions = _random_positions(gen, game, d, 24, 4) + _random_positions(gen, game, d, 6, 7)
    if threshold == "schwarz":  # the declarer must have every trick so far
        positions = _random_positions(gen, game, d, 24, 2, swept=True) + _random_positions(gen, game, d, 6, 4, True)
    got = Solver(tt_bits=14).wins_many(positions, threshold=threshold)
    want = [Solver(tt_bits=14).solve(p, mode="threshold", threshold=threshold).declarer_wins for p in positions]
    assert got.tolist() == [int(w) for w in want]
    assert 0 < sum(want) < len(want)  # not vacuous: both answers occur


def test_wins_many_honours_the_node_budget() -> None:
    gen = np.random.default_rng(3)
    positions = _random_positions(gen, GRAND, 0, 10, 8)
    full = Solver(tt_bits=16).wins_many(positions)
    s = Solver(tt_bits=16)
    limited = s.wins_many(positions, node_limit=300)
    assert set(limited.tolist()) <= {-2, 0, 1} and (limited == -2).any()
    for i, v in enumerate(limited):
        if v == -2:
            assert s.row_nodes[i] > 300
        else:  # answered within the budget: the exact answer
            assert v == full[i] and s.row_nodes[i] <= 300
    assert Solver(tt_bits=16).wins_many(positions, node_limit=10**9).tolist() == full.tolist()
    with pytest.raises(ValueError, match="node_limit must be a positive int"):
        s.wins_many(positions, node_limit=0)
    with pytest.raises(ValueError, match="a batch needs one game type and declarer"):
        s.wins_many(positions + _random_positions(gen, GRAND, 1, 1, 8))


# ----------------------------------------------------------------------------- RunDir.resume_or_create / fill


class _Killed(Exception):
    pass


def _square_chunk(offset: int, a: int, b: int, stop_at: int) -> tuple[float, pd.DataFrame]:
    """Rows of units [a, b): a function of the unit ids only; dies at unit ``stop_at``."""
    if a <= stop_at < b:
        raise _Killed
    return 0.5, pd.DataFrame({"unit": np.arange(a, b), "value": np.arange(a, b) ** 2 + offset})


def _fill(path: Path, config: dict[str, Any], stop_at: int = -1) -> RunDir:
    run = RunDir.resume_or_create(path, kind="demo", config=config, n_units=10, chunk_size=3)
    run.fill(_square_chunk, lambda a, b: (config["offset"], a, b, stop_at), progress=False)
    run.mark_complete("done")
    return run


def test_a_resumed_run_gives_the_table_of_an_uninterrupted_one(tmp_path: Path) -> None:
    cfg = {"offset": 7, "seed": 1}
    whole = _fill(tmp_path / "whole", cfg).read_all()
    with pytest.raises(_Killed):
        _fill(tmp_path / "part", cfg, stop_at=7)
    part = RunDir.open(tmp_path / "part")
    assert sorted(part.done()) == [(0, 3), (3, 6)] and part.todo() == [(6, 9), (9, 10)]
    assert part.manifest["status"] == "running" and part.manifest["seconds"] == 1.0
    resumed = _fill(tmp_path / "part", cfg)
    assert resumed.complete and resumed.manifest["seconds"] == 2.0
    pd.testing.assert_frame_equal(resumed.read_all(), whole)
    assert list(whole["value"]) == [u * u + 7 for u in range(10)]


def test_another_config_is_refused_naming_each_difference(tmp_path: Path) -> None:
    _fill(tmp_path / "run", {"offset": 7, "seed": 1, "tag": ["x", 1]})
    with pytest.raises(ValueError) as e:
        _fill(tmp_path / "run", {"offset": 8, "seed": 1, "extra": True, "tag": ["x", 1]})
    msg = str(e.value)
    assert "holds a demo run of another config (" in msg and "\n" not in msg
    # every difference, and only those (a list round-tripped through JSON is equal)
    assert msg.split("another config (")[1].split("); ")[0] == "extra: None there, True here; offset: 7 there, 8 here"
    with pytest.raises(ValueError, match="holds a demo run, not a tournament run"):
        RunDir.resume_or_create(tmp_path / "run", kind="tournament", config={}, n_units=1, chunk_size=1)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("not a run")
    with pytest.raises(FileExistsError, match="not an empty directory"):
        RunDir.resume_or_create(tmp_path / "other", kind="demo", config={}, n_units=1, chunk_size=1)
