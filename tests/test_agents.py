"""Agents: registry and specs, the game loop, RandomAgent = batch simulation, and the
shared agent test over every registered agent."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import (AgentError, AgentSpec, IllegalActionError, RandomAgent, Table, list_agents, make_agent,
                    play, play_game, register)
from agents.arena.base import _REGISTRY
from agents.arena.play import HIDDEN
from agents.arena.testing import agent_api_test
from skatsim import SkatRules, SkatState, deal
from skatsim.bits import derive_seed, seat_stream
from skatsim.state import random_game as play_random_game
from skatsim.observation import Observation
from skatsim.simulate import simulate

ALL_AGENTS = sorted(list_agents())
ENGINE_AGENTS = [n for n, i in list_agents().items() if i["engine"]]
RULES = [SkatRules(), SkatRules(ramsch=True, kontra=True)]


# ----------------------------------------------------------------------------- shared agent test


#: the shared test runs every agent; search agents with few worlds (the checks do not depend on it)
CHEAP = {"pimc": "pimc:worlds=4", "neural_bidder": "neural_bidder",
         "skat_search": "skat_search:worlds=2,finalists=1,final_worlds=2,discards=2",
         "compose": "compose:early=rule_based,card_play=pimc(worlds=1),discard=skat_search(worlds=1,final_worlds=0,discards=1)",
         "expert": "expert:worlds=1", "rollout": "rollout:worlds=2"}


def _reachable(obj: object, seen: set[int] | None = None, depth: int = 0):
    """Every object reachable from ``obj`` through instance attributes, dicts, lists and tuples."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 12:
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, dict):
        kids = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        kids = list(obj)
    elif hasattr(obj, "__dict__") and type(obj).__module__.split(".")[0] in ("agents", "skatsim"):
        kids = list(vars(obj).values())
    else:
        return
    for k in kids:
        yield from _reachable(k, seen, depth + 1)


@pytest.mark.parametrize("name", ALL_AGENTS)
def test_a_copy_of_an_agent_keeps_no_kernel_and_no_writable_parameter_row(name: str) -> None:
    """Tournaments copy an agent per game and the agent API test at every decision: a numba
    dispatcher kept on an agent is pickled by each copy (30 ms), and a parameter row that a
    copy turns writable makes the compiled policy compile again for that layout (70-100 s)."""
    from numba.core.dispatcher import Dispatcher

    agent = make_agent(name)
    twin = copy.deepcopy(agent)
    for a in (agent, twin):
        found = [o for o in _reachable(a) if isinstance(o, Dispatcher)]
        assert not found, f"{name}: a numba dispatcher on the agent: {found[0]}"
    rows = [o for o in _reachable(agent) if hasattr(o, "param_row")]
    twin_rows = [o for o in _reachable(twin) if hasattr(o, "param_row")]
    assert len(rows) == len(twin_rows)
    for o in twin_rows:
        assert not o.param_row.flags.writeable, f"{name}: a copy's {type(o).__name__} has a writable parameter row"


@pytest.mark.parametrize("name", ALL_AGENTS)
def test_every_registered_agent_passes_the_agent_api_test(name: str) -> None:
    report = agent_api_test(CHEAP.get(name, name), n_deals=12, seed=3, hidden_deals=3, n_worlds=2)
    assert report["games"] == 24 and report["resampled"] > 0
    assert (report["batched"] > 0) == (name in ("neural_bidder", "dmc"))  # the batch agents' act_batch is checked
    assert {"bidding", "skat", "declare", "play", "kontra"} <= set(report["phases"])


@pytest.mark.parametrize("spec", ["pimc:worlds=2,bidding=simulation,bid_worlds=2",
                                  "neural_bidder:card_play=pimc,pimc_worlds=2", "neural_bidder:discard=model",
                                  "pimc:worlds=2,inference=true,card_eps=0.5,card_model=distilled",
                                  "pimc:worlds=2,card_model=distilled_v1,card_rb=0.5",
                                  "pimc:worlds=2,schneider=both,exact_tricks=0",
                                  "distilled:endgame=5,endgame_worlds=16,endgame_nodes=300",
                                  "rollout:worlds=2,card_model=distilled_v1,card_alpha=0.5,oversample=2"])
