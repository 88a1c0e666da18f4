"""The command line: play, demo (the README's main job) and solve."""

from __future__ import annotations

import pytest

from skatsim.cli import main, play_random_game


def test_play_prints_a_full_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "deal seed 4" in out and "bidding:" in out and "result:" in out
    assert play_random_game(4).to_record() == play_random_game(4).to_record()


def test_demo_prints_a_summary_and_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--deals", "20000", "--seed", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "simulated 20,000 random deals" in out
    assert "most frequent contracts" in out and "all" in out and "Seeger-Fabian" in out
    assert "deal seed 3" in out and "result:" in out


def test_solve_prints_the_solution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--seed", "2", "--contract", "C"]) == 0
    out = capsys.readouterr().out
    assert "seat 0 declares CH (clubs hand)" in out
    assert "clubs exact: value 78" in out and "declarer wins" in out
    assert main(["solve", "--seed", "2", "--contract", "C", "--mode", "threshold", "--threshold", "90"]) == 0
    assert "value 0" in capsys.readouterr().out


def test_bad_contract_is_reported() -> None:
    with pytest.raises(ValueError, match="malformed contract"):
        main(["solve", "--contract", "X"])
