"""The bidding network: features, checkpoints, the agent, and a training smoke run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.players.neural_bidding import (CONTEXT, FEATURE_LAYOUT, N_CONTRACTS, N_FEATURES, BiddingNet, CheckpointError,
                                   NeuralBidderAgent, contract_scores, default_model_path,
                                   encode_features, load_model, save_checkpoint)
from agents.learn.bidding_data import CONTRACTS, LabelConfig, generate
from skatsim.cards import CardSet
from skatsim.scoring import matadors_of

SHIPPED = Path(str(default_model_path()) + ".pt").exists()


def _hands(n, seed=0):
    g = np.random.default_rng(seed)
    return np.array([sum(1 << int(c) for c in g.choice(32, 10, replace=False)) for _ in range(n)], np.int64)


def test_layout_and_card_bits():
    assert N_FEATURES == sum(n for _, n in FEATURE_LAYOUT) == 57
    h = CardSet("CJ SJ HJ DJ CA CT CK CQ C9 C8").mask
    x = encode_features([h], [2])
    assert x.shape == (1, N_FEATURES) and x.dtype == np.float32
    assert x[0, :32].sum() == 10 and all(x[0, c] == 1 for c in range(32) if (h >> c) & 1)
    assert list(x[0, 32:35]) == [0, 0, 1]
    assert (x[0, CONTEXT] == 0).all()


def test_the_oracle_matadors_match_scoring():
    hands = _hands(300)
    bits = ((hands[:, None] >> np.arange(32)) & 1)
    for g in range(5):
        ours = _run_matadors(bits, g)  # the oracle below agrees with the one matadors truth
        ref = [abs(int(matadors_of(int(h), g))) for h in hands]
        assert ours.tolist() == ref


def _tiny(tmp_path, hidden=(16,)):
    torch.manual_seed(0)
    net = BiddingNet(hidden)
    pt, js = save_checkpoint(net, tmp_path / "tiny", data_hash="x")
    return net, pt, js


def test_checkpoint_round_trip_and_numpy_forward(tmp_path):
    net, pt, js = _tiny(tmp_path)
    m = load_model(js)
    assert load_model(pt) is m  # cached by path
    x = encode_features(_hands(50), np.arange(50) % 3)
    p, e = m.predict(x)
    pn, en = m.predict_np(x)
    assert p.shape == (50, N_CONTRACTS) and np.allclose(p, pn, atol=1e-5) and np.allclose(e, en, atol=1e-3)
    meta = json.loads(js.read_text())
    assert meta["contracts"] == list(CONTRACTS) and meta["layout_version"] == 1 and meta["data_hash"] == "x"


def test_checkpoint_with_other_layout_is_refused(tmp_path):
    _, pt, js = _tiny(tmp_path)
    meta = json.loads(js.read_text())
    meta["feature_layout"] = meta["feature_layout"][:-1]
    bad = tmp_path / "bad"
    (tmp_path / "bad.json").write_text(json.dumps(meta))
    (tmp_path / "bad.pt").write_bytes(pt.read_bytes())
    with pytest.raises(CheckpointError, match="does not match this code's bidding features: feature_layout"):
        load_model(bad)
    meta = json.loads(js.read_text())
    meta["hidden"] = [32]
    (tmp_path / "bad2.json").write_text(json.dumps(meta))
    (tmp_path / "bad2.pt").write_bytes(pt.read_bytes())
    with pytest.raises(CheckpointError, match="does not fit its config"):
        load_model(tmp_path / "bad2")
    with pytest.raises(FileNotFoundError, match="missing"):
        load_model(tmp_path / "nothing")


def test_contract_scores_overbid_and_null():
    h = CardSet("CJ SJ HJ DJ CA CT CK CQ C9 C8").mask
    p = np.full(N_CONTRACTS, 0.9)
    s18 = contract_scores(p, h, 18, 40.0)
    s264 = contract_scores(p, h, 264, 40.0)
    assert np.isfinite(s18).all()
    assert s264[CONTRACTS.index("N")] == -np.inf and s264[CONTRACTS.index("NH")] == -np.inf
    # with 4 jacks and C A 10 K Q 9 8: clubs hand is worth at least 12 x (10 + 2) = 144
    ch = CONTRACTS.index("CH")
    assert s18[ch] == pytest.approx(0.9 * (12 * 12 + 50) - 0.1 * (2 * 144 + 50 + 80), abs=0.1 * 12 * 2 * 3 + 30)
    assert s264[ch] == pytest.approx(-(2 * 264 + 50 + 80))  # overbid whatever the skat


def test_agent_api_with_a_random_net(tmp_path):
    from agents.arena.testing import agent_api_test

    _, _, js = _tiny(tmp_path)
    r = agent_api_test(lambda: NeuralBidderAgent(model=str(js), aggressiveness=400.0), n_deals=10, hidden_deals=2)
    assert r["phases"]["declare"] > 0 and r["phases"]["discard"] > 0


@pytest.mark.skipif(not SHIPPED, reason="no shipped model yet")
def test_shipped_model_agent_api_and_judgement():
    from agents.arena.testing import agent_api_test
    from skatsim import SkatState
    from skatsim.deal import deal_from_hands

    r = agent_api_test(NeuralBidderAgent, n_deals=12, hidden_deals=3)
    assert r["phases"]["bidding"] > 0
    ag = NeuralBidderAgent()
    strong = CardSet("CJ SJ HJ DJ CA CT CK CQ C9 C8").mask
    weak = CardSet("D7 D8 H7 H9 S8 SQ C7 CK DQ H8").mask
    for hand, lo, hi in ((strong, 100, 264), (weak, 0, 0)):
        rest = [c for c in range(32) if not (hand >> c) & 1]
        d = deal_from_hands(sum(1 << c for c in rest[:10]), hand, sum(1 << c for c in rest[10:20]),
                            sum(1 << c for c in rest[20:]))
        s = SkatState.new_game(deal=d)
        assert lo <= ag.max_bid(s.observation(1)) <= hi


def test_training_smoke(tmp_path):
    from agents.learn.bidding import load_config, train

    cfg_l = LabelConfig(n_deals=30, seed=3, worlds=4, labeler="rule_based", shard_size=10)
    generate(tmp_path / "labels", cfg_l, progress=False)
    cfg = load_config(None, [f'data.dirs=["{tmp_path / "labels"}"]', f'out.runs_dir="{tmp_path / "runs"}"',
                             "train.max_epochs=2", "model.hidden=[16]", "train.threads=1"])
    cfg["out"]["runs_dir"] = str(tmp_path / "runs")
    m = train(cfg, progress=False)
    run = Path(m["run_dir"])
    for f in ("manifest.json", "metrics.json", "history.csv", "calibration.csv", "calibration.png", "model.pt",
              "model.json", "checkpoint.pt"):
        assert (run / f).exists(), f
    assert m["rows"] == 90 and m["val_rows"] > 0 and 0 < m["val_log_loss"] < 1.5
    assert sum(r["n"] for r in m["calibration"]) == m["val_rows"] * N_CONTRACTS
    load_model(run / "model")


def test_training_resumes_and_ships_only_when_asked(tmp_path, monkeypatch):
    """An interrupted training goes on from its last epoch to the same network; the shipped
    model is untouched unless --ship NAME, which refuses an existing name without --force."""
    import json

    import torch

    import agents.learn.bidding as tb
    import agents.learn.runs

    generate(tmp_path / "labels", LabelConfig(n_deals=30, seed=3, worlds=4, labeler="rule_based", shard_size=10),
             progress=False)
    sets = [f'data.dirs=["{tmp_path / "labels"}"]', f'out.runs_dir="{tmp_path / "runs"}"', "train.max_epochs=3",
            "train.patience=9", "model.hidden=[16]", "train.threads=1"]
    full = tb.train(tb.load_config(None, sets), progress=False)
    # the same training interrupted after its second epoch, then resumed
    calls = {"n": 0}
    real = tb.log_loss

    def stop_after_two(*a, **k):  # noqa: ANN002, ANN003
        calls["n"] += 1
        if calls["n"] == 3:  # the third epoch's validation
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(tb, "log_loss", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        tb.train(tb.load_config(None, sets), progress=False)
    monkeypatch.setattr(tb, "log_loss", real)
    runs = sorted((tmp_path / "runs").iterdir())
    part = next(r for r in runs if not (r / "metrics.json").exists())
    resumed = tb.main(["--resume", str(part), "--no-progress"])
    assert resumed == 0
    a = torch.load(Path(full["run_dir"]) / "model.pt", weights_only=True)
    b = torch.load(part / "model.pt", weights_only=True)
    assert all(torch.equal(a[k], b[k]) for k in a)  # the same network as without the interruption
    shipped = agents.learn.runs.MODELS / "bidding_v2.pt"
    stamp = shipped.stat().st_mtime_ns
    with pytest.raises(FileExistsError, match="--force"):
        tb.main(["--resume", str(part), "--ship", "bidding_v2"])
    assert shipped.stat().st_mtime_ns == stamp
    monkeypatch.setattr(agents.learn.runs, "MODELS", tmp_path / "models")
    (tmp_path / "models").mkdir()
    assert tb.main(["--resume", str(part), "--ship", "mine"]) == 0
    assert json.loads((tmp_path / "models" / "mine.json").read_text())["format"]


def test_compiled_encoder_equals_numpy_reference():

    hands = _hands(500, seed=4)
    seats = np.arange(500) % 3
    assert np.array_equal(encode_features(hands, seats), encode_features_np(hands, seats))


def test_pickup_value_is_the_mean_best_game_over_the_skats(tmp_path):
    """With every skat sampled, the pickup value is, per skat, the best game after its
    discard plan (kept ten valued by the hand-game heads at the bid), averaged: a plain
    re-computation; and a "bid_level" checkpoint sees only the bid in its bidding block."""
    import itertools

    from agents.players.neural_bidding import bid_context
    from skatsim import SkatState
    from agents.learn.bidding_data import discard_for
    from skatsim.contracts import BASE_VALUES, NULL_VALUES

    torch.manual_seed(1)
    net = BiddingNet((16,))
    _, js = save_checkpoint(net, tmp_path / "bl", data_hash="x", context="bid_level")
    ag = NeuralBidderAgent(model=str(js), skats=231)
    assert ag.by_bid
    s = SkatState.new_game(seed=21)
    obs = s.observation(1)
    assert np.array_equal(ag.context(obs, 30), bid_context(30)) and bid_context(30)[0] == pytest.approx(30 / 264)
    hand, seat, bid, pen = obs.hand.mask, 1, 20, ag.loss_penalty
    m = load_model(js)
    unseen = [c for c in range(32) if not (hand >> c) & 1]
    total = 0.0
    for a, b in itertools.combinations(unseen, 2):
        twelve = hand | (1 << a) | (1 << b)
        best = -np.inf
        for g in range(6):
            kept = twelve & ~discard_for(twelve, g)
            p = float(m.predict_np(encode_features([kept], [seat], bid_context(bid)[None]))[0][0, 6 + g])
            if g == 5:
                v = NULL_VALUES[0]
                if v < bid:
                    continue
            else:
                v = BASE_VALUES[g] * (abs(int(matadors_of(twelve, g))) + 1)
            if v < bid:
                charged = BASE_VALUES[g] * -(-bid // BASE_VALUES[g])
                sc = -(2 * charged + 50 + 2 * pen)
            else:
                sc = p * (v + 50) - (1 - p) * (2 * v + 50 + 2 * pen)
            best = max(best, sc)
        total += best
    assert ag.pickup_value(obs, bid) == pytest.approx(total / 231, rel=1e-4, abs=1e-3)
    assert ag.value(obs, bid) >= ag.pickup_value(obs, bid)
    with pytest.raises(ValueError, match="skats"):
        NeuralBidderAgent(model=str(js), skats=0)


def test_training_on_auction_conditioned_labels_marks_the_checkpoint(tmp_path):
    from agents.learn.bidding import arrays, load_config, train, _read

    cfg_l = LabelConfig(n_deals=12, seed=3, worlds=3, labeler="rule_based", condition="auction", shard_size=6)
    generate(tmp_path / "labels", cfg_l, progress=False)
    df = _read([str(tmp_path / "labels")])
    x = arrays(df)[0]
    assert np.allclose(x[:, CONTEXT][:, 0], df["bid_level"].to_numpy() / 264.0) and (x[:, CONTEXT][:, 1:] == 0).all()
    cfg = load_config(None, [f'data.dirs=["{tmp_path / "labels"}"]', "train.max_epochs=1", "model.hidden=[8]",
                             "train.threads=1", "train.context_augment=0.5"])
    cfg["out"]["runs_dir"] = str(tmp_path / "runs")
    m = train(cfg, progress=False)
    assert load_model(Path(m["run_dir"]) / "model").meta["context"] == "bid_level"


# The plain-numpy oracle of the compiled feature encoder (a deliberate twin: written
# independently, matadors by a run-length count, so the kernel is checked against it).
_BIT = np.arange(32, dtype=np.int64)
_JACK_BITS = np.array([7, 15, 23, 31])


def _run_matadors(bits: np.ndarray, game: int) -> np.ndarray:
    order = [31, 23, 15, 7]  # CJ SJ HJ DJ, then A 10 K Q 9 8 7 of the suit
    if game < 4:
        order += [8 * game + r for r in (6, 5, 4, 3, 2, 1, 0)]
    seq = bits[:, order].astype(bool)
    return np.cumprod(seq == seq[:, :1], axis=1).sum(axis=1)


def encode_features_np(hands, seats) -> np.ndarray:  # noqa: ANN001
    from skatsim.cards import CARD_POINTS
    from agents.players.neural_bidding import N_FEATURES, _OFF

    h = np.asarray(hands, dtype=np.int64).reshape(-1)
    s = np.asarray(seats, dtype=np.int64).reshape(-1)
    n = h.shape[0]
    out = np.zeros((n, N_FEATURES), np.float32)
    bits = ((h[:, None] >> _BIT) & 1).astype(np.float32)
    out[:, 0:32] = bits
    out[np.arange(n), _OFF["seat"] + s] = 1.0
    plain = bits.copy()
    plain[:, _JACK_BITS] = 0
    suit = plain.reshape(n, 4, 8).sum(axis=2)
    jacks = bits[:, _JACK_BITS].sum(axis=1)
    o = _OFF["suit_len"]
    out[:, o:o + 4] = suit / 7.0
    out[:, _OFF["trumps"]:_OFF["trumps"] + 4] = (suit + jacks[:, None]) / 11.0
    out[:, _OFF["jacks"]] = jacks / 4.0
    for g in range(5):
        out[:, _OFF["matadors"] + g] = _run_matadors(bits, g) / 11.0
    out[:, _OFF["aces_tens"]] = bits[:, [6, 14, 22, 30]].sum(axis=1) / 4.0
    out[:, _OFF["aces_tens"] + 1] = bits[:, [5, 13, 21, 29]].sum(axis=1) / 4.0
    out[:, _OFF["points"]] = bits @ np.array(CARD_POINTS, dtype=np.float32) / 60.0
    return out
