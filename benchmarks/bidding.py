"""Bidding benchmark: label generation (labelled hands/s per core) and batched inference of
the bidding network (hands/s on CPU, feature encoding included and excluded).

    .venv/bin/python benchmarks/bidding.py [--deals 20] [--solver-deals 2] [--hands 200000] [--out PATH]

One process, one core for labelling (compile excluded: one deal is labelled first);
inference with torch on ``--threads`` threads (default 1). Prints a table and appends
one JSON line to ``./runs/benchmarks/bidding.jsonl`` (or ``--out``).
Target: inference >= 100,000 hands/s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))  # _env (after the package: benchmarks/agents.py)

import _env  # noqa: E402


def bench_labels(labeler: str, deals: int, worlds: int) -> dict:
    from agents.learn.bidding_data import LabelConfig, label_deal

    cfg = LabelConfig(n_deals=deals + 1, seed=123, worlds=worlds, labeler=labeler)
    label_deal(0, cfg)  # compile
    from skatsim.solver import Solver

    solver = Solver(tt_bits=cfg.tt_bits) if labeler == "solver" else None
    t = time.perf_counter()
    n = 0
    for i in range(1, deals + 1):
        n += len(label_deal(i, cfg, solver))
    dt = time.perf_counter() - t
    return {"labeler": labeler, "worlds": worlds, "hands": n, "seconds": dt, "hands_per_s_core": n / dt,
            "solves_or_playouts_per_s": n * worlds * 12 / dt}


def bench_inference(hands: int, threads: int, model: str | None) -> dict:
    import torch

    from agents.players.neural_bidding import encode_features, load_model

    torch.set_num_threads(threads)
    m = load_model(model)
    g = np.random.default_rng(0)
    masks = np.array([sum(1 << int(c) for c in g.choice(32, 10, replace=False)) for _ in range(4096)], np.int64)
    masks = np.resize(masks, hands)
    seats = np.arange(hands) % 3
    x = encode_features(masks[:1000], seats[:1000])
    m.predict(x)  # warm up
    t = time.perf_counter()
    x = encode_features(masks, seats)
    t_enc = time.perf_counter() - t
    t = time.perf_counter()
    p, e = m.predict(x)
    t_net = time.perf_counter() - t
    return {"hands": hands, "threads": threads, "encode_s": t_enc, "net_s": t_net,
            "net_hands_per_s": hands / t_net, "total_hands_per_s": hands / (t_enc + t_net),
            "params": int(sum(v.numel() for v in m.net.parameters()))}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20, help="deals labelled by rule-based play-outs (3 hands each)")
    ap.add_argument("--solver-deals", type=int, default=2, help="deals labelled by the solver (0: skip)")
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--hands", type=int, default=200_000, help="hands for the inference benchmark")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--model", default=None, help="checkpoint (default: the shipped model)")
    _env.add_output_args(ap, "bidding")
    a = ap.parse_args(argv)
    rows = [bench_labels("rule_based", a.deals, a.worlds)]
    if a.solver_deals:
        rows.append(bench_labels("solver", a.solver_deals, a.worlds))
    inf = bench_inference(a.hands, a.threads, a.model)
    print(f"{'labeler':<11} {'worlds':>6} {'hands':>6} {'hands/s/core':>13} {'play-outs or solves/s':>22}")
    for r in rows:
        print(f"{r['labeler']:<11} {r['worlds']:>6} {r['hands']:>6} {r['hands_per_s_core']:>13.1f} "
              f"{r['solves_or_playouts_per_s']:>22.0f}")
    print(f"inference ({inf['params']} parameters, {inf['threads']} thread(s), {inf['hands']} hands): "
          f"network {inf['net_hands_per_s']:,.0f} hands/s, with feature encoding "
          f"{inf['total_hands_per_s']:,.0f} hands/s (target >= 100,000)")
    rec = {"benchmark": "bidding", "time": _env.now_utc(), "cpu": _env.cpu_model(), "commit": _env.git_commit(),
           "versions": _env.versions(), "config": vars(a), "labels": rows, "inference": inf,
           "targets": {"inference_hands_per_s": 100_000}}
    out = _env.output_path(a, "bidding")
    if out is not None:
        _env.append_jsonl(out, rec)
    return rec


if __name__ == "__main__":
    main()
