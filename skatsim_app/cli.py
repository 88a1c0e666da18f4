"""Command line of skatsim (the ``skatsim`` command; also ``python -m skatsim_app``).

Commands:
  play        play one game with agents and print it, or (--seat) play yourself against two AIs
  demo        small duplicate tournaments (rule-based vs random, PIMC vs rule-based);
              --batch: batch simulation summary of random deals, then one printed game
  solve       open-hand solution of a dealt hand game, judged against the announced goal
  tournament  duplicate tournament of 2 or 3 agents with a summary and 95% intervals,
              optionally into a resumable run directory (--out DIR, --resume DIR)
  league      every pair of 3+ agents in duplicate: margin matrix and ratings
  simulate    batch simulation of compiled policies (optionally into a run directory)
  show        the summary (and --plot charts) of a run directory or a results table
  agents      the registered agents and their parameters
  import-iss  ISS game records into parquet tables
  bench       run one of the benchmarks/ scripts
  train-bidding  label hands, train the bidding network, or run its tournament
  train-dmc   train the learned (Deep Monte-Carlo) player by self-play
  serve       the browser table: play against two AIs, replay recorded games with the solver
  compare     where the points go between two players, decision by decision
  card-labels PIMC's values of every card at the positions it meets (distillation labels)
  train-distil  train the distilled card player on card labels
  calibrate-bidder  fit the neural bidder's win probabilities to the card player's games

The same option means the same everywhere (skatsim_app.options): ``--seed`` (default 1),
``--workers`` (default every core), ``--out DIR`` (a folder relative to the current one),
``--format csv|parquet``, ``--no-progress``. A mistake is a one-line message and exit status
2, never a traceback; an option that has no effect where it is given is refused; Ctrl-C
stops within moments, keeps what is finished and prints the command that resumes (exit 130).
Run 'skatsim COMMAND --help' for a command's options.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from .analysis_commands import run_calibrate_bidder, run_card_labels, run_train_distil
from .options import UsageError
from .tool_commands import run_train_bidding, run_train_dmc

if TYPE_CHECKING:
    from skatsim.interrupt import ctrl_c

# The commands' modules (and through them skatsim's compiled engine) are imported inside
# main(), where Ctrl-C is handled: an interrupt while they load ends as quietly as any other.

__all__ = ["main", "build_parser"]  # (and game_text, imported on first use)


def __getattr__(name: str) -> Any:
    if name == "game_text":
        from .game_commands import game_text

        return game_text
    raise AttributeError(f"module 'skatsim_app.cli' has no attribute {name!r}")


def _version() -> str:
    from skatsim import __version__
    from skatsim.options import RULES_VERSION

    return f"skatsim {__version__} (rules {RULES_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    from .analysis_commands import add_compare
    from .game_commands import add_demo, add_play, add_solve
    from .run_commands import add_league, add_show, add_simulate, add_tournament
    from .tool_commands import add_agents, add_bench, add_import_iss, add_train_bidding, add_train_dmc, add_warmup

    p = argparse.ArgumentParser(
        prog="skatsim", description="Skat (ISkO) simulator and AI research toolkit.",
        epilog="Run 'skatsim COMMAND --help' for a command's options.")
    p.add_argument("--version", action="version", version=_version(), help="print the version and exit")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", title="commands")
    for add in (add_play, add_demo, add_solve, add_tournament, add_league, add_simulate, add_show, add_agents,
                add_import_iss, add_bench, add_train_bidding, add_train_dmc, add_warmup, _add_serve, add_compare,
                _script_help("card-labels", "PIMC's values of every card at the positions it meets (labels)"),
                _script_help("train-distil", "train the distilled card player on card labels"),
                _script_help("calibrate-bidder", "fit the neural bidder's win probabilities to a card player")):
        add(sub)
    return p


def _script_help(name: str, text: str) -> "Any":
    """A command whose arguments all belong to its module (listed in the help only)."""
    def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
        sub.add_parser(name, help=text, add_help=False)

    return add


def _add_serve(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sp = sub.add_parser("serve", help="the browser table: play against two AIs, replay recorded games",
                        description="A local web app (Starlette + uvicorn, 127.0.0.1 by default): play one deal "
                                    "after another against two AIs with German- or French-suited cards, or "
                                    "replay recorded games (--replay PATH) with the solver's verdict on every card.")
    from skatsim_app.web import add_serve_arguments, run_serve

    add_serve_arguments(sp)
    sp.set_defaults(func=run_serve, parser=sp)


def _errors() -> tuple[type[BaseException], ...]:
    """The exceptions that are a user's mistake or a missing resource (a one-line message)."""
    errs: list[type[BaseException]] = [ValueError, TypeError]
    from skatsim.parallel import RayUnavailableError

    errs.append(RayUnavailableError)
    try:
        from agents.players.neural_bidding import CheckpointError

        errs.append(CheckpointError)
    except ImportError:  # pragma: no cover - torch missing
        pass
    return tuple(errs)


