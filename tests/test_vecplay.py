"""agents.arena.vecplay: boards through the vectorised environment equal the Table's and simulate()'s games."""

from __future__ import annotations

import numpy as np
import pytest

from agents import register
from agents.arena.base import unregister
from agents.arena.play import play
from agents.arena.vecplay import ROW_COLUMNS, play_boards
from skatsim import SkatRules
from skatsim.actions import PASS
from skatsim.bits import derive_seed
from skatsim.simulate import RESULT_DTYPE, simulate

_SKIP = ("deal_index", "deal_seed", "n_actions")


def assert_same_as_table(df, boards, rules=SkatRules()) -> None:
    assert list(df.columns) == list(ROW_COLUMNS)
    for b, (ds, did, agents) in enumerate(boards):
        g = play(list(agents), seed=ds, rules=rules, deal_id=did, on_error="forfeit")
        h = g.state.history()
        row = df.iloc[b]
        assert df.attrs["actions"][b, :len(h)].tolist() == h, f"board {b}"
        assert int(row["n_actions"]) == len(h)
        assert (int(row["deal_index"]), int(row["deal_seed"]), int(row["deal_id"])) == (did, ds, did)
        res = g.result.to_row()
        for k, v in res.items():
            if k in RESULT_DTYPE.names and k not in _SKIP:
                assert row[k] == v, (b, k)
        assert str(row["contract"]) == res["contract"]
        assert row["auction"] == " ".join(f"{p}:{g.state.action_to_string(a)}" for p, a in g.state.bidding_history())
        assert row["error"] == g.error_text and int(row["error_seats"]) == g.error_seats


ALL = ["random", "rule_based", "rule_based:max_bid=20", "pimc:worlds=4", "neural_bidder"]


def test_every_registered_agent_plays_the_tables_games() -> None:
    boards = [(derive_seed(3, k), k, agents) for k, agents in enumerate([
        ("random", "rule_based", "rule_based:max_bid=20"),
        ("pimc:worlds=4", "rule_based", "random"),
        ("neural_bidder", "random", "rule_based"),
        ("rule_based", "neural_bidder", "pimc:worlds=4"),
        ("neural_bidder", "neural_bidder:card_play=pimc,pimc_worlds=4", "rule_based"),
        ("random", "random", "random"),
    ])]
    df = play_boards(boards, slots=4)
    assert_same_as_table(df, boards)
    assert df["time_0"].isna().iloc[0] and df["time_0"].iloc[1] > 0  # compiled seats are not timed


@pytest.mark.parametrize("rules", [SkatRules(kontra=True), SkatRules(ramsch=True)], ids=["kontra", "ramsch"])
def test_rule_variants(rules: SkatRules) -> None:
    boards = [(derive_seed(9, k), k, a) for k, a in enumerate([("neural_bidder", "random", "rule_based")] * 3
                                                            + [("random", "rule_based", "random")] * 20)]
    assert_same_as_table(play_boards(boards, rules=rules, slots=8), boards, rules)


def test_compiled_boards_are_simulate_rows() -> None:
    arrs = [("random", "rule_based", "rule_based"), ("rule_based:max_bid=30", "random", "random"), ("random",) * 3]
    n = 300
    for arr in arrs:
        boards = [(derive_seed(17, i), i, arr) for i in range(n)]
        df = play_boards(boards, slots=64)
        from agents.arena.base import AgentSpec

        sim = simulate(n, policy=[AgentSpec.parse(a).engine_policy() for a in arr], seed=17, workers=1,
                       record_actions=True)
        for c in RESULT_DTYPE.names:
            assert (df[c].to_numpy() == sim[c].to_numpy()).all(), (arr, c)
        assert (df["contract"].astype(str).to_numpy() == sim["contract"].astype(str).to_numpy()).all()
        assert np.array_equal(df.attrs["actions"], sim.attrs["actions"])


# ----------------------------------------------------------------------------- errors


class _Bad:
    """Fails in a chosen phase: raises, or returns an illegal action."""

    def __init__(self, phase: str = "play", how: str = "raise") -> None:
        from agents.players.rule_based import RuleBasedAgent

        self.name = f"bad_{how}_{phase}"
        self.phase, self.how = phase, how
        self._rb = RuleBasedAgent()

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        self._rb.reset(deal_id, seat, rng)

    def act(self, obs):
        if obs.phase == self.phase:
            if self.how == "raise":
                raise RuntimeError("boom")
            return 200
        return self._rb.act(obs)


@pytest.fixture
def bad_agents():
    names = []
    for phase in ("bidding", "play", "declare"):
        for how in ("raise", "illegal"):
            name = f"bad_{how}_{phase}"
            register(name, lambda phase=phase, how=how: _Bad(phase, how), {}, defaults={})
            names.append(name)
    yield names
    for name in names:
        unregister(name)


