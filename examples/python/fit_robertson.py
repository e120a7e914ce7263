"""Parameter estimation with forward sensitivities: Robertson's three rate constants fitted to
noisy synthetic data by scipy.optimize.least_squares, the Jacobian of the residuals from one
solve with sensitivities (dy/dk by daekit), against the same fit with finite-differenced whole
solves (jac="2-point"). Prints the estimate, its standard errors, the truth and the cost.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/fit_robertson.py [OUTDIR]

The parameters are theta = log k (k1 = 0.04, k2 = 1e4, k3 = 3e7 differ by nine orders of
magnitude), so dr/dtheta_j = dr/dk_j * k_j; the residuals are weighted by the noise,
r = (y(t; k) - y_obs) / sigma, so dr/dk = S / sigma with S = dy/dk.
"""
import sys
import time

import numpy as np
from scipy.optimize import least_squares

import daekit

K_TRUE = np.array([0.04, 1e4, 3e7])
Y0 = [1.0, 0.0, 0.0]
T_OBS = np.logspace(-3, 4, 20)  # 20 log-spaced observation times
NOISE = 0.01  # relative noise of the observations
SOLVE = dict(rtol=1e-8, atol=[1e-12, 1e-14, 1e-12])  # well below the noise


class CountedRobertson:
    """Robertson's kinetics y' = f(t, y, k), counting its evaluations."""

    def __init__(self):
        self.nf = 0

    def __call__(self, t, y, k):
        self.nf += 1
        r1, r2, r3 = k[0] * y[0], k[1] * y[1] * y[2], k[2] * y[1] ** 2
        return [-r1 + r2, r1 - r2 - r3, r3]


def rober_jac(t, y, k):
    """df/dy (analytic: the sensitivities' stage Jacobians need no differences of f)."""
    a, b, c = k[0], k[1] * y[2], k[1] * y[1]
    d = 2 * k[2] * y[1]
    return [[-a, b, c], [a, -b - d, -c], [0.0, d, 0.0]]


def rober_jac_p(t, y, k):
    """df/dk (analytic: no differences of f in k either)."""
    return [[-y[0], y[1] * y[2], 0.0], [y[0], -y[1] * y[2], -y[1] ** 2], [0.0, 0.0, y[1] ** 2]]


def observations(seed=1):
    """y1, y2, y3 at T_OBS with relative Gaussian noise (fixed seed) and their sigmas."""
    res = daekit.solve_ivp(CountedRobertson(), (0, T_OBS[-1]), Y0, p=K_TRUE, t_eval=T_OBS,
                           rtol=1e-11, atol=[1e-16, 1e-18, 1e-16])
    assert res.success, res.message
    rng = np.random.default_rng(seed)
    y_obs = res.y * (1 + NOISE * rng.standard_normal(res.y.shape))
    return y_obs, NOISE * np.abs(y_obs)


class Model:
    """Weighted residuals and their Jacobian in theta = log k; counts solves and f calls."""

    def __init__(self, y_obs, sigma, sensitivities, jac_p=None):
        self.y_obs, self.sigma, self.sensitivities = y_obs, sigma, sensitivities
        self.jac_p = jac_p
        self.f = CountedRobertson()
        self.nsolve = 0
        self._cached = None  # (theta, S) of the last solve with sensitivities

    def _solve(self, theta):
        self.nsolve += 1
        k = np.exp(theta)
        res = daekit.solve_ivp(self.f, (0, T_OBS[-1]), Y0, p=k, t_eval=T_OBS,
                               jac=rober_jac, jac_p=self.jac_p,
                               sensitivities=self.sensitivities, **SOLVE)
        if not res.success:  # a guess far off: a large residual steers the fit back
            return np.full(self.y_obs.shape, 1e3), None
        return res.y, (res.sensitivities if self.sensitivities else None)

    def residuals(self, theta):
        y, S = self._solve(theta)
        if S is not None:
            self._cached = (theta.copy(), S)
        return ((y - self.y_obs) / self.sigma).ravel()

    def jacobian(self, theta):
        """dr/dtheta: S = dy/dk (n, np, len(t)) by the chain rule dk/dtheta = k."""
        if self._cached is None or not np.array_equal(self._cached[0], theta):
            self.residuals(theta)  # least_squares asks at the point it has just evaluated
        S = self._cached[1]
        k = np.exp(theta)
        J = S * k[None, :, None] / self.sigma[:, None, :]  # (n, np, t)
        return J.transpose(0, 2, 1).reshape(-1, len(theta))  # rows as r.ravel(): (i, t)


def fit(y_obs, sigma, theta0, jac, max_nfev=None):
    """least_squares with the sensitivities as its Jacobian (jac "sensitivities": df/dk by
    differences inside the solve; "sensitivities+jac_p": the analytic df/dk) or with finite
    differences of whole solves (scipy's "2-point", "3-point")."""
    sensitivities = jac.startswith("sensitivities")
    model = Model(y_obs, sigma, sensitivities,
                  jac_p=rober_jac_p if jac == "sensitivities+jac_p" else None)
    start = time.perf_counter()
    sol = least_squares(model.residuals, theta0,
                        jac=model.jacobian if sensitivities else jac,
                        x_scale="jac", max_nfev=max_nfev)
    wall = time.perf_counter() - start
    # standard errors of theta from J^T J (weighted residuals: covariance (J^T J)^-1,
    # scaled by the reduced chi-square so that a misjudged noise level shows)
    m, npar = sol.fun.size, sol.x.size
    s2 = 2 * sol.cost / (m - npar)
    cov = np.linalg.inv(sol.jac.T @ sol.jac) * s2
    return dict(theta=sol.x, se=np.sqrt(np.diag(cov)), cost=sol.cost, success=sol.success,
                nsolve=model.nsolve, nf=model.f.nf, wall=wall, nfev=sol.nfev, njev=sol.njev)


def main(guess_factors=(3.0, 0.3, 5.0),
         methods=("sensitivities", "sensitivities+jac_p", "2-point"), max_nfev=None, seed=1):
    y_obs, sigma = observations(seed)
    theta0 = np.log(K_TRUE * np.asarray(guess_factors))
    fits = {}
    for jac in methods:
        fits[jac] = fit(y_obs, sigma, theta0, jac, max_nfev)
    print("truth                k1 %.6g  k2 %.6g  k3 %.6g" % tuple(K_TRUE))
    print("guess                k1 %.6g  k2 %.6g  k3 %.6g" % tuple(np.exp(theta0)))
    for jac, r in fits.items():
        k = np.exp(r["theta"])
        print("%-20s " % jac + "  ".join("k%d %.6g +- %.2g%%" % (i + 1, k[i], 100 * r["se"][i])
                                         for i in range(3)))
        print("%20s cost %.4g, %d solves, %d f evaluations, %.2f s (nfev %d, njev %s)"
              % ("", r["cost"], r["nsolve"], r["nf"], r["wall"], r["nfev"], r["njev"]))
    return fits


if __name__ == "__main__":
    fits = main()
    for r in fits.values():  # the truth within 3 standard errors in log k
        assert r["success"] and np.all(np.abs(r["theta"] - np.log(K_TRUE)) < 3 * r["se"]), r
    assert fits["sensitivities"]["nsolve"] < fits["2-point"]["nsolve"]
