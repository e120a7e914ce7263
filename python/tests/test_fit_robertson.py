"""The parameter-estimation example (examples/python/fit_robertson.py): least_squares with
daekit's forward sensitivities as the Jacobian recovers Robertson's rate constants from noisy
data, with fewer solves than finite-differenced whole solves (and, with the analytic df/dk,
jac_p, fewer evaluations of f)."""

import importlib.util
import os

import numpy as np

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python",
                       "fit_robertson.py")


def _load_example():
    spec = importlib.util.spec_from_file_location("fit_robertson_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sensitivity_fit_recovers_the_rate_constants_with_fewer_solves():
    ex = _load_example()
    fits = ex.main(guess_factors=(4.0, 0.25, 3.0), max_nfev=20, seed=7)
    truth = np.log(ex.K_TRUE)
    for jac, r in fits.items():
        assert r["success"], jac
        assert np.all(r["se"] > 0) and np.all(r["se"] < 0.05), (jac, r["se"])  # 1 % noise
        assert np.all(np.abs(r["theta"] - truth) < 3 * r["se"]), (jac, r["theta"], r["se"])
    sens, fd = fits["sensitivities"], fits["2-point"]
    # the same minimum, and one solve per residual evaluation against 1 + np per Jacobian
    np.testing.assert_allclose(sens["theta"], fd["theta"], atol=0.1 * sens["se"].min())
    assert sens["nsolve"] < fd["nsolve"]
    # the analytic df/dk (jac_p) saves the evaluations of f that differences in k cost
    analytic = fits["sensitivities+jac_p"]
    np.testing.assert_allclose(analytic["theta"], sens["theta"], atol=0.1 * sens["se"].min())
    assert analytic["nf"] < sens["nf"]


def test_sensitivity_jacobian_matches_central_differences():
    ex = _load_example()
    y_obs, sigma = ex.observations(seed=3)
    model = ex.Model(y_obs, sigma, sensitivities=True)
    theta = np.log(ex.K_TRUE * [1.5, 0.7, 2.0])
    J = model.jacobian(theta)
    plain = ex.Model(y_obs, sigma, sensitivities=False)
    for j in range(3):
        d = np.zeros(3)
        d[j] = 1e-4
        fd = (plain.residuals(theta + d) - plain.residuals(theta - d)) / 2e-4
        np.testing.assert_allclose(J[:, j], fd, rtol=1e-3, atol=1e-3 * np.abs(fd).max())
