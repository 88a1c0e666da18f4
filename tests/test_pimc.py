"""PIMC agent: worlds never contradict the observation, the true world gives a solver-optimal
move, the enumeration is exact, and decisions use the observation only."""

from __future__ import annotations

import random

import numpy as np
import pytest

import agents.players.pimc as pimc_mod
from agents.players.pimc import PIMCAgent, enumerate_worlds
from agents.players.rule_based import RuleBasedAgent
from skatsim import SkatRules
from skatsim.state import random_game as play_random_game
from skatsim.infostate import InfoState, count_worlds, sample_worlds
from skatsim.solver import solve, target_for
from skatsim.state import to_play


def _play_prefix(seed: int, contract: str, declarer: int, moves: int):
    s = to_play(seed, declarer, contract)
    r = random.Random(seed)
    for _ in range(moves):
        if s.is_terminal():
            break
        s.apply_action(r.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("seed", range(12))
def test_with_the_true_world_as_only_sample_pimc_plays_a_solver_optimal_card(seed, monkeypatch):
    contract = ["C", "G", "SH", "N", "GHS", "D"][seed % 6]
    moves = random.Random(seed).randrange(0, 24)
    s = _play_prefix(seed, contract, seed % 3, moves)
    while len(s.legal_actions()) < 2:  # a forced card or the end: a shorter prefix of the same game
        moves -= 1  # (the first lead has ten cards)
        s = _play_prefix(seed, contract, seed % 3, moves)
    p = s.current_player()
    true = np.array([[s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), s.skat_mask()]], dtype=np.int64)
    monkeypatch.setattr(pimc_mod, "sample_worlds", lambda info, n, rng: true)
    agent = PIMCAgent(worlds=1, enumerate=False, exact_tricks=0)
    agent.reset(0, p, 1)
    card = agent.act(s.observation(p))
    goal = target_for(s.contract)
    sol = solve(s, mode="threshold", threshold=goal, move_values=True)
    mover_decl = p == s.declarer
    best = max((v if mover_decl else 1 - v) for v in sol.move_values.values())
    assert (sol.move_values[card] if mover_decl else 1 - sol.move_values[card]) == best


def _in_play(deal: int, rules: SkatRules, r: random.Random):
    """A random game stopped before a card drawn at random from its play (the first deal from
    ``deal`` on that is played, not passed in)."""
    for d in range(deal, deal + 1000, 97):
        cards = [i for i, (_, _, ph) in enumerate(play_random_game(d, rules).phase_history()) if ph == "play"]
        if cards:
            return play_random_game(d, rules, max_moves=r.choice(cards))
    raise AssertionError(f"no deal from {deal} on is played")


@pytest.mark.parametrize("seed", range(40))
def test_sampled_and_enumerated_worlds_never_contradict_the_observation(seed):
    rules = SkatRules(kontra=seed % 2 == 0)
    s = _in_play(3000 + seed, rules, random.Random(seed))
    assert s.phase == "play" and s.contract is not None
    for p in range(3):
        info = InfoState.from_observation(s.observation(p))
        for w in sample_worlds(info, 20, seed):
            assert info.consistent(w)
        assert info.consistent([s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), s.skat_mask()])
        n = count_worlds(info)
        if n <= 300:
            every = enumerate_worlds(info, 300)
            assert len(every) == n == len({tuple(r) for r in every.tolist()})
            assert all(info.consistent(w) for w in every)
            truth = (s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), s.skat_mask())
            assert truth in {tuple(r) for r in every.tolist()}


def test_decisions_are_deterministic_and_logged():
    s = to_play(11, 1, "H")
    a = PIMCAgent(worlds=8, log=True)
    b = PIMCAgent(worlds=8, log=True)
    for agent in (a, b):
        agent.reset(5, 0, 777)
    o = s.observation(0)
    assert a.act(o) == b.act(o) and a.act(o) in s.legal_actions()
    d = a.decisions[0]
    assert d["worlds"] == 8 and set(d["wins"]) == set(s.legal_actions()) and d["seconds"] > 0


