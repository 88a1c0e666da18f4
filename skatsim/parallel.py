"""Fan-out of independent chunks of work: in this process, in local worker processes, or on Ray.

:func:`map_chunks` is the one loop behind every long job that is cut into chunks (a
tournament's boards, a batch simulation's deals, bidding labels): it runs ``fn(*args[i])``
for every chunk and yields ``(keys[i], result)`` as chunks finish, so the caller writes each
result (a shard of a run directory) at once. A chunk's result depends only on its
arguments, so the rows are the same whatever the backend or worker count.

- ``backend="local"``, ``workers=1``: one chunk after the other, in this process.
- ``backend="local"``, ``workers>1``: a pool of worker processes (``fork`` where the OS has
  it: the workers start at once with the parent's compiled code; ``spawn`` once Ray or an
  OpenMP thread team runs in this process, which a fork would stall). Workers ignore Ctrl-C;
  the parent stops them at once on Ctrl-C or an error, so an interrupt ends the job within
  a moment, and what was already yielded is kept by the caller.
- ``backend="ray"``: one Ray task per chunk (``num_cpus=1``); ``address=None`` starts (or
  reuses) a local Ray with ``workers`` CPUs, ``address="auto"`` or ``"ray://head:10001"``
  joins an existing cluster (whose nodes need skatsim installed); an address where nothing
  answers is refused within :data:`CONNECT_TIMEOUT_S` seconds (Ray itself would retry for
  minutes). The driver writes every
  result, so the workers need no shared file system and an interrupted run resumes like a
  local one. Install with the extra: ``pip install "skatsim[ray]"`` (``ray>=2.9``).

>>> list(map_chunks(pow, [(2, 3), (3, 2)], ["a", "b"]))
[('a', 8), ('b', 9)]
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence, TypeVar

__all__ = ["map_chunks", "BACKENDS", "ray_map", "ensure_ray", "ray_available", "RayUnavailableError",
           "check_ray_address", "CONNECT_TIMEOUT_S"]

#: The backends of :func:`map_chunks`.
BACKENDS = ("local", "ray")
#: How long :func:`check_ray_address` waits for a cluster's port to answer.
CONNECT_TIMEOUT_S = 5.0

K = TypeVar("K")


def ray_available() -> bool:
    """Ray can be imported."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


class RayUnavailableError(RuntimeError):
    """Ray is not installed, or no cluster answers at the given address."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailableError("backend 'ray' needs Ray: pip install 'skatsim[ray]' (or pip install "
                                  "'ray>=2.9')") from None
    return ray


def _no_cluster(address: str, why: str) -> RayUnavailableError:
    return RayUnavailableError(f"no Ray cluster answers at address {address!r} ({why}); start one with "
                               "'ray start --head', or leave out the address to run a local Ray")


def check_ray_address(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse, within ``timeout`` seconds, a cluster address (``host:port`` or
    ``ray://host:port``) whose port does not accept a connection: Ray's own connect retries
    for minutes. ``auto`` (and ``local``) are left to Ray, which answers at once.

    >>> import socket
    >>> s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    >>> check_ray_address(f"127.0.0.1:{port}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    skatsim.parallel.RayUnavailableError: no Ray cluster answers at address '127.0.0.1:...' (connection refused); ...
    """
    import socket

    hostport = address[len("ray://"):] if address.startswith("ray://") else address
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():  # 'auto', or a form Ray resolves itself
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except socket.gaierror:
        raise _no_cluster(address, f"cannot resolve the host {host!r}") from None
    except ConnectionRefusedError:
        raise _no_cluster(address, "connection refused") from None
    except (TimeoutError, socket.timeout):
        raise _no_cluster(address, f"no answer within {timeout:g} s") from None
    except OSError as e:
        raise _no_cluster(address, e.strerror or str(e)) from None


def ensure_ray(address: str | None = None, workers: int | None = None) -> Any:
    """Initialise Ray once: join ``address`` (checked first by :func:`check_ray_address`) or
    start a local Ray with ``workers`` CPUs (default: all). Returns the ``ray`` module. The
    process keeps its own SIGINT/SIGTERM handlers (``ray.init`` would replace SIGTERM's)."""
    import signal
    import threading

    ray = _ray()
    if not ray.is_initialized():
        main = threading.current_thread() is threading.main_thread()
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)} if main else {}
        try:
            if address is not None:
                check_ray_address(address)
                try:
                    ray.init(address=address, log_to_driver=False)
                except (ConnectionError, RuntimeError, ValueError) as e:
                    raise _no_cluster(address, str(e).strip().splitlines()[0] if str(e).strip() else
                                      type(e).__name__) from None
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
        finally:
            for sig, h in handlers.items():
                if h is not None:
                    signal.signal(sig, h)
    return ray


