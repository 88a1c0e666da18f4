"""Public batch-simulation API: columns, determinism, streaming, summaries, errors."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

import skatsim
from skatsim import SkatRules, SkatState, deal
from skatsim.bits import derive_seed
from skatsim.simulate import (CONTRACT_CATEGORIES, RESULT_DTYPE, SimSummary, iter_chunks, iter_simulate,
                              read_parquet, simulate, simulate_to_parquet, summarize)

COLUMNS = ["deal_index", "deal_seed", "declarer", "bid", "contract", "game", "flags", "picked_up", "kontra",
           "declarer_points", "declarer_tricks", "matadors", "won", "schneider", "schwarz", "multiplier",
           "game_value", "overbid", "charged_value", "list_score", "score_0", "score_1", "score_2",
           "sf_0", "sf_1", "sf_2", "points_0", "points_1", "points_2", "n_actions"]


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return simulate(20_000, seed=7, workers=2)


def test_columns_and_dtypes(df):
    assert list(df.columns) == COLUMNS
    assert isinstance(df["contract"].dtype, pd.CategoricalDtype)
    assert list(df["contract"].cat.categories) == list(CONTRACT_CATEGORIES)
    assert df["won"].dtype == bool and df["deal_seed"].dtype == np.int64
    assert (df["deal_index"].to_numpy() == np.arange(len(df))).all()
    assert df.attrs["seed"] == 7 and df.attrs["policy"] == "random"
    assert df.attrs["rules_version"] == SkatRules().version


def test_rows_are_consistent(df):
    played = df[df["declarer"] >= 0]
    assert (df["points_0"] + df["points_1"] + df["points_2"] <= 120).all()
    # declarer's list score goes to his seat, defenders score 0
    for s in range(3):
        mine = played["declarer"] == s
        assert (played.loc[mine, f"score_{s}"] == played.loc[mine, "list_score"]).all()
        assert (played.loc[~mine, f"score_{s}"] == 0).all()
    assert ((played["list_score"] > 0) == played["won"]).all()
    lost = ~played["won"]
    assert (played.loc[lost, "list_score"] == -2 * played.loc[lost, "charged_value"]).all()
    passed = df[df["contract"] == "passed"]
    assert (passed[["score_0", "score_1", "score_2", "list_score"]] == 0).all().all()
    # contract text agrees with game + flags
    for c, g, f in played[["contract", "game", "flags"]].drop_duplicates().itertuples(index=False):
        assert skatsim.Contract(g, f).to_text() == c


def test_deal_seed_reproduces_the_cards(df):
    for i in (0, 1, 999, 19_999):
        row = df.iloc[i]
        assert int(row["deal_seed"]) == derive_seed(7, i)
        s = SkatState.new_game(seed=int(row["deal_seed"]))
        assert s.deal == deal(int(row["deal_seed"]))


@pytest.mark.parametrize("workers,chunk", [(1, 20_000), (2, 3001), (1, 999)])
def test_identical_for_any_worker_count_and_chunking(df, workers, chunk):
    other = simulate(20_000, seed=7, workers=workers, chunk_size=chunk)
    pd.testing.assert_frame_equal(df, other)


def test_start_continues_a_run(df):
    tail = simulate(5000, seed=7, start=15_000, workers=1)
    pd.testing.assert_frame_equal(tail.reset_index(drop=True), df.iloc[15_000:].reset_index(drop=True))


def test_iter_simulate_matches_simulate(df):
    parts = list(iter_simulate(20_000, seed=7, chunk_size=6000))
    assert [len(p) for p in parts] == [6000, 6000, 6000, 2000]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), df)


def test_record_actions_layout():
    d = simulate(300, seed=3, record_actions=True, workers=1)
    acts = d.attrs["actions"]
    assert acts.dtype == np.int16 and acts.shape[0] == 300
    n = d["n_actions"].to_numpy()
    for i in range(300):
        assert (acts[i, :n[i]] >= 0).all() and (acts[i, n[i]:] == -1).all()


def test_rules_options_reach_the_kernel():
    d = simulate(5000, seed=2, rules=SkatRules(ramsch=True, kontra=True), workers=1)
    assert d.attrs["rules"] == {"ramsch": True, "kontra": True}
    assert set(d["kontra"].unique()) <= {0, 1, 2} and (d["kontra"] > 0).any()
    plain = simulate(5000, seed=2, workers=1)
    assert (plain["kontra"] == 0).all()


def test_memory_stays_flat_while_iterating():
    """Peak traced memory does not grow with the number of chunks consumed."""
    def peak(n_chunks: int) -> int:
        tracemalloc.start()
        for part in iter_simulate(n_chunks * 20_000, seed=1, chunk_size=20_000, progress=False):
            part["list_score"].sum()
        _, p = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return p

    small, big = peak(2), peak(12)
    assert big < 1.5 * small, (small, big)
    assert big < 40 * 20_000 * RESULT_DTYPE.itemsize


def test_simulate_out_returns_the_table_and_writes_it(tmp_path, df):
    path = tmp_path / "deals.parquet"
    got = simulate(20_000, seed=7, out=path, chunk_size=7000)
    pd.testing.assert_frame_equal(got, df, check_categorical=False)
    assert got.attrs["seed"] == 7
    back = read_parquet(path)
    pd.testing.assert_frame_equal(back, df, check_categorical=False)


def test_parquet_streaming(tmp_path, df):
    path = tmp_path / "deals.parquet"
    summary = simulate_to_parquet(path, 20_000, seed=7, chunk_size=7000)
    assert isinstance(summary, SimSummary) and summary.n == 20_000
    back = pd.read_parquet(path)
    assert len(back) == 20_000
    pd.testing.assert_frame_equal(back, df, check_categorical=False)
    import pyarrow.parquet as pq
    assert b"skatsim" in pq.read_schema(path).metadata


def test_summary_streaming_equals_whole(df):
    whole = summarize(df).table()
    streamed = summarize(iter_simulate(20_000, seed=7, chunk_size=4096)).table()
    pd.testing.assert_frame_equal(whole, streamed)
    t = whole
    assert t.loc["all", "count"] == 20_000
    g = df[df["contract"] == "G"]
    assert t.loc["G", "count"] == len(g)
    assert t.loc["G", "win_rate"] == pytest.approx(g["won"].mean())
    assert t.loc["G", "win_rate_se"] == pytest.approx(np.sqrt(g["won"].mean() * (1 - g["won"].mean()) / len(g)))
    assert t.loc["G", "mean_list_score"] == pytest.approx(g["list_score"].mean())
    sf = summarize(df).seeger_fabian()
    assert sf.loc[1, "mean_sf"] == pytest.approx(df["sf_1"].mean())
    arr = summarize(next(iter_chunks(20_000, seed=7)).rows).table()
    pd.testing.assert_frame_equal(arr, whole)


def test_seed_forms():
    a = simulate(50, seed=np.random.default_rng(3), workers=1)
    b = simulate(50, seed=a.attrs["seed"], workers=1)
    pd.testing.assert_frame_equal(a, b)
    fresh = simulate(5, workers=1)  # no seed: fresh entropy, recorded so the run can be repeated
    again = simulate(5, seed=fresh.attrs["seed"], workers=1)
    pd.testing.assert_frame_equal(fresh, again)
    assert simulate(5, workers=1).attrs["seed"] != fresh.attrs["seed"]


def test_empty_and_errors():
    assert len(simulate(0, seed=1)) == 0
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        simulate(10, "nope", seed=1)
    with pytest.raises(TypeError, match="policy must be"):
        simulate(10, lambda st, seat, rng: (0, rng), seed=1)
    with pytest.raises(ValueError, match="workers must be an int in 1.."):
        simulate(10, seed=1, workers=0)
    with pytest.raises(ValueError, match=r"n_deals must be an int in 0\.\.10\*\*12 \(MAX_DEALS\), got -1"):
        simulate(-1, seed=1)
    with pytest.raises(ValueError, match="chunk_size must be a positive int"):
        simulate(10, seed=1, chunk_size=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        simulate(10, seed=1.5)
    with pytest.raises(ValueError, match="too many rows for one DataFrame"):
        simulate(10**9, seed=1)


@pytest.mark.slow
def test_100_million_deals_in_flat_memory():
    """The issue's streaming promise: 100M deals summarised with bounded memory (~1 min on 2 cores)."""
    tracemalloc.start()
    s = summarize(iter_simulate(100_000_000, seed=11, chunk_size=1 << 20))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert s.n == 100_000_000
    assert peak < 400 * 2**20, f"peak traced memory {peak / 2**20:.0f} MiB"


