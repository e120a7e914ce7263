"""Compiled callbacks: numba cfunc, scipy LowLevelCallable and shared-library symbols give the
same solutions as Python callables, run without the GIL, and report their error codes."""

import ctypes
import threading
import time

import numpy as np
import pytest
import scipy

import daekit

numba = pytest.importorskip("numba")
from numba import carray, cfunc  # noqa: E402


@cfunc(daekit.numba_signature(daekit.RHS))
def vdp_numba(t, y_, out_, n, p_, np_, ud):
    y = carray(y_, (n,))
    out = carray(out_, (n,))
    eps = 1e-6
    out[0] = y[1]
    out[1] = ((1 - y[0] * y[0]) * y[1] - y[0]) / eps
    return 0


def vdp_python(t, y):
    return [y[1], ((1 - y[0] ** 2) * y[1] - y[0]) / 1e-6]


def test_numba_llc_library_and_python_agree(models_library):
    kw = dict(rtol=1e-6, atol=1e-6)
    ref = daekit.solve_ivp(vdp_python, (0, 2), [2.0, 0.0], **kw)
    by_numba = daekit.solve_ivp(vdp_numba, (0, 2), [2.0, 0.0], **kw)
    by_llc = daekit.solve_ivp(scipy.LowLevelCallable(vdp_numba.ctypes), (0, 2), [2.0, 0.0], **kw)
    by_lib = daekit.solve_ivp(daekit.from_library(models_library, "vdp_rhs"), (0, 2),
                              [2.0, 0.0], **kw)
    for res in (ref, by_numba, by_llc, by_lib):
        assert res.success, res.message
    # the same function through two wrappers: identical trajectories
    assert np.array_equal(by_numba.y, by_llc.y) and by_numba.stats == by_llc.stats
    # other compilers round differently (numba may fuse multiply-adds): the same solution to
    # the tolerance's level after 2 stiff jumps
    for res in (by_numba, by_lib):
        np.testing.assert_allclose(res.y[:, -1], ref.y[:, -1], rtol=1e-5)
        assert abs(res.stats["naccept"] - ref.stats["naccept"]) <= 0.05 * ref.stats["naccept"]


def test_bare_address_and_user_data(models_library):
    # numba's cfunc.address as an int, wrapped by daekit.compiled (no signature to check)
    f = daekit.compiled(vdp_numba.address, daekit.RHS)
    res = daekit.solve_ivp(f, (0, 2), [2.0, 0.0], rtol=1e-6, atol=1e-6)
    ref = daekit.solve_ivp(vdp_numba, (0, 2), [2.0, 0.0], rtol=1e-6, atol=1e-6)
    assert res.success and np.array_equal(res.y, ref.y)
    with pytest.raises(ValueError):
        daekit.compiled(0, daekit.RHS)

    # a ctypes function pointer (ctypes takes the GIL itself) with user_data: the decay rate
    # read through the pointer
    dp = ctypes.POINTER(ctypes.c_double)
    proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, dp, dp, ctypes.c_int, dp,
                             ctypes.c_int, ctypes.c_void_p)

    def decay(t, y, out, n, p, np_, ud):
        out[0] = -ctypes.cast(ud, dp)[0] * y[0]
        return 0

    fn = proto(decay)
    rate = ctypes.c_double(3.0)
    res = daekit.solve_ivp(daekit.compiled(fn, daekit.RHS, user_data=ctypes.pointer(rate)),
                           (0, 1), [1.0], rtol=1e-9, atol=1e-12)
    assert res.success and res.y[0, -1] == pytest.approx(np.exp(-3.0), rel=1e-7)


