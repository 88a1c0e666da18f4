"""Configs and run directories for experiments: ``runs/<study>__<seed>__<time>/`` under the current folder.

Every study script loads a JSON config into a typed dataclass, makes a run directory,
writes ``manifest.json`` (:func:`skatsim.runs.write_manifest`: the config, package versions,
the git commit and the command line), ``results.parquet`` (the study's table) and
``summary.md`` (what it printed), so a run can be read back and compared later. ``runs/`` is
git-ignored; ``experiments/RESULTS.md`` records the runs we report, with their commands.
The trainers' nested configs and TensorBoard logs are :mod:`agents.learn.runs`'s.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def load_config(cls: type[T], path: str | Path | None, overrides: dict[str, Any] | None = None) -> T:
    """A dataclass ``cls`` from a JSON file (unknown keys are refused), then ``overrides``."""
    data: dict[str, Any] = {}
    if path is not None:
        data = json.loads(Path(path).read_text())
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise SystemExit(f"unknown config key(s) {unknown} for {cls.__name__}; known: {sorted(names)}")
    return cls(**data)


def make_run_dir(study: str, seed: int, root: str | Path | None = None) -> Path:
    """The study's new run directory (:func:`skatsim.runs.new_run_dir`)."""
    from skatsim.runs import new_run_dir

    return new_run_dir(study, seed, root)


def write_config(run_dir: Path, config: Any) -> None:
    """The run's manifest: the config, versions, commit and command line."""
    from skatsim.runs import write_manifest

    d = dataclasses.asdict(config) if dataclasses.is_dataclass(config) else dict(config)
    write_manifest(run_dir, f"experiment:{run_dir.name.split('__')[0]}", d, argv=sys.argv, status="complete")


def write_summary(run_dir: Path, title: str, text: str) -> None:
    """Write ``summary.md`` and print the same text and the run directory."""
    (run_dir / "summary.md").write_text(f"# {title}\n\n```\n{text}\n```\n")
    print(text)
    print(f"run directory: {run_dir}")


def study_main(cls: type, run: Any, doc: str, argv: list[str] | None, overrides: tuple[str, ...],
               resume: bool = False) -> int:
    """The command line every study shares: ``--config FILE``, ``--out ROOT`` and the
    given override flags (``n_deals`` -> ``--n-deals``); with ``resume``, ``--resume RUN``
    (a run directory of the study to go on with, passed to ``run``)."""
    import argparse

    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--config", help="JSON config (fields of the study's Config)")
    p.add_argument("--out", help="the folder of run directories (default: runs/ in the current folder)")
    if resume:
        p.add_argument("--resume", help="a run directory of this study to go on with (what it holds is kept)")
    for name in overrides:
        p.add_argument("--" + name.replace("_", "-"), dest=name, type=int, help=f"override {name}")
    a = p.parse_args(argv)
    cfg = load_config(cls, a.config, {k: getattr(a, k) for k in overrides})
    if resume:
        run(cfg, a.out, a.resume)
    else:
        run(cfg, a.out)
    return 0
