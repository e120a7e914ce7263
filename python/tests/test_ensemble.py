"""solve_many: Andrews with different torques on threads, on a Dask LocalCluster and over MPI
(mpirun -n 2) gives identical results."""

import os
import subprocess
import sys

import numpy as np
import pytest

import daekit

TORQUES = np.linspace(0.025, 0.040, 24).reshape(-1, 1)


@pytest.fixture(scope="module")
def threads_result():
    return daekit.solve_many("andrews", TORQUES, threads=2)


def test_threads_identical_to_serial(threads_result):
    ens = threads_result
    assert len(ens) == len(TORQUES) and ens.success.all(), ens.message
    serial = daekit.solve_many("andrews", TORQUES, threads=1)
    assert np.array_equal(ens.y, serial.y)
    # and to single solves of the problem with those parameters
    p = daekit.problem("andrews")
    for i in (0, 11, 23):
        one = p.with_parameters(TORQUES[i]).solve()
        assert np.array_equal(one.result.y, ens.y[i])
    # the torque matters: beta(0.03) grows with it
    assert np.all(np.diff(ens.y[:, 0]) > 0)
    assert ens.stats["naccept"].shape == (len(TORQUES),)


def test_default_torque_reproduces_builtin():
    # the test set's torque with recomputed consistent values: the accuracy of the built-in
    ens = daekit.solve_many("andrews", [[0.033]], threads=1)
    ref = daekit.problem("andrews").reference["y"]
    builtin = daekit.solve_problem("andrews")
    assert daekit.scd(ens.y[0][:7], ref[:7]) == pytest.approx(builtin.scd, abs=0.2)
    # positions and velocities (accelerations and multipliers, index 3, are controlled loosely)
    np.testing.assert_allclose(ens.y[0][:14], builtin.result.y[:14], rtol=1e-5)


def test_callable_and_compiled_problem_on_threads(models_library):
    params = np.array([[1e-3], [1e-4], [1e-5]])

    def vdp(t, y, p):
        return [y[1], ((1 - y[0] ** 2) * y[1] - y[0]) / p[0]]

    by_python = daekit.solve_many(vdp, params, t_span=(0, 2), y0=[2.0, 0.0], threads=2,
                                  rtol=1e-6, atol=1e-6)
    spec = daekit.CompiledProblem(daekit.from_library(models_library, "vdp_rhs"), y0=[2.0, 0.0],
                                  t_span=(0, 2),
                                  jac=daekit.from_library(models_library, "vdp_jac"))
    compiled = daekit.solve_many(spec, params, threads=2, rtol=1e-6, atol=1e-6,
                                 t_eval=[0.5, 1.0, 2.0])
    assert compiled.runs[1]["t_out"].tolist() == [0.5, 1.0, 2.0]
    assert compiled.runs[1]["y_out"].shape == (2, 3)
    assert np.array_equal(compiled.runs[1]["y_out"][:, -1], compiled.y[1])
    assert by_python.success.all() and compiled.success.all()
    np.testing.assert_allclose(by_python.y, compiled.y, rtol=1e-5, atol=1e-6)

    # events on threads get each run's parameters: y' = -p y stops at y = 1/2, t = ln 2 / p
    def half(t, y, p):
        return y[0] - 0.5

    half.terminal = True
    rates = np.array([[1.0], [2.0], [4.0]])
    stopped = daekit.solve_many(lambda t, y, p: -p[0] * y, rates, t_span=(0, 5), y0=[1.0],
                                events=[half], threads=2, rtol=1e-10, atol=1e-12)
    assert stopped.status == ["terminal_event"] * 3
    np.testing.assert_allclose(stopped.t, np.log(2) / rates[:, 0], rtol=1e-8)
    with pytest.raises(TypeError, match="by reference"):
        daekit.solve_many(vdp, params, t_span=(0, 2), y0=[2.0, 0.0], backend="mpi")


def test_dask_local_cluster_identical(threads_result, models_library):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        ens = daekit.solve_many("andrews", TORQUES, backend="dask", client=client)
        spec = daekit.CompiledProblem(daekit.from_library(models_library, "vdp_rhs"),
                                      y0=[2.0, 0.0], t_span=(0, 2))
        vdp = daekit.solve_many(spec, [[1e-3], [1e-6]], backend="dask", client=client)
    assert np.array_equal(ens.y, threads_result.y)
    assert [r["run"] for r in ens.runs] == list(range(len(TORQUES)))
    local = daekit.solve_many(spec, [[1e-3], [1e-6]], threads=1)
    assert np.array_equal(vdp.y, local.y)


MPI_SCRIPT = r"""
import sys
import numpy as np
import daekit
torques = np.linspace(0.025, 0.040, 24).reshape(-1, 1)
ens = daekit.solve_many("andrews", torques, backend="mpi")
from mpi4py import MPI
if MPI.COMM_WORLD.Get_rank() == 0:
    np.save(sys.argv[1], ens.y)
    print("ranks", MPI.COMM_WORLD.Get_size(), "runs", len(ens))
"""


def test_mpi_two_ranks_identical(threads_result, tmp_path, child_env):
    mpirun = "/usr/bin/mpirun"
    if not os.path.exists(mpirun):
        pytest.fail("mpirun not found (Debian: mpi-default-bin)")
    script = tmp_path / "sweep.py"
    script.write_text(MPI_SCRIPT)
    out = tmp_path / "y.npy"
    env = dict(child_env)
    # Open MPI in a container as root, without a network: shared memory and self only
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl="self,vader", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    proc = subprocess.run([mpirun, "-n", "2", sys.executable, str(script), str(out)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ranks 2 runs 24" in proc.stdout
    assert np.array_equal(np.load(out), threads_result.y)
