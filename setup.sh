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
.venv/bin/python -m pip install -q -e ".[dev,crosscheck,ray,rl,web]"
# The browser test of the web table (tests/test_web_browser.py) drives Debian's Chromium through
# chromedriver. Installed with apt-get when missing (CI runs as root); where that is not possible
# the step says so and the browser test skips with the reason. SKATSIM_NO_BROWSER=1 skips it.
if [ "${SKATSIM_NO_BROWSER:-0}" != "1" ] && ! { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        chromium chromium-driver fonts-dejavu-core fonts-liberation >/dev/null; } \
      || echo "setup.sh: could not install chromium/chromium-driver with apt-get; the browser test will be skipped"
  else
    echo "setup.sh: chromium and chromedriver are missing and apt-get is not available as root;" \
         "the browser test will be skipped (install them to run it)"
  fi
fi
# numba compiles each kernel on first use and caches it: pay that once here, with a line per
# step, instead of in the demo, the first run and every worker of the test suite
.venv/bin/skatsim warmup
if [ "${SKATSIM_SETUP_ONLY:-0}" != "1" ]; then
  .venv/bin/skatsim demo "$@"
fi
