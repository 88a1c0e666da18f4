"""A browser table: play a deal against two AIs, and replay recorded games with the solver.

``skatsim serve`` starts a local web app (Starlette + uvicorn, bound to 127.0.0.1 by
default) and prints its URL. Its page (``static/``: HTML, CSS, JavaScript and our own SVG
card drawings, shipped in the package, no network) has two screens:

- **Play**: you and two AIs of the registry (default ``rule_based`` and ``pimc``) play one
  deal with German- or French-suited cards; every phase by clicking, the AIs' moves one by
  one, the settlement explained at the end, the open-hand solver's verdict on request, and
  a running list over the deals.
- **Replay**: the games of the run directories, parquet tables or ISS files given with
  ``--replay PATH``: step through a game, see every card or one seat's view, at each card
  decision the solver's value of every legal card with the moves that lost points marked, and
  at the bids, the skat, the discards and the declaration the values an agent gives each
  alternative (:mod:`.advice`: the seat's own agent, or the server's analysis agent).

The server drives the same :class:`skatsim.SkatState`, rules and agents as everything else;
the page only displays. See ``docs/web.md``. Modules: :mod:`.server` (routes),
:mod:`.game` (the play table), :mod:`.seats` (AIs in their own processes),
:mod:`.replay` (sources and solver values), :mod:`.advice` (agents' values: the hint and
the decisions), :mod:`.jobs` (worker-pool jobs),
:mod:`.names` (deck names), :mod:`.cards_svg` (the card drawings).

>>> import argparse
>>> p = argparse.ArgumentParser(); add_serve_arguments(p)
>>> a = p.parse_args(["--port", "0", "--replay", "runs/t1", "--opponents", "random,pimc:worlds=8"])
>>> a.host, a.port, a.replay, [o.to_text() for o in a.opponents]
('127.0.0.1', 0, ['runs/t1'], ['random', 'pimc:worlds=8'])
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_serve_arguments", "run_serve", "create_app", "DEFAULT_PORT"]

#: The port ``skatsim serve`` listens on unless told otherwise.
DEFAULT_PORT = 8765


def _opponents(text: str) -> list[Any]:
    from agents import AgentSpec

    parts = [p.strip() for p in text.split(",")]
    pieces: list[str] = []
    for part in parts:  # a spec's own key=value parameters may follow it
        if pieces and "=" in part and ":" not in part:
            pieces[-1] += "," + part
        else:
            pieces.append(part)
    if len(pieces) not in (1, 2):
        raise argparse.ArgumentTypeError(f"give one opponent (for both seats) or two, got {len(pieces)}: {text!r}")
    try:
        specs = [AgentSpec.parse(p) for p in pieces]
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return specs * 2 if len(specs) == 1 else specs


def _named_agent(text: str) -> tuple[str, Any]:
    """``NAME=SPEC`` of ``--agent``: the spec is resolved (imported) here, at start-up."""
    from agents import AgentSpec

    name, eq, spec = text.partition("=")
    if not eq or not name.strip() or not spec.strip():
        raise argparse.ArgumentTypeError(f"write NAME=SPEC, e.g. strong=pimc:worlds=64 or mine=mypkg.bots:Bot, "
                                         f"got {text!r}")
    try:
        return name.strip(), AgentSpec.parse(spec.strip())
    except (ValueError, TypeError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _port(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port number expected, got {text!r}") from None
    if not 0 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"a port in 0..65535 expected (0: any free port), got {v}")
    return v


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds expected, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"a positive number of seconds expected, got {v}")
    return v


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``skatsim serve`` (added to ``parser``)."""
    from .names import DECKS

    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; any other address "
                             "needs --public)")
    parser.add_argument("--public", action="store_true",
                        help="allow a --host that other machines can reach (there is no login: anyone who reaches "
                             "the port can play, use the CPU and replay the --replay games)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a further Host name the server answers to (repeatable), e.g. the name of a reverse "
                             "proxy; by default only the bound address (and localhost for a loopback bind)")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--replay", action="append", default=[], metavar="PATH",
                        help="a tournament or simulation run directory, a games parquet or an ISS file to replay "
                             "(repeatable); the browser can open only these")
    parser.add_argument("--opponents", type=_opponents, default=None, metavar="SPEC[,SPEC]",
                        help="the two AIs a new table starts with, left and right (default rule_based,pimc); "
                             "the page can choose others from the registry")
    parser.add_argument("--agent", type=_named_agent, action="append", default=[], metavar="NAME=SPEC",
                        help="offer an agent of your own to the page under NAME (repeatable): any agent spec, "
                             "e.g. strong=pimc:worlds=64 or mine=mypkg.bots:Bot:depth=3; the page can seat only "
                             "these and the registry's agents, by name")
    parser.add_argument("--analysis-agent", default=None, metavar="SPEC",
                        help="the agent that values the decisions before the card play in a replay and gives "
                             "the page's hint: any agent spec with action_values, or an --agent NAME; 'none' for "
                             "none (default: neural_bidder for the bids, skat_search with small searches for the "
                             "pickup, discard and declaration, pimc:worlds=16 for the cards)")
    parser.add_argument("--deck", choices=DECKS, default="german",
                        help="the deck style a new table starts with (default german)")
    parser.add_argument("--kontra", action="store_true", help="allow Kontra/Re (the page can switch it)")
    parser.add_argument("--ramsch", action="store_true", help="play Ramsch when everybody passes")
    parser.add_argument("--time-limit", type=_seconds, default=30.0, metavar="SECONDS",
                        help="seconds an AI may think per decision; one over it is stopped and loses the game "
                             "by rule (default 30)")
    parser.add_argument("--replay-limit", type=int, default=None, metavar="N",
                        help="games listed per replay source, the first N (default 2000)")
    parser.add_argument("--no-warmup", action="store_true",
                        help="do not load the AIs' compiled code before serving (the first deal then waits)")


