"""The Ray backend on a local Ray: the same seed gives the identical table with 1 worker,
2 local workers and Ray; results stream into the run directory; batch simulation too.
Skipped cleanly when Ray is not installed (the ``ray`` extra)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

ray = pytest.importorskip("ray")

from skatsim.runs import RunDir  # noqa: E402
from skatsim.simulate import run_simulation  # noqa: E402
from agents.arena.tournament import resume_tournament, run_tournament  # noqa: E402

TIMES = ["time_0", "time_1", "time_2"]


@pytest.fixture(scope="module")
def local_ray():
    """The backend starts a local Ray on first use (``workers`` CPUs); shut it down after."""
    yield ray
    if ray.is_initialized():
        ray.shutdown()


def test_same_table_with_one_worker_two_workers_and_ray(local_ray, tmp_path: Path) -> None:  # noqa: ANN001
    agents = ["random", "rule_based:max_bid=18"]
    assert not ray.is_initialized()  # local runs first (no fork of a process running Ray)
    one = run_tournament(agents, 12, seed=5, parallel="processes", workers=1, chunk_size=3, progress=False)
    two = run_tournament(agents, 12, seed=5, parallel="processes", workers=2, chunk_size=3, progress=False)
    out = tmp_path / "ray_run"
    on_ray = run_tournament(agents, 12, seed=5, parallel="processes", workers=2, chunk_size=3, progress=False,
                            backend="ray", out=out)
    ref = one.games.drop(columns=TIMES)
    pd.testing.assert_frame_equal(two.games.drop(columns=TIMES), ref)
    pd.testing.assert_frame_equal(on_ray.games.drop(columns=TIMES), ref)
    assert ray.is_initialized()  # it really ran on Ray
    pd.testing.assert_frame_equal(on_ray.summary().drop(columns="time_per_game"),
                                  one.summary().drop(columns="time_per_game"))
    run = RunDir.open(out)
    assert run.complete and len(run.done()) == 4  # every chunk streamed back into the directory
    # batch simulation on Ray: the same rows as locally
    b_local = run_tournament(["random", "rule_based"], 50, seed=2, progress=False)
    b_ray = run_tournament(["random", "rule_based"], 50, seed=2, progress=False, backend="ray", chunk_size=20)
    pd.testing.assert_frame_equal(b_ray.games, b_local.games)


def test_a_ray_run_resumes_locally_and_simulation_on_ray(local_ray, tmp_path: Path) -> None:  # noqa: ANN001
    from skatsim.simulate import simulate

    out = tmp_path / "t"
    full = run_tournament(["random", "rule_based"], 8, seed=3, parallel="processes", chunk_size=2, progress=False,
                          backend="ray", out=out)
    run = RunDir.open(out)
    run.shard_path(4, 6).unlink()
    again = resume_tournament(out, progress=False)  # local backend finishes a Ray run
    pd.testing.assert_frame_equal(again.games.drop(columns=TIMES), full.games.drop(columns=TIMES))
    sim = run_simulation(tmp_path / "s", 3000, "rule_based", seed=8, chunk_size=1000, backend="ray", progress=False)
    pd.testing.assert_frame_equal(sim.read_all(), simulate(3000, "rule_based", seed=8, workers=1))


def test_bidding_labels_on_ray_equal_local_ones(local_ray, tmp_path: Path) -> None:  # noqa: ANN001
    from agents.learn.bidding_data import LabelConfig, generate, read_labels

    cfg = LabelConfig(n_deals=6, seed=4, worlds=3, labeler="rule_based", condition="auction", shard_size=2)
    generate(tmp_path / "local", cfg, workers=1, progress=False)
    generate(tmp_path / "ray", cfg, workers=2, progress=False, backend="ray")
    pd.testing.assert_frame_equal(read_labels(tmp_path / "ray"), read_labels(tmp_path / "local"))
    assert ray.is_initialized()


def test_kill_of_a_dmc_training_on_ray_writes_the_checkpoint(tmp_path: Path) -> None:
    """``ray.init`` installs a SIGTERM handler that ends the process at once; the training keeps
    its own, so ``kill PID`` of a run with ``--address local`` still writes the checkpoint."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[1]
    cmd = [sys.executable, str(root / "experiments" / "train_dmc.py"), "--address", "local", "--no-progress",
           "--out", str(tmp_path), "--set", "model.hidden=[16]", "--set", "actors.games=16",
           "--set", "actors.steps=20", "--set", "actors.ray.count=1", "--set", "train.frames=100000000",
           "--set", "eval.deals=0", "--set", "checkpoint_seconds=0"]
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        # A wait for readiness, not a speed check: Ray's start and the actor's first compile took
        # over 120 s on a 2-core machine with both cores busy (a clean-clone check beside a tournament).
        deadline = time.time() + 300
        while not list(tmp_path.glob("*/log.parquet")):  # a round went through: Ray is up
            assert p.poll() is None, p.communicate()[1]
            assert time.time() < deadline, "no training round within 300 s"
            time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "the checkpoint is kept: resume with" in err
    (run,) = tmp_path.glob("train_dmc*")
    assert (run / "checkpoint.pt").is_file()  # (written every round here; the exit code is what the fix changed)