def _fail(cmd: str, message: str) -> int:
    print(f"skatsim {cmd}: error: {message}", file=sys.stderr)
    return 2


def _os_message(e: OSError, args: argparse.Namespace | None) -> str:
    """An operating-system error (a read-only or full disk, a missing folder, no permission, no
    network) in one line: what failed, on which file, and that the finished work is kept."""
    if e.strerror:
        where = e.filename or next((getattr(args, k) for k in ("out", "resume", "plot") if getattr(args, k, None)),
                                   None)
        text = e.strerror + (f": {os.fspath(where)!r}" if where else "")
    else:
        text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    hint = getattr(args, "resume_hint", None)
    run = getattr(args, "out", None) or getattr(args, "resume", None)
    if hint and run:
        from skatsim.runs import is_run_dir

        if is_run_dir(run):  # the run had begun: its finished chunks are on disk
            return f"{text}; what was finished is kept: resume with {hint}"
    return text


def _stdout_closed() -> int:
    """The reader of our output went away (``skatsim show ... | head``): stop quietly, as
    Unix tools do, with the status of a SIGPIPE (141) and no second error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass
    return 141


#: Commands whose arguments all belong to a learning module's command line (agents.learn.dmc, ...).
_SCRIPT_COMMANDS = {"train-bidding": run_train_bidding, "train-dmc": run_train_dmc,
                    "card-labels": run_card_labels, "train-distil": run_train_distil,
                    "calibrate-bidder": run_calibrate_bidder}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        from skatsim.interrupt import ctrl_c  # loads the engine (skatsim's package)
    except KeyboardInterrupt:
        return _interrupted(argv)
    try:
        with ctrl_c() as interrupt:  # a Ctrl-C that some code dropped is raised again
            try:
                return _main(argv, interrupt)
            except KeyboardInterrupt:  # while the commands load or the arguments are read
                interrupt.stopped()
                return _interrupted(argv)
    except KeyboardInterrupt:  # dropped, and the command ran on to its end: raised as the block ends
        return _interrupted(argv)


def _interrupted(argv: list[str]) -> int:
    cmd = next((a for a in argv if not a.startswith("-")), "")
    print(f"\nskatsim{' ' + cmd if cmd else ''}: interrupted", file=sys.stderr)
    return 130


def _main(argv: list[str], interrupt: ctrl_c) -> int:
    script = _SCRIPT_COMMANDS.get(argv[0]) if argv else None
    if script is not None:  # every argument, --help included, belongs to the script
        return _run(argv[0], lambda: script(argv[1:]), None, interrupt)
    p = build_parser()
    args = p.parse_args(argv)
    if args.cmd is None:
        p.print_help()
        return 0
    return _run(args.cmd, lambda: args.func(args), args, interrupt)


def _run(cmd: str, call, args: argparse.Namespace | None, interrupt: ctrl_c) -> int:  # noqa: ANN001
    try:
        return int(call() or 0)
    except UsageError as e:
        return _fail(cmd, str(e))
    except KeyboardInterrupt:
        interrupt.stopped()
        hint = getattr(args, "resume_hint", None) if args is not None else None
        print(f"\nskatsim {cmd}: interrupted" + (f"; what was finished is kept: resume with {hint}" if hint else ""),
              file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _stdout_closed()
    except OSError as e:
        return _fail(cmd, _os_message(e, args))
    except _errors() as e:
        return _fail(cmd, str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
