"""The commands around the game: ``agents``, ``import-iss``, ``bench``, ``train-bidding`` and ``train-dmc``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .options import UsageError, add_progress, add_workers, default_workers, int_arg

__all__ = ["add_agents", "add_import_iss", "add_bench", "add_train_bidding", "add_train_dmc", "add_warmup",
           "source_tree"]


def source_tree() -> Path:
    """The source checkout this package runs from (``benchmarks/`` lives there; it is not part
    of an installed wheel)."""
    return Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- agents


def _cmd_agents(args: argparse.Namespace) -> int:
    from agents import list_agents

    reg = list_agents()
    unknown = [n for n in args.names if n not in reg]
    if unknown:
        raise UsageError(f"unknown agent {unknown[0]!r}; registered agents: {', '.join(reg)}")
    if args.names:
        reg = {n: reg[n] for n in args.names}
    if args.json:
        print(json.dumps(reg, indent=2, default=str))
        return 0
    for name, info in reg.items():
        compiled = f"  [compiled: {info['engine']}]" if info["engine"] else "  [Python only]"
        print(f"{name}: {info['doc']}{compiled}")
        if not info["params"]:
            print("    (no parameters)")
        for k, v in info["params"].items():
            doc = info["params_doc"].get(k, "")
            print(f"    {k} = {v!r}" + (f"  {doc}" if doc else ""))
    print("spec syntax: NAME or NAME:key=value,key=value; an agent of your own: module:Class or "
          "module:Class:key=value (importable from the Python path), or registered by a package through the "
          "'skatsim.agents' entry-point group")
    return 0


def add_agents(sub: Any) -> None:
    sp = sub.add_parser("agents", help="list the registered agents and their parameters",
                        description="List the registered agents (and those installed packages add) with their "
                                    "parameters and defaults.")
    sp.add_argument("names", nargs="*", metavar="NAME", help="only these agents (default: all)")
    sp.add_argument("--json", action="store_true", help="as JSON")
    sp.set_defaults(func=_cmd_agents, parser=sp)


# ----------------------------------------------------------------------------- import-iss


def _cmd_import_iss(args: argparse.Namespace) -> int:
    from skatsim.iss_import import import_iss

    summ = import_iss(args.file, args.out, progress=not args.no_progress, chunk=args.chunk, limit=args.limit)
    print(summ)
    return 0


def add_import_iss(sub: Any) -> None:
    sp = sub.add_parser("import-iss", help="import ISS game records into parquet tables",
                        description="Read International Skat Server records (plain or .bz2, streamed), replay "
                                    "each through the rules, compare with the server's result line and write "
                                    "games.parquet, decisions.parquet, errors.jsonl, summary.json and a manifest "
                                    "into --out. Every readable record is kept (unusual ones with a note).")
    sp.add_argument("file", help="ISS records, one game per line (.sgf, .txt or .bz2)")
    sp.add_argument("--out", required=True, metavar="DIR",
                    help="output folder (relative to the current one)")
    add_progress(sp)
    sp.add_argument("--limit", type=int_arg(1, None, "a record count"), default=None, help="read at most N records")
    sp.add_argument("--chunk", type=int_arg(1, None, "a record count"), default=20_000,
                    help="records per parquet row group (memory bound; default 20,000)")
    sp.set_defaults(func=_cmd_import_iss, parser=sp)


# ----------------------------------------------------------------------------- bench


def _cmd_bench(args: argparse.Namespace) -> int:
    import subprocess

    folder = source_tree() / "benchmarks"
    names = sorted(p.stem for p in folder.glob("*.py") if not p.name.startswith("_")) if folder.is_dir() else []
    if not names:
        raise UsageError(f"no benchmarks found (looked in {folder}; they ship with the source tree, not the wheel)")
    if args.name is None or args.name == "list":
        print("benchmarks: " + ", ".join(names) + f"  (in {folder}; skatsim bench NAME --help for its options)")
        return 0
    if args.name not in names:
        raise UsageError(f"unknown benchmark {args.name!r}; benchmarks: {', '.join(names)}")
    cmd = [sys.executable, str(folder / f"{args.name}.py"), *args.rest]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source_tree()), os.environ.get("PYTHONPATH", "")])}
    return subprocess.call(cmd, env=env)  # in the current folder: its outputs go to ./runs unless told otherwise


def add_bench(sub: Any) -> None:
    sp = sub.add_parser("bench", help="run a benchmark script (benchmarks/NAME.py)",
                        description="Run one of the benchmarks/ scripts of the source tree with this Python, in "
                                    "the current folder; the arguments after NAME go to the script (skatsim "
                                    "bench agents --help).")
    sp.add_argument("name", nargs="?", default=None, metavar="NAME",
                    help="benchmark name (agents, deals_per_second, solver ...); 'list' or nothing lists them")
    sp.add_argument("rest", nargs=argparse.REMAINDER, help="arguments for the script")
    sp.set_defaults(func=_cmd_bench, parser=sp)


# ----------------------------------------------------------------------------- warmup


def _cmd_warmup(args: argparse.Namespace) -> int:
    from .warmup import warm_up

    warm_up(lambda line: print(line, flush=True), workers=args.workers or default_workers())
    return 0


def add_warmup(sub: Any) -> None:
    sp = sub.add_parser("warmup", help="compile every numba kernel once, into the cache (setup.sh runs it)",
                        description="Run a small piece of every engine path so numba compiles its kernels into "
                                    "the on-disk cache: the first tournament, training or test run after an "
                                    "install or an engine edit then starts at once.")
    add_workers(sp, "processes compiling at once: 1 runs the steps one after the other here, 2 or more "
                    "take the steps in turn as each comes free")
    sp.set_defaults(func=_cmd_warmup, parser=sp)


# ----------------------------------------------------------------------------- train-bidding


def run_train_bidding(argv: list[str]) -> int:
    """``skatsim train-bidding ...``: the arguments (``--help`` included) belong to
    :func:`agents.learn.bidding.main`."""
    from agents.learn.bidding import main

    return main(argv, prog="skatsim train-bidding")


def _add_trainer_command(sub: Any, name: str, help: str, run: Any) -> None:
    """``skatsim <name>``: every argument goes to the trainer ``agents.learn.<name>`` (``--help`` too)."""
    cmd = f"train-{name}"
    sp = sub.add_parser(cmd, help=help, add_help=False,
                        description=f"agents/learn/{name}.py: skatsim {cmd} --help lists its options.")
    sp.add_argument("rest", nargs=argparse.REMAINDER, help=f"arguments for agents/learn/{name}.py")
    sp.set_defaults(func=lambda args: run(list(args.rest)), parser=sp)


def add_train_bidding(sub: Any) -> None:
    _add_trainer_command(sub, "bidding", "label hands, train the bidding network, or run its tournament",
                        run_train_bidding)


# ----------------------------------------------------------------------------- train-dmc


def _option_value(argv: list[str], name: str) -> str | None:
    """The value of ``--name VALUE`` / ``--name=VALUE`` in ``argv`` (the last one), else None."""
    value = None
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif a.startswith(name + "="):
            value = a[len(name) + 1:]
    return value


def run_train_dmc(argv: list[str]) -> int:
    """``skatsim train-dmc ...``: the arguments (``--help`` included) belong to
    :func:`agents.learn.dmc.main` (Deep Monte-Carlo self-play training of the ``dmc`` player).
    A cluster ``--address`` is joined first (:func:`skatsim.parallel.ensure_ray`): where no
    cluster answers, a one-line error within seconds, before a run directory is made."""
    address = _option_value(argv, "--address")
    if address not in (None, "local") and "-h" not in argv and "--help" not in argv:
        from skatsim.parallel import ensure_ray

        ensure_ray(address)
    from agents.learn.dmc import main

    return main(argv, prog="skatsim train-dmc")


def add_train_dmc(sub: Any) -> None:
    _add_trainer_command(sub, "dmc", "train the learned (Deep Monte-Carlo) player by self-play", run_train_dmc)