def test_delegates_every_phase_but_card_play_to_the_rule_based_player():
    s = play_random_game(5, max_moves=0)
    a, rb = PIMCAgent(worlds=4), RuleBasedAgent()
    a.reset(0, 1, 99)
    rb.reset(0, 1, 99)
    o = s.observation(1)
    assert a.act(o) == rb.act(o)


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="worlds"):
        PIMCAgent(worlds=0)
    with pytest.raises(ValueError, match="rule"):
        PIMCAgent(rule="vote")
    with pytest.raises(ValueError, match="unknown rule_based parameter"):
        PIMCAgent(nope=1)


def test_simulation_bidding_bids_strong_hands_and_passes_weak_ones():
    from agents.players.pimc_bidding import SimulationBidder, best_discard
    from skatsim import SkatState, deal_from_hands
    from skatsim.cards import CardSet
    from skatsim.rules import CLUBS, GRAND, TRUMP_MASKS

    strong = "CJ SJ HJ DJ CA C10 CK CQ SA HA"
    weak = "C7 C8 S9 SQ H8 HQ HK D7 D9 DK"
    rest = [c for c in CardSet("CJ").__class__.from_mask(0xFFFF_FFFF) if c not in CardSet(strong) | CardSet(weak)]
    from skatsim.cards import card_name
    d = deal_from_hands(weak, strong, " ".join(card_name(c) for c in rest[:10]),
                        " ".join(card_name(c) for c in rest[10:]))
    b = SimulationBidder(RuleBasedAgent(), worlds=4)
    b.reset(0, 1, 5)
    assert b.max_bid(CardSet(strong).mask, 1) >= 48      # grand with 4: 5 x 24 = 120 at least pays 48
    b.reset(0, 0, 5)
    assert b.max_bid(CardSet(weak).mask, 0) == 0
    s = SkatState.new_game(deal=d)
    agent = PIMCAgent(worlds=4, bidding="simulation", bid_worlds=4)
    agent.reset(0, 1, 5)
    assert agent.act(s.observation(1)) != s.string_to_action("pass")   # middlehand bids
    for game in (CLUBS, GRAND):
        twelve = CardSet(strong).mask | CardSet("D7 H8").mask
        disc = best_discard(twelve, game)
        assert bin(disc).count("1") == 2 and disc & twelve == disc and not disc & TRUMP_MASKS[game]


def test_inference_gives_the_true_world_full_weight_against_rule_based_bidders():
    """Against rule-based opponents the true deal explains every call (weight 1); random
    worlds explain fewer on average."""
    from agents import play_game
    from agents.players.pimc_inference import public_actions, weigh_worlds
    from skatsim.kernels.heuristic import DEFAULT_PARAMS

    params = np.zeros(32)
    params[:len(DEFAULT_PARAMS)] = DEFAULT_PARAMS
    checked = 0
    for seed in range(40):
        s = play_game([RuleBasedAgent(), RuleBasedAgent(), RuleBasedAgent()], seed=seed)
        moves = s.history()
        # back to the first card of the play
        first = next((i for i, (p, a, ph) in enumerate(s.phase_history()) if ph == "play"), None)
        if first is None or s.contract is None:
            continue
        t = type(s).new_game(seed=s.seed)
        for a in moves[:first]:
            t.apply_action(a)
        for p in range(3):
            o = t.observation(p)
            assert len(public_actions(o)) == first
            true = np.array([[t.hand_mask(0), t.hand_mask(1), t.hand_mask(2), t.skat_mask()]])
            wt = weigh_worlds(o, true, params, 0.1)[0]
            if p == t.declarer or not t.skat_picked_up:
                assert wt == 1.0  # every call of the others is explained exactly
            else:
                assert 0.0 < wt <= 1.0
            info = InfoState.from_observation(o)
            w = weigh_worlds(o, sample_worlds(info, 64, seed), params, 0.1)
            assert ((w >= 0) & (w <= 1)).all()
            checked += w.mean() < wt
    assert checked > 10


def test_pimc_with_inference_plays_legal_cards():
    from agents import play_game

    s = play_game([PIMCAgent(worlds=8, inference=True), RuleBasedAgent(), RuleBasedAgent()], seed=12)
    assert s.is_terminal()


