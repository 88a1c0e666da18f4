"""Train the bidding network on simulated labels: the command line of :mod:`agents.learn.bidding`
(``skatsim train-bidding`` is the same command; ``--help`` lists the options).

    python experiments/train_bidding.py --config experiments/configs/train_bidding.json

The old import path ``experiments.train_bidding`` still reaches the trainer's names (``train``,
``load_config``, ``ship`` ...); new code imports :mod:`agents.learn.bidding`.
"""

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.learn import bidding


def __getattr__(name: str) -> Any:
    return getattr(bidding, name)


if __name__ == "__main__":
    raise SystemExit(bidding.main(prog="train_bidding.py"))
