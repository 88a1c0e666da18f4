"""Every code block of the README, ``docs/``, ``experiments/README.md`` and
``benchmarks/README.md`` runs as written (the README's ``>>>`` examples are doctests).

Each shell command of those files has an entry in :data:`COMMANDS` saying how it is tested:

- :class:`Run`: run as written, in a fresh folder, the commands of a block one after the
  other (a later one reads what an earlier one wrote); a few are made smaller by plain
  text replacements (``--deals 200`` -> ``--deals 2``), written next to them;
- :class:`Long`: a long study or run: its line in the docs must say so (``# long study:
  about N min ...``, with its time and what it needs); a smaller version runs with
  ``-m slow``;
- :class:`Elsewhere`: run by another test or by ``.ci/run`` (named, and checked to exist).

A command added to the docs without an entry here, or an entry whose command left the docs,
fails :func:`test_every_documented_command_has_a_test`. Paths of the checkout the commands
name (``experiments/...``, ``agents/models/...``) are given to them as absolute paths, so
they run in a scratch folder and write nothing into the source tree.
"""

from __future__ import annotations

import bz2
import inspect
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "experiments" / "README.md",
        ROOT / "benchmarks" / "README.md"]
#: The first words of a command line (after ``NAME=value`` settings).
_PROGRAMS = ("skatsim", ".venv/bin/skatsim", "python", ".venv/bin/python", "bash")


# ----------------------------------------------------------------------------- the docs' commands


@dataclass(frozen=True)
class DocCommand:
    file: str
    line: int
    text: str  # the command as written, comment removed, continuation lines joined
    comment: str


def _blocks(path: Path) -> list[tuple[int, str, str]]:
    """``(line, language, body)`` of every fenced block of ``path``."""
    text = path.read_text()
    return [(text[:m.start()].count("\n") + 1, m.group(1), m.group(2))
            for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)]


def _split_comment(line: str) -> tuple[str, str]:
    """``(command, comment)`` of a shell line."""
    quote = None
    for i, ch in enumerate(line):  # a '#' outside quotes after a blank starts the comment
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i].strip(), line[i + 1:].strip()
    return line.strip(), ""


def documented_commands() -> list[list[DocCommand]]:
    """The shell commands of the docs, block by block."""
    out = []
    for path in DOCS:
        rel = str(path.relative_to(ROOT))
        for line0, lang, body in _blocks(path):
            if lang not in ("", "bash", "sh", "shell", "console"):
                continue
            cmds = []
            lines = body.splitlines()
            k = 0
            while k < len(lines):
                start, text = k, lines[k]
                while text.rstrip().endswith("\\") and k + 1 < len(lines):
                    k += 1
                    text = text.rstrip()[:-1] + " " + lines[k].strip()
                k += 1
                cmd, comment = _split_comment(text)
                words = cmd.split()
                while words and re.match(r"^[A-Z_]+=", words[0]):
                    words = words[1:]
                if words and words[0] in _PROGRAMS:
                    cmds.append(DocCommand(rel, line0 + 1 + start, " ".join(cmd.split()), comment))
            if cmds:
                out.append(cmds)
    return out


# ----------------------------------------------------------------------------- how each is tested


@dataclass(frozen=True)
class Run:
    """Run as written; ``subs``: text replacements that make it smaller (each must apply)."""

    subs: tuple[tuple[str, str], ...] = ()
    slow: bool = False
    setup: Callable[[Path], None] | None = None
    serve: bool = False  # a server: started, its URL awaited, stopped


@dataclass(frozen=True)
class Long:
    """A long study, marked as one in the docs; ``subs`` make the ``-m slow`` run small
    (``small=False``: none is small, e.g. two cold compiles; not run)."""

    subs: tuple[tuple[str, str], ...] = ()
    small: bool = True


@dataclass(frozen=True)
class Elsewhere:
    """Run by ``where``: ``tests/FILE.py::test_name`` or a file holding the command."""

    where: str


def _iss_file(cwd: Path) -> None:
    (cwd / "games.sgf.bz2").write_bytes(bz2.compress((ROOT / "tests" / "data" / "iss_records.txt").read_bytes()))