def ray_map(fn: Callable[..., Any], args: Sequence[tuple[Any, ...]], keys: Sequence[K], *,
            address: str | None = None, workers: int | None = None) -> Iterator[tuple[K, Any]]:
    """Run ``fn(*args[i])`` as Ray tasks; yield ``(keys[i], result)`` as they finish.

    Unfinished tasks are cancelled when the consumer stops (an error, Ctrl-C, ``break``)."""
    if len(args) != len(keys):
        raise ValueError("args and keys must have the same length")
    if not args:
        return
    ray = ensure_ray(address, workers)
    task = ray.remote(num_cpus=1, max_retries=2)(fn)
    pending = {task.remote(*a): k for a, k in zip(args, keys)}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                k = pending.pop(ref)
                yield k, ray.get(ref)
    finally:
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already finished or gone
                pass


def _mp_context(start: str | None = None) -> Any:
    """``start`` if given, else ``fork`` where the OS has it (workers start at once, with the
    parent's compiled code and without re-importing ``__main__``), ``spawn`` elsewhere and
    once Ray's threads run in this process or an OpenMP team does (forking either stalls
    the children: :func:`_openmp_team_started`). Forked workers must run serial code only
    (no numba parallel region)."""
    import multiprocessing as mp
    import sys

    if start is not None:
        return mp.get_context(start)
    ray = sys.modules.get("ray")
    if (ray is not None and getattr(ray, "is_initialized", lambda: False)()) or _openmp_team_started():
        return mp.get_context("spawn")
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def _openmp_team_started() -> bool:
    """Has this process run a numba parallel region on numba's OpenMP threading layer?
    Its thread team does not survive a fork, and torch shares the OpenMP runtime: a forked
    worker then hangs at its first parallel tensor operation (a calibration run whose
    parent had played a game with the neural bidder did)."""
    import sys

    numba = sys.modules.get("numba")
    if numba is None:
        return False
    try:
        return bool(numba.threading_layer() == "omp")
    except ValueError:  # no parallel region has run: no threading layer yet
        return False


def _ignore_sigint() -> None:
    """A worker's initializer: Ctrl-C is the parent's to handle (the parent launched it with
    SIGINT blocked, see :func:`map_chunks`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def map_chunks(fn: Callable[..., Any], args: Sequence[tuple[Any, ...]], keys: Sequence[K], *,
               workers: int = 1, backend: str = "local", address: str | None = None,
               start: str | None = None) -> Iterator[tuple[K, Any]]:
    """Run ``fn(*args[i])`` for every chunk; yield ``(keys[i], result)`` as they finish (in
    order for one local worker, in any order otherwise). See the module docstring.
    ``start``: how local workers start (``"spawn"``: fresh interpreters, for chunks that run
    numba's parallel kernels whatever this process ran; default ``fork`` where the OS has it).

    ``fn`` and its arguments must be picklable for ``workers > 1`` and Ray. When the
    consumer stops (an error, Ctrl-C, ``break``) the unfinished chunks are dropped and the
    workers stopped at once.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if len(args) != len(keys):
        raise ValueError("args and keys must have the same length")
    if backend == "ray":
        yield from ray_map(fn, args, keys, address=address, workers=workers)
        return
    if workers <= 1 or len(args) <= 1:
        for a, k in zip(args, keys):
            yield k, fn(*a)
        return
    import signal
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # Ctrl-C is held back while the workers are launched (they start in the first submit):
    # an interrupt between a fork and the pool's note of the new process would leave a worker
    # nobody stops, playing on and holding the caller's stdout and stderr open. It is
    # delivered as soon as every worker is known, and stops them all below.
    mask = hasattr(signal, "pthread_sigmask")
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if mask else set()
    pool = None
    ok = False
    try:
        pool = ProcessPoolExecutor(max_workers=min(workers, len(args)), mp_context=_mp_context(start),
                                   initializer=_ignore_sigint)
        futures = {pool.submit(fn, *a): k for a, k in zip(args, keys)}
        if mask:
            mask = False
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        for f in as_completed(futures):
            yield futures[f], f.result()
        ok = True
    finally:
        if pool is not None:
            if not ok:  # Ctrl-C, an error or an early stop: no waiting for the running chunks
                for p in list(getattr(pool, "_processes", {}).values()):
                    p.terminate()
            pool.shutdown(wait=ok, cancel_futures=not ok)
        if mask:  # an error while launching: the workers are stopped, Ctrl-C may come now
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
