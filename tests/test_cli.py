"""The command line: play, demo, solve, tournament, agents; usage errors, never tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from skatsim.state import random_game as play_random_game
from skatsim_app.cli import build_parser, main


def _err(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """A usage error: argparse's (SystemExit 2) or the command's own (exit status 2)."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_play_prints_a_full_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "deal seed 4; agents: 0 random, 1 random, 2 random" in out and "bidding:" in out and "result:" in out
    assert play_random_game(4).to_record() == play_random_game(4).to_record()


def test_play_shows_the_dealt_skat_and_the_discard_separately(capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(1, 40):  # C2
        s = play_random_game(seed)
        if not s.skat_picked_up:
            continue
        assert main(["play", "--seed", str(seed)]) == 0
        out = capsys.readouterr().out
        assert f"  dealt skat   {s.deal.skat}" in out
        discard = s.to_record()["discard"]
        assert "skat: picked up, discarded " in out
        line = next(x for x in out.splitlines() if x.startswith("skat: picked up"))
        from skatsim.cards import CardSet

        assert line == f"skat: picked up, discarded {CardSet(discard)}"
        return
    pytest.fail("no pickup")


def test_play_with_agents_and_pure_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "7", "--agents", "rule_based,random,random", "--json"]) == 0  # C5
    cap = capsys.readouterr()
    rec = json.loads(cap.out)
    assert rec["seed"] == 7 and "agents: 0 rule_based, 1 random, 2 random" in cap.err
    from agents import play_game

    assert len(rec["moves"]) == len(play_game(["rule_based", "random", "random"], seed=7).history())


def test_negative_seeds_are_distinct(capsys: pytest.CaptureFixture[str]) -> None:
    main(["play", "--seed", "5"])  # C6
    a = capsys.readouterr().out
    main(["play", "--seed", "-5"])
    b = capsys.readouterr().out
    assert a.split("\n", 1)[1] != b.split("\n", 1)[1]


def test_demo_prints_a_summary_and_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--batch", "--deals", "20000", "--seed", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "simulated 20,000 random deals" in out
    assert "most frequent contracts" in out and "all" in out and "Seeger-Fabian" in out
    assert "deal seed 3" in out and "result:" in out


@pytest.mark.parametrize("contract, wins", [("C", True), ("CS", False), ("GZ", False), ("CO", False),
                                            ("GO", False)])
