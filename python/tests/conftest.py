"""Shared fixtures of the Python tests (run by the ctest python_tests, or by hand with
PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests)."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("DAEKIT_BUILD_DIR", os.path.join(ROOT, "build"))
if not any(os.path.isdir(os.path.join(p, "daekit")) and "build" in p for p in sys.path):
    sys.path.insert(0, os.path.join(BUILD, "python"))


@pytest.fixture(scope="session")
def models_library():
    """The shared library of compiled example models (examples/python/models.cpp)."""
    path = os.environ.get("DAEKIT_MODELS_LIBRARY",
                          os.path.join(BUILD, "python", "libdaekit_example_models.so"))
    if not os.path.exists(path):
        pytest.fail("compiled models library not found: %s (build the target "
                    "daekit_example_models)" % path)
    return path


@pytest.fixture(scope="session")
def cli():
    """The daekit command."""
    path = os.environ.get("DAEKIT_CLI", os.path.join(BUILD, "apps", "daekit"))
    if not os.path.exists(path):
        pytest.fail("daekit command not found: %s" % path)
    return path


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def child_env():
    """Environment for subprocesses (examples, MPI ranks, Dask workers) importing daekit."""
    env = dict(os.environ)
    import daekit
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(daekit.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["MPLBACKEND"] = "Agg"
    return env
