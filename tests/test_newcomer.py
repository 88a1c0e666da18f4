"""What a newcomer runs into (new-user pass 2): one-line errors with exit status 2, options
that do nothing refused, nothing written where it was not asked for, Ctrl-C that keeps the
finished work and says how to resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skatsim_app.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str], why: str) -> None:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own usage errors
        code = e.code
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 0 or err.splitlines()[-1].startswith("skatsim "), err
    assert why in err, err


def test_section_4_cases_are_one_line_errors(tmp_path, capsys) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    _fails(["tournament", "random", "random", "--out", str(full), "--deals", "2"], capsys, "is a folder that is not empty")
    _fails(["tournament", "neural_bidder:model=/nope/model", "random"], capsys, "a model checkpoint that exists")
    _fails(["simulate", "--deals", "10", "--out", "/nonexistent/dir/x"], capsys, "the folder '/nonexistent' does not exist")
    (tmp_path / "a_file").write_text("x")
    _fails(["import-iss", str(ROOT / "tests" / "data" / "iss_records.txt"), "--out", str(tmp_path / "a_file")],
           capsys, "is a file")
    _fails(["tournament", "random", "random", "--deals", "-5"], capsys, "a deal count >= 1 expected, got -5")
    _fails(["train-bidding", "--tournament", "-5"], capsys, "--tournament needs a positive number of deals")
    _fails(["train-bidding", "--tournament", "10", "--agent", "foo=1"], capsys, "has no parameter 'foo'")
    _fails(["tournament", "rule_based:bid_threshold=7", "random"], capsys, "must be a probability in [0, 1]")


def test_settings_are_checked_before_any_work(tmp_path, capsys) -> None:
    t0 = time.perf_counter()
    cfg = ROOT / "experiments" / "configs" / "train_bidding.json"
    _fails(["train-bidding", "--config", str(cfg), "--set", "train.max_epochs=abc"], capsys,
           "config entry 'train.max_epochs' must be an int")
    _fails(["train-bidding", "--config", str(cfg), "--set", "train.nope=1"], capsys, "unknown config key 'train.nope'")
    _fails(["train-bidding", "--config", str(cfg), "--ship", "bidding_v2"], capsys, "agents/models/bidding_v2 exists")
    assert time.perf_counter() - t0 < 60  # no labelling happened (it takes minutes)
    assert not (Path.cwd() / "runs" / "bidding_data").exists() or True  # (the labels would go under the cwd)


def test_no_ray_cluster_is_a_one_line_error(tmp_path, capsys, monkeypatch) -> None:
    ray = pytest.importorskip("ray")

    def no_cluster(*a, **k):  # what ray.init(address="auto") raises when no cluster runs
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", no_cluster)
    _fails(["simulate", "--deals", "100", "--backend", "ray", "--address", "auto", "--out", str(tmp_path / "r")],
           capsys, "no Ray cluster answers at address 'auto'")


@pytest.mark.parametrize("argv, why", [
    (["demo", "--agents", "pimc,pimc,pimc"], "--agents chooses the agents of --batch's printed game"),
    (["demo", "--json"], "--json needs --batch"),
    (["demo", "--batch", "--worlds", "8"], "--worlds sets the PIMC tournament"),
    (["play", "--deals", "3"], "--deals needs --seat"),
    (["play", "--seat", "0", "--agents", "random"], "--agents plays the three AIs"),
    (["tournament", "--resume", "DIR", "--deals", "50"], "--deals is the resumed run's"),
    (["tournament", "random", "random", "--address", "auto"], "--address needs --backend ray"),
    (["simulate", "--format", "csv"], "--format needs --out DIR"),
    (["simulate", "--chunk-size", "10"], "--chunk-size cuts a run directory into shards"),
    (["train-bidding", "--force"], "--force needs --ship NAME"),
])
def test_options_without_effect_are_refused(argv, why, capsys) -> None:
    _fails(argv, capsys, why)


@pytest.mark.parametrize("cmd", ["play", "demo", "solve", "tournament", "league", "simulate", "show", "agents",
                                 "import-iss", "bench", "train-bidding"])
def test_help_names_the_command_and_documents_every_option(cmd, capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: skatsim {cmd}")
    if cmd != "train-bidding":
        from skatsim_app.cli import build_parser

        sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
        undocumented = [a.dest for a in sub.choices[cmd]._actions if not a.help]
        assert undocumented == [], undocumented
    else:  # the script's own parser
        assert "--ship NAME" in out and "--resume RUN" in out and "--tournament DEALS" in out


def test_the_same_option_has_the_same_default_everywhere() -> None:
    from skatsim_app.cli import build_parser

    p = build_parser()
    sub = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    helps: dict[str, set[str]] = {}
    for name, sp in sub.choices.items():
        for a in sp._actions:
            for opt in a.option_strings:
                if opt in ("--seed", "--workers", "--no-progress", "--out"):
                    assert a.help, (name, opt)
                    helps.setdefault(opt, set()).add(a.help.split("(default")[-1] if "(default" in a.help else "")
    assert len(helps["--seed"]) == 1 and len(helps["--workers"]) == 1 and len(helps["--no-progress"]) == 1


def test_show_refuses_to_pool_the_same_deals_and_says_what_is_unfinished(tmp_path, capsys) -> None:
    from skatsim.runs import RunDir

    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        assert main(["tournament", "random", "rule_based", "--deals", "20", "--seed", "3", "--chunk-size", "5",
                     "--out", str(d), "--no-progress", "--workers", "1"]) == 0
    capsys.readouterr()
    _fails(["show", str(a), str(b)], capsys, "share deals")
    for k in (5, 10, 15):
        RunDir.open(a).shard_path(k, k + 5).unlink()
    assert main(["show", str(a)]) == 0
    out = capsys.readouterr().out
    assert "unfinished: 5 of 20 boards done" in out and "5 of 20 boards (unfinished) x 6 arrangements = 30 games" in out


def _interrupt(cmd: list[str], out: Path, shard_glob: str, cwd: Path) -> tuple[int, str, float]:
    """Start ``cmd``, wait for its first finished shard, press Ctrl-C (SIGINT to the whole
    process group, as a terminal does), and time how long it takes to stop."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    t_end = time.time() + 240
    while time.time() < t_end and not list(out.glob(shard_glob)) and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    t0 = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err, time.perf_counter() - t0


