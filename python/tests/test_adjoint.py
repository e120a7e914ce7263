"""daekit.adjoint_gradient against forward sensitivities (solve_ivp(..., sensitivities=True)),
its memory bound and its refusals."""
import numpy as np
import pytest

import daekit

K = np.array([0.04, 1e4, 3e7])


def rober(t, y, k):
    r1, r2, r3 = k[0] * y[0], k[1] * y[1] * y[2], k[2] * y[1] ** 2
    return [-r1 + r2, r1 - r2 - r3, r3]


def rober_dae(t, y, k):
    r1, r2, r3 = k[0] * y[0], k[1] * y[1] * y[2], k[2] * y[1] ** 2
    return [-r1 + r2, r1 - r2 - r3, y[0] + y[1] + y[2] - 1.0]


def rober_jac(t, y, k):
    return [[-k[0], k[1] * y[2], k[1] * y[1]],
            [k[0], -k[1] * y[2] - 2 * k[2] * y[1], -k[1] * y[1]],
            [0.0, 2 * k[2] * y[1], 0.0]]


def rober_dae_jac(t, y, k):
    J = np.array(rober_jac(t, y, k))
    J[2] = 1.0
    return J


def forward_gradient(fun, jac, n, c):
    """dG/dp = c^T S(40) from forward sensitivities at 1e-12 (the reference)."""
    res = daekit.solve_ivp(fun, (0, 40), np.eye(n)[0], p=K, jac=jac, sensitivities=True,
                           rtol=1e-12, atol=1e-16)
    assert res.success, res.message
    return res.sensitivities[:, :, -1].T @ c


@pytest.mark.parametrize("method,tol", [("radau5", 1e-10), ("bdf", 1e-11)])
def test_terminal_functional_matches_forward_sensitivities(method, tol):
    r = daekit.adjoint_gradient(rober, (0, 40), [1, 0, 0], K, g=lambda t, y, k: y[2],
                                jac=rober_jac, method=method, rtol=tol, atol=tol * 1e-4)
    assert r.success, r.message
    ref = forward_gradient(rober, rober_jac, 3, np.array([0.0, 0.0, 1.0]))
    assert np.max(np.abs(r.gradient - ref) / np.abs(ref)) < 1e-6
    assert r.gradient.shape == (3,) and r.lambda0.shape == (3,)


def test_integral_functional_on_the_index1_dae():
    mass = np.diag([1.0, 1.0, 0.0])
    r = daekit.adjoint_gradient(rober_dae, (0, 40), [1, 0, 0], K, mass=mass, jac=rober_dae_jac,
                                q=lambda t, y, k: y[2] ** 2,
                                q_y=lambda t, y, k: [0.0, 0.0, 2 * y[2]], rtol=1e-10,
                                atol=1e-14)
    assert r.success, r.message

    # the reference: the ODE form (the same solution) with Q' = y3^2 appended (forward
    # sensitivities of the DAE form stop at radau5's rtol' floor 1e-9 on DAEs)
    def augmented(t, y, k):
        return rober(t, y[:3], k) + [y[2] ** 2]

    def augmented_jac(t, y, k):
        J = np.zeros((4, 4))
        J[:3, :3] = rober_jac(t, y, k)
        J[3, 2] = 2 * y[2]
        return J
    ref = forward_gradient(augmented, augmented_jac, 4, np.array([0, 0, 0, 1.0]))
    assert np.max(np.abs(r.gradient - ref) / np.abs(ref)) < 1e-5


def test_memory_bound_holds_with_recomputation():
    full = daekit.adjoint_gradient(rober, (0, 40), [1, 0, 0], K, g=lambda t, y, k: y[0],
                                   rtol=1e-8, atol=1e-12)
    small = daekit.adjoint_gradient(rober, (0, 40), [1, 0, 0], K, g=lambda t, y, k: y[0],
                                    rtol=1e-8, atol=1e-12, max_stored_steps=32)
    assert full.success and small.success, small.message
    assert small.peak_stored_states <= 32 < full.peak_stored_states
    assert small.recomputed_steps > 0 and full.recomputed_steps == 0
    assert np.allclose(small.gradient, full.gradient, rtol=1e-5, atol=0)


def test_refusals_name_the_argument():
    with pytest.raises(ValueError, match="p"):
        daekit.adjoint_gradient(rober, (0, 1), [1, 0, 0], None, g=lambda t, y, k: y[0])
    with pytest.raises(ValueError, match="g .*q"):
        daekit.adjoint_gradient(rober, (0, 1), [1, 0, 0], K)
    with pytest.raises(TypeError, match="g_y"):
        daekit.adjoint_gradient(rober, (0, 1), [1, 0, 0], K, g=lambda t, y, k: y[0], g_y=3)
    with pytest.raises(ValueError, match="max_stored_steps"):
        daekit.adjoint_gradient(rober, (0, 1), [1, 0, 0], K, g=lambda t, y, k: y[0],
                                max_stored_steps=2)
    with pytest.raises(ValueError, match="tstops"):
        daekit.adjoint_gradient(rober, (0, 1), [1, 0, 0], K, g=lambda t, y, k: y[0],
                                tstops=[0.5])
    with pytest.raises(ValueError, match="index"):
        daekit.adjoint_gradient(rober_dae, (0, 1), [1, 0, 0], K, g=lambda t, y, k: y[0],
                                mass=np.diag([1.0, 1.0, 0.0]), index=[1, 1, 2])


def test_a_failing_functional_is_a_status_not_an_exception():
    def g(t, y, k):
        raise RuntimeError("no g here")
    r = daekit.adjoint_gradient(rober, (0, 1), [1, 0, 0], K, g=g)
    assert not r.success and "no g here" in r.message
