"""Build and execute the notebooks from their cell sources (so the saved notebooks show
their outputs and plots): ``.venv/bin/python notebooks/_make.py [name ...]``."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent

TOUR = [
    ("md", """# A tour of the skatsim engine

Deal, play through the state API, look at what a seat may know, solve a position open-handed,
and simulate a million deals. Everything here runs on the public `skatsim` API."""),
    ("code", """import numpy as np
import skatsim
from skatsim import SkatState, deal, simulate, summarize, to_play
from skatsim.solver import solve, target_for
print(skatsim.__version__)"""),
    ("md", "## A deal and the state API (OpenSpiel names)"),
    ("code", """d = deal(7)
print(d)
s = SkatState.new_game(seed=7)
print(s.current_player(), s.phase, [s.action_to_string(a) for a in s.legal_actions()[:6]])"""),
    ("md", "Put the deal into the card play with forehand declaring grand hand, then play the lowest legal card each time:"),
    ("code", """s = to_play(7, 0, "GH")
while not s.is_terminal():
    s.apply_action(s.legal_actions()[0])
print(s.result.summary())
print("returns (Seeger-Fabian):", s.returns(), " list:", s.returns("list"), " zero-sum:", s.returns("zero_sum"))"""),
    ("md", "## What a seat may know\n\nThe observation holds typed fields, the masked state vector (`view`) and the flat tensor:"),
    ("code", """s = to_play(7, 0, "GH")
for _ in range(5):
    s.apply_action(s.legal_actions()[0])
o = s.observation(1)
print(o)
print(o.tensor.shape, int(o.legal_mask.sum()), "legal actions")"""),
    ("md", "## Open-hand solver"),
    ("code", """s = to_play(2, 0, "CH")
r = solve(s, mode="exact", move_values=True)
print(r)
print("goal of CHS:", target_for("CHS"), "->", solve(s, mode="threshold", threshold=target_for("CHS")).declarer_wins)"""),
    ("md", "## Batch simulation\n\nHalf a million random deals on all cores, then a summary per contract:"),
    ("code", """import time
simulate(1000, seed=0, policy="rule_based", progress=False)  # compile (or load the cache) outside the timing
t = time.perf_counter()
df = simulate(500_000, seed=1, progress=False)
print(f"{len(df) / (time.perf_counter() - t):,.0f} deals/s")
summarize(df).table().sort_values("count", ascending=False).head(8)"""),
    ("code", """import matplotlib.pyplot as plt
rb = simulate(100_000, policy="rule_based", seed=1, progress=False)
played = rb[rb["declarer"] >= 0]
ax = played.groupby("contract", observed=True)["won"].agg(["mean", "size"]).query("size > 300")["mean"].plot.bar(
    title="rule-based self-play: declarer win rate by contract", ylim=(0, 1))
ax.set_ylabel("win rate"); plt.tight_layout(); plt.show()"""),
]

TOURNAMENT = [
    ("md", """# Tournament analysis

A duplicate tournament (every deal under all 6 seat arrangements, common random numbers), its
per-agent Seeger-Fabian points with 95% confidence intervals on the paired boards, and the
declarer rate and win rate by contract."""),
    ("code", """import matplotlib.pyplot as plt
import numpy as np
from agents import run_tournament
res = run_tournament(["rule_based", "rule_based:random_cards=1", "random"], n_deals=500, seed=1, progress=False)
print(res)"""),
    ("code", """s = res.summary()
fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(s.index, s["sf_per_game"], xerr=s["sf_per_game_ci"], capsize=4)
ax.set_xlabel("Seeger-Fabian points per game (95% CI)"); plt.tight_layout(); plt.show()
s[["games", "declarer_rate", "declarer_win_rate", "sf_per_game", "sf_per_game_ci"]]"""),
    ("md", "One row per game; the per-seat columns give one row per (game, seat) with `long_by_seat`:"),
    ("code", """from skatsim.table import long_by_seat
long = long_by_seat(res.games, extra=("agent",))
decl = long[long["is_declarer"]]
by = decl.groupby(["agent", "contract"], observed=True)["won"].agg(["size", "mean"]).rename(columns={"size": "games", "mean": "win_rate"})
top = by[by["games"] >= 40]
top"""),
    ("code", """rate = long.groupby("agent")["is_declarer"].mean()
fig, axes = plt.subplots(1, 2, figsize=(9, 3))
rate.plot.bar(ax=axes[0], title="declarer rate")
top["win_rate"].unstack(0).plot.bar(ax=axes[1], title="declarer win rate by contract", ylim=(0, 1))
plt.tight_layout(); plt.show()"""),
]

CALIBRATION = [
    ("md", """# Bidding-network calibration

The shipped bidding network (`agents/models/bidding_v2`) predicts, for the ten dealt cards, the
seat and a bid level, each contract's win probability if the seat wins the auction at that bid.
Here it is checked on fresh hands (a seed the training data did not use), labelled the way the
training data was (rule-based play-outs of every contract over worlds in which rule-based
opponents let the seat win at the row's bid level): a reliability table and plot over every
(hand, contract)."""),
    ("code", """import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from agents.players.neural_bidding import bid_context, encode_features, load_model
from agents.learn.bidding_data import CONTRACTS, LabelConfig, label_deal
model = load_model()
print(model.meta.get("layout_version"), model.meta.get("context"), model.meta.get("data_hash"))"""),
    ("code", """cfg = LabelConfig(n_deals=300, seed=12345, worlds=16, labeler="rule_based", condition="auction")
rows = [r for i in range(cfg.n_deals) for r in label_deal(i, cfg)]
labels = pd.DataFrame(rows)
ctx = np.stack([bid_context(int(b)) for b in labels["bid_level"]])
x = encode_features(labels["hand"].to_numpy(np.int64), labels["seat"].to_numpy(np.int64), ctx)
p_pred, e_pred = model.predict(x)
p_true = labels[[f"p_{c}" for c in CONTRACTS]].to_numpy()
print(len(labels), "hands;", p_pred.shape[1], "contracts")"""),
    ("code", """edges = np.linspace(0, 1, 11)
b = np.clip(np.digitize(p_pred.ravel(), edges) - 1, 0, 9)
table = pd.DataFrame({"bin": b, "predicted": p_pred.ravel(), "observed": p_true.ravel()}).groupby("bin").agg(
    n=("predicted", "size"), predicted=("predicted", "mean"), observed=("observed", "mean"))
table.index = [f"{edges[i]:.1f}-{edges[i + 1]:.1f}" for i in table.index]
ece = float((table["n"] * (table["predicted"] - table["observed"]).abs()).sum() / table["n"].sum())
print(f"expected calibration error {ece:.4f}")
table.round(3)"""),
    ("code", """fig, ax = plt.subplots(figsize=(4, 4))
ax.plot([0, 1], [0, 1], "k:", lw=1)
ax.plot(table["predicted"], table["observed"], "o-")
ax.set_xlabel("predicted win probability"); ax.set_ylabel("label (play-outs)")
ax.set_title("bidding_v2 on fresh hands"); plt.tight_layout(); plt.show()"""),
]

NOTEBOOKS = {"engine_tour": TOUR, "tournament_analysis": TOURNAMENT, "bidding_calibration": CALIBRATION}


def build(name: str, cells: list[tuple[str, str]]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "md" else nbformat.v4.new_code_cell(src)
                for kind, src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}).execute()
    path = HERE / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def main(argv: list[str]) -> int:
    names = argv or list(NOTEBOOKS)
    for n in names:
        print("built", build(n, NOTEBOOKS[n]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
