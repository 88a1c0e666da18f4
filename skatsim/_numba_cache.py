"""Keep numba's on-disk cache consistent with the source.

Numba invalidates a cached kernel only when the file that defines it changes, not when a
function it inlines from another module does (``bits.rand_below`` inside a cached runner in
``kernels/simulate.py``, say), so an edited helper can leave stale machine code behind.
Unless ``NUMBA_CACHE_DIR`` is set by the user, skatsim therefore caches under a folder
named for a hash of its own source files: any change to any skatsim module starts a fresh
cache. Imported by ``skatsim/__init__.py`` before anything imports numba.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def source_hash() -> str:
    """Hash of the package's kernel sources: every ``.py`` file that compiles with numba
    (``njit``, ``overload``, ``intrinsic``) or whose constants kernels freeze (sorted by path)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        text = p.read_bytes()
        if b"njit" in text or b"overload" in text or b"intrinsic" in text or p.name in _CONSTANTS:
            h.update(str(p.relative_to(root)).encode())
            h.update(text)
    return h.hexdigest()[:16]


# modules without kernels whose module-level tables kernels read as frozen globals
_CONSTANTS = {"actions.py", "options.py", "contracts.py", "cards.py", "rules.py"}


def configure() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "skatsim" / "numba"
    folder = base / source_hash()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only home: leave numba's default (__pycache__ next to the source)
        return
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # numba already imported: its config has read the environment
        from numba.core import config

        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