def test_agent_variants_pass_the_agent_api_test(spec: str) -> None:
    """The other decision paths of the search and neural agents are information-safe too."""
    report = agent_api_test(spec, n_deals=6, seed=5, hidden_deals=2, n_worlds=2)
    assert report["games"] == 12 and report["resampled"] > 0
    assert (report["batched"] > 0) == spec.startswith("neural_bidder")


class _Cheater:
    """Bids 18 exactly when middlehand (seat 1) holds the club jack: reads a hidden hand."""

    name = "cheater"

    def __init__(self) -> None:
        self.state: SkatState | None = None

    def act(self, obs: Observation) -> int:
        legal = obs.legal_actions
        if obs.phase == "bidding" and obs.seat != 1 and self.state is not None:
            if self.state.hand_mask(1) >> 31 & 1:
                return legal[0]
        return legal[-1] if obs.phase == "bidding" else legal[0]


def test_agent_api_test_catches_hidden_information_use() -> None:
    holder: dict[str, SkatState] = {}

    class Peeker(_Cheater):
        def act(self, obs: Observation) -> int:  # reads the real deal through a side channel
            self.state = holder.get("s")
            return super().act(obs)

    orig = SkatState.observation

    def spy(self: SkatState, seat: int) -> Observation:
        holder["s"] = self
        return orig(self, seat)

    SkatState.observation = spy  # type: ignore[method-assign]
    try:
        with pytest.raises(AssertionError, match="uses information its seat cannot see"):
            agent_api_test(Peeker, n_deals=8, hidden_deals=8, n_worlds=3, rules=[SkatRules()])
    finally:
        SkatState.observation = orig  # type: ignore[method-assign]


def test_agent_api_test_catches_a_batch_that_decides_otherwise() -> None:
    class Split:
        name = "split"

        def act(self, obs: Observation) -> int:
            return obs.legal_actions[0]

        def act_batch(self, observations, legal_masks):
            return np.array([np.flatnonzero(m)[-1] for m in legal_masks])

    with pytest.raises(AssertionError, match="act_batch"):
        agent_api_test(Split, n_deals=2, hidden_deals=2, n_worlds=1)


def test_agent_api_test_catches_nondeterminism_and_illegal_actions() -> None:
    class Clock:
        name = "clock"
        calls = 0

        def act(self, obs: Observation) -> int:
            Clock.calls += 1  # state outside the agent: runs differ
            return obs.legal_actions[Clock.calls % len(obs.legal_actions)]

    with pytest.raises(AssertionError, match="not deterministic|deepcopy"):
        agent_api_test(Clock, n_deals=3, hidden_deals=0)

    class Illegal:
        name = "illegal"

        def act(self, obs: Observation) -> int:
            return 131

    with pytest.raises(IllegalActionError, match="'illegal' \\(seat 1\\) returned the illegal action 131"):
        agent_api_test(Illegal, n_deals=1, hidden_deals=0)


# ----------------------------------------------------------------------------- same games as the engine


@pytest.mark.parametrize("rules", RULES, ids=["isko", "ramsch+kontra"])
def test_random_agents_play_the_batch_engines_random_games(rules: SkatRules) -> None:
    df = simulate(40, seed=11, rules=rules, record_actions=True, workers=1)
    acts = df.attrs["actions"]
    for i, ds in enumerate(df["deal_seed"]):
        s = play_game([RandomAgent(), RandomAgent(), RandomAgent()], seed=int(ds), rules=rules)
        n = int(df["n_actions"].iloc[i])
        assert s.history() == [int(a) for a in acts[i, :n]]
        assert s.result.list_score == int(df["list_score"].iloc[i])
        assert play_random_game(int(ds), rules).history() == s.history()


@pytest.mark.parametrize("name", ENGINE_AGENTS)
def test_engine_agents_play_the_batch_engines_games_at_a_mixed_table(name: str) -> None:
    policy = (list_agents()[name]["engine"], "random", list_agents()[name]["engine"])
    df = simulate(25, policy=policy, seed=5, record_actions=True, workers=1, rules=RULES[1])
    acts = df.attrs["actions"]
    for i, ds in enumerate(df["deal_seed"]):
        s = play_game([make_agent(name), RandomAgent(), make_agent(name)], seed=int(ds), rules=RULES[1])
        assert s.history() == [int(a) for a in acts[i, :int(df["n_actions"].iloc[i])]]


