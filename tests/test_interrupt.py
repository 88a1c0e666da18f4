"""skatsim.interrupt.ctrl_c: a Ctrl-C that some code drops still stops the job, from Python as
from the CLI (the CLI's own cases are in test_newcomer)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Ctrl-C pressed where it is dropped: in a finalizer (Python reports "Exception ignored" and goes
# on) or in Python code that C code called back and whose error it cleared (NumPy's dtype
# comparison; seen in pandas code under load, where a tournament run from Python then played to
# its end as if nothing had been pressed).
_DROP = textwrap.dedent("""
    import os, signal, sys, time
    import numpy as np
    from skatsim.interrupt import ctrl_c

    class Presses:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)

        @property
        def dtype(self):
            os.kill(os.getpid(), signal.SIGINT)
            return np.dtype("f8")

    def drop(where):
        if where == "finalizer":
            Presses()
        else:
            assert (np.dtype("O") == Presses()) is False  # NumPy cleared the KeyboardInterrupt
""")


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _DROP + textwrap.dedent(code), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("where", ["finalizer", "numpy"])
def test_a_dropped_ctrl_c_is_raised_again_while_the_job_runs_on(where: str) -> None:
    p = _run("""
        t0 = time.monotonic()
        try:
            with ctrl_c():
                drop(sys.argv[1])
                time.sleep(600)  # the job goes on as if nothing had been pressed
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - t0:.1f} s", file=sys.stderr)
    """, where)
    assert p.returncode == 0 and p.stdout == "", p
    assert p.stderr.startswith("interrupted after ") and float(p.stderr.split()[2]) < 5, p.stderr


@pytest.mark.parametrize("where", ["finalizer", "numpy"])
def test_a_job_that_ends_right_after_a_dropped_ctrl_c_does_not_return_as_finished(where: str) -> None:
    p = _run("""
        try:
            with ctrl_c():
                drop(sys.argv[1])
                print("the job's last line")
            print("returned as finished")
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
    """, where)
    assert (p.returncode, p.stdout, p.stderr) == (0, "the job's last line\n", "interrupted\n")


def test_a_ctrl_c_handled_by_the_caller_is_not_raised_again() -> None:
    p = _run("""
        try:
            with ctrl_c():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(600)
        except KeyboardInterrupt:
            print("interrupted")
        time.sleep(1.5)  # three times the re-delivery period: nothing arrives
        print("calm")
    """)
    assert (p.returncode, p.stdout, p.stderr) == (0, "interrupted\ncalm\n", "")


def test_a_tournament_run_from_python_stops_at_a_dropped_ctrl_c(tmp_path: Path) -> None:
    """The library's run loops (tournaments, simulations, labels) re-raise a dropped Ctrl-C as
    the CLI does: the agent presses it in a finalizer, then waits for an hour."""
    out = tmp_path / "run"
    code = textwrap.dedent(f"""
        import sys, time
        from agents.arena.tournament import run_tournament
        t0 = time.monotonic()
        try:
            run_tournament(["my_agents:CtrlCInFinalizer", "random"], 2, seed=3, out={str(out)!r}, workers=1,
                           progress=False)
        except KeyboardInterrupt:
            print(f"interrupted after {{time.monotonic() - t0:.1f}} s", file=sys.stderr)
    """)
    # unstopped, the agent's wait would end only at its decision's backstop (10 x 30 s + 1 s)
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=240,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])})
    assert p.returncode == 0 and p.stderr.startswith("interrupted after "), p
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
