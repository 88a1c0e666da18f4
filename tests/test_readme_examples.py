"""The README's plain code examples run as written (its ``>>>`` examples are doctests)."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _block(after: str) -> str:
    i = README.index(after)
    m = re.search(r"```python\n(.*?)```", README[i:], flags=re.S)
    assert m is not None
    return m.group(1)


def test_the_learning_example_runs() -> None:
    code = _block("## Learning").replace("4096", "256").replace("range(100)", "range(60)")
    env: dict = {}
    exec(compile(code, "README.md (Learning)", "exec"), env)  # noqa: S102
    batch = env["batch"]
    assert len(batch.action) > 0 and batch.obs.shape[1] == 574
    assert (batch.legal_mask[range(len(batch.action)), batch.action]).all()  # every recorded action was legal
