"""Card-play labels from search: what PIMC thinks of every legal card, at the positions it meets.

Games are played by composed players (:mod:`agents.compose`) whose card play is
:class:`agents.pimc.PIMCAgent` with ``worlds`` worlds per decision and whose early
decisions (bidding, skat, discard, declaration) are taken by one of ``early`` in turn
(game ``i`` uses ``early[i % len(early)]`` in every seat, so the contracts cover what
different bidders declare). At every card decision with more than one legal card the
search's values become a row: for each legal card the fraction of the sampled worlds in
which it reaches the mover's side's goal (61 / 90 / schwarz / null, solved open-handed,
exactly what PIMC maximises), the card PIMC played, the rule-based player's card, and the
seat's information at that moment (its masked state vector and the order of the cards
played so far). The fraction over a few worlds is a noisy but unbiased estimate of the
value under the seat's belief; a network regressing on many positions averages the noise
out, so few worlds per position (``worlds=8``) buy more positions for the same search time.

``play`` names another card player (an agent spec such as ``"distilled"``) whose cards are
played instead of PIMC's: PIMC still searches and labels every decision, but the game goes
where that player takes it. These are the positions a student reaches and its teacher does
not (DAgger's relabelling, Ross et al. 2011): a distilled network's own mistakes lead it to
positions its PIMC-played training games never showed it. ``chosen`` stays PIMC's card.

``search`` sets options of the labelling PIMC (registry parameters of ``pimc`` other than
``worlds``, as ``k=v,...``). With ``card_model=distilled`` its worlds are weighed by the
student network's model of the others' cards (:mod:`agents.players.pimc_inference`): the
labels come from search that uses the net, the step of expert iteration (Anthony et al.
2017) that can take a student beyond its first teacher.

Seeds: game ``i`` deals ``derive_seed(seed, i)`` and the agents get the seat streams of
that deal, so a row depends only on (config, game index): not on shards, workers or
backend. Storage: a run directory (:class:`skatsim.runs.RunDir`, kind ``card_labels``),
a shard per ``shard_size`` games, resumable; :func:`read_card_labels` loads it.

Schema (one row per card decision with a choice):

=============  ===============  ==================================================
column         type             meaning
=============  ===============  ==================================================
game           int64            game index in the run
deal_seed      int64            ``derive_seed(seed, game)``
early          string           the early-decision agent of the game
move           int16            index of the decision in the game's actions
seat           int8             the seat to move
role           int8             0 declarer, 1 defender
game_type      int8             0..5 (D H S C G N)
trick          int8             1..10
view           list<int64>      the seat's masked state vector (``Observation.view``)
seq            list<int8>       the cards played so far, in order
legal          int64            mask of the legal cards
wins           list<float32>    32 values: fraction of worlds won by the mover's side
                                with that card (NaN: not legal)
points         list<float32>    32 values: the side's mean card points where PIMC's
                                tie-break computed them, else NaN
n_worlds       int16            worlds solved (kept within the node budget)
chosen         int8             the card PIMC played
rule_based     int8             the rule-based player's card
sf             float32          the mover's Seeger-Fabian score of the finished game
=============  ===============  ==================================================

>>> cfg = CardLabelConfig(n_games=1, worlds=2, seed=5)
>>> rows = label_game(0, cfg)
>>> len(rows) > 10, all(0 <= r["wins"][r["chosen"]] <= 1 for r in rows)
(True, True)
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from skatsim.bits import derive_seed

__all__ = ["CardLabelConfig", "label_game", "generate_card_labels", "read_card_labels", "RUN_KIND", "SCHEMA_VERSION"]

RUN_KIND = "card_labels"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class CardLabelConfig:
    """What determines the rows of a card-label run.

    Args:
        n_games: games to play.
        seed: run seed (game ``i`` deals ``derive_seed(seed, i)``).
        worlds: worlds per card decision of the PIMC players (their labels and their moves).
        early: agent specs taking the early decisions, one per game in turn.
        shard_size: games per shard.
        play: the card player whose cards are played (an agent spec); ``""``: PIMC's own.
        search: options of the labelling PIMC, ``k=v,...`` (``pimc`` registry parameters but
            ``worlds``), e.g. ``card_model=distilled,card_alpha=0.5,oversample=8``; ``""``: none.
    """

    n_games: int = 1000
    seed: int = 0
    worlds: int = 8
    early: tuple[str, ...] = ("rule_based", "neural_bidder")
    shard_size: int = 20
    play: str = ""
    search: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.n_games, bool) or not isinstance(self.n_games, int) or not 1 <= self.n_games <= 10**8:
            raise ValueError(f"n_games must be an int in 1..10^8, got {self.n_games!r}")
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or not 1 <= self.worlds <= 10_000:
            raise ValueError(f"worlds must be an int in 1..10000, got {self.worlds!r}")
        if not self.early or not all(isinstance(e, str) and e for e in self.early):
            raise ValueError(f"early must name at least one agent spec, got {self.early!r}")
        if isinstance(self.shard_size, bool) or not isinstance(self.shard_size, int) or self.shard_size < 1:
            raise ValueError(f"shard_size must be a positive int, got {self.shard_size!r}")
        if not isinstance(self.play, str):
            raise ValueError(f"play must be an agent spec or '', got {self.play!r}")
        if self.play:  # an unknown name or parameter fails here, not in a worker
            from ..arena.base import as_spec

            as_spec(self.play)
        self.searcher_params()  # the same for the search options
        object.__setattr__(self, "early", tuple(self.early))

    def searcher_params(self) -> dict[str, Any]:
        """The labelling PIMC's parameters (registry-checked and coerced).

        >>> CardLabelConfig(worlds=4, search="card_alpha=0.5").searcher_params()
        {'card_alpha': 0.5, 'worlds': 4}
        """
        from ..arena.base import AgentSpec

        if not isinstance(self.search, str):
            raise ValueError(f"search must be pimc options k=v,... or '', got {self.search!r}")
        opts = AgentSpec.parse(f"pimc:{self.search}").param_dict if self.search else {}
        if "worlds" in opts:
            raise ValueError("search: the worlds are set by worlds=, not in the search options")
        return AgentSpec("pimc", {**opts, "worlds": self.worlds}).param_dict

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["early"] = list(self.early)
        for k in ("play", "search"):  # the runs made before these existed keep their config
            if not d[k]:
                del d[k]
        d["schema_version"] = SCHEMA_VERSION
        return d


class _Relabel:
    """A card player whose every decision is searched (and logged) by ``searcher`` and
    played by ``mover``."""

    name = "relabel"

    def __init__(self, searcher: Any, mover: Any) -> None:
        self.searcher, self.mover = searcher, mover

    def reset(self, deal_id: int, seat: int, rng: int) -> None:
        for a in (self.searcher, self.mover):
            f = getattr(a, "reset", None)
            if f is not None:
                f(deal_id, seat, rng)

    def act(self, obs: Any) -> int:
        self.searcher.act(obs)
        return int(self.mover.act(obs))


_STUDENTS: dict[str, list[Any]] = {}


def _students(spec: str) -> list[Any]:
    """The three seats' ``play`` agents, built once per process (a table resets them before
    every game; a network is not loaded again for each)."""
    if spec not in _STUDENTS:
        from ..arena.base import make_agent

        _STUDENTS[spec] = [make_agent(spec) for _ in range(3)]
    return _STUDENTS[spec]


def _players(cfg: CardLabelConfig, early: str) -> tuple[list[Any], list[Any]]:
    from ..players.compose import ComposedAgent
    from ..players.pimc import PIMCAgent

    searchers = [PIMCAgent(**cfg.searcher_params(), log=True) for _ in range(3)]
    cards = [_Relabel(p, m) for p, m in zip(searchers, _students(cfg.play))] if cfg.play else searchers
    return [ComposedAgent(early=early, card_play=c) for c in cards], searchers


def label_game(i: int, cfg: CardLabelConfig) -> list[dict[str, Any]]:
    """The rows of game ``i`` of the run ``cfg`` (see the module docstring)."""
    from skatsim import SkatState

    from ..arena.play import Table

    deal_seed = derive_seed(cfg.seed, i)
    early = cfg.early[i % len(cfg.early)]
    seats, searchers = _players(cfg, early)
    state = SkatState.new_game(seed=deal_seed)
    table = Table(seats, state, deal_seed, i)
    rows: list[dict[str, Any]] = []
    move = 0
    while not table.over:
        seat = state.current_player()
        before = len(searchers[seat].decisions)
        obs = state.observation(seat) if state.phase == "play" else None
        table.step()
        move += 1
        if obs is None or len(searchers[seat].decisions) == before or len(obs.legal_actions) < 2:
            continue
        rec = searchers[seat].decisions[-1]
        if rec.get("wins") is None:  # pragma: no cover - rule="points" is not used here
            continue
        wins = np.full(32, np.nan, np.float32)
        for c, v in rec["wins"].items():
            wins[c] = v
        pts = np.full(32, np.nan, np.float32)
        for c, v in (rec.get("mean_points") or {}).items():
            pts[c] = v
        legal = 0
        for c in obs.legal_actions:
            legal |= 1 << c
        rows.append({
            "game": i, "deal_seed": deal_seed, "early": early, "move": move - 1, "seat": seat,
            "role": 0 if seat == obs.declarer else 1, "game_type": int(obs.game_type or 0),
            "trick": len(obs.tricks) + 1, "view": np.asarray(obs.view, np.int64),
            "seq": np.array([c for _, cards, _ in obs.tricks for c in cards] + list(obs.current_trick), np.int8),
            "legal": legal, "wins": wins, "points": pts, "n_worlds": int(rec["worlds"]) - int(rec["dropped"]),
            "chosen": int(rec["card"]), "rule_based": _rule_based_card(obs)})
    sf = table.result.seeger_fabian
    for r in rows:
        r["sf"] = float(sf[r["seat"]])
    return rows


_RB: Any = None


def _rule_based_card(obs: Any) -> int:
    global _RB
    if _RB is None:
        from ..players.rule_based import RuleBasedAgent

        _RB = RuleBasedAgent()
    return int(_RB.peek(obs))


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("game", pa.int64()), ("deal_seed", pa.int64()), ("early", pa.string()), ("move", pa.int16()),
        ("seat", pa.int8()), ("role", pa.int8()), ("game_type", pa.int8()), ("trick", pa.int8()),
        ("view", pa.list_(pa.int64())), ("seq", pa.list_(pa.int8())), ("legal", pa.int64()),
        ("wins", pa.list_(pa.float32())), ("points", pa.list_(pa.float32())), ("n_worlds", pa.int16()),
        ("chosen", pa.int8()), ("rule_based", pa.int8()), ("sf", pa.float32())])


def _chunk(cfg: CardLabelConfig, a: int, b: int) -> tuple[float, Any]:
    import pyarrow as pa

    t0 = time.process_time()
    rows: list[dict[str, Any]] = []
    for i in range(a, b):
        rows += label_game(i, cfg)
    return time.process_time() - t0, pa.Table.from_pylist(rows, schema=_schema())


def generate_card_labels(out_dir: str | os.PathLike[str], cfg: CardLabelConfig, *, workers: int = 1,
                         backend: str = "local", address: str | None = None, progress: bool = True) -> Path:
    """Label ``cfg.n_games`` games into the run directory ``out_dir`` (resuming a run of the
    same config; another config is refused): local processes or Ray
    (:meth:`skatsim.runs.RunDir.fill`). The manifest's ``seconds`` is the CPU time spent
    labelling. Returns the directory."""
    from skatsim.runs import RunDir

    run = RunDir.resume_or_create(out_dir, kind=RUN_KIND, config=cfg.to_dict(), n_units=cfg.n_games,
                                  chunk_size=cfg.shard_size, extra={"schema_version": SCHEMA_VERSION})
    if workers > 1 and backend == "local" and run.todo():
        # compile once: forked workers inherit the code (a student compiles nothing of its own)
        label_game(0, dataclasses.replace(cfg, worlds=1, play=""))
    run.fill(_chunk, lambda a, b: (cfg, a, b), workers=workers, backend=backend, address=address, progress=progress,
             desc=f"card labels (pimc, {cfg.worlds} worlds{', ' + cfg.search if cfg.search else ''}"
                  f"{', played by ' + cfg.play if cfg.play else ''})",
             unit="game")
    import pyarrow.parquet as pq

    rows = sum(pq.read_metadata(p).num_rows for p in run.done().values())
    run.mark_complete(None, rows=int(rows))
    return Path(out_dir)


def read_card_labels(paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                     columns: Sequence[str] | None = None) -> Any:
    """The rows of one or more card-label runs (finished shards) as a pandas DataFrame."""
    from skatsim.runs import read_runs

    return read_runs(paths, RUN_KIND, "card labels", columns=columns)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.learn.card_labels --out DIR --games N --worlds 8 --workers 2``."""
    import argparse

    ap = argparse.ArgumentParser(prog="skatsim card-labels", description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--out", required=True, help="run directory (resumed when it holds the same config)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worlds", type=int, default=8)
    ap.add_argument("--early", nargs="+", default=list(CardLabelConfig.early))
    ap.add_argument("--shard-size", type=int, default=20)
    ap.add_argument("--play", default="", metavar="SPEC",
                    help="play this agent's cards instead of PIMC's (PIMC still labels every decision): "
                         "the positions a student reaches, e.g. distilled")
    ap.add_argument("--search", default="", metavar="K=V,...",
                    help="options of the labelling PIMC, e.g. card_model=distilled,card_alpha=0.5,oversample=8 "
                         "(expert iteration: the search's worlds weighed by the student network)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--backend", choices=("local", "ray"), default="local")
    ap.add_argument("--address", default=None)
    a = ap.parse_args(argv)
    try:
        cfg = CardLabelConfig(n_games=a.games, seed=a.seed, worlds=a.worlds, early=tuple(a.early),
                              shard_size=a.shard_size, play=a.play, search=a.search)
        out = generate_card_labels(a.out, cfg, workers=a.workers, backend=a.backend, address=a.address)
    except (ValueError, FileExistsError) as e:
        ap.error(str(e))
    from skatsim.runs import RunDir

    run = RunDir.open(out)
    secs = float(run.manifest.get("seconds", 0.0))
    rows = int(run.manifest.get("rows", 0))
    per = secs / rows * 1000 if rows else math.nan
    print(f"{rows:,} labelled card decisions in {cfg.n_games:,} games, {secs:,.0f} CPU s "
          f"({per:.1f} ms per decision); {os.fspath(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
