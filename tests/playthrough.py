"""Golden observation playthroughs (OpenSpiel ``playthroughs/*.txt`` style).

For a few seeded games, every step's observation string and tensor hash of each seat.
``tests/data/playthrough.txt`` freezes the observation layout before a network depends
on it; after a deliberate layout change regenerate it with
``.venv/bin/python tests/playthrough.py > tests/data/playthrough.txt`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skatsim import SkatRules, SkatState  # noqa: E402
from skatsim.actions import PASS, action_to_string  # noqa: E402

#: (deal seed, rules, always pass in the bidding) of each golden game
GAMES = ((1, SkatRules(), False), (2, SkatRules(kontra=True), False), (3, SkatRules(ramsch=True), True),
         (44, SkatRules(ramsch=True, kontra=True), False))


def lines() -> list[str]:
    out = []
    for seed, rules, all_pass in GAMES:
        r = random.Random(seed)
        s = SkatState.new_game(seed=seed, rules=rules)
        out.append(f"game seed={seed} rules={rules.version}")
        step = 0
        while True:
            for p in range(3):
                o = s.observation(p)
                h = hashlib.sha256(o.tensor.tobytes()).hexdigest()[:16]
                out.append(f"  obs {p} {h} {o}")
            if s.is_terminal():
                out.append(f"  end {s.result.summary()}")
                break
            legal = s.legal_actions()
            a = PASS if all_pass and s.phase == "bidding" and PASS in legal else r.choice(legal)
            out.append(f"step {step} seat {s.current_player()} {action_to_string(a)}")
            s.apply_action(a)
            step += 1
    return out


if __name__ == "__main__":
    print("\n".join(lines()))
