"""The analysis board's agent values (``skatsim_app.web.advice``): the hint in play, computed
from the person's own information only, and a replay's decisions before the card play
(bids, pickup, discards, declaration), judged by the seat's own agent or the server's
analysis agent. The agents' ``action_values(observation)`` is an optional method of the
agent protocol; a small agent here gives values so the plumbing is tested end to end."""

from __future__ import annotations

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

    app = create_app(opponents=["random", "random"], agent_mode="thread")
    with client(app) as c:
        config = c.get("/api/config").json()
        assert config["hint_agents"] == ["web_valued"] and config["analysis_agent"] == "web_valued"
        v = c.post("/api/play/new", json={"seat": 0, "seed": 5}).json()["view"]
        r = c.post("/api/play/hint", json={})
        assert r.status_code == 409  # middlehand bids first: not the person's turn
        hints = 0
        game = app.state.web.sessions[c.cookies["skatsim_session"]].game
        while not v["over"]:
            if v["your_turn"]:
                r = c.post("/api/play/hint", json={"agent": "web_valued", "expect": v["n"]})
                assert r.status_code == 200, r.text
                h = r.json()
                assert set(h["values"]) == set(v["legal"]) and h["best"] == [v["legal"][0]]
                assert cards_in(r.text) <= visible_cards(game.state.observation(0))
                hints += 1
                v = c.post("/api/play/act", json={"action": choose(v, "defend"), "expect": v["n"]}).json()["view"]
            else:
                v = c.post("/api/play/advance", json={}).json()["view"]
        assert hints >= 5
        for body, status in [({"agent": "os:system"}, 400), ({"agent": "pimc"}, 400), ({"x": 1}, 400),
                             ({}, 409)]:
            assert c.post("/api/play/hint", json=body).status_code == status, body


def test_without_agents_that_give_values_there_is_no_hint() -> None:
    with client(create_app(opponents=["random", "random"], agent_mode="thread")) as c:
        assert c.get("/api/config").json()["hint_agents"] == []
        c.post("/api/play/new", json={"seat": 0, "seed": 5})
        assert c.post("/api/play/hint", json={}).status_code == 404


def test_a_replays_decisions_are_judged_by_the_seats_own_agent(valued, tmp_path: Path) -> None:
    from agents import run_tournament

    run = tmp_path / "run"
    run_tournament(["web_valued", "random"], 1, seed=3, parallel="processes", out=run, progress=False)
    app = create_app(replay=[str(run), str(DATA / "iss_records.txt")], opponents=["random", "random"],
                     agent_mode="thread")
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
        assert "analysis agent web_valued" in d["by"] and d["values"]
        # a card decision is the solver's
        step = game["card_steps"][0]
        assert c.get(f"/api/replay/decision?source=0&game={g['i']}&step={step}").json()["values"] is None