def _replay_sources(cwd: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for argv in (["tournament", "random", "rule_based", "--deals", "3", "--out", "runs/my_tournament"],
                 ["tournament", "random", "rule_based", "--deals", "3", "--out", "t", "--format", "parquet"]):
        subprocess.run([sys.executable, "-m", "skatsim_app", *argv, "--no-progress"], cwd=cwd, env=env, check=True,
                       capture_output=True, timeout=600)
    (cwd / "t" / "games.parquet").rename(cwd / "games.parquet")
    (cwd / "iss_games.txt").write_bytes((ROOT / "tests" / "data" / "iss_records.txt").read_bytes())


def _compare_runs(cwd: Path) -> None:
    """The runs the docs' compare commands read: A against B, and A and B each against the
    same field on the same deals (small stand-ins with fast players)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for agents, out in ((["random", "rule_based"], "runs/a_vs_b"), (["random", "rule_based"], "runs/a_vs_field"),
                        (["random", "rule_based"], "runs/expert_vs_pimc32"),
                        (["rule_based:max_bid=18", "rule_based"], "runs/b_vs_field")):
        subprocess.run([sys.executable, "-m", "skatsim_app", "tournament", *agents, "--deals", "3", "--out", out,
                        "--no-progress"], cwd=cwd, env=env, check=True, capture_output=True, timeout=600)


def _field_run(agent: str, out: str) -> Callable[[Path], None]:
    """A setup writing ``agent``'s run in the rule_based field (seed 20261234, one board) to
    ``out``: the run of another block that a compare reads (small)."""

    def setup(cwd: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-m", "skatsim_app", "tournament", agent, "rule_based", "--deals", "1",
                        "--seed", "20261234", "--out", out, "--no-progress"],
                       cwd=cwd, env=env, check=True, capture_output=True, timeout=600)

    return setup


_expert_field_run = _field_run("expert:worlds=2,schneider=off,calibration=none", "runs/expert_vs_rb")  # the former expert
_expertsd_field_run = _field_run("expert:worlds=2,schneider=declarer,calibration=none", "runs/expertsd_vs_rb")  # expert, 32 worlds


_BIDDING_SMALL = ("train_bidding.json", "train_bidding.json --set data.generate.n_deals=300 --set train.max_epochs=2")
_DMC_SMALL = ("train_dmc_small.json", "train_dmc_small.json --set train.frames=20000 --set eval.every_frames=10000 "
              "--set eval.deals=4")

#: Every shell command of the docs (as :func:`documented_commands` writes it) and its test.
COMMANDS: dict[str, Run | Long | Elsewhere] = {
    # README: the two commands after cloning (.ci/run runs exactly these on a clean clone)
    "bash setup.sh": Elsewhere(".ci/run"),
    ".venv/bin/python -m pytest": Elsewhere(".ci/run"),
    # Tournaments
    "skatsim tournament pimc:worlds=8 rule_based --deals 200 --out runs/pimc8": Run((("--deals 200", "--deals 2"),)),
    "skatsim tournament rule_based random --deals 2000 --out runs/rb --format parquet": Run(),
    "skatsim show runs/rb": Run(),
    "skatsim show runs/rb/games.parquet": Run(),
    "skatsim tournament rule_based:max_bid=30 rule_based --one-seat --deals 20000 --seed 7 --out runs/one_max30": Run(),
    "skatsim tournament rule_based:bid_threshold=0.5 rule_based --one-seat --deals 20000 --seed 7 --out runs/one_bt05":
        Run(),
    "skatsim compare runs/one_max30 runs/one_bt05 --players rule_based:max_bid=30 rule_based:bid_threshold=0.5": Run(),
    "skatsim league random rule_based rule_based:max_bid=18 rule_based:random_cards=1 --deals 300 --seed 3 "
    "--out runs/league --plot runs/league.png": Run((("--deals 300", "--deals 20"),)),
    # Write your own agent
    "PYTHONPATH=tests skatsim tournament my_agents:Greedy rule_based --deals 200 --out runs/greedy --format parquet":
        Run((("--deals 200", "--deals 10"),)),
    # Benchmarks
    "python benchmarks/agents.py --seconds 10": Run((("--seconds 10", "--seconds 0.2 --reps 1 --no-json"),)),
    "python benchmarks/deals_per_second.py --seconds 4": Run((("--seconds 4", "--seconds 0.2 --no-json"),)),
    "python benchmarks/compare_builds.py OLD_CHECKOUT NEW_CHECKOUT":
        Long(small=False),
    "python benchmarks/vec_env.py --seconds 3": Run((("--seconds 3", "--seconds 0.2 --games 64 --reps 1 --no-json"),),
                                                    slow=True),
    # Neural bidding
    "skatsim train-bidding --config experiments/configs/train_bidding.json": Run((_BIDDING_SMALL,), slow=True),
    "python -m agents.learn.bidding_data --out runs/bidding_data/distilled_small --deals 20 --worlds 16 --labeler distilled "
    "--condition auction --opponents 0.45,0.6,0.75": Run(slow=True),
    "skatsim train-bidding --config experiments/configs/train_bidding_distilled.json":
        Long((("train_bidding_distilled.json", "train_bidding_distilled.json --set data.generate.n_deals=40 "
               "--set data.generate.worlds=2 --set train.max_epochs=2"),)),
    "skatsim train-bidding --resume runs/train_bidding__0__<time> --ship my_bidder":
        Elsewhere("tests/test_neural_bidding.py::test_training_resumes_and_ships_only_when_asked"),
    "skatsim tournament neural_bidder:model=agents/models/my_bidder rule_based --deals 1000":  # the run's model
        Run((("agents/models/my_bidder", "runs/train_bidding__0__<time>/model"), ("--deals 1000", "--deals 2")),
            slow=True),
    # Learned play
    "skatsim train-dmc --config experiments/configs/train_dmc_small.json": Run((_DMC_SMALL,), slow=True),
    "skatsim train-dmc --config experiments/configs/train_dmc_small.json --tensorboard runs/tb":
        Run((_DMC_SMALL,), slow=True),
    'skatsim tournament "dmc:model=runs/train_dmc_small__0__<time>/model" rule_based --deals 200':
        Run((("--deals 200", "--deals 2"),), slow=True),
    "skatsim train-dmc --config experiments/configs/train_dmc_solver.json":
        Long((("train_dmc_solver.json", "train_dmc_solver.json --set train.frames=3000 --set eval.every_frames=0 "
               f"--set model.init={ROOT}/agents/models/dmc_v1"),)),  # (its init path is the checkout's)
    "python experiments/dmc_solver_agreement.py --games 500 --models agents/models/dmc_v2":
        Run((("--games 500", "--games 2"),), slow=True),
    'python experiments/dmc_pool.py --players dmc "dmc:defender_play=rule_based" "dmc:early=neural_bidder" '
    "--deals 2000 --slow-deals 100 --chunk 10 --seed 20260":
        Long((("--deals 2000 --slow-deals 100 --chunk 10", "--deals 2 --slow-deals 1 --chunk 1 --pool rule_based"),)),
    "python experiments/dmc_pool.py --players dmc:declarer_play=pimc dmc:defender_play=pimc --pool rule_based "
    "pimc:worlds=32 --deals 0 --slow-deals 300 --chunk 10 --seed 20260":
        Long((("--slow-deals 300 --chunk 10", "--slow-deals 1 --chunk 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    # Distilled play
    "python experiments/distil_card_play.py --config experiments/configs/distil_card_play.json":
        Long(small=False),  # run() on a tiny config: tests/test_distil.py::test_the_study_script_runs_labels_training_and_the_table
    "skatsim tournament distilled learned rule_based --deals 1000 --seed 20261210": Run((("--deals 1000", "--deals 2"),)),
    "skatsim tournament distilled pimc:worlds=32 --deals 500 --seed 20261212 --workers 2 --out runs/distilled_vs_pimc32":
        Long((("--deals 500", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim tournament learned dmc dmc:model=agents/models/dmc_v3 --deals 1000 --seed 20261211":
        Run((("--deals 1000", "--deals 2"),)),
    "skatsim tournament learned dmc:model=agents/models/dmc_all_v1 dmc:model=agents/models/dmc_v1 --deals 1000 "
    "--seed 20261211": Run((("--deals 1000", "--deals 2"),)),
    "python experiments/dmc_pool.py --players learned distilled rule_based --pool rule_based "
    "rule_based:bid_threshold=0.45 rule_based:bid_threshold=0.75 neural_bidder pimc:worlds=32 --deals 500 "
    "--slow-deals 150 --chunk 10 --seed 20261213 --skip rule_based@rule_based":
        Long((("--deals 500 --slow-deals 150 --chunk 10", "--deals 2 --slow-deals 1 --chunk 1"),
              ("pimc:worlds=32", "pimc:worlds=2"))),
    "python benchmarks/card_decisions.py":
        Run((("card_decisions.py", "card_decisions.py --games 2 --agents distilled rule_based --no-json"),)),
    "skatsim card-labels --out runs/card_labels_dagger__33__w8__g10000 --games 10000 --seed 33 --worlds 8 "
    "--workers 2 --play distilled": Long((("--games 10000", "--games 1"), ("--worlds 8", "--worlds 2"))),
    "skatsim tournament expert:schneider=off,calibration=none pimc:worlds=32 rule_based --deals 1000 --seed 20261224 --chunk-size 10 --workers 2 "
    "--out runs/expert_final": Long((("--deals 1000", "--deals 1"), ("expert:schneider=off,calibration=none", "expert:worlds=2,schneider=off,calibration=none"),
                                     ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim tournament expert:schneider=off,calibration=none pimc:worlds=32 --deals 600 --seed 20261226 --chunk-size 10 --workers 2 "
    "--out runs/expert_h2h": Long((("--deals 600", "--deals 1"), ("expert:schneider=off,calibration=none", "expert:worlds=2,schneider=off,calibration=none"),
                                   ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim compare runs/expert_final --players expert:schneider=off,calibration=none pimc:worlds=32":
        Run((("--players expert:schneider=off,calibration=none pimc:worlds=32", "--players expert:schneider=off,worlds=2,calibration=none pimc:worlds=2"),)),
    "skatsim compare runs/expert_h2h --players expert:schneider=off,calibration=none pimc:worlds=32":
        Run((("--players expert:schneider=off,calibration=none pimc:worlds=32", "--players expert:schneider=off,worlds=2,calibration=none pimc:worlds=2"),)),
    "python experiments/dmc_pool.py --players learned distilled rule_based --pool rule_based "
    "rule_based:bid_threshold=0.45 rule_based:bid_threshold=0.75 neural_bidder --deals 500 --seed 20261233 "
    "--skip rule_based@rule_based": Long((("--deals 500", "--deals 2"),)),
    "python experiments/dmc_pool.py --players learned --pool pimc:worlds=32 --deals 0 --slow-deals 500 --chunk 10 "
    "--seed 20261233 --out runs/pool_pimc_learned": Long((("--slow-deals 500 --chunk 10", "--slow-deals 2 --chunk 1"),
                                                  ("pimc:worlds=32", "pimc:worlds=2"))),
    "python experiments/dmc_pool.py --players distilled --pool pimc:worlds=32 --deals 0 --slow-deals 500 --chunk 10 "
    "--seed 20261233 --out runs/pool_pimc_distilled": Long((("--slow-deals 500 --chunk 10", "--slow-deals 2 --chunk 1"),
                                                  ("pimc:worlds=32", "pimc:worlds=2"))),
    "python experiments/dmc_pool.py --players rule_based --pool pimc:worlds=32 --deals 0 --slow-deals 500 --chunk 10 "
    "--seed 20261233 --out runs/pool_pimc_rule_based": Long((("--slow-deals 500 --chunk 10", "--slow-deals 2 --chunk 1"),
                                                  ("pimc:worlds=32", "pimc:worlds=2"))),
    "python experiments/pool_gain.py runs/dmc_pool__20261233__<time> runs/pool_pimc_learned/dmc_pool__20261233__<time> "
    "runs/pool_pimc_distilled/dmc_pool__20261233__<time> runs/pool_pimc_rule_based/dmc_pool__20261233__<time> "
    "--players learned distilled --opponents rule_based rule_based:bid_threshold=0.45 rule_based:bid_threshold=0.75 "
    "neural_bidder pimc:worlds=32": Run((("pimc:worlds=32", "pimc:worlds=2"),)),
    "skatsim tournament distilled pimc:worlds=32 --deals 500 --seed 20261229 --workers 2 --out runs/distilled_v2_vs_pimc32":
        Long((("--deals 500", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim tournament learned learned:model=distilled_v1 rule_based --deals 1000 --seed 20261232 --workers 2 "
    "--out runs/learned_v1_v2_rb": Long((("--deals 1000", "--deals 2"),)),
    "skatsim tournament learned dmc dmc:model=agents/models/dmc_v3 --deals 1000 --seed 20261231 --workers 2 "
    "--out runs/learned_v2_vs_dmc": Long((("--deals 1000", "--deals 2"),)),
    "skatsim card-labels --out runs/card_labels__32__w8__g20000 --games 20000 --seed 32 --worlds 8 --workers 2":
        Long((("--games 20000", "--games 3"), ("--worlds 8", "--worlds 2"))),
    "skatsim card-labels --out runs/card_labels__36__w32__g8000 --games 8000 --seed 36 --worlds 32 --workers 2":
        Long((("--games 8000", "--games 3"), ("--worlds 32", "--worlds 2"))),
    "skatsim train-distil --labels runs/card_labels__32__w8__g20000 runs/card_labels__36__w32__g8000 "
    "--out runs/distil_w8w32 --device cpu --set sequence=false --set val_games=500":
        Long((("val_games=500", "val_games=1"),)),
    **{"skatsim tournament distilled:model=runs/distil_w8w32/model distilled:model=distilled_v1 "
       f"--deals {n} --seed {seed} --workers 2 --out runs/w8w32_vs_v1{suffix}": Long(((f"--deals {n}", "--deals 2"),))
       for n, seed, suffix in ((1000, 20261227, ""), (4000, 20261228, "_b"))},
    "skatsim card-labels --out runs/card_labels_ei__34__w8__g10000 --games 10000 --seed 34 --worlds 8 --workers 2 "
    "--search card_model=distilled_v1,card_alpha=0.5,oversample=8":
        Long((("--games 10000", "--games 3"), ("--worlds 8", "--worlds 2"), ("oversample=8", "oversample=2"))),
    "skatsim train-distil --labels runs/card_labels_ei__34__w8__g10000 --out runs/distil_ei --device cpu "
    "--set sequence=false --set val_games=500": Long((("val_games=500", "val_games=1"),)),
    "skatsim train-distil --labels runs/card_labels_ei__34__w8__g10000 --out runs/distil_ei_ft --device cpu "
    "--set sequence=false --set val_games=500 --set init=agents/models/distilled_v1 --set epochs=3 --set lr=0.0003":
        Long((("val_games=500", "val_games=1"), ("epochs=3", "epochs=1"))),
    "skatsim tournament distilled:model=runs/distil_ei/model distilled --deals 1000 --seed 20261223 --workers 2 "
    "--out runs/ei_vs_v1": Long((("--deals 1000", "--deals 2"),)),
    "skatsim tournament distilled:model=runs/distil_ei_ft/model distilled --deals 1000 --seed 20261225 --workers 2 "
    "--out runs/eift_vs_v1": Long((("--deals 1000", "--deals 2"),)),
    "skatsim tournament distilled pimc:worlds=8 pimc:worlds=32 --deals 500 --seed 20261215 --workers 2 "
    "--chunk-size 10 --out runs/distilled_pimc8_pimc32":
        Long((("--deals 500", "--deals 1"), ("pimc:worlds=8", "pimc:worlds=2"), ("pimc:worlds=32", "pimc:worlds=3"))),
    "python experiments/dagger_card_play.py --config experiments/configs/dagger_card_play.json":
        Elsewhere("tests/test_distil.py::test_the_dagger_study_labels_where_each_round_s_network_plays"),
    # ISS records
    "skatsim import-iss games.sgf.bz2 --out data/iss": Run(setup=_iss_file),
    # Experiments
    ".venv/bin/python experiments/tournament.py --config experiments/configs/rule_based_vs_random.json": Run(),
    ".venv/bin/python experiments/pimc_worlds_sweep.py --config experiments/configs/pimc_worlds_sweep.json":
        Long((("pimc_worlds_sweep.json", "pimc_worlds_sweep.json --n-deals 1"),)),
    ".venv/bin/python experiments/solver_time_by_trick.py --config experiments/configs/solver_time_by_trick.json":
        Run((("solver_time_by_trick.json", "solver_time_by_trick.json --n-deals 2"),)),
    ".venv/bin/python experiments/card_inference.py --config experiments/configs/card_inference.json":
        Run((("card_inference.json", "card_inference.json --n-games 3"),)),
    **{f".venv/bin/python experiments/card_inference.py --config experiments/configs/card_inference_{k}.json":
       Run(((f"card_inference_{k}.json", f"card_inference_{k}.json --n-games 3"),), slow=True)
       for k in ("rule_based", "mixture")},
    ".venv/bin/python experiments/solver_time_by_trick.py --config experiments/configs/solver_time_by_trick.json "
    "--n-deals 20": Run((("--n-deals 20", "--n-deals 2"),)),
    # docs/dmc.md
    "skatsim tournament dmc rule_based --deals 1000 --seed 5": Run((("--deals 1000", "--deals 2"),)),
    "skatsim agents dmc": Run(),
    "python experiments/dmc_pool.py --players dmc dmc:trust=15 --deals 2000 --slow-deals 300 --chunk 10 --seed 20260":
        Long((("--deals 2000 --slow-deals 300 --chunk 10", "--deals 2 --slow-deals 1 --chunk 1 --pool rule_based"),)),
    # Playing strength
    "skatsim tournament expert:card_inference=false,schneider=off,calibration=none pimc:worlds=32 rule_based --deals 300 --seed 20261205 "
    "--out runs/strength":
        Long((("--deals 300", "--deals 1"), ("expert:card_inference=false,schneider=off,calibration=none pimc:worlds=32",
                                             "expert:worlds=2,card_inference=false,schneider=off,calibration=none pimc:worlds=2"))),
    "skatsim tournament expert:card_inference=false,schneider=off,calibration=none pimc:worlds=32 --deals 1000 --seed 20261209 --chunk-size 20 "
    "--workers 2 --out runs/expert_vs_pimc32":
        Long((("--deals 1000", "--deals 1"), ("expert:card_inference=false,schneider=off,calibration=none pimc:worlds=32",
                                              "expert:worlds=2,card_inference=false,schneider=off,calibration=none pimc:worlds=2"))),
    "skatsim tournament expert:schneider=off,calibration=none pimc:worlds=32 --deals 400 --seed 20261221 --chunk-size 10 --workers 2 "
    "--out runs/expert2_vs_pimc32":
        Long((("--deals 400", "--deals 1"), ("expert:schneider=off,calibration=none pimc:worlds=32", "expert:worlds=2,schneider=off,calibration=none pimc:worlds=2"))),
    **{"skatsim tournament \"compose:early=neural_bidder,card_play=pimc(worlds=32,card_model=distilled_v1,"
       f"card_alpha=0.5,oversample=8)\" expert:card_inference=false,schneider=off,calibration=none --deals 500 --seed {seed} --chunk-size 10 --workers 2 "
       f"--out runs/card_inference_{ab}":
       Long((("--deals 500", "--deals 1"), ("pimc(worlds=32", "pimc(worlds=2"),
             ("expert:card_inference=false,schneider=off,calibration=none", "expert:worlds=2,card_inference=false,schneider=off,calibration=none")))
       for seed, ab in ((20261219, "a"), (20261220, "b"))},
    "skatsim compare runs/expert_vs_pimc32": Run(setup=_compare_runs),
    # the outside measurement's shape: one seat against two rule_based seats (seed 20261234)
    "skatsim tournament expert:schneider=off,calibration=none rule_based --deals 1000 --seed 20261234 --chunk-size 10 --workers 2 "
    "--out runs/expert_vs_rb": Long((("--deals 1000", "--deals 1"), ("expert:schneider=off,calibration=none", "expert:worlds=2,schneider=off,calibration=none"))),
    "skatsim tournament pimc:worlds=32 rule_based --deals 1000 --seed 20261234 --chunk-size 10 --workers 1 "
    "--out runs/pimc32_vs_rb": Long((("--deals 1000", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim tournament neural_bidder:card_play=pimc rule_based --deals 1000 --seed 20261234 --chunk-size 10 "
    "--workers 1 --out runs/nbpimc_vs_rb": Long((("--deals 1000", "--deals 1"),
                                                 ("card_play=pimc", "card_play=pimc,pimc_worlds=2"))),
    "skatsim tournament rule_based:bid_threshold=0.6 rule_based --deals 1000 --seed 20261234 --workers 1 "
    "--out runs/rb_vs_rb": Run((("--deals 1000", "--deals 1"),)),
    "skatsim compare runs/expert_vs_rb runs/rb_vs_rb --players expert:schneider=off,calibration=none rule_based:bid_threshold=0.6":
        Run((("--players expert:schneider=off,calibration=none", "--players expert:schneider=off,worlds=2,calibration=none"),)),
    "skatsim compare runs/expert_vs_rb runs/pimc32_vs_rb --players expert:schneider=off,calibration=none pimc:worlds=32":
        Run((("--players expert:schneider=off,calibration=none pimc:worlds=32", "--players expert:schneider=off,worlds=2,calibration=none pimc:worlds=2"),)),
    "skatsim compare runs/expert_vs_rb runs/nbpimc_vs_rb --players expert:schneider=off,calibration=none neural_bidder:card_play=pimc":
        Run((("--players expert:schneider=off,calibration=none neural_bidder:card_play=pimc",
              "--players expert:schneider=off,worlds=2,calibration=none neural_bidder:card_play=pimc,pimc_worlds=2"),)),
    "skatsim tournament expert:schneider=declarer,calibration=none rule_based --deals 1000 --seed 20261234 --chunk-size 10 --workers 2 "
    "--out runs/expertsd_vs_rb": Long((("--deals 1000", "--deals 1"),
                                       ("expert:schneider=declarer,calibration=none", "expert:worlds=2,schneider=declarer,calibration=none"))),
    "skatsim tournament expert:calibration=none pimc:worlds=32 rule_based --deals 1000 --seed 20261237 --chunk-size 10 --workers 2 "
    "--out runs/expert_final_sd": Long((("--deals 1000", "--deals 1"), ("expert:calibration=none", "expert:worlds=2,calibration=none"),
                                        ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim compare runs/expert_final_sd --players expert:calibration=none pimc:worlds=32":
        Run((("--players expert:calibration=none pimc:worlds=32", "--players expert:worlds=2,calibration=none pimc:worlds=2"),)),
    "skatsim compare runs/expertsd_vs_rb runs/expert_vs_rb --players expert:schneider=declarer,calibration=none expert:schneider=off,calibration=none":
        Run((("--players expert:schneider=declarer,calibration=none expert:schneider=off,calibration=none",
              "--players expert:schneider=declarer,worlds=2,calibration=none expert:schneider=off,worlds=2,calibration=none"),), setup=_expert_field_run),
    "skatsim tournament expert:worlds=64,calibration=none rule_based --deals 1000 --seed 20261234 --chunk-size 10 --workers 2 "
    "--out runs/expert64_vs_rb": Long((("--deals 1000", "--deals 1"), ("expert:worlds=64,calibration=none", "expert:worlds=3,calibration=none"))),
    "skatsim compare runs/expert64_vs_rb runs/expertsd_vs_rb --players expert:worlds=64,calibration=none expert:schneider=declarer,calibration=none":
        Run((("--players expert:worlds=64,calibration=none expert:schneider=declarer,calibration=none",
              "--players expert:worlds=3,calibration=none expert:schneider=declarer,worlds=2,calibration=none"),), setup=_expertsd_field_run),
    "skatsim tournament expert:worlds=64,calibration=none expert:calibration=none rule_based --deals 600 --seed 20261242 --chunk-size 10 --workers 2 "
    "--out runs/expert64_3way": Long((("--deals 600", "--deals 1"), ("expert:worlds=64,calibration=none expert:calibration=none ", "expert:worlds=3,calibration=none expert:worlds=2,calibration=none "))),
    "skatsim compare runs/expert64_3way --players expert:worlds=64,calibration=none expert:calibration=none":
        Run((("--players expert:worlds=64,calibration=none expert:calibration=none", "--players expert:worlds=3,calibration=none expert:worlds=2,calibration=none"),)),
    "python benchmarks/card_decisions.py --games 15 --agents expert expert:worlds=64 expert:worlds=128 --no-json":
        Run((("--games 15 --agents expert expert:worlds=64 expert:worlds=128",
              "--games 1 --agents expert:worlds=2 expert:worlds=3"),)),
    # the endgame search of the distilled card play (README, *An endgame search*)
    "python benchmarks/card_decisions.py --games 30 --agents distilled distilled:endgame=6 distilled:endgame=7 "
    "distilled:endgame=8 distilled:endgame=6,endgame_worlds=16 distilled:endgame=6,endgame_worlds=32 "
    "distilled:endgame=7,endgame_worlds=16 distilled:endgame=5,endgame_worlds=32 --no-json":
        Run((("--games 30 --agents distilled distilled:endgame=6 distilled:endgame=7 distilled:endgame=8 "
              "distilled:endgame=6,endgame_worlds=16 distilled:endgame=6,endgame_worlds=32 "
              "distilled:endgame=7,endgame_worlds=16 distilled:endgame=5,endgame_worlds=32",
              "--games 1 --agents distilled:endgame=7"),)),
    "skatsim tournament distilled:endgame=7 distilled --deals 1000 --seed 20261238 --workers 2 "
    "--out runs/distend_vs_dist": Long((("--deals 1000", "--deals 2"),)),
    "skatsim tournament distilled:endgame=7 pimc:worlds=32 --deals 1000 --seed 20261239 --chunk-size 10 --workers 2 "
    "--out runs/distend_vs_pimc32": Long((("--deals 1000", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim compare runs/distend_vs_pimc32": Run(),
    "skatsim tournament distilled:endgame=7,endgame_worlds=16 distilled:endgame=7 --deals 2000 --seed 20261240 "
    "--workers 2 --out runs/distend16_vs_8": Long((("--deals 2000", "--deals 2"),)),
    "skatsim tournament distilled:endgame=7 pimc:worlds=8 --deals 1000 --seed 20261243 --chunk-size 10 --workers 2 "
    "--out runs/distend_vs_pimc8": Long((("--deals 1000", "--deals 1"), ("pimc:worlds=8", "pimc:worlds=2"))),
    "skatsim tournament distilled:endgame=8,endgame_worlds=3 distilled:endgame=7 --deals 2000 --seed 20261244 "
    "--workers 2 --out runs/distend8w3_vs_7": Long((("--deals 2000", "--deals 2"),)),
    "python benchmarks/card_decisions.py --games 150 --agents distilled:endgame=7 distilled "
    "distilled:endgame=7,endgame_worlds=32,endgame_nodes=8000 distilled:endgame=7,endgame_worlds=32 --no-json":
        Run((("--games 150", "--games 1"),)),
    "skatsim tournament distilled:endgame=7,endgame_worlds=32,endgame_nodes=8000 distilled:endgame=7 --deals 2000 "
    "--seed 20261250 --workers 2 --out runs/distnodes_vs_dist7": Long((("--deals 2000", "--deals 2"),)),
    "skatsim tournament distilled:endgame=7,endgame_worlds=32,endgame_nodes=8000 pimc:worlds=32 --deals 1000 "
    "--seed 20261251 --chunk-size 10 --workers 2 --out runs/distnodes_vs_pimc32":
        Long((("--deals 1000", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim compare runs/distnodes_vs_pimc32": Run(),
    "skatsim tournament distilled:endgame=7,endgame_worlds=32,endgame_nodes=8000 pimc:worlds=32 --deals 1000 "
    "--seed 20261253 --chunk-size 10 --workers 2 --out runs/distnodes_vs_pimc32_b":
        Long((("--deals 1000", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    # docs/strength.md
    "skatsim tournament pimc:worlds=8,schneider=both pimc:worlds=8 --deals 1000 --seed 20261235 --chunk-size 20 "
    "--workers 1 --out runs/schneider_screen": Long((("--deals 1000", "--deals 1"),)),
    "skatsim compare runs/schneider_screen": Run(),
    "skatsim tournament pimc:worlds=8,schneider=declarer pimc:worlds=8 --deals 1000 --seed 20261236 --chunk-size 20 "
    "--workers 1 --out runs/schneider_decl": Long((("--deals 1000", "--deals 1"),)),
    "skatsim compare runs/schneider_decl": Run(),
    'skatsim tournament "compose:early=neural_bidder,card_play=pimc(worlds=32)" pimc:worlds=32 --deals 200':
        Run((("--deals 200", "--deals 1"), ("pimc(worlds=32)", "pimc(worlds=2)"), ("pimc:worlds=32", "pimc:worlds=2")),
            slow=True),
    'skatsim tournament "compose:bidding=neural_bidder,discard=skat_search,declare=skat_search,card_play=pimc" '
    "rule_based --deals 50": Run((("--deals 50", "--deals 1"), ("card_play=pimc", "card_play=pimc(worlds=2)")),
                                 slow=True),
    'skatsim calibrate-bidder --out runs/cal_pimc32 --games 600 --card-play "pimc(worlds=32)" --workers 2':
        Long((("--games 600", "--games 3"), ("pimc(worlds=32)", "pimc(worlds=2)"), ("--workers 2", "--workers 1"))),
    'skatsim calibrate-bidder --out runs/cal_expert --games 600 --seed 1717 --card-play '
    '"pimc(worlds=32,card_model=distilled_v1,card_alpha=0.5,oversample=8,schneider=declarer)" --workers 2':
        Long((("--games 600", "--games 2"), ("worlds=32", "worlds=2"), ("--workers 2", "--workers 1"))),
    'skatsim tournament "compose:early=neural_bidder(calibration=(0.336,1.378;-0.6285,1.45;0,1)),card_play=pimc('
    'worlds=32,card_model=distilled_v1,card_alpha=0.5,oversample=8,schneider=declarer)" expert:calibration=none rule_based --deals 600 '
    "--seed 20261252 --chunk-size 10 --workers 2 --out runs/cal_screen":
        Long((("--deals 600", "--deals 1"), ("worlds=32", "worlds=2"), (" expert:calibration=none ", " expert:worlds=2,calibration=none "))),
    'skatsim tournament "compose:early=neural_bidder(calibration=(0.336,1.378;-0.6285,1.45;0,1)),card_play=pimc('
    'worlds=32,card_model=distilled_v1,card_alpha=0.5,oversample=8,schneider=declarer)" expert:calibration=none '
    "rule_based --deals 1000 --seed 20261255 --chunk-size 10 --workers 2 --out runs/cal_confirm":
        Long((("--deals 1000", "--deals 1"), ("worlds=32", "worlds=2"),
              (" expert:calibration=none ", " expert:worlds=2,calibration=none "))),
    'skatsim compare runs/cal_confirm --players "compose:card_play=pimc(worlds=32,card_model=distilled_v1,card_alpha=0.5,'
    'oversample=8,schneider=declarer),early=neural_bidder(calibration=(0.336,1.378;-0.6285,1.45;0,1))" '
    "expert:calibration=none":
        Run((("worlds=32", "worlds=2"), (" expert:calibration=none", " expert:worlds=2,calibration=none"))),
    "skatsim tournament expert neural_bidder:card_play=pimc rule_based --deals 1000 --seed 20261256 --chunk-size 10 "
    "--workers 2 --out runs/expert_cal_final":
        Long((("--deals 1000", "--deals 1"), ("expert neural_bidder:card_play=pimc ",
                                              "expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2 "))),
    "skatsim compare runs/expert_cal_final --players expert neural_bidder:card_play=pimc":
        Run((("--players expert neural_bidder:card_play=pimc",
              "--players expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2"),)),
    "skatsim tournament expert:worlds=64 neural_bidder:card_play=pimc rule_based --deals 1000 --seed 20261257 "
    "--chunk-size 10 --workers 2 --out runs/expert64_cal":
        Long((("--deals 1000", "--deals 1"), ("expert:worlds=64 neural_bidder:card_play=pimc ",
                                              "expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2 "))),
    "skatsim compare runs/expert64_cal --players expert:worlds=64 neural_bidder:card_play=pimc":
        Run((("--players expert:worlds=64 neural_bidder:card_play=pimc",
              "--players expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2"),)),
    "skatsim tournament expert:worlds=64 pimc:worlds=32 --deals 1000 --seed 20261258 --chunk-size 10 --workers 2 "
    "--out runs/expert64_vs_pimc32":
        Long((("--deals 1000", "--deals 1"), ("expert:worlds=64 pimc:worlds=32 ", "expert:worlds=2 pimc:worlds=2 "))),
    "skatsim compare runs/expert64_vs_pimc32 --players expert:worlds=64 pimc:worlds=32":
        Run((("--players expert:worlds=64 pimc:worlds=32", "--players expert:worlds=2 pimc:worlds=2"),)),
    "skatsim tournament expert:worlds=64 neural_bidder:card_play=pimc rule_based --deals 1000 --seed 20261259 "
    "--chunk-size 10 --workers 2 --out runs/expert64_cal2":
        Long((("--deals 1000", "--deals 1"), ("expert:worlds=64 neural_bidder:card_play=pimc ",
                                              "expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2 "))),
    "skatsim compare runs/expert64_cal2 --players expert:worlds=64 neural_bidder:card_play=pimc":
        Run((("--players expert:worlds=64 neural_bidder:card_play=pimc",
              "--players expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2"),)),
    "skatsim tournament rule_based:scale=1 rule_based rule_based:bid_threshold=0.6 --deals 1000 --seed 20261260 --workers 2 --out runs/field_rb":
        Run((("--deals 1000", "--deals 1"),)),
    "skatsim tournament pimc:worlds=32 rule_based rule_based:bid_threshold=0.6 --deals 1000 --seed 20261260 --chunk-size 10 --workers 2 --out runs/field_pimc32":
        Long((("--deals 1000", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim tournament neural_bidder:card_play=pimc rule_based rule_based:bid_threshold=0.6 --deals 1000 --seed 20261260 --chunk-size 10 --workers 2 "
    "--out runs/field_nbpimc":
        Long((("--deals 1000", "--deals 1"), ("card_play=pimc ", "card_play=pimc,pimc_worlds=2 "))),
    "skatsim tournament expert:worlds=64 rule_based rule_based:bid_threshold=0.6 --deals 1000 --seed 20261260 --chunk-size 10 --workers 2 --out runs/field_expert64":
        Long((("--deals 1000", "--deals 1"), ("expert:worlds=64", "expert:worlds=2"))),
    "skatsim compare runs/field_expert64 runs/field_rb --players expert:worlds=64 rule_based:scale=1":
        Run((("expert:worlds=64", "expert:worlds=2"),)),
    "skatsim compare runs/field_expert64 runs/field_pimc32 --players expert:worlds=64 pimc:worlds=32":
        Run((("expert:worlds=64 pimc:worlds=32", "expert:worlds=2 pimc:worlds=2"),)),
    "skatsim compare runs/field_expert64 runs/field_nbpimc --players expert:worlds=64 neural_bidder:card_play=pimc":
        Run((("expert:worlds=64 neural_bidder:card_play=pimc",
              "expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2"),)),
    "skatsim tournament rule_based:scale=1 rule_based --one-seat --deals 1000 --seed 20261261 --workers 2 --out runs/one_rb_20261261":
        Run((("--deals 1000", "--deals 1"),)),
    "skatsim tournament neural_bidder:card_play=pimc rule_based --one-seat --deals 1000 --seed 20261261 --chunk-size 10 --workers 2 "
    "--out runs/one_nbpimc_20261261":
        Long((("--deals 1000", "--deals 1"), ("card_play=pimc ", "card_play=pimc,pimc_worlds=2 "))),
    "skatsim tournament expert:worlds=64 rule_based --one-seat --deals 1000 --seed 20261261 --chunk-size 10 --workers 2 "
    "--out runs/one_expert64_20261261":
        Long((("--deals 1000", "--deals 1"), ("expert:worlds=64", "expert:worlds=2"))),
    "skatsim tournament pimc:worlds=32 rule_based --one-seat --deals 1000 --seed 20261261 --chunk-size 10 --workers 2 "
    "--out runs/one_pimc32_20261261":
        Long((("--deals 1000", "--deals 1"), ("pimc:worlds=32", "pimc:worlds=2"))),
    "skatsim compare runs/one_expert64_20261261 runs/one_rb_20261261 --players expert:worlds=64 rule_based:scale=1":
        Run((("expert:worlds=64", "expert:worlds=2"),)),
    "skatsim compare runs/one_expert64_20261261 runs/one_pimc32_20261261 --players expert:worlds=64 pimc:worlds=32":
        Run((("expert:worlds=64 pimc:worlds=32", "expert:worlds=2 pimc:worlds=2"),)),
    "skatsim compare runs/one_expert64_20261261 runs/one_nbpimc_20261261 --players expert:worlds=64 "
    "neural_bidder:card_play=pimc":
        Run((("expert:worlds=64 neural_bidder:card_play=pimc",
              "expert:worlds=2 neural_bidder:card_play=pimc,pimc_worlds=2"),)),
    "skatsim tournament rollout:worlds=16 distilled --deals 300 --seed 20261263 --chunk-size 10 --workers 2 "
    "--out runs/rollout16_vs_dist":
        Long((("--deals 300", "--deals 1"), ("rollout:worlds=16", "rollout:worlds=2"))),
    "skatsim tournament rollout:worlds=32 pimc:worlds=32 --deals 300 --seed 20261264 --chunk-size 10 --workers 2 "
    "--out runs/rollout32_vs_pimc32":
        Long((("--deals 300", "--deals 1"), ("rollout:worlds=32 pimc:worlds=32", "rollout:worlds=2 pimc:worlds=2"))),
    "skatsim tournament rollout:worlds=64 pimc:worlds=32 --deals 300 --seed 20261265 --chunk-size 10 --workers 2 "
    "--out runs/rollout64_vs_pimc32":
        Long((("--deals 300", "--deals 1"), ("rollout:worlds=64 pimc:worlds=32", "rollout:worlds=2 pimc:worlds=2"))),
    "skatsim compare runs/a_vs_b": Run(setup=_compare_runs),
    "skatsim compare runs/a_vs_field runs/b_vs_field": Run(setup=_compare_runs),
    "skatsim compare runs/a_vs_field runs/b_vs_field --outcomes": Run(setup=_compare_runs),
    # docs/web.md
    ".venv/bin/skatsim serve": Elsewhere("tests/test_web_api.py::test_skatsim_serve_prints_its_url_and_serves"),
    ".venv/bin/skatsim serve --replay runs/my_tournament --replay games.parquet --replay iss_games.txt":
        Run((("serve", "serve --port 0 --no-warmup"),), setup=_replay_sources, serve=True),
    ".venv/bin/python -m pytest tests/test_web_safety.py tests/test_web_api.py tests/test_web_replay.py "
    "tests/test_web_advice.py tests/test_web_browser.py":
        Elsewhere("tests/test_web_safety.py::test_the_reported_command_injection_is_refused"),
}


def test_every_documented_command_has_a_test() -> None:
    found = {c.text: c for block in documented_commands() for c in block}
    missing = sorted(set(found) - set(COMMANDS))
    assert not missing, f"documented commands with no entry in COMMANDS: {missing}"
    stale = sorted(set(COMMANDS) - set(found))
    assert not stale, f"COMMANDS entries no longer in the docs: {stale}"
    for text, plan in COMMANDS.items():
        c = found[text]
        if isinstance(plan, Long):  # the docs say what it costs
            assert re.search(r"long (study|run):", c.comment) and re.search(r"\d\s*(min|h)\b", c.comment), \
                (c.file, c.line, c.comment)
        elif isinstance(plan, Elsewhere):
            where, _, name = plan.where.partition("::")
            assert (ROOT / where).is_file(), plan.where
            body = (ROOT / where).read_text()
            assert (f"def {name}(" in body) if name else (text in body), plan.where
        else:
            for old, _ in plan.subs:
                assert old in text, (text, old)


def test_every_readme_command_says_how_long_it_takes() -> None:
    """A newcomer can tell slow from hung: each command of the README states its time on the
    2-core machine in its comment (``about 16 s``, ``long study: about 50 min ...``)."""
    took = re.compile(r"\d\s*(s|min|h)\b|a few seconds")
    silent = [(c.line, c.text) for block in documented_commands() for c in block
              if c.file == "README.md" and not took.search(c.comment)]
    assert not silent, f"README commands that do not say how long they take: {silent}"


# ----------------------------------------------------------------------------- running them


def _absolute(text: str, cwd: Path) -> str:
    """The checkout's files a command names, as absolute paths (it runs in ``cwd``)."""
    def fix(m: re.Match[str]) -> str:
        p = m.group(1)
        if not (cwd / p).exists() and ((ROOT / p).exists() or (ROOT / f"{p}.pt").exists()):
            return str(ROOT / p)
        return p

    return re.sub(r"(?<![\w/.<])((?:experiments|benchmarks|agents|tests|docs)/[\w./-]*\w)", fix, text)


def _placeholders(arg: str, cwd: Path) -> str:
    """``runs/x__0__<time>/model`` -> the path of the one run folder of ``cwd`` it names."""
    for m in re.finditer(r"[\w./-]*<[^>]*>[\w.-]*", arg):
        hits = sorted(cwd.glob(re.sub(r"<[^>]*>", "*", m.group(0))))
        assert len(hits) == 1, (arg, hits)
        arg = arg.replace(m.group(0), str(hits[0]))
    return arg


def _argv(text: str, cwd: Path) -> tuple[list[str], dict[str, str]]:
    words = shlex.split(_absolute(text, cwd))
    env = {**os.environ}
    path = [str(ROOT)]
    while re.match(r"^[A-Z_]+=", words[0]):
        k, _, v = words.pop(0).partition("=")
        if k == "PYTHONPATH":
            path += [str(ROOT / p) if not os.path.isabs(p) else p for p in v.split(os.pathsep)]
        else:
            env[k] = str(cwd / v) if "/" in v and not os.path.isabs(v) else v
    env["PYTHONPATH"] = os.pathsep.join(path)
    exe = {"skatsim": [sys.executable, "-m", "skatsim_app"], ".venv/bin/skatsim": [sys.executable, "-m", "skatsim_app"],
           "python": [sys.executable], ".venv/bin/python": [sys.executable], "bash": ["bash"]}[words[0]]
    return exe + [_placeholders(w, cwd) for w in words[1:]], env


def _smaller(text: str, plan: Run | Long) -> str:
    for old, new in plan.subs:
        text = text.replace(old, new, 1)
    return text


def _serve(argv: list[str], env: dict[str, str], cwd: Path) -> None:
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        seen = []
        for line in proc.stdout:  # type: ignore[union-attr]
            seen.append(line)
            if "skatsim table: http://127.0.0.1:" in line:
                return
        raise AssertionError("".join(seen))
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def run_block(block: list[DocCommand], cwd: Path, slow: bool) -> None:
    """Run the commands of one block in ``cwd`` (the small versions of long studies with
    ``slow``), skipping those tested elsewhere."""
    for c in block:
        plan = COMMANDS[c.text]
        if isinstance(plan, Elsewhere) or (isinstance(plan, Long) and not (slow and plan.small)):
            continue
        if isinstance(plan, Run) and plan.setup is not None:
            plan.setup(cwd)
        argv, env = _argv(_smaller(c.text, plan), cwd)
        if isinstance(plan, Run) and plan.serve:
            _serve(argv, env, cwd)
            continue
        r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, f"{c.file}:{c.line}: {c.text}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
        assert "Traceback" not in r.stderr, r.stderr[-3000:]


def _is_slow(block: list[DocCommand]) -> bool:
    return any(isinstance(p, Long) or (isinstance(p, Run) and p.slow) for p in (COMMANDS.get(c.text) for c in block))


def _block_params() -> list:  # type: ignore[type-arg]
    seen: set[str] = set()
    params = []
    for block in documented_commands():
        plans = [COMMANDS.get(c.text) for c in block]
        if all(c.text in seen for c in block) or all(isinstance(p, Elsewhere) for p in plans):
            continue  # the same commands are run for an earlier block
        seen.update(c.text for c in block)
        marks = [pytest.mark.slow] if _is_slow(block) else []
        params.append(pytest.param(block, id=f"{block[0].file}:{block[0].line}", marks=marks))
    return params


@pytest.mark.parametrize("block", _block_params())
def test_a_documented_block_runs(block: list[DocCommand], tmp_path: Path) -> None:
    if any(c.text not in COMMANDS for c in block):
        pytest.skip("not in COMMANDS (test_every_documented_command_has_a_test fails)")
    run_block(block, tmp_path, slow=_is_slow(block))


# ----------------------------------------------------------------------------- the Python blocks


def _block(after: str, source: str = README) -> str:
    i = source.index(after)
    m = re.search(r"```python\n(.*?)```", source[i:], flags=re.S)
    assert m is not None
    return m.group(1)


def test_the_learning_example_runs() -> None:
    learning = _block("# Learning", (ROOT / "docs" / "learning.md").read_text())
    assert learning == _block("## Learning")  # the same example in both places
    code = learning.replace("4096", "256").replace("range(100)", "range(60)")
    env: dict = {}
    exec(compile(code, "README.md (Learning)", "exec"), env)  # noqa: S102
    batch = env["batch"]
    assert len(batch.action) > 0 and batch.obs.shape[1] == 574
    assert (batch.legal_mask[range(len(batch.action)), batch.action]).all()  # every recorded action was legal


def test_the_own_agent_example_is_tests_my_agents() -> None:
    """The README's Greedy is tests/my_agents.py's, which the agent tests and the README's
    doctests and command run."""
    shown = _block("## Write your own agent")
    mine = (ROOT / "tests" / "my_agents.py").read_text()
    start = mine.index(shown.splitlines()[0])
    assert mine[start:start + len(shown)] == shown


def test_the_dmc_agent_examples_run() -> None:
    pytest.importorskip("torch")
    code = _block("It is in the registry:", (ROOT / "docs" / "dmc.md").read_text())
    code = code.replace("runs/train_dmc_small__0__.../model", str(ROOT / "agents" / "models" / "dmc_v1"))
    env: dict = {}
    exec(compile(code, "docs/dmc.md", "exec"), env)  # noqa: S102
    assert env["a"].name.startswith("dmc")


def test_the_vecenv_signature_in_the_docs_is_the_real_one() -> None:
    import ast

    from skatsim.vec import VecEnv

    shown = _block("## `VecEnv`", (ROOT / "docs" / "learning.md").read_text()).strip()
    args = ast.parse(f"def f{shown[len('VecEnv'):]}: pass").body[0].args  # type: ignore[attr-defined]
    real = inspect.signature(VecEnv).parameters
    assert [a.arg for a in args.args] == [n for n, p in real.items() if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert [a.arg for a in args.kwonlyargs] == [n for n, p in real.items() if p.kind == p.KEYWORD_ONLY]
    pairs = list(zip(args.args[::-1], args.defaults[::-1])) + list(zip(args.kwonlyargs, args.kw_defaults))
    for a, d in pairs:
        if isinstance(d, ast.Constant):  # the literal defaults are the real ones
            assert real[a.arg].default == d.value, a.arg


def test_the_strength_page_s_examples_run() -> None:
    """docs/strength.md's ``>>>`` examples (a composed player's parts) as doctests."""
    import doctest

    res = doctest.testfile(str(ROOT / "docs" / "strength.md"), module_relative=False,
                           optionflags=doctest.ELLIPSIS)
    assert res.attempted and not res.failed, res


def test_the_python_blocks_are_all_tested() -> None:
    """Every non-doctest Python block of the docs is one of the above."""
    known = {"from skatsim import action_to_string", "import numpy as np, torch", "from agents import make_agent",
             "VecEnv(n, rules=SkatRules(), seed=0, reward=\"sf\", *, policies=None, auto_reset=True, threads=None)"}
    for path in DOCS:
        for line, lang, body in _blocks(path):
            if lang == "python" and ">>>" not in body:
                assert body.splitlines()[0] in known, (path, line)


def test_the_inline_commands_parse() -> None:
    """Commands quoted in the text (without placeholders) are valid command lines."""
    from skatsim_app.cli import build_parser

    parser = build_parser()
    for path in DOCS:
        text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
        for m in re.finditer(r"`skatsim ([^`]+)`", text):
            cmd = m.group(1)
            if (re.search(r"\b[A-Z]{2,}\b|\[|\.\.\.|<|:\s", cmd) or len(cmd.split()) == 1
                    or cmd.split()[0] in ("train-bidding", "train-dmc")):
                continue  # a synopsis, an output line, a command's name, or a script's own options
            try:
                parser.parse_args(shlex.split(cmd))
            except SystemExit as e:
                assert e.code == 0, (path.name, cmd)
