"""solve_many takes solve_ivp's arguments with the same meaning (one shared processing): each
run equals solve_ivp with that run's p; anything else is refused by name."""

import numpy as np
import pytest
import scipy.sparse

import daekit

# Robertson's kinetics with the conservation law as an algebraic equation (M = diag(1, 1, 0)),
# rate constants k = p.
M_ROBERTSON = np.diag([1.0, 1.0, 0.0])
RATES = np.array([[0.04, 3e7, 1e4], [0.08, 3e7, 1e4], [0.04, 1e7, 2e4]])


def robertson(t, y, k):
    return [-k[0] * y[0] + k[2] * y[1] * y[2],
            k[0] * y[0] - k[2] * y[1] * y[2] - k[1] * y[1] ** 2,
            y[0] + y[1] + y[2] - 1.0]


def robertson_jac(t, y, k):
    return np.array([[-k[0], k[2] * y[2], k[2] * y[1]],
                     [k[0], -k[2] * y[2] - 2 * k[1] * y[1], -k[2] * y[1]],
                     [1.0, 1.0, 1.0]])


def robertson_scaled(t, y, scale, k):  # args=(scale,) before p
    return [scale * v for v in robertson(t, y, k)]


def _same_as_solve_ivp(fun, params, y0, t_span, **kw):
    ens = daekit.solve_many(fun, params, t_span=t_span, y0=y0, threads=2, **kw)
    assert len(ens) == len(params)
    for i, p in enumerate(params):
        # solve_many's default method is "auto", solve_ivp's radau5 (scipy's kind of default):
        # solve_ivp is asked for solve_many's
        one = daekit.solve_ivp(fun, t_span, y0, p=p, **dict(dict(method="auto"), **kw))
        assert ens.runs[i]["method"] == one.method
        assert ens.runs[i]["method_choice"] == one.method_choice
        assert ens.status[i] == one.daekit_status, (ens.message[i], one.message)
        assert np.array_equal(ens.y[i], one.result.y), (i, ens.y[i], one.result.y)
        assert ens.stats["naccept"][i] == one.stats["naccept"]
    return ens


def test_robertson_with_mass_as_a_dae():
    # without mass= honoured, the third equation became y3' = y1 + y2 + y3 - 1 and the runs
    # blew up to -5e37 with success reported
    ens = _same_as_solve_ivp(robertson, RATES, [1.0, 0.0, 0.0], (0, 40), mass=M_ROBERTSON,
                             rtol=1e-6, atol=1e-10)
    assert ens.success.all(), ens.message
    np.testing.assert_allclose(ens.y.sum(axis=1), 1.0, atol=1e-9)  # the algebraic equation
    assert ens.y[0][0] == pytest.approx(0.7158271, rel=1e-4)


@pytest.mark.parametrize("extra", [
    dict(jac=robertson_jac),
    dict(jac_sparsity=np.ones((3, 3))),
    dict(jac_sparsity=daekit.banded(2, 2), jac=robertson_jac),
    dict(index=[1, 1, 2], first_step=1e-6, max_step=5.0),
    dict(mass=scipy.sparse.csc_matrix(M_ROBERTSON), t_eval=[1.0, 10.0, 40.0]),
    dict(method="bdf", linear_solver="dense", max_steps=5000),
    dict(atol=[1e-10, 1e-12, 1e-10], nonnegative=[0, 1, 2]),
])
def test_each_argument_means_what_it_means_in_solve_ivp(extra):
    kw = dict(dict(mass=M_ROBERTSON, rtol=1e-6, atol=1e-10), **extra)
    ens = _same_as_solve_ivp(robertson, RATES, [1.0, 0.0, 0.0], (0, 40), **kw)
    assert ens.success.all(), ens.message
    if "jac" in extra:
        assert (ens.stats["njac"] > 0).all() and (ens.stats["nfev_jac"] == 0).all()
    if "t_eval" in extra:
        assert ens.runs[1]["t_out"].tolist() == [1.0, 10.0, 40.0]


def test_args_events_and_dense_output():
    ens = _same_as_solve_ivp(robertson_scaled, RATES[:2], [1.0, 0.0, 0.0], (0, 10),
                             args=(2.0,), mass=M_ROBERTSON, rtol=1e-6, atol=1e-10)
    assert ens.success.all()

    def y1_half(t, y, p):  # events get the run's p last
        return y[0] - 0.9

    y1_half.terminal = True
    ens = daekit.solve_many(robertson, RATES, t_span=(0, 40), y0=[1.0, 0.0, 0.0],
                            mass=M_ROBERTSON, events=[y1_half], rtol=1e-8, atol=1e-12)
    assert ens.status == ["terminal_event"] * 3
    np.testing.assert_allclose(ens.y[:, 0], 0.9, rtol=1e-7)
    one = daekit.solve_ivp(robertson, (0, 40), [1.0, 0.0, 0.0], p=RATES[1], mass=M_ROBERTSON,
                           events=[y1_half], rtol=1e-8, atol=1e-12, method="auto")
    assert ens.method == one.method == "radau"  # rtol 1e-8: auto's radau
    assert ens.t[1] == one.t_events[0][0]

    # dense output: each run's interpolant, as solve_ivp's
    ens = daekit.solve_many(robertson, RATES, t_span=(0, 40), y0=[1.0, 0.0, 0.0],
                            mass=M_ROBERTSON, dense_output=True, rtol=1e-6, atol=1e-10)
    one = daekit.solve_ivp(robertson, (0, 40), [1.0, 0.0, 0.0], p=RATES[2], mass=M_ROBERTSON,
                           dense_output=True, rtol=1e-6, atol=1e-10, method="auto")
    t = np.linspace(0, 40, 9)
    assert np.array_equal(ens.runs[2]["sol"](t), one.sol(t))


def test_initialize_per_run():
    # inconsistent y0 (y3 = 0.5 breaks y1 + y2 + y3 = 1): initialize=True computes y3 per run
    y0 = [1.0, 0.0, 0.5]
    ens = daekit.solve_many(robertson, RATES, t_span=(0, 1), y0=y0, mass=M_ROBERTSON,
                            initialize=True, rtol=1e-6, atol=1e-10)
    assert ens.success.all(), ens.message
    for i, p in enumerate(RATES):
        one = daekit.solve_ivp(robertson, (0, 1), y0, p=p, mass=M_ROBERTSON, initialize=True,
                               rtol=1e-6, atol=1e-10)
        assert np.array_equal(ens.y[i], one.result.y)


@pytest.mark.parametrize("bad, word", [
    (dict(mas=M_ROBERTSON), "mas"),
    (dict(foo=1), "foo"),
    (dict(p=[1.0, 2.0, 3.0]), "params"),
    (dict(vectorized=True), "vectorized"),
])
def test_unknown_or_misplaced_keywords_refused_by_name(bad, word):
    with pytest.raises((TypeError, ValueError), match=word):
        daekit.solve_many(robertson, RATES, t_span=(0, 1), y0=[1.0, 0.0, 0.0], **bad)


def test_problem_arguments_refused_for_problem_objects():
    # a built-in problem defines its own mass and Jacobian: giving them is an error, not ignored
    with pytest.raises(TypeError, match="mass"):
        daekit.solve_many("andrews", [[0.033]], mass=np.eye(27))
    prob = daekit.problem("vanderpol").problem
    with pytest.raises(TypeError, match="jac"):
        daekit.solve_ivp(prob, (0, 1), [2.0, 0.0], jac=np.eye(2))
