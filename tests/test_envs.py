"""The Gymnasium, PettingZoo and OpenSpiel interfaces: their libraries' own checks and tools
(check_env and gymnasium.make, api_test and parallel_api_test, random_sim_test and OpenSpiel's
bots), and the same games as SkatState / the Table."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

from agents.learn.envs import AGENT_NAMES, GYM_ID  # noqa: E402
from agents.learn.envs.gymnasium import SkatGymEnv  # noqa: E402
from agents.learn.envs.pettingzoo import SkatAECEnv, SkatParallelEnv  # noqa: E402
from agents.arena.play import play  # noqa: E402
from skatsim import SkatRules, SkatState  # noqa: E402
from skatsim.bits import derive_seed  # noqa: E402
from skatsim.vec import IllegalActionError  # noqa: E402


@pytest.mark.parametrize("rules", [SkatRules(), SkatRules(ramsch=True, kontra=True)], ids=["isko", "both"])
def test_pettingzoo_api_test(rules: SkatRules) -> None:
    api_test(SkatAECEnv(rules=rules), num_cycles=200)


def test_pettingzoo_games_are_skatstate_games() -> None:
    env = SkatAECEnv(rules=SkatRules(kontra=True), reward="zero_sum")
    rng = np.random.default_rng(0)
    for seed in range(4):
        env.reset(seed=seed)
        s = SkatState.new_game(seed=derive_seed(seed, 0), rules=SkatRules(kontra=True))
        finals = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            seat = AGENT_NAMES.index(agent)
            assert np.array_equal(obs["observation"], s.observation(seat).tensor)
            if term:
                finals[agent] = reward
                env.step(None)
                continue
            assert s.current_player() == seat
            assert np.array_equal(obs["action_mask"].astype(bool), s.legal_actions_mask())
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            s.apply_action(a)
            env.step(a)
        assert s.is_terminal()
        assert [finals[a] for a in AGENT_NAMES] == s.returns("zero_sum")


def test_pettingzoo_illegal_action_raises() -> None:
    env = SkatAECEnv()
    env.reset(seed=2)
    with pytest.raises(IllegalActionError):
        env.step(97)  # pickup during the bidding


@pytest.mark.parametrize("seat,opponents", [(1, ["rule_based", "random"]), (0, ["rule_based", "pimc:worlds=2"])])
def test_gymnasium_check_env(seat: int, opponents: list[str]) -> None:
    check_env(SkatGymEnv(seat=seat, opponents=opponents))


class _First:
    """The learner's policy of the test, as an agent for the Table."""

    name = "first"

    def act(self, obs) -> int:
        return obs.legal_actions[len(obs.legal_actions) // 2]


@pytest.mark.parametrize("seat", [0, 2])
def test_gymnasium_games_are_table_games(seat: int) -> None:
    opp = ["rule_based", "pimc:worlds=2"]
    env = SkatGymEnv(seat=seat, opponents=opp, reward="list")
    for seed in (5, 6):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"]).tolist()
            obs, reward, done, trunc, info = env.step(legal[len(legal) // 2])
        agents = list(opp)
        agents.insert(seat, _First())
        g = play(agents, seed=derive_seed(seed, 0))
        assert env.vec.history[0, :env.vec.n_actions[0]].tolist() == g.state.history()
        assert reward == g.state.returns("list")[seat]


def test_gymnasium_illegal_action_forfeits_or_raises() -> None:
    env = SkatGymEnv(seat=1, opponents=["rule_based", "rule_based"])
    env.reset(seed=1)
    obs, reward, done, _, info = env.step(97)  # illegal in the bidding: a pass, the game goes on
    assert info["illegal_action"] and env.vec.history[0, 0] == 95 or done
    strict = SkatGymEnv(seat=1, opponents=["rule_based", "rule_based"], illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(97)


# ----------------------------------------------------------------------------- Gymnasium conventions


def test_gymnasium_make_by_id_with_its_spec() -> None:
    import gymnasium

    env = gymnasium.make(GYM_ID, seat=1, opponents=["random", "rule_based"])
    assert env.spec is not None and env.spec.id == GYM_ID
    assert env.spec.entry_point == "agents.learn.envs.gymnasium:SkatGymEnv" and env.spec.kwargs["seat"] == 1
    assert env.unwrapped.seat == 1 and env.unwrapped.opponents[0].name == "random"
    obs, info = env.reset(seed=4)
    assert obs.shape == (574,) and info["action_mask"].any()
    env.close()
    # the module-prefixed id imports the registering module itself
    assert gymnasium.make("agents.learn.envs:skatsim/Skat-v0").spec.id == GYM_ID


@pytest.mark.parametrize("observation", ["array", "dict"])
def test_gymnasium_check_env_and_the_masks_everywhere(observation: str) -> None:
    import gymnasium

    env = gymnasium.make(GYM_ID, seat=2, opponents=["rule_based", "random"], observation=observation).unwrapped
    check_env(env)  # made by id: the checker also tries the render modes of the spec
    obs, info = env.reset(seed=9)
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and np.array_equal(mask, info["action_mask"].astype(bool)) and mask.any()
        if observation == "dict":
            assert np.array_equal(obs["action_mask"], info["action_mask"]) and obs["observation"].shape == (574,)
            assert env.observation_space.contains(obs)
        obs, reward, done, _, info = env.step(int(np.flatnonzero(mask)[-1]))
    assert not env.action_masks().any() and "result" in info


def test_gymnasium_final_info_is_the_games_result() -> None:
    env = SkatGymEnv(seat=0, opponents=["rule_based", "rule_based"], reward="sf")
    seen = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert "result" not in info
            legal = np.flatnonzero(info["action_mask"]).tolist()
            obs, reward, done, _, info = env.step(legal[len(legal) // 2])
        r = info["result"]
        s = SkatState.new_game(seed=derive_seed(seed, 0))
        for a in env.vec.history[0, :env.vec.n_actions[0]].tolist():
            s.apply_action(a)
        want = s.result.to_row()
        for key in ("contract", "declarer", "won", "declarer_points", "game_value", "list_score", "score_0",
                    "sf_0", "sf_1", "sf_2", "points_1"):
            assert r[key] == want[key], (seed, key, r[key], want[key])
        assert reward == r["sf_0"] and isinstance(r["won"], bool)
        seen.add(r["contract"])
    assert len(seen) > 2  # passed-in and declared games both came


def test_gymnasium_forfeit_reports_the_settled_result() -> None:
    env = SkatGymEnv(seat=0, opponents=["rule_based", "rule_based"])
    for seed in range(40):  # a deal where the learner plays a card
        obs, info = env.reset(seed=seed)
        done = False
        while not done and env.vec.state[0, 0] != 5:
            legal = np.flatnonzero(info["action_mask"]).tolist()
            obs, reward, done, _, info = env.step(legal[0])
        if not done:
            break
    obs, reward, done, _, info = env.step(96)  # 'yes' in the card play: illegal, settled against the learner
    assert done and info["illegal_action"] and "result" in info and reward == info["result"]["sf_0"]


# ----------------------------------------------------------------------------- PettingZoo conventions


@pytest.mark.parametrize("rules", [SkatRules(), SkatRules(ramsch=True, kontra=True)], ids=["isko", "both"])
def test_pettingzoo_parallel_api_test(rules: SkatRules) -> None:
    parallel_api_test(SkatParallelEnv(rules=rules), num_cycles=200)


def test_pettingzoo_names_follow_the_convention() -> None:
    import re
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # api_test warns about names that are not like player_0
        for name in AGENT_NAMES:
            assert re.fullmatch("[a-z]+_[0-9]+", name)
    assert SkatAECEnv().possible_agents == SkatParallelEnv().possible_agents == ["player_0", "player_1", "player_2"]


def test_pettingzoo_parallel_games_are_the_aec_games() -> None:
    aec, par = SkatAECEnv(reward="zero_sum"), SkatParallelEnv(reward="zero_sum")
    rng = np.random.default_rng(3)
    for seed in range(5):
        aec.reset(seed=seed)
        obs, _ = par.reset(seed=seed)
        finals = {}
        for agent in aec.agent_iter():
            o, reward, term, _, info = aec.last()
            if term:
                finals[agent] = (reward, info["result"])
                aec.step(None)
                continue
            assert np.array_equal(o["observation"], obs[agent]["observation"])
            movers = [a for a, x in obs.items() if x["action_mask"].any()]
            assert movers == [agent] and np.array_equal(o["action_mask"], obs[agent]["action_mask"])
            a = int(rng.choice(np.flatnonzero(o["action_mask"])))
            aec.step(a)
            obs, rewards, terms, _, infos = par.step({x: a if x == agent else 0 for x in par.agents})
        assert par.agents == [] and all(terms.values())
        assert {x: (rewards[x], infos[x]["result"]) for x in AGENT_NAMES} == finals
        assert sum(rewards.values()) == pytest.approx(0)


def test_pettingzoo_parallel_needs_the_movers_action() -> None:
    env = SkatParallelEnv()
    obs, _ = env.reset(seed=1)
    idle = [a for a, o in obs.items() if not o["action_mask"].any()]
    with pytest.raises(ValueError, match="is to act"):
        env.step({idle[0]: 0})


# ----------------------------------------------------------------------------- OpenSpiel


def _pyspiel():
    pyspiel = pytest.importorskip("pyspiel")
    import agents.learn.envs.openspiel  # noqa: F401  (registers the game)

    return pyspiel


@pytest.mark.parametrize("name", ["skatsim", "skatsim(returns=sf,kontra=true,ramsch=true)",
                                  "skatsim(returns=list)"])
def test_openspiel_game_checks(name: str) -> None:
    pyspiel = _pyspiel()
    game = pyspiel.load_game(name)
    assert game.num_players() == 3 and game.num_distinct_actions() == 130 and game.max_chance_outcomes() == 32
    pyspiel.random_sim_test(game, num_sims=4, serialize=False, verbose=False)


def test_openspiel_games_are_skatstate_games() -> None:
    pyspiel = _pyspiel()
    from skatsim.deal import deal_from_order

    game = pyspiel.load_game("skatsim(kontra=true)")
    rng = np.random.default_rng(5)
    for _ in range(5):
        state = game.new_initial_state()
        order = []
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            c = int(rng.choice([o for o, _ in outcomes]))
            order.append(c)
            state.apply_action(c)
        s = SkatState.new_game(deal=deal_from_order(order), rules=SkatRules(kontra=True))
        while not state.is_terminal():
            assert state.current_player() == s.current_player() and state.legal_actions() == s.legal_actions()
            for p in range(3):
                assert np.array_equal(state.observation_tensor(p), s.observation_tensor(p))
            a = int(rng.choice(state.legal_actions()))
            assert state.action_to_string(a) == s.action_to_string(a)
            state.apply_action(a)
            s.apply_action(a)
        assert state.returns() == s.returns("zero_sum")


def test_openspiel_information_states_hide_what_a_seat_cannot_see() -> None:
    pyspiel = _pyspiel()
    game = pyspiel.load_game("skatsim")
    assert game.information_state_tensor_shape() == [game.information_state_tensor_size()]
    rng = np.random.default_rng(11)
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
                continue
            p = state.current_player()
            skat = state.skat
            for seat in range(3):  # the others' cards are in no string of this seat's
                text = state.information_state_string(seat)
                assert text.startswith(f"seat {seat} | hand {skat.deal.hands[seat].to_text()}")
                assert len(state.information_state_tensor(seat)) == game.information_state_tensor_size()
            hidden = [seat for seat in range(3) if seat != p]
            before = {seat: state.information_state_string(seat) for seat in hidden}
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.skat is not None and state.skat.phase_history()[-1][2] == "discard":
                for seat in hidden:  # a discard is hidden from the others
                    assert state.information_state_string(seat) == before[seat] + ("" if before[seat].endswith(
                        " ") else " ") + f"{p}:?"
        strings = [state.information_state_string(seat) for seat in range(3)]
        assert len(set(strings)) == 3


def test_openspiels_bots_play_it() -> None:
    """OpenSpiel's own bots, unchanged: its C++ uniform random bots through its C++ loop
    (evaluate_bots), its Python MCTS bot with a random-rollout evaluator, and its C++ MCTS
    bot."""
    pyspiel = _pyspiel()
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    game = pyspiel.load_game("skatsim")
    for seed in range(3):
        bots = [pyspiel.make_uniform_random_bot(p, 10 * seed + p) for p in range(3)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert len(returns) == 3 and sum(returns) == pytest.approx(0)
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=10, evaluator=evaluator, random_state=rs),
            uniform_random.UniformRandomBot(1, rs), uniform_random.UniformRandomBot(2, rs)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rs.choice([o for o, _ in state.chance_outcomes()])))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    assert sum(state.returns()) == pytest.approx(0)
    cpp_mcts = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 3), 2.0, 10, 1000, False, 5, False)
    returns = pyspiel.evaluate_bots(game.new_initial_state(),
                                    [cpp_mcts, pyspiel.make_uniform_random_bot(1, 1),
                                     pyspiel.make_uniform_random_bot(2, 2)], 7)
    assert sum(returns) == pytest.approx(0)
