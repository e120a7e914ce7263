#!/usr/bin/env bash
# Sets up (missing Debian packages), configures and builds daekit (Release, build/), then runs
# the whole test suite with ctest; exits with ctest's status. Works from any directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "${DAEKIT_JOBS:-$(nproc)}"
ctest --test-dir build --output-on-failure -j2
