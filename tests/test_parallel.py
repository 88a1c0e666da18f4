"""skatsim.parallel.map_chunks: results, early stops and Ctrl-C at the worst moment."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skatsim.parallel import map_chunks

ROOT = Path(__file__).resolve().parents[1]


def test_every_chunk_is_yielded_once_whatever_the_worker_count() -> None:
    args = [(i, 2) for i in range(7)]
    keys = [f"k{i}" for i in range(7)]
    assert list(map_chunks(pow, args, keys, workers=1)) == [(f"k{i}", i * i) for i in range(7)]
    assert sorted(map_chunks(pow, args, keys, workers=2)) == [(f"k{i}", i * i) for i in range(7)]


# A SIGINT delivered right after the first fork returns in the parent: before the pool has noted
# the new worker. Unguarded, that worker was never stopped and kept the caller's pipes open (CI
# saw `skatsim tournament` with workers hang past its Ctrl-C once in this way).
_RACE = textwrap.dedent("""
    import os, signal, sys, time
    from skatsim.parallel import map_chunks

    def job(i):
        time.sleep(120)
        return i

    fired = []

    def interrupt_after_the_first_fork():
        if not fired:
            fired.append(1)
            os.kill(os.getpid(), signal.SIGINT)

    os.register_at_fork(after_in_parent=interrupt_after_the_first_fork)
    try:
        for k, r in map_chunks(job, [(i,) for i in range(4)], list(range(4)), workers=2):
            print(k, r)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
""")


def test_ctrl_c_while_the_workers_start_stops_every_worker() -> None:
    proc = subprocess.run([sys.executable, "-c", _RACE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "interrupted\n")


def test_an_error_in_a_chunk_reaches_the_caller() -> None:
    with pytest.raises(ZeroDivisionError):
        list(map_chunks(divmod, [(1, 1), (1, 0), (2, 1)], ["a", "b", "c"], workers=2))


_AFTER_A_PARALLEL_REGION = '''
from numba import njit, prange

from skatsim.parallel import map_chunks


@njit(parallel=True)
def total(n):
    s = 0.0
    for i in prange(n):
        s += i
    return s


def torch_sum(n):
    import torch

    return float(torch.ones(n).clone().sum())


if __name__ == "__main__":
    total(1000)  # the parent runs a numba parallel region (the neural bidder does)
    print(sorted(map_chunks(torch_sum, [(1 << 20,), (1 << 21,)], [0, 1], workers=2)))
'''


def test_workers_started_after_a_parallel_region_run_torch(tmp_path: Path) -> None:
    """A worker forked after the parent's numba parallel region (OpenMP) hung at its first
    parallel tensor operation: the workers are spawned then, and finish."""
    script = tmp_path / "after_parallel_region.py"
    script.write_text(_AFTER_A_PARALLEL_REGION)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[(0, 1048576.0), (1, 2097152.0)]"
