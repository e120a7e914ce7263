#!/usr/bin/env bash
# The README's test command: sets up (missing Debian packages), configures and builds daekit
# (Release, build/), then runs the whole test suite with ctest (which includes the Python
# module's pytest suite, python_tests, and its wheel, python_wheel); exits with ctest's status.
# Works from any directory.
#
#   bash scripts/test.sh              the suite (what CI runs, through .ci/run)
#   bash scripts/test.sh --sanitize   additionally: the whole suite built with AddressSanitizer and
#                                     UndefinedBehaviorSanitizer (build-asan/; the allocation-count
#                                     tests skip: the sanitizers own malloc), the Python module
#                                     built there too and its pytest suite run by the system
#                                     interpreter with the ASan runtime preloaded, and the
#                                     threading test built with ThreadSanitizer (build-tsan/)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

sanitize=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "test.sh: unknown argument '$arg' (valid: --sanitize)" >&2; exit 2 ;;
  esac
done

jobs=${DAEKIT_JOBS:-$(nproc)}
bash scripts/setup.sh
bash scripts/check_layers.sh
# A new build directory is generated for Ninja (ninja-build, from setup.sh): it keeps both cores
# busy while make waits for the whole library before it compiles the tests and the Python module
# (clean build on 2 cores: 117.7 s instead of 126.7 s). An existing one keeps its generator.
generator_for() {
  [[ -f "$1/CMakeCache.txt" ]] || ! command -v ninja >/dev/null || echo "-G Ninja"
}
cmake -S . -B build $(generator_for build) -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
bash scripts/python_path.sh
ctest --test-dir build --output-on-failure -j2

if [[ $sanitize -eq 1 ]]; then
  # ASan + UBSan: the library, the tests, the command and its fuzz harness, the Python module
  cmake -S . -B build-asan $(generator_for build-asan) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDAEKIT_SANITIZE=address -DDAEKIT_BUILD_BENCH=OFF -DDAEKIT_BUILD_EXAMPLES=OFF \
    -DDAEKIT_BUILD_PYTHON=ON
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j2 -E '^python_'
  # The Python module's suite under ASan + UBSan. The interpreter is not instrumented: the ASan
  # runtime of the compiler that built the module is preloaded (it must come first), and so is
  # its libstdc++ (without it ASan cannot find __cxa_throw to intercept: the first C++ exception
  # aborts); CPython does not free everything at exit, by design, so leaks are not reported
  # here. --capture=sys lets a sanitizer report (written to file descriptor 2) reach the
  # terminal. The Dask and MPI runs start other interpreters and are left to the plain build.
  cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build-asan/CMakeCache.txt)
  preload="$("$cxx" -print-file-name=libasan.so) $("$cxx" -print-file-name=libstdc++.so)"
  LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PYTHONPATH="$PWD/build-asan/python" \
    DAEKIT_BUILD_DIR="$PWD/build-asan" MPLBACKEND=Agg \
    DAEKIT_MODELS_LIBRARY="$PWD/build-asan/python/libdaekit_example_models.so" \
    /usr/bin/python3 -m pytest -q --capture=sys -p no:cacheprovider python/tests \
    --deselect python/tests/test_ensemble.py::test_dask_local_cluster_identical \
    --deselect python/tests/test_ensemble.py::test_mpi_two_ranks_identical
  # TSan: the concurrent solves
  cmake -S . -B build-tsan $(generator_for build-tsan) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDAEKIT_SANITIZE=thread -DDAEKIT_BUILD_BENCH=OFF -DDAEKIT_BUILD_EXAMPLES=OFF \
    -DDAEKIT_BUILD_APPS=OFF -DDAEKIT_BUILD_PYTHON=OFF
  cmake --build build-tsan -j "$jobs" --target daekit_tests
  TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/daekit_tests --gtest_filter='Threads.*'
fi
