"""The Ray backend: chunks of a tournament, a batch simulation or bidding labels as Ray tasks.

``run_tournament(..., backend="ray")``, ``run_simulation(..., backend="ray")``
(:mod:`skatsim.runs`) and ``skatsim.bidding_data.generate(..., backend="ray")`` send every
chunk still to play as one task (``num_cpus=1``) and take
the results back as they finish (``ray.wait``): the driver writes each chunk's shard into
the run directory, so the workers need no shared file system and an interrupted run
resumes like a local one. A chunk's rows depend only on the configuration and its unit
ids, so the table is the same as with 1 or 2 local workers.

Connecting: ``address=None`` starts (or reuses) a local Ray with ``workers`` CPUs;
``address="auto"`` or ``"ray://head:10001"`` joins an existing cluster (whose nodes need
skatsim installed; ``ray.init`` is called only when Ray is not initialised yet).

Install with the extra: ``pip install "skatsim[ray]"`` (``ray>=2.9``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence, TypeVar

__all__ = ["ray_map", "ensure_ray", "ray_available"]

K = TypeVar("K")


def ray_available() -> bool:
    """Ray can be imported."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ImportError("backend='ray' needs Ray: pip install 'skatsim[ray]' (or pip install 'ray>=2.9')") from None
    return ray


def ensure_ray(address: str | None = None, workers: int | None = None) -> Any:
    """Initialise Ray once: join ``address`` or start a local Ray with ``workers`` CPUs
    (default: all). Returns the ``ray`` module."""
    ray = _ray()
    if not ray.is_initialized():
        if address is not None:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
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
