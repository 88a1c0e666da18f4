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


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
