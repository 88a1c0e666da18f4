"""Bidding labels: exact per-world outcomes, seeds, resumable shards, derived values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skatsim.runs import RunDir
from agents.learn.bidding_data import (CONTRACTS, LabelConfig, _rb_playouts, _RB_PARAMS, contract_value, discard_for,
                                  expected_at_bid, generate, label_deal, read_labels, sample_worlds_for_hand)
from skatsim.bits import popcount
from skatsim.cards import CardSet
from skatsim.rules import CLUBS, GRAND, NULL
from skatsim.solver import Position, Solver
from skatsim.state import SkatState

FAST = LabelConfig(n_deals=6, seed=11, worlds=3, labeler="rule_based", shard_size=2)


def test_worlds_partition_the_unseen_cards():
    hand = CardSet("CJ SJ HJ DJ CA CT CK CQ C9 C8").mask
    w = sample_worlds_for_hand(hand, 1, 50, np.random.default_rng(0))
    for h0, h1, h2, sk in w.tolist():
        assert h1 == hand
        assert [popcount(h0), popcount(h2), popcount(sk)] == [10, 10, 2]
        assert h0 | h1 | h2 | sk == 0xFFFFFFFF and h0 & h2 == 0 and (h0 | h2) & sk == 0


def test_rows_depend_only_on_seed_and_index():
    a = label_deal(4, FAST)
    b = label_deal(4, LabelConfig(n_deals=99, seed=11, worlds=3, labeler="rule_based", shard_size=7))
    assert a == b
    assert a != label_deal(4, LabelConfig(n_deals=6, seed=12, worlds=3, labeler="rule_based"))


def test_rule_based_playout_equals_the_state_machine():
    """A labelled play-out is the game SkatState plays with rule-based agents in every seat."""
    from agents import RuleBasedAgent

    for seed in range(4):
        s = SkatState.new_game(seed=seed)
        h = [s.hand_mask(q) for q in range(3)]
        sk = s.skat_mask()
        world = np.array([[h[0], h[1], h[2], sk]], np.int64)
        pts, trk = np.zeros(1, np.int64), np.zeros(1, np.int64)
        _rb_playouts(world, 0, GRAND, True, _RB_PARAMS, pts, trk)
        # the same hand grand by forehand through the state machine
        for a in ("18", "yes", "pass", "pass", "hand", "GH"):
            s.apply_action(s.string_to_action(a))
        agents = [RuleBasedAgent() for _ in range(3)]
        while not s.is_terminal():
            p = s.current_player()
            s.apply_action(agents[p].act(s.observation(p)))
        r = s.result
        assert r.declarer_points == pts[0] and r.declarer_tricks == trk[0]


def test_solver_labels_agree_with_direct_solves():
    cfg = LabelConfig(n_deals=1, seed=5, worlds=4, labeler="solver", min_worlds=0)
    row = label_deal(0, cfg)[0]
    from skatsim.deal import deal
    from skatsim.bits import derive_seed

    ds = derive_seed(5, 0)
    hand = deal(ds).masks()[0]
    w = sample_worlds_for_hand(hand, 0, 4, np.random.default_rng([ds, 0]))
    solver = Solver(tt_bits=16)
    for i, (h0, h1, h2, sk) in enumerate(w.tolist()):
        won = solver.solve(Position((h0, h1, h2), sk, CLUBS, 0), mode="threshold", threshold=61).declarer_wins
        assert (row["res_CH"][i] >= 1) == won
        twelve = h0 | sk
        d = discard_for(twelve, NULL)
        won = solver.solve(Position((twelve & ~d, h1, h2), d, NULL, 0), mode="threshold", threshold="null").declarer_wins
        assert row["res_N"][i] == int(won)


def test_summaries_and_values():
    row = label_deal(1, FAST)[2]
    for c in CONTRACTS:
        res = np.array(row[f"res_{c}"])
        assert row[f"n_{c}"] == len(res) == 3
        assert row[f"p_{c}"] == pytest.approx((res >= 1).mean())
        assert row[f"e_sf_{c}"] == pytest.approx(row[f"e_list_{c}"] + 50 * (2 * row[f"p_{c}"] - 1))
        # at the lowest bid nothing is overbid: the derived score is the stored one
        assert expected_at_bid(row, c, 18) == pytest.approx(row[f"e_sf_{c}"], abs=1e-4)
    assert contract_value(CLUBS, True, 2) == 48 and contract_value(GRAND, False, 1) == 48
    assert contract_value(NULL, True, 0) == 35
    # an impossible bid: every world is an overbid, lost at the bid rounded up to the base
    assert expected_at_bid(row, "GH", 264) == pytest.approx(-2 * 264 - 50)
    assert expected_at_bid(row, "CH", 264) == pytest.approx(-2 * 264 - 50)


def test_discard_never_trumps_and_keeps_ten():
    twelve = CardSet("CJ SJ HJ CA CT CK CQ C9 SA ST D7 H8").mask
    d = discard_for(twelve, CLUBS)
    assert popcount(d) == 2 and d & twelve == d
    assert not d & CardSet("CJ SJ HJ CA CT CK CQ C9").mask


def test_generate_resumes_and_refuses_other_config(tmp_path):
    out = tmp_path / "labels"
    generate(out, FAST, progress=False)
    df = read_labels(out)
    assert len(df) == 18 and list(df["seat"][:3]) == [0, 1, 2] and set(df["source"]) == {"rule_based"}
    man = json.loads((out / "manifest.json").read_text())
    assert man["status"] == "complete" and man["rows"] == 18 and man["config"]["seed"] == 11
    # lose a shard: resuming rewrites exactly it, the table is unchanged
    run = RunDir.open(out)
    run.shard_path(2, 4).unlink()
    stamp = run.shard_path(0, 2).stat().st_mtime_ns
    generate(out, FAST, progress=False)
    assert run.shard_path(0, 2).stat().st_mtime_ns == stamp
    assert read_labels(out).equals(df)
    with pytest.raises(ValueError, match="another config"):
        generate(out, LabelConfig(n_deals=6, seed=12, worlds=3, labeler="rule_based", shard_size=2), progress=False)


def test_two_workers_same_table(tmp_path):
    generate(tmp_path / "a", FAST, progress=False, workers=1)
    generate(tmp_path / "b", FAST, progress=False, workers=2)
    assert read_labels(tmp_path / "a").equals(read_labels(tmp_path / "b"))


def test_bad_config():
    with pytest.raises(ValueError, match="labeler"):
        LabelConfig(labeler="oracle")
    with pytest.raises(ValueError, match="seats"):
        LabelConfig(seats=(3,))


def test_auction_worlds_let_the_seat_win_at_the_level():
    """Every kept world: the rule-based limits of the other seats let ``seat`` win at the
    bid (an earlier seat holds at equal values, a later one must go above); the worlds
    partition the unseen cards like uniform ones, and conditioning weakens the opponents."""
    from agents.learn.bidding_data import auction_worlds
    from skatsim.kernels.heuristic import bid_limit

    hand = CardSet("CJ HJ CA CT C9 SA ST H8 D7 D8").mask
    for seat in range(3):
        for bid in (18, 30):
            w, draws = auction_worlds(hand, seat, 40, bid, np.random.default_rng(seat * 100 + bid))
            assert len(w) == 40 and draws >= 40
            for row in w.tolist():
                assert row[seat] == hand and row[0] | row[1] | row[2] | row[3] == 0xFFFFFFFF
                for o in range(3):
                    if o != seat:
                        lim = bid_limit(row[o], o, _RB_PARAMS)
                        assert lim <= bid if seat < o else lim < bid
    # at 18 from rearhand both others pass: fewer jacks than in uniform worlds
    w, _ = auction_worlds(hand, 2, 300, 18, np.random.default_rng(1))
    u = sample_worlds_for_hand(hand, 2, 300, np.random.default_rng(1))
    jacks = 0x80808080
    assert np.mean([popcount(r[0] & jacks) for r in w.tolist()]) < np.mean([popcount(r[0] & jacks) for r in u.tolist()])


def test_auction_condition_rows_carry_their_level():
    from agents.learn.bidding_data import BID_LEVELS

    cfg = LabelConfig(n_deals=4, seed=2, worlds=4, labeler="rule_based", condition="auction")
    rows = [r for i in range(4) for r in label_deal(i, cfg)]
    assert all(r["bid_level"] in BID_LEVELS and r["n_worlds"] >= 1 for r in rows)
    assert all(r["bid_level"] == 0 for r in label_deal(0, FAST))
    with pytest.raises(ValueError, match="condition"):
        LabelConfig(condition="iss")


def test_the_auction_condition_agrees_with_the_state_machine():
    """``_wins_auction`` restates who wins a bidding between threshold bidders; check it
    against real auctions: rule-based opponents, and a seat that bids or holds up to ``b``."""
    from agents import RuleBasedAgent
    from skatsim.actions import BID_BASE, HOLD, PASS
    from agents.learn.bidding_data import _wins_auction
    from skatsim.contracts import BID_VALUES
    from skatsim.kernels.heuristic import bid_limit

    gen = np.random.default_rng(3)
    checked = 0
    for seed in range(300):
        s = SkatState.new_game(seed=seed)
        seat, b = int(gen.integers(3)), int(gen.choice([18, 20, 23, 30, 36, 48]))
        others = ((seat + 1) % 3, (seat + 2) % 3)
        lims = tuple(int(bid_limit(s.hand_mask(o), o, _RB_PARAMS)) for o in others)
        rb = {o: RuleBasedAgent() for o in others}
        while s.phase == "bidding":
            p = s.current_player()
            if p != seat:
                s.apply_action(rb[p].act(s.observation(p)))
                continue
            legal = s.legal_actions()
            bids = [a for a in legal if BID_BASE <= a < PASS and BID_VALUES[a - BID_BASE] <= b]
            hold = HOLD in legal and s.observation(p).bid <= b
            s.apply_action(min(bids) if bids else (HOLD if hold else PASS))
        won = s.phase != "done" and s.observation(seat).declarer == seat
        assert won == _wins_auction(seat, lims, others, b), (seed, seat, b, lims)
        checked += won
    assert checked > 50


# ----------------------------------------------------------------------------- a pool of opponent bidders


def _rows_digest(cfg: LabelConfig, deals: int) -> str:
    import hashlib

    rows = [r for i in range(deals) for r in label_deal(i, cfg)]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]


def test_default_opponents_keep_the_rows_and_hashes():
    """Without ``opponents`` the rows and config hashes are those of the code before the
    field (digests pinned from it): the shipped bidding_v2 config keeps its hash."""
    from agents.learn.bidding_data import config_hash

    cfg = LabelConfig(n_deals=3, seed=3, worlds=4, labeler="rule_based", condition="auction")
    assert cfg.opponents == () and "opponents" not in cfg.to_dict()
    assert _rows_digest(cfg, 3) == "e59c75be345cb62e"
    v2 = LabelConfig.from_dict({"n_deals": 60000, "seed": 0, "worlds": 16, "labeler": "rule_based",
                                "condition": "auction", "shard_size": 1000})
    assert config_hash(v2) == "376150eb58b3c829"
    assert config_hash(LabelConfig(n_deals=5, seed=3, worlds=4, labeler="rule_based")) == "eac3c5391631e2ce"


def test_pool_worlds_let_the_seat_win_against_the_drawn_bidders():
    """Every kept world satisfies the auction rule for the two bidders drawn for it (rows of
    :func:`opponent_params`); both members are drawn; a cautious bidder lets the seat win
    more often than an aggressive one, so it is kept more often."""
    from agents.learn.bidding_data import _auction_worlds, opponent_params
    from skatsim.kernels.heuristic import bid_limit, params_array

    pool = opponent_params([0.45, 0.75])
    assert np.array_equal(pool[1], params_array(bid_threshold=0.75)) and not pool.flags.writeable
    hand = CardSet("CJ HJ CA CT C9 SA ST H8 D7 D8").mask
    counts = np.zeros(2, np.int64)
    for seat in range(3):
        for bid in (18, 30):
            w, draws, who = _auction_worlds(hand, seat, 60, bid, np.random.default_rng(seat * 100 + bid), 20, pool)
            assert len(w) == len(who) == 60 and draws >= 60
            others = ((seat + 1) % 3, (seat + 2) % 3)
            for row, pick in zip(w.tolist(), who.tolist()):
                assert row[seat] == hand and row[0] | row[1] | row[2] | row[3] == 0xFFFFFFFF
                for o, i in zip(others, pick):
                    lim = bid_limit(row[o], o, pool[i])
                    assert lim <= bid if seat < o else lim < bid
                    counts[i] += 1
    assert counts[1] > counts[0] > 0


def test_pool_rows_are_reproducible_and_differ_from_the_default():
    from agents.learn.bidding_data import config_hash

    cfg = LabelConfig(n_deals=3, seed=3, worlds=4, labeler="rule_based", condition="auction",
                      opponents=(0.45, 0.6, 0.75))
    same = LabelConfig(n_deals=50, seed=3, worlds=4, labeler="rule_based", condition="auction",
                       opponents=[0.45, 0.6, 0.75], shard_size=7)  # type: ignore[arg-type]
    assert same.opponents == (0.45, 0.6, 0.75)
    assert label_deal(2, cfg) == label_deal(2, same)
    assert _rows_digest(cfg, 3) != "e59c75be345cb62e"
    assert cfg.to_dict()["opponents"] == [0.45, 0.6, 0.75] and LabelConfig.from_dict(cfg.to_dict()) == cfg
    assert config_hash(cfg) != config_hash(LabelConfig(n_deals=3, seed=3, worlds=4, labeler="rule_based",
                                                       condition="auction"))


def test_pool_generate_and_cli(tmp_path):
    """Shards and workers do not change pool rows; ``--opponents`` reaches the manifest; the
    shipped pool training config is a valid label config."""
    from agents.learn.bidding_data import main
    from pathlib import Path

    cfg = LabelConfig(n_deals=4, seed=5, worlds=3, labeler="rule_based", condition="auction",
                      opponents=(0.45, 0.75), shard_size=2)
    generate(tmp_path / "a", cfg, progress=False, workers=1)
    generate(tmp_path / "b", LabelConfig.from_dict({**cfg.to_dict(), "shard_size": 3}), progress=False, workers=2)
    assert read_labels(tmp_path / "a").equals(read_labels(tmp_path / "b"))
    assert main(["--out", str(tmp_path / "c"), "--deals", "2", "--worlds", "2", "--labeler", "rule_based",
                 "--condition", "auction", "--opponents", "0.45,0.75", "--no-progress"]) == 0
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["config"]["opponents"] == [0.45, 0.75]
    path = Path(__file__).resolve().parents[1] / "experiments" / "configs" / "train_bidding_pool.json"
    pool_cfg = LabelConfig.from_dict(json.loads(path.read_text())["data"]["generate"])
    assert pool_cfg.condition == "auction" and pool_cfg.opponents == (0.45, 0.6, 0.75)


def test_bad_opponents():
    with pytest.raises(ValueError, match="condition"):
        LabelConfig(labeler="rule_based", opponents=(0.5,))
    for bad in ((1.5,), ("x",), (True,)):
        with pytest.raises(ValueError, match="opponents"):
            LabelConfig(labeler="rule_based", condition="auction", opponents=bad)  # type: ignore[arg-type]
    with pytest.raises(SystemExit):
        from agents.learn.bidding_data import main

        main(["--out", "unused", "--opponents", "0.4,abc"])
