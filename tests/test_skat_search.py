"""The discard and contract search (agents/players/skat_search.py).

The shared agent API test of ``skat_search`` (legal actions, determinism, no hidden
information in its decisions) runs in tests/test_agents.py; here: the candidate discards
and games, what the agent declares, its ``action_values``, and a deal that once crashed it.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents import make_agent, play_game
from agents.arena.play import Table
from agents.players.pimc_bidding import discard_score as _static_discard_score
from agents.players.skat_search import SkatSearchAgent, discard_candidates
from skatsim import BID_VALUES, CardSet, SkatState
from skatsim.actions import DECLARE_BASE
from skatsim.bits import iter_bits, popcount
from skatsim.contracts import DECLARATIONS, Contract
from skatsim.rules import CLUBS, GRAND, NULL, TRUMP_MASKS
from skatsim.scoring import matadors_of
from skatsim.valuation import game_value

#: A cheap search: 2 worlds per candidate, 2 more for one finalist, 2 discards per game.
PART = "skat_search(worlds=2,finalists=1,final_worlds=2,discards=2)"
twelve_cards = st.permutations(range(32)).map(lambda p: sum(1 << c for c in p[:12]))


def _mask(cards: Any) -> int:
    return sum(1 << int(c) for c in cards)


def _cheap() -> SkatSearchAgent:
    return SkatSearchAgent(worlds=2, finalists=1, final_worlds=2, discards=2)


# ----------------------------------------------------------------------------- candidate discards


@given(twelve=twelve_cards, game=st.integers(0, 5), k=st.integers(1, 70), data=st.data())
def test_discard_candidates_are_the_k_best_pairs_keeping_trumps_with_the_plan(twelve: int, game: int, k: int,
                                                                             data: Any) -> None:
    cards = list(iter_bits(twelve))
    plan = data.draw(st.one_of(st.just(0), st.sampled_from([_mask(p) for p in itertools.combinations(cards, 2)])))
    out = discard_candidates(twelve, game, k, plan)
    assert len(set(out)) == len(out)
    assert all(popcount(p) == 2 and p & ~twelve == 0 for p in out)  # two of the twelve cards
    trumps = TRUMP_MASKS[game] if game != NULL else 0
    free = [c for c in cards if not (1 << c) & trumps]
    if len(free) >= 2:  # trumps are kept (the plan may hold one: it is the rule-based player's own)
        assert all(p & trumps == 0 for p in out if p != plan)
    pool = free if len(free) >= 2 else cards
    pairs = [_mask(p) for p in itertools.combinations(pool, 2)]
    # the k best by the static score, ties to the lower mask, then the plan when it is not among them
    best = sorted(pairs, key=lambda p: (-_static_discard_score(twelve, p, game), p))[:k]
    assert out == best + ([plan] if plan and plan not in best else [])


def test_discard_candidates_example_and_edge_cases() -> None:
    t = CardSet("CJ SJ HJ CA C10 CK C9 C8 SA S10 H7 D7").mask
    assert [str(CardSet.from_mask(p)) for p in discard_candidates(t, CLUBS, 2)] == ["♥7 ♦7", "♠10 ♦7"]
    foreign = CardSet("DA DK").mask  # not two of the twelve cards: not a discard
    assert discard_candidates(t, CLUBS, 2, foreign) == discard_candidates(t, CLUBS, 2)
    # fewer than two cards beside the trumps: trumps may go
    all_trumps = CardSet("CJ SJ HJ DJ CA C10 CK CQ C9 C8 C7 H7").mask
    out = discard_candidates(all_trumps, CLUBS, 66)
    assert len(out) == 66 and any(p & TRUMP_MASKS[CLUBS] for p in out)


@given(twelve=twelve_cards, ten=st.booleans(), bid=st.sampled_from(BID_VALUES))
def test_games_always_give_at_least_one_game(twelve: int, ten: bool, bid: int) -> None:
    cards = _mask(list(iter_bits(twelve))[:10]) if ten else twelve
    games = SkatSearchAgent._games(cards, bid, picked=not ten)
    assert games and len(set(games)) == len(games) and all(0 <= g <= NULL for g in games)
    suits = [g for g in games if g < GRAND]
    most = max(popcount(cards & TRUMP_MASKS[g]) for g in range(4))
    assert suits and popcount(cards & TRUMP_MASKS[suits[0]]) == most  # the suit with most trumps, always


def test_a_flat_hand_still_has_a_game() -> None:
    flat = CardSet("CA C10 CK SA S10 SK HA H10 HK DA D10 DK").mask  # no jack, no long suit
    assert SkatSearchAgent._games(flat, 18, picked=True) == [3]


# ----------------------------------------------------------------------------- the agent at the table


def _reachable_value(state: SkatState, seat: int, action: int) -> int:
    """The most declaring ``action`` can be worth with the declarer's twelve cards (schwarz
    reached): below the bid, the game is an overbid, lost whatever happens."""
    c = Contract.from_code(DECLARATIONS[action - DECLARE_BASE])
    if c.game == NULL:
        return int(game_value(c.game, c.flags, 0))
    cards = state.hand_mask(seat) | state.skat_mask()
    return int(game_value(c.game, c.flags, matadors_of(cards, c.game), True, True))


def test_declares_no_sure_overbid_while_a_game_can_reach_the_bid() -> None:
    """Over many declarations (each seat, 25 deals): a legal game, and never one that is lost
    for sure by its value while another legal game can reach the bid."""
    n = 0
    for seed in range(25):
        for seat in range(3):
            s = SkatState.new_game(seed=seed)
            agents: list[Any] = ["rule_based", "rule_based", "rule_based"]
            agents[seat] = make_agent(f"compose:discard={PART},declare={PART}")
            t = Table(agents, s, seed)
            while not t.over:
                if s.phase == "declare" and s.current_player() == seat:
                    legal = s.legal_actions()
                    values = {a: _reachable_value(s, seat, a) for a in legal}
                    _, a = t.step()  # the table refuses an illegal action
                    n += 1
                    if values[a] < s.bid:
                        assert max(values.values()) < s.bid, (seed, seat, s.bid, a, values[a])
                else:
                    t.step()
    assert n >= 15


def test_a_game_below_the_bid_is_valued_at_the_level_that_reaches_it() -> None:
    """Deal seed 7, seat 1: the rule-based bidder held 33 with hearts and diamonds worth 30 and
    27 (with 2, no levels). An overbid is judged on the value reached, so the search values
    those games at schneider (40 and 36) by the worlds where they reach 90; it valued every
    game as lost for sure before (diamonds -162 SF), although diamonds wins schneider here.
    With every world searched to the end, grand (72, won in 7 of 8 worlds) is better still,
    and the game is won at 72 points; before the node budget was raised to a whole deal's
    search, the grand worlds went over it and the searched player played diamonds schneider."""
    seed, seat = 7, 1
    s = SkatState.new_game(seed=seed)
    agents: list[Any] = ["rule_based", "rule_based", "rule_based"]
    agents[seat] = make_agent(f"compose:discard={PART},declare={PART}")
    t = Table(agents, s, seed)
    while not (s.phase == "declare" and s.current_player() == seat):
        t.step()
    assert s.bid == 33
    a = SkatSearchAgent(worlds=8, finalists=0, final_worlds=0)
    a.reset(0, seat, 1)
    v = a.action_values(s.observation(seat))
    plan = {Contract.from_code(DECLARATIONS[c.declaration]).to_text(): c for c in a._plan or []}
    assert (plan["D"].value, plan["D"].goal) == (36, 90) and (plan["H"].value, plan["H"].goal) == (40, 90)
    assert (plan["S"].value, plan["S"].goal) == (33, None) and (plan["G"].value, plan["G"].goal) == (72, None)
    p = plan["D"].p
    assert p > 0.5  # diamonds reaches 90 in most worlds: not a sure loss (-162 SF) any more
    assert v.values[s.string_to_action("D")] == pytest.approx(p * (36 + 50) - (1 - p) * (2 * 36 + 50 + 2 * 20))
    assert (plan["G"].p, plan["G"].weight) == (7 / 8, 8)
    assert v.chosen == s.string_to_action("G")
    t.run()
    assert s.result.contract == "G" and s.result.won and not s.result.overbid


def test_every_world_is_searched_under_the_default_node_budget() -> None:
    """The bug of 2026-12-05: the default budget (100,000 nodes) was below what a whole deal's
    threshold search takes (50,000-2,000,000), so most worlds were dropped, the close ones
    first, and a candidate with none left counted as lost (p = 0): the search then chose the
    cheapest loss (diamonds) over games it would have won. Now every world is searched, and
    where a budget leaves a candidate no world, the rule-based player decides instead."""
    seed, seat = 7, 1
    s = SkatState.new_game(seed=seed)
    t = Table(["rule_based", "rule_based", "rule_based"], s, seed)
    while not (s.phase == "declare" and s.current_player() == seat):
        t.step()
    obs = s.observation(seat)
    full = SkatSearchAgent(worlds=4, finalists=0, final_worlds=0)
    full.reset(0, seat, 1)
    full.act(obs)
    assert full._plan and all(c.weight == 4 for c in full._plan)
    starved = SkatSearchAgent(worlds=4, finalists=0, final_worlds=0, node_limit=1)
    starved.reset(0, seat, 1)
    rb = make_agent("rule_based")
    rb.reset(0, seat, 1)
    assert starved.act(obs) == rb.act(obs)
    assert starved._plan and all(c.weight == 0 for c in starved._plan)


def _positions(phase: str, n: int) -> list[tuple[SkatState, int]]:
    """``n`` rule-based games stopped where a seat first decides in ``phase``: (state, seat)."""
    out = []
    for seed in range(400):
        s = SkatState.new_game(seed=seed)
        t = Table(["rule_based", "rule_based", "rule_based"], s, seed)
        while not t.over and s.phase != phase:
            t.step()
        if not t.over:
            out.append((s, s.current_player()))
            if len(out) == n:
                break
    return out


def _hand_declarations(n: int) -> list[tuple[SkatState, int]]:
    """``n`` positions where a seat declares a hand game (it said hand at the skat)."""
    out = []
    for seed in range(3000):
        s = SkatState.new_game(seed=seed)
        t = Table(["rule_based", "rule_based", "rule_based"], s, seed)
        while not t.over and s.phase != "declare":
            t.step()
        if not t.over and not s.skat_picked_up:
            out.append((s, s.current_player()))
            if len(out) == n:
                break
    return out


def test_action_values_mark_the_chosen_action_and_agree_with_act() -> None:
    cases = _positions("discard", 3) + _positions("declare", 3) + _hand_declarations(1)
    assert len(cases) == 7
    for s, seat in cases:
        obs = s.observation(seat)
        a, b = _cheap(), _cheap()
        a.reset(7, seat, 1234)
        b.reset(7, seat, 1234)
        v = a.action_values(obs)
        assert v is not None and v.unit == "SF points"
        assert v.values and set(v.values) <= set(obs.legal_actions)
        assert v.chosen == b.act(obs) == a.act(obs)
        assert v.values[v.chosen] == max(v.values.values())
        cands = v.detail["candidates"]
        assert cands and all(0.0 <= c["p"] <= 1.0 for c in cands)
        if obs.phase == "declare":
            assert DECLARATIONS[v.chosen - DECLARE_BASE] == cands[0]["contract"]
        else:
            assert (cands[0]["discard"] >> v.chosen) & 1


def test_the_declaration_follows_the_searched_discard() -> None:
    """After its own discard the agent declares the game it searched that discard for."""
    for s, seat in _positions("discard", 3):
        agent = _cheap()
        agent.reset(0, seat, 99)
        first = agent.act(s.observation(seat))
        plan = agent.action_values(s.observation(seat)).detail["candidates"][0]
        s.apply_action(first)
        second = agent.act(s.observation(seat))
        assert second != first and (plan["discard"] >> second) & 1
        s.apply_action(second)
        assert s.phase == "declare"
        d = agent.act(s.observation(seat))
        assert DECLARATIONS[d - DECLARE_BASE] == plan["contract"]


def test_a_fresh_agent_asked_at_the_second_discard_plays_the_rule_based_card() -> None:
    """The browser's analysis may ask a new agent at the second discard, where the observation
    does not show the card already put away: nothing to search (it once built 9-card hands
    there), so the rule-based player's card, and no values."""
    from agents.players.rule_based import RuleBasedAgent

    for s, seat in _positions("discard", 3):
        s.apply_action(s.legal_actions()[0])
        obs = s.observation(seat)
        agent, rb = _cheap(), RuleBasedAgent()
        agent.reset(5, seat, 77)
        rb.reset(5, seat, 77)
        assert agent.act(obs) == rb.act(obs) in obs.legal_actions
        v = agent.action_values(obs)
        assert v is not None and not v.values and v.chosen in obs.legal_actions


