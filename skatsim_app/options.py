"""The options every command shares, defined once: the same name, default and help text
wherever they appear, and the argument types that turn bad input into one-line errors.

- ``--seed`` (default 1), ``--workers`` (default: every core), ``--out DIR`` (a folder,
  relative to the current one; never inside the source tree unless you say so),
  ``--format csv|parquet`` (also write the whole table as one file into ``--out``),
  ``--no-progress``, ``--ramsch`` / ``--kontra``, ``--backend`` / ``--address``.
- :class:`UsageError`: a command's settings do not fit together (an option that has no
  effect, a folder that exists ...): the CLI prints ``skatsim CMD: error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
import os
from typing import Any, Callable

__all__ = ["UsageError", "int_arg", "seed_arg", "deals_arg", "add_seed", "add_workers", "add_out", "add_format",
           "add_progress", "add_rules", "add_backend", "rules_of", "agent_spec", "split_specs", "agent_list",
           "opponents", "refuse_unused", "DEFAULT_SEED", "default_workers", "check_new_out",
           "check_plot_path"]

#: The default seed of every command.
DEFAULT_SEED = 1


class UsageError(ValueError):
    """Settings that do not fit together; printed as a one-line usage error (exit status 2)."""


def default_workers() -> int:
    """Every core of this machine (the default of ``--workers``)."""
    return os.cpu_count() or 1


def int_arg(lo: int | None = None, hi: int | None = None, what: str = "an int",
            bounds: str | None = None) -> Callable[[str], int]:
    """An argparse type: an int (``_`` allowed) within ``lo..hi``, else a message naming it
    (``bounds``: how the range reads in it, e.g. ``1..10**12``).

    >>> int_arg(1, None, "a deal count")("1_000")
    1000
    """
    def conv(text: str) -> int:
        try:
            v = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} expected, got {text!r}") from None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = bounds or (f">= {lo}" if hi is None else f"in {lo}..{hi}")
            raise argparse.ArgumentTypeError(f"{what} {rng} expected, got {v}")
        return v

    conv.__name__ = what  # argparse names the type in its messages
    return conv


def seed_arg() -> Callable[[str], int]:
    """An argparse type: a seed, a signed 64-bit int (the rule of every run,
    :func:`skatsim._random.check_run_seed`)."""
    from skatsim._random import RUN_SEED_MAX, RUN_SEED_MIN

    return int_arg(RUN_SEED_MIN, RUN_SEED_MAX, "an int seed", "in -2**63..2**63-1 (64 bits)")


def deals_arg(lo: int = 1, what: str = "a deal count") -> Callable[[str], int]:
    """An argparse type: a count of deals or boards, ``lo..MAX_DEALS`` (10**12, the bound of
    every run, :func:`skatsim._random.check_deal_count`).

    >>> deals_arg()("10**20")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a deal count expected, got '10**20'
    >>> deals_arg()("100_000_000_000_000_000_000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a deal count in 1..10**12 expected, got 100000000000000000000
    """
    from skatsim._random import MAX_DEALS

    return int_arg(lo, MAX_DEALS, what, f"in {lo}..10**12")


def add_seed(sp: argparse.ArgumentParser, what: str = "deal seed") -> None:
    sp.add_argument("--seed", type=seed_arg(), default=None,
                    help=f"{what}, any 64-bit int (default {DEFAULT_SEED})")


def add_workers(sp: argparse.ArgumentParser,
                what: str = "processes for Python agents, threads for compiled ones") -> None:
    sp.add_argument("--workers", type=int_arg(1, None, "a worker count"), default=None,
                    help=f"{what} (default: every core, {default_workers()} here)")


def add_out(sp: argparse.ArgumentParser, what: str) -> None:
    sp.add_argument("--out", metavar="DIR", default=None,
                    help=f"{what} (a folder, relative to the current one)")


def add_format(sp: argparse.ArgumentParser, table: str) -> None:
    sp.add_argument("--format", choices=("parquet", "csv"), default=None,
                    help=f"with --out: also write the whole table as one file, DIR/{table}.parquet or DIR/{table}.csv")


def add_progress(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--no-progress", action="store_true", help="no progress bars")


def add_rules(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--ramsch", action="store_true", help="play Ramsch when everybody passes")
    sp.add_argument("--kontra", action="store_true", help="allow Kontra/Re")


def add_backend(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--backend", choices=("local", "ray"), default="local",
                    help="local processes/threads (default) or Ray tasks (pip install 'skatsim[ray]')")
    sp.add_argument("--address", default=None,
                    help="with --backend ray: an existing cluster ('auto', 'ray://head:10001'); default a local Ray")


def rules_of(args: argparse.Namespace) -> Any:
    from skatsim.options import SkatRules

    return SkatRules(ramsch=bool(getattr(args, "ramsch", False)), kontra=bool(getattr(args, "kontra", False)))


def refuse_unused(args: argparse.Namespace, unused: dict[str, str]) -> None:
    """Refuse options given where they have no effect: ``{dest: why}`` for the options that
    are unused in this call (their default is ``None`` or ``False``)."""
    for dest, why in unused.items():
        v = getattr(args, dest, None)
        if v is not None and v is not False and v != []:
            raise UsageError(f"--{dest.replace('_', '-')} {why}")


def check_new_out(path: str, what: str = "the results") -> None:
    """``path`` may hold a new run: it does not exist, or is an empty folder. It is created with
    its parent folder if needed (``runs/NAME`` makes ``runs/``), not deeper: a mistyped path
    is refused rather than built."""
    if os.path.exists(path) and (not os.path.isdir(path) or os.listdir(path)):
        kind = "a file" if not os.path.isdir(path) else "a folder that is not empty"
        raise UsageError(f"--out {path!r} is {kind}; give a new folder for {what}")
    parent = os.path.dirname(os.path.abspath(path))
    grand = os.path.dirname(parent)
    if not os.path.isdir(parent) and not os.path.isdir(grand):  # runs/NAME makes runs/ too, no deeper
        raise UsageError(f"--out {path!r}: the folder {grand!r} does not exist")


def check_plot_path(path: str) -> None:
    """``--plot FILE``: matplotlib is installed, draws that file type, and the folder can be
    written to (it is made when its parent exists, as ``--out`` makes ``runs/``); checked
    before any work (a league would otherwise fail at its end)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install matplotlib") from None
    kinds = Figure().canvas.get_supported_filetypes()
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext not in kinds:
        raise UsageError(f"--plot {path!r}: give a file name ending in one of {', '.join('.' + k for k in kinds)}")
    folder = os.path.dirname(os.path.abspath(path))
    parent = folder if os.path.isdir(folder) else os.path.dirname(folder)
    if not os.path.isdir(parent):  # runs/x.png makes runs/ too, no deeper (as --out)
        raise UsageError(f"--plot {path!r}: the folder {parent!r} does not exist")
    if not os.access(parent, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"--plot {path!r}: cannot write there (a read-only file system or no permission)")
    os.makedirs(folder, exist_ok=True)


def agent_spec(text: str) -> Any:
    """An argparse type: one agent spec (a registry name with parameters, or module:Class)."""
    from agents import AgentSpec

    try:
        return AgentSpec.parse(text)
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def split_specs(text: str) -> list[str]:
    """Comma-separated agent specs, where a spec's own ``key=value`` parameters may follow
    it: ``rule_based:max_bid=18,x=1,random`` -> ``["rule_based:max_bid=18,x=1", "random"]``."""
    from agents import list_agents

    names = set(list_agents())
    pieces: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if pieces and "=" in part and ":" not in part and part.split("=")[0] not in names:
            pieces[-1] += "," + part
        else:
            pieces.append(part)
    return pieces


def agent_list(text: str) -> list[Any]:
    """``random`` or ``rule_based,random,random``: one agent for every seat or three."""
    pieces = split_specs(text)
    if len(pieces) not in (1, 3):
        raise argparse.ArgumentTypeError(f"give one agent (for every seat) or three (forehand, middlehand, "
                                         f"rearhand), got {len(pieces)}: {text!r}")
    specs = [agent_spec(p) for p in pieces]
    return specs * 3 if len(specs) == 1 else specs


def opponents(text: str) -> list[Any]:
    """One agent spec (both opponents) or two, comma-separated: ``rule_based,pimc:worlds=16``."""
    pieces = split_specs(text)
    if len(pieces) not in (1, 2):
        raise argparse.ArgumentTypeError(f"give one opponent (for both seats) or two, got {len(pieces)}: {text!r}")
    specs = [agent_spec(p) for p in pieces]
    return specs * 2 if len(specs) == 1 else specs
