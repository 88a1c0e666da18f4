"""Distillation of PIMC card play: the labels (agents/learn/card_labels.py), the trainer
(agents/learn/distil.py) and the distilled player (agents/players/distilled.py), on a tiny
label run (2 games, 2 worlds per decision)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from agents import make_agent
from agents.arena.play import Table
from agents.arena.testing import agent_api_test
from agents.learn.card_labels import RUN_KIND, CardLabelConfig, generate_card_labels, label_game, read_card_labels
from agents.learn.distil import DistilConfig, load_dataset, train
from agents.players.distilled import DistilledAgent, encode, encode_observation, load_card_model
from agents.players.rule_based import RuleBasedAgent
from skatsim import SkatState
from skatsim.bits import derive_seed, popcount
from skatsim.layout import F_HAND0
from skatsim.runs import RunDir
from skatsim_app.cli import main

CFG = CardLabelConfig(n_games=2, seed=3, worlds=2, early=("rule_based",), shard_size=1)


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("labels") / "run"
    generate_card_labels(out, CFG, workers=1, progress=False)
    return out


@pytest.fixture(scope="module")
def model(labels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("distil") / "run"
    train(_distil_cfg(labels, epochs=1), out, progress=False)
    return out


def _distil_cfg(labels: Path, **kw: Any) -> DistilConfig:
    base = dict(labels=(str(labels),), hidden=(32,), sequence=True, d_model=16, layers=1, heads=2, epochs=1,
                batch=32, val_games=1, device="cpu", threads=1, seed=1)
    base.update(kw)
    return DistilConfig(**base)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- card labels


def test_label_rows_are_legal_card_decisions_with_a_value_per_legal_card(labels: Path) -> None:
    df = read_card_labels(labels)
    assert len(df) >= 20 and sorted(df["game"].unique()) == [0, 1]
    assert (df["deal_seed"] == [derive_seed(CFG.seed, g) for g in df["game"]]).all()
    assert (df["early"] == "rule_based").all()
    for r in df.itertuples(index=False):
        legal = int(r.legal)
        hand = int(r.view[F_HAND0 + r.seat])
        assert popcount(legal) >= 2 and legal & ~hand == 0  # a choice among the mover's own cards
        has_value = ~np.isnan(np.asarray(r.wins))
        assert [c for c in range(32) if has_value[c]] == [c for c in range(32) if legal >> c & 1]
        assert all(0.0 <= r.wins[c] <= 1.0 for c in range(32) if has_value[c])
        assert legal >> int(r.chosen) & 1 and legal >> int(r.rule_based) & 1
        assert 1 <= r.n_worlds <= CFG.worlds and 1 <= r.trick <= 10
        assert len(r.seq) // 3 == r.trick - 1 and not any(hand >> int(c) & 1 for c in r.seq)
        # PIMC plays a card of the best win fraction (its tie-breaks among them)
        assert r.wins[r.chosen] == np.nanmax(np.asarray(r.wins))
    # moves grow within a game, and a seat's rows carry the seat's score of the finished game
    for _, g in df.groupby("game"):
        assert g["move"].is_monotonic_increasing and g["move"].is_unique
        assert (g.groupby("seat")["sf"].nunique() == 1).all()
    run = RunDir.open(labels)
    assert run.kind == RUN_KIND and run.complete and run.manifest["rows"] == len(df)


def test_a_label_run_resumes_to_the_same_dataset(labels: Path, tmp_path: Path) -> None:
    want = read_card_labels(labels)
    copy = tmp_path / "run"
    shutil.copytree(labels, copy)
    run = RunDir.open(copy)
    run.shard_path(1, 2).unlink()  # as if killed before the second game was written
    assert RunDir.open(copy).todo() == [(1, 2)]
    generate_card_labels(copy, CFG, workers=1, progress=False)
    pd.testing.assert_frame_equal(read_card_labels(copy), want)
    generate_card_labels(copy, CFG, workers=1, progress=False)  # complete: nothing to do
    pd.testing.assert_frame_equal(read_card_labels(copy), want)
    with pytest.raises(ValueError, match=r"another config \(worlds: 2 there, 3 here\)"):
        generate_card_labels(copy, dataclasses.replace(CFG, worlds=3), progress=False)


def test_labels_do_not_depend_on_the_worker_count(labels: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "two"
    assert main(["card-labels", "--out", str(out), "--games", "2", "--seed", "3", "--worlds", "2",
                 "--early", "rule_based", "--shard-size", "1", "--workers", "2"]) == 0
    want = read_card_labels(labels)
    printed = capsys.readouterr().out
    assert printed.startswith(f"{len(want):,} labelled card decisions in 2 games")
    pd.testing.assert_frame_equal(read_card_labels(out), want)


def test_relabelled_games_follow_the_student_and_keep_the_teacher_s_labels() -> None:
    cfg = dataclasses.replace(CFG, play="rule_based")
    assert "play" not in CFG.to_dict() and cfg.to_dict()["play"] == "rule_based"  # older runs keep their config
    differ = 0
    for g in range(cfg.n_games):
        rows = label_game(g, cfg)
        # the game is the rule-based players' game: every card they played, in order
        s = SkatState.new_game(seed=derive_seed(cfg.seed, g))
        t = Table(["rule_based", "rule_based", "rule_based"], s, derive_seed(cfg.seed, g), g)
        t.run()
        cards = [c for _, trick, _ in s.observation(0).tricks for c in trick]
        assert rows and all(list(r["seq"]) == cards[:len(r["seq"])] for r in rows)
        assert all(cards[len(r["seq"])] == r["rule_based"] for r in rows)
        for r in rows:  # the label is still PIMC's: the card of the best win fraction
            assert r["wins"][r["chosen"]] == np.nanmax(r["wins"])
        differ += sum(r["chosen"] != r["rule_based"] for r in rows)
    assert differ > 0  # the labels are not the cards played


def test_search_options_label_with_a_search_that_weighs_worlds_by_the_student(model: Path) -> None:
    from agents.learn.card_labels import _players

    cfg = dataclasses.replace(CFG, search=f"card_model={model / 'model'},card_alpha=0.5,oversample=2")
    assert cfg.to_dict()["search"] == cfg.search and "search" not in CFG.to_dict()  # old runs keep their config
    _, searchers = _players(cfg, "rule_based")
    assert {(p.worlds, p.card_model, p.card_alpha, p.oversample) for p in searchers} == {
        (2, str(model / "model"), 0.5, 2)}
    rows = label_game(0, cfg)
    assert len(rows) >= 10
    for r in rows:  # every row is the weighted search's own: its card is one of the best
        assert r["wins"][r["chosen"]] == np.nanmax(r["wins"]) and r["n_worlds"] <= 2


def test_card_label_config_errors() -> None:
    with pytest.raises(ValueError, match="unknown agent|no agent"):
        CardLabelConfig(play="no_such_player")
    with pytest.raises(ValueError, match="worlds are set by worlds="):
        CardLabelConfig(search="worlds=4")
    with pytest.raises(ValueError, match="no_such"):
        CardLabelConfig(search="no_such=1")
    for kw, msg in ((dict(n_games=0), "n_games must be an int"), (dict(worlds=0), "worlds must be an int"),
                    (dict(early=()), "early must name at least one agent spec"),
                    (dict(shard_size=0), "shard_size must be a positive int")):
        with pytest.raises(ValueError, match=msg):
            CardLabelConfig(**kw)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- features


def _play_positions(seeds: range) -> list[tuple[SkatState, int]]:
    """Card decisions of rule-based games (suit, grand, null), as (state copy, seat)."""
    out = []
    for seed in seeds:
        s = SkatState.new_game(seed=seed)
        t = Table(["rule_based", "rule_based", "rule_based"], s, seed)
        while not t.over:
            if s.phase == "play" and len(s.legal_actions()) > 1:
                out.append((s.clone(), s.current_player()))
            t.step()
    return out


def test_the_player_sees_the_features_the_trainer_reads() -> None:
    """Training rows are encoded from the labels' (view, cards played, rule-based card);
    the player encodes its observation: the same numbers at the same position."""
    rb = RuleBasedAgent()
    for s, seat in _play_positions(range(4))[::3]:
        obs = s.observation(seat)
        card = rb.peek(obs)
        seq = [c for _, cards, _ in obs.tricks for c in cards] + list(obs.current_trick)  # as in the labels
        flat, tok = encode(obs.view[None, :], [seat], [seq], None, [card])
        f2, t2 = encode_observation(obs, card)
        assert np.array_equal(flat, f2) and np.array_equal(tok, t2)


def test_features_use_only_the_seats_information() -> None:
    gen = np.random.default_rng(8)
    rb = RuleBasedAgent()
    checked = 0
    for s, seat in _play_positions(range(3))[::4]:
        obs = s.observation(seat)
        flat, tok = encode_observation(obs, rb.peek(obs))
        for _ in range(2):
            world = s.resample_from_infostate(seat, gen)
            other = (seat + 1) % 3
            if world.hand_mask(other) == s.hand_mask(other):
                continue  # nothing hidden was moved (late in the hand)
            wobs = world.observation(seat)
            f2, t2 = encode_observation(wobs, rb.peek(wobs))
            assert np.array_equal(flat, f2) and np.array_equal(tok, t2)
            checked += 1
    assert checked >= 5


# ----------------------------------------------------------------------------- training and the player


def test_training_writes_a_loadable_checkpoint_with_its_log(model: Path, labels: Path) -> None:
    for f in ("model.pt", "model.json", "checkpoint.pt", "log.jsonl", "config.json"):
        assert (model / f).is_file(), f
    log = [json.loads(x) for x in (model / "log.jsonl").read_text().splitlines()]
    assert [x["epoch"] for x in log] == [1]
    data = load_dataset([str(labels)])
    assert log[0]["train_rows"] + log[0]["val_rows"] == len(data) and log[0]["val_rows"] > 0
    for k in ("net_regret", "net_best", "net_teacher", "rule_based_regret", "teacher_regret"):
        assert np.isfinite(log[0][k]), k
    assert log[0]["teacher_regret"] == 0.0  # PIMC plays a card of the label's best fraction
    m = load_card_model(model / "model")
    assert m.meta["epoch"] == 1 and m.meta["arch"]["d_model"] == 16


def test_train_games_keeps_the_first_games_and_the_same_held_out_ones(labels: Path, tmp_path: Path) -> None:
    """``train_games``: a curve of what more labels buy trains on the first N games not held
    out; the held-out games do not move."""
    data = load_dataset([str(labels)])
    first = train(_distil_cfg(labels, val_games=0, train_games=1), tmp_path / "one", progress=False)
    assert first["train_rows"] == int((data.game == 0).sum()) and first["val_rows"] == 0
    both = train(_distil_cfg(labels, val_games=0), tmp_path / "all", progress=False)
    assert both["train_rows"] == len(data)
    held = train(_distil_cfg(labels, val_games=1, train_games=5), tmp_path / "held", progress=False)
    assert held["val_rows"] == int((data.game == 1).sum()) and held["train_rows"] == int((data.game == 0).sum())
    with pytest.raises(ValueError, match="train_games must be an int >= 0"):
        _distil_cfg(labels, train_games=-1)


def test_init_starts_from_a_trained_model_of_the_same_architecture(model: Path, labels: Path, tmp_path: Path) -> None:
    """``init`` (fine-tuning): the run starts from the model's weights, so its first epoch's
    validation is near the model's, far from a random start's; another architecture is refused."""
    from agents.learn.distil import _load_init
    from agents.players.distilled import build_net

    cfg = _distil_cfg(labels, init=str(model / "model"))
    net = build_net(**cfg.arch)
    _load_init(net, cfg)
    ref = load_card_model(model / "model").net.state_dict()
    assert all(bool((v == ref[k]).all()) for k, v in net.state_dict().items())
    train(dataclasses.replace(cfg, lr=1e-9), tmp_path / "ft", progress=False)  # a step too small to move
    fresh = build_net(**cfg.arch).state_dict()
    tuned = load_card_model(tmp_path / "ft" / "model").net.state_dict()
    assert all(np.allclose(v.numpy(), ref[k].numpy(), atol=1e-5) for k, v in tuned.items())
    assert not all(np.allclose(v.numpy(), ref[k].numpy(), atol=1e-5) for k, v in fresh.items())
    assert json.loads((tmp_path / "ft" / "config.json").read_text())["init"] == str(model / "model")
    with pytest.raises(ValueError, match="has the architecture"):
        train(_distil_cfg(labels, init=str(model / "model"), d_model=8), tmp_path / "other", progress=False)


def test_the_tie_table_matches_the_training_log_and_the_agent_s_rule(model: Path) -> None:
    """tie_table re-reads the held-out games of the run: at the run's own ``tie`` it gives the
    figures the training logged for the network, at 0 the value head's, and the rule-based
    and PIMC rows are the log's yardsticks."""
    from agents.learn.distil import tie_table

    log = json.loads((model / "log.jsonl").read_text().splitlines()[-1])
    rows = {r["rule"]: r for r in tie_table(model / "model", ties=(0.0, 0.05))}
    for rule, prefix in (("value + 0.05 x policy", "net_"), ("value + 0 x policy", "value_only_"),
                         ("policy only", "policy_only_"), ("rule-based card", "rule_based_"),
                         ("PIMC's card (the labels' own choice)", "teacher_")):
        for k in ("regret", "best", "teacher"):
            assert rows[rule][k] == pytest.approx(log[prefix + k], abs=1e-6), (rule, k)
        assert rows[rule]["rows"] == log["val_rows"]


