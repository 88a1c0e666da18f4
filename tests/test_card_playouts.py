"""Play-outs by the card network: the batched kernel against the agent, and the labels built on them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.learn.bidding_data import (CONTRACT_GAME, CONTRACT_HAND, CONTRACTS, DISTILLED_LABEL_MODEL, _RB_PARAMS,
                                       LabelConfig, _start_world, config_hash, generate, label_deal, label_hand,
                                       main, read_labels, sample_worlds_for_hand)
from agents.players.card_playouts import play_out
from agents.players.distilled import card_network as _model
from agents.players.distilled import DistilledAgent
from skatsim.cards import card_points
from skatsim.deal import deal
from skatsim.kernels import game as G
from skatsim.observation import build_observation
from skatsim.rules import CLUBS, GRAND, NULL, SPADES


def _agent_game(st: np.ndarray, agent: DistilledAgent) -> np.ndarray:
    """The plain reference: the agent's ``act`` on each mover's observation (built from the
    kernel state and the cards played, as the vectorised environment builds it), one card at
    a time."""
    st = st.copy()
    acts: list[int] = []
    players: list[int] = []
    while st[G.F_PHASE] == G.PH_PLAY:
        p = int(st[G.F_PLAYER])
        agent.reset(0, p, 1)
        a = agent.act(build_observation(st, p, acts, players, [G.PH_PLAY] * len(acts)))
        acts.append(a)
        players.append(p)
        G.apply_card(st, a)
    return st


def _starts(n_deals: int) -> np.ndarray:
    out = []
    for seed in range(n_deals):
        h = np.array([deal(100 + seed).masks()], np.int64)
        for seat, game, hand in ((0, GRAND, True), (1, CLUBS, False), (2, NULL, False), (0, SPADES, True)):
            st = np.zeros(G.N_FIELDS, np.int64)
            _start_world(st, h, 0, seat, game, hand, _RB_PARAMS)
            out.append(st)
    return np.array(out)


def test_a_batched_play_out_is_the_agent_s_game_card_by_card() -> None:
    """Suit, grand and null games, pickups and hand games, every seat declaring: the final
    states of one lockstep batch equal the agent's games played one decision at a time."""
    model = _model("distilled_v2")
    starts = _starts(8)
    end = play_out(starts, model)
    agent = DistilledAgent(model)
    for k in range(len(starts)):
        assert (end[k] == _agent_game(starts[k], agent)).all(), k
    assert (end[:, G.F_PHASE] != G.PH_PLAY).all() and (starts[:, G.F_PHASE] == G.PH_PLAY).all()  # a copy
    # another network plays other cards somewhere (it is the network that decides)
    other = play_out(starts, _model("distilled_v1"))
    assert (other[:, G.F_PLAYED0:G.F_PLAYED0 + 3] != end[:, G.F_PLAYED0:G.F_PLAYED0 + 3]).any()


def test_play_out_refuses_what_it_cannot_play() -> None:
    model = _model("distilled_v2")
    with pytest.raises(ValueError, match="kernel states"):
        play_out(np.zeros((2, 3), np.int64), model)
    st = _starts(1)[:1]
    G.apply_card(st[0], int(np.flatnonzero([(st[0, G.F_HAND0] >> c) & 1 for c in range(32)])[0]))
    with pytest.raises(ValueError, match="give their history"):
        play_out(st, model)
    with pytest.raises(ValueError, match="does not match the states"):
        play_out(st, model, history=(np.zeros((1, 30), np.int64), np.zeros((1, 30), np.int64), np.zeros(1, np.int64)))
    assert play_out(np.zeros((0, G.N_FIELDS), np.int64), model).shape == (0, G.N_FIELDS)


def _code(game: int, points: int, tricks: int) -> int:
    """The ``res_<c>`` outcome code, written out from the rules (the module docstring's table)."""
    if game == NULL:
        return int(tricks == 0)
    if points >= 61:
        return 3 if tricks == 10 else 2 if points >= 90 else 1
    return -1 if points <= 30 else 0


def test_distilled_labels_are_the_agent_s_outcomes() -> None:
    """``labeler="distilled"``: each contract's per-world outcome is that of the agent playing the
    world's contract in every seat (the reference above); p is their win rate."""
    hand = deal(3).masks()[1]
    worlds = sample_worlds_for_hand(hand, 1, 2, np.random.default_rng(8))
    cfg = LabelConfig(n_deals=1, worlds=2, labeler="distilled")
    row = label_hand(hand, 1, worlds, cfg)
    agent = DistilledAgent(_model(DISTILLED_LABEL_MODEL))
    for c, g, hg in zip(CONTRACTS, CONTRACT_GAME, CONTRACT_HAND):
        want = []
        for w in range(2):
            st = np.zeros(G.N_FIELDS, np.int64)
            _start_world(st, worlds, w, 1, g, hg, _RB_PARAMS)
            end = _agent_game(st, agent)
            want.append(_code(g, int(end[G.F_POINTS0 + 1]) + card_points(int(end[G.F_SKAT])),
                              int(end[G.F_TRICKS0 + 1])))
        assert row[f"res_{c}"] == want, c
        assert row[f"p_{c}"] == np.mean([x >= 1 for x in want]) and row[f"n_{c}"] == 2


