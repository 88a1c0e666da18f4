"""The analysis board's agent values (``skatsim_app.web.advice``): the hint in play, computed
from the person's own information only, and a replay's decisions before the card play
(bids, pickup, discards, declaration), judged by the seat's own agent or the server's
analysis agent. The agents' ``action_values(observation)`` is an optional method of the
agent protocol; a small agent here gives values so the plumbing is tested end to end."""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from agents import play_game  # noqa: E402
from agents.arena.base import register, unregister  # noqa: E402
from skatsim_app.web import advice, create_app  # noqa: E402
from web_helpers import cards_in, client, visible_cards  # noqa: E402

DATA = Path(__file__).parent / "data"
SEEN: list = []  # what the last Valued agent was told (in this process)


@dataclass
class Values:
    values: dict[int, float]
    unit: str = "test points"
    chosen: int | None = None


@dataclass
class Valued:
    """Plays the first legal action; values action k of the legal list as -k."""

    name: str = "web_valued"
    told: list = field(default_factory=list)

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self.told = [("reset", seat)]
        SEEN[:] = [self.told]

    def observe(self, seat: int, action: int) -> None:
        self.told.append((seat, action))

    def act(self, obs) -> int:
        return obs.legal_actions[0]

    def action_values(self, obs) -> Values:
        self.told.append(("values", obs.seat, obs.hand.mask))
        return Values({a: -float(k) for k, a in enumerate(obs.legal_actions)}, chosen=obs.legal_actions[0])


@pytest.fixture
def valued():
    register("web_valued", Valued, {}, defaults={}, doc="a test agent that gives values", replace=True)
    yield "web_valued"
    unregister("web_valued")


def test_an_agent_without_action_values_gives_none(valued) -> None:
    from agents import AgentSpec

    assert advice.gives_values(AgentSpec("web_valued")) and not advice.gives_values(AgentSpec("rule_based"))
    assert advice.evaluate(object(), None) is None


def test_the_hint_agent_is_told_only_what_the_seat_saw(valued) -> None:
    s = play_game(["rule_based"] * 3, seed=22)
    d = s.declarer
    defender = (d + 1) % 3
    cut = next(i for i, (p, a, ph) in enumerate(s.phase_history()) if ph == "play" and p == defender)
    from skatsim import SkatState

    part = SkatState.new_game(deal=s.deal, rules=s.rules)
    for a in s.history()[:cut]:
        part.apply_action(a)
    out = advice.hint("web_valued", part.to_record(), defender, 12345)
    told = SEEN[0]
    assert told[0] == ("reset", defender) and told[-1] == ("values", defender, part.hand_mask(defender))
    discards = [(p, a) for p, a, ph in part.phase_history() if ph == "discard"]
    assert discards and all((p, -1) in told for p, _ in discards)  # the declarer's discards, hidden
    assert not {a for p, a in discards} & {a for _, a in told[1:-1]}
    assert set(out["values"]) == set(part.legal_actions()) and out["chosen"] == part.legal_actions()[0]


def test_the_hint_in_play_names_only_the_persons_own_moves(valued) -> None:
    from web_helpers import choose

    app = create_app(opponents=["random", "random"], agent_mode="thread", analysis_agent="web_valued")
    with client(app) as c:
        config = c.get("/api/config").json()
        # the server's analysis agent first (the default hint), then the offered agents that give values
        assert config["hint_agents"][0] == "analysis" and config["analysis_agent"] == "web_valued"
        assert {"pimc", "web_valued"} <= set(config["hint_agents"]) and "rule_based" not in config["hint_agents"]
        v = c.post("/api/play/new", json={"seat": 0, "seed": 5}).json()["view"]
        r = c.post("/api/play/hint", json={})
        assert r.status_code == 409  # middlehand bids first: not the person's turn
        hints = 0
        game = app.state.web.sessions[c.cookies["skatsim_session"]].game
        while not v["over"]:
            if v["your_turn"]:
                r = c.post("/api/play/hint", json={"agent": "web_valued" if hints % 2 else None, "expect": v["n"]})
                assert r.status_code == 200, r.text
                h = r.json()
                assert set(h["values"]) == set(v["legal"]) and h["best"] == [v["legal"][0]]
                assert h["agent"] == ("web_valued" if hints % 2 else "analysis")
                assert cards_in(r.text) <= visible_cards(game.state.observation(0))
                hints += 1
                v = c.post("/api/play/act", json={"action": choose(v, "defend"), "expect": v["n"]}).json()["view"]
            else:
                v = c.post("/api/play/advance", json={}).json()["view"]
        assert hints >= 5
        for body, status in [({"agent": "os:system"}, 400), ({"agent": "rule_based"}, 400), ({"x": 1}, 400),
                             ({}, 409)]:
            assert c.post("/api/play/hint", json=body).status_code == status, body