@pytest.mark.filterwarnings("error::UserWarning")  # no scheduler step before an optimiser step
def test_training_resumes_to_the_run_it_would_have_been(model: Path, labels: Path, tmp_path: Path) -> None:
    """One epoch, then a resumed second one: the same network and validation figures as two
    epochs in one go (the batch order and the learning-rate schedule continue)."""
    import torch

    run = tmp_path / "resumed"
    shutil.copytree(model, run)
    last = train(_distil_cfg(labels, epochs=2), run, progress=False)  # one more epoch
    assert last["epoch"] == 2
    log = [json.loads(x) for x in (run / "log.jsonl").read_text().splitlines()]
    assert [x["epoch"] for x in log] == [1, 2]
    assert load_card_model(run / "model").meta["epoch"] == 2
    whole = tmp_path / "whole"
    straight = train(_distil_cfg(labels, epochs=2), whole, progress=False)
    drop = ("cpu_seconds",)
    assert {k: v for k, v in straight.items() if k not in drop} == {k: v for k, v in last.items() if k not in drop}
    a = torch.load(run / "model.pt", weights_only=True)
    b = torch.load(whole / "model.pt", weights_only=True)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="holds a distillation run of another config"):
        train(_distil_cfg(labels, epochs=2, lr=5e-4), run, progress=False)


