"""The PettingZoo and Gymnasium wrappers: their libraries' API tests, and the same games as SkatState / the Table."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from agents.learn.envs import AGENT_NAMES  # noqa: E402
from agents.learn.envs.gymnasium import SkatGymEnv  # noqa: E402
from agents.learn.envs.pettingzoo import SkatAECEnv  # noqa: E402
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
