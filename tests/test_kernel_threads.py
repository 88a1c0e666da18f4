"""Parallel kernels after a fork (skatsim.kernels.threads): a worker forked from a process
whose torch ran OpenMP threads must not hang in its first numba parallel region."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import os, sys, time
    from agents import make_agent
    from agents.arena.play import Table
    from skatsim import SkatState
    from skatsim.kernels.threads import parallel_unsafe
    make_agent("distilled")  # loads a network: torch's OpenMP threads run in this process
    pid = os.fork()
    if pid == 0:  # a game of neural bidders (numba parallel kernels), as a forked worker plays it
        s = SkatState.new_game(seed=1)
        Table(["neural_bidder"] * 3, s, 1).run()
        os._exit(0 if parallel_unsafe() else 3)
    for _ in range(1200):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            sys.exit(os.waitstatus_to_exitcode(status))
        time.sleep(0.1)
    os.kill(pid, 9)
    sys.exit(4)  # the child hung
""")


def test_a_worker_forked_after_torch_s_threads_plays_with_the_serial_kernels() -> None:
    r = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, f"exit {r.returncode} (3: the parallel kernels were used, 4: the child hung)\n{r.stderr}"