def test_the_distilled_player_loads_the_model_by_path(model: Path) -> None:
    path = str(model / "model")
    a = make_agent(f"agents.players.distilled:DistilledAgent:model={path}")
    assert isinstance(a, DistilledAgent) and a.model.meta["epoch"] == 1
    s, seat = _play_positions(range(1))[0]
    obs = s.observation(seat)
    v = a.action_values(obs)
    assert v is not None and set(v.values) == set(obs.legal_actions) and v.chosen == a.act(obs)
    assert all(0.0 <= x <= 1.0 for x in v.values.values())
    with pytest.raises(ValueError, match="no card-network checkpoint at"):
        DistilledAgent(model=str(model / "nothing"))


def test_every_shipped_card_network_stays_loadable_by_name() -> None:
    """``distilled`` plays the newest shipped network; each older one loads by its name, in
    the player and in PIMC's inference, and they are different networks."""
    from agents.players.distilled import SHIPPED
    from agents.players.pimc import card_network

    newest = make_agent("distilled").model.meta
    assert newest == load_card_model(None).meta and SHIPPED[-1] == "distilled_v2"
    assert len(newest["labels"]) == 2  # v2: the 8-world and the 32-world labels
    metas = [make_agent(f"distilled:model={name}").model.meta for name in SHIPPED]
    assert metas[-1] == newest and metas[0] != newest
    assert card_network("distilled_v1").meta == metas[0] and card_network("distilled").meta == newest