def test_parquet_file_is_complete_or_absent(tmp_path, df):
    """An interrupted run never leaves a valid-looking partial file; an existing file stays
    untouched until the new one is complete; n_deals=0 writes a valid empty file."""
    import signal
    import subprocess
    import sys
    import time

    from skatsim.simulate import read_parquet, simulate_to_parquet

    path = tmp_path / "big.parquet"
    old = tmp_path / "old.parquet"
    simulate_to_parquet(old, 1000, seed=1, workers=1)
    before = old.read_bytes()
    script = (f"from skatsim.simulate import simulate_to_parquet\n"
              f"simulate_to_parquet({str(path)!r}, 200_000_000, seed=3, workers=1, chunk_size=100_000, progress=False)\n"
              f"simulate_to_parquet({str(old)!r}, 200_000_000, seed=3, workers=1, chunk_size=100_000, progress=False)\n")
    from skatsim.runs import TMP_PREFIX

    def temporaries(pid: int) -> list:
        """The temporary files the writer process ``pid`` holds next to ``path``."""
        return [p for p in tmp_path.iterdir() if p.name == f"{TMP_PREFIX}{path.name}.{pid}"]

    def start_and_wait_for_chunks() -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-c", script])
        deadline = time.time() + 120
        while time.time() < deadline and not temporaries(proc.pid):
            time.sleep(0.05)
        assert temporaries(proc.pid), "the writer never opened its temporary file"
        time.sleep(0.5)  # a few chunks written
        return proc

    def stopped(sig: int) -> subprocess.Popen:
        """A writer started, then stopped by ``sig`` once it has written a few chunks."""
        proc = start_and_wait_for_chunks()
        try:
            proc.send_signal(sig)
            proc.wait(60)
        finally:
            if proc.poll() is None:
                proc.kill()
        return proc

    proc = stopped(signal.SIGKILL)
    assert not path.exists()
    assert old.read_bytes() == before
    for p in temporaries(proc.pid):  # a leftover temporary file is not a result file
        with pytest.raises(Exception):
            read_parquet(p)
    # SIGINT (Ctrl-C) in-process cleans up its temporary file
    proc = stopped(signal.SIGINT)
    assert not path.exists()
    assert not temporaries(proc.pid)
    zero = tmp_path / "zero.parquet"
    simulate_to_parquet(zero, 0, seed=1)
    assert len(read_parquet(zero)) == 0 and list(read_parquet(zero).columns) == COLUMNS