def test_node_budget_drops_worlds_and_falls_back_on_the_rule_based_card():
    s = to_play(3, 0, "G")
    o = s.observation(0)
    tiny = PIMCAgent(worlds=8, node_limit=1, log=True, enumerate=False)
    rb = RuleBasedAgent()
    for a in (tiny, rb):
        a.reset(0, 0, 42)
    assert tiny.act(o) == rb.act(o)          # every world over budget: the rule-based card
    free = PIMCAgent(worlds=8, node_limit=0, log=True, enumerate=False)
    free.reset(0, 0, 42)
    free.act(o)
    assert free.decisions[0]["dropped"] == 0
    with pytest.raises(ValueError, match="node_limit"):
        PIMCAgent(node_limit=-1)


def test_a_node_budget_solves_worlds_in_batches_of_8_until_it_is_spent():
    """``node_budget``: at least one batch of 8; more where worlds are cheap (late in the hand)
    than where they are dear (the first trick); a budget never spent is no budget (the same
    worlds, card and values); the same seed gives the same decision."""
    from agents import make_agent

    def decide(s, **kw):
        p = s.current_player()
        a = PIMCAgent(worlds=32, log=True, enumerate=False, **kw)
        a.reset(0, p, 42)
        card = a.act(s.observation(p))
        return card, {k: v for k, v in a.decisions[0].items() if k != "seconds"}

    first = to_play(3, 0, "G")
    late = next(s for s in (_play_prefix(3, "G", 0, m) for m in range(21, 30)) if len(s.legal_actions()) > 1)
    assert decide(first, node_budget=2000)[1]["worlds"] == 8
    assert decide(late, node_budget=2000)[1]["worlds"] == 32
    assert decide(first, node_budget=1)[1]["worlds"] == 8
    assert decide(first, node_budget=1) == decide(first, node_budget=1)
    card, rec = decide(first, node_budget=10**12, node_limit=0)  # no world dropped: the table's
    card0, rec0 = decide(first, node_limit=0)                     # contents change a world's node count
    assert (card, rec["worlds"], rec["wins"]) == (card0, 32, rec0["wins"])
    with pytest.raises(ValueError, match="node_budget must be a non-negative int"):
        PIMCAgent(node_budget=-1)
    with pytest.raises(ValueError, match="node_budget"):
        make_agent("pimc:node_budget=-5")


def test_bid_worlds_sets_the_simulation_bidders_sample():
    assert PIMCAgent(worlds=32, bidding="simulation", bid_worlds=12)._sim_bidder.worlds == 12
    assert PIMCAgent(worlds=16, bidding="simulation")._sim_bidder.worlds == 16
    with pytest.raises(ValueError, match="bid_worlds"):
        PIMCAgent(bidding="simulation", bid_worlds=0)


def _card_play_prefix(seed: int, cards: int):
    """A rule-based game of ``seed`` replayed up to ``cards`` cards into its card play, with
    every card decision made with a choice so far: (seat, that seat's view, card, cards before)."""
    from agents import play_game

    s = play_game([RuleBasedAgent(), RuleBasedAgent(), RuleBasedAgent()], seed=seed)
    if s.contract is None or s.game_type is None or s.game_type > 5:
        return None
    moves = s.history()
    first = next(i for i, (_, _, ph) in enumerate(s.phase_history()) if ph == "play")
    t = type(s).new_game(seed=s.seed)
    seen = []
    for i, a in enumerate(moves[:first + cards]):
        p = t.current_player()
        if i >= first and len(t.legal_actions()) > 1:
            seen.append((p, t.observation(p).view.copy(), a, i - first))
        t.apply_action(a)
    return t, seen


@pytest.mark.parametrize("cards", [4, 17])
def test_card_positions_replay_the_other_seats_views_at_their_card_choices(cards):
    """In the true world the compiled replay records exactly the other seats' card decisions
    with a choice, each with the view that seat had, the card and the rule-based card (the
    same card: every seat here is the rule-based player)."""
    from agents.players.pimc_inference import replay_card_positions
    from skatsim.kernels import game as G

    params = np.array(RuleBasedAgent().param_row, dtype=np.float64)  # writable, as the agent passes it: one signature
    checked = 0
    for seed in range(25):
        got = _card_play_prefix(seed, cards)
        if got is None:
            continue
        t, seen = got
        me = t.current_player()
        o = t.observation(me)
        true = np.array([[t.hand_mask(0), t.hand_mask(1), t.hand_mask(2), t.skat_mask()]])
        views, seats, ntok, played, rbs, legal, count = replay_card_positions(o, true, params)
        want = [x for x in seen if x[0] != me]
        assert count[0] == len(want)
        for k, (p, view, a, before) in enumerate(want):
            assert (seats[0, k], played[0, k], ntok[0, k], rbs[0, k]) == (p, a, before, a)
            assert (legal[0, k] >> a) & 1
            if p != t.declarer or me == t.declarer or not t.skat_picked_up:
                assert (views[0, k] == view).all()  # a defender cannot tell the found skat from the pile
            else:
                assert views[0, k, G.F_HAND0 + p] == view[G.F_HAND0 + p]
        checked += len(want)
    assert checked > 40


