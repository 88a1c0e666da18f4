"""Train the DMC player by Deep Monte-Carlo self-play: the command line of :mod:`agents.learn.dmc`
(``skatsim train-dmc`` is the same command; ``--help`` lists the options).

    python experiments/train_dmc.py --config experiments/configs/train_dmc_small.json

The old import path ``experiments.train_dmc`` still reaches the trainer's names (``train``,
``load_config``, ``ship`` ...); new code imports :mod:`agents.learn.dmc`.
"""

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.learn import dmc


def __getattr__(name: str) -> Any:
    return getattr(dmc, name)


if __name__ == "__main__":
    raise SystemExit(dmc.main(prog="train_dmc.py"))
