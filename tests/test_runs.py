"""Run directories: a killed run resumes with no deal lost or repeated and the same table;
shards are complete or absent; a changed configuration is refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from skatsim.runs import RunDir
from skatsim.simulate import run_simulation
from agents.arena.tournament import load_tournament, resume_tournament, run_tournament

TIMES = ["time_0", "time_1", "time_2"]
AGENTS = ["random", "rule_based"]


def _games(r) -> pd.DataFrame:  # noqa: ANN001
    return r.games.drop(columns=TIMES)


def _start(out: Path, n: int, chunk: int) -> subprocess.Popen:
    code = textwrap.dedent(f"""
        from agents.arena.tournament import run_tournament
        run_tournament({AGENTS!r}, {n}, seed=11, out={str(out)!r}, parallel="processes", chunk_size={chunk},
                       progress=False)
    """)
    return subprocess.Popen([sys.executable, "-c", code], cwd=str(Path(__file__).parent.parent),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for_shards(out: Path, k: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    t0 = time.time()
    while time.time() - t0 < timeout:
        shards = list((out / "shards").glob("rows-*.parquet")) if (out / "shards").is_dir() else []
        if len(shards) >= k:
            return
        if proc.poll() is not None:
            pytest.fail(f"the run ended before it was killed: {proc.stderr.read().decode()[-2000:]}")
        time.sleep(0.02)
    pytest.fail("no shards appeared")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=lambda s: signal.Signals(s).name)
def test_a_killed_run_resumes_to_the_uninterrupted_table(tmp_path: Path, sig: int) -> None:
    out = tmp_path / "run"
    n, chunk = 60, 3
    proc = _start(out, n, chunk)
    _wait_for_shards(out, 2, proc)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert proc.returncode != 0, proc.stderr.read().decode()[-2000:]  # it was stopped mid-run
    played = json.loads((out / "manifest.json").read_text())["elapsed_s"]  # the time of the kept shards
    assert played > 0
    run = RunDir.open(out)
    done, todo = run.done(), run.todo()
    assert done and todo, "killed mid-run: some chunks done, some not"
    assert not list((out / "shards").glob(".tmp-*")), "temporary files are removed on reopening"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    with pytest.raises(ValueError, match="unfinished"):
        load_tournament(out)
    partial = load_tournament(out, partial=True).games
    before = {p: p.stat().st_mtime_ns for p in done.values()}

    resumed = resume_tournament(out, progress=False)
    for p, t in before.items():  # finished chunks are not played again
        assert p.stat().st_mtime_ns == t
    g = resumed.games
    assert sorted(g["deal_id"].unique()) == list(range(n))
    assert (g.groupby("deal_id").size() == 6).all()  # none lost, none repeated
    assert not g.duplicated(["deal_id", "arrangement"]).any()
    ref = run_tournament(AGENTS, n, seed=11, parallel="processes", progress=False)
    pd.testing.assert_frame_equal(_games(resumed), _games(ref))
    pd.testing.assert_frame_equal(load_tournament(out).games.drop(columns=TIMES), _games(ref))
    pd.testing.assert_frame_equal(resumed.summary().drop(columns="time_per_game"),
                                  ref.summary().drop(columns="time_per_game"))
    keys = set(zip(partial["deal_id"], partial["arrangement"]))
    assert keys <= set(zip(g["deal_id"], g["arrangement"]))
    assert RunDir.open(out).complete and (out / "summary.txt").read_text().startswith("duplicate tournament")
    assert resumed.games.attrs["elapsed_s"] > played  # "s of play in all runs": the killed run's time counts


def test_a_partial_or_foreign_shard_file_is_not_counted_as_done(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = run_tournament(AGENTS, 6, seed=2, out=out, chunk_size=2, progress=False)
    run = RunDir.open(out)
    p = run.shard_path(2, 4)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])  # what a non-atomic writer killed mid-write would leave
    (out / "shards" / ".tmp-rows-000000004-000000006.parquet.123").write_bytes(b"junk")
    run = RunDir.open(out)
    assert run.todo() == [(2, 4)]
    assert not list((out / "shards").glob(".tmp-*"))
    again = resume_tournament(out, progress=False)
    pd.testing.assert_frame_equal(_games(again), _games(r))


def test_a_changed_configuration_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_tournament(AGENTS, 4, seed=1, out=out, progress=False)
    with pytest.raises(ValueError, match=r"holds a different tournament \(n_deals: 4 there, 5 here\)"):
        run_tournament(AGENTS, 5, seed=1, out=out, progress=False)
    with pytest.raises(ValueError, match=r"seed: 1 there, 2 here"):
        run_tournament(AGENTS, 4, seed=2, out=out, progress=False)
    with pytest.raises(ValueError, match=r"agents: random, rule_based there, random, rule_based:max_bid=18 here"):
        run_tournament(["random", "rule_based:max_bid=18"], 4, seed=1, out=out, progress=False)
    # the same configuration: a finished run is simply loaded again
    r = run_tournament(AGENTS, 4, seed=1, out=out, progress=False)
    assert len(r.games) == 24
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("x")
    with pytest.raises(FileExistsError, match="not an empty directory"):
        run_tournament(AGENTS, 4, seed=1, out=tmp_path / "other", progress=False)
    with pytest.raises(ValueError, match="not a skatsim run directory"):
        resume_tournament(tmp_path / "nowhere")


def test_manifest_records_config_agents_seed_rules_and_versions(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_tournament(["random", "rule_based:max_bid=18"], 3, seed=9, out=out, progress=False)
    m = json.loads((out / "manifest.json").read_text())
    c = m["config"]
    assert c["agents"] == [{"name": "random", "params": {}}, {"name": "rule_based", "params": {"max_bid": 18.0}}]
    assert c["seed"] == 9 and c["n_deals"] == 3 and c["rules"]["ramsch"] is False and c["rules_version"]
    assert {"python", "skatsim", "numpy", "numba", "pandas", "pyarrow"} <= set(m["versions"])
    assert m["status"] == "complete" and m["chunk_size"] == 3


def test_simulation_run_dir_equals_simulate_and_resumes(tmp_path: Path) -> None:
    from skatsim.simulate import read_parquet, simulate

    out = tmp_path / "sim"
    policy = ["rule_based", "random", "random"]
    run = run_simulation(out, 2500, policy, seed=4, chunk_size=1000, progress=False)
    ref = simulate(2500, policy, seed=4, workers=1)
    pd.testing.assert_frame_equal(run.read_all(), ref, check_like=False)
    os.remove(run.shard_path(1000, 2000))
    again = run_simulation(out, 2500, policy, seed=4, chunk_size=1000, progress=False)
    pd.testing.assert_frame_equal(again.read_all(), ref)
    assert len(read_parquet(again.shard_path(2000, 2500))) == 500  # a shard is a valid simulate file
    with pytest.raises(ValueError, match="different simulation"):
        run_simulation(out, 2500, "random", seed=4, progress=False)


def test_a_stopped_simulation_run_keeps_the_time_of_its_shards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The manifest's ``elapsed_s`` is kept with every shard, so a run stopped where no
    ``finally`` runs (SIGTERM, SIGKILL; here: an interrupt in the second shard's write) and
    resumed reports the time of all its runs."""
    out, written = tmp_path / "sim", []
    write = RunDir.write_shard

    def write_once(self: RunDir, *args: object, **kw: object) -> Path:
        if written:
            raise KeyboardInterrupt
        written.append(args)
        return write(self, *args, **kw)

    monkeypatch.setattr(RunDir, "write_shard", write_once)
    with pytest.raises(KeyboardInterrupt):
        run_simulation(out, 3000, "rule_based", seed=4, chunk_size=1000, progress=False)
    played = json.loads((out / "manifest.json").read_text())["elapsed_s"]
    assert played > 0
    monkeypatch.undo()
    run = run_simulation(out, 3000, "rule_based", seed=4, chunk_size=1000, progress=False)
    assert run.complete and run.manifest["elapsed_s"] > played
