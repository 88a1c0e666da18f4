"""Log numba's compilations per test (``SKATSIM_COMPILE_LOG=<dir> pytest``; see conftest).

Each line: the test, the compiled function, its argument types, the seconds and the nesting
depth (a kernel's callees compile inside it: depth 0 is what the test itself asked for)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

_current = {"test": "(collection)"}


def install(config: pytest.Config, out: Path, worker: str) -> None:
    import sys

    from numba.core import event

    config.pluginmanager.register(sys.modules[__name__], "skatsim_compile_log")

    out.mkdir(parents=True, exist_ok=True)
    log = open(out / f"{worker}.jsonl", "a", buffering=1)  # noqa: SIM115 - open for the session

    class _Listener(event.Listener):
        def __init__(self) -> None:
            self.started: list[float] = []

        def on_start(self, ev: event.Event) -> None:
            self.started.append(time.perf_counter())

        def on_end(self, ev: event.Event) -> None:
            t0 = self.started.pop()
            fn = ev.data["dispatcher"].py_func
            log.write(json.dumps({"test": _current["test"], "fn": f"{fn.__module__}.{fn.__qualname__}",
                                  "args": str(ev.data["args"])[:300], "s": round(time.perf_counter() - t0, 3),
                                  "depth": len(self.started), "pid": os.getpid()}) + "\n")

    event.register("numba:compile", _Listener())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201
    _current["test"] = item.nodeid
    try:
        return (yield)
    finally:
        _current["test"] = "(between tests)"