def test_the_distilled_labeler_s_config_names_its_network(tmp_path) -> None:
    cfg = LabelConfig(n_deals=2, seed=4, worlds=2, labeler="distilled", condition="auction", shard_size=1)
    assert cfg.card_model == "distilled_v2" and cfg.to_dict()["card_model"] == "distilled_v2"
    assert LabelConfig.from_dict(cfg.to_dict()) == cfg
    v1 = LabelConfig(n_deals=2, seed=4, worlds=2, labeler="distilled", condition="auction", card_model="distilled_v1")
    assert config_hash(v1) != config_hash(cfg) and label_deal(1, v1) != label_deal(1, cfg)
    assert all(r["source"] == "distilled" for r in label_deal(1, cfg))
    with pytest.raises(ValueError, match="card network of labeler='distilled'"):
        LabelConfig(labeler="rule_based", card_model="distilled_v1")
    # generated, resumed and by the command line: the same rows, the network in the manifest
    generate(tmp_path / "a", cfg, progress=False, workers=1)
    assert main(["--out", str(tmp_path / "b"), "--deals", "2", "--seed", "4", "--worlds", "2", "--labeler", "distilled",
                 "--condition", "auction", "--shard-size", "1", "--no-progress"]) == 0
    assert read_labels(tmp_path / "a").equals(read_labels(tmp_path / "b"))
    man = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert man["config"]["card_model"] == "distilled_v2" and man["rows"] == 6


def test_a_game_under_way_plays_on_as_the_agent_plays_it() -> None:
    """``history``: states taken in the middle of the agent's games (after 7 and 16 cards) and
    the cards played so far end as the agent's whole games do."""
    model = _model("distilled_v2")
    agent = DistilledAgent(model)
    starts = _starts(3)
    for cut in (7, 16):
        mids, seqs, whos, ntok, want = [], [], [], [], []
        for st0 in starts:
            st = st0.copy()
            acts: list[int] = []
            players: list[int] = []
            while st[G.F_PHASE] == G.PH_PLAY and len(acts) < cut:
                p = int(st[G.F_PLAYER])
                agent.reset(0, p, 1)
                a = agent.act(build_observation(st, p, acts, players, [G.PH_PLAY] * len(acts)))
                acts.append(a)
                players.append(p)
                G.apply_card(st, a)
            if st[G.F_PHASE] != G.PH_PLAY:
                continue  # a null game already over
            mids.append(st)
            seqs.append(acts + [0] * (30 - len(acts)))
            whos.append(players + [0] * (30 - len(players)))
            ntok.append(len(acts))
            want.append(_agent_game(st0, agent))
        end = play_out(np.array(mids), model, history=(np.array(seqs), np.array(whos), np.array(ntok)))
        assert len(end) >= 8 and all((e == w).all() for e, w in zip(end, want))


def test_the_rollout_agent_s_worlds_and_values() -> None:
    """``world_states`` of the true world is the true state (but the dealt hands, which no
    rollout reads); each card's value with that one world is whether the agent's own game
    from there reaches the mover's side's goal."""
    from agents.players.rollout import RolloutAgent, world_states
    from skatsim import SkatState

    s = SkatState.new_game(seed=22, declare=(1, "S"))  # a position whose cards win and lose
    agent = DistilledAgent(_model("distilled_v2"))
    for _ in range(5):  # a few cards in
        p = s.current_player()
        agent.reset(0, p, 1)
        s.apply_action(agent.act(s.observation(p)))
    p = s.current_player()
    obs = s.observation(p)
    true = np.array([[s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), int(s.vector[G.F_SKAT])]], np.int64)
    st = world_states(obs, true)[0]
    dealt = [G.F_DEALT0, G.F_DEALT1, G.F_DEALT2, G.F_DEALT_SKAT]
    keep = np.ones(G.N_FIELDS, bool)
    keep[dealt] = False
    assert (st[keep] == s.vector[:G.N_FIELDS][keep]).all()
    r = RolloutAgent(worlds=1)
    r.reset(0, p, 1)
    import agents.players.rollout as mod

    orig = mod.sample_worlds
    mod.sample_worlds = lambda info, n, gen: true  # type: ignore[assignment]
    try:
        wins, points = r._values(obs, obs.legal_actions)
    finally:
        mod.sample_worlds = orig  # type: ignore[assignment]
    for c, w, pts in zip(obs.legal_actions, wins, points):
        one = st.copy()
        G.apply_card(one, c)
        seq, who = [int(x) for x in obs_seq(obs)[0]] + [c], obs_seq(obs)[1] + [p]
        end = play_out(one[None, :], _model("distilled_v2"),
                       history=(np.array([seq + [0] * (30 - len(seq))]), np.array([who + [0] * (30 - len(who))]),
                                np.array([len(seq)])))[0]
        decl_pts = int(end[G.F_POINTS0 + 1]) + card_points(int(end[G.F_SKAT]))
        declarer_won = decl_pts >= 61
        assert w == float(declarer_won == (p == 1)) and pts == (decl_pts if p == 1 else 120 - decl_pts)
    assert sorted(wins) == [0.0, 0.0, 1.0]  # one card wins the game for the mover's side here, two lose it
    # asking for the values does not move the sampler: act plays the card the values chose
    r = RolloutAgent(worlds=8)
    r.reset(0, p, 5)
    av = r.action_values(obs)
    assert av is not None and av.chosen == r.act(obs) and set(av.values) == set(obs.legal_actions)


def obs_seq(obs):  # noqa: ANN001, ANN201
    from agents.players.distilled import played_sequence

    return played_sequence(obs)