def create_app(**options: Any) -> Any:
    """The Starlette app (see :func:`skatsim_app.web.server.create_app`)."""
    from .server import create_app as _create

    return _create(**options)


def _warm_up(opponents: list[Any]) -> None:
    """Play one deal with the AIs so their compiled code is loaded before the AIs' processes
    are forked from the server (each deal's AIs then start at once)."""
    from agents import play

    play([opponents[0].make(), opponents[1].make(), opponents[0].make()], seed=1)


def run_serve(args: argparse.Namespace) -> int:
    """``skatsim serve``: build the app, print the URL, serve until Ctrl-C. Returns the exit code."""
    try:
        import uvicorn  # noqa: F401
        import starlette  # noqa: F401
    except ImportError as e:
        print(f"skatsim serve: error: the web table needs the 'web' extra ({e.name} is missing): "
              "pip install -e '.[web]'", file=sys.stderr)
        return 2
    import socket

    import uvicorn

    from agents import AgentSpec
    from skatsim.options import SkatRules

    from .game import DEFAULT_OPPONENTS
    from .replay import DEFAULT_LIMIT, SourceError

    from .guard import WILDCARDS, HostPolicy, is_loopback

    if not is_loopback(args.host) and not args.public:
        print(f"skatsim serve: error: --host {args.host} can be reached from other machines; the table has no "
              "login, so add --public to allow that (or leave --host out: 127.0.0.1, this machine only)",
              file=sys.stderr)
        return 2
    opponents = args.opponents or [AgentSpec.parse(o) for o in DEFAULT_OPPONENTS]
    limit = args.replay_limit if args.replay_limit is not None else DEFAULT_LIMIT
    if limit < 1:
        print("skatsim serve: error: --replay-limit must be at least 1", file=sys.stderr)
        return 2
    try:
        app = create_app(replay=list(args.replay), rules=SkatRules(kontra=args.kontra, ramsch=args.ramsch),
                         opponents=[o.to_text() for o in opponents], agents=dict(args.agent), deck=args.deck,
                         time_limit=args.time_limit, replay_limit=limit, analysis_agent=args.analysis_agent)
    except (SourceError, ValueError) as e:
        print(f"skatsim serve: error: {e}", file=sys.stderr)
        return 2
    web = app.state.web
    for src in web.sources:
        print(f"replay: {src.label}: {len(src.games):,} games listed"
              + (f" (of {src.total:,})" if src.total > len(src.games) else ""))
    if not args.no_warmup:
        print("loading the AIs' compiled code ...", flush=True)
        _warm_up(opponents)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        print(f"skatsim serve: error: cannot listen on {args.host}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    port = sock.getsockname()[1]
    web.hosts = HostPolicy(args.host, port, args.allow_host)
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    if args.host in WILDCARDS:  # the address to open here; other machines use this one's address
        host = "[::1]" if family == socket.AF_INET6 else "127.0.0.1"
    if not is_loopback(args.host):
        where = "every network this machine is on" if args.host in WILDCARDS else f"the network of {args.host}"
        print(f"--public: listening on {where}, port {port}. There is no login: anyone who can reach it can play "
              "deals against the AIs here (using this machine's CPU: up to "
              f"{web.max_sessions} tables, two AI processes each) and replay the games of every --replay source. "
              "Nothing else on this machine is reachable through it, and no request can name a program, a file "
              f"or a path. Host names answered: {web.hosts.describe()}.", flush=True)
    print(f"skatsim table: http://{host}:{port}/   (Ctrl-C stops the server)", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover
        pass
    finally:
        sock.close()
    return 0