def test_read_parquet_refuses_incomplete_files(tmp_path):
    import pyarrow.parquet as pq

    from skatsim.simulate import read_parquet, simulate_to_parquet

    path = tmp_path / "d.parquet"
    summary = simulate_to_parquet(path, 5000, seed=2, chunk_size=2000, workers=1)
    back = read_parquet(path)
    assert summary.n == len(back) == 5000 and back.attrs["n_deals"] == 5000 and back.attrs["seed"] == 2
    t = pq.read_table(path)
    pq.write_table(t.slice(0, 4000), tmp_path / "cut.parquet")  # keeps the metadata, loses rows
    with pytest.raises(ValueError, match="incomplete"):
        read_parquet(tmp_path / "cut.parquet")
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "other.parquet")
    with pytest.raises(ValueError, match="not a skatsim result"):
        read_parquet(tmp_path / "other.parquet")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        simulate_to_parquet(tmp_path / "nope" / "x.parquet", 10, seed=1)


def test_seeds_do_not_alias():
    a = simulate(200, seed=5, workers=1)
    b = simulate(200, seed=-5, workers=1)
    assert not (a["deal_seed"] == b["deal_seed"]).any()
    with pytest.raises(ValueError, match="64 bits"):
        simulate(10, seed=2**64 + 1)
    with pytest.raises(TypeError):
        simulate(10, seed="7")
    with pytest.raises(ValueError, match="start must be"):
        simulate(10, seed=1, start=2**63)
    with pytest.raises(ValueError, match="n_deals"):
        iter_simulate(-1)  # checked at the call, not at the first next()
