"""Files that survive: atomic writes, package versions, manifests and run directories.

One place for everything a long job writes down, used by batch simulation, tournaments,
bidding labels, ISS import and the experiments:

- :func:`atomic_path` / :func:`atomic_write_bytes` / :func:`atomic_write_json`: a file
  appears complete or not at all (a temporary file in the same folder, ``fsync``, then
  :func:`os.replace`), whatever kills the writer;
- :func:`versions`: Python, platform, package versions and the git commit a result came from;
- :func:`write_manifest` / :func:`read_manifest`: ``manifest.json`` (format, kind, config,
  versions, status) of any output folder;
- :class:`RunDir`: a resumable run cut into chunks of units (deals or boards).

A run directory holds one run (a tournament, a batch simulation, bidding labels)::

    runs/DIR/
      manifest.json          what determines the rows (config), how they are cut (chunk_size),
                             package and dependency versions, status ("running" / "complete")
      shards/rows-000000000-000000025.parquet   the rows of units [0, 25) (deals or boards)
      shards/...
      summary.txt            the printed summary, once complete

Units of work (deals, or tournament boards) are cut into chunks ``[a, b)`` of
``chunk_size`` fixed at creation; a chunk's rows depend only on the config and the unit
ids, so chunks can be played in any order, on any machine, and a resumed run plays only
the chunks without a shard. Every shard is written through :func:`atomic_path`: a kill at
any moment leaves either the complete shard or none (temporary files are removed when the
run is reopened). Each shard's Parquet metadata (``skatsim``) records its chunk and row
count; a file whose count does not match is not counted as done (and is replaced).

>>> import tempfile, pandas as pd
>>> d = RunDir.create(tempfile.mkdtemp() + "/run", kind="demo", config={"n": 3}, n_units=3, chunk_size=2)
>>> d.todo()
[(0, 2), (2, 3)]
>>> d.write_shard(0, 2, pd.DataFrame({"x": [1, 2]})).name
'rows-000000000-000000002.parquet'
>>> d.todo(), list(d.read_all()["x"])
([(2, 3)], [1, 2])
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RunDir", "read_runs",
           "RUN_FORMAT", "MANIFEST", "versions", "is_run_dir", "atomic_path", "atomic_write_bytes",
           "atomic_write_json", "write_manifest", "read_manifest", "TMP_PREFIX", "new_run_dir"]

RUN_FORMAT = "skatsim-run/1"
MANIFEST = "manifest.json"
SHARDS = "shards"
_PREFIX = "rows"
#: Prefix of the temporary files of :func:`atomic_path` (removed when a run is reopened).
TMP_PREFIX = _TMP = ".tmp-"

#: Packages whose versions a manifest records.
_PACKAGES = ("skatsim", "numpy", "numba", "llvmlite", "pandas", "pyarrow", "tqdm", "torch", "ray")


def git_commit(where: str | os.PathLike[str] | None = None) -> str:
    """Short hash of the git checkout holding ``where`` (default: this package; ``""`` when
    it is not in a checkout or git is missing)."""
    folder = Path(where) if where is not None else Path(__file__).resolve().parent
    try:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                           cwd=folder, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return r.stdout.strip() if r.returncode == 0 else ""


def versions() -> dict[str, str]:
    """Python, platform, package versions (``"not installed"`` for absent optional ones) and
    the git commit: what every manifest and benchmark records.

    >>> v = versions(); v["python"].count("."), "numba" in v
    (2, True)
    """
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "platform": platform.platform(), "machine": platform.machine()}
    for pkg in _PACKAGES:
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    out["commit"] = git_commit()
    return out


def new_run_dir(study: str, seed: int, root: str | os.PathLike[str] | None = None) -> Path:
    """Create and return ``<root>/<study>__<seed>__<YYYYmmdd-HHMMSS>/``; a ``-2``, ``-3`` ...
    suffix keeps it unique when a run of the same study and seed started in the same second.
    The default root is ``runs`` in the current folder.

    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> a, b = new_run_dir("demo", 1, root), new_run_dir("demo", 1, root)
    >>> a != b, a.is_dir(), b.name.startswith("demo__1__")
    (True, True, True)
    """
    base = Path(root) if root is not None else Path("runs")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        path = base / (f"{study}__{seed}__{stamp}" + (f"-{k}" if k > 1 else ""))
        try:
            path.mkdir()
            return path
        except FileExistsError:
            k += 1


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path next to ``path`` to write to; when the ``with`` body ends normally the
    file is ``fsync``-ed and moved onto ``path`` with :func:`os.replace`, else removed. So
    ``path`` holds the old file or the complete new one, never a partial one.

    ``FileNotFoundError`` names the missing folder before anything is written.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.txt"
    >>> with atomic_path(p) as tmp:
    ...     _ = tmp.write_text("done")
    >>> p.read_text(), sorted(q.name for q in p.parent.iterdir())
    ('done', ['x.txt'])
    """
    path = Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot write {os.fspath(path)!r}: the folder {os.fspath(path.parent)!r} "
                                "does not exist")
    tmp = path.with_name(f"{_TMP}{path.name}.{os.getpid()}")
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented, key-sorted JSON to ``path`` atomically."""
    atomic_write_bytes(path, (json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n").encode())


def write_manifest(folder: str | os.PathLike[str], kind: str, config: Mapping[str, Any],
                   **extra: Any) -> dict[str, Any]:
    """Write ``folder/manifest.json`` (format, kind, config, creation time, :func:`versions`,
    ``extra``) atomically and return it. Every output folder of the project has one.

    >>> import tempfile
    >>> m = write_manifest(tempfile.mkdtemp(), "demo", {"n": 1}, status="complete")
    >>> m["format"], m["kind"], m["config"], m["status"]
    ('skatsim-run/1', 'demo', {'n': 1}, 'complete')
    """
    manifest = {"format": RUN_FORMAT, "kind": kind, "config": dict(config),
                "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "versions": versions(), **extra}
    atomic_write_json(Path(folder) / MANIFEST, manifest)
    return manifest


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of ``folder`` (``ValueError`` naming the problem when there is none)."""
    path = Path(folder)
    f = path / MANIFEST
    if not f.is_file():
        why = "does not exist" if not path.exists() else f"has no {MANIFEST}"
        raise ValueError(f"{os.fspath(path)!r} is not a skatsim run directory: it {why}")
    try:
        manifest = json.loads(f.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {os.fspath(f)!r}: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != RUN_FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else None
        raise ValueError(f"{os.fspath(f)!r} is not a {RUN_FORMAT} manifest (format {got!r})")
    return manifest


def is_run_dir(path: str | os.PathLike[str]) -> bool:
    """``path`` is a directory with a run manifest."""
    return (Path(path) / MANIFEST).is_file()


def _shard_name(a: int, b: int) -> str:
    return f"{_PREFIX}-{a:09d}-{b:09d}.parquet"


def _parse_name(name: str) -> tuple[int, int] | None:
    if not (name.startswith(_PREFIX + "-") and name.endswith(".parquet")):
        return None
    parts = name[len(_PREFIX) + 1:-len(".parquet")].split("-")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def read_runs(paths: "str | os.PathLike[str] | Iterable[str | os.PathLike[str]]", kind: str, what: str,
              columns: Sequence[str] | None = None) -> "pd.DataFrame":
    """The finished rows of one or more run directories of ``kind`` as one DataFrame (path
    by path, chunk order; ``columns``: only these). A folder holding another kind of run, or
    no finished chunk in any of them, is a ``ValueError`` naming ``what`` the rows are
    (``"card labels"``).
    """
    import pandas as pd

    ps = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    parts = []
    for p in ps:
        run = RunDir.open(p)
        if run.kind != kind:
            raise ValueError(f"{os.fspath(p)!r} holds a {run.kind} run, not {what}")
        if run.done():
            parts.append(run.read_all(columns=columns))
    if not parts:
        raise ValueError(f"no finished shard of {what} in " + ", ".join(os.fspath(x) for x in ps))
    return pd.concat(parts, ignore_index=True)


class RunDir:
    """One run directory (see the module docstring). Make it with :meth:`create` or
    :meth:`open`; the manifest is :attr:`manifest`."""

    def __init__(self, path: str | os.PathLike[str], manifest: dict[str, Any]) -> None:
        self.path = Path(path)
        self.manifest = manifest

    # ------------------------------------------------------------------ creating and opening
    @classmethod
    def create(cls, path: str | os.PathLike[str], *, kind: str, config: Mapping[str, Any], n_units: int,
               chunk_size: int, extra: Mapping[str, Any] | None = None) -> "RunDir":
        """A new run directory at ``path`` (which must not exist, or be an empty directory)."""
        path = Path(path)
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            what = "a run directory" if is_run_dir(path) else "not an empty directory"
            raise FileExistsError(f"{os.fspath(path)!r} exists and is {what}; choose a new directory")
        if not isinstance(chunk_size, int) or chunk_size < 1 or not isinstance(n_units, int) or n_units < 0:
            raise ValueError(f"chunk_size must be a positive int and n_units a non-negative int, "
                             f"got {chunk_size!r}, {n_units!r}")
        (path / SHARDS).mkdir(parents=True, exist_ok=True)
        manifest = write_manifest(path, kind, config, n_units=n_units, chunk_size=chunk_size, status="running",
                                  **dict(extra or {}))
        return cls(path, manifest)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> "RunDir":
        """An existing run directory (``ValueError`` when ``path`` is not one)."""
        d = cls(path, read_manifest(path))
        d._clean()
        return d

    @classmethod
    def resume_or_create(cls, path: str | os.PathLike[str], *, kind: str, config: Mapping[str, Any], n_units: int,
                         chunk_size: int, extra: Mapping[str, Any] | None = None) -> "RunDir":
        """The run at ``path``: reopened when it holds a run of the same ``kind`` and
        ``config`` (to resume it), created when it does not exist; ``ValueError`` naming
        every difference when it holds another kind or config."""
        if is_run_dir(path):
            run = cls.open(path)
            if run.kind != kind:
                raise ValueError(f"{os.fspath(path)!r} holds a {run.kind} run, not a {kind} run: choose a new "
                                 "directory")
            want = json.loads(json.dumps(dict(config)))
            if run.config != want:
                diff = "; ".join(f"{k}: {run.config.get(k)!r} there, {want.get(k)!r} here"
                                 for k in sorted(set(want) | set(run.config)) if run.config.get(k) != want.get(k))
                raise ValueError(f"{os.fspath(path)!r} holds a {kind} run of another config ({diff}); use a new "
                                 "directory, or the same config to resume")
            return run
        return cls.create(path, kind=kind, config=config, n_units=n_units, chunk_size=chunk_size, extra=extra)

    def fill(self, fn: Any, args: Any, *, workers: int = 1, backend: str = "local", address: str | None = None,
             progress: bool = True, desc: str = "", unit: str = "unit") -> None:
        """Run every chunk still to do and write its shard as it finishes:
        ``fn(*args(a, b))`` returns ``(seconds, rows)`` (an Arrow table or a DataFrame) for
        units ``[a, b)``. Local processes or Ray (:func:`skatsim.parallel.map_chunks`); the
        seconds add up in the manifest's ``seconds``; an interrupt keeps what was written."""
        from .interrupt import ctrl_c
        from .parallel import map_chunks

        todo = self.todo()
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=self.n_units, initial=self.n_units - sum(b - a for a, b in todo), unit=unit, desc=desc)
        try:
            with ctrl_c():  # a Ctrl-C that code in a chunk drops is raised again
                for (a, b), (secs, rows) in map_chunks(fn, [args(a, b) for a, b in todo], todo, workers=workers,
                                                       backend=backend, address=address):
                    self.write_shard(a, b, rows, {"seconds": round(secs, 3)})
                    self.update(seconds=round(float(self.manifest.get("seconds", 0.0)) + secs, 3))
                    if bar is not None:
                        bar.update(b - a)
        finally:
            if bar is not None:
                bar.close()

    def _save(self) -> None:
        atomic_write_json(self.path / MANIFEST, self.manifest)

    def _clean(self) -> None:
        """Remove temporary files left by a killed writer."""
        for p in (self.path / SHARDS).glob(_TMP + "*"):
            try:
                p.unlink()
            except OSError:
                pass
        for p in self.path.glob(_TMP + "*"):
            try:
                p.unlink()
            except OSError:
                pass

    # ------------------------------------------------------------------ properties
    @property
    def kind(self) -> str:
        return str(self.manifest["kind"])

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.manifest["config"])

    @property
    def chunk_size(self) -> int:
        return int(self.manifest["chunk_size"])

    @property
    def n_units(self) -> int:
        return int(self.manifest["n_units"])

    @property
    def complete(self) -> bool:
        return self.manifest.get("status") == "complete" and not self.todo()

    def bounds(self) -> list[tuple[int, int]]:
        """Every chunk ``(a, b)`` of the run, in order."""
        n, k = self.n_units, self.chunk_size
        return [(a, min(a + k, n)) for a in range(0, n, k)]

    # ------------------------------------------------------------------ shards
    def shard_path(self, a: int, b: int) -> Path:
        return self.path / SHARDS / _shard_name(a, b)

    def done(self) -> dict[tuple[int, int], Path]:
        """The chunks with a complete shard (checked against its recorded row count)."""
        return self._scan()[0]

    def damaged(self) -> dict[tuple[int, int], str]:
        """The chunks whose shard is there but cannot be used (truncated, damaged, or with
        another row count than it was written with), each with what is wrong: they count as
        not done, and a resumed run plays them again and replaces the file.

        >>> import tempfile, pandas as pd
        >>> d = RunDir.create(tempfile.mkdtemp() + "/run", kind="demo", config={}, n_units=2, chunk_size=1)
        >>> p = d.write_shard(0, 1, pd.DataFrame({"x": [1]}))
        >>> _ = p.write_bytes(p.read_bytes()[:-20])
        >>> d.damaged()
        {(0, 1): 'rows-000000000-000000001.parquet is not a readable Parquet file (truncated or damaged)'}
        """
        return self._scan()[1]

    def _scan(self) -> tuple[dict[tuple[int, int], Path], dict[tuple[int, int], str]]:
        import pyarrow.parquet as pq

        want = set(self.bounds())
        done: dict[tuple[int, int], Path] = {}
        damaged: dict[tuple[int, int], str] = {}
        for p in sorted((self.path / SHARDS).glob(_PREFIX + "-*.parquet")):
            b = _parse_name(p.name)
            if b is None or b not in want:
                continue
            try:
                md = pq.read_metadata(p)
                meta = json.loads((md.metadata or {}).get(b"skatsim", b"{}"))
            except Exception:  # not a readable Parquet file: not done
                damaged[b] = f"{p.name} is not a readable Parquet file (truncated or damaged)"
                continue
            if meta.get("chunk") == list(b) and meta.get("rows") == md.num_rows:
                done[b] = p
            else:
                damaged[b] = (f"{p.name} holds {md.num_rows} rows for chunk {meta.get('chunk')}, written with "
                              f"{meta.get('rows')} for chunk {list(b)}")
        return done, damaged

    def todo(self) -> list[tuple[int, int]]:
        """The chunks still to play, in order."""
        done = self.done()
        return [b for b in self.bounds() if b not in done]

    def write_shard(self, a: int, b: int, rows: "pd.DataFrame | Any", meta: Mapping[str, Any] | None = None) -> Path:
        """Write the rows of chunk ``[a, b)`` (a DataFrame or an Arrow table) atomically;
        ``meta`` joins the file's ``skatsim`` metadata (with ``chunk`` and ``rows``)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if (a, b) not in set(self.bounds()):
            raise ValueError(f"({a}, {b}) is not a chunk of this run (chunk_size {self.chunk_size}, "
                             f"{self.n_units} units)")
        if isinstance(rows, pa.Table):
            table = rows
        else:
            df = rows.copy()
            df.attrs = {}
            table = pa.Table.from_pandas(df, preserve_index=False)
        info = {**dict(meta or {}), "chunk": [a, b], "rows": table.num_rows}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               b"skatsim": json.dumps(info).encode()})
        final = self.shard_path(a, b)
        with atomic_path(final) as tmp:
            pq.write_table(table, tmp)
        return final

    def read_shard(self, a: int, b: int) -> "pd.DataFrame":
        import pyarrow.parquet as pq

        return pq.read_table(self.shard_path(a, b)).to_pandas()

    def read_all(self, chunks: Iterable[tuple[int, int]] | None = None,
                 columns: Sequence[str] | None = None) -> "pd.DataFrame":
        """The rows of every done chunk (or of ``chunks``), concatenated in chunk order
        (``columns``: only these)."""
        import pandas as pd
        import pyarrow.parquet as pq

        done = self.done()
        keys = sorted(done) if chunks is None else sorted(chunks)
        if not keys:
            raise ValueError(f"{os.fspath(self.path)!r} holds no finished chunk yet")
        cols = None if columns is None else list(columns)
        return pd.concat([pq.read_table(done[k], columns=cols).to_pandas() for k in keys], ignore_index=True)

    # ------------------------------------------------------------------ finishing
    def mark_complete(self, summary: str | None = None, **info: Any) -> None:
        """Record that every chunk is done (and write ``summary.txt``)."""
        missing = self.todo()
        if missing:
            raise ValueError(f"{len(missing)} chunk(s) are not done yet, first {missing[0]}")
        if summary is not None:
            atomic_write_bytes(self.path / "summary.txt", (summary.rstrip("\n") + "\n").encode())
        self.manifest.update(info)
        self.manifest["status"] = "complete"
        self.manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self._save()

    def update(self, **info: Any) -> None:
        """Merge ``info`` into the manifest (atomically)."""
        self.manifest.update(info)
        self._save()

    def __repr__(self) -> str:
        return f"RunDir({os.fspath(self.path)!r}, kind={self.kind!r}, {len(self.done())}/{len(self.bounds())} chunks)"


def __getattr__(name: str) -> Any:
    if name == "run_simulation":  # moved: the simulation runner lives with the simulation
        raise ImportError("run_simulation moved to skatsim.simulate: from skatsim.simulate import run_simulation")
    raise AttributeError(f"module 'skatsim.runs' has no attribute {name!r}")
