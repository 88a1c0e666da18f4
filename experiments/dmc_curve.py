"""The learning curve of a chain of DMC trainings (a run and the runs that went on from its model).

    python experiments/dmc_curve.py RUN [RUN ...] --out docs/images/dmc_learning_curve.png

Each run's ``log.parquet`` (``skatsim train-dmc``, :mod:`agents.learn.dmc`) gives its
evaluations (duplicate margin vs the evaluation opponent with the 95% interval, and where the
points go: the declarer's and the defenders' margin on same-contract deals, when the log has
them); a later run's frames
are counted on from the earlier run's last frame (its ``model.init`` is the earlier model).
Prints the evaluations as a markdown table and writes the plot.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def chain(runs: Sequence[str | Path]):  # noqa: ANN201 - a DataFrame
    import pandas as pd

    rows, offset = [], 0
    for k, r in enumerate(runs):
        log = pd.read_parquet(Path(r) / "log.parquet")
        ev = log[log["eval_margin"].notna()].copy()
        if k:  # the first evaluation of a run that goes on is the last one of the run before
            ev = ev[ev["frames"] > 0]
        ev["total_frames"] = ev["frames"] + offset
        ev["run"] = Path(r).name
        rows.append(ev)
        offset += int(log["frames"].max())
    return pd.concat(rows, ignore_index=True)


def plot(ev, path: Path, title: str) -> None:  # noqa: ANN001
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.2))
    x = ev["total_frames"] / 1e6
    ax.errorbar(x, ev["eval_margin"], yerr=ev["eval_margin_ci"], marker="o", capsize=3, label="margin (all games)")
    for col, lab in (("eval_declarer_margin", "as declarer (same contract)"),
                     ("eval_defender_margin", "as defenders (same contract)")):
        if col in ev and ev[col].notna().any():
            ax.errorbar(x, ev[col], yerr=ev.get(col + "_ci"), marker=".", capsize=2, alpha=0.7, label=lab)
    starts = ev.groupby("run", sort=False)["total_frames"].min().iloc[1:] / 1e6
    for s in starts:
        ax.axvline(s, color="grey", ls=":", lw=1)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("training frames (millions)")
    ax.set_ylabel("duplicate margin vs rule_based (SF/game)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="training run directories, in training order")
    ap.add_argument("--out", default="dmc_learning_curve.png", help="the plot (PNG)")
    ap.add_argument("--title", default="DMC card play: duplicate margin vs rule_based during training")
    a = ap.parse_args(argv)
    for r in a.runs:
        if not (Path(r) / "log.parquet").is_file():
            print(f"dmc_curve.py: error: {r} holds no log.parquet", file=sys.stderr)
            return 2
    ev = chain(a.runs)
    plot(ev, Path(a.out), a.title)
    cols = ["run", "total_frames", "eval_margin", "eval_margin_ci", "eval_declarer_margin", "eval_defender_margin",
            "eval_same_contract_share"]
    print("| run | frames | margin vs rule_based | as declarer | as defenders | same-contract deals |")
    print("|---|---:|---:|---:|---:|---:|")
    for _, r in ev.reindex(columns=cols).iterrows():
        def f(v, fmt="+.1f"):  # noqa: ANN001, ANN202
            return "—" if v != v else format(v, fmt)
        print(f"| {r['run']} | {int(r['total_frames']):,} | {r['eval_margin']:+.2f} ± {r['eval_margin_ci']:.2f} | "
              f"{f(r['eval_declarer_margin'])} | {f(r['eval_defender_margin'])} | "
              f"{f(r['eval_same_contract_share'], '.0%')} |")
    print(f"plot: {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