def test_compiled_jacobian_and_mass(models_library):
    f = daekit.from_library(models_library, "robertson_rhs")
    jac = daekit.from_library(models_library, "robertson_jac")
    M = np.diag([1.0, 1.0, 0.0])
    res = daekit.solve_ivp(f, (0, 40), [1, 0, 0], mass=M, jac=jac, rtol=1e-8, atol=1e-12)
    assert res.success, res.message
    assert res.njev >= 1 and res.result.jacobian_colours == 0  # analytic
    assert res.y[0, -1] == pytest.approx(0.7158271, rel=1e-5)
    # parameters reach compiled callbacks: k1 doubled changes the result
    res_p = daekit.solve_ivp(f, (0, 40), [1, 0, 0], mass=M, jac=jac, p=[0.08, 3e7, 1e4],
                             rtol=1e-8, atol=1e-12)
    assert res_p.success and res_p.y[0, -1] < res.y[0, -1] - 0.05


def test_compiled_residual(models_library):
    F = daekit.from_library(models_library, "robertson_residual", daekit.RESIDUAL)
    res = daekit.solve_dae(F, (0, 40), [1.0, 0.0, 0.0], algebraic=[2], rtol=1e-7, atol=1e-10)
    assert res.success, res.message
    assert res.y[0, -1] == pytest.approx(0.7158271, rel=1e-4)


def test_compiled_event():
    # y' = -y stops where y = 1/2 (t = ln 2): a numba root function as a terminal Event
    @cfunc(daekit.numba_signature(daekit.EVENT))
    def half(t, y_, yp_, n, p_, np_, ud):
        y = carray(y_, (n,))
        return y[0] - 0.5

    res = daekit.solve_ivp(lambda t, y: -y, (0, 5), [1.0], rtol=1e-10, atol=1e-12,
                           events=daekit.Event(half, terminal=True, direction=-1, name="half"))
    assert res.status == 1 and res.events[0]["name"] == "half"
    # located on the dense output, whose error at rtol = 1e-10 (radau5's rtol' = 2.2e-8) is of
    # the order of 1e-9 (3e-9 relative in t from the estimated starting step, 6e-10 from 1e-6)
    assert res.t_events[0][0] == pytest.approx(np.log(2.0), rel=1e-8)
    with pytest.raises(TypeError, match="EVENT"):
        daekit.solve_ivp(lambda t, y: -y, (0, 5), [1.0], events=daekit.Event(vdp_numba))


def test_compiled_error_codes(models_library):
    f = daekit.from_library(models_library, "failing_rhs")
    res = daekit.solve_ivp(f, (0, 1), [1.0], p=[-3.0])
    assert res.daekit_status == "callback_error"
    assert "compiled callback failing_rhs returned -3" in res.message
    res = daekit.solve_ivp(f, (0, 1), [1.0], p=[2.0])  # recoverable forever: fails, no crash
    assert not res.success and res.daekit_status != "callback_error"


def test_signature_checked():
    @cfunc("float64(float64)")
    def wrong(x):
        return x

    with pytest.raises(TypeError, match="signature"):
        daekit.solve_ivp(wrong, (0, 1), [1.0])
    with pytest.raises(TypeError, match="RESIDUAL"):
        daekit.solve_dae(vdp_numba, (0, 1), [1.0, 0.0], yp0=[0.0, 0.0])
    assert daekit.signature_of(vdp_numba).replace(" ", "") == \
        daekit.SIGNATURES[daekit.RHS].replace(" ", "")


def test_compiled_solve_runs_without_the_gil(models_library):
    # While a compiled solve runs on one thread, Python code keeps running on another.
    f = daekit.from_library(models_library, "vdp_rhs")
    jac = daekit.from_library(models_library, "vdp_jac")
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    th = threading.Thread(target=ticker)
    th.start()
    t0 = time.perf_counter()
    for _ in range(20):
        daekit.solve_ivp(f, (0, 2), [2.0, 0.0], jac=jac, rtol=1e-10, atol=1e-10)
    t1 = time.perf_counter()
    stop.set()
    th.join()
    during = [t for t in ticks if t0 <= t <= t1]
    # the ticker kept running during the solves (with the GIL held it could not tick at all)
    assert len(during) >= max(3, 0.1 * (t1 - t0) / 0.001), (len(during), t1 - t0)