def test_errors_are_recorded_as_at_the_table(bad_agents) -> None:
    boards = [(derive_seed(5, k), k, (bad, "rule_based", "random") if k % 2 else ("random", bad, "rule_based"))
              for k, bad in enumerate(bad_agents * 3)]
    df = play_boards(boards, slots=5)
    assert_same_as_table(df, boards)
    assert (df["error"] != "").sum() >= len(boards) // 2
    assert "raised RuntimeError in phase" in " ".join(df["error"])


def test_on_error_raise(bad_agents) -> None:
    from agents.arena.play import AgentError

    with pytest.raises(AgentError, match="boom"):
        play_boards([(1, 0, ("bad_raise_bidding", "random", "random"))], on_error="raise")


# ----------------------------------------------------------------------------- batch agents


class _Lowest:
    """A batch agent: the lowest legal action (from the mask), card play deferred to act()."""

    name = "lowest"
    calls: list[int] = []

    def act(self, obs) -> int:
        if obs.phase == "play":
            return obs.legal_actions[-1]
        return obs.legal_actions[0]

    def act_batch(self, observations, legal_masks):
        from skatsim.observation import OBS_OFFSETS

        _Lowest.calls.append(len(observations))
        play = observations[:, OBS_OFFSETS["phase"]].argmax(axis=1) == 5
        out = legal_masks.argmax(axis=1)
        out[play] = -1
        return out


@pytest.fixture
def lowest():
    register("lowest", _Lowest, {}, defaults={})
    _Lowest.calls = []
    yield
    unregister("lowest")


def test_batch_agents_are_asked_once_per_step(lowest) -> None:
    boards = [(derive_seed(2, k), k, ("lowest", "rule_based", "lowest") if k % 3 else ("random", "lowest", "pimc:worlds=2"))
              for k in range(40)]
    df = play_boards(boards, slots=40)
    assert_same_as_table(df, boards)
    steps = len(_Lowest.calls)
    assert sum(_Lowest.calls) > 3 * steps  # many games per call
    assert PASS in df.attrs["actions"]


def test_a_tournament_chunk_has_the_board_runner_s_rows() -> None:
    """A tournament chunk's rows (compiled agents; a Python agent) are play_boards' for the same boards."""
    from agents.arena.tournament import TournamentConfig, arrangements, play_chunk

    for agents, engine in (((("random",), ("rule_based",)), "compiled"), ((("rule_based",), ("neural_bidder",)), "python")):
        from agents.arena.base import AgentSpec

        specs = tuple(AgentSpec(a[0]) for a in agents)
        nb = 6 if engine == "compiled" else 3
        cfg = TournamentConfig(specs, nb, seed=4)
        ref = play_chunk(cfg, 0, nb)
        boards = [(derive_seed(4, i), i, tuple(specs[k] for k in arr)) for i in range(nb) for arr in arrangements(2)]
        df = play_boards(boards, slots=16)
        for c in [c for c in ROW_COLUMNS if c not in ("board", "time_0", "time_1", "time_2", "contract")]:
            assert (df[c].to_numpy() == ref[c].to_numpy()).all(), (engine, c)
        assert (df["contract"].astype(str).to_numpy() == ref["contract"].astype(str).to_numpy()).all()


@pytest.mark.parametrize("model", ["shipped", "auction"])
def test_neural_bidder_act_batch_equals_act(model, tmp_path) -> None:
    """act_batch on the tensors decides what act decides on the typed observations (the
    shipped bid-level model and a model that reads the auction so far)."""
    from agents.players.neural_bidding import BiddingNet, NeuralBidderAgent, save_checkpoint
    from skatsim.vec import VecEnv

    kw = {}
    if model == "auction":
        import torch

        torch.manual_seed(0)
        _, js = save_checkpoint(BiddingNet((32,)), tmp_path / "auction", data_hash="x", context="auction")
        kw = {"model": str(js)}
    batch = NeuralBidderAgent(discard="plans", **kw)
    assert batch.by_bid == (model == "shipped")
    env = VecEnv(16, seed=3, policies=[None, None, "rule_based"])
    env.reset()
    asked = 0
    for _ in range(30):
        movers = np.flatnonzero(env.to_move >= 0)
        got = batch.act_batch(env.obs[movers], env.legal_mask[movers])
        for j, i in enumerate(movers):
            if got[j] >= 0:
                one = NeuralBidderAgent(discard="plans", **kw)
                assert got[j] == one.act(env.observation(int(i), int(env.to_move[i])))
                asked += 1
        env.step(env.random_actions())
    assert asked > 60
