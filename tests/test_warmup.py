"""``skatsim warmup`` (what ``setup.sh`` runs): every step runs, in two lanes, and says its time.

After ``setup.sh`` the cache holds every kernel, so this is a run of small engine paths
(about 20 s); on an empty cache it is the whole compilation."""

from __future__ import annotations

import re

from skatsim_app.warmup import STEPS, warm_up


def test_every_step_runs_in_two_lanes_and_says_its_time() -> None:
    lines: list[str] = []
    total = warm_up(lines.append, workers=2)
    done = [m.group(1) for m in (re.match(r"  \[\d+/\d+\] (.+): [\d.]+ s$", x) for x in lines) if m]
    assert sorted(done) == sorted(what for what, _, _ in STEPS)
    assert {lane for _, _, lane in STEPS} == {0, 1}
    assert lines[-1] == f"kernels ready in {total:.1f} s"