# ----------------------------------------------------------------------------- registry and specs


def test_registry_lists_agents_with_parameters_and_defaults() -> None:
    from skatsim.kernels.heuristic import DEFAULT_PARAMS, PARAM_NAMES

    reg = list_agents()
    assert {"random", "rule_based"} <= set(reg)
    assert reg["random"]["params"] == {} and reg["random"]["engine"] == "random"
    assert reg["rule_based"]["params"] == {n: float(v) for n, v in zip(PARAM_NAMES, DEFAULT_PARAMS)}
    assert isinstance(make_agent("random"), RandomAgent)
    with pytest.raises(ValueError, match="unknown agent .nope.; registered agents: .*random, .*rule_based"):
        make_agent("nope")
    with pytest.raises(ValueError, match="already registered"):
        register("random", RandomAgent)


def test_register_a_new_agent_with_params_from_the_signature() -> None:
    class Biased:
        name = "biased"

        def __init__(self, top: bool = False, k: int = 2, w: float = 0.5) -> None:
            self.top, self.k, self.w = top, k, w

        def act(self, obs: Observation) -> int:
            return obs.legal_actions[-1 if self.top else 0]

    register("test_biased", Biased, {"top": "take the highest legal action"}, doc="for a test")
    try:
        info = list_agents()["test_biased"]
        assert info["params"] == {"top": False, "k": 2, "w": 0.5} and info["engine"] is None
        spec = AgentSpec.parse("test_biased:w=1,top=yes,k=3")
        assert spec.params == (("k", 3), ("top", True), ("w", 1.0))
        assert spec.to_text() == "test_biased:k=3,top=true,w=1"
        assert spec.engine_policy() is None
        a = make_agent(spec)
        assert (a.top, a.k, a.w) == (True, 3, 1.0)
        with pytest.raises(ValueError, match="parameter 'k' of agent 'test_biased' takes a int"):
            AgentSpec.parse("test_biased:k=1.5")
        with pytest.raises(ValueError, match="has no parameter 'z'; parameters: top, k, w"):
            make_agent("test_biased", z=1)
        assert play_game(["test_biased:top=1", "random", "test_biased"], seed=1).is_terminal()
    finally:
        del _REGISTRY["test_biased"]


def test_agent_spec_is_hashable_serialisable_and_parses_cli_text() -> None:
    s = AgentSpec.parse(" random ")
    assert s == AgentSpec("random") == AgentSpec.coerce("random") == AgentSpec.coerce(("random", {}))
    assert len({s, AgentSpec("random"), AgentSpec.from_dict({"name": "random", "params": {}})}) == 1
    assert pickle.loads(pickle.dumps(s)) == s and AgentSpec.from_dict(s.to_dict()) == s
    assert s.to_json() == '{"name": "random", "params": {}}'
    with pytest.raises(AttributeError):
        s.name = "x"  # type: ignore[misc]
    for bad, msg in [("", "non-empty"), ("random:x", "malformed agent parameter 'x'"),
                     ("rand", "unknown agent 'rand'")]:
        with pytest.raises(ValueError, match=msg):
            AgentSpec.parse(bad)
    with pytest.raises(TypeError):
        AgentSpec.coerce(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["off", "declarer", "both"])
def test_a_string_parameter_keeps_its_text_when_it_reads_like_a_bool(text: str) -> None:
    """``pimc:schneider=off`` is the string ``"off"``, not ``False`` turned into ``"False"``
    (which the parameter's check refused until 2026-12-06)."""
    assert make_agent(f"pimc:worlds=1,schneider={text}").schneider == text
    declarer_play = make_agent(f"expert:worlds=1,schneider={text}").parts["declarer_play"]
    assert ("schneider=" + text in declarer_play) == (text != "off")


# ----------------------------------------------------------------------------- the game loop


