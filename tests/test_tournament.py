"""Duplicate tournaments: arrangements, engines, workers, the row schema and the CI formulas."""

from __future__ import annotations

import math
import time as _time

import numpy as np
import pandas as pd
import pytest

from agents import AgentSpec, register
from agents.arena.play import AgentError, IllegalActionError, Table, TimeLimitError, forfeit_result, play
from agents.arena.tournament import (GAME_COLUMNS, Z95, TournamentConfig, TournamentResult, agent_summary,
                                     arrangements, auction_text, head_to_head, load_tournament, make_config, plan,
                                     play_chunk, run_tournament)
from skatsim import SkatRules, SkatState
from skatsim.actions import PASS, action_to_string
from skatsim.bits import derive_seed
from skatsim.state import random_game as play_random_game
from skatsim.table import RESULT_COLUMNS

TIME = ["time_0", "time_1", "time_2"]


def test_arrangements_seat_every_agent_equally() -> None:
    for n, per_seat in ((2, 3), (3, 2)):
        arr = arrangements(n)
        assert len(set(arr)) == 6
        for k in range(n):
            assert [sum(a[s] == k for a in arr) for s in range(3)] == [per_seat] * 3
    assert all(len(set(a)) == 2 for a in arrangements(2))
    with pytest.raises(ValueError, match="2 or 3 agents"):
        arrangements(4)