def test_the_distilled_player_passes_the_agent_api_test(model: Path) -> None:
    m = load_card_model(model / "model")
    report = agent_api_test(lambda: DistilledAgent(model=m), n_deals=5, seed=2, hidden_deals=1, n_worlds=2)
    assert report["games"] == 10 and report["resampled"] > 0 and report["phases"]["play"] > 0


def test_the_endgame_is_played_by_pimc_and_the_rest_by_the_network(model: Path) -> None:
    """``endgame=N``: with N or fewer cards in hand the card is PIMC's over the same worlds
    (the same seat stream), earlier it is the network's; the option is checked."""
    from agents.players.pimc import PIMCAgent

    m = load_card_model(model / "model")
    end, net, pimc = DistilledAgent(model=m, endgame=3, endgame_worlds=4), DistilledAgent(model=m), PIMCAgent(worlds=4)
    searched = played = 0
    for k, (s, seat) in enumerate(_play_positions(range(3))):
        for a in (end, net, pimc):
            a.reset(k, seat, 1000 + k)
        obs = s.observation(seat)
        want = pimc if len(obs.hand) <= 3 else net
        searched += want is pimc
        played += want is net
        assert end.act(obs) == want.act(obs)
        if want is pimc:
            for a in (end, pimc):
                a.reset(k, seat, 1000 + k)
            assert end.action_values(obs).values == pimc.action_values(obs).values
    assert searched > 5 and played > 5
    assert "endgame=3, endgame_worlds=4" in repr(end)
    budget = DistilledAgent(model=m, endgame=3, endgame_worlds=32, endgame_nodes=500)
    assert budget._search.node_budget == 500 and "endgame_nodes=500" in repr(budget)
    with pytest.raises(ValueError, match="a non-negative number of nodes"):
        make_agent("distilled:endgame=3,endgame_nodes=-1")
    with pytest.raises(ValueError, match="endgame must be a number of tricks in 0..10"):
        DistilledAgent(model=m, endgame=11)
    with pytest.raises(ValueError, match="a number of tricks in 0..10"):
        make_agent("distilled:endgame=-1")