def test_the_analysis_agent_is_the_operators_choice() -> None:
    from skatsim_app.cli import main

    web = create_app(opponents=["random", "random"], agent_mode="thread").state.web
    assert web.analysis_agent == advice.DEFAULT_ANALYSIS and web.hint_agents[0] == "analysis"
    web = create_app(opponents=["random", "random"], agent_mode="thread", analysis_agent="none").state.web
    assert web.analysis_agent is None and "analysis" not in web.hint_agents and "pimc" in web.hint_agents
    web = create_app(opponents=["random", "random"], agent_mode="thread",
                     analysis_agent="skat_search:worlds=1,final_worlds=0").state.web
    assert web.analysis_agent == "skat_search:final_worlds=0,worlds=1"
    web = create_app(opponents=["random", "random"], agent_mode="thread", agents={"strong": "pimc:worlds=4"},
                     analysis_agent="strong").state.web
    assert web.analysis_agent == "pimc:worlds=4"
    with pytest.raises(ValueError, match="gives no values per action"):
        create_app(opponents=["random", "random"], agent_mode="thread", analysis_agent="rule_based")
    with pytest.raises(ValueError, match="names the server's analysis agent"):
        create_app(opponents=["random", "random"], agent_mode="thread", agents={"analysis": "pimc"})
    assert main(["serve", "--analysis-agent", "rule_based", "--no-warmup", "--port", "0"]) == 2


def test_the_hint_does_not_change_when_hidden_cards_change() -> None:
    """The default analysis agent's hint at a bid, at the skat (looking ahead over sampled
    skats) and at a card: the same for two deals that differ only in cards the person cannot
    see (the two other hands swap cards, the skat is another), so it cannot reveal them."""
    from skatsim import SkatState
    from skatsim.actions import HAND, PICKUP
    from skatsim.bits import iter_bits
    from skatsim.cards import CardSet
    from skatsim.deal import Deal

    s = next(g for g in (play_game(["rule_based"] * 3, seed=k) for k in range(40, 80)) if g.declarer is not None)
    moves, phases = s.history(), s.phase_history()
    discards = {a for _, a, ph in phases if ph == "discard"}

    def at(n: int, deal: Deal) -> SkatState:
        g = SkatState.new_game(deal=deal, rules=s.rules)
        for a in moves[:n]:
            g.apply_action(a)
        return g

    def hidden_changed(seat: int, skat_too: bool) -> Deal:
        """The deal with a card swapped between the two other hands (and, where the person
        has not seen it, one between a hand and the skat), no discard moved."""
        m = list(s.deal.masks())
        x, y = [s_ for s_ in range(3) if s_ != seat]
        a = next(c for c in iter_bits(m[x]) if c not in discards)
        b = next(c for c in iter_bits(m[y]) if c not in discards)
        m[x] ^= (1 << a) | (1 << b)
        m[y] ^= (1 << a) | (1 << b)
        if skat_too:
            k, c = next(iter_bits(m[3])), next(c for c in iter_bits(m[x]) if c not in discards)
            m[x] ^= (1 << k) | (1 << c)
            m[3] ^= (1 << k) | (1 << c)
        return Deal(tuple(CardSet(v) for v in m[:3]), CardSet(m[3]))  # type: ignore[arg-type]

    skat_n = next(n for n, (_, _, ph) in enumerate(phases) if ph == "skat")
    card_n = next(n for n, (_, _, ph) in enumerate(phases) if ph == "play")
    cases = [(0, 1, True), (skat_n, s.declarer, True), (card_n, phases[card_n][0], False)]
    # the hints in a fresh process, as the server's worker pool asks them (the neural bidder's
    # torch threads started here would abort the processes later tests fork from this one)
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        for n, seat, skat_too in cases:
            one, two = at(n, s.deal), at(n, hidden_changed(seat, skat_too))
            assert one.current_player() == seat and one.hand_mask(seat) == two.hand_mask(seat)
            assert one.deal != two.deal and one.phase == two.phase
            h1, h2 = (pool.submit(advice.hint, advice.DEFAULT_ANALYSIS, g.to_record(), seat, 2024).result()
                      for g in (one, two))
            assert h1 is not None and h1["values"] and set(h1["values"]) <= set(one.legal_actions()), (one.phase, h1)
            assert h1 == h2, (one.phase, h1, h2)
            if one.phase == "skat":
                assert set(h1["values"]) == {PICKUP, HAND} and "sampled skats" in h1["by"]


