"""Leagues: pairs on the same boards, the margin matrix, ratings with intervals, resuming."""

from __future__ import annotations

import numpy as np
import pytest

from agents.arena.tournament import load_league, run_league, run_tournament
from agents.arena.tournament.league import bradley_terry_elo, fit_ratings
from agents.arena.tournament.stats import board_margins

AGENTS = ["random", "rule_based", "rule_based:random_cards=1"]


def test_a_league_is_every_pair_on_the_same_boards(tmp_path) -> None:
    r = run_league(AGENTS, n_deals=30, seed=5, progress=False, out=tmp_path / "lg")
    m, h = r.matrix(), r.matrix(ci=True)
    assert list(m.index) == AGENTS and np.allclose(m.to_numpy(), -m.to_numpy().T, equal_nan=True)
    alone = run_tournament(["random", "rule_based"], 30, seed=5, progress=False).games  # the same boards
    assert m.loc["random", "rule_based"] == pytest.approx(board_margins(alone, "random", "rule_based").mean())
    assert (h.fillna(0).to_numpy() >= 0).all() and m.loc["rule_based", "random"] > 100
    seeds = {tuple(res.games.drop_duplicates("deal_id")["deal_seed"]) for res in r.pairs.values()}
    assert len(seeds) == 1  # one set of deals for every pair
    rt = r.ratings(n_bootstrap=200)
    assert list(rt.index) == ["rule_based", "rule_based:random_cards=1", "random"]
    assert rt["rating"].sum() == pytest.approx(0, abs=1e-9)
    assert (rt["rating_lo"] <= rt["rating"]).all() and (rt["rating"] <= rt["rating_hi"]).all()
    assert "ratings, 95% bootstrap intervals" in str(r) and (tmp_path / "lg" / "summary.txt").is_file()
    again = load_league(tmp_path / "lg")
    assert again.matrix().equals(m)


def test_a_league_resumes_and_refuses_another_configuration(tmp_path) -> None:
    out = tmp_path / "lg"
    full = run_league(AGENTS, n_deals=12, seed=1, progress=False, out=out)
    import shutil

    shutil.rmtree(out / "pair-1-2")  # an interrupted league: one pair not played
    with pytest.raises(ValueError, match="unfinished"):
        load_league(out)
    resumed = run_league(AGENTS, n_deals=12, seed=1, progress=False, out=out)
    assert resumed.matrix().equals(full.matrix())
    with pytest.raises(ValueError, match="another league"):
        run_league(AGENTS, n_deals=12, seed=2, progress=False, out=out)
    with pytest.raises(ValueError, match="3 or more agents"):
        run_league(AGENTS[:2], n_deals=12, progress=False)


def test_the_rating_fits_are_right_on_known_data() -> None:
    exact = {(0, 1): np.array([3.0, 1.0]), (0, 2): np.array([4.0]), (1, 2): np.array([2.0])}
    assert fit_ratings(exact, 3) == pytest.approx([2.0, 0.0, -2.0])
    wins = np.array([[0, 9.0, 9.0], [1.0, 0, 5.0], [1.0, 5.0, 0]])
    elo = bradley_terry_elo(wins)
    assert elo[0] > elo[1] == pytest.approx(elo[2]) and elo.sum() == pytest.approx(0)
