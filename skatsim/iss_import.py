"""ISS records into parquet tables (the ``skatsim import-iss FILE --out DIR`` command).

:func:`import_iss` streams an ISS file (plain or ``.bz2``; :mod:`skatsim.iss` parses and
replays each record) into ``DIR``: ``games.parquet`` (one row per game: the result schema of
:mod:`skatsim.table`, then :data:`GAME_EXTRA_COLUMNS`: the ISS ids, players, dealt cards,
the auction, the server's result fields, the replay's differences and notes),
``decisions.parquet`` (every bidding, skat and declaration decision with the seat's cards,
the auction so far, the action and the game's outcome), ``errors.jsonl`` (the records that
could not be read at all), ``summary.json`` and ``manifest.json`` (:mod:`skatsim.runs`).
Each file appears complete or not at all.

Every readable record is kept: a replay that differs from the server's result line is
kept with the differing fields in ``mismatch``, and unusual records are kept with their
ending and a note (``notes``: hidden cards, cards the moves do not determine, a single
defender's resignation; :func:`skatsim.iss.replay_notes`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from .actions import BID_BASE, PASS, PICKUP, action_to_string
from .contracts import BID_VALUES
from .iss import IssError, IssGame, Mismatch, check, check_source, iss_cards, iter_lines, parse_iss, replay_notes
from .state import SkatState
from .table import auction_text

__all__ = ["import_iss", "ImportSummary", "GAME_EXTRA_COLUMNS", "DECISION_COLUMNS"]

#: Columns of the ``games`` table after :data:`skatsim.table.RESULT_COLUMNS`.
GAME_EXTRA_COLUMNS: tuple[str, ...] = (
    "iss_id", "line", "series", "date", "player_0", "player_1", "player_2", "ending", "ending_seat",
    "hand_0", "hand_1", "hand_2", "skat", "discard", "auction",
    "server_outcome", "server_value", "server_points", "server_tricks", "server_matadors", "mismatch", "notes")
#: Columns of the ``decisions`` table.
DECISION_COLUMNS: tuple[str, ...] = (
    "iss_id", "seat", "player", "phase", "hand", "auction", "bid", "action", "action_text",
    "declarer", "contract", "won", "list_score", "declarer_points", "ending")


def _schemas() -> tuple[Any, Any]:
    import pyarrow as pa

    from .simulate import RESULT_DTYPE
    from .table import RESULT_COLUMNS

    def np2pa(dt: Any) -> Any:
        return pa.from_numpy_dtype(dt)

    g = []
    for c in RESULT_COLUMNS:
        if c == "contract":
            g.append(pa.field(c, pa.string()))
        else:
            g.append(pa.field(c, np2pa(RESULT_DTYPE[c])))
    text = {"date", "player_0", "player_1", "player_2", "ending", "discard", "auction", "server_outcome", "mismatch",
            "notes"}
    i64 = {"iss_id", "hand_0", "hand_1", "hand_2", "skat"}
    for c in GAME_EXTRA_COLUMNS:
        g.append(pa.field(c, pa.string() if c in text else pa.int64() if c in i64 else pa.int32()))
    d_types = {"iss_id": pa.int64(), "seat": pa.int8(), "player": pa.string(), "phase": pa.string(),
               "hand": pa.int64(), "auction": pa.string(), "bid": pa.int16(), "action": pa.int16(),
               "action_text": pa.string(), "declarer": pa.int8(), "contract": pa.string(), "won": pa.bool_(),
               "list_score": pa.int32(), "declarer_points": pa.int16(), "ending": pa.string()}
    return pa.schema(g), pa.schema([pa.field(c, d_types[c]) for c in DECISION_COLUMNS])


def _game_rows(g: IssGame, s: SkatState, r: Any, index: int, mism: list[Mismatch],
               notes: Sequence[str] = ()) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    history = s.phase_history()
    row = r.to_row(deal_index=index, deal_seed=None, n_actions=len(history))
    if row["points_0"] is None:
        pts = s.points()
        for q in range(3):
            row[f"points_{q}"] = pts[q] if not r.passed_in else 0
    hands = [h.mask for h in s.deal.hands]
    skat = s.deal.skat.mask
    actions = [a for _, a, _ in history]
    row.update({"iss_id": g.id, "line": g.line, "series": g.series, "date": g.date, "player_0": g.players[0],
                "player_1": g.players[1], "player_2": g.players[2], "ending": s.ending,
                "ending_seat": -1 if s.ending_seat is None else s.ending_seat,
                "hand_0": hands[0], "hand_1": hands[1], "hand_2": hands[2], "skat": skat,
                "discard": iss_cards(s.skat_mask()) if s.skat_picked_up else "", "auction": auction_text(actions),
                "server_outcome": g.result.outcome, "server_value": g.result.value,
                "server_points": g.result.points, "server_tricks": g.result.tricks,
                "server_matadors": g.result.matadors, "mismatch": " ".join(m.field for m in mism),
                "notes": " ".join(notes)})
    # decisions: every bidding, skat and declaration action with the state before it
    dec = []
    bid = 0
    outcome = (row["declarer"], row["contract"], row["won"], row["list_score"], row["declarer_points"], s.ending)
    for k, (p, a, ph) in enumerate(history):
        if ph not in ("bidding", "skat", "discard", "declare"):
            break
        dec.append((g.id, p, g.players[p], ph, hands[p], auction_text(actions[:k]), bid, a,
                    action_to_string(a)) + outcome)
        if ph == "bidding" and BID_BASE <= a < PASS:
            bid = BID_VALUES[a - BID_BASE]
        elif a == PICKUP:
            hands[p] |= skat
        elif ph == "discard":
            hands[p] &= ~(1 << a)
    return row, dec


def _printable(text: str, most: int = 200) -> str:
    """``text`` safe for a terminal: control and undecodable characters escaped, at most
    ``most`` characters (a binary file's junk is not echoed).

    >>> print(_printable("bad \\x1b[2J\\ufffd token"))
    bad \\x1b[2J\\ufffd token
    """
    out = "".join(c if c.isprintable() and c != "\ufffd" else c.encode("unicode_escape").decode() for c in text)
    return out if len(out) <= most else out[:most - 3] + "..."


@dataclass
class ImportSummary:
    """What :func:`import_iss` read: records, games written, skipped (by reason, with the
    first examples), replay mismatches by field, decisions, time and rate."""

    path: str
    out_dir: str
    records: int = 0
    games: int = 0
    decisions: int = 0
    skipped: Counter = field(default_factory=Counter)
    mismatches: Counter = field(default_factory=Counter)
    mismatched_games: int = 0
    endings: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "out_dir": self.out_dir, "records": self.records, "games": self.games,
                "decisions": self.decisions, "skipped": dict(self.skipped), "mismatches": dict(self.mismatches),
                "mismatched_games": self.mismatched_games, "endings": dict(self.endings), "notes": dict(self.notes),
                "examples": self.examples, "seconds": round(self.seconds, 3),
                "records_per_second": round(self.records_per_second, 1)}

    def __str__(self) -> str:
        lines = [f"{self.path}: {self.records} records in {self.seconds:.1f} s ({self.records_per_second:,.0f}/s)",
                 f"  games written: {self.games} -> {os.path.join(self.out_dir, 'games.parquet')}",
                 f"  decisions written: {self.decisions} -> {os.path.join(self.out_dir, 'decisions.parquet')}",
                 "  endings: " + (", ".join(f"{k} {v}" for k, v in self.endings.most_common()) or "-"),
                 "  notes: " + (", ".join(f"{k} {v}" for k, v in self.notes.most_common()) or "-")]
        n_skip = sum(self.skipped.values())
        lines.append(f"  skipped: {n_skip}" + (" (" + ", ".join(f"{k} {v}" for k, v in self.skipped.most_common())
                                                + f"; details in {os.path.join(self.out_dir, 'errors.jsonl')})"
                                                if n_skip else ""))
        for e in self.examples[:5]:
            lines.append(f"    {e}")
        lines.append(f"  games that differ from the server's result: {self.mismatched_games}"
                     + (" (fields: " + ", ".join(f"{k} {v}" for k, v in self.mismatches.most_common()) + ")"
                        if self.mismatches else ""))
        return "\n".join(lines)


def _check_out(out: str, config: dict[str, Any]) -> None:
    """``out`` may take this import: new, an empty folder, or the folder of an import of the
    same file (path, size) and ``limit``, which is made again. Anything else is refused
    (``FileExistsError`` naming what is there), as every command refuses to replace results."""
    if not os.path.exists(out):
        return
    if not os.path.isdir(out):
        raise FileExistsError(f"--out {out!r} is a file; give a folder for games.parquet, decisions.parquet, "
                              "errors.jsonl and summary.json")
    if not os.listdir(out):
        return
    from .runs import is_run_dir, read_manifest

    if not is_run_dir(out):
        raise FileExistsError(f"--out {out!r} is a folder that is not empty; give a new folder for the import")
    man = read_manifest(out)
    if man.get("kind") != "iss_import":
        raise FileExistsError(f"--out {out!r} holds a {man.get('kind')} run; give a new folder for the import")
    old = man.get("config", {})
    diff = [k for k in config if old.get(k) != config[k]]
    if diff:
        raise FileExistsError(f"--out {out!r} holds another import ("
                              + "; ".join(f"{k}: {old.get(k)!r} there, {config[k]!r} here" for k in diff)
                              + "); give a new folder, or delete that one to replace it")


def import_iss(path: str | os.PathLike[str], out_dir: str | os.PathLike[str], *, progress: bool = True,
               chunk: int = 20_000, limit: int | None = None) -> ImportSummary:
    """Import an ISS file (plain or ``.bz2``) into ``out_dir``: ``games.parquet`` (one row
    per game: :data:`skatsim.table.RESULT_COLUMNS` then :data:`GAME_EXTRA_COLUMNS`),
    ``decisions.parquet`` (:data:`DECISION_COLUMNS`), ``errors.jsonl`` (one line per
    record that cannot be read: line, id, kind, token, reason), ``summary.json`` and
    ``manifest.json``; each written atomically.

    Streams in chunks of ``chunk`` records (flat memory); a malformed record or one the
    rules refuse is counted by kind (``malformed``, ``illegal``, ``unfinished``) in
    ``errors.jsonl``; a replay that differs from the server's result line is kept, with the
    differing fields in ``mismatch``, and unusual ones with their ``notes``. ``progress``: a
    tqdm bar over the file's bytes. A folder, a missing, truncated or not regular file raise
    :class:`~skatsim.iss.IssError`; an ``out_dir`` that is a file, a folder holding anything
    but an import of the same file (path and size) and ``limit`` ``FileExistsError``: an
    earlier import is never replaced by another.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .runs import atomic_path, write_manifest

    t0 = time.perf_counter()
    src = check_source(path)
    out = os.fspath(out_dir)
    config = {"source": os.path.abspath(src), "bytes": os.path.getsize(src), "limit": limit}
    _check_out(out, config)
    os.makedirs(out, exist_ok=True)
    summ = ImportSummary(path=src, out_dir=out)
    gschema, dschema = _schemas()
    gnames = gschema.names
    gcols: dict[str, list] = {c: [] for c in gnames}
    dcols: list[list] = [[] for _ in DECISION_COLUMNS]
    with contextlib.ExitStack() as stack:
        tmp = {k: stack.enter_context(atomic_path(os.path.join(out, name)))
               for k, name in (("games", "games.parquet"), ("decisions", "decisions.parquet"),
                               ("errors", "errors.jsonl"))}
        gw = pq.ParquetWriter(tmp["games"], gschema)
        stack.callback(gw.close)
        dw = pq.ParquetWriter(tmp["decisions"], dschema)
        stack.callback(dw.close)
        errf = stack.enter_context(open(tmp["errors"], "w", encoding="utf-8"))
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = stack.enter_context(tqdm(total=os.path.getsize(src), unit="B", unit_scale=True, desc="import-iss",
                                           file=sys.stderr))

        def flush() -> None:
            if gcols[gnames[0]]:
                gw.write_table(pa.Table.from_pydict(gcols, schema=gschema))
                summ.games += len(gcols[gnames[0]])
                for v in gcols.values():
                    v.clear()
            if dcols[0]:
                dw.write_table(pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(dcols, dschema)],
                                                    schema=dschema))
                summ.decisions += len(dcols[0])
                for v in dcols:
                    v.clear()

        def skip(e: IssError) -> None:
            summ.skipped[e.kind] += 1
            errf.write(json.dumps(e.to_dict()) + "\n")
            if len(summ.examples) < 20:
                summ.examples.append(_printable(str(e)))

        done = 0
        for n, text, pos in iter_lines(src):
            if bar is not None and (n & 1023) == 0:
                bar.update(pos - done)
                done = pos
            t = text.strip()
            if not t or t.startswith("#"):
                continue
            if limit is not None and summ.records >= limit:
                break
            summ.records += 1
            try:
                g = parse_iss(t, n)
                s, notes = replay_notes(g)
            except IssError as e:
                skip(e)
                continue
            except Exception as e:  # a bug must not end a million-record import: record it
                skip(IssError(f"{type(e).__name__}: {e}", line=n, kind="internal"))
                continue
            r = s.result
            mism = check(g, s, r)
            if mism:
                summ.mismatched_games += 1
                for m in mism:
                    summ.mismatches[m.field] += 1
            summ.endings[s.ending or "?"] += 1
            for note in notes:
                summ.notes[note] += 1
            row, dec = _game_rows(g, s, r, summ.records - 1, mism, notes)
            for c in gnames:
                gcols[c].append(row[c])
            for d in dec:
                for col, v in zip(dcols, d):
                    col.append(v)
            if len(gcols[gnames[0]]) >= chunk:
                flush()
        flush()
        if bar is not None:
            bar.update(max(0, os.path.getsize(src) - done))
    summ.seconds = time.perf_counter() - t0
    from .runs import atomic_write_json

    atomic_write_json(os.path.join(out, "summary.json"), summ.to_dict())
    write_manifest(out, "iss_import", {**config, "chunk": chunk}, status="complete", records=summ.records,
                   games=summ.games, elapsed_s=round(summ.seconds, 3))
    return summ
