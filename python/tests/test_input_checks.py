"""Arrays crossing into the compiled core are real numbers of the expected shape: complex,
object and string arrays are refused (never cast), wrong shapes are refused (never reshaped or
truncated), and malformed sparse matrices are refused before anything indexes them (never a
crash, never a wrong answer)."""

import numpy as np
import pytest
import scipy.sparse

import daekit


def decay(t, y):
    return -y


def oscillator(t, y):
    return [y[1], -y[0]]


# --- arguments: refused before solving, naming the argument ---------------------------------

@pytest.mark.parametrize("kw, word", [
    (dict(y0=[1.0 + 1j, 0.0]), "y0"),
    (dict(y0=np.array([1.0, 0.0], dtype=complex)), "y0"),
    (dict(atol=[1e-6 + 0j, 1e-6j]), "atol"),
    (dict(t_eval=np.array([0.5, 1.0]) + 0j), "t_eval"),
    (dict(mass=np.eye(2) * (1 + 1j)), "mass"),
    (dict(jac=np.array([[0, 1], [-1, 0]], dtype=complex)), "jac"),
    (dict(p=[1j]), "p"),
    (dict(y0=np.array(["1", "0"])), "y0"),
    (dict(y0=np.array([1.0, None], dtype=object)), "y0"),
    (dict(mass=[["1", "0"], ["0", "1"]]), "mass"),
    (dict(rtol=1e-3 + 0j), "rtol"),
])
def test_complex_object_and_string_arguments_refused(kw, word):
    args = dict(y0=[1.0, 0.0])
    args.update(kw)
    y0 = args.pop("y0")
    with pytest.raises(TypeError, match=word):
        daekit.solve_ivp(oscillator, (0, 1), y0, **args)


@pytest.mark.parametrize("kw, word", [
    (dict(y0=[[1.0], [0.0]]), "y0"),
    (dict(atol=[1e-6, 1e-6, 1e-6]), "atol"),
    (dict(mass=np.eye(3)), "mass"),
    (dict(mass=[1.0, 1.0, 0.0]), "mass"),
    (dict(jac=np.eye(3)), "jac"),
    (dict(t_eval=[[0.5, 1.0]]), "t_eval"),
])
def test_wrong_shapes_refused(kw, word):
    args = dict(y0=[1.0, 0.0])
    args.update(kw)
    y0 = args.pop("y0")
    with pytest.raises(ValueError, match=word):
        daekit.solve_ivp(oscillator, (0, 1), y0, **args)


def test_index_tags_checked():
    with pytest.raises(TypeError, match="index"):
        daekit.solve_ivp(oscillator, (0, 1), [1.0, 0.0], index=[1j, 1])
    with pytest.raises(ValueError, match="index"):
        daekit.solve_ivp(oscillator, (0, 1), [1.0, 0.0], index=[1, 1, 2])


def test_solve_dae_and_integrator_refuse_complex_initial_values():
    def F(t, y, yp):
        return yp + y

    with pytest.raises(TypeError, match="yp0"):
        daekit.solve_dae(F, (0, 1), [1.0], yp0=[-1.0 + 0.5j])
    with pytest.raises(TypeError, match="y0"):
        daekit.solve_dae(F, (0, 1), [1.0 + 0.5j], yp0=[-1.0])
    with pytest.raises(TypeError, match="y0"):
        daekit.Integrator(decay, (0, 1), [1.0 + 2j])
    with pytest.raises(TypeError, match="mass"):
        daekit.Integrator(decay, (0, 1), [1.0], mass=[[1j]])


# --- callback results: the solve ends with callback_error naming the callback ----------------

def _failed(res, *words):
    assert not res.success and res.daekit_status == "callback_error", res.message
    for w in words:
        assert w in res.message, res.message


def test_complex_fun_output_is_a_callback_error():
    # y' = i y cast to real was y' = 0: success with y = 1 (wrong)
    res = daekit.solve_ivp(lambda t, y: 1j * y, (0, 1), [1.0])
    _failed(res, "f returned complex values")
    res = daekit.solve_ivp(lambda t, y: [complex(-y[0])], (0, 1), [1.0])
    _failed(res, "f returned complex values")


