#!/usr/bin/env bash
# The offline wheel of the Python module: builds it with `python3 -m build --wheel
# --no-isolation` (setuptools driving CMake), installs it with `pip install --no-index` into a
# fresh virtual environment (with the system's site packages, for Debian's numpy) and solves a
# problem with the installed module. No network is used.
#
#   bash scripts/check_wheel.sh [--reuse BUILD_DIR] [OUTDIR]
#
# --reuse BUILD_DIR packages the module of a configured build tree (the ctest python_wheel:
# seconds); without it the wheel is built from a fresh CMake configuration (minutes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python=/usr/bin/python3
reuse=""
if [[ "${1:-}" == "--reuse" ]]; then
  reuse=$(cd "$2" && pwd)
  shift 2
fi
out=$(mkdir -p "${1:-build/wheel-check}" && cd "${1:-build/wheel-check}" && pwd)
rm -rf "$out/dist" "$out/venv"
if [[ -n "$reuse" ]]; then
  DAEKIT_CMAKE_BUILD_DIR="$reuse" "$python" -m build --wheel --no-isolation --outdir "$out/dist" python/
else
  "$python" -m build --wheel --no-isolation --outdir "$out/dist" python/
fi
wheel=$(ls "$out"/dist/daekit-*.whl)
"$python" -m venv --system-site-packages "$out/venv"
"$out/venv/bin/python" -m pip install --no-index --no-deps --disable-pip-version-check "$wheel"
cd "$out"  # not the source tree: the installed package must be the one imported
PYTHONPATH= "$out/venv/bin/python" - <<'PY'
import os
import sys

import numpy as np

import daekit

assert os.path.realpath(daekit.__file__).startswith(os.path.realpath(sys.prefix)), daekit.__file__
res = daekit.solve_ivp(lambda t, y: [-0.04 * y[0] + 1e4 * y[1] * y[2],
                                     0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
                                     y[0] + y[1] + y[2] - 1],
                       (0, 40), [1, 0, 0], mass=np.diag([1.0, 1.0, 0.0]), rtol=1e-8, atol=1e-12)
assert res.success and abs(res.y[0, -1] - 0.715827069) < 1e-6, res.message
lib = os.path.join(os.path.dirname(daekit.__file__), "libdaekit_example_models.so")
vdp = daekit.solve_ivp(daekit.from_library(lib, "vdp_rhs"), (0, 2), [2.0, 0.0])
assert vdp.success
print("wheel ok: daekit %s from %s; %d problems, methods %s"
      % (daekit.__version__, os.path.dirname(daekit.__file__), len(daekit.problems()),
         ", ".join(daekit.methods())))
PY