def test_thecard_networkwork_finds_the_true_world_likelier_than_sampled_ones():
    """Policy-based inference: with rule-based players (whose card the network sees), the
    cards actually played are likelier in the true world than in most sampled worlds, and a
    world that contradicts the play has no likelihood."""
    from agents.players.pimc import card_network
    from agents.players.pimc_inference import card_log_likelihoods

    params = RuleBasedAgent().param_row
    net = card_network("distilled")
    above = total = 0
    for seed in range(12):
        got = _card_play_prefix(seed, 14)
        if got is None:
            continue
        t, _ = got
        o = t.observation(t.current_player())
        true = np.array([[t.hand_mask(0), t.hand_mask(1), t.hand_mask(2), t.skat_mask()]])
        worlds = sample_worlds(InfoState.from_observation(o), 32, seed)
        ll = card_log_likelihoods(o, np.concatenate([true, worlds]), net, params)
        assert np.isfinite(ll).all() and (ll <= 0).all()
        above += int((ll[0] >= ll[1:]).mean() > 0.5)
        total += 1
    assert total >= 8 and above >= total - 1


class _UniformCardModel:
    """A card network whose policy is uniform over the legal cards."""

    def outputs(self, flat, tokens):
        return np.zeros((len(flat), 32)), np.zeros((len(flat), 32))


@pytest.mark.parametrize("prior", [0.25, 0.9])
def test_the_rule_based_mixture_is_a_per_seat_model_average(prior):
    """With ``rb_prior`` each other seat's likelihood is ``(1 - prior) L_net + prior L_rb``
    (``L_rb``: ``(1 - mix) [card = rule-based card] + mix / k`` per card), checked against
    the positions the compiled replay records, in the true world and in sampled ones."""
    from agents.players.pimc_inference import card_log_likelihoods, replay_card_positions
    from skatsim.bits import popcount

    params = np.array(RuleBasedAgent().param_row, dtype=np.float64)
    mix = 0.1
    checked = 0
    for seed in range(10):
        got = _card_play_prefix(seed, 14)
        if got is None:
            continue
        t, _ = got
        me = t.current_player()
        o = t.observation(me)
        true = np.array([[t.hand_mask(0), t.hand_mask(1), t.hand_mask(2), t.skat_mask()]])
        worlds = np.concatenate([true, sample_worlds(InfoState.from_observation(o), 6, seed)])
        got_ll = card_log_likelihoods(o, worlds, _UniformCardModel(), params, mix=mix, rb_prior=prior)
        _, seats, _, played, rbs, legal, count = replay_card_positions(o, worlds, params)
        n = len(worlds)
        for i in range(n):
            if count[i] < 0:
                assert got_ll[i] == -np.inf
                continue
            want = 0.0
            for q in {0, 1, 2} - {me}:
                l_net = l_rb = 1.0
                for k in range(count[i]):
                    if seats[i, k] == q:
                        kk = popcount(int(legal[i, k]))
                        l_net *= 1.0 / kk
                        l_rb *= (1 - mix) * (played[i, k] == rbs[i, k]) + mix / kk
                want += np.log((1 - prior) * l_net + prior * l_rb)
            assert got_ll[i] == pytest.approx(want, rel=1e-9, abs=1e-9)
            checked += 1
    assert checked > 30


