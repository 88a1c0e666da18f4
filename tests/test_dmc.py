"""The DMC player (agents/players/dmc.py) and its trainer (agents/learn/dmc.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents import make_agent  # noqa: E402
from agents.players.dmc import (DMCModel, DMCNet, CheckpointError, PERM, canonical, load_model, load_net,  # noqa: E402
                        role_of_rows, rule_based_actions, save_checkpoint)
from skatsim import SkatState  # noqa: E402
from skatsim.kernels.observe import OBS_LAYOUT  # noqa: E402


def _off(name: str) -> tuple[int, int]:
    o = 0
    for n, s in OBS_LAYOUT:
        if n == name:
            return o, s
        o += s
    raise KeyError(name)


def _tiny_model(tmp_path: Path, hidden=(16, 8), phases=("play",), seed: int = 0) -> Path:
    import torch

    torch.manual_seed(seed)
    net = DMCNet(hidden)
    save_checkpoint(net, tmp_path / "tiny", phases=phases)
    return tmp_path / "tiny"


def _played_state(seed: int, steps: int) -> SkatState:
    s = SkatState.new_game(seed=seed)
    rb = make_agent("rule_based")
    rb.reset(0, 0, 1)
    for _ in range(steps):
        if s.is_terminal():
            break
        p = s.current_player()
        s.apply_action(int(rb.act(s.observation(p))))
    return s


def test_canonical_rotates_the_seat_blocks():
    s = _played_state(3, 20)  # in the card play, some cards played
    x = np.stack([s.observation(p).tensor for p in range(3)])
    c = canonical(x)
    o, n = _off("played")
    for p in range(3):
        for r in range(3):   # block r of seat p's canonical view = seat (p + r) % 3's cards
            src = (p + r) % 3
            assert np.array_equal(c[p, o + r * 32:o + (r + 1) * 32], x[p, o + src * 32:o + (src + 1) * 32])
    o, n = _off("hand")
    assert np.array_equal(c[:, o:o + n], x[:, o:o + n])  # not a seat block
    assert sorted(PERM[1].tolist()) == list(range(x.shape[1]))  # a permutation


def test_roles_follow_the_declarer():
    s = _played_state(3, 20)
    d = s.declarer
    x = np.stack([s.observation(p).tensor for p in range(3)])
    assert role_of_rows(x).tolist() == [(p - d) % 3 for p in range(3)]
    x0 = SkatState.new_game(seed=1).observation(1).tensor[None, :]
    assert role_of_rows(x0).tolist() == [-1]


def test_rule_based_actions_are_the_rule_based_games():
    """Every phase by the compiled helper on caller seats = simulate(policy="rule_based")."""
    from skatsim.simulate import simulate
    from skatsim.vec import VecEnv

    n = 40
    env = VecEnv(n, seed=11, auto_reset=False)
    env.reset()
    done = np.zeros(n, bool)
    res = np.zeros(n, dtype=env.last_results.dtype)
    for _ in range(200):
        a = rule_based_actions(env, ("bidding", "skat", "discard", "declare", "kontra", "play"))
        if (env.to_move < 0).all():
            break
        env.step(a)
        for i in np.flatnonzero(env.done):
            res[i] = env.last_results[i]
            done[i] = True
    assert done.all()
    sim = simulate(n, policy="rule_based", seed=11, progress=False)
    assert np.array_equal(res["sf_0"], sim["sf_0"].to_numpy())
    assert np.array_equal(res["declarer"], sim["declarer"].to_numpy())


def test_checkpoint_round_trip(tmp_path):
    import torch

    path = _tiny_model(tmp_path)
    sd = torch.load(path.with_name("tiny.pt"), weights_only=True)
    net, meta = load_net(path)
    assert meta["phases"] == ["play"] and meta["hidden"] == [16, 8]
    assert all(torch.equal(sd[k], v) for k, v in net.state_dict().items())
    m = DMCModel(net, meta)
    x = np.stack([_played_state(3, 18).observation(p).tensor for p in range(3)])
    assert np.allclose(m.q_rows(x), m.q_torch(x), atol=1e-5)
    js = json.loads(path.with_name("tiny.json").read_text())
    js["layout_version"] = 99
    path.with_name("tiny.json").write_text(json.dumps(js))
    with pytest.raises(CheckpointError, match="layout"):
        load_net(path)
    with pytest.raises(CheckpointError, match="no DMC checkpoint"):
        load_net(tmp_path / "missing")


def test_act_batch_decides_what_act_decides(tmp_path):
    from agents.players.dmc import DMCAgent

    model = load_model(_tiny_model(tmp_path, phases=("bidding", "skat", "discard", "declare", "play")))
    a = DMCAgent(model=model, early="model")
    obs = []
    for seed in range(6):
        s = SkatState.new_game(seed=seed)
        rb = make_agent("rule_based")
        rb.reset(0, 0, 1)
        while not s.is_terminal():
            p = s.current_player()
            ob = s.observation(p)
            obs.append(ob)
            s.apply_action(int(rb.act(ob)))
    x = np.stack([o.tensor for o in obs])
    m = np.zeros((len(obs), 130), bool)
    for i, o in enumerate(obs):
        m[i, list(o.legal_actions)] = True
    batch = a.act_batch(x, m)
    single = [a.act(o) for o in obs]
    assert batch.tolist() == single
    assert all(b in o.legal_actions for b, o in zip(batch.tolist(), obs))
    # halves of the batch decide alike (no dependence on the other rows)
    h = len(obs) // 2
    assert a.act_batch(x[:h], m[:h]).tolist() == single[:h]


def test_card_play_model_delegates_the_early_decisions(tmp_path):
    from agents.players.dmc import DMCAgent

    a = DMCAgent(model=str(_tiny_model(tmp_path)))
    s = SkatState.new_game(seed=2)
    ob = s.observation(s.current_player())
    m = np.zeros((1, 130), bool)
    m[0, list(ob.legal_actions)] = True
    assert a.act_batch(ob.tensor[None, :], m).tolist() == [-1]  # bidding: the rule-based delegate
    with pytest.raises(ValueError, match="did not learn"):
        DMCAgent(model=str(_tiny_model(tmp_path)), early="model")


def test_registry_checks_parameters():
    from agents import AgentSpec

    with pytest.raises(ValueError, match="early"):
        AgentSpec("dmc", {"early": "nonsense"})
    with pytest.raises(ValueError, match="checkpoint"):
        AgentSpec("dmc", {"model": "/nonexistent/model"})


def test_shared_agent_test():
    from agents.arena.testing import agent_api_test

    r = agent_api_test("dmc", n_deals=4, hidden_deals=1)
    assert "play" in r["phases"]


@pytest.mark.parametrize("name", ["dmc_v1", "dmc_v3", "dmc_all_v1"])
def test_every_shipped_model_passes_the_shared_agent_test(name):
    from agents.arena.testing import agent_api_test

    root = Path(__file__).resolve().parents[1]
    r = agent_api_test(lambda: make_agent("dmc", model=str(root / "agents" / "models" / name)), n_deals=2,
                       hidden_deals=1)
    assert "play" in r["phases"]


@pytest.mark.slow
def test_hybrid_shared_agent_test():
    from agents.arena.testing import agent_api_test

    r = agent_api_test(lambda: make_agent("dmc", declarer_play="rule_based"), n_deals=4, hidden_deals=1)
    assert "play" in r["phases"]


def test_play_boards_matches_the_table():
    from agents.arena.play import play
    from agents.arena.vecplay import play_boards

    boards = [(100 + i, i, ("dmc", "rule_based", "dmc")) for i in range(6)]
    df = play_boards(boards)
    for i in range(6):
        g = play(["dmc", "rule_based", "dmc"], seed=100 + i)
        k = int(df["n_actions"].iloc[i])
        assert df.attrs["actions"][i, :k].tolist() == g.state.history()


def test_tiny_training_makes_a_checkpoint_that_plays(tmp_path, monkeypatch, capsys):
    from agents.arena.play import play_game
    from agents.learn import dmc as train_dmc

    monkeypatch.chdir(tmp_path)
    rc = train_dmc.main(["--set", "model.hidden=[32]", "--set", "actors.games=64", "--set", "actors.steps=40",
                         "--set", "train.frames=3000", "--set", "train.batch_size=256", "--set", "eval.deals=2",
                         "--set", "eval.every_frames=2000", "--set", "study=tiny", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0, out
    runs = list((tmp_path / "runs").glob("tiny__0__*"))
    assert len(runs) == 1
    run = runs[0]
    for f in ("model.pt", "model.json", "checkpoint.pt", "log.parquet", "curve.png", "manifest.json"):
        assert (run / f).is_file(), f
    import pandas as pd

    log = pd.read_parquet(run / "log.parquet")
    assert log["frames"].max() >= 3000 and log["eval_margin"].notna().sum() >= 2
    g = play_game([make_agent("dmc", model=str(run / "model")), "rule_based", "rule_based"], seed=4)
    assert g.is_terminal()
    # a finished run resumes to nothing; shipping an existing name is refused before work
    assert train_dmc.main(["--resume", str(run)]) == 0
    assert train_dmc.main(["--ship", "dmc_v1", "--set", "train.frames=10"]) == 2
    assert "exists" in capsys.readouterr().err


def test_resume_goes_on_from_the_checkpoint(tmp_path, monkeypatch):
    import torch

    from agents.learn import dmc as train_dmc

    monkeypatch.chdir(tmp_path)
    cfg = train_dmc.load_config(None, ["model.hidden=[16]", "actors.games=32", "actors.steps=40",
                                       "train.frames=1000", "train.batch_size=128", "eval.deals=0"])
    s = train_dmc.train(cfg, progress=False)
    ck = torch.load(Path(s["run_dir"]) / "checkpoint.pt", weights_only=True)
    f1 = int(ck["frames"])
    assert f1 >= 1000
    cfg["train"]["frames"] = f1 + 500
    from skatsim.runs import write_manifest

    write_manifest(s["run_dir"], train_dmc.KIND, cfg, status="running")
    s2 = train_dmc.train(cfg, resume=s["run_dir"], progress=False)
    assert s2["frames"] >= f1 + 500 and s2["games"] > s["games"]


def test_resume_with_a_larger_budget_goes_on_past_a_finished_run(tmp_path, monkeypatch, capsys):
    from agents.learn import dmc as train_dmc
    from skatsim.runs import read_manifest

    monkeypatch.chdir(tmp_path)
    small = ["model.hidden=[16]", "actors.games=32", "actors.steps=40", "train.frames=600",
             "train.batch_size=128", "eval.deals=0"]
    s = train_dmc.train(train_dmc.load_config(None, small), progress=False)
    run = s["run_dir"]
    assert read_manifest(run)["status"] == "complete"
    assert train_dmc.main(["--resume", str(tmp_path / "no_such_run")]) == 2  # a message, no traceback
    assert "not a skatsim run directory" in capsys.readouterr().err
    assert train_dmc.main(["--resume", run, "--set", "train.lr=0.1"]) == 2  # only the budget may change
    assert train_dmc.main(["--resume", run, "--set", "train.frames=500"]) == 2  # and only upwards
    assert "not above" in capsys.readouterr().err
    assert train_dmc.main(["--resume", run, "--set", f"train.frames={s['frames'] + 400}", "--no-progress"]) == 0
    m = read_manifest(run)
    assert m["status"] == "complete" and m["config"]["train"]["frames"] == s["frames"] + 400
    assert m["frames"] >= s["frames"] + 400 and m["games"] > s["games"]


def test_a_kill_during_a_checkpoint_write_waits_for_the_write(tmp_path, monkeypatch, capsys):
    """SIGTERM while ``save`` writes (here: inside the curve plot) is deferred to the end of
    the write; then the run stops with a whole checkpoint and resumes from it."""
    import os
    import signal

    from agents.learn import dmc as train_dmc

    monkeypatch.chdir(tmp_path)
    real = train_dmc.plot_curve
    sent: list[int] = []
    done: list[int] = []

    def plot_and_get_killed(*args, **kw):
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives in the middle of the write
        real(*args, **kw)
        done.append(1)

    monkeypatch.setattr(train_dmc, "plot_curve", plot_and_get_killed)
    args = ["--no-progress", "--set", "model.hidden=[16]", "--set", "actors.games=16", "--set", "actors.steps=20",
            "--set", "train.frames=100000000", "--set", "eval.deals=0", "--set", "checkpoint_seconds=0"]
    assert train_dmc.main(args) == 130
    assert "the checkpoint is kept" in capsys.readouterr().err
    assert len(done) == 2  # the write the signal came into went to its end, then the interrupted run's save
    (run,) = tmp_path.glob("runs/train_dmc*")
    assert (run / "checkpoint.pt").is_file() and (run / "curve.png").is_file()
    assert signal.getsignal(signal.SIGTERM) is not None and not train_dmc._SIGNALS["saving"]
    import torch

    assert int(torch.load(run / "checkpoint.pt", weights_only=True)["frames"]) > 0


def test_solver_targets_label_every_legal_card_with_the_open_hand_score(tmp_path, monkeypatch):
    """targets='solver': each card-play row has, for every legal card, the mover's SF score
    of the open-hand outcome after it (the solver's verdict settled at the contract's value)."""
    from agents.learn import dmc as train_dmc
    from skatsim.kernels import game as K
    from skatsim.scoring import matadors_of, settle_core, sf_points
    from skatsim.solver import Solver

    monkeypatch.chdir(tmp_path)
    cfg = train_dmc.load_config(None, ["model.hidden=[16]", "actors.games=24", "actors.steps=60", "targets=solver",
                                       "train.frames=50", "train.batch_size=64", "eval.deals=0"])
    actor = train_dmc.Actor(cfg, 0)
    cap = []
    orig = actor.solver.state_values

    def spy(st, **kw):
        cap.append(st.copy())
        return orig(st, **kw)

    actor.solver.state_values = spy
    data = actor.collect()
    st = cap[0]
    assert len(data["obs"]) > 50 and data["target"].shape == (len(data["obs"]), 130)
    vals = Solver().state_values(st, node_limit=cfg["solver"]["node_limit"])
    ok = ~(vals == -2).any(axis=1)
    st, vals = st[ok], vals[ok]
    for i in range(0, len(st), 7):
        s, v = st[i], vals[i]
        g, d, p = int(s[K.F_GAME]), int(s[K.F_DECLARER]), int(s[K.F_PLAYER])
        mat = int(matadors_of(int(s[K.F_DEALT0 + d] | s[K.F_DEALT_SKAT]), g))
        pts = {1: 61, 0: 60} if g != 5 else {1: 0, 0: 0}
        tricks = {1: 5, 0: 5} if g != 5 else {1: 0, 0: 1}
        for c in range(32):
            legal = data["mask"][i, c]
            assert legal == (v[c] >= 0)
            if legal and not s[K.F_FLAGS] & 6:  # no schneider / schwarz announced
                r = settle_core(g, int(s[K.F_FLAGS]), mat, int(s[K.F_BID]), pts[v[c]], tricks[v[c]], 0)
                assert data["target"][i, c] == sf_points(r[0], r[7], p, d)
    assert np.allclose(data["ret"], np.where(data["mask"], data["target"], -np.inf).max(axis=1))
    s = train_dmc.train(cfg, progress=False)  # and a training run on these labels goes through
    assert s["frames"] >= 50


def test_a_resumed_run_deals_a_fresh_stream(tmp_path, monkeypatch):
    from agents.learn import dmc as train_dmc

    monkeypatch.chdir(tmp_path)
    cfg = train_dmc.load_config(None, ["model.hidden=[8]", "actors.games=8"])
    first = train_dmc.Actor(cfg, 0).env.state[:, :4].copy()
    assert (train_dmc.Actor(cfg, 0).env.state[:, :4] == first).all()
    assert not (train_dmc.Actor(cfg, 0, start_round=7).env.state[:, :4] == first).all()


def test_solver_loss_weighs_the_differences_between_cards():
    import torch

    from agents.learn.dmc import dd_agreement, solver_loss

    t = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    m = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    shifted = t + torch.tensor([[0.3], [-0.2]])  # right differences, wrong levels
    assert torch.isclose(solver_loss(shifted, t, m, 0.0), solver_loss(shifted, t, m, 5.0))
    assert float(solver_loss(t, t, m, 5.0)) == 0.0
    swapped = torch.tensor([[0.0, 1.0, 9.0], [0.5, 0.5, 0.0]])  # the illegal third card of row 0 is ignored
    assert float(solver_loss(swapped, t, m, 5.0)) > float(solver_loss(swapped, t, m, 0.0)) > 0
    r = dd_agreement(swapped.numpy(), t.numpy(), m.numpy().astype(bool))
    assert r["dd_positions"] == 2 and r["dd_optimal"] == 0.5 and r["dd_regret"] == 0.5


def test_solver_agreement_judges_the_rule_based_cards(capsys):
    from experiments import dmc_solver_agreement as A

    d = A.labelled_positions(12, seed=3)
    n = len(d["target"])
    assert n > 50 and d["mask"][np.arange(n), d["rule_based"]].all()  # the rule-based card is legal
    rows = A.score(d["rule_based"], d["target"], d["mask"], d["role"])
    assert rows[0][1] == sum(r[1] for r in rows[1:]) > 0 and 0 < rows[0][2] <= 1
    best = np.argmax(np.where(d["mask"], d["target"], -np.inf), axis=1)
    assert A.score(best, d["target"], d["mask"], d["role"])[0][2:] == (1.0, 0.0)  # the solver's own card
    q = np.where(d["mask"], d["target"] / 100.0, -1.0).astype(np.float32)
    assert (A.choices(q, d["mask"], d["rule_based"], 1e9) == d["rule_based"]).all()  # full trust: rule-based
    assert A.main(["--games", "6", "--seed", "3"]) == 0
    assert "| rule_based | all |" in capsys.readouterr().out


def test_state_values_are_the_solvers_move_values():
    """Solver.state_values on engine rows equals solve(move_values=True) against the announced goal."""
    from skatsim.solver import Solver, solve, target_for

    rows, states = [], []
    for seed in range(40):
        s = _played_state(seed, 12 + seed % 9)
        if s.phase == "play" and s.declarer is not None and s.game_type <= 5:
            rows.append(np.array(s.vector))
            states.append(s)
    assert len({s.game_type for s in states}) >= 3
    got = Solver().state_values(np.stack(rows))
    for s, v in zip(states, got):
        want = solve(s, mode="threshold", threshold=target_for(s.contract), move_values=True).move_values
        assert {c: int(v[c]) for c in range(32) if v[c] >= 0} == want
    with pytest.raises(ValueError, match="play phase"):
        Solver().state_values(np.array(SkatState.new_game(seed=1).vector)[None, :])


@pytest.mark.parametrize("override, message", [
    ("targets=labels", "targets must be"), ("learn=all targets=solver", "card play only"),
    ("learn=cards", "learn must be"), ("actors.epsilon=2", "epsilon"), ("train.lr=\"fast\"", "must be a number"),
    ("model.hidden=[]", "hidden"), ("nonsense=1", "unknown config key"), ("actors.mix=[0,0,0]", "mix"),
])
def test_bad_settings_are_refused_before_work(override, message, capsys):
    from agents.learn import dmc as train_dmc

    sets = [x for o in override.split() for x in ("--set", o)]
    assert train_dmc.main(sets) == 2
    assert message in capsys.readouterr().err


def test_full_trust_plays_like_the_rule_based_player():
    from agents.arena.play import play

    for seed in (4, 9, 12):
        a = play([make_agent("dmc", trust=999.0), "rule_based", make_agent("dmc", trust=999.0)], seed=seed)
        b = play(["rule_based"] * 3, seed=seed)
        assert a.state.history() == b.state.history()


@pytest.mark.slow
def test_every_phase_model_passes_the_shared_agent_test():
    from agents.players.dmc import default_model_path
    from agents.arena.testing import agent_api_test

    path = default_model_path().with_name("dmc_all_v1")
    r = agent_api_test(lambda: make_agent("dmc", model=str(path), early="model"), n_deals=3, hidden_deals=1)
    assert {"bidding", "declare", "play"} <= set(r["phases"])


@pytest.mark.slow
def test_ray_actors_train(tmp_path, monkeypatch, capsys):
    pytest.importorskip("ray")
    from agents.learn import dmc as train_dmc

    monkeypatch.chdir(tmp_path)
    rc = train_dmc.main(["--set", "model.hidden=[16]", "--set", "actors.games=32", "--set", "actors.steps=40",
                         "--set", "train.frames=1500", "--set", "eval.deals=0", "--set", "study=ray",
                         "--address", "local", "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    import ray

    ray.shutdown()
    assert len(list((tmp_path / "runs").glob("ray__0__*/model.pt"))) == 1


def test_cli_train_dmc_small_budget_makes_a_checkpoint_that_plays(tmp_path, monkeypatch, capsys):
    """The newcomer's path: ``skatsim train-dmc`` for a tiny budget writes a run whose model
    ``skatsim tournament`` plays with ``dmc:model=<run>/model``; mistakes are one-line exit 2."""
    from skatsim_app.cli import main

    monkeypatch.chdir(tmp_path)
    cfg = str(ROOT / "experiments" / "configs" / "train_dmc_small.json")
    rc = main(["train-dmc", "--config", cfg, "--set", "model.hidden=[32]", "--set", "actors.games=64",
               "--set", "actors.steps=40", "--set", "train.frames=2000", "--set", "train.batch_size=256",
               "--set", "train.threads=1", "--set", "eval.deals=0",
               "--out", "myruns", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0, out
    line = next(x for x in out.splitlines() if x.startswith("the model plays as: "))
    spec = line.removeprefix("the model plays as: ")
    run = Path(spec.removeprefix("dmc:model=")).parent
    assert run.parent.name == "myruns" and run.name.startswith("train_dmc_small__0__")
    assert (tmp_path / run / "model.pt").is_file() and (tmp_path / run / "checkpoint.pt").is_file()
    rc = main(["tournament", spec, "rule_based", "--deals", "2", "--workers", "1", "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["train-dmc", "--config", cfg, "--set", "train.frames=abc"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("skatsim train-dmc: error: ") and "\n" not in err and "must be an int" in err, err
    with pytest.raises(SystemExit) as e:
        main(["train-dmc", "--help"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("usage: skatsim train-dmc")
