#!/usr/bin/env bash
# Sets up (missing Debian packages), configures and builds daekit (Release, build/), then runs
# the demo: reports for several built-in problems, CSV files and demo-output/pendulum.png, and
# the Python quick start (examples/python/quickstart.py) with the module built in build/python,
# which /usr/bin/python3 then imports (scripts/python_path.sh).
# Works from any directory (output goes to demo-output/ in the repository root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# Ninja for a new build directory, as scripts/test.sh (which says why); an existing one keeps its
# generator.
generator=()
[[ -f build/CMakeCache.txt ]] || ! command -v ninja >/dev/null || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "${DAEKIT_JOBS:-$(nproc)}"
build/apps/daekit demo --outdir demo-output
bash scripts/python_path.sh
if [[ -d build/python/daekit ]]; then
  echo
  echo "=== Python: examples/python/quickstart.py"
  PYTHONPATH="$PWD/build/python" MPLBACKEND=Agg /usr/bin/python3 examples/python/quickstart.py
fi