def test_one_seat_plays_the_full_tournament_s_games_with_the_first_agent_alone(tmp_path) -> None:
    """``one_seat``: ABB BAB BBA only (the first agent against the second in the two other seats),
    the same games as those rows of the full tournament and of a three-player run whose field is
    one player under two labels; written in the manifest, resumed as such, refused with 3 agents."""
    assert arrangements(2, one_seat=True) == [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
    with pytest.raises(ValueError, match="one_seat seats the first of two agents"):
        arrangements(3, one_seat=True)
    with pytest.raises(ValueError, match="got 3 agents"):
        make_config(["random", "rule_based", "rule_based"], 4, one_seat=True)
    agents = ["random", "rule_based:max_bid=30"]
    one = run_tournament(agents, 8, seed=21, progress=False, one_seat=True, out=tmp_path / "one", chunk_size=3)
    g = one.games
    assert len(g) == 24 and list(g["arrangement"][:3]) == ["ABB", "BAB", "BBA"]
    assert [sum(r[f"agent_{s}"] == "random" for s in range(3)) for _, r in g.iterrows()] == [1] * 24
    full = run_tournament(agents, 8, seed=21, progress=False).games
    alone = full[full["arrangement"].isin(["ABB", "BAB", "BBA"])].reset_index(drop=True)
    cols = [c for c in GAME_COLUMNS if c not in TIME]
    pd.testing.assert_frame_equal(g[cols], alone[cols])
    # a three-player run with the field under two labels: ABC and ACB are both ABB's game
    three = run_tournament(["random", "rule_based:max_bid=30", "rule_based:max_bid=30,bid_threshold=0.6"], 8,
                           seed=21, progress=False).games.set_index(["deal_id", "arrangement"])
    for _, r in g.iterrows():
        for arr in {"ABB": ("ABC", "ACB"), "BAB": ("BAC", "CAB"), "BBA": ("BCA", "CBA")}[r["arrangement"]]:
            assert [r[f"sf_{s}"] for s in range(3)] == [three.loc[(r["deal_id"], arr), f"sf_{s}"] for s in range(3)]
    assert g.attrs["one_seat"] is True
    assert str(one).startswith("duplicate tournament: 8 boards x 3 arrangements (random in one seat, "
                               "rule_based:max_bid=30 in the two others) = 24 games")
    # the manifest keeps it: a resumed run plays the same games; a full run there is refused
    back = load_tournament(tmp_path / "one")
    assert back.config.one_seat and back.config.arrangements == arrangements(2, one_seat=True)
    pd.testing.assert_frame_equal(back.games[cols], g[cols])
    run_tournament(agents, 2, seed=21, progress=False, out=tmp_path / "full")
    with pytest.raises(ValueError, match="one_seat: False there, True here"):
        run_tournament(agents, 2, seed=21, progress=False, one_seat=True, out=tmp_path / "full")
    assert "one_seat" not in make_config(agents, 8, seed=21).to_dict()  # earlier manifests unchanged


def test_rows_schema_and_duplicate_deals() -> None:
    r = run_tournament(["random", "random"], 5, seed=3, progress=False)
    g = r.games
    assert tuple(g.columns) == GAME_COLUMNS and set(RESULT_COLUMNS) <= set(g.columns)
    assert len(g) == 30 and list(g["deal_id"]) == [i for i in range(5) for _ in range(6)]
    assert list(g["arrangement"][:6]) == ["AAB", "ABA", "BAA", "ABB", "BAB", "BBA"]
    assert list(g.loc[3, ["agent_0", "agent_1", "agent_2"]]) == ["random", "random#2", "random#2"]
    assert (g["deal_seed"] == [derive_seed(3, i) for i in g["deal_id"]]).all()
    assert g[TIME].isna().all().all() and (g["error"] == "").all()
    assert g.attrs["seed"] == 3 and g.attrs["rules_version"] == SkatRules().version
    assert "engine" not in g.attrs and "numba" in g.attrs["versions"]
    assert g.attrs["agents"] == [{"name": "random", "params": {}}] * 2
    # every arrangement of a board is the same deal: same cards, same seat streams -> same game
    # for identical agents
    assert (g.groupby("deal_id")["list_score"].nunique() == 1).all()
    s0 = play_random_game(int(g["deal_seed"][0]))
    assert g["auction"][0] == " ".join(f"{p}:{action_to_string(a)}" for p, a in s0.bidding_history())
    assert g["n_actions"][0] == len(s0.history())


def test_threads_and_processes_give_the_same_table() -> None:
    agents = ["rule_based", "random"]
    a = run_tournament(agents, 4, seed=9, progress=False, parallel="threads").games
    b = run_tournament(agents, 4, seed=9, progress=False, parallel="processes").games
    with pytest.warns(DeprecationWarning, match="engine='python' is retired.*parallel='processes'"):
        old = run_tournament(agents, 4, seed=9, progress=False, engine="python").games  # the retired option
    pd.testing.assert_frame_equal(old.drop(columns=TIME), b.drop(columns=TIME))
    assert b[TIME].isna().all().all()  # compiled agents play inside the compiled step: no per-decision time
    pd.testing.assert_frame_equal(a.drop(columns=TIME), b.drop(columns=TIME))
    from agents import RandomAgent

    c = run_tournament(["rule_based", RandomAgent()], 4, seed=9, progress=False).games  # a Python agent object
    seats = np.stack([c[f"agent_{s}"].to_numpy() == "random" for s in range(3)], axis=1)
    t = c[TIME].to_numpy()
    assert (t[seats] >= 0).all() and np.isnan(t[~seats]).all()  # its CPU time is measured, per seat
    pd.testing.assert_frame_equal(a.drop(columns=TIME), c.drop(columns=TIME))  # the same games


def test_same_table_for_one_and_two_workers() -> None:
    kw = dict(seed=4, progress=False, parallel="processes", chunk_size=2, rules=SkatRules(ramsch=True, kontra=True))
    a = run_tournament(["random", "rule_based", "rule_based:max_bid=18"], 3, workers=1, **kw).games
    b = run_tournament(["random", "rule_based", "rule_based:max_bid=18"], 3, workers=2, **kw).games
    assert len(a) == 18 and sorted(set(a["arrangement"])) == ["ABC", "ACB", "BAC", "BCA", "CAB", "CBA"]
    pd.testing.assert_frame_equal(a.drop(columns=TIME), b.drop(columns=TIME))
    c = run_tournament(["random", "rule_based", "rule_based:max_bid=18"], 3, parallel="threads", workers=2,
                       **{k: v for k, v in kw.items() if k != "parallel"}).games
    pd.testing.assert_frame_equal(a.drop(columns=TIME), c.drop(columns=TIME))


def test_chunks_are_independent_units_of_work() -> None:
    cfg = TournamentConfig((AgentSpec("random"), AgentSpec("rule_based")), 6, 2, SkatRules())
    whole = play_chunk(cfg, 0, 6)
    parts = pd.concat([play_chunk(cfg, 0, 2), play_chunk(cfg, 2, 6)], ignore_index=True)
    pd.testing.assert_frame_equal(whole.drop(columns=TIME), parts.drop(columns=TIME))
    assert TournamentConfig.from_dict(cfg.to_dict()) == cfg
    assert TournamentConfig.from_dict({**cfg.to_dict(), "engine": "python"}) == cfg  # an old manifest's engine


def test_auction_text_matches_the_state_over_random_games() -> None:
    for seed in range(300):
        s = play_random_game(seed, SkatRules(ramsch=seed % 2 == 0))
        want = " ".join(f"{p}:{action_to_string(a)}" for p, a in s.bidding_history())
        assert auction_text(s.history()) == want


def test_an_agent_against_itself_has_a_head_to_head_interval_containing_zero() -> None:
    r = run_tournament(["random", "random"], 30, seed=1, progress=False)
    h = r.head_to_head().iloc[0]
    assert h["a"] == "random" and h["b"] == "random#2" and h["boards"] == 30
    assert h["sf_diff_per_game"] == 0.0 and h["sf_diff_per_game_ci"] == 0.0
    r3 = run_tournament(["random", "random", "random"], 20, seed=2, progress=False, parallel="processes")
    h3 = r3.head_to_head()
    assert list(zip(h3["a"], h3["b"])) == [("random", "random#2"), ("random", "random#3"), ("random#2", "random#3")]
    lo = h3["sf_diff_per_game"] - h3["sf_diff_per_game_ci"]
    hi = h3["sf_diff_per_game"] + h3["sf_diff_per_game_ci"]
    assert ((lo <= 0) & (0 <= hi)).all()
    text = str(r3)
    assert "head to head random - random#2" in text and "SF/game" in text and "declarer win rate" in text


def _synthetic(n_boards: int, rng: np.random.Generator) -> pd.DataFrame:
    """A games table with random outcomes (not a real tournament) for the CI formulas."""
    rows = []
    for b in range(n_boards):
        for arr in arrangements(2):
            decl = int(rng.integers(-1, 3))
            won = bool(rng.integers(0, 2)) and decl >= 0
            row = {"deal_id": b, "arrangement": "".join("AB"[k] for k in arr), "declarer": decl, "won": won}
            for s in range(3):
                row[f"agent_{s}"] = "AB"[arr[s]]
                row[f"sf_{s}"] = int(rng.integers(-100, 100))
                row[f"score_{s}"] = int(rng.integers(-50, 50))
                row[f"time_{s}"] = float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


def test_confidence_intervals_against_a_hand_computation() -> None:
    df = _synthetic(7, np.random.default_rng(0))
    s = agent_summary(df, ["A", "B"])
    h = head_to_head(df, ["A", "B"]).iloc[0]
    # by hand: per board and agent, the mean over its 9 seat-games
    per: dict[str, list[float]] = {"A": [], "B": []}
    decl: dict[str, list[tuple[int, int]]] = {"A": [], "B": []}
    for b in range(7):
        g = df[df["deal_id"] == b]
        for ag in "AB":
            vals, d, w = [], 0, 0
            for _, row in g.iterrows():
                for seat in range(3):
                    if row[f"agent_{seat}"] == ag:
                        vals.append(row[f"sf_{seat}"])
                        if row["declarer"] == seat:
                            d += 1
                            w += int(row["won"])
            assert len(vals) == 9
            per[ag].append(sum(vals) / 9)
            decl[ag].append((d, w))

    def mean_ci(x: list[float]) -> tuple[float, float]:
        m = sum(x) / len(x)
        var = sum((v - m) ** 2 for v in x) / (len(x) - 1)
        return m, 1.959963984540054 * math.sqrt(var / len(x))

    for ag in "AB":
        m, ci = mean_ci(per[ag])
        assert s.loc[ag, "sf_per_game"] == pytest.approx(m) and s.loc[ag, "sf_per_game_ci"] == pytest.approx(ci)
        assert s.loc[ag, "sf_per_list"] == pytest.approx(36 * m)
        assert s.loc[ag, "games"] == 63 and s.loc[ag, "boards"] == 7
        dm, dci = mean_ci([d / 9 for d, _ in decl[ag]])
        assert s.loc[ag, "declarer_rate"] == pytest.approx(dm)
        assert s.loc[ag, "declarer_rate_ci"] == pytest.approx(dci)
        d = np.array([x for x, _ in decl[ag]], float)
        w = np.array([y for _, y in decl[ag]], float)
        ratio = w.sum() / d.sum()
        se = math.sqrt(sum((wi - ratio * di) ** 2 for wi, di in zip(w, d)) / (7 * 6)) / d.mean()
        assert s.loc[ag, "declarer_win_rate"] == pytest.approx(ratio)
        assert s.loc[ag, "declarer_win_rate_ci"] == pytest.approx(Z95 * se)
    dm, dci = mean_ci([a - b for a, b in zip(per["A"], per["B"])])
    assert h["sf_diff_per_game"] == pytest.approx(dm) and h["sf_diff_per_game_ci"] == pytest.approx(dci)
    assert h["sf_diff_per_list_ci"] == pytest.approx(36 * dci)


def test_a_tiny_worked_example() -> None:
    # 2 boards; agent A's per-board means 10 and 20 -> mean 15, sd 7.0711, CI 1.96*7.0711/sqrt 2 = 9.80
    rows = []
    for b, v in ((0, 10), (1, 20)):
        for arr in arrangements(2):
            row = {"deal_id": b, "arrangement": "".join("AB"[k] for k in arr), "declarer": -1, "won": False}
            for s in range(3):
                row[f"agent_{s}"] = "AB"[arr[s]]
                row[f"sf_{s}"] = v if arr[s] == 0 else 0
                row[f"score_{s}"] = 0
                row[f"time_{s}"] = np.nan
            rows.append(row)
    s = agent_summary(pd.DataFrame(rows), ["A", "B"])
    assert s.loc["A", "sf_per_game"] == 15.0
    assert s.loc["A", "sf_per_game_ci"] == pytest.approx(Z95 * math.sqrt(50) / math.sqrt(2))
    assert math.isnan(s.loc["A", "declarer_win_rate"])  # nobody declared


def test_result_round_trip_and_validation() -> None:
    r = run_tournament(["random", "rule_based"], 3, seed=5, progress=True)
    again = TournamentResult.from_games(r.games)
    pd.testing.assert_frame_equal(again.summary(), r.summary())
    assert list(r.summary().index) == ["random", "rule_based"]
    for bad, msg in [((["random"], 3), "2 or 3 agents"), ((["random", "random"], 0), "n_deals")]:
        with pytest.raises(ValueError, match=msg):
            run_tournament(*bad, progress=False)
    with pytest.raises(ValueError, match="parallel must be one of"):
        run_tournament(["random", "random"], 2, parallel="gpu", progress=False)
    with pytest.raises(ValueError, match="engine is retired.*parallel"):
        run_tournament(["random", "random"], 2, engine="gpu", progress=False)


def test_a_python_only_agent_runs_in_processes() -> None:
    from agents import register
    from agents.arena.base import _REGISTRY

    class First:
        name = "first"

        def act(self, obs) -> int:  # noqa: ANN001
            return obs.legal_actions[0]

    register("test_first", First, defaults={})
    try:
        r = run_tournament(["test_first", "random"], 2, seed=1, progress=False)
        assert plan(r.config) == ("processes", 1) and plan(make_config(["random"] * 2, 9)) == ("threads", 9)
        mine = np.stack([r.games[f"agent_{s}"].to_numpy() == "test_first" for s in range(3)], axis=1)
        assert (r.games[TIME].to_numpy()[mine] >= 0).all()  # the Python agent's decision times
        assert np.isnan(r.games[TIME].to_numpy()[~mine]).all()  # the compiled random policy has none
        threads = run_tournament(["test_first", "random"], 2, seed=1, progress=False, parallel="threads")
        pd.testing.assert_frame_equal(threads.games.drop(columns=TIME), r.games.drop(columns=TIME))
    finally:
        del _REGISTRY["test_first"]


# ----------------------------------------------------------------------------- misbehaving agents


class _Faulty:
    """Rule-based, except that in ``phase`` it misbehaves: ``mode`` raise / illegal / slow."""

    name = "faulty"

    def __init__(self, phase: str = "play", mode: str = "raise") -> None:
        from agents.players.rule_based import RuleBasedAgent

        self.inner = RuleBasedAgent()
        self.phase, self.mode = phase, mode

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self.inner.reset(deal_id, seat, rng)

    def act(self, obs) -> int:  # noqa: ANN001
        if obs.phase == self.phase:
            if self.mode == "raise":
                raise RuntimeError("boom")
            if self.mode == "illegal":
                return 129 if 129 not in obs.legal_actions else 0
            if self.mode == "slow":
                _time.sleep(0.3)
        return self.inner.act(obs)


@pytest.fixture
def faulty_agent():
    """A temporary registry entry (removed again: the registry is shared by every test)."""
    from agents.arena.base import unregister

    register("faulty", _Faulty, {"phase": "phase to fail in", "mode": "raise, illegal or slow"},
             defaults={"phase": "play", "mode": "raise"}, replace=True)
    yield "faulty"
    unregister("faulty")


def _declared_state(seed: int = 3) -> SkatState:
    s = SkatState.new_game(seed=seed)
    for a in ("18", "yes", "pass", "pass", "hand", "GH"):  # seat 0 plays grand hand
        s.apply_action(s.string_to_action(a))
    return s


def test_forfeit_outcomes_follow_the_rules() -> None:
    s = _declared_state()
    lost, won = forfeit_result(s, 0), forfeit_result(s, 2)
    assert (lost.declarer, lost.won, lost.schneider, lost.schwarz) == (0, False, False, False)
    assert lost.game_value == 24 * lost.multiplier and lost.list_score == -2 * lost.game_value
    assert lost.seeger_fabian == (lost.list_score - 50, 40, 40)
    assert (won.won, won.schneider, won.list_score) == (True, False, won.game_value)
    assert won.seeger_fabian == (won.game_value + 50, 0, 0)
    # before the declaration: lost at the bid, as the cheapest game reaching it
    p = SkatState.new_game(seed=3)
    for a in ("18", "yes", "pass", "pass"):
        p.apply_action(p.string_to_action(a))
    r = forfeit_result(p, 0)
    assert r.declarer == 0 and not r.won and r.game_value >= 18 and r.list_score == -2 * r.charged_value
    assert r.contract in ("D", "H", "S", "C", "G")


def _kontra_state(calls: tuple[str, ...]) -> SkatState:
    from skatsim import SkatRules

    s = SkatState.new_game(seed=3, rules=SkatRules(kontra=True))
    for a in ("18", "yes", "pass", "pass", "hand", "GH") + calls:
        s.apply_action(s.string_to_action(a))
    return s


def test_forfeit_under_kontra_re_counts_only_the_doublings_said() -> None:
    plain = forfeit_result(_declared_state(), 1)  # ISkO: a defender fails, the declarer wins
    assert plain.list_score == plain.game_value == 72
    both_passed = _kontra_state(("pass", "pass"))  # the design review's case: 288 before the fix
    r = forfeit_result(both_passed, 1)
    assert (r.kontra, r.list_score, r.won) == (0, 72, True)
    kontra = _kontra_state(("kontra", "pass"))  # Kontra, no Re: doubled
    assert (forfeit_result(kontra, 1).kontra, forfeit_result(kontra, 1).list_score) == (1, 144)
    re = _kontra_state(("kontra", "re"))  # Kontra and Re: doubled twice, also when the declarer fails
    lost = forfeit_result(re, 0)
    assert (lost.kontra, lost.won, lost.list_score) == (2, False, -2 * 72 * 4)


def test_forfeit_in_ramsch_charges_the_offender_alone() -> None:
    from skatsim import SkatRules

    s = SkatState.new_game(seed=3, rules=SkatRules(ramsch=True))
    for a in ("pass", "pass", "pass"):
        s.apply_action(s.string_to_action(a))
    assert s.phase == "play" and s.game_type == 6
    r = forfeit_result(s, 2)
    assert r.ramsch and r.scores == (0, 0, -120) and r.seeger_fabian == (0, 0, -120)


def _forfeit_reference(state: SkatState, offender: int) -> dict:
    """The forfeit rule written out in plain Python on the state's public API, as it stood in
    the agents layer before it moved into the core (the oracle of ``settle_forfeit``)."""
    from skatsim.cards import card_points
    from skatsim.layout import N_RESULT, R_DECLARER, R_GAME, R_PTS0, R_SCORE0, R_SF0
    from skatsim.rules import GRAND, NULL, RAMSCH
    from skatsim.scoring import GameResult, matadors_of, settle_into
    from skatsim.solver import target_for
    from skatsim.valuation import HAND, game_value

    r = np.zeros(N_RESULT, dtype=np.int64)
    pts, tricks = state.points(), state.tricks_won()
    for s in range(3):
        r[R_PTS0 + s] = pts[s]
    g, d = state.game_type, state.declarer
    if g == RAMSCH:
        r[R_DECLARER], r[R_GAME] = -1, RAMSCH
        r[R_SCORE0 + offender] = r[R_SF0 + offender] = -120
        return GameResult.from_result_fields(r, state.rules).to_row()
    if d is None:
        r[R_DECLARER], r[R_GAME] = -1, -1
        return GameResult.from_result_fields(r, state.rules, card_points=False).to_row()
    cards = state.deal.hands[d].mask | state.deal.skat.mask
    if g is None:
        flags = HAND if state.phase == "declare" and not state.skat_picked_up else 0
        options = [(int(game_value(game, flags, int(matadors_of(cards, game)))), game) for game in range(GRAND + 1)]
        reach = [o for o in options if o[0] >= state.bid]
        _, g = min(reach) if reach else max(options, key=lambda o: (o[0], -o[1]))
        lp, lt = 60, 1
    else:
        flags = state.contract.flags
        if offender == d:
            lp, lt = 60, 1
        else:
            lp, lt = {61: (61, 5), 90: (90, 5), "schwarz": (120, 10), "null": (0, 0)}[target_for(state.contract)]
        if g == NULL:
            lt = 1 if offender == d else 0
    settle_into(r, d, g, flags, state.bid, int(state.skat_picked_up), state.kontra_level, int(matadors_of(cards, g)),
                pts[d] + card_points(state.skat_mask()), tricks[d], lp, lt, False)
    return GameResult.from_result_fields(r, state.rules).to_row()


def test_the_forfeit_rule_of_the_core_equals_its_plain_reference_and_the_env_s() -> None:
    """At random points of random games (every phase, Kontra/Re, Ramsch) and for any offender,
    the core's forfeit settlement (through ``forfeit_result`` and ``VecEnv.forfeit``) is the
    plain-Python rule's, field by field."""
    from skatsim.vec import VecEnv

    rng = np.random.default_rng(5)
    seen = set()
    for k in range(400):
        rules = SkatRules(kontra=k % 2 == 0, ramsch=k % 3 == 0)
        full = play_random_game(k, rules).history()
        stop = int(rng.integers(0, len(full)))
        s = SkatState.new_game(seed=k, rules=rules)
        for a in full[:stop]:
            s.apply_action(a)
        offender = int(rng.integers(0, 3))
        want = _forfeit_reference(s, offender)
        got = forfeit_result(s, offender).to_row()
        assert got == want, (k, stop, offender)
        env = VecEnv(1, rules=rules, auto_reset=False)
        env.reset([k])
        for a in full[:stop]:
            env.step(np.array([a]))
        env.forfeit(0, offender)
        row = env.last_results[0]
        for c in RESULT_COLUMNS:
            if c in row.dtype.names and c not in ("deal_index", "deal_seed", "n_actions") and want[c] is not None:
                assert row[c] == want[c], (k, stop, offender, c)
        seen.add((s.phase, s.declarer == offender))
    assert {ph for ph, _ in seen} >= {"bidding", "skat", "discard", "declare", "kontra", "play"}


@pytest.mark.parametrize("phase, mode", [("play", "raise"), ("play", "illegal"), ("bidding", "raise"),
                                         ("declare", "illegal")])
def test_a_misbehaving_agent_loses_by_rule_and_the_run_goes_on(phase: str, mode: str, faulty_agent: str) -> None:
    spec = f"faulty:phase={phase},mode={mode}"
    r = run_tournament([spec, "rule_based"], 6, seed=4, progress=False)
    spec = r.labels[0]  # parameters in sorted order
    g = r.games
    assert len(g) == 36  # every game was recorded
    erred = g[g["error"] != ""]
    assert len(erred) > 0
    assert erred["error"].str.contains("faulty").all()
    s = r.summary()
    assert s.loc["rule_based", "errors"] == 0
    es = erred["error_seats"].to_numpy(np.int64)
    n_seat_errors = int(sum(((es >> k) & 1).sum() for k in range(3)))
    assert s.loc[spec, "errors"] == n_seat_errors > 0
    for _, row in erred.iterrows():
        bad = [k for k in range(3) if row["error_seats"] >> k & 1]
        assert all(row[f"agent_{k}"] == spec for k in bad)
        d = row["declarer"]
        if phase == "bidding":  # treated as a pass: the faulty seats never declare
            assert d not in bad
            assert "pass" in row["auction"]
        elif d in bad:  # the declarer erred: lost
            assert not row["won"] and row["list_score"] < 0
        elif d >= 0:  # a defender erred: the declarer wins unless overbid
            assert row["won"] or row["overbid"]
    assert "errors" in r.table()


class _Sneaky:
    """Tries to widen its own legal list, then plays what it added (an illegal card)."""

    name = "sneaky"

    def act(self, obs) -> int:  # noqa: ANN001
        illegal = next(a for a in range(32) if a not in obs.legal_actions)
        try:
            obs.legal_actions.append(illegal)  # a tuple: AttributeError
        except AttributeError:
            pass
        return illegal if obs.phase == "play" else obs.legal_actions[0]


class _Stringly:
    name = "stringly"

    def act(self, obs) -> int:  # noqa: ANN001
        return str(obs.legal_actions[0])


def test_the_table_checks_actions_against_the_state_not_the_agents_copy() -> None:
    g = play([_Sneaky(), "rule_based", "rule_based"], seed=5, on_error="forfeit")
    assert g.errors and isinstance(g.errors[0], IllegalActionError) and g.forfeit is not None
    s = SkatState.new_game(seed=5)
    obs = s.observation(1)
    with pytest.raises((AttributeError, TypeError)):
        obs.legal_actions.append(0)
    with pytest.raises(ValueError):
        obs.view[0] = 1
    with pytest.raises(TypeError):
        obs.views["hand"] = obs.views["legal"]  # type: ignore[index]
    with pytest.raises(IllegalActionError, match=r"returned '32' \(str\).*must return an action id"):
        play([_Stringly(), _Stringly(), _Stringly()], seed=5)


class _Busy:
    """Rule-based, except that in ``phase`` it computes forever (a CPU-bound hang)."""

    name = "busy"

    def __init__(self, phase: str) -> None:
        from agents.players.rule_based import RuleBasedAgent

        self.inner, self.phase = RuleBasedAgent(), phase

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self.inner.reset(deal_id, seat, rng)

    def act(self, obs) -> int:  # noqa: ANN001
        x = 0
        while obs.phase == self.phase:  # never returns in that phase
            x += 1
        return self.inner.act(obs)


def test_time_limit_interrupts_a_hanging_agent_and_the_game_is_settled(capfd) -> None:
    declared = next(k for k in range(1, 50) if play(["rule_based"] * 3, seed=k).state.declarer is not None)
    for phase, ended in (("bidding", False), ("play", True)):
        g = play([_Busy(phase), "rule_based", "rule_based"], seed=declared, time_limit=0.05, on_error="forfeit")
        assert g.errors and all(isinstance(e, TimeLimitError) for e in g.errors)
        assert g.error_seats == 1 and "time limit of 0.05 s" in g.error_text and "CPU time" in g.error_text
        if ended:  # a card-play hang ends the game by rule
            assert g.forfeit is not None and g.forfeit.declarer is not None
        else:  # a bidding hang counts as a pass, and the game goes on
            assert (0, PASS) in g.state.bidding_history()
        assert g.decision_time[0] >= 0.5 * 0.05 * len(g.errors)  # the agent's CPU time (within a kernel tick)
    err = capfd.readouterr().err
    assert "Exception ignored" not in err and "_Alarm" not in err  # nothing leaks


def test_a_timer_tick_in_the_clock_s_exit_does_not_leave_the_clock_running(monkeypatch) -> None:
    """The CI failure of 2026-12-06 ("[gw0] node down: _Alarm: True"): once a decision's clock
    is past its limit, its timers tick every millisecond until they are stopped; a tick that
    landed in the clock's exit, before the timers were off, raised there and skipped the rest,
    so the timers kept running with a live handler and the next tick killed the process later,
    outside any decision. Here a tick is made to land at that exact point: the decision is
    still settled, and afterwards the timers are off and the handlers are the ones before."""
    import signal
    import sys

    from agents.arena import seat as seat_mod
    from agents.players.random_agent import RandomAgent

    ticks = {"n": 0}
    real_clock = seat_mod.agent_clock

    def clock() -> float:
        # the first reading in the clock's exit (not the start, nor numba's compiler pause
        # on a kernel's first call in this process)
        if sys._getframe(1).f_code.co_name == "_close":
            ticks["n"] += 1
            if ticks["n"] == 1:
                raise seat_mod._Alarm(True)
        return real_clock()

    state = SkatState.new_game(seed=1)
    obs, legal = state.observation(state.current_player()), state.legal_actions()
    before = (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGPROF), sys.unraisablehook)
    monkeypatch.setattr(seat_mod, "agent_clock", clock)
    agent = RandomAgent()
    agent.reset(0, 0, 1)
    action, _ = seat_mod.decide(agent, obs, 0, "bidding", legal, time_limit=5.0)
    assert action in legal and ticks["n"] >= 2  # the exit was done again after the tick
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert (signal.getsignal(signal.SIGALRM), signal.getsignal(signal.SIGPROF), sys.unraisablehook) == before