class _Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.resets: list[tuple[int, int, int]] = []
        self.seen: list[tuple[int, int]] = []
        self.obs_types: set[type] = set()
        self.inner = RandomAgent()

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self.resets.append((deal_id, seat, rng))
        self.inner.reset(deal_id, seat, rng)

    def observe(self, seat: int, action: int) -> None:
        self.seen.append((seat, action))

    def act(self, obs: Observation) -> int:
        self.obs_types.add(type(obs))
        return self.inner.act(obs)


def test_play_game_resets_with_seat_streams_and_hides_discards_from_other_seats() -> None:
    for seed in range(40):
        agents = [_Recorder(), _Recorder(), _Recorder()]
        s = play_game(agents, seed=seed, deal_id=9)
        assert s.history() == play_game(["random"] * 3, seed=seed).history()
        hist = s.phase_history()
        for seat, a in enumerate(agents):
            assert a.resets == [(9, seat, seat_stream(seed, seat))]
            assert a.obs_types == {Observation}  # never a SkatState
            want = [(p, HIDDEN if ph == "discard" and p != seat else x) for p, x, ph in hist]
            assert a.seen == want
        if s.skat_picked_up:
            return
    pytest.fail("no pickup in 40 deals")


def test_play_game_deal_sources_and_timings() -> None:
    d = deal(3)
    a = play_game(["random"] * 3, deal=d)
    assert a.history() == play_game(["random"] * 3, deal=d).history()  # streams from the cards
    assert play_game(["random"] * 3, deal=d, rng=3).history() == play_game(["random"] * 3, seed=3).history()
    assert play_game(["random"] * 3, seed=-3).history() != play_game(["random"] * 3, seed=3).history()
    with pytest.raises(ValueError, match="either a deal or a seed"):
        play_game(["random"] * 3, seed=1, deal=d)
    g = play(["random"] * 3, seed=4)
    assert all(t > 0 for t, n in zip(g.decision_time, g.decisions) if n) and sum(g.decisions) == len(g.state.history())
    assert play_game(["random"] * 3, rng=np.random.default_rng(5)).is_terminal()


def test_play_game_errors_name_the_agent_seat_phase_and_action() -> None:
    class Bad:
        name = "bad"

        def act(self, obs: Observation) -> int:
            return 0  # a card id: illegal in the bidding

    with pytest.raises(IllegalActionError) as e:
        play_game([RandomAgent(), Bad(), RandomAgent()], seed=1)
    assert "agent 'bad' (seat 1) returned the illegal action 0 ('D7') in phase bidding; legal: 18 20" in str(e.value)
    assert (e.value.agent, e.value.seat, e.value.phase, e.value.action) == ("bad", 1, "bidding", 0)

    class Boom:
        name = "boom"

        def act(self, obs: Observation) -> int:
            raise KeyError("x")

    with pytest.raises(AgentError, match="agent 'boom' \\(seat 1\\) raised KeyError in phase bidding"):
        play_game([RandomAgent(), Boom(), RandomAgent()], seed=1)

    class BoolAgent:
        name = "bools"

        def act(self, obs: Observation) -> int:
            return True  # type: ignore[return-value]

    with pytest.raises(IllegalActionError, match="True"):
        play_game([RandomAgent(), BoolAgent(), RandomAgent()], seed=1)
    r = RandomAgent()
    with pytest.raises(ValueError, match="distinct agent object for each seat"):
        play_game([r, r, RandomAgent()], seed=1)
    with pytest.raises(ValueError, match="needs 3 agents"):
        play_game(["random"], seed=1)


def test_table_steps_one_decision_at_a_time() -> None:
    s = SkatState.new_game(seed=8)
    t = Table(["random"] * 3, s, 8)
    seat, action = t.step()
    assert (seat, action) == s.history_with_players()[0]
    g = t.run()
    assert g.state is s and s.is_terminal() and s.history() == play_game(["random"] * 3, seed=8).history()


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_random_agent_is_deterministic_for_any_seed(seed: int) -> None:
    a = play_game(["random"] * 3, seed=seed)
    assert a.history() == play_game(["random"] * 3, seed=seed).history()
    r = RandomAgent()
    r.reset(0, 1, derive_seed(seed, 1))
    assert copy.deepcopy(r)._rng == r._rng