def test_solve_judges_the_declarer_against_the_announced_goal(contract: str, wins: bool,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--seed", "2", "--contract", contract]) == 0  # C1
    out = capsys.readouterr().out
    assert ("declarer wins" if wins else "declarer loses") in out
    goal = {"C": "61 card points", "CS": "90 card points", "GZ": "every trick", "CO": "every trick",
            "GO": "every trick"}[contract]
    assert f": {goal}." in out
    search = out.splitlines()[[i for i, x in enumerate(out.splitlines()) if " exact (target " in x][0]]
    target = {"C": "61", "CS": "90", "GZ": "schwarz", "CO": "schwarz", "GO": "schwarz"}[contract]
    assert f"exact (target {target})" in search and ("declarer wins" if wins else "declarer loses") in search


def test_solve_exact_and_threshold_modes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--seed", "2", "--contract", "C"]) == 0
    out = capsys.readouterr().out
    assert "seat 0 declares CH (clubs hand)" in out and "(78 card points)" in out
    assert main(["solve", "--seed", "2", "--contract", "C", "--mode", "threshold", "--threshold", "90"]) == 0
    assert "declarer does not reach 90 card points (the goal of CH is 61 card points)" in capsys.readouterr().out
    assert main(["solve", "--seed", "2", "--contract", "CS", "--mode", "threshold"]) == 0
    assert "goal of CHS: 90 card points. With best play by everybody the declarer loses" in capsys.readouterr().out


@pytest.mark.parametrize("argv, msg", [
    (["solve", "--contract", "X"], "skatsim solve: error: argument --contract: malformed contract 'X'"),
    (["solve", "--mode", "threshold", "--threshold", "200"], "skatsim solve: error: argument --threshold: card points in 0..120"),
    (["solve", "--threshold", "90"], "skatsim solve: error: --threshold needs --mode threshold"),
    (["solve", "--contract", "N", "--mode", "threshold", "--threshold", "61"], "skatsim solve: error:"),
    (["demo", "--deals", "-5"], "skatsim demo: error: argument --deals: a deal count in 0..10**12 expected, got -5"),
    (["demo", "--workers", "0"], "skatsim demo: error: argument --workers: a worker count >= 1 expected, got 0"),
    (["play", "--seed", "x"], "skatsim play: error: argument --seed: an int seed expected, got 'x'"),
    (["play", "--agents", "rule_based,random"], "skatsim play: error: argument --agents: give one agent"),
    (["play", "--agents", "nobody"], "skatsim play: error: argument --agents: unknown agent 'nobody'"),
    (["tournament", "random"], "skatsim tournament: error: a tournament seats 2 or 3 agents, got 1"),
    (["tournament", "random", "random:x=1"], "skatsim tournament: error: argument AGENT: agent 'random' has no parameter 'x'"),
    (["tournament", "random", "random", "--deals", "0"], "skatsim tournament: error: argument --deals"),
])
def test_bad_arguments_are_one_line_usage_errors(argv: list[str], msg: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _err(argv, capsys).startswith(msg)  # C3, C4


def test_version_and_no_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:  # C7
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("skatsim 0.")
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "commands:" in out and "tournament" in out and "skatsim COMMAND --help" in out


def test_help_has_no_rst_markup_and_every_option_is_documented() -> None:
    p = build_parser()  # C8
    subs = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sp in [("skatsim", p)] + list(subs.choices.items()):
        text = sp.format_help()
        assert "``" not in text and ":func:" not in text, name
        for a in sp._actions:
            if a.__class__.__name__ != "_SubParsersAction":
                assert a.help, f"{name}: option {a.option_strings or a.dest} has no help"


def test_tournament_and_agents_commands(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # noqa: ANN001
    import pandas as pd

    from agents.arena.tournament import TournamentResult

    run = tmp_path / "run"
    assert main(["tournament", "rule_based", "random", "--deals", "30", "--seed", "1", "--no-progress",
                 "--out", str(run), "--format", "parquet"]) == 0
    out = capsys.readouterr().out
    assert "duplicate tournament: 30 boards x 6 arrangements = 180 games, seed 1" in out
    assert "head to head rule_based - random:" in out and "SF/list (36)" in out
    out_file = run / "games.parquet"
    back = TournamentResult.from_table(pd.read_parquet(out_file))
    assert len(back.games) == 180 and f"{back.summary().loc['random', 'sf_per_game']:.2f}" in out
    assert main(["show", str(out_file)]) == 0 and "30 boards, complete" in capsys.readouterr().out
    assert main(["tournament", "--resume", str(run), "--format", "csv", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["show", str(run / "games.csv")]) == 0  # a CSV holds no configuration: agents from the columns
    shown = capsys.readouterr().out
    assert "seed unknown" in shown and "head to head rule_based - random:" in shown
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "random: uniformly random legal actions" in out and "rule_based:" in out and "max_bid = " in out
    assert main(["agents", "--json"]) == 0
    assert "rule_based" in json.loads(capsys.readouterr().out)


def test_the_installed_entry_point_runs() -> None:
    r = subprocess.run([sys.executable, "-m", "skatsim_app", "solve", "--contract", "Q"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("skatsim solve: error:")
    assert "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- issue 10 commands


@pytest.mark.parametrize("cmd", ["play", "demo", "solve", "tournament", "show", "simulate", "bench", "agents"])
def test_every_command_has_help(cmd: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: skatsim {cmd}") and "options:" in out


def test_tournament_out_resume_and_show(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    out = tmp_path / "t"
    assert main(["tournament", "random", "rule_based", "--deals", "30", "--seed", "4", "--out", str(out),
                 "--no-progress"]) == 0
    first = capsys.readouterr().out
    assert "head to head random - rule_based" in first and f"results in the run directory {out}" in first
    assert main(["tournament", "--resume", str(out), "--no-progress"]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[:5] == first.splitlines()[:5]
    assert main(["show", str(out), "--plot", str(tmp_path / "t.png")]) == 0
    shown = capsys.readouterr().out
    assert "30 boards, complete" in shown and first.splitlines()[2] in shown
    pytest.importorskip("matplotlib")
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    err = _err(["tournament", "random", "rule_based", "--deals", "31", "--seed", "4", "--out", str(out)], capsys)
    assert "holds a different tournament (n_deals: 30 there, 31 here)" in err
    err = _err(["tournament", "random", "--resume", str(out)], capsys)
    assert "--resume DIR takes the agents" in err
    err = _err(["show", str(tmp_path / "none")], capsys)
    assert "no such file or directory" in err
    out2 = tmp_path / "t2"
    assert main(["tournament", "random", "rule_based", "--deals", "20", "--seed", "5", "--out", str(out2),
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["show", str(out), str(out2)]) == 0
    pooled = capsys.readouterr().out
    assert "== pooled over 2 tournaments" in pooled and "(50 boards, 95% CI)" in pooled


def test_tournament_time_limit_and_errors_column(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert main(["tournament", "random", "rule_based", "--deals", "2", "--parallel", "processes", "--time-limit", "5",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "errors" in out.splitlines()[1] and "engine" not in out
    assert main(["tournament", "random", "rule_based", "--deals", "2", "--engine", "python", "--no-progress"]) == 0
    err = capsys.readouterr().err  # the retired option still runs, naming its replacement
    assert "--engine is retired" in err and "--parallel processes" in err


def test_simulate_to_parquet_and_to_a_run_dir(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    from pandas import read_parquet as read_parquet_table

    from skatsim.simulate import simulate

    d = tmp_path / "sdir"
    assert main(["simulate", "--deals", "3000", "--policy", "rule_based,random,random", "--seed", "2",
                 "--workers", "1", "--out", str(d), "--chunk-size", "1000", "--format", "parquet",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "simulated 3,000 deals" in out and str(d) in out
    ref = simulate(3000, ["rule_based", "random", "random"], seed=2, workers=1)
    assert read_parquet_table(d / "deals.parquet")["list_score"].tolist() == ref["list_score"].tolist()
    assert main(["show", str(d)]) == 0
    assert "simulation run, complete" in capsys.readouterr().out
    assert main(["show", str(d / "deals.parquet")]) == 0 and "mean_sf" in capsys.readouterr().out
    err = _err(["simulate", "--policy", "pimc"], capsys)
    assert "simulate plays compiled policies only" in err


def test_bench_lists_the_benchmarks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "agents" in out and "deals_per_second" in out
    assert "unknown benchmark 'nope'" in _err(["bench", "nope"], capsys)


def test_agents_lists_pimc_with_its_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "pimc: Perfect-Information Monte Carlo" in out and "    worlds = 32" in out


def test_import_iss_command(tmp_path, capsys) -> None:
    from pathlib import Path

    from skatsim_app.cli import main

    data = Path(__file__).resolve().parent / "data" / "iss_records.txt"
    assert main(["import-iss", str(data), "--out", str(tmp_path / "iss"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "games that differ from the server's result: 0" in out
    assert (tmp_path / "iss" / "games.parquet").exists() and (tmp_path / "iss" / "decisions.parquet").exists()
    assert main(["import-iss", str(tmp_path / "missing.sgf"), "--out", str(tmp_path / "x")]) == 2
    assert "no such file" in capsys.readouterr().err
