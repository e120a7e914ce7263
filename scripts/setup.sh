#!/usr/bin/env bash
# Installs the Debian 12 packages daekit needs, only those that are missing (checked with
# dpkg-query; `apt-get update` runs only if something is missing). Idempotent and
# non-interactive; run as root (or as a user with password-less sudo).
#   build-essential cmake libeigen3-dev   build the library and the daekit command
#   ninja-build                            the generator of new build directories (test.sh, demo.sh)
#   lld                                    the linker that lays out the code small solves run
#                                          (DAEKIT_HOT_LAYOUT; without it only speed differs)
#   libsuitesparse-dev                     KLU, the sparse linear-solver backend
#   libgtest-dev googletest                the test suite
#   libbenchmark-dev libsundials-dev       benchmarks (SUNDIALS IDA as a comparison)
#   gnuplot-nox                            plots (daekit --plot, daekit demo)
#   clang-format                           code formatting
#   python3-dev pybind11-dev python3-numpy the Python module daekit (python/), for /usr/bin/python3
#   python3-scipy python3-pytest python3-matplotlib python3-numba
#                                          its tests (scipy comparisons, LowLevelCallable, numba
#                                          cfunc), result.plot()
#   python3-distributed python3-mpi4py mpi-default-bin
#                                          solve_many on Dask and MPI (mpirun)
#   python3-build python3-setuptools python3-wheel python3-pip python3-venv
#                                          the offline wheel (python3 -m build --no-isolation;
#                                          pip install --no-index into a venv)
#   pkg-config                             the daekit.pc file (its test)
#   doxygen python3-sphinx python3-myst-parser python3-breathe python3-sphinx-rtd-theme
#                                          the documentation site (scripts/docs.sh, offline)
#   chromium                               its browser check (test docs_site, headless)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

packages=(build-essential cmake ninja-build lld libeigen3-dev libsuitesparse-dev libgtest-dev googletest
          libbenchmark-dev gnuplot-nox libsundials-dev clang-format
          python3-dev pybind11-dev python3-numpy python3-scipy python3-pytest python3-matplotlib
          python3-numba python3-distributed python3-mpi4py mpi-default-bin python3-build
          python3-setuptools python3-wheel python3-pip python3-venv pkg-config
          doxygen python3-sphinx python3-myst-parser python3-breathe python3-sphinx-rtd-theme
          chromium)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup.sh: dpkg-query not found: this script supports Debian/Ubuntu (apt) only." >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup.sh: all required packages are installed."
  exit 0
fi

echo "setup.sh: installing missing packages: ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n env DEBIAN_FRONTEND=noninteractive)
  else
    echo "setup.sh: missing packages (${missing[*]}) and not running as root;" \
         "run 'bash scripts/setup.sh' as root." >&2
    exit 1
  fi
fi

if ! "${sudo[@]}" apt-get update; then
  echo "setup.sh: 'apt-get update' failed (network or apt sources?); could not install:" \
       "${missing[*]}" >&2
  exit 1
fi
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  echo "setup.sh: 'apt-get install ${missing[*]}' failed." >&2
  exit 1
fi
echo "setup.sh: done."
