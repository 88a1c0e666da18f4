"""The linter and the type checker run inside the test command, so CI enforces them.

``ruff check`` (rules E, F, W at 120 columns, configured in pyproject.toml) covers the whole
checkout; ``mypy`` checks the three packages (``skatsim``, ``agents``, ``skatsim_app``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    pytest.importorskip("ruff", reason="ruff is in the dev extra: pip install -e '.[dev]'")
    r = _run("ruff", "check", "--no-cache", ".")
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_packages_type_check() -> None:
    pytest.importorskip("mypy", reason="mypy is in the dev extra: pip install -e '.[dev]'")
    r = _run("mypy", "skatsim", "agents", "skatsim_app")
    assert r.returncode == 0, r.stdout + r.stderr
