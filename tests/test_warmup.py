"""``skatsim warmup`` (what ``setup.sh`` runs): every step runs on two workers and says its time.

After ``setup.sh`` the cache holds every kernel, so this is a run of small engine paths
(about 20 s); on an empty cache it is the whole compilation."""

from __future__ import annotations

import re

import pytest

import skatsim_app.warmup as W
from skatsim_app.warmup import STEPS, warm_up


def test_every_step_runs_once_on_two_workers_and_says_its_time() -> None:
    import skatsim

    # in a process that already ran numba's threads (OpenMP), as a test process has: forked
    # workers could not run the parallel kernels (libgomp stops them), spawned ones can
    skatsim.simulate(64, "random", seed=1, workers=2, progress=False)
    lines: list[str] = []
    total = warm_up(lines.append, workers=2)
    done = [m.group(1) for m in (re.match(rf"  \[\d+/{len(STEPS)}\] (.+): [\d.]+ s$", x) for x in lines) if m]
    assert sorted(done) == sorted(what for what, _ in STEPS)
    assert [int(x[3:x.index("/")]) for x in lines[1:-1]] == list(range(1, len(STEPS) + 1))
    assert lines[-1] == f"kernels ready in {total:.1f} s"


def test_a_failing_step_is_raised_with_its_own_error(monkeypatch) -> None:  # noqa: ANN001
    def broken() -> None:
        raise RuntimeError("the solver is broken")

    monkeypatch.setattr(W, "STEPS", (("the state machine and records", W._state), ("the solver", broken)))
    with pytest.raises(RuntimeError, match="the solver is broken"):
        warm_up(lambda line: None, workers=1)
