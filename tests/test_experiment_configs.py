"""The nested JSON configs of the two trainers (``agents.learn.runs.nested_config``):
defaults, then a file, then ``key.sub=value`` overrides, every value of its default's type;
and the thin scripts in experiments/ that run them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.learn import bidding as train_bidding
from agents.learn import dmc as train_dmc
from agents.learn.runs import ConfigError, nested_config

DEFAULTS = {"seed": 0, "name": "x", "flag": False, "opt": None,
            "train": {"lr": 0.1, "epochs": 3, "dirs": ["a"]}}


def test_file_then_overrides_and_json_or_text_values(tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"seed": 4, "train": {"lr": 0.5}}))
    cfg = nested_config(DEFAULTS, f, ["train.epochs=7", "name=plain text", "opt=[1, 2]", "flag=true"])
    assert cfg == {"seed": 4, "name": "plain text", "flag": True, "opt": [1, 2],
                   "train": {"lr": 0.5, "epochs": 7, "dirs": ["a"]}}


def test_overrides_never_change_the_defaults() -> None:
    nested_config(DEFAULTS, None, ["train.epochs=9", "train.dirs=[\"b\"]"])
    assert nested_config(DEFAULTS, None) == DEFAULTS
    assert DEFAULTS["train"] == {"lr": 0.1, "epochs": 3, "dirs": ["a"]}


@pytest.mark.parametrize("script", [train_bidding, train_dmc])
def test_a_set_in_one_call_does_not_leak_into_the_next(script) -> None:  # noqa: ANN001
    """train_bidding's loader copied its defaults shallowly: one ``--set train.x=...`` became the
    default of every later call in the process."""
    key = "max_epochs" if script is train_bidding else "frames"
    base = script.load_config(None)["train"][key]
    script.load_config(None, [f"train.{key}={base + 1}"])
    assert script.load_config(None)["train"][key] == base
    assert script.DEFAULTS["train"][key] == base


@pytest.mark.parametrize("overrides, message", [
    (["train.epochs=1.5"], "config entry 'train.epochs' must be an int, got 1.5"),
    (["train.lr=-1"], "config entry 'train.lr' must not be negative"),
    (["train.lr=true"], "config entry 'train.lr' must be a number, got True"),
    (["flag=1"], "config entry 'flag' must be true or false, got 1"),
    (["train=3"], "config entry 'train' must be a mapping"),
    (["train.dirs=a"], "config entry 'train.dirs' must be a list, got 'a'"),
    (["name=3"], "config entry 'name' must be text, got 3"),
    (["train.nope=1"], "unknown config key 'train.nope'; known under train: \\['dirs', 'epochs', 'lr'\\]"),
    (["nope.x=1"], "unknown config key 'nope.x'"),
    (["seed"], "--set needs key=value, got 'seed'"),
])
def test_each_wrong_entry_is_named(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        nested_config(DEFAULTS, None, overrides)


def test_a_wrong_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no config file"):
        nested_config(DEFAULTS, tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{seed: 1")
    with pytest.raises(ConfigError, match="bad.json: not valid JSON"):
        nested_config(DEFAULTS, bad)
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"train": {"epoch": 1}}))
    with pytest.raises(ConfigError, match="unknown config key 'train.epoch'"):
        nested_config(DEFAULTS, unknown)


def test_the_experiments_scripts_are_the_trainers_under_their_old_names() -> None:
    """``experiments/train_dmc.py`` and ``train_bidding.py`` are thin scripts over the package:
    the old import path reaches the same objects (no second copy of a trainer or a kernel)."""
    from experiments import train_bidding as script_bidding
    from experiments import train_dmc as script_dmc

    assert script_dmc.train is train_dmc.train and script_dmc.solver_labels is train_dmc.solver_labels
    assert script_dmc._SIGNALS is train_dmc._SIGNALS
    assert script_bidding.load_config is train_bidding.load_config and script_bidding.ship is train_bidding.ship
    with pytest.raises(AttributeError):
        script_dmc.no_such_name