def test_pimc_with_a_card_model_plays_legal_cards_and_is_deterministic():
    from agents import play_game

    a = [play_game([PIMCAgent(worlds=8, card_model="distilled"), RuleBasedAgent(), RuleBasedAgent()], seed=5).history()
         for _ in range(2)]
    assert a[0] == a[1]
    with pytest.raises(ValueError, match="card_alpha"):
        PIMCAgent(card_model="distilled", card_alpha=0)
    with pytest.raises(ValueError, match="card_rb"):
        PIMCAgent(card_model="distilled", card_rb=1.0)
    with pytest.raises(ValueError, match="set card_model too"):
        PIMCAgent(card_rb=0.5)
    with pytest.raises(ValueError, match="no card-network checkpoint at"):
        PIMCAgent(card_model="no/such/model")


def test_the_schneider_tie_break_plays_for_schneider_when_every_world_agrees(monkeypatch):
    """With the true world as the only sample, ``schneider=True`` plays, among the cards that
    are best at 61, one that is best at the next goal (90 when the declarer wins, his 31 when
    he loses: the solver's values, computed here apart); the plain agent does not always."""
    strict = differs = 0
    for seed in range(60):
        contract = ["C", "G", "SH", "D", "H", "G"][seed % 6]
        s = _play_prefix(seed, contract, seed % 3, random.Random(seed).randrange(0, 12))
        if s.is_terminal() or len(s.legal_actions()) < 2:
            continue
        p = s.current_player()
        mover_decl = p == s.declarer
        true = np.array([[s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), s.skat_mask()]], dtype=np.int64)
        monkeypatch.setattr(pimc_mod, "sample_worlds", lambda info, n, rng: true)
        at61 = solve(s, mode="threshold", threshold=61, move_values=True).move_values
        if len(set(at61.values())) != 1:  # the world does not agree on the game for every card
            continue
        goal = 90 if next(iter(at61.values())) == 1 else 31
        nxt = solve(s, mode="threshold", threshold=goal, move_values=True).move_values
        side = {c: (v if mover_decl else 1 - v) for c, v in nxt.items()}
        best = {c for c in side if side[c] == max(side.values())}
        cards = {}
        for flag in (True, False):
            agent = PIMCAgent(worlds=1, enumerate=False, exact_tricks=0, schneider="both" if flag else "off")
            agent.reset(0, p, 1)
            cards[flag] = agent.act(s.observation(p))
        assert cards[True] in best, (seed, contract, goal)
        strict += len(best) < len(side)
        differs += cards[False] not in best
    assert strict >= 3 and differs >= 1, (strict, differs)


def test_the_schneider_goal_and_its_parameter():
    from agents.players.pimc import schneider_goal

    v = np.full((3, 32), -1)
    v[:, [1, 2]] = 1
    assert schneider_goal(v, [1, 2]) == 90
    v[:, [1, 2]] = 0
    assert schneider_goal(v, [1, 2]) == 31
    v[2, 1] = 1
    assert schneider_goal(v, [1, 2]) is None
    with pytest.raises(ValueError, match="schneider"):
        PIMCAgent(schneider="yes")
    assert "schneider=both" in PIMCAgent(schneider="both").card_play_key()[0]
    assert "schneider=declarer" in PIMCAgent(schneider="declarer").card_play_key()[0]


def test_the_declarer_only_schneider_tie_break_leaves_the_defence_as_it_was(monkeypatch):
    """``schneider="declarer"`` plays the declarer's cards as ``True`` and the defenders' as
    ``False`` (the true world as the only sample, as above)."""
    seen = set()
    for seed in range(40):
        s = _play_prefix(seed, ["C", "G", "SH"][seed % 3], seed % 3, random.Random(seed).randrange(0, 12))
        if s.is_terminal() or len(s.legal_actions()) < 2:
            continue
        p = s.current_player()
        true = np.array([[s.hand_mask(0), s.hand_mask(1), s.hand_mask(2), s.skat_mask()]], dtype=np.int64)
        monkeypatch.setattr(pimc_mod, "sample_worlds", lambda info, n, rng: true)
        cards = {}
        for flag in ("both", "off", "declarer"):
            agent = PIMCAgent(worlds=1, enumerate=False, exact_tricks=0, schneider=flag)
            agent.reset(0, p, 1)
            cards[flag] = agent.act(s.observation(p))
        assert cards["declarer"] == cards["both" if p == s.declarer else "off"], (seed, p, s.declarer)
        if cards["both"] != cards["off"]:
            seen.add(p == s.declarer)
    assert seen == {True, False}  # the two sides' tie-breaks differ somewhere, so the test can fail
