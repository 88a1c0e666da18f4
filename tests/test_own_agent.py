"""Your own agent: from a module path, as an object or a factory, through entry points."""

from __future__ import annotations

import pytest

from agents import AgentSpec, list_agents, make_agent
from agents.arena.base import AgentObject, agent_info
from agents.arena.testing import agent_api_test
from agents.arena.tournament import run_tournament


def test_a_module_path_spec_makes_the_agent_with_parameters() -> None:
    spec = AgentSpec.parse("my_agents:Greedy:top=false")
    assert spec.name == "my_agents:Greedy" and spec.param_dict == {"top": False}
    assert spec.to_text() == "my_agents:Greedy:top=false" and AgentSpec.parse(spec.to_text()) == spec
    assert make_agent("my_agents:make_lowest").top is False
    assert "my_agents:Greedy" not in list_agents()  # imported on demand, not listed as registered
    with pytest.raises(ValueError, match="cannot import module 'nope_mod'"):
        AgentSpec.parse("nope_mod:Greedy")
    with pytest.raises(ValueError, match="has no attribute 'Nope'"):
        AgentSpec.parse("my_agents:Nope")
    with pytest.raises(ValueError, match="has no parameter 'depth'"):
        AgentSpec.parse("my_agents:Greedy:depth=3")


def test_own_agents_pass_the_shared_test_and_play_tournaments(tmp_path) -> None:
    agent_api_test("my_agents:Greedy", n_deals=2, hidden_deals=1)
    a = run_tournament(["my_agents:Greedy", "rule_based"], 6, seed=2, progress=False, out=tmp_path / "a")
    b = run_tournament([__import__("my_agents").Greedy(), "rule_based"], 6, seed=2, progress=False)
    c = run_tournament([__import__("my_agents").Greedy, "rule_based"], 6, seed=2, progress=False, workers=2)
    cols = [x for x in a.games.columns if not x.startswith("time_") and not x.startswith("agent_")]
    assert a.games[cols].equals(b.games[cols]) and a.games[cols].equals(c.games[cols])
    assert set(b.games["agent_0"]) == {"greedy", "rule_based"} and "my_agents:Greedy" in set(c.games["agent_0"])


def test_a_run_with_an_agent_object_resumes_only_with_the_object(tmp_path) -> None:
    from agents.arena.tournament import load_tournament, resume_tournament
    from skatsim.runs import RunDir

    import my_agents

    run_tournament([my_agents.Greedy(), "random"], 4, seed=1, progress=False, out=tmp_path / "o", chunk_size=2)
    RunDir.open(tmp_path / "o").shard_path(2, 4).unlink()
    assert len(load_tournament(tmp_path / "o", partial=True).games) == 12
    with pytest.raises(ValueError, match="agent object 'greedy'"):
        resume_tournament(tmp_path / "o", progress=False)
    r = resume_tournament(tmp_path / "o", progress=False, agents=[my_agents.Greedy()])
    assert len(r.games) == 24


def test_an_agent_error_keeps_its_traceback(tmp_path) -> None:
    r = run_tournament(["my_agents:Broken", "rule_based"], 4, seed=1, progress=False, out=tmp_path / "b")
    err = r.games[r.games["error"] != ""]
    assert len(err) and err["error"].str.contains("raised ZeroDivisionError in phase play: my bug").all()
    assert err["traceback"].str.contains("Traceback").all()
    log = (tmp_path / "b" / "errors.txt").read_text()
    assert "Traceback (most recent call last)" in log and 'raise ZeroDivisionError("my bug")' in log


def test_entry_points_add_agents_to_the_registry(monkeypatch) -> None:
    import importlib.metadata

    import agents.arena.base as base

    class EP:
        name, value = "greedy_ep", "my_agents:Greedy"

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [EP()] if group == "skatsim.agents" else [])
    monkeypatch.setattr(base, "_ENTRY_POINTS_LOADED", False)
    try:
        assert "greedy_ep" in list_agents()
        assert agent_info("greedy_ep").make().name == "greedy"
    finally:
        base._REGISTRY.pop("greedy_ep", None)


def test_agent_objects_are_copied_per_game() -> None:
    import my_agents

    obj = AgentObject(my_agents.Greedy())
    assert obj.make() is not obj.make() and obj.to_dict()["object"] == "my_agents:Greedy"
    with pytest.raises(TypeError, match="no act"):
        AgentObject(object())