def test_complex_jac_event_and_action_outputs_are_callback_errors():
    res = daekit.solve_ivp(decay, (0, 1), [1.0], jac=lambda t, y: np.array([[-1 + 0j]]))
    _failed(res, "jac returned complex values")

    def ev(t, y):
        return complex(y[0] - 0.5)

    res = daekit.solve_ivp(decay, (0, 1), [1.0], events=ev)
    _failed(res, "event 'ev'", "complex")

    def half(t, y):
        return y[0] - 0.5

    half.action = lambda t, y: y + 0j
    res = daekit.solve_ivp(decay, (0, 1), [1.0], events=half)
    _failed(res, "action of event 'half'", "complex")


@pytest.mark.parametrize("out, word", [
    (lambda y: np.reshape(y, (2, 1)), "shape (2, 1)"),
    (lambda y: np.append(y, 0.0), "3 values, expected 2"),
    (lambda y: None, "None"),
    (lambda y: np.array(["1.0", "2.0"]), "dtype"),
    (lambda y: [y[1], "x"], "dtype"),
    (lambda y: {"a": 1}, "dict"),
])
def test_wrong_fun_outputs_are_callback_errors(out, word):
    res = daekit.solve_ivp(lambda t, y: out(y), (0, 1), [1.0, 0.0])
    _failed(res, "f returned", word)


def test_valid_output_forms_still_accepted():
    # lists, tuples, integers, big-endian and strided arrays are real vectors of the right shape
    big_endian = daekit.solve_ivp(lambda t, y: (-y).astype(">f8"), (0, 1), [1.0], rtol=1e-8,
                                  atol=1e-10)
    strided = daekit.solve_ivp(lambda t, y: np.repeat(-y, 2)[::2], (0, 1), [1.0], rtol=1e-8,
                               atol=1e-10)
    scalar = daekit.solve_ivp(lambda t, y: -y[0], (0, 1), [1.0], rtol=1e-8, atol=1e-10)
    for res in (big_endian, strided, scalar):
        assert res.success and res.y[0, -1] == pytest.approx(np.exp(-1), rel=1e-6)
    ints = daekit.solve_ivp(lambda t, y: (0, 1), (0, 1), [0.0, 0.0])
    assert ints.success and ints.y[1, -1] == pytest.approx(1.0)


def test_event_must_return_a_number():
    res = daekit.solve_ivp(decay, (0, 1), [1.0], events=lambda t, y: [y[0], y[0]])
    _failed(res, "must return a number")
    res = daekit.solve_ivp(decay, (0, 1), [1.0], events=lambda t, y: None)
    _failed(res, "None")


# --- MechanicalSystem -------------------------------------------------------------------------

def _pendulum(mass):
    return daekit.MechanicalSystem(
        2, 1, mass, lambda t, q, v: [0.0, -9.81],
        g=lambda t, q: [q[0] ** 2 + q[1] ** 2 - 1.0])


def test_mechanical_constant_mass_shape_and_type():
    with pytest.raises(ValueError, match="mass"):
        _pendulum(np.eye(3))  # was truncated to its upper left 2 x 2 block
    with pytest.raises(ValueError, match="mass"):
        _pendulum(np.ones(2))
    with pytest.raises(TypeError, match="mass"):
        _pendulum(np.eye(2) + 0j)
    with pytest.raises(TypeError, match="p"):
        daekit.MechanicalSystem(2, 1, np.eye(2), lambda t, q, v, p: [0.0, -p[0]],
                                g=lambda t, q, p: [q[0] ** 2 + q[1] ** 2 - 1.0], p=[9.81j])
    sys = _pendulum(np.eye(2))
    res = sys.solve((0, 0.5), [1.0, 0.0], [0.0, 0.0], rtol=1e-6, atol=1e-8)
    assert res.success, res.message


def test_mechanical_callback_results_checked():
    sys = daekit.MechanicalSystem(2, 1, np.eye(2), lambda t, q, v: [0.0, -9.81 + 0j],
                                  g=lambda t, q: [q[0] ** 2 + q[1] ** 2 - 1.0])
    with pytest.raises(Exception, match="complex"):  # consistent initial values need f
        sys.solve((0, 0.5), [1.0, 0.0], [0.0, 0.0])


# --- sparse matrices ----------------------------------------------------------------------------

M3 = np.diag([1.0, 1.0, 0.0])


def _robertson(t, y):
    return [-0.04 * y[0] + 1e4 * y[1] * y[2],
            0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
            y[0] + y[1] + y[2] - 1]