def test_time_limits_count_cpu_time_not_waiting_or_load() -> None:
    """Fast agents never time out at a tight limit (the clock is the agent's CPU time); a
    sleeping agent is not charged for sleeping (the wall-clock backstop is 10 x + 1 s)."""
    for k in range(20):  # warm-up: compile (or load from a cold cache) whatever these games call, once
        play(["random"] * 3, seed=k)
    errors = [len(play(["random"] * 3, seed=k, time_limit=0.005, on_error="forfeit").errors) for k in range(20)]
    assert errors == [0] * 20
    g = play([_Faulty("bidding", "slow"), "rule_based", "rule_based"], seed=5, time_limit=0.05, on_error="forfeit")
    assert not g.errors and g.decision_time[0] < 0.05  # slept 0.3 s per bidding decision, used no CPU


def test_agent_errors_raise_at_a_strict_table() -> None:
    with pytest.raises(AgentError):
        play([_Faulty("bidding", "raise"), "rule_based", "rule_based"], seed=5)
    with pytest.raises(IllegalActionError):
        play([_Faulty("bidding", "illegal"), "rule_based", "rule_based"], seed=5)
    with pytest.raises(ValueError, match="on_error"):
        Table(["random"] * 3, SkatState.new_game(seed=1), 1, on_error="ignore")


def test_margin_difference_pairs_boards_and_refuses_other_deals():
    from agents.arena.tournament import board_margins, margin_difference, run_tournament

    a = run_tournament(["random", "rule_based"], n_deals=40, seed=3, progress=False).games
    b = run_tournament(["random", "rule_based:random_cards=1"], n_deals=40, seed=3, progress=False).games
    d = margin_difference(a, b, ("random", "rule_based"), ("random", "rule_based:random_cards=1"))
    ma = board_margins(a, "random", "rule_based")
    mb = board_margins(b, "random", "rule_based:random_cards=1")
    assert d["boards"] == 40 and d["diff"] == pytest.approx(float((ma - mb).mean()))
    assert d["margin_a"] < d["margin_b"] < 0  # random loses more to the full rule-based player
    other = run_tournament(["random", "rule_based"], n_deals=40, seed=4, progress=False).games
    with pytest.raises(ValueError, match="share their boards"):
        margin_difference(a, other, ("random", "rule_based"), ("random", "rule_based"))
    with pytest.raises(ValueError, match="no agent 'pimc'"):
        board_margins(a, "pimc", "rule_based")