def test_its_card_values_do_not_depend_on_hidden_cards(model: Path) -> None:
    a = DistilledAgent(model=load_card_model(model / "model"))
    gen = np.random.default_rng(1)
    for s, seat in _play_positions(range(2))[::5]:
        want = a.action_values(s.observation(seat))
        world = s.resample_from_infostate(seat, gen)
        got = a.action_values(world.observation(seat))
        assert got.values == want.values and got.chosen == want.chosen


# ----------------------------------------------------------------------------- the commands


@pytest.mark.parametrize("cmd, words", [("card-labels", ["--out", "--games", "--worlds", "--workers", "--early"]),
                                        ("train-distil", ["--labels", "--out", "--device", "--set"])])
def test_commands_have_help(cmd: str, words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main([cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: skatsim {cmd}")
    for w in words:
        assert w in out


@pytest.mark.parametrize("argv, message", [
    (["card-labels", "--out", "X", "--worlds", "0"], "worlds must be an int in 1..10000, got 0"),
    (["train-distil", "--labels", "X", "--out", "Y", "--set", "nosuch=1"], "--set takes KEY=VALUE with KEY one of"),
    (["train-distil", "--labels", "X", "--out", "Y", "--set", "epochs=two"], "--set epochs: 'two' is not a int"),
    (["train-distil", "--labels", "NOWHERE", "--out", "Y", "--device", "cpu"], "'NOWHERE' is not a skatsim run"),
])
def test_command_errors_are_one_line(argv: list[str], message: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(tmp_path / a) if a in ("X", "Y", "NOWHERE") else a for a in argv]
    message = message.replace("'NOWHERE'", repr(str(tmp_path / "NOWHERE")))
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err) and message in err[-1], err[-1]


def test_the_study_script_runs_labels_training_and_the_table(labels: Path, tmp_path: Path) -> None:
    """experiments/distil_card_play.py on a tiny config: the label run, the trained model and
    the held-out table (one row per tie, then the yardsticks) in its run directory."""
    from experiments.distil_card_play import Config, run

    cfg = Config(seed=3, games=2, worlds=2, early=["rule_based"], shard_size=1, workers=1,
                 train=dict(hidden=[16], d_model=16, layers=1, heads=2, epochs=1, batch=32, val_games=1,
                            device="cpu", threads=1),
                 ties=[0.0, 0.5])
    run_dir = run(cfg, str(tmp_path))
    df = pd.read_parquet(run_dir / "results.parquet")
    assert list(df["rule"]) == ["value + 0 x policy", "value + 0.5 x policy", "policy only", "rule-based card",
                                "PIMC's card (the labels' own choice)"]
    assert df["regret"].iloc[-1] == 0.0 and (df["regret"] >= 0).all()
    assert (run_dir / "train" / "model.pt").is_file() and (run_dir / "summary.md").is_file()
    # the labels are the rows of the tests' own label run of the same config
    ours = read_card_labels(tmp_path / "card_labels__3__w2__g2")
    pd.testing.assert_frame_equal(ours, read_card_labels(labels))


def test_the_dagger_study_labels_where_each_round_s_network_plays(labels: Path, tmp_path: Path) -> None:
    """experiments/dagger_card_play.py, two tiny rounds: round 1's games are played by the
    shipped network, round 2's by round 1's; each network trains on every round's labels and
    the base run's, held out on the base run's last games."""
    from experiments._runs import load_config
    from experiments.dagger_card_play import Config, run

    shipped = load_config(Config, str(Path(__file__).resolve().parents[1] / "experiments" / "configs"
                                      / "dagger_card_play.json"), {})
    assert (shipped.rounds, shipped.games, shipped.train["val_games"]) == (1, 10000, 500)
    cfg = Config(base_labels=str(labels), student="distilled", rounds=2, seed=7, games=1, worlds=2,
                 early=["rule_based"], shard_size=1, workers=1, labels_root=str(tmp_path / "labels"),
                 train=dict(hidden=[16], sequence=False, epochs=1, batch=32, val_games=1, device="cpu", threads=1),
                 ties=[0.1])
    run_dir = run(cfg, str(tmp_path))
    r1, r2 = (RunDir.open(tmp_path / "labels" / f"card_labels_dagger__{s}__w2__g1") for s in (7, 8))
    assert r1.config["play"] == "distilled"
    assert r2.config["play"] == f"distilled:model={run_dir / 'round_1' / 'train' / 'model'},tie=0.1"
    for r in (1, 2):
        meta = json.loads((run_dir / f"round_{r}" / "train" / "model.json").read_text())
        assert meta["config"]["labels"][-1] == str(labels) and len(meta["config"]["labels"]) == r + 1
    df = pd.read_parquet(run_dir / "results.parquet")
    base = read_card_labels(labels)
    held_out = int((base["game"] == base["game"].max()).sum())
    assert list(df["round"].unique()) == [1, 2] and (df["rows"] == held_out).all()


def test_the_card_decision_benchmark_times_each_agent_on_the_same_positions() -> None:
    """benchmarks/card_decisions.py on two games: a time per decision for each agent, and the
    shipped model's batched rate."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "card_decisions.py"
    spec = importlib.util.spec_from_file_location("card_decisions_bench", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rec = mod.main(["--games", "2", "--agents", "distilled", "rule_based", "--batch", "64", "--no-json"])
    assert rec["positions"] > 5 and set(rec["ms_per_decision"]) == {"distilled", "rule_based"}
    assert all(v > 0 for v in rec["ms_per_decision"].values()) and rec["batched_positions_per_cpu_s"] > 0
