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
    _fails(["tournament", "random", "random", "--deals", "-5"], capsys, "a deal count in 1..10**12 expected, got -5")
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
    t_end = time.time() + 900  # the first shard: compiling in a fresh checkout on a loaded machine takes minutes
    while time.time() < t_end and not list(out.glob(shard_glob)) and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    assert list(out.glob(shard_glob)), "no shard was finished within 15 minutes"
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


# ----------------------------------------------------------------------------- new-user pass 3


def _closed_port() -> int:
    """A loopback port where nothing listens (bound, read, closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _in_mounts(tmp_path: Path, options: str, script: str) -> subprocess.CompletedProcess[str] | None:
    """Run ``script`` (sh) with a small tmpfs mounted at ``tmp_path/mnt`` (``options``: e.g.
    ``size=64k,ro``) in a private mount namespace; None where this machine cannot."""
    import shutil

    if shutil.which("unshare") is None:
        return None
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o {options} tmpfs {mnt}"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    return subprocess.run(["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o {options} tmpfs {mnt} && {script}"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)


def test_a_read_only_out_and_plot_are_one_line_errors(tmp_path) -> None:
    exe = f"{sys.executable} -m skatsim_app"
    r = _in_mounts(tmp_path, "size=64k,ro",
                   f"{exe} tournament random random --deals 5 --out mnt/run --no-progress; echo rc=$?; "
                   f"{exe} simulate --deals 50 --out mnt/sim --no-progress; echo rc=$?; "
                   f"{exe} league random rule_based rule_based:max_bid=18 --deals 5 --plot mnt/x.png; echo rc=$?")
    if r is None:
        pytest.skip("no private mount namespace here (unshare -rm)")
    assert r.stdout.split() == ["rc=2"] * 3, (r.stdout, r.stderr)
    assert r.stderr.splitlines() == [
        "skatsim tournament: error: Read-only file system: 'mnt/run'",
        "skatsim simulate: error: Read-only file system: 'mnt/sim'",
        "skatsim league: error: --plot 'mnt/x.png': cannot write there (a read-only file system or no permission)"]


def test_a_full_disk_is_a_one_line_error_that_keeps_the_finished_shards(tmp_path) -> None:
    exe = f"{sys.executable} -m skatsim_app"
    r = _in_mounts(tmp_path, "size=64k",
                   f"{exe} tournament random rule_based --deals 3000 --chunk-size 200 --out mnt/run --no-progress "
                   "--workers 1; echo rc=$?; ls mnt/run/shards | wc -l")
    if r is None:
        pytest.skip("no private mount namespace here (unshare -rm)")
    rc, shards = r.stdout.split()
    assert rc == "rc=2" and int(shards) >= 1, (r.stdout, r.stderr)
    assert r.stderr.splitlines() == ["skatsim tournament: error: No space left on device: 'mnt/run'; what was "
                                     "finished is kept: resume with skatsim tournament --resume mnt/run"]


def test_a_full_disk_in_process(tmp_path, capsys, monkeypatch) -> None:
    import errno

    import pyarrow.parquet as pq

    real = pq.write_table
    calls = []

    def fill_up(table, where, *a, **k):  # the second shard finds the disk full
        calls.append(where)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(table, where, *a, **k)

    monkeypatch.setattr(pq, "write_table", fill_up)
    out = tmp_path / "run"
    _fails(["tournament", "random", "rule_based", "--deals", "40", "--chunk-size", "10", "--workers", "1",
            "--no-progress", "--out", str(out)], capsys,
           f"No space left on device: '{out}'; what was finished is kept: resume with skatsim tournament --resume {out}")
    from skatsim.runs import RunDir

    assert len(RunDir.open(out).done()) == 1 and not list((out / "shards").glob(".tmp-*"))


def test_a_closed_stdout_ends_quietly(tmp_path) -> None:
    """``skatsim show ... | head``: the reader went away; no BrokenPipeError traceback."""
    assert main(["tournament", "random", "rule_based", "--deals", "5", "--out", str(tmp_path / "t"),
                 "--no-progress", "--workers", "1"]) == 0
    for argv in (["show", str(tmp_path / "t")], ["agents"]):
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([sys.executable, "-m", "skatsim_app", *argv], stdout=w, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        os.close(w)
        assert (p.returncode, p.stderr) == (141, ""), p.stderr


def test_an_address_where_no_ray_answers_is_refused_before_ray_starts(tmp_path, capsys, monkeypatch) -> None:
    ray = pytest.importorskip("ray")

    def never(*a, **k):
        raise AssertionError("ray.init must not be reached")

    monkeypatch.setattr(ray, "init", never)
    port = _closed_port()
    why = f"no Ray cluster answers at address '127.0.0.1:{port}' (connection refused)"
    _fails(["tournament", "random", "random", "--deals", "5", "--backend", "ray", "--address", f"127.0.0.1:{port}"],
           capsys, why)
    _fails(["simulate", "--deals", "5", "--backend", "ray", "--address", f"ray://127.0.0.1:{port}",
            "--out", str(tmp_path / "s")], capsys, "connection refused")
    monkeypatch.chdir(tmp_path)
    _fails(["train-dmc", "--config", str(ROOT / "experiments" / "configs" / "train_dmc_small.json"),
            "--address", f"127.0.0.1:{port}"], capsys, why)
    assert list(tmp_path.iterdir()) == []  # no run folder left behind


@pytest.mark.parametrize("argv", [
    ["tournament", "random", "random", "--deals", "10**20"],
    ["tournament", "random", "random", "--deals", "99999999999999999999"],
    ["league", "random", "rule_based", "rule_based:max_bid=18", "--deals", "1_000_000_000_001"],
    ["simulate", "--deals", "9999999999999"],
    ["demo", "--batch", "--deals", "2000000000000"],
    ["play", "--seat", "0", "--deals", "10000000000000"],
])
def test_a_deal_count_beyond_the_bound_is_refused(argv, capsys) -> None:
    _fails(argv, capsys, "a deal count")


@pytest.mark.parametrize("cmd", [["tournament", "random", "random"], ["league", "random", "rule_based", "random"],
                                 ["simulate"], ["solve"], ["play"], ["demo"]])
def test_every_command_takes_the_same_seeds(cmd, capsys) -> None:
    for seed in (str(2**63), str(-2**63 - 1), "99999999999999999999999"):
        _fails(cmd + ["--seed", seed], capsys, "an int seed in -2**63..2**63-1 (64 bits) expected")
    from skatsim_app.cli import build_parser

    assert build_parser().parse_args(cmd + ["--seed", str(-2**63)]).seed == -2**63


def test_the_api_takes_the_same_bounds() -> None:
    import skatsim
    from skatsim.runs import run_simulation
    from skatsim.vec import VecEnv

    for call in (lambda: skatsim.simulate(10, seed=2**64), lambda: VecEnv(2, seed=2**64),
                 lambda: skatsim.iter_simulate(10, seed=-2**63 - 1),
                 lambda: run_simulation("/nonexistent/x", 10, seed=2**64)):
        with pytest.raises(ValueError, match="a run seed must fit in 64 bits"):
            call()
    for call in (lambda: skatsim.iter_simulate(skatsim.MAX_DEALS + 1), lambda: skatsim.iter_simulate(10**20),
                 lambda: run_simulation("/nonexistent/x", 10**20)):
        with pytest.raises(ValueError, match=r"n_deals must be an int in .*10\*\*12"):
            call()


def test_import_iss_never_replaces_another_import(tmp_path, capsys) -> None:
    records = ROOT / "tests" / "data" / "iss_records.txt"
    out = tmp_path / "iss"
    assert main(["import-iss", str(records), "--out", str(out), "--no-progress"]) == 0
    first = (out / "games.parquet").read_bytes()
    junk = tmp_path / "junk.sgf"
    junk.write_bytes(bytes(range(256)) * 2)
    _fails(["import-iss", str(junk), "--out", str(out)], capsys, f"--out '{out}' holds another import (source: ")
    _fails(["import-iss", str(records), "--out", str(out), "--limit", "3"], capsys, "limit: None there, 3 here")
    assert (out / "games.parquet").read_bytes() == first
    assert main(["import-iss", str(records), "--out", str(out), "--no-progress"]) == 0  # the same import again
    capsys.readouterr()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    _fails(["import-iss", str(records), "--out", str(tmp_path / "other")], capsys, "a folder that is not empty")
    _fails(["import-iss", "/dev/null", "--out", str(tmp_path / "n")], capsys,
           "'/dev/null' is not a regular file (a device, a pipe or a socket)")
    assert main(["import-iss", str(junk), "--out", str(tmp_path / "j"), "--no-progress"]) == 0
    shown = capsys.readouterr().out
    assert "games written: 0" in shown and all(c.isprintable() or c == "\n" for c in shown)  # no binary junk echoed


def test_a_truncated_results_file_is_a_clean_error(tmp_path) -> None:
    import skatsim

    path = tmp_path / "sim.parquet"
    skatsim.simulate_to_parquet(path, 1000, seed=1, progress=False)
    assert len(skatsim.read_parquet(path)) == 1000
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match="is not a readable Parquet file"):
        skatsim.read_parquet(path)


def test_the_worlds_sweep_plays_what_it_needs_and_checks_reuse_first(tmp_path, capsys, monkeypatch) -> None:
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("pimc_worlds_sweep", ROOT / "experiments" / "pimc_worlds_sweep.py")
    assert spec is not None and spec.loader is not None
    sweep = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "pimc_worlds_sweep", sweep)  # (its dataclass looks itself up there)
    spec.loader.exec_module(sweep)
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"worlds": [1, 2], "n_deals": 2, "workers": 1, "reuse": {"2": "runs/absent"}}))
    assert sweep.main(["--config", str(cfg)]) == 0
    err = capsys.readouterr().err
    assert "worlds=2: runs/absent is not here (reuse in the config); playing its 2 boards instead" in err
    assert (tmp_path / "runs" / "pimc_worlds_sweep_tournaments__1" / "worlds_2" / "manifest.json").is_file()
    cfg.write_text(json.dumps({"worlds": [3, 1], "n_deals": 2, "workers": 1,
                               "reuse": {"1": "runs/pimc_worlds_sweep_tournaments__1/worlds_2"}}))
    with pytest.raises(SystemExit, match="do not fit"):
        sweep.main(["--config", str(cfg)])
    assert not (tmp_path / "runs" / "pimc_worlds_sweep_tournaments__1" / "worlds_3").exists()  # nothing played


def test_the_league_elo_interval_never_collapses() -> None:
    """random loses every board to both others: no finite Elo gap without the prior, and a
    bootstrap of identical boards alone gives a zero-width interval."""
    from agents.arena.tournament import run_league

    r = run_league(["random", "rule_based", "rule_based:random_cards=1"], n_deals=30, seed=3, progress=False,
                   workers=1)
    bt = r.board_table()
    assert (bt[(0, 1)] < 0).all() and (bt[(0, 2)] < 0).all()  # separated pairs
    rt = r.ratings(n_bootstrap=300)
    assert ((rt["elo_hi"] - rt["elo_lo"]) > 20).all(), rt
    assert ((rt["elo_lo"] <= rt["elo"]) & (rt["elo"] <= rt["elo_hi"])).all()
    assert rt["elo"].sum() == pytest.approx(0, abs=1e-6)


def test_a_script_command_runs_the_script_under_its_own_module_name(capsys) -> None:
    """numba caches a script's kernels under its module name: ``skatsim train-dmc`` must load
    ``experiments.train_dmc`` as the other scripts import it (a nameless module was cached as
    '<dynamic>', and experiments/dmc_solver_agreement.py then failed to load the kernel)."""
    with pytest.raises(SystemExit):
        main(["train-dmc", "--help"])
    capsys.readouterr()
    mod = sys.modules["experiments.train_dmc"]
    assert Path(mod.__file__).resolve() == ROOT / "experiments" / "train_dmc.py"


def test_an_agent_without_act_is_refused_and_a_failing_one_is_named(capsys, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    _fails(["tournament", "my_agents:NoAct", "random", "--deals", "2"], capsys,
           "agent 'my_agents:NoAct': class 'NoAct' has no act(observation) method")
    _fails(["tournament", "my_agents:CannotInit", "random", "--deals", "2", "--workers", "1", "--no-progress"], capsys,
           "agent 'my_agents:CannotInit' could not be made: RuntimeError: cannot init")
    from agents import make_agent
    from agents.arena.base import AgentMakeError

    with pytest.raises(AgentMakeError, match="could not be made") as e:
        make_agent("my_agents:CannotInit")
    assert isinstance(e.value.__cause__, RuntimeError)


@pytest.mark.parametrize("after", [0.5, 2.0, 6.0])
def test_ctrl_c_at_any_moment_prints_no_traceback(after: float, tmp_path) -> None:
    """Ctrl-C while the engine loads, while the arguments are read, or while an agent that
    never answers is deciding: one line, exit status 130."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    proc = subprocess.Popen([sys.executable, "-m", "skatsim_app", "tournament", "my_agents:Sleeper", "random",
                             "--deals", "40", "--workers", "2", "--chunk-size", "2", "--no-progress"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == -signal.SIGINT:  # interrupted before Python itself had started: nothing printed
        assert err == "", err
    else:
        assert proc.returncode == 130 and err.strip() == "skatsim tournament: interrupted", err


