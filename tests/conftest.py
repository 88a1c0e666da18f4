"""Shared test setup: hypothesis profiles and small helpers for the rules tests.

Hypothesis profiles (select with ``HYPOTHESIS_PROFILE=<name>``; ``ci`` is the default):

- ``ci``: modest example counts so the default run stays fast; ``deadline=None`` because the
  first call into a numba kernel may compile it (or load it from the cache), which is slow
  once and would trip the per-example deadline.
- ``dev``: a few more examples, for local work.
- ``thorough``: many examples, for a long run before a release (``pytest -m 'slow or not slow'``).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
if str(TESTS) not in sys.path:  # make ``import reference`` / ``import iss_records`` work
    sys.path.insert(0, str(TESTS))

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=25, derandomize=True, print_blob=True, **_common)
settings.register_profile("dev", max_examples=100, **_common)
settings.register_profile("thorough", max_examples=2000, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# Tests press Ctrl-C on child processes (test_newcomer, test_runs, test_simulate): a child
# inherits an ignored SIGINT, and a shell ignores it in a background job (``pytest &`` in a
# script), so the test processes handle it as Python does in a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# A decision's clock (agents.arena.seat._deadline) arms SIGPROF / SIGALRM timers and restores
# the handlers it found. Their default action kills the process without a word: an xdist worker
# that received a stray one ("[gw1] node down: Not properly terminated") took the whole run down
# with it. In the test processes a stray timer signal fails the test it lands in instead, with
# the traceback of where it landed.
def _stray_timer(signum: int, frame: object) -> None:
    raise RuntimeError(f"stray {signal.Signals(signum).name}: a timer signal outside any decision's clock")


for _sig in (signal.SIGPROF, signal.SIGALRM):
    if signal.getsignal(_sig) is signal.SIG_DFL:
        signal.signal(_sig, _stray_timer)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


# ----------------------------------------------------------------------------- areas and workers

#: Test modules by area: each gets the area's marker (``pytest -m web`` runs the web tests
#: alone, ``-m 'not train'`` leaves the trainings out). A prefix names every module it starts.
AREAS: dict[str, tuple[str, ...]] = {
    "web": ("test_web_",),
    "rl": ("test_envs",),
    "train": ("test_dmc", "test_neural_bidding", "test_bidding_data"),
    "ray": ("test_ray",),
    "lint": ("test_lint", "test_layers"),
    # (modules whose helpers start the processes; elsewhere a test that starts one itself is found below)
    "subprocess": ("test_cli", "test_human", "test_newcomer", "test_runs"),
}

#: Modules whose tests share a machine-wide resource: kept on one xdist worker. (Not honoured
#: with pytest 9 and pytest-xdist 3.8, found 2026-12-05: xdist renames ``item._nodeid``, which
#: pytest 9 no longer reads; these modules also pass side by side, so nothing relies on it.)
GROUPS: dict[str, str] = {"test_ray": "ray", "test_web_browser": "browser"}


#: The longest tests (CI's slowest, 2026-12-05), started first: with two workers taking tests
#: as they come free, a two-minute test taken last would run alone at the end.
LONGEST_FIRST = (
    "README.md::README.md",  # the `timid` policy's runner compiles (not cacheable)
    "tests/test_kernels_vs_state.py::test_custom_policy_illegal_action_is_reported",  # likewise
    "tests/test_lint.py::test_the_packages_type_check",
    "tests/test_newcomer.py::test_ctrl_c_",
    "tests/test_newcomer.py::test_an_agent_that_never_answers",
    "tests/test_newcomer.py::test_the_tournament_command_counts_the_errors_of_an_agent",
    "tests/test_agents.py::test_agent_variants_pass_the_agent_api_test[pimc:",
    "tests/test_pimc.py::test_simulation_bidding",
    "tests/test_ray.py::test_kill_of_a_dmc_training_on_ray",
    "tests/test_readme_examples.py::test_a_documented_block_runs[docs/strength.md",
    "tests/test_openspiel_crosscheck.py::test_play_phase_agrees_with_openspiel",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import inspect

    items.sort(key=lambda item: next((k for k, p in enumerate(LONGEST_FIRST) if item.nodeid.startswith(p)),
                                     len(LONGEST_FIRST)))

    for item in items:
        stem = item.path.stem
        for area, prefixes in AREAS.items():
            if any(stem == p or (p.endswith("_") and stem.startswith(p)) for p in prefixes):
                item.add_marker(getattr(pytest.mark, area))
        if stem in GROUPS:
            item.add_marker(pytest.mark.xdist_group(GROUPS[stem]))
        fn = getattr(item, "function", None)
        if fn is not None and "subprocess" not in item.keywords:
            try:
                src = inspect.getsource(fn)
            except (OSError, TypeError):
                continue
            if "subprocess." in src:
                item.add_marker(pytest.mark.subprocess)


# ----------------------------------------------------------------------------- where the time goes

def pytest_configure(config: pytest.Config) -> None:
    """``SKATSIM_COMPILE_LOG=<dir> pytest``: every numba compilation in the test processes, with
    the test that paid it and its seconds, one JSON line each in ``<dir>/<worker>.jsonl`` (a
    test slow on a fresh clone but fast after is compiling what ``skatsim warmup`` left out)."""
    out = os.environ.get("SKATSIM_COMPILE_LOG")
    if out:
        from compile_log import install

        install(config, Path(out), os.environ.get("PYTEST_XDIST_WORKER", "main"))