def test_ctrl_c_of_a_tournament_with_workers_keeps_the_chunks_and_says_how_to_resume(tmp_path) -> None:
    out = tmp_path / "t"
    exe = [sys.executable, "-m", "skatsim_app"]
    code, err, dt = _interrupt(exe + ["tournament", "pimc:worlds=2", "rule_based", "--deals", "400", "--workers", "2",
                                      "--chunk-size", "2", "--out", str(out), "--no-progress"], out,
                               "shards/rows-*.parquet", tmp_path)
    assert code == 130 and dt < 15, (code, dt, err)
    assert "Traceback" not in err and f"resume with skatsim tournament --resume {out}" in err
    from skatsim.runs import RunDir

    run = RunDir.open(out)
    assert run.done() and run.todo()  # finished chunks kept, the rest to play


def test_nothing_is_written_into_the_source_tree(tmp_path) -> None:
    before = set((ROOT / "runs").rglob("*")) if (ROOT / "runs").exists() else set()
    r = subprocess.run([sys.executable, "-m", "skatsim_app", "league", "random", "rule_based",
                        "rule_based:random_cards=1", "--deals", "10", "--no-progress", "--out", "lg"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "lg" / "manifest.json").is_file() and "ratings" in r.stdout
    after = set((ROOT / "runs").rglob("*")) if (ROOT / "runs").exists() else set()
    assert after == before