def test_a_damaged_shard_is_reported_and_played_again(tmp_path, capsys) -> None:
    out = tmp_path / "t"
    argv = ["tournament", "random", "rule_based", "--deals", "20", "--chunk-size", "5", "--workers", "1",
            "--no-progress", "--out", str(out), "--format", "csv"]
    assert main(argv) == 0
    whole = (out / "games.csv").read_text()
    capsys.readouterr()
    shard = out / "shards" / "rows-000000005-000000010.parquet"
    shard.write_bytes(shard.read_bytes()[:-64])  # a truncated copy, as a full disk or a bad copy leaves it
    assert main(["show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert (f"damaged: {out / 'shards'}: rows-000000005-000000010.parquet is not a readable Parquet file "
            "(truncated or damaged)") in shown and "unfinished: 15 of 20 boards done" in shown
    assert main(["tournament", "--resume", str(out), "--no-progress", "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert "skatsim tournament: note: " in err and "its chunk is played again" in err
    assert (out / "games.csv").read_text() == whole
    from skatsim.runs import RunDir

    assert RunDir.open(out).damaged() == {}


def test_a_tournament_has_a_default_time_limit_that_can_be_raised_or_switched_off(tmp_path, monkeypatch) -> None:
    from agents import run_tournament
    from agents.arena.play import play
    from agents.arena.tournament.config import DEFAULT_TIME_LIMIT
    from skatsim.runs import read_manifest

    assert DEFAULT_TIME_LIMIT == 30.0
    assert run_tournament(["random", "rule_based"], 1, progress=False, workers=1).config.time_limit == 30.0
    assert run_tournament(["random", "rule_based"], 1, progress=False, workers=1, time_limit=0).config.time_limit \
        is None
    for flag, want in (([], 30.0), (["--time-limit", "0"], None), (["--time-limit", "120"], 120.0)):
        out = tmp_path / f"t{len(flag)}{want}"
        assert main(["tournament", "random", "rule_based", "--deals", "1", "--no-progress", "--workers", "1",
                     "--out", str(out), *flag]) == 0
        assert read_manifest(out)["config"]["time_limit"] == want
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    g = play(["my_agents:Sleeper", "random", "random"], seed=1, time_limit=0.1, on_error="forfeit")
    assert g.errors and "did not answer within 2 s of waiting (10 x the time limit of 0.1 s + 1 s; it used " \
        in g.error_text
