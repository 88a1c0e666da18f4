"""The one tournament engine (every game through skatsim.vec.VecEnv, agents.arena.vecplay) gives the
same tables as the two engines before it (compiled games in batch simulation, the others
through the Python table): digests of their games tables, taken before the switch, are kept
in tests/data/tournament_golden.json (the measured decision times excluded)."""

from __future__ import annotations

import hashlib
import json

import pytest

from agents.arena.tournament import run_tournament
from skatsim import SkatRules


def _digest(df) -> str:  # noqa: ANN001
    cols = [c for c in df.columns if not c.startswith("time_") and c != "traceback"]
    h = hashlib.sha256()
    for c in cols:
        h.update(c.encode())
        h.update(str(df[c].astype(str).tolist()).encode())
    return h.hexdigest()


GOLDEN = json.loads((__import__("pathlib").Path(__file__).parent / "data" / "tournament_golden.json").read_text())


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_table_is_the_one_of_the_two_engines_before(name: str) -> None:
    case = GOLDEN[name]
    r = run_tournament(case["agents"], case["n_deals"], case["seed"], rules=SkatRules(**case["rules"]),
                       progress=False, workers=1)
    assert len(r.games) == case["rows"] and int(r.games["sf_0"].sum()) == case["sf_0_sum"]
    assert _digest(r.games) == case["digest"]