def test_action_values_do_not_depend_on_hidden_cards() -> None:
    gen = np.random.default_rng(4)
    cases = _positions("discard", 2) + _positions("declare", 2) + _hand_declarations(1)
    for s, seat in cases:
        base = _cheap()
        base.reset(3, seat, 555)
        want = base.action_values(s.observation(seat))
        for _ in range(2):
            world = s.resample_from_infostate(seat, gen)
            assert world.hand_mask((seat + 1) % 3) != s.hand_mask((seat + 1) % 3)
            other = _cheap()
            other.reset(3, seat, 555)
            got = other.action_values(world.observation(seat))
            assert got.values == want.values and got.chosen == want.chosen
            assert got.detail == want.detail


def test_other_phases_have_no_values_and_go_to_the_rule_based_player() -> None:
    s = SkatState.new_game(seed=1)
    agent = _cheap()
    agent.reset(0, 1, 5)
    obs = s.observation(1)
    assert agent.action_values(obs) is None
    rb = make_agent("rule_based")
    rb.reset(0, 1, 5)
    assert agent.act(obs) == rb.act(obs)


def test_deal_that_raised_index_error_is_played_out() -> None:
    """Deal seed 6257210439351536655, skat_search in seat 0: its hand had no long suit, too few
    jacks for grand and a bad null, so no game was searched and the discard raised IndexError
    (fixed in cb88068)."""
    s = play_game([make_agent("skat_search"), "rule_based", "rule_based"], seed=6257210439351536655)
    assert s.is_terminal()
    assert s.declarer == 0  # the skat_search seat declared: its discard and declaration were searched


def test_value_declaration_searches_one_declaration_on_its_own() -> None:
    """The analysis board values a declaration made that the search did not consider: any
    legal declaration gets an expected score from its own worlds; other phases get none."""
    (s, seat), = _hand_declarations(1)
    obs = s.observation(seat)
    a = _cheap()
    a.reset(0, seat, 1)
    searched = {DECLARE_BASE + c.declaration for c in (a._search(obs) or [])}
    others = [x for x in obs.legal_actions if x not in searched]
    assert others
    for x in others[:3]:
        v = a.value_declaration(obs, x)
        assert v is not None and -1000 < v < 1000
    assert a.value_declaration(obs, -1) is None
    (d, dseat), = _positions("discard", 1)
    assert a.value_declaration(d.observation(dseat), obs.legal_actions[0]) is None