def _bad_indptr():
    m = scipy.sparse.csc_matrix(M3)
    m.indptr = np.array([0, 1, 5, 2], dtype=m.indptr.dtype)
    return m


def _short_data():
    m = scipy.sparse.csc_matrix(M3)
    m.data = m.data[:1]
    return m


def _bad_row():
    m = scipy.sparse.csc_matrix(M3)
    m.indices = np.array([0, 7], dtype=m.indices.dtype)
    return m


@pytest.mark.parametrize("make, word", [
    (_bad_indptr, "indptr"), (_short_data, "values"), (_bad_row, "row")])
def test_malformed_csc_mass_and_sparsity_refused(make, word):
    # bad indptr crashed the interpreter; short data read past its end and reported success
    with pytest.raises(ValueError, match=word):
        daekit.solve_ivp(_robertson, (0, 1), [1.0, 0.0, 0.0], mass=make())
    with pytest.raises(ValueError, match=word):
        daekit.solve_ivp(_robertson, (0, 1), [1.0, 0.0, 0.0], mass=M3, jac_sparsity=make())


def test_compiled_module_checks_csc_arrays_itself():
    # the private constructor validates what it is given, whoever calls it
    f = daekit._ivp.as_callback(_robertson, daekit.RHS)
    good = (np.array([0, 1, 2, 2]), np.array([0, 1]), np.array([1.0, 1.0]))
    bad = [
        ((np.array([0, 1, 9, 2]), good[1], good[2]), "indptr"),
        ((np.array([1, 1, 2, 2]), good[1], good[2]), "indptr"),
        ((np.array([0, 1, 2]), good[1], good[2]), "indptr"),
        ((good[0], np.array([0, 3]), good[2]), "row index"),
        ((good[0], np.array([0, -1]), good[2]), "row index"),
        ((good[0], good[1], np.array([1.0])), "values"),
        ((good[0], good[1], np.array([1.0, 1j])), "complex"),
        ((good[0], good[1].astype(float), good[2]), "integers"),
    ]
    for arrays, word in bad:
        with pytest.raises((ValueError, TypeError), match=word):
            daekit._daekit._make_mass_problem(3, f, None, None, ("csc",) + arrays, [], None, [],
                                              "p", (), False)
        with pytest.raises((ValueError, TypeError), match=word):
            daekit._daekit._make_mass_problem(3, f, None, ("csc",) + arrays, None, [], None, [],
                                              "p", (), False)


def _coo_bad_column(J):
    m = scipy.sparse.coo_matrix(J)
    col = m.col.copy()
    col[-1] = 40
    m.col = col
    return m


def _csr_bad_indptr(J):
    m = scipy.sparse.csr_matrix(J)
    m.indptr = m.indptr.copy()
    m.indptr[1] = m.indptr[-1] + 5
    return m


def _csc_short_data(J):
    m = scipy.sparse.csc_matrix(J)
    m.data = m.data[:-1].copy()
    return m


@pytest.mark.parametrize("mangle", [_coo_bad_column, _csr_bad_indptr, _csc_short_data])
@pytest.mark.parametrize("sparsity", [None, "pattern"])
def test_malformed_sparse_jacobian_output_is_a_callback_error(mangle, sparsity):
    def jac(t, y):
        J = np.array([[-0.04, 1e4 * y[2], 1e4 * y[1]],
                      [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]],
                      [1.0, 1.0, 1.0]])
        return mangle(J)

    kw = dict(jac_sparsity=np.ones((3, 3))) if sparsity else {}
    res = daekit.solve_ivp(_robertson, (0, 1), [1.0, 0.0, 0.0], mass=M3, jac=jac, **kw)
    _failed(res, "jac returned a sparse matrix")


def test_constant_sparse_jacobian_checked_and_used():
    J = scipy.sparse.csr_matrix(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    res = daekit.solve_ivp(oscillator, (0, 1), [0.0, 1.0], jac=J, rtol=1e-8, atol=1e-10)
    assert res.success and res.y[0, -1] == pytest.approx(np.sin(1.0), rel=1e-6)
    with pytest.raises(ValueError, match="jac"):
        daekit.solve_ivp(oscillator, (0, 1), [0.0, 1.0], jac=_coo_bad_column(J.toarray()))