def test_a_replays_decisions_are_judged_by_the_seats_own_agent(valued, tmp_path: Path) -> None:
    from agents import run_tournament

    run = tmp_path / "run"
    run_tournament(["web_valued", "random"], 1, seed=3, parallel="processes", out=run, progress=False)
    app = create_app(replay=[str(run), str(DATA / "iss_records.txt")], opponents=["random", "random"],
                     agent_mode="thread", analysis_agent="web_valued")
    with client(app) as c:
        games = c.get("/api/replay/games?source=0").json()["games"]
        g = next(x for x in games if x["players"][1] == "web_valued")  # middlehand bids first
        game = c.get(f"/api/replay/game?source=0&game={g['i']}").json()
        assert game["moves"][0]["decision"] and game["moves"][0]["seat"] == 1
        d = c.get(f"/api/replay/decision?source=0&game={g['i']}&step=0").json()
        assert d["title"] == "The bid" and "web_valued's own evaluation" in d["by"]
        assert d["chosen"] == d["played"] == game["moves"][0]["action"] and d["best"] == [d["played"]]
        # in another seat's view the values (which may name the mover's cards) are not given
        assert c.get(f"/api/replay/decision?source=0&game={g['i']}&step=0&view=0").json()["hidden"]
        # an ISS game: the server's analysis agent judges
        d = c.get("/api/replay/decision?source=1&game=0&step=0").json()
        assert "analysis agent (web_valued)" in d["by"] and d["values"]
        # a card decision is the solver's
        step = game["card_steps"][0]
        assert c.get(f"/api/replay/decision?source=0&game={g['i']}&step={step}").json()["values"] is None


def test_a_replays_early_decisions_are_valued_over_sampled_worlds() -> None:
    """The default analysis agent on an ISS game with a pickup: the pickup (looking ahead over
    sampled skats), both discards and the declaration by skat_search, the bids by the neural
    bidder; every legal action valued, the move made marked and its shortfall stated."""
    app = create_app(replay=[str(DATA / "iss_records.txt")], opponents=["random", "random"], agent_mode="thread")
    with client(app) as c:
        games = c.get("/api/replay/games?source=0").json()["games"]
        for g in games:
            moves = c.get(f"/api/replay/game?source=0&game={g['i']}").json()["moves"]
            if any(m["phase"] == "discard" for m in moves):
                break
        else:
            raise AssertionError("no ISS game with a pickup")
        by_phase = {}
        for m in moves:
            if m["phase"] in ("bidding", "skat", "discard", "declare") and m["phase"] not in by_phase:
                by_phase[m["phase"]] = m
        second_discard = [m for m in moves if m["phase"] == "discard"][1]
        for m in [*by_phase.values(), second_discard]:
            d = c.get(f"/api/replay/decision?source=0&game={g['i']}&step={m['n']}").json()
            assert d["values"], (m, d)
            assert d["played"] == m["action"] and d["played"] in d["values"], (m, d)
            assert d["chosen"] in d["values"] and d["best"]
            assert "SF points" in d["legend"] and " chose " in d["summary"]
            expect = {"bidding": "neural_bidder", "skat": "skat_search, one step ahead; the pickup over",
                      "discard": "skat_search", "declare": "skat_search"}[m["phase"]]
            assert f"the analysis agent ({expect}" in d["by"], (m["phase"], d["by"])
            if m["phase"] == "skat":
                assert set(d["values"]) == {"pickup", "hand"}
            if m["phase"] == "discard":
                held = {c_ for c_ in d["values"]}
                assert all(d["labels"][a]["card"] for a in held)


def test_where_the_seats_own_agent_gives_no_values_the_analysis_agent_judges(valued, tmp_path: Path) -> None:
    from agents import run_tournament

    run = tmp_path / "run"
    run_tournament(["pimc:worlds=2", "random"], 1, seed=3, parallel="processes", out=run, progress=False)
    app = create_app(replay=[str(run)], opponents=["random", "random"], agent_mode="thread",
                     analysis_agent="web_valued")
    with client(app) as c:
        games = c.get("/api/replay/games?source=0").json()["games"]
        g = next(x for x in games if x["players"][1].startswith("pimc"))
        d = c.get(f"/api/replay/decision?source=0&game={g['i']}&step=0").json()  # pimc values only cards
        assert d["title"] == "The bid" and d["by"] == "the analysis agent (web_valued)" and d["values"]
