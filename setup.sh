#!/usr/bin/env bash
# Set up skatsim in ./.venv and run the main job (skatsim demo).
# torch: install the pinned CPU build first (an unpinned torch pulls a multi-GB CUDA build);
# where 2.13.0 is not available, pip falls back to the project's torch>=2.2.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q torch==2.13.0 || echo "torch==2.13.0 not available here; using torch>=2.2 from pyproject"
.venv/bin/python -m pip install -q -e ".[dev,crosscheck,ray,rl]"
if [ "${SKATSIM_SETUP_ONLY:-0}" != "1" ]; then
  .venv/bin/skatsim demo "$@"
fi
